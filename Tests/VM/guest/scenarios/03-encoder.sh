# SPDX-License-Identifier: GPL-3.0-or-later
# Scenario 3: the tempo wheel through gpio-sim: slow clean detents and bouncy detents move
# the tempo by exactly one BPM each; a fast flick accelerates; the clicks follow.
. /vm/lib.sh
require_command run

start_service || finish
click_button btn-start
sleep 1
# Slow: 400 ms per detent (100 ms per edge), 2.5 detents/s: below TempoWheel's slowRate
# (5/s) even when an emulated-CPU stall of ~50 ms squeezes two detents together.
turn_encoder 5 100
wait_bpm 10 125 && pass slow-clean-5 "120 -> 125" || fail slow-clean-5 "saved tempo '$(settings_bpm)', want 125"
# Contact bounce (3 chatter transitions per edge) must not add or lose detents.
turn_encoder 5 100 3
wait_bpm 10 130 && pass slow-bouncy-5 "125 -> 130" || fail slow-bouncy-5 "saved tempo '$(settings_bpm)', want 130"
turn_encoder -3 100
wait_bpm 10 127 && pass slow-back-3 "130 -> 127" || fail slow-back-3 "saved tempo '$(settings_bpm)', want 127"
# Captured clicks at the new tempo, well after the change.
capture_start /tmp/capture.wav 4
capture_wait
cp /tmp/capture.wav "$OUTDIR/capture-127.wav"
audio_check spacing-127 spacing capture-127.wav --bpm 127 --min-onsets 6
# Fast flick: 20 detents in 240 ms (83/s, above TempoWheel's fastRate of 50/s) must move
# much more than 20 BPM (acceleration; momentum may carry it on to the 999 limit).
turn_encoder 20 3
sleep 3
v=$(settings_bpm)
if [ -n "$v" ] && awk -v v="$v" 'BEGIN{exit !(v > 147)}'; then pass flick-accelerates "20 fast detents: 127 -> $v"; else fail flick-accelerates "20 fast detents: 127 -> '$v' (want > 147)"; fi
stop_service
check_eq exit-status 0 "$SERVICE_RC"
finish
