"""Eager calls remember their validated plan per signature: reuse must never change an answer
or let through an argument the validator refuses."""
import numpy as np
import pytest

import dmlcpu as dml
from dmlcpu import _ops


def test_repeated_calls_read_fresh_data_and_return_fresh_arrays():
    for k in range(3):
        x = np.arange(12, dtype=np.float32).reshape(2, 6) * (k + 1)
        a, b = dml.split(x, axis=1, output_axis_sizes=[2, 4])
        assert np.array_equal(a, x[:, :2]) and np.array_equal(b, x[:, 2:])
        c = dml.join([a, b], axis=1)
        assert np.array_equal(c, x)
        assert not np.shares_memory(c, x) and c.flags.c_contiguous


def test_signature_includes_strides_and_dtype():
    base = np.arange(24, dtype=np.int32).reshape(4, 6)
    for x in (base, base[:, ::-1], base[::2], base.astype(np.int8), np.asfortranarray(base)):
        got = dml.slice(x, offsets=[0, 1], sizes=[2, 2], strides=[1, 2])
        assert np.array_equal(got, x[0:2, 1:4:2]) and got.dtype == x.dtype


def test_every_operator_takes_the_remembered_path():
    _ops._CACHE.clear()
    x = np.arange(1, 13, dtype=np.float32).reshape(3, 4)
    calls = [
        lambda: dml.split(x, axis=0, output_axis_sizes=[1, 2]),
        lambda: dml.join([x, x], axis=1),
        lambda: dml.slice(x, offsets=[0, 0], sizes=[3, 2], strides=[1, 2]),
        lambda: dml.slice1(x, input_window_offsets=[0, 0], input_window_sizes=[3, 4],
                           input_window_strides=[-1, 2]),
        lambda: dml.tile(x, repeats=[2, 1]),
        lambda: dml.cumulative_summation(x, axis=1, has_exclusive_sum=True),
        lambda: dml.cumulative_product(x, axis=0, axis_direction=dml.AxisDirection.DECREASING),
    ]
    first = [call() for call in calls]
    assert len(_ops._CACHE) == len(calls)
    second = [call() for call in calls]
    for a, b in zip(first, second):
        for p, q in zip(a if isinstance(a, list) else [a], b if isinstance(b, list) else [b]):
            assert p.tobytes() == q.tobytes() and p.shape == q.shape
    assert np.array_equal(second[5], np.cumsum(x, axis=1) - x)
    assert np.array_equal(second[6], np.cumprod(x[::-1], axis=0)[::-1])


def test_values_equal_to_a_remembered_key_are_still_validated():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    dml.split(x, axis=1, output_axis_sizes=[1, 2])
    with pytest.raises(TypeError, match="Axis must be an integer, not bool"):
        dml.split(x, axis=True, output_axis_sizes=[1, 2])
    with pytest.raises(TypeError, match=r"output_axis_sizes\[0\] must be an integer"):
        dml.split(x, axis=1, output_axis_sizes=[1.0, 2])
    dml.tile(x, repeats=[1, 2])
    with pytest.raises(TypeError):
        dml.tile(x, repeats=[1.0, 2.0])
    dml.cumulative_summation(x, axis=1, has_exclusive_sum=True)
    assert np.array_equal(dml.cumulative_summation(x, axis=1, has_exclusive_sum=1),
                          np.cumsum(x, axis=1) - x)


def test_refused_calls_are_not_remembered():
    _ops._CACHE.clear()
    x = np.zeros((2, 3), np.float32)
    for _ in range(2):
        with pytest.raises(dml.InvalidArgumentError):
            dml.split(x, axis=1, output_axis_sizes=[1, 1])
    assert not _ops._CACHE


def test_the_memory_of_plans_is_bounded():
    _ops._CACHE.clear()
    for n in range(1, _ops._CACHE_LIMIT + 10):
        dml.tile(np.zeros(n, np.uint8), repeats=[2])
    assert len(_ops._CACHE) <= _ops._CACHE_LIMIT


def test_remembered_plans_into_caller_outputs_still_refuse_overlap():
    base = np.zeros(32, np.float32)
    x, out = base[:8], base[16:24]
    x[:] = np.arange(8)
    dml.tile(x, repeats=[1], out=out)               # remembered for this signature
    assert np.array_equal(out, x)
    with pytest.raises(dml.InvalidArgumentError,
                       match=r"out \(OutputTensor\) overlaps input \(InputTensor\)"):
        dml.tile(base[4:12], repeats=[1], out=base[8:16])   # same signature, overlapping
    assert np.array_equal(base[8:16], np.zeros(8))           # nothing written
    # interleaved but disjoint: allowed, and right
    dml.tile(base[0:16:2], repeats=[1], out=base[1:17:2])
    assert np.array_equal(base[1:17:2], base[0:16:2])


