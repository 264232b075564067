#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The release tactus with the Swift runtime linked in (no Swift needed where it runs), as
# the VM suite, `make deb` and `make build GPIOD=2` use it. Prints the binary's path last.
# Usage: scripts/build-release.sh [GPIOD]
#   GPIOD empty: the system's libgpiod (Package.swift reads its version), scratch .build-static
#   GPIOD=2:     libgpiod 2 from bookworm-backports in .build-deps/libgpiod2 (fetched by
#                scripts/install-deps.sh gpiod2 when missing), scratch .build-gpiod2; the
#                binary links libgpiod.so.3, which this machine does not have installed: run
#                it with LD_LIBRARY_PATH=.build-deps/libgpiod2/usr/lib/<multiarch>
# Env: SWIFT (default swift).
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
SWIFT=${SWIFT:-swift}
gpiod=${1:-}
args=(build -c release --product tactus --static-swift-stdlib)
case "$gpiod" in
  "")
    args+=(--scratch-path .build-static) ;;
  2)
    scripts/install-deps.sh gpiod2
    prefix=$repo/.build-deps/libgpiod2
    multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
    # The unpacked libgpiod.pc says prefix=/usr: without the sysroot, pkg-config (and SwiftPM)
    # would silently take the system's libgpiod 1 headers.
    export TACTUS_LIBGPIOD=2 PKG_CONFIG_PATH=$prefix/usr/lib/$multiarch/pkgconfig PKG_CONFIG_SYSROOT_DIR=$prefix
    args+=(--scratch-path .build-gpiod2) ;;
  *) echo "build-release.sh: GPIOD='$gpiod': use 2 (libgpiod 2 from bookworm-backports) or nothing (the system's libgpiod)" >&2; exit 2 ;;
esac
"$SWIFT" "${args[@]}" >&2
bin=$("$SWIFT" "${args[@]}" --show-bin-path)/tactus
[ -x "$bin" ] || { echo "build-release.sh: the build did not produce $bin" >&2; exit 1; }
if [ "$gpiod" = 2 ] && command -v readelf >/dev/null && ! readelf -d "$bin" | grep -q 'NEEDED.*\[libgpiod\.so\.3\]'; then
  echo "build-release.sh: $bin does not link libgpiod.so.3 (readelf -d): the libgpiod 2 build went wrong" >&2
  exit 1
fi
echo "$bin"
