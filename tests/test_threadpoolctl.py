"""threadpoolctl sees dmlcpu's pool once dmlcpu is imported: threadpool_info lists it and
threadpool_limits limits it, then restores it."""
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
