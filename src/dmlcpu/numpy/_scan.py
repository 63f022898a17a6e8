"""cumsum, cumprod, cumulative_sum and cumulative_prod: dmlcpu's scans where they give NumPy's
bits, NumPy itself for everything else.

NumPy casts each element to the result type, which its own type resolution picks (int8..int32
and bool widen to the platform integer unless ``dtype=`` says otherwise), and accumulates
sequentially along the axis in that type. dmlcpu's float32/float64 and integer scans give
exactly that, so: a result type equal to the input's (or an integer of the same width) scans
straight into the result; an integer source into a wider integer result, and float16 into
float16, take dmlcpu.numpy's own kernels (dmlcpu_numpy_scan: widening as they read, one pass;
float16 rounded at every step as NumPy does); other wider results (safe casts only) first
receive the input by NumPy's cast and are scanned in place; complex sums are two independent
float scans (NumPy adds real and imaginary parts separately).

NaN payloads: where two NaNs meet, which payload survives depends on operand order, and a
signalling NaN in the first place is copied by NumPy but quieted by dmlcpu's identity step. A
running total that once is NaN or inf stays NaN or inf, so a line met no NaN and no overflow
(where NumPy warns) exactly when its last total is finite; a float scan whose last totals are
not all finite is done again by NumPy into the result, for its bits and its warnings.
float16 lines whose last total is infinite are done again too: NumPy warns where a float16
step overflows, and its warnings come with its own call.
"""
import numpy as np

from .. import _core, _ops
from .._types import DATA_TYPE_OF_NUMPY
from . import _layout, _numpy
from ._layout import MAX_DIMS, NDARRAY, disjoint, empty_in_order, stride_order
from ._stats import count

_SCAN_TYPES = frozenset(np.dtype(t) for t in (
    np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
    np.float32, np.float64))
_COMPLEX_PARTS = {np.dtype(np.complex64): np.dtype(np.float32),
                  np.dtype(np.complex128): np.dtype(np.float64)}
_KERNELS = {"sum": _ops.cumulative_summation, "prod": _ops.cumulative_product}
_OPS = {"sum": 0, "prod": 1}   # dmlcpu_scan_op
_FLOAT16 = np.dtype(np.float16)
_UINT8 = np.dtype(np.uint8)
_resolved = {}   # (function, input dtype, dtype argument) -> NumPy's result dtype or None


def _result_type(numpy_fn, dt, dtype):
    """The result dtype NumPy's ``numpy_fn`` gives an input of ``dt`` with ``dtype=``, asked of
    NumPy itself on one element (None where NumPy refuses or the argument is unhashable)."""
    key = (numpy_fn, dt, dtype)
    try:
        return _resolved[key]
    except KeyError:
        pass
    except TypeError:
        return None
    try:
        rt = numpy_fn(np.zeros(1, dt), dtype=dtype).dtype
    except Exception:  # NumPy raises it again, with its own message, on the fallback
        rt = None
    _resolved[key] = rt
    return rt


def _refusal(numpy_fn, op, a, axis, dtype, out):
    """Why the fast path cannot answer this scan, or (axis, result dtype, result shape)."""
    if type(a) is not NDARRAY:
        return "not ndarray"
    ndim = a.ndim
    if not 1 <= ndim <= MAX_DIMS:
        return "dimensions"
    if axis is not None and (type(axis) is not int or not -ndim <= axis < ndim):
        return "axis"
    rt = _result_type(numpy_fn, a.dtype, dtype)
    if rt is None:
        return "dtype"
    kind = _kind(a.dtype, rt)
    if kind is None:
        if rt not in _SCAN_TYPES and not (op == "sum" and rt in _COMPLEX_PARTS):
            return "float16 result" if rt == np.float16 else "result type"
        if rt in _COMPLEX_PARTS and axis is not None and ndim == MAX_DIMS:
            return "dimensions"  # the parts take one more axis
        if rt != a.dtype and not np.can_cast(a.dtype, rt, "safe"):
            return "cast"
    if a.size == 0:
        return "empty"
    if a.size * rt.itemsize < _layout.SMALL_BYTES:
        return "small"
    shape = (a.size,) if axis is None else a.shape
    if out is not None and (type(out) is not NDARRAY or out.dtype != rt or out.shape != shape
                            or not out.flags.writeable or not disjoint(out, (a,))):
        return "out"
    return (None if axis is None else axis % ndim), rt, shape, kind


def _kind(dt, rt):
    """How dmlcpu.numpy's own kernels scan ``dt`` into NumPy's result type ``rt``: "widen" (an
    integer or bool source into a wider integer: NumPy's cast sign- or zero-extends, then the
    total wraps in ``rt``), "same width" (integers of one width: NumPy's cast keeps the bits),
    "float16", or None (the other paths)."""
    if rt.kind not in "iu" or dt.kind not in "iub" or not dt.isnative:
        return "float16" if dt == rt == _FLOAT16 else None
    if dt.itemsize < rt.itemsize:
        return "widen"
    if dt.itemsize == rt.itemsize and dt != rt:
        return "same width"
    return None


