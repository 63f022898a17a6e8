"""DxDispatch operator descs to dmlcpu descriptors: DirectML's field names, parsed as DxDispatch
parses them (JsonParsersGenerated.cpp), then built through the public descriptor classes.

Every field is required, as in DxDispatch; the counts DirectML keeps beside arrays (OutputCount,
InputCount, RepeatsCount, the operators' DimensionCount, a tensor's DimensionCount) must be
written and, unlike in DxDispatch, must equal the arrays' lengths. A key DxDispatch does not know
is refused by name (DxDispatch would ignore it, so a misspelt optional field would silently
vanish).
"""
from collections import namedtuple

from . import _desc
from ._dxdispatch_values import ModelError, parse_data_type, parse_uint, show
from ._types import AxisDirection

# A bind point: DirectML's field name, its tensors, and whether they are inputs.
BindPoint = namedtuple("BindPoint", "name tensors is_input")

# Per operator: (descriptor class, [(field, Python keyword, kind)], {count field: arrays}).
_OPERATORS = {
    "SPLIT": (_desc.SplitOperatorDesc,
              [("InputTensor", "input_tensor", "tensor"),
               ("OutputTensors", "output_tensors", "tensors"), ("Axis", "axis", "uint")],
              {"OutputCount": ("OutputTensors",)}),
    "JOIN": (_desc.JoinOperatorDesc,
             [("InputTensors", "input_tensors", "tensors"),
              ("OutputTensor", "output_tensor", "tensor"), ("Axis", "axis", "uint")],
             {"InputCount": ("InputTensors",)}),
    "SLICE": (_desc.SliceOperatorDesc,
              [("InputTensor", "input_tensor", "tensor"),
               ("OutputTensor", "output_tensor", "tensor"), ("Offsets", "offsets", "uints"),
               ("Sizes", "sizes", "uints"), ("Strides", "strides", "uints")],
              {"DimensionCount": ("Offsets", "Sizes", "Strides")}),
    "SLICE1": (_desc.Slice1OperatorDesc,
               [("InputTensor", "input_tensor", "tensor"),
                ("OutputTensor", "output_tensor", "tensor"),
                ("InputWindowOffsets", "input_window_offsets", "uints"),
                ("InputWindowSizes", "input_window_sizes", "uints"),
                ("InputWindowStrides", "input_window_strides", "ints")],
               {"DimensionCount": ("InputWindowOffsets", "InputWindowSizes",
                                   "InputWindowStrides")}),
    "TILE": (_desc.TileOperatorDesc,
             [("InputTensor", "input_tensor", "tensor"),
              ("OutputTensor", "output_tensor", "tensor"), ("Repeats", "repeats", "uints")],
             {"RepeatsCount": ("Repeats",)}),
    "CUMULATIVE_SUMMATION": (_desc.CumulativeSummationOperatorDesc,
                             [("InputTensor", "input_tensor", "tensor"),
                              ("OutputTensor", "output_tensor", "tensor"),
                              ("Axis", "axis", "uint"),
                              ("AxisDirection", "axis_direction", "direction"),
                              ("HasExclusiveSum", "has_exclusive_sum", "bool")], {}),
    "CUMULATIVE_PRODUCT": (_desc.CumulativeProductOperatorDesc,
                           [("InputTensor", "input_tensor", "tensor"),
                            ("OutputTensor", "output_tensor", "tensor"),
                            ("Axis", "axis", "uint"),
                            ("AxisDirection", "axis_direction", "direction"),
                            ("HasExclusiveProduct", "has_exclusive_product", "bool")], {}),
}
OPERATOR_NAMES = tuple(_OPERATORS)

_TENSOR_FIELDS = ("DataType", "Sizes", "Strides", "DimensionCount", "Flags",
                  "TotalTensorSizeInBytes", "GuaranteedBaseOffsetAlignment")
_TENSOR_FLAGS = {"NONE": 0, "OWNED_BY_DML": 1}
_DIRECTIONS = {"INCREASING": AxisDirection.INCREASING, "DECREASING": AxisDirection.DECREASING}


def operator_name(value):
    """One of the seven names from "DML_OPERATOR_X" or "X" (exact case), else None."""
    if isinstance(value, str):
        name = value[len("DML_OPERATOR_"):] if value.startswith("DML_OPERATOR_") else value
        if name in _OPERATORS:
            return name
    return None


def _check_keys(obj, known, path):
    unknown = [key for key in obj if key not in known]
    if unknown:
        raise ModelError(f"{path or 'the dispatchable'}: unknown field {unknown[0]!r} (DxDispatch would ignore it); "
                         f"the fields are {', '.join(known)}")


def at(path, name):
    """The JSON path of field name inside path ("" is the object itself)."""
    return f"{path}.{name}" if path else name


def _require(obj, name, path):
    if name not in obj:
        raise ModelError(f"{at(path, name)} is missing")
    return obj[name]


