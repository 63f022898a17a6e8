"""A whole DxDispatch model, read and checked before anything runs.

``parse_model`` turns the parsed JSON into resources (their initial bytes), dispatchables
(compiled dmlcpu operators, checked at one feature level) and commands (with resolved
bindings). Like DxDispatch, it refuses the whole model if any dispatchable is invalid, even one
never dispatched; unlike DxDispatch, it also checks every binding, print and writeFile before
the first command, so a refused model prints nothing. Every problem is collected, each as
"where: what", into one ModelError.
"""
import os
import stat
from collections import namedtuple
from pathlib import Path

import numpy as np

from .._desc import _same_layout, compile_operator
from ._bindings import check_overlaps, resolve_bindings
from ._json import read_at_most
from ._npy import NpyError, fix_byte_order, read_header
from ._operators import OPERATOR_NAMES, operator_name, parse_names, parse_operator
from ._values import (MAX_PROBLEMS, ModelError, check_text, constant_fill, list_bytes, lookup,
                      mixed_list_bytes, parse_data_type, parse_uint, require, sequence_fill, show)
from .._errors import InvalidArgumentError
from .._types import ELEMENT_SIZES, NUMPY_DTYPES, TensorDataType

Model = namedtuple("Model", "resources dispatchables commands")
# initial: the initial values' byte count; buffer: the resource's bytes (a bytearray), made
# and filled here; source: the real path of its sourcePath file, or None.
Resource = namedtuple("Resource", "name data_type initial size buffer source")
Dispatchable = namedtuple("Dispatchable", "name compiled bind_points init")
# inputs and outputs: per tensor in execute order, a Source or (an OWNED_BY_DML input) Owned
Dispatch = namedtuple("Dispatch", "dispatchable inputs outputs")
Owned = namedtuple("Owned", "bind_point index")
Print = namedtuple("Print", "resource verbose")
WriteFile = namedtuple("WriteFile", "resource target dimensions")

_NOT_OPERATORS = {"hlsl": "HLSL shaders", "onnx": "ONNX models",
                  "dmlserializedgraph": "serialized DirectML graphs"}
_EXECUTION_FLAGS = {"NONE": 0, "ALLOW_HALF_PRECISION_COMPUTATION": 1,
                    "DISABLE_META_COMMANDS": 2, "DESCRIPTORS_VOLATILE": 4}
_DISPATCHABLE_KEYS = ("type", "Type", "desc", "Desc", "executionFlags", "dmlCompileType",
                      "bindings")


# ---------------------------------------------------------------- resources

# The initial values of a resource before its buffer exists: their byte count, data type, a
# function writing them at the start of a uint8 view of the buffer, the bytes a stream read
# holds meanwhile (counted against max_bytes too), and the file they come from (never written).
Initial = namedtuple("Initial", "length data_type fill held source")


# The most bytes a resource's initial values may take, and refuse(what, need) saying why not.
Room = namedtuple("Room", "bytes refuse")


def _max_bytes_room(max_bytes):
    def refuse(what, need):
        raise ModelError(f"{what} needs more than {max_bytes} bytes ({need}), the most this "
                         f"run allows (max_bytes)")
    return Room(max_bytes, refuse)


def _size_room(size, offset):
    def refuse(what, need):
        raise ModelError(f"{what}: initialValues ({need} bytes) plus initialValuesOffsetInBytes "
                         f"({offset}) exceed sizeInBytes ({size})")
    return Room(max(size - offset, 0), refuse)


def _open_source(source, input_dir):
    path = Path(source)
    try:
        if not path.is_absolute() and (Path(input_dir) / path).exists():
            path = Path(input_dir) / path  # else relative to the current folder
        handle = open(path, "rb")
    except (OSError, ValueError) as error:  # ValueError: a NUL in the path
        raise ModelError(f"initialValues.sourcePath {source!r} cannot be read: "
                         f"{getattr(error, 'strerror', None) or error}") from None
    return handle, os.path.realpath(path)


