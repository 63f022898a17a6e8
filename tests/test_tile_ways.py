"""TILE's ways, bit-exact: straight from the input (long runs), or in blocks, each built dim by
dim by spreading or doubling and copied to its replicas; the blocks shared among threads, or,
where there are too few, the output cut into one slice per thread; or, on one thread, in slabs
(the first tile along the outermost repeated dim in blocks, then copied after itself).

The test hook lowers the limit so small arrays reach every way: input runs of at least the limit
straight (packed or not), blocks of at most the limit, doubled in every dim up to half of it;
more than eight dims after the repeats are split off (walked by the TILE driver itself),
streaming stores forced on (threshold 0) or off, or slabs, every ISA, one thread and several. Outputs sit
in sentinel-filled bases, so a write outside a view fails.
"""
import numpy as np
import pytest

import dmlcpu
from dmlcpu import _core

import reference
from arrays import Layout, SentinelOutput, contiguous_layout, random_input

DTYPES = (np.int8, np.float16, np.float32, np.float64)


@pytest.fixture(params=(1, 3))
def threads(request):
    before = dmlcpu.get_num_threads()
    dmlcpu.set_num_threads(request.param)
    yield request.param
    dmlcpu.set_num_threads(before)


@pytest.fixture(params=("stream", "cached", "slabs"))
def streaming(request):
    """Streaming stores forced on or off; or forced on with the string copy unbounded, so that a
    TILE in blocks on one thread goes in slabs (where the string copy's kernels are: x86)."""
    before = _core._set_stream_threshold(0 if request.param != "cached" else 1 << 62)
    if request.param == "slabs":
        _core._set_tune("string_copy_bytes", 1 << 62)
    yield request.param
    _core._set_stream_threshold(before)
    _core._set_tune("string_copy_bytes", -1)


@pytest.fixture
def block_limit():
    def set_limit(n):
        _core._set_tile_limit(n)
    yield set_limit
    _core._set_tile_limit(-1)


def random_layout(rng, ndim, allow_repeat):
    if rng.random() < 0.4:
        return contiguous_layout(ndim)
    perm = tuple(int(p) for p in rng.permutation(ndim)) if rng.random() < 0.3 else tuple(
        range(ndim))
    choices = [1, 1, 2, -1, -2] + ([0] if allow_repeat else [])
    return Layout(perm, tuple(int(rng.choice(choices)) for _ in range(ndim)),
                  tuple(int(rng.integers(0, 2)) for _ in range(ndim)))


def run_case(rng, shape, repeats, dtype, what):
    x = random_input(rng, dtype, shape, random_layout(rng, len(shape), allow_repeat=True))
    out_shape = tuple(s * r for s, r in zip(shape, repeats))
    out = SentinelOutput(dtype, out_shape, random_layout(rng, len(shape), allow_repeat=False))
    assert dmlcpu.tile(x, repeats=list(repeats), out=out.view) is out.view
    out.check(reference.tile(x, repeats), what)


