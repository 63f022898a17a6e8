"""The eager API (docs/semantics.md): arrays in, validated, planned, run, arrays out.

The seven public functions themselves are Cython (``_core``, _public.pxi): a call that a
remembered plan serves never enters Python. Every other call comes here, to ``_full``.

Every call reads each argument exactly once into a snapshot: each field into an int or a tuple
of ints (first), then each array into a private NumPy view whose dtype, shape and strides nobody
else can change. The cache key, the validation, the overlap checks, the plan and the run all
come from that snapshot, so an argument that changes while the call runs (a field's
``__index__``, another thread) cannot make the call run something it did not validate. Axes and
the other fields are DirectML's: axes are in [0, DimensionCount - 1] (no negative axes), UINT
fields are never negative.

An extended-mode call whose fields are exact ints (or lists of them) and whose arrays are exact
ndarrays remembers its plan under its snapshot; the next call with the same snapshot runs it
straight from Cython (``_core``'s remembered_call). What a key cannot tell, where the caller's
outputs lie in memory, is checked on every call: a remembered plan runs into caller outputs only
if their bytes meet no other operand's; otherwise the full path's exact overlap check decides.
"""
import re
import threading
from collections import namedtuple
from collections.abc import Mapping, Set
from types import SimpleNamespace as _Args

import numpy as np

from . import _core
from ._arrays import as_array, check_no_overlap, data_type_of
from ._errors import InvalidArgumentError
from ._registry import INPUT, OPERATORS, OUTPUT, TENSOR, TENSORS
from ._validate import (Tensor, as_bool, as_int, as_int_list, parse_feature_level,
                        show, slice1_max_output_size, validate_cumulative, validate_join,
                        validate_slice, validate_slice1, validate_split, validate_tile)

_NDARRAY = np.ndarray
_CACHE = {}
_CACHE_LIMIT = 512                # remembered plans at most
_CACHE_MAX_BYTES = 32 << 20       # and at most this many bytes of plans and keys
_cache_bytes = 0
_cache_lock = threading.Lock()

# One array argument, snapshotted: a private view, its Tensor, and whether the caller's object
# was an exact ndarray (only those make cache keys: the fast path looks nothing else up).
_Operand = namedtuple("_Operand", "array tensor exact")


def _operand(obj, field, op, level, output=False):
    exact = type(obj) is _NDARRAY
    array = _NDARRAY.view(obj if exact else as_array(obj, field, output), _NDARRAY)
    if output and not array.flags.writeable:
        raise InvalidArgumentError(f"{field} is read-only but must be writable")
    return _Operand(array, Tensor(data_type_of(array.dtype, op, field, level), array.shape),
                    exact)


def _sequence(values, field, refused=(np.ndarray, str, bytes, bytearray, memoryview)):
    """A sequence of arrays as a tuple, read once, in its order: lists, tuples, generators,
    any ordered iterable. Sets, mappings and their key or item views are refused: their order
    (a set's follows the hash seed) would decide the result's."""
    if isinstance(values, (Set, Mapping)):
        raise TypeError(f"{field} must be an ordered sequence of arrays (a list or a tuple), "
                        f"not {type(values).__name__}, whose order is not the caller's")
    if isinstance(values, refused) or not hasattr(values, "__iter__") and not hasattr(
            values, "__getitem__"):
        raise TypeError(f"{field} must be a sequence of arrays, not {type(values).__name__}")
    return tuple(values)


class _Spec:
    """An operator's eager parts: its registry record (tensor fields, planner, in-place rule),
    ``fields(values)`` converting the eager fields (each read once), and ``prepare(fields,
    ins, outs, level)`` validating and returning (output tensors, the planner's arguments)."""

    def __init__(self, op, fields, prepare):
        self.record = OPERATORS[op]
        self.fields = fields
        self.prepare = prepare
        tensors = {f.role: f for f in self.record.fields if f.kind in (TENSOR, TENSORS)}
        self.input_field, self.output_field = tensors[INPUT].dml, tensors[OUTPUT].dml
        self.many_inputs = tensors[INPUT].kind == TENSORS
        self.many = tensors[OUTPUT].kind == TENSORS
        self.in_place = self.record.in_place


def _full(op, raw, inputs, outputs, feature_level, spec):
    """Every eager call that no remembered plan serves (_public.pxi sends it here).
    ``inputs``: a tuple of array objects; ``outputs``: a tuple of the caller's outputs or None
    (new arrays); ``raw``: the fields as given; ``spec``: the operator's _Spec."""
    level = parse_feature_level(feature_level)
    snapshot = _core.field_snapshot(raw)
    fields = spec.fields(raw if snapshot is None else snapshot)  # each field read once, first
    ins = [_operand(obj, f"{spec.input_field}[{k}]" if spec.many_inputs else spec.input_field,
                    op, level) for k, obj in enumerate(inputs)]
    outs = None if outputs is None else [
        _operand(obj, f"{spec.output_field}[{k}]" if spec.many else spec.output_field, op,
                 level, True) for k, obj in enumerate(outputs)]
    given = outs is not None
    touts, args = spec.prepare(fields, ins, outs, level)
    if not given:
        dtype = ins[0].array.dtype
        outs = [_Operand(np.empty(t.sizes, dtype), t, True) for t in touts]
    else:
        check_no_overlap(op, [o.array for o in outs], [i.array for i in ins],
                         spec.output_field, spec.input_field, spec.in_place)
    n = len(ins)
    plan = spec.record.planner(
        args, [(k, 0, i.tensor.sizes, i.array.strides) for k, i in enumerate(ins)],
        [(n + k, 0, o.tensor.sizes, o.array.strides) for k, o in enumerate(outs)],
        ins[0].tensor.data_type)
    plan.run([i.array for i in ins], [o.array for o in outs])
    _remember(op, snapshot, ins, outs, given, plan, spec)
    if given:
        return list(outputs) if spec.many else outputs[0]
    return [o.array for o in outs] if spec.many else outs[0].array


