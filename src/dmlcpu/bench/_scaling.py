"""python -m dmlcpu bench --scaling: how dmlcpu's pool scales with threads, beside PyTorch and
ONNX Runtime at the same thread counts (docs/scaling.md).

Phases, each saved to the JSON as soon as it ends (a killed run keeps what it measured):
  wake        a call using every thread, timed back to back and after the pool fell asleep
  cpu         CPU seconds per wall second of 1 MiB calls back to back (what small calls burn)
  idle        CPU an idle pool burns over one second after a burst of calls
  concurrent  1, 2, 4, 8 Python threads calling at once, against the same calls made in turn,
              every result checked bit for bit
  ladder      each operator family at each size and thread count: dmlcpu, PyTorch, ONNX
              Runtime on preallocated outputs, dmlcpu and PyTorch on fresh (never touched) ones
The run stops itself at its deadline (--quick: 7 minutes; else 30): the ladder's cells share
what the earlier phases left, and cells past the deadline are not run.
"""
import json
import os
import threading
import time

import numpy as np

import dmlcpu
from . import _cases as _bench_cases
from ._peers import Threads, machine_info, optional

SIZES = {"512K": 1 << 19, "8M": 8 << 20, "64M": 64 << 20, "1G": 1 << 30}
QUICK_SIZES = ("512K", "64M")
# one workload per operator family, float32
FAMILIES = {"SPLIT": "SPLIT axis 1 into 4", "SLICE": "SLICE [:, 1::2, 3:900:3]",
            "JOIN": "JOIN 4 axis 1", "TILE": "TILE (r,1,1024) x (1,64,1)",
            "CUM_SUM": "CUM_SUM axis 1"}
DEADLINE_S = {True: 420.0, False: 1800.0}
LIBRARIES = ("dmlcpu", "torch", "ort")
BATCH_S = 1e-3  # a sample times calls back to back for at least this long


def ladder(cpus):
    """1, 2, 4 ... up to the CPUs, the CPUs, then past them: twice, and at least 32 threads."""
    counts = {cpus, 2 * cpus, max(4 * cpus, 32)}
    n = 1
    while n < cpus:
        counts.add(n)
        n *= 2
    return sorted(c for c in counts if c <= 256)


def _case(family, size):
    return _bench_cases.FAMILIES[FAMILIES[family]](SIZES[size], np.float32, size)


