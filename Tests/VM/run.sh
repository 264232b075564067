#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Tactus VM integration suite (`make test-vm`): boots Debian's own kernel under QEMU with the
# kernel's device simulators (gpio-sim, i2c-stub, snd-aloop) standing in for the board, runs
# the guest scenarios (Tests/VM/guest/scenarios) against the static tactus binary and
# reports. See Tests/VM/README.md.
#
# Usage: Tests/VM/run.sh [--only GLOB] [--accel tcg|kvm|auto] [--no-build] [--selftest]
#        --selftest: `tactus run`/`check` are replaced by a shell stand-in to exercise the
#        harness's own plumbing (never a verdict on tactus; the report says so)
# Env:   TACTUS_VM_CACHE   work/cache folder (default: <repo>/.build-vm)
#        TACTUS_VM_GPIOD=2    the libgpiod 2 build (`make test-vm GPIOD=2`): its binary and
#                             libgpiod.so.3 go into the initramfs; kernel, module and base
#                             archive are shared, logs and results go to <cache>/gpiod2/
#        TACTUS_VM_REQUIRE=1  turn a skip (virtualization impossible) into a failure
#        TACTUS_VM_STRICT=1   turn pending scenarios into a failure
#        TACTUS_VM_TIMEOUT    seconds for the whole guest run (default 1500)
#        TACTUS_VM_SCENARIO_TIMEOUT  seconds per scenario inside the guest (default 150)
#        TACTUS_VM_MEM (MiB, default 512), TACTUS_VM_CPUS (default 1)
#        TACTUS_VM_LOAD=1     load mode: a CPU hog on every host core (nproc) from before
#                             the boot until the guest has finished (killed on every exit)
#        COACH_BLEED_RUNS     scenario 27's runs (default 20, as issue 31 asks; 2 for a quick
#                             try), passed to the guest on the kernel command line
# Exit:  0 all scenarios passed (or pending) or the suite was skipped; 1 a failure.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
ONLY='*'
ACCEL=${TACTUS_VM_ACCEL:-tcg}
# Under TCG the guest's clock follows the instructions it executes (icount), not the host's
# clock: a host that preempts QEMU then slows the whole guest down instead of stealing time
# from it behind its back (README, "Guest time"). "off" runs on host time.
ICOUNT=${TACTUS_VM_ICOUNT:-shift=1,sleep=off}
[ "$ICOUNT" = off ] && ICOUNT=
BUILD=1
SELFTEST=0
while [ $# -gt 0 ]; do
	case $1 in
	--only) ONLY=$2; shift 2 ;;
	--accel) ACCEL=$2; shift 2 ;;
	--no-build) BUILD=0; shift ;;
	--selftest) SELFTEST=1; shift ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "run.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
done

CACHE=${TACTUS_VM_CACHE:-$REPO/.build-vm}
GPIOD=${TACTUS_VM_GPIOD:-}
case $GPIOD in
'') RUN=$CACHE BACKEND="the system's libgpiod" ;;
2) RUN=$CACHE/gpiod2 BACKEND="libgpiod 2 (bookworm-backports, .build-deps/libgpiod2)" ;;
*) echo "run.sh: TACTUS_VM_GPIOD='$GPIOD': use 2 or nothing" >&2; exit 2 ;;
esac
MEM=${TACTUS_VM_MEM:-512}
CPUS=${TACTUS_VM_CPUS:-1}   # 1: fewer xruns on a busy 2-core host than 2 vCPUs (MTTCG), and faster
GUEST_TIMEOUT=${TACTUS_VM_TIMEOUT:-1500}
SCENARIO_TIMEOUT=${TACTUS_VM_SCENARIO_TIMEOUT:-150}
BLEED_RUNS=${COACH_BLEED_RUNS:-}
case $BLEED_RUNS in '' | [1-9] | [1-9][0-9]) ;; *) echo "run.sh: COACH_BLEED_RUNS='$BLEED_RUNS': use 1..99" >&2; exit 2 ;; esac
SWIFT=${SWIFT:-swift}
export DEBIAN_FRONTEND=noninteractive LC_ALL=C
SUDO=()
[ "$(id -u)" = 0 ] || SUDO=(sudo -n)
# Lock timeout: other apt runs on a shared CI machine are waited for, not failed on.
APT=("${SUDO[@]}" apt-get -q -o DPkg::Lock::Timeout=900)

