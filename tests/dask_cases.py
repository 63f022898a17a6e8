"""Random valid calls of the seven operators, for dmlcpu.dask and the eager API alike.

A case is (name, keywords); ``run(module, name, x, keywords)`` calls ``module.name``. Data
movement gets arbitrary bits (NaN payloads, -0.0, denormals); scans get finite floats and a few
infinities (where two NaNs meet, IEEE leaves open which payload wins) and arbitrary integers.
"""
import numpy as np

DTYPES = [np.float32, np.float16, np.float64, np.uint8, np.int8, np.uint16, np.int16, np.uint32,
          np.int32, np.uint64, np.int64]
SCANS = ("cumulative_summation", "cumulative_product")
OPERATORS = ("split", "join", "slice", "slice1", "tile") + SCANS


def data(rng, shape, dtype, scan=False):
    dtype = np.dtype(dtype)
    count = int(np.prod(shape))
    if scan and dtype.kind == "f":
        # products stay finite for a while and then overflow: both regimes appear
        values = rng.standard_normal(count) * (1.5 if rng.random() < 0.5 else 1e3)
        values[rng.random(count) < 0.02] = np.inf
        return values.astype(dtype).reshape(shape)
    raw = rng.integers(0, 256, count * dtype.itemsize, dtype=np.uint8)
    return raw.view(dtype).reshape(shape)


def chunking(rng, shape):
    """Irregular chunks, chunks of 1, one chunk: a dask ``chunks`` tuple for ``shape``."""
    chunks = []
    for size in shape:
        style = rng.integers(0, 3)
        if size <= 1 or style == 0:
            chunks.append((size,))
        elif style == 1:
            chunks.append((1,) * size)
        else:
            edges = [0] + sorted(set(rng.integers(1, size, rng.integers(0, 4)).tolist())) + [size]
            chunks.append(tuple(b - a for a, b in zip(edges, edges[1:])))
    return tuple(chunks)


def case(rng, name, shape, allow_empty=True):
    """Keywords for a valid call of operator ``name`` on an input of ``shape``."""
    ndim = len(shape)
    if name == "split" or name == "join":
        axis = int(rng.integers(0, ndim))
        cuts = sorted(rng.integers(0, shape[axis] + 1, rng.integers(0, 4)).tolist())
        if not allow_empty:
            cuts = sorted(set(c for c in cuts if 0 < c < shape[axis]))
        edges = [0] + cuts + [shape[axis]]
        return {"axis": axis, "output_axis_sizes": [b - a for a, b in zip(edges, edges[1:])]}
    if name == "slice":
        offsets, sizes, strides = [], [], []
        for size in shape:
            stride = int(rng.integers(0, 4))
            offset = int(rng.integers(0, size))
            most = size - offset if stride == 0 else 1 + (size - 1 - offset) // stride
            count = int(rng.integers(1, max(most, 1) + 1)) if stride else int(rng.integers(1, 5))
            offsets.append(offset)
            sizes.append(count)
            strides.append(stride)
        return {"offsets": offsets, "sizes": sizes, "strides": strides}
    if name == "slice1":
        offsets, windows, strides, outs = [], [], [], []
        for size in shape:
            offset = int(rng.integers(0, size))
            window = int(rng.integers(1, size - offset + 1))
            stride = int(rng.choice([-3, -2, -1, 1, 2, 3]))
            offsets.append(offset)
            windows.append(window)
            strides.append(stride)
            outs.append(int(rng.integers(1, 1 + (window - 1) // abs(stride) + 1)))
        keywords = {"input_window_offsets": offsets, "input_window_sizes": windows,
                    "input_window_strides": strides}
        if rng.random() < 0.5:
            keywords["output_sizes"] = outs
        return keywords
    if name == "tile":
        return {"repeats": [int(r) for r in rng.integers(1, 4, ndim)]}
    keywords = {"axis": int(rng.integers(0, ndim)), "axis_direction": int(rng.integers(0, 2))}
    field = "has_exclusive_sum" if name == "cumulative_summation" else "has_exclusive_product"
    keywords[field] = bool(rng.integers(0, 2))
    return keywords


def run(module, name, x, keywords, parts=None):
    """``module.name`` on ``x`` (JOIN joins ``parts``, pieces of ``x``); a list of results."""
    if name == "join":
        return [module.join(parts, axis=keywords["axis"])]
    result = getattr(module, name)(x, **keywords)
    return list(result) if name == "split" else [result]
