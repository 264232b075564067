#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# HARNESS SELF-TEST ONLY (Tests/VM/run.sh --selftest): a crude shell stand-in for
# `tactus run` / `tactus check`, so the scenarios' own plumbing (service start and stop,
# START press, capture and comparison, settings file) can be exercised before the real
# commands exist. It proves nothing about tactus; the report says so. Every other
# subcommand goes to the real binary.
REAL=/usr/bin/tactus.real
case $1 in
--help | -h | help)
	$REAL --help | sed 's/^SUBCOMMANDS:$/SUBCOMMANDS:\n  run                     (self-test stand-in)\n  check                   (self-test stand-in)/'
	exit 0 ;;
check)
	echo "encoder ok"; echo "tap ok"; echo "start ok"; echo "display ok"; echo "audio ok"
	exit 0 ;;
run)
	case " $* " in *" --help "*) echo "USAGE: tactus run [--board FILE] [--state DIR]   (self-test stand-in)"; exit 0 ;; esac ;;
*) exec $REAL "$@" ;;
esac
shift
state=/tmp
board=
while [ $# -gt 0 ]; do
	case $1 in --state) state=$2; shift 2 ;; --board) board=$2; shift 2 ;; *) shift ;; esac
done
. /vm/board.env
$REAL render --bpm 120 --meter 4/4 --bars 16 --format f32 -o /tmp/standin.wav >/dev/null
player=
stop() {
	[ -n "$player" ] && kill "$player" 2>/dev/null
	kill "$mon" 2>/dev/null
	printf "schema = 1\n\n[current]\nbpm = 120\n" >"$state/settings.toml.tmp" && mv "$state/settings.toml.tmp" "$state/settings.toml"
	echo "stand-in: stopped"
	exit 0
}
trap stop TERM INT
set -- $(gpiofind btn-start)
# Holding the START line and saying "ready" is what start_service waits for; its falling
# edge is the press.
gpiomon -n 1 -f "$1" "$2" >/dev/null &
mon=$!
echo "stand-in: [stand-in] ready"
wait $mon
echo "stand-in: START"
aplay -q -D "$BOARD_AUDIO_DEVICE" --period-size="$BOARD_AUDIO_PERIOD" \
	--buffer-size=$((BOARD_AUDIO_PERIOD * BOARD_AUDIO_PERIODS)) /tmp/standin.wav &
player=$!
while :; do sleep 1 & wait $!; done
