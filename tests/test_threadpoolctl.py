"""threadpoolctl sees dmlcpu's pool once dmlcpu is imported: threadpool_info lists it and
threadpool_limits limits it, then restores it, with the reason the count had."""
import ast
import os
import subprocess
import sys

import pytest

import dmlcpu

from thread_pool import HAS_POOL, needs_pool

threadpoolctl = pytest.importorskip("threadpoolctl")


@pytest.fixture(autouse=True)
def restore_threads():
    n = dmlcpu.get_num_threads()
    yield
    dmlcpu.set_num_threads(n)


def dmlcpu_entries():
    return [e for e in threadpoolctl.threadpool_info() if e["internal_api"] == "dmlcpu"]


def test_threadpool_info_lists_the_pool_once():
    if HAS_POOL:
        dmlcpu.set_num_threads(3)
    entries = dmlcpu_entries()
    assert len(entries) == 1
    assert entries[0]["user_api"] == "dmlcpu"
    assert entries[0]["num_threads"] == dmlcpu.get_num_threads()
    assert entries[0]["version"] == dmlcpu.__version__
    assert "_core" in entries[0]["filepath"]


@needs_pool
def test_threadpool_limits_limits_and_restores():
    dmlcpu.set_num_threads(4)
    with threadpoolctl.threadpool_limits(1):
        assert dmlcpu.get_num_threads() == 1
        assert dmlcpu_entries()[0]["num_threads"] == 1
    assert dmlcpu.get_num_threads() == 4
    with threadpoolctl.threadpool_limits(limits={"dmlcpu": 2}):
        assert dmlcpu.get_num_threads() == 2
    assert dmlcpu.get_num_threads() == 4
    with threadpoolctl.threadpool_limits(1, user_api="blas"):
        assert dmlcpu.get_num_threads() == 4  # another API's limit leaves the pool alone


@needs_pool
def test_threadpool_controller_limits_the_pool():
    dmlcpu.set_num_threads(2)
    controller = threadpoolctl.ThreadpoolController()
    with controller.select(internal_api="dmlcpu").limit(limits=1):
        assert dmlcpu.get_num_threads() == 1
    assert dmlcpu.get_num_threads() == 2


def run_child(code, env=None):
    """What a fresh interpreter running ``code`` prints (a literal), DMLCPU_NUM_THREADS=env."""
    environ = {k: v for k, v in os.environ.items() if k != "DMLCPU_NUM_THREADS"}
    if env:
        environ["DMLCPU_NUM_THREADS"] = env
    parent = os.path.dirname(os.path.dirname(dmlcpu.__file__))
    environ["PYTHONPATH"] = os.pathsep.join(p for p in (parent, environ.get("PYTHONPATH")) if p)
    return ast.literal_eval(subprocess.run([sys.executable, "-c", code], env=environ,
                                           capture_output=True, text=True, check=True).stdout)


@needs_pool
@pytest.mark.parametrize("env, source", [(None, "cpus"), ("3", "DMLCPU_NUM_THREADS")])
def test_a_restored_count_keeps_its_reason(env, source):
    """Where nobody set the count, it is still nobody's after threadpool_limits (dmlcpu.dask
    sets such a pool to one thread in its workers); DMLCPU_NUM_THREADS's stays the variable's."""
    code = ("import dmlcpu, threadpoolctl\n"
            "from dmlcpu import _core\n"
            "before = (dmlcpu.get_num_threads(), _core._threads_source())\n"
            "with threadpoolctl.threadpool_limits(limits={'dmlcpu': before[0] + 1}):\n"
            "    inside = (dmlcpu.get_num_threads(), _core._threads_source())\n"
            "after = (dmlcpu.get_num_threads(), _core._threads_source())\n"
            "print(repr((before, inside, after)))")
    before, inside, after = run_child(code, env)
    assert before[1] == source and after == before
    assert inside == (before[0] + 1, "set_num_threads")


@needs_pool
def test_a_kept_controller_limits_as_the_user_asked():
    """A controller made while the count was the default, used after the user set another
    count: its limit to the old default is the user's limit, and the user's count comes back."""
    code = ("import dmlcpu, threadpoolctl\n"
            "from dmlcpu import _core\n"
            "default = dmlcpu.get_num_threads()\n"
            "controller = threadpoolctl.ThreadpoolController().select(internal_api='dmlcpu')\n"
            "dmlcpu.set_num_threads(default + 1)\n"
            "with controller.limit(limits=default):\n"
            "    inside = (dmlcpu.get_num_threads(), _core._threads_source())\n"
            "after = (dmlcpu.get_num_threads(), _core._threads_source())\n"
            "print(repr((default, inside, after)))")
    default, inside, after = run_child(code)
    assert inside == (default, "set_num_threads")
    assert after == (default + 1, "set_num_threads")
