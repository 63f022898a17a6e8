"""Bindings of a DxDispatch model: which bytes of which resource each tensor reads or writes.

DxDispatch resolves a binding ``{"name": R, "elementOffset": k}`` to the bytes of resource R
from ``k * element size`` to the end of R, where the element size is ``elementSizeInBytes`` or
the size of R's ``initialValuesDataType`` (not the tensor's type); ``elementCount`` is ignored
for DirectML operators. It checks only that each bind point gets as many resources as it has
tensors. dmlcpu also checks, before anything runs, what DirectML checks when the command list
executes: every bind point bound and no unknown one (DxDispatch drops a misspelt one silently),
offsets aligned to 16 bytes (DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT) and to the tensor's
GuaranteedBaseOffsetAlignment, each bound range at least the tensor's TotalTensorSizeInBytes,
and no output overlapping another binding (except the identical in-place binding the cumulative
operators allow). Inputs flagged OWNED_BY_DML are bound once, in the dispatchable's own
``bindings`` (operator initialization), and never at dispatch.
"""
from collections import namedtuple
from itertools import islice

from ._values import MAX_PROBLEMS, ModelError, at, lookup, parse_uint, show
from .._types import ELEMENT_SIZES

ALIGNMENT = 16  # DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT
OWNED_BY_DML = 1

# The bytes [offset, resource size) of one resource, bound to one tensor.
Source = namedtuple("Source", "resource offset")


def _source(value, where, resources):
    """A Source from "R" or {"name": R, "elementOffset": k, ...}."""
    if isinstance(value, str):
        value = {"name": value}
    if not isinstance(value, dict):
        raise ModelError(f"{where} must be a resource name or a binding object, not "
                         f"{show(value)}")
    name = value.get("name")
    if not isinstance(name, str):
        raise ModelError(f"{at(where, 'name')} must be a resource name, not {show(name)}")
    resource = lookup(resources, name, f"{where}: resource")
    elements = parse_uint(value.get("elementOffset", 0), at(where, "elementOffset"), bits=64)
    parse_uint(value.get("elementCount", 0), at(where, "elementCount"), bits=64)  # ignored
    size = parse_uint(value.get("elementSizeInBytes", 0), at(where, "elementSizeInBytes"),
                      bits=64) or ELEMENT_SIZES.get(resource.data_type, 0)
    if elements and not size:
        raise ModelError(f"{at(where, 'elementOffset')} is {elements} but resource {name!r} has "
                         f"no initialValuesDataType, so DxDispatch would bind it at byte 0; give "
                         f"elementSizeInBytes")
    return Source(name, elements * size)


def _check_range(source, tensor, where, resources):
    resource = resources[source.resource]
    offset, name = source.offset, source.resource
    if offset % ALIGNMENT:
        raise ModelError(f"{where} starts at byte {offset} of resource {name!r}, but DirectML "
                         f"needs buffer bindings aligned to {ALIGNMENT} bytes")
    alignment = tensor.guaranteed_base_offset_alignment
    if alignment and offset % alignment:
        raise ModelError(f"{where} starts at byte {offset} of resource {name!r}, not a multiple "
                         f"of the tensor's GuaranteedBaseOffsetAlignment ({alignment})")
    bound = resource.size - offset
    need = tensor.required_bytes()
    if bound < need:
        start = f"bytes {offset} to {resource.size}" if bound > 0 else f"byte {offset}"
        raise ModelError(f"{where} binds {max(bound, 0)} bytes of resource {name!r} ({start}; "
                         f"a binding runs to the end of its resource) but the tensor's "
                         f"TotalTensorSizeInBytes is {need}")


def _owned(bind_point, where):
    owned = [bool(t.flags & OWNED_BY_DML) for t in bind_point.tensors]
    if any(owned) and not all(owned):
        raise ModelError(f"{where}: some of {bind_point.name} are OWNED_BY_DML and some not; "
                         f"dmlcpu binds a bind point either at initialization or at dispatch")
    return bind_point.is_input and all(owned)