T0=$(date +%s.%N)
T_PHASE=$T0
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.1f", b - a}'; }
phase() { local t; t=$(now); printf '[vm %6ss +%5ss] %s\n' "$(secs "$T0" "$t")" "$(secs "$T_PHASE" "$t")" "$*"; T_PHASE=$t; }
die() { echo "test-vm: ERROR: $*" >&2; exit 1; }
# Virtualization impossible here: say so loudly, and pass unless the caller requires the VM.
skip() {
	local bar='!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!'
	printf '\n%s\n!!! test-vm SKIPPED: %s\n!!! The VM integration scenarios did NOT run.\n%s\n\n' "$bar" "$*" "$bar" >&2
	[ "${TACTUS_VM_REQUIRE:-0}" = 1 ] && { echo "test-vm: TACTUS_VM_REQUIRE=1, so a skip is a failure" >&2; exit 1; }
	exit 0
}

mkdir -p "$RUN/logs"
LOG=$RUN/logs
phase "start (cache $CACHE, accel $ACCEL, only '$ONLY', GPIO backend: $BACKEND)"

# ---------------------------------------------------------------- 0. can this host do it?
[ "$(uname -s)" = Linux ] || skip "not a Linux host ($(uname -s))"
[ "$(uname -m)" = x86_64 ] || skip "host is $(uname -m): the suite boots an amd64 kernel with an amd64 tactus"
[ -d /dev ] && [ -e /dev/null ] || skip "no /dev on this host"
command -v dpkg-query >/dev/null || skip "not a Debian-based host (no dpkg): cannot fetch Debian's kernel"

# ---------------------------------------------------------------- 1. host packages
if ! "$REPO/scripts/install-deps.sh" vm >"$LOG/install-deps.log" 2>&1; then
	cat "$LOG/install-deps.log" >&2
	command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86 is not installed and could not be installed (see above)"
	die "installing the VM suite's Debian packages failed (see above)"
fi
command -v qemu-system-x86_64 >/dev/null || skip "no qemu-system-x86_64 after installing qemu-system-x86"
[ -x /bin/busybox ] || die "busybox-static did not provide /bin/busybox"
phase "host packages ready"

# ---------------------------------------------------------------- 2. the Debian kernel
# The guest runs the kernel Debian ships (linux-image-amd64's current ABI), extracted from
# its .deb, never installed. gpio-sim is built against the same ABI's headers.
apt_updated=0
apt_update_once() { [ $apt_updated = 1 ] || { "${APT[@]}" update >"$LOG/apt-update.log" 2>&1 || true; apt_updated=1; }; }
resolve_kver() {
	apt-cache depends linux-headers-amd64 2>/dev/null |
		awk '/Depends: linux-headers-[0-9]/{sub("linux-headers-", "", $2); print $2; exit}'
}
KVER=$(cat "$CACHE/kver" 2>/dev/null || true)
if [ -z "$KVER" ]; then
	KVER=$(resolve_kver)
	[ -n "$KVER" ] || { apt_update_once; KVER=$(resolve_kver); }
	[ -n "$KVER" ] || skip "cannot resolve Debian's kernel (apt-cache depends linux-headers-amd64 gave nothing)"
	echo "$KVER" >"$CACHE/kver"
fi
KSERIES=${KVER%%.0-*}
KDIR=$CACHE/kernel/$KVER
DEBS=$CACHE/debs
mkdir -p "$KDIR" "$DEBS"

