#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# `make deb`: dist/tactus_VERSION_ARCH.deb with dpkg-deb, no network, for the machine it runs
# on (arm64 on a 64-bit Raspberry Pi OS; amd64 here, for the tests).
#
# Environment (the Makefile passes the first three):
#   GPIOD=          empty: built against the system's libgpiod (libgpiod2 on bookworm,
#                   libgpiod3 on trixie); 2: against bookworm-backports' libgpiod 2 (libgpiod3)
#   TACTUS_BINARY=  package this binary instead of building one (the install test's stub)
#   TACTUS_WEB_BINARY=  the same for the companion, tactus-web (default: built like tactus;
#                   with TACTUS_BINARY and no TACTUS_WEB_BINARY, tactus-web beside it)
#   SWIFT=swift
#   TACTUS_DEB_VERSION=  override the version (default: the top of packaging/deb/changelog)
#   TACTUS_DEB_DIR=dist  where the .deb goes
#
# Layout: /usr/bin/tactus, /usr/bin/tactus-web, /usr/share/tactus/{boards,overlays (sources
# and .dtbo),config.toml,web (the companion's pages)}, /lib/systemd/system/tactus.service and
# tactus-web.service, /etc/tactus/config.toml (a conffile),
# /usr/share/doc/tactus/{copyright,changelog.Debian.gz,install.md}, the manual page
# /usr/share/man/man1/tactus.1.gz; maintainer scripts in
# packaging/deb. Depends comes from dpkg-shlibdeps for the binary it packages.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
say() { echo "make deb: $*"; }
die() { echo "make deb: error: $*" >&2; exit 1; }

GPIOD=${GPIOD:-}
SWIFT=${SWIFT:-swift}
pkg=packaging/deb
outdir=${TACTUS_DEB_DIR:-dist}
for tool in dpkg-deb dpkg-parsechangelog dtc gzip; do
  command -v "$tool" >/dev/null || die "$tool is missing: scripts/install-deps.sh deb"
done

version=${TACTUS_DEB_VERSION:-$(dpkg-parsechangelog -l "$pkg/changelog" -SVersion)}
arch=$(dpkg --print-architecture)
# Reproducible: every timestamp is the changelog's date.
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(dpkg-parsechangelog -l "$pkg/changelog" -STimestamp)}
export SOURCE_DATE_EPOCH

case "$GPIOD" in
  "") gpiod_prefix= ;;
  2) gpiod_prefix=$repo/.build-deps/libgpiod2 ;;
  *) die "GPIOD='$GPIOD': use 2 (libgpiod 2 from bookworm-backports) or nothing (the system's libgpiod)" ;;
esac

if [ -n "${TACTUS_BINARY:-}" ]; then
  { [ -f "$TACTUS_BINARY" ] && [ -x "$TACTUS_BINARY" ]; } || die "TACTUS_BINARY '$TACTUS_BINARY' is not an executable file"
  binary=$TACTUS_BINARY
else
  # The Swift runtime goes into the binary, so the package needs no Swift installed.
  say "building the release binary (scripts/build-release.sh $GPIOD)"
  binary=$(SWIFT=$SWIFT scripts/build-release.sh $GPIOD | tail -1)
fi
if [ -n "${TACTUS_WEB_BINARY:-}" ]; then
  web_binary=$TACTUS_WEB_BINARY
elif [ -n "${TACTUS_BINARY:-}" ]; then
  web_binary=$(dirname "$TACTUS_BINARY")/tactus-web
else
  # Its own process and binary: Hummingbird and Foundation never reach the box's.
  say "building the companion's release binary"
  "$SWIFT" build -c release --product tactus-web --static-swift-stdlib --scratch-path .build-static >&2
  web_binary=$("$SWIFT" build -c release --product tactus-web --static-swift-stdlib --scratch-path .build-static --show-bin-path)/tactus-web
