"""tile and repeat (a scalar count): dmlcpu's TILE, and JOIN of the copies, into a C-ordered
result as NumPy gives it; NumPy itself for everything else (arrays of counts, counts of 0,
all-ones reps, repeats whose copied runs are short)."""
import operator

import numpy as np

from .. import _ops
from . import _layout, _numpy
from ._layout import MAX_DIMS, NATIVE, NDARRAY, carried, carried_dims, movable
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
    if A.dtype in NATIVE:
        out = _ops.tile(c, repeats=tup)
    else:
        out = np.empty(shape, A.dtype)
        _ops.tile(carried(c), repeats=tup + (1,) * carried_dims(A.dtype), out=carried(out))
    count("tile", "fast")
    return out


# The bytes each copied run must hold for JOIN to beat NumPy's repeat (docs/numpy.md):
# shorter runs (repeats along the last axes, the flattened repeat) go to NumPy.
REPEAT_MIN_RUN_BYTES = 256


def _repeat_plan(a, repeats, axis):
    """Why repeat must go to NumPy, or (input view, copies, join axis, result shape)."""
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
    if axis is None or type(axis) is not int or not -ndim <= axis < ndim:
        return "axis"   # (the flattened repeat copies single elements: NumPy's own loop)
    if a.size == 0:
        return "empty"
    if a.size * a.dtype.itemsize * repeats < _layout.SMALL_BYTES:
        return "small"
    after = axis % ndim + 1
    run = a.dtype.itemsize
    for n in a.shape[after:]:
        run *= n
    if run < REPEAT_MIN_RUN_BYTES:
        return "short runs"
    # each slice along ``axis`` followed by its copies: ``repeats`` copies of the array with
    # one more axis of length 1 after ``axis``, joined along that axis
    view = a[(slice(None),) * after + (None,)]
    shape = a.shape[:after - 1] + (a.shape[after - 1] * repeats,) + a.shape[after:]
    return view, repeats, after, shape


def repeat(a, repeats, axis=None):
    """numpy.repeat (same arguments, result and errors)."""
    plan = _repeat_plan(a, repeats, axis)
    if type(plan) is str:
        count("repeat", plan)
        return _numpy.repeat(a, repeats, axis)
    view, copies, after, shape = plan
    out = np.empty(shape, a.dtype)
    joined = out.reshape(view.shape[:after] + (copies,) + view.shape[after + 1:])
    _ops.join([carried(view)] * copies, axis=after, out=carried(joined))
    count("repeat", "fast")
    return out
