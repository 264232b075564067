#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Whole processes side by side, as a user measures them: `tactus render` and `klick -W` of
# the same 10 min track (120 BPM 4/4, 48 kHz mono s16), run alternately, median of 5 each
# (CPU = user + system time of the process, wall, peak RSS), then a 10 ms render, the
# start-up a user waits for. Targets: tactus CPU at most 0.5x klick's, aim 0.4x (issue 30:
# the MIDI clocks are placed only when something reads them); the same render with
# `--events` (every clock placed and written) is printed beside it; 10 ms render under 30 ms
# wall. Without klick (Debian's `klick` package, scripts/install-deps.sh bench) no ratio. Run by `make bench` on the release binary the package ships
# (scripts/build-release.sh: Swift runtime linked in).
# Usage: Benchmarks/compare-klick.sh TACTUS_BINARY [RUNS]
set -euo pipefail
tactus=${1:?usage: compare-klick.sh TACTUS_BINARY [RUNS]}
runs=${2:-5}
[ -x "$tactus" ] || { echo "compare-klick.sh: $tactus is not an executable" >&2; exit 2; }
klick=$(command -v klick || true)
command -v python3 >/dev/null || { echo "compare-klick.sh: python3 missing (it times the processes)" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/tactus-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

# One run: prints "cpu wall rss_kb" of the process alone (wait4's rusage: user + system
# time in microseconds, not GNU time's hundredths), its output thrown away.
measure() {
  python3 - "$@" <<'PY' || { echo "compare-klick.sh: failed: $*" >&2; exit 1; }
import os, subprocess, sys, time
start = time.monotonic()
child = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
_, status, usage = os.wait4(child.pid, 0)
wall = time.monotonic() - start
if status != 0:
    sys.exit(child.stderr.read().decode(errors="replace")[:300])
print(f"{usage.ru_utime + usage.ru_stime:.4f} {wall:.4f} {usage.ru_maxrss}")
PY
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# Median CPU, median wall, largest RSS of the runs in file $1.
summary() {
  printf 'CPU %s s, wall %s s, peak RSS %d MB' "$(cut -d' ' -f1 "$1" | median)" "$(cut -d' ' -f2 "$1" | median)" \
    "$(( $(cut -d' ' -f3 "$1" | sort -n | tail -1) / 1024 ))"
}

echo "# Whole processes side by side, median of $runs (run alternately): 10 min at 120 BPM 4/4, 48 kHz mono s16"
: > "$work/tactus.runs"; : > "$work/events.runs"; : > "$work/klick.runs"
for _ in $(seq "$runs"); do
  measure "$tactus" render --bpm 120 --meter 4/4 --bars 300 --rate 48000 --channels 1 --format s16 \
    -o "$work/tactus.wav" >> "$work/tactus.runs"
  measure "$tactus" render --bpm 120 --meter 4/4 --bars 300 --rate 48000 --channels 1 --format s16 \
    -o "$work/tactus-events.wav" --events "$work/events.jsonl" >> "$work/events.runs"
  if [ -n "$klick" ]; then measure "$klick" -W "$work/klick.wav" -r 48000 300 4/4 120 >> "$work/klick.runs"; fi
done
echo "tactus render: $(summary "$work/tactus.runs") ($(stat -c %s "$work/tactus.wav") bytes)"
echo "tactus render --events: $(summary "$work/events.runs") ($(grep -c '"F8"' "$work/events.jsonl") clocks)"
if [ -n "$klick" ]; then
  echo "klick -W:      $(summary "$work/klick.runs") ($(stat -c %s "$work/klick.wav") bytes)"
  t=$(cut -d' ' -f1 "$work/tactus.runs" | median); k=$(cut -d' ' -f1 "$work/klick.runs" | median)
  e=$(cut -d' ' -f1 "$work/events.runs" | median)
  awk -v t="$t" -v k="$k" 'BEGIN { printf "tactus / klick CPU time: %.2f (target: at most 0.50, aim 0.40)\n", (k > 0 ? t / k : 0) }'
  awk -v t="$e" -v k="$k" 'BEGIN { printf "tactus --events / klick CPU time: %.2f (every clock and onset written too)\n", (k > 0 ? t / k : 0) }'
else
  echo "klick not installed (scripts/install-deps.sh bench): no comparison"
fi

: > "$work/short.runs"
for _ in $(seq "$runs"); do
  measure "$tactus" render --seconds 0.01 -o "$work/short.wav" >> "$work/short.runs"
done
wall=$(cut -d' ' -f2 "$work/short.runs" | median)
echo "tactus render --seconds 0.01 (start-up a user waits for): $(summary "$work/short.runs")" \
  "($(awk -v w="$wall" 'BEGIN { print (w < 0.030 ? "under" : "NOT under") }') the 30 ms target)"
