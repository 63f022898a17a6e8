"""Before/after across versions: the same eager calls with out= through the public API only (so
any two builds can run it), median microseconds per call as JSON on stdout. Run each build in
turn, interleaved, and compare:  PYTHONPATH=<checkout>/src python benchmarks/bench_versions.py
"""
import json, sys, time
import numpy as np
import dmlcpu as d

def med(f, n):
    f(); ts = []
    for _ in range(n):
        t = time.perf_counter(); f(); ts.append(time.perf_counter() - t)
    ts.sort(); return ts[len(ts) // 2] * 1e6

rng = np.random.default_rng(0)
def cases():
    x = rng.random((64, 256, 1024), dtype=np.float32)          # 64 MiB
    outs = [np.empty((64, 64, 1024), np.float32) for _ in range(4)]
    yield "SPLIT f32 axis1 x4 64MiB", lambda: d.split(x, axis=1, output_axis_sizes=[64] * 4, outputs=outs), 15
    xs = [rng.random((64, 64, 1024), dtype=np.float32) for _ in range(4)]
    o = np.empty((64, 64, 4096), np.float32)
    yield "JOIN f32 axis2 x4 64MiB", lambda: d.join(xs, axis=2, out=o), 15
    s = np.empty((64, 128, 299), np.float32)
    yield "SLICE f32 [:,1::2,3:900:3]", lambda: d.slice(x, offsets=[0, 1, 3], sizes=[64, 128, 299], strides=[1, 2, 3], out=s), 15
    t_in = rng.random((1, 64, 32, 32), dtype=np.float32); t_out = np.empty((8, 64, 128, 128), np.float32)
    yield "TILE f32 (1,64,32,32)x(8,1,4,4)", lambda: d.tile(t_in, repeats=[8, 1, 4, 4], out=t_out), 15
    xi8 = rng.integers(-128, 127, (64, 256, 1024), dtype=np.int8); oi8 = [np.empty((64, 64, 1024), np.int8) for _ in range(4)]
    yield "SPLIT i8 axis1 x4 16MiB", lambda: d.split(xi8, axis=1, output_axis_sizes=[64] * 4, outputs=oi8), 15
    c = rng.random((4096, 4096), dtype=np.float32); co = np.empty_like(c)
    yield "CUMSUM f32 axis0", lambda: d.cumulative_summation(c, axis=0, out=co), 15
    yield "CUMSUM f32 axis1", lambda: d.cumulative_summation(c, axis=1, out=co), 15
    ci = rng.integers(0, 9, (4096, 4096), dtype=np.int32); cio = np.empty_like(ci)
    yield "CUMSUM i32 axis1", lambda: d.cumulative_summation(ci, axis=1, out=cio), 15
    h = rng.random((4096, 4096)).astype(np.float16); ho = np.empty_like(h)
    yield "CUMSUM f16 axis1", lambda: d.cumulative_summation(h, axis=1, out=ho), 15
    sx = np.arange(1, 13, dtype=np.float32).reshape(1, 1, 6, 2)
    yield "seed SPLIT eager new", lambda: d.split(sx, axis=2, output_axis_sizes=[2, 1, 3]), 20000

res = {}
for threads in (1, 2):
    d.set_num_threads(threads)
    for name, f, n in cases():
        res[f"{name} @{threads}t"] = med(f, n)
json.dump(res, sys.stdout)
