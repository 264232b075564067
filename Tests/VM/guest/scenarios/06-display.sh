# Scenario 6: the display driver's init sequence and frames reach the i2c-stub as SMBus
# block writes (at most 32 bytes each); the stub keeps only the last block per register,
# so the whole stream is taken from the kernel's smbus trace events and decoded on the host.
. /vm/lib.sh
require_command run

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
# The stub also answered: its data register holds the last data block.
check stub-holds-data sh -c "[ \"\$($I2CGET -y $STUB_BUS $BOARD_I2C_ADDR 0x40)\" != '' ]"
host_check ssd1306-stream i2ctrace smbus-trace.txt --address "$BOARD_I2C_ADDR" --min-frames 2
finish
