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


def self_overlaps(array):
    """True if two coordinates of the array name the same memory (zero or tangled strides)."""
    dims = sorted((abs(stride), size) for size, stride in zip(array.shape, array.strides)
                  if size > 1)
    reach = array.itemsize
    for stride, size in dims:
        if stride < reach:
            break
        reach = stride * (size - 1) + reach
    else:
        return False
    if any(size == 0 for size in array.shape):
        return False
    # The simple test failed; the exact solver settles interleaved but disjoint layouts.
    return True if _internal_overlap is None else bool(_internal_overlap(array))


def strided_self_overlaps(sizes, element_strides, element_size):
    """self_overlaps on a metadata-only NumPy view: no memory is read or allocated."""
    base = np.empty(1, dtype=f"V{element_size}")
    view = as_strided(base, shape=tuple(sizes),
                      strides=tuple(s * element_size for s in element_strides), writeable=False)
    return self_overlaps(view)
