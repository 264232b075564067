#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Installs Tactus on this machine, or removes it again: `make install` / `make uninstall`.
# Usage: scripts/install.sh install|uninstall
#
# Environment (all optional; the Makefile passes its variables of the same names):
#   PREFIX=/usr/local    binary in PREFIX/bin; boards, overlay sources and the example config in
#                        PREFIX/share/tactus; docs in PREFIX/share/doc/tactus
#   DESTDIR=             staging root (packaging, tests): every path is put under it, and no
#                        user is created, no build is run as another user, systemd is not touched
#   OVERLAY_DIR=/boot/firmware/overlays
#                        compiled overlays (.dtbo) go here, only when DESTDIR/OVERLAY_DIR exists
#   TACTUS_BINARY=       install this binary instead of building one (see build_command)
#   TACTUS_WEB_BINARY=   the same for the companion, tactus-web (default: with TACTUS_BINARY,
#                        the tactus-web beside it; else built like tactus)
#   SWIFT=swift          the Swift driver used for the build
#   DT_MODEL=/proc/device-tree/model
#                        read to choose the board in a new /etc/tactus/config.toml (read only
#                        when DESTDIR is empty or DT_MODEL is given)
#
# Never touched: an existing /etc/tactus/config.toml, /etc/tactus/boards, /var/lib/tactus
# (settings, sounds) and the boot configuration (config.txt: the lines to add are printed).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"

PREFIX=${PREFIX:-/usr/local}
DESTDIR=${DESTDIR:-}
OVERLAY_DIR=${OVERLAY_DIR:-/boot/firmware/overlays}
SWIFT=${SWIFT:-swift}

bindir=$PREFIX/bin
sharedir=$PREFIX/share/tactus
docdir=$PREFIX/share/doc/tactus
unitdir=/etc/systemd/system
confdir=/etc/tactus
manifest=$sharedir/install-manifest   # every file install wrote (not the config), for uninstall

say() { echo "tactus install: $*"; }
die() { echo "tactus install: error: $*" >&2; exit 1; }

