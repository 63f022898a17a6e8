"""python -m dmlcpu info: the CPU features, compiled and usable ISAs, the ISA chosen for each
kernel slot and the thread count (what dmlcpu.show_config() prints), plus versions."""
import argparse
import json
import platform
import sys


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m dmlcpu info", description=__doc__.split(
        "\n")[0])
    parser.add_argument("--json", action="store_true", help="print the configuration as JSON")
    args = parser.parse_args(argv)
    import numpy as np

    from . import __version__, _core
    if args.json:
        print(json.dumps(dict(_core._config(), dmlcpu=__version__, numpy=np.__version__,
                              python=platform.python_version()), indent=1))
        return 0
    print("dmlcpu %s, NumPy %s, Python %s, %s" % (__version__, np.__version__,
                                                  platform.python_version(), platform.machine()))
    _core.show_config()
    return 0


if __name__ == "__main__":
    sys.exit(main())
