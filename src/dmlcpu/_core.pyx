# cython: freethreading_compatible = False
"""The Cython boundary: buffers in, C views out, status back to exceptions.

A Plan is a list of typed step records (Copy, Group, Tile, Scan) over numbered operand slots:
inputs first, then outputs. Each step's views hold byte offsets from its slot's base address;
running binds the slots to buffers (_operands.pxi, the one acquisition helper and overlap check,
shared with compiled operators in _binding.pxi and remembered eager plans in _eager.pxi), checks
that every step stays inside its buffers, and calls the C core, without the GIL when the work is
large enough to be worth it. See docs/architecture.md.
"""
from cpython.buffer cimport PyBUF_STRIDES, PyBUF_WRITABLE, PyBuffer_Release
from cpython.mem cimport PyMem_Calloc, PyMem_Free
from libc.stdint cimport INT64_MAX as INT64_MAX_C, INT64_MIN as INT64_MIN_C
from libc.stdint cimport int32_t, int64_t, intptr_t
from libc.stdlib cimport calloc, free, malloc

from collections import namedtuple as _namedtuple

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
    STACK_SLOTS = 16


cdef struct Step:
    int kind
    int dst_slot
    int src_slot
    dmlcpu_view dst          # .data holds the byte offset from the slot's base
    dmlcpu_view src
    dmlcpu_prepared_copy copy  # STEP_COPY: dst and src checked and normalized once
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


Layout = _namedtuple("Layout", "slot offset sizes strides")
Layout.__doc__ = ("Where a tensor's element (0, ..., 0) sits: ``offset`` bytes from the base of "
                  "the buffer bound to ``slot`` (inputs first, then outputs), and its byte strides")
Copy = _namedtuple("Copy", "dst src elsize")
Tile = _namedtuple("Tile", "dst src elsize")
Scan = _namedtuple("Scan", "dst src dtype axis op reverse exclusive")
Scan.__doc__ = "A scan; its elements are its data type's size (the C scan walks those)"
Group = _namedtuple("Group", "dsts srcs elsize outer_ndim")
Group.__doc__ = ("Copies sharing their leading ``outer_ndim`` dims (JOIN, SPLIT), run as one "
                 "dmlcpu_copy_group call")


def _record(step):
    """A step record, from a record or the positional form ("copy", dst, src, elsize), ("tile",
    ...), ("group", dsts, srcs, elsize, outer_ndim) or ("scan", dst, src, elsize, dtype, axis,
    op, reverse, exclusive), whose elsize must be its dtype's."""
    if type(step) in (Copy, Tile, Scan, Group):
        return step
    kind, *fields = step
    if kind == "scan":
        dst, src, elsize, dtype, *rest = fields
        if 0 <= dtype <= 255 and dmlcpu_dtype_size(dtype) not in (0, elsize):
            raise CoreError("a scan step has element size %d but its data type %d has "
                            "elements of %d bytes" % (elsize, dtype, dmlcpu_dtype_size(dtype)))
        return Scan(dst, src, dtype, *rest)
    records = {"copy": Copy, "tile": Tile, "group": Group}
    if kind not in records:
        raise CoreError("unknown plan step kind %r" % (kind,))
    return records[kind](*fields)


