# cython: freethreading_compatible = False
"""The Cython boundary: buffers in, C views out, status back to exceptions.

A Plan is a list of steps (copy, group, tile, scan) over numbered operand slots: inputs first,
then outputs. Each step's views hold byte offsets from its slot's base address; ``run`` binds the
slots to buffers, checks that every step stays inside its buffers, and calls the C core, without
the GIL when the work is large enough to be worth it.
"""
from cpython.buffer cimport (PyBUF_STRIDES, PyBUF_WRITABLE, PyBuffer_Release,
                             PyObject_GetBuffer)
from libc.stdint cimport INT64_MAX as INT64_MAX_C, INT64_MIN as INT64_MIN_C
from libc.stdint cimport int32_t, int64_t, intptr_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memset

from ._errors import CoreError, InvalidArgumentError

from ._core cimport *

cdef enum:
    STEP_COPY = 0
    STEP_TILE = 1
    STEP_SCAN = 2
    # a group of copies sharing outer dims (JOIN, SPLIT): a header, then one STEP_PART per copy
    STEP_GROUP = 3
    STEP_PART = 4
    # Below this many bytes the GIL is kept: releasing it costs more than the copy.
    NOGIL_BYTES = 65536
    # Operands of a typical call fit on the C stack; a JOIN of many inputs uses the heap.
    RUN_STACK_SLOTS = 8

STEP_KINDS = {"copy": STEP_COPY, "tile": STEP_TILE, "scan": STEP_SCAN, "group": STEP_GROUP}


cdef struct Step:
    int kind
    int dst_slot
    int src_slot
    dmlcpu_view dst          # .data holds the byte offset from the slot's base
    dmlcpu_view src
    size_t elsize
    int dtype
    int axis
    int op
    int reverse
    int exclusive
    Py_ssize_t parts         # STEP_GROUP: the STEP_PART structs that follow it
    int outer_ndim           # STEP_GROUP: leading dims every part shares
    bint empty
    int64_t dst_lo, dst_hi   # bytes the step may touch, relative to the slot's base
    int64_t src_lo, src_hi


cdef int check(dmlcpu_status status) except -1:
    if status == DMLCPU_OK:
        return 0
    message = dmlcpu_status_string(status).decode()
    if status == DMLCPU_E_NOMEM:
        raise MemoryError(message)
    if status == DMLCPU_E_OVERFLOW:
        raise OverflowError(message)
    raise CoreError(message)


cdef extern from *:
    """
    #include <stdint.h>
    /* |a| * |b| + c, or -1 if it does not fit in int64 (a, b any int64; c >= 0). */
    static int64_t dmlcpu_reach_add(int64_t a, int64_t b, int64_t c) {
        uint64_t ua = a < 0 ? 0u - (uint64_t)a : (uint64_t)a;
        uint64_t ub = b < 0 ? 0u - (uint64_t)b : (uint64_t)b;
        if (ua != 0 && ub > (uint64_t)INT64_MAX / ua) return -1;
        if (ua * ub > (uint64_t)(INT64_MAX - c)) return -1;
        return (int64_t)(ua * ub) + c;
    }
    """
    int64_t reach_add "dmlcpu_reach_add"(int64_t a, int64_t b, int64_t c) nogil


OFFSETS_OVERFLOW = ("a tensor's sizes and strides reach byte offsets beyond 64 bits (its elements "
                    "would span more than 2^63 bytes)")