case "$PREFIX" in /*) ;; *) die "PREFIX must be an absolute path (got '$PREFIX')" ;; esac
case "$OVERLAY_DIR" in /*) ;; *) die "OVERLAY_DIR must be an absolute path (got '$OVERLAY_DIR')" ;; esac

live=false                  # installing onto this very system (not into a staging folder)
[ -z "$DESTDIR" ] && live=true
systemd_running=false
$live && [ -d /run/systemd/system ] && systemd_running=true

if $live && [ "$(id -u)" -ne 0 ]; then
  die "installing into / needs root: sudo make ${1:-install} (or DESTDIR=/some/folder to stage the files)"
fi

# The files install writes, as "mode source destination" lines (destination without DESTDIR).
# Sources "@binary", "@unit" and "@dtbo:NAME" are produced by install_file.
plan() {
  echo "0755 @binary $bindir/tactus"
  # The companion (README "Companion"): its binary, its pages and its unit.
  echo "0755 @webbinary $bindir/tactus-web"
  for f in share/web/*; do echo "0644 $f $sharedir/web/${f#share/web/}"; done
  echo "0644 @webunit $unitdir/tactus-web.service"
  local f
  for f in boards/*.toml boards/README.md; do echo "0644 $f $sharedir/boards/${f#boards/}"; done
  for f in overlays/*.dts overlays/README.md; do echo "0644 $f $sharedir/overlays/${f#overlays/}"; done
  # The voice sets, when `make voices` has made them.
  for f in voices/voice-*/*.wav voices/voice-*/voice.toml; do [ -f "$f" ] && echo "0644 $f $sharedir/$f"; done
  echo "0644 etc/config.toml $sharedir/config.toml"
  echo "0644 docs/install.md $docdir/install.md"
  echo "0644 @unit $unitdir/tactus.service"
  if [ -d "$DESTDIR$OVERLAY_DIR" ]; then
    for f in overlays/*.dts; do
      f=${f#overlays/}
      echo "0644 @dtbo:${f%.dts} $OVERLAY_DIR/${f%.dts}.dtbo"
    done
  fi
}

# The Swift runtime goes into the binary: the service may not read a toolchain in a home folder
# (ProtectHome=yes, and swiftly installs there), and the box keeps working when Swift is
# removed or upgraded.
build_command="build -c release --product tactus --static-swift-stdlib"
web_build_command="build -c release --product tactus-web --static-swift-stdlib"

# The binary: TACTUS_BINARY, or a release build (as the user who ran sudo, so .build stays theirs).
find_binary() {
  if [ -n "${TACTUS_BINARY:-}" ]; then
    { [ -f "$TACTUS_BINARY" ] && [ -x "$TACTUS_BINARY" ]; } || die "TACTUS_BINARY '$TACTUS_BINARY' is not an executable file"
    binary=$TACTUS_BINARY
    web_binary=${TACTUS_WEB_BINARY:-$(dirname "$TACTUS_BINARY")/tactus-web}
    { [ -f "$web_binary" ] && [ -x "$web_binary" ]; } \
      || die "the companion '$web_binary' is not an executable file (put tactus-web beside TACTUS_BINARY, or give TACTUS_WEB_BINARY)"
    return
  fi
  local swift
  swift=$(command -v "$SWIFT" || true)
  if [ -z "$swift" ]; then
    # sudo resets PATH, so the toolchain is often not found as root: use a fresh enough build.
    binary=$repo/.build/release/tactus
    [ -x "$binary" ] || die "'$SWIFT' is not on the PATH and there is no build yet: run 'swift $build_command' as yourself first (or sudo env PATH=\"\$PATH\" make install)"
    if [ -n "$(find Sources Package.swift -newer "$binary" -print -quit)" ]; then
      die "'$SWIFT' is not on the PATH and $binary is older than the sources: run 'swift $build_command' as yourself first (or sudo env PATH=\"\$PATH\" make install)"
    fi
    web_binary=${TACTUS_WEB_BINARY:-$repo/.build/release/tactus-web}
    [ -x "$web_binary" ] || die "'$SWIFT' is not on the PATH and there is no $web_binary: run 'swift $web_build_command' as yourself first"
    say "$SWIFT is not on the PATH; installing the existing build $binary (newer than every source)"
    return
  fi
  local as_user=()
  if $live && [ -n "${SUDO_USER:-}" ] && [ "$SUDO_USER" != root ]; then
    local owner_of=.build
    [ -e .build ] || owner_of=.
    [ "$(stat -c %U "$owner_of")" = "$SUDO_USER" ] && as_user=(sudo -u "$SUDO_USER" -H)
  fi
  say "building: $SWIFT $build_command${as_user:+ (as $SUDO_USER)}"
  # shellcheck disable=SC2086 # build_command is a list of words
  "${as_user[@]}" "$swift" $build_command
  binary=$("${as_user[@]}" "$swift" build -c release --show-bin-path)/tactus
  [ -x "$binary" ] || die "the build did not produce $binary"
  if [ -n "${TACTUS_WEB_BINARY:-}" ]; then
    web_binary=$TACTUS_WEB_BINARY
  else
    say "building: $SWIFT $web_build_command"
    # shellcheck disable=SC2086
    "${as_user[@]}" "$swift" $web_build_command
    web_binary=$("${as_user[@]}" "$swift" build -c release --show-bin-path)/tactus-web
  fi
  { [ -f "$web_binary" ] && [ -x "$web_binary" ]; } || die "the companion '$web_binary' is not an executable file"
}

# A binary that loads the Swift runtime from the toolchain only works while that toolchain
# stays where it is, and not at all from a home folder, which the service cannot see.
check_runtime() {
  command -v readelf >/dev/null || return 0
  readelf -d "$binary" 2>/dev/null | grep -q 'libswiftCore\.so' || return 0
  local runpath
  runpath=$(readelf -d "$binary" | sed -n 's/.*(R[UN]*PATH).*\[\(.*\)\]/\1/p')
  case ":$runpath:" in
    *:/home/*|*:/root/*)
      die "$binary loads the Swift runtime from $runpath, which the service cannot read (ProtectHome=yes): build it with 'swift $build_command'" ;;
  esac
  say "warning: $binary loads the Swift runtime from ${runpath:-the toolchain}: keep that toolchain installed, or build with 'swift $build_command'"
}

# The board file for this machine, from the device tree's model string; empty when unknown.
detect_board() {
  local model_file=${DT_MODEL:-}
  if [ -z "$model_file" ]; then
    $live || return 0
    model_file=/proc/device-tree/model
  fi
  [ -r "$model_file" ] || return 0
  case "$(tr -d '\0' <"$model_file")" in
    "Raspberry Pi Zero 2 W"*) echo pi-zero-2w ;;
    "Raspberry Pi 3 Model B Plus"*) echo pi3bplus ;;
    "Raspberry Pi 4 Model B"*) echo pi4b ;;
    "Raspberry Pi 5 Model B"*) echo pi5 ;;
  esac
}

# Writes one file through a temporary file beside it and a rename, so a running binary or a
# reader never sees a half-written file.
install_file() {
  local mode=$1 source=$2 dest=$DESTDIR$3
  local tmp
  mkdir -p "$(dirname "$dest")"
  tmp=$(mktemp "$dest.XXXXXX")
  case "$source" in
    @binary) cp "$binary" "$tmp" ;;
    # The unit names /usr/local/bin/tactus: follow PREFIX.
    @unit) sed "s#/usr/local/#$PREFIX/#g" systemd/tactus.service >"$tmp" ;;
    @webbinary) cp "$web_binary" "$tmp" ;;
    @webunit) sed "s#/usr/local/#$PREFIX/#g" systemd/tactus-web.service >"$tmp" ;;
    @dtbo:*)
      if ! dtc -@ -I dts -O dtb -o "$tmp" "overlays/${source#@dtbo:}.dts"; then
        rm -f "$tmp"; die "dtc could not compile overlays/${source#@dtbo:}.dts"
      fi ;;
    *) cp "$source" "$tmp" ;;
  esac
  chmod "$mode" "$tmp"
  mv -f "$tmp" "$dest"
}

create_user() {
  local group created=()
  getent passwd tactus >/dev/null || {
    useradd --system --user-group --home-dir /var/lib/tactus --no-create-home \
      --shell /usr/sbin/nologin --comment "Tactus metronome" tactus
    say "created the system user tactus"
  }
  for group in gpio i2c audio; do
    getent group "$group" >/dev/null || { groupadd --system "$group"; created+=("$group"); }
  done
  # The unit grants these groups too (SupplementaryGroups); membership also lets
  # `sudo -u tactus tactus check` reach the hardware.
  usermod -a -G gpio,i2c,audio tactus
  # The companion's own user, in no device group: the group tactus opens the box's control
  # socket; the box, in the group tactus-web, reads the uploads it spools.
  getent passwd tactus-web >/dev/null || {
    useradd --system --user-group --home-dir /var/lib/tactus-web --no-create-home \
      --shell /usr/sbin/nologin --comment "Tactus companion" tactus-web
    say "created the system user tactus-web"
  }
  usermod -a -G tactus tactus-web
  usermod -a -G tactus-web tactus
  if [ ${#created[@]} -gt 0 ]; then
    say "created the missing group(s) ${created[*]} (the unit needs them to start; on Raspberry Pi OS udev gives them the devices, elsewhere add udev rules)"
  fi
}

do_install() {
  if [ -d "$DESTDIR$OVERLAY_DIR" ] && ! command -v dtc >/dev/null; then
    die "$DESTDIR$OVERLAY_DIR exists but dtc is missing: sudo apt install device-tree-compiler"
  fi
  find_binary
  check_runtime
  local mode source dest files=()
  while read -r mode source dest; do
    install_file "$mode" "$source" "$dest"
    files+=("$dest")
  done < <(plan)
  files+=("$manifest")

  # Files a previous version installed that this one no longer has.
  if [ -f "$DESTDIR$manifest" ]; then
    local old
    while read -r old; do
      [ -n "$old" ] || continue
      printf '%s\n' "${files[@]}" | grep -Fxq -- "$old" || rm -f -- "$DESTDIR$old"
    done <"$DESTDIR$manifest"
  fi
  printf '%s\n' "${files[@]}" >"$DESTDIR$manifest.tmp"
  mv -f "$DESTDIR$manifest.tmp" "$DESTDIR$manifest"

  local config=$DESTDIR$confdir/config.toml
  if [ -e "$config" ]; then
    say "kept your $confdir/config.toml (the new example is $sharedir/config.toml)"
  else
    local board
    board=$(detect_board)
    mkdir -p "$(dirname "$config")"
    if [ -n "$board" ]; then
      sed "s/^#board = .*/board = \"$board\"/" etc/config.toml >"$config.tmp"
      say "wrote $confdir/config.toml with board = \"$board\" (this machine's model)"
    else
      cp etc/config.toml "$config.tmp"
      say "wrote $confdir/config.toml: set board = \"...\" in it (pi-zero-2w, pi3bplus, pi4b, pi5)"
    fi
    chmod 0644 "$config.tmp"
    mv -f "$config.tmp" "$config"
  fi

  if $live; then
    create_user
    if $systemd_running; then
      systemctl daemon-reload
      if systemctl is-active --quiet tactus; then
        systemctl restart tactus
        say "restarted the running service with the new version"
      fi
      if systemctl is-active --quiet tactus-web; then
        systemctl restart tactus-web
      fi
    fi
  fi

  say "installed into ${DESTDIR:-/} (binaries $bindir/tactus and tactus-web, units $unitdir/tactus.service and tactus-web.service)"
  if [ -d "$DESTDIR$OVERLAY_DIR" ]; then
    say "compiled overlays into $OVERLAY_DIR"
    local boot_config
    boot_config=$(dirname "$DESTDIR$OVERLAY_DIR")/config.txt
    if $live && [ -f "$boot_config" ] && ! grep -Eq '^[[:space:]]*dtoverlay=tactus' "$boot_config"; then
      say "add to $boot_config, then reboot:"
      echo "    dtparam=i2c_arm=on"
      echo "    dtoverlay=tactus          # Pi 5: dtoverlay=tactus-pi5"
    fi
  else
    say "no $OVERLAY_DIR here: overlays not compiled (sources in $sharedir/overlays)"
  fi
  if $live && $systemd_running && ! systemctl is-enabled --quiet tactus 2>/dev/null; then
    say "next: tactus check --board <board>, then sudo systemctl enable --now tactus"
    say "the companion: sudo systemctl enable --now tactus-web (it listens only once switched on at the box: Menu > Settings > Companion)"
  fi
}