fetch_kernel() {
	if ! dpkg-query -W -f='${Status}' "linux-headers-$KVER" 2>/dev/null | grep -q 'install ok installed'; then
		apt_update_once
		"${APT[@]}" install -y --no-install-recommends "linux-headers-$KVER" >"$LOG/apt-headers.log" 2>&1 || return 1
	fi
	local v
	v=$(dpkg-query -W -f='${Version}' "linux-headers-$KVER")
	if ! ls "$DEBS/linux-image-${KVER}_$v"_*.deb >/dev/null 2>&1 || ! ls "$DEBS/linux-source-${KSERIES}_$v"_*.deb >/dev/null 2>&1; then
		# apt's sandbox user cannot write into a root-owned cache folder.
		(cd "$DEBS" && "${APT[@]}" -o APT::Sandbox::User=root download "linux-image-$KVER=$v" "linux-source-$KSERIES=$v") \
			>"$LOG/apt-download.log" 2>&1 ||
			{ apt_update_once; (cd "$DEBS" && "${APT[@]}" -o APT::Sandbox::User=root download \
				"linux-image-$KVER=$v" "linux-source-$KSERIES=$v") >>"$LOG/apt-download.log" 2>&1; } || return 1
	fi
}
if ! fetch_kernel; then
	# Debian drops an old ABI from the archive at each point release: resolve it once more.
	old=$KVER
	apt_update_once
	KVER=$(resolve_kver)
	if [ -n "$KVER" ] && [ "$KVER" != "$old" ]; then
		echo "kernel ABI $old is gone from the archive; using $KVER"
		echo "$KVER" >"$CACHE/kver"
		KSERIES=${KVER%%.0-*} KDIR=$CACHE/kernel/$KVER
		mkdir -p "$KDIR"
		fetch_kernel || { tail -5 "$LOG"/apt-*.log; skip "cannot download Debian's kernel $KVER (no archive access?)"; }
	else
		tail -5 "$LOG"/apt-*.log
		skip "cannot install linux-headers-$KVER / download the kernel debs (no archive access?)"
	fi
fi
KPKGVER=$(dpkg-query -W -f='${Version}' "linux-headers-$KVER")
phase "kernel $KVER ($KPKGVER) debs cached"

KROOT=$KDIR/root
MODDIR=$KROOT/lib/modules/$KVER
if [ ! -e "$KROOT/boot/vmlinuz-$KVER" ]; then
	rm -rf "$KROOT"
	dpkg-deb -x "$DEBS/linux-image-${KVER}_${KPKGVER}"_*.deb "$KROOT"
fi
# The raw vmlinux boots through PVH and skips the guest's own xz decompression (~1 s of TCG).
VMLINUX=$KDIR/vmlinux
if [ ! -s "$VMLINUX" ]; then
	python3 - "$KROOT/boot/vmlinuz-$KVER" "$VMLINUX.tmp" <<'EOF' && mv "$VMLINUX.tmp" "$VMLINUX" || rm -f "$VMLINUX.tmp"
import lzma, sys
data = open(sys.argv[1], "rb").read()
at = data.find(b"\xfd7zXZ\x00")
if at < 0:
    sys.exit("no xz payload in the bzImage")
open(sys.argv[2], "wb").write(lzma.LZMADecompressor(format=lzma.FORMAT_XZ).decompress(data[at:]))
EOF
fi
KERNEL_IMAGE=$VMLINUX
[ -s "$KERNEL_IMAGE" ] || KERNEL_IMAGE=$KROOT/boot/vmlinuz-$KVER
for opt in CONFIG_GPIO_CDEV_V1=y CONFIG_I2C_STUB=m CONFIG_I2C_CHARDEV=m CONFIG_SND_ALOOP=m CONFIG_CONFIGFS_FS=m; do
	grep -q "^$opt\$" "$KROOT/boot/config-$KVER" || die "kernel $KVER lacks $opt, which the suite needs"
