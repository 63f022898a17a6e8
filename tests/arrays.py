"""Test-side array builders: random bit patterns, strided views, sentinel-backed outputs.

A Layout says how a logical array sits in a larger base array: the order of its dimensions in
memory (``perm``: memory axis i holds logical dimension perm[i]), a step per logical dimension
(negative walks backwards, 0 repeats one element), and an offset of 0 or 1 elements before the
view along each dimension. Every base has one element of padding after the view too, so a write
past either end of a view lands on a checked sentinel.
"""
from collections import namedtuple

import numpy as np
from numpy.lib.stride_tricks import as_strided

from conftest import as_bits, assert_same_bits, bits_dtype

Layout = namedtuple("Layout", "perm steps offsets")

SENTINEL_BYTE = 0xA5


def contiguous_layout(ndim):
    return Layout(tuple(range(ndim)), (1,) * ndim, (0,) * ndim)


def float_specials(dtype):
    """Bit patterns that a float load or store could disturb: NaNs with payloads (quiet and
    signalling, both signs), -0.0, infinities, denormals, the extremes of the normals."""
    dtype = np.dtype(dtype)
    mant = {2: 10, 4: 23, 8: 52}[dtype.itemsize]
    width = dtype.itemsize * 8
    sign = 1 << (width - 1)
    exp_all = ((1 << (width - 1 - mant)) - 1) << mant
    quiet = 1 << (mant - 1)
    patterns = [
        exp_all | quiet,                    # the default quiet NaN
        exp_all | quiet | 0x5,              # quiet NaN with a payload
        exp_all | 1,                        # signalling NaN, smallest payload
        exp_all | (quiet - 1),              # signalling NaN, largest payload
        exp_all | 0x2A5,                    # signalling NaN with a mixed payload
        sign | exp_all | quiet | 0x3,       # negative quiet NaN with a payload
        sign | exp_all | 0x11,              # negative signalling NaN
        exp_all,                            # +inf
        sign | exp_all,                     # -inf
        0,                                  # +0.0
        sign,                               # -0.0
        1,                                  # smallest denormal
        (1 << mant) - 1,                    # largest denormal
        sign | 1,                           # negative smallest denormal
        1 << mant,                          # smallest normal
        exp_all - 1,                        # largest finite
    ]
    return np.array(patterns, dtype=bits_dtype(dtype))


def random_array(rng, dtype, shape):
    """Uniformly random bit patterns; floats also get the special patterns sprinkled in."""
    dtype = np.dtype(dtype)
    count = int(np.prod(shape, dtype=np.int64))
    bits = np.frombuffer(rng.bytes(count * dtype.itemsize), dtype=bits_dtype(dtype)).copy()
    if dtype.kind == "f" and count:
        specials = float_specials(dtype)
        where = rng.random(count) < 0.25
        bits[where] = rng.choice(specials, size=int(where.sum()))
    return bits.view(dtype).reshape(shape)


def sentinel_array(dtype, shape):
    """Every byte SENTINEL_BYTE."""
    dtype = np.dtype(dtype)
    count = int(np.prod(shape, dtype=np.int64))
    return np.full(count * dtype.itemsize, SENTINEL_BYTE, dtype=np.uint8).view(dtype).reshape(
        shape)


def at_page_offset(nbytes, offset, fill=None):
    """A uint8 buffer of nbytes starting `offset` bytes into a 4 KiB page of a larger base, the
    base filled with `fill` where given (outside_untouched then checks it)."""
    raw = np.empty(nbytes + 8192, np.uint8)
    if fill is not None:
        raw[...] = fill
    start = (-raw.ctypes.data) % 4096 + offset
    return raw[start:start + nbytes]


def outside_untouched(view, fill):
    """Whether every byte of the base of an at_page_offset buffer outside `view` (that buffer, or
    a view of all of it) still holds `fill`."""
    raw = view.base
    start = view.ctypes.data - raw.ctypes.data
    return bool((raw[:start] == fill).all() and (raw[start + view.nbytes:] == fill).all())


def extent(n, step, offset):
    """Base elements along one dimension: the offset, the view's span, one element of padding."""
    return offset + ((n - 1) * abs(step) + 1 if step and n else 1) + 1


def base_shape(shape, layout):
    """The shape of the base array (in memory order) that holds a view of ``shape``."""
    extents = [extent(n, step, offset)
               for n, step, offset in zip(shape, layout.steps, layout.offsets)]
    return tuple(extents[d] for d in layout.perm)


def view_of(base, shape, layout, writeable=True):
    """The view of ``base`` that ``layout`` describes, with logical ``shape``."""
    index, zero_axes = [], []
    for axis, d in enumerate(layout.perm):
        n, step, offset = shape[d], layout.steps[d], layout.offsets[d]
        if n == 0 or step == 1:
            index.append(slice(offset, offset + n))
        elif step > 0:
            index.append(slice(offset, offset + (n - 1) * step + 1, step))
        elif step < 0:
            first = offset + (n - 1) * -step
            index.append(slice(first, offset - 1 if offset else None, step))
        else:
            index.append(slice(offset, offset + 1))
            zero_axes.append(axis)
    view = base[tuple(index)]
    if zero_axes:
        sizes, strides = list(view.shape), list(view.strides)
        for axis in zero_axes:
            sizes[axis] = shape[layout.perm[axis]]
            strides[axis] = 0
        view = as_strided(view, sizes, strides, writeable=False)
    view = view.transpose(np.argsort(layout.perm))
    assert view.shape == tuple(shape)
    if not writeable and view.flags.writeable:
        view.flags.writeable = False
    return view


def random_input(rng, dtype, shape, layout=None):
    """A random array of ``shape`` laid out per ``layout`` (None: a plain C-contiguous array)."""
    if layout is None:
        return random_array(rng, dtype, shape)
    base = random_array(rng, dtype, base_shape(shape, layout))
    return view_of(base, shape, layout)


class SentinelOutput:
    """A writable view inside a sentinel-filled base; ``check`` proves nothing else was written."""

    def __init__(self, dtype, shape, layout):
        assert 0 not in layout.steps, "an output may not repeat elements"
        self.base = sentinel_array(dtype, base_shape(shape, layout))
        self.view = view_of(self.base, shape, layout)
        ids = np.arange(self.base.size).reshape(self.base.shape)
        self.covered = np.zeros(self.base.size, dtype=bool)
        self.covered[view_of(ids, shape, layout).ravel()] = True
        self.before = as_bits(self.base).copy()

    def check(self, expected, what="output"):
        assert_same_bits(self.view, expected, what)
        after = as_bits(self.base).ravel()
        outside = ~self.covered
        changed = np.flatnonzero(after[outside] != self.before.ravel()[outside])
        assert changed.size == 0, (f"{what}: {changed.size} elements outside the view were "
                                   f"written")
