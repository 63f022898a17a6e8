"""Hostile calls, second part (issue 14, defects 7, 8, 9, 11, 13, 14, 17, 18): bounded work,
bounded memory, and errors that name what the caller did."""
import json
import mmap
import os
import subprocess
import sys
import tracemalloc

import numpy as np
import pytest
from numpy.lib.stride_tricks import as_strided

import dmlcpu as dml
from dmlcpu import _arrays, _ops, _self_overlap
from conftest import assert_same_bits

# A valid padded 8-D layout whose self-overlap NumPy's exact solver takes ~10^8 steps to settle.
TANGLED_SIZES = [8, 19, 21, 14, 14, 9, 23, 23]
TANGLED_ELEMENT_STRIDES = [622104, 4976832, 92, 851038272, 44436, 94559809, 1933, 4]


# ---------------------------------------------------------------- defect 7: bounded self-overlap

def test_an_undecidable_self_overlap_is_refused_naming_the_budget():
    out = as_strided(np.zeros(1, np.uint8), shape=TANGLED_SIZES,
                     strides=TANGLED_ELEMENT_STRIDES)
    with pytest.raises(dml.InvalidArgumentError, match=f"{_self_overlap.SELF_OVERLAP_MAX_WORK} steps"):
        dml.tile(np.zeros([1] * 8, np.uint8), repeats=TANGLED_SIZES, out=out)
    assert _self_overlap.self_overlap(out) == "undecided" and _self_overlap.self_overlaps(out)


def test_a_descriptor_with_an_undecidable_layout_is_refused():
    u8 = dml.TensorDataType.UINT8
    out = dml.TensorDesc(u8, TANGLED_SIZES, TANGLED_ELEMENT_STRIDES)
    with pytest.raises(dml.InvalidArgumentError, match="overlap"):
        dml.compile_operator(dml.TileOperatorDesc(dml.TensorDesc(u8, [1] * 8), out,
                                                  TANGLED_SIZES))


def test_decidable_layouts_are_still_decided_exactly():
    base = np.zeros(64, np.float32)
    interleaved = as_strided(base, shape=(4, 4), strides=(8, 32))  # disjoint, interleaved
    assert _self_overlap.self_overlap(interleaved) is None
    assert _self_overlap.self_overlap(as_strided(base, shape=(4, 4), strides=(4, 8))) == "overlaps"
    assert _self_overlap.self_overlap(as_strided(base, shape=(3,), strides=(0,))) == "overlaps"


# ---------------------------------------------------------------- defect 8: many outputs

def test_split_into_many_outputs_checks_each_pair_of_neighbours_only(monkeypatch):
    n = 20000
    x = np.arange(n, dtype=np.int16)
    outs = [np.empty(1, np.int16) for _ in range(n)]
    exact_checks = []
    real = _arrays._may_share
    monkeypatch.setattr(_arrays, "_may_share", lambda a, b: exact_checks.append(1) or real(a, b))
    got = dml.split(x, axis=0, output_axis_sizes=[1] * n, outputs=outs)
    assert got == outs and np.array_equal(np.concatenate(outs), x)
    assert not exact_checks  # side by side: no exact check, the sweep stops at each neighbour
    outs[7] = outs[3]
    with pytest.raises(dml.InvalidArgumentError,
                       match=r"outputs\[3\] \(OutputTensors\[3\]\) overlaps "
                             r"outputs\[7\] \(OutputTensors\[7\]\)"):
        dml.split(x, axis=0, output_axis_sizes=[1] * n, outputs=outs)


class _CountingList(list):
    """A list that counts the elements each read hands out: a slice of k elements counts k."""
    touched = 0

    def __getitem__(self, key):
        got = super().__getitem__(key)
        _CountingList.touched += len(got) if isinstance(key, slice) else 1
        return got

    def __iter__(self):
        _CountingList.touched += len(self)
        return super().__iter__()


def test_the_disjointness_sweep_touches_each_output_a_bounded_number_of_times(monkeypatch):
    # 0.1.0 compared each sorted span with a copy of all later ones (spans[i + 1:]): n^2 / 2
    # element copies, 21 s for 10^5 outputs. Counted, not timed: the sweep must stay linear.
    n = 4000
    x = np.arange(n, dtype=np.int16)
    outs = [np.empty(1, np.int16) for _ in range(n)]
    monkeypatch.setattr(_arrays, "sorted", lambda items: _CountingList(sorted(items)),
                        raising=False)
    _CountingList.touched = 0
    dml.split(x, axis=0, output_axis_sizes=[1] * n, outputs=outs)
    assert np.array_equal(np.concatenate(outs), x)
    assert n <= _CountingList.touched <= 3 * n, _CountingList.touched


# ---------------------------------------------------------------- defect 9: the cache in bytes

def test_the_plan_cache_is_bounded_in_bytes():
    _ops._CACHE.clear()
    _ops._cache_bytes = 0
    parts = 2000
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        for k in range(48):  # distinct signatures: an int8 vector of k + 1 elements each
            xs = [np.zeros(k + 1, np.int8)] * parts
            assert dml.join(xs, axis=0).shape == ((k + 1) * parts,)
            del xs
        held = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    entries = list(_ops._CACHE.values())
    assert entries and all(e.nbytes > parts * 100 for e in entries)
    assert sum(e.nbytes for e in entries) == _ops._cache_bytes <= _ops._CACHE_MAX_BYTES
    assert held < _ops._CACHE_MAX_BYTES * 1.5, held


