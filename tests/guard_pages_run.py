"""Runs every operator on buffers flush against PROT_NONE pages, in a process of its own.

A read or write outside any input or output faults and kills this process; test_guard_pages.py
runs it as a subprocess (once per ISA, through DMLCPU_FORCE_ISA) and reports such a death as a
failure. Results are also checked against NumPy so a guarded run is a correct run.

Covered: every copy kernel width (1, 2, 4, 8 bytes) in every run layout (contiguous, gather,
scatter, strided, broadcast), at lengths reaching every vector tail, with the buffer's first or
last byte against the guard; SPLIT, JOIN, SLICE (strides 2 and 0), SLICE1 walking backwards, TILE
(broadcast inputs too); both scan strategies (axis outer and innermost), forward and reverse,
inclusive and exclusive, in place or not; JOIN and SPLIT in one pass over
the outer indices (dmlcpu_copy_group), large enough to stream and to use threads, every block
starting off a cache line; descriptors executed on raw buffers of exactly
TotalTensorSizeInBytes with packed, padded and broadcast strides; and hostile arguments: fields
that reshape or retype the input while they are read, sequences that lie about their
length, a compiled operator re-initialized from inside its execute. Prints the number of guarded
calls made.
"""
import itertools
import sys

import numpy as np

import dmlcpu as dml
from dmlcpu import _core
from dmlcpu._types import NUMPY_DTYPES
from guarded import guarded_array
from hostile import Field, LyingLength, Rebinding
from numpy.lib.stride_tricks import as_strided

WIDTHS = [np.uint8, np.float16, np.float32, np.float64]  # 1, 2, 4 and 8-byte kernels
SCAN_TYPES = [np.int8, np.uint16, np.int32, np.uint64, np.float16, np.float32, np.float64]
LENGTHS = [1, 7, 33, 130]  # odd lengths reach every vector tail
calls = 0


def guarded_copy(values, side, step=1):
    """values in a guarded buffer, every stride the packed one times step (gaps, or reversed)."""
    values = np.asarray(values)
    strides = tuple(s * step for s in np.empty(values.shape, values.dtype).strides)
    out = guarded_array(values.shape, values.dtype, strides, side)
    out[...] = values
    return out


def guarded_empty(shape, dtype, side, step=1):
    return guarded_copy(np.zeros(shape, dtype), side, step)


def same_bits(a, b):
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    return a.shape == b.shape and a.tobytes() == b.tobytes()


def check(result, expected, what):
    global calls
    calls += 1
    if not same_bits(result, expected):
        print(f"WRONG RESULT: {what}", flush=True)
        sys.exit(3)


def random_values(shape, dtype, rng):
    raw = rng.integers(0, 256, size=int(np.prod(shape)) * np.dtype(dtype).itemsize,
                       dtype=np.uint8)
    return raw.view(dtype).reshape(shape)


