"""DirectML-shaped operator descriptors over raw buffers: validate once, execute many times.

``TensorDesc`` is DML_BUFFER_TENSOR_DESC (SPEC.md section 2); the seven ``*OperatorDesc`` classes
carry SPEC.md's fields in snake_case. ``compile_operator`` checks every rule once, with the same
validators as the eager API (descriptors never take sizes of 0) plus the buffer tensor rules, and
plans the operator over element strides scaled to bytes. ``CompiledOperator.execute`` then binds
buffers (checked in Cython: lengths, writability, overlap) and runs the plan.

Constructors only convert types (TypeError for a non-integer field, a non-TensorDesc tensor);
every value DirectML would refuse is reported by ``compile_operator``, all at once, in
``InvalidArgumentError.violations``.
"""
from . import _plan
from ._core import Binding
from ._errors import InvalidArgumentError
from ._types import ELEMENT_SIZES, AxisDirection, TensorDataType
from ._validate import (Violations, as_bool, as_int, as_int_list, check_buffer_tensor,
                        check_output_self_overlap, level_name, parse_feature_level,
                        validate_cumulative, validate_join, validate_slice, validate_slice1,
                        validate_split, validate_tile)
from ._validate import calc_buffer_tensor_size as _calc_size

_DATA_TYPE_PREFIX = "DML_TENSOR_DATA_TYPE_"


def as_data_type(value, field="DataType"):
    """A TensorDataType from itself, its value or its name ("FLOAT32", "DML_TENSOR_DATA_TYPE_...").

    An int or name DirectML does not know is kept as given, so validation can report it.
    """
    if isinstance(value, TensorDataType):
        return value
    if isinstance(value, str):
        name = value.strip().upper()
        if name.startswith(_DATA_TYPE_PREFIX):
            name = name[len(_DATA_TYPE_PREFIX):]
        return TensorDataType.__members__.get(name, value)
    number = as_int(value, field)
    try:
        return TensorDataType(number)
    except ValueError:
        return number


def calc_buffer_tensor_size(data_type, sizes, strides=None):
    """DMLCalcBufferTensorSize: the least TotalTensorSizeInBytes of a buffer tensor.

    >>> calc_buffer_tensor_size("FLOAT32", [2, 2], [3, 1])
    20
    """
    data_type = as_data_type(data_type)
    sizes = as_int_list(sizes, "sizes")
    strides = None if strides is None else as_int_list(strides, "strides")
    element_size = ELEMENT_SIZES.get(data_type)
    if element_size is None:
        raise InvalidArgumentError(f"data_type {data_type!r} is not a DirectML data type")
    if not 1 <= len(sizes) <= 8 or any(size < 1 for size in sizes):
        raise InvalidArgumentError(f"sizes {list(sizes)} must have 1 to 8 entries, each at "
                                   f"least 1")
    if strides is not None and (len(strides) != len(sizes) or any(s < 0 for s in strides)):
        raise InvalidArgumentError(f"strides {list(strides)} must have one entry per size, "
                                   f"each at least 0")
    return _calc_size(element_size, sizes, strides)


