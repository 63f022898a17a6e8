"""dmlcpu.dask: results byte-identical to the eager API on the computed input, for random shapes,
chunkings (irregular, chunks of 1), all eleven types and every operator, on the synchronous,
threaded and multiprocessing schedulers and a two-worker dask.distributed LocalCluster; long
chunked scans where float order changes the answer; refusals that compute nothing.
"""
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

da = pytest.importorskip("dask.array")
import dask  # noqa: E402

import dmlcpu  # noqa: E402
import dmlcpu.dask as dd  # noqa: E402
from conftest import assert_same_bits, examples  # noqa: E402
from dask_cases import DTYPES, OPERATORS, SCANS, case, chunking, data, run  # noqa: E402

EXAMPLES = examples(150)


def _package_env():
    """The environment under which child processes import the dmlcpu under test."""
    parent = os.path.dirname(os.path.dirname(dmlcpu.__file__))
    return dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in (parent, os.environ.get("PYTHONPATH")) if p))


@pytest.fixture(scope="module")
def client():
    distributed = pytest.importorskip("distributed")
    env = {"PYTHONPATH": _package_env()["PYTHONPATH"]}
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None, env=env) as cluster:
        with distributed.Client(cluster) as c:
            yield c


def random_call(seed, name, dtype, most_dims=4, most_size=7):
    """(dask results, eager results) of one random valid call."""
    rng = np.random.default_rng(seed)
    shape = tuple(int(s) for s in rng.integers(1, most_size + 1, rng.integers(1, most_dims + 1)))
    a = data(rng, shape, dtype, scan=name in SCANS)
    x = da.from_array(a, chunks=chunking(rng, shape))
    keywords = case(rng, name, shape)
    parts = dparts = None
    if name == "join":
        parts = dmlcpu.split(a, **keywords)
        dparts = [da.from_array(p, chunks=chunking(rng, p.shape)) for p in parts]
    return run(dd, name, x, keywords, dparts), run(dmlcpu, name, a, keywords, parts)


def assert_same_bytes(got, expected):
    assert len(got) == len(expected)
    for k, (g, e) in enumerate(zip(got, expected)):
        assert_same_bits(g, e, f"result {k}")


@settings(max_examples=EXAMPLES)
@given(seed=st.integers(0, 2**32 - 1), name=st.sampled_from(OPERATORS),
       dtype=st.sampled_from(DTYPES))
def test_random_calls_synchronous(seed, name, dtype):
    lazy, expected = random_call(seed, name, dtype)
    assert_same_bytes(dask.compute(*lazy, scheduler="synchronous"), expected)


