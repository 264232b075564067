# SPDX-License-Identifier: GPL-3.0-or-later
# Scenario 7: the audio device disappears while playing (the loopback card is unbound from
# its driver, as a USB card pulled out) and comes back: the service keeps running, says
# what happened, and plays again on its own.
. /vm/lib.sh
require_command run

start_service || finish
click_button btn-start
sleep 2
# The card cannot be unloaded while the service has it open (module in use); unbinding the
# platform device is the kernel's hot-unplug path for it.
drv=/sys/bus/platform/drivers/snd_aloop
dev=$(ls $drv | grep -m1 '^snd_aloop')
before=$(wc -l <"$OUTDIR/service.log")
echo "$dev" >$drv/unbind
check card-gone sh -c "! grep -q Loopback /proc/asound/cards"
sleep 3
check alive-without-card [ -d "/proc/$SERVICE_PID" ]
echo "$dev" >$drv/bind
check card-back grep -q Loopback /proc/asound/cards
# Give it time to notice and reopen, then it must be clicking again at the set tempo.
sleep 4
capture_start /tmp/capture.wav 4
capture_wait
cp /tmp/capture.wav "$OUTDIR/capture-after.wav"
audio_check plays-again spacing capture-after.wav --bpm 120 --min-onsets 6
check alive-after [ -d "/proc/$SERVICE_PID" ]
stop_service
check_eq exit-status 0 "$SERVICE_RC"
# It said so: after the unplug, a line naming the device as lost, and one saying it is back.
tail -n +$((before + 1)) "$OUTDIR/service.log" >/tmp/after-unplug.log
check reported-the-loss grep -Eqi "$BOARD_AUDIO_DEVICE.*(no such device|not there|stopped|lost|gone|unplugged)" /tmp/after-unplug.log
check reported-the-return grep -Eqi "$BOARD_AUDIO_DEVICE.*(back|reopened|playing again)|audio.*(back|playing again)" /tmp/after-unplug.log
finish
