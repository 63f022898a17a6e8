"""ascontiguousarray and copy: dmlcpu's copy (JOIN of one input) into a result laid out as
NumPy lays it out; NumPy itself for everything else."""
import numpy as np

from .. import _ops
from . import _layout, _numpy
from ._layout import MAX_DIMS, NATIVE, NDARRAY, carried, carried_dims, movable, same_type
from ._stats import count


def _copyable(a):
    """Why a copy of ``a`` must go to NumPy, or None."""
    if type(a) is not NDARRAY:
        return "not ndarray"
    if not movable(a.dtype):
        return "dtype"
    if not 1 <= a.ndim <= MAX_DIMS - carried_dims(a.dtype):
        return "dimensions"
    if a.size == 0:
        return "empty"
    if a.nbytes < _layout.SMALL_BYTES:
        return "small"
    return None


def _copy(a, order):
    """A new copy of ``a`` laid out as NumPy's ``order`` lays it out (np.empty_like)."""
    if a.dtype in NATIVE and (order == "C" or a.flags.c_contiguous and order != "F"):
        return _ops.join([a], axis=0)   # C order, allocated by dmlcpu
    out = np.empty_like(a, order=order)
    _ops.join([carried(a)], axis=0, out=carried(out))
    return out


def ascontiguousarray(a, dtype=None, *, like=None):
    """numpy.ascontiguousarray (same arguments, result and errors)."""
    reason = "like" if like is not None else _copyable(a)
    if reason is None and not same_type(dtype, a.dtype):
        reason = "dtype"
    if reason is None and a.flags.c_contiguous:
        reason = "already contiguous"   # NumPy returns the array itself
    if reason is not None:
        count("ascontiguousarray", reason)
        if like is not None:
            return _numpy.ascontiguousarray(a, dtype, like=like)
        return _numpy.ascontiguousarray(a, dtype)
    out = _copy(a, "C")
    count("ascontiguousarray", "fast")
    return out


def copy(a, order='K', subok=False):
    """numpy.copy (same arguments, result and errors)."""
    reason = _copyable(a)
    if reason is None and order not in ("K", "A", "C", "F"):
        reason = "order"
    if reason is not None:
        count("copy", reason)
        return _numpy.copy(a, order, subok)
    out = _copy(a, order)  # np.array's layout
    count("copy", "fast")
    return out
