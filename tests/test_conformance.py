"""WebNN conformance cases (tests/data/webnn_cases.json, see tests/data/README.md) through dmlcpu.

Data movement (split, join, slice, tile) must match bit for bit. Every slice case runs as SLICE1
(window offsets, sizes, strides and the output shape), and also as SLICE when the case has a
DirectML SLICE form (every stride positive). The cumulative sums run through
CUMULATIVE_SUMMATION with the case's tolerance in ULP, measured on the integer bit patterns.

WebNN's 0-D (scalar) cases run as shape [1]: DirectML needs 1 to 8 dimensions, and a scalar is
the one-element tensor. Their per-dimension fields (empty lists) become [0] offsets, [1] sizes,
[1] strides and [1] repeats.
"""
import json
import os

import numpy as np
import pytest

import dmlcpu as dml
from arrays import sentinel_array
from conftest import assert_same_bits
from reference import ulp_distance

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "data", "webnn_cases.json"), encoding="utf-8") as f:
    CASES = json.load(f)["cases"]


def cases(*ops, where=lambda case: True):
    return [pytest.param(case, id=case["name"]) for case in CASES
            if case["op"] in ops and where(case)]


def is_scalar(tensor):
    return len(tensor["shape"]) == 0


def array_of(tensor):
    """The case's tensor as a C-contiguous array; exact for float16 (its values are exact)."""
    shape = tensor["shape"] or [1]
    data = np.array(tensor["data"], dtype=tensor["dtype"])
    assert data.size == int(np.prod(shape)), "case data does not fill its shape"
    return data.reshape(shape)


def per_dim(values, scalar_value):
    """A per-dimension field, or [scalar_value] for a 0-D case."""
    return list(values) if len(values) else [scalar_value]


def test_the_file_holds_every_case():
    ops = [case["op"] for case in CASES]
    assert len(CASES) == 186
    assert len({case["name"] for case in CASES}) == len(CASES), "case names must be unique"
    assert {op: ops.count(op) for op in set(ops)} == {
        "tile": 58, "join": 53, "slice": 36, "split": 26, "cumsum": 13}


@pytest.mark.parametrize("case", cases("split"))
def test_split(case):
    x = array_of(case["inputs"][0])
    outputs = dml.split(x, axis=case["attrs"]["axis"], output_axis_sizes=case["attrs"]["split"])
    assert len(outputs) == len(case["outputs"])
    for k, (actual, expected) in enumerate(zip(outputs, case["outputs"])):
        assert_same_bits(actual, array_of(expected), f"output {k}")


@pytest.mark.parametrize("case", cases("join"))
def test_join(case):
    inputs = [array_of(t) for t in case["inputs"]]
    out = dml.join(inputs, axis=case["attrs"]["axis"])
    assert_same_bits(out, array_of(case["outputs"][0]))


@pytest.mark.parametrize("case", cases("tile"))
def test_tile(case):
    x = array_of(case["inputs"][0])
    out = dml.tile(x, repeats=per_dim(case["attrs"]["repeats"], 1))
    assert_same_bits(out, array_of(case["outputs"][0]))


@pytest.mark.parametrize("case", cases("slice"))
def test_slice_as_slice1(case):
    attrs = case["attrs"]
    x = array_of(case["inputs"][0])
    expected = array_of(case["outputs"][0])
    assert list(expected.shape) == per_dim(attrs["out_shape"], 1)
    out = dml.slice1(x, input_window_offsets=per_dim(attrs["window_offsets"], 0),
                     input_window_sizes=per_dim(attrs["window_sizes"], 1),
                     input_window_strides=per_dim(attrs["window_strides"], 1),
                     output_sizes=per_dim(attrs["out_shape"], 1))
    assert_same_bits(out, expected)


@pytest.mark.parametrize("case", cases("slice"))
def test_slice_as_slice1_into_out(case):
    # the same window, written into a caller's array: output_sizes comes from out's shape
    attrs = case["attrs"]
    x = array_of(case["inputs"][0])
    expected = array_of(case["outputs"][0])
    out = sentinel_array(expected.dtype, expected.shape)
    result = dml.slice1(x, input_window_offsets=per_dim(attrs["window_offsets"], 0),
                        input_window_sizes=per_dim(attrs["window_sizes"], 1),
                        input_window_strides=per_dim(attrs["window_strides"], 1), out=out)
    assert result is out
    assert_same_bits(out, expected)


@pytest.mark.parametrize("case", cases("slice", where=lambda c: c["attrs"]["dml_slice"]))
def test_slice(case):
    form = case["attrs"]["dml_slice"]
    x = array_of(case["inputs"][0])
    out = dml.slice(x, offsets=per_dim(form["offsets"], 0), sizes=per_dim(form["sizes"], 1),
                    strides=per_dim(form["strides"], 1))
    assert_same_bits(out, array_of(case["outputs"][0]))


def assert_within_ulp(actual, expected, tolerance):
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    if expected.dtype.kind != "f":
        assert tolerance == 0
        np.testing.assert_array_equal(actual, expected)
        return
    nan = np.isnan(expected)
    np.testing.assert_array_equal(np.isnan(actual), nan, "NaNs differ")
    distance = ulp_distance(actual[~nan], expected[~nan])
    assert distance.size == 0 or distance.max() <= tolerance, (
        f"{distance.max()} ULP apart (tolerance {tolerance}): got {actual.ravel().tolist()}, "
        f"expected {expected.ravel().tolist()}")


@pytest.mark.parametrize("case", cases("cumsum"))
def test_cumulative_summation(case):
    attrs = case["attrs"]
    assert case["tolerance"]["metric"] == "ULP"
    x = array_of(case["inputs"][0])
    direction = (dml.AxisDirection.DECREASING if attrs["reverse"]
                 else dml.AxisDirection.INCREASING)
    out = dml.cumulative_summation(x, axis=attrs["axis"], axis_direction=direction,
                                   has_exclusive_sum=attrs["exclusive"])
    assert_within_ulp(out, array_of(case["outputs"][0]), case["tolerance"]["value"])


def test_ulp_distance_on_bit_patterns():
    # the measure the cumulative sums rely on: neighbours are 1 apart, across zero too
    for dtype in (np.float16, np.float32, np.float64):
        one = np.array([1.0], dtype=dtype)
        up = np.nextafter(one, dtype(2))
        assert ulp_distance(one, up).tolist() == [1]
        assert ulp_distance(-one, -up).tolist() == [1]
        tiny = np.nextafter(np.zeros(1, dtype), dtype(1))
        assert ulp_distance(-tiny, tiny).tolist() == [2]
        assert ulp_distance(np.array([-0.0], dtype), np.array([0.0], dtype)).tolist() == [0]