class TensorDesc:
    """DML_BUFFER_TENSOR_DESC: data type, sizes and element strides of a tensor in a buffer.

    ``strides`` None is packed row-major; 0 broadcasts; larger strides leave padding.
    ``total_tensor_size_in_bytes`` None is the minimum (``calc_buffer_tensor_size``).
    """

    __slots__ = ("data_type", "sizes", "strides", "total_tensor_size_in_bytes",
                 "guaranteed_base_offset_alignment", "flags")

    def __init__(self, data_type, sizes, strides=None, total_tensor_size_in_bytes=None,
                 guaranteed_base_offset_alignment=0, flags=0):
        self.data_type = as_data_type(data_type)
        self.sizes = as_int_list(sizes, "Sizes")
        self.strides = None if strides is None else as_int_list(strides, "Strides")
        self.total_tensor_size_in_bytes = (None if total_tensor_size_in_bytes is None else
                                           as_int(total_tensor_size_in_bytes,
                                                  "TotalTensorSizeInBytes"))
        self.guaranteed_base_offset_alignment = as_int(guaranteed_base_offset_alignment,
                                                       "GuaranteedBaseOffsetAlignment")
        self.flags = as_int(flags, "Flags")

    @property
    def element_size(self):
        """Bytes per element (0 for a data type DirectML does not know)."""
        return ELEMENT_SIZES.get(self.data_type, 0)

    def element_strides(self):
        """The strides in elements, packed row-major ones when ``strides`` is None."""
        if self.strides is not None:
            return self.strides
        strides, step = [], 1
        for size in reversed(self.sizes):
            strides.append(step)
            step *= size
        return tuple(reversed(strides))

    def required_bytes(self):
        """TotalTensorSizeInBytes, or the minimum when None (assumes a valid desc)."""
        if self.total_tensor_size_in_bytes is not None:
            return self.total_tensor_size_in_bytes
        return _calc_size(self.element_size, self.sizes, self.strides)

    def _key(self):
        return (self.data_type, self.sizes, self.strides, self.total_tensor_size_in_bytes,
                self.guaranteed_base_offset_alignment, self.flags)

    def __eq__(self, other):
        return isinstance(other, TensorDesc) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        name = self.data_type.name if isinstance(self.data_type, TensorDataType) else \
            repr(self.data_type)
        parts = [name, f"sizes={list(self.sizes)}"]
        if self.strides is not None:
            parts.append(f"strides={list(self.strides)}")
        if self.total_tensor_size_in_bytes is not None:
            parts.append(f"total_tensor_size_in_bytes={self.total_tensor_size_in_bytes}")
        if self.guaranteed_base_offset_alignment:
            parts.append(f"guaranteed_base_offset_alignment="
                         f"{self.guaranteed_base_offset_alignment}")
        if self.flags:
            parts.append(f"flags={self.flags}")
        return f"TensorDesc({', '.join(parts)})"


def _tensor(value, field):
    if not isinstance(value, TensorDesc):
        raise TypeError(f"{field} must be a TensorDesc, not {type(value).__name__}")
    return value


def _tensor_list(values, field):
    if isinstance(values, (str, bytes, TensorDesc)) or not hasattr(values, "__len__"):
        raise TypeError(f"{field} must be a sequence of TensorDesc, not {type(values).__name__}")
    return tuple(_tensor(t, f"{field}[{k}]") for k, t in enumerate(values))


class _OperatorDesc:
    """Base of the seven descriptors: ``OPERATOR`` names it, ``FIELDS`` its attributes in order."""

    OPERATOR = ""
    FIELDS = ()
    __slots__ = ()

    def __eq__(self, other):
        return type(other) is type(self) and all(
            getattr(self, f) == getattr(other, f) for f in self.FIELDS)

    __hash__ = None

    def __repr__(self):
        def show(value):
            return repr(list(value)) if isinstance(value, tuple) else repr(value)
        fields = ", ".join(f"{f}={show(getattr(self, f))}" for f in self.FIELDS)
        return f"{type(self).__name__}({fields})"


class SplitOperatorDesc(_OperatorDesc):
    """DML_SPLIT_OPERATOR_DESC: InputTensor, OutputTensors[OutputCount], Axis."""

    OPERATOR = "SPLIT"
    FIELDS = ("input_tensor", "output_tensors", "axis")
    __slots__ = FIELDS

    def __init__(self, input_tensor, output_tensors, axis):
        self.input_tensor = _tensor(input_tensor, "InputTensor")
        self.output_tensors = _tensor_list(output_tensors, "OutputTensors")
        self.axis = as_int(axis, "Axis")


class JoinOperatorDesc(_OperatorDesc):
    """DML_JOIN_OPERATOR_DESC: InputTensors[InputCount], OutputTensor, Axis."""

    OPERATOR = "JOIN"
    FIELDS = ("input_tensors", "output_tensor", "axis")
    __slots__ = FIELDS

    def __init__(self, input_tensors, output_tensor, axis):
        self.input_tensors = _tensor_list(input_tensors, "InputTensors")
        self.output_tensor = _tensor(output_tensor, "OutputTensor")
        self.axis = as_int(axis, "Axis")


