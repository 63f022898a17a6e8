"""python -m dmlcpu bench --numpy: dmlcpu.numpy (the NumPy drop-in) against NumPy itself on
the workloads of its targets, both returning fresh arrays, at one thread and at all threads.

Each round times one call of each (batches of calls for tiny arrays), in alternating order;
the ratio is NumPy's time over the drop-in's in the same round, the median over the rounds
(above 1: the drop-in faster). NumPy runs these functions on one thread whatever the count.
"""
import os
import statistics
import time

import numpy as np

import dmlcpu
import dmlcpu.numpy as dnp

# (name, the target: the least ratio asked for at one thread and at all threads, setup)
# setup() returns (args, kwargs, function name); None in a target: no target at that count.


def _cumsum(shape, dtype, axis):
    def setup():
        rng = np.random.default_rng(0)
        x = rng.integers(-3, 4, shape).astype(dtype)
        return (x,), {"axis": axis}, "cumsum"
    return setup


def _concatenate():
    parts = [np.full((4096, 512), k, np.float32) for k in range(8)]
    return (parts,), {"axis": 1}, "concatenate"


def _tile():
    return (np.arange(64 * 64, dtype=np.float32).reshape(64, 64), (32, 16)), {}, "tile"


def _repeat():
    return (np.arange(2048 * 512, dtype=np.float32).reshape(2048, 512), 3), {"axis": 1}, "repeat"


def _repeat_runs():
    return ((np.arange(2048 * 512, dtype=np.float32).reshape(2048, 8, 64), 3), {"axis": 1},
            "repeat")


def _ascontiguousarray():
    base = np.arange(4096 * 2048, dtype=np.float32).reshape(4096, 2048)
    return (base[::-1, ::2],), {}, "ascontiguousarray"


def _seed(name, make, kwargs):
    def setup():
        return make(), kwargs, name
    return setup


_Z = np.array([[[[2, 1, 3, 5], [3, 8, 7, 3], [9, 6, 2, 4]]]], np.float32)
_JOINS = [np.arange(1, 7, dtype=np.float32).reshape(1, 1, 2, 3),
          np.arange(7, 15, dtype=np.float32).reshape(1, 1, 2, 4)]
_T = np.arange(1, 7, dtype=np.float32).reshape(1, 1, 2, 3)

TINY = 0.8   # "no more than 1.25x NumPy's time"
WORKLOADS = [
    ("cumsum (20000, 2000) float32 axis 0", (None, 20), _cumsum((20000, 2000), np.float32, 0)),
    ("cumsum (20000, 2000) float32 axis 1", (None, 3), _cumsum((20000, 2000), np.float32, 1)),
    ("cumsum (4000, 4000) int8 axis 0 -> int64", (None, 5), _cumsum((4000, 4000), np.int8, 0)),
    ("cumsum (4000, 4000) float16 axis 0", (None, None), _cumsum((4000, 4000), np.float16, 0)),
    ("cumsum (4000, 4000) float16 axis 1", (None, None), _cumsum((4000, 4000), np.float16, 1)),
    ("concatenate 8 x (4096, 512) float32 axis 1", (1.3, 2), _concatenate),
    ("tile (64, 64) float32 by (32, 16)", (None, 2), _tile),
    ("repeat (2048, 512) float32 by 3 axis 1", (None, 1.5), _repeat),
    ("repeat (2048, 8, 64) float32 by 3 axis 1 (256-byte runs)", (None, None), _repeat_runs),
    ("ascontiguousarray (4096, 2048)[::-1, ::2] float32", (None, 1.1), _ascontiguousarray),
    ("seed: concatenate (1,1,2,3)+(1,1,2,4) axis 3", (TINY, TINY),
     _seed("concatenate", lambda: (_JOINS,), {"axis": 3})),
    ("seed: tile (1,1,2,3) by (1,1,3,3)", (TINY, TINY),
     _seed("tile", lambda: (_T, (1, 1, 3, 3)), {})),
    ("seed: cumsum (1,1,3,4) axis 3", (TINY, TINY), _seed("cumsum", lambda: (_Z,), {"axis": 3})),
    ("seed: cumprod (1,1,3,4) axis 3", (TINY, TINY),
     _seed("cumprod", lambda: (_Z,), {"axis": 3})),
]


def _batch(fn, args, kwargs):
    """How many calls one sample takes: enough for about a millisecond."""
    start = time.perf_counter()
    fn(*args, **kwargs)
    once = time.perf_counter() - start
    return max(1, min(2000, int(1e-3 / max(once, 1e-7))))


def _time(fn, args, kwargs, calls):
    start = time.perf_counter()
    for _ in range(calls):
        fn(*args, **kwargs)
    return (time.perf_counter() - start) / calls


def measure(setup, budget, min_rounds):
    """(median NumPy seconds, median drop-in seconds, median paired ratio NumPy / drop-in)."""
    args, kwargs, name = setup()
    mine, theirs = getattr(dnp, name), getattr(np, name)
    calls = _batch(theirs, args, kwargs)
    mine(*args, **kwargs)   # once untimed each (plans remembered, pages mapped)
    theirs(*args, **kwargs)
    pairs = []
    deadline = time.perf_counter() + budget
    while len(pairs) < min_rounds or time.perf_counter() < deadline and len(pairs) < 50:
        if len(pairs) % 2:
            t_mine, t_theirs = _time(mine, args, kwargs, calls), _time(theirs, args, kwargs, calls)
        else:
            t_theirs, t_mine = _time(theirs, args, kwargs, calls), _time(mine, args, kwargs, calls)
        pairs.append((t_theirs, t_mine))
    return (statistics.median(p[0] for p in pairs), statistics.median(p[1] for p in pairs),
            statistics.median(p[0] / p[1] for p in pairs))


def main(args):
    threads = [1, dmlcpu.get_num_threads()] if not args.threads else [
        int(t) for t in args.threads.split(",")]
    threads = sorted(set(threads))
    budget = args.budget or (0.5 if args.quick else 3.0)
    min_rounds = 3 if args.quick else 7
    old = dmlcpu.get_num_threads()
    print(f"dmlcpu.numpy vs NumPy {np.__version__}, fresh outputs; x = NumPy's time / the "
          f"drop-in's, median of paired rounds (above 1: the drop-in faster); "
          f"load {' '.join(os.getloadavg() and map('{:.2f}'.format, os.getloadavg()))}")
    print("| workload | threads | NumPy ms | drop-in ms | x | target |")
    print("|---|---|---|---|---|---|")
    try:
        for name, targets, setup in WORKLOADS:
            if args.filter and args.filter not in name:
                continue
            for n in threads:
                dmlcpu.set_num_threads(n)
                numpy_s, mine_s, ratio = measure(setup, budget, min_rounds)
                target = targets[0] if n == 1 else targets[1]
                verdict = "" if target is None else (
                    f">= {target}: {'met' if ratio >= target else 'MISSED'}")
                print(f"| {name} | {n} | {numpy_s * 1e3:.4g} | {mine_s * 1e3:.4g} | "
                      f"{ratio:.2f} | {verdict} |", flush=True)
    finally:
        dmlcpu.set_num_threads(old)
    print("fast-path calls per function: " + ", ".join(
        f"{k} {v['fast']}/{v['fast'] + v['numpy']}" for k, v in sorted(dnp.stats().items())))
    return 0
