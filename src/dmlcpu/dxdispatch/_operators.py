"""DxDispatch operator descs to dmlcpu descriptors: DirectML's field names from the operator
registry (``_registry``), read as DxDispatch reads them (JsonParsersGenerated.cpp), built through
the public descriptor classes.

DxDispatch is stricter than ``python -m dmlcpu validate`` about spelling (names exact, enums
and flags by name only, BOOL fields ``true``/``false`` only) and requires every field, the
counts DirectML keeps beside arrays included (OutputCount, InputCount, RepeatsCount, and the
DimensionCount of SLICE and SLICE1, which counts all three of their arrays). Unlike DxDispatch,
dmlcpu checks that each count equals its arrays' lengths, and refuses a key it does not know
(DxDispatch would ignore it, so a misspelt optional field would silently vanish). Integers are
range-checked to 64 bits here; DirectML's narrower fields are the validator's to report.
"""
from collections import namedtuple

from .. import _registry as R
from .._desc import OPERATOR_DESCS, TensorDesc
from ._values import ModelError, at, parse_data_type, parse_uint, require, show
from .._types import AxisDirection

# A bind point: DirectML's field name, its tensors, and whether they are inputs.
BindPoint = namedtuple("BindPoint", "name tensors is_input")

OPERATOR_NAMES = tuple(R.OPERATORS)
_TENSOR_FLAGS = {"NONE": 0, "OWNED_BY_DML": 1}
_DIRECTIONS = {"INCREASING": AxisDirection.INCREASING, "DECREASING": AxisDirection.DECREASING}


def operator_name(value):
    """One of the seven names from "DML_OPERATOR_X" or "X" (exact case), else None."""
    if isinstance(value, str):
        name = value[len("DML_OPERATOR_"):] if value.startswith("DML_OPERATOR_") else value
        if name in R.OPERATORS:
            return name
    return None


def _check_keys(obj, known, path):
    unknown = [key for key in obj if key not in known]
    if unknown:
        raise ModelError(f"{path or 'the dispatchable'}: unknown field {unknown[0]!r} "
                         f"(DxDispatch would ignore it); the fields are {', '.join(known)}")


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


def _count_name(field):
    """The count DirectML keeps beside an array field of an operator, if any."""
    if field.kind in (R.UINTS, R.INTS):
        return field.count or "DimensionCount"  # one per dimension: SLICE, SLICE1, TILE
    return field.count                           # OutputCount, InputCount


def _int(value, path, signed):
    """An integer token of at most 64 bits; DirectML's narrower widths are the validator's."""
    if isinstance(value, bool) or not isinstance(value, int) or (value < 0 and not signed):
        raise ModelError(f"{path} must be {'an' if signed else 'an unsigned'} integer, not "
                         f"{show(value)}")
    if not (-2**63 if signed else 0) <= value < 2**(63 if signed else 64):
        raise ModelError(f"{path} is {show(value)}, beyond 64 bits")
    return value


def _int_list(value, path, signed):
    if not isinstance(value, list):
        raise ModelError(f"{path} must be an array of integers, not {show(value)}")
    return [_int(v, f"{path}[{i}]", signed) for i, v in enumerate(value)]


def _bool(value, path):
    if not isinstance(value, bool):  # DxDispatch's ParseBool takes true/false only
        raise ModelError(f"{path} must be true or false, not {show(value)}")
    return value


def _tensors(value, path):
    if not isinstance(value, list):
        raise ModelError(f"{path} must be an array of tensor descs, not {show(value)}")
    return [parse_tensor(t, f"{path}[{i}]") for i, t in enumerate(value)]


# How a DxDispatch model gives each kind of field (the registry's kinds).
_READ = {
    R.TENSOR: lambda value, path: parse_tensor(value, path), R.TENSORS: _tensors,
    R.INT: lambda value, path: _int(value, path, True),
    R.UINT: lambda value, path: _int(value, path, False),
    R.INTS: lambda value, path: _int_list(value, path, True),
    R.UINTS: lambda value, path: _int_list(value, path, False),
    R.DIRECTION: lambda value, path: parse_names(value, _DIRECTIONS, "DML_AXIS_DIRECTION_",
                                                 path),
    R.BOOL: _bool, R.DATA_TYPE: parse_data_type,
    R.FLAGS: lambda value, path: parse_names(value, _TENSOR_FLAGS, "DML_TENSOR_FLAG_", path,
                                             many=True),
}


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
        path, obj = f"{path}.Desc", require(obj, "Desc", path)
        if not isinstance(obj, dict):
            raise ModelError(f"{path} must be a buffer tensor desc object, not {show(obj)}")
    _check_keys(obj, [f.dml for f in R.TENSOR_DESC_FIELDS] + ["DimensionCount"], path)
    kwargs = {f.name: _READ[f.kind](require(obj, f.dml, path) if f.required else
                                    obj[f.dml], at(path, f.dml))
              for f in R.TENSOR_DESC_FIELDS if f.required or f.dml in obj}
    if "DimensionCount" in obj:  # optional here: DxDispatch takes len(Sizes) without it
        count = parse_uint(obj["DimensionCount"], at(path, "DimensionCount"))
        if count != len(kwargs["sizes"]):
            raise ModelError(f"{path}.DimensionCount is {count} but Sizes has "
                             f"{len(kwargs['sizes'])} entries (DirectML would read {count})")
    if not kwargs.get("total_tensor_size_in_bytes"):
        kwargs["total_tensor_size_in_bytes"] = None  # 0: DMLCalcBufferTensorSize, as DxDispatch
    return TensorDesc(**kwargs)


def parse_operator(op, fields, path, ignored=()):
    """(descriptor, [BindPoint]) for operator op from its desc object (keys in ignored are the
    dispatchable's own, present when the desc is collapsed into it)."""
    record = R.OPERATORS[op]
    counts = {}
    for f in record.fields:
        if _count_name(f):
            counts.setdefault(_count_name(f), []).append(f.dml)
    _check_keys({k: v for k, v in fields.items() if k not in ignored},
                [f.dml for f in record.fields] + list(counts), path)
    kwargs, given = {}, {}
    for f in record.fields:  # DxDispatch requires every field, defaults or not
        given[f.dml] = kwargs[f.name] = _READ[f.kind](require(fields, f.dml, path),
                                                      at(path, f.dml))
    for count_name, arrays in counts.items():
        count = parse_uint(require(fields, count_name, path), at(path, count_name))
        for array in arrays:
            if len(given[array]) != count:
                raise ModelError(f"{at(path, count_name)} is {count} but {array} has "
                                 f"{len(given[array])} entries (DirectML would read {count})")
    bind_points = [BindPoint(f.dml, given[f.dml] if f.kind == R.TENSORS else [given[f.dml]],
                             f.role == R.INPUT)
                   for f in record.fields if f.kind in (R.TENSOR, R.TENSORS)]
    return OPERATOR_DESCS[op](**kwargs), bind_points