def _read_source(spec, data_type, input_dir, room):
    """The Initial of a sourcePath file. A regular file's size is known before it is read, so
    its bytes go straight into the buffer; a stream (a pipe) is read first, at most room bytes,
    and those bytes count against max_bytes while the buffer is filled."""
    source = check_text(require(spec, "sourcePath", "initialValues", str),
                        "initialValues.sourcePath")
    suffix = Path(source).suffix.lower()
    if suffix in (".jpg", ".png"):
        raise ModelError(f"initialValues.sourcePath {source!r}: image files are not supported "
                         f"by dmlcpu")
    handle, real = _open_source(source, input_dir)
    with handle:
        try:
            header = read_header(handle.read) if suffix == ".npy" else None
            start = handle.tell() if header else 0
            mode = os.fstat(handle.fileno()).st_mode
            held = None
            if stat.S_ISREG(mode):
                payload = max(os.fstat(handle.fileno()).st_size - start, 0)
            else:
                held = read_at_most(handle, room.bytes)
                payload = len(held)
        except NpyError as error:
            raise ModelError(f"initialValues.sourcePath {source!r}: {error}") from None
        except OSError as error:
            raise ModelError(f"initialValues.sourcePath {source!r} cannot be read: "
                             f"{error.strerror or error}") from None
    length = header.length(payload) if header else payload
    if length > room.bytes:
        what = (f"initialValues.sourcePath {source!r} (its .npy header's shape)"
                if header and header.claimed > room.bytes else
                f"initialValues.sourcePath {source!r}")
        room.refuse(what, length)
    if header is None:
        if data_type == TensorDataType.UNKNOWN:
            raise ModelError("initialValuesDataType is missing; a raw sourcePath file needs it")
    else:
        file_type = header.data_type
        if file_type is None and data_type == TensorDataType.UNKNOWN:
            raise ModelError(f"initialValues.sourcePath {source!r} holds a type DirectML does "
                             f"not have; give initialValuesDataType")
        if data_type != TensorDataType.UNKNOWN and file_type not in (None, data_type):
            raise ModelError(f"initialValuesDataType is {data_type.name} but the data type from "
                             f"file {source!r} is {file_type.name}")
        data_type = data_type if file_type is None else file_type

    def fill(view):
        if held is not None:
            view[:payload] = held
        else:
            with open(real, "rb") as again:
                again.seek(start)
                got = again.readinto(view[:payload])
            if got != payload:
                raise ModelError(f"initialValues.sourcePath {source!r} changed while it was "
                                 f"read")
        if header:
            fix_byte_order(header, view[:length])
    return Initial(length, data_type, fill, payload if held is not None else 0, real)


def _bytes_initial(data, data_type):
    def fill(view):
        view[:len(data)] = data
    return Initial(len(data), data_type, fill, 0, None)


def _initial(values, data_type, input_dir, room):
    """The Initial of an initialValues value in any of its forms."""
    unknown = data_type == TensorDataType.UNKNOWN
    if isinstance(values, list):
        if unknown:
            return _bytes_initial(mixed_list_bytes(values, "initialValues"), data_type)
        return _bytes_initial(list_bytes(values, data_type, "initialValues"), data_type)
    if isinstance(values, str):
        raise ModelError("initialValues \"deferred\" is for ONNX dispatchables, which dmlcpu "
                         "does not run" if values == "deferred" else
                         f"initialValues must be an array or an object, not {show(values)}")
    if not isinstance(values, dict):
        raise ModelError(f"initialValues must be an array or an object, not {show(values)}")
    forms = [key for key in ("value", "valueStart", "sourcePath") if key in values]
    if len(forms) != 1:
        raise ModelError("initialValues must have exactly one of value (a constant), "
                         "valueStart (a sequence) or sourcePath (a file)")
    if forms[0] == "sourcePath":
        return _read_source(values, data_type, input_dir, room)
    if unknown:
        raise ModelError(f"initialValuesDataType is missing; initialValues.{forms[0]} needs it")
    count = parse_uint(require(values, "valueCount", "initialValues", int),
                       "initialValues.valueCount")
    if count * ELEMENT_SIZES[data_type] > room.bytes:
        room.refuse(f"initialValues.valueCount {count}", count * ELEMENT_SIZES[data_type])
    if forms[0] == "value":
        typed = constant_fill(values["value"], data_type, "initialValues")
    else:
        delta = require(values, "valueDelta", "initialValues")
        typed = sequence_fill(values["valueStart"], delta, data_type, "initialValues")
    dtype = NUMPY_DTYPES[data_type]
    return Initial(count * dtype.itemsize, data_type,
                   lambda view: typed(np.frombuffer(view, dtype, count)), 0, None)


