"""python -m dmlcpu COMMAND: the command-line entry points.

Each command lives in its own module with a ``main(argv) -> int`` function, imported only when
chosen so ``python -m dmlcpu validate`` does not pay for the benchmark's imports.
"""
import importlib
import sys

COMMANDS = {
    "bench": ("dmlcpu.bench._main", "time every operator beside NumPy, PyTorch, ONNX Runtime, memcpy"),
    "dispatch": ("dmlcpu.cli.dispatch", "run a DirectML DxDispatch JSON model on the CPU"),
    "info": ("dmlcpu._info", "print the CPU features, compiled ISAs and chosen kernels"),
    "validate": ("dmlcpu.cli.validate", "say whether DirectML would accept an operator (JSON)"),
}


def usage():
    lines = ["usage: python -m dmlcpu COMMAND [ARGS]", "", "commands:"]
    lines += [f"  {name:<10} {help_text}" for name, (_, help_text) in COMMANDS.items()]
    return "\n".join(lines)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print(usage())
        return 0 if argv else 2
    name, rest = argv[0], argv[1:]
    if name not in COMMANDS:
        print(f"dmlcpu: unknown command {name!r}\n\n{usage()}", file=sys.stderr)
        return 2
    module = importlib.import_module(COMMANDS[name][0])
    return module.main(rest)


if __name__ == "__main__":
    sys.exit(main())
