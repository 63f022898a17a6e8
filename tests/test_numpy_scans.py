"""dmlcpu.numpy's own scan kernels (dmlcpu_numpy_scan) against NumPy itself, under every ISA
this machine has and several thread counts: integer and bool sources widened into every wider
integer result (sum and product, wrapping), and float16 rounded at every step, bit for bit
(NaN positions equal; a NaN's payload is NumPy's business: the drop-in hands such lines to it).
"""
import warnings

import numpy as np
import pytest

import dmlcpu
import dmlcpu.numpy as dnp
from dmlcpu import _core
from dmlcpu._errors import CoreError
from dmlcpu._types import DATA_TYPE_OF_NUMPY
from dmlcpu.numpy import _layout
from conftest import usable_isas

SOURCES = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.bool_]
RESULTS = [np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64]
PAIRS = [(s, r) for s in SOURCES for r in RESULTS
         if np.dtype(r).itemsize > np.dtype(s).itemsize]
# large enough for the pool to split (at least two 256 KiB chunks of int64 results)
SHAPE = (97, 13, 61)


@pytest.fixture(autouse=True)
def every_call_fast(monkeypatch):
    monkeypatch.setattr(_layout, "SMALL_BYTES", 0)
    dnp.reset_stats()
    old = dmlcpu.get_num_threads()
    yield
    dmlcpu.set_num_threads(old)
    _core._force_isa(None)


def integers(rng, dtype, shape):
    """Values spread over the whole range of ``dtype`` (so sums and products wrap)."""
    if np.dtype(dtype) == np.bool_:
        return rng.random(shape) < 0.5
    return rng.integers(0, 256, (*shape, np.dtype(dtype).itemsize), np.uint8).view(
        dtype).reshape(shape)


def layouts(a):
    """``a`` as C, Fortran, and reversed-strided views of larger arrays."""
    yield a
    yield np.asfortranarray(a)
    big = np.repeat(a, 2, axis=-1)[::-1, :, ::-2]
    yield big


def float16_values(rng, n):
    """float16 data with every class in it: normals of many sizes, subnormals, +-0.0, +-inf and
    NaNs (quiet and signalling, both signs), and values near 1 whose products stay finite."""
    bits = rng.integers(0, 1 << 16, n, dtype=np.uint16)
    pick = rng.random(n)
    h = bits.view(np.float16).copy()
    near_one = (1 + rng.standard_normal(n) / 64).astype(np.float16)
    h[pick < 0.5] = near_one[pick < 0.5]
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 6.1e-5, -6e-8, 65504],
                        np.float16)
    special = pick > 0.97
    h[special] = rng.choice(specials, int(special.sum()))
    h[rng.random(n) < 0.002] = np.frombuffer(b"\x01\x7c", np.float16)[0]   # signalling NaN
    return h


def same_float16(got, expected):
    """Bits equal wherever NumPy's value is not NaN; NaN exactly where NumPy's is."""
    g, e = got.view(np.uint16), expected.view(np.uint16)
    nan = np.isnan(expected)
    assert np.array_equal(np.isnan(got), nan)
    assert np.array_equal(g[~nan], e[~nan])


def kernel(source, out, axis, op):
    """The C kernel itself, ``out`` receiving NumPy's scan of ``source``."""
    if source.dtype == np.bool_:
        source = source.view(np.uint8)
    _core._numpy_scan(source, out, DATA_TYPE_OF_NUMPY[source.dtype],
                      DATA_TYPE_OF_NUMPY[out.dtype], axis, {"sum": 0, "prod": 1}[op])


@pytest.mark.parametrize("isa", usable_isas())
@pytest.mark.parametrize("threads", [1, 2, 3, 7])
def test_widening_scans_are_numpys(isa, threads):
    _core._force_isa(isa)
    dmlcpu.set_num_threads(threads)
    rng = np.random.default_rng(threads)
    for source, result in PAIRS:
        a = integers(rng, source, SHAPE)
        for x in layouts(a):
            for axis in (0, 1, 2):
                for op, numpy_fn in (("sum", np.cumsum), ("prod", np.cumprod)):
                    expected = numpy_fn(x, axis=axis, dtype=result)
                    out = np.empty(x.shape, result)
                    kernel(x, out, axis, op)
                    assert np.array_equal(out, expected), (source, result, axis, op)