def _own_scan(kind, a, axis, out, op):
    """dmlcpu_numpy_scan of ``a`` along ``axis`` into ``out`` (of NumPy's result type and
    ``a``'s shape, sharing no memory with it); "same width": dmlcpu's scan of ``a``'s bits."""
    if a.dtype.kind == "b":
        a = a.view(_UINT8)
    if kind == "same width":
        _KERNELS[op](a.view(out.dtype), axis=axis, out=out)
        return
    _core._numpy_scan(a, out, DATA_TYPE_OF_NUMPY[a.dtype],
                      DATA_TYPE_OF_NUMPY[out.dtype], axis, _OPS[op])


def _scan(a, axis, out, op):
    """dmlcpu's scan of ``a`` along ``axis`` into ``out`` (``a`` may be ``out`` itself);
    complex data as its real and imaginary float parts along one more axis."""
    parts = _COMPLEX_PARTS.get(out.dtype)
    if parts is not None:
        a, out = a[..., None].view(parts), out[..., None].view(parts)
    _KERNELS[op](a, axis=axis, out=out)


def scan(name, numpy_fn, op, a, axis, dtype, out):
    """The drop-in scan: the fast path's result, or None after counting why NumPy answers."""
    plan = _refusal(numpy_fn, op, a, axis, dtype, out)
    if type(plan) is str:
        count(name, plan)
        return None
    axis_arg, (axis, rt, shape, kind) = axis, plan
    flat = a.reshape(-1) if axis is None and a.flags.c_contiguous else None
    if kind is not None:
        if out is None:
            out = (np.empty(shape, rt) if axis is None
                   else empty_in_order(shape, rt, stride_order((a,), a.ndim, iterator=True)))
        # axis=None: the input in NumPy's flattening (C) order, a copy only where it is not
        _own_scan(kind, a if axis is not None else a.ravel(), axis or 0, out, op)
        if kind == "float16" and _not_finite(out, axis):
            count(name, "NaN or inf")
            return numpy_fn(a, axis=axis_arg, dtype=dtype, out=out)
        count(name, "fast")
        return out
    if out is None and rt == a.dtype and rt in _SCAN_TYPES and a.flags.c_contiguous:
        # C order, as NumPy lays out the result of a C-ordered input: dmlcpu allocates it
        out = _KERNELS[op](a if flat is None else flat, axis=axis or 0)
    else:
        if out is None:
            out = (np.empty(shape, rt) if axis is None
                   else empty_in_order(shape, rt, stride_order((a,), a.ndim, iterator=True)))
        if rt == a.dtype and (axis is not None or flat is not None):
            _scan(a if flat is None else flat, axis or 0, out, op)
        else:   # cast (NumPy's cast) into the result, or flatten it there; scan in place
            np.copyto(out if axis is not None else out.reshape(a.shape), a, casting="safe")
            _scan(out, axis or 0, out, op)
    if rt.kind in "fc" and _not_finite(out, axis):
        count(name, "NaN or inf")
        return numpy_fn(a, axis=axis_arg, dtype=dtype, out=out)
    count(name, "fast")
    return out


def _last(out, axis):
    """The last total of each scan line of ``out`` (along ``axis``; None: the whole flattened
    array)."""
    return out[-1:] if axis is None else out[(slice(None),) * axis + (slice(-1, None),)]


def _not_finite(out, axis):
    """True when a scan line of ``out`` ends in NaN or inf: it met a NaN (whose payload NumPy's
    order decides) or overflowed or met an inf (where NumPy may warn). Such a scan is done again
    by NumPy, for its bits and its warnings."""
    return not np.isfinite(_last(out, axis)).all()


def _classic(name, op, numpy_fn, method):
    """np.cumsum or np.cumprod: the fast scan, or NumPy (small plain arrays: straight to the
    ndarray method, which is what NumPy's function calls for them)."""
    def function(a, axis=None, dtype=None, out=None):
        if type(a) is NDARRAY and a.nbytes < _layout.SMALL_BYTES:
            count(name, "small")
            return method(a, axis, dtype, out)
        result = scan(name, numpy_fn, op, a, axis, dtype, out)
        return numpy_fn(a, axis, dtype, out) if result is None else result
    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"numpy.{name} (same arguments, result and errors)."
    return function


def _cumulative(name, op, numpy_fn):
    """np.cumulative_sum or np.cumulative_prod: the fast scan, or NumPy."""
    def function(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
        if include_initial:
            reason = "include_initial"
        elif axis is None and (type(x) is not NDARRAY or x.ndim != 1):
            reason = "axis"   # NumPy: only 1-D arrays may leave the axis out
        else:
            result = scan(name, numpy_fn, op, x, 0 if axis is None else axis, dtype, out)
            if result is not None:
                return result
            reason = None
        if reason is not None:
            count(name, reason)
        return numpy_fn(x, axis=axis, dtype=dtype, out=out, include_initial=include_initial)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"numpy.{name} (same arguments, result and errors)."
    return function


cumsum = _classic("cumsum", "sum", _numpy.cumsum, NDARRAY.cumsum)
cumprod = _classic("cumprod", "prod", _numpy.cumprod, NDARRAY.cumprod)
# NumPy 2.1 and later (None before, as the names are absent from NumPy there)
cumulative_sum = _numpy.cumulative_sum and _cumulative("cumulative_sum", "sum",
                                                       _numpy.cumulative_sum)
cumulative_prod = _numpy.cumulative_prod and _cumulative("cumulative_prod", "prod",
                                                         _numpy.cumulative_prod)