def copy_cases(rng):
    for dtype, n, side, in_step, out_step in itertools.product(
            WIDTHS, LENGTHS, ("front", "back"), (1, 2, -1), (1, 3)):
        values = random_values((3, n), dtype, rng)
        x = guarded_copy(values, side, in_step)
        what = f"{np.dtype(dtype).name} n={n} side={side} in_step={in_step} out_step={out_step}"
        # SPLIT along both axes
        outs = [guarded_empty((3, k), dtype, side, out_step) for k in (n // 2, n - n // 2)]
        dml.split(x, axis=1, output_axis_sizes=[n // 2, n - n // 2], outputs=outs)
        check(outs[0], values[:, :n // 2], "split " + what)
        check(outs[1], values[:, n // 2:], "split " + what)
        # JOIN along the inner axis
        out = guarded_empty((3, 2 * n), dtype, side, out_step)
        dml.join([x, x], axis=1, out=out)
        check(out, np.concatenate([values, values], axis=1), "join " + what)
        # SLICE: gather (stride 2), broadcast (stride 0)
        half = (n + 1) // 2
        out = guarded_empty((3, half), dtype, side, out_step)
        dml.slice(x, offsets=[0, 0], sizes=[3, half], strides=[1, 2], out=out)
        check(out, values[:, ::2], "slice stride 2 " + what)
        out = guarded_empty((3, n), dtype, side, out_step)
        dml.slice(x, offsets=[0, n - 1], sizes=[3, n], strides=[1, 0], out=out)
        check(out, np.repeat(values[:, n - 1:], n, axis=1), "slice stride 0 " + what)
        # SLICE1 walking backwards through the whole input
        out = guarded_empty((3, n), dtype, side, out_step)
        dml.slice1(x, input_window_offsets=[0, 0], input_window_sizes=[3, n],
                   input_window_strides=[-1, -1], out=out)
        check(out, values[::-1, ::-1], "slice1 reversed " + what)
        # TILE
        out = guarded_empty((6, 3 * n), dtype, side, out_step)
        dml.tile(x, repeats=[2, 3], out=out)
        check(out, np.tile(values, (2, 3)), "tile " + what)


def group_cases():
    """JOIN and SPLIT along the last axis of (64, n) parts, 4.6 MB: the one-pass group with
    streamed lines (blocks of 16 KiB or more on average) and threads, the first or last part's
    block against the guard."""
    sizes = [4097, 5003, 9001, 9]  # float32 blocks, not multiples of a line and none aligned
    rng = np.random.default_rng(7)  # its own: the other cases keep the data they always had
    for side in ("front", "back"):
        parts = [random_values((64, n), np.float32, rng) for n in sizes]
        xs = [guarded_copy(v, side) for v in parts]
        out = guarded_empty((64, sum(sizes)), np.float32, side)
        dml.join(xs, axis=1, out=out)
        expected = np.concatenate(parts, axis=1)
        check(out, expected, f"group join side={side}")
        x = guarded_copy(expected, side)
        outs = [guarded_empty((64, n), np.float32, side) for n in sizes]
        dml.split(x, axis=1, output_axis_sizes=sizes, outputs=outs)
        for k, (o, v) in enumerate(zip(outs, parts)):
            check(o, v, f"group split side={side} output {k}")


def scan_reference(values, axis, product, reverse, exclusive):
    """A plain loop in walk order, in the type's own arithmetic (float16 through float32)."""
    v = np.moveaxis(values, axis, 0)
    if reverse:
        v = v[::-1]
    acc_type = np.float32 if v.dtype == np.float16 else v.dtype
    acc = np.full(v.shape[1:], 1 if product else 0, dtype=acc_type)
    out = np.empty_like(v)
    with np.errstate(all="ignore"):
        for k in range(v.shape[0]):
            if exclusive:
                out[k] = acc.astype(v.dtype)
            acc = (acc * v[k].astype(acc_type)) if product else (acc + v[k].astype(acc_type))
            acc = acc.astype(acc_type)
            if not exclusive:
                out[k] = acc.astype(v.dtype)
    if reverse:
        out = out[::-1]
    return np.moveaxis(out, 0, axis)


def scan_cases(rng):
    for dtype, n, side, axis, product, reverse, exclusive, in_place in itertools.product(
            SCAN_TYPES, (1, 7, 33), ("front", "back"), (0, 1), (False, True), (False, True),
            (False, True), (False, True)):
        if np.issubdtype(dtype, np.floating):
            values = rng.uniform(0.5, 1.5, size=(5, n)).astype(dtype)
        else:
            values = random_values((5, n), dtype, rng)
        x = guarded_copy(values, side)
        expected = scan_reference(values, axis, product, reverse, exclusive)
        out = x if in_place else guarded_empty((5, n), dtype, side)
        op = dml.cumulative_product if product else dml.cumulative_summation
        flag = "has_exclusive_product" if product else "has_exclusive_sum"
        op(x, axis=axis, axis_direction=int(reverse), out=out, **{flag: exclusive})
        check(out, expected, f"{op.__name__} {np.dtype(dtype).name} n={n} side={side} "
                             f"axis={axis} reverse={reverse} exclusive={exclusive} "
                             f"in_place={in_place}")


# Run layouts of the innermost copy run, as (input step, output step) in elements; a step of 0
# is a broadcast input. The planner hands these to the core unchanged (SLICE with unit strides).
RUN_LAYOUTS = {"contiguous": (1, 1), "gather": (2, 1), "scatter": (1, 3), "strided": (-2, 3),
               "broadcast": (0, 1), "broadcast strided": (0, -2)}


def guarded_layout(values, side, step):
    """values (2-D) in a guarded buffer, stepping `step` elements along the last axis (0: the
    first column broadcast along it, from a buffer holding only that column)."""
    values = np.asarray(values)
    itemsize = values.dtype.itemsize
    rows, n = values.shape
    if step == 0:
        column = guarded_array((rows, 1), values.dtype, (itemsize, itemsize), side)
        column[...] = values[:, :1]
        return as_strided(column, shape=(rows, n), strides=(itemsize, 0), writeable=False)
    strides = (abs(step) * n * itemsize, step * itemsize)
    out = guarded_array((rows, n), values.dtype, strides, side)
    out[...] = values
    return out


def layout_cases(rng):
    for dtype, n, side, (name, (in_step, out_step)) in itertools.product(
            WIDTHS, LENGTHS, ("front", "back"), RUN_LAYOUTS.items()):
        values = random_values((2, n), dtype, rng)
        if in_step == 0:
            values = np.repeat(values[:, :1], n, axis=1)
        x = guarded_layout(values, side, in_step)
        out = guarded_layout(np.zeros_like(values), side, out_step)
        dml.slice(x, offsets=[0, 0], sizes=[2, n], strides=[1, 1], out=out)
        check(out, values, f"{name} run {np.dtype(dtype).name} n={n} side={side}")


def tile_cases(rng):
    """TILE from packed and broadcast inputs, every width: built dim by dim (spread or doubled),
    and (with the block limit forced to 0, 64 bytes) one copy from a block of the input tiled,
    streamed."""
    for limit in (-1, 0, 64):
        _core._set_tile_limit(limit)
        before = _core._set_stream_threshold(0 if limit >= 0 else -1)
        try:
            tile_cases_now(rng)
        finally:
            _core._set_tile_limit(-1)
            _core._set_stream_threshold(before)


def tile_cases_now(rng):
    for dtype, side, shape, repeats in itertools.product(
            WIDTHS, ("front", "back"), [(1, 1, 3), (2, 3, 1), (3, 1, 5)],
            [(1, 1, 5), (2, 3, 1), (3, 2, 2)]):
        values = random_values(shape, dtype, rng)
        for x in (guarded_copy(values, side), guarded_copy(values, side, -1)):
            out = guarded_empty(tuple(s * r for s, r in zip(shape, repeats)), dtype, side)
            dml.tile(x, repeats=list(repeats), out=out)
            check(out, np.tile(values, repeats), f"tile {shape}x{repeats} side={side}")
        row = guarded_copy(values[:1], side)
        broadcast = as_strided(row, shape=shape, strides=(0,) + row.strides[1:],
                               writeable=False)
        out = guarded_empty(tuple(s * r for s, r in zip(shape, repeats)), dtype, side)
        dml.tile(broadcast, repeats=list(repeats), out=out)
        check(out, np.tile(np.broadcast_to(values[:1], shape), repeats),
              f"tile broadcast {shape}x{repeats} side={side}")


def guarded_buffer(nbytes, side, fill=None):
    """A writable uint8 buffer of exactly nbytes whose first or last byte touches a guard."""
    buffer = guarded_array((nbytes,), np.uint8, (1,), side)
    buffer[...] = 0xA5 if fill is None else np.frombuffer(fill, np.uint8)
    return buffer


def tensor_view(buffer, desc):
    dtype = np.dtype(NUMPY_DTYPES[desc.data_type])
    strides = tuple(s * dtype.itemsize for s in desc.element_strides())
    base = buffer[:len(buffer) // dtype.itemsize * dtype.itemsize].view(dtype)
    return as_strided(base, shape=desc.sizes, strides=strides, writeable=False)


def desc_strides(shape, kind):
    """Element strides: None (packed), padded (a gap after each row), or broadcast (dim 0)."""
    if kind == "packed":
        return None
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= size + (1 if kind == "padded" else 0)
    strides = list(reversed(strides))
    if kind == "broadcast":
        strides[0] = 0
    return strides


def finite_float_bytes(raw, itemsize):
    """Random element bytes with the exponent's top bit cleared: finite floats of magnitude < 2.
    Scans of NaNs are compared bit for bit here, and which NaN payload survives when two NaNs
    meet is the compiler's and CPU's choice (IEEE leaves it open; see the README)."""
    raw = raw.copy()
    raw[itemsize - 1::itemsize] &= 0xBF
    return raw


def run_desc(desc, side, rng, expected_of, finite_floats=False):
    """Compiles and executes desc on guarded buffers; checks each output against expected."""
    op = dml.compile_operator(desc)
    itemsize = np.dtype(NUMPY_DTYPES[desc_data_type(desc)]).itemsize
    raws = [rng.integers(0, 256, n, dtype=np.uint8) for n in op.input_sizes]
    if finite_floats and np.dtype(NUMPY_DTYPES[desc_data_type(desc)]).kind == "f":
        raws = [finite_float_bytes(raw, itemsize) for raw in raws]
    inputs = [guarded_buffer(n, side, raw.tobytes()) for n, raw in zip(op.input_sizes, raws)]
    outputs = [guarded_buffer(n, side) for n in op.output_sizes]
    in_descs = desc.input_tensors if isinstance(desc, dml.JoinOperatorDesc) else \
        [desc.input_tensor]
    out_descs = desc.output_tensors if isinstance(desc, dml.SplitOperatorDesc) else \
        [desc.output_tensor]
    views = [np.array(tensor_view(b, d)) for b, d in zip(inputs, in_descs)]
    op.execute(inputs, outputs)
    for buffer, d, want in zip(outputs, out_descs, expected_of(views)):
        image = np.full(len(buffer), 0xA5, np.uint8)  # padding keeps its bytes
        dtype = np.dtype(NUMPY_DTYPES[d.data_type])
        as_strided(image[:len(image) // dtype.itemsize * dtype.itemsize].view(dtype),
                   shape=d.sizes, strides=tuple(s * dtype.itemsize for s in d.element_strides())
                   )[...] = want
        check(buffer, image, f"descriptor {desc!r} side={side}")


def desc_data_type(desc):
    tensor = desc.input_tensors[0] if isinstance(desc, dml.JoinOperatorDesc) else desc.input_tensor
    return tensor.data_type


def descriptor_cases(rng):
    T = dml.TensorDesc
    for dtype, side, in_kind, out_kind in itertools.product(
            ("UINT8", "FLOAT16", "INT32", "FLOAT64"), ("front", "back"),
            ("packed", "padded", "broadcast"), ("packed", "padded")):
        shape = (3, 5)

        def t(sizes, kind):
            return T(dtype, sizes, desc_strides(sizes, kind))
        run_desc(dml.SplitOperatorDesc(t(shape, in_kind), [t((3, 2), out_kind),
                                                           t((3, 3), out_kind)], 1), side, rng,
                 lambda v: [v[0][:, :2], v[0][:, 2:]])
        run_desc(dml.JoinOperatorDesc([t(shape, in_kind), t((3, 1), in_kind)],
                                      t((3, 6), out_kind), 1), side, rng,
                 lambda v: [np.concatenate(v, axis=1)])
        run_desc(dml.SliceOperatorDesc(t(shape, in_kind), t((2, 3), out_kind), [1, 0], [2, 3],
                                       [1, 2]), side, rng, lambda v: [v[0][1:3, 0:5:2]])
        run_desc(dml.Slice1OperatorDesc(t(shape, in_kind), t((3, 3), out_kind), [0, 0], [3, 5],
                                        [-1, -2]), side, rng, lambda v: [v[0][::-1, ::-2]])
        run_desc(dml.TileOperatorDesc(t(shape, in_kind), t((6, 10), out_kind), [2, 2]), side,
                 rng, lambda v: [np.tile(v[0], (2, 2))])
        if dtype != "UINT8":
            for axis, reverse, exclusive in itertools.product((0, 1), (0, 1), (False, True)):
                run_desc(dml.CumulativeSummationOperatorDesc(
                    t(shape, in_kind), t(shape, out_kind), axis, reverse, exclusive), side, rng,
                    lambda v: [scan_reference(v[0], axis, False, reverse, exclusive)],
                    finite_floats=True)


# (call of an input and an integer field, the field's value): each result as a list of arrays
HOSTILE_CALLS = [
    (lambda x, f: dml.split(x, axis=f, output_axis_sizes=[2, 2]), 0),
    (lambda x, f: [dml.tile(x, repeats=[f, 2])], 1),
    (lambda x, f: [dml.slice(x, offsets=[f, 1], sizes=[3, 3], strides=[1, 1])], 0),
    (lambda x, f: [dml.slice1(x, input_window_offsets=[0, f], input_window_sizes=[3, 3],
                              input_window_strides=[-1, 1])], 0),
    (lambda x, f: [dml.cumulative_summation(x, axis=f)], 0),
    (lambda x, f: [dml.join([x, x], axis=f)], 0),
]


def hostile_cases(rng):
    """Fields that reshape or retype a guarded input mid-call; sequences that lie
    about their length; a compiled operator re-initialized from inside its own execute. A
    result must be the call on the input as it was or as it became (or a refusal)."""
    global calls
    for side in ("front", "back"):
        values = random_values((4, 6), np.float32, rng)
        states = [values, values.reshape(6, 4), values.view(np.int32)]
        for change in ("reshape", "retype"):
            for call, value in HOSTILE_CALLS:
                x = guarded_copy(values, side)

                def rearrange(x=x, change=change):
                    if change == "reshape":
                        x.shape = (6, 4)
                    else:
                        x.dtype = np.int32
                try:
                    got = call(x, Field(value, rearrange))
                except dml.InvalidArgumentError:
                    continue
                wants = []
                for state in states:
                    try:
                        wants.append(call(state, value))
                    except dml.InvalidArgumentError:
                        pass
                if not any(len(got) == len(w) and all(map(same_bits, got, w)) for w in wants):
                    print(f"WRONG RESULT: hostile {change} side={side}", flush=True)
                    sys.exit(3)
                calls += 1
        outs = LyingLength([guarded_empty((2, 6), np.float32, side),
                            guarded_empty((2, 6), np.float32, side)])
        got = dml.split(values, axis=0, output_axis_sizes=[2, 2], outputs=outs)
        check(np.concatenate(got), values, f"split into a lying sequence side={side}")
        check(dml.join(LyingLength([values, values]), axis=0),
              np.concatenate([values, values]), f"join of a lying sequence side={side}")
    reinit_inside_execute()


def reinit_inside_execute():
    """op.__init__ from an outputs sequence's __getitem__ is refused; a read-only input (the
    guard page's neighbour) is never written."""
    f32 = dml.TensorDataType.FLOAT32
    op = dml.compile_operator(dml.JoinOperatorDesc(
        [dml.TensorDesc(f32, [2]), dml.TensorDesc(f32, [2])], dml.TensorDesc(f32, [4]), 0))
    other = dml.TileOperatorDesc(dml.TensorDesc(f32, [1]), dml.TensorDesc(f32, [4]), [4])
    second = guarded_copy(np.float32([3, 4]), "back")
    second.flags.writeable = False
    out = guarded_empty((4,), np.float32, "front")
    try:
        op.execute([np.float32([1, 2]), second], Rebinding(op, other, out))
    except AttributeError:
        pass
    op.execute([np.float32([1, 2]), second], [out])
    check(out, np.float32([1, 2, 3, 4]), "execute after a refused re-init")


def main():
    rng = np.random.default_rng(20261121)
    copy_cases(rng)
    group_cases()
    layout_cases(rng)
    tile_cases(rng)
    scan_cases(rng)
    descriptor_cases(rng)
    hostile_cases(rng)
    print(f"guarded calls: {calls}")


if __name__ == "__main__":
    main()