class SliceOperatorDesc(_OperatorDesc):
    """DML_SLICE_OPERATOR_DESC: InputTensor, OutputTensor, Offsets, Sizes, Strides."""

    OPERATOR = "SLICE"
    FIELDS = ("input_tensor", "output_tensor", "offsets", "sizes", "strides")
    __slots__ = FIELDS

    def __init__(self, input_tensor, output_tensor, offsets, sizes, strides):
        self.input_tensor = _tensor(input_tensor, "InputTensor")
        self.output_tensor = _tensor(output_tensor, "OutputTensor")
        self.offsets = as_int_list(offsets, "Offsets")
        self.sizes = as_int_list(sizes, "Sizes")
        self.strides = as_int_list(strides, "Strides")


class Slice1OperatorDesc(_OperatorDesc):
    """DML_SLICE1_OPERATOR_DESC: InputTensor, OutputTensor, InputWindowOffsets, InputWindowSizes,
    InputWindowStrides (signed, never 0)."""

    OPERATOR = "SLICE1"
    FIELDS = ("input_tensor", "output_tensor", "input_window_offsets", "input_window_sizes",
              "input_window_strides")
    __slots__ = FIELDS

    def __init__(self, input_tensor, output_tensor, input_window_offsets, input_window_sizes,
                 input_window_strides):
        self.input_tensor = _tensor(input_tensor, "InputTensor")
        self.output_tensor = _tensor(output_tensor, "OutputTensor")
        self.input_window_offsets = as_int_list(input_window_offsets, "InputWindowOffsets")
        self.input_window_sizes = as_int_list(input_window_sizes, "InputWindowSizes")
        self.input_window_strides = as_int_list(input_window_strides, "InputWindowStrides")


class TileOperatorDesc(_OperatorDesc):
    """DML_TILE_OPERATOR_DESC: InputTensor, OutputTensor, Repeats[RepeatsCount]."""

    OPERATOR = "TILE"
    FIELDS = ("input_tensor", "output_tensor", "repeats")
    __slots__ = FIELDS

    def __init__(self, input_tensor, output_tensor, repeats):
        self.input_tensor = _tensor(input_tensor, "InputTensor")
        self.output_tensor = _tensor(output_tensor, "OutputTensor")
        self.repeats = as_int_list(repeats, "Repeats")


class CumulativeSummationOperatorDesc(_OperatorDesc):
    """DML_CUMULATIVE_SUMMATION_OPERATOR_DESC: InputTensor, OutputTensor, Axis, AxisDirection,
    HasExclusiveSum."""

    OPERATOR = "CUMULATIVE_SUMMATION"
    FIELDS = ("input_tensor", "output_tensor", "axis", "axis_direction", "has_exclusive_sum")
    EXCLUSIVE_FIELD = "HasExclusiveSum"
    __slots__ = FIELDS

    def __init__(self, input_tensor, output_tensor, axis,
                 axis_direction=AxisDirection.INCREASING, has_exclusive_sum=False):
        self.input_tensor = _tensor(input_tensor, "InputTensor")
        self.output_tensor = _tensor(output_tensor, "OutputTensor")
        self.axis = as_int(axis, "Axis")
        self.axis_direction = _as_direction(axis_direction)
        self.has_exclusive_sum = _as_bool_field(has_exclusive_sum, "HasExclusiveSum")

    @property
    def exclusive(self):
        return self.has_exclusive_sum


