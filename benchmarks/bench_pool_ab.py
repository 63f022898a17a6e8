"""Before/after of the thread pool across two builds, interleaved: each round runs one child
process per build (the order alternating), each child times the same calls at 2 threads and
oversubscribed at 32, and reports medians; the summary is the median over rounds of the
per-round ratios (a burst of load hits both builds of a round alike).

    python benchmarks/bench_pool_ab.py --before /tmp/old/src --after src [--rounds 6]

Per child: median microseconds per call of a 64 MiB float32 SPLIT (4 outputs), an 8 MiB JOIN, an
8 MiB CUM_SUM along axis 0 and a 512 KiB SPLIT, at 2 and 32 threads, and the CPU seconds per
wall second of 1 MiB SPLITs back to back at 32 threads.
"""
import argparse
import json
import os
import subprocess
import sys

CHILD = r"""
import json, time, numpy as np, dmlcpu as d
def med(f, seconds=0.4, least=7):
    f(); ts = []; end = time.perf_counter() + seconds
    while len(ts) < least or time.perf_counter() < end:
        t = time.perf_counter(); f(); ts.append(time.perf_counter() - t)
    ts.sort(); return ts[len(ts) // 2] * 1e6
x = np.ones((64, 256, 1024), np.float32); outs = [np.empty((64, 64, 1024), np.float32) for _ in range(4)]
small = np.ones((2, 256, 256), np.float32); souts = [np.empty((2, 64, 256), np.float32) for _ in range(4)]
xs = [np.ones((32, 16, 1024), np.float32) for _ in range(4)]; jo = np.empty((32, 64, 1024), np.float32)
c = np.ones((2048, 1024), np.float32); co = np.empty_like(c)
one = np.ones((4, 256, 256), np.float32); oouts = [np.empty((4, 64, 256), np.float32) for _ in range(4)]
r = {}
for n in (2, 32):
    d.set_num_threads(n)
    r["SPLIT 64MiB t%d" % n] = med(lambda: d.split(x, axis=1, output_axis_sizes=[64] * 4, outputs=outs))
    r["JOIN 8MiB t%d" % n] = med(lambda: d.join(xs, axis=1, out=jo))
    r["CUM_SUM 8MiB t%d" % n] = med(lambda: d.cumulative_summation(c, axis=0, out=co))
    r["SPLIT 512KiB t%d" % n] = med(lambda: d.split(small, axis=1, output_axis_sizes=[64] * 4, outputs=souts))
d.set_num_threads(32)
w, p, k = time.perf_counter(), time.process_time(), 0
while time.perf_counter() - w < 0.5:
    d.split(one, axis=1, output_axis_sizes=[64] * 4, outputs=oouts); k += 1
r["cpu/wall 1MiB t32"] = (time.process_time() - p) / (time.perf_counter() - w)
print(json.dumps(r))
"""


def child(src):
    env = dict(os.environ, PYTHONPATH=os.path.abspath(src))
    env.pop("DMLCPU_NUM_THREADS", None)
    out = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True,
                         check=True, timeout=300)
    return json.loads(out.stdout)


def median(values):
    values = sorted(values)
    return values[len(values) // 2]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--before", required=True, help="the old build's src directory")
    p.add_argument("--after", required=True, help="the new build's src directory")
    p.add_argument("--rounds", type=int, default=6)
    p.add_argument("--json", help="write every round's numbers here")
    args = p.parse_args()
    rounds = []
    for i in range(args.rounds):
        order = ("before", "after") if i % 2 == 0 else ("after", "before")
        got = {name: child(getattr(args, name)) for name in order}
        rounds.append(got)
        print("round %d done (%s first), load %.2f" % (i + 1, order[0], os.getloadavg()[0]),
              file=sys.stderr, flush=True)
    keys = list(rounds[0]["before"])
    print("%-22s %12s %12s %14s" % ("median over rounds", "before", "after", "before/after"))
    for key in keys:
        b = median([r["before"][key] for r in rounds])
        a = median([r["after"][key] for r in rounds])
        ratio = median([r["before"][key] / r["after"][key] for r in rounds])
        print("%-22s %12.1f %12.1f %14.3f" % (key, b, a, ratio))
    for name in ("before", "after"):
        over = median([r[name]["SPLIT 64MiB t32"] / r[name]["SPLIT 64MiB t2"] for r in rounds])
        print("%s: 64 MiB SPLIT at 32 threads / at 2 threads: %.3f" % (name, over))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rounds": rounds, "load_end": os.getloadavg()}, f, indent=1)


if __name__ == "__main__":
    main()
