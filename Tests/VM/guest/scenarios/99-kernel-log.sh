# SPDX-License-Identifier: GPL-3.0-or-later
# Last: the kernel itself stayed healthy through all the scenarios (no oops, BUG or WARN
# from the simulators or from what tactus did to them). The whole log goes to the host.
. /vm/lib.sh
dmesg >"$OUTDIR/dmesg.txt"
bad=$(grep -E 'BUG:|Oops|WARNING:|Call Trace|general protection|hung_task|soft lockup' "$OUTDIR/dmesg.txt" | head -3)
[ -z "$bad" ] && pass kernel-clean "$(wc -l <"$OUTDIR/dmesg.txt") lines, no oops/BUG/WARN" || fail kernel-clean "$bad"
finish
