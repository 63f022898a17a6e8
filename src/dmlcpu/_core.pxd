# Extern declarations of the C core; nothing else lives here.
from libc.stdint cimport int32_t, int64_t


cdef extern from "dmlcpu/dmlcpu.h" nogil:
    enum: DMLCPU_MAX_DIMS

    ctypedef enum dmlcpu_status:
        DMLCPU_OK
        DMLCPU_E_INVALID
        DMLCPU_E_NOMEM
        DMLCPU_E_OVERFLOW

    ctypedef enum dmlcpu_dtype:
        pass

    ctypedef enum dmlcpu_scan_op:
        DMLCPU_SCAN_SUM
        DMLCPU_SCAN_PROD

    ctypedef struct dmlcpu_view:
        char *data
        int32_t ndim
        int64_t sizes[8]
        int64_t strides[8]

    const char *dmlcpu_status_string(dmlcpu_status status)
    size_t dmlcpu_dtype_size(int dtype)
    dmlcpu_status dmlcpu_copy(const dmlcpu_view *dst, const dmlcpu_view *src, size_t elsize)
    dmlcpu_status dmlcpu_tile(const dmlcpu_view *dst, const dmlcpu_view *src, size_t elsize)
    dmlcpu_status dmlcpu_scan(const dmlcpu_view *dst, const dmlcpu_view *src, dmlcpu_dtype dtype,
                              int32_t axis, dmlcpu_scan_op op, int32_t reverse, int32_t exclusive)
