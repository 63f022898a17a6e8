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
from .. import _core
from .._arrays import masked_array_message
from .._core import _scan_carried
from .._types import DATA_TYPE_OF_NUMPY

SUM = "CUMULATIVE_SUMMATION"
_OPERATIONS = {SUM: 0, "CUMULATIVE_PRODUCT": 1}  # the C core's dmlcpu_scan_op

# the process that imported this module: a different pid is a process forked from it
_IMPORTED_IN = os.getpid()


def limit_pool_in_dask_processes():
    """Before each block: one dmlcpu thread in a worker process whose pool nobody configured.

    dask already runs one task per task slot (a core) in each worker process, and tells OpenMP
    and BLAS the same through ``OMP_NUM_THREADS=1``, so a pool per process on top would
    oversubscribe the cores. The rule: a thread count set in the worker (``set_num_threads``,
    e.g. through ``client.run``, or ``DMLCPU_NUM_THREADS`` in its environment, e.g. through
    ``distributed.nanny.pre-spawn-environ``), or inherited by fork from a parent that set it,
    is kept; only a pool still at its default is set to one thread. A worker process is one
    started by multiprocessing (spawn, forkserver or fork) or forked after this module was
    imported. The process that builds graphs (the synchronous and threaded schedulers, and
    in-process workers) keeps its pool: concurrent calls there share one budget of workers.
    """
    if _core._threads_source() != "cpus":
        return
    if os.getpid() != _IMPORTED_IN or multiprocessing.parent_process() is not None:
        _core._set_num_threads_from(1, "dmlcpu.dask")


def accumulator_dtype(dtype):
    return np.dtype(np.float32) if dtype == np.float16 else np.dtype(dtype)


def scan_block(block, carry, op, axis, reverse, exclusive):
    """(this block's output, its carry out): dmlcpu's scan of ``block`` starting from ``carry``.

    ``carry`` None starts from the operator's identity, as the first block of a walk does.
    A masked block (a graph whose ``_meta`` did not say so) is refused, never scanned unmasked.
    """
    limit_pool_in_dask_processes()
    if isinstance(block, np.ma.MaskedArray):
        raise TypeError(masked_array_message("a block of x"))
    out = np.empty(block.shape, block.dtype)
    if block.shape[axis] == 0:
        return out, carry
    shape = list(block.shape)
    shape[axis] = 1
    carry_out = np.empty(shape, accumulator_dtype(block.dtype))
    _scan_carried(block, out, carry, carry_out, int(DATA_TYPE_OF_NUMPY[block.dtype]),
                  _OPERATIONS[op], axis, reverse, exclusive)
    return out, carry_out


def block_total(block, op, axis):
    """An integer block's total along ``axis`` (wrap-around: any order gives the same bits)."""
    limit_pool_in_dask_processes()
    if isinstance(block, np.ma.MaskedArray):
        raise TypeError(masked_array_message("a block of x"))
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
