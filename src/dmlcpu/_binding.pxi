# Included by _core.pyx. Binding raw buffers to a compiled descriptor's Plan (dmlcpu._desc).
#
# A compiled operator has already checked every DirectML rule; binding adds only what the
# buffers bring: each one's byte length against its TensorDesc's TotalTensorSizeInBytes,
# writable outputs, and no overlap between an output and any other bound range (except the one
# identical in-place binding the cumulative operators allow). Each buffer is acquired once, as
# one contiguous byte range, and every check happens before the first byte is written.
from cpython.buffer cimport PyBUF_SIMPLE, PyObject_CheckBuffer
from cpython.exc cimport PyErr_Clear
from libc.stdint cimport uintptr_t
from libc.stdlib cimport malloc, qsort

cdef extern from "Python.h":
    # Declared without an exception clause: a failure comes back as -1 and is explained by
    # binding_error() on the slow path, so the fast path pays for no exception handling.
    int get_buffer_noexc "PyObject_GetBuffer"(object obj, Py_buffer *view, int flags)

cdef enum:
    # Slots kept on the C stack; more (a JOIN of many inputs) use the heap.
    STACK_SLOTS = 16
    # Up to this many slots, overlaps are checked pairwise; beyond, by sorting the ranges.
    PAIRWISE_SLOTS = 16


INT64_MAX_PY = 2**63 - 1


cdef struct Range:
    uintptr_t lo
    uintptr_t hi
    Py_ssize_t slot


cdef int compare_ranges(const void *a, const void *b) noexcept nogil:
    cdef const Range *x = <const Range *>a
    cdef const Range *y = <const Range *>b
    if x.lo != y.lo:
        return -1 if x.lo < y.lo else 1
    return -1 if x.slot < y.slot else (1 if x.slot > y.slot else 0)


