"""Scans carried in and out (the C core's dmlcpu_scan_carried, which dmlcpu.dask's scan blocks
run): a scan cut into pieces along its axis, each piece started from the total the previous one
handed on, gives the bits of the one whole scan, under every ISA this machine has, every kernel
layout (outer, lines, a single long line, too few lines for the lanes, strided and reversed
views, streaming stores) and thread count. The whole scan is the eager API's, which
tests/test_scan.py and tests/test_scan_dispatch.py check against an independent reference.
"""
import os
import subprocess
import sys
import zlib

import numpy as np
import pytest

import dmlcpu
from dmlcpu import _core
from dmlcpu._types import DATA_TYPE_OF_NUMPY
from conftest import usable_isas

DTYPES = [np.float32, np.float16, np.float64, np.uint8, np.int8, np.uint16, np.int16, np.uint32,
          np.int32, np.uint64, np.int64]
SUM, PROD = 0, 1
# (shape, axis): outer sweeps, many lines, one long line (prefix sums), a few lines (fewer than
# the lanes), 3-d with the axis in the middle, single-element pieces
LAYOUTS = [((70, 37), 0), ((37, 70), 1), ((1, 300), 1), ((3, 200), 1), ((5, 41, 6), 1),
           ((9, 2), 0), ((2, 9), 1)]


@pytest.fixture
def threads(request):
    """The pool size for the whole test, restored after it."""
    before = dmlcpu.get_num_threads()
    dmlcpu.set_num_threads(request.param)
    yield request.param
    dmlcpu.set_num_threads(before)


def zlib_seed(*parts):
    return zlib.crc32(repr(parts).encode())


def accumulator(dtype):
    return np.dtype(np.float32) if dtype == np.float16 else np.dtype(dtype)


