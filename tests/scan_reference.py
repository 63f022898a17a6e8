"""An independent reference for CUMULATIVE_SUMMATION / CUMULATIVE_PRODUCT (docs/semantics.md
section 3).

A plain Python walk along each line in walk order, written from the spec, not from the C code:
- integers are Python ints masked to the type's width after every step, then read back as
  signed where the type is signed (two's complement wrap);
- FLOAT32 and FLOAT64 accumulate with NumPy scalars of that type, one step at a time;
- FLOAT16 accumulates in np.float32 and each written value is converted with np.float16(...).
The running total of the first element is that element itself; an exclusive walk writes the
identity (0 or 1) first and never uses the last element.
"""
import itertools
import operator

import numpy as np

SUM, PROD = "sum", "prod"


def _integer_walk(line, dtype, op, exclusive):
    bits = 8 * dtype.itemsize
    mask = (1 << bits) - 1
    if op == SUM:
        combine = lambda a, b: (a + b) & mask  # noqa: E731
    else:
        combine = lambda a, b: (a * b) & mask  # noqa: E731
    values = [int(v) & mask for v in line]
    totals = _walk(values, combine, exclusive, 0 if op == SUM else 1)
    if dtype.kind == "i":
        half = 1 << (bits - 1)
        totals = [t - (1 << bits) if t >= half else t for t in totals]
    return totals


def _float_walk(line, dtype, op, exclusive):
    acc_type = np.float32 if dtype == np.float16 else dtype.type
    combine = operator.add if op == SUM else operator.mul
    values = [acc_type(v) for v in line]
    totals = _walk(values, combine, exclusive, acc_type(0.0 if op == SUM else 1.0))
    return [dtype.type(t) for t in totals]


def _walk(values, combine, exclusive, identity):
    """Running totals of ``values`` in order; the first total is the first value itself."""
    if not values:
        return []
    inclusive = list(itertools.accumulate(values, combine))
    if exclusive:
        return [identity] + inclusive[:-1]
    return inclusive


def reference_scan(x, axis, op, reverse=False, exclusive=False):
    """The scan of array ``x`` along ``axis`` as a new C-contiguous array of x's dtype."""
    x = np.asarray(x)
    out = np.empty(x.shape, dtype=x.dtype)
    walk = _integer_walk if x.dtype.kind in "iu" else _float_walk
    moved_in = np.moveaxis(x, axis, -1)
    moved_out = np.moveaxis(out, axis, -1)
    with np.errstate(all="ignore"):  # inf - inf and overflow are the point, not an accident
        for index in np.ndindex(moved_in.shape[:-1]):
            line = moved_in[index]
            line = line.tolist() if x.dtype.kind in "iu" else list(line)
            if reverse:
                line.reverse()
            totals = walk(line, x.dtype, op, exclusive)
            if reverse:
                totals.reverse()
            moved_out[index] = np.array(totals, dtype=x.dtype)
    return out
