"""Plans: each operator becomes strided copies or one scan over operand slots
(docs/architecture.md).

A layout is (slot, byte_offset, sizes, byte_strides): where a tensor's element (0, ..., 0) sits
relative to the base of the buffer bound to ``slot`` (inputs first, then outputs), and how it
steps. Eager arrays and descriptor buffers both become layouts, so both share these planners and
the one C data path. Planners assume validated arguments.
"""
from ._core import Copy, Group, Plan, Scan, Tile

SCAN_OPS = {"CUMULATIVE_SUMMATION": 0, "CUMULATIVE_PRODUCT": 1}


def _along(layout, axis, start, sizes):
    """The block of ``layout`` starting at index ``start`` along ``axis``, with ``sizes``."""
    slot, offset, _, strides = layout
    return (slot, offset + start * strides[axis], sizes, strides)


def plan_split(input_layout, output_layouts, axis, elsize):
    """One group: the C core walks the dims before ``axis`` once, copying each output's block
    at each index, when that is the faster order (dmlcpu_copy_group)."""
    sources, start = [], 0
    for out in output_layouts:
        sources.append(_along(input_layout, axis, start, out[2]))
        start += out[2][axis]
    return Plan(1, len(output_layouts), [Group(list(output_layouts), sources, elsize, axis)])


def plan_join(input_layouts, output_layout, axis, elsize):
    """One group, as plan_split: a JOIN along an inner axis then writes its output in order."""
    targets, start = [], 0
    for layout in input_layouts:
        targets.append(_along(output_layout, axis, start, layout[2]))
        start += layout[2][axis]
    return Plan(len(input_layouts), 1, [Group(targets, list(input_layouts), elsize, axis)])


def plan_window(input_layout, output_layout, starts, steps_along, elsize):
    """SLICE and SLICE1: Output[c] = Input[starts + steps_along * c].

    Validation bounds ``starts + steps_along * (size - 1)`` inside the input only for the
    elements actually read, so a dim of one element ignores its step (which may be any 64-bit
    value, or more), and an empty output reads nothing at all: both get zeros, keeping every
    byte offset inside the input's own extent.
    """
    slot, offset, _, strides = input_layout
    out_sizes = output_layout[2]
    if any(size == 0 for size in out_sizes):
        source = (slot, offset, out_sizes, (0,) * len(out_sizes))
        return Plan(1, 1, [Copy(output_layout, source, elsize)])
    offset += sum(s * stride for s, stride in zip(starts, strides))
    source = (slot, offset, out_sizes,
              tuple(step * stride if size > 1 else 0
                    for step, stride, size in zip(steps_along, strides, out_sizes)))
    return Plan(1, 1, [Copy(output_layout, source, elsize)])


def slice1_starts(window_offsets, window_sizes, window_strides):
    """SLICE1 walks a window backwards where its stride is negative: start at its last element."""
    return tuple(offset + (size - 1 if stride < 0 and size > 0 else 0)
                 for offset, size, stride in zip(window_offsets, window_sizes, window_strides))


def plan_tile(input_layout, output_layout, elsize):
    return Plan(1, 1, [Tile(output_layout, input_layout, elsize)])


def plan_scan(op, input_layout, output_layout, data_type, axis, reverse, exclusive,
              elsize=None):
    """``elsize`` is not needed (accepted for callers that pass it): a scan's elements are its
    data type's size, which the C scan walks and Plan bounds it with."""
    return Plan(1, 1, [Scan(output_layout, input_layout, int(data_type), axis, SCAN_OPS[op],
                            int(bool(reverse)), int(bool(exclusive)))])
