"""DirectML's operator rules, each checked once with one message (docs/semantics.md).

The validators serve the eager API and the descriptors alike: they see tensors only as a data type
and sizes (anything with ``data_type`` and ``sizes`` attributes), plus the operator's fields. Each
``<op>_violations`` returns every rule a call breaks, as messages reading
``OP: Field[path] is VALUE but must RULE``; ``raise_violations`` raises InvalidArgumentError naming
the first. The operator registry (``_registry``) says which validator serves which operator.

``level`` is a FeatureLevel for strict mode, or None for extended mode: all eleven types, 1 to 8
dims, and (in the eager API, ``allow_empty``) sizes of 0 and 64-bit sizes.
"""
from collections import namedtuple
from collections.abc import Mapping, Set
from math import prod
from operator import index as _index

from ._errors import InvalidArgumentError
from ._support import INTRODUCED, dimension_count_range, supported_data_types
from ._types import AxisDirection, FeatureLevel, TensorDataType

Tensor = namedtuple("Tensor", "data_type sizes")

UINT32_MAX = 2**32 - 1
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
UINT64_MAX = 2**64 - 1
MAX_DIMS = 8  # no level takes more dimensions: a longer list is refused by its count alone
_SHOWN_BITS = 256  # longer ints are shown by their length
_INT = {int}

_LEVEL_ALIASES = {level.label: level for level in FeatureLevel}


def parse_feature_level(value):
    """None (extended mode), a FeatureLevel, its value (0x4100) or its label ("4_1", "4.1")."""
    if value is None or isinstance(value, FeatureLevel):
        return value
    if isinstance(value, str):
        label = value.strip().upper()
        for prefix in ("DML_FEATURE_LEVEL_", "FL_"):
            if label.startswith(prefix):
                label = label[len(prefix):]
        label = label.replace(".", "_")
        if label in _LEVEL_ALIASES:
            return _LEVEL_ALIASES[label]
    elif isinstance(value, int) and not isinstance(value, bool):
        try:
            return FeatureLevel(value)
        except ValueError:
            pass
    else:
        raise TypeError(f"feature_level must be None, a FeatureLevel, an int or a str, not "
                        f"{type(value).__name__}")
    known = ", ".join(level.label for level in FeatureLevel)
    shown = repr(value) if isinstance(value, str) else show(value)
    raise InvalidArgumentError(f"feature_level {shown} is not a DirectML feature level; "
                               f"use one of {known} (or None for extended mode)")


def at_level(level):
    """'in extended mode' or 'at feature level 6_4', for the end of a rule."""
    return "in extended mode" if level is None else f"at feature level {level.label}"


def as_int(value, field):
    """An integer field: ints and NumPy integers pass; bools, floats and the rest raise TypeError."""
    if isinstance(value, bool):
        raise TypeError(f"{field} must be an integer, not bool")
    try:
        return _index(value)
    except TypeError:
        raise TypeError(f"{field} must be an integer, not {type(value).__name__}") from None


def as_int_list(values, field):
    """A sequence of integer fields, as a tuple (sets and dicts have no order: refused)."""
    if isinstance(values, (str, bytes, bytearray, Mapping, Set)) or not hasattr(values,
                                                                                "__len__"):
        raise TypeError(f"{field} must be a sequence of integers, not {type(values).__name__}")
    if set(map(type, values)) <= _INT:  # the common case, at C speed and without per-entry names
        return tuple(values)
    return tuple(as_int(v, f"{field}[{i}]") for i, v in enumerate(values))


def as_bool(value, field):
    """A BOOL field: True/False, or 0/1 as DirectML's BOOL takes."""
    if isinstance(value, bool):
        return value
    number = as_int(value, field)
    if number not in (0, 1):
        raise InvalidArgumentError(f"{field} is {show(number)} but must be 0 or 1 (a BOOL)")
    return bool(number)