def test_a_plan_larger_than_the_whole_cache_is_not_kept(monkeypatch):
    _ops._CACHE.clear()
    _ops._cache_bytes = 0
    monkeypatch.setattr(_ops, "_CACHE_MAX_BYTES", 10000)
    dml.join([np.zeros(3, np.int8)] * 500, axis=0)
    assert not _ops._CACHE
    dml.join([np.zeros(3, np.int8)] * 2, axis=0)
    assert len(_ops._CACHE) == 1


# ---------------------------------------------------------------- defect 11: size-1 huge stride

def _size_one_huge_stride():
    x = np.arange(4.0).reshape(1, 4)
    return as_strided(x, shape=(1, 4), strides=(2**63 - 8, 8)), x


@pytest.mark.parametrize("call, expected", [
    (lambda y: dml.cumulative_summation(y, axis=1), lambda x: np.cumsum(x, axis=1)),
    (lambda y: dml.split(y, axis=1, output_axis_sizes=[1, 3])[1], lambda x: x[:, 1:]),
    (lambda y: dml.join([y, y], axis=0), lambda x: np.concatenate([x, x])),
    (lambda y: dml.tile(y, repeats=[2, 1]), lambda x: np.tile(x, (2, 1))),
    (lambda y: dml.slice(y, offsets=[0, 1], sizes=[1, 2]), lambda x: x[:, 1:3]),
])
def test_a_size_one_dim_with_a_huge_stride_is_copied_as_numpy_copies_it(call, expected):
    y, x = _size_one_huge_stride()
    assert_same_bits(call(y), expected(x))


# ---------------------------------------------------------------- defect 13: non-ASCII settings

@pytest.mark.parametrize("variable", ["DMLCPU_FORCE_ISA", "DMLCPU_DISABLE_ISA"])
def test_a_non_ascii_isa_setting_is_reported_not_fatal(variable):
    env = dict(os.environ, **{variable: "\u00e9\u00e8\u4e2d" * 40})
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    shown = subprocess.run([sys.executable, "-c", "import dmlcpu; dmlcpu.show_config()"],
                           env=env, capture_output=True, text=True)
    assert shown.returncode == 0, shown.stderr
    info = subprocess.run([sys.executable, "-m", "dmlcpu", "info", "--json"], env=env,
                          capture_output=True, text=True)
    assert info.returncode == 0, info.stderr
    assert isinstance(json.loads(info.stdout)["note"], str)


# ---------------------------------------------------------------- defect 14: out past 2^63 bytes

def test_an_output_reaching_past_2_63_bytes_is_an_invalid_argument():
    out = as_strided(np.zeros(4), shape=(2, 2, 2), strides=(2**62, 2**62 + 8, 8))
    with pytest.raises(dml.InvalidArgumentError, match="beyond 64 bits"):
        dml.tile(np.zeros((2, 2, 2)), repeats=[1, 1, 1], out=out)
    with pytest.raises(dml.InvalidArgumentError, match="beyond 64 bits"):
        dml.tile(out, repeats=[1, 1, 1])


# ---------------------------------------------------------------- defect 17: lying subclasses

class LyingShape(np.ndarray):
    @property
    def shape(self):
        return (100,)

    @property
    def strides(self):
        return (800,)


def test_an_ndarray_subclass_is_read_as_the_array_it_is():
    x = np.arange(4.0)
    assert_same_bits(dml.tile(x.view(LyingShape), repeats=[2]), np.tile(x, 2))
    out = np.zeros(8).view(LyingShape)
    assert dml.tile(x, repeats=[2], out=out) is out
    assert_same_bits(np.asarray(out).view(np.ndarray), np.tile(x, 2))


# ---------------------------------------------------------------- defect 18: dead buffers

def _dead_buffers(tmp_path):
    view = memoryview(bytearray(16))
    view.release()
    path = tmp_path / "data"
    path.write_bytes(bytes(16))
    with open(path, "r+b") as f:
        closed = mmap.mmap(f.fileno(), 16)
    closed.close()
    return [view, closed]


def test_a_released_memoryview_or_closed_mmap_is_a_type_error(tmp_path):
    op = dml.compile_operator(dml.TileOperatorDesc(dml.TensorDesc(dml.TensorDataType.UINT8, [4]),
                                                   dml.TensorDesc(dml.TensorDataType.UINT8, [4]),
                                                   [1]))
    for dead in _dead_buffers(tmp_path):
        with pytest.raises(TypeError, match="not a usable buffer"):
            dml.tile(dead, repeats=[1])
        with pytest.raises(TypeError, match="not a usable buffer"):
            dml.tile(np.zeros(16, np.uint8), repeats=[1], out=dead)
        with pytest.raises(TypeError, match="not a usable buffer"):
            op.execute([dead], [bytearray(4)])
        with pytest.raises(TypeError, match="not a usable buffer"):
            op.execute([bytes(4)], [dead])