fi
{ [ -f "$web_binary" ] && [ -x "$web_binary" ]; } || die "the companion binary '$web_binary' is not an executable file (TACTUS_WEB_BINARY)"
elf=false
head -c 4 "$binary" | grep -q 'ELF' && elf=true
if $elf && readelf -d "$binary" | grep -q 'NEEDED.*libswiftCore'; then
  die "$binary loads the Swift runtime from a toolchain: build it with --static-swift-stdlib (scripts/build-release.sh)"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/tactus-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
root=$work/root
mkdir -p "$root/DEBIAN" "$outdir"
put() { # put MODE SOURCE DEST: one file, /usr/local paths of the sources made /usr ones
  install -D -m "$1" "$2" "$root$3"
}
# The shipped texts name the make-install locations; the package's are under /usr.
put_usr() { # put_usr MODE SOURCE DEST
  mkdir -p "$(dirname "$root$3")"
  sed 's#/usr/local/#/usr/#g' "$2" >"$root$3"
  chmod "$1" "$root$3"
}

install -D -m 0755 "$binary" "$root/usr/bin/tactus"
install -D -m 0755 "$web_binary" "$root/usr/bin/tactus-web"
if $elf; then
  strip --strip-unneeded --remove-section=.comment --remove-section=.note "$root/usr/bin/tactus"
fi
if head -c 4 "$web_binary" | grep -q 'ELF'; then
  strip --strip-unneeded --remove-section=.comment --remove-section=.note "$root/usr/bin/tactus-web"
