# SPDX-License-Identifier: GPL-3.0-or-later
# Scenario 23: the MIDI device goes away and comes back. With tactus connected to the
# virtual port named in [midi] out, snd-virmidi is removed (rmmod; the kernel's unplug
# path, as a USB interface pulled out): the service says so and keeps running; the module
# loaded again: the service connects to the new port by itself (System:Announce) and its
# clock (sent while stopped: clock_when_stopped is on by default) reaches a reader there.
. /vm/lib.sh
. /vm/midi.sh
require_command run
midi_load || { fail midi-modules "snd-seq-dummy / snd-virmidi did not load"; finish; }
CONFIG_EXTRA=$MIDI_CONFIG start_service || finish
wait_until 10 grep -q "MIDI: connected .*VirMIDI" "$OUTDIR/service.log"
check_eq connected-at-start 1 "$(logged 'MIDI: connected .*VirMIDI')"
if rmmod snd-virmidi 2>"$OUTDIR/rmmod.log"; then pass removed "rmmod snd-virmidi"
else
	# A subscriber may hold the module; unbinding the card is the same unplug.
	echo snd_virmidi.0 >/sys/bus/platform/drivers/snd_virmidi/unbind 2>>"$OUTDIR/rmmod.log" &&
		pass removed "card unbound ($(tr '\n' ' ' <"$OUTDIR/rmmod.log"))" || fail removed "$(tr '\n' ' ' <"$OUTDIR/rmmod.log")"
fi
wait_until 10 grep -q "MIDI: .*went away" "$OUTDIR/service.log"
check notice-gone grep -q "MIDI: 'VirMIDI.*went away" "$OUTDIR/service.log"
sleep 1
if service_gone; then fail alive-without-device "tactus run exited: $(tail -3 "$OUTDIR/service.log" | tr '\n' ' ')"; else pass alive-without-device; fi
if [ -d /sys/module/snd_virmidi ]; then
	echo snd_virmidi.0 >/sys/bus/platform/drivers/snd_virmidi/bind 2>>"$OUTDIR/rmmod.log"
else
	modprobe snd-virmidi midi_devs=1
fi
midi_load
wait_until 15 sh -c "[ \$(grep -c 'MIDI: connected .*VirMIDI' '$OUTDIR/service.log') -ge 2 ]"
check_eq reconnected 2 "$(logged 'MIDI: connected .*VirMIDI')"
midiio read "$VIRMIDI_DEV" 3 >/tmp/midi-in.txt 2>"$OUTDIR/midiio.log"
cp /tmp/midi-in.txt "$OUTDIR/"
clocks=$(grep -c ' F8$' /tmp/midi-in.txt)
if [ "$clocks" -ge 100 ]; then pass clock-after-replug "$clocks clocks in 3 s"; else fail clock-after-replug "$clocks clocks in 3 s (120 BPM sends 144)"; fi
if service_gone; then fail alive-after-replug "tactus run exited"; else pass alive-after-replug; fi
stop_service
check_eq exit-status 0 "$SERVICE_RC"
finish
