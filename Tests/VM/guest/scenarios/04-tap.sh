# Scenario 4: TAP pressed at a steady interval (400 ms, timed by simio, not the shell):
# the tempo becomes that interval's BPM (150).
. /vm/lib.sh
require_command run

start_service || finish
taps_script btn-tap 6 400 | simio drive >>"$OUTDIR/simio.log"
wait_bpm 10 150 && pass tap-400ms "tempo 150" || fail tap-400ms "saved tempo '$(settings_bpm)', want 150"
# Played at that tempo.
click_button btn-start
sleep 1
capture_start /tmp/capture.wav 4
capture_wait
cp /tmp/capture.wav "$OUTDIR/capture-150.wav"
audio_check spacing-150 spacing capture-150.wav --bpm 150 --min-onsets 8
# A new series after a pause, at 600 ms: 100 BPM, while playing.
sleep 2.5
taps_script btn-tap 4 600 | simio drive >>"$OUTDIR/simio.log"
wait_bpm 10 100 && pass tap-600ms-live "tempo 100" || fail tap-600ms-live "saved tempo '$(settings_bpm)', want 100"
stop_service
check_eq exit-status 0 "$SERVICE_RC"
finish