def resolve_bindings(bindings, bind_points, resources, path, at_init):
    """{bind point name: [Source per tensor]} for a dispatch's ``bindings`` or (at_init) a
    dispatchable's initialization ``bindings``; ModelError listing every problem."""
    if not isinstance(bindings, dict):
        raise ModelError(f"{path} must be an object of bind point: resource(s), not "
                         f"{show(bindings)}")
    names = [bp.name for bp in bind_points]
    unknown = islice((key for key in bindings if key not in names), MAX_PROBLEMS)
    errors = [f"{at(path, key)}: {key!r} is not a bind point of this operator (DxDispatch "
              f"would ignore it); the bind points are {', '.join(names)}" for key in unknown]
    resolved = {}
    for bp in bind_points:
        where = at(path, bp.name)
        try:
            owned = _owned(bp, where)
            if bp.name not in bindings:
                if owned == at_init:
                    raise ModelError(f"{where} is missing: every bind point must be bound" +
                                     (" (an OWNED_BY_DML input is bound in the dispatchable's "
                                      "bindings)" if owned else ""))
                continue
            if owned != at_init:
                rule = ("only OWNED_BY_DML inputs are bound at initialization" if at_init else
                        "it is OWNED_BY_DML: bind it once, in the dispatchable's bindings, not "
                        "at dispatch")
                raise ModelError(f"{where}: {rule}")
            value = bindings[bp.name]
            values = value if isinstance(value, list) else [value]
            if len(values) != len(bp.tensors):
                raise ModelError(f"{where}: bind point {bp.name!r} requires {len(bp.tensors)} "
                                 f"resource(s), but {len(values)} were bound")
            sources = []
            for k, (item, tensor) in enumerate(zip(values, bp.tensors)):
                item_where = f"{where}[{k}]" if isinstance(value, list) else where
                source = _source(item, item_where, resources)
                _check_range(source, tensor, item_where, resources)
                sources.append(source)
            resolved[bp.name] = sources
        except ModelError as error:
            errors += error.errors
        if len(errors) >= MAX_PROBLEMS:
            break  # the model's list stops there anyway
    if errors:
        raise ModelError(errors)
    return resolved


def check_overlaps(slots, in_place_ok):
    """slots: [(field, Source or None, byte count, is_input)] in execute order; None is an
    OWNED_BY_DML input (a snapshot taken at initialization). An output may not share a byte
    with any other binding, except slot 0 with the first output when in_place_ok and both
    start at the same byte. One sorted sweep per resource (a SPLIT may have many outputs)."""
    first_output = next(i for i, slot in enumerate(slots) if not slot[3])
    by_resource = {}
    for i, (_, source, size, _) in enumerate(slots):
        if source is not None:
            by_resource.setdefault(source.resource, []).append(
                (source.offset, source.offset + size, i))
    for ranges in by_resource.values():
        ranges.sort()
        reach_any = reach_output = None  # (end, slot) of the range reaching furthest so far
        for start, end, i in ranges:
            earlier = reach_output if slots[i][3] else reach_any
            if earlier and earlier[0] > start and not (
                    in_place_ok and {earlier[1], i} == {0, first_output}
                    and slots[0][1].offset == slots[first_output][1].offset):
                _overlap_error(slots, *sorted((earlier[1], i)))
            if not reach_any or end > reach_any[0]:
                reach_any = (end, i)
            if not slots[i][3] and (not reach_output or end > reach_output[0]):
                reach_output = (end, i)


def _overlap_error(slots, a, b):
    def where(i):
        field, source, size, _ = slots[i]
        return f"{field} (bytes {source.offset} to {source.offset + size} of {source.resource!r})"
    raise ModelError(f"{where(b)} overlaps {where(a)}; an output may not overlap another "
                     f"binding, except a cumulative operator's identical in-place binding")
