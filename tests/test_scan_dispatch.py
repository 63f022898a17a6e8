"""The SIMD and threaded scans: every scan kernel of every ISA this machine has, bit-exact against
the portable (scalar) kernels, which tests/test_scan.py checks against an independent reference.

The ISA is forced in-process with dmlcpu._core._force_isa. Random data holds no NaN or infinity
(where two NaNs meet, IEEE leaves open which payload wins), so every comparison is of exact bits;
the FLOAT16 test feeds every half, NaNs included, with at most one NaN operand per addition.
"""
import itertools
import zlib

import numpy as np
import pytest

import dmlcpu
from dmlcpu import AxisDirection, _core
from arrays import at_page_offset
from conftest import assert_same_bits, usable_isas
from scan_reference import PROD, SUM, reference_scan
from thread_pool import thread_counts

USABLE = usable_isas()
WIDE = [isa for isa in USABLE if isa != "scalar"]
DTYPES = [np.float32, np.float16, np.float64, np.uint8, np.int8, np.uint16, np.int16, np.uint32,
          np.int32, np.uint64, np.int64]
# lengths and widths crossing 4-, 8- and 16-lane vectors
LENGTHS = (1, 2, 7, 8, 9, 15, 16, 17, 31, 33, 64, 70)
WIDTHS = (1, 3, 5, 8, 13, 16, 17, 40)


@pytest.fixture(autouse=True)
def restore():
    threads = dmlcpu.get_num_threads()
    yield
    _core._force_isa(None)
    dmlcpu.set_num_threads(threads)


def scan(op, x, axis, reverse=False, exclusive=False, out=None):
    direction = AxisDirection.DECREASING if reverse else AxisDirection.INCREASING
    if op == SUM:
        return dmlcpu.cumulative_summation(x, axis=axis, axis_direction=direction,
                                           has_exclusive_sum=exclusive, out=out)
    return dmlcpu.cumulative_product(x, axis=axis, axis_direction=direction,
                                     has_exclusive_product=exclusive, out=out)


def random_values(rng, dtype, shape, op):
    """No NaN, no infinity; signed zeros and (for sums) denormals included."""
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)
    if op == PROD:  # near 1 so long products stay finite
        x = (1 + rng.standard_normal(shape) / 64).astype(dtype)
    else:
        x = (rng.standard_normal(shape) * 8).astype(dtype)
        tiny = np.finfo(dtype).smallest_subnormal
        x.flat[::7] = tiny * 3
        x.flat[3::11] = -0.0
    x.flat[5::13] = -x.flat[5::13]
    return x


def layouts(base):
    """(name, view) of the same values: packed, reversed rows and strided columns, and a view
    whose lines run backwards in memory."""
    big = np.empty((base.shape[0] * 2 + 1, base.shape[1] * 3 + 2), base.dtype)
    big[...] = 0
    neg = big[::-2, ::-3][:base.shape[0], :base.shape[1]]
    neg[...] = base
    flipped = np.ascontiguousarray(base[:, ::-1])[:, ::-1]
    return [("packed", base.copy()), ("strided", neg), ("lines backwards", flipped),
            ("fortran", np.asfortranarray(base))]


def run_all_cases(dtype, op, rng, isa):
    """Every (layout, axis, direction, exclusive, in place) scan of random 2-D inputs of the
    LENGTHS x WIDTHS shapes, forced ISA against scalar."""
    for length, width in itertools.product(LENGTHS, WIDTHS):
        base = random_values(rng, dtype, (width, length), op)
        for (name, x), axis, reverse, exclusive in itertools.product(
                layouts(base), (0, 1), (False, True), (False, True)):
            _core._force_isa("scalar")
            expected = scan(op, x, axis, reverse, exclusive)
            _core._force_isa(isa)
            actual = scan(op, x, axis, reverse, exclusive)
            keep = x.copy()
            scan(op, x, axis, reverse, exclusive, out=x)  # in place, in the same layout
            what = "%s %s %s %s axis %d reverse %s exclusive %s" % (
                isa, np.dtype(dtype).name, op, (width, length, name), axis, reverse, exclusive)
            assert_same_bits(actual, expected, what)
            assert_same_bits(x, expected, what + " in place")
            x[...] = keep