def _resource(name, obj, input_dir, max_bytes):
    """The Resource, its buffer made and its initial values written at byte 0."""
    if not isinstance(obj, dict):
        raise ModelError(f"must be an object, not {show(obj)}")
    data_type = TensorDataType.UNKNOWN
    if "initialValuesDataType" in obj:
        data_type = parse_data_type(obj["initialValuesDataType"], "initialValuesDataType",
                                    allow_unknown=True)
    if "initialValues" not in obj:
        raise ModelError("initialValues is missing")
    offset = parse_uint(obj.get("initialValuesOffsetInBytes", 0), "initialValuesOffsetInBytes",
                        bits=64)
    room = _max_bytes_room(max_bytes)
    if "sizeInBytes" in obj:
        size = parse_uint(obj["sizeInBytes"], "sizeInBytes", bits=64)
        if size > max_bytes:
            raise ModelError(f"sizeInBytes {size} is more than {max_bytes} bytes, the most this "
                             f"run allows (max_bytes)")
        room = _size_room(size, offset)
    initial = _initial(obj["initialValues"], data_type, input_dir, room)
    if not initial.length:
        raise ModelError("initialValues must be non-empty")
    size = (initial.length + 3) & ~3  # DxDispatch rounds only the size it computes
    if "sizeInBytes" in obj:
        size = obj["sizeInBytes"]
    elif size > max_bytes:
        raise ModelError(f"sizeInBytes {size} is more than {max_bytes} bytes, the most this run "
                         f"allows (max_bytes)")
    if initial.length + offset > size:
        raise ModelError(f"initialValues ({initial.length} bytes) plus initialValuesOffsetInBytes "
                         f"({offset}) exceed sizeInBytes ({size})")
    if size + initial.held > max_bytes:
        _max_bytes_room(max_bytes).refuse("the resource with the stream it is read from",
                                          size + initial.held)
    try:
        buffer = bytearray(size)
    except MemoryError:
        raise ModelError(f"sizeInBytes {size}: the buffer cannot be allocated (out of "
                         f"memory)") from None
    initial.fill(memoryview(buffer))
    return Resource(name, initial.data_type, initial.length, size, buffer, initial.source)


# ---------------------------------------------------------------- dispatchables

def parse_dispatchable(obj):
    """(descriptor, bind points) of a dispatchable object; ModelError if DxDispatch would not
    read it or it is not one of the seven operators."""
    if not isinstance(obj, dict):
        raise ModelError(f"must be an object, not {show(obj)}")
    kind = require(obj, "type", "", str)
    if kind.lower() in _NOT_OPERATORS:
        raise ModelError(f"type {kind!r}: dmlcpu runs DirectML operators, not "
                         f"{_NOT_OPERATORS[kind.lower()]}")
    op_value = obj["Type"] if "Type" in obj else kind
    op = operator_name(op_value)
    if op is None:
        raise ModelError(f"{show(op_value)} is not one of the operators dmlcpu runs: "
                         f"{', '.join('DML_OPERATOR_' + n for n in OPERATOR_NAMES)} (exact "
                         f"case, the prefix optional)")
    key = next((k for k in ("Desc", "desc") if k in obj), None)
    fields = obj if key is None else obj[key]
    if not isinstance(fields, dict):
        raise ModelError(f"{key} must be an object, not {show(fields)}")
    parsed = parse_operator(op, fields, key or "", _DISPATCHABLE_KEYS if key is None else ())
    if "executionFlags" in obj:
        parse_names(obj["executionFlags"], _EXECUTION_FLAGS, "DML_EXECUTION_FLAG_",
                    "executionFlags", many=True)
    if obj.get("dmlCompileType", "DmlCompileOp") not in ("DmlCompileOp", "DmlCompileGraph"):
        raise ModelError(f"dmlCompileType is {show(obj['dmlCompileType'])}; expected "
                         f"DmlCompileOp or DmlCompileGraph")
    return parsed


