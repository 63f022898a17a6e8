"""JOIN and SPLIT through the group step (dmlcpu_copy_group): bit-exact against NumPy.

The group walks the dims before the axis once, copying every part's block at each index, when
each block is contiguous in both operands (else it copies part by part); large outputs stream
whole lines and share the outer indices among threads. These tests cover both paths: random
ranks, axes, widths and layouts (strided, negative steps, permuted dims, offsets), many parts and
empty ones, every ISA, one thread and several; outputs sit in sentinel-filled bases, so a write
outside a view fails the test.
"""
import numpy as np
import pytest

import dmlcpu
from dmlcpu import _core
from dmlcpu._core import Plan
from dmlcpu._errors import CoreError

import reference
from arrays import (Layout, SentinelOutput, at_page_offset, contiguous_layout, outside_untouched,
                    random_input)
from conftest import assert_same_bits
from thread_pool import thread_counts

DTYPES = (np.int8, np.float16, np.uint16, np.float32, np.int32, np.float64, np.uint64)
THREADS = thread_counts(1, 3)


@pytest.fixture(params=THREADS)
def threads(request):
    before = dmlcpu.get_num_threads()
    dmlcpu.set_num_threads(request.param)
    yield request.param
    dmlcpu.set_num_threads(before)


def random_layout(rng, ndim, allow_repeat=False):
    """Half the time C-contiguous (the one-pass path), else permuted, stepped, offset."""
    if rng.random() < 0.5:
        return contiguous_layout(ndim)
    perm = tuple(int(p) for p in rng.permutation(ndim)) if rng.random() < 0.3 else tuple(
        range(ndim))
    choices = [1, 1, 2, -1, -2] + ([0] if allow_repeat else [])
    steps = tuple(int(rng.choice(choices)) for _ in range(ndim))
    offsets = tuple(int(rng.integers(0, 2)) for _ in range(ndim))
    return Layout(perm, steps, offsets)


