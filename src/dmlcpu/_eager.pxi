# Included by _core.pyx. The eager API's remembered plans: key, look up and run in one C call.
#
# A key encodes a snapshot of the call: each field an exact int, None or a sequence of exact
# ints, and each array's dtype, shape and strides, all read once. dmlcpu._ops stores a plan only
# under the key of the snapshot it validated and planned (eager_key), so a key always names a
# call that validation accepts the same way. A run binds the operands anew and checks every step
# against them, so whatever other threads do to the argument objects meanwhile, it stays inside
# them. It reads each exact ndarray's own fields, with the GIL held, rather than exporting a
# buffer: the export (which NumPy builds anew for each new array) cost more than a tiny copy,
# and 0.3 us (3-12% of a 128-512 KiB call) where the run then releases the GIL. What the run
# uses after binding is the data pointer and the byte range computed from the fields then, so a
# shape or strides set by another thread meanwhile changes nothing it reads. NumPy moves an
# array's data only by resize(refcheck=False) (or, in NumPy 1.x, assigning .data), which an
# exported buffer does not prevent either (NumPy 2.4 resizes an exported array so).
from cpython.long cimport PyLong_AsLongLongAndOverflow
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from cpython.ref cimport PyObject
from cpython.sequence cimport PySequence_Fast_ITEMS
from libc.stdint cimport uint64_t
from libc.string cimport memcmp, memcpy

import numpy as _np

cdef extern from *:
    """
    /* NumPy's array object, as far as dmlcpu reads it (PyArrayObject_fields in NumPy's
     * ndarraytypes.h: the same from NumPy 1.7 to 2.x, as every extension built against NumPy
     * reads these fields directly). Checked against the Python attributes at import
     * (fields_match); if they ever differ, no key is made and eager calls take the full path. */
    typedef struct {
        PyObject_HEAD
        char *data;
        int nd;
        Py_ssize_t *dimensions;
        Py_ssize_t *strides;
        PyObject *base;
        PyObject *descr;
        int flags;
    } dmlcpu_ndarray_fields;
    """
    ctypedef struct ndarray_fields "dmlcpu_ndarray_fields":
        char *data
        int nd
        Py_ssize_t *dimensions
        Py_ssize_t *strides
        PyObject *descr
        int flags

cdef enum:
    NPY_ARRAY_WRITEABLE = 0x0400
    KEY_STACK_WORDS = 96
    FIELD_NONE = -1
    FIELD_INT = -2
    FIELD_SEQUENCE = -3

cdef extern from *:
    """
    /* NumPy's C-API table, taken from its capsule the way NumPy's import_array() takes it,
     * without building against NumPy's headers: slot 94 is PyArray_NewFromDescr in every
     * NumPy since 1.0 (the table's numbering never changes). Checked at import (empty_works);
     * if it is missing or wrong, new outputs come from numpy.empty. */
    typedef PyObject *(*dmlcpu_new_from_descr)(PyTypeObject *, PyObject *, int,
                                               const Py_ssize_t *, const Py_ssize_t *,
                                               void *, int, PyObject *);
    static dmlcpu_new_from_descr dmlcpu_numpy_new_from_descr(PyObject *capsule) {
        void **table = (void **)PyCapsule_GetPointer(capsule, NULL);
        if (table == NULL) { PyErr_Clear(); return NULL; }
        return (dmlcpu_new_from_descr)table[94];
    }
    /* A new C-contiguous, uninitialised array (a new reference; NULL with an exception set). */
    static PyObject *dmlcpu_new_empty(dmlcpu_new_from_descr make, PyObject *type,
                                      PyObject *descr, int nd, const Py_ssize_t *dims) {
        Py_INCREF(descr);  /* PyArray_NewFromDescr steals it */
        return make((PyTypeObject *)type, descr, nd, dims, NULL, NULL, 0, NULL);
    }
    """
    ctypedef void *new_from_descr_fn "dmlcpu_new_from_descr"
    new_from_descr_fn numpy_new_from_descr "dmlcpu_numpy_new_from_descr"(object capsule)
    object new_empty_from "dmlcpu_new_empty"(new_from_descr_fn make, object type, object descr,
                                              int nd, const Py_ssize_t *dims)