def _remember(op, snapshot, ins, outs, given, plan, spec):
    """Keeps a validated plan under the key of the snapshot it was made from (exact arguments
    only), dropping the oldest plans beyond _CACHE_LIMIT entries or _CACHE_MAX_BYTES."""
    global _cache_bytes
    operands = ins + outs if given else ins
    if snapshot is None or not all(o.exact for o in operands):
        return
    layouts = tuple(part for o in operands for part in (o.array.dtype, o.tensor.sizes,
                                                         o.array.strides))
    key = _core.eager_key(op, given, snapshot, layouts)
    if key is None:
        return
    in_place = spec.in_place and given and layouts[:3] == layouts[3:]
    entry = _core.Remembered(plan, [] if given else [o.tensor.sizes for o in outs],
                             ins[0].array.dtype, spec.many, in_place,
                             key.nbytes)
    if entry.nbytes > _CACHE_MAX_BYTES:
        return
    with _cache_lock:
        old = _CACHE.pop(key, None)
        _cache_bytes -= 0 if old is None else old.nbytes
        while _CACHE and (len(_CACHE) >= _CACHE_LIMIT
                          or _cache_bytes + entry.nbytes > _CACHE_MAX_BYTES):
            _cache_bytes -= _CACHE.pop(next(iter(_CACHE))).nbytes
        _CACHE[key] = entry
        _cache_bytes += entry.nbytes


# ---------------------------------------------------------------- the operators

def _single(outs, sizes, x):
    """The one output's Tensor: the caller's, or a new array's of ``sizes``."""
    return outs[0].tensor if outs is not None else Tensor(x.data_type, tuple(sizes))


def _split_fields(values):
    axis, sizes = values
    return as_int(axis, "Axis"), as_int_list(sizes, "output_axis_sizes")


def _split_prepare(fields, ins, outs, level):
    op, (axis, axis_sizes), x = "SPLIT", fields, ins[0].tensor
    shape = x.sizes
    if outs is None:
        # with an invalid axis the outputs take the input's shape; validation reports the axis
        touts = [Tensor(x.data_type, shape[:axis] + (n,) + shape[axis + 1:]
                        if 0 <= axis < len(shape) else shape) for n in axis_sizes]
    else:
        touts = [o.tensor for o in outs]
        if len(axis_sizes) != len(outs):
            raise InvalidArgumentError(f"{op}: output_axis_sizes has {len(axis_sizes)} entries "
                                       f"but outputs has {len(outs)}")
    validate_split(x, touts, axis, level, allow_empty=level is None)
    for k, (n, t) in enumerate(zip(axis_sizes, touts)):
        if t.sizes[axis] != n:
            raise InvalidArgumentError(f"{op}: OutputTensors[{k}].Sizes[{axis}] is "
                                       f"{t.sizes[axis]} but must equal "
                                       f"output_axis_sizes[{k}] ({show(n)})")
    return touts, _Args(axis=axis)


_SPLIT = _Spec("SPLIT", _split_fields, _split_prepare)


def _join_prepare(fields, ins, outs, level):
    (axis,), tins = fields, [i.tensor for i in ins]
    shape = list(tins[0].sizes) if tins else []
    if 0 <= axis < len(shape):
        shape[axis] = sum(t.sizes[axis] if axis < len(t.sizes) else 0 for t in tins)
    tout = _single(outs, shape, tins[0] if tins else Tensor(None, ()))
    validate_join(tins, tout, axis, level, allow_empty=level is None)
    return [tout], _Args(axis=axis)


_JOIN = _Spec("JOIN", lambda values: (as_int(values[0], "Axis"),), _join_prepare)


def _slice_fields(values):
    offsets, sizes, strides = values
    offsets = as_int_list(offsets, "Offsets")
    sizes = as_int_list(sizes, "Sizes")
    strides = (1,) * len(sizes) if strides is None else as_int_list(strides, "Strides")
    return offsets, sizes, strides


def _slice_prepare(fields, ins, outs, level):
    (offsets, sizes, strides), x = fields, ins[0].tensor
    tout = _single(outs, sizes, x)
    validate_slice(x, tout, offsets, sizes, strides, level, allow_empty=level is None)
    return [tout], _Args(offsets=offsets, strides=strides)


