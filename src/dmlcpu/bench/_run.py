"""Running one benchmark case: every peer on the same buffer sets in turn, checked, then timed at
each thread count in both protocols."""
import time

import numpy as np

from ._peers import Threads, optional
from ._timing import PROTOCOLS, memcpy_of, paired, spread

PEERS = ("dmlcpu", "memcpy", "numpy", "torch", "ort")
SINGLE_THREADED = ("memcpy", "numpy")  # timed at one thread only
# A peer whose first call takes this long and this many times dmlcpu's is timed by that call
# alone (row["one_call"]): its rounds would take minutes, and the ratio is clear anyway.
SLOW_SECONDS, SLOW_FACTOR = 0.25, 20
# Calls moving this much or more: 3 rounds keep the bench short, and one buffer set is enough
# (a 128 MiB buffer spans 64 huge pages: where each lands averages out inside one call).
LARGE_BYTES = 100 << 20
SENTINEL = 0x5A


def _same_bytes(a_outs, b_outs):
    return all(np.array_equal(a.view(np.uint8), b.view(np.uint8)) for a, b in zip(a_outs, b_outs))


def _peer_fns(case, threads, notes, first_call=None, sets=1):
    """{peer: [callable per buffer set]} for one thread count. Every peer runs on the same `sets`
    buffer sets (the timers rotate through them: _timing); its first call, on set 0 with
    the outputs filled with a sentinel first, is checked against dmlcpu's result (and its seconds
    put in first_call). A peer lacking the op is dropped with a note; dmlcpu disagreeing with
    NumPy is a bug and raises."""
    first_call = {} if first_call is None else first_call
    store = case.__dict__.setdefault("_peer_buffers", [])
    while len(store) < sets:
        store.append(case.buffers())
    expected = None
    fns = {}
    for peer in PEERS:
        if peer in SINGLE_THREADED and threads != 1:
            continue
        if peer == "memcpy":
            fns[peer] = [memcpy_of(case.written) for _ in range(sets)]
            continue
        builder = case.builders.get(peer)
        if builder is None or peer == "torch" and optional("torch") is None:
            continue
        outs = store[0][1]
        try:
            alternatives = [builder(i, o, threads) if peer == "ort" else builder(i, o)
                            for i, o in store[:sets]]
            if alternatives[0] is None:
                continue
            for out in outs:
                out.view(np.uint8).fill(SENTINEL)
            start = time.perf_counter()
            alternatives[0]()
            first_call[peer] = time.perf_counter() - start
        except Exception as exc:  # noqa: BLE001 - a peer without this op/type is skipped
            if peer == "dmlcpu":
                raise
            notes.append("%s: %s skipped (%s)" % (case.name, peer, type(exc).__name__))
            continue
        if peer == "dmlcpu":
            expected = [out.copy() for out in outs]
        elif not _same_bytes(outs, expected):
            if peer == "numpy":
                raise AssertionError("dmlcpu's result differs from NumPy's on " + case.name)
            notes.append("%s: %s skipped (its result differs)" % (case.name, peer))
            continue
        fns[peer] = alternatives
    return fns


def run_case(case, thread_counts, budget, min_rounds, notes, progress=None):
    """Rows {family, name, dtype, width, size, bytes, threads, protocol, seconds{peer} (medians),
    paired{peer} (the median over rounds of the peer's time / dmlcpu's), one_call (peers timed by
    their first call alone), spread}."""
    rows = []
    large = case.read + case.written >= LARGE_BYTES
    for threads in thread_counts:
        with Threads(threads):
            first_call = {}
            # one set more than peers: consecutive calls never share one (_timing)
            fns = _peer_fns(case, threads, notes, first_call, 1 if large else len(PEERS) + 1)
            slow = sorted(p for p in fns if p != "dmlcpu" and first_call.get(p, 0) > SLOW_SECONDS
                          and first_call[p] > SLOW_FACTOR * first_call["dmlcpu"])
            names = [p for p in fns if p not in slow]
            sets = 1 if large else len(names) + 1
            for protocol, timer in PROTOCOLS.items():
                if progress:
                    progress("%s, %d thread(s), %s" % (case.name, threads, protocol))
                rounds = min(min_rounds, 3) if large else min_rounds
                medians, samples = timer([fns[n][:sets] for n in names], budget, rounds)
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