cdef bint FIELDS_MATCH = False   # set at the end of this file, once fields_match is defined
cdef object NDARRAY = _np.ndarray
cdef object new_array = _np.empty
cdef new_from_descr_fn new_from_descr = NULL   # set at the end of this file (empty_works)
MISS = object()          # "no remembered plan served this call"

# The eleven dtypes a key can name, in DirectML's order (index + 1 is the DML data type value),
# as NumPy's own objects, which arrays of these types share; an array whose dtype is an equal
# but distinct object is simply not remembered.
cdef tuple KEY_DTYPES = tuple(_np.dtype(name) for name in (
    "float32", "float16", "uint32", "uint16", "uint8", "int32", "int16", "int8", "float64",
    "uint64", "int64"))


cdef int dtype_index(object dtype) noexcept:
    cdef Py_ssize_t i
    for i in range(len(KEY_DTYPES)):
        if <PyObject *>KEY_DTYPES[i] is <PyObject *>dtype:
            return <int>i
    return -1


cdef struct KeyWords:
    int64_t *words
    Py_ssize_t n
    Py_ssize_t capacity
    int64_t stack[KEY_STACK_WORDS]


cdef void key_open(KeyWords *k) noexcept:
    k.words = k.stack
    k.n = 0
    k.capacity = KEY_STACK_WORDS


cdef void key_close(KeyWords *k) noexcept:
    if k.words != k.stack:
        PyMem_Free(k.words)


cdef inline int put(KeyWords *k, int64_t word) except -1:
    if k.n == k.capacity:
        grow(k)
    k.words[k.n] = word
    k.n += 1
    return 0


cdef int grow(KeyWords *k) except -1:
    cdef int64_t *grown = <int64_t *>PyMem_Malloc(2 * k.capacity * sizeof(int64_t))
    if grown == NULL:
        raise MemoryError()
    memcpy(grown, k.words, k.n * sizeof(int64_t))
    key_close(k)
    k.words = grown
    k.capacity *= 2
    return 0


cdef extern from *:
    """
    /* An exact int of one CPython digit (|value| < 2**30), read without a call: the fields of a
     * call are such ints nearly always. 0 if it is not one (the caller then converts it). */
    static int dmlcpu_compact_int(PyObject *value, long long *out) {
    #if PY_VERSION_HEX >= 0x030C0000
        if (!PyUnstable_Long_IsCompact((PyLongObject *)value)) return 0;
        *out = (long long)PyUnstable_Long_CompactValue((PyLongObject *)value);
        return 1;
    #else
        Py_ssize_t size = Py_SIZE(value);
        if (size < -1 || size > 1) return 0;
        *out = size == 0 ? 0 : size * (long long)((PyLongObject *)value)->ob_digit[0];
        return 1;
    #endif
    }
    /* What a field is, for its key: one test each, on a borrowed pointer (no reference taken) */
    enum { DMLCPU_FIELD_OTHER, DMLCPU_FIELD_IS_NONE, DMLCPU_FIELD_IS_INT, DMLCPU_FIELD_IS_SEQUENCE };
    static int dmlcpu_field_kind(PyObject *value) {
        if (value == Py_None) return DMLCPU_FIELD_IS_NONE;
        if (PyLong_CheckExact(value)) return DMLCPU_FIELD_IS_INT;
        if (PyList_CheckExact(value) || PyTuple_CheckExact(value)) return DMLCPU_FIELD_IS_SEQUENCE;
        return DMLCPU_FIELD_OTHER;
    }
    """
    bint compact_int "dmlcpu_compact_int"(PyObject *value, long long *out) noexcept
    int field_kind "dmlcpu_field_kind"(PyObject *value) noexcept
    enum:
        FIELD_IS_NONE "DMLCPU_FIELD_IS_NONE"
        FIELD_IS_INT "DMLCPU_FIELD_IS_INT"
        FIELD_IS_SEQUENCE "DMLCPU_FIELD_IS_SEQUENCE"
    Py_ssize_t sequence_size "Py_SIZE"(PyObject *value) noexcept
    PyObject **sequence_items "PySequence_Fast_ITEMS"(PyObject *value) noexcept


