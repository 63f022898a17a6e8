"""The dask graphs that compute: scans along any axis and TILE blocks (already validated).

Every output block is one task of ``_blocks`` on the input block under it: a block reads only the
input chunk it needs, and the graph holds no scheduler logic of its own.
"""
import itertools

import dask
import numpy as np
from dask.array import Array
from dask.base import tokenize
from dask.highlevelgraph import HighLevelGraph

from . import _blocks


def _array(dsk, name, x, chunks):
    graph = HighLevelGraph.from_collections(name, dsk, dependencies=[x])
    return Array(graph, name, chunks, meta=np.empty((0,) * x.ndim, x.dtype))


def scan(x, op, axis, reverse, exclusive):
    """The scan of ``x`` along ``axis``, chunk by chunk in walk order, carrying the totals.

    Floats are carried block to block (block j waits for block j - 1 in the walk: the only
    order that gives the sequential scan's bits). Integers wrap, so any grouping gives the same
    bits: every block's total is computed at once, the carries are a short chain over those
    small totals, then every block scans in parallel.
    """
    name = f"{op.lower().replace('_', '-')}-{tokenize(x, op, axis, reverse, exclusive)}"
    integer = x.dtype.kind in "iu"
    walk = range(x.numblocks[axis] - 1, -1, -1) if reverse else range(x.numblocks[axis])
    across = [range(n) for i, n in enumerate(x.numblocks) if i != axis]
    dsk = {}
    for rest in itertools.product(*across):
        carry = None
        for j in walk:
            index = rest[:axis] + (j,) + rest[axis:]
            block, pair = (x.name,) + index, (name + "-pair",) + index
            dsk[pair] = (_blocks.scan_block, block, carry, op, axis, reverse, exclusive)
            dsk[(name,) + index] = (_blocks.first, pair)
            next_carry = (name + "-carry",) + index
            if integer:
                total = (name + "-total",) + index
                dsk[total] = (_blocks.block_total, block, op, axis)
                dsk[next_carry] = (_blocks.combine, carry, total, op)
            else:
                dsk[next_carry] = (_blocks.second, pair)
            carry = next_carry
    return _array(dsk, name, x, x.chunks)


def _tile_groups(x, repeats):
    """Per dimension, how many repeats of the input one output block holds.

    Along a dimension held in one input chunk, an output block takes several repeats, as many as
    keep a block within dask's ``array.chunk-size`` (inner dimensions first); along a chunked
    dimension each output block is one input chunk, repeated in the pattern of the input.
    """
    limit = max(1, dask.utils.parse_bytes(dask.config.get("array.chunk-size")) // x.itemsize)
    block = max(1, int(np.prod([max(c) if c else 1 for c in x.chunks], dtype=object)))
    groups = [1] * x.ndim
    for i in reversed(range(x.ndim)):
        if len(x.chunks[i]) == 1:
            size = x.chunks[i][0]
            if size == 0:
                groups[i] = repeats[i]  # an empty dimension: one empty block
            else:
                groups[i] = max(1, min(repeats[i], limit // block))
                block *= groups[i]
    return groups


def tile(x, repeats):
    """TILE: output blocks copy one input block, several times where that block is whole."""
    name = f"dmlcpu-tile-{tokenize(x, repeats)}"
    groups = _tile_groups(x, repeats)
    chunks, sources = [], []  # per dim: output chunk sizes, and (input chunk, repeats) of each
    for i, (sizes, repeat, group) in enumerate(zip(x.chunks, repeats, groups)):
        if len(sizes) == 1:
            counts = [group] * (repeat // group) + ([repeat % group] if repeat % group else [])
            sources.append([(0, count) for count in counts])
            chunks.append(tuple(sizes[0] * count for count in counts))
        else:
            sources.append([(k, 1) for _ in range(repeat) for k in range(len(sizes))])
            chunks.append(tuple(sizes) * repeat)
    dsk = {}
    for out_index in itertools.product(*(range(len(c)) for c in chunks)):
        picked = [sources[i][k] for i, k in enumerate(out_index)]
        block = (x.name,) + tuple(k for k, _ in picked)
        counts = tuple(count for _, count in picked)
        if all(count == 1 for count in counts):
            dsk[(name,) + out_index] = block  # a plain copy of a block: a dask alias, no task
        else:
            dsk[(name,) + out_index] = (_blocks.tile_block, block, counts)
    return _array(dsk, name, x, tuple(chunks))