def test_remembered_in_place_scan_allows_only_the_identical_view():
    data = np.arange(1, 9, dtype=np.int32)
    dml.cumulative_summation(data, axis=0, out=data)
    assert data.tolist() == [1, 3, 6, 10, 15, 21, 28, 36]
    data[:] = np.arange(1, 9)
    base = np.arange(1, 11, dtype=np.int32)
    with pytest.raises(dml.InvalidArgumentError, match="identical view"):
        dml.cumulative_summation(base[:8], axis=0, out=base[2:10])
    assert base.tolist() == list(range(1, 11))
    dml.cumulative_summation(data, axis=0, out=data)
    assert data.tolist() == [1, 3, 6, 10, 15, 21, 28, 36]


def test_remembered_plans_into_read_only_outputs_are_refused():
    x = np.arange(6, dtype=np.uint8)
    out = np.zeros(6, np.uint8)
    dml.slice(x, offsets=[0], sizes=[6], out=out)
    out.flags.writeable = False
    with pytest.raises(dml.InvalidArgumentError, match="read-only"):
        dml.slice(x[::-1].copy(), offsets=[0], sizes=[6], out=out)
    assert out.tolist() == list(range(6))


def test_split_and_join_into_outputs_take_the_remembered_path():
    _ops._CACHE.clear()
    x = np.arange(12, dtype=np.int16).reshape(2, 6)
    outs = [np.empty((2, 2), np.int16), np.empty((2, 4), np.int16)]
    joined = np.empty((2, 6), np.int16)
    for k in range(2):
        dml.split(x + k, axis=1, output_axis_sizes=[2, 4], outputs=outs)
        dml.join(outs, axis=1, out=joined)
        assert np.array_equal(joined, x + k)
    assert len(_ops._CACHE) == 2


def test_remembered_plans_read_arrays_from_their_own_fields():
    # NumPy's array object layout matched at import; if a NumPy release changes it, remembered
    # plans stay correct but every call takes the full path: this test says so.
    from dmlcpu import _core
    assert _core.binds_from_fields()
    x = np.arange(12, dtype=np.int16).reshape(3, 4)[::-1, 1::2]
    fields = _core._fields_of(x)
    assert fields[1:] == (2, x.dtype, True, (3, 2), (-8, 4))
    assert fields[0][0] == x.__array_interface__["data"][0]


def test_a_remembered_plan_runs_without_the_full_path(monkeypatch):
    x = np.arange(16, dtype=np.float32).reshape(4, 4)
    first = dml.slice(x, offsets=[1, 0], sizes=[2, 3], strides=[1, 1])
    monkeypatch.setattr(_ops, "_full", lambda *args: pytest.fail("the full path ran"))
    for _ in range(3):
        assert np.array_equal(dml.slice(x, offsets=[1, 0], sizes=[2, 3], strides=[1, 1]), first)


def test_new_outputs_of_remembered_plans_are_fresh_owned_arrays():
    # New outputs come from NumPy's C API by its table slot (checked at import); if a NumPy
    # release ever moved it, numpy.empty would serve and this test says so.
    from dmlcpu import _core
    assert _core.makes_outputs_by_c_api()
    for name in ("float32", "float16", "uint32", "uint16", "uint8", "int32", "int16", "int8",
                 "float64", "uint64", "int64"):
        x = (np.arange(24) % 7).astype(name).reshape(2, 3, 4)
        for _ in range(2):   # the second call is served by the remembered plan
            parts = dml.split(x, axis=2, output_axis_sizes=[1, 3])
            tiled = dml.tile(x, repeats=[1, 2, 1])
            wants = np.split(x, [1], axis=2) + [np.tile(x, (1, 2, 1))]
            for got, want in zip(parts + [tiled], wants):
                assert type(got) is np.ndarray and got.dtype == x.dtype
                assert got.shape == want.shape and np.array_equal(got, want)
                assert got.flags.c_contiguous and got.flags.owndata and got.flags.writeable
                assert got.base is None and not np.shares_memory(got, x)


def test_keys_tell_apart_ints_around_the_one_digit_boundary():
    # Keys read one-digit ints without a call and the rest through CPython; both ways must
    # give each value its own word, signs and the int64 limits included.
    from dmlcpu import _core
    values = [0, 1, -1, 2**30 - 1, 2**30, -(2**30 - 1), -(2**30), 2**31, -(2**31), 2**62,
              2**63 - 1, -(2**63), 7, -7]
    keys = [_core.eager_key("TILE", False, ([v],), ()) for v in values]
    for v, a in zip(values, keys):
        for w, b in zip(values, keys):
            assert (a == b) == (v == w), (v, w)
    assert _core.eager_key("TILE", False, ([2**63],), ()) is None
    assert _core.eager_key("TILE", False, ([-(2**63) - 1],), ()) is None