def _uint_list(value, path, signed=False):
    if not isinstance(value, list):
        raise ModelError(f"{path} must be an array of integers, not {show(value)}")
    if not signed:
        return [parse_uint(v, f"{path}[{i}]") for i, v in enumerate(value)]
    out = []
    for i, v in enumerate(value):
        if isinstance(v, bool) or not isinstance(v, int) or not -2**31 <= v < 2**31:
            raise ModelError(f"{path}[{i}] must be an integer from {-2**31} to {2**31 - 1}, "
                             f"not {show(v)}")
        out.append(v)
    return out


def parse_names(value, table, prefix, path, many=False):
    """A value from table by "PREFIX_X" or "X"; with many, also an array of them OR-ed."""
    items = value if many and isinstance(value, list) else [value]
    result = 0
    for item in items:
        name = item[len(prefix):] if isinstance(item, str) and item.startswith(prefix) else item
        if not isinstance(name, str) or name not in table:
            raise ModelError(f"{path} is {show(item)}; expected one of "
                             f"{', '.join(prefix + key for key in table)} (or without the prefix)")
        result |= table[name]
    return result


def parse_tensor(obj, path):
    """A TensorDesc from a collapsed {"DataType", "Sizes", ...} or a full {"Type", "Desc"}."""
    if not isinstance(obj, dict):
        raise ModelError(f"{path} must be a tensor desc object, not {show(obj)}")
    if "Type" in obj or "Desc" in obj:
        _check_keys(obj, ("Type", "Desc"), path)
        kind = obj.get("Type", "DML_TENSOR_TYPE_BUFFER")
        if kind not in ("DML_TENSOR_TYPE_BUFFER", "BUFFER"):
            raise ModelError(f"{path}.Type is {show(kind)}; dmlcpu's operators take only "
                             f"DML_TENSOR_TYPE_BUFFER tensors")
        path, obj = f"{path}.Desc", _require(obj, "Desc", path)
        if not isinstance(obj, dict):
            raise ModelError(f"{path} must be a buffer tensor desc object, not {show(obj)}")
    _check_keys(obj, _TENSOR_FIELDS, path)
    data_type = parse_data_type(_require(obj, "DataType", path), f"{path}.DataType")
    sizes = _uint_list(_require(obj, "Sizes", path), f"{path}.Sizes")
    strides = None
    if "Strides" in obj:
        strides = _uint_list(obj["Strides"], f"{path}.Strides")
    if "DimensionCount" in obj:
        count = parse_uint(obj["DimensionCount"], f"{path}.DimensionCount")
        if count != len(sizes):
            raise ModelError(f"{path}.DimensionCount is {count} but Sizes has {len(sizes)} "
                             f"entries (DirectML would read {count})")
    flags = parse_names(obj.get("Flags", "NONE"), _TENSOR_FLAGS, "DML_TENSOR_FLAG_", f"{path}.Flags",
                   many=True)
    total = parse_uint(obj.get("TotalTensorSizeInBytes", 0), f"{path}.TotalTensorSizeInBytes",
                       bits=64)
    alignment = parse_uint(obj.get("GuaranteedBaseOffsetAlignment", 0),
                           f"{path}.GuaranteedBaseOffsetAlignment")
    # 0 means "compute it" (DMLCalcBufferTensorSize), as in DxDispatch.
    return _desc.TensorDesc(data_type, sizes, strides, total or None, alignment, flags)


def _field(value, kind, path):
    if kind == "tensor":
        return parse_tensor(value, path)
    if kind == "tensors":
        if not isinstance(value, list):
            raise ModelError(f"{path} must be an array of tensor descs, not {show(value)}")
        return [parse_tensor(t, f"{path}[{i}]") for i, t in enumerate(value)]
    if kind == "uint":
        return parse_uint(value, path)
    if kind in ("uints", "ints"):
        return _uint_list(value, path, signed=kind == "ints")
    if kind == "direction":
        return parse_names(value, _DIRECTIONS, "DML_AXIS_DIRECTION_", path)
    if not isinstance(value, bool):  # "bool": DxDispatch's ParseBool takes true/false only
        raise ModelError(f"{path} must be true or false, not {show(value)}")
    return value


def parse_operator(op, fields, path, ignored=()):
    """(descriptor, [BindPoint]) for operator op from its desc object (keys in ignored are the
    dispatchable's own, present when the desc is collapsed into it)."""
    cls, spec, counts = _OPERATORS[op]
    known = [name for name, _, _ in spec] + list(counts)
    _check_keys({k: v for k, v in fields.items() if k not in ignored}, known, path)
    kwargs, parsed = {}, {}
    for name, keyword, kind in spec:
        parsed[name] = kwargs[keyword] = _field(_require(fields, name, path), kind,
                                                at(path, name))
    for count_name, arrays in counts.items():
        count = parse_uint(_require(fields, count_name, path), at(path, count_name))
        for array in arrays:
            if len(parsed[array]) != count:
                raise ModelError(f"{at(path, count_name)} is {count} but {array} has "
                                 f"{len(parsed[array])} entries (DirectML would read {count})")
    bind_points = [BindPoint(name, parsed[name] if kind == "tensors" else [parsed[name]],
                             name.startswith("Input"))
                   for name, _, kind in spec if kind in ("tensor", "tensors")]
    return cls(**kwargs), bind_points