cdef int fill_view(dmlcpu_view *view, offset, sizes, strides, int64_t elsize,
                   int64_t *lo, int64_t *hi, bint *empty) except -1:
    """Fills a view from Python sequences; computes the byte range its elements occupy.

    Every value must fit in int64 and so must every byte offset reached: such a view can only
    come from a crafted array (validation refuses such tensors), and is refused before any run.
    """
    cdef Py_ssize_t n = len(sizes), i
    cdef int64_t size, stride, start, below = 0, above = 0
    if n > DMLCPU_MAX_DIMS or len(strides) != n:
        raise CoreError("a plan view has %d sizes and %d strides" % (n, len(strides)))
    try:
        start = offset
        for i in range(n):
            view.sizes[i] = sizes[i]
            view.strides[i] = strides[i]
    except OverflowError:
        raise InvalidArgumentError(OFFSETS_OVERFLOW) from None
    view.ndim = <int32_t>n
    view.data = <char *><intptr_t>start
    empty[0] = False
    for i in range(n):
        size = view.sizes[i]
        stride = view.strides[i]
        if size < 0:
            raise CoreError("a plan view has a negative size")
        if size == 0:
            empty[0] = True
        elif stride < 0:
            below = reach_add(stride, size - 1, below)
        else:
            above = reach_add(stride, size - 1, above)
        if below < 0 or above < 0:
            raise InvalidArgumentError(OFFSETS_OVERFLOW)
    # [start - below, start + above + elsize) must be representable too
    if (start < 0 and start < INT64_MIN_C + below) or (
            start > 0 and start > INT64_MAX_C - elsize - above) or above > INT64_MAX_C - elsize:
        raise InvalidArgumentError(OFFSETS_OVERFLOW)
    lo[0] = start - below
    hi[0] = start + above + elsize
    return 0