@pytest.mark.parametrize("isa", usable_isas())
@pytest.mark.parametrize("threads", [1, 2, 3, 7])
def test_float16_scans_are_numpys(isa, threads):
    _core._force_isa(isa)
    dmlcpu.set_num_threads(threads)
    rng = np.random.default_rng(100 + threads)
    a = float16_values(rng, int(np.prod(SHAPE))).reshape(SHAPE)
    with np.errstate(all="ignore"):
        for x in layouts(a):
            for axis in (0, 1, 2):
                for op, numpy_fn in (("sum", np.cumsum), ("prod", np.cumprod)):
                    out = np.empty(x.shape, np.float16)
                    kernel(x, out, axis, op)
                    same_float16(out, numpy_fn(x, axis=axis))


def test_float16_rounds_every_step_as_numpy():
    """Sums whose float32 total would differ from NumPy's float16 one, and the edges of
    float16: ties to even, overflow to inf at 65520, subnormal results, -0.0 + -0.0."""
    cases = [[2048, 1, 1, 1, 1], [65504, 8, 8], [65504, 15.99], [6e-8, 6e-8, -1.2e-7],
             [-0.0, -0.0], [1e-4, 3e-5, 2e-7], [0.1] * 50]
    with np.errstate(all="ignore"):
        for values in cases:
            h = np.array(values, np.float16)
            for op, numpy_fn in (("sum", np.cumsum), ("prod", np.cumprod)):
                out = np.empty_like(h)
                kernel(h, out, 0, op)
                same_float16(out, numpy_fn(h))


def test_drop_in_scans_take_the_new_kernels_and_give_numpys_results():
    rng = np.random.default_rng(7)
    calls = 0
    for source, result in PAIRS:
        x = integers(rng, source, (40, 30))
        for dtype in (None, result):
            for axis in (0, -1, None):
                for name in ("cumsum", "cumprod"):
                    got = getattr(dnp, name)(x, axis=axis, dtype=dtype)
                    expected = getattr(np, name)(x, axis=axis, dtype=dtype)
                    assert got.dtype == expected.dtype and np.array_equal(got, expected)
                    assert got.strides == expected.strides
                    calls += 1
    h = (rng.standard_normal((40, 30)) * 50).astype(np.float16)
    for axis in (0, 1, None):
        assert dnp.cumsum(h, axis=axis).tobytes() == np.cumsum(h, axis=axis).tobytes()
        calls += 1
    stats = dnp.stats()
    assert sum(s["fast"] for s in stats.values()) == calls, stats


def test_float16_overflow_and_nan_lines_go_to_numpy_with_its_warnings():
    h = np.ones((8, 300), np.float16)
    h[3, 5] = 65504
    h[3, 6] = np.nan
    for axis in (0, 1):
        with warnings.catch_warnings(record=True) as expected_warnings:
            warnings.simplefilter("always")
            expected = np.cumsum(h, axis=axis)
        with warnings.catch_warnings(record=True) as got_warnings:
            warnings.simplefilter("always")
            got = dnp.cumsum(h, axis=axis)
        assert got.tobytes() == expected.tobytes()
        assert [str(w.message) for w in got_warnings] == [
            str(w.message) for w in expected_warnings]
    assert dnp.stats()["cumsum"]["reasons"] == {"NaN or inf": 2}


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64])
def test_float_overflow_warns_as_numpy_does(dtype):
    """A total that overflows to inf: NumPy warns "overflow encountered in accumulate"."""
    big = np.finfo(np.dtype(dtype).char.lower() if np.dtype(dtype).kind == "c" else dtype).max
    x = np.ones((64, 300), dtype)
    x[10:12, 7] = big
    dnp.reset_stats()
    for fn, np_fn in ((dnp.cumsum, np.cumsum), (dnp.cumprod, np.cumprod)):
        for axis in (0, 1):
            with warnings.catch_warnings(record=True) as expected_warnings:
                warnings.simplefilter("always")
                expected = np_fn(x, axis=axis)
            with warnings.catch_warnings(record=True) as got_warnings:
                warnings.simplefilter("always")
                got = fn(x, axis=axis)
            assert got.tobytes() == expected.tobytes()
            assert [str(w.message) for w in got_warnings] == [
                str(w.message) for w in expected_warnings]


@pytest.mark.parametrize("source, result", [(np.int32, np.int16), (np.int16, np.int16),
                                            (np.float32, np.float16), (np.int8, np.float16),
                                            (np.float16, np.float32), (np.int8, np.float32)])
def test_the_kernel_refuses_what_it_does_not_do(source, result):
    with pytest.raises(CoreError):
        kernel(np.ones((4, 4), source), np.empty((4, 4), result), 0, "sum")


def test_the_kernel_refuses_an_overlapping_out():
    buffer = np.zeros(64, np.int64)
    with pytest.raises(ValueError):
        kernel(buffer.view(np.int8)[:64], buffer[:8], 0, "sum")
