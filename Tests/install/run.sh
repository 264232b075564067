#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Tests `make install` / `make uninstall` into temporary DESTDIRs with a stub binary (no build):
# where files land, the config never overwritten, overlays compiled only where an overlays
# folder exists, the board chosen from the device-tree model, PREFIX followed, stale files
# removed, uninstall keeping the user's config; the unit's required keys, checked by
# `systemd-analyze verify` when it is installed; and, as root, a live install (user, groups)
# inside a private mount namespace that leaves this machine unchanged. About 3 seconds.
# Then Tests/install/deb.sh: the Debian package (make deb), installed with dpkg the same way.
# Run by `make test` after the Swift tests, or alone: Tests/install/run.sh (or make test-install).
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh" install

# Runs `make install|uninstall` with the stub binary; extra arguments are make variables.
run_make() {
  local target=$1
  shift
  make --no-print-directory "$target" TACTUS_BINARY="$stub" "$@" >"$tmp/log" 2>&1 || fail "make $target $* failed"
}

stub=$tmp/stub-tactus
printf '#!/bin/sh\necho "tactus stub 1"\n' >"$stub"
chmod 0755 "$stub"
# The companion beside it, as a release build has it.
web_stub=$tmp/tactus-web
printf '#!/bin/sh\necho "tactus-web stub"\n' >"$web_stub"
chmod 0755 "$web_stub"

