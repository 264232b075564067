# SPDX-License-Identifier: GPL-3.0-or-later
# Scenario 2: START pressed through gpio-sim starts the clicks; the loopback capture holds
# exactly what `tactus render` gives for the same (default) settings from the first onset
# on: tempo spacing exact to the sample, accents where they belong, nothing dropped.
. /vm/lib.sh
require_command run

start_service || finish
capture_start /tmp/capture.wav 7
sleep 0.5
click_button btn-start
capture_wait
check service-alive [ -d "/proc/$SERVICE_PID" ]
stop_service
check_eq exit-status 0 "$SERVICE_RC"
# The service's defaults are the render defaults (120 BPM, 4/4, accent on 1, woodblock);
# it plays FLOAT_LE, so the reference is rendered as 32-bit float and compared bit for bit.
$TACTUS render --bpm 120 --meter 4/4 --bars 4 --format f32 -o /tmp/reference.wav >/dev/null 2>&1
cp /tmp/capture.wav /tmp/capture.wav.log /tmp/reference.wav "$OUTDIR/"
audio_check same-as-render match reference.wav capture.wav --allow-truncated --min-onsets 8
audio_check spacing-120 spacing capture.wav --bpm 120 --min-onsets 8
finish
