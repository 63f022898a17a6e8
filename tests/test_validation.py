"""Every validation rule of the eager API: it fires, with its exception and message, and nothing
is written. The expected messages are written out by hand from docs/semantics.md and
docs/feature-levels.md."""

import numpy as np
import pytest

import dmlcpu as dml
from dmlcpu import InvalidArgumentError

SENTINEL = 0x5A


def f32(*shape):
    return np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)


def sentinel_like(shape, dtype=np.float32):
    out = np.empty(shape, dtype=dtype)
    out.view(np.uint8)[...] = SENTINEL
    return out


def raises_exactly(call, message, exc=InvalidArgumentError):
    with pytest.raises(exc) as info:
        call()
    assert str(info.value) == message
    return info.value


def raises_match(call, pattern, exc=InvalidArgumentError):
    with pytest.raises(exc, match=pattern) as info:
        call()
    return info.value


def untouched(out):
    return bool((out.view(np.uint8) == SENTINEL).all())


# ---------------------------------------------------------------- feature levels and modes

@pytest.mark.parametrize("op,call,introduced", [
    ("SLICE1", lambda lv: dml.slice1(f32(1, 1, 2, 2), input_window_offsets=[0] * 4,
                                     input_window_sizes=[1, 1, 2, 2], feature_level=lv), "2_1"),
    ("CUMULATIVE_SUMMATION", lambda lv: dml.cumulative_summation(f32(1, 1, 2, 2), axis=3,
                                                                 feature_level=lv), "2_1"),
    ("CUMULATIVE_PRODUCT", lambda lv: dml.cumulative_product(f32(1, 1, 2, 2), axis=3,
                                                             feature_level=lv), "3_1"),
])
def test_operator_does_not_exist_before_its_level(op, call, introduced):
    before = {"2_1": "2_0", "3_1": "3_0"}[introduced]
    raises_exactly(lambda: call(before), f"{op}: the operator does not exist at feature level "
                                         f"{before}; it was introduced in {introduced}")


def test_feature_level_spellings_are_equivalent():
    x = f32(1, 1, 6, 2)
    for level in ("4_1", "4.1", "FL_4_1", "DML_FEATURE_LEVEL_4_1", 0x4100, dml.FeatureLevel.FL_4_1):
        parts = dml.split(x.astype(np.float64), axis=2, output_axis_sizes=[3, 3],
                          feature_level=level)
        assert [p.shape for p in parts] == [(1, 1, 3, 2)] * 2


@pytest.mark.parametrize("level", ["4_2", "7_0", 0x4200, "", "latest"])
def test_unknown_feature_level(level):
    raises_match(lambda: dml.split(f32(4), axis=0, output_axis_sizes=[4], feature_level=level),
                 r"is not a DirectML feature level; use one of 1_0, 2_0, 2_1")


def test_feature_level_of_wrong_type():
    raises_match(lambda: dml.split(f32(4), axis=0, output_axis_sizes=[4], feature_level=4.1),
                 "feature_level must be", TypeError)


def test_data_type_not_supported_at_level_lists_supported_types():
    x = f32(1, 1, 6, 2).astype(np.float64)
    raises_exactly(lambda: dml.split(x, axis=2, output_axis_sizes=[6], feature_level="4_0"),
                   "SPLIT: input (InputTensor).DataType is FLOAT64 but must be one of FLOAT32, "
                   "FLOAT16, INT32, INT16, INT8, UINT32, UINT16, UINT8 at feature level 4_0")
    # the first level where it appears
    assert dml.split(x, axis=2, output_axis_sizes=[6], feature_level="4_1")[0].dtype == np.float64


def test_int8_appears_at_2_1():
    x = np.zeros((1, 1, 2, 2), np.int8)
    raises_match(lambda: dml.join([x, x], axis=3, feature_level="2_0"),
                 r"^JOIN: OutputTensor.DataType is INT8 but must be one of FLOAT32, FLOAT16, "
                 r"INT32, INT16, UINT32, UINT16 at feature level 2_0$")
    assert dml.join([x, x], axis=3, feature_level="2_1").shape == (1, 1, 2, 4)