def show(value):
    """A value as messages print it: every int, however long (str() refuses past 4,300 digits),
    and every list, however long (past 8 entries, the first 8 and the count)."""
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, (list, tuple)):
            shown = ", ".join(show(item) for item in value[:MAX_DIMS])
            more = f", ... ({len(value)} entries)" if len(value) > MAX_DIMS else ""
            return f"[{shown}{more}]"
        return str(value)
    if value.bit_length() <= _SHOWN_BITS:
        return str(value)
    return f"{'-' if value < 0 else ''}(an integer of {value.bit_length()} bits)"


class Violations:
    """The rules one call breaks, in the order they were checked."""

    __slots__ = ("op", "messages")

    def __init__(self, op):
        self.op = op
        self.messages = []

    def add(self, field, value, rule):
        self.messages.append(f"{self.op}: {field} is {show(value)} but must {rule}")

    def note(self, text):
        self.messages.append(f"{self.op}: {text}")


def raise_violations(messages):
    """InvalidArgumentError naming the first message (and counting the rest), if there are any."""
    if messages:
        more = len(messages) - 1
        first = messages[0] if not more else f"{messages[0]} (and {more} more: see .violations)"
        raise InvalidArgumentError(first, messages)


# ---------------------------------------------------------------- rules shared by every operator

def check_operator_level(v, level):
    introduced = INTRODUCED[v.op]
    if level is not None and level < introduced:
        v.note(f"the operator does not exist at feature level {level.label}; "
               f"it was introduced in {introduced.label}")
        return False
    return True


def check_tensors(v, named_tensors, level, allow_empty):
    """Types, dimension counts and sizes of every tensor; returns False if the shapes are unusable.

    ``named_tensors`` is a list of (field, tensor); the first is the reference the others must
    match in data type and dimension count.
    """
    ok = True
    ref_field, ref = named_tensors[0]
    supported = supported_data_types(v.op, level)
    low, high = dimension_count_range(v.op, level)
    for field, tensor in named_tensors:
        data_type = tensor.data_type
        if field == ref_field:
            if data_type not in supported:
                v.add(f"{field}.DataType", _type_name(data_type),
                      f"be one of {', '.join(t.name for t in supported)} {at_level(level)}")
        elif data_type != ref.data_type:
            v.add(f"{field}.DataType", _type_name(data_type),
                  f"equal {ref_field}.DataType ({_type_name(ref.data_type)})")
        # Like the data type, the count is judged on the reference; the others must equal it.
        ndim = len(tensor.sizes)
        if field == ref_field:
            if not low <= ndim <= high:
                rule = f"be {low}" if low == high else f"be between {low} and {high}"
                v.add(f"{field}.DimensionCount", ndim, f"{rule} {at_level(level)}")
                ok = False
        elif ndim != len(ref.sizes):
            v.add(f"{field}.DimensionCount", ndim,
                  f"equal {ref_field}.DimensionCount ({len(ref.sizes)})")
            ok = False
        if ndim <= MAX_DIMS:  # past that the count settles it: no size is walked
            ok = check_sizes(v, field, tensor.sizes, level, allow_empty) and ok
    return ok


def check_sizes(v, field, sizes, level, allow_empty):
    """Sizes at least 1 (0 allowed in the eager extended mode); 32-bit limits in strict mode."""
    ok = True
    for i, size in enumerate(sizes):
        if size < 0 or (size == 0 and not allow_empty):
            v.add(f"{field}.Sizes[{i}]", size, "be at least 1")
            ok = False
        elif level is not None and size > UINT32_MAX:
            v.add(f"{field}.Sizes[{i}]", size, f"fit in 32 bits (at most {UINT32_MAX})")
            ok = False
    if not ok:
        return False
    count = prod(sizes)
    # the product of the non-zero sizes: what NumPy bounds even for an empty array
    span = count or prod(size for size in sizes if size)
    if level is not None and count > UINT32_MAX:
        v.add(f"{field} element count", count, f"be at most {UINT32_MAX} (2^32 - 1)")
    elif count * 8 > INT64_MAX:
        v.add(f"{field} element count", count, "fit a 64-bit address space")
    elif span * 8 > INT64_MAX:
        # An empty tensor still has strides: sizes whose product overflows cannot be laid out.
        v.add(f"{field}.Sizes", list(sizes), "have a product of the non-zero sizes that fits a "
              "64-bit address space (even when another size is 0)")
    else:
        return True
    return False


