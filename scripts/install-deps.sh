#!/usr/bin/env bash
# Installs the Debian packages Tactus needs, only those that are missing.
# Usage: scripts/install-deps.sh [build|bench|install|vm]   (build is the default)
#   vm: what the VM integration suite (Tests/VM, `make test-vm`) needs on the host: qemu,
#       busybox for the guest, the tools it copies into the guest, and what building the
#       gpio-sim module needs (the kernel headers themselves are fetched by Tests/VM/run.sh,
#       which knows the kernel version).
set -euo pipefail

packages=(pkg-config libasound2-dev libgpiod-dev libi2c-dev)
# Tests: jackd2 + libasound2-plugins give a real-time paced ALSA device without hardware
# (JACK dummy backend behind ALSA's jack plugin); device-tree-compiler checks overlays/;
# alsa-utils (aplay) for diagnosing audio devices.
test_packages=(jackd2 libasound2-plugins device-tree-compiler alsa-utils)
# `make install` on the box: dtc compiles the overlays; gpiod, i2c-tools and alsa-utils
# (gpiodetect, i2cdetect, aplay) are for checking the wiring and the sound card.
install_packages=(device-tree-compiler gpiod i2c-tools alsa-utils)
case "${1:-build}" in
  build) packages+=("${test_packages[@]}") ;;
  bench) packages+=(klick) ;;
  install) packages+=("${install_packages[@]}") ;;
  vm) packages+=(qemu-system-x86 busybox-static gpiod i2c-tools alsa-utils kmod xz-utils
                 python3 gcc make libc6-dev binutils) ;;
  *) echo "install-deps.sh: unknown set '$1' (expected build, bench, install or vm)" >&2; exit 2 ;;
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