cdef class Plan:
    """Steps over operand slots, converted to C structs once and run many times."""
    cdef Step *steps
    cdef Py_ssize_t n_steps      # C structs: a group is its header and its parts
    cdef Py_ssize_t n_given      # steps as given
    cdef readonly Py_ssize_t n_inputs
    cdef readonly Py_ssize_t n_outputs
    cdef readonly int64_t work_bytes

    def __cinit__(self, Py_ssize_t n_inputs, Py_ssize_t n_outputs, steps):
        cdef Py_ssize_t i
        cdef Step *step
        cdef bint dst_empty, src_empty
        self.n_inputs = n_inputs
        self.n_outputs = n_outputs
        self.n_given = len(steps)
        # ("copy"|"tile", dst, src, elsize), ("scan", dst, src, elsize, dtype, axis, op, reverse,
        # exclusive) or ("group", dsts, srcs, elsize, outer_ndim); a dst or src is a layout
        # (slot, byte_offset, sizes, byte_strides). A group becomes a header struct followed by
        # one STEP_PART struct per (dst, src) pair, each checked against its buffers as a copy.
        flat = []
        for s in steps:
            if s[0] == "group":
                if len(s[1]) != len(s[2]):
                    raise CoreError("a plan group has %d destinations and %d sources" % (
                        len(s[1]), len(s[2])))
                flat.append((STEP_GROUP, len(s[1]), s[3], s[4]))
                flat.extend((STEP_PART, dst, src, s[3]) for dst, src in zip(s[1], s[2]))
            else:
                flat.append((STEP_KINDS[s[0]],) + tuple(s[1:]))
        self.n_steps = len(flat)
        self.steps = <Step *>calloc(self.n_steps if self.n_steps else 1, sizeof(Step))
        if self.steps == NULL:
            raise MemoryError()
        self.work_bytes = 0
        for i in range(self.n_steps):
            step = &self.steps[i]
            s = flat[i]
            step.kind = s[0]
            if step.kind == STEP_GROUP:
                step.parts, step.elsize, step.outer_ndim = s[1:4]
                step.empty = True  # the header touches nothing itself: its parts are checked
                continue
            dst, src = s[1], s[2]
            step.elsize = s[3]
            step.dst_slot = dst[0]
            step.src_slot = src[0]
            if not (n_inputs + n_outputs > step.dst_slot >= n_inputs) or not (
                    0 <= step.src_slot < n_inputs + n_outputs):
                raise CoreError("a plan step names a slot that does not exist")
            fill_view(&step.dst, dst[1], dst[2], dst[3], step.elsize, &step.dst_lo,
                      &step.dst_hi, &dst_empty)
            fill_view(&step.src, src[1], src[2], src[3], step.elsize, &step.src_lo,
                      &step.src_hi, &src_empty)
            step.empty = dst_empty or src_empty
            if step.kind == STEP_SCAN:
                step.dtype, step.axis, step.op, step.reverse, step.exclusive = s[4:9]
            if not step.empty:  # saturates: only compared with NOGIL_BYTES
                self.work_bytes += min(step.dst_hi - step.dst_lo, NOGIL_BYTES)

    def __dealloc__(self):
        free(self.steps)

    def __len__(self):
        return self.n_given

    def run(self, inputs, outputs):
        """Binds inputs (read) and outputs (written) to the slots and runs every step."""
        self._run(inputs, outputs, False, False)

    def try_run(self, inputs, outputs, bint in_place_ok=False):
        """Runs like ``run`` if every buffer can be had as needed and no output's bytes meet
        another operand's (the identical view of an input is allowed with ``in_place_ok``).
        Otherwise returns False having written nothing, for the caller's exact checks to explain.
        Calls with more than a few operands always return False."""
        return self._run(inputs, outputs, True, in_place_ok)

    cdef bint _run(self, inputs, outputs, bint tentative, bint in_place_ok) except -1:
        cdef Py_ssize_t n_slots = self.n_inputs + self.n_outputs, i, acquired = 0
        cdef Py_buffer stack_buffers[RUN_STACK_SLOTS]
        cdef int64_t stack_bounds[2 * RUN_STACK_SLOTS]
        cdef Py_buffer *buffers = stack_buffers
        cdef int64_t *lo = stack_bounds
        cdef int64_t *hi
        cdef int flags
        if len(inputs) != self.n_inputs or len(outputs) != self.n_outputs:
            raise CoreError("the plan takes %d inputs and %d outputs, got %d and %d" % (
                self.n_inputs, self.n_outputs, len(inputs), len(outputs)))
        if n_slots > RUN_STACK_SLOTS:
            if tentative:
                return False
            buffers = <Py_buffer *>calloc(n_slots, sizeof(Py_buffer))
            lo = <int64_t *>calloc(2 * n_slots, sizeof(int64_t))
            if buffers == NULL or lo == NULL:
                free(buffers)
                free(lo)
                raise MemoryError()
        hi = lo + n_slots
        try:
            for i in range(n_slots):
                if i < self.n_inputs:
                    obj = inputs[i]
                    flags = PyBUF_STRIDES
                else:
                    obj = outputs[i - self.n_inputs]
                    flags = PyBUF_STRIDES | PyBUF_WRITABLE
                if tentative:
                    try:
                        PyObject_GetBuffer(obj, &buffers[i], flags)
                    except (BufferError, ValueError, TypeError):
                        return False
                else:
                    try:
                        PyObject_GetBuffer(obj, &buffers[i], flags)
                    except BufferError as error:
                        if i >= self.n_inputs:
                            raise InvalidArgumentError("output %d is not writable (%s)" % (
                                i - self.n_inputs, error)) from None
                        raise TypeError("input %d does not export a buffer: %s" % (
                            i, error)) from None
                acquired += 1
                buffer_extent(&buffers[i], &lo[i], &hi[i])
            if tentative and outputs_meet(buffers, lo, hi, self.n_inputs, n_slots, in_place_ok):
                return False
            self._run_bound(buffers, lo, hi)
            return True
        finally:
            for i in range(acquired):
                PyBuffer_Release(&buffers[i])
            if buffers != stack_buffers:
                free(buffers)
                free(lo)

    cdef int _run_bound(self, Py_buffer *buffers, int64_t *lo, int64_t *hi) except -1:
        """Runs every step on buffers already acquired, whose usable bytes are [lo, hi)."""
        cdef dmlcpu_status status
        self._check_extents(lo, hi)
        if self.work_bytes >= NOGIL_BYTES:
            with nogil:
                status = run_steps(self.steps, self.n_steps, buffers)
        else:
            status = run_steps(self.steps, self.n_steps, buffers)
        return check(status)

    cdef int _check_extents(self, int64_t *lo, int64_t *hi) except -1:
        cdef Py_ssize_t i
        cdef Step *step
        for i in range(self.n_steps):
            step = &self.steps[i]
            if step.empty:
                continue
            if (step.dst_lo < lo[step.dst_slot] or step.dst_hi > hi[step.dst_slot] or
                    step.src_lo < lo[step.src_slot] or step.src_hi > hi[step.src_slot]):
                raise CoreError("a plan step reaches outside its buffers")
        return 0


