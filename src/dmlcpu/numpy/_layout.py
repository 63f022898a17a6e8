"""Which arrays the fast paths take, how their bytes are moved, and how NumPy lays out the
arrays it allocates (so a fresh result has NumPy's strides, not only its values)."""
import numpy as np

NDARRAY = np.ndarray
MAX_DIMS = 8          # dmlcpu's operators take 1 to 8 dimensions
# Below these many result bytes NumPy's own call is as fast as the fast path's checks and
# call (docs/numpy.md, "Cut-offs"): the call goes straight to NumPy.
SMALL_BYTES = 32 << 10        # scans, tile, repeat, copies
SMALL_JOIN_BYTES = 256 << 10  # the concatenate family (NumPy joins C-ordered parts by memcpy)

# Same-width unsigned integers that carry each item size's bits through dmlcpu's copies
# (a 16-byte item moves as two 8-byte halves along one more, innermost dimension).
_CARRIER = {1: np.dtype(np.uint8), 2: np.dtype(np.uint16), 4: np.dtype(np.uint32),
            8: np.dtype(np.uint64), 16: np.dtype(np.uint64)}
_MOVABLE_KINDS = frozenset("biufc")
# dmlcpu's own eleven types: a call on them without ``out=`` returns a new C-ordered array of
# the type, which dmlcpu allocates on its cached-plan path (a fresh ``out=`` every call is
# a new address each time, which its plan cache cannot remember).
NATIVE = frozenset(np.dtype(t) for t in (
    np.float32, np.float16, np.uint32, np.uint16, np.uint8, np.int32, np.int16, np.int8,
    np.float64, np.uint64, np.int64))


def movable(dtype):
    """True for a native-order bool, integer, float or complex type whose bits dmlcpu can
    move (structured, object, string, datetime and byte-swapped types go to NumPy)."""
    return (dtype.kind in _MOVABLE_KINDS and dtype.isnative and dtype.isbuiltin == 1
            and dtype.itemsize in _CARRIER)


def carried(array):
    """``array`` in a type dmlcpu moves: itself in one of dmlcpu's types, else a view of
    unsigned integers of its item's width (one extra innermost dimension of 2 for 16-byte
    items), the bits unchanged."""
    if array.dtype in NATIVE:
        return array
    size = array.dtype.itemsize
    if size == 16:
        return array[..., None].view(_CARRIER[16])
    return array.view(_CARRIER[size])


def carried_dims(dtype):
    """How many dimensions ``carried`` adds."""
    return 1 if dtype.itemsize == 16 else 0


def stride_order(arrays, ndim, iterator=False):
    """NumPy's PyArray_CreateMultiSortedStridePerm: the axes from largest to smallest stride
    over all ``arrays`` (absolute strides, size-1 axes ignored, C order wins ties and
    conflicts), as np.concatenate lays out its result. ``iterator``: as NpyIter orders the
    axes of the results it allocates (ufuncs, accumulate), which also ignores 0 strides."""
    perm = list(range(ndim))
    for i0 in range(1, ndim):
        ipos, ax0 = i0, perm[i0]
        for i1 in range(i0 - 1, -1, -1):
            ax1 = perm[i1]
            ambiguous, swap = True, False
            for a in arrays:
                shape, strides = a.shape, a.strides
                if shape[ax0] != 1 and shape[ax1] != 1 and not (
                        iterator and (strides[ax0] == 0 or strides[ax1] == 0)):
                    if abs(strides[ax0]) <= abs(strides[ax1]):
                        swap = False
                    elif ambiguous:
                        swap = True
                    ambiguous = False
            if not ambiguous:
                if swap:
                    ipos = i1
                else:
                    break
        if ipos != i0:
            perm[ipos + 1:i0 + 1] = perm[ipos:i0]
            perm[ipos] = ax0
    return perm


def empty_in_order(shape, dtype, perm):
    """A new array of ``shape`` whose axes lie in memory in the order ``perm`` (outermost
    first), as NumPy allocates results that keep their inputs' layout."""
    if perm == sorted(perm):
        return np.empty(shape, dtype)
    base = np.empty([shape[p] for p in perm], dtype)
    inverse = [0] * len(perm)
    for k, p in enumerate(perm):
        inverse[p] = k
    return base.transpose(inverse)


def same_type(requested, dtype):
    """True when a ``dtype=`` argument names exactly ``dtype`` (None counts as the same)."""
    if requested is None:
        return True
    try:
        return np.dtype(requested) == dtype
    except (TypeError, ValueError):
        return False


def disjoint(out, arrays):
    """True when ``out`` can share no byte with any of ``arrays`` (NumPy's bounds check)."""
    return not any(np.may_share_memory(out, a) for a in arrays)
