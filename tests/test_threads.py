"""The thread pool: results never depend on the thread count, the count is settable and
checked, and Python threads may call dmlcpu at the same time."""
import os
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import dmlcpu
from dmlcpu import _core
from dmlcpu._core import Plan

from conftest import usable_isas
from thread_pool import HAS_POOL, needs_pool, thread_counts

# subprocesses import the dmlcpu this test imported (installed, or src/ in a checkout)
SRC = os.path.dirname(os.path.dirname(dmlcpu.__file__))
COUNTS = thread_counts(1, 2, 3, 7)


@pytest.fixture(autouse=True)
def restore_threads():
    n = dmlcpu.get_num_threads()
    yield
    dmlcpu.set_num_threads(n)


def with_each_count(fn):
    """fn() under every thread count; returns the results."""
    results = []
    for n in COUNTS:
        dmlcpu.set_num_threads(n)
        results.append(fn())
    return results


def assert_child_prints(code, expected, timeout):
    """Runs code in a fresh interpreter (importing this dmlcpu); it must print expected."""
    out = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, PYTHONPATH=SRC),
                         capture_output=True, text=True, timeout=timeout)
    assert out.stdout.strip() == expected, out.stderr[-2000:]


def assert_all_equal(results, expected):
    for r in results:
        assert len(r) == len(expected)
        for a, b in zip(r, expected):
            assert a.dtype == b.dtype and np.array_equal(a, b)


def test_large_split_slice_join_identical_across_thread_counts():
    rng = np.random.default_rng(0)
    x = rng.integers(0, 2 ** 31, size=(16, 256, 513), dtype=np.int64).astype(np.float32)
    expected = [x[:, :, :100].copy(), x[:, :, 100:].copy(), x[:, 1::2, 3:500:3].copy(),
                x[:, 7:200, :].copy(), np.concatenate([x, x[:, :, :11]], axis=2)]

    def run():
        a, b = dmlcpu.split(x, axis=2, output_axis_sizes=[100, 413])
        s = dmlcpu.slice(x, offsets=[0, 1, 3], sizes=[16, 128, 166], strides=[1, 2, 3])
        t = dmlcpu.slice(x, offsets=[0, 7, 0], sizes=[16, 193, 513])
        j = dmlcpu.join([x, x[:, :, :11].copy()], axis=2)
        return [a, b, s, t, j]
    assert_all_equal(with_each_count(run), expected)


@needs_pool
def test_calls_after_the_workers_sleep_at_every_job_size():
    """A job finding its workers asleep (idle past their spin) either wakes them or starts on the
    caller alone, by its size and what a wake has cost; both ways every chunk runs once. Job
    sizes from two chunks to many, each after a pause, then back to back."""
    rng = np.random.default_rng(3)
    x = rng.integers(0, 256, size=(64, 256, 1024), dtype=np.uint8)
    dmlcpu.set_num_threads(2)
    for rows in (2, 3, 4, 6, 8, 16, 64):  # 512 KiB to 16 MiB: 2 to 8 chunks on two threads
        part = x[:rows]
        expected = [part[:, :, :100].copy(), part[:, :, 100:].copy()]
        for pause in (0.01, 0.01, 0, 0):
            time.sleep(pause)
            got = dmlcpu.split(part, axis=2, output_axis_sizes=[100, 924])
            assert all(np.array_equal(g, e) for g, e in zip(got, expected))


@needs_pool
@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="needs sched_setaffinity")
def test_two_threads_on_one_cpu():
    """Caller and worker on one CPU (pinned after the pool counted two or more CPUs, as a system
    may place them): a spinning one yields to the other (csrc/pool_impl.h), as a worker spinning
    through the caller's pauses must, and every call of a loop of small and large jobs comes
    back exact. (Pinned before the import, the pool would know it has one CPU and never spin:
    test_no_spinning_with_more_threads_than_cpus.)"""
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("needs two CPUs to pin one away after the import")
    code = ("import os, time, numpy as np\n"
            "import dmlcpu\n"
            "os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})\n"
            "from dmlcpu import _core\n"
            "dmlcpu.set_num_threads(2)\n"
            "x = np.random.default_rng(5).integers(0, 256, size=(16, 256, 1024), dtype=np.uint8)\n"
            "bad, yields = 0, _core._pool_yields()\n"
            "for rows in (2, 4, 16) * 3:  # 512 KiB to 4 MiB: 2 to 8 chunks\n"
            "    part = x[:rows]\n"
            "    for pause in (0.002, 0, 0, 0):\n"
            "        time.sleep(pause)\n"
            "        a, b = dmlcpu.split(part, axis=1, output_axis_sizes=[64, 192])\n"
            "        bad += not np.array_equal(a, part[:, :64])\n"
            "        bad += not np.array_equal(b, part[:, 64:])\n"
            "print(bad, _core._pool_yields() > yields)\n")
    assert_child_prints(code, "0 True", timeout=120)


