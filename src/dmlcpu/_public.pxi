# Included by _core.pyx. The eager API's seven functions (docs/semantics.md), here rather than
# in dmlcpu._ops so that a call a remembered plan serves runs no Python frame: the keyword call
# lands in C, is keyed, looked up and run (_eager.pxi). Every other call goes to the full path
# that dmlcpu._ops registers at import (validate, plan, run, remember): the boundary knows that
# path only as a function it was given, never the module, so imports run one way (_ops -> _core).
from cpython.sequence cimport PySequence_Fast_ITEMS

from ._types import AxisDirection

cdef dict EAGER_CACHE = None    # the plans the full path remembers, by Key
cdef object FULL_PATH = None    # full_path(op, fields, inputs, outputs, feature_level)
cdef object AS_SEQUENCE = None  # as_sequence(values, field[, refused types]) -> tuple


def register_full_path(full_path, as_sequence, dict cache):
    """Called once by dmlcpu._ops: the full path every eager call falls back to, the
    conversion of any other sequence of arrays, and the plan cache both share."""
    global FULL_PATH, AS_SEQUENCE, EAGER_CACHE
    FULL_PATH, AS_SEQUENCE, EAGER_CACHE = full_path, as_sequence, cache


cdef object eager_call(str op, PyObject **fields, Py_ssize_t n_fields, PyObject **inputs,
                       Py_ssize_t n_inputs, tuple outputs, feature_level):
    """From a remembered plan when one serves the call (extended mode only), else the full
    path. The fields and inputs are the caller's arguments, borrowed: a tuple each would cost
    more than a tiny copy."""
    if feature_level is None:
        done = remembered_call(EAGER_CACHE, op, fields, n_fields, inputs, n_inputs, outputs)
        if done is not MISS:
            return done
    return FULL_PATH(op, tuple_of(fields, n_fields), tuple_of(inputs, n_inputs), outputs,
                     feature_level)


cdef object one_input(str op, input, Py_ssize_t n_fields, f0, f1, f2, f3, tuple outputs,
                      feature_level):
    """eager_call for the operators of one input and up to four fields."""
    cdef PyObject *fields[4]
    cdef PyObject *inputs[1]
    fields[0], fields[1], fields[2], fields[3] = (<PyObject *>f0, <PyObject *>f1, <PyObject *>f2,
                                                  <PyObject *>f3)
    inputs[0] = <PyObject *>input
    return eager_call(op, fields, n_fields, inputs, 1, outputs, feature_level)


cdef tuple sequence_of(values, str field, bint ndarray_ok):
    """A sequence of arrays as a tuple, read once; lists and tuples directly, anything else
    through the registered as_sequence (which refuses strings, and ndarrays unless
    ndarray_ok)."""
    if type(values) is list or type(values) is tuple:
        return tuple(values)
    if ndarray_ok:
        return AS_SEQUENCE(values, field, (str, bytes))
    return AS_SEQUENCE(values, field)


def split(input, *, axis, output_axis_sizes, outputs=None, feature_level=None):
    """SPLIT: cut ``input`` along ``axis`` into consecutive blocks of ``output_axis_sizes``.

    Returns the outputs (new C-contiguous arrays, or ``outputs`` filled in place).
    """
    # (an ndarray's rows may serve as the outputs, as they always could)
    return one_input("SPLIT", input, 2, axis, output_axis_sizes, None, None,
                     None if outputs is None else sequence_of(outputs, "outputs", True),
                     feature_level)


def join(inputs, *, axis, out=None, feature_level=None):
    """JOIN: concatenate ``inputs`` along ``axis`` in order.

    ``inputs``: an ordered sequence of arrays (a list, a tuple, any iterable with an order of
    its own); sets, mappings and their key or item views are refused (TypeError), since their
    order would decide the result's.
    """
    cdef PyObject *fields[1]
    fields[0] = <PyObject *>axis
    inputs = sequence_of(inputs, "inputs", False)
    return eager_call("JOIN", fields, 1, PySequence_Fast_ITEMS(inputs), len(inputs),
                      None if out is None else (out,), feature_level)


def slice(input, *, offsets, sizes, strides=None, out=None, feature_level=None):
    """SLICE: ``Output[c] = Input[offsets + strides * c]`` with output shape ``sizes``."""
    return one_input("SLICE", input, 3, offsets, sizes, strides, None,
                     None if out is None else (out,), feature_level)


def slice1(input, *, input_window_offsets, input_window_sizes, input_window_strides=None,
           output_sizes=None, out=None, feature_level=None):
    """SLICE1: a window with signed strides; negative strides walk it backwards.

    ``output_sizes`` None takes the most elements the window yields (or ``out``'s shape).
    """
    return one_input("SLICE1", input, 4, input_window_offsets, input_window_sizes,
                     input_window_strides, output_sizes, None if out is None else (out,),
                     feature_level)


def tile(input, *, repeats, out=None, feature_level=None):
    """TILE: ``Output[c] = Input[c mod InputSizes]``, output sizes = input sizes * repeats."""
    return one_input("TILE", input, 1, repeats, None, None, None,
                     None if out is None else (out,), feature_level)


cdef object cumulative(str op, input, axis, axis_direction, exclusive, out, feature_level):
    # an enum member and a bool key as the ints they stand for (read once: type checks only)
    if type(axis_direction) is AxisDirection:
        axis_direction = int(axis_direction)
    if type(exclusive) is bool:
        exclusive = int(exclusive)
    return one_input(op, input, 3, axis, axis_direction, exclusive, None,
                     None if out is None else (out,), feature_level)


def cumulative_summation(input, *, axis, axis_direction=AxisDirection.INCREASING,
                         has_exclusive_sum=False, out=None, feature_level=None):
    """CUMULATIVE_SUMMATION: running sums along ``axis`` (docs/semantics.md arithmetic).

    ``out`` may be ``input`` itself (in place).
    """
    return cumulative("CUMULATIVE_SUMMATION", input, axis, axis_direction, has_exclusive_sum,
                      out, feature_level)


def cumulative_product(input, *, axis, axis_direction=AxisDirection.INCREASING,
                       has_exclusive_product=False, out=None, feature_level=None):
    """CUMULATIVE_PRODUCT: running products along ``axis`` (docs/semantics.md arithmetic).

    ``out`` may be ``input`` itself (in place).
    """
    return cumulative("CUMULATIVE_PRODUCT", input, axis, axis_direction,
                      has_exclusive_product, out, feature_level)
