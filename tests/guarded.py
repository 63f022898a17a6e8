"""Arrays placed flush against PROT_NONE pages: any access outside them faults at once.

``guarded_array(shape, dtype, strides, side)`` returns a writable NumPy view whose lowest byte
(side="front") or one-past-highest byte (side="back") touches an inaccessible page. Linux and
macOS only (mmap + mprotect through ctypes).
"""
import ctypes
import ctypes.util
import mmap

import numpy as np

PAGE = mmap.PAGESIZE
_libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
_libc.mprotect.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
_PROT_NONE = 0
_keep = []  # the mappings must outlive every view of them; a test process is short-lived


def _span(shape, strides, itemsize):
    """(lowest byte offset, one past the highest) of the elements, relative to element 0."""
    low = high = 0
    for size, stride in zip(shape, strides):
        if size == 0:
            return 0, 0
        if stride < 0:
            low += stride * (size - 1)
        else:
            high += stride * (size - 1)
    return low, high + itemsize


def guarded_array(shape, dtype, strides=None, side="back"):
    dtype = np.dtype(dtype)
    shape = tuple(shape)
    if strides is None:
        strides = np.empty(shape, dtype).strides
    low, high = _span(shape, strides, dtype.itemsize)
    nbytes = high - low
    if nbytes == 0:
        return np.empty(shape, dtype)
    pages = (nbytes + PAGE - 1) // PAGE + 2
    region = mmap.mmap(-1, pages * PAGE, prot=mmap.PROT_READ | mmap.PROT_WRITE)
    base = ctypes.addressof(ctypes.c_char.from_buffer(region))
    for page in (0, pages - 1):
        if _libc.mprotect(base + page * PAGE, PAGE, _PROT_NONE) != 0:
            raise OSError(ctypes.get_errno(), "mprotect failed")
    _keep.append(region)
    start = PAGE if side == "front" else (pages - 1) * PAGE - nbytes  # where the lowest byte goes
    return np.ndarray(shape, dtype, buffer=region, offset=start - low, strides=strides)
