"""dmlcpu.numpy against NumPy itself: thousands of random calls (numpy_cases.py), each giving
the drop-in and NumPy identical arguments and requiring the same outcome: the same exception
type, or a result of the same type, dtype, shape, memory layout (C/F contiguity and strides)
and bytes, with ``out=`` returned and filled alike, and the inputs unchanged.

The small-array cut-off is set to 0 here so the fast paths run on these small arrays; the
counts in stats() show they did.
"""
import numpy as np
import pytest

import dmlcpu
import dmlcpu.numpy as dnp
from dmlcpu import _core
from dmlcpu.numpy import _layout, _tile
from conftest import usable_isas
from numpy_cases import (a_dtype, array, copy_case, join_case, repeat_case, same_shape_arrays,
                         scan_case, tile_case)

CALLS = 400   # random calls per function per test


@pytest.fixture(autouse=True)
def fast_paths_on_small_arrays(monkeypatch):
    monkeypatch.setattr(_layout, "SMALL_BYTES", 0)
    monkeypatch.setattr(_layout, "SMALL_JOIN_BYTES", 0)
    monkeypatch.setattr(_tile, "REPEAT_MIN_RUN_BYTES", 0)
    dnp.reset_stats()
    yield
    _core._force_isa(None)


def snapshot(value):
    """The bytes of every array in ``value`` (an array or a list of them)."""
    if isinstance(value, np.ndarray):
        return (value.dtype, value.shape, value_bytes(value))
    if isinstance(value, (list, tuple)):
        return [snapshot(v) for v in value]
    return value


def outcome(fn, args, kwargs):
    before = snapshot(args)
    try:
        result = fn(*args, **kwargs)
    except Exception as error:  # the type is what must match
        result = error
    assert snapshot(args) == before, "an input was modified"
    return result


_X87 = np.finfo(np.longdouble).nmant == 63   # 80-bit values in 16 bytes, 6 of them padding


def value_bytes(a):
    """The bytes that hold ``a``'s values: x87 long doubles leave 6 of every 16 bytes unset in
    a fresh array (NumPy writes 10), so only the 10 are compared."""
    a = np.ascontiguousarray(a)
    if _X87 and a.dtype in (np.longdouble, np.clongdouble):
        return a.view(np.uint8).reshape(-1, 16)[:, :10].tobytes()
    return a.tobytes()


def assert_same(got, expected, what):
    if isinstance(expected, Exception):
        assert isinstance(got, Exception) and type(got) is type(expected), (
            f"{what}: NumPy raised {expected!r}, the drop-in gave {got!r}")
        return
    assert not isinstance(got, Exception), f"{what}: the drop-in raised {got!r}"
    assert type(got) is type(expected), what
    assert got.dtype == expected.dtype, f"{what}: dtype {got.dtype} != {expected.dtype}"
    assert got.shape == expected.shape, f"{what}: shape {got.shape} != {expected.shape}"
    assert got.flags.c_contiguous == expected.flags.c_contiguous, f"{what}: C contiguity"
    assert got.flags.f_contiguous == expected.flags.f_contiguous, f"{what}: F contiguity"
    if got.size:
        strides = [(g, e) for g, e, n in zip(got.strides, expected.strides, got.shape) if n > 1]
        assert all(g == e for g, e in strides), f"{what}: strides {got.strides} != " \
                                                f"{expected.strides}"
    assert value_bytes(got) == value_bytes(expected), f"{what}: bytes differ"


def differential(name, make, calls=CALLS):
    """``make(seed)`` -> (args, kwargs) for dnp.<name> and np.<name>; each call twice."""
    for seed in range(calls):
        args, kwargs = make(seed)
        expected = outcome(getattr(np, name), args, kwargs)
        args, kwargs = make(seed)
        got = outcome(getattr(dnp, name), args, kwargs)
        assert_same(got, expected, f"{name} seed {seed}")


