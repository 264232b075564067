# SPDX-License-Identifier: GPL-3.0-or-later
# Scenario 22: a MIDI note taps the tempo. [midi.map] "note 36" = "tap"; six note-ons (a
# drum pad on channel 10) 400 ms apart on the virtual port: the saved tempo is the taps'
# tempo as played (150 nominal; the times midiio really wrote them, as scenario 4 does).
. /vm/lib.sh
. /vm/midi.sh
require_command run
midi_load || { fail midi-modules "snd-seq-dummy / snd-virmidi did not load"; finish; }
CONFIG_EXTRA="$MIDI_CONFIG
[midi.map]
\"note 36\" = \"tap\"" start_service || finish
wait_until 10 grep -q "MIDI: connected .*VirMIDI.*input" "$OUTDIR/service.log"
awk 'BEGIN { for (i = 0; i < 6; i++) printf "%d 99 24 64\n%d 89 24 00\n", i * 400, i * 400 + 40 }' >/tmp/tap-script.txt
midiio play "$VIRMIDI_DEV" </tmp/tap-script.txt >/tmp/midi-out.txt 2>"$OUTDIR/midiio.log"
cp /tmp/midi-out.txt "$OUTDIR/"
# The tempo of the note-ons as written: mean interval first to last; both neighbours near a half.
set -- $(awk '$1 == "W" && $3 == "99" { if (n == 0) first = $2; last = $2; n++ }
	END { if (n < 2) { print "0 0"; exit } bpm = 60e9 / ((last - first) / (n - 1)); fr = bpm - int(bpm)
		if (fr > 0.45 && fr < 0.55) print int(bpm), int(bpm) + 1; else { r = int(bpm + 0.5); print r, r } }' /tmp/midi-out.txt)
wait_bpm 10 "$1" || wait_bpm 1 "$2"
got=$(settings_bpm)
if [ "$got" = "$1" ] || [ "$got" = "$2" ]; then pass note-taps "tempo $got (notes as played: $1; nominal 150)"
else fail note-taps "saved tempo '$got', want $1 (notes as played; nominal 150)"; fi
stop_service
check_eq exit-status 0 "$SERVICE_RC"
finish
