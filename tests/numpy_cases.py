"""Random calls for the dmlcpu.numpy differential (test_numpy_dropin.py): arrays of every NumPy
numeric type in every layout (C, F, strided, negative steps, broadcast, transposed), 0 to 8
dimensions with zero sizes, and the arguments each function takes, valid or not.

Each case is a function of a seed: calling it twice gives two independent but identical
argument sets, one for NumPy and one for the drop-in.
"""
import numpy as np

DTYPES = [np.dtype(t) for t in (
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
    np.uint64, np.float16, np.float32, np.float64, np.longdouble, np.complex64,
    np.complex128, np.clongdouble)]
LAYOUTS = ("C", "C", "F", "strided", "negative", "broadcast", "transposed")
MAX_ELEMENTS = 2000


def shape(rng, ndim, zero=0.1):
    """A random shape of ``ndim`` dimensions (sizes 0-5, 0 rarely), at most MAX_ELEMENTS."""
    dims = []
    for _ in range(ndim):
        if rng.random() < zero:
            dims.append(0)
        else:
            dims.append(int(rng.integers(1, 6 if ndim <= 4 else 3)))
    while np.prod(dims) > MAX_ELEMENTS:
        dims[int(np.argmax(dims))] -= 1
    return tuple(dims)


def values(rng, dtype, n):
    """``n`` values of ``dtype``: small numbers mostly, raw bits (NaN payloads, -0.0,
    infinities, subnormals) for a third of the float and complex ones."""
    if dtype.kind == "b":
        return rng.integers(0, 2, n).astype(bool)
    if dtype.kind in "iu":
        if rng.random() < 0.5:
            return rng.integers(-3, 4, n).astype(dtype)
        return np.frombuffer(rng.bytes(n * dtype.itemsize), dtype).copy()
    nice = (rng.integers(-8, 9, n) / 4).astype(dtype)
    if dtype.kind == "c":
        nice = nice + 1j * (rng.integers(-8, 9, n) / 4).astype(dtype)
    if rng.random() < 0.35 and dtype != np.longdouble and dtype != np.clongdouble:
        raw = np.frombuffer(rng.bytes(n * dtype.itemsize), dtype).copy()
        pick = rng.random(n) < 0.5
        nice[pick] = raw[pick]
    if n and rng.random() < 0.3:
        flat = nice.view(nice.real.dtype if dtype.kind == "c" else dtype)
        flat[rng.integers(0, flat.size)] = -0.0
        flat[rng.integers(0, flat.size)] = np.nan
    return nice


def array(rng, dtype, dims, layout=None):
    """A random array of ``dims`` and ``dtype`` in a random (or the given) memory layout."""
    layout = layout or LAYOUTS[rng.integers(len(LAYOUTS))]
    n = int(np.prod(dims))
    if layout == "F":
        return np.asfortranarray(values(rng, dtype, n).reshape(dims))
    if layout == "strided" and dims:
        steps = [int(rng.integers(1, 3)) for _ in dims]
        big = values(rng, dtype, int(np.prod([d * s for d, s in zip(dims, steps)])))
        big = big.reshape([d * s for d, s in zip(dims, steps)])
        return big[tuple(slice(None, None, s) for s in steps)]
    if layout == "negative" and dims:
        steps = [int(rng.choice([-2, -1, 1])) for _ in dims]
        big = values(rng, dtype, int(np.prod([d * abs(s) for d, s in zip(dims, steps)])))
        big = big.reshape([d * abs(s) for d, s in zip(dims, steps)])
        return big[tuple(slice(None, None, s) for s in steps)]
    if layout == "broadcast" and dims:
        small = tuple(d if rng.random() < 0.5 else 1 for d in dims)
        return np.broadcast_to(values(rng, dtype, int(np.prod(small))).reshape(small), dims)
    if layout == "transposed" and len(dims) > 1:
        perm = rng.permutation(len(dims))
        inner = tuple(dims[p] for p in np.argsort(perm))
        return values(rng, dtype, n).reshape(inner).transpose(perm)
    return values(rng, dtype, n).reshape(dims)


