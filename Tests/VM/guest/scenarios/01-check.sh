# SPDX-License-Identifier: GPL-3.0-or-later
# Scenario 1: `tactus check` with the test board: every part ok, and what it says it did
# really happened at the kernel's interfaces: each LED and the buzzer pulsed once on
# gpio-sim, the test card went over SMBus blocks to the stub, the beep came out of the
# loopback.
. /vm/lib.sh
require_command check

# The capture and the watcher run until `tactus check` has finished (plus 0.3 s), not for a
# fixed time: under load its start-up alone took over 4 s, and a fixed 4 s watch and 5 s
# capture ended before its pulses and in the middle of its beep (14.7 ms of 150 captured).
capture_start /tmp/beep.wav 120
SIMIO_STALLS=/tmp/stalls.txt watch_outputs 120000 led-accent led-beat led-sub buzzer >/tmp/pulses.txt &
watcher=$!
trace_i2c_start
sleep 0.3
$TACTUS check --board $BOARD >"$OUTDIR/check-output.txt" 2>&1
rc=$?
sleep 0.3
trace_i2c_stop /tmp/smbus.txt
kill $watcher
wait $watcher
capture_stop
cp /tmp/pulses.txt "$OUTDIR/pulses.txt"
cp /tmp/stalls.txt "$OUTDIR/stalls.txt"
cp /tmp/smbus.txt "$OUTDIR/smbus-trace.txt"
cp /tmp/beep.wav "$OUTDIR/beep.wav"
sed 's/^/    /' "$OUTDIR/check-output.txt"

check_eq exit-status 0 "$rc"
for part in gpio display audio; do
	line=$(grep "^$part " "$OUTDIR/check-output.txt")
	case $line in "$part"*" ok "*) pass "$part-ok" "$line" ;; *) fail "$part-ok" "'$line'" ;; esac
done
# One pulse per output, in board order, about as long as the check asks (100 ms LEDs,
# 20 ms buzzer; gpio-sim's value is polled every 1 ms). The bounds widen only by the time
# the guest's CPU did not run around the pulse (the watcher's logged stalls overlapping
# [rise - 50 ms, fall + 1 ms], as in 05-leds): a stall can make either edge late.
i=0
for out in led-accent led-beat led-sub buzzer; do
	got=$(awk -v i=$i -v stalls=/tmp/stalls.txt 'BEGIN { while ((getline line < stalls) > 0) { split(line, g, " "); n++; from[n] = g[1]; to[n] = g[2] } }
		$2 == i && $3 == 1 {k++; on = $1} $2 == i && $3 == 0 && on {len = $1 - on; rise = on; fall = $1; on = 0}
		END { a = 0; for (j = 1; j <= n; j++) { lo = from[j] > rise - 50000 ? from[j] : rise - 50000; hi = to[j] < fall + 1000 ? to[j] : fall + 1000; if (hi > lo) a += hi - lo }
			printf "%d %d %d", k, len / 1000, a / 1000 }' /tmp/pulses.txt)
	set -- $got
	want_lo=80 want_hi=150
	[ $out = buzzer ] && want_lo=10 want_hi=60
	lo=$((want_lo - $3)) hi=$((want_hi + $3))
	if [ "$1" = 1 ] && [ "$2" -ge $lo ] && [ "$2" -le $hi ]; then pass "pulse-$out" "one pulse of $2 ms (guest stalls around it: $3 ms)"
	else fail "pulse-$out" "$1 pulse(s), last $2 ms long (want one of $want_lo-$want_hi ms, +-$3 ms of guest stalls)"; fi
	i=$((i + 1))
done
order=$(awk '$3 == 1 {printf "%s", $2}' /tmp/pulses.txt)
check_eq pulse-order 0123 "$order"
# The display got the test card: decoded on the host and compared pixel for pixel.
host_check test-card i2ctrace smbus-trace.txt --address "$BOARD_I2C_ADDR" --expect testcard
host_check beep audio tone beep.wav --hz 880 --ms 150
# A probe must not leave lines held.
check lines-released sh -c "! gpioinfo $(line_field btn-start 2) | grep -q '\[used'"

# Inputs are read through the real line requests: with TAP and START held down (pulled
# low, active low), check reports exactly those two as active. gpio-sim treats a bias
# request as its simulated pull (requesting pull-up "releases" a held switch, unlike real
# wiring where the switch to ground wins), so this run leaves the bias as it is.
sed '/^\[inputs\./a bias = "as-is"' $BOARD >/tmp/board-as-is.toml
press btn-tap
press btn-start
$TACTUS check --board /tmp/board-as-is.toml >"$OUTDIR/check-held.txt" 2>&1
release btn-tap
release btn-start
line=$(grep '^gpio ' "$OUTDIR/check-held.txt")
case $line in *"active now: start_stop, tap") pass inputs-read "$line" ;; *) fail inputs-read "'$line' (want active now: start_stop, tap)" ;; esac
finish