def _split_case(nbytes):
    """A SPLIT of nbytes float32 (inputs and the output list) and its expected outputs."""
    x = np.arange(nbytes // 4, dtype=np.float32).reshape(-1, 64, 256)
    sizes = [16] * 4
    expected = [x[:, i * 16:(i + 1) * 16] for i in range(4)]
    return x, sizes, expected


def _per_call(fn, budget, least=3):
    """Median seconds per call: samples of calls back to back (each at least BATCH_S), for
    `budget` seconds and at least `least` samples."""
    fn()
    start = time.perf_counter()
    fn()
    once = max(time.perf_counter() - start, 1e-7)
    batch = max(1, int(BATCH_S / once))
    samples = []
    end = time.perf_counter() + budget
    while len(samples) < least or time.perf_counter() < end:
        start = time.perf_counter()
        for _ in range(batch):
            fn()
        samples.append((time.perf_counter() - start) / batch)
    samples.sort()
    return samples[len(samples) // 2], samples


def _spread(samples):
    middle = samples[len(samples) // 4:len(samples) - len(samples) // 4] or samples
    return middle[-1] / middle[0]


def phase_wake(counts, budget):
    """A SPLIT of 512 KiB a thread (two 256 KiB chunks each): back to back, and after 20 ms
    asleep; the difference is what waking the pool costs a call."""
    rows = []
    for n in counts:
        x, sizes, _ = _split_case(min(64 << 20, max(2, n) << 19))
        outs = [np.empty((x.shape[0], 16, 256), np.float32) for _ in range(4)]

        def call():
            dmlcpu.split(x, axis=1, output_axis_sizes=sizes, outputs=outs)
        with Threads(n):
            hot, _ = _per_call(call, budget / 2)
            after = []
            end = time.perf_counter() + budget / 2
            while len(after) < 5 or time.perf_counter() < end:
                time.sleep(0.02)
                start = time.perf_counter()
                call()
                after.append(time.perf_counter() - start)
            after.sort()
            cold = after[len(after) // 2]
        rows.append({"threads": n, "bytes": x.nbytes, "back_to_back_us": hot * 1e6,
                     "after_sleep_us": cold * 1e6, "wake_us": (cold - hot) * 1e6})
        print("wake  %3d threads, %5d KiB: back to back %8.1f us, after 20 ms asleep %8.1f us"
              % (n, x.nbytes >> 10, hot * 1e6, cold * 1e6), flush=True)
    return rows


def phase_cpu(counts, budget):
    """CPU seconds per wall second while 1 MiB SPLITs run back to back."""
    x, sizes, _ = _split_case(1 << 20)
    outs = [np.empty((x.shape[0], 16, 256), np.float32) for _ in range(4)]
    rows = []
    for n in counts:
        with Threads(n):
            dmlcpu.split(x, axis=1, output_axis_sizes=sizes, outputs=outs)
            calls, wall0, cpu0 = 0, time.perf_counter(), time.process_time()
            while time.perf_counter() - wall0 < budget:
                dmlcpu.split(x, axis=1, output_axis_sizes=sizes, outputs=outs)
                calls += 1
            wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
        rows.append({"threads": n, "calls": calls, "us_per_call": wall / calls * 1e6,
                     "cpu_per_wall": cpu / wall})
        print("cpu   %3d threads: 1 MiB calls %7.1f us each, %.2f CPU s per wall s"
              % (n, wall / calls * 1e6, cpu / wall), flush=True)
    return rows


def phase_idle(counts):
    """CPU milliseconds the process burns over one idle second right after 50 calls."""
    x, sizes, _ = _split_case(16 << 20)
    outs = [np.empty((x.shape[0], 16, 256), np.float32) for _ in range(4)]
    rows = []
    for n in counts:
        with Threads(n):
            for _ in range(50):
                dmlcpu.split(x, axis=1, output_axis_sizes=sizes, outputs=outs)
            cpu0 = time.process_time()
            time.sleep(1.0)
            cpu = time.process_time() - cpu0
        rows.append({"threads": n, "idle_cpu_ms_per_s": cpu * 1e3})
        print("idle  %3d threads: %.1f ms CPU over an idle second" % (n, cpu * 1e3), flush=True)
    return rows


def phase_concurrent(budget):
    """k Python threads each making `calls` 8 MiB SPLITs at once, against the same calls in
    turn (the pool at its default size); every output checked against the expected bytes."""
    x, sizes, expected = _split_case(8 << 20)
    rows = []
    for k in (1, 2, 4, 8):
        outs = [[np.empty((x.shape[0], 16, 256), np.float32) for _ in range(4)]
                for _ in range(k)]
        calls = 20
        wrong = []

        def work(i):
            for _ in range(calls):
                for o in outs[i]:
                    o.fill(-1)
                dmlcpu.split(x, axis=1, output_axis_sizes=sizes, outputs=outs[i])
                if not all(np.array_equal(o, e) for o, e in zip(outs[i], expected)):
                    wrong.append(i)

        def together():
            threads = [threading.Thread(target=work, args=(i,)) for i in range(k)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()

        def in_turn():
            for i in range(k):
                work(i)
        times = {"concurrent": [], "in_turn": []}
        end = time.perf_counter() + budget
        while len(times["in_turn"]) < 3 or time.perf_counter() < end:
            for name, fn in (("concurrent", together), ("in_turn", in_turn)):
                start = time.perf_counter()
                fn()
                times[name].append(time.perf_counter() - start)
        med = {name: sorted(v)[len(v) // 2] for name, v in times.items()}
        rows.append({"callers": k, "calls_each": calls, "concurrent_s": med["concurrent"],
                     "in_turn_s": med["in_turn"], "ratio": med["in_turn"] / med["concurrent"],
                     "exact": not wrong})
        print("concurrent %d callers x %d calls: together %.1f ms, in turn %.1f ms, exact: %s"
              % (k, calls, med["concurrent"] * 1e3, med["in_turn"] * 1e3, not wrong), flush=True)
    return rows


def _library_fns(case, ins, outs, threads):
    """{library: callable} on preallocated outputs, at `threads` threads."""
    fns = {"dmlcpu": case.builders["dmlcpu"](ins, outs)}
    if optional("torch") is not None and "torch" in case.builders:
        fns["torch"] = case.builders["torch"](ins, outs)
    if case.builders.get("ort") is not None:
        fn = case.builders["ort"](ins, outs, threads)
        if fn is not None:
            fns["ort"] = fn
    return fns


def _fresh_fns(case, ins):
    """{library: callable} writing into outputs allocated for each call (first touched by the
    call): dmlcpu and PyTorch."""
    def fresh(builder):
        def run():
            builder(ins, [np.empty(s, case.dtype) for s in case.out_shapes])()
        return run
    fns = {"dmlcpu": fresh(case.builders["dmlcpu"])}
    if optional("torch") is not None and "torch" in case.builders:
        fns["torch"] = fresh(case.builders["torch"])
    return fns


def _checked(fns, outs, expected, notes, name):
    """The libraries whose result equals dmlcpu's (others dropped with a note)."""
    kept = {}
    for lib, fn in fns.items():
        for o in outs:
            o.view(np.uint8).fill(0x5A)
        fn()
        if all(np.array_equal(o.view(np.uint8), e.view(np.uint8)) for o, e in zip(outs, expected)):
            kept[lib] = fn
        else:
            notes.append("%s: %s dropped (its result differs from dmlcpu's)" % (name, lib))
    return kept


def phase_ladder(counts, sizes, deadline, save, notes):
    rows = []
    cells = len(FAMILIES) * len(sizes) * len(counts)
    done = 0
    for family in FAMILIES:
        for size in sizes:
            if time.perf_counter() > deadline:
                notes.append("deadline: %s %s and later cells not run" % (family, size))
                return rows
            case = _case(family, size)
            ins = case.inputs
            outs = [np.empty(s, case.dtype) for s in case.out_shapes]
            case.builders["dmlcpu"](ins, outs)()
            expected = [o.copy() for o in outs]
            nbytes = case.read + case.written
            for n in counts:
                left = deadline - time.perf_counter()
                if left <= 0:
                    notes.append("deadline: %s %s from %d threads not run" % (family, size, n))
                    break
                budget = max(0.05, min(1.0, left / max(1, cells - done) / 5))
                with Threads(n):
                    fns = _checked(_library_fns(case, ins, outs, n), outs, expected, notes,
                                   case.name)
                    fresh = _fresh_fns(case, ins)
                    row = {"family": family, "name": case.name, "size": size, "bytes": nbytes,
                           "threads": n, "seconds": {}, "fresh_seconds": {}, "spread": {}}
                    for lib, fn in fns.items():
                        sec, samples = _per_call(fn, budget)
                        row["seconds"][lib] = sec
                        row["spread"][lib] = _spread(samples)
                    for lib, fn in fresh.items():
                        row["fresh_seconds"][lib] = _per_call(fn, budget)[0]
                done += 1
                rows.append(row)
                print("%-8s %4s %3d threads: %s | fresh %s" % (
                    family, size, n,
                    " ".join("%s %.2f GB/s" % (lib, nbytes / s / 1e9)
                             for lib, s in row["seconds"].items()),
                    " ".join("%s %.2f GB/s" % (lib, nbytes / s / 1e9)
                             for lib, s in row["fresh_seconds"].items())), flush=True)
            save()
            del case, ins, outs, expected
    return rows


def plot(data, directory):
    """One PNG per family: GB/s against threads, a panel per size, a line per library (dashed:
    fresh outputs)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    paths = []
    cpus = data["machine"].get("cores")
    for family in FAMILIES:
        rows = [r for r in data.get("ladder", []) if r["family"] == family]
        if not rows:
            continue
        sizes = [s for s in SIZES if any(r["size"] == s for r in rows)]
        fig, axes = plt.subplots(1, len(sizes), figsize=(4.5 * len(sizes), 3.6), squeeze=False)
        for ax, size in zip(axes[0], sizes):
            cell = sorted((r for r in rows if r["size"] == size), key=lambda r: r["threads"])
            for key, style in (("seconds", "-o"), ("fresh_seconds", "--x")):
                for lib in LIBRARIES:
                    points = [(r["threads"], r["bytes"] / r[key][lib] / 1e9)
                              for r in cell if lib in r[key]]
                    if points:
                        label = lib + (" (fresh output)" if key == "fresh_seconds" else "")
                        ax.plot(*zip(*points), style, label=label)
            if cpus:
                ax.axvline(cpus, color="grey", lw=0.8, ls=":")
            ax.set_xscale("log", base=2)
            ax.set_title("%s %s" % (family, size))
            ax.set_xlabel("threads (dotted: CPUs)")
            ax.set_ylabel("GB/s")
        axes[0][0].legend(fontsize=7)
        fig.tight_layout()
        path = os.path.join(directory, "scaling-%s.png" % family.lower())
        fig.savefig(path, dpi=90)
        plt.close(fig)
        paths.append(path)
    return paths


def main(args, argv):
    start = time.perf_counter()
    deadline = start + DEADLINE_S[bool(args.quick)]
    cpus = os.cpu_count() or 1
    if hasattr(os, "sched_getaffinity"):
        cpus = len(os.sched_getaffinity(0))
    counts = [int(t) if t.strip() != "all" else dmlcpu.get_num_threads()
              for t in args.threads.split(",")] if args.threads else ladder(cpus)
    sizes = QUICK_SIZES if args.quick else tuple(SIZES)
    quick = bool(args.quick)
    notes = []
    data = {"machine": machine_info(counts), "command": "python -m dmlcpu bench " + " ".join(argv),
            "default_threads": dmlcpu.get_num_threads(), "usable_cpus": cpus,
            "thread_counts": counts, "sizes": list(sizes), "notes": notes, "phases": []}

    def save():
        if args.json:
            data["elapsed_s"] = time.perf_counter() - start
            with open(args.json, "w", encoding="utf-8") as f:
                json.dump(data, f, indent=1)
    print("scaling: threads %s, sizes %s, deadline %.0f s; machine %s, %d usable CPUs, "
          "default %d threads" % (counts, list(sizes), deadline - start, data["machine"]["cpu"],
                                  cpus, data["default_threads"]), flush=True)
    small = 0.2 if quick else 0.5
    for name, run in (("wake", lambda: phase_wake(counts, small)),
                      ("cpu", lambda: phase_cpu(counts, small)),
                      ("idle", lambda: phase_idle(counts)),
                      ("concurrent", lambda: phase_concurrent(small)),
                      ("ladder", lambda: phase_ladder(counts, sizes, deadline, save, notes))):
        if time.perf_counter() > deadline:
            notes.append("deadline: phase %s not run" % name)
            continue
        data[name] = run()
        data["phases"].append(name)
        save()
    for note in notes:
        print("note: " + note)
    if args.plot:
        for path in plot(data, args.plot):
            print("wrote " + path)
    if args.json:
        print("wrote " + args.json)
    return 0
