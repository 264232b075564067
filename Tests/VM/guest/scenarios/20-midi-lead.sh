# SPDX-License-Identifier: GPL-3.0-or-later
# Scenario 20: tactus leads over MIDI. The configuration names the virtual MIDI port in
# [midi] out; tactus connects its client "Tactus" port "clock" to it at start. Saved at 144
# BPM, START pressed: a reader on the port's rawmidi node receives Start, then 24 clocks per
# beat; over 10 s the mean clock interval is within 0.1 % of 60 / (144 * 24) s, and the
# clicks captured from snd-aloop are in step with every 24th clock (mean offset within
# 5 ms). Under TCG each message jitters by several ms, so jitter is measured on the host
# (make bench), not here.
. /vm/lib.sh
. /vm/midi.sh
require_command run
midi_load || { fail midi-modules "snd-seq-dummy / snd-virmidi did not load: $(ls /dev/snd 2>&1 | tr '\n' ' ')"; finish; }
printf 'schema = 1\n\n[current]\nbpm = 144\n' >/tmp/seed.toml
SETTINGS_SEED=/tmp/seed.toml CONFIG_EXTRA=$MIDI_CONFIG start_service || finish
wait_until 10 grep -q "MIDI: connected .*VirMIDI" "$OUTDIR/service.log"
check connected-at-start grep -q "MIDI: connected .*VirMIDI.*clock out" "$OUTDIR/service.log"
aconnect -l >"$OUTDIR/aconnect.txt" 2>&1
midiio read "$VIRMIDI_DEV" 17 >/tmp/midi-in.txt 2>"$OUTDIR/midiio.log" &
READER=$!
stamped_capture_start 16
sleep 1.5
click_button btn-start
sleep 13
click_button btn-start
wait "$READER"
wait "$CAPTURE_PID"
stop_service
check_eq exit-status 0 "$SERVICE_RC"
# The clock thread took its clocks from the engine itself and says how late they left (a
# figure under TCG, not a target: make bench measures it on the host).
check lateness-logged grep -q "MIDI: [0-9]* messages sent, lateness p50" "$OUTDIR/service.log"
cp /tmp/midi-in.txt "$OUTDIR/"
stamped_capture_keep
midi_check lead lead midi-in.txt capture.raw capture-times.txt --bpm 144 --seconds 10
finish