def test_tile_never_takes_float64_in_strict_mode_but_extended_does():
    x = np.ones((1, 1, 1, 2))
    raises_match(lambda: dml.tile(x, repeats=[1, 1, 1, 2], feature_level="6_4"),
                 r"^TILE: input \(InputTensor\).DataType is FLOAT64 but must be one of FLOAT32, "
                 r"FLOAT16, INT64, INT32, INT16, INT8, UINT64, UINT32, UINT16, UINT8 at feature "
                 r"level 6_4$")
    assert dml.tile(x, repeats=[1, 1, 1, 2]).shape == (1, 1, 1, 4)


@pytest.mark.parametrize("dtype", [np.bool_, np.complex64, np.dtype(">f4"), np.dtype("<M8[s]")])
def test_numpy_dtype_without_a_directml_type(dtype):
    x = np.zeros(4, dtype=dtype)
    error = raises_match(lambda: dml.tile(x, repeats=[2]),
                         r"^TILE: input \(InputTensor\).DataType is NumPy .* but must be one of "
                         r"FLOAT64 \(float64\), FLOAT32 \(float32\), FLOAT16 \(float16\), INT64")
    assert "in extended mode" in str(error)


def test_data_types_must_match():
    a, b = f32(2, 3), np.zeros((2, 3), np.int32)
    raises_exactly(lambda: dml.join([a, b], axis=0),
                   "JOIN: inputs[1] (InputTensors[1]).DataType is INT32 but must equal "
                   "OutputTensor.DataType (FLOAT32)")
    out = sentinel_like((2, 3), np.int32)
    raises_exactly(lambda: dml.tile(a, repeats=[1, 1], out=out),
                   "TILE: out (OutputTensor).DataType is INT32 but must equal input "
                   "(InputTensor).DataType (FLOAT32)")
    assert untouched(out)


@pytest.mark.parametrize("shape,level,rule", [
    ((), None, "be between 1 and 8 in extended mode"),
    ((1,) * 9, None, "be between 1 and 8 in extended mode"),
    ((1, 6, 2), "2_1", "be 4 at feature level 2_1"),
    ((1, 1, 1, 6, 2), "2_1", "be 4 at feature level 2_1"),
])
def test_dimension_count_range(shape, level, rule):
    x = np.zeros(shape, np.float32)
    raises_exactly(lambda: dml.split(x, axis=0, output_axis_sizes=[1], feature_level=level),
                   f"SPLIT: input (InputTensor).DimensionCount is {len(shape)} but must {rule}")


@pytest.mark.parametrize("op,ndim,level,ok", [
    ("SPLIT", 3, "3_0", True), ("JOIN", 5, "3_0", True), ("JOIN", 3, "3_0", False),
    ("JOIN", 3, "3_1", True), ("SLICE", 5, "1_0", True), ("SLICE", 3, "2_1", False),
    ("SLICE", 3, "3_0", True), ("TILE", 5, "3_0", False), ("TILE", 5, "3_1", True),
])
def test_dimension_count_boundaries(op, ndim, level, ok):
    x = np.zeros((1,) * ndim, np.float32)
    calls = {
        "SPLIT": lambda: dml.split(x, axis=0, output_axis_sizes=[1], feature_level=level),
        "JOIN": lambda: dml.join([x], axis=0, feature_level=level),
        "SLICE": lambda: dml.slice(x, offsets=[0] * ndim, sizes=[1] * ndim, feature_level=level),
        "TILE": lambda: dml.tile(x, repeats=[1] * ndim, feature_level=level),
    }
    if ok:
        calls[op]()
    else:
        raises_match(calls[op], rf"^{op}: .*DimensionCount is {ndim} but must be")