def check_axis(v, axis, ndim, field="Axis"):
    if not 0 <= axis < ndim:
        v.add(field, axis, f"be in [0, {ndim - 1}] (DimensionCount - 1)")
        return False
    return True


def check_field_count(v, field, values, ndim):
    if len(values) != ndim:
        v.add(f"{field} count", len(values), f"equal DimensionCount ({ndim})")
        return False
    return True


def check_uint_fields(v, field, values, level):
    """DirectML UINT arrays: never negative; 32 bits at a feature level, 64 bits in extended mode.

    A list longer than any dimension count is refused by its count; its entries are not walked.
    """
    ok = True
    for i, value in enumerate(values if len(values) <= MAX_DIMS else ()):
        if value < 0:
            v.add(f"{field}[{i}]", value, "be at least 0 (a UINT)")
            ok = False
        elif level is not None and value > UINT32_MAX:
            v.add(f"{field}[{i}]", value, f"fit in 32 bits (at most {UINT32_MAX})")
            ok = False
        elif value > UINT64_MAX:
            v.add(f"{field}[{i}]", value, f"fit in 64 bits (at most {UINT64_MAX})")
            ok = False
    return ok


def check_bool(v, field, value):
    """DirectML's BOOL: True/False, 0 or 1."""
    if not isinstance(value, bool) and value not in (0, 1):
        v.add(field, value, "be 0 or 1 (a BOOL)")


def _type_name(data_type):
    if isinstance(data_type, TensorDataType):
        return data_type.name
    return repr(data_type) if isinstance(data_type, str) else show(data_type)


# ---------------------------------------------------------------- operators

def split_violations(input_tensor, output_tensors, axis, level, allow_empty=False):
    return _group_violations("SPLIT", ("InputTensor", input_tensor),
                             ("OutputTensors", "OutputCount", output_tensors), axis, level,
                             allow_empty)


def join_violations(input_tensors, output_tensor, axis, level, allow_empty=False):
    return _group_violations("JOIN", ("OutputTensor", output_tensor),
                             ("InputTensors", "InputCount", input_tensors), axis, level,
                             allow_empty)


def _group_violations(op, whole, parts, axis, level, allow_empty):
    """SPLIT and JOIN are mirrors: one whole tensor and a list of parts along ``axis``."""
    whole_name, whole_tensor = whole
    parts_name, count_name, part_tensors = parts
    v = Violations(op)
    if check_operator_level(v, level):
        if not part_tensors:
            v.add(count_name, 0, "be at least 1")
        else:
            named = [(whole_name, whole_tensor)]
            named += [(f"{parts_name}[{k}]", t) for k, t in enumerate(part_tensors)]
            if check_tensors(v, named, level, allow_empty) and check_axis(
                    v, axis, len(whole_tensor.sizes)):
                _check_along_axis(v, whole_name, whole_tensor, parts_name, part_tensors, axis)
    return v.messages


def _check_along_axis(v, whole_field, whole, parts_field, parts, axis):
    """SPLIT and JOIN: parts equal the whole but along Axis, where their sizes add up to it."""
    total = 0
    for k, part in enumerate(parts):
        for dim, (size, whole_size) in enumerate(zip(part.sizes, whole.sizes)):
            if dim == axis:
                total += size
            elif size != whole_size:
                v.add(f"{parts_field}[{k}].Sizes[{dim}]", size,
                      f"equal {whole_field}.Sizes[{dim}] ({whole_size}); only Axis {axis} may "
                      f"differ")
    if total != whole.sizes[axis]:
        v.add(f"the sum of {parts_field}[*].Sizes[{axis}]", total,
              f"equal {whole_field}.Sizes[{axis}] ({whole.sizes[axis]})")


