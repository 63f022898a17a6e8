"""DML_BUFFER_TENSOR_DESC's rules for the descriptors (docs/semantics.md section 2), beside the
operator rules of ``_validate``: strides, DMLCalcBufferTensorSize, TotalTensorSizeInBytes,
alignment, flags, and outputs that would overlap themselves."""
from ._self_overlap import strided_self_overlaps
from ._types import ELEMENT_SIZES, FeatureLevel
from ._validate import (INT64_MAX, MAX_DIMS, UINT32_MAX, UINT64_MAX, check_uint_fields, show)

TENSOR_FLAG_OWNED_BY_DML = 1


def element_size(data_type):
    """Bytes per element (0 for a data type DirectML does not know)."""
    return ELEMENT_SIZES.get(data_type, 0)


def min_buffer_bytes(element_size, sizes, strides=None):
    """DMLCalcBufferTensorSize's formula: the fewest bytes a buffer tensor's elements reach,
    rounded to 4 (the public ``calc_buffer_tensor_size`` checks its arguments, then calls this).

    Packed: product(sizes) * element_size; strided: (sum((size - 1) * stride) + 1) * element_size.
    Assumes sizes of at least 1 and strides of at least 0 (checked by check_buffer_tensor).
    """
    if strides is None:
        count = 1
        for size in sizes:
            count *= size
    else:
        count = 1 + sum((size - 1) * stride for size, stride in zip(sizes, strides))
    return (count * element_size + 3) & ~3


def check_buffer_tensor(v, field, desc, level, is_input):
    """DML_BUFFER_TENSOR_DESC rules (docs/semantics.md) the operator rules do not already check.

    The operator's validator checks each tensor's type, dimension count and sizes (at least 1;
    32-bit limits at a feature level). Here: the same 32-bit size limits in extended mode (a
    descriptor's fields are UINTs at every level), strides, TotalTensorSizeInBytes, alignment and
    flags. ``desc`` has data_type, sizes, strides, total_tensor_size_in_bytes,
    guaranteed_base_offset_alignment and flags; returns False if its layout is unusable.
    """
    ok = True
    sizes, strides = desc.sizes, desc.strides
    if level is None and len(sizes) <= MAX_DIMS and all(size >= 1 for size in sizes):
        ok = _check_uint32_sizes(v, field, sizes)
    if strides is not None:
        if len(strides) != len(sizes):
            v.add(f"{field}.Strides count", len(strides),
                  f"equal {field}.DimensionCount ({len(sizes)})")
            ok = False
        else:
            ok = check_uint_fields(v, f"{field}.Strides", strides, level or FeatureLevel.FL_1_0) \
                and ok
    elsize = element_size(desc.data_type)
    minimum = None
    if ok and elsize and 1 <= len(sizes) <= MAX_DIMS and all(size >= 1 for size in sizes):
        minimum = min_buffer_bytes(elsize, sizes, strides)
    if minimum is not None and minimum > INT64_MAX:
        # DirectML's UINT64 would hold it, but no buffer of a 64-bit process can: every byte
        # offset dmlcpu computes must fit in int64.
        v.add(f"{field} DMLCalcBufferTensorSize", minimum,
              f"be at most {INT64_MAX} (2^63 - 1), the largest buffer a 64-bit process can "
              f"address")
        ok = False
    total = desc.total_tensor_size_in_bytes
    if total is not None:
        if total < 0 or total > UINT64_MAX:
            v.add(f"{field}.TotalTensorSizeInBytes", total, "fit in 64 bits (a UINT64)")
            ok = False
        elif minimum is not None and total < minimum:
            v.add(f"{field}.TotalTensorSizeInBytes", total,
                  f"be at least DMLCalcBufferTensorSize ({show(minimum)})")
            ok = False
    alignment = desc.guaranteed_base_offset_alignment
    if alignment > UINT32_MAX:
        v.add(f"{field}.GuaranteedBaseOffsetAlignment", alignment,
              f"fit in 32 bits (at most {UINT32_MAX})")
    elif alignment != 0 and (alignment < 0 or alignment & (alignment - 1)
                             or (elsize and alignment < elsize)):
        least = f"at least the element size ({elsize})" if elsize else ""
        v.add(f"{field}.GuaranteedBaseOffsetAlignment", alignment,
              f"be 0 or a power of two {least}".rstrip())
    if desc.flags not in (0, TENSOR_FLAG_OWNED_BY_DML):
        v.add(f"{field}.Flags", desc.flags,
              "be DML_TENSOR_FLAG_NONE (0) or DML_TENSOR_FLAG_OWNED_BY_DML (1)")
    elif desc.flags == TENSOR_FLAG_OWNED_BY_DML and not is_input:
        v.add(f"{field}.Flags", "DML_TENSOR_FLAG_OWNED_BY_DML (1)",
              "be DML_TENSOR_FLAG_NONE (0) on an output")
    return ok


def _check_uint32_sizes(v, field, sizes):
    """Extended mode's share of check_sizes' 32-bit limits, for descriptors only (same messages)."""
    ok = True
    for i, size in enumerate(sizes):
        if size > UINT32_MAX:
            v.add(f"{field}.Sizes[{i}]", size, f"fit in 32 bits (at most {UINT32_MAX})")
            ok = False
    count = 1
    for size in sizes:
        count *= size
    if ok and count > UINT32_MAX:
        v.add(f"{field} element count", count, f"be at most {UINT32_MAX} (2^32 - 1)")
        ok = False
    return ok


def check_output_self_overlap(v, field, desc):
    """An output's strides may not map two coordinates to one element (0 or tangled strides)."""
    strides = desc.strides
    if strides is not None and strided_self_overlaps(desc.sizes, strides,
                                                     element_size(desc.data_type)):
        v.add(f"{field}.Strides", list(strides),
              f"map every coordinate of Sizes {show(desc.sizes)} to its own element (an output "
              f"must not overlap itself)")
