"""DirectML-shaped operator descriptors over raw buffers: validate once, execute many times.

``TensorDesc`` is DML_BUFFER_TENSOR_DESC (docs/semantics.md); the seven ``*OperatorDesc`` classes
are made from the operator registry (``_registry``), with DirectML's fields in snake_case.
``compile_operator`` checks every rule once, with the same validators as the eager API
(descriptors never take sizes of 0) plus the buffer tensor rules, and plans the operator over
element strides scaled to bytes. ``CompiledOperator.execute`` then binds buffers (checked in
Cython: lengths, writability, overlap) and runs the plan.

Constructors only convert types (TypeError for a non-integer field, a non-TensorDesc tensor);
every value DirectML would refuse is reported by ``compile_operator``, all at once, in
``InvalidArgumentError.violations``.
"""
from . import _registry as R
from ._buffer_rules import check_buffer_tensor, check_output_self_overlap, min_buffer_bytes
from ._core import Binding
from ._errors import InvalidArgumentError
from ._types import ELEMENT_SIZES, AxisDirection, TensorDataType
from ._validate import (Violations, as_int, as_int_list, at_level, parse_feature_level,
                        raise_violations, show)

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
        raise InvalidArgumentError(f"data_type {show(data_type)} is not a DirectML data type")
    if not 1 <= len(sizes) <= 8 or any(size < 1 for size in sizes):
        raise InvalidArgumentError(f"sizes {show(sizes)} must have 1 to 8 entries, each at "
                                   f"least 1")
    if strides is not None and (len(strides) != len(sizes) or any(s < 0 for s in strides)):
        raise InvalidArgumentError(f"strides {show(strides)} must have one entry per size, "
                                   f"each at least 0")
    return min_buffer_bytes(element_size, sizes, strides)


# ---------------------------------------------------------------- fields by kind

def _tensor(value, field):
    if not isinstance(value, TensorDesc):
        raise TypeError(f"{field} must be a TensorDesc, not {type(value).__name__}")
    return value


def _tensor_list(values, field):
    if isinstance(values, (str, bytes, TensorDesc)) or not hasattr(values, "__len__"):
        raise TypeError(f"{field} must be a sequence of TensorDesc, not {type(values).__name__}")
    return tuple(_tensor(t, f"{field}[{k}]") for k, t in enumerate(values))


def _as_direction(value, field):
    number = as_int(value, field)
    try:
        return AxisDirection(number)
    except ValueError:
        return number  # reported by the validator


def _as_bool_field(value, field):
    """True/False, or an int kept as given (compile_operator reports values other than 0 or 1)."""
    return value if isinstance(value, bool) else as_int(value, field)


# How a constructor converts each kind of field: types only, values are the validators' job.
_CONVERT = {R.TENSOR: _tensor, R.TENSORS: _tensor_list, R.INT: as_int, R.UINT: as_int,
            R.INTS: as_int_list, R.UINTS: as_int_list, R.DIRECTION: _as_direction,
            R.BOOL: _as_bool_field, R.DATA_TYPE: as_data_type, R.FLAGS: as_int}


def _constructor(class_name, fields):
    """An ``__init__`` taking the fields in order (defaults as the registry gives them), converting
    each by kind. Written out as source, as namedtuple and dataclasses do, so a call costs what a
    hand-written constructor costs and a wrong call gets Python's own TypeError."""
    params = ", ".join(f.name if f.required else f"{f.name}=_defaults[{k}]"
                       for k, f in enumerate(fields))
    names = "".join(f"{f.name}, " for f in fields)
    source = (f"def __init__(self, {params}):\n"
              f"    _set_fields(self, _fields, ({names}))\n")
    converters = tuple((f.name, _CONVERT[f.kind], f.dml, f.default is None) for f in fields)
    namespace = {"_defaults": [f.default for f in fields], "_fields": converters,
                 "_set_fields": _set_fields}
    exec(source, namespace)  # noqa: S102 - the source above is built from the registry's names
    init = namespace["__init__"]
    init.__qualname__ = f"{class_name}.__init__"
    return init


def _set_fields(obj, converters, values):
    """Each value converted by its field's kind (a None default stays None)."""
    for (name, convert, dml, may_be_none), value in zip(converters, values):
        setattr(obj, name, value if value is None and may_be_none else convert(value, dml))


def _repr(value):
    """repr, but lists for tuples and every int shown however long (repr refuses past 4,300
    digits)."""
    if isinstance(value, tuple):
        return f"[{', '.join(_repr(item) for item in value)}]"
    return show(value) if type(value) is int else repr(value)


class TensorDesc:
    """DML_BUFFER_TENSOR_DESC: data type, sizes and element strides of a tensor in a buffer.

    ``strides`` None is packed row-major; 0 broadcasts; larger strides leave padding.
    ``total_tensor_size_in_bytes`` None is the minimum (``calc_buffer_tensor_size``).
    """

    __slots__ = tuple(f.name for f in R.TENSOR_DESC_FIELDS)
    __init__ = _constructor("TensorDesc", R.TENSOR_DESC_FIELDS)

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
        return min_buffer_bytes(self.element_size, self.sizes, self.strides)

    def _key(self):
        return (self.data_type, self.sizes, self.strides, self.total_tensor_size_in_bytes,
                self.guaranteed_base_offset_alignment, self.flags)

    def __eq__(self, other):
        return isinstance(other, TensorDesc) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        name = self.data_type.name if isinstance(self.data_type, TensorDataType) else \
            _repr(self.data_type)
        parts = [name] + [f"{f.name}={_repr(getattr(self, f.name))}"
                          for f in R.TENSOR_DESC_FIELDS[1:]
                          if f.required or getattr(self, f.name) != f.default]
        return f"TensorDesc({', '.join(parts)})"


