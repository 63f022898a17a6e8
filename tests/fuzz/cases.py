"""Random dmlcpu calls and the oracle that judges them; shared by tests/test_fuzz.py (hypothesis)
and tests/fuzz/fuzz_dmlcpu.py (atheris).

A case is drawn through a ``Chooser`` (``integer(lo, hi)``, ``choice(seq)``, ``boolean()``),
which each fuzzer implements over its own source of randomness. Cases start from a valid call and
then, often, replace one field with a hostile value: an extreme integer (0, 2^31, 2^32 - 1, 2^32,
2^63, 2^64, negatives), a wrong Python type, a read-only, misshapen or overlapping output.

The oracle (``check_eager``, ``check_descriptor``) runs the call and accepts exactly two outcomes:
- success, with every output bit-equal to an independent NumPy reference and no byte written
  outside the outputs' elements (around strided views, in descriptor padding) or to an input;
- a documented refusal: InvalidArgumentError or TypeError (MemoryError only when the result would
  not fit in memory), with every output and input byte unchanged.
Anything else (CoreError, OverflowError, a wrong result, a stray write) is an AssertionError; a
crash kills the process, which both fuzzers report.
"""
import os
import sys

import numpy as np
from numpy.lib.stride_tricks import as_strided

import dmlcpu as dml
from dmlcpu import InvalidArgumentError
from dmlcpu._types import NUMPY_DTYPES

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from scan_reference import reference_scan  # noqa: E402  (tests/scan_reference.py)

DTYPES = [np.float32, np.float16, np.uint32, np.uint16, np.uint8, np.int32, np.int16, np.int8,
          np.float64, np.uint64, np.int64]
# Values a UINT / INT field or a size meets at its edges, and past them.
HOSTILE_INTS = [0, 1, 2, 3, 2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**63 - 1, 2**63, 2**64 - 1,
                2**64, -1, -2, -2**31, -2**32, -2**63, -2**64]
WRONG_TYPES = [1.0, 2.5, float("nan"), "1", "", None, [[1]], [1.5], b"\x01", {1: 2}, True]
OPS = ["split", "join", "slice", "slice1", "tile", "cumulative_summation", "cumulative_product"]
SENTINEL = 0xA5
# A valid call may ask for a big result: below SMALL_RESULT bytes it runs, at or above
# HUGE_RESULT the allocation must fail with MemoryError (no machine has 2^44 bytes to give);
# between the two the case is skipped, since it could exhaust this machine's memory instead.
SMALL_RESULT = 1 << 20
HUGE_RESULT = 1 << 44
DOCUMENTED = (InvalidArgumentError, TypeError)


class Skip(Exception):
    """The case would allocate a big but possible result: not run."""


# ---------------------------------------------------------------- drawing values

def small_int(ch, lo=0, hi=4):
    return ch.integer(lo, hi)


def hostile_int(ch):
    value = ch.choice(HOSTILE_INTS)
    return np.int64(value) if ch.integer(0, 9) == 0 and -2**63 <= value < 2**63 else value


def maybe_hostile(ch, valid, rate=6):
    """valid, or (1 in rate) an extreme integer, or (rarely) a wrong type."""
    roll = ch.integer(0, rate * 4)
    if roll < 3:
        return hostile_int(ch)
    if roll == 3:
        return ch.choice(WRONG_TYPES)
    return valid


def mutate_list(ch, values, rate=5):
    """A list field: as is, one entry hostile, a wrong length, or not a list of ints at all."""
    values = list(values)
    roll = ch.integer(0, rate * 5)
    if roll < 3 and values:
        values[ch.integer(0, len(values) - 1)] = hostile_int(ch)
    elif roll == 3:
        values = values + [ch.integer(0, 2)] if ch.boolean() else values[:-1]
    elif roll == 4:
        return ch.choice([None, 3, 1.5, "123", [[1, 2]], [1.0] * len(values), (None,)])
    return values


def random_bytes(ch, n):
    seed = ch.integer(0, 2**32 - 1)
    return np.random.default_rng(seed).integers(0, 256, size=n, dtype=np.uint8)


