#!/usr/bin/env bash
# Baseline-ISA proof for x86-64 builds:
#  1. every object file that is not an AVX2/AVX-512 translation unit contains no VEX or EVEX
#     instruction (objdump), so nothing outside the dispatched kernels needs more than SSE2;
#  2. under an emulated CPU without AVX (qemu-user, -cpu Nehalem), dmlcpu picks the baseline
#     kernels and every operator gives NumPy's answer.
# Usage: wheelhouse-config/check-baseline.sh [RUN_PYTHON [BUILD_PYTHON]]
#   RUN_PYTHON has dmlcpu installed; BUILD_PYTHON has setuptools and Cython (default: RUN_PYTHON).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
python=${1:-python3}
python=$("$python" -c 'import sys; print(sys.executable)')  # qemu needs the real binary
build_python=${2:-$python}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "== objdump: no VEX/EVEX outside the AVX units"
(cd "$root" && "$build_python" setup.py -q build_ext --build-temp "$work/temp" --build-lib "$work/lib" \
   >"$work/build.log" 2>&1) || { cat "$work/build.log"; exit 1; }
mapfile -t objects < <(find "$work/temp" -name '*.o' | sort)
[ "${#objects[@]}" -gt 0 ] || { echo "no object files were built"; exit 1; }
bad=0
vex_mnemonics() {  # VEX/EVEX: the v-prefixed mnemonics and the AVX-512 mask (k) instructions
  objdump -d --no-show-raw-insn "$1" | awk -F'\t' 'NF >= 2 {split($2, w, " "); m = w[1];
    if (m ~ /^v[a-z]/ || m ~ /^k(mov|and|or|xor|not|shift|test|add|unpck)/) print m}' |
    sort | uniq -c | sort -rn | head -5
}
for obj in "${objects[@]}"; do
  name=$(basename "$obj")
  hits=$(vex_mnemonics "$obj")
  case "$name" in *_avx2.o|*_avx512.o|*_avx512vbmi.o)
    # the detector must see what is there, or its silence on the rest proves nothing
    [ -n "$hits" ] || { echo "  no VEX found in the AVX unit $name: the check is broken"; exit 1; }
    echo "  AVX unit    $name ($(echo "$hits" | head -1 | awk '{print $2}') ...)"; continue ;;
  esac
  if [ -n "$hits" ]; then
    echo "  VEX/EVEX in $name:"; echo "$hits" | sed 's/^/      /'; bad=1
  else
    echo "  baseline    $name"
  fi
done
[ "$bad" -eq 0 ] || { echo "FAIL: baseline objects contain AVX instructions"; exit 1; }

echo "== qemu-x86_64 -cpu Nehalem: baseline kernels chosen, results right"
if ! command -v qemu-x86_64 >/dev/null; then
  echo "qemu-x86_64 not found: install Debian's qemu-user (apt-get install qemu-user)"; exit 1
fi
(cd "$work" && qemu-x86_64 -cpu Nehalem "$python" "$here/smoke.py" --expect-isa scalar)
echo "baseline proof: OK"
