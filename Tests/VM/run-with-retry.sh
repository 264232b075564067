#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# `make test-vm`: the VM suite (run.sh, same arguments), then one more run of each scenario
# that failed, alone and with the same binary. Under TCG a starved guest can miss a timing
# bound that holds on every other run (Tests/VM/README.md, "Retries"); a fault of tactus
# fails twice and fails the suite. Both verdicts are printed. A harness failure (build, boot,
# no result) is not retried.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$HERE/run.sh" "$@" 2>&1 | tee "$out"
rc=${PIPESTATUS[0]}
[ "$rc" = 0 ] && exit 0
failed=$(sed -n 's/^test-vm: scenario \([^ ]*\) FAIL.*/\1/p' "$out")
grep -q '^test-vm: RESULT ' "$out" && [ -n "$failed" ] || exit "$rc"
for name in $failed; do
	echo "test-vm: RETRY $name once, alone (its first run failed above)"
	"$HERE/run.sh" --no-build --only "$name" || { echo "test-vm: $name failed twice"; exit 1; }
done
echo "test-vm: passed; failed once and passed when run again: $(echo $failed)"
