"""DxDispatch's numbers and initial values: JSON values to the bytes of a buffer.

Each function raises ``ModelError`` with the JSON path of the value it refuses. The rules (from
DxDispatch's JsonParsers.cpp; docs/dxdispatch.md):

- data type names are exact: ``DML_TENSOR_DATA_TYPE_X`` or ``X``;
- integers must be integer tokens (``1.0`` and ``1e3`` are refused) within the type's range;
- FLOAT32/FLOAT64 take any number or the strings "nan", "inf", "-inf" (any case);
- FLOAT16 is parsed as FLOAT32, then converted by truncation toward zero (half_float's default
  rounding, which DxDispatch never changes), not round-to-nearest;
- sequences add in the element type: integers wrap, FLOAT16 adds in float and truncates each step.
"""
import json
import reprlib

import numpy as np

from .._errors import ModelError
from .._types import NUMPY_DTYPES, TensorDataType
from .._validate import show as show_number

T = TensorDataType
_PREFIX = "DML_TENSOR_DATA_TYPE_"
# Names DirectML defines that dmlcpu has no type for.
_UNSUPPORTED_TYPES = ("UINT4", "INT4")


MAX_PROBLEMS = 100  # a refused model lists at most this many problems, then stops looking


def show(value):
    """A value as a JSON file would spell it, for messages (any value: a parsed model handed to
    run_dxdispatch may hold integers too long for str() or objects JSON does not have)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return show_number(value)
    try:
        text = json.dumps(value)
    except (TypeError, ValueError, RecursionError):
        try:
            text = reprlib.repr(value)
        except (ValueError, RecursionError):
            text = f"a {type(value).__name__}"
    return text if len(text) <= 60 else text[:57] + "..."


def check_text(value, path):
    """value (a string), if it is Unicode text: a lone surrogate (JSON's "\\udc80") would make
    print or a file name fail halfway through a run."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ModelError(f"{path} {show(value)} holds a lone surrogate, which is not text") \
            from None
    return value


def at(path, name):
    """The JSON path of field name inside path ("" is the object itself)."""
    return f"{path}.{name}" if path else name


def require(obj, name, path, kind=object):
    """obj[name], which must exist and be of kind (str, dict, list, int or any)."""
    if not isinstance(obj, dict) or name not in obj:
        raise ModelError(f"{at(path, name)} is missing")
    if not isinstance(obj[name], kind):
        what = {str: "a string", dict: "an object", list: "an array", int: "an integer"}[kind]
        raise ModelError(f"{at(path, name)} must be {what}, not {show(obj[name])}")
    return obj[name]


def lookup(table, name, what):
    """table[name]; ModelError if undefined, an empty one (nothing more to say) if it maps to
    None: a part of the model that failed to parse, whose problems are already listed."""
    if name not in table:
        raise ModelError(f"{what} {name!r} is not defined in the model")
    if table[name] is None:
        raise ModelError([])
    return table[name]


def parse_data_type(value, path, allow_unknown=False):
    """A TensorDataType from DxDispatch's spelling (exact case); UNKNOWN only if allowed."""
    if not isinstance(value, str):
        raise ModelError(f"{path} must be a data type name string, not {show(value)}")
    name = value[len(_PREFIX):] if value.startswith(_PREFIX) else value
    if name in _UNSUPPORTED_TYPES:
        raise ModelError(f"{path} is {value}, a DirectML type dmlcpu does not support")
    data_type = T.__members__.get(name)
    if data_type is None or (data_type == T.UNKNOWN and not allow_unknown):
        names = ", ".join(t.name for t in T if t != T.UNKNOWN or allow_unknown)
        raise ModelError(f"{path} is {show(value)}; expected one of {names} (exact case, "
                         f"optionally prefixed {_PREFIX})")
    return data_type


def _is_int_token(value):
    return isinstance(value, int) and not isinstance(value, bool)


def parse_uint(value, path, bits=32):
    """An unsigned JSON integer of at most ``bits`` bits (DxDispatch's gsl::narrow)."""
    if not _is_int_token(value) or not 0 <= value < 2**bits:
        raise ModelError(f"{path} must be an integer from 0 to {2**bits - 1}, not {show(value)}")
    return value


def _float(value, path):
    if isinstance(value, str) and value.lower() in ("nan", "inf", "-inf"):
        return float(value.lower())
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ModelError(f"{path} must be a number or \"nan\", \"inf\", \"-inf\", not "
                         f"{show(value)}")
    try:
        return float(value)
    except OverflowError:
        raise ModelError(f"{path} is {show(value)}, too large for a double") from None


def float16_truncated(values32):
    """FLOAT32 values to FLOAT16 bits by truncation toward zero, as half_float's default
    ``round_indeterminate`` does (its base/shift table: exponents past FLOAT16's range give
    infinity, NaN keeps its top payload bits)."""
    bits = np.asarray(values32, dtype=np.float32).view(np.uint32)
    sign = ((bits >> 16) & 0x8000).astype(np.uint32)
    exponent = ((bits >> 23) & 0xFF).astype(np.int64) - 127
    mantissa = bits & 0x7FFFFF
    half = np.zeros(bits.shape, dtype=np.uint32)
    sub = (exponent >= -24) & (exponent < -14)          # FLOAT16 subnormals
    shift = np.where(sub, -exponent - 1, 0).astype(np.uint32)
    half[sub] = (0x400 >> (-exponent[sub] - 14)) + (mantissa[sub] >> shift[sub])
    normal = (exponent >= -14) & (exponent <= 15)
    half[normal] = ((exponent[normal] + 15) << 10).astype(np.uint32) + (mantissa[normal] >> 13)
    half[(exponent > 15) & (exponent < 128)] = 0x7C00   # overflow: infinity
    special = exponent == 128                            # inf and NaN
    half[special] = 0x7C00 + (mantissa[special] >> 13)
    return (half | sign).astype(np.uint16)


def _scalar(value, data_type, path):
    """One JSON value as a 0-d array of data_type."""
    dtype = NUMPY_DTYPES[data_type]
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        if not _is_int_token(value) or not info.min <= value <= info.max:
            raise ModelError(f"{path} must be an integer from {info.min} to {info.max} "
                             f"({data_type.name}), not {show(value)}")
        return np.array(value, dtype=dtype)
    number = _float(value, path)
    with np.errstate(over="ignore"):
        if data_type == T.FLOAT16:
            return float16_truncated(np.float32(number)).view(np.float16)
        return np.array(number, dtype=dtype)


def _plain_list_bytes(values, data_type):
    """The bytes of a list of plain JSON numbers at NumPy's speed, or None if any value needs
    the element-wise path (which then names the first bad one)."""
    dtype = NUMPY_DTYPES[data_type]
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        if all(type(v) is int and info.min <= v <= info.max for v in values):
            return np.array(values, dtype=dtype).tobytes()
        return None
    if not all(type(v) in (int, float) for v in values):
        return None
    try:
        doubles = np.array(values, dtype=np.float64)
    except OverflowError:
        return None
    with np.errstate(over="ignore"):
        if data_type == T.FLOAT16:
            return float16_truncated(doubles.astype(np.float32)).tobytes()
        return doubles.astype(dtype).tobytes()


def list_bytes(values, data_type, path):
    """An initialValues list of numbers of one data type."""
    plain = _plain_list_bytes(values, data_type)
    if plain is not None:
        return plain
    return b"".join(_scalar(v, data_type, f"{path}[{i}]").tobytes()
                    for i, v in enumerate(values))


def mixed_list_bytes(values, path):
    """An initialValues list of {"type", "value"} objects, packed without alignment."""
    parts = []
    for i, item in enumerate(values):
        where = f"{path}[{i}]"
        if not isinstance(item, dict) or "type" not in item or "value" not in item:
            raise ModelError(f"{where} must be an object with \"type\" and \"value\" (the list "
                             f"form without initialValuesDataType), not {show(item)}")
        data_type = parse_data_type(item["type"], f"{where}.type")
        if data_type == T.FLOAT16:
            raise ModelError(f"{where}.type is FLOAT16, which DxDispatch's mixed lists do not "
                             f"take")
        parts.append(_scalar(item["value"], data_type, f"{where}.value").tobytes())
    return b"".join(parts)


# Elements a sequence is generated in at a time: its temporaries stay this small.
_BLOCK = 1 << 15


def constant_fill(value, data_type, path):
    """{"valueCount": N, "value": v}: a function writing v into every element of a typed view."""
    scalar = _scalar(value, data_type, f"{path}.value")

    def fill(dest):
        dest[...] = scalar
    return fill


def sequence_fill(start, delta, data_type, path):
    """{"valueCount", "valueStart", "valueDelta"}: v = start; emit v; v += delta (typed), as a
    function filling a typed view in blocks of _BLOCK elements (no temporary of its size)."""
    first = _scalar(start, data_type, f"{path}.valueStart")
    step = _scalar(delta, data_type, f"{path}.valueDelta")
    dtype = first.dtype
    if data_type == T.FLOAT16:
        return lambda dest: _float16_sequence(dest, first, step)
    if dtype.kind in "iu":  # repeated addition wraps: start + i * delta modulo 2^bits
        mask = (1 << (8 * dtype.itemsize)) - 1
        base, stride = np.uint64(int(first) & mask), np.uint64(int(step) & mask)

        def fill(dest):
            unsigned = dest.view(f"u{dtype.itemsize}")
            for i in range(0, len(dest), _BLOCK):
                index = np.arange(i, min(i + _BLOCK, len(dest)), dtype=np.uint64)
                index *= stride  # wraps in uint64, then is cut to the type
                index += base
                unsigned[i:i + len(index)] = index
        return fill

    def fill(dest):  # floats: sequential, in the type, each block from the last value before
        previous = None
        with np.errstate(over="ignore", invalid="ignore"):
            for i in range(0, len(dest), _BLOCK):
                part = dest[i:i + _BLOCK]
                part[...] = step
                part[0] = first if previous is None else previous + step
                np.add.accumulate(part, dtype=dtype, out=part)
                previous = part[-1]
    return fill


def _float16_sequence(out, first, step):
    """FLOAT16 v += delta in float, truncated each step, into ``out``. The step is a function
    of the 2^16 FLOAT16 values, so the walk repeats within 2^16 steps; the rest is filled by
    copying that cycle, doubling the copied length each time."""
    count = len(out)
    seen = {}
    value, step32 = np.float32(first), np.float32(step)
    for i in range(count):
        key = np.float16(value).view(np.uint16).item()
        if key in seen:
            start = seen[key]
            period = i - start
            filled = i
            while filled < count:
                length = min((filled - start) // period * period, count - filled)
                out[filled:filled + length] = out[start:start + length]
                filled += length
            return
        seen[key] = i
        out[i] = value
        with np.errstate(over="ignore", invalid="ignore"):
            value = float16_truncated(np.float32(value) + step32).view(np.float16)[()]
