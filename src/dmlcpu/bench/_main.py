"""python -m dmlcpu bench: dmlcpu beside NumPy, PyTorch and ONNX Runtime at equal thread counts.

Every operator family at every data width (1, 2, 4, 8 bytes) and at sizes from inside L2 to well
beyond the last-level cache, each peer in its fastest form on preallocated buffers (every peer
taking the same buffer sets in turn), timed in two protocols: cold (rounds interleaved, their
orders a balanced Latin square) and warm (calls back to back), at one thread and at all threads.
Speeds are GB/s over the ideal bytes (every input byte read once, every output byte written
once); ratios are the best peer's time over dmlcpu's in the same round, the median over the
rounds (above 1: dmlcpu faster).

    python -m dmlcpu bench --quick
    python -m dmlcpu bench --json benchmarks/results/bench.json --plot benchmarks/results/plots \\
        --table benchmarks/results/bench.md --markdown-into docs/performance.md   # docs/performance.md's full run
    python -m dmlcpu bench --from benchmarks/results/bench.json --markdown   # render a saved run
"""
import argparse
import json
import os
import sys

import dmlcpu
from . import _cases as _bench_cases, _report as _bench_report
from ._peers import machine_info, missing_peer_notes, optional
from ._run import run_case
from ._seed import run_seed, seed_table
from ._timing import measure, memcpy_of  # noqa: F401 - used by benchmarks/*.py

# How the numbers were taken, kept with them in the JSON (the report words its notes by these).
PROTOCOL_NOTES = {
    "cold": "rounds interleaved, one call per sample, in the orders of a balanced Latin square "
            "(each library after every other equally often), its libraries relabeled at random "
            "(seeded) every n + 1 cycles",
    "warm": "calls of one library back to back, after one untimed call",
    "ratios": "paired: the median over rounds of a peer's time / dmlcpu's in the same round",
    "buffers": "shared sets in turn: the protocol's c-th call takes set c % (peers + 1), under "
               "100 MiB moved; one set above"}


