"""tile and repeat (a scalar count): dmlcpu's TILE into a C-ordered result, as NumPy gives
it; NumPy itself for everything else (arrays of counts, counts of 0, all-ones reps)."""
import operator

import numpy as np

from .. import _ops
from . import _layout, _numpy
from ._layout import MAX_DIMS, NDARRAY, carried, carried_dims, movable
from ._stats import count


def _tile_plan(A, reps):
    """Why tile must go to NumPy, or (input view, repeats per dimension, result shape)."""
    if type(A) is not NDARRAY:
        return "not ndarray"
    if not movable(A.dtype):
        return "dtype"
    try:
        tup = tuple(reps)
    except TypeError:
        tup = (reps,)
    if not all(type(r) is int for r in tup):
        return "reps"
    if all(r == 1 for r in tup):
        return "all ones"   # NumPy copies in the input's memory order
    if any(r < 1 for r in tup):
        return "reps"
    d = max(len(tup), A.ndim)
    if not 1 <= d <= MAX_DIMS - carried_dims(A.dtype):
        return "dimensions"
    c = A.reshape((1,) * (d - A.ndim) + A.shape) if d > A.ndim else A
    tup = (1,) * (d - len(tup)) + tup
    shape = tuple(s * t for s, t in zip(c.shape, tup))
    nbytes = A.dtype.itemsize
    for n in shape:
        nbytes *= n
    if nbytes == 0:
        return "empty"
    if nbytes < _layout.SMALL_BYTES:
        return "small"
    return c, tup, shape


def tile(A, reps):
    """numpy.tile (same arguments, result and errors)."""
    if type(A) is NDARRAY and type(reps) in (int, tuple) and A.nbytes < _layout.SMALL_BYTES:
        nbytes = A.nbytes
        for r in (reps,) if type(reps) is int else reps:
            nbytes *= r if type(r) is int else 1 << 40  # not a plain count: not small
        if nbytes < _layout.SMALL_BYTES:
            count("tile", "small")
            return _numpy.tile(A, reps)
    plan = _tile_plan(A, reps)
    if type(plan) is str:
        count("tile", plan)
        return _numpy.tile(A, reps)
    c, tup, shape = plan
    out = np.empty(shape, A.dtype)
    _ops.tile(carried(c), repeats=tup + (1,) * carried_dims(A.dtype), out=carried(out))
    count("tile", "fast")
    return out


def _repeat_plan(a, repeats, axis):
    """Why repeat must go to NumPy, or (input view, repeats per dimension, result shape)."""
    if type(a) is not NDARRAY:
        return "not ndarray"
    if not movable(a.dtype):
        return "dtype"
    if type(repeats) is not int and not isinstance(repeats, np.integer):
        return "array of counts"
    repeats = operator.index(repeats)
    if repeats < 1:
        return "count"
    ndim = a.ndim
    if not 1 <= ndim <= MAX_DIMS - 1 - carried_dims(a.dtype):
        return "dimensions"
    if axis is not None and (type(axis) is not int or not -ndim <= axis < ndim):
        return "axis"
    if a.size == 0:
        return "empty"
    if a.size * a.dtype.itemsize * repeats < _layout.SMALL_BYTES:
        return "small"
    # each element followed by its copies: one more axis of length ``repeats`` after ``axis``
    # (after the last axis for the flattened repeat), tiled from a length-1 view
    after = ndim if axis is None else axis % ndim + 1
    view = a[(slice(None),) * after + (None,)]
    reps = (1,) * after + (repeats,) + (1,) * (ndim - after)
    if axis is None:
        shape = (a.size * repeats,)
    else:
        shape = a.shape[:after - 1] + (a.shape[after - 1] * repeats,) + a.shape[after:]
    return view, reps, shape


def repeat(a, repeats, axis=None):
    """numpy.repeat (same arguments, result and errors)."""
    plan = _repeat_plan(a, repeats, axis)
    if type(plan) is str:
        count("repeat", plan)
        return _numpy.repeat(a, repeats, axis)
    view, reps, shape = plan
    out = np.empty(shape, a.dtype)
    expanded = out.reshape(tuple(s * r for s, r in zip(view.shape, reps)))
    _ops.tile(carried(view), repeats=reps + (1,) * carried_dims(a.dtype),
              out=carried(expanded))
    count("repeat", "fast")
    return out
