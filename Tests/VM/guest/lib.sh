# SPDX-License-Identifier: GPL-3.0-or-later
# Shared by the guest's init and every scenario (busybox sh). Sourced, not run.
#
# Report lines (parsed by the host, see Tests/VM/README.md):
#   @@RESULT <scenario>.<check> PASS|FAIL|PENDING|SKIP <detail>
# A scenario ends with `finish`, which writes its verdict to $OUTDIR/status.

: "${OUTDIR:=/tmp}" "${SCENARIO:=setup}"
VM=/vm
TACTUS=/usr/bin/tactus
BOARD=/tmp/board.toml            # the test board, with the stub's real bus number
LINES=/tmp/lines                 # "name chip offset simdir direction idle" per GPIO line
RESULTS=/tmp/results.$SCENARIO
[ -f $VM/board.env ] && . $VM/board.env
[ -f /tmp/vm.env ] && . /tmp/vm.env

up() { cut -d' ' -f1 /proc/uptime; }
log() { echo "[$(up)] $*"; }

# busybox sh runs its own applets (it has i2cset, i2cget, i2cdump, i2cdetect) before $PATH;
# the real i2c-tools are called by absolute path so the checks use what Debian ships.
I2CSET=/usr/sbin/i2cset I2CGET=/usr/sbin/i2cget I2CDUMP=/usr/sbin/i2cdump I2CDETECT=/usr/sbin/i2cdetect

# ---------------------------------------------------------------- results
result() { # NAME STATUS DETAIL...
	n=$1 st=$2; shift 2
	echo "@@RESULT $SCENARIO.$n $st $*"
	echo "$st $n" >>"$RESULTS"
}
pass() { n=$1; shift; result "$n" PASS "$@"; }
fail() { n=$1; shift; result "$n" FAIL "$@"; }
# check NAME COMMAND...: PASS when the command succeeds.
check() { n=$1; shift; if "$@" >>"$OUTDIR/check.log" 2>&1; then pass "$n"; else fail "$n" "failed: $*"; fi; }
# check_eq NAME EXPECTED ACTUAL
check_eq() { if [ "$2" = "$3" ]; then pass "$1" "$3"; else fail "$1" "expected '$2', got '$3'"; fi; }

# The scenario's verdict: FAIL if any check failed, PASS if some passed, else FAIL (a
# scenario that checked nothing proved nothing).
finish() {
	if grep -q '^FAIL ' "$RESULTS" 2>/dev/null; then
		echo "FAIL $(grep -c '^FAIL ' "$RESULTS") failed" >"$OUTDIR/status"
	elif grep -q '^PASS ' "$RESULTS" 2>/dev/null; then
		echo "PASS" >"$OUTDIR/status"
	else
		echo "FAIL nothing-checked" >"$OUTDIR/status"
	fi
	exit 0
}
# pending REASON: the scenario cannot run yet (the application does not have the command);
# reported as PENDING, never as a pass.
pending() {
	result pending PENDING "$*"
	echo "PENDING $*" >"$OUTDIR/status"
	exit 0
}
# subcommands: what this tactus offers, from its --help (`tactus help X` answers even for
# an unknown X, so it cannot tell).
subcommands() { "$TACTUS" --help 2>&1 | awk '/SUBCOMMANDS/ {f = 1; next} f && /^  [a-z]/ {print $1}'; }
# require_command run|check: pending unless this tactus has the subcommand.
require_command() {
	subcommands | grep -qx "$1" || pending "tactus $1 does not exist yet in this build (it has: $(subcommands | tr '\n' ' '))"
}

# wait_until SECONDS COMMAND...: poll every 50 ms; non-zero when it never came true.
wait_until() {
	limit=$1; shift
	end=$(awk -v u="$(up)" -v l="$limit" 'BEGIN{print u + l}')
	while ! "$@" 2>/dev/null; do
		awk -v u="$(up)" -v e="$end" 'BEGIN{exit !(u > e)}' && return 1
		sleep 0.05
	done
}