cdef int fill_view(dmlcpu_view *view, layout, int64_t elsize, int *slot,
                   int64_t *lo, int64_t *hi, bint *empty) except -1:
    """Fills a view from a Layout; computes the byte range its elements occupy.

    Every value must fit in int64 and so must every byte offset reached: such a view can only
    come from a crafted array (validation refuses such tensors), and is refused before any run.
    A dim of one element never moves: its stride is dropped (any value, as NumPy allows), so
    the C core's bounds, which take |stride| * size, see only strides that are walked.
    """
    cdef Py_ssize_t n, i
    cdef int64_t size, stride, start, below = 0, above = 0
    slot_value, offset, sizes, strides = layout
    sizes = tuple(sizes)
    strides = tuple(strides)
    n = len(sizes)
    if n > DMLCPU_MAX_DIMS or len(strides) != n:
        raise CoreError("a plan view has %d sizes and %d strides" % (n, len(strides)))
    slot[0] = slot_value
    try:
        start = offset
        for i in range(n):
            view.sizes[i] = sizes[i]
            view.strides[i] = strides[i] if sizes[i] != 1 else 0
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
    """Steps over operand slots, converted to C structs once and run many times.

    ``steps``: Copy, Tile, Scan and Group records over Layouts (or their positional forms, see
    _record). A Group becomes a header struct followed by one STEP_PART struct per (dst, src)
    pair, each bounded against its buffers as a copy. Immutable once built.
    """
    cdef Step *steps
    cdef Py_ssize_t n_steps      # C structs: a group is its header and its parts
    cdef Py_ssize_t n_given      # steps as given
    cdef readonly Py_ssize_t n_inputs
    cdef readonly Py_ssize_t n_outputs
    cdef readonly int64_t work_bytes

    def __cinit__(self, Py_ssize_t n_inputs, Py_ssize_t n_outputs, steps):
        cdef Py_ssize_t i = 0
        if n_inputs < 0 or n_outputs < 0:
            raise CoreError("a plan needs a non-negative number of inputs and outputs")
        self.n_inputs = n_inputs
        self.n_outputs = n_outputs
        records = [_record(step) for step in steps]
        self.n_given = len(records)
        self.n_steps = sum(1 + len(r.dsts) if type(r) is Group else 1 for r in records)
        # PyMem: Python's allocator, so tracemalloc sees what remembered plans keep
        self.steps = <Step *>PyMem_Calloc(self.n_steps if self.n_steps else 1, sizeof(Step))
        if self.steps == NULL:
            raise MemoryError()
        self.work_bytes = 0
        for record in records:
            kind = type(record)
            if kind is Group:
                dsts, srcs = tuple(record.dsts), tuple(record.srcs)
                if len(dsts) != len(srcs):
                    raise CoreError("a plan group has %d destinations and %d sources" % (
                        len(dsts), len(srcs)))
                self.steps[i].kind = STEP_GROUP
                self.steps[i].parts = len(dsts)
                self.steps[i].elsize = record.elsize
                self.steps[i].outer_ndim = record.outer_ndim
                self.steps[i].empty = True  # the header touches nothing itself
                i += 1
                for dst, src in zip(dsts, srcs):
                    self._fill(&self.steps[i], STEP_PART, dst, src, record.elsize)
                    i += 1
            elif kind is Scan:
                self._fill(&self.steps[i], STEP_SCAN, record.dst, record.src,
                           self._scan_elsize(record.dtype))
                self.steps[i].dtype = record.dtype
                self.steps[i].axis = record.axis
                self.steps[i].op = record.op
                self.steps[i].reverse = bool(record.reverse)
                self.steps[i].exclusive = bool(record.exclusive)
                i += 1
            else:
                self._fill(&self.steps[i], STEP_COPY if kind is Copy else STEP_TILE,
                           record.dst, record.src, record.elsize)
                if kind is Copy:
                    check(dmlcpu_copy_prepare(&self.steps[i].copy, &self.steps[i].dst,
                                              &self.steps[i].src, self.steps[i].elsize))
                i += 1

    cdef size_t _scan_elsize(self, dtype) except 0:
        """A scan's elements are its data type's size; an unknown type is bounded as bytes
        and refused by the C core before it touches memory."""
        cdef size_t elsize = dmlcpu_dtype_size(dtype) if 0 <= dtype <= 255 else 0
        return elsize if elsize else 1

    cdef int _fill(self, Step *step, int kind, dst, src, elsize) except -1:
        cdef bint dst_empty, src_empty
        step.kind = kind
        if not 1 <= elsize <= 8:
            raise CoreError("a plan step has element size %r" % (elsize,))
        step.elsize = elsize
        fill_view(&step.dst, dst, step.elsize, &step.dst_slot, &step.dst_lo, &step.dst_hi,
                  &dst_empty)
        fill_view(&step.src, src, step.elsize, &step.src_slot, &step.src_lo, &step.src_hi,
                  &src_empty)
        if not (self.n_inputs + self.n_outputs > step.dst_slot >= self.n_inputs) or not (
                0 <= step.src_slot < self.n_inputs + self.n_outputs):
            raise CoreError("a plan step names a slot that does not exist")
        step.empty = dst_empty or src_empty
        if not step.empty:  # saturates: only compared with NOGIL_BYTES
            self.work_bytes += min(step.dst_hi - step.dst_lo, NOGIL_BYTES)
        return 0

    def __dealloc__(self):
        PyMem_Free(self.steps)

    def __len__(self):
        return self.n_given

    @property
    def nbytes(self):
        """Bytes this plan keeps allocated (its C step array), for bounding caches of plans."""
        return self.n_steps * sizeof(Step) + 128

    def run(self, inputs, outputs):
        """Binds inputs (read) and outputs (written) to the slots and runs every step."""
        self._run(tuple(inputs), tuple(outputs), False, False)

    def try_run(self, inputs, outputs, bint in_place_ok=False):
        """Runs like ``run`` if every buffer can be had as needed and no output's bytes meet
        another operand's (the first input's start, with ``in_place_ok``: the caller knows the
        layouts are identical). Otherwise returns False having written nothing, for the
        caller's exact checks to explain."""
        return self._run(tuple(inputs), tuple(outputs), True, in_place_ok)

    cdef bint _run(self, tuple inputs, tuple outputs, bint tentative,
                   bint in_place_ok) except -1:
        cdef Operands ops
        cdef Py_ssize_t i, first, second
        if len(inputs) != self.n_inputs or len(outputs) != self.n_outputs:
            raise CoreError("the plan takes %d inputs and %d outputs, got %d and %d" % (
                self.n_inputs, self.n_outputs, len(inputs), len(outputs)))
        operands_open(&ops, self.n_inputs + self.n_outputs)
        try:
            for i in range(ops.n):
                obj = inputs[i] if i < self.n_inputs else outputs[i - self.n_inputs]
                if not operands_acquire(&ops, obj, PyBUF_STRIDES if i < self.n_inputs
                                        else PyBUF_STRIDES | PyBUF_WRITABLE):
                    if tentative:
                        return False
                    if i >= self.n_inputs:
                        raise InvalidArgumentError("output %d is not a writable buffer" % (
                            i - self.n_inputs))
                    raise TypeError("input %d does not export a buffer" % i)
                strided_extent(&ops.buffers[i], &ops.lo[i], &ops.hi[i])
            if tentative and find_conflict(&ops, ops.hi, self.n_inputs, in_place_ok,
                                           &first, &second):
                return False
            self._run_bound(&ops)
            return True
        finally:
            operands_close(&ops)

    cdef int _run_bound(self, Operands *ops) except -1:
        """Runs every step on buffers already acquired, whose usable bytes are [lo, hi)."""
        cdef dmlcpu_status status
        if ops.n != self.n_inputs + self.n_outputs or ops.bound != ops.n:
            raise CoreError("a plan of %d slots was bound to %d buffers" % (
                self.n_inputs + self.n_outputs, ops.bound))
        self._check_extents(ops.lo, ops.hi)
        if self.work_bytes >= NOGIL_BYTES:
            with nogil:
                status = run_steps(self.steps, self.n_steps, ops.buffers)
        else:
            status = run_steps(self.steps, self.n_steps, ops.buffers)
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


