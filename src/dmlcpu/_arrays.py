"""Arrays at the eager API's edge: accepting inputs and outputs, and refusing overlap."""
import numpy as np

from ._errors import InvalidArgumentError
from ._self_overlap import SELF_OVERLAP_MAX_WORK, self_overlap
from ._support import supported_data_types
from ._types import DATA_TYPE_OF_NUMPY, NUMPY_DTYPES
from ._validate import at_level

try:  # NumPy >= 2.0
    from numpy.lib.array_utils import byte_bounds
except ImportError:  # pragma: no cover - NumPy 1.x
    byte_bounds = np.byte_bounds

# Work allowed to np.shares_memory's exact solver before an overlap is assumed (the self-overlap
# solver has its own budget, _self_overlap.SELF_OVERLAP_MAX_WORK).
OVERLAP_MAX_WORK = 1 << 20

OFFSETS_OVERFLOW = ("its sizes and strides reach byte offsets beyond 64 bits (its elements "
                    "would span more than 2^63 bytes)")


def as_array(obj, field, output=False):
    """A NumPy view of an argument: ndarray, __dlpack__ object (CPU torch tensors) or buffer.

    An output given as a __dlpack__ object is imported with copy=False: a producer may answer
    a plain request with a copy, which dmlcpu would fill while the caller's tensor stays as it
    was; one that can only give a copy is refused.

    Refused with TypeError, because their memory does not hold their values: NumPy masked
    arrays (dmlcpu would drop the mask) and PyTorch tensors with the negative bit set (lazily
    negated views such as ``z.conj().imag``, whose DLPack export does not resolve the bit).
    """
    if isinstance(obj, np.ndarray):
        if isinstance(obj, np.ma.MaskedArray):
            raise TypeError(masked_array_message(field))
        return obj
    if hasattr(obj, "__dlpack__"):
        return _from_dlpack(obj, field, output)
    try:
        view = memoryview(obj)
    except TypeError:
        raise TypeError(f"{field} must be an array, a buffer or a __dlpack__ object, not "
                        f"{type(obj).__name__}") from None
    except (ValueError, BufferError) as error:  # a released memoryview, a closed mmap
        raise TypeError(f"{field} is not a usable buffer: {error}") from None
    try:
        return np.asarray(view)
    except (TypeError, ValueError, BufferError) as error:  # BufferError: PEP 3118 suboffsets
        raise TypeError(f"{field}: its buffer cannot be read as an array: {error}") from None


def masked_array_message(field):
    """Why a masked array is refused, and what to pass instead."""
    return (f"{field} is a NumPy masked array, whose mask dmlcpu would drop; pass "
            f"np.ma.getdata(x) for its data as it is, or x.filled(value) to replace the masked "
            f"elements")


class _SharedOnly:
    """A DLPack producer's stand-in that always asks it for its own memory (copy=False), on
    any NumPy (np.from_dlpack takes ``copy`` only from 2.1). A producer older than the ``copy``
    keyword is asked without it: that protocol had no copies."""

    def __init__(self, producer):
        self.producer = producer

    def __dlpack_device__(self):
        return self.producer.__dlpack_device__()

    def __dlpack__(self, **kwargs):
        try:
            return self.producer.__dlpack__(**dict(kwargs, copy=False))
        except TypeError:
            kwargs.pop("copy", None)
            return self.producer.__dlpack__(**kwargs)


def _from_dlpack(obj, field, output):
    is_neg = getattr(obj, "is_neg", None)  # PyTorch's lazily negated views
    if callable(is_neg) and is_neg() is True:
        raise TypeError(f"{field} is a PyTorch tensor with its negative bit set (a lazily "
                        f"negated view such as z.conj().imag): its memory holds the negated "
                        f"values; pass x.resolve_neg()")
    try:
        return np.from_dlpack(_SharedOnly(obj) if output else obj)
    except BufferError as error:
        if output:
            raise InvalidArgumentError(f"{field}: this __dlpack__ object cannot be written in "
                                       f"place (its producer would need a copy: {error})"
                                       ) from None
        raise TypeError(f"{field}: cannot read this __dlpack__ object on the CPU: "
                        f"{error}") from None
    except (TypeError, ValueError, RuntimeError) as error:
        raise TypeError(f"{field}: cannot read this __dlpack__ object on the CPU: "
                        f"{error}") from None


