# SPDX-License-Identifier: GPL-3.0-or-later
# Scenario 6: the display driver's init sequence and frames reach the i2c-stub as SMBus
# block writes (at most 32 bytes each); the stub keeps only the last block per register,
# so the whole stream is taken from the kernel's smbus trace events and decoded on the host,
# screen by screen; SIGTERM clears the screen.
. /vm/lib.sh
require_command run

# A sentinel in the stub's data registers: afterwards they must hold something else.
SENTINEL="0xa5 0xa5 0xa5 0xa5 0xa5 0xa5 0xa5 0xa5"
$I2CSET -y "$STUB_BUS" "$BOARD_I2C_ADDR" 0x40 $SENTINEL i
trace_i2c_start
start_service || finish
sleep 2
click_button btn-start
sleep 2
stop_service
trace_i2c_stop /tmp/smbus.txt
cp /tmp/smbus.txt "$OUTDIR/smbus-trace.txt"
check_eq exit-status 0 "$SERVICE_RC"
check transfers-seen [ -s /tmp/smbus.txt ]
# The stub itself took the data: its data registers no longer hold the sentinel.
now=$($I2CGET -y "$STUB_BUS" "$BOARD_I2C_ADDR" 0x40 i 8)
[ -n "$now" ] && [ "$now" != "$SENTINEL" ] && pass stub-took-data "0x40..: $now" || fail stub-took-data "0x40.. still '$now'"
# A graceful stop clears the screen, so the last picture is blank and the last one shown
# before it is what is checked (and kept as a PBM).
host_check ssd1306-stream i2ctrace smbus-trace.txt --address "$BOARD_I2C_ADDR" --min-frames 2 --cleared-at-end
finish