def with_out(make_args, name, seed, p_out=0.25):
    """Adds ``out=`` to a fraction of the calls: NumPy's result shape, of its dtype mostly,
    C, F or strided, filled with the same garbage for both calls."""
    args, kwargs = make_args(seed)
    rng = np.random.default_rng(seed + 10**6)
    if rng.random() >= p_out:
        return args, kwargs
    try:
        model = getattr(np, name)(*args, **kwargs)
    except Exception:
        return args, kwargs
    dt = a_dtype(rng, model.dtype, 0.75)
    kwargs["out"] = array(rng, dt, model.shape, str(rng.choice(["C", "F", "strided"])))
    return args, kwargs


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
def test_cumsum_cumprod(name):
    differential(name, lambda s: with_out(lambda t: ((scan_case(t)[0],), scan_case(t)[1]),
                                          name, s))
    assert dnp.stats()[name]["fast"] > CALLS // 5


@pytest.mark.parametrize("name", ["cumulative_sum", "cumulative_prod"])
def test_cumulative_sum_prod(name):
    if not hasattr(np, name):
        pytest.skip(f"numpy {np.__version__} has no {name}")
    differential(name, lambda s: with_out(
        lambda t: ((scan_case(t, True)[0],), scan_case(t, True)[1]), name, s))
    assert dnp.stats()[name]["fast"] > CALLS // 10


def test_concatenate_and_concat():
    differential("concatenate", lambda s: with_out(lambda t: ((join_case(t)[0],),
                                                              join_case(t)[1]),
                                                   "concatenate", s))
    differential("concat", lambda s: ((join_case(s)[0],), join_case(s)[1]), 100)
    assert dnp.stats()["concatenate"]["fast"] > CALLS // 3


def test_stack():
    def make(seed):
        rng, arrays = same_shape_arrays(seed)
        ndim = arrays[0].ndim + 1
        kwargs = {"axis": int(rng.integers(-ndim - 1, ndim + 1))}
        if rng.random() < 0.1:
            kwargs["dtype"] = a_dtype(rng)
        return (arrays,), kwargs
    differential("stack", lambda s: with_out(make, "stack", s))
    assert dnp.stats()["stack"]["fast"] > CALLS // 3


@pytest.mark.parametrize("name", ["hstack", "vstack", "dstack", "column_stack"])
def test_stack_family(name):
    def make(seed):
        rng, arrays = same_shape_arrays(seed, 3)
        if rng.random() < 0.2:
            arrays = tuple(arrays)
        return (arrays,), {}
    differential(name, make)
    assert dnp.stats()[name]["fast"] > CALLS // 4


def test_tile():
    differential("tile", lambda s: (tile_case(s), {}))
    assert dnp.stats()["tile"]["fast"] > CALLS // 4


def test_repeat():
    differential("repeat", lambda s: (repeat_case(s)[:2], {"axis": repeat_case(s)[2]}))
    assert dnp.stats()["repeat"]["fast"] > CALLS // 3


def test_ascontiguousarray():
    def make(seed):
        rng, a = copy_case(seed)
        return (a,), ({"dtype": a_dtype(rng, a.dtype, 0.5)} if rng.random() < 0.2 else {})
    differential("ascontiguousarray", make)
    assert dnp.stats()["ascontiguousarray"]["fast"] > CALLS // 4


def test_copy():
    def make(seed):
        rng, a = copy_case(seed)
        order = str(rng.choice(["K", "K", "A", "C", "F", "k", "X"]))
        return (a,), {"order": order}
    differential("copy", make)
    assert dnp.stats()["copy"]["fast"] > CALLS // 2


def test_a_fresh_copy_never_shares_the_input():
    a = np.arange(12.0).reshape(3, 4)[:, ::2]
    for fn in (dnp.copy, dnp.ascontiguousarray):
        assert not np.shares_memory(fn(a), a)


def test_out_overlapping_the_input_goes_to_numpy():
    x = np.arange(1, 13, dtype=np.int64).reshape(3, 4)
    expected = np.cumsum(x.copy(), axis=1)
    assert dnp.cumsum(x, axis=1, out=x) is x
    np.testing.assert_array_equal(x, expected)
    assert dnp.stats()["cumsum"]["reasons"] == {"out": 1}