done
phase "kernel extracted"

# ---------------------------------------------------------------- 3. gpio-sim, out of tree
# Debian builds neither CONFIG_GPIO_SIM nor CONFIG_IRQ_SIM. Both sources come from the
# matching linux-source package and link into one module.
if [ ! -s "$MODDIR/extra/gpio-sim.ko" ]; then
	B=$KDIR/gpio-sim
	rm -rf "$B" && mkdir -p "$B/src"
	dpkg-deb --fsys-tarfile "$DEBS/linux-source-${KSERIES}_${KPKGVER}"_*.deb |
		tar -xO "./usr/src/linux-source-$KSERIES.tar.xz" |
		tar -xJ -C "$B/src" --strip-components=1 "linux-source-$KSERIES/drivers/gpio/gpio-sim.c" \
			"linux-source-$KSERIES/drivers/gpio/gpiolib.h" "linux-source-$KSERIES/kernel/irq/irq_sim.c"
	mkdir -p "$B/build"
	cp "$B/src/drivers/gpio/gpio-sim.c" "$B/build/gpio-sim-main.c"
	cp "$B/src/drivers/gpio/gpiolib.h" "$B/src/kernel/irq/irq_sim.c" "$B/build/"
	# irq_sim.c calls irq_to_desc(), which is not exported to modules; the exported
	# generic_handle_domain_irq() does the same lookup and handling (as later kernels do).
	sed -i -e '/irqnum = irq_find_mapping(work_ctx->domain, offset);/d' \
		-e 's/handle_simple_irq(irq_to_desc(irqnum));/generic_handle_domain_irq(work_ctx->domain, offset);/' \
		-e '/^\tint irqnum;$/d' "$B/build/irq_sim.c"
	grep -q generic_handle_domain_irq "$B/build/irq_sim.c" && ! grep -q irq_to_desc "$B/build/irq_sim.c" ||
		die "the irq_sim.c patch no longer applies to linux-source-$KSERIES $KPKGVER; update Tests/VM/run.sh"
	printf 'obj-m := gpio-sim.o\ngpio-sim-y := gpio-sim-main.o irq_sim.o\n' >"$B/build/Kbuild"
	make -C "/usr/src/linux-headers-$KVER" M="$B/build" modules >"$LOG/gpio-sim-build.log" 2>&1 ||
		{ tail -20 "$LOG/gpio-sim-build.log"; die "building gpio-sim failed"; }
	mkdir -p "$MODDIR/extra"
	strip --strip-debug -o "$MODDIR/extra/gpio-sim.ko" "$B/build/gpio-sim.ko"
	depmod -b "$KROOT" "$KVER"
fi
phase "gpio-sim.ko ready"

# ---------------------------------------------------------------- 4. tactus, static stdlib
# Its own scratch path: switching --static-swift-stdlib in .build would rebuild everything.
# .build-static, or .build-gpiod2 for libgpiod 2 (scripts/build-release.sh; make deb shares them).
TACTUS_BIN=$REPO/.build-static/release/tactus
[ "$GPIOD" = 2 ] && TACTUS_BIN=$REPO/.build-gpiod2/release/tactus
if [ $BUILD = 1 ]; then
	SWIFT=$SWIFT "$REPO/scripts/build-release.sh" $GPIOD \
		>"$LOG/swift-build.log" 2>&1 || { tail -30 "$LOG/swift-build.log"; die "swift build of the static tactus failed"; }
fi
[ -x "$TACTUS_BIN" ] || die "no $TACTUS_BIN (build it, or drop --no-build)"
# The libgpiod 2 build's libgpiod.so.3 is unpacked, not installed: ldd finds it there, and
# the guest gets it at the path the Debian package would use.
GPIOD_PREFIX=
if [ "$GPIOD" = 2 ]; then
	GPIOD_PREFIX=$REPO/.build-deps/libgpiod2
	readelf -d "$TACTUS_BIN" | grep -q 'NEEDED.*\[libgpiod\.so\.3\]' || die "$TACTUS_BIN does not link libgpiod.so.3"