def data_type_of(dtype, op, field, level):
    """The DirectML data type of a NumPy dtype, or InvalidArgumentError listing the supported."""
    data_type = DATA_TYPE_OF_NUMPY.get(dtype)
    if data_type is None:
        names = ", ".join(f"{t.name} ({NUMPY_DTYPES[t].name})"
                          for t in supported_data_types(op, level))
        raise InvalidArgumentError(f"{op}: {field}.DataType is NumPy {dtype.str} "
                                   f"({dtype}) but must be one of {names} "
                                   f"{at_level(level)}")
    return data_type


def _bounds(array):
    if array.size == 0:
        return None
    return byte_bounds(array)


def _check_reach(op, array, name):
    """Every byte offset of a non-empty array must fit in 64 bits (NumPy's solvers and the C
    core work in them): refused, as the C boundary refuses such inputs."""
    if array.size and sum(abs(stride) * (size - 1) for size, stride in zip(
            array.shape, array.strides)) + array.itemsize > 2**63 - 1:
        raise InvalidArgumentError(f"{op}: {name}: {OFFSETS_OVERFLOW}")


def _may_share(a, b):
    try:
        return np.shares_memory(a, b, max_work=OVERLAP_MAX_WORK)
    except np.exceptions.TooHardError:
        return True


def check_no_overlap(op, outputs, inputs, output_field, input_field, in_place_ok=False):
    """Outputs may not overlap inputs, each other, or themselves (in place: the identical view).
    Each array's byte bounds are taken once; outputs side by side cost linear time."""
    names = [input_field if len(inputs) == 1 else f"{input_field}[{j}]"
             for j in range(len(inputs))]
    for j, inp in enumerate(inputs):
        _check_reach(op, inp, names[j])
    input_bounds = [_bounds(inp) for inp in inputs]
    output_bounds = []
    for k, out in enumerate(outputs):
        out_name = output_field if len(outputs) == 1 else f"{output_field}[{k}]"
        _check_reach(op, out, out_name)
        why = self_overlap(out)
        if why == "overlaps":
            raise InvalidArgumentError(f"{op}: {out_name} has strides {out.strides} that map two "
                                       f"coordinates to the same element; outputs must not "
                                       f"overlap themselves")
        if why == "undecided":
            raise InvalidArgumentError(f"{op}: {out_name} has sizes {out.shape} and strides "
                                       f"{out.strides} whose self-overlap NumPy's exact solver "
                                       f"did not settle in {SELF_OVERLAP_MAX_WORK} steps; outputs "
                                       f"must be shown not to overlap themselves")
        out_bounds = _bounds(out)
        output_bounds.append(out_bounds)
        if out_bounds is None:
            continue
        for j, inp in enumerate(inputs):
            if in_place_ok and _identical_view(out, inp):
                continue
            in_bounds = input_bounds[j]
            if in_bounds is None or in_bounds[1] <= out_bounds[0] or out_bounds[1] <= in_bounds[0]:
                continue
            if _may_share(out, inp):
                allowed = " except as the identical view (in place)" if in_place_ok else ""
                raise InvalidArgumentError(f"{op}: {out_name} overlaps {names[j]} in memory; an "
                                           f"output must not overlap an input{allowed}")
    _check_outputs_disjoint(op, outputs, output_bounds, output_field)


def _check_outputs_disjoint(op, outputs, bounds, output_field):
    """Sorted by start, each output is compared only with those starting before it ends:
    linear for outputs side by side, as a SPLIT's are."""
    spans = sorted((b[0], b[1], k) for k, b in enumerate(bounds) if b is not None)
    for i, (_, high, k) in enumerate(spans):
        for other in range(i + 1, len(spans)):
            other_low, _, j = spans[other]
            if other_low >= high:
                break
            if _may_share(outputs[k], outputs[j]):
                first, second = sorted((k, j))
                raise InvalidArgumentError(f"{op}: {output_field}[{first}] overlaps "
                                           f"{output_field}[{second}] in memory; outputs must "
                                           f"not overlap each other")


def _identical_view(a, b):
    return (a.__array_interface__["data"][0] == b.__array_interface__["data"][0]
            and a.shape == b.shape and a.strides == b.strides and a.dtype == b.dtype)
