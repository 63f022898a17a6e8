"""What the eager API accepts and returns (docs/semantics.md section 6), for the data-movement
operators.

Inputs: NumPy arrays (read-only too), bytes, bytearray, memoryview, array.array and __dlpack__
objects. Results: new C-contiguous arrays that share no memory with the input, or the caller's
own ``out`` objects. Zero sizes give empty results in extended mode and are refused in strict
mode. Large operands (the path that releases the GIL) copy correctly.
"""
import array

import numpy as np
import pytest

import dmlcpu as dml
import reference
from conftest import assert_same_bits


def test_bytes_input_is_uint8():
    outputs = dml.split(b"\x01\x02\x03\x04\xff", axis=0, output_axis_sizes=[1, 4])
    assert_same_bits(outputs[0], np.array([1], np.uint8))
    assert_same_bits(outputs[1], np.array([2, 3, 4, 255], np.uint8))


def test_bytearray_input():
    out = dml.tile(bytearray(b"\x01\x02"), repeats=[3])
    assert_same_bits(out, np.array([1, 2, 1, 2, 1, 2], np.uint8))


def test_memoryview_input_with_shape_and_format():
    data = np.arange(6, dtype=np.float32)
    view = memoryview(bytearray(data.tobytes())).cast("f", (2, 3))
    out = dml.slice(view, offsets=[0, 1], sizes=[2, 2])
    assert_same_bits(out, np.array([[1, 2], [4, 5]], np.float32))


def test_strided_memoryview_input():
    view = memoryview(np.arange(10, dtype=np.int16))[::3]
    out = dml.join([view, view], axis=0)
    assert_same_bits(out, np.array([0, 3, 6, 9, 0, 3, 6, 9], np.int16))


@pytest.mark.parametrize("code, dtype", [
    ("b", np.int8), ("B", np.uint8), ("h", np.int16), ("H", np.uint16), ("i", np.int32),
    ("I", np.uint32), ("q", np.int64), ("Q", np.uint64), ("f", np.float32), ("d", np.float64)])
def test_array_array_input(code, dtype):
    outputs = dml.split(array.array(code, [1, 2, 3, 4]), axis=0, output_axis_sizes=[3, 1])
    assert_same_bits(outputs[0], np.array([1, 2, 3], dtype))
    assert_same_bits(outputs[1], np.array([4], dtype))


def test_read_only_input():
    x = np.arange(12, dtype=np.uint16).reshape(3, 4)
    x.flags.writeable = False
    assert_same_bits(dml.tile(x, repeats=[2, 1]), np.tile(x, (2, 1)))
    assert_same_bits(dml.slice1(x, input_window_offsets=[0, 1], input_window_sizes=[3, 3],
                                input_window_strides=[-1, 2]), x[::-1, 1::2])


class DLPackOnly:
    """An object reachable only through the DLPack protocol (as a CPU torch tensor would be)."""

    def __init__(self, array):
        self._array = array

    def __dlpack__(self, *args, **kwargs):
        return self._array.__dlpack__(*args, **kwargs)

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()


def test_dlpack_input():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)[:, ::-1, ::2]
    wrapped = DLPackOnly(x)
    assert not hasattr(wrapped, "__array__") and not hasattr(wrapped, "__buffer__")
    assert_same_bits(dml.tile(wrapped, repeats=[1, 2, 1]), np.tile(x, (1, 2, 1)))
    assert_same_bits(dml.join([wrapped, x], axis=2), np.concatenate([x, x], axis=2))


def test_dlpack_output_is_written_and_returned():
    target = np.zeros((2, 6), dtype=np.int64)
    wrapped = DLPackOnly(target)
    x = np.arange(6, dtype=np.int64).reshape(2, 3)
    assert dml.tile(x, repeats=[1, 2], out=wrapped) is wrapped
    assert_same_bits(target, np.tile(x, (1, 2)))


def test_not_an_array_is_a_type_error():
    with pytest.raises(TypeError):
        dml.tile([1, 2, 3], repeats=[2])
    with pytest.raises(TypeError):
        dml.join([np.ones(2), object()], axis=0)


def assert_new_array(result, *inputs):
    assert type(result) is np.ndarray
    assert result.flags.c_contiguous and result.flags.writeable
    for x in inputs:
        assert not np.shares_memory(result, x)


def test_results_are_new_c_contiguous_arrays():
    # an input that is itself contiguous, and a one-part split/join/slice/tile: still a copy
    x = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    (whole,) = dml.split(x, axis=1, output_axis_sizes=[3])
    assert_new_array(whole, x)
    assert_same_bits(whole, x)
    assert_new_array(dml.join([x], axis=0), x)
    assert_new_array(dml.slice(x, offsets=[0, 0, 0], sizes=[2, 3, 4]), x)
    assert_new_array(dml.slice1(x, input_window_offsets=[0, 0, 0],
                                input_window_sizes=[2, 3, 4]), x)
    assert_new_array(dml.tile(x, repeats=[1, 1, 1]), x)
    # a transposed input still gives a C-contiguous result
    t = x.transpose(2, 0, 1)
    result = dml.tile(t, repeats=[1, 1, 1])
    assert_new_array(result, x)
    assert_same_bits(result, np.ascontiguousarray(t))