# ---------------------------------------------------------------- GPIO (gpio-sim)
line_field() { awk -v n="$1" -v f="$2" '$1 == n {print $f; found=1} END{exit !found}' $LINES; }
simdir() { line_field "$1" 4 || { echo "no gpio-sim line named '$1'" >&2; echo /nonexistent; }; }
set_pull() { echo "$2" >"$(simdir "$1")/pull"; }
value() { cat "$(simdir "$1")/value"; }
idle() { line_field "$1" 6; }
# Inputs are switches: press drives the line to the level opposite its idle pull.
press() { case $(idle "$1") in pull-up) set_pull "$1" pull-down ;; *) set_pull "$1" pull-up ;; esac; }
release() { set_pull "$1" "$(idle "$1")"; }
click_button() { press "$1"; sleep "${2:-0.08}"; release "$1"; }
# gpioinfo_of LINE: gpioinfo's line for it ('line 3: "btn-tap" "tactus" input active-low [used]')
gpioinfo_of() { gpioinfo "$(line_field "$1" 2)" | awk -v o="$(line_field "$1" 3):" '$1 == "line" && $2 == o'; }
line_held() { gpioinfo_of "$1" | grep -q '\[used'; }

# Timed input: shell commands take tens of ms under TCG, so rhythms and fast turns are
# written as a script of timed `pull` writes and played by simio (guest/simio.c).
pressed_pull() { case $(idle "$1") in pull-up) echo pull-down ;; *) echo pull-up ;; esac; }
# encoder_script DETENTS STEP_MS [BOUNCES] [START_MS=100]: full quadrature cycles on enc-a /
# enc-b, one edge every STEP_MS. Positive DETENTS turn clockwise as QuadratureDecoder
# defines it (logical A,B: 00 -> 01 -> 11 -> 10, so B becomes active first); negative ones
# turn the other way. BOUNCES extra chatter transitions 0.2 ms apart before each edge
# settles, as a worn contact makes. Settled edges are paced (simio's gap field): one line's
# edges stay at least 1.5 steps apart however late a stalled CPU makes simio, so catching up
# never puts two edges of one line closer than the kernel can tell apart, nor turns slow
# detents into a fast flick.
encoder_script() {
	n=$1 step=$2 bounces=${3:-0} t=${4:-100}
	first=enc-b second=enc-a
	[ "$n" -lt 0 ] && { n=$((-n)); first=enc-a second=enc-b; }
	fa=$(simdir $first)/pull fb=$(simdir $second)/pull
	awk -v n="$n" -v step="$step" -v b="$bounces" -v t="$t" -v fa="$fa" -v fb="$fb" \
		-v on="$(pressed_pull enc-a)" -v off="$(idle enc-a)" 'BEGIN {
		split(fa " " on " " fb " " on " " fa " " off " " fb " " off, e, " ")
		for (i = 0; i < n; i++)
			for (k = 0; k < 4; k++) {
				f = e[2 * k + 1]; lvl = e[2 * k + 2]; other = (lvl == on) ? off : on
				for (j = 0; j < b; j++) { printf "%.3f %s %s\n%.3f %s %s\n", t, f, lvl, t + 0.1, f, other; t += 0.2 }
				printf "%.3f %s %s %.3f\n", t, f, lvl, 1.5 * step
				t += step
			}
	}'
}
# taps_script LINE COUNT INTERVAL_MS [HOLD_MS]: COUNT presses, one every INTERVAL_MS.
# Scripts start 100 ms in: simio's own start-up (locking its memory, first sysfs lookup)
# made a first event at 0 ms tens of ms late. Paced: a release comes HOLD_MS after its press
# really happened, a press at least 20 ms after the last release (see simio's gap field).
taps_script() {
	awk -v f="$(simdir "$1")/pull" -v n="$2" -v iv="$3" -v hold="${4:-40}" \
		-v on="$(pressed_pull "$1")" -v off="$(idle "$1")" 'BEGIN {
		for (i = 0; i < n; i++) printf "%.3f %s %s 20\n%.3f %s %s %d\n", 100 + i * iv, f, on, 100 + i * iv + hold, f, off, hold
	}'
}
# tapped_bpm DRIVE_LOG LINE: the tempo of the presses simio really made on LINE (from the
# W lines of its log: mean interval first to last press, as tap tempo averages), as
# "LOW HIGH": the whole BPM it rounds to, or both neighbours when it lies within 0.05 of a
# half (where rounding may go either way).
tapped_bpm() {
	awk -v f="$(simdir "$2")/pull" -v on="$(pressed_pull "$2")" '$1 == "W" && $4 == on && $5 == f {
		t = ($2 + $3) / 2; if (n == 0) first = t; last = t; n++ }
		END { if (n < 2) { print "0 0"; exit } bpm = 60e6 / ((last - first) / (n - 1)); fr = bpm - int(bpm)
			if (fr > 0.45 && fr < 0.55) print int(bpm), int(bpm) + 1; else { r = int(bpm + 0.5); print r, r } }' "$1"
}
# turn_encoder DETENTS [STEP_MS] [BOUNCES]
turn_encoder() { encoder_script "$1" "${2:-20}" "${3:-0}" | simio drive >>"$OUTDIR/simio.log"; }
# watch_outputs MS LINE...: transitions of output lines ("<us> <index> <value>") on stdout.
watch_outputs() { ms=$1; shift; files=; for l in "$@"; do files="$files $(simdir "$l")/value"; done; simio watch "$ms" $files; }