cdef inline int put_int(KeyWords *k, PyObject *value) except -1:
    """1 if value is an exact int within int64 (now encoded), else 0."""
    cdef int overflow = 0
    cdef long long number
    if field_kind(value) != FIELD_IS_INT:
        return 0
    if compact_int(value, &number):
        put(k, number)
        return 1
    number = PyLong_AsLongLongAndOverflow(<object>value, &overflow)
    if overflow:
        return 0
    put(k, number)
    return 1


cdef int put_fields(KeyWords *k, PyObject **fields, Py_ssize_t n_fields) except -1:
    """Encodes fields that are exact ints, None or lists/tuples of exact ints (1), else 0.
    An exact list is read in one pass that runs no Python code, so nothing changes it. The
    fields and their items stay borrowed pointers: taking a reference to each (and to its type)
    had put this loop at 10% of a tiny SLICE call."""
    cdef Py_ssize_t f, i, n
    cdef PyObject *value
    cdef PyObject **items
    cdef int kind
    for f in range(n_fields):
        value = fields[f]
        kind = field_kind(value)
        if kind == FIELD_IS_NONE:
            put(k, FIELD_NONE)
        elif kind == FIELD_IS_INT:
            put(k, FIELD_INT)
            if not put_int(k, value):
                return 0
        elif kind == FIELD_IS_SEQUENCE:
            n = sequence_size(value)
            items = sequence_items(value)  # borrowed; put_int runs no Python code
            put(k, FIELD_SEQUENCE)
            put(k, n)
            for i in range(n):
                if not put_int(k, items[i]):
                    return 0
        else:
            return 0
    return 1


cdef int put_layout(KeyWords *k, int dtype, Py_ssize_t nd, const Py_ssize_t *dims,
                    const Py_ssize_t *strides) except -1:
    cdef Py_ssize_t i
    put(k, dtype)
    put(k, nd)
    for i in range(nd):
        put(k, dims[i])
    for i in range(nd):
        put(k, strides[i])
    return 0


cdef int put_array(KeyWords *k, object array) except -1:
    """Encodes an exact ndarray of a KEY_DTYPES type from its own fields (1), else 0."""
    cdef ndarray_fields *f
    cdef int dtype
    if type(array) is not NDARRAY or not FIELDS_MATCH:
        return 0
    f = <ndarray_fields *><PyObject *>array
    dtype = dtype_index(<object>f.descr)
    if dtype < 0:
        return 0
    put_layout(k, dtype, f.nd, f.dimensions, f.strides)
    return 1


cdef class Key:
    """A plan cache key: the operator, whether outputs were given, and the encoded snapshot.
    Hashed once, while encoding, by a cheap multiply-xor mix (a dict key needs no more)."""
    cdef readonly object op
    cdef bint into
    cdef Py_ssize_t n
    cdef int64_t *words
    cdef Py_hash_t hash

    def __dealloc__(self):
        PyMem_Free(self.words)

    def __hash__(self):
        return self.hash

    def __eq__(self, other):
        if type(other) is not Key:
            return NotImplemented
        cdef Key that = <Key>other
        return (self.hash == that.hash and self.into == that.into and self.n == that.n
                and self.op == that.op
                and memcmp(self.words, that.words, self.n * sizeof(int64_t)) == 0)

    @property
    def nbytes(self):
        return self.n * sizeof(int64_t) + 96