def test_out_returns_the_callers_object():
    x = np.arange(12, dtype=np.float64).reshape(3, 4)
    out = np.empty((3, 4))
    assert dml.join([x], axis=0, out=out) is out
    out = np.empty((2, 2))
    assert dml.slice(x, offsets=[0, 0], sizes=[2, 2], strides=[2, 3], out=out) is out
    out = np.empty((3, 4))
    assert dml.slice1(x, input_window_offsets=[0, 0], input_window_sizes=[3, 4],
                      input_window_strides=[-1, -1], out=out) is out
    assert_same_bits(out, x[::-1, ::-1])
    out = np.empty((6, 4))
    assert dml.tile(x, repeats=[2, 1], out=out) is out
    outputs = [np.empty((3, 1)), np.empty((3, 3))]
    result = dml.split(x, axis=1, output_axis_sizes=[1, 3], outputs=outputs)
    assert isinstance(result, list) and all(r is o for r, o in zip(result, outputs))


def test_out_may_be_a_writable_buffer():
    out = bytearray(6)
    x = np.array([7, 8, 9], dtype=np.uint8)
    assert dml.tile(x, repeats=[2], out=out) is out
    assert bytes(out) == b"\x07\x08\x09\x07\x08\x09"


def test_read_only_out_is_refused_before_anything_is_written():
    out = np.zeros(4, dtype=np.int8)
    out.flags.writeable = False
    with pytest.raises(dml.InvalidArgumentError):
        dml.tile(np.ones(2, np.int8), repeats=[2], out=out)
    with pytest.raises(dml.InvalidArgumentError):
        dml.tile(np.ones(2, np.uint8), repeats=[2], out=b"\x00\x00\x00\x00")


def test_out_overlapping_the_input_is_refused():
    x = np.arange(10.0)
    before = x.copy()
    with pytest.raises(dml.InvalidArgumentError, match="overlap"):
        dml.slice(x, offsets=[0], sizes=[5], out=x[5:])
    with pytest.raises(dml.InvalidArgumentError, match="overlap"):
        dml.split(x, axis=0, output_axis_sizes=[5, 5], outputs=[x[:5], np.empty(5)])
    assert_same_bits(x, before)


def test_out_interleaved_with_the_input_is_not_an_overlap():
    # the byte ranges overlap but no element is shared: allowed, and only the odd slots change
    x = np.arange(12, dtype=np.float64)
    dml.slice(x[0::2], offsets=[0], sizes=[6], out=x[1::2])
    assert_same_bits(x, np.repeat(np.arange(0, 12, 2, dtype=np.float64), 2))


def test_out_beside_the_inputs_in_one_base():
    base = np.zeros(12, dtype=np.int32)
    base[:6] = np.arange(1, 7)
    out = base[6:]
    assert dml.join([base[3:6], base[0:3]], axis=0, out=out) is out
    assert_same_bits(base, np.array([1, 2, 3, 4, 5, 6, 4, 5, 6, 1, 2, 3], np.int32))


def test_read_only_dlpack_output_is_refused():
    target = np.zeros(6)
    target.flags.writeable = False
    with pytest.raises(dml.InvalidArgumentError, match="writable"):
        dml.tile(np.ones(3), repeats=[2], out=DLPackOnly(target))
    assert not target.any()


def test_out_repeating_an_element_is_refused():
    target = np.zeros(1)
    out = np.lib.stride_tricks.as_strided(target, (3,), (0,), writeable=True)
    with pytest.raises(dml.InvalidArgumentError, match="overlap themselves"):
        dml.tile(np.ones(1), repeats=[3], out=out)


# ---------------------------------------------------------------- zero sizes (extended mode)

def test_zero_size_split():
    x = np.empty((0, 3), dtype=np.float32)
    shapes = [o.shape for o in dml.split(x, axis=1, output_axis_sizes=[1, 2])]
    assert shapes == [(0, 1), (0, 2)]
    y = np.arange(6, dtype=np.int16).reshape(2, 3)
    outputs = dml.split(y, axis=1, output_axis_sizes=[0, 3, 0])
    assert [o.shape for o in outputs] == [(2, 0), (2, 3), (2, 0)]
    assert_same_bits(outputs[1], y)


def test_zero_size_join():
    a = np.empty((2, 0), dtype=np.uint32)
    b = np.arange(2, dtype=np.uint32).reshape(2, 1)
    assert_same_bits(dml.join([a, b, a], axis=1), b)
    assert dml.join([np.empty((0, 4), np.int8)] * 2, axis=1).shape == (0, 8)


def test_zero_size_slice_and_slice1():
    x = np.ones((3, 2), dtype=np.float16)
    assert dml.slice(x, offsets=[0, 0], sizes=[0, 2]).shape == (0, 2)
    assert dml.slice1(x, input_window_offsets=[1, 0], input_window_sizes=[0, 2],
                      input_window_strides=[-1, 1]).shape == (0, 2)
    empty = np.empty((0, 2), dtype=np.float16)
    assert dml.slice1(empty, input_window_offsets=[0, 0], input_window_sizes=[0, 2]).shape == (
        0, 2)