_SLICE = _Spec("SLICE", _slice_fields, _slice_prepare)


def _slice1_fields(values):
    offsets, window, steps, output_sizes = values
    offsets = as_int_list(offsets, "InputWindowOffsets")
    window = as_int_list(window, "InputWindowSizes")
    steps = (1,) * len(window) if steps is None else as_int_list(steps, "InputWindowStrides")
    if output_sizes is not None:
        output_sizes = as_int_list(output_sizes, "output_sizes")
    return offsets, window, steps, output_sizes


def _slice1_prepare(fields, ins, outs, level):
    op, (offsets, window, steps, output_sizes), x = "SLICE1", fields, ins[0].tensor
    if output_sizes is None and outs is None:  # the most elements the window yields
        output_sizes = tuple(slice1_max_output_size(size, step) if step else 0
                             for size, step in zip(window, steps))
    tout = _single(outs, output_sizes, x)
    if outs is not None and output_sizes is not None and tout.sizes != output_sizes:
        raise InvalidArgumentError(f"{op}: OutputTensor.Sizes is {list(tout.sizes)} but must "
                                   f"equal output_sizes ({show(output_sizes)})")
    validate_slice1(x, tout, offsets, window, steps, level, allow_empty=level is None)
    return [tout], _Args(input_window_offsets=offsets, input_window_sizes=window,
                         input_window_strides=steps)


_SLICE1 = _Spec("SLICE1", _slice1_fields, _slice1_prepare)


def _tile_prepare(fields, ins, outs, level):
    (repeats,), x = fields, ins[0].tensor
    shape = (tuple(s * r for s, r in zip(x.sizes, repeats)) if len(repeats) == len(x.sizes)
             else x.sizes)
    tout = _single(outs, shape, x)
    validate_tile(x, tout, repeats, level, allow_empty=level is None)
    return [tout], _Args()


_TILE = _Spec("TILE", lambda values: (as_int_list(values[0], "Repeats"),), _tile_prepare)


def _cumulative_spec(op, exclusive_field, exclusive_name):
    def fields(values):
        axis, direction, exclusive = values
        return (as_int(axis, "Axis"), as_int(direction, "AxisDirection"),
                as_bool(exclusive, exclusive_field))

    def prepare(fields, ins, outs, level):
        (axis, direction, exclusive), x = fields, ins[0].tensor
        tout = _single(outs, x.sizes, x)
        validate_cumulative(op, x, tout, axis, direction, level, allow_empty=level is None)
        return [tout], _Args(axis=axis, axis_direction=direction, **{exclusive_name: exclusive})

    return _Spec(op, fields, prepare)


_CUMULATIVE = {op: _cumulative_spec(op, field, name) for op, field, name in (
    ("CUMULATIVE_SUMMATION", "HasExclusiveSum", "has_exclusive_sum"),
    ("CUMULATIVE_PRODUCT", "HasExclusiveProduct", "has_exclusive_product"))}

_SPECS = {"SPLIT": _SPLIT, "JOIN": _JOIN, "SLICE": _SLICE, "SLICE1": _SLICE1, "TILE": _TILE,
          **_CUMULATIVE}


def _full_path(op, raw, inputs, outputs, feature_level):
    """What _core's seven functions call when no remembered plan serves (``_full`` is looked
    up here on each call, so tests can replace it). Errors name the caller's arguments."""
    try:
        return _full(op, raw, inputs, outputs, feature_level, _SPECS[op])
    except (InvalidArgumentError, TypeError) as error:
        _name_arguments(error, outputs is not None)
        raise


# The rules speak DirectML's tensor fields; an eager call's caller passed arguments, so its
# errors name those first: "outputs[1] (OutputTensors[1]).Sizes[3] is 3 but must equal ...".
# Outputs the call makes itself keep DirectML's name alone: the caller passed nothing to name.
_ARGUMENT_OF = {"InputTensor": "input", "InputTensors": "inputs", "OutputTensor": "out",
                "OutputTensors": "outputs"}
_INPUT_FIELD = re.compile(r"\b(InputTensors?)(\[(?:\d+|\*)\])?")
_TENSOR_FIELD = re.compile(r"\b(InputTensors?|OutputTensors?)(\[(?:\d+|\*)\])?")


def _name_arguments(error, outputs_given):
    """Renames, in place, each tensor field in the error's message (and violations) that the
    caller passed as an argument: the inputs, and the outputs when ``outputs_given``."""
    fields = _TENSOR_FIELD if outputs_given else _INPUT_FIELD

    def rename(text):
        return fields.sub(lambda m: f"{_ARGUMENT_OF[m[1]]}{m[2] or ''} ({m[0]})", text)
    if len(error.args) == 1 and isinstance(error.args[0], str):
        error.args = (rename(error.args[0]),)
    if isinstance(error, InvalidArgumentError):
        error.violations = [rename(v) for v in error.violations]


_core.register_full_path(_full_path, _sequence, _CACHE)
from ._core import (cumulative_product, cumulative_summation, join, slice,  # noqa: E402
                    slice1, split, tile)
