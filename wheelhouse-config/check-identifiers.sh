#!/usr/bin/env bash
# Checks the cibuildwheel configuration: the wheels it would build on each platform are exactly
# CPython 3.10-3.14 on manylinux x86_64/aarch64, musllinux x86_64, macOS x86_64/arm64 and
# Windows AMD64, and 3.11-3.14 on Windows ARM64 (NumPy has no win_arm64 wheel for 3.10).
# Usage: wheelhouse-config/check-identifiers.sh [CIBUILDWHEEL]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cibw=${1:-cibuildwheel}
versions="cp310 cp311 cp312 cp313 cp314"
expect() { for v in $versions; do for tag in "$@"; do echo "$v-$tag"; done; done | sort; }
declare -A wanted=(
  [linux]="$(expect manylinux_x86_64 manylinux_aarch64 musllinux_x86_64)"
  [macos]="$(expect macosx_x86_64 macosx_arm64)"
  [windows]="$( (expect win_amd64 win_arm64 | grep -vx cp310-win_arm64) | sort)"
)
for platform in linux macos windows; do
  got=$("$cibw" --print-build-identifiers --platform "$platform" \
          --config-file "$here/cibuildwheel.toml" "$(dirname "$here")" | sort)
  if [ "$got" != "${wanted[$platform]}" ]; then
    echo "$platform: cibuildwheel would build"; echo "$got"; echo "but the project wants"
    echo "${wanted[$platform]}"; exit 1
  fi
  echo "$platform: $(echo "$got" | wc -l) wheels, as configured"
done
