# SPDX-License-Identifier: GPL-3.0-or-later
# Scenario 26: tactus leads over MIDI with no sound card. The board names a device that is
# not there, so the engine renders on the silent clock (a period ahead, each period heard
# from its scheduled start) and the clock thread takes its clocks from it: a reader on the
# virtual port's node receives Start and then only clocks at 144 BPM, 24 a beat, their
# mean interval over 10 s within 0.1 % of 60 / (144 * 24) s; the service says it plays
# silently and logs the clock thread's lateness at exit (a figure under TCG, where each
# message jitters by ms; make bench measures the silent clock's lateness on the host).
. /vm/lib.sh
. /vm/midi.sh
require_command run
midi_load || { fail midi-modules "snd-seq-dummy / snd-virmidi did not load"; finish; }
sed 's/^device = .*/device = "hw:NoSuchCard,0,0"/' "$BOARD" >/tmp/board-silent.toml
BOARD=/tmp/board-silent.toml
printf 'schema = 1\n\n[current]\nbpm = 144\n' >/tmp/seed.toml
SETTINGS_SEED=/tmp/seed.toml CONFIG_EXTRA=$MIDI_CONFIG start_service || finish
wait_until 10 grep -q "MIDI: connected .*VirMIDI" "$OUTDIR/service.log"
check silent-clock grep -q "audio: .*playing silently" "$OUTDIR/service.log"
midiio read "$VIRMIDI_DEV" 16 >/tmp/midi-in.txt 2>"$OUTDIR/midiio.log" &
READER=$!
sleep 1.5
click_button btn-start
sleep 12.5
click_button btn-start
wait "$READER"
stop_service
check_eq exit-status 0 "$SERVICE_RC"
check lateness-logged grep -q "MIDI: [0-9]* messages sent, lateness p50" "$OUTDIR/service.log"
cp /tmp/midi-in.txt "$OUTDIR/"
midi_check clocks clocks midi-in.txt --bpm 144 --seconds 10
finish
