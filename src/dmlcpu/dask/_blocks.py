"""What dask workers run: one dmlcpu call per output block, plus the carries between scan blocks.

A scan along a chunked axis is the sequential scan cut into blocks: block j starts from the
running total the walk reached at the end of block j - 1 (its *carry*), held in the accumulator
type (FLOAT32 for FLOAT16, the data type itself otherwise), never rounded to the output type. A
carry is an array shaped like its block with the axis cut to length 1: one total per line.
"""
import multiprocessing
import os

import numpy as np

from .. import _ops
from .._core import set_num_threads
from .._types import AxisDirection

SUM = "CUMULATIVE_SUMMATION"
_EAGER_SCANS = {SUM: _ops.cumulative_summation, "CUMULATIVE_PRODUCT": _ops.cumulative_product}
_EXCLUSIVE_FIELD = {SUM: "has_exclusive_sum", "CUMULATIVE_PRODUCT": "has_exclusive_product"}

_pool_checked = False


def limit_pool_in_dask_processes():
    """Once per process: one dmlcpu thread in a worker process dask started, unless set.

    dask already runs one task per core in each worker process (and tells OpenMP and BLAS the
    same through ``OMP_NUM_THREADS=1``), so a pool per process on top would oversubscribe the
    cores. ``DMLCPU_NUM_THREADS`` in the worker's environment (for example through
    ``distributed.nanny.pre-spawn-environ``) wins; the process that builds graphs (the
    synchronous and threaded schedulers) is left alone: its pool already runs one job at a time.
    """
    global _pool_checked
    if _pool_checked:
        return
    _pool_checked = True
    if "DMLCPU_NUM_THREADS" not in os.environ and multiprocessing.parent_process() is not None:
        set_num_threads(1)


def accumulator_dtype(dtype):
    return np.dtype(np.float32) if dtype == np.float16 else np.dtype(dtype)


def _eager_scan(op, x, axis, reverse, exclusive):
    direction = AxisDirection.DECREASING if reverse else AxisDirection.INCREASING
    return _EAGER_SCANS[op](x, axis=axis, axis_direction=direction,
                            **{_EXCLUSIVE_FIELD[op]: exclusive})


def _take(x, axis, start, stop):
    index = [slice(None)] * x.ndim
    index[axis] = slice(start, stop)
    return x[tuple(index)]


def scan_block(block, carry, op, axis, reverse, exclusive):
    """(this block's output, its carry out): the scan of ``block`` starting from ``carry``.

    ``carry`` None starts from the operator's identity, as the first block of a walk does.
    """
    limit_pool_in_dask_processes()
    n = block.shape[axis]
    acc = accumulator_dtype(block.dtype)
    if n == 0:
        return np.empty(block.shape, block.dtype), carry
    values = block.astype(acc, copy=False)  # FLOAT16 -> FLOAT32 is exact
    end = (0, 1) if reverse else (n - 1, n)  # the walk's last element
    if carry is None:
        if exclusive:
            scanned = _eager_scan(op, values, axis, reverse, True)
            total = _take(scanned, axis, *end)
            step = np.add if op == SUM else np.multiply
            carry_out = step(total, _take(values, axis, *end))
        else:
            scanned = _eager_scan(op, values, axis, reverse, False)
            carry_out = _take(scanned, axis, *end).copy()
    else:
        # The carry placed where the walk starts: the sequential scan then reaches it first
        # (identity op carry == carry, bit for bit) and continues exactly as one long walk.
        parts = [values, carry] if reverse else [carry, values]
        scanned_all = _eager_scan(op, np.concatenate(parts, axis=axis), axis, reverse, False)
        if reverse:
            scanned = _take(scanned_all, axis, 1, n + 1) if exclusive else \
                _take(scanned_all, axis, 0, n)
            carry_out = _take(scanned_all, axis, 0, 1).copy()
        else:
            scanned = _take(scanned_all, axis, 0, n) if exclusive else \
                _take(scanned_all, axis, 1, n + 1)
            carry_out = _take(scanned_all, axis, n, n + 1).copy()
    with np.errstate(over="ignore"):  # FLOAT32 totals beyond FLOAT16's range round to infinity
        return np.ascontiguousarray(scanned, dtype=block.dtype), carry_out


def block_total(block, op, axis):
    """An integer block's total along ``axis`` (wrap-around: any order gives the same bits)."""
    limit_pool_in_dask_processes()
    reduce = np.add.reduce if op == SUM else np.multiply.reduce
    return reduce(block, axis=axis, dtype=block.dtype, keepdims=True)


def combine(carry, total, op):
    """The integer carry after a block: ``carry op total`` wrapping, or ``total`` at the start."""
    if carry is None:
        return total
    step = np.add if op == SUM else np.multiply
    return step(carry, total, dtype=total.dtype)


def tile_block(block, repeats):
    """One TILE output block: the input block repeated."""
    limit_pool_in_dask_processes()
    return _ops.tile(block, repeats=list(repeats))


def first(pair):
    return pair[0]


def second(pair):
    return pair[1]
