"""The eager API (SPEC.md section 5): arrays in, validated, planned, run, arrays out.

Each function: read the arguments, validate every DirectML rule (nothing is written before this
passes), refuse overlapping outputs, allocate missing outputs, plan and run. Axes and the other
fields are DirectML's: axes are in [0, DimensionCount - 1] (no negative axes), UINT fields are
never negative.

Validation and planning depend only on the arguments' data types, shapes, strides and fields, so
an extended-mode call remembers its plan under exactly those: the next call with the same
signature skips straight to running. Only exact ints (not bools, not floats that compare equal)
and exact ndarrays make a key, so a remembered plan is only ever reused for a call the validator
would accept the same way. What a signature cannot tell, where the caller's outputs lie in
memory, is checked on every call: ``Plan.try_run`` refuses outputs whose bytes meet another
operand's, and the call then takes the full path, whose exact overlap check decides.
"""
import numpy as np

from . import _plan
from ._arrays import (as_array, as_output_array, check_no_overlap, data_type_of, layout_of)
from ._errors import InvalidArgumentError
from ._types import AxisDirection
from ._validate import (Tensor, as_bool, as_int, as_int_list, parse_feature_level,
                        show, slice1_max_output_size, validate_cumulative, validate_join,
                        validate_slice, validate_slice1, validate_split, validate_tile)


_NDARRAY = np.ndarray
_CACHE = {}
_CACHE_LIMIT = 512


def _plan_key(op, arrays, params):
    """A key for a call's plan, or None when an argument is not an exact ndarray or int."""
    key = [op]
    for value in params:
        kind = type(value)
        if kind is list or kind is tuple:
            for item in value:
                if type(item) is not int:
                    return None
            value = tuple(value)
        elif value is not None and kind is not int:
            return None
        key.append(value)
    for array in arrays:
        if type(array) is not _NDARRAY:
            return None
        key += (array.dtype, array.shape, array.strides)
    return tuple(key)


class _Remembered:
    """A validated plan, and the shapes and dtype of the new C-contiguous arrays it fills."""

    __slots__ = ("plan", "shapes", "dtype", "many", "in_place_ok")

    def __init__(self, plan, outputs, many, in_place_ok):
        self.plan = plan
        self.shapes = [o.shape for o in outputs]
        self.dtype = outputs[0].dtype
        self.many = many
        self.in_place_ok = in_place_ok

    def run(self, inputs):
        outputs = [np.empty(shape, self.dtype) for shape in self.shapes]
        self.plan.run(inputs, outputs)
        return outputs if self.many else outputs[0]

    def run_into(self, inputs, outputs):
        """True if it ran into the caller's outputs; False (nothing written) if they may overlap."""
        return self.plan.try_run(inputs, outputs, self.in_place_ok)


def _remember(key, plan, outputs, many=False, in_place_ok=False):
    if key is not None:
        if len(_CACHE) >= _CACHE_LIMIT:
            _CACHE.clear()
        _CACHE[key] = _Remembered(plan, outputs, many, in_place_ok)


def _as_flag(value):
    """BOOL fields as 0/1 for keys: True and 1 mean the same to the validator."""
    return int(value) if type(value) is bool else value


def _input(obj, op, field, level):
    array = as_array(obj, field)
    return array, Tensor(data_type_of(array, op, field, level), array.shape)


def _outputs(objs, op, field, level):
    arrays = [as_output_array(obj, f"{field}[{k}]") for k, obj in enumerate(objs)]
    return arrays, [Tensor(data_type_of(a, op, f"{field}[{k}]", level), a.shape)
                    for k, a in enumerate(arrays)]


def _single_output(out, shape, source, op, level):
    """The caller's ``out`` with its description, or (None, the description of a new array)."""
    if out is None:
        return None, Tensor(source.data_type, tuple(shape))
    array = as_output_array(out, "OutputTensor")
    return array, Tensor(data_type_of(array, op, "OutputTensor", level), array.shape)


