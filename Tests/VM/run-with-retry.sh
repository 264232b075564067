#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# `make test-vm`: the VM suite (run.sh, same arguments), then one more run of each scenario
# that failed, alone and with the same binary, to tell the lead what kind of failure it is.
# The retry never rescues the run: a scenario that failed once fails the suite, whether it
# then failed again (a fault that repeats) or passed (flaky: a timing bound that does not
# hold, which is a defect of the box or of the scenario). Both verdicts are printed. A
# harness failure (build, boot, no result) is not retried.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$HERE/run.sh" "$@" 2>&1 | tee "$out"
rc=${PIPESTATUS[0]}
[ "$rc" = 0 ] && exit 0
failed=$(sed -n 's/^test-vm: scenario \([^ ]*\) FAIL.*/\1/p' "$out")
grep -q '^test-vm: RESULT ' "$out" && [ -n "$failed" ] || exit "$rc"
twice= flaky=
for name in $failed; do
	echo "test-vm: RETRY $name once, alone (its first run failed above; the suite fails either way)"
	if "$HERE/run.sh" --no-build --only "$name"; then flaky="$flaky $name"; else twice="$twice $name"; fi
done
[ -z "$twice" ] || echo "test-vm: FAILED twice:$twice"
[ -z "$flaky" ] || echo "test-vm: FAILED (flaky: passed only on a retry, which does not count):$flaky"
exit 1