def a_dtype(rng, same=None, p_same=0.0):
    if same is not None and rng.random() < p_same:
        return same
    return DTYPES[rng.integers(len(DTYPES))]


def an_axis(rng, ndim, none=0.15):
    if rng.random() < none:
        return None
    return int(rng.integers(-ndim - 1, ndim + 1)) if ndim else 0


def scan_case(seed, cumulative=False):
    """(x, kwargs) for cumsum/cumprod or cumulative_sum/cumulative_prod; ``out=`` is added by
    the test, which knows NumPy's result shape and type."""
    rng = np.random.default_rng(seed)
    dt = a_dtype(rng)
    ndim = int(rng.integers(0 if rng.random() < 0.05 else 1, 9))
    x = array(rng, dt, shape(rng, ndim))
    kwargs = {"axis": an_axis(rng, ndim, 0.3 if cumulative else 0.15)}
    if rng.random() < 0.25:
        kwargs["dtype"] = a_dtype(rng)
    if cumulative and rng.random() < 0.3:
        kwargs["include_initial"] = True
    return x, kwargs


def join_case(seed):
    """(arrays, kwargs) for concatenate: 1-4 arrays differing along one axis, one type mostly."""
    rng = np.random.default_rng(seed)
    dt = a_dtype(rng)
    ndim = int(rng.integers(1, 9))
    base = list(shape(rng, ndim, zero=0.05))
    axis = int(rng.integers(0, ndim))
    arrays = []
    for _ in range(int(rng.integers(1, 5))):
        dims = list(base)
        dims[axis] = int(rng.integers(0, 5))
        if rng.random() < 0.03:
            dims[(axis + 1) % ndim] += 1        # a mismatched shape: NumPy raises
        arrays.append(array(rng, a_dtype(rng, dt, 0.85), tuple(dims)))
    kwargs = {"axis": axis - ndim if rng.random() < 0.3 else axis}
    if rng.random() < 0.05:
        kwargs["axis"] = None if rng.random() < 0.5 else ndim
    if rng.random() < 0.15:
        kwargs["dtype"] = a_dtype(rng, dt, 0.5)
    if rng.random() < 0.1:
        kwargs["casting"] = str(rng.choice(["no", "equiv", "safe", "unsafe", "bogus"]))
    return arrays, kwargs


def same_shape_arrays(seed, max_ndim=4):
    """(rng, arrays) of one shape (0-``max_ndim`` dimensions) for stack and its family."""
    rng = np.random.default_rng(seed)
    dt = a_dtype(rng)
    dims = shape(rng, int(rng.integers(0, max_ndim + 1)), zero=0.05)
    return rng, [array(rng, a_dtype(rng, dt, 0.9), dims) for _ in range(int(rng.integers(1, 4)))]


def tile_case(seed):
    rng = np.random.default_rng(seed)
    A = array(rng, a_dtype(rng), shape(rng, int(rng.integers(0, 6)), zero=0.05))
    if rng.random() < 0.3:
        return A, int(rng.integers(0, 4))
    return A, tuple(int(r) for r in rng.integers(0, 4, int(rng.integers(0, 5))))


def repeat_case(seed):
    rng = np.random.default_rng(seed)
    ndim = int(rng.integers(0 if rng.random() < 0.05 else 1, 8))
    a = array(rng, a_dtype(rng), shape(rng, ndim, zero=0.05))
    count = int(rng.integers(0, 5))
    if rng.random() < 0.1:
        count = np.int64(count)
    elif rng.random() < 0.1:
        count = -1
    return a, count, an_axis(rng, ndim)


def copy_case(seed):
    rng = np.random.default_rng(seed)
    ndim = int(rng.integers(0 if rng.random() < 0.05 else 1, 9))
    a = array(rng, a_dtype(rng), shape(rng, ndim, zero=0.05))
    return rng, a
