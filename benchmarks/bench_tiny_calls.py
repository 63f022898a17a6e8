"""Tiny eager calls against NumPy doing the same and returning new arrays.

The seed pages' examples (SPLIT, SLICE, SLICE1, JOIN, TILE, the cumulative operators), each
through the eager API with new outputs, repeated: the time is almost all the call's overhead
(the remembered plan, acquiring buffers, allocating outputs, the run). Rounds interleave the
cases (dmlcpu, NumPy, dmlcpu, NumPy, ...); each round gives a ratio dmlcpu / NumPy, and the
report is the median ratio with the median per-call times. On a shared machine whole rounds run
several times slower when another process takes the core: a ratio within one round is immune
to that, a time is not. Target: every ratio at most 1.0.
Run: PYTHONPATH=src python3 benchmarks/bench_tiny_calls.py [--rounds N] [--number N]
"""
import argparse
import statistics
import timeit

import numpy as np

import dmlcpu as dml

F32 = np.float32
SPLIT_X = np.arange(1, 13, dtype=F32).reshape(1, 1, 6, 2)
SLICE_X = np.arange(1, 17, dtype=F32).reshape(1, 1, 4, 4)
JOIN_XS = [np.arange(1, 5, dtype=F32).reshape(1, 1, 2, 2) + 4 * k for k in range(3)]
TILE_X = np.arange(1, 7, dtype=F32).reshape(1, 1, 2, 3)
SCAN_X = np.arange(1, 7, dtype=F32).reshape(1, 1, 2, 3)

# name: (dmlcpu call, NumPy call returning new arrays)
CASES = {
    "SPLIT axis 2 into 2, 1, 3": (
        lambda: dml.split(SPLIT_X, axis=2, output_axis_sizes=[2, 1, 3]),
        lambda: [part.copy() for part in np.split(SPLIT_X, [2, 3], axis=2)]),
    "SLICE offsets 0,0,1,2 sizes 1,1,3,2": (
        lambda: dml.slice(SLICE_X, offsets=[0, 0, 1, 2], sizes=[1, 1, 3, 2],
                          strides=[1, 1, 1, 1]),
        lambda: SLICE_X[:, :, 1:4, 2:4].copy()),
    "SLICE1 reversed rows, every other column": (
        lambda: dml.slice1(SLICE_X, input_window_offsets=[0, 0, 0, 1],
                           input_window_sizes=[1, 1, 4, 3], input_window_strides=[1, 1, -2, 2]),
        lambda: SLICE_X[:, :, ::-2, 1:4:2].copy()),
    "JOIN 3 inputs along axis 3": (
        lambda: dml.join(JOIN_XS, axis=3),
        lambda: np.concatenate(JOIN_XS, axis=3)),
    "TILE repeats 1,1,3,3": (
        lambda: dml.tile(TILE_X, repeats=[1, 1, 3, 3]),
        lambda: np.tile(TILE_X, (1, 1, 3, 3))),
    "CUMULATIVE_SUMMATION axis 3": (
        lambda: dml.cumulative_summation(SCAN_X, axis=3),
        lambda: np.cumsum(SCAN_X, axis=3)),
    "CUMULATIVE_PRODUCT axis 3": (
        lambda: dml.cumulative_product(SCAN_X, axis=3),
        lambda: np.cumprod(SCAN_X, axis=3)),
}


def check():
    """The two sides of every case agree (a benchmark of wrong answers measures nothing)."""
    for name, (ours, numpys) in CASES.items():
        a, b = ours(), numpys()
        for p, q in zip(a if isinstance(a, list) else [a], b if isinstance(b, list) else [b]):
            assert p.shape == q.shape and p.tobytes() == q.tobytes(), name


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=31)
    parser.add_argument("--number", type=int, default=2000)
    args = parser.parse_args(argv)
    check()
    times = {name: ([], []) for name in CASES}
    for _ in range(args.rounds):
        for name, (ours, numpys) in CASES.items():
            for side, call in zip(times[name], (ours, numpys)):
                side.append(timeit.timeit(call, number=args.number) / args.number * 1e6)
    print(f"medians over {args.rounds} interleaved rounds of {args.number} calls")
    print(f"  {'case':<42} {'dmlcpu us':>10} {'NumPy us':>10} {'ratio':>7}")
    worst = 0.0
    for name, (ours, numpys) in times.items():
        ratio = statistics.median(a / b for a, b in zip(ours, numpys))
        worst = max(worst, ratio)
        print(f"  {name:<42} {statistics.median(ours):10.3f} {statistics.median(numpys):10.3f} "
              f"{ratio:7.2f}")
    print(f"worst ratio {worst:.2f} ({'meets' if worst <= 1.0 else 'MISSES'} the 1.0 target)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