@pytest.mark.parametrize("isa", WIDE)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", [SUM, PROD])
def test_every_kernel_matches_scalar(isa, dtype, op):
    rng = np.random.default_rng(zlib.crc32(("%s-%s-%s" % (isa, np.dtype(dtype).name, op)).encode()))
    run_all_cases(dtype, op, rng, isa)


def test_scalar_kernels_match_the_reference_on_the_same_shapes():
    """The scalar kernels the others are compared with, against scan_reference on a sample."""
    rng = np.random.default_rng(7)
    _core._force_isa("scalar")
    for dtype, op in itertools.product((np.float32, np.float16, np.int8, np.uint64), (SUM, PROD)):
        for length, width in ((17, 3), (33, 16), (9, 40)):
            x = random_values(rng, dtype, (width, length), op)
            for axis, reverse, exclusive in itertools.product((0, 1), (False, True), (False, True)):
                expected = reference_scan(x, axis, op, reverse, exclusive)
                assert_same_bits(scan(op, x, axis, reverse, exclusive), expected,
                                 (np.dtype(dtype).name, op, axis, reverse, exclusive))


# Columns an outer kernel carries at once (kernels/scan_portable.h): DMLCPU_SCAN_BLOCK on the
# stack, or for wider rows DMLCPU_SCAN_WIDE_BYTES of accumulators from the heap where that is
# more; float16 accumulates in float32.
BLOCK, WIDE_BYTES = 4096, 32 << 10


@pytest.mark.parametrize("isa", ["scalar"] + WIDE)
@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.float16, np.float32, np.uint32,
                                   np.float64, np.int64], ids=lambda d: np.dtype(d).name)
def test_outer_rows_across_the_accumulator_block(isa, dtype):
    rng = np.random.default_rng(3)
    wide = max(BLOCK, WIDE_BYTES // (4 if dtype == np.float16 else np.dtype(dtype).itemsize))
    _core._force_isa(isa)
    for width in sorted({BLOCK - 1, BLOCK + 1, wide - 1, wide + 1, 2 * wide + 17}):
        for op, exclusive in ((SUM, False), (PROD, True)):
            x = random_values(rng, dtype, (5, width), op)
            assert_same_bits(scan(op, x, 0, True, exclusive),
                             reference_scan(x, 0, op, True, exclusive), (isa, width, op))


@pytest.mark.parametrize("isa", ["scalar"] + WIDE)
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.uint8, np.int64])
@pytest.mark.parametrize("ahead", [0, 8, 16, 32, 64, 128, 504, 512, 2048, 4032])
@pytest.mark.parametrize("axis", [0, 1])
def test_scans_whatever_the_destination_offset_in_a_page(isa, dtype, ahead, axis):
    """Where the destination's offset in a page is a little ahead of the source's (4 KiB
    aliasing) the outer kernel walks the vectors of columns backwards and the line kernel loads
    each next block before storing the last: every offset on each side of those windows gives
    the reference's bits, in groups of rows and lines and the ones left, both directions."""
    rng = np.random.default_rng(ahead)
    itemsize = np.dtype(dtype).itemsize
    _core._force_isa(isa)
    for rows, width, op, exclusive, reverse in ((11, 1024, SUM, False, False),
                                                (40, 1024 + 37, PROD, True, False),
                                                (21, 300, SUM, True, True)):
        nbytes = rows * width * itemsize
        x = at_page_offset(nbytes, 0).view(dtype).reshape(rows, width)
        x[...] = random_values(rng, dtype, (rows, width), op)
        out = at_page_offset(nbytes, ahead).view(dtype).reshape(rows, width)
        scan(op, x, axis, reverse, exclusive, out=out)
        assert_same_bits(out, reference_scan(x, axis, op, reverse, exclusive),
                         (isa, ahead, op, reverse))


@pytest.mark.parametrize("isa", WIDE)
@pytest.mark.parametrize("dtype", [np.uint32, np.int64, np.int8, np.float32])
def test_one_long_line(isa, dtype):
    """A single line (the integer prefix-sum kernel) and 2..5 lines (partly filled lanes)."""
    rng = np.random.default_rng(11)
    for lines, length in ((1, 100003), (1, 5), (2, 1001), (5, 777)):
        for op, reverse, exclusive in itertools.product((SUM, PROD), (False, True), (False, True)):
            x = random_values(rng, dtype, (lines, length), op)
            _core._force_isa("scalar")
            expected = scan(op, x, 1, reverse, exclusive)
            _core._force_isa(isa)
            assert_same_bits(scan(op, x, 1, reverse, exclusive), expected,
                             (isa, lines, length, op, reverse, exclusive))


