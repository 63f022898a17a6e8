"""Descriptors over raw buffers: results equal the eager API's (and NumPy's), bytes land exactly
where each TensorDesc says, and every bad binding is refused with nothing written."""
import mmap

import numpy as np
import pytest

import dmlcpu as dml
from dmlcpu import InvalidArgumentError, TensorDesc
from dmlcpu._types import ALL_DATA_TYPES, NUMPY_DTYPES

SENTINEL = 0xA5
F32 = dml.TensorDataType.FLOAT32


def desc_of(array):
    """A packed TensorDesc for a C-contiguous array."""
    return TensorDesc(dml.TensorDataType[_name(array.dtype)], array.shape)


def _name(dtype):
    return next(t.name for t, d in NUMPY_DTYPES.items() if d == dtype)


def random_array(rng, shape, dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=dtype)


def out_buffer(desc):
    """A sentinel-filled bytearray of the desc's required size."""
    return bytearray([SENTINEL]) * desc.required_bytes()


def in_buffer(array):
    """An input's bytes, padded to its packed desc's required size (a multiple of 4)."""
    data = array.tobytes()
    return data + bytes(desc_of(array).required_bytes() - len(data))


def as_array(buffer, desc):
    return np.frombuffer(buffer, dtype=NUMPY_DTYPES[desc.data_type],
                         count=int(np.prod(desc.sizes))).reshape(desc.sizes)


def random_shape(rng, ndim=None):
    ndim = ndim or int(rng.integers(1, 5))
    return tuple(int(s) for s in rng.integers(1, 5, size=ndim))


def random_dtype(rng):
    return NUMPY_DTYPES[ALL_DATA_TYPES[int(rng.integers(len(ALL_DATA_TYPES)))]]


# ---------------------------------------------------------------- equal to the eager API

@pytest.mark.parametrize("seed", range(12))
def test_split_matches_eager(seed):
    rng = np.random.default_rng(seed)
    shape = random_shape(rng)
    axis = int(rng.integers(len(shape)))
    shape = shape[:axis] + (int(rng.integers(1, 7)),) + shape[axis + 1:]
    x = random_array(rng, shape, random_dtype(rng))
    cuts = sorted(rng.choice(np.arange(1, shape[axis]), size=int(rng.integers(
        0, shape[axis])), replace=False).tolist()) if shape[axis] > 1 else []
    parts = np.diff([0] + cuts + [shape[axis]]).tolist()
    outs = [TensorDesc(desc_of(x).data_type, shape[:axis] + (n,) + shape[axis + 1:])
            for n in parts]
    op = dml.compile_operator(dml.SplitOperatorDesc(desc_of(x), outs, axis))
    buffers = [out_buffer(d) for d in outs]
    op.execute([in_buffer(x)], buffers)
    eager = dml.split(x, axis=axis, output_axis_sizes=parts)
    expected = np.split(x, np.cumsum(parts)[:-1], axis=axis)
    for buffer, d, e, ref in zip(buffers, outs, eager, expected):
        np.testing.assert_array_equal(as_array(buffer, d), e)
        assert as_array(buffer, d).tobytes() == ref.tobytes()


@pytest.mark.parametrize("seed", range(12))
def test_join_matches_eager(seed):
    rng = np.random.default_rng(100 + seed)
    shape = random_shape(rng)
    axis = int(rng.integers(len(shape)))
    dtype = random_dtype(rng)
    xs = [random_array(rng, shape[:axis] + (int(rng.integers(1, 4)),) + shape[axis + 1:], dtype)
          for _ in range(int(rng.integers(1, 5)))]
    total = sum(x.shape[axis] for x in xs)
    out = TensorDesc(desc_of(xs[0]).data_type, shape[:axis] + (total,) + shape[axis + 1:])
    op = dml.compile_operator(dml.JoinOperatorDesc([desc_of(x) for x in xs], out, axis))
    buffer = out_buffer(out)
    op.execute([in_buffer(x) for x in xs], [buffer])
    assert as_array(buffer, out).tobytes() == dml.join(xs, axis=axis).tobytes()
    assert as_array(buffer, out).tobytes() == np.concatenate(xs, axis=axis).tobytes()