def test_zero_size_tile():
    assert dml.tile(np.empty((0, 2), np.uint64), repeats=[3, 2]).shape == (0, 4)
    out = np.empty((4, 0), dtype=np.int64)
    assert dml.tile(np.empty((2, 0), np.int64), repeats=[2, 5], out=out) is out


@pytest.mark.parametrize("call", [
    lambda level: dml.tile(np.empty((1, 1, 0, 2), np.float32), repeats=[1, 1, 1, 1],
                           feature_level=level),
    lambda level: dml.split(np.empty((1, 1, 0, 2), np.float32), axis=3,
                            output_axis_sizes=[1, 1], feature_level=level),
    lambda level: dml.join([np.empty((1, 1, 0, 2), np.float32)], axis=3, feature_level=level),
    lambda level: dml.slice(np.ones((1, 1, 2, 2), np.float32), offsets=[0, 0, 0, 0],
                            sizes=[1, 1, 0, 2], feature_level=level),
], ids=["tile", "split", "join", "slice"])
def test_zero_size_is_refused_in_strict_mode(call):
    with pytest.raises(dml.InvalidArgumentError, match="at least 1"):
        call("6_4")


# ---------------------------------------------------------------- large operands

def test_large_operands():
    # big enough that the copy runs without the GIL; strided on both sides
    rng = np.random.default_rng(7)
    base = rng.integers(0, 2**32, size=(300, 801), dtype=np.uint32).view(np.float32)
    x = base[::-1, ::2]
    assert_same_bits(dml.tile(x, repeats=[2, 1]), reference.tile(x, [2, 1]))
    parts = dml.split(x, axis=1, output_axis_sizes=[100, 301])
    for part, wanted in zip(parts, reference.split(x, 1, [100, 301])):
        assert_same_bits(part, wanted)
    out = np.zeros((401, 600), dtype=np.float32).T
    assert dml.join([x, x], axis=0, out=out) is out
    assert_same_bits(out, reference.join([x, x], 0))
    assert_same_bits(dml.slice1(x, input_window_offsets=[5, 3], input_window_sizes=[290, 390],
                                input_window_strides=[-3, 2]),
                     reference.slice1(x, [5, 3], [290, 390], [-3, 2]))


def test_large_operands_from_several_threads():
    # the GIL is released during large copies: concurrent calls must not disturb each other
    from concurrent.futures import ThreadPoolExecutor

    rng = np.random.default_rng(11)
    xs = [rng.integers(0, 2**16, size=(256, 513), dtype=np.uint16)[:, ::-2] for _ in range(6)]

    def run(x):
        return dml.tile(x, repeats=[2, 3])

    with ThreadPoolExecutor(max_workers=3) as pool:
        results = list(pool.map(run, xs * 2))
    for x, result in zip(xs * 2, results):
        assert_same_bits(result, reference.tile(x, [2, 3]))


# ---------------------------------------------------------------- refused calls write nothing

def refused_splits(x):
    """SPLIT calls whose first output is fine and whose second is not."""
    yield [np.zeros((2, 1)), np.zeros((2, 4))]                 # wrong axis size
    yield [np.zeros((2, 1)), np.zeros((3, 2))]                 # wrong non-axis size
    yield [np.zeros((2, 1)), np.zeros((2, 2), np.float32)]     # wrong type
    yield [np.zeros((2, 1)), x[:, 1:]]                         # overlaps the input
    frozen = np.zeros((2, 2))
    frozen.flags.writeable = False
    yield [np.zeros((2, 1)), frozen]                           # read-only


def test_refused_split_writes_no_output():
    x = np.arange(6, dtype=np.float64).reshape(2, 3) + 1
    for outputs in refused_splits(x):
        with pytest.raises(dml.InvalidArgumentError):
            dml.split(x, axis=1, output_axis_sizes=[1, 2], outputs=outputs)
        assert not outputs[0].any(), "the valid first output was written"
    assert_same_bits(x, np.arange(6, dtype=np.float64).reshape(2, 3) + 1)


def test_refused_join_and_tile_write_nothing():
    out = np.zeros((2, 4), dtype=np.int32)
    with pytest.raises(dml.InvalidArgumentError):
        dml.join([np.ones((2, 2), np.int32), np.ones((2, 1), np.int32)], axis=1, out=out)
    with pytest.raises(dml.InvalidArgumentError):
        dml.join([np.ones((2, 2), np.int32), np.ones((2, 2), np.int64)], axis=1, out=out)
    with pytest.raises(dml.InvalidArgumentError):
        dml.tile(np.ones((2, 2), np.int32), repeats=[1, 3], out=out)
    with pytest.raises(dml.InvalidArgumentError):
        dml.slice1(np.ones((2, 8), np.int32), input_window_offsets=[0, 0],
                   input_window_sizes=[2, 8], input_window_strides=[1, 2],
                   output_sizes=[2, 3], out=out)
    assert not out.any()
