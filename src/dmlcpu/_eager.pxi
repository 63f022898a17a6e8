# Included by _core.pyx. The eager API's remembered plans: key, look up and run in one C call.
#
# A key is made from a snapshot of the call: each field read once into an exact int, None or a
# tuple of exact ints, and each array's dtype, shape and strides read once. dmlcpu._ops stores a
# plan only under the key of the snapshot it validated and planned, so a key always names a call
# validation accepts the same way. A run binds the buffers anew and checks every step against
# them, so whatever other threads do to the argument objects meanwhile, it stays inside them.
import numpy as _np

cdef object NDARRAY = _np.ndarray
cdef object new_array = _np.empty
MISS = object()          # "no remembered plan served this call"


cdef tuple snapshot_fields(tuple fields):
    """Each field as an exact int, None or a tuple of exact ints, read once; None if a field is
    anything else (bools, NumPy integers, objects with __index__: the full path reads those)."""
    cdef list snap = []
    for value in fields:
        kind = type(value)
        if kind is list or kind is tuple:
            value = tuple(value)          # one read: no Python code runs for an exact list
            for item in <tuple>value:
                if type(item) is not int:
                    return None
        elif kind is not int and value is not None:
            return None
        snap.append(value)
    return tuple(snap)


def field_snapshot(fields):
    """snapshot_fields for Python callers (dmlcpu._ops' full path)."""
    return snapshot_fields(tuple(fields))


def eager_key(op, tuple fields, tuple layouts):
    """The plan cache's key: the operator (and whether outputs were given), the field snapshot
    and each array's (dtype, shape, strides), flattened."""
    return (op, fields) + layouts


cdef tuple ndarray_layouts(tuple arrays):
    """(dtype, shape, strides) of each array, flattened; None unless all are exact ndarrays."""
    cdef list parts = []
    for array in arrays:
        if type(array) is not NDARRAY:
            return None
        parts += (array.dtype, array.shape, array.strides)
    return tuple(parts)


cdef class Remembered:
    """A validated plan and what its new outputs look like (C-contiguous, shapes, dtype)."""
    cdef readonly Plan plan
    cdef tuple shapes
    cdef object dtype
    cdef bint many
    cdef bint in_place
    cdef readonly Py_ssize_t nbytes   # roughly what keeping it costs, key included

    def __init__(self, Plan plan, shapes, dtype, bint many, bint in_place, Py_ssize_t key_bytes):
        self.plan = plan
        self.shapes = tuple(tuple(shape) for shape in shapes)
        self.dtype = dtype
        self.many = many
        self.in_place = in_place
        self.nbytes = plan.nbytes + key_bytes


def remembered_call(dict cache, op, tuple fields, tuple inputs, tuple outputs):
    """The result of the call from a remembered plan, or MISS (nothing written) when no plan is
    remembered for it or the caller's outputs (None: new arrays) may meet another operand."""
    cdef tuple snap = snapshot_fields(fields)
    cdef tuple layouts
    cdef Remembered remembered
    if snap is None:
        return MISS
    layouts = ndarray_layouts(inputs if outputs is None else inputs + outputs)
    if layouts is None:
        return MISS
    found = cache.get(eager_key(op if outputs is None else op + " into", snap, layouts))
    if found is None:
        return MISS
    remembered = <Remembered>found
    if outputs is None:
        outputs = tuple([new_array(shape, remembered.dtype) for shape in remembered.shapes])
        remembered.plan._run(inputs, outputs, False, False)
    elif not remembered.plan._run(inputs, outputs, True, remembered.in_place):
        return MISS
    return list(outputs) if remembered.many else outputs[0]
