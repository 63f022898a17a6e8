"""The seven operators as data: one record each, from which everything per operator is derived.

A record names the operator, its descriptor class, and its fields in DirectML's order with
DirectML's and Python's names, kinds and tensor roles; it points at the operator's validator
(``_validate``: returns the rules a call breaks, never raises) and planner (``_plan``), and says
whether the output may be the input itself. From the records come the descriptor classes and
their dispatch (``_desc``), the JSON schema of ``python -m dmlcpu validate`` (``cli.validate``)
and the eager API's argument handling. Adding an operator is one record, one validator and one
planner. See docs/semantics.md for what each operator does.
"""
from functools import partial
from typing import Callable, NamedTuple

from . import _plan
from . import _validate as V
from ._types import ELEMENT_SIZES, AxisDirection

# Field kinds. A kind says how a value is converted (descriptor constructors), read from JSON
# (the CLI) and which width DirectML gives it (the validators check every integer fits).
TENSOR = "tensor"        # one TensorDesc (an array in the eager API)
TENSORS = "tensors"      # a sequence of them
INT = "int"              # a signed integer (INT, INT64)
UINT = "uint"            # an unsigned integer (UINT, UINT64)
UINTS = "uints"          # a sequence of unsigned integers, one per dimension
INTS = "ints"            # a sequence of signed integers, one per dimension
DIRECTION = "direction"  # DML_AXIS_DIRECTION: 0, 1 or its name
BOOL = "bool"            # DirectML's BOOL: True/False, 0 or 1
DATA_TYPE = "data_type"  # DML_TENSOR_DATA_TYPE: a TensorDataType, its value or its name
FLAGS = "flags"          # DML_TENSOR_FLAGS: 0, 1 or its name

INPUT, OUTPUT = "input", "output"
REQUIRED = object()  # the default of a field that must be given


class Field(NamedTuple):
    """One field of a descriptor: DirectML's name, Python's name, kind and, for tensors, role."""

    dml: str
    name: str
    kind: str
    role: str = ""            # INPUT or OUTPUT for TENSOR and TENSORS fields
    default: object = REQUIRED
    count: str = ""           # DirectML's count field beside an array ("OutputCount"), if any

    @property
    def required(self):
        return self.default is REQUIRED


class Operator(NamedTuple):
    """One operator: everything the Python layer needs to know about it, in one place.

    ``violations(*field values, level, allow_empty)`` lists the rules broken (``_validate``);
    ``planner(args, input_layouts, output_layouts, data_type)`` plans validated ``args`` (anything
    with the fields as attributes); ``in_place``: the output may be the input's identical view.
    """

    name: str
    function: str       # the eager API's function (dmlcpu.split, ...)
    desc_class: str
    doc: str
    fields: tuple
    violations: Callable
    planner: Callable
    in_place: bool = False

    def check(self, args, level, allow_empty=False):
        """Every rule ``args`` (the fields as attributes) breaks at ``level``, as messages: the
        operator's validator's, then each BOOL field's (0 or 1)."""
        values = [getattr(args, f.name) for f in self.fields]
        messages = self.violations(*values, level, allow_empty=allow_empty)
        v = V.Violations(self.name)
        for f, value in zip(self.fields, values):
            if f.kind == BOOL:
                V.check_bool(v, f.dml, value)
        return messages + v.messages

    def named_tensors(self, args):
        """[(field path, tensor, is_input)] in slot order: every input, then every output."""
        named = {INPUT: [], OUTPUT: []}
        for f in self.fields:
            if f.kind == TENSOR:
                named[f.role].append((f.dml, getattr(args, f.name), f.role == INPUT))
            elif f.kind == TENSORS:
                named[f.role] += [(f"{f.dml}[{k}]", t, f.role == INPUT)
                                  for k, t in enumerate(getattr(args, f.name))]
        return named[INPUT] + named[OUTPUT]


def _tensor_fields(inputs_many=False, outputs_many=False):
    first = (Field("InputTensors", "input_tensors", TENSORS, INPUT, count="InputCount")
             if inputs_many else Field("InputTensor", "input_tensor", TENSOR, INPUT))
    second = (Field("OutputTensors", "output_tensors", TENSORS, OUTPUT, count="OutputCount")
              if outputs_many else Field("OutputTensor", "output_tensor", TENSOR, OUTPUT))
    return (first, second)


# ---------------------------------------------------------------- planners (over _plan)

def _plan_split(args, inputs, outputs, data_type):
    return _plan.plan_split(inputs[0], outputs, args.axis, ELEMENT_SIZES[data_type])


def _plan_join(args, inputs, outputs, data_type):
    return _plan.plan_join(inputs, outputs[0], args.axis, ELEMENT_SIZES[data_type])