def random_array(rng, shape, dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":  # finite: where two NaNs meet, IEEE leaves the payload open
        return (rng.standard_normal(shape) * 1.2).astype(dtype)
    count = int(np.prod(shape)) * dtype.itemsize
    return rng.integers(0, 256, count, dtype=np.uint8).view(dtype).reshape(shape)


def take(x, axis, start, stop):
    index = [slice(None)] * x.ndim
    index[axis] = slice(start, stop)
    return x[tuple(index)]


def in_pieces(x, axis, op, reverse, exclusive, cuts, out=None):
    """The scan of x as pieces cut at ``cuts``, chained through their carries; (result, carry)."""
    out = np.empty(x.shape, x.dtype) if out is None else out
    edges = [0] + list(cuts) + [x.shape[axis]]
    spans = list(zip(edges, edges[1:]))
    carry = None
    for start, stop in (reversed(spans) if reverse else spans):
        shape = list(x.shape)
        shape[axis] = 1
        carry_out = np.empty(shape, accumulator(x.dtype))
        _core._scan_carried(take(x, axis, start, stop), take(out, axis, start, stop), carry,
                            carry_out, int(DATA_TYPE_OF_NUMPY[x.dtype]), op, axis, reverse,
                            exclusive)
        carry = carry_out
    return out, carry


def whole(x, axis, op, reverse, exclusive):
    if op == SUM:
        return dmlcpu.cumulative_summation(x, axis=axis, axis_direction=int(reverse),
                                           has_exclusive_sum=exclusive)
    return dmlcpu.cumulative_product(x, axis=axis, axis_direction=int(reverse),
                                     has_exclusive_product=exclusive)


def final_total(x, axis, op, reverse):
    """Each line's total in the accumulator type, from the eager inclusive scan (FLOAT16: of the
    same values in FLOAT32, which is how FLOAT16 accumulates)."""
    values = x.astype(np.float32) if x.dtype == np.float16 else x
    scanned = whole(values, axis, op, reverse, False)
    last = 0 if reverse else x.shape[axis] - 1
    return take(scanned, axis, last, last + 1)


def check(x, axis, cuts):
    for op in (SUM, PROD):
        for reverse in (False, True):
            for exclusive in (False, True):
                got, carry = in_pieces(x, axis, op, reverse, exclusive, cuts)
                expected = whole(x, axis, op, reverse, exclusive)
                assert got.tobytes() == expected.tobytes(), (op, reverse, exclusive, cuts)
                total = final_total(x, axis, op, reverse)
                assert carry.tobytes() == np.ascontiguousarray(total).tobytes()


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_pieces_give_the_whole_scan(isa, dtype):
    rng = np.random.default_rng(zlib_seed(isa, dtype))
    for shape, axis in LAYOUTS:
        x = random_array(rng, shape, dtype)
        n = shape[axis]
        for cuts in (sorted(set(rng.integers(1, n, 3).tolist())), list(range(1, n)), [n // 2]):
            check(x, axis, cuts)
        # strided and reversed source views, and an output view into a larger array
        view = random_array(rng, (2 * shape[0],) + shape[1:], dtype)[::-2]
        check(view, axis, [n // 3, n // 3 + 1])


@pytest.mark.parametrize("threads", [1, 3], indirect=True)
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.uint32, np.int64])
def test_large_pieces_on_every_thread_count(isa, threads, dtype):
    """Pieces of a MiB and more run on the pool and, from 4 MiB, with streaming stores; the
    output views start one element off alignment, so the vector kernels take scalar heads."""
    rng = np.random.default_rng(zlib_seed(isa, threads, dtype))
    itemsize = np.dtype(dtype).itemsize
    for shape, axis, cuts in [((1500, 700), 0, [1100]), ((700, 1500), 1, [1100]),
                              ((1, 5_000_000 // itemsize), 1, [4_000_000 // itemsize])]:
        x = random_array(rng, shape, dtype)
        for op, reverse, exclusive in [(SUM, False, False), (SUM, True, True),
                                       (PROD, False, True)]:
            out = np.empty(x.size + 1, dtype)[1:].reshape(shape)
            got, _ = in_pieces(x, axis, op, reverse, exclusive, cuts, out=out)
            assert got.tobytes() == whole(x, axis, op, reverse, exclusive).tobytes()


def test_carry_in_may_be_carry_out_and_out_may_be_source():
    x = np.random.default_rng(1).standard_normal((6, 50)).astype(np.float32)
    expected = whole(x, 1, SUM, False, False)
    y = x.copy()
    carry = np.zeros((6, 1), np.float32) - 0.0  # -0.0: the sum's identity, bit for bit
    for start in range(0, 50, 20):
        piece = y[:, start:start + 20]
        _core._scan_carried(piece, piece, carry, carry, 1, SUM, 1, False, False)
    assert y.tobytes() == expected.tobytes()


def test_a_zero_carry_in_is_not_the_fresh_start_of_an_exclusive_scan():
    """With a carry, an exclusive scan writes the carry first (here +1.0 and -0.0 stay apart)."""
    x = np.array([[3.0, 4.0]], np.float32)
    out = np.empty_like(x)
    carry = np.array([[-0.0]], np.float32)
    _core._scan_carried(x, out, carry, None, 1, SUM, 1, False, True)
    assert out.tobytes() == np.array([[-0.0, 3.0]], np.float32).tobytes()
    _core._scan_carried(x, out, np.array([[1.0]], np.float32), None, 1, PROD, 1, False, True)
    assert out.tobytes() == np.array([[1.0, 3.0]], np.float32).tobytes()


@pytest.mark.parametrize("make, error", [
    (lambda x, o, c: (x, o, c, np.empty((4, 2), np.float32), 1, SUM, 1), "wrong shape"),
    (lambda x, o, c: (x, o, c.astype(np.float64), None, 1, SUM, 1), "bytes"),
    (lambda x, o, c: (x, o[:, :3], c, None, 1, SUM, 1), "wrong shape"),
    (lambda x, o, c: (x, o, c, None, 1, SUM, 2), "axis"),
    (lambda x, o, c: (x, o, c, None, 0, SUM, 1), "not a DirectML data type"),
    (lambda x, o, c: (x, x[:, ::-1], c, None, 1, SUM, 1), "overlaps"),
    (lambda x, o, c: (x, o, c, o[:, :1], 1, SUM, 1), "overlaps"),
    (lambda x, o, c: (x[0], o[0], c, None, 1, SUM, 0), "dimensions"),
])
def test_misfits_are_refused_before_anything_is_written(make, error):
    x = np.ones((4, 5), np.float32)
    out = np.full((4, 5), 7, np.float32)
    carry = np.zeros((4, 1), np.float32)
    with pytest.raises(ValueError, match=error):
        _core._scan_carried(*make(x, out, carry), False, False)
    assert (out == 7).all() and (x == 1).all()


def test_a_read_only_output_is_refused():
    x = np.ones((4, 5), np.float32)
    out = np.zeros((4, 5), np.float32)
    out.setflags(write=False)
    with pytest.raises((BufferError, ValueError)):
        _core._scan_carried(x, out, None, None, 1, SUM, 1, False, False)
    assert (out == 0).all()


def test_empty_pieces_write_nothing():
    x = np.ones((0, 5), np.float32)
    carry_out = np.full((1, 5), 9, np.float32)
    _core._scan_carried(x, np.empty_like(x), None, carry_out, 1, SUM, 0, False, False)
    assert (carry_out == 9).all()


# ------------------------------------------------------------------ guard pages

def guarded_run():
    """Every type, layout, operation and direction, each piece, its output and both carries
    flush against inaccessible pages on one side; prints the number of carried calls."""
    from guarded import guarded_array
    rng = np.random.default_rng(5)
    calls = 0
    for dtype in DTYPES:
        for shape, axis in [((40, 37), 0), ((37, 40), 1), ((1, 300), 1), ((3, 200), 1)]:
            x = random_array(rng, shape, dtype)
            n = shape[axis]
            for side in ("front", "back"):
                for op, reverse, exclusive in [(SUM, False, False), (SUM, True, True),
                                               (PROD, False, True), (PROD, True, False)]:
                    out = np.empty(x.shape, x.dtype)
                    spans = [(0, n // 3), (n // 3, n)]
                    carry = None
                    for start, stop in (reversed(spans) if reverse else spans):
                        piece = take(x, axis, start, stop)
                        source = guarded_array(piece.shape, dtype, side=side)
                        source[...] = piece
                        written = guarded_array(piece.shape, dtype, side=side)
                        if carry is not None:
                            carry_in = guarded_array(carry.shape, carry.dtype, side=side)
                            carry_in[...] = carry
                            carry = carry_in
                        carry_out = guarded_array(carry.shape if carry is not None else
                                                  take(x, axis, 0, 1).shape, accumulator(dtype),
                                                  side=side)
                        _core._scan_carried(source, written, carry, carry_out,
                                            int(DATA_TYPE_OF_NUMPY[x.dtype]), op, axis,
                                            reverse, exclusive)
                        take(out, axis, start, stop)[...] = written
                        carry = np.array(carry_out)
                        calls += 1
                    assert out.tobytes() == whole(x, axis, op, reverse, exclusive).tobytes()
    print("carried calls:", calls)


@pytest.mark.skipif(sys.platform == "win32", reason="mmap guard pages need POSIX")
@pytest.mark.parametrize("forced", usable_isas())
def test_carried_scans_stay_inside_their_buffers(forced):
    """In a subprocess, so that a stray access is a failed test (-11), not a dead test run."""
    here = os.path.dirname(os.path.abspath(__file__))
    package = os.path.dirname(os.path.dirname(dmlcpu.__file__))
    env = dict(os.environ, DMLCPU_FORCE_ISA=forced, PYTHONPATH=os.pathsep.join(
        p for p in (here, package, os.environ.get("PYTHONPATH")) if p))
    result = subprocess.run([sys.executable, "-c", "import test_dask_carry as t; t.guarded_run()"],
                            capture_output=True, text=True, env=env, timeout=600)
    assert result.returncode == 0, (result.returncode, result.stdout[-2000:],
                                    result.stderr[-2000:])
    assert int(result.stdout.split("carried calls:")[1]) == 11 * 4 * 2 * 4 * 2


def test_strides_beyond_64_bits_are_refused_without_a_read():
    hostile = np.lib.stride_tricks.as_strided(np.zeros(1, np.float32), shape=(2, 2),
                                              strides=(2**62, 4))
    out = np.full((2, 2), 7, np.float32)
    carry = np.zeros((1, 2), np.float32)
    with pytest.raises((OverflowError, ValueError)):
        _core._scan_carried(hostile, out, None, carry, 1, SUM, 0, False, False)
    hostile_carry = np.lib.stride_tricks.as_strided(np.zeros(1, np.float32), shape=(2, 1),
                                                    strides=(2**62, 4))
    with pytest.raises((OverflowError, ValueError)):
        _core._scan_carried(np.ones((2, 2), np.float32), out, hostile_carry, None, 1, SUM, 1,
                            False, False)
    assert (out == 7).all()
