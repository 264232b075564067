# SPDX-License-Identifier: GPL-3.0-or-later
# Scenario 4: TAP pressed at a steady interval (400 ms, timed by simio, not the shell):
# the tempo becomes that interval's BPM (150). An emulated CPU on a busy host can stall
# for tens of ms, making a press late; the expected tempo is therefore computed from the
# press times simio actually achieved (reported next to the nominal one).
. /vm/lib.sh
require_command run

# expect_tap NAME NOMINAL_BPM DRIVE_LOG
expect_tap() {
	set -- "$1" "$2" "$3" $(tapped_bpm "$3" btn-tap)
	got=$(settings_bpm)
	if [ "$got" = "$4" ] || [ "$got" = "$5" ]; then pass "$1" "tempo $got (taps as played: $4; nominal $2)"
	else fail "$1" "saved tempo '$got', want $4 (taps as played; nominal $2; $(tail -1 "$3"))"; fi
}

start_service || finish
taps_script btn-tap 6 400 | simio drive >/tmp/taps1.txt
cp /tmp/taps1.txt "$OUTDIR/taps-400.txt"
set -- $(tapped_bpm /tmp/taps1.txt btn-tap)
wait_bpm 10 "$1" || wait_bpm 1 "$2"
expect_tap tap-400ms 150 /tmp/taps1.txt
# Played at that tempo.
click_button btn-start
sleep 1
capture_start /tmp/capture.wav 4
capture_wait
cp /tmp/capture.wav "$OUTDIR/capture-150.wav"
audio_check spacing-tapped spacing capture-150.wav --bpm "$(settings_bpm)" --min-onsets 8
# A new series after a pause, at 600 ms: 100 BPM, while playing.
sleep 2.5
taps_script btn-tap 4 600 | simio drive >/tmp/taps2.txt
cp /tmp/taps2.txt "$OUTDIR/taps-600.txt"
set -- $(tapped_bpm /tmp/taps2.txt btn-tap)
wait_bpm 10 "$1" || wait_bpm 1 "$2"
expect_tap tap-600ms-live 100 /tmp/taps2.txt
stop_service
check_eq exit-status 0 "$SERVICE_RC"
finish