cdef inline void bind_view(dmlcpu_view *view, const dmlcpu_view *planned,
                           Py_buffer *buffer) noexcept nogil:
    view[0] = planned[0]
    view.data = <char *>buffer.buf + <intptr_t>planned.data


cdef dmlcpu_status run_group(Step *group, Step *parts, Py_buffer *buffers) noexcept nogil:
    """The group's non-empty parts, bound to their buffers, in one dmlcpu_copy_group call."""
    cdef dmlcpu_view stack_views[2 * STACK_SLOTS]
    cdef dmlcpu_view *dsts = stack_views
    cdef dmlcpu_view *srcs
    cdef Py_ssize_t i, n = 0, capacity = STACK_SLOTS
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
        if step.kind == STEP_COPY:
            status = dmlcpu_copy_prepared(&step.copy, <char *>buffers[step.dst_slot].buf,
                                          <char *>buffers[step.src_slot].buf)
            if status != DMLCPU_OK:
                return status
            continue
        dst = step.dst
        src = step.src
        dst.data = <char *>buffers[step.dst_slot].buf + <intptr_t>dst.data
        src.data = <char *>buffers[step.src_slot].buf + <intptr_t>src.data
        if step.kind == STEP_TILE:
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


# Acquiring buffers and the overlap check, for Plan above and Binding below.
include "_operands.pxi"
# Descriptor buffers (dmlcpu._desc): binding checks in C, then the same _run_bound as above.
include "_binding.pxi"
# The eager API's remembered plans.
include "_eager.pxi"
# The eager API's seven functions: a call a remembered plan serves runs no Python frame.
include "_public.pxi"
# Runtime configuration: ISA dispatch and threads.
include "_runtime.pxi"
# One piece of a long scan with its running total carried in and out (dmlcpu.dask).
include "_carry.pxi"

include "_numpy_scan.pxi"