def test_dimension_counts_must_match():
    raises_exactly(lambda: dml.join([f32(2, 3), f32(1, 2, 3)], axis=0),
                   "JOIN: inputs[1] (InputTensors[1]).DimensionCount is 3 but must equal "
                   "OutputTensor.DimensionCount (2)")


def test_zero_sizes_refused_in_strict_mode_only():
    x = np.zeros((1, 1, 0, 2), np.float32)
    raises_exactly(lambda: dml.tile(x, repeats=[1, 1, 1, 1], feature_level="4_0"),
                   "TILE: input (InputTensor).Sizes[2] is 0 but must be at least 1 (and 1 more: "
                   "see .violations)")
    assert dml.tile(x, repeats=[1, 1, 1, 3]).shape == (1, 1, 0, 6)


def test_violations_lists_every_rule():
    error = raises_match(lambda: dml.join([f32(2, 3), f32(3, 3).astype(np.int32)], axis=1),
                         r"^JOIN: inputs\[1\] \(InputTensors\[1\]\).DataType is INT32")
    assert error.violations == [
        "JOIN: inputs[1] (InputTensors[1]).DataType is INT32 but must equal OutputTensor.DataType "
        "(FLOAT32)",
        "JOIN: inputs[1] (InputTensors[1]).Sizes[0] is 3 but must equal OutputTensor.Sizes[0] (2); "
        "only Axis 1 may differ",
    ]


def test_32_bit_limits_in_strict_mode():
    big = np.broadcast_to(np.zeros(1, np.float32), (2**32,))
    raises_exactly(lambda: dml.slice(big, offsets=[0], sizes=[1], feature_level="6_4"),
                   f"SLICE: input (InputTensor).Sizes[0] is {2**32} but must fit in 32 bits (at "
                   f"most {2**32 - 1})")
    many = np.broadcast_to(np.zeros(1, np.float32), (2**16, 2**16 + 1))
    raises_exactly(lambda: dml.slice(many, offsets=[0, 0], sizes=[1, 1], feature_level="6_4"),
                   f"SLICE: input (InputTensor) element count is {2**16 * (2**16 + 1)} but must be "
                   f"at most {2**32 - 1} (2^32 - 1)")
    # extended mode takes 64-bit sizes
    assert dml.slice(big, offsets=[2**32 - 2], sizes=[2]).shape == (2,)


# ---------------------------------------------------------------- arguments of the wrong kind

@pytest.mark.parametrize("bad", [[1.0, 2.0], None, object(), "abc", 3])
def test_input_that_is_not_an_array_is_a_type_error(bad):
    raises_match(lambda: dml.tile(bad, repeats=[1]),
                 r"input \(InputTensor\) must be an array, a buffer or a __dlpack__ "
                 r"object", TypeError)


@pytest.mark.parametrize("axis", [1.0, "1", None, True])
def test_axis_must_be_an_integer(axis):
    raises_match(lambda: dml.split(f32(2, 2), axis=axis, output_axis_sizes=[2]),
                 "Axis must be an integer", TypeError)


def test_integer_lists_must_be_sequences_of_integers():
    raises_match(lambda: dml.tile(f32(2), repeats=2), "Repeats must be a sequence", TypeError)
    raises_match(lambda: dml.tile(f32(2), repeats=[2.5]), r"Repeats\[0\] must be an integer",
                 TypeError)


def test_exclusive_flag_is_a_bool():
    raises_exactly(lambda: dml.cumulative_summation(f32(3), axis=0, has_exclusive_sum=2),
                   "HasExclusiveSum is 2 but must be 0 or 1 (a BOOL)")


def test_axis_direction_is_checked():
    raises_exactly(lambda: dml.cumulative_product(f32(3), axis=0, axis_direction=2),
                   "CUMULATIVE_PRODUCT: AxisDirection is 2 but must be "
                   "DML_AXIS_DIRECTION_INCREASING (0) or DML_AXIS_DIRECTION_DECREASING (1)")


# ---------------------------------------------------------------- SPLIT and JOIN