@pytest.mark.parametrize("dtype", [np.int8, np.float16, np.float64])
def test_large_tiles_identical_across_thread_counts(dtype):
    rng = np.random.default_rng(1)
    x = rng.integers(-100, 100, size=(1, 33, 17, 31)).astype(dtype)
    expected = [np.tile(x, (9, 2, 5, 7))]
    assert_all_equal(with_each_count(lambda: [dmlcpu.tile(x, repeats=[9, 2, 5, 7])]), expected)


def test_single_long_run_split_across_threads():
    """One packed run (nothing outer to share): pieces of the run go to the threads, with
    misaligned ends and streaming stores."""
    rng = np.random.default_rng(2)
    src = rng.integers(0, 256, size=(9 << 20) + 77, dtype=np.uint8)
    n = src.size - 10

    def run():
        out = np.zeros(src.size, np.uint8)
        Plan(1, 1, [("copy", (1, 3, [n], [1]), (0, 7, [n], [1]), 1)]).run([src], [out])
        return [out]
    expected = np.zeros(src.size, np.uint8)
    expected[3:3 + n] = src[7:7 + n]
    assert_all_equal(with_each_count(run), [expected])


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_long_runs_in_l2_at_every_alignment(dtype):
    """Long packed runs of a call that stays in L2 (copy_nd.c: on x86 a line in vectors, then the
    string copy from the destination's first line boundary): a SLICE of whole rows, one run of
    70-360 KiB, into destinations and from sources starting at offsets across a line, on every
    thread count."""
    itemsize = np.dtype(dtype).itemsize
    rng = np.random.default_rng(6)
    for rows, cols in ((25, 4096 + 5), (20, 5120 - 3)):
        raw = rng.integers(0, 100, size=rows * cols + 64, dtype=np.uint8).astype(dtype)
        buf = np.empty(rows * cols + 64, dtype)
        for src_offset, dst_offset in ((0, 0), (1, 5), (3, 0), (0, 64 // itemsize - 1)):
            x = raw[src_offset:src_offset + rows * cols].reshape(rows, cols)
            expected = x[2:-1].copy()
            out = buf[dst_offset:dst_offset + expected.size].reshape(expected.shape)

            def run():
                out[...] = 0
                dmlcpu.slice(x, offsets=[2, 0], sizes=list(expected.shape), out=out)
                return [out.copy()]
            assert_all_equal(with_each_count(run), [expected])


def test_transpose_and_gather_identical_across_thread_counts():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2051, 517)).astype(np.float32)  # blocked transpose
    g = rng.standard_normal((3, 4 << 20)).astype(np.float32)  # 3 outer rows < 7 threads

    def run():
        t = np.empty((517, 2051), np.float32)
        Plan(1, 1, [("copy", (1, 0, [517, 2051], [2051 * 4, 4]),
                     (0, 0, [517, 2051], [4, 517 * 4]), 4)]).run([x], [t])
        s = dmlcpu.slice(g, offsets=[0, 1], sizes=[3, (4 << 20) // 2 - 1], strides=[1, 2])
        return [t, s]
    assert_all_equal(with_each_count(run), [x.T.copy(), g[:, 1:-1:2].copy()])


def test_streamed_rows_identical_across_thread_counts():
    """Packed destination filled row by row with streaming stores, split between threads."""
    rng = np.random.default_rng(5)
    x = rng.integers(0, 256, size=(2, 3000, 1500), dtype=np.uint8)
    expected = [x[:, :, 3:1003].copy(), x[:, :, 1003:].copy()]
    assert_all_equal(with_each_count(
        lambda: dmlcpu.split(x[:, :, 3:], axis=2, output_axis_sizes=[1000, 497])), expected)
    x1 = x[:1]  # one outer index: the rows themselves are shared out
    assert_all_equal(with_each_count(
        lambda: dmlcpu.split(x1, axis=2, output_axis_sizes=[1400, 100])),
        [x1[:, :, :1400].copy(), x1[:, :, 1400:].copy()])


@needs_pool
def test_set_get_num_threads():
    for n in (1, 2, 5, 256):
        dmlcpu.set_num_threads(n)
        assert dmlcpu.get_num_threads() == n
    dmlcpu.set_num_threads(np.int64(3))
    assert dmlcpu.get_num_threads() == 3


@pytest.mark.skipif(HAS_POOL, reason="this build has a thread pool")
def test_without_a_pool_only_one_thread():
    dmlcpu.set_num_threads(1)
    assert dmlcpu.get_num_threads() == 1
    with pytest.raises(ValueError, match="no thread pool"):
        dmlcpu.set_num_threads(2)


@pytest.mark.parametrize("bad", [0, -1, 257, 10 ** 20])
def test_invalid_thread_counts_raise_value_error(bad):
    before = dmlcpu.get_num_threads()
    with pytest.raises(ValueError, match="set_num_threads"):
        dmlcpu.set_num_threads(bad)
    assert dmlcpu.get_num_threads() == before


@pytest.mark.parametrize("bad", [2.5, "3", None])
def test_non_integer_thread_counts_raise_type_error(bad):
    with pytest.raises(TypeError):
        dmlcpu.set_num_threads(bad)


def threads_in_child(value):
    env = dict(os.environ, PYTHONPATH=SRC)
    env.pop("DMLCPU_NUM_THREADS", None)
    if value is not None:
        env["DMLCPU_NUM_THREADS"] = value
    out = subprocess.run([sys.executable, "-c", "import dmlcpu; print(dmlcpu.get_num_threads())"],
                         env=env, capture_output=True, text=True, check=True)
    return int(out.stdout)


def usable_cpus():
    """The processors this process may run on, as Python sees them."""
    if hasattr(os, "process_cpu_count"):  # Python 3.13+: the affinity on every system
        return os.process_cpu_count()
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count()


@needs_pool
def test_num_threads_environment_variable():
    default = threads_in_child(None)
    assert default == _core._cpus()["threads"] <= min(usable_cpus(), 256)
    assert threads_in_child("3") == 3
    assert threads_in_child("0") == default      # invalid: ignored
    assert threads_in_child("lots") == default


def test_python_threads_call_concurrently():
    """Several Python threads run large copies at once (the GIL is released): each result is
    correct whether its call got the pool or ran on its own thread."""
    dmlcpu.set_num_threads(max(thread_counts(2)))
    rng = np.random.default_rng(4)
    inputs = [rng.integers(0, 1000, size=(8, 256, 300)).astype(np.int32) + i for i in range(4)]
    errors = []

    def work(i):
        x = inputs[i]
        try:
            for _ in range(6):
                a, b = dmlcpu.split(x, axis=1, output_axis_sizes=[56, 200])
                s = dmlcpu.slice(x, offsets=[0, 0, 1], sizes=[8, 256, 100], strides=[1, 1, 3])
                t = dmlcpu.tile(x[:, :8], repeats=[2, 4, 3])
                ok = (np.array_equal(a, x[:, :56]) and np.array_equal(b, x[:, 56:]) and
                      np.array_equal(s, x[:, :, 1::3]) and
                      np.array_equal(t, np.tile(x[:, :8], (2, 4, 3))))
                if not ok:
                    errors.append(i)
        except Exception as error:  # noqa: BLE001 - reported by the assertion below
            errors.append(repr(error))
    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


@needs_pool
@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_pool_works_after_fork():
    """The child of a process whose pool has started must not wait for workers it lacks."""
    dmlcpu.set_num_threads(2)
    x = np.arange(6 << 20, dtype=np.uint8)
    dmlcpu.slice(x, offsets=[1], sizes=[x.size - 1])  # the parent's pool is up
    code = ("import os, numpy as np, dmlcpu\n"
            "dmlcpu.set_num_threads(2)\n"
            "x = np.arange(6 << 20, dtype=np.uint8)\n"
            "dmlcpu.slice(x, offsets=[1], sizes=[x.size - 1])\n"
            "pid = os.fork()\n"
            "if pid == 0:\n"
            "    y = dmlcpu.slice(x, offsets=[3], sizes=[x.size - 3])\n"
            "    os._exit(0 if np.array_equal(y, x[3:]) else 1)\n"
            "_, status = os.waitpid(pid, 0)\n"
            "print(os.waitstatus_to_exitcode(status))\n")
    assert_child_prints(code, "0", timeout=60)


def random_views(rng, e):
    """A random source/destination pair of 1-4 dims (source strides may be negative or 0,
    dimensions permuted in the destination), some big enough for threads and streaming."""
    ndim = int(rng.integers(1, 5))
    sizes = [int(rng.integers(1, 9)) for _ in range(ndim)]
    big = rng.random() < 0.4
    inner = int(rng.integers(64, 5000)) if big else int(rng.integers(1, 300))
    sizes[-1] = inner
    if big:
        sizes[0] = max(sizes[0], (1 << 21) // (inner * e) + 1)
    # destination: packed in a random dim order, with a random gap on the outermost dim
    order = rng.permutation(ndim)
    dst_strides = [0] * ndim
    step = e
    for d in reversed(order):
        dst_strides[d] = step
        step *= sizes[d]
    src_strides = []
    for s in sizes:
        kind = rng.random()
        mult = int(rng.integers(1, 4))
        src_strides.append(0 if kind < 0.1 else (-mult if kind < 0.25 else mult))
    # scale source strides into byte strides over a packed source of the same dims
    packed, step = [0] * ndim, e
    for d in reversed(range(ndim)):
        packed[d] = step
        step *= sizes[d] * 3
    src_strides = [m * p for m, p in zip(src_strides, packed)]
    return sizes, dst_strides, src_strides


@pytest.mark.parametrize("e", [1, 2, 4, 8])
def test_random_copies_every_isa_and_thread_count(e):
    from dmlcpu import _core
    rng = np.random.default_rng(100 + e)
    for case in range(12):
        sizes, ds, ss = random_views(rng, e)
        src_span = sum(abs(s) * (n - 1) for s, n in zip(ss, sizes)) + e
        src_off = sum(-s * (n - 1) for s, n in zip(ss, sizes) if s < 0) + int(rng.integers(0, 8))
        src = rng.integers(0, 256, size=src_span + 16, dtype=np.uint8)
        dst_span = sum(s * (n - 1) for s, n in zip(ds, sizes)) + e
        dst_off = int(rng.integers(0, 8))
        expected = np.zeros(dst_span + 16, np.uint8)
        shape = tuple(sizes) + (e,)
        np.lib.stride_tricks.as_strided(expected[dst_off:], shape, tuple(ds) + (1,))[...] = \
            np.lib.stride_tricks.as_strided(src[src_off:], shape, tuple(ss) + (1,))
        plan = Plan(1, 1, [("copy", (1, dst_off, sizes, ds), (0, src_off, sizes, ss), e)])
        for isa in usable_isas():
            _core._force_isa(isa)
            try:
                for n in thread_counts(1, 3, 64):
                    dmlcpu.set_num_threads(n)
                    out = np.zeros_like(expected)
                    plan.run([src], [out])
                    assert np.array_equal(out, expected), (case, isa, n, sizes, ds, ss)
            finally:
                _core._force_isa(None)


@pytest.mark.parametrize("op", ["sum", "prod"])
def test_scans_every_isa_and_thread_count_up_to_64(op):
    """Outer and inner scans large enough for many chunks: the same bits under every ISA and
    thread count, against NumPy's sequential scan (integers: any order gives the same bits)."""
    rng = np.random.default_rng(7)
    x = rng.integers(-3, 4, size=(512, 2048)).astype(np.int32)
    if op == "prod":
        x = np.where(x >= 0, 1, -1).astype(np.int32)
    fn = dmlcpu.cumulative_summation if op == "sum" else dmlcpu.cumulative_product
    ref = np.cumsum if op == "sum" else np.cumprod
    expected = [ref(x, axis=0, dtype=np.int32), ref(x, axis=1, dtype=np.int32)]
    for isa in usable_isas():
        _core._force_isa(isa)
        try:
            for n in thread_counts(1, 2, 7, 64):
                dmlcpu.set_num_threads(n)
                for axis in (0, 1):
                    assert np.array_equal(fn(x, axis=axis), expected[axis]), (isa, n, axis)
        finally:
            _core._force_isa(None)


@pytest.mark.parametrize("threads", thread_counts(2, 8, 64))
def test_eight_python_threads_at_once_get_exact_results(threads):
    """Eight callers share the pool's workers (each takes the idle ones): every result exact,
    whatever the interleaving."""
    dmlcpu.set_num_threads(threads)
    rng = np.random.default_rng(8)
    inputs = [rng.integers(0, 1 << 30, size=(16, 64, 1024), dtype=np.int32) for _ in range(8)]
    errors = []
    start = threading.Barrier(8)

    def work(i):
        x = inputs[i]
        try:
            start.wait()
            for _ in range(5):
                a, b = dmlcpu.split(x, axis=1, output_axis_sizes=[24, 40])
                j = dmlcpu.join([b, a], axis=1)
                s = dmlcpu.cumulative_summation(x, axis=0)
                if not (np.array_equal(a, x[:, :24]) and np.array_equal(b, x[:, 24:]) and
                        np.array_equal(j, np.concatenate([x[:, 24:], x[:, :24]], axis=1)) and
                        np.array_equal(s, np.cumsum(x, axis=0, dtype=np.int32))):
                    errors.append(i)
        except Exception as error:  # noqa: BLE001 - reported by the assertion below
            errors.append(repr(error))
    callers = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in callers:
        t.start()
    for t in callers:
        t.join()
    assert errors == []


@needs_pool
def test_an_idle_pool_uses_no_cpu():
    """After a burst of calls on every thread, the process burns (almost) no CPU over an idle
    second: the workers sleep once their short spin is over. A behaviour, with a generous bound
    (50 ms of the 1000), not a speed."""
    code = ("import time, numpy as np, dmlcpu\n"
            "dmlcpu.set_num_threads(4)\n"
            "x = np.ones((64, 64, 1024), np.float32)\n"
            "for _ in range(30):\n"
            "    dmlcpu.split(x, axis=1, output_axis_sizes=[32, 32])\n"
            "t = time.process_time()\n"
            "time.sleep(1.0)\n"
            "print(time.process_time() - t < 0.05)\n")
    assert_child_prints(code, "True", timeout=120)


@needs_pool
def test_no_spinning_with_more_threads_than_cpus():
    """With more threads than the CPUs the process may use, no pool thread spins: none yields
    (a spin past 10 us yields at every clock check), and calls stay exact."""
    code = ("import numpy as np, dmlcpu\n"
            "from dmlcpu import _core\n"
            "dmlcpu.set_num_threads(_core._cpus()['usable'] * 8)\n"
            "x = np.arange(1 << 22, dtype=np.int32).reshape(64, 64, 1024)\n"
            "y0 = _core._pool_yields()\n"
            "bad = 0\n"
            "for _ in range(40):\n"
            "    a, b = dmlcpu.split(x, axis=1, output_axis_sizes=[16, 48])\n"
            "    bad += not (np.array_equal(a, x[:, :16]) and np.array_equal(b, x[:, 16:]))\n"
            "print(bad, _core._pool_yields() - y0)\n")
    assert_child_prints(code, "0 0", timeout=120)


@needs_pool
def test_spin_time_setter():
    before = _core._set_pool_spin_ns(0)
    try:
        assert _core._config()["pool_spin_ns"] == 0
        x = np.arange(1 << 21, dtype=np.int32)
        dmlcpu.set_num_threads(2)
        assert np.array_equal(dmlcpu.slice(x, offsets=[5], sizes=[x.size - 5]), x[5:])
        assert _core._set_pool_spin_ns(-1) == 0
        assert _core._config()["pool_spin_ns"] == before
    finally:
        _core._set_pool_spin_ns(-1)