@pytest.mark.parametrize("isa", WIDE)
@pytest.mark.parametrize("op", [SUM, PROD])
def test_float16_every_half_matches_the_portable_path(isa, op):
    """Each of the 65536 halves, NaNs and infinities included, starts a line of 16 (so the
    transposing line kernel and the vertical outer kernel convert it), followed by ordinary
    halves; exact bits, NaN payloads included (one NaN operand per operation)."""
    rng = np.random.default_rng(5)
    lines = np.empty((65536, 16), np.float16)
    lines[:, 0] = np.arange(65536, dtype=np.uint16).view(np.float16)
    lines[:, 1:] = (rng.uniform(0.5, 1.5, (65536, 15)) * rng.choice([-1, 1], (65536, 15))
                    ).astype(np.float16)
    for x, axis in ((lines, 1), (np.ascontiguousarray(lines.T), 0)):
        for exclusive in (False, True):
            for reverse in (False, True):
                y = x[:, ::-1] if reverse and axis == 1 else x[::-1] if reverse else x
                _core._force_isa("scalar")
                expected = scan(op, y, axis, reverse, exclusive)
                _core._force_isa(isa)
                assert_same_bits(scan(op, y, axis, reverse, exclusive), expected,
                                 (isa, op, axis, reverse, exclusive))


# --- threads ---------------------------------------------------------------------------------

LARGE = [((1024, 1031), 0, np.float32), ((1031, 1024), 1, np.float32),
         ((2048, 700), 0, np.int32), ((700, 2048), 1, np.int32),
         ((3, 300, 517), 1, np.float64), ((4, 257, 300), 2, np.float16),
         ((3 * 10 ** 5,), 0, np.int64), ((2 * 10 ** 5,), 0, np.float32),
         # fewer than 16 lines per thread: shared in groups of 8 lines
         ((13, 6001), 1, np.float64), ((16, 9001), 1, np.float32)]


@pytest.mark.parametrize("shape,axis,dtype", LARGE,
                         ids=["%s-axis%d-%s" % (s, a, np.dtype(d).name) for s, a, d in LARGE])
def test_thread_counts_give_identical_bits(shape, axis, dtype):
    rng = np.random.default_rng(zlib.crc32(repr((shape, axis)).encode()))
    for op, reverse, exclusive in ((SUM, False, False), (PROD, True, True)):
        x = random_values(rng, dtype, shape, op)
        dmlcpu.set_num_threads(1)
        _core._force_isa("scalar")
        expected = scan(op, x, axis, reverse, exclusive)
        _core._force_isa(None)
        for n in thread_counts(1, 2, 3, 7):
            dmlcpu.set_num_threads(n)
            assert_same_bits(scan(op, x, axis, reverse, exclusive), expected,
                             (shape, axis, op, n))
            y = x.copy()
            scan(op, y, axis, reverse, exclusive, out=y)
            assert_same_bits(y, expected, (shape, axis, op, n, "in place"))


