"""The .npy files of DxDispatch models: reading initial values, writing ``writeFile`` output.

Reading follows DxDispatch (NpyReaderWriter.cpp) where it is deliberate: header versions 1 to 3,
the array's shape discarded, every byte after the header kept (zero-padded up to the shape's
size if the file is short), NumPy's bool read as INT8, Fortran order refused. Where DxDispatch
has a bug (big-endian data is swapped as one element the size of the whole array), dmlcpu swaps
each element, so the values are the file's values.

Memory: the header is read alone (at most ``MAX_HEADER_BYTES``) and the bytes its shape claims
are checked against the room the caller gives before anything else is read or allocated; the
values are then read straight into the resource's buffer.

Writing produces DxDispatch's file byte for byte: a version 1.0 header
``{'descr':'<f4', 'fortran_order':False, 'shape':(2,3,), }`` padded with spaces to a multiple
of 64 bytes and ended by a newline, then the whole buffer.
"""
import ast
import struct

import numpy as np

from .._types import DATA_TYPE_OF_NUMPY, NUMPY_DTYPES, TensorDataType

_MAGIC = b"\x93NUMPY"
# NumPy itself refuses headers past 10,000 bytes by default (np.load's max_header_size).
MAX_HEADER_BYTES = 65536


class NpyError(ValueError):
    """A .npy file DxDispatch would not read."""


class NpyHeader:
    """A .npy file's header: ``data_type`` (None if DirectML has no such type), ``dtype``,
    ``claimed`` (the bytes its shape holds) and ``offset`` (where the values start)."""

    def __init__(self, dtype, claimed, offset):
        self.dtype, self.claimed, self.offset = dtype, claimed, offset
        if dtype.kind == "b":
            self.data_type = TensorDataType.INT8  # DxDispatch reads NumPy's '|b1' code as INT8
        else:
            self.data_type = DATA_TYPE_OF_NUMPY.get(
                dtype.newbyteorder("<") if dtype.byteorder == ">" else dtype)

    def length(self, payload):
        """The initial values' byte count for ``payload`` bytes after the header."""
        return max(payload, self.claimed)


def read_header(read):
    """The NpyHeader of a .npy file; ``read(n)`` gives its next n bytes (fewer at its end)."""
    start = read(10)
    if not start.startswith(_MAGIC):
        raise NpyError("it does not start with the .npy magic string")
    if len(start) < 10:
        raise NpyError("too short for a .npy header")
    major = start[6]
    if major >= 4 or major == 0:
        raise NpyError(f".npy format version {major} is not supported (1 to 3 are)")
    if major == 1:
        (length,), offset = struct.unpack_from("<H", start, 8), 10
    else:
        more = read(2)
        if len(more) < 2:
            raise NpyError("too short for a .npy header")
        (length,), offset = struct.unpack("<I", start[8:] + more), 12
    if length > MAX_HEADER_BYTES:
        raise NpyError(f"its header is {length} bytes long, more than the {MAX_HEADER_BYTES} "
                       f"dmlcpu reads")
    text = read(length).decode("utf-8" if major == 3 else "latin1", "replace")
    try:
        header = ast.literal_eval(text.strip())
        dtype = np.dtype(header["descr"])
        shape = header["shape"]
        fortran = bool(header["fortran_order"])
        if not isinstance(shape, tuple) or not all(
                isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in shape):
            raise ValueError(f"its shape {str(shape)[:40]} is not a tuple of counts")
    except (ValueError, SyntaxError, TypeError, KeyError, MemoryError, RecursionError,
            OverflowError) as error:
        raise NpyError(f"its .npy header cannot be read: {str(error)[:100]}") from None
    if fortran:
        raise NpyError("Fortran-ordered .npy arrays are not supported (DxDispatch refuses them)")
    claimed = dtype.itemsize
    for n in shape:
        claimed *= n
    return NpyHeader(dtype, claimed, offset + length)


def fix_byte_order(header, values):
    """Big-endian values (a writable uint8 view) swapped in place, element by element."""
    dtype = header.dtype
    if dtype.byteorder == ">" and header.data_type is not None and dtype.itemsize > 1:
        whole = len(values) // dtype.itemsize
        np.frombuffer(values, dtype=dtype, count=whole).byteswap(inplace=True)


def npy_header(data_type, dimensions):
    """DxDispatch's .npy header for a buffer; the file is this, then every byte of the buffer."""
    descr = "<" + NUMPY_DTYPES[data_type].str[1:]
    shape = "(" + "".join(f"{n}," for n in dimensions) + ")"
    text = f"{{'descr':'{descr}', 'fortran_order':False, 'shape':{shape}, }}"
    length = (10 + len(text) + 1 + 63) & ~63
    header = text.encode("latin1").ljust(length - 10 - 1) + b"\n"
    return _MAGIC + bytes([1, 0]) + struct.pack("<H", len(header)) + header
