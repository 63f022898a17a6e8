"""The bounded bench subset that measures the copy policy (docs/decisions.md): the 4-16 MiB copy
cells and one cell per family, at one thread and at all threads, cold and warm, merged into one
JSON. Each piece is an ordinary `python -m dmlcpu bench` run (the commands are kept in the JSON).

    PYTHONPATH=src python3 benchmarks/policy_subset.py benchmarks/results/NAME.json
"""
import json
import os
import sys
import tempfile

from dmlcpu.bench import _main as _bench
from dmlcpu.bench._report import misses

# (filter, widths, sizes)
PIECES = [
    ("SPLIT axis 1 into 4", "4", "1M,2M,4M,8M,16M,32M"),
    ("JOIN 4 axis 1", "1", "2M,4M,8M,16M,32M"),
    ("JOIN 4 axis 2", "1", "4M,16M"),
    ("TILE (r,1,1024) x (1,64,1)", "4", "2M,4M,8M,16M,32M"),
    ("SPLIT axis 2 into [100, 300, 624]", "1", "8M"),
    ("SLICE [:, 1::2, 3:900:3]", "4", "8M"),
    ("SLICE [:, m/8:7m/8, :]", "4", "8M"),
    ("TILE (1,c,32,32) x (8,1,4,4)", "4", "8M"),
    ("CUM_SUM axis 1", "4", "8M"),
    ("CUM_SUM axis 0", "4", "8M"),
    ("CUM_PROD axis 1", "4", "8M"),
]


def main(path):
    merged = None
    commands = []
    for text, widths, sizes in PIECES:
        with tempfile.TemporaryDirectory() as tmp:
            part = os.path.join(tmp, "part.json")
            args = ["--filter", text, "--widths", widths, "--sizes", sizes, "--json", part]
            commands.append("python -m dmlcpu bench " + " ".join(
                repr(a) if " " in a else a for a in args[:-2]))
            if _bench.main(args) not in (0, None):
                raise SystemExit("bench failed: %s" % commands[-1])
            with open(part) as f:
                data = json.load(f)
        if merged is None:
            merged = data
        else:
            merged["rows"] += data["rows"]
    with open("/proc/loadavg") as f:
        merged["loadavg_after"] = f.read().strip()
    merged["command"] = "; ".join(commands)
    with open(path, "w") as f:
        json.dump(merged, f, indent=1)
    print("%d misses of %d rows" % (len(misses(merged["rows"])), len(merged["rows"])))


if __name__ == "__main__":
    main(sys.argv[1])