@settings(max_examples=EXAMPLES // 3)
@given(seed=st.integers(0, 2**32 - 1), name=st.sampled_from(OPERATORS),
       dtype=st.sampled_from(DTYPES))
def test_random_calls_threads(seed, name, dtype):
    lazy, expected = random_call(seed, name, dtype)
    assert_same_bytes(dask.compute(*lazy, scheduler="threads"), expected)


def _batch(seed):
    """Every operator in every type once, as one batch of lazy results and expected ones (small:
    each block is a task, and a cluster's round trip per task is what takes the time)."""
    lazy, expected = [], []
    for k, name in enumerate(OPERATORS):
        for j, dtype in enumerate(DTYPES):
            got, want = random_call(seed + 100 * k + j, name, dtype, most_dims=3, most_size=5)
            lazy += got
            expected += want
    return lazy, expected


def test_every_operator_and_type_processes():
    lazy, expected = _batch(1)
    assert_same_bytes(dask.compute(*lazy, scheduler="processes"), expected)


def test_every_operator_and_type_distributed(client):
    lazy, expected = _batch(2)
    assert_same_bytes(client.gather(client.compute(lazy)), expected)


def _long_scans():
    rng = np.random.default_rng(7)
    rows = rng.standard_normal((20000, 3)).astype(np.float32)
    lines = rng.standard_normal((3, 20000)).astype(np.float32)
    wide = (rng.standard_normal((20000, 2)) * 10.0 ** rng.integers(-8, 8, (20000, 2)))
    return [(rows, (997, 2), 0), (lines, (3, 1000), 1), (wide, (1500, 1), 0)]


@pytest.mark.parametrize("scheduler", ["synchronous", "threads", "distributed"])
def test_long_chunked_float_scans_are_sequential(scheduler, request):
    """Where float order changes the answer (da.cumsum differs), dmlcpu.dask still matches."""
    compute = (request.getfixturevalue("client").compute if scheduler == "distributed" else None)
    for a, chunks, axis in _long_scans():
        x = da.from_array(a, chunks=chunks)
        blockwise = da.cumsum(x, axis=axis).compute(scheduler="synchronous")
        sequential = dmlcpu.cumulative_summation(a, axis=axis)
        assert np.count_nonzero(blockwise != sequential) > a.size // 10  # order matters here
        for direction in (0, 1):
            for exclusive in (False, True):
                lazy = dd.cumulative_summation(x, axis=axis, axis_direction=direction,
                                               has_exclusive_sum=exclusive)
                got = (compute(lazy).result() if compute else lazy.compute(scheduler=scheduler))
                expected = dmlcpu.cumulative_summation(a, axis=axis, axis_direction=direction,
                                                       has_exclusive_sum=exclusive)
                assert got.tobytes() == expected.tobytes()


def test_float16_carries_an_unrounded_total():
    """A run of 1.0s passes 2048 only if the carry between blocks stays FLOAT32."""
    ones = np.ones(5000, np.float16)
    assert np.cumsum(ones)[-1] == 2048  # accumulating in half sticks at 2048
    got = dd.cumulative_summation(da.from_array(ones, chunks=700), axis=0).compute()
    assert got[-1] == 5000 and got.tobytes() == dmlcpu.cumulative_summation(ones, axis=0).tobytes()
    rng = np.random.default_rng(3)
    halves = (rng.random((4, 3000)) * 2).astype(np.float16)
    for direction in (0, 1):
        for exclusive in (False, True):
            for name in ("cumulative_summation", "cumulative_product"):
                field = "has_exclusive_sum" if name.endswith("summation") else \
                    "has_exclusive_product"
                keywords = {"axis": 1, "axis_direction": direction, field: exclusive}
                got = getattr(dd, name)(da.from_array(halves, chunks=(3, 250)), **keywords)
                expected = getattr(dmlcpu, name)(halves, **keywords)
                assert got.compute().tobytes() == expected.tobytes()


def test_integer_scans_wrap_like_the_eager_api():
    rng = np.random.default_rng(5)
    for dtype in (np.int8, np.uint8, np.int16, np.uint64):
        a = data(rng, (300, 2), dtype)
        for name in ("cumulative_summation", "cumulative_product"):
            for direction in (0, 1):
                got = getattr(dd, name)(da.from_array(a, chunks=(7, 1)), axis=0,
                                        axis_direction=direction)
                expected = getattr(dmlcpu, name)(a, axis=0, axis_direction=direction)
                assert got.compute(scheduler="threads").tobytes() == expected.tobytes()


def test_zero_sizes_in_extended_mode():
    a = np.arange(12, dtype=np.int32).reshape(3, 4)
    x = da.from_array(a, chunks=(2, 3))
    parts = dd.split(x, axis=1, output_axis_sizes=[0, 4, 0])
    assert_same_bytes(dask.compute(*parts), dmlcpu.split(a, axis=1, output_axis_sizes=[0, 4, 0]))
    empty = da.from_array(np.zeros((0, 4), np.float32), chunks=(1, 2))
    for result, expected in [
            (dd.slice(x, offsets=[3, 0], sizes=[0, 4]),
             dmlcpu.slice(a, offsets=[3, 0], sizes=[0, 4])),
            (dd.tile(empty, repeats=[3, 2]), np.zeros((0, 8), np.float32)),
            (dd.cumulative_product(empty, axis=0), np.zeros((0, 4), np.float32)),
            (dd.join([empty, empty], axis=0), np.zeros((0, 4), np.float32))]:
        assert_same_bytes([result.compute()], [expected])


def test_empty_blocks_inside_a_scanned_axis_pass_the_carry_on():
    a = np.arange(1, 21).reshape(5, 4)
    for dtype in (np.float32, np.float16, np.int16):
        b = a.astype(dtype)
        x = da.from_array(b, chunks=((3, 0, 2), (4,)))
        for direction in (0, 1):
            for exclusive in (False, True):
                got = dd.cumulative_summation(x, axis=0, axis_direction=direction,
                                              has_exclusive_sum=exclusive)
                expected = dmlcpu.cumulative_summation(b, axis=0, axis_direction=direction,
                                                       has_exclusive_sum=exclusive)
                assert got.compute().tobytes() == expected.tobytes()


@settings(max_examples=max(examples(10), EXAMPLES // 5))
@given(seed=st.integers(0, 2**32 - 1), dtype=st.sampled_from(DTYPES),
       product=st.booleans(), direction=st.integers(0, 1), exclusive=st.booleans())
def test_long_scans_over_random_chunkings(seed, dtype, product, direction, exclusive):
    rng = np.random.default_rng(seed)
    length = int(rng.integers(500, 4000))
    a = data(rng, (length, 2), dtype)
    if np.dtype(dtype).kind == "f":  # finite all along: long sums, and products near 1
        values = 1 + rng.random((length, 2)) / 64 if product else rng.standard_normal((length, 2))
        a = values.astype(dtype)
    edges = [0] + sorted(set(rng.integers(1, length, rng.integers(1, 40)).tolist())) + [length]
    x = da.from_array(a, chunks=(tuple(np.diff(edges).tolist()), (1, 1)))
    name = "cumulative_product" if product else "cumulative_summation"
    field = "has_exclusive_product" if product else "has_exclusive_sum"
    keywords = {"axis": 0, "axis_direction": direction, field: exclusive}
    got = getattr(dd, name)(x, **keywords).compute(scheduler="synchronous")
    assert got.tobytes() == getattr(dmlcpu, name)(a, **keywords).tobytes()


def test_numpy_inputs_are_wrapped():
    a = np.arange(10, dtype=np.int16)
    assert dd.tile(a, repeats=[2]).compute().tobytes() == np.tile(a, 2).tobytes()
    assert isinstance(dd.split(a, axis=0, output_axis_sizes=[4, 6])[0], da.Array)
    with pytest.raises(TypeError):
        dd.tile(object(), repeats=[2])


def test_tile_of_a_small_array_makes_few_blocks():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    tiled = dd.tile(da.from_array(a, chunks=(2, 3)), repeats=[1000, 50])
    assert tiled.npartitions == 1
    assert tiled.compute().tobytes() == dmlcpu.tile(a, repeats=[1000, 50]).tobytes()


def test_strict_levels_accept_what_the_eager_api_accepts():
    rng = np.random.default_rng(11)
    a = data(rng, (1, 2, 6, 5), np.float32, scan=True)
    x = da.from_array(a, chunks=(1, 1, 4, 2))
    calls = [("split", {"axis": 2, "output_axis_sizes": [2, 4], "feature_level": "1_0"}),
             ("slice", {"offsets": [0, 1, 1, 0], "sizes": [1, 1, 2, 5],
                        "strides": [1, 1, 3, 1], "feature_level": "1_0"}),
             ("slice1", {"input_window_offsets": [0, 0, 1, 0], "input_window_sizes": [1, 2, 5, 5],
                         "input_window_strides": [1, -1, 2, -2], "feature_level": "2_1"}),
             ("tile", {"repeats": [2, 1, 1, 3], "feature_level": "1_0"}),
             ("cumulative_summation", {"axis": 2, "feature_level": "2_1"}),
             ("cumulative_product", {"axis": 3, "axis_direction": 1, "feature_level": "3_1"})]
    for name, keywords in calls:
        assert_same_bytes(dask.compute(*run(dd, name, x, keywords)),
                          run(dmlcpu, name, a, keywords))
    joined = dd.join([x, x], axis=1, feature_level="3_1")
    assert joined.compute().tobytes() == dmlcpu.join([a, a], axis=1, feature_level="3_1").tobytes()


# ------------------------------------------------------------------ what each block reads

def _recording(a, chunks, seen):
    def record(block, block_info=None):
        seen.append(tuple(block_info[0]["chunk-location"]))
        return block
    return da.from_array(a, chunks=chunks).map_blocks(record, dtype=a.dtype)


@pytest.mark.parametrize("make, block, needed", [
    (lambda x: dd.slice(x, offsets=[0, 0], sizes=[2, 2]), (0, 0), [(0, 0)]),
    (lambda x: dd.slice(x, offsets=[5, 1], sizes=[2, 3], strides=[1, 2]), (0, 0), [(1, 0)]),
    (lambda x: dd.slice1(x, input_window_offsets=[0, 0], input_window_sizes=[8, 8],
                         input_window_strides=[-1, 1]), (0, 1), [(1, 1)]),
    (lambda x: dd.tile(x, repeats=[2, 3]), (3, 5), [(1, 1)]),
    (lambda x: dd.split(x, axis=1, output_axis_sizes=[3, 5])[1], (1, 1), [(1, 1)]),
    (lambda x: dd.cumulative_summation(x, axis=0), (1, 1), [(0, 1), (1, 1)]),
    (lambda x: dd.cumulative_summation(x, axis=1, axis_direction=1), (0, 0),
     [(0, 0), (0, 1)]),
])
def test_an_output_block_reads_only_the_input_blocks_under_it(make, block, needed):
    a = np.arange(64, dtype=np.float32).reshape(8, 8)
    seen = []
    result = make(_recording(a, (4, 4), seen))
    result.blocks[block].compute(scheduler="synchronous")
    assert sorted(set(seen)) == needed


# ------------------------------------------------------------------ refusals

def _refused_everywhere(make, a, seen):
    """The eager call's exact message, raised by dmlcpu.dask without computing anything."""
    with pytest.raises(dmlcpu.InvalidArgumentError) as eager:
        make(dmlcpu, a)
    with pytest.raises(dmlcpu.InvalidArgumentError) as lazy:
        make(dd, _recording(a, 2, seen))
    assert str(lazy.value) == str(eager.value)
    assert seen == []


@pytest.mark.parametrize("make, shape, dtype", [
    (lambda m, x: m.split(x, axis=1, output_axis_sizes=[2, 2]), (3, 5), np.float32),
    (lambda m, x: m.split(x, axis=2, output_axis_sizes=[3]), (3, 5), np.float32),
    (lambda m, x: m.split(x, axis=-1, output_axis_sizes=[5]), (3, 5), np.float32),
    (lambda m, x: m.split(x, axis=0, output_axis_sizes=[3], feature_level="1_0"), (3, 5),
     np.float32),
    (lambda m, x: m.join([x, x[:2]], axis=1), (3, 5), np.int8),
    (lambda m, x: m.slice(x, offsets=[1, 0], sizes=[2, 5], strides=[2, 1]), (3, 5), np.uint16),
    (lambda m, x: m.slice(x, offsets=[0], sizes=[1], strides=[1]), (3, 5), np.uint16),
    (lambda m, x: m.slice1(x, input_window_offsets=[0, 0], input_window_sizes=[3, 5],
                           input_window_strides=[1, 0]), (3, 5), np.int64),
    (lambda m, x: m.slice1(x, input_window_offsets=[0, 1], input_window_sizes=[3, 5]), (3, 5),
     np.int64),
    (lambda m, x: m.tile(x, repeats=[1, 0]), (3, 5), np.float16),
    (lambda m, x: m.tile(x, repeats=[2, 2], feature_level="4_1"), (3, 5), np.float64),
    (lambda m, x: m.cumulative_summation(x, axis=2), (3, 5), np.int32),
    (lambda m, x: m.cumulative_summation(x, axis=0, feature_level="6_4"), (3, 5), np.int8),
    (lambda m, x: m.cumulative_product(x, axis=0, axis_direction=2), (3, 5), np.float32),
    (lambda m, x: m.cumulative_product(x, axis=1, feature_level="3_1"), (3, 5), np.float32),
    (lambda m, x: m.cumulative_summation(x, axis=0), (3, 5), np.bool_),
    (lambda m, x: m.cumulative_summation(x, axis=0, has_exclusive_sum=2), (3, 5), np.float32),
])
def test_refusals_match_the_eager_api_and_compute_nothing(make, shape, dtype):
    _refused_everywhere(make, np.zeros(shape, dtype), [])


def test_refused_join_reads_no_input():
    a = np.zeros((3, 5), np.float32)
    seen = []
    with pytest.raises(dmlcpu.InvalidArgumentError) as eager:
        dmlcpu.join([a, a.astype(np.float64)], axis=0)
    with pytest.raises(dmlcpu.InvalidArgumentError) as lazy:
        dd.join([_recording(a, 2, seen), _recording(a.astype(np.float64), 2, seen)], axis=0)
    assert str(lazy.value) == str(eager.value) and seen == []


def test_unknown_chunk_sizes_are_refused():
    x = da.from_array(np.arange(10, dtype=np.int32), chunks=3)
    unknown = x[x > 3]
    with pytest.raises(ValueError, match="unknown chunk sizes"):
        dd.cumulative_summation(unknown, axis=0)


# ------------------------------------------------------------------ imports and threads

def test_importing_dmlcpu_does_not_import_dask():
    code = "import sys, dmlcpu; print('dask' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], env=_package_env(), check=True,
                         capture_output=True, text=True).stdout
    assert out.strip() == "False"


def test_without_dask_the_import_says_what_to_install():
    code = ("import sys; sys.modules['dask'] = None\n"
            "try:\n    import dmlcpu.dask\nexcept ImportError as e:\n    print(e)")
    out = subprocess.run([sys.executable, "-c", code], env=_package_env(), check=True,
                         capture_output=True, text=True).stdout
    assert "pip install 'dmlcpu[dask]'" in out


def test_dask_worker_processes_run_one_dmlcpu_thread_each(client):
    a = np.ones((64, 64), np.float32)
    dd.cumulative_summation(da.from_array(a, chunks=16), axis=0).compute()
    assert client.run(dmlcpu.get_num_threads) and set(
        client.run(dmlcpu.get_num_threads).values()) == {1}


def _pool_size_in_child():
    from dmlcpu.dask import _blocks
    _blocks.limit_pool_in_dask_processes()
    return dmlcpu.get_num_threads()


@pytest.mark.parametrize("setting, expected", [(None, 1), ("2", 2)])
def test_worker_environment_sets_the_pool(setting, expected, monkeypatch):
    """A dask worker process takes DMLCPU_NUM_THREADS from its environment, else 1 thread."""
    import concurrent.futures
    import multiprocessing
    for name, value in _package_env().items():
        monkeypatch.setenv(name, value)
    if setting is None:
        monkeypatch.delenv("DMLCPU_NUM_THREADS", raising=False)
    else:
        monkeypatch.setenv("DMLCPU_NUM_THREADS", setting)
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=context) as pool:
        assert pool.submit(_pool_size_in_child).result() == expected


def test_the_graph_building_process_keeps_its_pool():
    threads = dmlcpu.get_num_threads()
    try:
        dmlcpu.set_num_threads(2)
        a = np.ones((32, 32), np.float32)
        dd.cumulative_summation(da.from_array(a, chunks=8), axis=1).compute(scheduler="threads")
        assert dmlcpu.get_num_threads() == 2
    finally:
        dmlcpu.set_num_threads(threads)