def split(input, *, axis, output_axis_sizes, outputs=None, feature_level=None):
    """SPLIT: cut ``input`` along ``axis`` into consecutive blocks of ``output_axis_sizes``.

    Returns the outputs (new C-contiguous arrays, or ``outputs`` filled in place).
    """
    op = "SPLIT"
    key = None
    if outputs is None or type(outputs) in (list, tuple):
        key, done = _remembered(op, (input,), outputs, feature_level, (axis, output_axis_sizes))
        if done is not None:
            return done
    level = parse_feature_level(feature_level)
    x, tx = _input(input, op, "InputTensor", level)
    axis = as_int(axis, "Axis")
    axis_sizes = as_int_list(output_axis_sizes, "output_axis_sizes")
    if outputs is None:
        # with an invalid axis the outputs take the input's shape; validation reports the axis
        shapes = [x.shape[:axis] + (n,) + x.shape[axis + 1:] if 0 <= axis < x.ndim else x.shape
                  for n in axis_sizes]
        out_arrays, touts = None, [Tensor(tx.data_type, s) for s in shapes]
    else:
        out_arrays, touts = _outputs(outputs, op, "OutputTensors", level)
        if len(axis_sizes) != len(out_arrays):
            raise InvalidArgumentError(f"{op}: output_axis_sizes has {len(axis_sizes)} entries "
                                       f"but outputs has {len(out_arrays)}")
    validate_split(tx, touts, axis, level, allow_empty=level is None)
    if out_arrays is not None:
        for k, (n, t) in enumerate(zip(axis_sizes, touts)):
            if t.sizes[axis] != n:
                raise InvalidArgumentError(f"{op}: OutputTensors[{k}].Sizes[{axis}] is "
                                           f"{t.sizes[axis]} but must equal "
                                           f"output_axis_sizes[{k}] ({show(n)})")
        check_no_overlap(op, out_arrays, [x], "OutputTensors", "InputTensor")
    else:
        out_arrays = [np.empty(t.sizes, dtype=x.dtype) for t in touts]
    plan = _plan.plan_split(layout_of(x, 0), [layout_of(o, k + 1) for k, o in
                                                 enumerate(out_arrays)], axis, x.itemsize)
    plan.run([x], out_arrays)
    _remember(key, plan, out_arrays, many=True)
    return out_arrays if outputs is None else list(outputs)


def join(inputs, *, axis, out=None, feature_level=None):
    """JOIN: concatenate ``inputs`` along ``axis`` in order."""
    op = "JOIN"
    key = None
    if type(inputs) in (list, tuple):
        key, done = _remembered(op, inputs, _one(out), feature_level, (axis,))
        if done is not None:
            return done
    level = parse_feature_level(feature_level)
    if isinstance(inputs, (np.ndarray, str, bytes)) or not hasattr(inputs, "__len__"):
        raise TypeError("inputs must be a sequence of arrays")
    arrays, tins = [], []
    for k, obj in enumerate(inputs):
        array, tensor = _input(obj, op, f"InputTensors[{k}]", level)
        arrays.append(array)
        tins.append(tensor)
    axis = as_int(axis, "Axis")
    shape = list(tins[0].sizes) if tins else []
    if 0 <= axis < len(shape):
        shape[axis] = sum(t.sizes[axis] if axis < len(t.sizes) else 0 for t in tins)
    reference = tins[0] if tins else Tensor(None, ())
    out_array, tout = _single_output(out, shape, reference, op, level)
    validate_join(tins, tout, axis, level, allow_empty=level is None)
    if out_array is None:
        out_array = np.empty(tout.sizes, dtype=arrays[0].dtype)
    else:
        check_no_overlap(op, [out_array], arrays, "OutputTensor", "InputTensors")
    n = len(arrays)
    plan = _plan.plan_join([layout_of(a, k) for k, a in enumerate(arrays)],
                           layout_of(out_array, n), axis, out_array.itemsize)
    plan.run(arrays, [out_array])
    _remember(key, plan, [out_array])
    return out_array if out is None else out


def _one(out):
    return None if out is None else (out,)


def _remembered(op, inputs, outputs, feature_level, params):
    """(key, result): result is not None when a remembered plan ran, into new arrays (outputs
    None) or into the caller's outputs when they cannot overlap another operand."""
    if feature_level is not None:
        return None, None
    if outputs is None:
        key = _plan_key(op, inputs, params)
        remembered = _CACHE.get(key)
        return key, None if remembered is None else remembered.run(inputs)
    key = _plan_key(op + " into", (*inputs, *outputs), params)
    remembered = _CACHE.get(key)
    if remembered is not None and remembered.run_into(inputs, outputs):
        return key, list(outputs) if remembered.many else outputs[0]
    return key, None


def _run_single(op, key, x, out_array, tensor, plan_for, in_place_ok=False):
    """Allocates or checks the one output, then runs the plan ``plan_for(x_layout, out_layout)``."""
    if out_array is None:
        out_array = np.empty(tensor.sizes, dtype=x.dtype)
    else:
        check_no_overlap(op, [out_array], [x], "OutputTensor", "InputTensor", in_place_ok)
    plan = plan_for(layout_of(x, 0), layout_of(out_array, 1))
    plan.run([x], [out_array])
    _remember(key, plan, [out_array], in_place_ok=in_place_ok)
    return out_array


def slice(input, *, offsets, sizes, strides=None, out=None, feature_level=None):
    """SLICE: ``Output[c] = Input[offsets + strides * c]`` with output shape ``sizes``."""
    op = "SLICE"
    key, done = _remembered(op, (input,), _one(out), feature_level, (offsets, sizes, strides))
    if done is not None:
        return done
    level = parse_feature_level(feature_level)
    x, tx = _input(input, op, "InputTensor", level)
    offsets = as_int_list(offsets, "Offsets")
    sizes = as_int_list(sizes, "Sizes")
    strides = (1,) * len(sizes) if strides is None else as_int_list(strides, "Strides")
    out_array, tout = _single_output(out, sizes, tx, op, level)
    validate_slice(tx, tout, offsets, sizes, strides, level, allow_empty=level is None)
    result = _run_single(op, key, x, out_array, tout, lambda src, dst: _plan.plan_window(
        src, dst, offsets, strides, x.itemsize))
    return result if out is None else out


