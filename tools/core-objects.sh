# Sourced by the platform checks: compiles the C core (csrc/) with any C compiler into objects,
# the way setup.py builds it for the extension: the same warnings (as errors), and ISA flags on
# the ISA units only. Which ISA units are built is decided by the compiler's own target, not by
# this machine: x86-64 compilers get the AVX units, aarch64 compilers the NEON units.
#
#   core_objects OUTDIR CC...     (CC may be several words: "zig cc -target aarch64-macos")
#   core_target CC...             prints x86_64, aarch64 or other
#   core_msvc CC...               true when the compiler defines _MSC_VER (clang in MSVC mode)

core_target() {
  local macros
  macros=$(echo | "$@" -dM -E - 2>/dev/null)
  if grep -qE '#define (__x86_64__|_M_X64|_M_AMD64) ' <<<"$macros"; then echo x86_64
  elif grep -qE '#define (__aarch64__|_M_ARM64) ' <<<"$macros"; then echo aarch64
  else echo other; fi
}

core_msvc() { echo | "$@" -dM -E - 2>/dev/null | grep -q '#define _MSC_VER '; }

core_objects() {
  local out=$1; shift
  local root; root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  local target; target=$(core_target "$@")
  local flags=(-O3 -std=c11 -ffp-contract=off -fno-strict-aliasing -Wall -Wextra -Werror -Wno-unused-function
               -I"$root/csrc/include" -I"$root/csrc")
  local units=("$root"/csrc/*.c "$root"/csrc/kernels/*_scalar.c)
  case $target in
    x86_64) units+=("$root"/csrc/kernels/*_avx2.c "$root"/csrc/kernels/*_avx512.c)
            flags+=(-DDMLCPU_WITH_X86_KERNELS=1) ;;
    aarch64) for u in "$root"/csrc/kernels/*_neon.c; do [ -e "$u" ] && units+=("$u"); done ;;
  esac
  mkdir -p "$out"
  local unit isa_flags pids=() failed=0
  for unit in "${units[@]}"; do
    case $unit in
      *_avx2.c) isa_flags=(-mavx2 -mfma -mf16c) ;;
      *_avx512.c) isa_flags=(-mavx512f -mavx512bw -mavx512vl -mavx2 -mfma -mf16c) ;;
      *) isa_flags=() ;;
    esac
    "$@" "${flags[@]}" "${isa_flags[@]}" -c "$unit" -o "$out/$(basename "${unit%.c}").o" &
    pids+=($!)
    if [ ${#pids[@]} -ge 2 ]; then wait "${pids[0]}" || failed=1; pids=("${pids[@]:1}"); fi
  done
  for p in "${pids[@]}"; do wait "$p" || failed=1; done
  return $failed
}
