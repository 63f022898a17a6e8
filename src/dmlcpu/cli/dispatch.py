"""python -m dmlcpu dispatch MODEL.json: run a DxDispatch model on the CPU.

Runs the model's commands in order, as DxDispatch does: ``print`` writes DxDispatch's text to
stdout, ``writeFile`` writes .npy or raw files. Every dispatchable, binding and command is
checked first (at ``--feature-level``, default the latest, 6_4); a refused model prints nothing
to stdout and every problem to stderr, one per line, naming the resource, dispatchable or
command and the field (at most 100, then a line saying the list stops there). Exit status:
0 ran, 1 refused, 2 unreadable file or bad usage.

Memory: --max-bytes bounds everything the run holds at once, not only the resources: every
resource's buffer, each OWNED_BY_DML copy, the size a .npy header claims (checked before the
file is read) and a stream a resource is read from; print is written in blocks.

writeFile: targets are resolved against --output-path and must stay under it (no absolute path
or ".." leading out, links followed) unless --allow-outside-output-path is given; a target that
is the model file or a sourcePath file is never written. A model breaking either rule is
refused before anything runs. (DxDispatch itself writes wherever a target points.)
"""
import argparse
import sys

from ..dxdispatch._runner import DEFAULT_MAX_BYTES, LATEST, run_dxdispatch
from ..dxdispatch._model import parse_dispatchable
from .._errors import InvalidArgumentError, ModelError, ModelFileError
from .._validate import parse_feature_level


def _parser():
    parser = argparse.ArgumentParser(
        prog="python -m dmlcpu dispatch", description=__doc__.split("\n", 2)[2],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model", help="a DxDispatch JSON model (.json)")
    parser.add_argument("--feature-level", metavar="L", default=LATEST.label,
                        help="check dispatchables at this level: 1_0 ... 6_4 (default), or "
                             "'extended' for dmlcpu's extended mode")
    parser.add_argument("--input-path", metavar="DIR",
                        help="folder of relative sourcePath files (default: the model's)")
    parser.add_argument("--output-path", metavar="DIR",
                        help="folder of relative writeFile targets (default: the current one)")
    parser.add_argument("--allow-outside-output-path", action="store_true",
                        help="let writeFile targets point outside --output-path (absolute "
                             "paths, ..); the model and its sourcePath files stay protected")
    parser.add_argument("-i", "--dispatch-iterations", metavar="N", type=int, default=1,
                        help="run each dispatch N times (default 1)")
    parser.add_argument("--max-bytes", metavar="N", type=int, default=DEFAULT_MAX_BYTES,
                        help=f"the most bytes the run may hold: resources, OWNED_BY_DML "
                             f"copies, files being read (default {DEFAULT_MAX_BYTES})")
    return parser


def validate_model(path, model, level_arg, report):
    """``python -m dmlcpu validate`` on a DxDispatch model (parsed, from ``path``): its
    ``report(desc, level_arg)`` for every dispatchable, each first line naming the
    dispatchable. Returns the exit status (the worst; 2 if a dispatchable is malformed)."""
    status = 0
    for name, obj in model["dispatchables"].items():
        prefix = f"dispatchable {name!r}: "
        try:
            desc, _ = parse_dispatchable(obj)
        except ModelError as error:
            for message in error.errors:
                print(f"dmlcpu validate: {path}: {prefix}{message}", file=sys.stderr)
            status = 2
            continue
        code, lines = report(desc, level_arg)
        print("\n".join(line if line.startswith(" ") else prefix + line for line in lines))
        status = max(status, code)
    return status


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exit_:  # argparse printed the usage; keep its status (0 for --help)
        return 0 if exit_.code == 0 else 2
    prefix = "dmlcpu dispatch"
    try:
        level = (None if args.feature_level.strip().lower() == "extended"
                 else parse_feature_level(args.feature_level))
    except InvalidArgumentError as error:
        print(f"{prefix}: {error}", file=sys.stderr)
        return 2
    if args.dispatch_iterations < 1:
        print(f"{prefix}: --dispatch-iterations must be at least 1", file=sys.stderr)
        return 2
    try:
        run_dxdispatch(args.model, feature_level=level, input_path=args.input_path,
                       output_path=args.output_path,
                       dispatch_iterations=args.dispatch_iterations, max_bytes=args.max_bytes,
                       allow_outside_output_path=args.allow_outside_output_path)
    except OSError as error:
        print(f"{prefix}: cannot read {args.model}: {error.strerror or error}", file=sys.stderr)
        return 2
    except ModelFileError as error:
        print(f"{prefix}: {args.model}: {error}", file=sys.stderr)
        return 2
    except ModelError as error:
        for message in error.errors:
            print(f"{prefix}: {args.model}: {message}", file=sys.stderr)
        return 1
    except MemoryError:  # a raised --max-bytes past what the machine can give
        print(f"{prefix}: {args.model}: out of memory; lower --max-bytes", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
