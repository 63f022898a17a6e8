# One piece of a long scan, carried in and out (dmlcpu.dask's blocks): a private entry point.
# Included by _core.pyx; self-contained (its own buffer handling: one call, four buffers; the
# C core's declarations come from _core.pxd, `check` from _core.pyx).
from cpython.buffer cimport PyBUF_STRIDES, PyBUF_WRITABLE, PyBuffer_Release, PyObject_GetBuffer
from libc.stdint cimport intptr_t

cdef int _carry_operand(obj, Py_buffer *buffer, dmlcpu_view *view, bint writable,
                        Py_ssize_t itemsize, str name) except -1:
    """Acquires ``obj`` (released by the caller once buffer.obj is set) and fills its view."""
    cdef int i
    PyObject_GetBuffer(obj, buffer, PyBUF_STRIDES | (PyBUF_WRITABLE if writable else 0))
    if buffer.ndim < 1 or buffer.ndim > DMLCPU_MAX_DIMS:
        raise ValueError(f"{name} has {buffer.ndim} dimensions; 1 to 8 are scanned")
    if buffer.itemsize != itemsize:
        raise ValueError(f"{name} has elements of {buffer.itemsize} bytes, not {itemsize}")
    view.data = <char *>buffer.buf
    view.ndim = buffer.ndim
    for i in range(buffer.ndim):
        view.sizes[i] = buffer.shape[i]
        view.strides[i] = buffer.strides[i]
    return 0


cdef object _carry_span(const dmlcpu_view *view, Py_ssize_t itemsize):
    """(lowest byte, one past the highest) a view's elements span, in Python ints (no overflow
    whatever the strides), or None for an empty view."""
    cdef int i
    low = high = <intptr_t>view.data
    for i in range(view.ndim):
        if view.sizes[i] == 0:
            return None
        reach = <object>view.strides[i] * (<object>view.sizes[i] - 1)
        if reach < 0:
            low += reach
        else:
            high += reach
    return low, high + itemsize


cdef bint _carry_views_meet(const dmlcpu_view *a, const dmlcpu_view *b, Py_ssize_t a_size,
                            Py_ssize_t b_size) except -1:
    """Whether the byte ranges two views span intersect (a conservative test)."""
    a_span = _carry_span(a, a_size)
    b_span = _carry_span(b, b_size)
    return a_span is not None and b_span is not None and (
        a_span[0] < b_span[1] and b_span[0] < a_span[1])


cdef bint _carry_same_view(const dmlcpu_view *a, const dmlcpu_view *b) noexcept:
    cdef int i
    if a.data != b.data or a.ndim != b.ndim:
        return False
    for i in range(a.ndim):
        if a.sizes[i] != b.sizes[i] or (a.sizes[i] > 1 and a.strides[i] != b.strides[i]):
            return False
    return True


def _scan_carried(source, out, carry_in, carry_out, int dtype, int op, int axis, bint reverse,
                  bint exclusive):
    """``out`` = the scan of ``source`` along ``axis`` started from ``carry_in`` (None: the
    identity); ``carry_out`` (None: not wanted) receives each scan's total after its last element.

    Carries are buffers of ``source``'s shape with the axis cut to 1, one accumulator each (4-byte
    floats for FLOAT16, the data type otherwise). ``out`` may be ``source`` itself; otherwise no
    written buffer may meet another. Raises ValueError for any misfit (nothing is written).
    """
    cdef Py_buffer buffers[4]
    cdef dmlcpu_view views[4]
    cdef const dmlcpu_view *carry_views[2]
    cdef Py_ssize_t elsize = dmlcpu_dtype_size(dtype), acc_size, k, j
    cdef int acquired = 0, i
    cdef dmlcpu_status status
    if elsize == 0:
        raise ValueError(f"{dtype} is not a DirectML data type")
    acc_size = 4 if dtype == 2 else elsize  # FLOAT16 accumulates in float
    objects = (source, out, carry_in, carry_out)
    names = ("source", "out", "carry_in", "carry_out")
    try:
        for k in range(4):
            if objects[k] is None:
                if k < 2:
                    raise ValueError(f"{names[k]} is required")
                continue
            _carry_operand(objects[k], &buffers[k], &views[k], k == 1 or k == 3,
                           elsize if k < 2 else acc_size, names[k])
            acquired |= 1 << k
        if not 0 <= axis < views[0].ndim:
            raise ValueError(f"axis {axis} is not a dimension of source")
        for k in range(1, 4):
            if not acquired & (1 << k):
                continue
            if views[k].ndim != views[0].ndim:
                raise ValueError(f"{names[k]} has {views[k].ndim} dimensions, source "
                                 f"{views[0].ndim}")
            for i in range(views[0].ndim):
                if views[k].sizes[i] != (1 if k >= 2 and i == axis else views[0].sizes[i]):
                    raise ValueError(f"{names[k]} has the wrong shape")
        # written buffers meet nothing else, but for the in-place pairs the C core allows
        for k in (1, 3):
            if not acquired & (1 << k):
                continue
            for j in range(4):
                if j == k or not acquired & (1 << j):
                    continue
                if (k, j) in ((1, 0), (3, 2)) and _carry_same_view(&views[k], &views[j]):
                    continue
                if _carry_views_meet(&views[k], &views[j], buffers[k].itemsize,
                                     buffers[j].itemsize):
                    raise ValueError(f"{names[k]} overlaps {names[j]}")
        carry_views[0] = &views[2] if acquired & 4 else NULL
        carry_views[1] = &views[3] if acquired & 8 else NULL
        with nogil:
            status = dmlcpu_scan_carried(&views[1], &views[0], <dmlcpu_dtype>dtype, axis,
                                         <dmlcpu_scan_op>op, reverse, exclusive,
                                         carry_views[0], carry_views[1])
        check(status)
    finally:
        for k in range(4):
            if acquired & (1 << k):
                PyBuffer_Release(&buffers[k])