# ---------------------------------------------------------------- I2C tracing
# i2c-stub is a 256-byte register file: each SMBus block lands at its command byte's
# register and the next overwrites it, so what the display driver sent is read from the
# kernel's smbus trace events instead (every transfer, with its bytes).
TRACE=/sys/kernel/tracing
trace_i2c_start() {
	echo 0 >$TRACE/tracing_on
	echo 4096 >$TRACE/buffer_size_kb        # per CPU; a full frame is ~35 events
	echo >$TRACE/trace
	echo 1 >$TRACE/events/smbus/smbus_write/enable
	echo 1 >$TRACE/tracing_on
}
trace_i2c_stop() { # FILE
	echo 0 >$TRACE/events/smbus/smbus_write/enable
	grep smbus_write $TRACE/trace >"$1"
	echo >$TRACE/trace
}

# ---------------------------------------------------------------- audio (snd-aloop)
# The loopback's capture side of the board's playback device (hw:Loopback,0,N -> 1,N).
CAPTURE_DEVICE=$(echo "${BOARD_AUDIO_DEVICE:-hw:Loopback,0,0}" | sed 's/^hw:Loopback,0/hw:Loopback,1/')
# capture_start FILE SECONDS: records a WAV in the background (pid in CAPTURE_PID). The
# loopback forces both ends to one sample format, and tactus plays FLOAT_LE, so captures are
# 32-bit float (bit-exact with `tactus render --format f32`). The capture is the test's
# instrument, not the device under test: its own buffer is large (8 periods of 1024) so a
# busy host cannot make it overrun; a gap would show in the comparisons anyway.
CAPTURE_FORMAT=FLOAT_LE
capture_start() {
	timeout $(($2 + 10)) arecord -q -D "$CAPTURE_DEVICE" -f $CAPTURE_FORMAT -r "${BOARD_AUDIO_RATE:-48000}" \
		-c "${BOARD_AUDIO_CHANNELS:-2}" --period-size=1024 --buffer-size=8192 -d "$2" "$1" \
		2>"$1.log" &
	CAPTURE_PID=$!
}
capture_wait() { wait "$CAPTURE_PID"; }
# capture_stop: ends a capture now (SIGINT: arecord completes the WAV header), for captures
# that last as long as a command under test rather than a fixed time.
capture_stop() { kill -INT "$CAPTURE_PID" 2>/dev/null; wait "$CAPTURE_PID"; }
# host_check NAME SCRIPT ARGS...: asks the host to run Tests/VM/host/SCRIPT.py ARGS in this
# scenario's output folder after the VM stopped (audio analysis, TOML parsing: Python on the
# host, not busybox under TCG). Its verdict becomes the result NAME of this scenario; a file
# that never made it out fails there.
host_check() { n=$1; shift; echo "$n $*" >>"$OUTDIR/host-checks"; echo "@@HOSTCHECK $SCENARIO.$n $*"; }
audio_check() { n=$1; shift; host_check "$n" audio "$@"; }

