"""The operator benchmark (same as ``python -m dmlcpu bench``); run with PYTHONPATH=src.

    python benchmarks/bench_ops.py --quick [--json FILE] [--plot FILE.png] [--filter TEXT]
"""
import sys

from dmlcpu.bench._main import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