cdef class Binding:
    """Runs a Plan on raw buffers after the binding checks; dmlcpu._desc.CompiledOperator's base."""
    cdef Plan _plan
    cdef Py_ssize_t _n_inputs, _n_outputs
    cdef int64_t *_required      # per slot: the least byte length a bound buffer may have
    cdef bint _in_place          # slot 0 (input) and the first output may share their start
    cdef object _op_name
    cdef object _slot_names
    cdef object _declared_sizes  # the TotalTensorSizeInBytes values, for messages

    def __dealloc__(self):
        free(self._required)

    def _bind_plan(self, Plan plan, required_sizes, slot_names, op_name, bint in_place):
        """Set once by CompiledOperator: the plan, per-slot byte sizes and names for messages."""
        cdef Py_ssize_t i, n = plan.n_inputs + plan.n_outputs
        if len(required_sizes) != n or len(slot_names) != n:
            raise CoreError("a binding needs one size and one name per slot")
        free(self._required)
        self._required = <int64_t *>calloc(n if n else 1, sizeof(int64_t))
        if self._required == NULL:
            raise MemoryError()
        for i in range(n):
            # A size no buffer can reach (up to 2^64 - 1) stays unreachable once clamped.
            self._required[i] = min(required_sizes[i], INT64_MAX_PY)
        self._declared_sizes = tuple(required_sizes)
        self._plan = plan
        self._n_inputs = plan.n_inputs
        self._n_outputs = plan.n_outputs
        self._slot_names = tuple(slot_names)
        self._op_name = op_name
        self._in_place = in_place and plan.n_inputs >= 1 and plan.n_outputs >= 1

    def execute(self, inputs, outputs):
        """Runs the operator: inputs and outputs are sequences of buffers, one per TensorDesc.

        Each buffer holds the tensor's bytes as its TensorDesc lays them out (any contiguous
        buffer: bytes, bytearray, memoryview, mmap, a C-contiguous NumPy array as raw bytes).
        Raises InvalidArgumentError (nothing written) for a wrong count, a buffer shorter than
        its TotalTensorSizeInBytes, a read-only output or overlapping bindings; TypeError for an
        object that is not a buffer.
        """
        cdef Py_ssize_t n_in = self._n_inputs, n_slots, i, acquired = 0
        cdef Py_buffer stack_buffers[STACK_SLOTS]
        cdef int64_t stack_bounds[2 * STACK_SLOTS]
        cdef Py_buffer *buffers = stack_buffers
        cdef int64_t *lo = stack_bounds
        cdef int64_t *hi
        cdef int flags
        if self._plan is None:
            raise CoreError("this operator was not compiled by dmlcpu.compile_operator")
        if len(inputs) != n_in or len(outputs) != self._n_outputs:
            raise InvalidArgumentError(
                "%s: execute takes %d input buffer(s) and %d output buffer(s), got %d and %d"
                % (self._op_name, n_in, self._n_outputs, len(inputs), len(outputs)))
        n_slots = n_in + self._n_outputs
        if n_slots > STACK_SLOTS:
            buffers = <Py_buffer *>malloc(n_slots * sizeof(Py_buffer))
            lo = <int64_t *>malloc(2 * n_slots * sizeof(int64_t))
            if buffers == NULL or lo == NULL:
                free(buffers)
                free(lo)
                raise MemoryError()
        hi = lo + n_slots
        try:
            for i in range(n_slots):
                if i < n_in:
                    obj = inputs[i]
                    flags = PyBUF_SIMPLE
                else:
                    obj = outputs[i - n_in]
                    flags = PyBUF_WRITABLE
                if get_buffer_noexc(obj, &buffers[i], flags) != 0:
                    PyErr_Clear()
                    self._binding_error(i, obj)
                acquired += 1
                if buffers[i].len < self._required[i]:
                    raise InvalidArgumentError(
                        "%s: the buffer bound to %s holds %d bytes but must hold at least its "
                        "TotalTensorSizeInBytes (%d)" % (self._op_name, self._slot_names[i],
                                                         buffers[i].len,
                                                         self._declared_sizes[i]))
                lo[i] = 0
                hi[i] = buffers[i].len
            if n_slots <= PAIRWISE_SLOTS:
                self._check_overlap_pairwise(buffers, n_slots)
            else:
                self._check_overlap_sorted(buffers, n_slots)
            self._plan._run_bound(buffers, lo, hi)
        finally:
            for i in range(acquired):
                PyBuffer_Release(&buffers[i])
            if buffers != stack_buffers:
                free(buffers)
                free(lo)

    cdef int _binding_error(self, Py_ssize_t slot, obj) except -1:
        """The slow path: why obj could not be acquired as this slot's buffer."""
        name = self._slot_names[slot]
        if not PyObject_CheckBuffer(obj):
            raise TypeError("%s: %s must be a buffer (bytes, bytearray, memoryview, mmap, a NumPy "
                            "array...), not %s" % (self._op_name, name, type(obj).__name__))
        try:
            view = memoryview(obj)
        except BufferError as error:
            raise InvalidArgumentError("%s: the buffer bound to %s cannot be read: %s"
                                       % (self._op_name, name, error)) from None
        with view:
            if slot >= self._n_inputs and view.readonly:
                raise InvalidArgumentError("%s: the buffer bound to %s is read-only but must be "
                                           "writable" % (self._op_name, name))
            if not view.c_contiguous:
                raise InvalidArgumentError("%s: the buffer bound to %s is not contiguous but must "
                                           "be one range of bytes" % (self._op_name, name))
        raise InvalidArgumentError("%s: the buffer bound to %s cannot be bound as one range of "
                                   "bytes" % (self._op_name, name))

    cdef inline uintptr_t _start(self, Py_buffer *buffers, Py_ssize_t slot) noexcept:
        return <uintptr_t>buffers[slot].buf

    cdef inline uintptr_t _end(self, Py_buffer *buffers, Py_ssize_t slot) noexcept:
        # The tensor's declared bytes, not the whole buffer: a buffer may hold more than that.
        return <uintptr_t>buffers[slot].buf + <uintptr_t>self._required[slot]

    cdef inline bint _may_share(self, Py_buffer *buffers, Py_ssize_t a, Py_ssize_t b) noexcept:
        """True if slots a < b conflict: they overlap, at least one is an output, and they are
        not the allowed in-place pair (the first input and first output at one start address)."""
        cdef Py_ssize_t n_in = self._n_inputs
        if a < n_in and b < n_in:
            return False         # inputs are only read: they may share memory freely
        if (self._start(buffers, a) >= self._end(buffers, b) or
                self._start(buffers, b) >= self._end(buffers, a)):
            return False
        if (self._in_place and a == 0 and b == n_in and
                buffers[a].buf == buffers[b].buf):
            return False
        return True

    cdef int _check_overlap_pairwise(self, Py_buffer *buffers, Py_ssize_t n_slots) except -1:
        cdef Py_ssize_t a, b
        for b in range(self._n_inputs, n_slots):
            for a in range(b):
                if self._may_share(buffers, a, b):
                    self._overlap_error(a, b)
        return 0

    cdef int _check_overlap_sorted(self, Py_buffer *buffers, Py_ssize_t n_slots) except -1:
        """Sort the ranges by start; a conflict shows against the earlier range reaching furthest
        (among all slots for an output, among outputs for an input). No in-place pair here:
        only one-input, one-output operators allow it, and they never take this path."""
        cdef Range *ranges = <Range *>malloc(n_slots * sizeof(Range))
        cdef Py_ssize_t i, far_any = -1, far_out = -1, slot
        if ranges == NULL:
            raise MemoryError()
        try:
            for i in range(n_slots):
                ranges[i].lo = self._start(buffers, i)
                ranges[i].hi = self._end(buffers, i)
                ranges[i].slot = i
            qsort(ranges, n_slots, sizeof(Range), compare_ranges)
            for i in range(n_slots):
                slot = ranges[i].slot
                if slot >= self._n_inputs:
                    if far_any >= 0 and ranges[far_any].hi > ranges[i].lo:
                        self._overlap_error(ranges[far_any].slot, slot)
                elif far_out >= 0 and ranges[far_out].hi > ranges[i].lo:
                    self._overlap_error(ranges[far_out].slot, slot)
                if far_any < 0 or ranges[i].hi > ranges[far_any].hi:
                    far_any = i
                if slot >= self._n_inputs and (far_out < 0 or ranges[i].hi > ranges[far_out].hi):
                    far_out = i
        finally:
            free(ranges)
        return 0

    cdef int _overlap_error(self, Py_ssize_t a, Py_ssize_t b) except -1:
        if a > b:
            a, b = b, a
        first, second = self._slot_names[a], self._slot_names[b]
        if a >= self._n_inputs:
            rule = "outputs must not overlap each other"
        elif self._in_place and a == 0 and b == self._n_inputs:
            rule = ("an output must not overlap an input except in place (the same start address "
                    "with an identical TensorDesc)")
        else:
            rule = "an output must not overlap an input"
        raise InvalidArgumentError("%s: the buffer bound to %s overlaps the buffer bound to %s in "
                                   "memory; %s" % (self._op_name, second, first, rule))