class _OperatorDesc:
    """Base of the seven descriptors: ``RECORD`` is the operator's registry entry, ``OPERATOR``
    its name, ``FIELDS`` its attributes in order."""

    RECORD = None
    OPERATOR = ""
    FIELDS = ()
    __slots__ = ()

    def __eq__(self, other):
        return type(other) is type(self) and all(
            getattr(self, f) == getattr(other, f) for f in self.FIELDS)

    __hash__ = None

    def __repr__(self):
        fields = ", ".join(f"{f}={_repr(getattr(self, f))}" for f in self.FIELDS)
        return f"{type(self).__name__}({fields})"


def _descriptor_class(record):
    """The public class of one registry record: its fields as slots, its constructor's signature."""
    names = tuple(f.name for f in record.fields)
    namespace = {"__doc__": record.doc, "__module__": __name__, "__slots__": names,
                 "__init__": _constructor(record.desc_class, record.fields), "RECORD": record,
                 "OPERATOR": record.name, "FIELDS": names}
    for f in record.fields:
        if f.kind == R.BOOL:  # HasExclusiveSum / HasExclusiveProduct, under one name
            namespace["exclusive"] = property(lambda self, name=f.name: getattr(self, name))
    return type(record.desc_class, (_OperatorDesc,), namespace)


OPERATOR_DESCS = {op: _descriptor_class(record) for op, record in R.OPERATORS.items()}
SplitOperatorDesc = OPERATOR_DESCS["SPLIT"]
SliceOperatorDesc = OPERATOR_DESCS["SLICE"]
Slice1OperatorDesc = OPERATOR_DESCS["SLICE1"]
JoinOperatorDesc = OPERATOR_DESCS["JOIN"]
TileOperatorDesc = OPERATOR_DESCS["TILE"]
CumulativeSummationOperatorDesc = OPERATOR_DESCS["CUMULATIVE_SUMMATION"]
CumulativeProductOperatorDesc = OPERATOR_DESCS["CUMULATIVE_PRODUCT"]


# ---------------------------------------------------------------- compiling

def check_operator(desc, level):
    """Every rule desc breaks at level (a FeatureLevel or None), as a list of messages."""
    record = desc.RECORD
    messages = record.check(desc, level)
    v = Violations(record.name)
    named = record.named_tensors(desc)
    layouts_ok = all([check_buffer_tensor(v, field, tensor, level, is_input)
                      for field, tensor, is_input in named])
    if not messages and layouts_ok:
        for field, tensor, is_input in named:
            if not is_input:
                check_output_self_overlap(v, field, tensor)
    return messages + v.messages


def compile_operator(desc, feature_level=None):
    """Validates desc once (every rule of docs/semantics.md) and plans it.

    ``feature_level``: None (extended mode), a FeatureLevel, its value (0x4100) or label ("4_1").
    Raises InvalidArgumentError naming the first broken rule; ``.violations`` lists them all.
    """
    if not isinstance(desc, _OperatorDesc):
        raise TypeError(f"compile_operator takes an operator descriptor (SplitOperatorDesc, ...), "
                        f"not {type(desc).__name__}")
    level = parse_feature_level(feature_level)
    raise_violations(check_operator(desc, level))
    return CompiledOperator(desc, level)


def _layout(slot, tensor):
    """A plan's view of a bound buffer: element (0, ..., 0) at its start, strides in bytes."""
    return (slot, 0, tensor.sizes, tuple(s * tensor.element_size
                                         for s in tensor.element_strides()))


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
        record = desc.RECORD
        named = record.named_tensors(desc)
        inputs = [tensor for _, tensor, is_input in named if is_input]
        outputs = [tensor for _, tensor, is_input in named if not is_input]
        self.desc = desc
        self.feature_level = level
        self.input_count = len(inputs)
        self.output_count = len(outputs)
        self.input_sizes = tuple(t.required_bytes() for t in inputs)
        self.output_sizes = tuple(t.required_bytes() for t in outputs)
        layouts = [_layout(slot, tensor) for slot, (_, tensor, _) in enumerate(named)]
        plan = record.planner(desc, layouts[:len(inputs)], layouts[len(inputs):],
                              inputs[0].data_type)
        in_place = record.in_place and _same_layout(inputs[0], outputs[0])
        self._bind_plan(plan, self.input_sizes + self.output_sizes,
                        [field for field, _, _ in named], desc.OPERATOR, in_place)

    def __repr__(self):
        return (f"<CompiledOperator {self.desc.OPERATOR} {at_level(self.feature_level)}: "
                f"{self.input_count} input(s) of {list(self.input_sizes)} bytes, "
                f"{self.output_count} output(s) of {list(self.output_sizes)} bytes; "
                f"{self.desc!r}>")
