# SPDX-License-Identifier: GPL-3.0-or-later
# Helpers of the MIDI scenarios (20-23), sourced after lib.sh.
#
# snd-virmidi makes a card whose rawmidi node (/dev/snd/midiCxD0) and sequencer port
# ("VirMIDI x-0" of client "Virtual Raw MIDI x-0") are joined: bytes written to the node
# come out of the port as events to its subscribers (tactus, which connects to it because
# the configuration's [midi] out names it), and events sent to the port can be read from
# the node. midiio (guest/midiio.c) reads and writes the node with CLOCK_MONOTONIC stamps.

# midi_load: the sequencer, Midi Through and one virtual MIDI port; VIRMIDI_DEV is its node.
midi_load() {
	modprobe snd-hrtimer 2>/dev/null
	modprobe snd-seq-dummy || return 1
	[ -d /proc/asound/VirMIDI ] || modprobe snd-virmidi midi_devs=1 || return 1
	VIRMIDI_CARD=$(awk '$2 ~ /^\[VirMIDI/ {print $1; exit}' /proc/asound/cards)
	VIRMIDI_DEV=/dev/snd/midiC${VIRMIDI_CARD}D0
	wait_until 10 test -e "$VIRMIDI_DEV" && wait_until 10 test -e /dev/snd/seq
}

MIDI_CONFIG='[midi]
out = ["VirMIDI"]'

# stamped_capture_start SECONDS: raw FLOAT_LE frames to /tmp/capture.raw, with each chunk's
# arrival time in /tmp/capture-times.txt (midiio stamp); small periods for a fine envelope.
stamped_capture_start() {
	rm -f /tmp/capture.raw /tmp/capture-times.txt
	timeout $(($1 + 10)) arecord -q -D "$CAPTURE_DEVICE" -f FLOAT_LE -r "${BOARD_AUDIO_RATE:-48000}" \
		-c "${BOARD_AUDIO_CHANNELS:-2}" --period-size=256 --buffer-size=8192 -t raw -d "$1" - 2>/tmp/capture.log |
		midiio stamp /tmp/capture.raw /tmp/capture-times.txt &
	CAPTURE_PID=$!
}
# stamped_capture_keep: into the scenario's output folder for the host's checks.
stamped_capture_keep() {
	cp /tmp/capture.raw /tmp/capture-times.txt "$OUTDIR/"
	cp /tmp/capture.log "$OUTDIR/capture.log" 2>/dev/null
}
# midi_check NAME ARGS...: Tests/VM/host/midi.py ARGS on the host.
midi_check() { n=$1; shift; host_check "$n" midi "$@" --rate "${BOARD_AUDIO_RATE:-48000}" --channels "${BOARD_AUDIO_CHANNELS:-2}"; }
# logged TEXT: the service said TEXT (count of lines).
logged() { grep -c "$1" "$OUTDIR/service.log"; }