def test_axis_out_of_range():
    raises_exactly(lambda: dml.split(f32(1, 1, 6, 2), axis=4, output_axis_sizes=[6]),
                   "SPLIT: Axis is 4 but must be in [0, 3] (DimensionCount - 1)")
    raises_exactly(lambda: dml.join([f32(2, 2)], axis=-1),
                   "JOIN: Axis is -1 but must be in [0, 1] (DimensionCount - 1)")
    raises_exactly(lambda: dml.cumulative_summation(f32(2, 2), axis=2),
                   "CUMULATIVE_SUMMATION: Axis is 2 but must be in [0, 1] (DimensionCount - 1)")


def test_counts_at_least_one():
    raises_exactly(lambda: dml.split(f32(2), axis=0, output_axis_sizes=[]),
                   "SPLIT: OutputCount is 0 but must be at least 1")
    raises_exactly(lambda: dml.join([], axis=0), "JOIN: InputCount is 0 but must be at least 1")


def test_split_sizes_must_add_up():
    raises_exactly(lambda: dml.split(f32(1, 1, 6, 2), axis=2, output_axis_sizes=[2, 1, 2]),
                   "SPLIT: the sum of OutputTensors[*].Sizes[2] is 5 but must equal input "
                   "(InputTensor).Sizes[2] (6)")


def test_split_outputs_must_match_but_along_axis():
    outs = [sentinel_like((1, 1, 3, 2)), sentinel_like((1, 1, 3, 5))]
    raises_exactly(lambda: dml.split(f32(1, 1, 6, 2), axis=2, output_axis_sizes=[3, 3],
                                     outputs=outs),
                   "SPLIT: outputs[1] (OutputTensors[1]).Sizes[3] is 5 but must equal input "
                   "(InputTensor).Sizes[3] (2); only Axis 2 may differ")
    assert all(untouched(o) for o in outs)


def test_split_output_axis_sizes_must_describe_outputs():
    outs = [sentinel_like((1, 1, 2, 2)), sentinel_like((1, 1, 4, 2))]
    raises_exactly(lambda: dml.split(f32(1, 1, 6, 2), axis=2, output_axis_sizes=[3, 3],
                                     outputs=outs),
                   "SPLIT: outputs[0] (OutputTensors[0]).Sizes[2] is 2 but must equal "
                   "output_axis_sizes[0] (3)")
    raises_match(lambda: dml.split(f32(1, 1, 6, 2), axis=2, output_axis_sizes=[6],
                                   outputs=outs),
                 "output_axis_sizes has 1 entries but outputs has 2")
    assert all(untouched(o) for o in outs)


def test_join_inputs_must_match_and_add_up():
    out = sentinel_like((2, 7))
    raises_exactly(lambda: dml.join([f32(2, 3), f32(2, 3)], axis=1, out=out),
                   "JOIN: the sum of inputs[*] (InputTensors[*]).Sizes[1] is 6 but must equal out "
                   "(OutputTensor).Sizes[1] (7)")
    raises_exactly(lambda: dml.join([f32(2, 3), f32(3, 4)], axis=1, out=out),
                   "JOIN: inputs[1] (InputTensors[1]).Sizes[0] is 3 but must equal out "
                   "(OutputTensor).Sizes[0] (2); only Axis 1 may differ")
    assert untouched(out)


# ---------------------------------------------------------------- SLICE

def test_slice_field_counts():
    raises_exactly(lambda: dml.slice(f32(4, 4), offsets=[0], sizes=[1, 1]),
                   "SLICE: Offsets count is 1 but must equal DimensionCount (2)")


def test_slice_uint_fields_are_not_negative():
    raises_exactly(lambda: dml.slice(f32(4, 4), offsets=[0, 0], sizes=[2, 2], strides=[1, -1]),
                   "SLICE: Strides[1] is -1 but must be at least 0 (a UINT)")


def test_slice_sizes_equal_output_sizes():
    out = sentinel_like((2, 3))
    raises_exactly(lambda: dml.slice(f32(4, 4), offsets=[0, 0], sizes=[2, 2], out=out),
                   "SLICE: Sizes[1] is 2 but must equal out (OutputTensor).Sizes[1] (3)")
    assert untouched(out)


