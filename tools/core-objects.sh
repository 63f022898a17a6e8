# Sourced by the platform checks: compiles the C core (csrc/) with any C compiler into objects,
# as setup.py builds it: setup.py's flags (read by tools/core_flags.py), the ISA units chosen
# by the compiler's own target (x86-64: the AVX units; aarch64: the NEON units), each with its
# ISA's flags, and DMLCPU_BUILD_<ISA> for every unit.
#
#   core_objects OUTDIR CC...     (CC may be several words: "python3 -m ziglang cc -target ...")
#   core_target CC...             prints x86_64, aarch64 or other
#   core_msvc CC...               true when the compiler defines _MSC_VER (clang in MSVC mode)

core_target() {
  local macros
  macros=$(echo | "$@" -dM -E - 2>/dev/null)
  if grep -qE '#define (__x86_64__|_M_X64) ' <<<"$macros"; then echo x86_64
  elif grep -qE '#define (__aarch64__|_M_ARM64) ' <<<"$macros"; then echo aarch64
  else echo other; fi
}

core_msvc() { # (the macros captured first: grep -q closing the pipe early fails under pipefail)
  local macros
  macros=$(echo | "$@" -dM -E - 2>/dev/null)
  grep -q '#define _MSC_VER ' <<<"$macros"
}

core_objects() {
  local out=$1; shift
  local root; root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  local flags=() isas=() isa_flags=() name rest
  while read -r name rest; do
    if [ "$name" = core ]; then read -ra flags <<<"$rest"
    else isas+=("$name"); isa_flags+=("$rest"); flags+=("-DDMLCPU_BUILD_${name^^}=1"); fi
  done < <(python3 "$root/tools/core_flags.py" "$(core_target "$@")")
  flags+=(-I"$root/csrc/include" -I"$root/csrc")
  # (unit, its extra flags): the baseline units, then each ISA's
  local units=() extra=() unit i
  for unit in "$root"/csrc/*.c "$root"/csrc/kernels/*_scalar.c; do units+=("$unit"); extra+=(""); done
  for i in "${!isas[@]}"; do
    for unit in "$root"/csrc/kernels/*_"${isas[$i]}".c; do
      [ -e "$unit" ] && { units+=("$unit"); extra+=("${isa_flags[$i]}"); }
    done
  done
  mkdir -p "$out"
  local pids=() failed=0 more
  for i in "${!units[@]}"; do
    read -ra more <<<"${extra[$i]}"
    "$@" "${flags[@]}" "${more[@]}" -c "${units[$i]}" -o "$out/$(basename "${units[$i]%.c}").o" &
    pids+=($!)
    if [ ${#pids[@]} -ge 2 ]; then wait "${pids[0]}" || failed=1; pids=("${pids[@]:1}"); fi
  done
  for i in "${pids[@]}"; do wait "$i" || failed=1; done
  return $failed
}
