"""A/B of one tuning knob: the same dmlcpu call at several settings, in one process, interleaved,
in both protocols, every setting taking the same buffer sets in turn (one more set than settings:
dmlcpu.bench._timing; with a set per setting, where a set's huge pages landed moved an 8 MiB call
by up to 25%). Run with PYTHONPATH=src:

    python benchmarks/bench_ab.py --knob stream --values auto,4M,off [--sizes 8M,32M,128M]
                                  [--families "JOIN 4 axis 1;..."] [--threads 1,2]
    python benchmarks/bench_ab.py --knob string_copy_bytes --values auto,0 \
        --families "TILE (r,1,1024) x (1,64,1)" --sizes 4M,8M,16M
    python benchmarks/bench_ab.py --knob tile --values auto,off --families "TILE (r,1,1024) x (1,64,1)"

Knobs: ``stream``, the streaming threshold as DMLCPU_STREAM_THRESHOLD sets it (bytes moved a
thread; "off" never streams); any tuning value by its name (``python -m dmlcpu info`` lists them;
docs/decisions.md says what each does), set as DMLCPU_TUNE would set it; ``tile``, TILE's test
limit (``_core._set_tile_limit``; "off": every output doubled in place). "auto" is the derived
setting. Prints, per case, milliseconds per call at each setting and the first setting's time
over it (above 1: that setting is faster). The commands in docs/decisions.md re-measure its
entries with it.
"""
import argparse

import dmlcpu
from dmlcpu import _core
from dmlcpu.bench import _cases as _bench_cases
from dmlcpu.bench._timing import PROTOCOLS, paired


def parse_size(text):
    if text == "off":
        return 1 << 62
    if text == "auto":
        return -1
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1], 1)
    return int(text.rstrip("KMG")) * scale


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--knob", choices=("stream", "tile") + tuple(_core._tuning()), default="stream")
    p.add_argument("--values", default="auto,4M,off")
    p.add_argument("--sizes", default="8M,32M,128M")
    p.add_argument("--widths", default="1,4")
    p.add_argument("--families", default="SPLIT axis 1 into 4;SPLIT axis 2 into [100, 300, 624];"
                   "JOIN 4 axis 1;JOIN 4 axis 2;SLICE [:, m/8:7m/8, :];"
                   "TILE (1,c,32,32) x (8,1,4,4);TILE (r,1,1024) x (1,64,1);CUM_SUM axis 0")
    p.add_argument("--threads", default="1,2")
    p.add_argument("--budget", type=float, default=1.0)
    args = p.parse_args()
    thresholds = args.values.split(",")
    setter = {"stream": _core._set_stream_threshold, "tile": _core._set_tile_limit}.get(
        args.knob, lambda value: _core._set_tune(args.knob, value))
    print("derived: %s" % ", ".join("%s=%d" % (name, value)
                                     for name, (value, _) in _core._tuning().items()))
    for family in args.families.split(";"):
        for width in (int(w) for w in args.widths.split(",")):
            for size in args.sizes.split(","):
                case = _bench_cases.FAMILIES[family](parse_size(size), _bench_cases.DTYPES[width],
                                                     size)
                sets = [case.buffers() for _ in range(len(thresholds) + 1)]
                fns = []
                for t in thresholds:
                    alternatives = []
                    for ins, outs in sets:
                        value = parse_size(t)

                        def fn(run=case.builders["dmlcpu"](ins, outs), value=value):
                            setter(value)
                            run()
                        alternatives.append(fn)
                    fns.append(alternatives)
                for threads in (int(n) for n in args.threads.split(",")):
                    dmlcpu.set_num_threads(threads)
                    cells = []
                    for protocol, timer in PROTOCOLS.items():
                        medians, samples = timer(fns, args.budget)
                        cells.append("%s %s" % (protocol, " ".join(
                            "%s %.3f ms (%.2f)" % (t, m * 1e3, paired(samples, 0, i))
                            for i, (t, m) in enumerate(zip(thresholds, medians)))))
                    print("%-60s %4s %d thr | %s" % (case.name, size, threads, " | ".join(cells)),
                          flush=True)
                setter(-1)


if __name__ == "__main__":
    main()
