"""dmlcpu.dask's one rule for the pool in dask workers (src/dmlcpu/dask/_blocks.py): a thread
count the user set in a worker is kept; only a pool nobody configured runs one thread per task
slot; workers started by spawn and by fork alike."""
import multiprocessing
import os
import subprocess
import sys

import numpy as np
import pytest

import dmlcpu

from thread_pool import needs_pool

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")
import dmlcpu.dask as dd  # noqa: E402 - after the importorskip

SRC = os.path.dirname(os.path.dirname(dmlcpu.__file__))
pytestmark = needs_pool


def _env():
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in (SRC, os.environ.get("PYTHONPATH")) if p))
    env.pop("DMLCPU_NUM_THREADS", None)
    return env


def _scan_then_threads():
    """In a worker: one dmlcpu.dask block, then (threads, who set them)."""
    from dmlcpu import _core
    from dmlcpu.dask import _blocks
    out, _ = _blocks.scan_block(np.ones((4, 4), np.float32), None, "CUMULATIVE_SUMMATION", 0,
                                False, False)
    assert out[-1, 0] == 4
    return dmlcpu.get_num_threads(), _core._threads_source()


def _set_then_scan(n):
    dmlcpu.set_num_threads(n)
    return _scan_then_threads()


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=True,
                                  dashboard_address=None,
                                  env={"PYTHONPATH": _env()["PYTHONPATH"]}) as cluster:
        yield cluster


def test_a_worker_keeps_the_count_its_user_set(cluster):
    """client.run(dmlcpu.set_num_threads, 2) before any task, then dmlcpu.dask tasks: 2."""
    with distributed.Client(cluster) as client:
        client.run(dmlcpu.set_num_threads, 2)
        a = da.from_array(np.ones((64, 64), np.float32), chunks=16)
        assert dd.cumulative_summation(a, axis=0).compute()[-1, 0] == 64
        assert set(client.run(dmlcpu.get_num_threads).values()) == {2}


def test_an_unconfigured_worker_runs_one_thread(cluster):
    with distributed.Client(cluster) as client:
        client.restart()
        a = da.from_array(np.ones((64, 64), np.float32), chunks=16)
        dd.cumulative_summation(a, axis=0).compute()
        assert set(client.run(dmlcpu.get_num_threads).values()) == {1}
        sources = client.run(lambda: dmlcpu._core._threads_source())
        assert set(sources.values()) == {"dmlcpu.dask"}


@pytest.mark.parametrize("method", ["spawn", "fork"])
@pytest.mark.parametrize("setting, expected", [(None, (1, "dmlcpu.dask")),
                                               ("3", (3, "DMLCPU_NUM_THREADS"))])
def test_process_workers_spawned_or_forked(method, setting, expected, monkeypatch):
    if method not in multiprocessing.get_all_start_methods():
        pytest.skip("no %s here" % method)
    for name, value in _env().items():
        monkeypatch.setenv(name, value)
    if setting is None:
        monkeypatch.delenv("DMLCPU_NUM_THREADS", raising=False)
    else:
        monkeypatch.setenv("DMLCPU_NUM_THREADS", setting)
    code = ("import concurrent.futures as f, multiprocessing as m, sys\n"
            "sys.path.insert(0, %r)\n"
            "import test_dask_threads as t\n"
            "with f.ProcessPoolExecutor(1, mp_context=m.get_context(%r)) as pool:\n"
            "    print(*pool.submit(t._scan_then_threads).result())\n"
            "    print(*pool.submit(t._set_then_scan, 2).result())\n"
            % (os.path.dirname(__file__), method))
    out = subprocess.run([sys.executable, "-c", code], env=os.environ.copy(),
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    first, second = out.stdout.split("\n")[:2]
    assert first == "%d %s" % expected
    assert second == "2 set_num_threads"


def test_a_fork_after_a_local_dask_run_still_counts_as_a_worker():
    """The parent ran dmlcpu.dask blocks itself (threaded scheduler), then forked a worker: the
    child, whose pool nobody set, runs one thread; the parent kept its own."""
    code = ("import os, numpy as np, dmlcpu, dask.array as da, dmlcpu.dask as dd\n"
            "from dmlcpu.dask import _blocks\n"
            "a = da.from_array(np.ones((32, 32), np.float32), chunks=8)\n"
            "dd.cumulative_summation(a, axis=0).compute(scheduler='threads')\n"
            "before = dmlcpu.get_num_threads()\n"
            "r, w = os.pipe()\n"
            "pid = os.fork()\n"
            "if pid == 0:\n"
            "    _blocks.limit_pool_in_dask_processes()\n"
            "    os.write(w, str(dmlcpu.get_num_threads()).encode())\n"
            "    os._exit(0)\n"
            "os.waitpid(pid, 0)\n"
            "print(os.read(r, 16).decode(), dmlcpu.get_num_threads() == before)\n")
    out = subprocess.run([sys.executable, "-c", code], env=_env(), capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["1", "True"]
