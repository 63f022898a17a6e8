"""Tests an installed dmlcpu wheel once per ISA level this CPU can run.

usage: python test_wheel.py TESTS_DIR [pytest args...]

Prints dmlcpu.show_config(), then runs pytest on TESTS_DIR with DMLCPU_FORCE_ISA set to each
usable ISA (scalar first), so every kernel the wheel ships is tested on this machine. Exits
non-zero if any run fails. Run it from outside the source tree so the installed wheel is tested.
"""
import os
import subprocess
import sys


def main(argv):
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    import dmlcpu

    dmlcpu.show_config()
    isas = dmlcpu._core._config()["usable_isas"]
    failed = []
    for isa in isas:
        print(f"\n=== tests with DMLCPU_FORCE_ISA={isa}", flush=True)
        env = dict(os.environ, DMLCPU_FORCE_ISA=isa)
        result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                                 *argv], env=env)
        if result.returncode != 0:
            failed.append(isa)
    if failed:
        print(f"FAILED under: {', '.join(failed)}", file=sys.stderr)
        return 1
    print(f"\nall tests passed under: {', '.join(isas)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