def _plan_slice(args, inputs, outputs, data_type):
    return _plan.plan_window(inputs[0], outputs[0], args.offsets, args.strides,
                             ELEMENT_SIZES[data_type])


def _plan_slice1(args, inputs, outputs, data_type):
    starts = _plan.slice1_starts(args.input_window_offsets, args.input_window_sizes,
                                 args.input_window_strides)
    return _plan.plan_window(inputs[0], outputs[0], starts, args.input_window_strides,
                             ELEMENT_SIZES[data_type])


def _plan_tile(args, inputs, outputs, data_type):
    return _plan.plan_tile(inputs[0], outputs[0], ELEMENT_SIZES[data_type])


def _scan_planner(op, exclusive_field):
    def plan(args, inputs, outputs, data_type):
        return _plan.plan_scan(op, inputs[0], outputs[0], data_type, args.axis,
                               args.axis_direction == AxisDirection.DECREASING,
                               bool(getattr(args, exclusive_field)), ELEMENT_SIZES[data_type])
    return plan


# ---------------------------------------------------------------- the seven records

def _scan(op, desc_class, dml_flag, flag):
    return Operator(
        op, op.lower(), desc_class,
        f"DML_{op}_OPERATOR_DESC: InputTensor, OutputTensor, Axis, AxisDirection, {dml_flag}.",
        _tensor_fields() + (
            Field("Axis", "axis", INT),
            Field("AxisDirection", "axis_direction", DIRECTION,
                  default=AxisDirection.INCREASING),
            Field(dml_flag, flag, BOOL, default=False)),
        partial(V.cumulative_violations, op), _scan_planner(op, flag), in_place=True)


OPERATORS = {record.name: record for record in (
    Operator("SPLIT", "split", "SplitOperatorDesc",
             "DML_SPLIT_OPERATOR_DESC: InputTensor, OutputTensors[OutputCount], Axis.",
             _tensor_fields(outputs_many=True) + (Field("Axis", "axis", INT),),
             V.split_violations, _plan_split),
    Operator("SLICE", "slice", "SliceOperatorDesc",
             "DML_SLICE_OPERATOR_DESC: InputTensor, OutputTensor, Offsets, Sizes, Strides.",
             _tensor_fields() + (Field("Offsets", "offsets", UINTS),
                                 Field("Sizes", "sizes", UINTS, count="DimensionCount"),
                                 Field("Strides", "strides", UINTS)),
             V.slice_violations, _plan_slice),
    Operator("SLICE1", "slice1", "Slice1OperatorDesc",
             "DML_SLICE1_OPERATOR_DESC: InputTensor, OutputTensor, InputWindowOffsets, "
             "InputWindowSizes, InputWindowStrides (signed, never 0).",
             _tensor_fields() + (Field("InputWindowOffsets", "input_window_offsets", UINTS),
                                 Field("InputWindowSizes", "input_window_sizes", UINTS),
                                 Field("InputWindowStrides", "input_window_strides", INTS)),
             V.slice1_violations, _plan_slice1),
    Operator("JOIN", "join", "JoinOperatorDesc",
             "DML_JOIN_OPERATOR_DESC: InputTensors[InputCount], OutputTensor, Axis.",
             _tensor_fields(inputs_many=True) + (Field("Axis", "axis", INT),),
             V.join_violations, _plan_join),
    Operator("TILE", "tile", "TileOperatorDesc",
             "DML_TILE_OPERATOR_DESC: InputTensor, OutputTensor, Repeats[RepeatsCount].",
             _tensor_fields() + (Field("Repeats", "repeats", UINTS, count="RepeatsCount"),),
             V.tile_violations, _plan_tile),
    _scan("CUMULATIVE_SUMMATION", "CumulativeSummationOperatorDesc", "HasExclusiveSum",
          "has_exclusive_sum"),
    _scan("CUMULATIVE_PRODUCT", "CumulativeProductOperatorDesc", "HasExclusiveProduct",
          "has_exclusive_product"),
)}

# DML_BUFFER_TENSOR_DESC's fields (TensorDesc; a tensor object in the CLI's JSON).
TENSOR_DESC_FIELDS = (
    Field("DataType", "data_type", DATA_TYPE),
    Field("Sizes", "sizes", UINTS, count="DimensionCount"),
    Field("Strides", "strides", UINTS, default=None),
    Field("TotalTensorSizeInBytes", "total_tensor_size_in_bytes", UINT, default=None),
    Field("GuaranteedBaseOffsetAlignment", "guaranteed_base_offset_alignment", UINT, default=0),
    Field("Flags", "flags", FLAGS, default=0),
)