# ---------------------------------------------------------------- the service
STATE=/tmp/state.$SCENARIO
# settings_bpm: the tempo in the service's saved settings (the settings file in the state
# folder: `bpm` of its [current] table, see SettingsFile); empty when not saved yet.
settings_bpm() {
	cat "$STATE"/*.toml 2>/dev/null | awk -F= '/^[ \t]*\[/ {cur = ($0 ~ /^[ \t]*\[current\]/)}
		cur && /^[ \t]*bpm[ \t]*=/ {v = $2; sub(/#.*/, "", v); gsub(/[ \t"]/, "", v); print v; exit}'
}
bpm_is() { v=$(settings_bpm); [ "$v" = "$1" ] || [ "$v" = "$1.0" ]; }
# wait_bpm SECONDS BPM: until the saved tempo is BPM (settings are saved a moment after a change).
wait_bpm() { wait_until "$1" bpm_is "$2"; }
# service_gone: our child exited (a zombie until waited for still answers kill -0).
service_gone() { [ ! -d "/proc/$SERVICE_PID" ] || grep -q '^[0-9]* (.*) Z' "/proc/$SERVICE_PID/stat"; }
# Ready when it says so ("ready in N ms" in its log): it holds its lines long before (they
# are requested first), and under load start-up takes seconds (5 s seen), so presses made
# after the lines were taken but before "ready" were handled seconds late.
service_ready() { { line_held btn-start && grep -q '\] ready' "$OUTDIR/service.log"; } || service_gone; }
# start_service [EXTRA ARGS]: tactus run on the test board, with a fresh state folder and a
# configuration file pointing its settings there; SERVICE_PID, output in $OUTDIR/service.log.
# Only the flags this tactus run offers are passed (--board, --config, --state), so the
# scenarios follow the command as it settles. Ready once it holds its input lines and has
# logged "ready" (see service_ready).
start_service() {
	rm -rf "$STATE" && mkdir -p "$STATE"
	config=/tmp/config.$SCENARIO.toml
	printf 'board = "%s"\nsettings_file = "%s/settings.toml"\n' "$BOARD" "$STATE" >"$config"
	# A scenario may add tables to the configuration and start from saved settings.
	[ -z "$CONFIG_EXTRA" ] || printf '%s\n' "$CONFIG_EXTRA" >>"$config"
	[ -z "$SETTINGS_SEED" ] || cp "$SETTINGS_SEED" "$STATE/settings.toml"
	help=$(timeout 10 "$TACTUS" run --help 2>&1)
	set -- "$@"
	case $help in *--state*) set -- --state "$STATE" "$@" ;; esac
	case $help in *--config*) set -- --config "$config" "$@" ;; esac
	case $help in *--board*) set -- --board "$BOARD" "$@" ;; esac
	echo "tactus run $*" >"$OUTDIR/service.cmd"
	$TACTUS run "$@" >"$OUTDIR/service.log" 2>&1 &
	SERVICE_PID=$!
	# 120 s: start-up took 3-5 s under load mode, 48 s with the host overloaded (load
	# average over 20 on 2 cores), most of it loading the 85 MB binary on the emulated CPU.
	if ! wait_until 120 service_ready || service_gone; then
		fail service-start "tactus run did not take its GPIO lines and say ready within 120 s (or exited): $(tail -3 "$OUTDIR/service.log" | tr '\n' ' ')"
		# Not left holding the lines for the next scenario.
		kill -KILL "$SERVICE_PID" 2>/dev/null
		wait "$SERVICE_PID" 2>/dev/null
		SERVICE_PID=
		return 1
	fi
}
# stop_service: SIGTERM, then up to 15 s for a graceful exit (SIGKILL after that);
# SERVICE_RC its exit status, STOP_SECS how long it took.
stop_service() {
	[ -n "$SERVICE_PID" ] || return 0
	t=$(up)
	kill -TERM "$SERVICE_PID" 2>/dev/null
	wait_until 15 service_gone || { kill -KILL "$SERVICE_PID" 2>/dev/null; log "tactus run ignored SIGTERM for 15 s: killed"; }
	wait "$SERVICE_PID"
	SERVICE_RC=$?
	STOP_SECS=$(awk -v a="$t" -v b="$(up)" 'BEGIN{printf "%.2f", b - a}')
	SERVICE_PID=
	return $SERVICE_RC
}

# Between scenarios: nothing of one scenario may leak into the next.
vm_cleanup_between_scenarios() {
	for p in $(pgrep -x tactus; pgrep -x arecord; pgrep -x aplay; pgrep -x simio; pgrep -x midiio; pgrep -x gpiomon; pgrep -x gpioset); do kill -KILL "$p" 2>/dev/null; done
	# A killed process releases its lines when it is gone, which takes a while on a starved CPU.
	wait_until 30 sh -c '! pgrep -x tactus && ! pgrep -x gpiomon && ! pgrep -x gpioset' >/dev/null
	while read -r name chip off dir direction idle; do
		if [ "$direction" = in ]; then echo "$idle" >"$dir/pull"; fi
	done <$LINES
	trace_i2c_stop /dev/null
	[ -d /proc/asound/Loopback ] || modprobe snd-aloop pcm_substreams=1
	true
}