def slice1(input, *, input_window_offsets, input_window_sizes, input_window_strides=None,
           output_sizes=None, out=None, feature_level=None):
    """SLICE1: a window with signed strides; negative strides walk it backwards.

    ``output_sizes`` None takes the most elements the window yields (or ``out``'s shape).
    """
    op = "SLICE1"
    key, done = _remembered(op, (input,), _one(out), feature_level, (
        input_window_offsets, input_window_sizes, input_window_strides, output_sizes))
    if done is not None:
        return done
    level = parse_feature_level(feature_level)
    x, tx = _input(input, op, "InputTensor", level)
    offsets = as_int_list(input_window_offsets, "InputWindowOffsets")
    window = as_int_list(input_window_sizes, "InputWindowSizes")
    steps = ((1,) * len(window) if input_window_strides is None
             else as_int_list(input_window_strides, "InputWindowStrides"))
    if output_sizes is not None:
        output_sizes = as_int_list(output_sizes, "output_sizes")
    elif out is None:
        output_sizes = tuple(slice1_max_output_size(size, step) if step else 0
                             for size, step in zip(window, steps))
    out_array, tout = _single_output(out, output_sizes, tx, op, level)
    if out_array is not None and output_sizes is not None and tout.sizes != output_sizes:
        raise InvalidArgumentError(f"{op}: OutputTensor.Sizes is {list(tout.sizes)} but must "
                                   f"equal output_sizes ({show(output_sizes)})")
    validate_slice1(tx, tout, offsets, window, steps, level, allow_empty=level is None)
    starts = _plan.slice1_starts(offsets, window, steps)
    result = _run_single(op, key, x, out_array, tout, lambda src, dst: _plan.plan_window(
        src, dst, starts, steps, x.itemsize))
    return result if out is None else out


def tile(input, *, repeats, out=None, feature_level=None):
    """TILE: ``Output[c] = Input[c mod InputSizes]``, output sizes = input sizes * repeats."""
    op = "TILE"
    key, done = _remembered(op, (input,), _one(out), feature_level, (repeats,))
    if done is not None:
        return done
    level = parse_feature_level(feature_level)
    x, tx = _input(input, op, "InputTensor", level)
    repeats = as_int_list(repeats, "Repeats")
    shape = tuple(s * r for s, r in zip(x.shape, repeats)) if len(repeats) == x.ndim else x.shape
    out_array, tout = _single_output(out, shape, tx, op, level)
    validate_tile(tx, tout, repeats, level, allow_empty=level is None)
    result = _run_single(op, key, x, out_array, tout, lambda src, dst: _plan.plan_tile(
        src, dst, x.itemsize))
    return result if out is None else out


def _cumulative(op, input, axis, axis_direction, exclusive, exclusive_field, out, feature_level):
    direction = int(axis_direction) if type(axis_direction) is AxisDirection else axis_direction
    key, done = _remembered(op, (input,), _one(out), feature_level,
                            (axis, direction, _as_flag(exclusive)))
    if done is not None:
        return done
    level = parse_feature_level(feature_level)
    x, tx = _input(input, op, "InputTensor", level)
    axis = as_int(axis, "Axis")
    direction = as_int(axis_direction, "AxisDirection")
    exclusive = as_bool(exclusive, exclusive_field)
    out_array, tout = _single_output(out, x.shape, tx, op, level)
    validate_cumulative(op, tx, tout, axis, direction, level, allow_empty=level is None)
    result = _run_single(op, key, x, out_array, tout, lambda src, dst: _plan.plan_scan(
        op, src, dst, tx.data_type, axis, direction == AxisDirection.DECREASING, exclusive,
        x.itemsize), in_place_ok=True)
    return result if out is None else out


def cumulative_summation(input, *, axis, axis_direction=AxisDirection.INCREASING,
                         has_exclusive_sum=False, out=None, feature_level=None):
    """CUMULATIVE_SUMMATION: running sums along ``axis`` (SPEC.md section 3 arithmetic).

    ``out`` may be ``input`` itself (in place).
    """
    return _cumulative("CUMULATIVE_SUMMATION", input, axis, axis_direction, has_exclusive_sum,
                       "HasExclusiveSum", out, feature_level)


def cumulative_product(input, *, axis, axis_direction=AxisDirection.INCREASING,
                       has_exclusive_product=False, out=None, feature_level=None):
    """CUMULATIVE_PRODUCT: running products along ``axis`` (SPEC.md section 3 arithmetic).

    ``out`` may be ``input`` itself (in place).
    """
    return _cumulative("CUMULATIVE_PRODUCT", input, axis, axis_direction, has_exclusive_product,
                       "HasExclusiveProduct", out, feature_level)
