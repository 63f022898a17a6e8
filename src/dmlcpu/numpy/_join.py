"""concatenate, concat, stack, hstack, vstack, dstack and column_stack: dmlcpu's JOIN where
every input is a plain ndarray of one movable type, NumPy itself for everything else."""
import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from .. import _ops
from . import _layout, _numpy
from ._layout import (MAX_DIMS, NATIVE, NDARRAY, carried, carried_dims, disjoint,
                      empty_in_order, movable, same_type, stride_order)
from ._stats import count, counter

_CASTINGS = frozenset(("no", "equiv", "safe", "same_kind", "unsafe"))
_MAX_ARRAYS = 1 << 16   # longer lists go to NumPy unread (it refuses more than INT_MAX)
_undispatched = _numpy.concatenate_undispatched or _numpy.concatenate


def _refusal(arrays, axis, out, dtype, casting):
    """Why the fast path cannot answer this concatenate (a reason for stats()), or None."""
    if type(arrays) not in (list, tuple) or not 0 < len(arrays) <= _MAX_ARRAYS:
        return "not a list of arrays"
    first = arrays[0]
    if type(first) is not NDARRAY:
        return "not ndarray"
    dt, shape = first.dtype, first.shape
    ndim = len(shape)
    if not movable(dt):
        return "dtype"
    if dtype is not None and not same_type(dtype, dt):
        return "mixed dtypes"
    if casting not in _CASTINGS:
        return "casting"
    if not 1 <= ndim <= MAX_DIMS - carried_dims(dt):
        return "dimensions"
    if type(axis) is not int or not -ndim <= axis < ndim:
        return "axis"
    axis %= ndim
    rest = shape[:axis] + shape[axis + 1:]
    total = 0
    for a in arrays:   # one plain loop: this is most of a small call's cost
        if type(a) is not NDARRAY:
            return "not ndarray"
        if a.dtype != dt:
            return "mixed dtypes"
        s = a.shape
        if len(s) != ndim:
            return "dimensions"
        if s[:axis] + s[axis + 1:] != rest:
            return "shapes"
        total += s[axis]
    size = total * dt.itemsize
    for n in rest:
        size *= n
    if size == 0:
        return "empty"
    if size < _layout.SMALL_JOIN_BYTES:
        return "small"
    if out is not None:
        if dtype is not None:
            return "out and dtype"   # NumPy refuses both at once
        if type(out) is not NDARRAY or out.dtype != dt or not out.flags.writeable:
            return "out"
        if out.shape != shape[:axis] + (total,) + shape[axis + 1:] or not disjoint(out, arrays):
            return "out"
    return None


def _concatenate(name, arrays, axis, out, dtype, casting):
    """concatenate's fast path, or None where NumPy must answer (counted under ``name``)."""
    reason = _refusal(arrays, axis, out, dtype, casting)
    if reason is not None:
        count(name, reason)
        return None
    first = arrays[0]
    ndim = first.ndim
    axis %= ndim
    parts = [carried(a) for a in arrays if a.shape[axis]]
    if out is None:
        contiguous = all(a.flags.c_contiguous for a in arrays)   # then NumPy's order is C's
        if contiguous and first.dtype in NATIVE:
            result = _ops.join(parts, axis=axis)
            count(name, "fast")
            return result
        shape = list(first.shape)
        shape[axis] = sum(a.shape[axis] for a in arrays)
        out = (np.empty(shape, first.dtype) if contiguous
               else empty_in_order(shape, first.dtype, stride_order(arrays, ndim)))
    _ops.join(parts, axis=axis, out=carried(out))
    count(name, "fast")
    return out


_small_calls = counter("concatenate", "small")


