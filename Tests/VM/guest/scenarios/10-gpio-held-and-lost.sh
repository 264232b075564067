# SPDX-License-Identifier: GPL-3.0-or-later
# Scenario 10 (issue 13, both GPIO backends): `tactus check` names, per line, the program
# that holds it; and a flood of edges while the service's reader is stalled (SIGSTOP) -
# more than the kernel queues for a line request (1024) - is survived. A full queue drops its
# oldest edge for each new one (gpiolib-cdev's kfifo_skip), so the first edge read after the
# stall has jumped sequence numbers: with libgpiod 2 the service logs the loss and the
# decoder counts nothing across it; the detents turned afterwards count exactly.
. /vm/lib.sh
require_command check

# --- held lines: gpiomon (consumer "gpiomon") holds TAP and START.
chip=$(line_field btn-tap 2)
gpiomon "$chip" "$(line_field btn-tap 3)" "$(line_field btn-start 3)" >/dev/null 2>&1 &
holder=$!
wait_until 10 line_held btn-start
$TACTUS check --board $BOARD >"$OUTDIR/check-held.txt" 2>&1
rc=$?
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
sed 's/^/    /' "$OUTDIR/check-held.txt"
[ "$rc" != 0 ] && pass check-fails "exit $rc" || fail check-fails "tactus check exited 0 with lines held"
for role in tap start_stop; do
	line=$(grep "^gpio .*($role) is in use by 'gpiomon'" "$OUTDIR/check-held.txt")
	[ -n "$line" ] && pass "held-$role" "$line" || fail "held-$role" "no gpio line naming $role and gpiomon"
done
n=$(grep -c '^gpio ' "$OUTDIR/check-held.txt")
check_eq held-lines-only 2 "$n"
line_held btn-tap && fail lines-left-alone "btn-tap still held after check" || pass lines-left-alone

# --- a stalled reader and a flood of edges on encoder A.
require_command run
v2=false
grep -q 'libgpiod\.so\.3' $TACTUS && v2=true
start_service || finish
sleep 1
kill -STOP "$SERVICE_PID"
# 1800 changes of A (an even number: it ends where it started) while B rests: the decoder
# sees only back-and-forth quarter steps, never a detent, however many it loses. 10 ms
# apart, 18 s: gpio-sim's interrupt thread (priority 50, below simio's 99) reports changes
# that come faster than it runs as one edge; measured under TCG, 1.5 ms apart gave one edge
# per 7 changes, 10 ms apart 87 of 100, so this makes about 1500 edges for the 1024 places.
awk -v f="$(simdir enc-a)/pull" -v on="$(pressed_pull enc-a)" -v off="$(idle enc-a)" \
	'BEGIN { for (i = 0; i < 1800; i++) printf "%.3f %s %s\n", 100 + i * 10, f, (i % 2 == 0) ? on : off }' |
	simio drive >>"$OUTDIR/simio.log"
kill -CONT "$SERVICE_PID"
sleep 2
v=$(settings_bpm)
[ -z "$v" ] || bpm_is 120 && pass tempo-unchanged-by-flood "${v:-not saved: unchanged}" || fail tempo-unchanged-by-flood "saved tempo '$v', want 120"
if $v2; then
	line=$(grep 'dropped [0-9]* edge(s) of encoder_a' "$OUTDIR/service.log" | head -1)
	[ -n "$line" ] && pass gap-logged "$line" || fail gap-logged "no 'dropped N edge(s) of encoder_a' in the service log"
else
	pass gap-logged "libgpiod 1 has no sequence numbers: nothing to log (kernel drops are silent there)"
fi
# The wheel still counts exactly: 3 slow detents.
turn_encoder 3 100
wait_bpm 10 123 && pass counts-after-flood "120 -> 123" || fail counts-after-flood "saved tempo '$(settings_bpm)', want 123"
stop_service
check_eq exit-status 0 "$SERVICE_RC"
finish