def test_fallback_reasons_are_counted():
    dnp.cumsum(np.ones(4, np.int8), dtype=np.float16)
    dnp.cumsum(np.ma.masked_array(np.ones(4)))
    dnp.cumsum(np.ones(4))
    dnp.repeat(np.ones(4), [1, 2, 1, 0])
    assert dnp.stats() == {
        "cumsum": {"fast": 1, "numpy": 2, "reasons": {"float16 result": 1, "not ndarray": 1}},
        "repeat": {"fast": 0, "numpy": 1, "reasons": {"array of counts": 1}}}


def test_subclasses_keep_numpy_results():
    m = np.ma.masked_array(np.arange(6.0), mask=[0, 1, 0, 0, 1, 0])
    for name, args in (("cumsum", (m,)), ("concatenate", ([m, m],)), ("tile", (m, 2)),
                       ("repeat", (m, 2)), ("copy", (m,))):
        got, expected = getattr(dnp, name)(*args), getattr(np, name)(*args)
        assert type(got) is type(expected), name
        np.testing.assert_array_equal(np.ma.getdata(got), np.ma.getdata(expected))


@pytest.mark.parametrize("isa", usable_isas())
@pytest.mark.parametrize("threads", [1, 2, 3])
def test_fast_paths_under_every_isa_and_thread_count(isa, threads):
    """Results large enough for the threads to split them, on each ISA: NumPy's bits."""
    _core._force_isa(isa)
    old = dmlcpu.get_num_threads()
    dmlcpu.set_num_threads(threads)
    try:
        rng = np.random.default_rng(threads)
        for dt in (np.int8, np.uint16, np.int32, np.bool_, np.float16, np.float32, np.float64,
                   np.complex64, np.complex128):
            x = (rng.integers(-3, 4, (300, 130)) / 2).astype(dt)   # no NaN: all fast
            for axis in (0, 1, -1, None):
                assert_same(dnp.cumsum(x, axis=axis), np.cumsum(x, axis=axis), f"{dt} {axis}")
                if dt not in (np.complex64, np.complex128):
                    assert_same(dnp.cumprod(x, axis=axis), np.cumprod(x, axis=axis), f"{dt}")
            wide = np.complex128 if x.dtype.kind == "c" else np.float64
            assert_same(dnp.cumsum(x.T, axis=0, dtype=wide), np.cumsum(x.T, axis=0, dtype=wide),
                        f"{dt} as {wide}")
            parts = [array(rng, np.dtype(dt), (97, n)) for n in (5, 64, 33)]
            assert_same(dnp.concatenate(parts, axis=1), np.concatenate(parts, axis=1), "join")
            assert_same(dnp.tile(x, (2, 1, 3)), np.tile(x, (2, 1, 3)), "tile")
            assert_same(dnp.repeat(x, 3, axis=1), np.repeat(x, 3, axis=1), "repeat")
            assert_same(dnp.ascontiguousarray(x[::-1, ::2]), np.ascontiguousarray(x[::-1, ::2]),
                        "ascontiguousarray")
        assert not any(s["numpy"] for s in dnp.stats().values()), dnp.stats()
        y = np.ones((300, 130), np.float32)
        y[7, 5], y[9, 5] = np.nan, np.frombuffer(b"\x01\x00\x81\x7f", np.float32)[0]
        for axis in (0, 1, None):   # two NaN payloads meeting, a signalling one: NumPy's bits
            assert_same(dnp.cumsum(y, axis=axis), np.cumsum(y, axis=axis), "NaN")
    finally:
        dmlcpu.set_num_threads(old)


def test_float16_recipe_in_docs_matches_dmlcpus_float16_scan():
    """docs/numpy.md: np.cumsum(h, dtype=np.float32).astype(np.float16) is dmlcpu's float16
    scan (a float32 total, each written value rounded); np.cumsum(h) itself is not."""
    h = (np.random.default_rng(5).standard_normal((40, 300)) * 100).astype(np.float16)
    for axis in (0, 1):
        recipe = np.cumsum(h, axis=axis, dtype=np.float32).astype(np.float16)
        assert_same(dmlcpu.cumulative_summation(h, axis=axis), recipe, f"axis {axis}")
        assert np.cumsum(h, axis=axis).tobytes() != recipe.tobytes()
        assert_same(dnp.cumsum(h, axis=axis), np.cumsum(h, axis=axis), f"drop-in {axis}")