def concatenate(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    """numpy.concatenate (same arguments, result and errors)."""
    # A few plain ndarrays of few bytes in all go straight to NumPy's implementation (no
    # __array_function__ can apply to them): this is the cost of a tiny call, kept short.
    if (type(arrays) is list or type(arrays) is tuple) and len(arrays) <= 16 and out is None:
        total = 0
        for a in arrays:
            if type(a) is not NDARRAY:
                break
            total += a.nbytes
        else:
            if total < _layout.SMALL_JOIN_BYTES and dtype is None and casting == "same_kind":
                next(_small_calls)
                return _undispatched(arrays, axis)
    result = _concatenate("concatenate", arrays, axis, out, dtype, casting)
    if result is None:
        return _numpy.concatenate(arrays, axis, out, dtype=dtype, casting=casting)
    return result


concat = concatenate


def concatenate_undispatched(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    """numpy.concatenate's implementation without the __array_function__ dispatch (what
    np.block calls internally), for patch()."""
    result = _concatenate("concatenate", arrays, axis, out, dtype, casting)
    if result is None:
        return _numpy.concatenate_undispatched(arrays, axis, out, dtype=dtype, casting=casting)
    return result


def _all_arrays(values):
    return (type(values) in (list, tuple) and len(values) <= _MAX_ARRAYS
            and all(type(a) is NDARRAY for a in values))


def _join_or_numpy(name, arrays, axis, out=None, dtype=None, casting="same_kind"):
    result = _concatenate(name, arrays, axis, out, dtype, casting)
    if result is None:
        return _numpy.concatenate(arrays, axis, out, dtype=dtype, casting=casting)
    return result


def stack(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    """numpy.stack: NumPy's own steps, joined by the fast concatenate."""
    if not _all_arrays(arrays):
        count("stack", "not ndarray")
        return _numpy.stack(arrays, axis, out, dtype=dtype, casting=casting)
    if not arrays:
        raise ValueError('need at least one array to stack')
    if len({arr.shape for arr in arrays}) != 1:
        raise ValueError('all input arrays must have the same shape')
    axis = normalize_axis_index(axis, arrays[0].ndim + 1)
    sl = (slice(None),) * axis + (np.newaxis,)
    return _join_or_numpy("stack", [arr[sl] for arr in arrays], axis, out, dtype, casting)


def hstack(tup, *, dtype=None, casting="same_kind"):
    """numpy.hstack: NumPy's own steps, joined by the fast concatenate."""
    if not _all_arrays(tup):
        count("hstack", "not ndarray")
        return _numpy.hstack(tup, dtype=dtype, casting=casting)
    arrs = np.atleast_1d(*tup)
    if not isinstance(arrs, tuple):
        arrs = (arrs,)
    axis = 0 if arrs and arrs[0].ndim == 1 else 1
    return _join_or_numpy("hstack", arrs, axis, dtype=dtype, casting=casting)


def vstack(tup, *, dtype=None, casting="same_kind"):
    """numpy.vstack: NumPy's own steps, joined by the fast concatenate."""
    if not _all_arrays(tup):
        count("vstack", "not ndarray")
        return _numpy.vstack(tup, dtype=dtype, casting=casting)
    arrs = np.atleast_2d(*tup)
    if not isinstance(arrs, tuple):
        arrs = (arrs,)
    return _join_or_numpy("vstack", arrs, 0, dtype=dtype, casting=casting)


def dstack(tup):
    """numpy.dstack: NumPy's own steps, joined by the fast concatenate."""
    if not _all_arrays(tup):
        count("dstack", "not ndarray")
        return _numpy.dstack(tup)
    arrs = np.atleast_3d(*tup)
    if not isinstance(arrs, tuple):
        arrs = (arrs,)
    return _join_or_numpy("dstack", arrs, 2)


def column_stack(tup):
    """numpy.column_stack: NumPy's own steps, joined by the fast concatenate."""
    if not _all_arrays(tup):
        count("column_stack", "not ndarray")
        return _numpy.column_stack(tup)
    arrays = [arr if arr.ndim >= 2 else np.array(arr, copy=None, subok=True, ndmin=2).T
              for arr in tup]
    return _join_or_numpy("column_stack", arrays, 1)