cdef int key_fill(Key key, int64_t *words, KeyWords *k, op, bint into) except -1:
    # Each word is mixed with its position on its own and the products summed, so the
    # multiplies overlap instead of forming one chain (a dict needs spread, equality is exact);
    # one final mix spreads the sum's high bits down.
    cdef uint64_t mixed = 0x9E3779B97F4A7C15u ^ <uint64_t>into
    cdef uint64_t position = 0
    cdef Py_ssize_t i
    key.words = words
    key.n = k.n
    key.op = op
    key.into = into
    for i in range(k.n):
        position += 0xD6E8FEB86659FD93u
        mixed += (<uint64_t>k.words[i] ^ position) * 0x9FB21C651E98DF25u
    mixed ^= mixed >> 32
    mixed *= 0x9FB21C651E98DF25u
    mixed ^= mixed >> 29
    key.hash = <Py_hash_t>(mixed ^ <uint64_t>hash(op))
    if key.hash == -1:
        key.hash = -2  # -1 means "error" to CPython
    return 0


cdef Key key_of(KeyWords *k, op, bint into):
    """A key to keep: its own copy of the words."""
    cdef Key key = Key.__new__(Key)
    cdef int64_t *words = <int64_t *>PyMem_Malloc(k.n * sizeof(int64_t) if k.n else 1)
    if words == NULL:
        raise MemoryError()
    memcpy(words, k.words, k.n * sizeof(int64_t))
    key_fill(key, words, k, op, into)
    return key


# The key every look-up fills in place, its words borrowed from the caller's KeyWords for the
# one dict look-up: nothing in between runs Python code or releases the GIL (Key's hash and
# equality are C, the op is a str), so no other call can see it half-filled. (This module is
# not free-threading compatible; see its first line.)
cdef Key PROBE = Key.__new__(Key)


cdef object look_up(dict cache, KeyWords *k, op, bint into):
    key_fill(PROBE, k.words, k, op, into)
    try:
        return cache.get(PROBE)
    finally:
        PROBE.words = NULL  # borrowed: never freed by the probe


def field_snapshot(fields):
    """Each field as an exact int, None or a tuple of exact ints, read once; None if a field is
    anything else (bools, NumPy integers, objects with __index__: their converters read those)."""
    snapshot = []
    for value in fields:
        kind = type(value)
        if kind is list or kind is tuple:
            value = tuple(value)          # one read: no Python code runs for an exact list
            if any(type(item) is not int for item in value):
                return None
        elif kind is not int and value is not None:
            return None
        snapshot.append(value)
    return tuple(snapshot)


def eager_key(op, bint into, tuple fields, tuple layouts):
    """The plan cache's key for a snapshot: fields as field_snapshot gives them, and each
    array's (dtype, shape, strides), flattened; None if the snapshot cannot make a key."""
    cdef KeyWords k
    cdef Py_ssize_t dims[DMLCPU_MAX_DIMS]
    cdef Py_ssize_t strides[DMLCPU_MAX_DIMS]
    cdef Py_ssize_t i, j, nd
    cdef int dtype
    key_open(&k)
    try:
        if not put_fields(&k, PySequence_Fast_ITEMS(fields), len(fields)):
            return None
        for i in range(0, len(layouts), 3):
            dtype = dtype_index(layouts[i])
            nd = len(layouts[i + 1])
            if dtype < 0 or nd > DMLCPU_MAX_DIMS:
                return None
            for j in range(nd):
                dims[j] = layouts[i + 1][j]
                strides[j] = layouts[i + 2][j]
            put_layout(&k, dtype, nd, dims, strides)
        return key_of(&k, op, into)
    finally:
        key_close(&k)


