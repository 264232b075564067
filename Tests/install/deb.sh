#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Tests `make deb` with a stub binary (no build): the package's files, owners, control fields,
# conffile, unit and overlays; then, as root, the real thing with dpkg inside a private mount
# namespace (/etc, /usr and /var behind overlays, /boot and /run on tmpfs), so this machine
# is not changed: install (user, groups, enabled unit, overlays copied, board link), an upgrade
# that keeps the user's changed /etc/tactus/config.toml (also when the packaged one changed),
# removal and purge (everything postinst added is gone, pre-existing groups stay).
# Run by Tests/install/run.sh (make test, make test-install), or alone. About 10 seconds.
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh" deb

# dpkg-dev (dpkg-parsechangelog, dpkg-shlibdeps) and dtc, installed when missing.
scripts/install-deps.sh deb >"$tmp/log" 2>&1 || fail "scripts/install-deps.sh deb failed"
for tool in dpkg-deb dpkg-parsechangelog dtc; do
  command -v "$tool" >/dev/null || { echo "deb test: $tool missing: scripts/install-deps.sh deb" >&2; exit 1; }
done

version=$(dpkg-parsechangelog -l packaging/deb/changelog -SVersion)
arch=$(dpkg --print-architecture)
stub=$tmp/stub-tactus
printf '#!/bin/sh\necho "tactus stub 1"\n' >"$stub"
chmod 0755 "$stub"
# The companion's stub, beside it (make-deb.sh takes tactus-web from TACTUS_BINARY's folder).
printf '#!/bin/sh\necho "tactus-web stub 1"\n' >"$tmp/tactus-web"
chmod 0755 "$tmp/tactus-web"

# --- 1. make deb writes dist/tactus_VERSION_ARCH.deb (here into a temporary dist folder).
TACTUS_DEB_DIR=$tmp/dist1 make --no-print-directory deb TACTUS_BINARY="$stub" >"$tmp/log" 2>&1 || fail "make deb failed"
deb=$tmp/dist1/tactus_${version}_${arch}.deb
expect_file "$deb"

# --- 1b. lintian, where it is installed: no error, and no warning but the changelog's
# (a first upload closes no bug).
if command -v lintian >/dev/null; then
  lintian --tag-display-limit 0 "$deb" 2>/dev/null | grep -v 'initial-upload-closes-no-bugs' | grep -E '^(E|W):' >"$tmp/lintian" && \
    { cat "$tmp/lintian" >&2; fail "lintian finds problems in the package"; }
  ok
fi

# --- 2. Contents: every file where it belongs, owned by root.
dpkg-deb -c "$deb" >"$tmp/contents"
for path in ./usr/bin/tactus ./lib/systemd/system/tactus.service ./etc/tactus/config.toml \
  ./usr/bin/tactus-web ./lib/systemd/system/tactus-web.service ./usr/share/tactus/web/index.html ./usr/share/tactus/web/app.js \
  ./usr/share/tactus/config.toml ./usr/share/doc/tactus/copyright ./usr/share/doc/tactus/changelog.Debian.gz \
  ./usr/share/doc/tactus/install.md ./usr/share/tactus/boards/README.md ./usr/share/tactus/overlays/README.md; do
  grep -q " $path\$" "$tmp/contents" || fail "the package lacks $path"
  ok
done
for f in boards/*.toml overlays/*.dts; do
  grep -q " ./usr/share/tactus/$f\$" "$tmp/contents" || fail "the package lacks /usr/share/tactus/$f"
  ok
done
# The voice sets (make deb runs make voices): every WAV and voice.toml of each language.
for lang in en de; do
  grep -q " ./usr/share/tactus/voices/voice-$lang/voice.toml\$" "$tmp/contents" || fail "the package lacks voice-$lang"
  ok
done
for f in voices/voice-*/*.wav voices/voice-*/voice.toml; do
  grep -q " ./usr/share/tactus/$f\$" "$tmp/contents" || fail "the package lacks /usr/share/tactus/$f"
