"""dmlcpu's seven operators on Dask arrays, with results bit-identical to the eager API.

``pip install 'dmlcpu[dask]'``; ``import dmlcpu`` never imports dask, only ``import dmlcpu.dask``.

Each function takes the eager API's keywords (no ``out=``) and returns lazy dask arrays whose
``.compute()`` equals the eager call on the computed input, byte for byte, for any chunking and
any scheduler. Every rule is checked when the call is made, from shapes and data types alone,
with the eager API's validator: a refused call raises ``InvalidArgumentError`` with the eager
API's message and builds nothing.

What runs where:
- SPLIT, JOIN, SLICE and SLICE1 are views dask expresses without copying (slicing with any step,
  concatenation, broadcasting for SLICE's stride 0): each output block is a view of the one input
  block under it, so a corner reads only the chunks it covers (JOIN's inputs are first rechunked
  by dask to common chunks along the other axes, where they differ).
- TILE: along dimensions held in one input chunk, an output block is several repeats of it,
  copied by dmlcpu's C core; elsewhere an output block is an input block.
- CUMULATIVE_SUMMATION and CUMULATIVE_PRODUCT: dmlcpu's C core scans each block from the running
  total of the blocks before it in walk order (see ``_blocks`` and ``_graphs``). Blocks along the
  other axes run in parallel.
"""
import numpy as np

try:
    import dask.array as da
except ImportError as error:  # (tests: a subprocess without dask)
    raise ImportError("dmlcpu.dask needs dask: pip install 'dmlcpu[dask]' (dask[array] and "
                      "distributed)") from error

from .._arrays import as_array, data_type_of
from .._types import AxisDirection
from .._validate import (Tensor, as_bool, as_int, as_int_list, parse_feature_level,
                         slice1_max_output_size, validate_cumulative, validate_join,
                         validate_slice, validate_slice1, validate_split, validate_tile)
from . import _graphs

__all__ = ["cumulative_product", "cumulative_summation", "join", "slice", "slice1", "split",
           "tile"]


def _as_dask(obj, field):
    """A dask array for an input: dask arrays as they are, anything the eager API reads wrapped."""
    if not isinstance(obj, da.Array):
        array = as_array(obj, field)
        obj = da.from_array(array, chunks=-1)
    if any(np.isnan(size) for size in obj.shape):
        raise ValueError(f"{field} has unknown chunk sizes; call .compute_chunk_sizes() first")
    return obj


def _input(obj, op, field, level):
    x = _as_dask(obj, field)
    return x, Tensor(data_type_of(x, op, field, level), tuple(int(s) for s in x.shape))


def _allow_empty(level):
    return level is None


def _take(x, index):
    return x[tuple(index)]


def split(x, *, axis, output_axis_sizes, feature_level=None):
    """SPLIT: consecutive blocks of ``output_axis_sizes`` along ``axis``; a list of views."""
    op = "SPLIT"
    level = parse_feature_level(feature_level)
    x, tx = _input(x, op, "InputTensor", level)
    axis = as_int(axis, "Axis")
    sizes = as_int_list(output_axis_sizes, "output_axis_sizes")
    shape = tx.sizes
    touts = [Tensor(tx.data_type, shape[:axis] + (n,) + shape[axis + 1:]
                    if 0 <= axis < len(shape) else shape) for n in sizes]
    validate_split(tx, touts, axis, level, allow_empty=_allow_empty(level))
    parts, start = [], 0
    for n in sizes:
        index = [np.s_[:]] * x.ndim
        index[axis] = np.s_[start:start + n]
        parts.append(_take(x, index))
        start += n
    return parts


def join(inputs, *, axis, feature_level=None):
    """JOIN: ``inputs`` one after another along ``axis`` (dask's concatenation of views)."""
    op = "JOIN"
    level = parse_feature_level(feature_level)
    if isinstance(inputs, (np.ndarray, da.Array, str, bytes)) or not hasattr(inputs, "__len__"):
        raise TypeError("inputs must be a sequence of arrays")
    arrays, tins = [], []
    for k, obj in enumerate(inputs):
        array, tensor = _input(obj, op, f"InputTensors[{k}]", level)
        arrays.append(array)
        tins.append(tensor)
    axis = as_int(axis, "Axis")
    shape = list(tins[0].sizes) if tins else []
    if 0 <= axis < len(shape):
        shape[axis] = sum(t.sizes[axis] if axis < len(t.sizes) else 0 for t in tins)
    tout = Tensor(tins[0].data_type if tins else None, tuple(shape))
    validate_join(tins, tout, axis, level, allow_empty=_allow_empty(level))
    return da.concatenate(arrays, axis=axis)