def random_case(rng):
    """(dtype, shape without the axis size filled, axis, part sizes along the axis)."""
    ndim = int(rng.integers(1, 9))
    dtype = DTYPES[int(rng.integers(len(DTYPES)))]
    budget = 4000  # elements of the whole output, at most
    shape = []
    for _ in range(ndim):
        shape.append(int(rng.integers(1, 5)))
    axis = int(rng.integers(ndim))
    # a long last dim often, so blocks have many elements
    if axis != ndim - 1 and rng.random() < 0.6:
        shape[-1] = int(rng.integers(2, 70))
    n_parts = int(rng.choice([1, 2, 3, 4, 9, 12]))
    sizes = [int(rng.integers(0, 4)) if rng.random() < 0.2 else int(rng.integers(1, 6))
             for _ in range(n_parts)]
    rest = int(np.prod([s for d, s in enumerate(shape) if d != axis]))
    while rest * max(sum(sizes), 1) > budget and max(shape) > 1:
        d = int(np.argmax(shape))
        shape[d] = max(1, shape[d] // 2)
        rest = int(np.prod([s for d, s in enumerate(shape) if d != axis]))
    return np.dtype(dtype), shape, axis, sizes


def with_axis(shape, axis, n):
    s = list(shape)
    s[axis] = n
    return tuple(s)


@pytest.mark.parametrize("seed", range(40))
def test_random_join(seed, isa, threads):
    rng = np.random.default_rng(1000 + seed)
    dtype, shape, axis, sizes = random_case(rng)
    xs = [random_input(rng, dtype, with_axis(shape, axis, n),
                       random_layout(rng, len(shape), allow_repeat=True)) for n in sizes]
    out_shape = with_axis(shape, axis, sum(sizes))
    out = SentinelOutput(dtype, out_shape, random_layout(rng, len(shape)))
    result = dmlcpu.join(xs, axis=axis, out=out.view)
    assert result is out.view
    out.check(reference.join(xs, axis), f"join seed {seed}")


@pytest.mark.parametrize("seed", range(40))
def test_random_split(seed, isa, threads):
    rng = np.random.default_rng(2000 + seed)
    dtype, shape, axis, sizes = random_case(rng)
    x = random_input(rng, dtype, with_axis(shape, axis, sum(sizes)),
                     random_layout(rng, len(shape), allow_repeat=True))
    outs = [SentinelOutput(dtype, with_axis(shape, axis, n), random_layout(rng, len(shape)))
            for n in sizes]
    dmlcpu.split(x, axis=axis, output_axis_sizes=sizes, outputs=[o.view for o in outs])
    for k, (o, expected) in enumerate(zip(outs, reference.split(x, axis, sizes))):
        o.check(expected, f"split seed {seed} output {k}")


# Large enough to share among threads, and the first two to stream (>= 4 MiB written in blocks
# of 16 KiB or more on average); block lengths and offsets chosen so no block starts or ends on
# a cache line. (Short blocks stream only from 64 MiB: their path is the same with these.)
LARGE = [
    (np.float32, (64,), 1, [4097, 5003, 9001, 9]),             # 4.6 MB
    (np.int8, (4, 7), 2, [70001, 33, 120001]),                 # 5.3 MB
    (np.float32, (64, 20), 2, [3, 1001, 17, 300, 0, 2]),      # 6.7 MB
    (np.float64, (400, 7), 1, [70, 3, 2, 300]),               # 8.4 MB, blocks of n x 7
    (np.int8, (97, 13), 2, [4001, 2, 1500, 67]),              # 7.0 MB
    (np.float16, (8, 33, 5), 3, [1200, 1, 800]),              # 5.3 MB
]


@pytest.mark.parametrize("dtype, outer, axis, sizes", LARGE)
def test_large_join_streams_exactly(dtype, outer, axis, sizes, isa, threads):
    rng = np.random.default_rng(7)
    shape = list(outer)[:axis] + [0] + list(outer)[axis:]
    xs = [random_input(rng, dtype, with_axis(shape, axis, n)) for n in sizes]
    # the output one element past the start of its base: no block is line-aligned
    out = SentinelOutput(dtype, with_axis(shape, axis, sum(sizes)),
                         Layout(tuple(range(len(shape))), (1,) * len(shape),
                                (1,) + (0,) * (len(shape) - 1)))
    dmlcpu.join(xs, axis=axis, out=out.view)
    out.check(reference.join(xs, axis), "large join")


@pytest.mark.parametrize("dtype, outer, axis, sizes", LARGE)
def test_large_split_streams_exactly(dtype, outer, axis, sizes, isa, threads):
    rng = np.random.default_rng(8)
    shape = list(outer)[:axis] + [sum(sizes)] + list(outer)[axis:]
    x = random_input(rng, dtype, tuple(shape))
    layout = Layout(tuple(range(len(shape))), (1,) * len(shape), (1,) + (0,) * (len(shape) - 1))
    outs = [SentinelOutput(dtype, with_axis(shape, axis, n), layout) for n in sizes]
    dmlcpu.split(x, axis=axis, output_axis_sizes=sizes, outputs=[o.view for o in outs])
    for k, (o, expected) in enumerate(zip(outs, reference.split(x, axis, sizes))):
        o.check(expected, f"large split output {k}")


# Streamed whatever this machine's cache (the threshold forced to 0), blocks of 256 bytes and more
# on average, some shorter than a line or the output padded, so the JOIN's streamed walk (below)
# does not take them: a line where two blocks meet is gathered and streamed whole once the block
# after it (JOIN: the next part's, SPLIT: the same part's next) completes it. More parts than a
# thread keeps carries for, one outer dim and two (walked); outputs packed (lines carried from one
# outer index to the next) or padded (each row's last line written out as it is).
CARRIED = [
    (np.int8, (1000,), 1, [600, 1, 517, 64, 255, 2, 900, 129, 77, 333]),
    (np.float16, (3, 50), 2, [300, 7, 200, 33]),
    (np.float32, (4, 3, 70), 3, [200, 1, 31, 64, 130]),
    (np.float64, (700,), 1, [5, 64, 3, 90, 1]),
]


@pytest.mark.parametrize("packed", [True, False], ids=["packed", "padded"])
@pytest.mark.parametrize("dtype, outer, axis, sizes", CARRIED)
def test_streamed_blocks_carry_lines_exactly(dtype, outer, axis, sizes, packed, isa, threads):
    rng = np.random.default_rng(10)
    shape = list(outer)[:axis] + [0] + list(outer)[axis:]
    ndim = len(shape)
    layout = contiguous_layout(ndim) if packed else Layout(
        tuple(range(ndim)), (1,) * ndim, (1,) * ndim)
    xs = [random_input(rng, dtype, with_axis(shape, axis, n)) for n in sizes]
    out = SentinelOutput(dtype, with_axis(shape, axis, sum(sizes)), layout)
    outs = [SentinelOutput(dtype, with_axis(shape, axis, n), layout) for n in sizes]
    before = _core._set_stream_threshold(0)
    try:
        dmlcpu.join(xs, axis=axis, out=out.view)
        dmlcpu.split(out.view, axis=axis, output_axis_sizes=sizes,
                     outputs=[o.view for o in outs])
    finally:
        _core._set_stream_threshold(before)
    out.check(reference.join(xs, axis), "streamed join")
    for k, (o, x) in enumerate(zip(outs, xs)):
        o.check(x, f"streamed split output {k}")


# Calls that stay in L2 (at most 1 MiB per thread), blocks of 256 bytes and more: stored through
# the rows kernel's aligned walk, one block at a time. Block lengths and the output's offset put
# block edges inside vectors and lines; the last is 1.8 MB, shared by 3 threads at 0.6 MB each;
# the first has one outer index, so its parts are copied one by one, each a run of 16 KiB or more;
# the next two have several, every block 16 KiB or longer: each by the string copy (group_nd.c).
IN_L2 = [
    (np.int8, (1,), 1, [16385, 20000, 5]),
    (np.int8, (3,), 1, [16384, 16447, 20001]),
    (np.float32, (2,), 1, [4096, 4101, 5000]),
    (np.int8, (50,), 1, [1023, 1024, 1025, 4099, 3]),
    (np.int8, (70,), 1, [255, 256, 257, 300, 511, 2]),
    (np.float16, (40, 3), 2, [128, 129, 200, 255]),
    (np.float32, (9, 2), 2, [257, 300, 2001, 1]),
    (np.float16, (300,), 1, [700, 1, 2300]),
]


@pytest.mark.parametrize("dtype, outer, axis, sizes", IN_L2)
def test_join_and_split_in_l2_store_aligned_exactly(dtype, outer, axis, sizes, isa, threads):
    rng = np.random.default_rng(9)
    shape = list(outer)[:axis] + [0] + list(outer)[axis:]
    xs = [random_input(rng, dtype, with_axis(shape, axis, n)) for n in sizes]
    layout = Layout(tuple(range(len(shape))), (1,) * len(shape), (1,) + (0,) * (len(shape) - 1))
    out = SentinelOutput(dtype, with_axis(shape, axis, sum(sizes)), layout)
    dmlcpu.join(xs, axis=axis, out=out.view)
    out.check(reference.join(xs, axis), "join in L2")
    outs = [SentinelOutput(dtype, with_axis(shape, axis, n), layout) for n in sizes]
    dmlcpu.split(out.view, axis=axis, output_axis_sizes=sizes, outputs=[o.view for o in outs])
    for k, (o, x) in enumerate(zip(outs, xs)):
        o.check(x, f"split in L2 output {k}")


@pytest.mark.parametrize("inner", [1, 2, 3, 16])
@pytest.mark.parametrize("dtype", [np.int8, np.float32, np.float64])
def test_short_blocks_many_rows(inner, dtype, isa):
    """One-element blocks go part by part, two or more in one pass: both exact."""
    rng = np.random.default_rng(inner)
    xs = [random_input(rng, dtype, (3001, inner + k % 2)) for k in range(5)]
    out = SentinelOutput(dtype, (3001, sum(x.shape[1] for x in xs)), contiguous_layout(2))
    dmlcpu.join(xs, axis=1, out=out.view)
    out.check(reference.join(xs, 1), "short join")
    outs = dmlcpu.split(out.view, axis=1, output_axis_sizes=[x.shape[1] for x in xs])
    for o, x in zip(outs, xs):
        assert_same_bits(o, x, "short split")


def test_descriptor_join_and_split_run_the_group():
    """Descriptors plan through the same planners: a one-pass JOIN and SPLIT over raw buffers."""
    rng = np.random.default_rng(3)
    xs = [random_input(rng, np.float32, (6, 5, n)) for n in (7, 2, 9, 33)]
    descs = [dmlcpu.TensorDesc("FLOAT32", list(x.shape)) for x in xs]
    out_desc = dmlcpu.TensorDesc("FLOAT32", [6, 5, 51])
    join = dmlcpu.compile_operator(dmlcpu.JoinOperatorDesc(descs, out_desc, 2))
    buffer = bytearray(6 * 5 * 51 * 4)
    join.execute([x.tobytes() for x in xs], [buffer])
    expected = reference.join(xs, 2)
    assert bytes(buffer) == expected.tobytes()
    split = dmlcpu.compile_operator(dmlcpu.SplitOperatorDesc(out_desc, descs, 2))
    parts = [bytearray(x.nbytes) for x in xs]
    split.execute([bytes(buffer)], parts)
    for part, x in zip(parts, xs):
        assert bytes(part) == x.tobytes()


# ---------------------------------------------------------------- the group step itself

def group_plan(parts, outer_ndim, elsize=4, n_inputs=1):
    """A plan of one group step; parts are (dst layout, src layout)."""
    return Plan(n_inputs, 1, [("group", [d for d, _ in parts], [s for _, s in parts], elsize,
                               outer_ndim)])


def test_group_step_counts_as_one_step_and_runs_its_parts():
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    out = np.zeros((4, 6), np.float32)
    # out[:, :2] = x[:, 4:], out[:, 2:] = x[:, :4], and an empty part
    plan = group_plan([((1, 0, [4, 2], [24, 4]), (0, 16, [4, 2], [24, 4])),
                       ((1, 8, [4, 4], [24, 4]), (0, 0, [4, 4], [24, 4])),
                       ((1, 0, [4, 0], [24, 4]), (0, 0, [4, 0], [24, 4]))], 1)
    assert len(plan) == 1
    plan.run([x], [out])
    assert np.array_equal(out, np.concatenate([x[:, 4:], x[:, :4]], axis=1))


def test_group_part_outside_its_buffer_is_refused_before_writing():
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    out = np.zeros((4, 6), np.float32)
    plan = group_plan([((1, 0, [4, 2], [24, 4]), (0, 0, [4, 2], [24, 4])),
                       ((1, 8, [4, 5], [24, 4]), (0, 0, [4, 5], [24, 4]))], 1)
    with pytest.raises(CoreError, match="outside its buffers"):
        plan.run([x], [out])
    assert not out.any()


def test_group_with_mismatched_outer_sizes_is_refused_by_the_core():
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    out = np.zeros((4, 6), np.float32)
    plan = group_plan([((1, 0, [4, 2], [24, 4]), (0, 0, [4, 2], [24, 4])),
                       ((1, 8, [3, 2], [24, 4]), (0, 8, [3, 2], [24, 4]))], 1)
    with pytest.raises(CoreError):
        plan.run([x], [out])
    assert not out.any()


def test_group_outer_ndim_beyond_a_part_is_refused_by_the_core():
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    out = np.zeros((4, 6), np.float32)
    plan = group_plan([((1, 0, [4, 2], [24, 4]), (0, 0, [4, 2], [24, 4]))], 3)
    with pytest.raises(CoreError):
        plan.run([x], [out])
    assert not out.any()


def test_group_with_unequal_part_lists_is_refused():
    with pytest.raises(CoreError, match="destinations"):
        Plan(1, 1, [("group", [(1, 0, [2], [4])], [], 4, 0)])


@pytest.mark.parametrize("streamed", [False, True], ids=["cached", "streamed"])
@pytest.mark.parametrize("offset", range(0, 64, 3))
def test_vector_walk_splits_a_vector_at_every_place(offset, streamed, isa):
    """A JOIN in L2 with blocks of 256 bytes and more walks its destination in aligned vectors,
    a vector straddling two blocks loaded from both (AVX2: two whole loads shifted together by a
    constant per place), as the rows kernel walks a TILE's packed rows. Odd block and row lengths
    and destination offsets put a boundary at every byte of a vector; the SPLIT back reads the
    JOIN's blocks from the other side. Streamed (the threshold forced to 0), the JOIN's walk and
    the TILE's rows store whole lines only, the partial lines at the ends ordinarily."""
    before = _core._set_stream_threshold(0 if streamed else -1)
    try:
        walk_every_place(offset)
    finally:
        _core._set_stream_threshold(before)


def walk_every_place(offset):
    rng = np.random.default_rng(offset)
    sizes = [257, 263, 270, 291]  # a row of 1081 bytes: boundaries at every place mod 64
    xs = [rng.integers(0, 256, size=(48, n), dtype=np.uint8) for n in sizes]
    expected = np.concatenate(xs, axis=1)
    out = at_page_offset(expected.nbytes, offset, fill=0xA5).reshape(expected.shape)
    dmlcpu.join(xs, axis=1, out=out)
    assert np.array_equal(out, expected)
    assert outside_untouched(out, 0xA5)
    parts = dmlcpu.split(out, axis=1, output_axis_sizes=sizes)
    for p, x in zip(parts, xs):
        assert np.array_equal(p, x)
    tile_in = rng.integers(0, 256, size=(3, 1, 1057), dtype=np.uint8)  # packed 1057-byte rows
    tiled = at_page_offset(3 * 7 * 1057, offset, fill=0xA5).reshape(3, 7, 1057)
    dmlcpu.tile(tile_in, repeats=[1, 7, 1], out=tiled)
    assert np.array_equal(tiled, np.tile(tile_in, (1, 7, 1)))
    assert outside_untouched(tiled, 0xA5)


# Streamed (the threshold forced to 0), a JOIN whose blocks are each a line or longer and fill a
# packed output is one walk of whole aligned lines across the blocks (the streamed blocks
# kernel); each thread's share starts and ends inside a line, stored ordinarily there. The SPLIT
# back streams block by block. Blocks of exactly a line and odd ones; outputs 1-2 MB, so three
# threads share them; no output line-aligned.
STREAMED_WALKS = [
    (np.int8, 1500, [64, 65, 127, 300, 525]),
    (np.float16, 700, [32, 33, 100, 600]),
    (np.float32, 400, [16, 17, 301, 700]),
    (np.float64, 300, [8, 9, 70, 513]),
]


@pytest.mark.parametrize("offset", [1, 24, 63])
@pytest.mark.parametrize("dtype, rows, sizes", STREAMED_WALKS)
def test_streamed_join_walk_stores_every_block_exactly(dtype, rows, sizes, offset, isa, threads):
    rng = np.random.default_rng(offset)
    itemsize = np.dtype(dtype).itemsize
    xs = [random_input(rng, dtype, (rows, n)) for n in sizes]
    expected = reference.join(xs, 1)
    out = at_page_offset(expected.nbytes, offset * itemsize, fill=0xA5).view(dtype).reshape(
        expected.shape)
    outs = [at_page_offset(rows * n * itemsize, (offset + 7 * k) * itemsize, fill=0xA5).view(
        dtype).reshape(rows, n) for k, n in enumerate(sizes)]
    before = _core._set_stream_threshold(0)
    try:
        dmlcpu.join(xs, axis=1, out=out)
        dmlcpu.split(out, axis=1, output_axis_sizes=sizes, outputs=outs)
    finally:
        _core._set_stream_threshold(before)
    assert_same_bits(out, expected, "streamed join")
    assert outside_untouched(out, 0xA5)
    for k, (o, x) in enumerate(zip(outs, xs)):
        assert_same_bits(o, x, f"streamed split output {k}")
        assert outside_untouched(o, 0xA5), k