cdef bint outputs_meet(Py_buffer *buffers, int64_t *lo, int64_t *hi, Py_ssize_t n_inputs,
                       Py_ssize_t n_slots, bint in_place_ok) noexcept:
    """True if some output's byte range meets an input's or another output's (identical views
    of an input excepted when in_place_ok). Conservative: meeting ranges may still be disjoint
    element by element; the caller's exact check decides those."""
    cdef Py_ssize_t o, j
    cdef char *o_lo
    cdef char *o_hi
    for o in range(n_inputs, n_slots):
        if lo[o] == hi[o]:
            continue
        o_lo = <char *>buffers[o].buf + lo[o]
        o_hi = <char *>buffers[o].buf + hi[o]
        for j in range(n_slots):
            if j == o or lo[j] == hi[j]:
                continue
            if (<char *>buffers[j].buf + lo[j] < o_hi and o_lo < <char *>buffers[j].buf + hi[j]):
                if not (in_place_ok and j < n_inputs and same_view(&buffers[o], &buffers[j])):
                    return True
    return False


cdef bint same_view(Py_buffer *a, Py_buffer *b) noexcept:
    cdef int i
    if a.buf != b.buf or a.ndim != b.ndim or a.itemsize != b.itemsize:
        return False
    for i in range(a.ndim):
        if a.shape[i] != b.shape[i] or a.strides[i] != b.strides[i]:
            return False
    return True


cdef int buffer_extent(Py_buffer *buffer, int64_t *lo, int64_t *hi) except -1:
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


cdef inline void bind_view(dmlcpu_view *view, const dmlcpu_view *planned,
                           Py_buffer *buffer) noexcept nogil:
    view[0] = planned[0]
    view.data = <char *>buffer.buf + <intptr_t>planned.data


cdef dmlcpu_status run_group(Step *group, Step *parts, Py_buffer *buffers) noexcept nogil:
    """The group's non-empty parts, bound to their buffers, in one dmlcpu_copy_group call."""
    cdef dmlcpu_view stack_views[2 * RUN_STACK_SLOTS]
    cdef dmlcpu_view *dsts = stack_views
    cdef dmlcpu_view *srcs
    cdef Py_ssize_t i, n = 0, capacity = RUN_STACK_SLOTS
    cdef dmlcpu_status status
    if group.parts > capacity:
        capacity = group.parts
        dsts = <dmlcpu_view *>malloc(2 * capacity * sizeof(dmlcpu_view))
        if dsts == NULL:
            return DMLCPU_E_NOMEM
    srcs = dsts + capacity
    for i in range(group.parts):
        if parts[i].empty:
            continue
        bind_view(&dsts[n], &parts[i].dst, &buffers[parts[i].dst_slot])
        bind_view(&srcs[n], &parts[i].src, &buffers[parts[i].src_slot])
        n += 1
    status = dmlcpu_copy_group(dsts, srcs, <size_t>n, group.outer_ndim, group.elsize)
    if dsts != stack_views:
        free(dsts)
    return status


cdef dmlcpu_status run_steps(Step *steps, Py_ssize_t n_steps, Py_buffer *buffers) noexcept nogil:
    cdef Py_ssize_t i = 0
    cdef Step *step
    cdef dmlcpu_view dst, src
    cdef dmlcpu_status status
    while i < n_steps:
        step = &steps[i]
        i += 1
        if step.kind == STEP_GROUP:
            status = run_group(step, step + 1, buffers)
            if status != DMLCPU_OK:
                return status
            i += step.parts
            continue
        if step.empty:
            continue
        dst = step.dst
        src = step.src
        dst.data = <char *>buffers[step.dst_slot].buf + <intptr_t>dst.data
        src.data = <char *>buffers[step.src_slot].buf + <intptr_t>src.data
        if step.kind == STEP_COPY:
            status = dmlcpu_copy(&dst, &src, step.elsize)
        elif step.kind == STEP_TILE:
            status = dmlcpu_tile(&dst, &src, step.elsize)
        else:
            status = dmlcpu_scan(&dst, &src, <dmlcpu_dtype>step.dtype, step.axis,
                                 <dmlcpu_scan_op>step.op, step.reverse, step.exclusive)
        if status != DMLCPU_OK:
            return status
    return DMLCPU_OK


def dtype_size(int dtype):
    """Element size in bytes of a DirectML data type value (0 if unknown)."""
    return dmlcpu_dtype_size(dtype)


# Descriptor buffers (dmlcpu._desc): binding checks in C, then the same _run_bound as above.
include "_binding.pxi"
# Runtime configuration: ISA dispatch and threads.
include "_runtime.pxi"
# One piece of a long scan with its running total carried in and out (dmlcpu.dask).
include "_carry.pxi"
