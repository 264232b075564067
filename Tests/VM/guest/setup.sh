# SPDX-License-Identifier: GPL-3.0-or-later
# Brings up the kernel simulators of the test board (run once by init, with sh -e so the
# first failing step stops it and init reports @@SETUP FAIL).
. /vm/lib.sh

# gpio-sim: one chip (bank) per chip label of the board, line names from the board file.
# /sys/kernel/config appears only once configfs (a dependency of gpio-sim) is loaded.
modprobe gpio-sim
grep -q ' /sys/kernel/config ' /proc/mounts || mount -t configfs none /sys/kernel/config
grep -q ' /sys/kernel/tracing ' /proc/mounts || mount -t tracefs none /sys/kernel/tracing
: >$LINES
for label in $(awk '{print $1}' $VM/gpio-lines | uniq); do
	dev=/sys/kernel/config/gpio-sim/$label
	mkdir $dev $dev/bank0
	echo "$label" >$dev/bank0/label
	nlines=$(awk -v l="$label" '$1 == l && $2 + 1 > n {n = $2 + 1} END{print n}' $VM/gpio-lines)
	echo "$nlines" >$dev/bank0/num_lines
	awk -v l="$label" '$1 == l {print $2, $3}' $VM/gpio-lines | while read -r off name; do
		mkdir $dev/bank0/line$off && echo "$name" >$dev/bank0/line$off/name
	done
	echo 1 >$dev/live
	chip=$(cat $dev/bank0/chip_name)
	sim=/sys/devices/platform/$(cat $dev/dev_name)/$chip
	awk -v l="$label" -v c="$chip" -v s="$sim" '$1 == l {print $3, c, $2, s "/sim_gpio" $2, $4, $5}' $VM/gpio-lines >>$LINES
	log "gpio-sim: $label is $chip ($sim)"
done
# Released switches rest at their idle pull before anyone looks at them.
while read -r name chip off dir direction idle; do
	if [ "$direction" = in ]; then echo "$idle" >"$dir/pull"; fi
done <$LINES
cat $LINES
gpiodetect

# i2c-stub: SMBus-only register file standing in for the display.
modprobe i2c-dev
modprobe i2c-stub chip_addr="${BOARD_I2C_ADDR:-0x3c}"
bus=$($I2CDETECT -l | awk '/SMBus stub/{sub("i2c-", "", $1); print $1; exit}')
[ -n "$bus" ]
# The board file names the bus; point it at wherever the stub landed.
sed -e "s/^i2c_bus *= *[0-9]*/i2c_bus = $bus/" -e "s/^bus *= *[0-9]*/bus = $bus/" $VM/board.toml >$BOARD
log "i2c-stub: bus $bus at ${BOARD_I2C_ADDR:-0x3c}"

# snd-aloop: card "Loopback"; substream 0 of device 0 plays into device 1's capture.
modprobe snd-aloop pcm_substreams=1
cat /proc/asound/cards
echo "STUB_BUS=$bus" >/tmp/vm.env