fi
for f in share/web/*; do put 0644 "$f" "/usr/share/tactus/web/${f#share/web/}"; done
for f in boards/*.toml boards/README.md; do put 0644 "$f" "/usr/share/tactus/$f"; done
for f in overlays/*.dts overlays/README.md; do put 0644 "$f" "/usr/share/tactus/$f"; done
# The voice sets (make voices): /usr/share/tactus/voices/voice-LANG/{*.wav,voice.toml}.
ls voices/voice-*/voice.toml >/dev/null 2>&1 || die "no voice sets in voices/: run make voices (make deb does)"
for f in voices/voice-*/*.wav voices/voice-*/voice.toml; do put 0644 "$f" "/usr/share/tactus/$f"; done
for f in overlays/*.dts; do
  name=$(basename "$f" .dts)
  dtc -@ -q -I dts -O dtb -o "$root/usr/share/tactus/overlays/$name.dtbo" "$f" || die "dtc could not compile $f"
  chmod 0644 "$root/usr/share/tactus/overlays/$name.dtbo"
done
put_usr 0644 etc/config.toml /usr/share/tactus/config.toml
put_usr 0644 etc/config.toml /etc/tactus/config.toml
put_usr 0644 systemd/tactus.service /lib/systemd/system/tactus.service
put_usr 0644 systemd/tactus-web.service /lib/systemd/system/tactus-web.service
sed -i 's#^\# Installed by `make install` to /etc/systemd/system/tactus.service; enable it with#\# Installed by the tactus package (enabled at boot by its postinst); start it with#' \
  "$root/lib/systemd/system/tactus.service"
put_usr 0644 docs/install.md /usr/share/doc/tactus/install.md
put 0644 "$pkg/copyright" /usr/share/doc/tactus/copyright
gzip -9n <"$pkg/changelog" >"$root/usr/share/doc/tactus/changelog.Debian.gz"
chmod 0644 "$root/usr/share/doc/tactus/changelog.Debian.gz"
mkdir -p "$root/usr/share/man/man1"
for page in tactus tactus-web; do
  gzip -9n <"$pkg/$page.1" >"$root/usr/share/man/man1/$page.1.gz"
  chmod 0644 "$root/usr/share/man/man1/$page.1.gz"
done

for script in postinst prerm postrm; do install -m 0755 "$pkg/$script" "$root/DEBIAN/$script"; done
echo /etc/tactus/config.toml >"$root/DEBIAN/conffiles"

# Depends: dpkg-shlibdeps on the binary (libgpiod2 or libgpiod3 follows from what it links;
# the backports libgpiod3's shlibs come from .build-deps/libgpiod2/DEBIAN), plus adduser for
# the maintainer scripts. A stub (not ELF) gets the list written for its backend.
if $elf && command -v dpkg-shlibdeps >/dev/null; then
  mkdir -p "$work/shlibdeps/debian"
  printf 'Source: tactus\n\nPackage: tactus\nArchitecture: any\n' >"$work/shlibdeps/debian/control"
  web_elf=()
  head -c 4 "$root/usr/bin/tactus-web" | grep -q 'ELF' && web_elf=(-e"$root/usr/bin/tactus-web")
  shlibs=$(cd "$work/shlibdeps" && dpkg-shlibdeps -O ${gpiod_prefix:+-S"$gpiod_prefix"} -e"$root/usr/bin/tactus" "${web_elf[@]}" 2>"$work/shlibdeps.log") ||
    { cat "$work/shlibdeps.log" >&2; die "dpkg-shlibdeps failed on the binary"; }
  depends=${shlibs#shlibs:Depends=}
else
  libgpiod="libgpiod2 (>= 1.5)"
  [ "$GPIOD" = 2 ] && libgpiod="libgpiod3 (>= 2.1)"
  [ -z "$GPIOD" ] && [ "$(pkg-config --modversion libgpiod 2>/dev/null | cut -d. -f1)" = 2 ] && libgpiod="libgpiod3 (>= 2.1)"
  depends="libasound2 (>= 1.0.16), libc6 (>= 2.34), libgcc-s1 (>= 3.0), $libgpiod, libi2c0 (>= 4.0), libstdc++6 (>= 5)"
fi
depends="adduser, $depends"
case $depends in *libgpiod*) ;; *) die "the binary links no libgpiod (Depends: $depends)" ;; esac

# Ableton Link is compiled in from ableton-link-dev's headers (GPL-2.0-or-later, which the
# GPL-3.0-or-later binary accepts): Built-Using names the source it came from, as Debian
# asks for statically included code. scripts/install-deps.sh build installs it.
link_version=$(dpkg-query -W -f='${Version}' ableton-link-dev 2>/dev/null) ||
  die "ableton-link-dev is not installed: scripts/install-deps.sh build"
built_using="ableton-link (= $link_version)"

installed_size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
cat >"$root/DEBIAN/control" <<EOF
Package: tactus
Version: $version
Architecture: $arch
Maintainer: $(sed -n 's/^ -- \(.*>\)  .*/\1/p' "$pkg/changelog" | head -1)
Installed-Size: $installed_size
Depends: $depends
Built-Using: $built_using
Suggests: gpiod, i2c-tools, alsa-utils
Section: sound
Priority: optional
Description: metronome practice box on a Raspberry Pi
 Tactus turns a Raspberry Pi with a rotary encoder, TAP and START buttons, a
 small OLED display, three LEDs and a buzzer into a sample-exact metronome:
 clicks on ALSA, tempo from the wheel or by tapping, accents, subdivisions and
 settings that survive power cuts. It runs as the systemd service tactus.
 .
 The package contains the tactus program (run, simulate, render, check, ctl),
 the board files of the supported Raspberry Pi models, the device-tree overlays
 (sources and compiled), the systemd unit and /etc/tactus/config.toml.
 .
 It also contains tactus-web, a browser companion served by the box on the LAN
 (remote, live beat view, songs and setlists, sounds, practice), run as its own
 unprivileged service that stays silent until switched on at the box and
 paired with a code shown on its screen.
EOF
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -print | sed 's#^\./##' | LC_ALL=C sort | xargs md5sum) >"$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/conffiles" "$root/DEBIAN/md5sums"
find "$root" -type d -exec chmod 0755 {} +
find "$root" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +

deb=$outdir/tactus_${version}_${arch}.deb
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
say "wrote $deb (Depends: $depends)"
