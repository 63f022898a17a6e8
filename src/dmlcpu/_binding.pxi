# Included by _core.pyx. Binding raw buffers to a compiled descriptor's Plan (dmlcpu._desc).
#
# A compiled operator has already checked every DirectML rule; binding adds only what the
# buffers bring: each one's byte length against its TensorDesc's TotalTensorSizeInBytes,
# writable outputs, and no overlap between an output and any other bound range (except the one
# identical in-place binding the cumulative operators allow). Each buffer is acquired once, as
# one contiguous byte range, and every check happens before the first byte is written.
from cpython.ref cimport PyObject

cdef extern from "Python.h":
    int generic_setattr "PyObject_GenericSetAttr"(object obj, object name,
                                                  PyObject *value) except -1

INT64_MAX_PY = 2**63 - 1
IMMUTABLE = ("a CompiledOperator is immutable once compiled; compile_operator builds a new one "
             "for another descriptor")


cdef class BoundPlan:
    """What one compiled operator runs: set once, read once by each execute, which holds it."""
    cdef readonly Plan plan
    cdef int64_t *required       # per slot: the least byte length a bound buffer may have
    cdef bint in_place           # slot 0 (input) and the first output may share their start
    cdef readonly object op_name
    cdef readonly tuple slot_names
    cdef readonly tuple declared_sizes  # the TotalTensorSizeInBytes values, for messages

    def __dealloc__(self):
        free(self.required)


cdef class Binding:
    """Runs a Plan on raw buffers after the binding checks; dmlcpu._desc.CompiledOperator's base.

    Immutable once bound: a second ``_bind_plan``, a re-run ``__init__`` or setting an attribute
    raises AttributeError, so a call running without the GIL never sees its plan change."""
    cdef BoundPlan _bound

    def __setattr__(self, name, value):
        if self._bound is not None:
            raise AttributeError(IMMUTABLE)
        generic_setattr(self, name, <PyObject *>value)

    def __delattr__(self, name):
        if self._bound is not None:
            raise AttributeError(IMMUTABLE)
        generic_setattr(self, name, NULL)

    def _bind_plan(self, Plan plan, required_sizes, slot_names, op_name, bint in_place):
        """Set once by CompiledOperator: the plan, per-slot byte sizes and names for messages."""
        cdef Py_ssize_t i, n = plan.n_inputs + plan.n_outputs
        cdef BoundPlan bound = BoundPlan.__new__(BoundPlan)
        if self._bound is not None:
            raise AttributeError(IMMUTABLE)
        required_sizes, slot_names = tuple(required_sizes), tuple(slot_names)
        if len(required_sizes) != n or len(slot_names) != n:
            raise CoreError("a binding needs one size and one name per slot")
        bound.required = <int64_t *>calloc(n if n else 1, sizeof(int64_t))
        if bound.required == NULL:
            raise MemoryError()
        for i in range(n):
            # A size no buffer can reach (up to 2^64 - 1) stays unreachable once clamped.
            bound.required[i] = min(required_sizes[i], INT64_MAX_PY)
        bound.plan = plan
        bound.declared_sizes = required_sizes
        bound.slot_names = slot_names
        bound.op_name = op_name
        bound.in_place = in_place and plan.n_inputs == 1 and plan.n_outputs == 1
        self._bound = bound

    def execute(self, inputs, outputs):
        """Runs the operator: inputs and outputs are sequences of buffers, one per TensorDesc.

        Each buffer holds the tensor's bytes as its TensorDesc lays them out (any contiguous
        buffer: bytes, bytearray, memoryview, mmap, a C-contiguous NumPy array as raw bytes).
        Raises InvalidArgumentError (nothing written) for a wrong count, a buffer shorter than
        its TotalTensorSizeInBytes, a read-only output or overlapping bindings; TypeError for an
        object that is not a buffer.
        """
        cdef BoundPlan bound = self._bound      # read once, and held until the run returns
        cdef Plan plan
        cdef Operands ops
        cdef Py_ssize_t n_in, i, first, second
        if bound is None:
            raise TypeError("this CompiledOperator was not built by dmlcpu.compile_operator, "
                            "so it has no plan to run")
        plan = bound.plan
        n_in = plan.n_inputs
        inputs, outputs = tuple(inputs), tuple(outputs)  # each sequence read once
        if len(inputs) != n_in or len(outputs) != plan.n_outputs:
            raise InvalidArgumentError(
                "%s: execute takes %d input buffer(s) and %d output buffer(s), got %d and %d"
                % (bound.op_name, n_in, plan.n_outputs, len(inputs), len(outputs)))
        operands_open(&ops, n_in + plan.n_outputs)
        try:
            for i in range(ops.n):
                obj = inputs[i] if i < n_in else outputs[i - n_in]
                if not operands_acquire(&ops, obj, PyBUF_SIMPLE if i < n_in else PyBUF_WRITABLE):
                    binding_error(bound, i, obj)
                if ops.buffers[i].len < bound.required[i]:
                    raise InvalidArgumentError(
                        "%s: the buffer bound to %s holds %d bytes but must hold at least its "
                        "TotalTensorSizeInBytes (%d)" % (bound.op_name, bound.slot_names[i],
                                                         ops.buffers[i].len,
                                                         bound.declared_sizes[i]))
                ops.lo[i] = 0
                ops.hi[i] = ops.buffers[i].len
            # The tensors' declared bytes, not whole buffers: a buffer may hold more than that.
            if find_conflict(&ops, bound.required, n_in, bound.in_place, &first, &second):
                overlap_error(bound, first, second)
            plan._run_bound(&ops)
        finally:
            operands_close(&ops)


cdef int binding_error(BoundPlan bound, Py_ssize_t slot, obj) except -1:
    """The slow path: why obj could not be acquired as this slot's buffer."""
    name, op_name = bound.slot_names[slot], bound.op_name
    if not PyObject_CheckBuffer(obj):
        raise TypeError("%s: %s must be a buffer (bytes, bytearray, memoryview, mmap, a NumPy "
                        "array...), not %s" % (op_name, name, type(obj).__name__))
    try:
        view = memoryview(obj)
    except BufferError as error:
        raise InvalidArgumentError("%s: the buffer bound to %s cannot be read: %s"
                                   % (op_name, name, error)) from None
    except ValueError as error:  # a released memoryview, a closed mmap
        raise TypeError("%s: %s is not a usable buffer: %s" % (op_name, name, error)) from None
    with view:
        if slot >= bound.plan.n_inputs and view.readonly:
            raise InvalidArgumentError("%s: the buffer bound to %s is read-only but must be "
                                       "writable" % (op_name, name))
        if not view.c_contiguous:
            raise InvalidArgumentError("%s: the buffer bound to %s is not contiguous but must "
                                       "be one range of bytes" % (op_name, name))
    raise InvalidArgumentError("%s: the buffer bound to %s cannot be bound as one range of "
                               "bytes" % (op_name, name))


cdef int overlap_error(BoundPlan bound, Py_ssize_t a, Py_ssize_t b) except -1:
    cdef Py_ssize_t n_in = bound.plan.n_inputs
    first, second = bound.slot_names[a], bound.slot_names[b]
    if a >= n_in:
        rule = "outputs must not overlap each other"
    elif bound.in_place and a == 0 and b == n_in:
        rule = ("an output must not overlap an input except in place (the same start address "
                "with an identical TensorDesc)")
    else:
        rule = "an output must not overlap an input"
    raise InvalidArgumentError("%s: the buffer bound to %s overlaps the buffer bound to %s in "
                               "memory; %s" % (bound.op_name, second, first, rule))
