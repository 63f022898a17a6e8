"""dmlcpu.numpy.patch(): NumPy's module-level functions and the internal names its own
functions call go to the drop-in until unpatch(); array methods stay NumPy's."""
import numpy as np
import numpy._core.shape_base as shape_base
import pytest

import dmlcpu.numpy as dnp
from dmlcpu.numpy import _layout

NAMES = ["concatenate", "concat", "stack", "hstack", "vstack", "dstack", "column_stack",
         "tile", "repeat", "cumsum", "cumprod", "cumulative_sum", "cumulative_prod",
         "ascontiguousarray", "copy"]


@pytest.fixture(autouse=True)
def clean(monkeypatch):
    monkeypatch.setattr(_layout, "SMALL_BYTES", 0)
    monkeypatch.setattr(_layout, "SMALL_JOIN_BYTES", 0)
    dnp.unpatch()
    dnp.reset_stats()
    yield
    dnp.unpatch()


def test_patch_and_unpatch_swap_every_function():
    before = {name: getattr(np, name) for name in NAMES}
    inner = shape_base._concatenate
    dnp.patch()
    dnp.patch()   # twice is once
    assert dnp.is_patched()
    for name in NAMES:
        assert getattr(np, name) is getattr(dnp, name), name
    assert shape_base._concatenate is dnp._join.concatenate_undispatched
    assert np._core.numeric.concatenate is dnp.concatenate
    dnp.unpatch()
    assert not dnp.is_patched()
    assert {name: getattr(np, name) for name in NAMES} == before
    assert shape_base._concatenate is inner


def test_numpy_functions_reach_the_drop_in_through_internal_names():
    a, b = np.arange(6.0).reshape(2, 3), np.arange(6.0, 12.0).reshape(2, 3)
    with dnp.patched():
        block = np.block([[a, b]])             # through shape_base._concatenate
        after_block = dnp.stats()["concatenate"]["fast"]
        appended = np.append(a, b, axis=0)     # through numpy._core.multiarray.concatenate
    np.testing.assert_array_equal(block, np.hstack([a, b]))
    np.testing.assert_array_equal(appended, np.vstack([a, b]))
    assert after_block >= 1
    assert dnp.stats()["concatenate"]["fast"] == after_block + 1
    assert not dnp.is_patched()


def test_patched_restores_an_earlier_patch_state():
    dnp.patch()
    with dnp.patched():
        pass
    assert dnp.is_patched()


def test_array_methods_are_not_patched():
    x = np.arange(10, dtype=np.int8)
    with dnp.patched():
        np.testing.assert_array_equal(x.cumsum(), np.arange(10).cumsum())
    assert dnp.stats() == {}