class CumulativeProductOperatorDesc(_OperatorDesc):
    """DML_CUMULATIVE_PRODUCT_OPERATOR_DESC: InputTensor, OutputTensor, Axis, AxisDirection,
    HasExclusiveProduct."""

    OPERATOR = "CUMULATIVE_PRODUCT"
    FIELDS = ("input_tensor", "output_tensor", "axis", "axis_direction",
              "has_exclusive_product")
    EXCLUSIVE_FIELD = "HasExclusiveProduct"
    __slots__ = FIELDS

    def __init__(self, input_tensor, output_tensor, axis,
                 axis_direction=AxisDirection.INCREASING, has_exclusive_product=False):
        self.input_tensor = _tensor(input_tensor, "InputTensor")
        self.output_tensor = _tensor(output_tensor, "OutputTensor")
        self.axis = as_int(axis, "Axis")
        self.axis_direction = _as_direction(axis_direction)
        self.has_exclusive_product = _as_bool_field(has_exclusive_product, "HasExclusiveProduct")

    @property
    def exclusive(self):
        return self.has_exclusive_product


def _as_direction(value):
    number = as_int(value, "AxisDirection")
    try:
        return AxisDirection(number)
    except ValueError:
        return number  # reported by the validator


def _as_bool_field(value, field):
    """True/False, or an int kept as given (compile_operator reports values other than 0 or 1)."""
    return value if isinstance(value, bool) else as_int(value, field)


OPERATOR_DESCS = {cls.OPERATOR: cls for cls in (
    SplitOperatorDesc, JoinOperatorDesc, SliceOperatorDesc, Slice1OperatorDesc, TileOperatorDesc,
    CumulativeSummationOperatorDesc, CumulativeProductOperatorDesc)}


# ---------------------------------------------------------------- compiling

def _named_tensors(desc):
    """[(field, TensorDesc, is_input)] in slot order: inputs first, then outputs."""
    if isinstance(desc, SplitOperatorDesc):
        return [("InputTensor", desc.input_tensor, True)] + [
            (f"OutputTensors[{k}]", t, False) for k, t in enumerate(desc.output_tensors)]
    if isinstance(desc, JoinOperatorDesc):
        return [(f"InputTensors[{k}]", t, True) for k, t in enumerate(desc.input_tensors)] + [
            ("OutputTensor", desc.output_tensor, False)]
    return [("InputTensor", desc.input_tensor, True), ("OutputTensor", desc.output_tensor, False)]


def _validate_operator(desc, level):
    """The eager API's validator for this descriptor (allow_empty=False: no zero sizes)."""
    if isinstance(desc, SplitOperatorDesc):
        validate_split(desc.input_tensor, desc.output_tensors, desc.axis, level)
    elif isinstance(desc, JoinOperatorDesc):
        validate_join(desc.input_tensors, desc.output_tensor, desc.axis, level)
    elif isinstance(desc, SliceOperatorDesc):
        validate_slice(desc.input_tensor, desc.output_tensor, desc.offsets, desc.sizes,
                       desc.strides, level)
    elif isinstance(desc, Slice1OperatorDesc):
        validate_slice1(desc.input_tensor, desc.output_tensor, desc.input_window_offsets,
                        desc.input_window_sizes, desc.input_window_strides, level)
    elif isinstance(desc, TileOperatorDesc):
        validate_tile(desc.input_tensor, desc.output_tensor, desc.repeats, level)
    else:
        validate_cumulative(desc.OPERATOR, desc.input_tensor, desc.output_tensor, desc.axis,
                            desc.axis_direction, level)


def check_operator(desc, level):
    """Every rule desc breaks at level (a FeatureLevel or None), as a list of messages."""
    op = desc.OPERATOR
    messages = []
    try:
        _validate_operator(desc, level)
    except InvalidArgumentError as error:
        messages += error.violations
    v = Violations(op)
    named = _named_tensors(desc)
    layouts_ok = all([check_buffer_tensor(v, field, tensor, level, is_input)
                      for field, tensor, is_input in named])
    if isinstance(desc, (CumulativeSummationOperatorDesc, CumulativeProductOperatorDesc)):
        try:
            as_bool(getattr(desc, desc.FIELDS[-1]), desc.EXCLUSIVE_FIELD)
        except InvalidArgumentError as error:
            v.note(str(error))
    if not messages and layouts_ok:
        for field, tensor, is_input in named:
            if not is_input:
                check_output_self_overlap(v, field, tensor, tensor.element_size)
    return messages + v.messages