def test_slice_reads_in_bounds():
    raises_exactly(lambda: dml.slice(f32(4, 4), offsets=[0, 1], sizes=[2, 2], strides=[1, 3]),
                   "SLICE: Offsets[1] + Strides[1] * (Sizes[1] - 1) is 1 + 3 * 1 = 4 but must be "
                   "less than input (InputTensor).Sizes[1] (4)")
    # the largest window that fits
    assert dml.slice(f32(4, 4), offsets=[0, 0], sizes=[4, 2], strides=[1, 3]).shape == (4, 2)


def test_slice_empty_output_offset_bound():
    raises_exactly(lambda: dml.slice(f32(4, 4), offsets=[0, 5], sizes=[2, 0]),
                   "SLICE: Offsets[1] is 5 but must be at most input (InputTensor).Sizes[1] (4)")


def test_slice_fields_fit_32_bits_in_strict_mode():
    raises_exactly(lambda: dml.slice(f32(1, 1, 4, 4), offsets=[0, 0, 0, 2**32], sizes=[1] * 4,
                                     feature_level="4_0"),
                   f"SLICE: Offsets[3] is {2**32} but must fit in 32 bits (at most {2**32 - 1}) "
                   f"(and 1 more: see .violations)")


# ---------------------------------------------------------------- SLICE1

def s1(x, offsets, sizes, strides=None, **kw):
    return dml.slice1(x, input_window_offsets=offsets, input_window_sizes=sizes,
                      input_window_strides=strides, **kw)


def test_slice1_stride_never_zero():
    raises_exactly(lambda: s1(f32(4, 4), [0, 0], [2, 2], [1, 0], output_sizes=[2, 2]),
                   "SLICE1: InputWindowStrides[1] is 0 but must not be 0")


def test_slice1_window_inside_input():
    raises_exactly(lambda: s1(f32(4, 4), [0, 3], [2, 2]),
                   "SLICE1: InputWindowOffsets[1] + InputWindowSizes[1] is 3 + 2 but must be at "
                   "most input (InputTensor).Sizes[1] (4)")


def test_slice1_window_never_empty_in_strict_mode():
    raises_exactly(lambda: s1(f32(1, 1, 4, 4), [0] * 4, [1, 1, 0, 4], output_sizes=[1, 1, 1, 4],
                              feature_level="3_0"),
                   "SLICE1: InputWindowSizes[2] is 0 but must be at least 1 (the window is never "
                   "empty)")


def test_slice1_output_size_bounds():
    out = sentinel_like((3, 2))
    raises_exactly(lambda: s1(f32(4, 4), [0, 0], [4, 4], [2, 2], out=out),
                   "SLICE1: out (OutputTensor).Sizes[0] is 3 but must be between 1 and 1 + "
                   "(InputWindowSizes[0] - 1) // |InputWindowStrides[0]| (2)")
    assert untouched(out)
    # fewer elements than the window holds is allowed
    assert s1(f32(4, 4), [0, 0], [4, 4], [-1, 1], output_sizes=[2, 4]).tolist() == [
        [12, 13, 14, 15], [8, 9, 10, 11]]


def test_slice1_output_sizes_must_describe_out():
    out = sentinel_like((2, 2))
    raises_exactly(lambda: s1(f32(4, 4), [0, 0], [4, 4], output_sizes=[2, 3], out=out),
                   "SLICE1: out (OutputTensor).Sizes is [2, 2] but must equal output_sizes ([2, "
                   "3])")
    assert untouched(out)


def test_slice1_strides_fit_int32_in_strict_mode():
    raises_exactly(lambda: s1(f32(1, 1, 4, 4), [0] * 4, [1, 1, 4, 4], [1, 1, 1, -2**31 - 1],
                              output_sizes=[1, 1, 4, 1], feature_level="4_0"),
                   f"SLICE1: InputWindowStrides[3] is {-2**31 - 1} but must fit in 32 bits (an "
                   f"INT)")


