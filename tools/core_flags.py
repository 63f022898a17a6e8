"""Prints setup.py's C core flags for one target architecture, for the checks that compile the
core without setuptools (tools/core-objects.sh): a line `core FLAGS...` (every unit), then one
line `ISA FLAGS...` per ISA library setup.py builds for that target. The values are read from
setup.py's own ISA_FLAGS table and core_flags(), so the two builds cannot drift apart.

usage: python3 tools/core_flags.py TARGET      (x86_64, aarch64, or anything else: no ISA)
"""
import ast
import os
import sys

SETUP = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "setup.py")
NAMES = {"ISA_FLAGS", "SANITIZER_FLAGS", "core_flags"}


def setup_tables():
    with open(SETUP) as f:
        tree = ast.parse(f.read(), SETUP)
    nodes = [n for n in tree.body
             if (isinstance(n, ast.Assign) and any(getattr(t, "id", None) in NAMES
                                                   for t in n.targets))
             or (isinstance(n, ast.FunctionDef) and n.name in NAMES)]
    namespace = {"SANITIZE": False}
    exec(compile(ast.Module(body=nodes, type_ignores=[]), SETUP, "exec"), namespace)
    return namespace


def main(target):
    tables = setup_tables()
    print("core", *tables["core_flags"](False))
    for isa, (gcc_flags, _msvc_flags) in tables["ISA_FLAGS"].get(target, {}).items():
        print(isa, *gcc_flags)


if __name__ == "__main__":
    main(sys.argv[1])
