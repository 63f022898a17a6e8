"""What each call of the bench's warm batches costs, library by library, in the bench's own
rotation: the same case, peers, buffer sets and round orders as `python -m dmlcpu bench`, every
call timed on its own. Run with PYTHONPATH=src:

    python benchmarks/bench_batch_calls.py --family "TILE (1,c" [--size 8M] [--width 4]
                                           [--threads 1] [--budget 3]

Prints, per library, the median time of each position in a batch over the rounds (position 0 is
the protocol's untimed call, which finds the buffer set as other libraries' work left it), then
the mean of the timed positions: what the warm protocol reports. It tells a library whose later
calls find their output cached from one that runs at one speed throughout (NOTES.md in git,
sixteenth session).
"""
import argparse
import collections
import itertools
import time

import numpy as np

from dmlcpu.bench import _cases as _bench_cases, _run as _bench_run, _timing as _bench_timing


def recorded_peer_fns(log):
    """_bench_run._peer_fns with every callable appending (peer, seconds) to log per call."""
    plain = _bench_run._peer_fns

    def peer_fns(case, threads, notes, first_call=None, sets=1):
        def timed(peer, fn):
            def call():
                start = time.perf_counter()
                fn()
                log.append((peer, time.perf_counter() - start))
            return call
        fns = plain(case, threads, notes, first_call, sets)
        return {peer: [timed(peer, fn) for fn in alts] for peer, alts in fns.items()}
    return peer_fns


def batches(log):
    """{peer: [[seconds per call] per batch]}: the warm protocol runs one library's calls together
    (its set-up, then each round's untimed call and batch), so each run of one peer's calls in the
    log is one group. Single calls (the result checks) and each peer's first group (the set-up:
    every buffer set once) are dropped, and so are the rare runs where one round ended and the
    next began with the same library (two batches as one group): every batch has the commonest
    length."""
    groups = {}
    for peer, run in itertools.groupby(log, key=lambda entry: entry[0]):
        calls = [seconds for _, seconds in run]
        if len(calls) > 1:
            groups.setdefault(peer, []).append(calls)
    lengths = collections.Counter(len(g) for found in groups.values() for g in found[1:])
    batch = lengths.most_common(1)[0][0]
    return {peer: [g for g in found[1:] if len(g) == batch] for peer, found in groups.items()}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--family", required=True, help="the start of a bench family's name")
    p.add_argument("--size", default="8M", choices=list(_bench_cases.SIZES))
    p.add_argument("--width", type=int, default=4, choices=list(_bench_cases.DTYPES))
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--budget", type=float, default=3.0, help="seconds of warm rounds")
    args = p.parse_args()
    family = next((f for f in _bench_cases.FAMILIES if f.startswith(args.family)), None)
    if family is None:
        p.error("no bench family starts with %r" % args.family)
    case = _bench_cases.FAMILIES[family](_bench_cases.SIZES[args.size],
                                         _bench_cases.DTYPES[args.width], args.size)
    log = []
    _bench_run._peer_fns = recorded_peer_fns(log)
    _bench_run.PROTOCOLS = {"warm": _bench_timing.warm}
    row = _bench_run.run_case(case, [args.threads], args.budget, 5, [])[0]
    print("%s, %d thread(s), warm: us per call by position in the batch (0: untimed), median "
          "over rounds | mean of the timed ones" % (case.name, args.threads))
    for peer, groups in batches(log).items():
        medians = np.median(np.array(groups), axis=0) * 1e6
        shown = ["%5.0f" % m for m in medians]
        if len(shown) > 10:  # small calls come in batches of hundreds
            shown = shown[:8] + ["..."] + shown[-1:]
        print("%-8s %s | %.0f   (%d batches)" % (peer, " ".join(shown), medians[1:].mean(),
                                                  len(groups)))
    print("the bench's ratios (best peer's time / dmlcpu's, paired):",
          {peer: round(r, 3) for peer, r in row["paired"].items()})


if __name__ == "__main__":
    main()