def _parser():
    p = argparse.ArgumentParser(prog="python -m dmlcpu bench",
                                description=__doc__.split("\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="\n".join(__doc__.split("\n")[1:]))
    p.add_argument("--quick", action="store_true",
                   help="a subset (2 widths, 3 sizes, 5 families) with short timings (< 1 min)")
    p.add_argument("--json", metavar="PATH", help="write the machine and every row as JSON")
    p.add_argument("--table", metavar="PATH", help="write every row as a Markdown table (the "
                   "Performance section links to it); only files named are written")
    p.add_argument("--plot", metavar="DIR", help="one PNG per operator family (matplotlib)")
    p.add_argument("--markdown", action="store_true",
                   help="print docs/performance.md's generated section for this run")
    p.add_argument("--markdown-into", metavar="PAGE", help="replace the section between "
                   "'%s' and '%s' in this file" % (_bench_report.BEGIN, _bench_report.END))
    p.add_argument("--from", dest="source", metavar="JSON",
                   help="render a saved run (--markdown, --markdown-into, --plot) without running")
    p.add_argument("--filter", metavar="TEXT", help="only workloads whose name contains TEXT")
    p.add_argument("--threads", metavar="N,M", help="thread counts (default: 1 and all)")
    p.add_argument("--sizes", metavar="S,T", help="sizes among %s (default: all; --quick: %s)"
                   % (",".join(_bench_cases.SIZES), ",".join(_bench_cases.QUICK["sizes"])))
    p.add_argument("--widths", metavar="W,V", help="element widths in bytes among 1,2,4,8 "
                   "(default: all; --quick: 1,4)")
    p.add_argument("--scaling", action="store_true", help="the thread-scaling bench instead "
                   "(docs/scaling.md): --threads, --json, --plot and --quick apply")
    p.add_argument("--numpy", action="store_true", help="dmlcpu.numpy (the NumPy drop-in) "
                   "against NumPy on its target workloads (--threads, --filter, --budget)")
    p.add_argument("--budget", type=float, metavar="S", help="seconds per protocol and thread "
                   "count per workload (default 0.4; --quick 0.08)")
    return p


def _writable_file(path):
    """Why `path` cannot be written, or None. Creates nothing that was not there."""
    existed = os.path.exists(path)
    try:
        with open(path, "a"):
            pass
    except OSError as exc:
        return str(exc)
    if not existed:
        os.remove(path)
    return None


def _check_outputs(args):
    """Every place the run will write, checked before anything runs (a full run takes minutes;
    its results must not be lost to a typo)."""
    problems = []
    named = {}
    for flag, path in (("--from", args.source), ("--json", args.json), ("--table", args.table),
                       ("--markdown-into", args.markdown_into)):
        if path:
            real = os.path.realpath(path)
            if real in named:
                problems.append("%s %s names the same file as %s" % (flag, path, named[real]))
            named.setdefault(real, flag)
    if problems:
        return problems  # checking would create or open the files
    if args.table:
        why = _writable_file(args.table)
        if why:
            problems.append("--table %s: %s" % (args.table, why))
    if args.json:
        why = _writable_file(args.json)
        if why:
            problems.append("--json %s: %s" % (args.json, why))
    if args.plot:
        if optional("matplotlib") is None:
            problems.append("--plot needs matplotlib (pip install matplotlib)")
        try:
            os.makedirs(args.plot, exist_ok=True)
        except OSError as exc:
            problems.append("--plot %s: %s" % (args.plot, exc))
        else:
            if not os.access(args.plot, os.W_OK):
                problems.append("--plot %s: the directory is not writable" % args.plot)
    if args.markdown_into:
        try:
            if not _bench_report.has_section(args.markdown_into):
                problems.append("--markdown-into %s: no '%s' ... '%s' section to replace" % (
                    args.markdown_into, _bench_report.BEGIN, _bench_report.END))
            else:
                why = _writable_file(args.markdown_into)
                if why:
                    problems.append("--markdown-into %s: %s" % (args.markdown_into, why))
        except OSError as exc:
            problems.append("--markdown-into %s: %s" % (args.markdown_into, exc))
    if args.source:
        try:
            with open(args.source):
                pass
        except OSError as exc:
            problems.append("--from %s: %s" % (args.source, exc))
    return problems


def _choice(text):
    return text.split(",") if text else None


def _check_choices(args):
    problems = []
    for flag, given, known in (("--sizes", args.sizes, list(_bench_cases.SIZES)),
                               ("--widths", args.widths, [str(w) for w in _bench_cases.DTYPES])):
        unknown = [v for v in _choice(given) or [] if v not in known]
        if unknown:
            problems.append("%s: %s not among %s" % (flag, ",".join(unknown), ",".join(known)))
    bad = [t for t in _choice(args.threads) or []
           if t.strip() != "all" and not (t.strip().isdigit() and 1 <= int(t) <= 256)]
    if bad:
        problems.append("--threads: %s not 'all' or a count from 1 to 256" % ",".join(bad))
    return problems


def _thread_counts(text):
    everyone = dmlcpu.get_num_threads()
    if not text:
        return [1, everyone] if everyone > 1 else [1]
    return [everyone if t.strip() == "all" else int(t) for t in text.split(",")]


class _Progress:
    """A progress line on stderr (rewritten in place on a terminal)."""

    def __init__(self, total):
        self.total, self.done = total, 0
        self.tty = sys.stderr.isatty()

    def __call__(self, text):
        line = "[%d/%d] %s" % (self.done + 1, self.total, text)
        if self.tty:
            sys.stderr.write("\r\033[K" + line[:150])
        else:
            sys.stderr.write(line + "\n")
        sys.stderr.flush()

    def close(self):
        if self.tty:
            sys.stderr.write("\r\033[K")


def run(args, argv):
    threads = _thread_counts(args.threads)
    budget = args.budget or (0.08 if args.quick else 0.4)
    min_rounds = 3 if args.quick else 5
    info = machine_info(threads)
    notes = missing_peer_notes()
    print("machine: " + _bench_report.machine_text({"machine": info}))
    print("threads: %s; protocols: cold (interleaved rounds), warm (back to back); x = best "
          "peer's time / dmlcpu's, median of the per-round ratios (above 1: dmlcpu faster)"
          % threads)
    for note in notes:
        print("note: " + note)
    sizes, widths = _choice(args.sizes), _choice(args.widths)
    todo = [c for c in _bench_cases.cases(args.quick, sizes, widths and [int(w) for w in widths])
            if not args.filter or args.filter in
            "%s %s %s" % (c[0], _bench_cases.DTYPES[c[1]].__name__, c[2])]
    progress = _Progress(len(todo))
    rows = []
    for family, width, size, make in todo:
        case = make()
        found = run_case(case, threads, budget, min_rounds, notes, progress)
        progress.close()
        print("%s [%s]" % (case.name, size))
        for n in threads:
            print(_bench_report.text_line([r for r in found if r["threads"] == n]), flush=True)
        rows += found
        progress.done += 1
        del case
    seed = run_seed(budget, min_rounds, args.filter)
    progress.close()
    if seed:
        print("\n".join(seed_table(seed)))
    for note in notes[len(missing_peer_notes()):]:
        print("note: " + note)
    return {"machine": info, "command": "python -m dmlcpu bench " + " ".join(argv),
            "protocols": PROTOCOL_NOTES,
            "notes": notes, "rows": rows, "seed_rows": seed}


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    args = _parser().parse_args(argv)
    problems = _check_choices(args) + _check_outputs(args)
    if problems:
        for problem in problems:
            print("bench: " + problem, file=sys.stderr)
        return 2
    if args.scaling:
        from . import _scaling as _bench_scaling
        return _bench_scaling.main(args, argv)
    if args.numpy:
        from . import _numpy as _bench_numpy  # imports dmlcpu.numpy: only for this flag
        return _bench_numpy.main(args)
    if args.source:
        try:
            data = _load_run(args.source)
            texts = _render(args, data)
        except _NotARun as exc:
            print("bench: --from %s: not a saved bench run: %s" % (args.source, exc),
                  file=sys.stderr)
            return 2
    else:
        data = run(args, argv)
        texts = _render(args, data)
    for path, text in texts:
        if path is None:
            print(text, end="")
        elif path == args.markdown_into:
            _bench_report.replace_section(path, text)
        else:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
    return 0


class _NotARun(ValueError):
    """A --from file that is not a saved run."""


def _load_run(path):
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (ValueError, RecursionError) as exc:  # not JSON, not UTF-8 (both ValueErrors)
        raise _NotARun(" ".join(str(exc).split())[:200]) from None
    if not (isinstance(data, dict) and isinstance(data.get("machine"), dict)
            and isinstance(data.get("rows"), list)):
        raise _NotARun("expected an object with 'machine' and 'rows'")
    return data


def _render(args, data):
    """[(path or None for stdout, text)] of every output, rendered before any is written (and
    the plots drawn), so a saved run that cannot be rendered leaves no file half-made."""
    try:
        texts = []
        if args.json:
            texts.append((args.json, json.dumps(data, indent=1)))
        if args.table:
            texts.append((args.table, "\n".join(_bench_report.full_table(data["rows"])) + "\n"))
        if args.markdown or args.markdown_into:
            full = args.table or (os.path.splitext(args.source)[0] + ".md" if args.source
                                  else None)
            section = _bench_report.markdown(data, args.plot, full,
                                             os.path.dirname(args.markdown_into or "") or ".")
            if data.get("seed_rows"):
                section = section.replace(_bench_report.END, "\n".join(
                    [""] + seed_table(data["seed_rows"]) + [_bench_report.END]))
            if args.markdown:
                texts.append((None, section))
            if args.markdown_into:
                texts.append((args.markdown_into, section))
        if args.plot:
            for path in _bench_report.plot(data["rows"], args.plot):
                print("wrote " + path)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError,
            ZeroDivisionError) as exc:
        if not args.source:
            raise  # a live run's data: a bug, not the user's file
        raise _NotARun("%s %s" % (type(exc).__name__, " ".join(str(exc).split())[:200])) \
            from None
    return texts


if __name__ == "__main__":
    sys.exit(main())
