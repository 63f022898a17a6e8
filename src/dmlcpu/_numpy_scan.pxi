# NumPy's cumsum / cumprod (dmlcpu.numpy's widening and float16 scans): a private entry point.
# Included by _core.pyx after _carry.pxi, whose buffer helpers it shares.

def _numpy_scan(source, out, int source_dtype, int out_dtype, int axis, int op):
    """``out`` = NumPy's scan of ``source`` along ``axis`` in ``out``'s type (DirectML type
    codes): int8..uint32 widened into any integer at least twice as wide, or float16 rounded at
    every step. Raises ValueError for buffers that do not fit, CoreError for a pair of types
    the C core does not scan (nothing is written either way)."""
    cdef Py_buffer buffers[2]
    cdef dmlcpu_view views[2]
    cdef Py_ssize_t sizes[2]
    cdef int acquired = 0, i, k
    cdef dmlcpu_status status
    sizes[0] = dmlcpu_dtype_size(source_dtype)
    sizes[1] = dmlcpu_dtype_size(out_dtype)
    if sizes[0] == 0 or sizes[1] == 0:
        raise ValueError("not DirectML data types")
    try:
        for k, (obj, name) in enumerate(((source, "source"), (out, "out"))):
            _carry_operand(obj, &buffers[k], &views[k], k == 1, sizes[k], name)
            acquired |= 1 << k
        if views[0].ndim != views[1].ndim:
            raise ValueError("out and source differ in dimensions")
        for i in range(views[0].ndim):
            if views[0].sizes[i] != views[1].sizes[i]:
                raise ValueError("out and source differ in shape")
        if not 0 <= axis < views[0].ndim:
            raise ValueError(f"axis {axis} is not a dimension of source")
        if _carry_views_meet(&views[1], &views[0], sizes[1], sizes[0]):
            raise ValueError("out overlaps source")
        with nogil:
            status = dmlcpu_numpy_scan(&views[1], <dmlcpu_dtype>out_dtype, &views[0],
                                       <dmlcpu_dtype>source_dtype, axis, <dmlcpu_scan_op>op)
        check(status)
    finally:
        for k in range(2):
            if acquired & (1 << k):
                PyBuffer_Release(&buffers[k])