def _dispatchable(name, obj, level, resources):
    desc, bind_points = parse_dispatchable(obj)
    try:
        compiled = compile_operator(desc, level)
    except InvalidArgumentError as error:
        raise ModelError(error.violations) from None
    init = resolve_bindings(obj.get("bindings", {}), bind_points, resources, "bindings",
                            at_init=True)
    return Dispatchable(name, compiled, bind_points, init)


# ---------------------------------------------------------------- commands

def _dispatch(obj, dispatchable, resources):
    bindings = resolve_bindings(require(obj, "bindings", "", dict), dispatchable.bind_points,
                                resources, "bindings", at_init=False)
    if "threadGroupCount" in obj:
        counts = obj["threadGroupCount"]
        if not isinstance(counts, list) or len(counts) != 3:
            raise ModelError(f"threadGroupCount must be an array of 3 integers, not "
                             f"{show(counts)}")
        for i, count in enumerate(counts):
            parse_uint(count, f"threadGroupCount[{i}]")
    inputs, outputs, slots = [], [], []
    for bp in dispatchable.bind_points:
        for k, tensor in enumerate(bp.tensors):
            field = f"{bp.name}[{k}]" if len(bp.tensors) > 1 else bp.name
            source = bindings[bp.name][k] if bp.name in bindings else None
            (inputs if bp.is_input else outputs).append(source or Owned(bp.name, k))
            slots.append((f"bindings.{field}", source, tensor.required_bytes(), bp.is_input))
    desc = dispatchable.compiled.desc  # the in-place rule CompiledOperator applies
    in_place = desc.RECORD.in_place and _same_layout(desc.input_tensor, desc.output_tensor)
    check_overlaps(slots, in_place)
    return Dispatch(dispatchable, inputs, outputs)


def _label(obj):
    """"dispatch 'join'", "print 'A'"...: how messages name a command."""
    if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
        return ""
    kind = obj["type"]
    target = obj.get("dispatchable" if kind.lower() == "dispatch" else "resource")
    return f" ({kind} {target!r})" if isinstance(target, str) else f" ({kind})"


def _command(obj, dispatchables, resources):
    kind = require(obj, "type", "", str)
    if kind.lower() not in ("dispatch", "print", "writefile"):
        raise ModelError(f"type {kind!r} is not a command (dispatch, print or writeFile)")
    if kind.lower() == "dispatch":
        dispatchable = lookup(dispatchables, require(obj, "dispatchable", "", str),
                               "dispatchable")
        return _dispatch(obj, dispatchable, resources)
    resource = lookup(resources, require(obj, "resource", "", str), "resource")
    if kind.lower() == "print":
        verbose = obj.get("verbose", False)
        if not isinstance(verbose, bool):
            raise ModelError(f"verbose must be true or false, not {show(verbose)}")
        if resource.data_type == TensorDataType.UNKNOWN:
            raise ModelError(f"resource {resource.name!r} has no initialValuesDataType, so it "
                             f"cannot be printed")
        return Print(resource.name, verbose)
    target = check_text(require(obj, "targetPath", "", str), "targetPath")
    dims = obj.get("dimensions", [])
    if not isinstance(dims, list):
        raise ModelError(f"dimensions must be an array of integers, not {show(dims)}")
    dims = [parse_uint(n, f"dimensions[{i}]") for i, n in enumerate(dims)]
    return _write_file(resource, target, dims)


