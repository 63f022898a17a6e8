"""One call on one and on two threads after a busy gap: how much a pool worker that has gone to
sleep (idle past its spin, csrc/pool_impl.h) costs the next call. The caller spins through the gap
so that its own CPU stays awake; with a gap under the workers' 50 us spin they are still awake.
Run with PYTHONPATH=src:

    python benchmarks/bench_pool_wake.py [--family "SPLIT axis 1 into 4"] [--sizes 512K,1M,2M,8M]
                                         [--dtype int8] [--gaps 0,100,1000]

Prints, per size and gap, the median, 10th and 90th percentile of 300 calls in microseconds, one
thread then two, twice each.

With --sleep-ms M --batch N it measures batches instead, as the bench's warm protocol has them:
the caller sleeps M ms (other work elsewhere; the workers go to sleep), then makes one untimed
call and N back to back, 40 times; printed are the quartiles of the batches' mean call time, one
thread and two in alternate batches. A worker that the system wakes on its caller's CPU shows
here (csrc/pool_impl.h, POOL_YIELD_AFTER_NS). Used for the old NOTES.md.
"""
import argparse
import time

import numpy as np

import dmlcpu
from dmlcpu.bench import _cases as _bench_cases

from bench_ab import parse_size  # this script's folder is on the path when it runs


def dmlcpu_call(args, size):
    """The bench case of this family, type and size, and dmlcpu's call of it on its own buffers."""
    case = _bench_cases.FAMILIES[args.family](parse_size(size), np.dtype(args.dtype).type, size)
    ins, outs = case.buffers()
    return case, case.builders["dmlcpu"](ins, outs)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--family", default="SPLIT axis 1 into 4")
    p.add_argument("--sizes", default="512K,1M,2M,8M")
    p.add_argument("--dtype", default="int8")
    p.add_argument("--gaps", default="0,100,1000", help="microseconds between calls")
    p.add_argument("--calls", type=int, default=300)
    p.add_argument("--sleep-ms", type=float, default=0, help="batches after sleeping this long")
    p.add_argument("--batch", type=int, default=200, help="calls per batch (with --sleep-ms)")
    args = p.parse_args()
    if args.sleep_ms:
        return batches_after_sleep(args)
    for size in args.sizes.split(","):
        case, run = dmlcpu_call(args, size)
        for gap_us in (float(g) for g in args.gaps.split(",")):
            cells = []
            for threads in (1, 2, 1, 2):
                dmlcpu.set_num_threads(threads)
                times = []
                for _ in range(args.calls):
                    until = time.perf_counter() + gap_us * 1e-6
                    while time.perf_counter() < until:
                        pass
                    t0 = time.perf_counter()
                    run()
                    times.append(time.perf_counter() - t0)
                times.sort()
                n = len(times)
                cells.append("%dT %.1f (%.1f-%.1f)" % (threads, times[n // 2] * 1e6,
                                                       times[n // 10] * 1e6,
                                                       times[n * 9 // 10] * 1e6))
            print("%s %s, gap %g us: %s" % (case.name, size, gap_us, " | ".join(cells)),
                  flush=True)


def batches_after_sleep(args):
    for size in args.sizes.split(","):
        case, run = dmlcpu_call(args, size)
        means = {1: [], 2: []}
        for b in range(40):
            threads = 1 + b % 2
            dmlcpu.set_num_threads(threads)
            time.sleep(args.sleep_ms * 1e-3)
            run()  # untimed, as in the bench's warm protocol
            t0 = time.perf_counter()
            for _ in range(args.batch):
                run()
            means[threads].append((time.perf_counter() - t0) / args.batch * 1e6)
        cells = []
        for threads, m in means.items():
            m.sort()
            n = len(m)
            cells.append("%dT %.1f (%.1f-%.1f)" % (threads, m[n // 2], m[n // 4], m[n * 3 // 4]))
        print("%s %s, %d calls after %g ms asleep, mean a call: %s"
              % (case.name, size, args.batch, args.sleep_ms, " | ".join(cells)), flush=True)


if __name__ == "__main__":
    main()
