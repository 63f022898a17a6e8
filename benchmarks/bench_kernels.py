"""Kernel-level measurements behind the dispatch choices (NOTES.md in git).

Each section times one kernel slot under every usable ISA (forced in-process), through one-step
plans so the Python layer's per-call cost stays out, in interleaved rounds with medians.
Run with PYTHONPATH=src:  python benchmarks/bench_kernels.py [gather|fill|stream|transpose]...
"""
import sys

import numpy as np

import dmlcpu
from dmlcpu import _core
from dmlcpu.bench._main import measure
from dmlcpu._core import Plan

ISAS = _core._config()["usable_isas"]


def per_isa(plan, inputs, outputs, budget=0.5):
    """Median seconds of plan.run under each usable ISA, interleaved."""
    def under(isa):
        def run():
            _core._force_isa(isa)
            plan.run(inputs, outputs)
        return run
    try:
        return measure([under(isa) for isa in ISAS], budget)[0]
    finally:
        _core._force_isa(None)


def gather():
    """x8/x16/x32/x64 gather (source stride s elements), L2-resident: 16 rows of 512 outputs."""
    print("gather: us per call, 16 x 512 elements;", " ".join(ISAS))
    for dtype in (np.int8, np.float16, np.float32, np.float64):
        for s in (2, 3, 4, 6, 8, 9):
            x = np.ones((16, 512 * s), dtype)
            out = np.empty((16, 512), dtype)
            e = x.itemsize
            plan = Plan(1, 1, [("copy", (1, 0, [16, 512], [512 * e, e]),
                                (0, 0, [16, 512], [x.strides[0], s * e]), e)])
            times = per_isa(plan, [x], [out])
            print("  %-8s s=%d " % (np.dtype(dtype).name, s) +
                  " ".join("%7.2f" % (t * 1e6) for t in times))


def fill():
    """Broadcast (stride-0 source) into a packed run of 64 or 4096 x 64 elements."""
    print("fill: us per call;", " ".join(ISAS))
    for e in (1, 2, 4, 8):
        for n in (64, 4096):
            x = np.ones(8, np.uint8)
            out = np.empty(64 * n * e, np.uint8)
            plan = Plan(1, 1, [("copy", (1, 0, [64, n], [n * e, e]), (0, 0, [64, n], [0, 0]), e)])
            times = per_isa(plan, [x], [out])
            print("  x%-2d n=%-5d " % (8 * e, 64 * n) + " ".join("%8.2f" % (t * 1e6) for t in times))


def stream():
    """Packed copies: memcpy (scalar table) against the streaming kernel, and np.copyto."""
    print("packed copy: ms per call;", " ".join(ISAS), "np.copyto")
    for mib in (1, 2, 4, 16, 64, 128):
        n = mib << 20
        a = np.ones(n, np.uint8)
        b = np.empty(n, np.uint8)
        plan = Plan(1, 1, [("copy", (1, 0, [n], [1]), (0, 0, [n], [1]), 1)])
        times = per_isa(plan, [a], [b], 1.0) + measure([lambda: np.copyto(b, a)], 0.5)[0]
        print("  %4d MiB " % mib + " ".join("%7.3f" % (t * 1e3) for t in times))


def transpose():
    """2-D transposes (packed destination, large source stride) beside NumPy."""
    print("transpose: ms, dmlcpu and NumPy")
    for dtype, n, m in ((np.float32, 4096, 4096), (np.float32, 1000, 3000),
                        (np.float64, 2048, 2048), (np.uint8, 4096, 4096)):
        x = np.ones((n, m), dtype)
        o = np.empty((m, n), dtype)
        e = x.itemsize
        plan = Plan(1, 1, [("copy", (1, 0, [m, n], [n * e, e]), (0, 0, [m, n], [e, m * e]), e)])
        t = measure([lambda: plan.run([x], [o]), lambda: np.copyto(o, x.T)], 1.0)[0]
        print("  %-8s %dx%d %8.2f %8.2f" % (np.dtype(dtype).name, n, m, t[0] * 1e3, t[1] * 1e3))


SECTIONS = {"gather": gather, "fill": fill, "stream": stream, "transpose": transpose}

if __name__ == "__main__":
    dmlcpu.set_num_threads(1)
    for name in sys.argv[1:] or list(SECTIONS):
        SECTIONS[name]()
