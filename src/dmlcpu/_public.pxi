# Included by _core.pyx. The eager API's seven functions (docs/semantics.md), here rather than
# in dmlcpu._ops so that a call a remembered plan serves runs no Python frame: the keyword call
# lands in C, is keyed, looked up and run (_eager.pxi). Every other call goes to _ops._full,
# which validates, plans, runs and remembers; _ops installs itself here at import.
from ._types import AxisDirection

cdef dict EAGER_CACHE = None   # _ops._CACHE: remembered plans by Key
cdef object OPS = None         # the dmlcpu._ops module: _full, _SPECS, _sequence


def _install_eager(ops, dict cache):
    """Called once by dmlcpu._ops: the full path and the plan cache every eager call uses."""
    global OPS, EAGER_CACHE
    OPS, EAGER_CACHE = ops, cache


cdef object eager_call(str op, tuple fields, tuple inputs, tuple outputs, feature_level):
    """From a remembered plan when one serves the call (extended mode only), else the full
    path (looked up on the module each time, so tests can replace it)."""
    if feature_level is None:
        done = remembered_call(EAGER_CACHE, op, fields, inputs, outputs)
        if done is not MISS:
            return done
    return OPS._full(op, fields, inputs, outputs, feature_level, OPS._SPECS[op])


cdef tuple sequence_of(values, str field, bint ndarray_ok):
    """A sequence of arrays as a tuple, read once; lists and tuples directly, anything else
    through _ops._sequence (which refuses strings, and ndarrays unless ndarray_ok)."""
    if type(values) is list or type(values) is tuple:
        return tuple(values)
    if ndarray_ok:
        return OPS._sequence(values, field, (str, bytes))
    return OPS._sequence(values, field)


def split(input, *, axis, output_axis_sizes, outputs=None, feature_level=None):
    """SPLIT: cut ``input`` along ``axis`` into consecutive blocks of ``output_axis_sizes``.

    Returns the outputs (new C-contiguous arrays, or ``outputs`` filled in place).
    """
    # (an ndarray's rows may serve as the outputs, as they always could)
    return eager_call("SPLIT", (axis, output_axis_sizes), (input,),
                      None if outputs is None else sequence_of(outputs, "outputs", True),
                      feature_level)


def join(inputs, *, axis, out=None, feature_level=None):
    """JOIN: concatenate ``inputs`` along ``axis`` in order."""
    return eager_call("JOIN", (axis,), sequence_of(inputs, "inputs", False),
                      None if out is None else (out,), feature_level)


def slice(input, *, offsets, sizes, strides=None, out=None, feature_level=None):
    """SLICE: ``Output[c] = Input[offsets + strides * c]`` with output shape ``sizes``."""
    return eager_call("SLICE", (offsets, sizes, strides), (input,),
                      None if out is None else (out,), feature_level)


def slice1(input, *, input_window_offsets, input_window_sizes, input_window_strides=None,
           output_sizes=None, out=None, feature_level=None):
    """SLICE1: a window with signed strides; negative strides walk it backwards.

    ``output_sizes`` None takes the most elements the window yields (or ``out``'s shape).
    """
    return eager_call("SLICE1", (input_window_offsets, input_window_sizes,
                                 input_window_strides, output_sizes),
                      (input,), None if out is None else (out,), feature_level)


def tile(input, *, repeats, out=None, feature_level=None):
    """TILE: ``Output[c] = Input[c mod InputSizes]``, output sizes = input sizes * repeats."""
    return eager_call("TILE", (repeats,), (input,), None if out is None else (out,),
                      feature_level)


cdef object cumulative(str op, input, axis, axis_direction, exclusive, out, feature_level):
    # an enum member and a bool key as the ints they stand for (read once: type checks only)
    if type(axis_direction) is AxisDirection:
        axis_direction = int(axis_direction)
    if type(exclusive) is bool:
        exclusive = int(exclusive)
    return eager_call(op, (axis, axis_direction, exclusive), (input,),
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
