"""Per-call overhead of CompiledOperator.execute on the seed page's SPLIT example.

FLOAT32 {1,1,6,2} split along axis 2 into {1,1,2,2}, {1,1,1,2}, {1,1,3,2}: 48 bytes moved, so
the time is almost all binding and dispatch. Target: a median of at most 2 microseconds.
Run: PYTHONPATH=src python3 benchmarks/bench_execute_overhead.py [--repeats N] [--number N]
"""
import argparse
import statistics
import timeit

import numpy as np

import dmlcpu as dml

TARGET_US = 2.0


def seed_split():
    f32 = dml.TensorDataType.FLOAT32
    desc = dml.SplitOperatorDesc(
        dml.TensorDesc(f32, [1, 1, 6, 2]),
        [dml.TensorDesc(f32, [1, 1, 2, 2]), dml.TensorDesc(f32, [1, 1, 1, 2]),
         dml.TensorDesc(f32, [1, 1, 3, 2])], axis=2)
    return dml.compile_operator(desc, "1_0")


def median_us(statement, number, repeats):
    times = timeit.repeat(statement, number=number, repeat=repeats)
    return statistics.median(times) / number * 1e6, min(times) / number * 1e6


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=101)
    parser.add_argument("--number", type=int, default=2000)
    args = parser.parse_args(argv)
    op = seed_split()
    x = np.arange(12, dtype=np.float32)
    outs_bytearray = [bytearray(16), bytearray(8), bytearray(24)]
    outs_numpy = [np.empty(4, np.float32), np.empty(2, np.float32), np.empty(6, np.float32)]
    inputs = [x]
    execute = op.execute
    cases = {
        "execute, NumPy input, bytearray outputs": lambda: execute(inputs, outs_bytearray),
        "execute, NumPy input and outputs": lambda: execute(inputs, outs_numpy),
        "execute, lists built per call": lambda: execute([x], [outs_numpy[0], outs_numpy[1],
                                                               outs_numpy[2]]),
        "empty lambda (timing floor)": lambda: None,
        "eager dml.split, for scale": lambda: dml.split(x.reshape(1, 1, 6, 2), axis=2,
                                                         output_axis_sizes=[2, 1, 3]),
    }
    print(f"median (min) per call over {args.repeats} repeats of {args.number} calls")
    results = {}
    for name, statement in cases.items():
        median, best = median_us(statement, args.number, args.repeats)
        results[name] = median
        print(f"  {name:<42} {median:8.3f} us  ({best:.3f})")
    first = results["execute, NumPy input, bytearray outputs"]
    verdict = "meets" if first <= TARGET_US else "MISSES"
    print(f"SPLIT seed example: {first:.3f} us median {verdict} the {TARGET_US} us target")
    return 0 if first <= TARGET_US else 1


if __name__ == "__main__":
    raise SystemExit(main())