# (columns, bytes): two page strips and a bit, in L2 on two or three threads; under one page
# strip beyond L2, which the threads then share in half-page strips
OUTER_SPLITS = {"page strips": (lambda w: 2 * 4096 // w + 5, 3 << 19),
                "half-page strips": (lambda w: 4096 // w - 3, 7 << 19)}


@pytest.mark.parametrize("split", OUTER_SPLITS)
@pytest.mark.parametrize("dtype", [np.int8, np.float16, np.float32, np.float64])
def test_outer_chunks_split_on_lines_at_every_alignment(dtype, split):
    """Threads share an outer scan by columns, each chunk boundary where a line of dst starts
    (scan_nd.c), the first chunk taking the columns before the first line: dst starting at each
    element offset in a line moves every boundary. Odd column counts, so rows differ in
    alignment; reversed rows too (the boundaries then follow the last row's)."""
    itemsize = np.dtype(dtype).itemsize
    columns, nbytes = OUTER_SPLITS[split]
    cols = columns(itemsize)
    rows = nbytes // (cols * itemsize)
    rng = np.random.default_rng(29)
    for op, reverse in ((SUM, False), (PROD, True)):
        x = random_values(rng, dtype, (rows, cols), op)
        dmlcpu.set_num_threads(1)
        _core._force_isa("scalar")
        expected = scan(op, x, 0, reverse)
        _core._force_isa(None)
        for offset in range(64 // itemsize):
            for n in thread_counts(2, 3):
                dmlcpu.set_num_threads(n)
                out = at_page_offset(x.nbytes, offset * itemsize).view(dtype).reshape(x.shape)
                scan(op, x, 0, reverse, out=out)
                assert_same_bits(out, expected, (op, offset, n))
                y = at_page_offset(x.nbytes, offset * itemsize).view(dtype).reshape(x.shape)
                y[...] = x
                scan(op, y, 0, reverse, out=y)
                assert_same_bits(y, expected, (op, offset, n, "in place"))


# --- dispatch --------------------------------------------------------------------------------

SCAN_SLOTS = ["%s_%s_%s" % (t, op, s) for t in ("u8", "u16", "u32", "u64", "f16", "f32", "f64")
              for op in ("cumsum", "cumprod") for s in ("outer", "line")]


def test_scan_slots_are_listed_and_follow_the_forced_isa():
    for name in USABLE:
        _core._force_isa(name)
        kernels = dict(_core._config()["kernels"])
        for slot in SCAN_SLOTS:
            assert kernels[slot] in USABLE[:USABLE.index(name) + 1], (name, slot)
        if name == "scalar":
            assert {kernels[s] for s in SCAN_SLOTS} == {"scalar"}
        else:
            # the vertical FLOAT16 kernel (F16C) is the widest ISA's or the one below it
            assert kernels["f16_cumsum_outer"] != "scalar"


@pytest.mark.parametrize("isa", WIDE)
@pytest.mark.parametrize("dtype", [np.float32, np.uint32, np.float64, np.int64, np.float16])
def test_large_outputs_at_every_alignment(isa, dtype):
    """Outputs past the streaming threshold (4 MiB) start at each element offset inside a cache
    line, so the scalar head before the first aligned block takes every length."""
    rng = np.random.default_rng(13)
    itemsize = np.dtype(dtype).itemsize
    rows, cols = (5 << 20) // (1024 * itemsize), 1024
    for offset in range(0, 64 // itemsize, 3):
        buf = np.empty(rows * cols + 64, dtype)
        out = buf[offset:offset + rows * cols].reshape(rows, cols)
        for op, reverse, exclusive in ((SUM, False, False), (PROD, True, True), (SUM, True, False)):
            x = random_values(rng, dtype, (rows, cols), op)
            for axis in (0, 1):
                _core._force_isa("scalar")
                expected = scan(op, x, axis, reverse, exclusive)
                _core._force_isa(isa)
                scan(op, x, axis, reverse, exclusive, out=out)
                assert_same_bits(out, expected, (isa, offset, op, reverse, exclusive, axis))


@pytest.mark.parametrize("isa", WIDE)
@pytest.mark.parametrize("dtype", [np.uint32, np.int64, np.float32])
def test_one_large_line_at_every_alignment(isa, dtype):
    """A single line past the streaming threshold (the prefix-sum kernel streams its stores
    after a scalar head), its output starting at each element offset in a cache line, odd
    lengths so the tail is never empty."""
    rng = np.random.default_rng(17)
    itemsize = np.dtype(dtype).itemsize
    n = (5 << 20) // itemsize + 5
    buf = np.empty(n + 64 // itemsize, dtype)
    for offset in range(0, 64 // itemsize, 3):
        out = buf[offset:offset + n]
        for op, reverse, exclusive in ((SUM, False, False), (SUM, True, True), (PROD, False, True)):
            x = random_values(rng, dtype, (n,), op)
            _core._force_isa("scalar")
            expected = scan(op, x, 0, reverse, exclusive)
            _core._force_isa(isa)
            scan(op, x, 0, reverse, exclusive, out=out)
            assert_same_bits(out, expected, (isa, offset, op, reverse, exclusive))
