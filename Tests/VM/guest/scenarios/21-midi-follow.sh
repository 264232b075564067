# SPDX-License-Identifier: GPL-3.0-or-later
# Scenario 21: tactus follows a MIDI clock (`tactus run --sync midi`). A sender on the
# virtual port plays 2 s of clock at 100 BPM, then Start and 12 s more: the first click on
# snd-aloop is the downbeat (the accent's samples, as `tactus render` plays them), not
# before the first clock after Start and at most 150 ms after it (a Start gives no warning,
# so the downbeat sounds one output latency late: 66-89 ms here with the VM's 85 ms
# buffer, and the box moves its grid back onto the clock within the first bar); from the
# second bar on they come at 100 BPM (within 0.5 %), each within 5 ms of its clock on
# average.
. /vm/lib.sh
. /vm/midi.sh
require_command run
midi_load || { fail midi-modules "snd-seq-dummy / snd-virmidi did not load"; finish; }
CONFIG_EXTRA=$MIDI_CONFIG start_service --sync midi || finish
wait_until 10 grep -q "MIDI: connected .*VirMIDI.*input" "$OUTDIR/service.log"
check connected-input grep -q "MIDI: connected .*VirMIDI.*input" "$OUTDIR/service.log"
$TACTUS render --bpm 100 --meter 4/4 --bars 2 --format f32 -o /tmp/reference.wav >/dev/null 2>&1
cp /tmp/reference.wav "$OUTDIR/"
# 25 ms a clock at 100 BPM; Start 10 ms before the clock at 2 s.
awk 'BEGIN {
	for (i = 0; i < 80; i++) printf "%d F8\n", i * 25
	print "1990 FA"
	for (i = 0; i < 480; i++) printf "%d F8\n", 2000 + i * 25
	print "14010 FC"
}' >/tmp/follow-script.txt
stamped_capture_start 17
sleep 1
midiio play "$VIRMIDI_DEV" </tmp/follow-script.txt >/tmp/midi-out.txt 2>"$OUTDIR/midiio.log"
wait "$CAPTURE_PID"
stop_service
check_eq exit-status 0 "$SERVICE_RC"
cp /tmp/midi-out.txt "$OUTDIR/"
stamped_capture_keep
midi_check follow follow midi-out.txt capture.raw capture-times.txt --bpm 100 --reference reference.wav
finish