# ---------------------------------------------------------------- TILE and the scans

def test_tile_repeats():
    raises_exactly(lambda: dml.tile(f32(2, 2), repeats=[1]),
                   "TILE: Repeats count is 1 but must equal DimensionCount (2)")
    raises_exactly(lambda: dml.tile(f32(2, 2), repeats=[1, 0]),
                   "TILE: Repeats[1] is 0 but must be at least 1")


def test_tile_output_sizes():
    out = sentinel_like((2, 5))
    raises_exactly(lambda: dml.tile(f32(2, 2), repeats=[1, 2], out=out),
                   "TILE: out (OutputTensor).Sizes[1] is 5 but must equal input "
                   "(InputTensor).Sizes[1] * Repeats[1] (2 * 2 = 4)")
    assert untouched(out)


def test_scan_output_sizes():
    out = sentinel_like((2, 3))
    raises_exactly(lambda: dml.cumulative_summation(f32(3, 2), axis=0, out=out),
                   "CUMULATIVE_SUMMATION: out (OutputTensor).Sizes[0] is 2 but must equal input "
                   "(InputTensor).Sizes[0] (3) (and 1 more: see .violations)")
    assert untouched(out)


# ---------------------------------------------------------------- outputs: writable, no overlap

def test_read_only_output():
    out = np.zeros((2, 2), np.float32)
    out.flags.writeable = False
    raises_exactly(lambda: dml.tile(f32(2, 2), repeats=[1, 1], out=out),
                   "out (OutputTensor) is read-only but must be writable")
    raises_match(lambda: dml.tile(f32(2, 2), repeats=[1, 1], out=bytes(16)),
                 "read-only")


def test_output_overlapping_input():
    base = np.zeros(16, np.float32)
    x = base[:8]
    raises_exactly(lambda: dml.tile(x, repeats=[1], out=base[4:12]),
                   "TILE: out (OutputTensor) overlaps input (InputTensor) in memory; an output "
                   "must not overlap an input")
    # interleaved but disjoint views are fine
    dml.tile(base[0::2], repeats=[1], out=base[1::2])


def test_output_overlapping_itself():
    base = sentinel_like(8)
    out = np.lib.stride_tricks.as_strided(base, shape=(2, 4), strides=(4, 4), writeable=True)
    raises_match(lambda: dml.tile(f32(2, 4), repeats=[1, 1], out=out),
                 r"^TILE: out \(OutputTensor\) has strides \(4, 4\) that map two coordinates to "
                 r"the same element; outputs must not overlap themselves$")
    assert untouched(base)


def test_outputs_overlapping_each_other():
    base = sentinel_like((1, 1, 6, 2))
    outs = [base[:, :, 0:3], base[:, :, 2:5]]
    raises_exactly(lambda: dml.split(f32(1, 1, 6, 2), axis=2, output_axis_sizes=[3, 3],
                                     outputs=outs),
                   "SPLIT: outputs[0] (OutputTensors[0]) overlaps outputs[1] (OutputTensors[1]) in "
                   "memory; outputs must not overlap each other")
    assert untouched(base)


def test_join_output_overlapping_an_input():
    base = sentinel_like(12)
    a = base[:3]
    raises_exactly(lambda: dml.join([f32(3), a], axis=0, out=base[:6]),
                   "JOIN: out (OutputTensor) overlaps inputs[1] (InputTensors[1]) in memory; an "
                   "output must not overlap an input")


def test_scan_overlap_other_than_in_place_is_refused():
    base = f32(8)
    raises_exactly(lambda: dml.cumulative_summation(base[:6], axis=0, out=base[2:]),
                   "CUMULATIVE_SUMMATION: out (OutputTensor) overlaps input (InputTensor) in "
                   "memory; an output must not overlap an input except as the identical view (in "
                   "place)")
    assert base.tolist() == list(range(8))