def _write_file(resource, target, dims):
    suffix = Path(target).suffix.lower()
    if suffix in (".jpg", ".png"):
        raise ModelError(f"targetPath {target!r}: image files are not supported by dmlcpu")
    if suffix == ".npy":
        size = ELEMENT_SIZES.get(resource.data_type)
        if size is None:
            raise ModelError(f"resource {resource.name!r} has no initialValuesDataType, so it "
                             f"cannot be written as .npy (write a raw file instead)")
        count = 1
        for n in dims:
            count *= n
        if dims and count * size > resource.size:
            raise ModelError(f"dimensions {dims} need {count * size} bytes but resource "
                             f"{resource.name!r} holds {resource.size}")
        dims = dims or [resource.size // size]
    return WriteFile(resource.name, target, dims)


# ---------------------------------------------------------------- the model

class _Enough(Exception):
    """MAX_PROBLEMS problems are listed: no more work on a refused model."""


def owned_copies(dispatchable):
    """(Owned slot, Source, byte count) of each OWNED_BY_DML copy a dispatchable takes at
    initialization: the tensor's TotalTensorSizeInBytes, not the rest of the resource."""
    tensors = {bp.name: bp.tensors for bp in dispatchable.bind_points}
    return [(Owned(name, k), source, tensors[name][k].required_bytes())
            for name, sources in dispatchable.init.items() for k, source in enumerate(sources)]


def parse_model(obj, level, input_dir, max_bytes):
    """The checked Model, each resource's buffer made and filled; ModelError listing every
    problem in the file (at most MAX_PROBLEMS, then a line saying the list stops there).
    ``max_bytes`` bounds everything the run holds: every resource's buffer, the OWNED_BY_DML
    copies, and a stream a resource is read from while it is read."""
    if not isinstance(obj, dict):
        raise ModelError(f"the model must be a JSON object, not {show(obj)}")
    for key, kind in (("resources", dict), ("dispatchables", dict), ("commands", list)):
        require(obj, key, "", kind)
    errors = []

    def collect(prefix, parse, *args):
        """parse(*args), or None with its problems added to errors."""
        try:
            return parse(*args)
        except ModelError as error:
            errors.extend(f"{prefix}: {message}" for message in error.errors)
            if len(errors) >= MAX_PROBLEMS:
                raise _Enough() from None
            return None

    def named(what, name, parse, *args):
        if collect(f"{what} {name!r}", check_text, name, "its name") is None:
            return None
        return collect(f"{what} {name!r}", parse, *args)

    try:
        # A name that maps to None failed to parse; what refers to it is not checked further.
        resources, total = {}, 0
        for name, spec in obj["resources"].items():
            resource = named("resource", name, _resource, name, spec, input_dir,
                             max_bytes - total)
            resources[name] = resource
            total += resource.size if resource else 0
        dispatchables = {}
        for name, spec in obj["dispatchables"].items():
            dispatchable = named("dispatchable", name, _dispatchable, name, spec, level,
                                 resources)
            owned = sum(size for _, _, size in owned_copies(dispatchable)) if dispatchable else 0
            if total + owned > max_bytes:
                collect(f"dispatchable {name!r}", _refuse, f"its OWNED_BY_DML copies ({owned} "
                        f"bytes) and the resources take more than {max_bytes} bytes, the most "
                        f"this run allows (max_bytes)")
                dispatchable = None
            total += owned
            dispatchables[name] = dispatchable
        commands = [collect(f"commands[{i}]{_label(spec)}", _command, spec, dispatchables,
                            resources)
                    for i, spec in enumerate(obj["commands"])]
    except _Enough:
        del errors[MAX_PROBLEMS:]
        errors.append(f"stopped after the first {MAX_PROBLEMS} problems; the model may have more")
    if errors:
        raise ModelError(errors)
    return Model(resources, dispatchables, commands)


def _refuse(message):
    raise ModelError(message)
