"""Running one benchmark case: every peer on its own buffers, checked, then timed at each thread
count in both protocols."""
import time

import numpy as np

from ._bench_peers import Threads, optional
from ._bench_timing import PROTOCOLS, memcpy_of, paired, spread

PEERS = ("dmlcpu", "memcpy", "numpy", "torch", "ort")
SINGLE_THREADED = ("memcpy", "numpy")  # timed at one thread only
# A peer whose first call takes this long and this many times dmlcpu's is timed by that call
# alone (row["one_call"]): its rounds would take minutes, and the ratio is clear anyway.
SLOW_SECONDS, SLOW_FACTOR = 0.25, 20


def _same_bytes(a_outs, b_outs):
    return all(np.array_equal(a.view(np.uint8), b.view(np.uint8)) for a, b in zip(a_outs, b_outs))


def _peer_fns(case, threads, notes, first_call=None):
    """{peer: callable} for one thread count; each peer has its own buffers, its first call's
    outputs checked against dmlcpu's (and its seconds put in first_call). A peer lacking the op
    is dropped with a note; dmlcpu disagreeing with NumPy is a bug and raises."""
    first_call = {} if first_call is None else first_call
    store = case.__dict__.setdefault("_peer_buffers", {})

    def buffers(peer):
        if peer not in store:
            store[peer] = case.buffers()
        return store[peer]
    fns = {}
    for peer in PEERS:
        if peer in SINGLE_THREADED and threads != 1:
            continue
        if peer == "memcpy":
            fns[peer] = memcpy_of(case.written)
            continue
        builder = case.builders.get(peer)
        if builder is None or peer == "torch" and optional("torch") is None:
            continue
        ins, outs = buffers(peer)
        try:
            fn = builder(ins, outs, threads) if peer == "ort" else builder(ins, outs)
            if fn is None:
                continue
            start = time.perf_counter()
            fn()
            first_call[peer] = time.perf_counter() - start
        except Exception as exc:  # noqa: BLE001 - a peer without this op/type is skipped
            if peer == "dmlcpu":
                raise
            notes.append("%s: %s skipped (%s)" % (case.name, peer, type(exc).__name__))
            continue
        if peer != "dmlcpu" and not _same_bytes(outs, buffers("dmlcpu")[1]):
            if peer == "numpy":
                raise AssertionError("dmlcpu's result differs from NumPy's on " + case.name)
            notes.append("%s: %s skipped (its result differs)" % (case.name, peer))
            continue
        fns[peer] = fn
    return fns


def run_case(case, thread_counts, budget, min_rounds, notes, progress=None):
    """Rows {family, name, dtype, width, size, bytes, threads, protocol, seconds{peer} (medians),
    paired{peer} (the median over rounds of the peer's time / dmlcpu's), one_call (peers timed by
    their first call alone), spread}."""
    rows = []
    for threads in thread_counts:
        with Threads(threads):
            first_call = {}
            fns = _peer_fns(case, threads, notes, first_call)
            slow = sorted(p for p in fns if p != "dmlcpu" and first_call.get(p, 0) > SLOW_SECONDS
                          and first_call[p] > SLOW_FACTOR * first_call["dmlcpu"])
            names = [p for p in fns if p not in slow]
            for protocol, timer in PROTOCOLS.items():
                if progress:
                    progress("%s, %d thread(s), %s" % (case.name, threads, protocol))
                # a call moving 100 MiB or more takes tens of ms: 3 rounds keep the bench short
                rounds = min(min_rounds, 3) if case.read + case.written >= 100 << 20 else min_rounds
                medians, samples = timer([fns[n] for n in names], budget, rounds)
                mine = names.index("dmlcpu")
                together = {n: paired(samples, i, mine) for i, n in enumerate(names) if i != mine}
                alone = {p: first_call[p] / first_call["dmlcpu"] for p in slow}
                rows.append({
                    "family": case.family, "name": case.name, "dtype": case.dtype.name,
                    "width": case.dtype.itemsize, "size": case.size_label,
                    "bytes": case.read + case.written, "written": case.written,
                    "threads": threads, "protocol": protocol,
                    "seconds": dict(zip(names, medians), **{p: first_call[p] for p in slow}),
                    "paired": dict(together, **alone),
                    "one_call": slow, "spread": spread(samples[mine])})
    case.__dict__.pop("_peer_buffers", None)
    return rows