def compile_operator(desc, feature_level=None):
    """Validates desc once (every rule of SPEC.md sections 2 to 4) and plans it.

    ``feature_level``: None (extended mode), a FeatureLevel, its value (0x4100) or label ("4_1").
    Raises InvalidArgumentError naming the first broken rule; ``.violations`` lists them all.
    """
    if not isinstance(desc, _OperatorDesc):
        raise TypeError(f"compile_operator takes an operator descriptor (SplitOperatorDesc, ...), "
                        f"not {type(desc).__name__}")
    level = parse_feature_level(feature_level)
    messages = check_operator(desc, level)
    if messages:
        more = len(messages) - 1
        first = messages[0] if not more else f"{messages[0]} (and {more} more: see .violations)"
        raise InvalidArgumentError(first, messages)
    return CompiledOperator(desc, level)


def _layouts(named):
    return [(slot, 0, tensor.sizes, tuple(s * tensor.element_size
                                          for s in tensor.element_strides()))
            for slot, (_, tensor, _) in enumerate(named)]


def _plan_for(desc, layouts):
    elsize = (desc.input_tensors[0] if isinstance(desc, JoinOperatorDesc)
              else desc.input_tensor).element_size
    if isinstance(desc, SplitOperatorDesc):
        return _plan.plan_split(layouts[0], layouts[1:], desc.axis, elsize)
    if isinstance(desc, JoinOperatorDesc):
        return _plan.plan_join(layouts[:-1], layouts[-1], desc.axis, elsize)
    if isinstance(desc, SliceOperatorDesc):
        return _plan.plan_window(layouts[0], layouts[1], desc.offsets, desc.strides, elsize)
    if isinstance(desc, Slice1OperatorDesc):
        starts = _plan.slice1_starts(desc.input_window_offsets, desc.input_window_sizes,
                                     desc.input_window_strides)
        return _plan.plan_window(layouts[0], layouts[1], starts, desc.input_window_strides,
                                 elsize)
    if isinstance(desc, TileOperatorDesc):
        return _plan.plan_tile(layouts[0], layouts[1], elsize)
    return _plan.plan_scan(desc.OPERATOR, layouts[0], layouts[1], desc.input_tensor.data_type,
                           desc.axis, desc.axis_direction == AxisDirection.DECREASING,
                           desc.exclusive, elsize)


def _same_layout(a, b):
    return (a.data_type == b.data_type and a.sizes == b.sizes
            and a.element_strides() == b.element_strides()
            and a.required_bytes() == b.required_bytes())


class CompiledOperator(Binding):
    """A validated, planned operator: ``execute(inputs, outputs)`` runs it on raw buffers.

    Attributes: ``desc``, ``feature_level`` (None = extended mode), ``input_count``,
    ``output_count``, ``input_sizes`` and ``output_sizes`` (the bytes each bound buffer must
    hold: its TensorDesc's TotalTensorSizeInBytes). Build it with ``compile_operator``.
    """

    def __init__(self, desc, level):
        named = _named_tensors(desc)
        inputs = [tensor for _, tensor, is_input in named if is_input]
        outputs = [tensor for _, tensor, is_input in named if not is_input]
        self.desc = desc
        self.feature_level = level
        self.input_count = len(inputs)
        self.output_count = len(outputs)
        self.input_sizes = tuple(t.required_bytes() for t in inputs)
        self.output_sizes = tuple(t.required_bytes() for t in outputs)
        in_place = (isinstance(desc, (CumulativeSummationOperatorDesc,
                                      CumulativeProductOperatorDesc))
                    and _same_layout(desc.input_tensor, desc.output_tensor))
        self._bind_plan(_plan_for(desc, _layouts(named)), self.input_sizes + self.output_sizes,
                        [field for field, _, _ in named], desc.OPERATOR, in_place)

    def __repr__(self):
        return (f"<CompiledOperator {self.desc.OPERATOR} at {level_name(self.feature_level)}: "
                f"{self.input_count} input(s) of {list(self.input_sizes)} bytes, "
                f"{self.output_count} output(s) of {list(self.output_sizes)} bytes; "
                f"{self.desc!r}>")
