# SPDX-License-Identifier: GPL-3.0-or-later
# Scenario 24: the coach listens live. `[coach] input` is the loopback's capture side of
# device 0 (hw:Loopback,0,0: what device 1's playback plays), while the box plays to device 0
# as always. coachtake (guest/coachtake.c) opens device 1 both ways, linked: it hears the
# box's clicks and, anchored on the first one, plays a take of 16 drum-like hits on the
# beats from the third click on, each off its click by a known offset (-30..+30 ms). snd-aloop
# moves both cables on one timer, so those offsets are the truth whatever the guest's
# scheduling. The service logs each judged hit (`coach: hit bar B beat N index I error_ms
# E`); host/coach.py checks every hit is judged on its beat, within 10 ms of its offset, the
# median deviation within 3 ms (emulation jitters by several ms; accuracy is proven offline).
. /vm/lib.sh
require_command run

# The board's playback device names device 0; its capture side hears device 1's playback.
COACH_DEVICE=${BOARD_AUDIO_DEVICE:-hw:Loopback,0,0}
CONFIG_EXTRA="[coach]
input = \"$COACH_DEVICE\"" start_service || finish
# The coach's capture is open (its format fixes the take's channels on the loopback).
check coach-capturing wait_until 10 grep -q "coach: capturing from '$COACH_DEVICE'" "$OUTDIR/service.log"
# 2 beats before the take, 16 hits and a beat after: 9.5 s of playing; 30 s at most.
timeout 30 coachtake "$CAPTURE_DEVICE" 120 16 /tmp/clicks.raw /tmp/truth.txt 2>"$OUTDIR/coachtake.log" &
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
cp /tmp/clicks.raw "$OUTDIR/" 2>/dev/null
check no-input-notice sh -c "! grep -q 'Coach input \(missing\|busy\|lost\)' '$OUTDIR/service.log'"
host_check hits-on-truth coach service.log truth.txt --tolerance 10 --median 3
finish