@pytest.mark.parametrize("seed", range(30))
def test_random_tiles_every_way(seed, isa, threads, streaming, block_limit):
    rng = np.random.default_rng(5000 + seed)
    ndim = int(rng.integers(1, 9))
    shape = [int(rng.integers(1, 4)) for _ in range(ndim)]
    shape[-1] = int(rng.integers(1, 40))
    repeats = [int(rng.choice([1, 1, 2, 3])) for _ in range(ndim)]
    repeats[int(rng.integers(ndim))] = int(rng.integers(2, 6))
    while np.prod(shape) * np.prod(repeats) > 6000:
        d = int(np.argmax(shape))
        shape[d] = max(1, shape[d] // 2)
    dtype = DTYPES[seed % len(DTYPES)]
    # low limits take most inputs straight, high ones double or spread
    limit = int(rng.choice([1, 16, 64, 512, 4096]))
    block_limit(limit)
    run_case(rng, tuple(shape), tuple(repeats), np.dtype(dtype),
             f"tile {shape}x{repeats} limit {limit}")


def test_more_than_eight_dims_after_splitting_the_repeats(isa, threads, streaming, block_limit):
    """8 dims, each repeated: 16 copy dims, of which the driver walks the outer ones itself."""
    rng = np.random.default_rng(11)
    for limit in (1, 64, 1024):
        block_limit(limit)
        for dtype in DTYPES:
            run_case(rng, (2, 3, 2, 1, 2, 3, 2, 5), (2, 2, 3, 2, 2, 1, 2, 3), np.dtype(dtype),
                     f"8-d tile {np.dtype(dtype).name} limit {limit}")


# With the built-in rule (runs of 1 KiB and more straight; else blocks of at most 64 KiB or one
# output row, each dim spread, or doubled where it repeats more than 8 times in runs under 64
# bytes; halved for the threads' share down to a quarter of that, else one slice per thread), on
# one thread and several; with a forced 64 KiB (blocks up to 32 KiB doubled in every dim).
LARGE = [
    ((1, 64, 32, 32), (8, 1, 4, 4), np.float32),   # 32 MiB: 64 blocks of 64 KiB (shared)
    # runs of 256 bytes, 2 MiB: blocks of 32 rows (32 KiB; halved to 16 KiB to share)
    ((1, 4, 32, 32), (4, 1, 4, 4), np.float64),
    # runs of 128 bytes, 4 MiB: blocks of two channels (shared)
    ((1, 32, 16, 64), (4, 1, 4, 4), np.float16),
    ((3, 1, 1000), (1, 70, 1), np.int8),           # runs of 1000 bytes: three one-row blocks
    ((4, 1, 1024), (1, 300, 1), np.float32),       # runs of 4 KiB: straight, 4.7 MiB
    ((7, 33), (3, 1600), np.float16),              # 2.1 MiB: a block per row (103 KiB), shared
    ((2, 5, 3), (600, 40, 1), np.float64),         # 5.5 MiB: one block, or 600 slices to share
    # the innermost dim doubled (200 repeats of 5 bytes); two blocks: sliced along dim 2
    ((1, 2, 3, 5), (1, 1, 400, 200), np.int8),
    # the innermost dim spread in rows of one to two vectors, stored from registers: 32 bytes
    # (one AVX2 vector), 40 (AVX2: a vector and an overlapping one), 96 (AVX-512: the same)
    ((1, 8, 32, 32), (2, 1, 4, 4), np.int8),
    ((1, 16, 32, 40), (2, 1, 3, 3), np.int8),
    ((1, 8, 16, 48), (3, 1, 2, 4), np.float16),
]


@pytest.mark.parametrize("limit", (-1, 64 << 10))
@pytest.mark.parametrize("shape, repeats, dtype", LARGE)
def test_large_tiles(shape, repeats, dtype, limit, isa, threads, streaming, block_limit):
    block_limit(limit)
    rng = np.random.default_rng(12)
    x = random_input(rng, np.dtype(dtype), shape)
    out_shape = tuple(s * r for s, r in zip(shape, repeats))
    # one element past the start of its base: no run starts on a cache line
    out = SentinelOutput(np.dtype(dtype), out_shape,
                         Layout(tuple(range(len(shape))), (1,) * len(shape),
                                (1,) + (0,) * (len(shape) - 1)))
    dmlcpu.tile(x, repeats=list(repeats), out=out.view)
    out.check(reference.tile(x, repeats), f"large tile {shape}x{repeats}")


@pytest.mark.parametrize("seed", range(8))
def test_large_tiles_any_layout(seed, isa, threads):
    """Outputs of 2-4 MiB (one block, sliced per thread), permuted, flipped and padded operands."""
    rng = np.random.default_rng(700 + seed)
    ndim = int(rng.integers(2, 6))
    dtype = np.dtype(DTYPES[seed % len(DTYPES)])
    shape = [int(rng.integers(1, 6)) for _ in range(ndim)]
    repeats = [int(rng.integers(1, 4)) for _ in range(ndim)]
    repeats[int(rng.integers(ndim))] = int(rng.integers(2, 6))
    while np.prod(shape) * np.prod(repeats) * dtype.itemsize <= (2 << 20):
        repeats[int(rng.integers(ndim))] += 1
    run_case(rng, tuple(shape), tuple(repeats), dtype,
             f"large tile {shape}x{repeats} {dtype.name}")
