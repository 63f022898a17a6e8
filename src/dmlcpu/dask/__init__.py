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

from .. import _ops
from .._arrays import as_array, data_type_of, masked_array_message
from .._errors import InvalidArgumentError
from .._types import AxisDirection
from .._validate import Tensor, parse_feature_level
from . import _graphs

__all__ = ["cumulative_product", "cumulative_summation", "join", "slice", "slice1", "split",
           "tile"]

# The eager API's argument handling per operator (fields read and converted, then validated from
# tensors: a data type and sizes), which needs no array: dask arrays are judged by it as they are.
_SPECS = _ops._SPECS


class _Input:
    """What the eager API's validation reads of an input: its Tensor."""

    __slots__ = ("tensor",)

    def __init__(self, tensor):
        self.tensor = tensor


def _as_dask(obj, field):
    """A dask array for an input: dask arrays as they are, anything the eager API reads wrapped.
    Masked arrays are refused, dask arrays of them too (by their ``_meta``), as the eager API
    refuses them: the C core would drop their masks. Zero-size chunks are dropped along
    dimensions that have elements (dask slices such chunkings wrongly with negative steps)."""
    if not isinstance(obj, da.Array):
        array = as_array(obj, field)
        obj = da.from_array(array, chunks=-1)
    if isinstance(getattr(obj, "_meta", None), np.ma.MaskedArray):
        raise TypeError(masked_array_message(field))
    if any(np.isnan(size) for size in obj.shape):
        raise ValueError(f"{field} has unknown chunk sizes; call .compute_chunk_sizes() first")
    if any(0 in chunks and n for chunks, n in zip(obj.chunks, obj.shape)):
        obj = obj.rechunk(tuple(tuple(c for c in chunks if c) or chunks
                                for chunks in obj.chunks))
    return obj


def _checked(op, raw, inputs, feature_level):
    """The eager API's reading and validation of a call, in its order, from shapes and dtypes:
    (the dask inputs, the fields as read, the output Tensors, the planner's arguments)."""
    try:
        spec = _SPECS[op]
        level = parse_feature_level(feature_level)
        fields = spec.fields(raw)
        arrays, ins = [], []
        for k, obj in enumerate(inputs):
            field = f"{spec.input_field}[{k}]" if spec.many_inputs else spec.input_field
            x = _as_dask(obj, field)
            arrays.append(x)
            ins.append(_Input(Tensor(data_type_of(x.dtype, op, field, level),
                                     tuple(int(size) for size in x.shape))))
        touts, args = spec.prepare(fields, ins, None, level)
    except (InvalidArgumentError, TypeError) as error:
        _ops._name_arguments(error, False)  # the eager API's message: the inputs named
        raise
    return arrays, fields, touts, args


def _take(x, index):
    return x[tuple(index)]


def split(x, *, axis, output_axis_sizes, feature_level=None):
    """SPLIT: consecutive blocks of ``output_axis_sizes`` along ``axis``; a list of views."""
    (x,), _, touts, args = _checked("SPLIT", (axis, output_axis_sizes), (x,), feature_level)
    parts, start = [], 0
    for tout in touts:
        n = tout.sizes[args.axis]
        index = [np.s_[:]] * x.ndim
        index[args.axis] = np.s_[start:start + n]
        parts.append(_take(x, index))
        start += n
    return parts


def join(inputs, *, axis, feature_level=None):
    """JOIN: ``inputs`` one after another along ``axis`` (dask's concatenation of views);
    ``inputs`` is an ordered sequence, as in the eager API (sets are refused)."""
    if isinstance(inputs, da.Array):
        raise TypeError("inputs must be a sequence of arrays, not Array")
    arrays, _, _, args = _checked("JOIN", (axis,), _ops._sequence(inputs, "inputs"), feature_level)
    return da.concatenate(arrays, axis=args.axis)


def slice(x, *, offsets, sizes, strides=None, feature_level=None):
    """SLICE: ``Output[c] = Input[offsets + strides * c]``; views, stride 0 a broadcast."""
    (x,), _, (tout,), args = _checked("SLICE", (offsets, sizes, strides), (x,), feature_level)
    sizes = tout.sizes
    index = [np.s_[o:o + s * (n - 1) + 1:s] if s and n else np.s_[o:o + min(n, 1)]
             for o, n, s in zip(args.offsets, sizes, args.strides)]
    y = _take(x, index)
    if y.shape == sizes:
        return y
    # stride 0: one element repeated, one broadcast block along that dimension
    return da.broadcast_to(y, sizes, chunks=tuple(
        (n,) if have != n else c for have, n, c in zip(y.shape, sizes, y.chunks)))


def slice1(x, *, input_window_offsets, input_window_sizes, input_window_strides=None,
           output_sizes=None, feature_level=None):
    """SLICE1: a window walked with signed strides (negative walks it backwards); views."""
    (x,), _, (tout,), args = _checked("SLICE1", (input_window_offsets, input_window_sizes,
                                                 input_window_strides, output_sizes), (x,),
                                      feature_level)
    index = []
    for offset, size, step, n in zip(args.input_window_offsets, args.input_window_sizes,
                                     args.input_window_strides, tout.sizes):
        start = offset + size - 1 if step < 0 else offset
        stop = start + step * (n - 1) + (1 if step > 0 else -1)
        index.append(np.s_[offset:offset] if n == 0 else
                     np.s_[start:stop if stop >= 0 else None:step])
    return _take(x, index)


def tile(x, *, repeats, feature_level=None):
    """TILE: ``Output[c] = Input[c mod InputSizes]``."""
    (x,), (repeats,), _, _ = _checked("TILE", (repeats,), (x,), feature_level)
    return _graphs.tile(x, repeats)


def _cumulative(op, x, axis, axis_direction, exclusive, exclusive_name, feature_level):
    (x,), _, _, args = _checked(op, (axis, axis_direction, exclusive), (x,), feature_level)
    return _graphs.scan(x, op, args.axis, args.axis_direction == AxisDirection.DECREASING,
                        getattr(args, exclusive_name))


def cumulative_summation(x, *, axis, axis_direction=AxisDirection.INCREASING,
                         has_exclusive_sum=False, feature_level=None):
    """CUMULATIVE_SUMMATION along ``axis``, bit-identical to the sequential scan."""
    return _cumulative("CUMULATIVE_SUMMATION", x, axis, axis_direction, has_exclusive_sum,
                       "has_exclusive_sum", feature_level)


def cumulative_product(x, *, axis, axis_direction=AxisDirection.INCREASING,
                       has_exclusive_product=False, feature_level=None):
    """CUMULATIVE_PRODUCT along ``axis``, bit-identical to the sequential scan."""
    return _cumulative("CUMULATIVE_PRODUCT", x, axis, axis_direction, has_exclusive_product,
                       "has_exclusive_product", feature_level)
