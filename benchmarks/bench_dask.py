"""Cumulative summation along a chunked axis on a two-worker dask.distributed LocalCluster:
dmlcpu.dask beside da.cumsum (method="sequential" and "blelloch").

For each: the median time to compute the result on the workers (``persist`` and wait; the
input is already there, the result stays there), over interleaved rounds, and how many elements
differ from the sequential single-machine scan (dmlcpu's eager scan of the whole array).

    python benchmarks/bench_dask.py                       # (8192, 4096) float32 in (1024, 2048)
    python benchmarks/bench_dask.py --shape 2048 2048 --chunks 256 1024 --rounds 3

Needs dask[array] and distributed (``pip install 'dmlcpu[dask]'``).
"""
import argparse
import statistics
import time

import numpy as np


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shape", type=int, nargs=2, default=[8192, 4096])
    parser.add_argument("--chunks", type=int, nargs=2, default=[1024, 2048])
    parser.add_argument("--axis", type=int, default=0)
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    import dask.array as da
    from distributed import Client, LocalCluster, wait

    import dmlcpu
    import dmlcpu.dask as dd

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        rng = da.random.default_rng(0)
        x = rng.standard_normal(tuple(args.shape), chunks=tuple(args.chunks),
                                dtype=np.float64).astype(args.dtype).persist()
        wait(x)
        whole = x.compute()
        sequential = dmlcpu.cumulative_summation(whole, axis=args.axis)
        bits = np.dtype(f"u{whole.itemsize}")
        candidates = {
            "dmlcpu.dask.cumulative_summation": lambda: dd.cumulative_summation(x, axis=args.axis),
            "da.cumsum(method='sequential')": lambda: da.cumsum(x, axis=args.axis,
                                                                method="sequential"),
            "da.cumsum(method='blelloch')": lambda: da.cumsum(x, axis=args.axis,
                                                              method="blelloch"),
        }
        times = {name: [] for name in candidates}
        for _ in range(args.rounds):
            for name, make in candidates.items():
                start = time.perf_counter()
                y = make().persist()
                wait(y)
                times[name].append(time.perf_counter() - start)
                del y
        print(f"cumulative summation of {tuple(args.shape)} {args.dtype} in "
              f"{tuple(args.chunks)} chunks along axis {args.axis}; 2 worker processes x 1 "
              f"thread; medians of {args.rounds} interleaved rounds")
        print(f"{'method':36} {'seconds':>8} {'elements differing from sequential':>36}")
        for name, make in candidates.items():
            result = make().compute()
            assert result.dtype == whole.dtype, (name, result.dtype)
            differ = int(np.count_nonzero(result.view(bits) != sequential.view(bits)))
            print(f"{name:36} {statistics.median(times[name]):8.3f} "
                  f"{differ:>24} of {whole.size}")
        print(f"worker dmlcpu threads: {sorted(client.run(dmlcpu.get_num_threads).values())}")


if __name__ == "__main__":
    main()