def draw_array(ch, shape, dtype, broadcast_ok=True):
    """An array of shape with random bits, laid out contiguously, reversed, strided (a view of
    a larger base), transposed or (input only) broadcast through a zero stride."""
    dtype = np.dtype(dtype)
    count = int(np.prod(shape)) if shape else 1
    layout = ch.integer(0, 5)
    if layout == 1 and shape:  # reversed along every axis
        base = random_bytes(ch, count * dtype.itemsize).view(dtype).reshape(shape)
        return base[(slice(None, None, -1),) * len(shape)]
    if layout == 2 and shape:  # every other element of a twice-as-long base
        big = list(shape)
        big[-1] *= 2
        base = random_bytes(ch, int(np.prod(big)) * dtype.itemsize).view(dtype).reshape(big)
        return base[..., ::2]
    if layout == 3 and len(shape) >= 2:  # a transposed buffer
        base = random_bytes(ch, count * dtype.itemsize).view(dtype).reshape(shape[::-1])
        return base.T
    if layout == 4 and broadcast_ok and shape and count:  # axis 0 broadcast
        one = random_bytes(ch, count // shape[0] * dtype.itemsize).view(dtype)
        row = one.reshape(shape[1:])
        return as_strided(row, shape=shape, strides=(0,) + row.strides, writeable=False)
    return random_bytes(ch, count * dtype.itemsize).view(dtype).reshape(shape)


def draw_shape(ch, ndim=None, zero_ok=True):
    ndim = ch.integer(1, 4) if ndim is None else ndim
    return tuple(ch.integer(0 if zero_ok and ch.integer(0, 7) == 0 else 1, 4)
                 for _ in range(ndim))


# ---------------------------------------------------------------- eager cases

def draw_eager_case(ch):
    """(op name, positional input(s), keyword fields, output kind) for one eager call."""
    op = ch.choice(OPS)
    dtype = ch.choice(DTYPES)
    roll = ch.integer(0, 19)
    ndim = 0 if roll == 0 else 9 if roll == 1 else ch.integer(1, 4)
    shape = draw_shape(ch, ndim)
    fields = {}
    if op == "join":
        axis = ch.integer(0, max(ndim - 1, 0))
        parts = []
        for _ in range(ch.integer(0, 4)):
            part = list(shape)
            if ndim:
                part[axis] = ch.integer(0, 3)
            parts.append(draw_array(ch, tuple(part), dtype))
        if parts and ch.integer(0, 7) == 0:  # one input of another type or rank
            k = ch.integer(0, len(parts) - 1)
            parts[k] = draw_array(ch, shape[:-1] if ch.boolean() else shape,
                                  ch.choice(DTYPES))
        if ch.integer(0, 15) == 0:
            parts = ch.choice([None, 5, "abc", [None], [[1, 2]], np.zeros(3)])
        fields["axis"] = maybe_hostile(ch, axis)
        return op, parts, fields
    x = draw_array(ch, shape, dtype)
    if ch.integer(0, 30) == 0:
        x = ch.choice([None, 5, "abc", [[1, 2]], 1.5, np.zeros(3, dtype=bool),
                       np.zeros(3, dtype=np.complex64), np.zeros(3, dtype=">i4")])
    axis = ch.integer(0, max(ndim - 1, 0))
    if op == "split":
        n = shape[axis] if ndim else 1
        cuts = sorted(ch.integer(0, n) for _ in range(ch.integer(0, 3)))
        sizes = [b - a for a, b in zip([0] + cuts, cuts + [n])]
        fields.update(axis=maybe_hostile(ch, axis), output_axis_sizes=mutate_list(ch, sizes))
    elif op == "slice":
        offsets, sizes, strides = [], [], []
        for s in shape:
            stride = ch.integer(0, 3)
            offset = ch.integer(0, max(s - 1, 0))
            most = (s - 1 - offset) // stride + 1 if stride and s else (ch.integer(0, 5) if s
                                                                         else 0)
            size = ch.integer(0, most)
            offsets.append(offset)
            sizes.append(size)
            strides.append(stride)
        fields.update(offsets=mutate_list(ch, offsets), sizes=mutate_list(ch, sizes),
                      strides=mutate_list(ch, strides) if ch.integer(0, 5) else None)
    elif op == "slice1":
        offsets, window, steps = [], [], []
        for s in shape:
            offset = ch.integer(0, s)
            size = ch.integer(0, s - offset)
            offsets.append(offset)
            window.append(size)
            steps.append(ch.choice([1, 2, 3, -1, -2, -3]))
        fields.update(input_window_offsets=mutate_list(ch, offsets),
                      input_window_sizes=mutate_list(ch, window),
                      input_window_strides=mutate_list(ch, steps) if ch.integer(0, 5) else None)
        if ch.integer(0, 3) == 0:
            fields["output_sizes"] = mutate_list(ch, [
                ch.integer(0, 1 + (w - 1) // abs(st)) if w else 0 for w, st in zip(window, steps)])
    elif op == "tile":
        fields["repeats"] = mutate_list(ch, [ch.integer(1, 3) for _ in shape])
    else:
        flag = "has_exclusive_sum" if op == "cumulative_summation" else "has_exclusive_product"
        fields.update(axis=maybe_hostile(ch, axis),
                      axis_direction=maybe_hostile(ch, ch.choice(
                          [0, 1, dml.AxisDirection.DECREASING])),
                      **{flag: maybe_hostile(ch, ch.choice([False, True, 0, 1]))})
    if ch.integer(0, 11) == 0:
        fields["feature_level"] = ch.choice(["4_1", "1_0", "6_4", 0x5000, "9_9", 4.1, -1])
    return op, x, fields


def expected_shapes(op, x, fields):
    """The output shape(s) the call's fields imply if they are valid, else None."""
    try:
        shape = tuple(x.shape)
        if op == "split":
            axis = int(fields["axis"])  # Python ints: an np.int8 axis + 1 would wrap (and warn)
            return [shape[:axis] + (int(n),) + shape[axis + 1:]
                    for n in fields["output_axis_sizes"]]
        if op == "join":
            axis = fields["axis"]
            out = list(x[0].shape)
            out[axis] = sum(p.shape[axis] for p in x)
            return [tuple(out)]
        if op == "slice":
            return [tuple(fields["sizes"])]
        if op == "slice1":
            if fields.get("output_sizes") is not None:  # None: the default, the most
                return [tuple(fields["output_sizes"])]
            steps = fields["input_window_strides"] or [1] * len(shape)
            return [tuple(1 + (int(w) - 1) // abs(int(s)) if w else 0  # Python ints: no wrap
                          for w, s in zip(fields["input_window_sizes"], steps))]
        if op == "tile":  # Python ints: np.int64 repeats would wrap
            return [tuple(s * int(r) for s, r in zip(shape, fields["repeats"]))]
        return [shape]
    except Exception:  # hostile fields: no shape
        return None


def result_bytes(op, x, fields):
    """The bytes a valid call would allocate for its result(s), or 0 if not computable."""
    shapes = expected_shapes(op, x, fields)
    if not shapes:
        return 0
    itemsize = x[0].itemsize if op == "join" else x.itemsize
    total = 0
    for shape in shapes:
        count = 1
        for s in shape:
            if not isinstance(s, (int, np.integer)) or isinstance(s, bool) or s < 0:
                return 0
            count *= int(s)
        total += count * itemsize
    return total


def reference(op, x, fields):
    """The NumPy result(s) of a call dmlcpu accepted, computed from the fields alone."""
    if op == "split":
        axis, edges = fields["axis"], np.cumsum([0] + list(fields["output_axis_sizes"]))
        return [np.take(x, np.arange(a, b), axis=axis) for a, b in zip(edges[:-1], edges[1:])]
    if op == "join":
        return [np.concatenate(x, axis=fields["axis"])]
    if op in ("slice", "slice1"):
        if op == "slice":
            sizes, steps = fields["sizes"], fields["strides"] or [1] * x.ndim
            starts = fields["offsets"]
        else:
            window = fields["input_window_sizes"]
            steps = fields["input_window_strides"] or [1] * x.ndim
            sizes = expected_shapes(op, x, fields)[0]
            starts = [o + (w - 1 if s < 0 else 0)
                      for o, w, s in zip(fields["input_window_offsets"], window, steps)]
        if any(n == 0 for n in sizes):  # reads nothing (other sizes may be huge)
            return [np.empty(tuple(int(n) for n in sizes), x.dtype)]
        index = [np.array([int(a) + int(s) * k for k in range(int(n))], dtype=np.intp)
                 for a, s, n in zip(starts, steps, sizes)]
        return [x[np.ix_(*index)]]
    if op == "tile":
        return [np.tile(x, tuple(int(r) for r in fields["repeats"]))]
    kind = "sum" if op == "cumulative_summation" else "prod"
    flag = "has_exclusive_sum" if kind == "sum" else "has_exclusive_product"
    result = reference_scan(x, int(fields["axis"]), kind,
                            reverse=int(fields["axis_direction"]) == 1,
                            exclusive=bool(fields[flag]))
    return [result]


def same_result(got, want, op):
    """Bit-equal, except that where a float scan's reference holds a NaN, any NaN will do: when
    two NaNs meet (or a signaling one is quieted) IEEE 754 leaves the payload to the hardware
    and the compiler's operand order. Data movement is always compared bit for bit."""
    got, want = np.ascontiguousarray(got), np.ascontiguousarray(want)
    if got.shape != want.shape or got.dtype != want.dtype:
        return False
    if op.startswith("cumulative") and want.dtype.kind == "f":
        nan = np.isnan(want)
        if not np.array_equal(np.isnan(got), nan):
            return False
        got, want = got[~nan], want[~nan]
    return got.tobytes() == want.tobytes()


def _guarded_output(ch, shape, dtype):
    """A sentinel-filled output inside a sentinel-filled base (strided, reversed or packed), and
    the base, whose bytes outside the output's elements must never change."""
    dtype = np.dtype(dtype)
    count = int(np.prod(shape)) if shape else 1
    step = ch.choice([1, 1, 2, -1])
    base = np.full(max(count, 1) * abs(step) * dtype.itemsize + 16, SENTINEL, np.uint8)
    strides, stride = [], dtype.itemsize * step
    for s in reversed(shape):
        strides.append(stride)
        stride *= max(s, 1)
    strides = tuple(reversed(strides))
    offset = 8 if step > 0 else 8 + (max(count, 1) - 1) * dtype.itemsize
    out = np.ndarray(shape, dtype, buffer=base, offset=offset, strides=strides)
    return out, base


def draw_outputs(ch, op, x, fields):
    """None, or (kind, output(s) to pass, sentinel bases to watch)."""
    shapes = expected_shapes(op, x, fields)
    if not shapes or ch.integer(0, 2) == 0 or result_bytes(op, x, fields) > SMALL_RESULT:
        return None
    if any(not all(isinstance(s, (int, np.integer)) and 0 <= s < 2**20 for s in shape)
           for shape in shapes):
        return None
    dtype = (x[0] if op == "join" else x).dtype
    kind = ch.choice(["right", "right", "right", "shape", "dtype", "readonly", "overlap",
                      "same", "bytes"])
    outs, bases = [], []
    for shape in shapes:
        if kind == "shape":
            shape = shape[:-1] + (shape[-1] + 1,) if shape else (2,)
        wrong = np.int16 if dtype != np.int16 else np.uint16
        out, base = _guarded_output(ch, shape, wrong if kind == "dtype" else dtype)
        if kind == "readonly":
            out.flags.writeable = False
        outs.append(out)
        bases.append(base)
    source = x[0] if op == "join" and len(x) else x
    writable = isinstance(source, np.ndarray) and source.flags.writeable
    if kind == "overlap" and writable and source.flags.c_contiguous and \
            0 < outs[0].size <= source.size:
        # a view of the input's own memory, shaped like the output
        outs[0] = source.reshape(-1)[:outs[0].size].reshape(outs[0].shape)
        bases[0] = None
        if outs[0].__array_interface__ == source.__array_interface__:
            kind = "same"  # the identical view after all (a scan runs in place)
    elif kind == "same" and writable:
        outs, bases = [source], [None]
    elif kind in ("overlap", "same"):
        kind = "right"  # no input memory to overlap here: a plain output after all
    if kind == "bytes":
        outs = [bytes(out.nbytes) for out in outs]
        bases = [None] * len(outs)
    return kind, outs, bases


def _snapshot(values):
    """Copies of the raw bytes of every array among values (inputs, bases)."""
    arrays = values if isinstance(values, (list, tuple)) else [values]
    return [(a, np.array(a, copy=True)) for a in arrays
            if isinstance(a, np.ndarray) and a.dtype.kind != "O"]


def _unchanged(snapshot):
    return all(np.ascontiguousarray(a).tobytes() == np.ascontiguousarray(b).tobytes()
               for a, b in snapshot)


def call_eager(op, x, fields, outputs):
    kwargs = dict(fields)
    if outputs is not None:
        kwargs["outputs" if op == "split" else "out"] = (outputs if op == "split"
                                                         else outputs[0])
    return getattr(dml, op)(x, **kwargs)


def check_eager(ch):
    """Draws one eager call, runs it, and asserts the oracle. Returns 'ok', 'refused' or 'skip'."""
    op, x, fields = draw_eager_case(ch)
    nbytes = result_bytes(op, x, fields) if isinstance(x, (np.ndarray, list)) else 0
    if SMALL_RESULT < nbytes < HUGE_RESULT:
        return "skip"
    drawn = draw_outputs(ch, op, x, fields) if isinstance(x, (np.ndarray, list)) and \
        all(isinstance(p, np.ndarray) for p in (x if isinstance(x, list) else [x])) else None
    kind, outputs, bases = drawn if drawn else (None, None, [])
    watched = _snapshot(x) + _snapshot([b for b in bases if b is not None])
    if outputs is not None:
        watched += _snapshot([o for o in outputs if isinstance(o, np.ndarray)])
    allowed = DOCUMENTED + ((MemoryError,) if nbytes >= HUGE_RESULT else ())
    try:
        result = call_eager(op, x, fields, outputs)
    except allowed as error:
        assert not isinstance(error, dml.CoreError)
        assert _unchanged(watched), f"{op} refused ({error!r}) but wrote: {fields}"
        return "refused"
    except Exception as error:
        raise AssertionError(f"{op} raised {type(error).__name__}: {error} for fields {fields} "
                             f"and output kind {kind}") from error
    # success: the result is right, and only the outputs' elements were written
    empty = outputs is not None and all(np.asarray(o).size == 0 for o in outputs)
    assert kind not in ("shape", "dtype", "readonly", "bytes"), (
        f"{op} accepted a {kind} output: {fields}")
    if kind in ("overlap", "same") and not empty:  # an empty output overlaps nothing
        assert op.startswith("cumulative") and kind == "same", (
            f"{op} accepted an output overlapping its input: {fields}")
    # the reference reads the inputs as they were (a scan in place has overwritten its input)
    before = [b for _, b in watched[:len(x) if op == "join" else 1]]
    expected = reference(op, before if op == "join" else before[0], fields)
    results = result if op == "split" else [result]
    if outputs is not None:
        assert all(r is o for r, o in zip(results, outputs))
    assert len(results) == len(expected)
    for got, want in zip(results, expected):
        assert got.shape == want.shape and got.dtype == want.dtype, (op, fields)
        assert same_result(got, want, op), f"{op} wrong result for {fields}"
    inputs = x if op == "join" else [x]
    if kind != "same":
        assert _unchanged(_snapshot_inputs_only(watched, inputs)), f"{op} wrote to an input"
    for out, base in zip(outputs or [], bases):
        if base is not None:  # put the sentinel back into the elements: the base must be pristine
            out[...] = np.frombuffer(bytes([SENTINEL]) * out.itemsize, out.dtype)[0]
            assert (base == SENTINEL).all(), f"{op} wrote outside its output: {fields}"
    return "ok"


def _snapshot_inputs_only(snapshot, inputs):
    ids = {id(a) for a in inputs}
    return [(a, b) for a, b in snapshot if id(a) in ids]


# ---------------------------------------------------------------- descriptor cases

DATA_TYPE_OF = {np.dtype(d): dml.TensorDataType[np.dtype(d).name.upper()] for d in DTYPES}


def _draw_strides(ch, sizes, is_input):
    """None (packed), padded strides, or (input) a zero stride somewhere."""
    roll = ch.integer(0, 3)
    if roll == 0:
        return None
    strides, step = [], 1
    for s in reversed(sizes):
        strides.append(step)
        step *= s + (roll == 1 and ch.boolean())
    strides = list(reversed(strides))
    if roll == 2:
        strides = [st * ch.integer(1, 3) for st in strides]
    if roll == 3 and is_input:
        strides[ch.integer(0, len(strides) - 1)] = 0
    return strides


def _draw_tensor(ch, dtype, sizes, is_input):
    kw = {"data_type": DATA_TYPE_OF[np.dtype(dtype)], "sizes": list(sizes),
          "strides": _draw_strides(ch, sizes, is_input)}
    roll = ch.integer(0, 120)
    if roll == 0:
        kw["data_type"] = ch.choice([0, 12, 99, -1, "FLOAT32", "DML_TENSOR_DATA_TYPE_INT8",
                                     "bogus", 1.5, None])
    elif roll < 5:
        kw["sizes"] = mutate_list(ch, kw["sizes"], rate=1)
    elif roll < 9 and kw["strides"] is not None:
        kw["strides"] = mutate_list(ch, kw["strides"], rate=1)
    elif roll == 9:
        kw["total_tensor_size_in_bytes"] = hostile_int(ch)
    elif roll == 10 and 1 <= len(sizes) <= 8:  # room to spare: padding after the last element
        kw["total_tensor_size_in_bytes"] = dml.calc_buffer_tensor_size(
            kw["data_type"], sizes, kw["strides"]) + 4 * ch.integer(0, 3)
    elif roll == 11:
        kw["guaranteed_base_offset_alignment"] = maybe_hostile(ch, ch.choice([0, 8, 16, 3]), 1)
    elif roll == 12:
        kw["flags"] = maybe_hostile(ch, ch.choice([0, 1, 2]), 1)
    return dml.TensorDesc(**kw)


def draw_descriptor_case(ch):
    """An operator descriptor (a constructor may raise TypeError on a wrong Python type)."""
    op = ch.choice(OPS)
    dtype = ch.choice(DTYPES)
    roll = ch.integer(0, 19)
    ndim = 9 if roll == 0 else ch.integer(1, 4)
    shape = draw_shape(ch, ndim, zero_ok=False)
    axis = ch.integer(0, ndim - 1)
    if op == "split":
        cuts = sorted(ch.integer(1, shape[axis]) for _ in range(ch.integer(0, 2)))
        cuts = [c for c in cuts if c < shape[axis]]
        sizes = [b - a for a, b in zip([0] + cuts, cuts + [shape[axis]]) if b > a]
        outs = [shape[:axis] + (n,) + shape[axis + 1:] for n in sizes]
        return dml.SplitOperatorDesc(_draw_tensor(ch, dtype, shape, True),
                                     [_draw_tensor(ch, dtype, s, False) for s in outs],
                                     maybe_hostile(ch, axis))
    if op == "join":
        parts = [shape[:axis] + (ch.integer(1, 3),) + shape[axis + 1:]
                 for _ in range(ch.integer(1, 3))]
        out = list(shape)
        out[axis] = sum(p[axis] for p in parts)
        return dml.JoinOperatorDesc([_draw_tensor(ch, dtype, p, True) for p in parts],
                                    _draw_tensor(ch, dtype, tuple(out), False),
                                    maybe_hostile(ch, axis))
    x = _draw_tensor(ch, dtype, shape, True)
    if op == "slice":
        offsets = [ch.integer(0, s - 1) for s in shape]
        strides = [ch.integer(0, 2) for _ in shape]
        sizes = [ch.integer(1, (s - 1 - o) // st + 1 if st else 3)
                 for s, o, st in zip(shape, offsets, strides)]
        return dml.SliceOperatorDesc(x, _draw_tensor(ch, dtype, sizes, False),
                                     mutate_list(ch, offsets), mutate_list(ch, sizes),
                                     mutate_list(ch, strides))
    if op == "slice1":
        offsets = [ch.integer(0, s - 1) for s in shape]
        window = [ch.integer(1, s - o) for s, o in zip(shape, offsets)]
        steps = [ch.choice([1, 2, -1, -3]) for _ in shape]
        out = [ch.integer(1, 1 + (w - 1) // abs(st)) for w, st in zip(window, steps)]
        return dml.Slice1OperatorDesc(x, _draw_tensor(ch, dtype, out, False),
                                      mutate_list(ch, offsets), mutate_list(ch, window),
                                      mutate_list(ch, steps))
    if op == "tile":
        repeats = [ch.integer(1, 3) for _ in shape]
        out = [s * r for s, r in zip(shape, repeats)]
        return dml.TileOperatorDesc(x, _draw_tensor(ch, dtype, out, False),
                                    mutate_list(ch, repeats))
    cls = (dml.CumulativeSummationOperatorDesc if op == "cumulative_summation"
           else dml.CumulativeProductOperatorDesc)
    out = x if ch.integer(0, 3) == 0 else _draw_tensor(ch, dtype, shape, False)
    return cls(x, out, maybe_hostile(ch, axis), maybe_hostile(ch, ch.choice([0, 1])),
               maybe_hostile(ch, ch.choice([False, True])))


def _tensor_view(buffer, desc, writeable=False):
    """A NumPy view of a TensorDesc's elements inside a byte buffer."""
    dtype = np.dtype(NUMPY_DTYPES[desc.data_type])
    flat = np.frombuffer(buffer, dtype=np.uint8)
    flat = flat[:len(flat) // dtype.itemsize * dtype.itemsize].view(dtype)
    strides = tuple(s * dtype.itemsize for s in desc.element_strides())
    return as_strided(flat, shape=desc.sizes, strides=strides, writeable=writeable)


def eager_twin(desc):
    """(eager op name, fields) computing what a compiled desc computes."""
    if isinstance(desc, dml.SplitOperatorDesc):
        return "split", {"axis": desc.axis, "output_axis_sizes": [
            t.sizes[desc.axis] for t in desc.output_tensors]}
    if isinstance(desc, dml.JoinOperatorDesc):
        return "join", {"axis": desc.axis}
    if isinstance(desc, dml.SliceOperatorDesc):
        return "slice", {"offsets": desc.offsets, "sizes": desc.sizes, "strides": desc.strides}
    if isinstance(desc, dml.Slice1OperatorDesc):
        return "slice1", {"input_window_offsets": desc.input_window_offsets,
                          "input_window_sizes": desc.input_window_sizes,
                          "input_window_strides": desc.input_window_strides,
                          "output_sizes": desc.output_tensor.sizes}
    if isinstance(desc, dml.TileOperatorDesc):
        return "tile", {"repeats": desc.repeats}
    name = ("cumulative_summation" if isinstance(desc, dml.CumulativeSummationOperatorDesc)
            else "cumulative_product")
    flag = "has_exclusive_sum" if name == "cumulative_summation" else "has_exclusive_product"
    return name, {"axis": desc.axis, "axis_direction": int(desc.axis_direction),
                  flag: bool(desc.exclusive)}


BAD_BINDINGS = ["short", "readonly", "none", "noncontiguous", "overlap", "count"]


def check_descriptor(ch):
    """Draws one descriptor, compiles and (when small) executes it; asserts the oracle."""
    try:
        desc = draw_descriptor_case(ch)
    except TypeError:
        return "refused"  # a constructor refused a wrong Python type: documented
    try:
        level = ch.choice([None, "4_1", "6_4", "2_1"]) if ch.integer(0, 3) == 0 else None
        op = dml.compile_operator(desc, feature_level=level)
    except DOCUMENTED as error:
        assert not isinstance(error, dml.CoreError), error
        return "refused"
    except Exception as error:
        raise AssertionError(f"compile_operator raised {type(error).__name__}: {error} "
                             f"for {desc!r}") from error
    if sum(op.input_sizes + op.output_sizes) > SMALL_RESULT:
        return "skip"  # valid, but asks for buffers too big to fill in a fuzz loop
    inputs = [bytearray(random_bytes(ch, n)) for n in op.input_sizes]
    outputs = [bytearray([SENTINEL]) * n for n in op.output_sizes]
    in_place = op.output_count == 1 and op.input_sizes == op.output_sizes and \
        ch.integer(0, 3) == 0
    if in_place:  # one buffer for both (refused unless a scan of identical layouts)
        outputs[0] = inputs[0]
    bad = ch.choice(BAD_BINDINGS) if ch.integer(0, 7) == 0 else None
    k = ch.integer(0, len(outputs) - 1)
    if bad == "short":
        outputs[k] = outputs[k][:-1]
    elif bad == "readonly":
        outputs[k] = bytes(outputs[k])
    elif bad == "none":
        outputs[k] = ch.choice([None, 3, "abc", [1, 2]])
    elif bad == "noncontiguous":
        outputs[k] = np.zeros(2 * len(outputs[k]) + 2, np.uint8)[::2]
    elif bad == "overlap":  # input 0 and output k share bytes, starting at different places
        shared = bytearray(inputs[0]) + bytearray([SENTINEL]) * len(outputs[k])
        start = ch.integer(1, len(inputs[0]) - 1)
        inputs[0] = memoryview(shared)[:len(inputs[0])]
        outputs[k] = memoryview(shared)[start:start + len(outputs[k])]
    elif bad == "count":
        outputs = outputs + [bytearray(8)] if ch.boolean() else outputs[:-1]
    before_in = [bytes(b) for b in inputs]
    before_out = [bytes(b) if isinstance(b, (bytes, bytearray, memoryview, np.ndarray))
                  else b for b in outputs]
    try:
        op.execute(inputs, outputs)
    except DOCUMENTED as error:
        assert not isinstance(error, dml.CoreError), error
        assert [bytes(b) for b in inputs] == before_in, f"refused but wrote an input: {desc!r}"
        assert [bytes(b) if isinstance(b, (bytes, bytearray, memoryview, np.ndarray)) else b
                for b in outputs] == before_out, f"refused but wrote an output: {desc!r}"
        return "refused"
    except Exception as error:
        raise AssertionError(f"execute raised {type(error).__name__}: {error} for "
                             f"{desc!r}") from error
    assert bad is None, f"execute accepted a {bad} binding for {desc!r}"
    if in_place:
        assert isinstance(desc, (dml.CumulativeSummationOperatorDesc,
                                 dml.CumulativeProductOperatorDesc)), desc
    # the reference: the eager operator's NumPy twin on views of the input bytes
    name, fields = eager_twin(desc)
    in_descs = desc.input_tensors if name == "join" else [desc.input_tensor]
    views = [_tensor_view(b, d) for b, d in zip(before_in, in_descs)]
    expected = reference(name, views if name == "join" else views[0], fields)
    out_descs = desc.output_tensors if name == "split" else [desc.output_tensor]
    for got, before, d, want in zip(outputs, before_out, out_descs, expected):
        elements = np.array(_tensor_view(bytes(got), d))
        assert same_result(elements, want, name), f"wrong result for {desc!r}"
        image = bytearray(before)  # every byte but the elements stays as it was
        _tensor_view(image, d, writeable=True)[...] = elements
        assert bytes(got) == bytes(image), f"wrote outside the elements for {desc!r}"
    return "ok"
