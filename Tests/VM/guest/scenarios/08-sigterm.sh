# SPDX-License-Identifier: GPL-3.0-or-later
# Scenario 8: SIGTERM while playing stops the service gracefully (exit 0, promptly, lines
# and devices released) and the settings file it leaves is present and valid.
. /vm/lib.sh
require_command run

start_service || finish
click_button btn-start
turn_encoder 3 100
sleep 1
stop_service
check_eq exit-status 0 "$SERVICE_RC"
awk -v s="$STOP_SECS" 'BEGIN{exit !(s < 3)}' && pass prompt-stop "${STOP_SECS}s" || fail prompt-stop "took ${STOP_SECS}s"
check lines-released sh -c "! gpioinfo $(line_field btn-start 2) | grep -q '\[used'"
check no-temp-files-left sh -c "[ -z \"\$(ls -A $STATE | grep -v -e '\.toml\$' -e '^tactus\.lock\$')\" ]"
ls -la "$STATE" >"$OUTDIR/state-listing.txt"
check settings-present sh -c "ls $STATE/*.toml"
mkdir -p "$OUTDIR/state" && cp "$STATE"/*.toml "$OUTDIR/state/" 2>/dev/null
# Valid TOML holding the tempo set before the stop (120 + 3 detents).
host_check settings-valid settings state --bpm 123
finish
