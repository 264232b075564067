# Scenario 1: `tactus check` with the test board finds every part working: the gpio-sim
# lines by name, the display on the i2c-stub, the loopback audio device.
. /vm/lib.sh
require_command check

$TACTUS check --board $BOARD >"$OUTDIR/check-output.txt" 2>&1
rc=$?
sed 's/^/    /' "$OUTDIR/check-output.txt"
check_eq exit-status 0 "$rc"
# Every part is named in the report (role names of the board file)...
for part in encoder tap start display audio; do
	check "mentions-$part" grep -qi "$part" "$OUTDIR/check-output.txt"
done
# ...and none is reported broken.
check no-failures sh -c "! grep -Eiw 'fail|failed|error|missing|not found' '$OUTDIR/check-output.txt'"
# A probe must not leave lines held or the stub in use.
check lines-released sh -c "! gpioinfo $(line_field btn-start 2) | grep -q '\[used'"
finish
