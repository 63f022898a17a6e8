"""Arrays at the eager API's edge: accepting inputs and outputs, and refusing overlap."""
import numpy as np

from ._errors import InvalidArgumentError
from ._self_overlap import self_overlaps
from ._support import supported_data_types
from ._types import DATA_TYPE_OF_NUMPY, NUMPY_DTYPES
from ._validate import level_name

try:  # NumPy >= 2.0
    from numpy.lib.array_utils import byte_bounds
except ImportError:  # pragma: no cover - NumPy 1.x
    byte_bounds = np.byte_bounds

# Work allowed to np.shares_memory's exact solver before an overlap is assumed.
_OVERLAP_MAX_WORK = 1 << 20


def as_array(obj, field):
    """A NumPy view of an input: ndarray, __dlpack__ object (CPU torch tensors) or buffer."""
    if isinstance(obj, np.ndarray):
        return obj
    if hasattr(obj, "__dlpack__"):
        try:
            return np.from_dlpack(obj)
        except (TypeError, ValueError, BufferError, RuntimeError) as error:
            raise TypeError(f"{field}: cannot read this __dlpack__ object on the CPU: "
                            f"{error}") from None
    try:
        view = memoryview(obj)
    except TypeError:
        raise TypeError(f"{field} must be an array, a buffer or a __dlpack__ object, not "
                        f"{type(obj).__name__}") from None
    try:
        return np.asarray(view)
    except (TypeError, ValueError) as error:
        raise TypeError(f"{field}: its buffer cannot be read as an array: {error}") from None


def as_output_array(obj, field):
    """A NumPy view of a caller's output, which must be writable."""
    array = as_array(obj, field)
    if not array.flags.writeable:
        raise InvalidArgumentError(f"{field} is read-only but must be writable")
    return array


def data_type_of(array, op, field, level):
    """The DirectML data type of an array's dtype, or InvalidArgumentError listing the supported."""
    data_type = DATA_TYPE_OF_NUMPY.get(array.dtype)
    if data_type is None:
        names = ", ".join(f"{t.name} ({NUMPY_DTYPES[t].name})"
                          for t in supported_data_types(op, level))
        raise InvalidArgumentError(f"{op}: {field}.DataType is NumPy {array.dtype.str} "
                                   f"({array.dtype}) but must be one of {names} at "
                                   f"{level_name(level)}")
    return data_type


def layout_of(array, slot):
    return (slot, 0, array.shape, array.strides)


def _bounds(array):
    if array.size == 0:
        return None
    return byte_bounds(array)


def _may_share(a, b):
    try:
        return np.shares_memory(a, b, max_work=_OVERLAP_MAX_WORK)
    except np.exceptions.TooHardError:
        return True


def check_no_overlap(op, outputs, inputs, output_field, input_field, in_place_ok=False):
    """Outputs may not overlap inputs, each other, or themselves (in place: the identical view)."""
    for k, out in enumerate(outputs):
        out_name = output_field if len(outputs) == 1 else f"{output_field}[{k}]"
        if self_overlaps(out):
            raise InvalidArgumentError(f"{op}: {out_name} has strides {out.strides} that map two "
                                       f"coordinates to the same element; outputs must not "
                                       f"overlap themselves")
        out_bounds = _bounds(out)
        if out_bounds is None:
            continue
        for j, inp in enumerate(inputs):
            if in_place_ok and _identical_view(out, inp):
                continue
            in_bounds = _bounds(inp)
            if in_bounds is None or in_bounds[1] <= out_bounds[0] or out_bounds[1] <= in_bounds[0]:
                continue
            if _may_share(out, inp):
                in_name = input_field if len(inputs) == 1 else f"{input_field}[{j}]"
                allowed = " except as the identical view (in place)" if in_place_ok else ""
                raise InvalidArgumentError(f"{op}: {out_name} overlaps {in_name} in memory; an "
                                           f"output must not overlap an input{allowed}")
    _check_outputs_disjoint(op, outputs, output_field)


def _check_outputs_disjoint(op, outputs, output_field):
    spans = sorted((b[0], b[1], k) for k, b in ((k, _bounds(o)) for k, o in enumerate(outputs))
                   if b is not None)
    for i, (low, high, k) in enumerate(spans):
        for other_low, _, j in spans[i + 1:]:
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
