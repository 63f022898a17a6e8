"""Data movement is bit-exact: every copy operator moves float elements as opaque bits.

NaN payloads (quiet and signalling, both signs), -0.0, denormals and infinities, built from
integer bit patterns, go through SPLIT, JOIN, SLICE, SLICE1 and TILE along every kind of run the
copy core distinguishes: contiguous, gather (strided source), scatter (strided destination),
strided on both sides, reversed, broadcast (stride 0) and unaligned. FLOAT16 runs all 65536 bit
patterns.
"""
import numpy as np
import pytest

import dmlcpu as dml
import reference
from arrays import Layout, SentinelOutput, base_shape, float_specials, view_of
from conftest import as_bits, assert_same_bits, bits_dtype
from reference import FLOAT_DTYPES

COLS = 4


def all_patterns(dtype):
    """Every FLOAT16 bit pattern; for wider floats the specials in every position mod 4, then
    random bits with a fixed seed."""
    dtype = np.dtype(dtype)
    if dtype.itemsize == 2:
        return np.arange(1 << 16, dtype=np.uint16).view(dtype)
    specials = float_specials(dtype)
    rng = np.random.default_rng(1234)
    filler = np.frombuffer(rng.bytes(2048 * dtype.itemsize), dtype=bits_dtype(dtype))
    bits = np.concatenate([np.tile(specials, COLS + 1), filler])
    bits = bits[:len(bits) - len(bits) % COLS]
    return bits.view(dtype)


def build(values, shape, layout):
    """``values`` (shape's element count, row-major) laid out per ``layout`` inside a base."""
    base = np.zeros(base_shape(shape, layout), dtype=values.dtype)
    view = view_of(base, shape, layout)
    as_bits(view)[...] = as_bits(values).reshape(shape)
    return view


def rows(values):
    return values.reshape(-1, COLS)


# (input layout, output layout) per kind of run; None is a plain C-contiguous array
C = Layout((0, 1), (1, 1), (0, 0))
KINDS = {
    "contiguous": (None, C),
    "reversed": (Layout((0, 1), (-1, -1), (1, 0)), C),
    "gather": (Layout((0, 1), (1, 2), (0, 1)), C),
    "scatter": (None, Layout((0, 1), (2, 3), (1, 1))),
    "strided": (Layout((1, 0), (2, -2), (0, 1)), Layout((1, 0), (-1, 2), (1, 0))),
    "transposed_output": (Layout((1, 0), (1, 1), (0, 0)), Layout((1, 0), (1, -1), (0, 0))),
}

# op name -> (call(x, outputs or None) -> list of results, reference(x) -> list of arrays)
OPS = {
    "split": (lambda x, outs: dml.split(x, axis=1, output_axis_sizes=[1, COLS - 1],
                                        outputs=outs),
              lambda x: reference.split(x, 1, [1, COLS - 1])),
    "join": (lambda x, outs: [dml.join([x[:, 1:], x[:, :1], x], axis=1,
                                       out=None if outs is None else outs[0])],
             lambda x: [reference.join([x[:, 1:], x[:, :1], x], 1)]),
    "slice": (lambda x, outs: [dml.slice(x, offsets=[0, 0], sizes=list(x.shape),
                                         strides=[1, 1], out=None if outs is None else outs[0])],
              lambda x: [reference.slice(x, [0, 0], list(x.shape), [1, 1])]),
    "slice1": (lambda x, outs: [dml.slice1(x, input_window_offsets=[0, 0],
                                           input_window_sizes=list(x.shape),
                                           input_window_strides=[-1, -1],
                                           out=None if outs is None else outs[0])],
               lambda x: [reference.slice1(x, [0, 0], list(x.shape), [-1, -1])]),
    "tile": (lambda x, outs: [dml.tile(x, repeats=[1, 3], out=None if outs is None else outs[0])],
             lambda x: [reference.tile(x, [1, 3])]),
}


def check_op(op, x, out_layout):
    call, ref = OPS[op]
    expected = ref(x)
    # new arrays
    for actual, wanted in zip(call(x, None), expected):
        assert_same_bits(actual, wanted, f"{op} into a new array")
    # caller's strided views inside sentinel-filled bases
    outputs = [SentinelOutput(x.dtype, e.shape, out_layout) for e in expected]
    results = call(x, [o.view for o in outputs])
    for k, (result, output, wanted) in enumerate(zip(results, outputs, expected)):
        assert result is output.view
        output.check(wanted, f"{op} output {k}")


@pytest.mark.parametrize("op", sorted(OPS))
@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=str)
def test_bits_survive(dtype, kind, op):
    in_layout, out_layout = KINDS[kind]
    values = rows(all_patterns(dtype))
    x = values if in_layout is None else build(values, values.shape, in_layout)
    assert_same_bits(x, values, "test input")
    check_op(op, x, out_layout)


@pytest.mark.parametrize("op", sorted(OPS))
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=str)
def test_bits_survive_broadcast(dtype, op):
    # stride 0 along the inner dimension: each row repeats one pattern
    column = all_patterns(dtype)
    x = np.lib.stride_tricks.as_strided(column, (column.size, COLS), (column.itemsize, 0),
                                        writeable=False)
    check_op(op, x, C)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=str)
def test_slice_stride_0_repeats_each_special(dtype):
    specials = float_specials(dtype).view(dtype)
    for k in range(specials.size):
        out = dml.slice(specials, offsets=[k], sizes=[7], strides=[0])
        assert as_bits(out).tolist() == [int(as_bits(specials)[k])] * 7


def unaligned(dtype, shape, fill=0):
    """An array whose data starts one byte past an aligned address."""
    dtype = np.dtype(dtype)
    count = int(np.prod(shape))
    raw = bytearray([fill]) * (count * dtype.itemsize + 2)
    array = np.frombuffer(raw, dtype=dtype, count=count, offset=1).reshape(shape)
    assert array.ctypes.data % dtype.itemsize != 0 or dtype.itemsize == 1
    return array, raw


@pytest.mark.parametrize("op", sorted(OPS))
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=str)
def test_bits_survive_unaligned(dtype, op):
    values = rows(all_patterns(dtype))
    x, _ = unaligned(dtype, values.shape)
    as_bits(x)[...] = as_bits(values)
    call, ref = OPS[op]
    expected = ref(values)
    outs, raws = [], []
    for e in expected:
        out, raw = unaligned(dtype, e.shape, fill=0xA5)
        outs.append(out)
        raws.append(raw)
    call(x, outs)
    for k, (out, raw, wanted) in enumerate(zip(outs, raws, expected)):
        assert_same_bits(out, wanted, f"{op} output {k}")
        assert raw[0] == 0xA5 and raw[-1] == 0xA5, "a byte beside the output was written"


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=str)
def test_signalling_nan_is_not_quieted(dtype):
    # the plainest statement of the rule: a signalling NaN comes out signalling
    specials = float_specials(dtype)
    snan = specials[2:3].view(dtype)
    quiet_bit = 1 << {2: 9, 4: 22, 8: 51}[np.dtype(dtype).itemsize]
    assert np.isnan(snan[0]) and not int(as_bits(snan)[0]) & quiet_bit
    for result in (dml.tile(snan, repeats=[5]), dml.join([snan, snan], axis=0),
                   dml.split(snan, axis=0, output_axis_sizes=[1])[0],
                   dml.slice(snan, offsets=[0], sizes=[3], strides=[0]),
                   dml.slice1(snan, input_window_offsets=[0], input_window_sizes=[1],
                              input_window_strides=[-1])):
        assert set(as_bits(result).tolist()) == {int(as_bits(snan)[0])}