do_uninstall() {
  if $systemd_running && [ -e "$unitdir/tactus.service" ]; then
    systemctl disable --now tactus || true
  fi
  if $systemd_running && [ -e "$unitdir/tactus-web.service" ]; then
    systemctl disable --now tactus-web || true
  fi
  local dest files=()
  while read -r _ _ dest; do files+=("$dest"); done < <(plan)
  # dtbo files are planned only while the overlays folder exists; remove them by name anyway.
  local f
  for f in overlays/*.dts; do f=${f#overlays/}; files+=("$OVERLAY_DIR/${f%.dts}.dtbo"); done
  if [ -f "$DESTDIR$manifest" ]; then
    while read -r dest; do [ -n "$dest" ] && files+=("$dest"); done <"$DESTDIR$manifest"
  fi
  files+=("$manifest")
  for dest in "${files[@]}"; do rm -f -- "$DESTDIR$dest"; done
  local dir
  for dir in "$DESTDIR$sharedir"/voices/voice-*; do
    [ -d "$dir" ] && rmdir --ignore-fail-on-non-empty "$dir"
  done
  for dir in "$sharedir/boards" "$sharedir/overlays" "$sharedir/voices" "$sharedir/web" "$sharedir" "$docdir"; do
    [ -d "$DESTDIR$dir" ] && rmdir --ignore-fail-on-non-empty "$DESTDIR$dir"
  done
  $systemd_running && systemctl daemon-reload
  say "removed Tactus from ${DESTDIR:-/}"
  say "kept: $confdir (your config and boards), /var/lib/tactus (settings, sounds), the users tactus and tactus-web"
  say "(sudo userdel tactus) and the dtparam/dtoverlay lines in config.txt"
}

case "${1:-}" in
  install) do_install ;;
  uninstall) do_uninstall ;;
  *) echo "usage: scripts/install.sh install|uninstall" >&2; exit 2 ;;
esac
