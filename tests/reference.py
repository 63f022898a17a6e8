"""Independent NumPy references for the data-movement operators, and bit-level comparison.

Nothing here imports dmlcpu: each reference restates docs/semantics.md section 3 in the most direct
NumPy form (index arrays, np.concatenate, np.tile), so a shared misunderstanding between the code
under test and its test would need the same mistake written twice in different ways. The references
move the operands as unsigned integers of the same width, so no float load, store or cast can
quiet a signalling NaN on the reference side.
"""
import builtins

import numpy as np

from conftest import as_bits

DTYPES = tuple(np.dtype(name) for name in (
    "float64", "float32", "float16", "int64", "int32", "int16", "int8",
    "uint64", "uint32", "uint16", "uint8"))
FLOAT_DTYPES = tuple(d for d in DTYPES if d.kind == "f")


def _on_bits(function):
    """Runs a reference on the bit view of its array operands and views the result back."""
    def wrapper(first, *args, **kwargs):
        if isinstance(first, (list, tuple)):
            dtype = np.asarray(first[0]).dtype
            result = function([as_bits(a) for a in first], *args, **kwargs)
        else:
            dtype = np.asarray(first).dtype
            result = function(as_bits(first), *args, **kwargs)
        if isinstance(result, list):
            return [r.view(dtype) for r in result]
        return result.view(dtype)
    wrapper.__name__ = function.__name__
    wrapper.__doc__ = function.__doc__
    return wrapper


@_on_bits
def split(x, axis, axis_sizes):
    """Output k is the k-th consecutive block along ``axis`` (basic index slicing)."""
    assert sum(axis_sizes) == x.shape[axis]
    outputs, start = [], 0
    for n in axis_sizes:
        index = (builtins.slice(None),) * axis + (builtins.slice(start, start + n),)
        outputs.append(np.array(x[index], copy=True))
        start += n
    return outputs


@_on_bits
def join(xs, axis):
    """Inputs one after another along ``axis``."""
    return np.concatenate(xs, axis=axis)


def _gather(x, index_lists):
    """x at the outer product of one index list per dimension."""
    for i, (indices, size) in enumerate(zip(index_lists, x.shape)):
        assert len(indices) == 0 or (indices.min() >= 0 and indices.max() < size), (
            f"reference read out of bounds along dimension {i}")
    return np.array(x[np.ix_(*index_lists)], copy=True)


@_on_bits
def slice(x, offsets, sizes, strides):  # shadows the builtin: split uses builtins.slice
    """SLICE: Output[c] = Input[offsets + strides * c]; a stride of 0 repeats one element."""
    return _gather(x, [np.int64(o) + np.int64(s) * np.arange(n, dtype=np.int64)
                       for o, n, s in zip(offsets, sizes, strides)])


@_on_bits
def slice1(x, window_offsets, window_sizes, window_strides, output_sizes=None):
    """SLICE1: start at the window's first element, or at its last where the stride is negative.

    ``output_sizes`` None takes 1 + (size - 1) // |stride| along each dimension. Every index read
    is checked to lie inside the window.
    """
    if output_sizes is None:
        output_sizes = [1 + (w - 1) // abs(s) for w, s in zip(window_sizes, window_strides)]
    index_lists = []
    for offset, size, stride, n in zip(window_offsets, window_sizes, window_strides,
                                       output_sizes):
        start = offset + (size - 1 if stride < 0 else 0)
        indices = np.int64(start) + np.int64(stride) * np.arange(n, dtype=np.int64)
        assert len(indices) == 0 or (indices.min() >= offset and indices.max() < offset + size)
        index_lists.append(indices)
    return _gather(x, index_lists)


@_on_bits
def tile(x, repeats):
    """TILE: Output[c] = Input[c mod InputSizes]."""
    assert len(repeats) == x.ndim
    return np.tile(x, repeats)


def cumulative_summation(x, axis, reverse=False, exclusive=False):
    """CUMULATIVE_SUMMATION per docs/semantics.md section 3: a sequential walk in the output's type.

    Floats accumulate one element after another in walk order (FLOAT16 in FLOAT32, each written
    value rounded to FLOAT16); integers wrap modulo 2^bits.
    """
    x = np.asarray(x)
    acc_dtype = np.dtype(np.float32) if x.dtype == np.float16 else x.dtype
    moved = np.moveaxis(x, axis, -1)
    out = np.empty(moved.shape, dtype=x.dtype)
    n = moved.shape[-1]
    order = range(n - 1, -1, -1) if reverse else range(n)
    total = np.zeros(moved.shape[:-1], dtype=acc_dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        for k in order:
            if exclusive:
                out[..., k] = total.astype(x.dtype)
                total = (total + moved[..., k].astype(acc_dtype)).astype(acc_dtype)
            else:
                total = (total + moved[..., k].astype(acc_dtype)).astype(acc_dtype)
                out[..., k] = total.astype(x.dtype)
    return np.moveaxis(out, -1, axis)


def ulp_distance(a, b):
    """Elementwise distance in units in the last place between two float arrays of one dtype.

    Computed on the integer bit patterns, mapped so that the order of the integers is the order
    of the floats (-0.0 and +0.0 are 0 apart). NaNs are not handled: callers check them first.
    """
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.dtype.kind == "f"
    width = a.dtype.itemsize * 8
    signed = np.dtype(f"i{a.dtype.itemsize}")

    def ordered(v):
        i = np.ascontiguousarray(v).view(signed).astype(object)
        # negative floats: the sign-magnitude pattern becomes the negated magnitude
        return np.where(np.asarray(i) < 0, -(np.asarray(i) + (1 << (width - 1))), i)

    return np.abs(ordered(a) - ordered(b)).astype(np.int64)
