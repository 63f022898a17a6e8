"""The benchmark's workloads: each operator family at every data width and at sizes from inside
L2 to well beyond the last-level cache.

A Case holds the input data and, per peer, a builder ``fn(ins, outs) -> callable`` that runs the
operator over that peer's own preallocated buffers (so in the cold protocol each call finds the
caches holding the other peers' data). Every peer does the same job in its fastest
allocation-free form: NumPy ``copyto`` of views (a broadcast copy for TILE),
``concatenate(out=)``, ``cumsum(out=)``; PyTorch ``copy_``/``cat(out=)``/``expand().copy_()``;
ONNX Runtime one-node models through I/O binding. The scans run on small integral values, so every
peer's result is exact and the runner can check it against dmlcpu's.
"""
import numpy as np

import dmlcpu
from ._peers import ort_runner
from ._timing import placed, placed_copy

# sizes of the largest tensor of a call: every power of two from 256 KiB to 256 MiB, so that no
# switch point of the policy (policy.c: L2, a thread's share of the cache, the streaming
# threshold) falls between two measured sizes. The copy families take them all; the scans, whose
# rules are fewer, the four of SCAN_SIZES (inside L2, inside a thread's share of the cache, about
# the cache, far beyond it).
SIZES = {("%dK" % (n >> 10) if n < 1 << 20 else "%dM" % (n >> 20)): n
         for n in (1 << k for k in range(18, 29))}
SCAN_SIZES = ("512K", "8M", "32M", "128M")
DTYPES = {1: np.int8, 2: np.float16, 4: np.float32, 8: np.float64}
QUICK = {"sizes": ("512K", "4M", "16M"), "widths": (1, 4),
         "families": ("SPLIT axis 1 into 4", "SLICE [:, 1::2, 3:900:3]", "JOIN 4 axis 1",
                      "TILE (1,c,32,32) x (8,1,4,4)", "CUM_SUM axis 1")}


class Case:
    """One call: the inputs, the output shapes, the ideal bytes (every input byte read once,
    every output byte written once) and a builder per peer."""

    def __init__(self, family, shape, dtype, size_label, inputs, out_shapes, read, **builders):
        self.family, self.dtype, self.size_label = family, np.dtype(dtype), size_label
        self.name = "%s %s %s" % (family, shape, self.dtype.name)
        self.inputs, self.out_shapes = inputs, out_shapes
        self.written = sum(int(np.prod(s)) for s in out_shapes) * self.dtype.itemsize
        self.read = read if read is not None else self.written
        self.builders = builders  # dmlcpu, numpy, and optionally torch, ort

    def buffers(self):
        """A fresh copy of the inputs and empty outputs for one peer, placed alike for every
        peer (_timing.placed)."""
        n = len(self.inputs)
        return ([placed_copy(a, i) for i, a in enumerate(self.inputs)],
                [placed(s, self.dtype, n + i) for i, s in enumerate(self.out_shapes)])


def _values(shape, dtype, seed=0, low=-100, high=100):
    """Integers in [low, high) in a shuffled repeating pattern: cheap for 256 MiB, and exact in
    every type."""
    period = np.random.default_rng(seed).integers(low, high, size=4099, dtype=np.int16)
    count = int(np.prod(shape))
    return np.resize(period.astype(dtype), count).reshape(shape)


