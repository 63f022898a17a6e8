"""The .npy files of DxDispatch models: reading initial values, writing ``writeFile`` output.

Reading follows DxDispatch (NpyReaderWriter.cpp) where it is deliberate: header versions 1 to 3,
the array's shape discarded, every byte after the header kept (zero-padded up to the shape's
size if the file is short), NumPy's bool read as INT8, Fortran order refused. Where DxDispatch
has a bug (big-endian data is swapped as one element the size of the whole array), dmlcpu swaps
each element, so the values are the file's values.

Writing produces DxDispatch's file byte for byte: a version 1.0 header
``{'descr':'<f4', 'fortran_order':False, 'shape':(2,3,), }`` padded with spaces to a multiple
of 64 bytes and ended by a newline, then the whole buffer.
"""
import ast
import struct

import numpy as np

from .._types import DATA_TYPE_OF_NUMPY, NUMPY_DTYPES, TensorDataType

_MAGIC = b"\x93NUMPY"


class NpyError(ValueError):
    """A .npy file DxDispatch would not read."""


def _header(data):
    if len(data) < 10:
        raise NpyError("too short for a .npy header")
    major = data[6]
    if major >= 4 or major == 0:
        raise NpyError(f".npy format version {major} is not supported (1 to 3 are)")
    if major == 1:
        (length,), start = struct.unpack_from("<H", data, 8), 10
    else:
        if len(data) < 12:
            raise NpyError("too short for a .npy header")
        (length,), start = struct.unpack_from("<I", data, 8), 12
    text = data[start:start + length].decode("utf-8" if major == 3 else "latin1")
    try:
        header = ast.literal_eval(text.strip())
        dtype = np.dtype(header["descr"])
        shape = tuple(int(n) for n in header["shape"])
        fortran = bool(header["fortran_order"])
    except (ValueError, SyntaxError, TypeError, KeyError, MemoryError, RecursionError) as error:
        raise NpyError(f"its .npy header cannot be read: {error}") from None
    return dtype, shape, fortran, start + length


def read_npy(data):
    """(data type or None if DirectML has no such type, the values' bytes) of a .npy file."""
    if not data.startswith(_MAGIC):
        raise NpyError("it does not start with the .npy magic string")
    dtype, shape, fortran, offset = _header(data)
    if fortran:
        raise NpyError("Fortran-ordered .npy arrays are not supported (DxDispatch refuses them)")
    if dtype.kind == "b":
        data_type = TensorDataType.INT8  # DxDispatch reads NumPy's '|b1' code as INT8
    else:
        data_type = DATA_TYPE_OF_NUMPY.get(dtype.newbyteorder("<") if dtype.byteorder == ">"
                                           else dtype)
    payload = data[offset:]
    count = 1
    for n in shape:
        count *= n
    needed = count * dtype.itemsize
    if len(payload) < needed:
        payload = payload + bytes(needed - len(payload))
    if dtype.byteorder == ">" and data_type is not None and dtype.itemsize > 1:
        whole = len(payload) - len(payload) % dtype.itemsize
        swapped = np.frombuffer(payload[:whole], dtype=dtype).astype(dtype.newbyteorder("<"))
        payload = swapped.tobytes() + payload[whole:]
    return data_type, payload


def npy_file_bytes(buffer, data_type, dimensions):
    """DxDispatch's .npy file for a buffer: its header, then every byte of the buffer."""
    descr = "<" + NUMPY_DTYPES[data_type].str[1:]
    shape = "(" + "".join(f"{n}," for n in dimensions) + ")"
    text = f"{{'descr':'{descr}', 'fortran_order':False, 'shape':{shape}, }}"
    length = (10 + len(text) + 1 + 63) & ~63
    header = text.encode("latin1").ljust(length - 10 - 1) + b"\n"
    return _MAGIC + bytes([1, 0]) + struct.pack("<H", len(header)) + header + bytes(buffer)
