"""The text of DxDispatch's ``print`` command (Executor.cpp), so the two tools' outputs diff.

``Resource 'name': v0, v1, ...`` on one line, or with ``verbose`` a header line, one line per
element ``[index] value (0xHEX)`` and an empty line. Only the elements of the initial values are
shown (not padding or an explicit larger ``sizeInBytes``), read as ``initialValuesDataType``.
Values are written as C++ ``ostream <<`` writes them: floats (FLOAT16 via float) as ``%g`` with
6 significant digits, NaN as the Microsoft C runtime spells it, integers in full. One deliberate
difference: DxDispatch writes INT8 and UINT8 values as characters (``ostream << char``); dmlcpu
writes their numbers. The text is written in blocks of ``BLOCK`` elements, never built whole.
"""
import math

import numpy as np

from .._types import NUMPY_DTYPES

BLOCK = 4096  # elements formatted at a time


def _nan_text(bits, width):
    """MSVC's spelling of a NaN printed from a double: "nan", "-nan", "-nan(ind)" for the
    default NaN (sign set, no payload), "nan(snan)" for a signaling one. Floats reach ``<<``
    converted to double, which quiets them, so only FLOAT64 can print "(snan)"."""
    mantissa_bits = {2: 10, 4: 23, 8: 52}[width]
    sign = bits >> (8 * width - 1)
    quiet_bit = 1 << (mantissa_bits - 1)
    payload = bits & (quiet_bit - 1)
    if width == 8 and not bits & quiet_bit:
        return "-nan(snan)" if sign else "nan(snan)"
    if sign:
        return "-nan(ind)" if payload == 0 else "-nan"
    return "nan"


def _value_text(value, bits, dtype):
    if dtype.kind != "f":
        return str(int(value))
    number = float(value)
    if math.isnan(number):
        return _nan_text(bits, dtype.itemsize)
    return "%g" % number


def write_print(stream, name, buffer, resource, verbose):
    """Writes to stream the text DxDispatch's print writes for resource, final newline
    included."""
    dtype = NUMPY_DTYPES[resource.data_type]
    count = resource.initial // dtype.itemsize
    values = np.frombuffer(buffer, dtype=dtype, count=count)
    bits = np.frombuffer(buffer, dtype=f"u{dtype.itemsize}", count=count)
    index_width = len(str(count)) if count else 1
    hex_width = 2 * dtype.itemsize
    stream.write(f"Resource '{name}':" + ("\n" if verbose else " "))
    for start in range(0, count, BLOCK):
        stop = min(start + BLOCK, count)
        pairs = zip(values[start:stop].tolist(), bits[start:stop].tolist())
        if verbose:
            stream.write("".join(
                f"[{i:>{index_width}}] {_value_text(v, b, dtype)} (0x{b:>{hex_width}X})\n"
                for i, (v, b) in enumerate(pairs, start)))
        else:
            stream.write((", " if start else "") + ", ".join(
                _value_text(v, b, dtype) for v, b in pairs))
    stream.write("\n")