# --- 1. A plain install (no overlays folder, no model): every file where it belongs.
d=$tmp/plain
run_make install DESTDIR="$d"
expect_file "$d/usr/local/bin/tactus"
[ -x "$d/usr/local/bin/tactus" ] || fail "binary not executable"
expect_same "$stub" "$d/usr/local/bin/tactus"
for f in boards/*.toml boards/README.md; do expect_same "$f" "$d/usr/local/share/tactus/$f"; done
for f in overlays/*.dts overlays/README.md; do expect_same "$f" "$d/usr/local/share/tactus/$f"; done
# The voice sets, when `make voices` made them (make test does).
for f in voices/voice-*/voice.toml voices/voice-*/*.wav; do [ -f "$f" ] && expect_same "$f" "$d/usr/local/share/tactus/$f"; done
expect_same etc/config.toml "$d/usr/local/share/tactus/config.toml"
expect_same docs/install.md "$d/usr/local/share/doc/tactus/install.md"
expect_same systemd/tactus.service "$d/etc/systemd/system/tactus.service"
expect_same etc/config.toml "$d/etc/tactus/config.toml"
# The companion: its binary, its pages (where tactus-web looks: ../share/tactus/web), its unit.
expect_same "$web_stub" "$d/usr/local/bin/tactus-web"
[ -x "$d/usr/local/bin/tactus-web" ] || fail "tactus-web not executable"
for f in share/web/*; do expect_same "$f" "$d/usr/local/share/tactus/web/${f#share/web/}"; done
expect_same systemd/tactus-web.service "$d/etc/systemd/system/tactus-web.service"
ok
[ -z "$(find "$d" -name '*.dtbo')" ] || fail "overlays compiled although there is no overlays folder"
ok
[ -z "$(find "$d" -name '*.XXXXXX' -o -name '*.tmp')" ] || fail "temporary files left behind"
ok
# The manifest lists exactly the files installed, except the user's config.
(cd "$d" && find . -type f | sed 's/^\.//' | grep -vx /etc/tactus/config.toml | sort) >"$tmp/found"
sort "$d/usr/local/share/tactus/install-manifest" >"$tmp/listed"
cmp -s "$tmp/found" "$tmp/listed" || fail "install-manifest does not match the installed files: $(diff "$tmp/listed" "$tmp/found" || true)"
ok

# --- 2. The unit: required keys, then systemd's own check.
unit=$d/etc/systemd/system/tactus.service
for line in \
  "ExecStart=/usr/local/bin/tactus run --config /etc/tactus/config.toml --state /var/lib/tactus" \
  "User=tactus" "SupplementaryGroups=gpio i2c audio dialout" "LimitRTPRIO=95" "LimitMEMLOCK=infinity" \
  "Restart=on-failure" "StateDirectory=tactus" "ConfigurationDirectory=tactus" "KillSignal=SIGTERM" \
  "NoNewPrivileges=yes" "ProtectSystem=strict" "ProtectHome=yes" "PrivateTmp=yes" \
  "ProtectKernelTunables=yes" "ProtectKernelModules=yes" "ProtectControlGroups=yes" \
  "RestrictNamespaces=yes" "LockPersonality=yes" "RestrictRealtime=no" \
  "DeviceAllow=char-gpiochip rw" "DeviceAllow=char-i2c rw" "DeviceAllow=char-alsa rw" \
  "WantedBy=multi-user.target"; do
  grep -qxF -- "$line" "$unit" || fail "the unit lacks the line '$line'"
  ok
done
for key in RestartSec TimeoutStopSec; do
  grep -Eq "^$key=[0-9]+$" "$unit" || fail "the unit lacks $key=<seconds>"
  ok
done
! grep -Eq '^PrivateDevices=' "$unit" || fail "PrivateDevices would hide /dev/gpiochip*, /dev/i2c-*, /dev/snd/*"
ok
if command -v systemd-analyze >/dev/null; then
  # verify wants an executable ExecStart: point it at the stub. Any output (an unknown key, a
  # bad value) is a failure, although systemd-analyze itself exits 0 for some of them.
  sed "s#^ExecStart=/usr/local/bin/tactus #ExecStart=$stub #" "$unit" >"$tmp/tactus.service"
  if ! systemd-analyze verify "$tmp/tactus.service" >"$tmp/log" 2>&1 || [ -s "$tmp/log" ]; then
    fail "systemd-analyze verify reports problems in systemd/tactus.service"
  fi
  ok
  # Ableton Link needs the LAN: no PrivateNetwork, and exactly these address families; the
  # unit still scores at most 2.0.
  ! grep -Eq '^PrivateNetwork=' "$unit" || fail "PrivateNetwork= would cut Ableton Link off the LAN"
  grep -Eqx 'RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 AF_NETLINK' "$unit" ||
    fail "RestrictAddressFamilies must be AF_UNIX AF_INET AF_INET6 AF_NETLINK (Link: UDP and interface discovery)"
  score=$(systemd-analyze security --offline=yes "$tmp/tactus.service" 2>/dev/null | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')
  if [ -n "$score" ]; then
    awk -v s="$score" 'BEGIN { exit !(s <= 2.0) }' || fail "systemd-analyze security rates the unit $score (at most 2.0 allowed)"
  fi
  ok
else
  echo "install test: note: systemd-analyze not installed, unit checked by its keys only"
fi

# --- 3. A second install never overwrites the user's config, and updates the rest.
echo 'board = "my-box"   # edited by the user' >>"$d/etc/tactus/config.toml"
cp "$d/etc/tactus/config.toml" "$tmp/user-config"
printf '#!/bin/sh\necho "tactus stub 2"\n' >"$stub"
run_make install DESTDIR="$d"
expect_same "$tmp/user-config" "$d/etc/tactus/config.toml"
grep -q "kept your /etc/tactus/config.toml" "$tmp/log" || fail "the second install does not say it kept the config"
ok
expect_same "$stub" "$d/usr/local/bin/tactus"

# --- 4. Files an earlier version installed and this one does not are removed on update.
echo old >"$d/usr/local/share/tactus/boards/retired-board.toml"
echo /usr/local/share/tactus/boards/retired-board.toml >>"$d/usr/local/share/tactus/install-manifest"
run_make install DESTDIR="$d"
expect_absent "$d/usr/local/share/tactus/boards/retired-board.toml"

# --- 5. Overlays compiled when the overlays folder exists (the Pi's, or OVERLAY_DIR).
command -v dtc >/dev/null || fail "dtc is missing: scripts/install-deps.sh test (package device-tree-compiler)"
p=$tmp/pi
mkdir -p "$p/boot/firmware/overlays"
echo "dtoverlay=vc4-kms-v3d" >"$p/boot/firmware/overlays/keep.txt"
run_make install DESTDIR="$p"
for f in overlays/*.dts; do
  name=$(basename "$f" .dts)
  expect_file "$p/boot/firmware/overlays/$name.dtbo"
  dtc -I dtb -O dts "$p/boot/firmware/overlays/$name.dtbo" 2>/dev/null | grep -q TACTUS_TAP \
    || fail "$name.dtbo does not decompile to the overlay (no TACTUS_TAP line name)"
  ok
done
o=$tmp/custom
mkdir -p "$o/mnt/overlays"
run_make install DESTDIR="$o" OVERLAY_DIR=/mnt/overlays
expect_file "$o/mnt/overlays/tactus.dtbo"
expect_absent "$o/boot"

# --- 6. A new config names the board of the machine (device-tree model string).
for pair in "Raspberry Pi 4 Model B Rev 1.5:pi4b" "Raspberry Pi 5 Model B Rev 1.0:pi5" \
            "Raspberry Pi 3 Model B Plus Rev 1.3:pi3bplus" "Raspberry Pi Zero 2 W Rev 1.0:pi-zero-2w"; do
  model=${pair%:*} board=${pair##*:}
  m=$tmp/model-$board
  printf '%s\0' "$model" >"$tmp/model"
  DT_MODEL=$tmp/model run_make install DESTDIR="$m"
  grep -qx "board = \"$board\"" "$m/etc/tactus/config.toml" || fail "model '$model' did not give board = \"$board\""
  ok
  [ "$(diff etc/config.toml "$m/etc/tactus/config.toml" | grep -c '^[<>]')" = 2 ] || fail "more than the board line changed"
  ok
done
printf 'Raspberry Pi 500 Rev 1.0\0' >"$tmp/model"
DT_MODEL=$tmp/model run_make install DESTDIR="$tmp/unknown-model"
expect_same etc/config.toml "$tmp/unknown-model/etc/tactus/config.toml"

# --- 7. PREFIX moves the binary and the unit follows it.
u=$tmp/usr
run_make install DESTDIR="$u" PREFIX=/usr
expect_file "$u/usr/bin/tactus"
expect_file "$u/usr/share/tactus/boards/pi4b.toml"
grep -qx "ExecStart=/usr/bin/tactus run --config /etc/tactus/config.toml --state /var/lib/tactus" \
  "$u/etc/systemd/system/tactus.service" || fail "the unit does not follow PREFIX=/usr"
ok
grep -qx "ExecStart=/usr/bin/tactus-web --control /run/tactus/control.sock --spool /var/lib/tactus-web/spool" \
  "$u/etc/systemd/system/tactus-web.service" || fail "the companion's unit does not follow PREFIX=/usr"
expect_file "$u/usr/share/tactus/web/index.html"
ok
expect_absent "$u/usr/local"

# --- 8. Uninstall removes what install added, keeps the config and foreign files.
run_make uninstall DESTDIR="$d"
expect_same "$tmp/user-config" "$d/etc/tactus/config.toml"
left=$(cd "$d" && find . -type f)
[ "$left" = "./etc/tactus/config.toml" ] || fail "uninstall left: $left"
ok
expect_absent "$d/usr/local/share/tactus"
expect_absent "$d/usr/local/share/doc/tactus"
run_make uninstall DESTDIR="$d"   # a second uninstall is harmless
run_make uninstall DESTDIR="$p"
[ -z "$(find "$p" -name '*.dtbo')" ] || fail "uninstall left compiled overlays"
ok
expect_file "$p/boot/firmware/overlays/keep.txt"

# --- 9. Bad input: one clear line, non-zero exit, nothing installed.
if make --no-print-directory install DESTDIR="$tmp/bad" TACTUS_BINARY="$tmp/no-such-binary" >"$tmp/log" 2>&1; then
  fail "a missing TACTUS_BINARY was accepted"
fi
grep -q "TACTUS_BINARY '$tmp/no-such-binary' is not an executable file" "$tmp/log" || fail "unclear message for a missing binary"
ok
expect_absent "$tmp/bad"
rm "$web_stub"
if make --no-print-directory install DESTDIR="$tmp/bad" TACTUS_BINARY="$stub" >"$tmp/log" 2>&1; then
  fail "an install without the companion was accepted"
fi
grep -q "the companion '$web_stub' is not an executable file" "$tmp/log" || fail "unclear message for a missing tactus-web"
ok
expect_absent "$tmp/bad"
printf '#!/bin/sh\necho "tactus-web stub"\n' >"$web_stub"
chmod 0755 "$web_stub"
if PREFIX=usr DESTDIR="$tmp/bad" TACTUS_BINARY="$stub" scripts/install.sh install >"$tmp/log" 2>&1; then
  fail "a relative PREFIX was accepted"
fi
ok

# --- 10. A live install (DESTDIR empty) creates the user and its groups. Run as root in a
# private mount namespace with /etc and /usr/local behind overlays, so this machine is not
# changed; skipped where that is impossible (not root, no overlayfs).
live_test() {
  set -euo pipefail
  mount -t overlay overlay -o "lowerdir=/etc,upperdir=$tmp/live/etc-up,workdir=$tmp/live/etc-work" /etc
  mount -t overlay overlay -o "lowerdir=/usr/local,upperdir=$tmp/live/local-up,workdir=$tmp/live/local-work" /usr/local
  userdel tactus 2>/dev/null || true
  userdel tactus-web 2>/dev/null || true
  printf 'Raspberry Pi 5 Model B Rev 1.0\0' >"$tmp/model"
  OVERLAY_DIR=$tmp/live/boot/overlays DT_MODEL=$tmp/model TACTUS_BINARY=$stub scripts/install.sh install >"$tmp/log" 2>&1 \
    || fail "live install failed"
  [ "$(getent passwd tactus | cut -d: -f6,7)" = /var/lib/tactus:/usr/sbin/nologin ] || fail "no system user tactus"
  local group
  for group in gpio i2c audio; do
    id -nG tactus | tr ' ' '\n' | grep -qx "$group" || fail "tactus is not in the group $group"
  done
  # The companion's user is in no device group, only in tactus (the control socket).
  [ "$(id -nG tactus-web | tr ' ' '\n' | sort | tr '\n' ' ')" = "tactus tactus-web " ] || fail "tactus-web is in the groups $(id -nG tactus-web)"
  id -nG tactus | tr ' ' '\n' | grep -qx tactus-web || fail "tactus cannot read the companion's spool (not in the group tactus-web)"
  expect_same "$web_stub" /usr/local/bin/tactus-web
  expect_file /etc/systemd/system/tactus-web.service
  expect_same "$stub" /usr/local/bin/tactus
  grep -qx 'board = "pi5"' /etc/tactus/config.toml || fail "live install did not choose the board pi5"
  expect_file "$tmp/live/boot/overlays/tactus-pi5.dtbo"
  grep -q "dtoverlay=tactus" "$tmp/log" || fail "live install does not print the config.txt lines"
  OVERLAY_DIR=$tmp/live/boot/overlays TACTUS_BINARY=$stub scripts/install.sh install >"$tmp/log" 2>&1 \
    || fail "second live install failed"
  OVERLAY_DIR=$tmp/live/boot/overlays scripts/install.sh uninstall >"$tmp/log" 2>&1 || fail "live uninstall failed"
  expect_absent /usr/local/bin/tactus
  expect_absent /etc/systemd/system/tactus.service
  expect_absent /usr/local/bin/tactus-web
  expect_absent /etc/systemd/system/tactus-web.service
  expect_absent /usr/local/share/tactus/web
  expect_file /etc/tactus/config.toml
  echo "$checks" >"$tmp/live/checks"
}
mkdir -p "$tmp/live"/{etc-up,etc-work,local-up,local-work,boot/overlays}
echo "dtparam=audio=on" >"$tmp/live/boot/config.txt"
if [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null && command -v useradd >/dev/null \
   && unshare -m --propagation private sh -c "mount -t overlay overlay -o lowerdir=/etc,upperdir=$tmp/live/etc-up,workdir=$tmp/live/etc-work $tmp/live/boot" 2>/dev/null; then
  before=$(getent passwd tactus tactus-web || true; ls -l /usr/local/bin/tactus 2>/dev/null || true)
  export tmp stub web_stub checks
  export -f live_test fail ok expect_file expect_absent expect_same
  unshare -m --propagation private bash -c live_test || exit 1
  checks=$(cat "$tmp/live/checks")
  after=$(getent passwd tactus tactus-web || true; ls -l /usr/local/bin/tactus 2>/dev/null || true)
  [ "$before" = "$after" ] || fail "the live install test changed this machine"
  ok
else
  echo "install test: note: live install skipped (needs root, unshare and overlayfs)"
fi

echo "install test: $checks checks passed"

# The Debian package (make deb): contents, and dpkg install/upgrade/remove/purge as root.
"$repo/Tests/install/deb.sh"
