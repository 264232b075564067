# SPDX-License-Identifier: GPL-3.0-or-later
# Helpers of the MIDI scenarios (20-23, 26, 28), sourced after lib.sh.
#
# snd-virmidi makes a card whose rawmidi node (/dev/snd/midiCxD0) and sequencer port
# ("VirMIDI x-0" of client "Virtual Raw MIDI x-0") are joined: bytes written to the node
# come out of the port as events to its subscribers (tactus, which connects to it because
# the configuration's [midi] out names it), and events sent to the port can be read from
# the node. midiio (guest/midiio.c) reads and writes the node with CLOCK_MONOTONIC stamps.

# midi_load: the sequencer, Midi Through and MIDI_DEVS virtual MIDI ports (default 1);
# VIRMIDI_DEV is the first one's node, VIRMIDI_DEV2 the second's (MIDI_DEVS=2, scenario 28:
# "VirMIDI C-0" and "VirMIDI C-1" on one card, each with its own sequencer client). A module
# loaded with another count is loaded again (between scenarios nothing holds it), so a
# scenario with one port never sees two: `out = ["VirMIDI"]` would connect both.
midi_load() {
	want=${MIDI_DEVS:-1}
	modprobe snd-hrtimer 2>/dev/null
	modprobe snd-seq-dummy || return 1
	if [ -d /sys/module/snd_virmidi ]; then
		have=$(cut -d, -f1 /sys/module/snd_virmidi/parameters/midi_devs 2>/dev/null)
		[ "$have" = "$want" ] || rmmod snd-virmidi || return 1
	fi
	[ -d /proc/asound/VirMIDI ] || modprobe snd-virmidi midi_devs="$want" || return 1
	VIRMIDI_CARD=$(awk '$2 ~ /^\[VirMIDI/ {print $1; exit}' /proc/asound/cards)
	VIRMIDI_DEV=/dev/snd/midiC${VIRMIDI_CARD}D0
	VIRMIDI_DEV2=/dev/snd/midiC${VIRMIDI_CARD}D1
	wait_until 10 test -e "$VIRMIDI_DEV" && wait_until 10 test -e /dev/snd/seq || return 1
	[ "$want" -lt 2 ] || wait_until 10 test -e "$VIRMIDI_DEV2"
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
