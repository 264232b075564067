# SPDX-License-Identifier: GPL-3.0-or-later
# Scenario 25: Menu > Coach > Calibrate, pressed on the wheel through gpio-sim. The coach
# listens on the loopback's capture side of device 0, where coachtake (guest/coachtake.c,
# echo mode) plays back what the box plays, half as loud and exactly 120 ms later (one
# snd-aloop timer moves both cables, so 120 ms is the true round trip to the frame): the
# speaker and microphone of a real box. The box must store a round trip of 120 ms within
# 3 ms in its settings file (`coach-round-trip-us`) and say so in its log, and learn the
# click's gain from the same clicks: -6.02 dB within 0.5 dB (`coach-click-gain-db`).
. /vm/lib.sh
require_command run

COACH_DEVICE=${BOARD_AUDIO_DEVICE:-hw:Loopback,0,0}
CONFIG_EXTRA="[coach]
input = \"$COACH_DEVICE\"" start_service || finish
check coach-capturing wait_until 10 grep -q "coach: capturing from '$COACH_DEVICE'" "$OUTDIR/service.log"
timeout 40 coachtake "$CAPTURE_DEVICE" echo 120 30 2>"$OUTDIR/coachtake.log" &
ECHO=$!
sleep 1
# Long push: the menu; five detents down to Coach; push; one down to Calibrate; push.
click_button enc-sw 1.0
sleep 0.5
turn_encoder 5 100
sleep 0.5
click_button enc-sw
sleep 1
turn_encoder 1 100
sleep 0.5
click_button enc-sw
# 16 clicks at 100 BPM and the wait for the last one's echo: about 11 s.
check calibrated wait_until 25 grep -q "coach: calibrat" "$OUTDIR/service.log"
grep "coach: calibrat" "$OUTDIR/service.log" >"$OUTDIR/calibration.txt"
us=$(sed -n 's/.*coach: calibrated, round trip \([0-9]*\) us.*/\1/p' "$OUTDIR/service.log" | tail -1)
if [ -n "$us" ] && [ "$us" -ge 117000 ] && [ "$us" -le 123000 ]; then pass round-trip-120ms "$us us"
else fail round-trip-120ms "want 120000 +- 3000 us, got '$us': $(cat "$OUTDIR/calibration.txt")"; fi
# Saved a moment after the change.
check saved wait_until 10 grep -q "coach-round-trip-us = $us" "$STATE/settings.toml"
# The click's gain learned from the same clicks: the echo is at half level, -6.02 dB.
db=$(sed -n 's/.*coach: calibrated, round trip [0-9]* us, click at \(-*[0-9.]*\) dB.*/\1/p' "$OUTDIR/service.log" | tail -1)
if [ -n "$db" ] && awk -v g="$db" 'BEGIN { exit !(g >= -6.5 && g <= -5.5) }'; then pass click-gain-6db "$db dB"
else fail click-gain-6db "want -6.02 +- 0.5 dB, got '$db': $(cat "$OUTDIR/calibration.txt")"; fi
check gain-saved wait_until 10 grep -q "coach-click-gain-db = $db" "$STATE/settings.toml"
kill "$ECHO" 2>/dev/null
wait "$ECHO" 2>/dev/null
check service-alive [ -d "/proc/$SERVICE_PID" ]
stop_service
check_eq exit-status 0 "$SERVICE_RC"
finish
