# Included by _core.pyx. The one place buffers are acquired for a run, and the one overlap check.
#
# Eager plans (Plan.run / try_run) and compiled operators (Binding.execute) both bind their slots
# through an Operands record: each object is acquired once, its usable byte range [lo, hi)
# around buffer.buf is recorded, every acquired buffer is released exactly once, and a call of
# many operands moves from the C stack to the heap at one size.
from cpython.buffer cimport PyBUF_SIMPLE, PyObject_CheckBuffer
from cpython.exc cimport PyErr_Clear
from libc.stdint cimport uintptr_t
from libc.stdlib cimport qsort

cdef extern from "Python.h":
    # Declared without an exception clause: a failure comes back as -1 and the caller explains
    # it on its slow path, so the fast path pays for no exception handling.
    int get_buffer_noexc "PyObject_GetBuffer"(object obj, Py_buffer *view, int flags)

cdef struct Operands:
    Py_buffer *buffers
    int64_t *lo              # per slot: the usable bytes are [buf + lo, buf + hi)
    int64_t *hi
    Py_ssize_t n
    Py_ssize_t bound         # slots filled so far, in order
    Py_ssize_t acquired      # of those, exported buffers to release (0 when bound from fields)
    Py_buffer stack_buffers[STACK_SLOTS]
    int64_t stack_bounds[2 * STACK_SLOTS]


cdef int operands_open(Operands *ops, Py_ssize_t n) except -1:
    ops.n = n
    ops.bound = 0
    ops.acquired = 0
    ops.buffers = ops.stack_buffers
    ops.lo = ops.stack_bounds
    if n > STACK_SLOTS:
        ops.buffers = <Py_buffer *>malloc(n * sizeof(Py_buffer))
        ops.lo = <int64_t *>malloc(2 * n * sizeof(int64_t))
        if ops.buffers == NULL or ops.lo == NULL:
            free(ops.buffers)
            free(ops.lo)
            ops.buffers = ops.stack_buffers
            ops.lo = ops.stack_bounds
            raise MemoryError()
    ops.hi = ops.lo + n
    return 0


cdef void operands_close(Operands *ops) noexcept:
    cdef Py_ssize_t i
    for i in range(ops.acquired):
        PyBuffer_Release(&ops.buffers[i])
    ops.acquired = 0
    if ops.buffers != ops.stack_buffers:
        free(ops.buffers)
        free(ops.lo)
        ops.buffers = ops.stack_buffers
        ops.lo = ops.stack_bounds


cdef inline bint operands_acquire(Operands *ops, obj, int flags) noexcept:
    """Acquires obj as the next slot; False (no exception set) if it cannot be had so."""
    if get_buffer_noexc(obj, &ops.buffers[ops.bound], flags) != 0:
        PyErr_Clear()
        return False
    ops.bound += 1
    ops.acquired += 1
    return True


cdef int strided_extent(Py_buffer *buffer, int64_t *lo, int64_t *hi) except -1:
    """The byte range [lo, hi) around buffer.buf that the exporter's elements occupy."""
    cdef int i
    cdef int64_t below = 0, above = 0, size, stride
    if buffer.ndim == 0 or buffer.strides == NULL:
        lo[0] = 0
        hi[0] = buffer.len
        return 0
    for i in range(buffer.ndim):
        size = buffer.shape[i]
        stride = buffer.strides[i]
        if size == 0:
            lo[0] = 0
            hi[0] = 0
            return 0
        if stride < 0:
            below = reach_add(stride, size - 1, below)
        else:
            above = reach_add(stride, size - 1, above)
        if below < 0 or above < 0:
            raise InvalidArgumentError(OFFSETS_OVERFLOW)
    if above > INT64_MAX_C - buffer.itemsize:
        raise InvalidArgumentError(OFFSETS_OVERFLOW)
    lo[0] = -below
    hi[0] = above + buffer.itemsize
    return 0


cdef struct Range:
    uintptr_t lo
    uintptr_t hi
    Py_ssize_t slot


cdef inline bint range_before(const Range *x, const Range *y) noexcept nogil:
    return x.lo < y.lo or (x.lo == y.lo and x.slot < y.slot)


cdef int compare_ranges(const void *a, const void *b) noexcept nogil:
    cdef const Range *x = <const Range *>a
    cdef const Range *y = <const Range *>b
    return -1 if range_before(x, y) else (1 if range_before(y, x) else 0)


cdef void sort_ranges(Range *ranges, Py_ssize_t m) noexcept nogil:
    """By start, then slot. Up to STACK_SLOTS by insertion: a tiny eager call, cold, then missed
    16 fewer instruction lines, qsort's among them (cachegrind, NOTES.md in git)."""
    cdef Py_ssize_t i, j
    cdef Range r
    if m > STACK_SLOTS:
        qsort(ranges, m, sizeof(Range), compare_ranges)
        return
    for i in range(1, m):
        r = ranges[i]
        j = i
        while j > 0 and range_before(&r, &ranges[j - 1]):
            ranges[j] = ranges[j - 1]
            j -= 1
        ranges[j] = r


cdef int find_conflict(Operands *ops, const int64_t *ends, Py_ssize_t n_inputs, bint in_place,
                       Py_ssize_t *first, Py_ssize_t *second) except -1:
    """The one overlap check: 1 and slots first < second whose byte ranges [buf + lo, buf +
    ends) meet where one is an output, or 0. Inputs may share memory freely; ``in_place``
    allows a one-input, one-output call to have both start at one address (the caller knows
    their layouts are identical). Sorted by start, a conflict shows against the earlier range
    reaching furthest (among all slots for an output, among outputs for an input): n log n."""
    cdef Py_ssize_t n = ops.n, i, m = 0, far_any = -1, far_out = -1, slot, other
    cdef Range stack_ranges[STACK_SLOTS]
    cdef Range *ranges = stack_ranges
    cdef int found = 0
    if in_place and n == 2 and n_inputs == 1 and ops.buffers[0].buf == ops.buffers[1].buf:
        return 0
    if n > STACK_SLOTS:
        ranges = <Range *>malloc(n * sizeof(Range))
        if ranges == NULL:
            raise MemoryError()
    for i in range(n):
        if ends[i] <= ops.lo[i]:
            continue  # an empty range meets nothing
        ranges[m].lo = <uintptr_t>ops.buffers[i].buf + <uintptr_t>ops.lo[i]
        ranges[m].hi = <uintptr_t>ops.buffers[i].buf + <uintptr_t>ends[i]
        ranges[m].slot = i
        m += 1
    sort_ranges(ranges, m)
    for i in range(m):
        slot = ranges[i].slot
        other = -1
        if slot >= n_inputs:
            if far_any >= 0 and ranges[far_any].hi > ranges[i].lo:
                other = ranges[far_any].slot
        elif far_out >= 0 and ranges[far_out].hi > ranges[i].lo:
            other = ranges[far_out].slot
        if other >= 0:
            first[0], second[0] = (other, slot) if other < slot else (slot, other)
            found = 1
            break
        if far_any < 0 or ranges[i].hi > ranges[far_any].hi:
            far_any = i
        if slot >= n_inputs and (far_out < 0 or ranges[i].hi > ranges[far_out].hi):
            far_out = i
    if ranges != stack_ranges:
        free(ranges)
    return found