done
ok
for f in overlays/*.dts; do
  grep -q " ./usr/share/tactus/overlays/$(basename "$f" .dts).dtbo\$" "$tmp/contents" || fail "the package lacks the compiled $(basename "$f" .dts).dtbo"
  ok
done
! awk '{print $2}' "$tmp/contents" | grep -qv '^root/root$' || fail "files not owned by root/root: $(awk '$2 != "root/root"' "$tmp/contents")"
ok
! grep -q '/usr/local' "$tmp/contents" || fail "the package installs into /usr/local"
ok
grep -q '^-rwxr-xr-x .* ./usr/bin/tactus$' "$tmp/contents" || fail "/usr/bin/tactus is not 0755"
ok

x=$tmp/x
dpkg-deb -R "$deb" "$x"
expect_same "$stub" "$x/usr/bin/tactus"
[ "$(cat "$x/DEBIAN/conffiles")" = /etc/tactus/config.toml ] || fail "conffiles is not exactly /etc/tactus/config.toml"
ok
field() { dpkg-deb -f "$deb" "$1"; }
[ "$(field Package)" = tactus ] && [ "$(field Version)" = "$version" ] && [ "$(field Architecture)" = "$arch" ] || fail "control fields: $(dpkg-deb -f "$deb")"
ok
depends=$(field Depends)
for dep in adduser libasound2 libi2c0; do
  case ", $depends," in *", $dep"[\ ,]*) ok ;; *) fail "Depends lacks $dep: $depends" ;; esac
done
case $depends in *libgpiod2*|*libgpiod3*) ok ;; *) fail "Depends names no libgpiod runtime: $depends" ;; esac
for script in postinst prerm postrm; do
  [ -x "$x/DEBIAN/$script" ] || fail "DEBIAN/$script missing or not executable"
  sh -n "$x/DEBIAN/$script" || fail "DEBIAN/$script has a syntax error"
  ok
done
grep -qx 'ExecStart=/usr/bin/tactus run --config /etc/tactus/config.toml --state /var/lib/tactus' "$x/lib/systemd/system/tactus.service" \
  || fail "the packaged unit does not start /usr/bin/tactus"
ok
! grep -q /usr/local "$x/lib/systemd/system/tactus.service" "$x/etc/tactus/config.toml" || fail "the unit or the config names /usr/local"
ok
head -1 "$x/usr/share/doc/tactus/copyright" | grep -qx 'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' \
  || fail "copyright is not machine-readable (DEP-5)"
ok
gzip -dc "$x/usr/share/doc/tactus/changelog.Debian.gz" | head -1 | grep -q "^tactus ($version)" || fail "changelog.Debian.gz does not start with this version"
ok
dtc -I dtb -O dts "$x/usr/share/tactus/overlays/tactus.dtbo" 2>/dev/null | grep -q TACTUS_TAP || fail "tactus.dtbo does not decompile to the overlay"
ok

# --- 3. dpkg for real, in a private mount namespace (root only).
live_test() {
  set -euo pipefail
  local d
  for d in etc usr var; do
    mkdir -p "$tmp/ns/$d-up" "$tmp/ns/$d-work"
    mount -t overlay overlay -o "lowerdir=/$d,upperdir=$tmp/ns/$d-up,workdir=$tmp/ns/$d-work" "/$d"
  done
  mount -t tmpfs tmpfs /boot
  mount -t tmpfs tmpfs /run
  mkdir -p /boot/firmware/overlays
  echo "dtparam=audio=on" >/boot/firmware/config.txt
  echo "keep" >/boot/firmware/overlays/other.dtbo
  userdel tactus 2>/dev/null || true
  groupdel gpio 2>/dev/null || true
  # /etc is an overlay here: without an audio group postinst creates it, and purge must remove it.
  groupdel audio 2>/dev/null || true
  local had_i2c=false
  getent group i2c >/dev/null && had_i2c=true
  export DEBIAN_FRONTEND=noninteractive
  printf 'Raspberry Pi 4 Model B Rev 1.5\0' >"$tmp/model"

  # Install.
  DT_MODEL=$tmp/model dpkg -i "$deb" >"$tmp/log" 2>&1 || fail "dpkg -i failed"
  dpkg-query -W -f='${Status} ${Version}' tactus | grep -qx "install ok installed $version" || fail "dpkg does not list tactus $version as installed"
  ok
  expect_same "$stub" /usr/bin/tactus
  expect_file /lib/systemd/system/tactus.service
  expect_file /usr/share/tactus/boards/pi4b.toml
  expect_same "$x/etc/tactus/config.toml" /etc/tactus/config.toml
  [ "$(getent passwd tactus | cut -d: -f6,7)" = /var/lib/tactus:/usr/sbin/nologin ] || fail "no system user tactus (home /var/lib/tactus, nologin)"
  ok
  [ "$(id -u tactus)" -lt 1000 ] || fail "tactus is not a system user (uid $(id -u tactus))"
  ok
  local group
  for group in gpio i2c audio; do
    id -nG tactus | tr ' ' '\n' | grep -qx "$group" || fail "tactus is not in the group $group"
    ok
  done
  [ "$(readlink /etc/systemd/system/multi-user.target.wants/tactus.service)" = /lib/systemd/system/tactus.service ] \
    || fail "the unit is not enabled (no multi-user.target.wants link)"
  ok
  # The companion: its own system user in no device group (only tactus, for the control
  # socket), its unit enabled (it listens only once switched on at the box).
  [ "$(getent passwd tactus-web | cut -d: -f6,7)" = /var/lib/tactus-web:/usr/sbin/nologin ] || fail "no system user tactus-web"
  ok
  [ "$(id -nG tactus-web | tr ' ' '\n' | sort | tr '\n' ' ')" = "tactus tactus-web " ] || fail "tactus-web is in other groups: $(id -nG tactus-web)"
  ok
  id -nG tactus | tr ' ' '\n' | grep -qx tactus-web || fail "tactus cannot read the companion's uploads (not in the group tactus-web)"
  ok
  [ "$(readlink /etc/systemd/system/multi-user.target.wants/tactus-web.service)" = /lib/systemd/system/tactus-web.service ] \
    || fail "tactus-web.service is not enabled"
  ok
  grep -qx 'ExecStart=/usr/bin/tactus-web --control /run/tactus/control.sock --spool /var/lib/tactus-web/spool' /lib/systemd/system/tactus-web.service \
    || fail "tactus-web.service does not start /usr/bin/tactus-web"
  ok
  expect_same "$x/usr/share/tactus/overlays/tactus.dtbo" /boot/firmware/overlays/tactus.dtbo
  expect_same "$x/usr/share/tactus/overlays/tactus-pi5.dtbo" /boot/firmware/overlays/tactus-pi5.dtbo
  [ "$(cat /boot/firmware/config.txt)" = "dtparam=audio=on" ] || fail "postinst edited config.txt"
  ok
  grep -q "dtparam=i2c_arm=on" "$tmp/log" && grep -q "dtoverlay=tactus" "$tmp/log" || fail "postinst does not print the config.txt lines"
  ok
  [ "$(readlink /etc/tactus/board.toml)" = /usr/share/tactus/boards/pi4b.toml ] || fail "no board link for a Pi 4 (/etc/tactus/board.toml)"
  ok

  # The user changes the configuration; an upgrade keeps it.
  echo 'board = "my-box"   # edited by the user' >>/etc/tactus/config.toml
  cp /etc/tactus/config.toml "$tmp/user-config"
  dpkg -i "$deb2" >"$tmp/log" 2>&1 || fail "the upgrade (dpkg -i of version $version+test2) failed"
  dpkg-query -W -f='${Version}' tactus | grep -qx "$version+test2" || fail "not upgraded to $version+test2"
  ok
  expect_same "$stub2" /usr/bin/tactus
  expect_same "$tmp/user-config" /etc/tactus/config.toml
  expect_absent /etc/tactus/config.toml.dpkg-new
  # A later version whose own config.toml changed too: the user's stays (dpkg's --force-confold,
  # what apt does non-interactively) and the new one is put beside it.
  dpkg --force-confdef --force-confold -i "$deb3" >"$tmp/log" 2>&1 || fail "the upgrade to $version+test3 (changed config) failed"
  expect_same "$tmp/user-config" /etc/tactus/config.toml
  expect_same "$x3/etc/tactus/config.toml" /etc/tactus/config.toml.dpkg-dist
  rm -f /etc/tactus/config.toml.dpkg-dist
  # Still one user and one enable link after upgrades.
  [ "$(getent passwd | grep -c '^tactus:')" = 1 ] || fail "more than one tactus user"
  ok

  # Remove: program, unit and copied overlays go; config, user and the enable state stay.
  mkdir -p /var/lib/tactus && echo "[current]" >/var/lib/tactus/settings.toml
  dpkg -r tactus >"$tmp/log" 2>&1 || fail "dpkg -r failed"
  expect_absent /usr/bin/tactus
  expect_absent /lib/systemd/system/tactus.service
  expect_absent /usr/share/tactus
  expect_absent /boot/firmware/overlays/tactus.dtbo
  expect_absent /boot/firmware/overlays/tactus-pi5.dtbo
  expect_file /boot/firmware/overlays/other.dtbo
  expect_same "$tmp/user-config" /etc/tactus/config.toml
  getent passwd tactus >/dev/null || fail "dpkg -r removed the user (only purge does)"
  ok

  # Purge: everything postinst added is gone; a group that existed before stays.
  dpkg -P tactus >"$tmp/log" 2>&1 || fail "dpkg -P failed"
  dpkg-query -W tactus >/dev/null 2>&1 && fail "dpkg still knows tactus after purge"
  ok
  expect_absent /etc/tactus
  expect_absent /var/lib/tactus
  expect_absent /var/lib/tactus-package
  ! getent passwd tactus >/dev/null || fail "purge left the user tactus"
  ok
  ! getent passwd tactus-web >/dev/null || fail "purge left the user tactus-web"
  ok
  ! getent group tactus-web >/dev/null || fail "purge left the group tactus-web"
  ok
  ! getent group tactus >/dev/null || fail "purge left the group tactus"
  ok
  ! getent group gpio >/dev/null || fail "purge left the gpio group postinst created"
  ok
  ! getent group audio >/dev/null || fail "purge left the audio group postinst created"
  ok
  if $had_i2c; then getent group i2c >/dev/null || fail "purge removed the i2c group, which existed before"; ok; fi
  [ -z "$(find /etc/systemd -name 'tactus*' 2>/dev/null)" ] || fail "purge left $(find /etc/systemd -name 'tactus*')"
  ok
  echo "$checks" >"$tmp/ns/checks"
}

if [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null && command -v dpkg >/dev/null \
   && unshare -m --propagation private sh -c "mkdir -p $tmp/probe/u $tmp/probe/w && mount -t overlay overlay -o lowerdir=/etc,upperdir=$tmp/probe/u,workdir=$tmp/probe/w $tmp/probe" 2>/dev/null; then
  # Two later versions: a new binary; then also a changed config.toml.
  stub2=$tmp/stub2
  printf '#!/bin/sh\necho "tactus stub 2"\n' >"$stub2"
  chmod 0755 "$stub2"
  TACTUS_DEB_VERSION=$version+test2 TACTUS_DEB_DIR=$tmp/dist2 TACTUS_BINARY=$stub2 scripts/make-deb.sh >"$tmp/log" 2>&1 || fail "make deb (version 2) failed"
  deb2=$tmp/dist2/tactus_${version}+test2_${arch}.deb
  x3=$tmp/x3
  dpkg-deb -R "$deb2" "$x3"
  sed -i "s/^Version: .*/Version: $version+test3/" "$x3/DEBIAN/control"
  echo "# a new example line in version 3" >>"$x3/etc/tactus/config.toml"
  (cd "$x3" && find . -path ./DEBIAN -prune -o -type f -print | sed 's#^\./##' | LC_ALL=C sort | xargs md5sum) >"$x3/DEBIAN/md5sums"
  deb3=$tmp/tactus_${version}+test3_${arch}.deb
  dpkg-deb --root-owner-group --build "$x3" "$deb3" >/dev/null
  before=$(getent passwd tactus || true; getent group gpio || true; dpkg-query -W tactus 2>/dev/null || true; ls /boot 2>/dev/null || true)
  export tmp deb deb2 deb3 x x3 stub stub2 version checks test_name
  export -f live_test fail ok expect_file expect_absent expect_same
  unshare -m --propagation private bash -c live_test || exit 1
  checks=$(cat "$tmp/ns/checks")
  after=$(getent passwd tactus || true; getent group gpio || true; dpkg-query -W tactus 2>/dev/null || true; ls /boot 2>/dev/null || true)
  [ "$before" = "$after" ] || fail "the package test changed this machine"
  ok
else
  echo "deb test: note: dpkg install/upgrade/purge skipped (needs root, unshare and overlayfs)"
fi

echo "deb test: $checks checks passed"