fi
phase "tactus built ($(du -h "$TACTUS_BIN" | cut -f1))"

# ---------------------------------------------------------------- 5. initramfs
# Two archives, concatenated (the kernel unpacks both): a base part that only changes with
# the kernel or the host tools, cached; and the part under test, rebuilt every run.
HOST_TOOLS="gpiodetect gpioinfo gpioget gpioset gpiomon gpiofind i2cdetect i2cset i2cget i2cdump aplay arecord amixer aconnect ip tc"
# snd-seq-dummy (Midi Through) and snd-virmidi (a card whose rawmidi nodes and sequencer
# ports are joined) for the MIDI scenarios, which load them themselves; veth and sch_netem
# for the Link scenario.
MODULES="configfs gpio-sim i2c-dev i2c-stub snd-aloop snd-seq-dummy snd-virmidi snd-hrtimer virtio_pci 9pnet_virtio 9p veth sch_netem"
BASE=$KDIR/base.cpio.gz
base_key="$KVER $(md5sum /bin/busybox "$MODDIR/extra/gpio-sim.ko" | cut -c1-32 | tr '\n' ' ') $HOST_TOOLS $MODULES $(dpkg-query -W -f='${Version} ' gpiod i2c-tools alsa-utils libasound2 libc6 iproute2)"
if [ ! -s "$BASE" ] || [ "$(cat "$BASE.key" 2>/dev/null)" != "$base_key" ]; then
	R=$KDIR/base-root
	rm -rf "$R"
	mkdir -p "$R"/{bin,dev,proc,sys,tmp,out,root,etc,usr/bin,usr/sbin,usr/lib/x86_64-linux-gnu,usr/lib64,usr/share}
	ln -s usr/lib "$R/lib"
	ln -s usr/lib64 "$R/lib64"
	cp /bin/busybox "$R/bin/busybox"
	for t in $HOST_TOOLS; do
		p=$(command -v "$t") || die "host tool $t missing"
		case $p in */sbin/*) cp "$p" "$R/usr/sbin/" ;; *) cp "$p" "$R/usr/bin/" ;; esac
	done
	cp -a /usr/share/alsa "$R/usr/share/"   # alsa-lib reads alsa.conf even for hw: devices
	for m in $MODULES; do
		modprobe -d "$KROOT" -S "$KVER" --show-depends "$m" | awk '$1 == "insmod" {print $2}'
	done | sort -u | while read -r ko; do
		rel=${ko#"$MODDIR"/}
		mkdir -p "$R/usr/lib/modules/$KVER/$(dirname "$rel")"
		cp "$ko" "$R/usr/lib/modules/$KVER/$rel"
	done
	cp "$MODDIR"/modules.{order,builtin,builtin.modinfo} "$R/usr/lib/modules/$KVER/"
	depmod -b "$R" "$KVER"
	(cd "$R" && find . | busybox cpio -o -H newc 2>/dev/null) | gzip -1 >"$BASE"
	echo "$base_key" >"$BASE.key"
fi
A=$RUN/app-root
rm -rf "$A"
mkdir -p "$A/usr/bin" "$A/vm/scenarios"
# Stripped: half the size to pack and to load into guest RAM.
strip -o "$A/usr/bin/tactus" "$TACTUS_BIN"
# Scenario 24's drummer needs libasound (which tactus brings along): linked dynamically.
gcc -O2 -Wall -o "$A/usr/bin/coachtake" "$HERE/guest/coachtake.c" -lasound -lm || die "cannot build guest/coachtake.c"
# The shared libraries the static-stdlib binary and the tools still need, with the loader.
for f in "$A/usr/bin/tactus" "$A/usr/bin/coachtake" $(for t in $HOST_TOOLS; do command -v "$t"; done); do
	LD_LIBRARY_PATH=${GPIOD_PREFIX:+$GPIOD_PREFIX/usr/lib/x86_64-linux-gnu} ldd "$f" 2>/dev/null | grep -o '/[^ ]*' || true
done | sort -u | while read -r lib; do
	dest=$lib
	[ -n "$GPIOD_PREFIX" ] && dest=${lib#"$GPIOD_PREFIX"}
	mkdir -p "$A$(dirname "$dest")"
	cp -L "$lib" "$A$dest"
done
if [ $SELFTEST = 1 ]; then
	mv "$A/usr/bin/tactus" "$A/usr/bin/tactus.real"
	cp "$HERE/guest/selftest-standin.sh" "$A/usr/bin/tactus" && chmod +x "$A/usr/bin/tactus"
fi
gcc -O2 -Wall -static -o "$A/usr/bin/simio" "$HERE/guest/simio.c" || die "cannot build guest/simio.c"
gcc -O2 -Wall -static -o "$A/usr/bin/midiio" "$HERE/guest/midiio.c" || die "cannot build guest/midiio.c"
cp "$HERE/guest/init" "$A/init"
cp "$HERE"/guest/lib.sh "$HERE"/guest/midi.sh "$HERE"/guest/setup.sh "$A/vm/"
cp "$HERE"/guest/scenarios/*.sh "$A/vm/scenarios/"
cp "$HERE/vm-board.toml" "$A/vm/board.toml"
python3 "$HERE/host/board.py" "$HERE/vm-board.toml" "$A/vm" || die "cannot read the test board file"
chmod +x "$A/init"
# /lib is a symlink in the base archive: a real folder here would replace it.
if [ -d "$A/lib" ] && [ ! -L "$A/lib" ]; then cp -a "$A/lib/." "$A/usr/lib/" && rm -rf "$A/lib"; fi
if [ -d "$A/lib64" ] && [ ! -L "$A/lib64" ]; then mkdir -p "$A/usr/lib64" && cp -a "$A/lib64/." "$A/usr/lib64/" && rm -rf "$A/lib64"; fi
INITRD=$RUN/initrd.img
{
	cat "$BASE"
	(cd "$A" && find . | busybox cpio -o -H newc 2>/dev/null) | gzip -1
} >"$INITRD"
phase "initramfs ready ($(du -h "$INITRD" | cut -f1))"

# ---------------------------------------------------------------- 6. boot
accel_args() {
	case $1 in
	# nested KVM hosts often refuse MSR 0x10a unless arch-capabilities is hidden
	kvm) echo "-accel kvm -cpu host,-arch-capabilities" ;;
	*) echo "-accel tcg${ICOUNT:+ -icount $ICOUNT}" ;;
	esac
}
if [ "$ACCEL" = auto ]; then
	# /dev/kvm can open and still be unusable (see the notes): demand a quick real boot.
	ACCEL=tcg
	if [ -w /dev/kvm ]; then
		timeout 60 qemu-system-x86_64 -accel kvm -cpu host,-arch-capabilities -m 256 -nographic -no-reboot -net none \
			-kernel "$KERNEL_IMAGE" -initrd "$INITRD" -append "console=ttyS0 quiet panic=-1 tactus.only=none" \
			</dev/null >"$LOG/kvm-probe.log" 2>&1 || true
		grep -q '@@DONE' "$LOG/kvm-probe.log" && ACCEL=kvm
	fi
	phase "accel auto -> $ACCEL"
fi

OUT=$RUN/out
rm -rf "$OUT" && mkdir -p "$OUT"
CONSOLE=$LOG/console.log
# Load mode: the host as busy as a CI machine running builds, one busy loop per core, at
# normal priority, while the guest boots and runs the scenarios.
HOGS=()
stop_hogs() {
	local pid
	for pid in "${HOGS[@]}"; do kill "$pid" 2>/dev/null || true; done
	for pid in "${HOGS[@]}"; do wait "$pid" 2>/dev/null || true; done
	HOGS=()
}
if [ "${TACTUS_VM_LOAD:-0}" = 1 ]; then
	trap stop_hogs EXIT
	trap 'stop_hogs; exit 130' INT
	trap 'stop_hogs; exit 143' TERM
	for _ in $(seq "$(nproc)"); do
		bash -c 'while :; do :; done' &
		HOGS+=($!)
	done
	phase "load mode: ${#HOGS[@]} CPU hogs running (pids ${HOGS[*]})"
fi
# The guest's audio runs in real time on an emulated CPU: on a CI host whose cores are busy
# with builds, a higher priority for this one process keeps the loopback from xrunning.
NICE=
[ "$(id -u)" = 0 ] && NICE="nice -n -10"
phase "booting the guest (${ACCEL}, ${CPUS} vCPU, ${MEM} MiB, limit ${GUEST_TIMEOUT}s)"
T_BOOT=$(now)
set +e
# shellcheck disable=SC2046
$NICE timeout -k 5 "$GUEST_TIMEOUT" qemu-system-x86_64 $(accel_args "$ACCEL") -m "$MEM" -smp "$CPUS" \
	-nographic -no-reboot -net none -kernel "$KERNEL_IMAGE" -initrd "$INITRD" \
	-append "console=ttyS0 quiet panic=-1 tactus.only=$ONLY tactus.scenario_timeout=$SCENARIO_TIMEOUT${BLEED_RUNS:+ tactus.coach_bleed_runs=$BLEED_RUNS}" \
	-virtfs "local,path=$OUT,mount_tag=tactus_out,security_model=none" \
	</dev/null 2>&1 | while IFS= read -r line; do
		line=${line//$'\r'/}
		# Firmware escape codes can be glued to the first guest line: match @@ anywhere.
		case $line in
		*@@*) printf '@@%s host_s=%s\n' "${line#*@@}" "$(secs "$T_BOOT" "$(now)")" ;;
		*) printf '%s\n' "$line" ;;
		esac
	done >"$CONSOLE"
QEMU_RC=${PIPESTATUS[0]}
set -e
T_END=$(now)
[ ${#HOGS[@]} = 0 ] || { stop_hogs; phase "load mode: CPU hogs stopped"; }
phase "guest finished (qemu exit $QEMU_RC)"

# ---------------------------------------------------------------- 7. host-side checks + report
# Checks the guest asked for (host_check in guest/lib.sh): audio analysis and file parsing
# run here, after the VM stopped; the verdicts join the guest's results.
HOST_RESULTS=$OUT/host-results.txt
: >"$HOST_RESULTS"
for req in "$OUT"/*/host-checks; do
	[ -f "$req" ] || continue
	sc=$(basename "$(dirname "$req")")
	while read -r name script args; do
		# shellcheck disable=SC2086
		res=$(cd "$OUT/$sc" && python3 "$HERE/host/$script.py" $args 2>&1) && st=PASS || st=FAIL
		res=${res#PASS }
		echo "@@RESULT $sc.$name $st ${res#FAIL } (on the host: $script.py $args)" >>"$HOST_RESULTS"
	done <"$req"
done

python3 "$HERE/host/report.py" --console "$CONSOLE" --host-results "$HOST_RESULTS" --out "$OUT" \
	--qemu-rc "$QEMU_RC" --guest-timeout "$GUEST_TIMEOUT" --guest-secs "$(secs "$T_BOOT" "$T_END")" \
	--total-secs "$(secs "$T0" "$(now)")" --strict "${TACTUS_VM_STRICT:-0}" --selftest "$SELFTEST" \
	--load "${TACTUS_VM_LOAD:-0}"
