# SPDX-License-Identifier: GPL-3.0-or-later
# Scenario 26: the coach with the box's own click in its microphone. As scenario 24, but
# coachtake mixes the box's clicks back into the take at a quarter of their level (-12 dB),
# 100 ms later (a speaker the microphone hears), and plays its hits 100 ms later too; the
# box starts from settings that hold that round trip (`coach-round-trip-us = 100000`, as
# Menu > Coach > Calibrate would store it). The live listener subtracts its own output: every
# hit judged within 10 ms of its offset (median within 3 ms) and no click judged a hit
# (host/coach.py fails on any extra hit) but on the first 2 beats, before the take, while the
# listener learns the click's gain (reported, allowed: --learning-beats 2).
. /vm/lib.sh
require_command run

COACH_DEVICE=${BOARD_AUDIO_DEVICE:-hw:Loopback,0,0}
printf 'schema = 1\n[preferences]\ncoach-round-trip-us = 100000\n' >/tmp/settings.26.toml
SETTINGS_SEED=/tmp/settings.26.toml CONFIG_EXTRA="[coach]
input = \"$COACH_DEVICE\"" start_service || finish
check coach-capturing wait_until 10 grep -q "coach: capturing from '$COACH_DEVICE'" "$OUTDIR/service.log"
timeout 30 coachtake "$CAPTURE_DEVICE" 120 16 /tmp/clicks.raw /tmp/truth.txt 100 2>"$OUTDIR/coachtake.log" &
TAKE=$!
sleep 1
click_button btn-start
wait "$TAKE"
check_eq take-played 0 $?
sleep 0.5
check service-alive [ -d "/proc/$SERVICE_PID" ]
stop_service
check_eq exit-status 0 "$SERVICE_RC"
cp /tmp/truth.txt "$OUTDIR/" 2>/dev/null
host_check hits-on-truth coach service.log truth.txt --tolerance 10 --median 3 --learning-beats 2
finish