@pytest.mark.parametrize("seed", range(12))
def test_slice_matches_eager(seed):
    rng = np.random.default_rng(200 + seed)
    x = random_array(rng, random_shape(rng), random_dtype(rng))
    offsets, sizes, strides = [], [], []
    for n in x.shape:
        offset = int(rng.integers(n))
        stride = int(rng.integers(0, 3))
        most = (n - 1 - offset) // stride + 1 if stride else 3
        offsets.append(offset)
        strides.append(stride)
        sizes.append(int(rng.integers(1, most + 1)))
    out = TensorDesc(desc_of(x).data_type, sizes)
    op = dml.compile_operator(dml.SliceOperatorDesc(desc_of(x), out, offsets, sizes, strides))
    buffer = out_buffer(out)
    op.execute([in_buffer(x)], [buffer])
    eager = dml.slice(x, offsets=offsets, sizes=sizes, strides=strides)
    index = np.ix_(*[o + s * np.arange(n) for o, s, n in zip(offsets, strides, sizes)])
    assert as_array(buffer, out).tobytes() == eager.tobytes() == x[index].tobytes()


@pytest.mark.parametrize("seed", range(12))
def test_slice1_matches_eager(seed):
    rng = np.random.default_rng(300 + seed)
    x = random_array(rng, random_shape(rng), random_dtype(rng))
    offsets, window, steps, out_sizes = [], [], [], []
    for n in x.shape:
        offset = int(rng.integers(n))
        size = int(rng.integers(1, n - offset + 1))
        step = int(rng.choice([-3, -2, -1, 1, 2, 3]))
        offsets.append(offset)
        window.append(size)
        steps.append(step)
        out_sizes.append(int(rng.integers(1, 1 + (size - 1) // abs(step) + 1)))
    out = TensorDesc(desc_of(x).data_type, out_sizes)
    op = dml.compile_operator(dml.Slice1OperatorDesc(desc_of(x), out, offsets, window, steps))
    buffer = out_buffer(out)
    op.execute([in_buffer(x)], [buffer])
    eager = dml.slice1(x, input_window_offsets=offsets, input_window_sizes=window,
                       input_window_strides=steps, output_sizes=out_sizes)
    starts = [o + (w - 1 if s < 0 else 0) for o, w, s in zip(offsets, window, steps)]
    index = np.ix_(*[b + s * np.arange(n) for b, s, n in zip(starts, steps, out_sizes)])
    assert as_array(buffer, out).tobytes() == eager.tobytes() == x[index].tobytes()


def test_slice1_seed_example():
    x = np.arange(1, 17, dtype=np.float32).reshape(1, 1, 4, 4)
    out = TensorDesc("FLOAT32", [1, 1, 2, 2])
    op = dml.compile_operator(dml.Slice1OperatorDesc(desc_of(x), out, [0, 0, 0, 1],
                                                     [1, 1, 4, 3], [1, 1, -2, 2]), "3_0")
    buffer = out_buffer(out)
    op.execute([in_buffer(x)], [buffer])
    assert as_array(buffer, out).tolist() == [[[[14, 16], [6, 8]]]]


@pytest.mark.parametrize("seed", range(12))
def test_tile_matches_eager(seed):
    rng = np.random.default_rng(400 + seed)
    x = random_array(rng, random_shape(rng), random_dtype(rng))
    repeats = [int(r) for r in rng.integers(1, 4, size=x.ndim)]
    out = TensorDesc(desc_of(x).data_type, [n * r for n, r in zip(x.shape, repeats)])
    op = dml.compile_operator(dml.TileOperatorDesc(desc_of(x), out, repeats))
    buffer = out_buffer(out)
    op.execute([in_buffer(x)], [buffer])
    assert as_array(buffer, out).tobytes() == dml.tile(x, repeats=repeats).tobytes()
    assert as_array(buffer, out).tobytes() == np.tile(x, repeats).tobytes()


SCAN_TYPES = [np.float32, np.float64, np.int32, np.uint32, np.int64, np.uint64, np.float16]


@pytest.mark.parametrize("op_name", ["CUMULATIVE_SUMMATION", "CUMULATIVE_PRODUCT"])
@pytest.mark.parametrize("seed", range(8))
def test_cumulative_matches_eager(op_name, seed):
    """Needs the scan engine (another branch); until it lands, execution raises CoreError."""
    rng = np.random.default_rng(500 + seed)
    x = random_array(rng, random_shape(rng), SCAN_TYPES[seed % len(SCAN_TYPES)])
    axis = int(rng.integers(x.ndim))
    direction = int(rng.integers(2))
    exclusive = bool(rng.integers(2))
    out = desc_of(x)
    if op_name == "CUMULATIVE_SUMMATION":
        desc = dml.CumulativeSummationOperatorDesc(desc_of(x), out, axis, direction, exclusive)
        eager = dml.cumulative_summation(x, axis=axis, axis_direction=direction,
                                         has_exclusive_sum=exclusive)
    else:
        desc = dml.CumulativeProductOperatorDesc(desc_of(x), out, axis, direction, exclusive)
        eager = dml.cumulative_product(x, axis=axis, axis_direction=direction,
                                       has_exclusive_product=exclusive)
    buffer = out_buffer(out)
    dml.compile_operator(desc).execute([in_buffer(x)], [buffer])
    assert as_array(buffer, out).tobytes() == eager.tobytes()


def test_cumulative_summation_in_place_spec_example():
    """The identical binding (same start, identical TensorDesc) runs in place (needs the scan)."""
    data = bytearray(np.array([[2, 1, 3, 5], [3, 8, 7, 3], [9, 6, 2, 4]], np.int32).tobytes())
    desc = TensorDesc("INT32", [1, 1, 3, 4])
    op = dml.compile_operator(dml.CumulativeSummationOperatorDesc(desc, desc, 3, 0, False), "4_0")
    op.execute([data], [data])
    assert np.frombuffer(data, np.int32).tolist() == [2, 3, 6, 11, 3, 11, 18, 21, 9, 15, 17, 21]


# ---------------------------------------------------------------- exact bytes per TensorDesc

def test_padded_strides_read_and_write_exactly_the_elements():
    # sizes {2,3} strides {4,1}: elements at 0,1,2 and 4,5,6; index 3 is padding.
    src_desc = TensorDesc("FLOAT32", [2, 3], [4, 1])
    dst_desc = TensorDesc("FLOAT32", [2, 3], [4, 1])
    assert src_desc.required_bytes() == 28
    src = np.array([1, 2, 3, -99, 4, 5, 6], np.float32)
    dst = bytearray([SENTINEL]) * 28
    op = dml.compile_operator(dml.TileOperatorDesc(src_desc, dst_desc, [1, 1]), "6_4")
    op.execute([src], [dst])
    expected = bytearray(np.array([1, 2, 3], np.float32).tobytes()) + bytearray([SENTINEL]) * 4 \
        + bytearray(np.array([4, 5, 6], np.float32).tobytes())
    assert dst == expected


def test_broadcast_input_strides_read_one_row():
    src_desc = TensorDesc("INT16", [2, 3], [0, 1])    # both rows read the same 3 elements
    assert src_desc.required_bytes() == 8
    src = np.array([7, 8, 9, 0x5555], np.int16)
    out_desc = TensorDesc("INT16", [2, 3])
    dst = bytearray([SENTINEL]) * out_desc.required_bytes()
    op = dml.compile_operator(dml.SliceOperatorDesc(src_desc, out_desc, [0, 0], [2, 3], [1, 1]))
    op.execute([src], [dst])
    assert dst == bytearray(np.array([7, 8, 9, 7, 8, 9], np.int16).tobytes())


def test_larger_total_size_leaves_the_tail_untouched():
    x = np.arange(6, dtype=np.uint8)
    in_desc = TensorDesc("UINT8", [1, 1, 6, 1], total_tensor_size_in_bytes=64)
    outs = [TensorDesc("UINT8", [1, 1, 2, 1], total_tensor_size_in_bytes=40),
            TensorDesc("UINT8", [1, 1, 4, 1], None, 12)]
    op = dml.compile_operator(dml.SplitOperatorDesc(in_desc, outs, 2), "2_1")
    assert op.input_sizes == (64,) and op.output_sizes == (40, 12)
    source = bytearray(x.tobytes()) + bytearray([0xEE]) * 58
    buffers = [bytearray([SENTINEL]) * 40, bytearray([SENTINEL]) * 12]
    op.execute([source], buffers)
    assert buffers[0] == bytes([0, 1]) + bytes([SENTINEL]) * 38
    assert buffers[1] == bytes([2, 3, 4, 5]) + bytes([SENTINEL]) * 8


def test_padded_join_output_and_every_buffer_kind():
    a = np.array([1, 2], np.uint16)
    b = bytearray(np.array([3, 4], np.uint16).tobytes())
    c = memoryview(bytes(np.array([5, 6], np.uint16).tobytes()))
    out_desc = TensorDesc("UINT16", [3, 2], [3, 1])         # one padding element per row
    descs = [TensorDesc("UINT16", [1, 2])] * 3
    op = dml.compile_operator(dml.JoinOperatorDesc(descs, out_desc, 0))
    with mmap.mmap(-1, out_desc.required_bytes()) as out:
        out.write(bytes([SENTINEL]) * out_desc.required_bytes())
        op.execute([a, b, c], [out])
        words = np.frombuffer(out[:16], np.uint16).tolist()
    pad = SENTINEL * 257
    assert out_desc.required_bytes() == 16
    assert words == [1, 2, pad, 3, 4, pad, 5, 6]


def test_numpy_arrays_bind_as_raw_bytes():
    x = np.arange(4, dtype=np.float64)          # raw bytes: a desc may call them anything
    out = np.zeros(8, np.float32)               # 32 bytes for 4 FLOAT64 elements
    desc = TensorDesc("FLOAT64", [4])
    dml.compile_operator(dml.TileOperatorDesc(desc, desc, [1])).execute([x], [out])
    assert out.view(np.float64).tolist() == [0, 1, 2, 3]


def test_compile_once_execute_many_times():
    desc = dml.SplitOperatorDesc(TensorDesc(F32, [1, 1, 6, 2]),
                                 [TensorDesc(F32, [1, 1, 2, 2]), TensorDesc(F32, [1, 1, 1, 2]),
                                  TensorDesc(F32, [1, 1, 3, 2])], 2)
    op = dml.compile_operator(desc, dml.FeatureLevel.FL_1_0)
    assert (op.input_count, op.output_count) == (1, 3)
    assert op.desc is desc and op.feature_level == dml.FeatureLevel.FL_1_0
    assert op.input_sizes == (48,) and op.output_sizes == (16, 8, 24)
    for k in range(5):
        x = np.arange(12, dtype=np.float32) + 100 * k
        outs = [bytearray(16), bytearray(8), bytearray(24)]
        op.execute([x], outs)
        got = np.concatenate([np.frombuffer(o, np.float32) for o in outs])
        assert got.tolist() == x.tolist()
    assert "SPLIT" in repr(op) and "[16, 8, 24]" in repr(op)


def test_feature_level_spellings_agree():
    desc = dml.JoinOperatorDesc([TensorDesc("FLOAT64", [2])], TensorDesc("FLOAT64", [2]), 0)
    for level in ("4_1", 0x4100, dml.FeatureLevel.FL_4_1):
        assert dml.compile_operator(desc, level).feature_level is dml.FeatureLevel.FL_4_1
    with pytest.raises(InvalidArgumentError, match=r"^JOIN: OutputTensor.DataType is FLOAT64 but "
                       r"must be one of FLOAT32, FLOAT16, INT32, INT16, INT8, UINT32, UINT16, "
                       r"UINT8 at feature level 4_0$"):
        dml.compile_operator(desc, "4_0")


# ---------------------------------------------------------------- refused bindings

def _split_op():
    desc = dml.SplitOperatorDesc(TensorDesc(F32, [4]), [TensorDesc(F32, [2]),
                                                        TensorDesc(F32, [2])], 0)
    return dml.compile_operator(desc)


def test_buffer_too_small_is_refused_and_nothing_written():
    op = _split_op()
    outs = [bytearray([SENTINEL]) * 8, bytearray([SENTINEL]) * 7]
    with pytest.raises(InvalidArgumentError,
                       match=r"SPLIT: the buffer bound to OutputTensors\[1\] holds 7 bytes but "
                             r"must hold at least its TotalTensorSizeInBytes \(8\)"):
        op.execute([np.arange(4, dtype=np.float32)], outs)
    assert outs == [bytearray([SENTINEL]) * 8, bytearray([SENTINEL]) * 7]
    with pytest.raises(InvalidArgumentError, match="InputTensor holds 12 bytes"):
        op.execute([bytes(12)], [bytearray(8), bytearray(8)])


def _read_only(kind):
    if kind == "bytes":
        return bytes(8)
    if kind == "memoryview":
        return memoryview(bytearray(8)).toreadonly()
    array = np.zeros(2, np.float32)
    array.setflags(write=False)
    return array


@pytest.mark.parametrize("kind", ["bytes", "memoryview", "numpy"])
def test_read_only_output_is_refused_and_nothing_written(kind):
    readonly = _read_only(kind)
    op = _split_op()
    first = bytearray([SENTINEL]) * 8
    with pytest.raises(InvalidArgumentError, match=r"OutputTensors\[1\] is read-only but must "
                                                   r"be writable"):
        op.execute([np.arange(4, dtype=np.float32)], [first, readonly])
    assert first == bytearray([SENTINEL]) * 8


def test_overlapping_outputs_are_refused_and_nothing_written():
    op = _split_op()
    memory = bytearray([SENTINEL]) * 16
    view = memoryview(memory)
    with pytest.raises(InvalidArgumentError,
                       match=r"OutputTensors\[1\] overlaps the buffer bound to "
                             r"OutputTensors\[0\] in memory; outputs must not overlap each other"):
        op.execute([np.arange(4, dtype=np.float32)], [view[0:8], view[4:12]])
    assert memory == bytearray([SENTINEL]) * 16
    op.execute([np.arange(4, dtype=np.float32)], [view[0:8], view[8:16]])   # adjacent is fine
    assert np.frombuffer(memory, np.float32).tolist() == [0, 1, 2, 3]


def test_output_overlapping_input_is_refused():
    op = _split_op()
    memory = bytearray(np.arange(6, dtype=np.float32).tobytes())
    view = memoryview(memory)
    with pytest.raises(InvalidArgumentError, match=r"OutputTensors\[0\] overlaps the buffer "
                                                   r"bound to InputTensor in memory; an output "
                                                   r"must not overlap an input$"):
        op.execute([view[0:16]], [view[12:20], bytearray(8)])
    assert memory == bytearray(np.arange(6, dtype=np.float32).tobytes())


def test_only_the_declared_bytes_count_for_overlap():
    op = _split_op()
    memory = bytearray(32)
    view = memoryview(memory)
    view[0:16] = np.arange(4, dtype=np.float32).tobytes()
    # the input buffer is 32 bytes long but its tensor declares 16: outputs after that are fine
    op.execute([view], [view[16:24], view[24:32]])
    assert np.frombuffer(memory, np.float32).tolist() == [0, 1, 2, 3, 0, 1, 2, 3]


def test_in_place_needs_the_identical_tensor_desc():
    data = bytearray(32)
    desc_in = TensorDesc("INT32", [4])
    desc_out = TensorDesc("INT32", [4], total_tensor_size_in_bytes=32)
    op = dml.compile_operator(dml.CumulativeProductOperatorDesc(desc_in, desc_out, 0))
    with pytest.raises(InvalidArgumentError, match="an output must not overlap an input$"):
        op.execute([data], [data])
    same = dml.compile_operator(dml.CumulativeProductOperatorDesc(desc_in, desc_in, 0))
    view = memoryview(data)
    with pytest.raises(InvalidArgumentError, match="except in place"):
        same.execute([view[0:16]], [view[4:20]])        # overlapping but not the same start
    assert data == bytearray(32)


def test_in_place_is_refused_for_data_movement():
    desc = TensorDesc("INT32", [4])
    op = dml.compile_operator(dml.TileOperatorDesc(desc, desc, [1]))
    data = bytearray(16)
    with pytest.raises(InvalidArgumentError, match="an output must not overlap an input$"):
        op.execute([data], [data])


def test_many_slots_use_the_sorted_overlap_check():
    n = 20
    descs = [TensorDesc("UINT8", [1, 4])] * n
    op = dml.compile_operator(dml.JoinOperatorDesc(descs, TensorDesc("UINT8", [n, 4]), 0))
    shared = bytes(range(4))
    out = bytearray([SENTINEL]) * (4 * n)
    op.execute([shared] * n, [out])          # inputs may share memory: they are only read
    assert out == shared * n
    memory = bytearray([SENTINEL]) * (4 * n + 4)
    view = memoryview(memory)
    inputs = [bytes(4)] * (n - 1) + [view[4 * n:4 * n + 4]]
    with pytest.raises(InvalidArgumentError, match=r"OutputTensor overlaps the buffer bound to "
                                                   r"InputTensors\[19\]|InputTensors\[19\] "
                                                   r"overlaps the buffer bound to OutputTensor"):
        op.execute(inputs, [view[4:4 * n + 4]])
    assert memory == bytearray([SENTINEL]) * (4 * n + 4)
    split = dml.compile_operator(dml.SplitOperatorDesc(TensorDesc("UINT8", [n, 4]), descs, 0))
    outs = [view[4 * k:4 * k + 4] for k in range(n - 1)] + [view[0:4]]
    with pytest.raises(InvalidArgumentError, match="outputs must not overlap each other"):
        split.execute([bytes(4 * n)], outs)
    assert memory == bytearray([SENTINEL]) * (4 * n + 4)


@pytest.mark.parametrize("seed", range(30))
def test_overlap_check_matches_every_pair(seed):
    """SPLIT into up to 15 outputs (16 slots or fewer: sorted by insertion, not qsort), placed at
    random in one buffer, the input sometimes inside it too: refused exactly when some output
    meets another or the input, checked pair by pair; refused calls write nothing."""
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 16))
    descs = [TensorDesc("UINT8", [1, 4])] * k
    split = dml.compile_operator(dml.SplitOperatorDesc(TensorDesc("UINT8", [k, 4]), descs, 0))
    memory = bytearray([SENTINEL]) * (32 * k + 4 * k)
    view = memoryview(memory)
    starts = [int(rng.integers(0, 32 * k)) for _ in range(k)]
    ranges = [(a, a + 4) for a in starts]
    source = bytes(range(4 * k))
    if rng.random() < 0.5:
        at = int(rng.integers(0, 32 * k))
        view[at:at + 4 * k] = source
        source_range = (at, at + 4 * k)
        source = view[at:at + 4 * k]
    else:
        source_range = None
    meets = any(ranges[i][0] < ranges[j][1] and ranges[j][0] < ranges[i][1]
                for i in range(k) for j in range(i + 1, k))
    if source_range is not None:
        meets = meets or any(a < source_range[1] and source_range[0] < b for a, b in ranges)
    before = bytes(memory)
    outs = [view[a:b] for a, b in ranges]
    if meets:
        with pytest.raises(InvalidArgumentError, match="overlap"):
            split.execute([source], outs)
        assert bytes(memory) == before
    else:
        split.execute([source], outs)
        assert [bytes(o) for o in outs] == [bytes(range(4 * i, 4 * i + 4)) for i in range(k)]


def test_non_buffers_raise_type_error():
    op = _split_op()
    with pytest.raises(TypeError, match="InputTensor must be a buffer"):
        op.execute([[0.0, 1.0, 2.0, 3.0]], [bytearray(8), bytearray(8)])
    with pytest.raises(TypeError, match=r"OutputTensors\[0\] must be a buffer"):
        op.execute([bytes(16)], [None, bytearray(8)])


def test_wrong_buffer_counts_and_non_contiguous_arrays():
    op = _split_op()
    with pytest.raises(InvalidArgumentError, match=r"takes 1 input buffer\(s\) and 2 output"):
        op.execute([bytes(16)], [bytearray(8)])
    strided = np.zeros(8, np.float32)[::2]
    with pytest.raises(InvalidArgumentError, match="not contiguous"):
        op.execute([strided], [bytearray(8), bytearray(8)])


def test_descriptor_constructors_check_types():
    with pytest.raises(TypeError, match="Sizes"):
        TensorDesc("FLOAT32", [1.5])
    with pytest.raises(TypeError, match="InputTensor must be a TensorDesc"):
        dml.TileOperatorDesc(np.zeros(2), TensorDesc("FLOAT32", [2]), [1])
    with pytest.raises(TypeError, match="operator descriptor"):
        dml.compile_operator(TensorDesc("FLOAT32", [2]))
    assert TensorDesc(1, [2]) == TensorDesc("FLOAT32", [2]) == TensorDesc(F32, (2,))
    assert repr(TensorDesc("INT8", [3], [1], 8)) == \
        "TensorDesc(INT8, sizes=[3], strides=[1], total_tensor_size_in_bytes=8)"


@pytest.mark.parametrize("data_type,sizes,strides,expected", [
    ("FLOAT16", [1, 1, 3, 5], None, 32), ("INT8", [3], None, 4),
    ("FLOAT32", [2, 3], [0, 1], 12), ("FLOAT32", [2, 2], [3, 1], 20),
    ("FLOAT64", [2, 3], [4, 1], 56), (dml.TensorDataType.UINT16, [3], [0], 4)])
def test_calc_buffer_tensor_size(data_type, sizes, strides, expected):
    assert dml.calc_buffer_tensor_size(data_type, sizes, strides) == expected


def test_huge_total_size_compiles_and_refuses_every_buffer():
    desc = TensorDesc("UINT8", [4], total_tensor_size_in_bytes=2**64 - 1)
    op = dml.compile_operator(dml.SplitOperatorDesc(desc, [TensorDesc("UINT8", [4])], 0))
    assert op.input_sizes == (2**64 - 1,)
    with pytest.raises(InvalidArgumentError, match=f"at least its TotalTensorSizeInBytes "
                                                   f"\\({2**64 - 1}\\)"):
        op.execute([bytes(64)], [bytearray(4)])
