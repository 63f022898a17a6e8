"""JOIN and SPLIT as one group step (one pass over the outer indices) against one copy step per
part (the plan before dmlcpu_copy_group), in the same process, interleaved with a memcpy of the
output's bytes. Ratios to memcpy: higher is faster.
Caveat: interleaved in one process, a streamed group run leaves the output out of the caches, so
the per-part run after it starts colder than it would alone; for outputs that fit the last-level
cache compare separate processes (python -m dmlcpu bench against a build of main) too.
Run with PYTHONPATH=src:  python benchmarks/bench_group.py [threads [name filter]]
"""
import sys

import numpy as np

import dmlcpu
from dmlcpu.bench._main import measure, memcpy_of
from dmlcpu._core import Plan


def layout(slot, a):
    return (slot, 0, list(a.shape), list(a.strides))


def along(lay, axis, start, sizes):
    slot, offset, _, strides = lay
    return (slot, offset + start * strides[axis], list(sizes), strides)


def join_plans(xs, out, axis):
    e = out.itemsize
    targets, start = [], 0
    for x in xs:
        targets.append(along(layout(len(xs), out), axis, start, x.shape))
        start += x.shape[axis]
    sources = [layout(i, x) for i, x in enumerate(xs)]
    group = Plan(len(xs), 1, [("group", targets, sources, e, axis)])
    parts = Plan(len(xs), 1, [("copy", t, s, e) for t, s in zip(targets, sources)])
    return group, parts


def split_plans(x, outs, axis):
    e = x.itemsize
    sources, start = [], 0
    for o in outs:
        sources.append(along(layout(0, x), axis, start, o.shape))
        start += o.shape[axis]
    targets = [layout(1 + i, o) for i, o in enumerate(outs)]
    group = Plan(1, len(outs), [("group", targets, sources, e, axis)])
    parts = Plan(1, len(outs), [("copy", t, s, e) for t, s in zip(targets, sources)])
    return group, parts


def compare(name, group, parts, inputs, outputs, nbytes, budget=2.0):
    if len(sys.argv) > 2 and sys.argv[2] not in name:
        return
    memcpy = memcpy_of(nbytes)
    (tg, tp, tm), spread = measure([lambda: group.run(inputs, outputs),
                                    lambda: parts.run(inputs, outputs), memcpy], budget)
    print("%-44s group %8.0f us (memcpy %.2f)  parts %8.0f us (memcpy %.2f)  spread %.2f" % (
        name, tg * 1e6, tm / tg, tp * 1e6, tm / tp, spread), flush=True)


def main():
    if len(sys.argv) > 1:
        dmlcpu.set_num_threads(int(sys.argv[1]))
    shape = (64, 64, 1024)
    for dtype in (np.float32, np.float64, np.float16, np.int8):
        xs = [np.ones(shape, dtype) for _ in range(4)]
        for axis in (1, 2):
            out_shape = list(shape)
            out_shape[axis] *= 4
            out = np.empty(out_shape, dtype)
            compare("JOIN 4x%s axis %d %s" % (shape, axis, np.dtype(dtype).name),
                    *join_plans(xs, out, axis), xs, [out], out.nbytes)
        x = np.ones((64, 256, 1024), dtype)
        for axis, sizes in ((1, [64] * 4), (2, [100, 300, 624])):
            outs = [np.empty(x.shape[:axis] + (n,) + x.shape[axis + 1:], dtype) for n in sizes]
            compare("SPLIT (64,256,1024) axis %d %s %s" % (axis, sizes, np.dtype(dtype).name),
                    *split_plans(x, outs, axis), [x], outs, x.nbytes)
    # short blocks: 16, 64 and 256 bytes per part
    for inner in (4, 16, 64):
        xs = [np.ones(((1 << 20) // inner, inner), np.float32) for _ in range(4)]
        out = np.empty((xs[0].shape[0], 4 * inner), np.float32)
        compare("JOIN 4x%s axis 1 float32" % (xs[0].shape,), *join_plans(xs, out, 1), xs, [out],
                out.nbytes)
        x = out
        outs = [np.empty(xs[0].shape, np.float32) for _ in range(4)]
        compare("SPLIT %s axis 1 into 4 float32" % (x.shape,), *split_plans(x, outs, 1), [x],
                outs, x.nbytes)


if __name__ == "__main__":
    main()
