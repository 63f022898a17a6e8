"""Whether a strided layout maps two coordinates to the same memory (an output may not).

Shared by the eager API (``_arrays``: a caller's output array) and the descriptors (``_validate``:
an output TensorDesc's strides), so neither imports the other.
"""
import numpy as np
from numpy.lib.stride_tricks import as_strided

try:  # NumPy's exact self-overlap solver is private: without it, tangled strides are refused
    from numpy._core._multiarray_tests import internal_overlap as _internal_overlap
except ImportError:  # pragma: no cover - NumPy 1.x or a stripped install
    try:
        from numpy.core._multiarray_tests import internal_overlap as _internal_overlap
    except ImportError:
        _internal_overlap = None


# Work allowed to NumPy's exact solver: about 0.1 s. Unbounded, a valid padded 8-D layout took
# it 31 s; a layout it does not settle within this budget is refused, as overlapping.
SELF_OVERLAP_MAX_WORK = 1 << 20


def self_overlap(array):
    """None if no two coordinates of the array name the same memory; otherwise why that cannot
    be shown: "overlaps" (zero or tangled strides), or "undecided" (NumPy's exact solver did
    not settle it within SELF_OVERLAP_MAX_WORK steps, or is missing)."""
    if any(size == 0 for size in array.shape):
        return None
    dims = sorted((abs(stride), size) for size, stride in zip(array.shape, array.strides)
                  if size > 1)
    reach = array.itemsize
    for stride, size in dims:
        if stride < reach:
            break
        reach = stride * (size - 1) + reach
    else:
        return None
    if _internal_overlap is None:
        return "undecided"
    # The simple test failed; the exact solver settles interleaved but disjoint layouts.
    try:
        return "overlaps" if _internal_overlap(array, max_work=SELF_OVERLAP_MAX_WORK) else None
    except (ValueError, RuntimeError, OverflowError):  # "Exceeded max_work" and the like
        return "undecided"


def self_overlaps(array):
    """True if two coordinates of the array may name the same memory (see self_overlap)."""
    return self_overlap(array) is not None


def strided_self_overlaps(sizes, element_strides, element_size):
    """self_overlaps on a metadata-only NumPy view: no memory is read or allocated."""
    base = np.empty(1, dtype=f"V{element_size}")
    view = as_strided(base, shape=tuple(sizes),
                      strides=tuple(s * element_size for s in element_strides), writeable=False)
    return self_overlaps(view)
