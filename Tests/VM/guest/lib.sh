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
# require_command run|check: pending unless this tactus has the subcommand.
require_command() {
	"$TACTUS" help "$1" >/dev/null 2>&1 || "$TACTUS" "$1" --help >/dev/null 2>&1 ||
		pending "tactus $1 does not exist yet in this build ($("$TACTUS" --help 2>&1 | awk '/SUBCOMMANDS/{f=1;next} f&&/^  [a-z]/{printf "%s ", $1}'))"
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

# turn_encoder DETENTS [STEP_S] [BOUNCES]: full quadrature cycles on enc-a/enc-b (active
# low: A falls first for a clockwise detent). Negative DETENTS turn the other way. BOUNCES
# extra chatter transitions per edge, as a worn mechanical contact makes.
turn_encoder() {
	n=$1 step=${2:-0.02} bounces=${3:-0}
	first=enc-a second=enc-b
	[ "$n" -lt 0 ] && { n=$((-n)); first=enc-b second=enc-a; }
	i=0
	while [ $i -lt "$n" ]; do
		for edge in "$first press" "$second press" "$first release" "$second release"; do
			set -- $edge
			b=0
			while [ $b -lt "$bounces" ]; do $2 "$1"; if [ "$2" = press ]; then release "$1"; else press "$1"; fi; b=$((b + 1)); done
			$2 "$1"
			sleep "$step"
		done
		i=$((i + 1))
	done
}

# ---------------------------------------------------------------- audio (snd-aloop)
# The loopback's capture side of the board's playback device (hw:Loopback,0,N -> 1,N).
CAPTURE_DEVICE=$(echo "${BOARD_AUDIO_DEVICE:-hw:Loopback,0,0}" | sed 's/^hw:Loopback,0/hw:Loopback,1/')
# capture_start FILE SECONDS: records in the background (pid in CAPTURE_PID). Period and
# buffer as on the board: 256-frame periods are reliable on the loopback under TCG.
capture_start() {
	timeout $(($2 + 10)) arecord -q -D "$CAPTURE_DEVICE" -f S16_LE -r "${BOARD_AUDIO_RATE:-48000}" \
		-c "${BOARD_AUDIO_CHANNELS:-2}" --period-size="${BOARD_AUDIO_PERIOD:-256}" \
		--buffer-size=$((${BOARD_AUDIO_PERIOD:-256} * ${BOARD_AUDIO_PERIODS:-4})) -d "$2" "$1" \
		2>"$1.log" &
	CAPTURE_PID=$!
}
capture_wait() { wait "$CAPTURE_PID"; }
# audio_check NAME ARGS...: asks the host to analyse a capture (Tests/VM/host/audio.py ARGS,
# paths relative to this scenario's output folder); its verdict comes back as a result of
# this scenario. A missing capture is a failure there too.
audio_check() { n=$1; shift; echo "$n $*" >>"$OUTDIR/audio-checks"; echo "@@AUDIOCHECK $SCENARIO.$n $*"; }

# ---------------------------------------------------------------- the service
# start_service [EXTRA ARGS]: tactus run on the test board with a fresh state folder;
# SERVICE_PID, output in $OUTDIR/service.log.
start_service() {
	mkdir -p /tmp/state.$SCENARIO
	$TACTUS run --board $BOARD --state /tmp/state.$SCENARIO "$@" >"$OUTDIR/service.log" 2>&1 &
	SERVICE_PID=$!
	# Ready when it holds its input lines (so the first edge is seen) or gave up.
	wait_until 30 line_held btn-start || { fail service-start "tactus run did not take its GPIO lines in 30 s"; tail -5 "$OUTDIR/service.log" | sed 's/^/    /'; return 1; }
}
stop_service() {
	[ -n "$SERVICE_PID" ] || return 0
	kill -TERM "$SERVICE_PID" 2>/dev/null
	wait_until 15 sh -c "! kill -0 $SERVICE_PID" || kill -KILL "$SERVICE_PID" 2>/dev/null
	wait "$SERVICE_PID"; SERVICE_RC=$?
	SERVICE_PID=
	return $SERVICE_RC
}

# Between scenarios: nothing of one scenario may leak into the next.
vm_cleanup_between_scenarios() {
	for p in $(pgrep -x tactus; pgrep -x arecord; pgrep -x aplay); do kill -KILL "$p" 2>/dev/null; done
	while read -r name chip off dir direction idle; do
	if [ "$direction" = in ]; then echo "$idle" >"$dir/pull"; fi
done <$LINES
	[ -d /proc/asound/Loopback ] || modprobe snd-aloop pcm_substreams=1
	true
}