def slice_violations(input_tensor, output_tensor, offsets, sizes, strides, level,
                     allow_empty=False):
    v = Violations("SLICE")
    if check_operator_level(v, level):
        named = [("InputTensor", input_tensor), ("OutputTensor", output_tensor)]
        if check_tensors(v, named, level, allow_empty):
            ndim = len(input_tensor.sizes)
            counts_ok = all([check_field_count(v, "Offsets", offsets, ndim),
                             check_field_count(v, "Sizes", sizes, ndim),
                             check_field_count(v, "Strides", strides, ndim)])
            check_uint_fields(v, "Offsets", offsets, level)
            check_uint_fields(v, "Sizes", sizes, level)
            check_uint_fields(v, "Strides", strides, level)
            if counts_ok:
                for i in range(ndim):
                    _check_slice_dim(v, i, input_tensor.sizes[i], output_tensor.sizes[i],
                                     offsets[i], sizes[i], strides[i])
    return v.messages


def _check_slice_dim(v, i, input_size, output_size, offset, size, stride):
    if size != output_size:
        v.add(f"Sizes[{i}]", size, f"equal OutputTensor.Sizes[{i}] ({output_size})")
    if size == 0:
        if offset > input_size:
            v.add(f"Offsets[{i}]", offset, f"be at most InputTensor.Sizes[{i}] ({input_size})")
        return
    last = offset + stride * (size - 1)
    if last >= input_size:
        v.add(f"Offsets[{i}] + Strides[{i}] * (Sizes[{i}] - 1)",
              f"{show(offset)} + {show(stride)} * {show(size - 1)} = {show(last)}",
              f"be less than InputTensor.Sizes[{i}] ({input_size})")


def slice1_max_output_size(window_size, window_stride):
    """The most elements a SLICE1 window of this size yields at this stride."""
    return 1 + (window_size - 1) // abs(window_stride) if window_size > 0 else 0


def slice1_violations(input_tensor, output_tensor, window_offsets, window_sizes, window_strides,
                      level, allow_empty=False):
    v = Violations("SLICE1")
    if check_operator_level(v, level):
        named = [("InputTensor", input_tensor), ("OutputTensor", output_tensor)]
        if check_tensors(v, named, level, allow_empty):
            ndim = len(input_tensor.sizes)
            counts_ok = all([check_field_count(v, "InputWindowOffsets", window_offsets, ndim),
                             check_field_count(v, "InputWindowSizes", window_sizes, ndim),
                             check_field_count(v, "InputWindowStrides", window_strides, ndim)])
            check_uint_fields(v, "InputWindowOffsets", window_offsets, level)
            check_uint_fields(v, "InputWindowSizes", window_sizes, level)
            for i, stride in enumerate(window_strides if len(window_strides) <= MAX_DIMS else ()):
                if stride == 0:
                    v.add(f"InputWindowStrides[{i}]", 0, "not be 0")
                elif level is not None and not INT32_MIN <= stride <= INT32_MAX:
                    v.add(f"InputWindowStrides[{i}]", stride, "fit in 32 bits (an INT)")
                elif not INT64_MIN <= stride <= INT64_MAX:
                    v.add(f"InputWindowStrides[{i}]", stride, "fit in 64 bits (an INT64)")
            if counts_ok:
                for i in range(ndim):
                    if window_strides[i] == 0:  # reported above; the bounds need a stride
                        continue
                    _check_slice1_dim(v, i, input_tensor.sizes[i], output_tensor.sizes[i],
                                      window_offsets[i], window_sizes[i], window_strides[i],
                                      allow_empty)
    return v.messages


