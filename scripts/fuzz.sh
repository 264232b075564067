#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Coverage-guided fuzzing of every reader of outside input (Sources/FuzzTargets) with the
# toolchain's libFuzzer: builds tactus-fuzz with -sanitize=fuzzer,address in .build-fuzz,
# then runs each target for SECONDS on Fuzz/corpus/TARGET (new coverage is kept there).
# A crash, a trap, a leak-free hang (-timeout) or an out-of-memory is copied to
# Fuzz/crashes/TARGET/ (FuzzTests replays that folder in `make test`) and fails the run.
#
#   scripts/fuzz.sh [SECONDS [TARGET...]]    default: 60 s each, every target
#   FUZZ_JOBS=2 runs two targets at once (the machine has 2 cores).
#   FUZZ_SMOKE=1 (make test's smoke): fuzzes a copy of each corpus and keeps nothing but
#   findings, from a fixed seed (FUZZ_SEED, default 1) with Swift's hashing made
#   deterministic, so CI replays the same mutations every time: a clean clone's CI fails
#   only on a change, never on the luck of the draw. Exploring (a random seed) is for
#   `make fuzz`. Otherwise the corpus is minimized afterwards (libFuzzer -merge=1), so the
#   repository keeps only inputs that add coverage.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
SWIFT=${SWIFT:-swift}
scratch=.build-fuzz
"$SWIFT" build --scratch-path "$scratch" --product tactus-fuzz --sanitize=address \
    -Xswiftc -sanitize=fuzzer -Xswiftc -DFUZZING 2>&1 | grep -E "error|warning: unre|Compiling|Build" | grep -v "^\[" || true
binary="$("$SWIFT" build --scratch-path "$scratch" --show-bin-path)/tactus-fuzz"
[ -x "$binary" ] || { echo "fuzz: building tactus-fuzz failed" >&2; exit 1; }
if [ $# -gt 0 ]; then targets=("$@"); else
    mapfile -t targets < <(sed -n 's/^ *Target(name: "\([a-z-]*\)".*/\1/p' Sources/FuzzTargets/FuzzTargets.swift)
fi
jobs=${FUZZ_JOBS:-1}
log=.build-fuzz/logs
mkdir -p "$log"

# Leaks are not findings here (the engine hands retired schedules to the control side and
# keeps its sound sets); Swift's own backtracer is off so ASan reports the crash itself.
export ASAN_OPTIONS=detect_leaks=0 SWIFT_BACKTRACE=enable=no
[ "${FUZZ_SMOKE:-0}" = 1 ] && export SWIFT_DETERMINISTIC_HASHING=1

run_one() {
    local target=$1 corpus=Fuzz/corpus/$1 crashes=Fuzz/crashes/$1 work
    work=$(mktemp -d)
    mkdir -p "$corpus" "$crashes"
    if [ "${FUZZ_SMOKE:-0}" = 1 ]; then
        # 16 of the corpus's inputs (the whole corpus replays in FuzzCorpus anyway): libFuzzer
        # runs every starting input first, and slow ones (a song rendered for seconds)
        # would eat the smoke's time.
        mkdir -p "$work/corpus"
        local f i=0
        for f in $(find "$corpus" -type f | sort); do
            cp "$f" "$work/corpus/"
            i=$((i + 1))
            [ "$i" -lt 16 ] || break
        done
        corpus=$work/corpus
    fi
    local start=$SECONDS rc=0 seed=()
    [ "${FUZZ_SMOKE:-0}" = 1 ] && seed=(-seed="${FUZZ_SEED:-1}")
    # -timeout: one input may take at most 10 s (a hang is a finding, as a crash);
    # -rss_limit_mb: a memory blow-up too. New coverage goes to the corpus folder.
    TACTUS_FUZZ_TARGET=$target "$binary" "$corpus" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -max_len=4096 -artifact_prefix="$work/" -print_final_stats=1 "${seed[@]}" > "$log/$target.log" 2>&1 || rc=$?
    local found=0
    for artifact in "$work"/crash-* "$work"/timeout-* "$work"/oom-* "$work"/slow-unit-*; do
        [ -e "$artifact" ] || continue
        cp "$artifact" "$crashes/$(basename "$artifact")"
        found=$((found + 1))
    done
    if [ "${FUZZ_SMOKE:-0}" != 1 ] && [ "$found" -eq 0 ]; then
        # Keep the smallest set of inputs with the same coverage.
        mkdir -p "$work/min"
        if TACTUS_FUZZ_TARGET=$target "$binary" -merge=1 "$work/min" "$corpus" > "$log/$target.merge.log" 2>&1; then
            rm -rf "$corpus" && mv "$work/min" "$corpus"
        fi
    fi
    local kept
    kept=$(find "$corpus" -type f | wc -l)
    rm -rf "$work"
    local runs
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log/$target.log" | tail -1)
    echo "fuzz $target: $((SECONDS - start)) s, ${runs:-?} runs, $kept corpus files, $found finding(s) (exit $rc; log $log/$target.log)"
    [ "$rc" -eq 0 ] && [ "$found" -eq 0 ]
}

status=0
pids=()
for target in "${targets[@]}"; do
    run_one "$target" &
    pids+=($!)
    if [ "${#pids[@]}" -ge "$jobs" ]; then
        wait "${pids[0]}" || status=1
        pids=("${pids[@]:1}")
    fi
done
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
[ $status -eq 0 ] && echo "fuzz: no findings" || echo "fuzz: findings copied to Fuzz/crashes/ (replayed by 'swift test --filter FuzzCorpus')"
exit $status