cdef class Remembered:
    """A validated plan and what its new outputs look like (C-contiguous, shapes, dtype)."""
    cdef readonly Plan plan
    cdef tuple shapes
    cdef Py_ssize_t n_new                # new outputs to make (0: the caller gives them)
    cdef Py_ssize_t *dims                # n_new rows of DMLCPU_MAX_DIMS sizes
    cdef object dtype
    cdef bint many
    cdef bint in_place
    cdef readonly Py_ssize_t nbytes   # roughly what keeping it costs, key included

    def __init__(self, Plan plan, shapes, dtype, bint many, bint in_place, Py_ssize_t key_bytes):
        cdef Py_ssize_t i, j
        self.plan = plan
        self.shapes = tuple(tuple(shape) for shape in shapes)
        self.n_new = len(self.shapes)
        self.dims = <Py_ssize_t *>PyMem_Malloc(
            max(self.n_new, 1) * DMLCPU_MAX_DIMS * sizeof(Py_ssize_t))
        if self.dims == NULL:
            raise MemoryError()
        for i, shape in enumerate(self.shapes):
            if len(shape) > DMLCPU_MAX_DIMS:
                raise CoreError("a new output has %d dimensions" % len(shape))
            for j in range(len(shape)):
                self.dims[i * DMLCPU_MAX_DIMS + j] = shape[j]
        self.dtype = dtype
        self.many = many
        self.in_place = in_place
        self.nbytes = plan.nbytes + key_bytes + self.n_new * DMLCPU_MAX_DIMS * sizeof(Py_ssize_t)

    def __dealloc__(self):
        PyMem_Free(self.dims)

    cdef object new_output(self, Py_ssize_t i):
        """New output i, C-contiguous and uninitialised (the plan writes every element)."""
        if new_from_descr == NULL:
            return new_array(self.shapes[i], self.dtype)
        return new_empty_from(new_from_descr, NDARRAY, self.dtype, len(self.shapes[i]),
                              &self.dims[i * DMLCPU_MAX_DIMS])

    cdef bint run(self, PyObject **inputs, PyObject **outputs, bint given) except -1:
        """Runs into outputs (the plan's counts of each, borrowed); False (nothing written) if
        given outputs cannot be bound as planned or may meet another operand: the full path
        then checks them exactly. A large run releases the GIL once bound (Plan._run_bound).
        Reached only through a key, which put_array makes only of exact ndarrays where
        FIELDS_MATCH held: their fields are what it binds."""
        cdef Operands ops
        cdef Py_ssize_t i, first, second, n_in = self.plan.n_inputs
        operands_open(&ops, n_in + self.plan.n_outputs)
        try:
            for i in range(ops.n):
                if not bind_fields(&ops, <object>(inputs[i] if i < n_in else outputs[i - n_in]),
                                   i >= n_in):
                    return False
            if given and find_conflict(&ops, ops.hi, n_in, self.in_place, &first, &second):
                return False
            self.plan._run_bound(&ops)
            return True
        finally:
            operands_close(&ops)


cdef bint bind_fields(Operands *ops, object array, bint writable) except -1:
    """Binds an exact ndarray (the key proved its type) from its own fields, GIL held; False
    (nothing bound) if it cannot serve as planned."""
    cdef ndarray_fields *f = <ndarray_fields *><PyObject *>array
    cdef Py_buffer *buffer = &ops.buffers[ops.bound]
    cdef int dtype = dtype_index(<object>f.descr)
    # (np.empty for the outputs may have run a __del__ that retyped an input since its key)
    if dtype < 0 or writable and not (f.flags & NPY_ARRAY_WRITEABLE):
        return False
    buffer.buf = f.data
    buffer.ndim = f.nd
    buffer.shape = f.dimensions
    buffer.strides = f.strides
    buffer.itemsize = dmlcpu_dtype_size(dtype + 1)
    buffer.len = buffer.itemsize  # read only for a 0-d array, of one element
    strided_extent(buffer, &ops.lo[ops.bound], &ops.hi[ops.bound])
    ops.bound += 1
    return True