def _check_slice1_dim(v, i, input_size, output_size, offset, size, stride, allow_empty):
    if size == 0 and not allow_empty:
        v.add(f"InputWindowSizes[{i}]", 0, "be at least 1 (the window is never empty)")
        return
    if offset + size > input_size:
        v.add(f"InputWindowOffsets[{i}] + InputWindowSizes[{i}]", f"{show(offset)} + {show(size)}",
              f"be at most InputTensor.Sizes[{i}] ({input_size})")
    most = slice1_max_output_size(size, stride)
    least = 1 if size > 0 else 0
    if not least <= output_size <= most:
        v.add(f"OutputTensor.Sizes[{i}]", output_size,
              f"be between {least} and 1 + (InputWindowSizes[{i}] - 1) // "
              f"|InputWindowStrides[{i}]| ({show(most)})")


def tile_violations(input_tensor, output_tensor, repeats, level, allow_empty=False):
    v = Violations("TILE")
    if check_operator_level(v, level):
        named = [("InputTensor", input_tensor), ("OutputTensor", output_tensor)]
        if check_tensors(v, named, level, allow_empty):
            ndim = len(input_tensor.sizes)
            if check_field_count(v, "Repeats", repeats, ndim) and check_uint_fields(
                    v, "Repeats", repeats, level):  # a negative repeat is reported once
                for i, repeat in enumerate(repeats):
                    if repeat < 1:
                        v.add(f"Repeats[{i}]", repeat, "be at least 1")
                        continue
                    expected = input_tensor.sizes[i] * repeat
                    if output_tensor.sizes[i] != expected:
                        v.add(f"OutputTensor.Sizes[{i}]", output_tensor.sizes[i],
                              f"equal InputTensor.Sizes[{i}] * Repeats[{i}] "
                              f"({input_tensor.sizes[i]} * {repeat} = {expected})")
    return v.messages


def cumulative_violations(op, input_tensor, output_tensor, axis, axis_direction, exclusive,
                          level, allow_empty=False):
    """CUMULATIVE_SUMMATION and CUMULATIVE_PRODUCT share every rule.

    ``exclusive`` (HasExclusiveSum / HasExclusiveProduct) is a BOOL: the registry checks its kind.
    """
    v = Violations(op)
    if check_operator_level(v, level):
        named = [("InputTensor", input_tensor), ("OutputTensor", output_tensor)]
        if check_tensors(v, named, level, allow_empty):
            check_axis(v, axis, len(input_tensor.sizes))
            for i, (out_size, in_size) in enumerate(zip(output_tensor.sizes, input_tensor.sizes)):
                if out_size != in_size:
                    v.add(f"OutputTensor.Sizes[{i}]", out_size,
                          f"equal InputTensor.Sizes[{i}] ({in_size})")
        if axis_direction not in (AxisDirection.INCREASING, AxisDirection.DECREASING):
            v.add("AxisDirection", axis_direction,
                  "be DML_AXIS_DIRECTION_INCREASING (0) or DML_AXIS_DIRECTION_DECREASING (1)")
    return v.messages


# The eager API's raising forms of the validators above.

def _raising(violations):
    def validate(*args, **kwargs):
        raise_violations(violations(*args, **kwargs))
    validate.__name__ = "validate_" + violations.__name__[:-len("_violations")]
    return validate


validate_split = _raising(split_violations)
validate_join = _raising(join_violations)
validate_slice = _raising(slice_violations)
validate_slice1 = _raising(slice1_violations)
validate_tile = _raising(tile_violations)


def validate_cumulative(op, input_tensor, output_tensor, axis, axis_direction, level,
                        allow_empty=False):
    """The caller has already read HasExclusive* with ``as_bool``."""
    raise_violations(cumulative_violations(op, input_tensor, output_tensor, axis, axis_direction,
                                           False, level, allow_empty))
