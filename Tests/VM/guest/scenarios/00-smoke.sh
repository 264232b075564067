# SPDX-License-Identifier: GPL-3.0-or-later
# Smoke: the plumbing from the host to the guest's simulators and back, with the kernel's
# own tools and the tactus binary, before any scenario relies on it.
. /vm/lib.sh

# --- GPIO: the chip carries the test board's line names; inputs follow `pull`, outputs
# show up in `value`.
for name in $(awk '{print $1}' $LINES); do
	want="$(line_field "$name" 2) $(line_field "$name" 3)"
	check_eq "gpio.find.$name" "$want" "$(gpiofind "$name")"
done
check_eq gpio.idle-released 1 "$(gpioget $(gpiofind btn-tap))"
press btn-tap
check_eq gpio.pull-pressed 0 "$(gpioget $(gpiofind btn-tap))"
release btn-tap

# Two clockwise encoder detents seen by gpiomon in quadrature order (active low: B falls
# first, as QuadratureDecoder counts clockwise).
timeout 20 gpiomon -n 8 -F '%o %e %s.%n' $(gpiofind enc-a | cut -d' ' -f1) \
	"$(line_field enc-a 3)" "$(line_field enc-b 3)" >/tmp/mon.out 2>&1 &
mon=$!
wait_until 10 line_held enc-b
turn_encoder 2 20
wait $mon
cp /tmp/mon.out "$OUTDIR/gpiomon.txt"
# v1 uAPI: one fd per line, so order the events by their kernel timestamps.
seq=$(awk '{split($3, t, "."); printf "%d%09d %s%s\n", t[1], t[2], $1, $2}' /tmp/mon.out | sort -n | awk '{printf "%s ", $2}')
a=$(line_field enc-a 3) b=$(line_field enc-b 3)
check_eq gpio.quadrature "${b}0 ${a}0 ${b}1 ${a}1 ${b}0 ${a}0 ${b}1 ${a}1 " "$seq"

# An output driven through the chardev is visible in gpio-sim's value attribute.
timeout 20 gpioset --mode=signal $(gpiofind led-beat)=1 &
setter=$!
wait_until 10 line_held led-beat
on=$(value led-beat)
kill $setter; wait $setter
wait_until 5 sh -c "[ \"\$(cat $(simdir led-beat)/value)\" = 0 ]"
check_eq gpio.output-value "1 0" "$on $(value led-beat)"

# simio sees a 20 ms pulse on an output (LED pulses are 3-12 ms; a shell poll misses them).
watch_outputs 2500 led-beat >/tmp/watch.out &
watcher=$!
sleep 0.5
gpioset --mode=time --usec=20000 $(gpiofind led-beat)=1
wait $watcher
cp /tmp/watch.out "$OUTDIR/watch.txt"
check_eq gpio.watch-pulse "0 1 0" "$(awk '{printf "%s%s", sep, $3; sep = " "}' /tmp/watch.out)"

# --- I2C: the stub answers at the board's address; SMBus I2C-block writes land in its
# register file, and the i2c trace events see them (the fallback for frames).
bus=$STUB_BUS addr=${BOARD_I2C_ADDR:-0x3c}
trace_i2c_start
check i2c.block-write $I2CSET -y "$bus" "$addr" 0x40 0xa5 0x5a 0x3c i
check_eq i2c.read-back "0xa5 0x5a 0x3c" "$($I2CGET -y "$bus" "$addr" 0x40 i 3)"
trace_i2c_stop "$OUTDIR/smbus-trace.txt"
# (the traced buffer starts with the block's length byte)
check i2c.trace-event grep -q "a=0${addr#0x} .*c=40 .*-a5-5a-3c\\]" "$OUTDIR/smbus-trace.txt"

# --- Audio: the loopback card is there and a rendered click track comes back bit-exact
# (32-bit float, the format tactus plays in).
check_eq alsa.loopback-card Loopback "$(awk '$2 == "[Loopback" {print "Loopback"; exit}' /proc/asound/cards)"

# --- tactus: the static binary runs here, and its render goes through the loopback.
check tactus.help $TACTUS --help
# Audio files live in tmpfs while playing: 9p is too slow to feed a 21 ms buffer.
if $TACTUS render --bpm 120 --meter 4/4 --bars 2 --format f32 -o /tmp/reference.wav >"$OUTDIR/render.log" 2>&1; then
	pass tactus.render "$(cat "$OUTDIR/render.log")"
	capture_start /tmp/capture.wav 6
	sleep 0.3
	aplay -q -D "$BOARD_AUDIO_DEVICE" --period-size="$BOARD_AUDIO_PERIOD" \
		--buffer-size=$((BOARD_AUDIO_PERIOD * BOARD_AUDIO_PERIODS)) /tmp/reference.wav >"$OUTDIR/aplay.log" 2>&1
	check alsa.aplay [ $? = 0 ]
	capture_wait
	check alsa.arecord [ $? = 0 ]
	check alsa.no-underruns sh -c "! grep -h run '$OUTDIR/aplay.log'"
	cp /tmp/reference.wav /tmp/capture.wav /tmp/capture.wav.log "$OUTDIR/"
	audio_check loopback-bit-exact match reference.wav capture.wav --min-onsets 8
else
	fail tactus.render "$(tail -3 "$OUTDIR/render.log")"
fi

# The unplug that scenario 7 uses: unbinding the loopback card from its driver removes it
# (as pulling a USB card does); binding brings it back, playable.
drv=/sys/bus/platform/drivers/snd_aloop
dev=$(ls $drv 2>/dev/null | grep -m1 '^snd_aloop')
echo "$dev" >$drv/unbind
check alsa.unplugged sh -c "! grep -q Loopback /proc/asound/cards"
echo "$dev" >$drv/bind
check alsa.replugged grep -q Loopback /proc/asound/cards
check alsa.plays-after-replug aplay -q -D "$BOARD_AUDIO_DEVICE" -d 1 /tmp/reference.wav
finish