def _rows(size, width, inner=1024):
    """(d0, m) with d0 * m * inner elements of `width` bytes about `size` bytes, m <= 256 and a
    multiple of 8."""
    rows = max(8, size // (width * inner))
    if rows >= 256:
        return rows // 256, 256
    return 1, rows // 8 * 8


def _torch():
    from ._peers import optional
    return optional("torch")


def _tensors(arrays):
    torch = _torch()
    return [torch.from_numpy(a) for a in arrays]


def split(axis, parts):
    def make(size, dtype, label):
        d0, m = _rows(size, np.dtype(dtype).itemsize)
        shape = (d0, m, 1024)
        sizes = [m // 4] * 4 if parts is None else list(parts)
        bounds = np.cumsum([0] + sizes)
        index = [(slice(None),) * axis + (slice(a, b),) for a, b in zip(bounds[:-1], bounds[1:])]
        out_shapes = [shape[:axis] + (n,) + shape[axis + 1:] for n in sizes]

        def numpy(ins, outs):
            def run():
                for o, i in zip(outs, index):
                    np.copyto(o, ins[0][i])
            return run

        def torch(ins, outs):
            (tx,), touts = _tensors(ins), _tensors(outs)
            th = _torch()

            def run():
                for o, v in zip(touts, th.split(tx, sizes, dim=axis)):
                    o.copy_(v)
            return run
        return Case("SPLIT axis %d into %s" % (axis, "4" if parts is None else sizes),
                    _fmt(shape), dtype, label, [_values(shape, dtype)], out_shapes, None,
                    dmlcpu=lambda ins, outs: lambda: dmlcpu.split(
                        ins[0], axis=axis, output_axis_sizes=sizes, outputs=outs),
                    numpy=numpy, torch=torch,
                    ort=lambda ins, outs, n: ort_runner(
                        "Split", ins, outs, n, constants=[np.array(sizes, np.int64)], axis=axis))
    return make


def slice_(text, window):
    def make(size, dtype, label):
        d0, m = _rows(size, np.dtype(dtype).itemsize)
        shape = (d0, m, 1024)
        offsets, sizes, strides = window(d0, m)
        index = tuple(slice(o, o + (n - 1) * s + 1, s) for o, n, s in zip(offsets, sizes, strides))
        out = tuple(sizes)
        ends = np.array([o + (n - 1) * s + 1 for o, n, s in zip(offsets, sizes, strides)], np.int64)
        return Case("SLICE " + text, _fmt(shape), dtype, label, [_values(shape, dtype)], [out],
                    None,
                    dmlcpu=lambda ins, outs: lambda: dmlcpu.slice(
                        ins[0], offsets=offsets, sizes=sizes, strides=strides, out=outs[0]),
                    numpy=lambda ins, outs: lambda: np.copyto(outs[0], ins[0][index]),
                    torch=lambda ins, outs: _torch_copy(ins[0], outs[0], index),
                    ort=lambda ins, outs, n: ort_runner(
                        "Slice", ins, outs, n,
                        constants=[np.array(offsets, np.int64), ends, np.arange(3, dtype=np.int64),
                                   np.array(strides, np.int64)]))
    return make


def _torch_copy(x, out, index):
    tx, tout = _tensors([x, out])
    return lambda: tout.copy_(tx[index])


def join(axis):
    def make(size, dtype, label):
        d0, m = _rows(size, np.dtype(dtype).itemsize)
        part = (d0, m // 4, 1024) if axis == 1 else (d0, m, 256)
        out = (d0, m, 1024)

        def torch(ins, outs):
            txs, (tout,) = _tensors(ins), _tensors(outs)
            th = _torch()
            return lambda: th.cat(txs, dim=axis, out=tout)
        return Case("JOIN 4 axis %d" % axis, "4x" + _fmt(part), dtype, label,
                    [_values(part, dtype, seed) for seed in range(4)], [out], None,
                    dmlcpu=lambda ins, outs: lambda: dmlcpu.join(ins, axis=axis, out=outs[0]),
                    numpy=lambda ins, outs: lambda: np.concatenate(ins, axis=axis, out=outs[0]),
                    torch=torch,
                    ort=lambda ins, outs, n: ort_runner("Concat", ins, outs, n, axis=axis))
    return make


def tile(text, shape_of, repeats):
    def make(size, dtype, label):
        shape = shape_of(size // np.dtype(dtype).itemsize)
        out = tuple(s * r for s, r in zip(shape, repeats))
        split_shape = [v for s, r in zip(shape, repeats) for v in (r, s)]
        ones_shape = [v for s in shape for v in (1, s)]

        def numpy(ins, outs):
            src, dst = ins[0].reshape(ones_shape), outs[0].reshape(split_shape)
            return lambda: np.copyto(dst, src)

        def torch(ins, outs):
            tx, tout = _tensors(ins + outs)
            src, dst = tx.reshape(ones_shape).expand(split_shape), tout.view(split_shape)
            return lambda: dst.copy_(src)
        return Case("TILE " + text, _fmt(shape) + " x " + _fmt(repeats), dtype, label,
                    [_values(shape, dtype)], [out], int(np.prod(shape)) * np.dtype(dtype).itemsize,
                    dmlcpu=lambda ins, outs: lambda: dmlcpu.tile(ins[0], repeats=repeats,
                                                                 out=outs[0]),
                    numpy=numpy, torch=torch,
                    ort=lambda ins, outs, n: ort_runner(
                        "Tile", ins, outs, n, constants=[np.array(repeats, np.int64)]))
    return make


def scan(op, axis):
    def make(size, dtype, label):
        width = np.dtype(dtype).itemsize
        shape = (max(1, size // (width * 4096)), 4096)
        # small integral values keep every peer's result exact: sums of -3..3, products of +-1
        x = _values(shape, dtype, 0, -3, 4) if op == "sum" else \
            (2 * _values(shape, np.int8, 0, 0, 2) - 1).astype(dtype)
        dml_op = dmlcpu.cumulative_summation if op == "sum" else dmlcpu.cumulative_product
        np_op = np.cumsum if op == "sum" else np.cumprod

        def torch(ins, outs):
            tx, tout = _tensors(ins + outs)
            th = _torch()
            t_op = th.cumsum if op == "sum" else th.cumprod
            return lambda: t_op(tx, dim=axis, dtype=tx.dtype, out=tout)
        ort = None
        if op == "sum":
            def ort(ins, outs, n):
                return ort_runner("CumSum", ins, outs, n, constants=[np.array(axis, np.int64)])
        return Case("CUM_%s axis %d" % (op.upper() if op == "sum" else "PROD", axis),
                    _fmt(shape), dtype, label, [x], [shape], None,
                    dmlcpu=lambda ins, outs: lambda: dml_op(ins[0], axis=axis, out=outs[0]),
                    numpy=lambda ins, outs: lambda: np_op(ins[0], axis=axis, dtype=dtype,
                                                          out=outs[0]),
                    torch=torch, ort=ort)
    return make


def _fmt(shape):
    return "(" + ",".join(str(s) for s in shape) + ")"


FAMILIES = {
    "SPLIT axis 1 into 4": split(1, None),
    "SPLIT axis 2 into [100, 300, 624]": split(2, (100, 300, 624)),
    "SLICE [:, 1::2, 3:900:3]": slice_("[:, 1::2, 3:900:3]", lambda d0, m: (
        [0, 1, 3], [d0, m // 2, 299], [1, 2, 3])),
    "SLICE [:, m/8:7m/8, :]": slice_("[:, m/8:7m/8, :]", lambda d0, m: (
        [0, m // 8, 0], [d0, m * 3 // 4, 1024], [1, 1, 1])),
    "JOIN 4 axis 1": join(1),
    "JOIN 4 axis 2": join(2),
    "TILE (1,c,32,32) x (8,1,4,4)": tile(
        "(1,c,32,32) x (8,1,4,4)", lambda n: (1, max(1, n // (32 * 32 * 128)), 32, 32),
        (8, 1, 4, 4)),
    "TILE (r,1,1024) x (1,64,1)": tile(
        "(r,1,1024) x (1,64,1)", lambda n: (max(1, n // (1024 * 64)), 1, 1024), (1, 64, 1)),
    "CUM_SUM axis 1": scan("sum", 1),
    "CUM_SUM axis 0": scan("sum", 0),
    "CUM_PROD axis 1": scan("prod", 1),
}


def cases(quick, sizes=None, widths=None):
    """Every (family, width, size) case of the full or the quick suite (or of the sizes and
    widths given), lazily built: the data of the largest cases is made only when they run."""
    chosen = QUICK["families"] if quick else tuple(FAMILIES)
    widths = widths or (QUICK["widths"] if quick else tuple(DTYPES))
    for family in chosen:
        ladder = sizes or (QUICK["sizes"] if quick else
                           SCAN_SIZES if family.startswith("CUM_") else tuple(SIZES))
        for width in widths:
            for label in ladder:
                yield family, width, label, (
                    lambda f=family, w=width, s=label: FAMILIES[f](SIZES[s], DTYPES[w], s))