cdef object remembered_call(dict cache, op, PyObject **fields, Py_ssize_t n_fields,
                            PyObject **inputs, Py_ssize_t n_inputs, tuple outputs):
    """The result of the call from a remembered plan, or MISS (nothing written) when no plan is
    remembered for it or the caller's outputs (None: new arrays) may meet another operand.
    fields and inputs are borrowed from the caller's arguments."""
    cdef KeyWords k
    cdef Remembered remembered
    cdef PyObject *only
    cdef Py_ssize_t i
    cdef bint given = outputs is not None
    key_open(&k)
    try:
        if not put_fields(&k, fields, n_fields):
            return MISS
        for i in range(n_inputs):
            if not put_array(&k, <object>inputs[i]):
                return MISS
        if given:
            for array in outputs:
                if not put_array(&k, array):
                    return MISS
        found = look_up(cache, &k, op, given)
    finally:
        key_close(&k)
    if found is None:
        return MISS
    remembered = <Remembered>found
    # (a key names its arrays, so the counts always agree; the run reads them unchecked)
    if n_inputs != remembered.plan.n_inputs or remembered.plan.n_outputs != (
            len(outputs) if given else remembered.n_new):
        return MISS
    if given:
        if not remembered.run(inputs, PySequence_Fast_ITEMS(outputs), True):
            return MISS
        return list(outputs) if remembered.many else outputs[0]
    if remembered.n_new == 1 and not remembered.many:  # no list or tuple to make
        output = remembered.new_output(0)
        only = <PyObject *>output
        return output if remembered.run(inputs, &only, False) else MISS
    made = [remembered.new_output(i) for i in range(remembered.n_new)]
    if not remembered.run(inputs, PySequence_Fast_ITEMS(made), False):
        return MISS
    return made if remembered.many else made[0]


cdef tuple tuple_of(PyObject **items, Py_ssize_t n):
    """A tuple of n borrowed objects."""
    return tuple([<object>items[i] for i in range(n)])


def _fields_of(array):
    """What ndarray_fields reads from an exact ndarray, as its Python attributes would say it."""
    cdef ndarray_fields *f = <ndarray_fields *><PyObject *>array
    cdef int i
    cdef bint writeable = f.flags & NPY_ARRAY_WRITEABLE
    return ((<Py_ssize_t>f.data, not writeable), f.nd, <object>f.descr, writeable,
            tuple([f.dimensions[i] for i in range(f.nd)]),
            tuple([f.strides[i] for i in range(f.nd)]))


def _attributes_of(array):
    return (array.__array_interface__["data"], array.ndim, array.dtype, array.flags.writeable,
            array.shape, array.strides)


cdef bint fields_match():
    """True if ndarray_fields reads what NumPy's attributes say, for several kinds of array."""
    base = _np.arange(24, dtype=_np.int16).reshape(2, 3, 4)
    frozen = base.copy()
    frozen.flags.writeable = False
    samples = [base, base[:, ::-1, 1::2], base.T, _np.array(3.0), base[1:1], frozen]
    return all(_fields_of(a) == _attributes_of(a) and _fields_of(a)[2] is a.dtype
               for a in samples)


FIELDS_MATCH = fields_match()


cdef bint empty_works(new_from_descr_fn make) except -1:
    """True if make (NumPy's PyArray_NewFromDescr, by its slot) makes the arrays numpy.empty
    would: exact ndarrays of the shape and dtype asked, C-contiguous, writable, owning data."""
    cdef Py_ssize_t dims[3]
    dims[0], dims[1], dims[2] = 2, 3, 5
    if make == NULL:
        return False
    for dtype in KEY_DTYPES:
        made = new_empty_from(make, NDARRAY, dtype, 3, dims)
        if not (type(made) is NDARRAY and made.dtype is dtype and made.shape == (2, 3, 5)
                and made.flags.c_contiguous and made.flags.writeable and made.flags.owndata):
            return False
    return True


def _numpy_api_capsule():
    for name in ("numpy._core._multiarray_umath", "numpy.core._multiarray_umath"):
        try:
            return __import__(name, fromlist=["_ARRAY_API"])._ARRAY_API
        except (ImportError, AttributeError):
            pass
    return None


_capsule = _numpy_api_capsule()
if _capsule is not None and empty_works(numpy_new_from_descr(_capsule)):
    new_from_descr = numpy_new_from_descr(_capsule)
del _capsule


def makes_outputs_by_c_api():
    """True if remembered plans make new outputs through NumPy's C API (empty_works held)."""
    return new_from_descr != NULL


def binds_from_fields():
    """True if remembered plans read arrays' own fields (fields_match held at import)."""
    return FIELDS_MATCH
