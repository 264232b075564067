#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Installs the Debian packages Tactus needs, only those that are missing.
# Usage: scripts/install-deps.sh [build|test|bench|install|vm|gpiod2|deb|web]   (build is the default)
#   build: what building and running (`make build`, `make run`) need, nothing more.
#   test: build's, and what `make test` needs besides (a paced ALSA device, dtc, aplay).
#   web: Debian's chromium for the companion's browser tests (Tests/Web; Playwright from PyPI
#       drives it with executable_path=/usr/bin/chromium, no browser download).
#   vm: what the VM integration suite (Tests/VM, `make test-vm`) needs on the host: qemu,
#       busybox for the guest, the tools it copies into the guest, and what building the
#       gpio-sim module needs (the kernel headers themselves are fetched by Tests/VM/run.sh,
#       which knows the kernel version).
#   gpiod2: libgpiod 2 (the v2 API) for `make build GPIOD=2` on Debian 12, whose own libgpiod
#       is 1.6 and cannot be installed beside it: libgpiod-dev and libgpiod3 are downloaded
#       from bookworm-backports with a private apt configuration (this machine's apt sources,
#       lists and cache are left alone) and unpacked into .build-deps/libgpiod2/.
#   deb: what `make deb` needs (dpkg-dev for dpkg-shlibdeps, dtc for the overlays), and
#       adduser, which the package depends on (its install test runs dpkg -i).
set -euo pipefail

# ---- gpiod2: no installation, only a download into the repository's .build-deps/.
fetch_gpiod2() {
  local repo prefix work mirror
  repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  prefix=$repo/.build-deps/libgpiod2
  mirror=${TACTUS_DEBIAN_MIRROR:-http://deb.debian.org/debian}
  if [ -s "$prefix/usr/include/gpiod.h" ] && [ -f "$prefix/.complete" ]; then
    return 0
  fi
  for tool in apt-get dpkg-deb; do
    command -v "$tool" >/dev/null || { echo "install-deps.sh gpiod2: $tool is missing (a Debian system is needed)" >&2; exit 1; }
  done
  work=$repo/.build-deps/apt-backports
  rm -rf "$prefix" "$work"
  mkdir -p "$work"/{lists/partial,archives/partial,sources.list.d,preferences.d,debs} "$prefix"
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror bookworm-backports main" >"$work/sources.list"
  # Only bookworm-backports, with its own lists, cache and no pinning: `apt-get update` here
  # never touches /var/lib/apt/lists or /var/cache/apt. As root, apt's download sandbox
  # user (_apt) could not write into this folder.
  local apt=(apt-get -q -o "Dir::Etc::SourceList=$work/sources.list" -o "Dir::Etc::SourceParts=$work/sources.list.d"
             -o "Dir::Etc::PreferencesParts=$work/preferences.d" -o "Dir::Etc::Preferences=$work/preferences"
             -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work" -o "Dir::Cache::Archives=$work/archives"
             -o "Debug::NoLocking=true")
  [ "$(id -u)" -eq 0 ] && apt+=(-o APT::Sandbox::User=root)
  echo "Downloading libgpiod-dev and libgpiod3 from bookworm-backports ($mirror) into .build-deps/libgpiod2"
  "${apt[@]}" update >"$work/update.log" 2>&1 || { cat "$work/update.log" >&2; echo "install-deps.sh gpiod2: apt-get update of bookworm-backports failed (see above)" >&2; exit 1; }
  (cd "$work/debs" && "${apt[@]}" download libgpiod-dev/bookworm-backports libgpiod3/bookworm-backports) >"$work/download.log" 2>&1 ||
    { cat "$work/download.log" >&2; echo "install-deps.sh gpiod2: apt-get download of libgpiod-dev/libgpiod3 from bookworm-backports failed (see above)" >&2; exit 1; }
  local deb
  for deb in "$work"/debs/*.deb; do dpkg-deb -x "$deb" "$prefix"; done
  # The runtime package's control files (shlibs, symbols): `make deb` hands them to
  # dpkg-shlibdeps, which then writes the libgpiod3 dependency itself.
  dpkg-deb -e "$work"/debs/libgpiod3_*.deb "$prefix/DEBIAN"
  [ -s "$prefix/usr/include/gpiod.h" ] && grep -q gpiod_api_version "$prefix/usr/include/gpiod.h" ||
    { echo "install-deps.sh gpiod2: the unpacked gpiod.h is not the libgpiod 2 API" >&2; exit 1; }
  dpkg-deb -f "$work"/debs/libgpiod3_*.deb Version >"$prefix/.complete"
  echo "libgpiod $(cat "$prefix/.complete") unpacked into .build-deps/libgpiod2"
}

# espeak-ng, python3 and python3-numpy: `make voices` synthesizes the spoken counts (scripts/make-voices.py).
# ableton-link-dev (headers only, with libasio-dev): Ableton Link, GPL-2.0-or-later (README "Ableton Link").
packages=(pkg-config libasound2-dev libgpiod-dev libi2c-dev espeak-ng python3 python3-numpy ableton-link-dev libasio-dev)
# Tests: jackd2 + libasound2-plugins give a real-time paced ALSA device without hardware
# (JACK dummy backend behind ALSA's jack plugin); device-tree-compiler checks overlays/;
# alsa-utils (aplay) for diagnosing audio devices.
# fluidsynth, its soundfonts, sox and python3-numpy: the coach's takes from sampled drum kits
# (scripts/make-drum-kits.py) and their scoring (scripts/score-coach.py).
drum_packages=(python3-numpy fluidsynth fluid-soundfont-gm timgm6mb-soundfont avldrums.lv2-soundfont sox)
test_packages=(jackd2 libasound2-plugins device-tree-compiler alsa-utils "${drum_packages[@]}")
# `make install` on the box: dtc compiles the overlays; gpiod, i2c-tools and alsa-utils
# (gpiodetect, i2cdetect, aplay) are for checking the wiring and the sound card.
install_packages=(device-tree-compiler gpiod i2c-tools alsa-utils)
case "${1:-build}" in
  build) ;;
  test) packages+=("${test_packages[@]}") ;;
  # aubio-tools: the coach bench compares its onsets with aubioonset on the same takes.
  bench) packages+=(klick python3 aubio-tools "${drum_packages[@]}") ;;
  install) packages+=("${install_packages[@]}") ;;
  gpiod2) packages=(pkg-config); fetch_gpiod2 ;;
  deb) packages+=(dpkg-dev device-tree-compiler adduser) ;;
  web) packages+=(chromium python3 python3-pip) ;;
  vm) packages+=(qemu-system-x86 busybox-static gpiod i2c-tools alsa-utils kmod xz-utils iproute2
                 python3 gcc make libc6-dev binutils) ;;
  *) echo "install-deps.sh: unknown set '$1' (expected build, test, bench, install, vm, gpiod2, deb or web)" >&2; exit 2 ;;
esac

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps.sh: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
echo "Installing Debian packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get -o DPkg::Lock::Timeout=900 update -qq
$sudo apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
