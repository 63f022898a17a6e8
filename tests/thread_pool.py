"""What the core's thread pool allows, asked of the core: the suite never assumes a pool (a
build without one refuses set_num_threads(n) for every n but 1)."""
import pytest

from dmlcpu import _core

HAS_POOL = _core._config()["thread_pool"]

needs_pool = pytest.mark.skipif(not HAS_POOL, reason="this build has no thread pool")


def thread_counts(*counts):
    """counts as given, or just (1,) in a build without a thread pool."""
    return counts if HAS_POOL else (1,)
