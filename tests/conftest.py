"""Shared test setup: the test helpers are importable as top-level modules, hypothesis runs
without per-example deadlines (timings on a shared 2-core machine are noise, not failures), one
``isa`` fixture, and one set of bit helpers (``from conftest import assert_same_bits``).

Set DMLCPU_TEST_EXAMPLES_SCALE (e.g. 10, or 0.25 under emulation) to multiply every property
test's example count: each one asks ``examples(n)`` for it. DMLCPU_TEST_ISAS (e.g. ``neon``)
keeps only the ISA-parametrized cases of the ISAs it lists.
Nothing at module level imports dmlcpu, so the independent references (reference.py) may use the
bit helpers.
"""
import os
import sys

import numpy as np
import pytest
from hypothesis import settings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

EXAMPLES_SCALE = float(os.environ.get("DMLCPU_TEST_EXAMPLES_SCALE", "1"))


def examples(n):
    """A property test's example count: n times DMLCPU_TEST_EXAMPLES_SCALE, at least one."""
    return max(1, round(n * EXAMPLES_SCALE))


# hypothesis' default of 100 examples, scaled like the rest, for tests that name no count
settings.register_profile("dmlcpu", deadline=None, print_blob=True, max_examples=examples(100))
settings.load_profile("dmlcpu")


# ---------------------------------------------------------------- ISAs

def usable_isas():
    """The ISAs dmlcpu can run on this machine, oldest first (dmlcpu.show_config()'s list)."""
    from dmlcpu import _core
    return _core._config()["usable_isas"]


def _parametrized(metafunc, name):
    for marker in metafunc.definition.iter_markers("parametrize"):
        names = marker.args[0]
        if name in ([n.strip() for n in names.split(",")] if isinstance(names, str) else names):
            return True
    return False


def pytest_generate_tests(metafunc):
    """A test taking the ``isa`` fixture runs once per usable ISA (unless it lists its own)."""
    if "isa" in metafunc.fixturenames and not _parametrized(metafunc, "isa"):
        metafunc.parametrize("isa", usable_isas(), indirect=True)


def pytest_collection_modifyitems(config, items):
    """DMLCPU_TEST_ISAS (a comma list, e.g. ``neon`` under qemu) keeps only the ISA-parametrized
    cases of those ISAs; tests without an ISA parameter all stay."""
    keep = os.environ.get("DMLCPU_TEST_ISAS")
    if not keep:
        return
    keep = {name.strip() for name in keep.split(",")}
    dropped = [item for item in items
               if "isa" in getattr(getattr(item, "callspec", None), "params", {})
               and item.callspec.params["isa"] not in keep]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        dropped = set(dropped)
        items[:] = [item for item in items if item not in dropped]


@pytest.fixture
def isa(request):
    """The ISA forced for the whole test (in-process), released after it."""
    from dmlcpu import _core
    _core._force_isa(request.param)
    yield request.param
    _core._force_isa(None)


# ---------------------------------------------------------------- bits

def bits_dtype(dtype):
    """The unsigned integer dtype with the same width as ``dtype``."""
    return np.dtype(f"u{np.dtype(dtype).itemsize}")


def as_bits(array):
    """The elements of ``array`` as unsigned integers of the same width (a view, any strides):
    NaN payloads and -0.0 compare exactly."""
    array = np.asarray(array)
    return array.view(bits_dtype(array.dtype))


def assert_same_bits(actual, expected, what="result"):
    """Same dtype, same shape and the same bit pattern in every element."""
    actual = np.asarray(actual)
    expected = np.asarray(expected)
    assert actual.dtype == expected.dtype, f"{what}: dtype {actual.dtype} != {expected.dtype}"
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
    a, e = as_bits(actual), as_bits(expected)
    if not np.array_equal(a, e):
        where = np.argwhere(a != e)
        first = tuple(int(i) for i in where[0])
        raise AssertionError(f"{what}: {len(where)} of {a.size} elements differ; first at "
                             f"{first}: bits {int(a[first]):#x} != expected {int(e[first]):#x}")


# ---------------------------------------------------------------- threads

@pytest.fixture(autouse=True, scope="session")
def _threads_beyond_the_cpus():
    """The suite's thread counts (3, 7, 64 on a 2-CPU machine) run as many threads, so that every
    chunking is exercised: a call's threads are otherwise capped at the usable CPUs
    (the call_threads tuning value)."""
    from dmlcpu import _core
    before = _core._set_tune("call_threads", 256)
    yield
    _core._set_tune("call_threads", before)