def slice(x, *, offsets, sizes, strides=None, feature_level=None):
    """SLICE: ``Output[c] = Input[offsets + strides * c]``; views, stride 0 a broadcast."""
    op = "SLICE"
    level = parse_feature_level(feature_level)
    x, tx = _input(x, op, "InputTensor", level)
    offsets = as_int_list(offsets, "Offsets")
    sizes = as_int_list(sizes, "Sizes")
    strides = (1,) * len(sizes) if strides is None else as_int_list(strides, "Strides")
    validate_slice(tx, Tensor(tx.data_type, sizes), offsets, sizes, strides, level,
                   allow_empty=_allow_empty(level))
    index = [np.s_[o:o + s * (n - 1) + 1:s] if s and n else np.s_[o:o + min(n, 1)]
             for o, n, s in zip(offsets, sizes, strides)]
    y = _take(x, index)
    if y.shape == sizes:
        return y
    # stride 0: one element repeated, one broadcast block along that dimension
    return da.broadcast_to(y, sizes, chunks=tuple(
        (n,) if have != n else c for have, n, c in zip(y.shape, sizes, y.chunks)))


def slice1(x, *, input_window_offsets, input_window_sizes, input_window_strides=None,
           output_sizes=None, feature_level=None):
    """SLICE1: a window walked with signed strides (negative walks it backwards); views."""
    op = "SLICE1"
    level = parse_feature_level(feature_level)
    x, tx = _input(x, op, "InputTensor", level)
    offsets = as_int_list(input_window_offsets, "InputWindowOffsets")
    window = as_int_list(input_window_sizes, "InputWindowSizes")
    steps = ((1,) * len(window) if input_window_strides is None
             else as_int_list(input_window_strides, "InputWindowStrides"))
    if output_sizes is None:
        output_sizes = tuple(slice1_max_output_size(size, step) if step else 0
                             for size, step in zip(window, steps))
    else:
        output_sizes = as_int_list(output_sizes, "output_sizes")
    validate_slice1(tx, Tensor(tx.data_type, output_sizes), offsets, window, steps, level,
                    allow_empty=_allow_empty(level))
    index = []
    for offset, size, step, n in zip(offsets, window, steps, output_sizes):
        start = offset + size - 1 if step < 0 else offset
        stop = start + step * (n - 1) + (1 if step > 0 else -1)
        index.append(np.s_[offset:offset] if n == 0 else
                     np.s_[start:stop if stop >= 0 else None:step])
    return _take(x, index)


def tile(x, *, repeats, feature_level=None):
    """TILE: ``Output[c] = Input[c mod InputSizes]``."""
    op = "TILE"
    level = parse_feature_level(feature_level)
    x, tx = _input(x, op, "InputTensor", level)
    repeats = as_int_list(repeats, "Repeats")
    shape = (tuple(s * r for s, r in zip(tx.sizes, repeats)) if len(repeats) == x.ndim
             else tx.sizes)
    validate_tile(tx, Tensor(tx.data_type, shape), repeats, level,
                  allow_empty=_allow_empty(level))
    return _graphs.tile(x, repeats)


def _cumulative(op, x, axis, axis_direction, exclusive, exclusive_field, feature_level):
    level = parse_feature_level(feature_level)
    x, tx = _input(x, op, "InputTensor", level)
    axis = as_int(axis, "Axis")
    direction = as_int(axis_direction, "AxisDirection")
    exclusive = as_bool(exclusive, exclusive_field)
    validate_cumulative(op, tx, tx, axis, direction, level, allow_empty=_allow_empty(level))
    return _graphs.scan(x, op, axis, direction == AxisDirection.DECREASING, exclusive)


def cumulative_summation(x, *, axis, axis_direction=AxisDirection.INCREASING,
                         has_exclusive_sum=False, feature_level=None):
    """CUMULATIVE_SUMMATION along ``axis``, bit-identical to the sequential scan."""
    return _cumulative("CUMULATIVE_SUMMATION", x, axis, axis_direction, has_exclusive_sum,
                       "HasExclusiveSum", feature_level)


def cumulative_product(x, *, axis, axis_direction=AxisDirection.INCREASING,
                       has_exclusive_product=False, feature_level=None):
    """CUMULATIVE_PRODUCT along ``axis``, bit-identical to the sequential scan."""
    return _cumulative("CUMULATIVE_PRODUCT", x, axis, axis_direction, has_exclusive_product,
                       "HasExclusiveProduct", feature_level)

