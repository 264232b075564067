# SPDX-License-Identifier: GPL-3.0-or-later
# Scenario 11: Ableton Link over a bad network, then none. Two boxes (`tactus simulate
# --headless --realtime --sync link`) in two network namespaces joined by a veth pair made
# here, with `tc netem delay 10ms 8ms loss 2%` both ways: A at 120 in 4/4, B started 2 s
# later at 137. B's beat onsets must be within 5 ms of A's (`mono`, when each click is heard);
# then the network is gone for 10 s (netem loss 100% both ways) and back: both keep playing at
# their tempo throughout, B follows A's wheel after it is back (a rejoined session), both end
# cleanly. The timing checks run on the host (host/link.py) over the boxes' events.
. /vm/lib.sh
require_command simulate
IP=/usr/sbin/ip TC=/usr/sbin/tc   # busybox sh would run its own ip/tc applets (no netns, no netem)
NS_A=tlk-a NS_B=tlk-b
W=/tmp/link

cleanup_net() { $IP netns del $NS_A 2>/dev/null; $IP netns del $NS_B 2>/dev/null; true; }
mkdir -p /run/netns   # ip netns keeps its namespaces there; the initramfs has no /run
cleanup_net
modprobe veth 2>>"$OUTDIR/check.log"; modprobe sch_netem 2>>"$OUTDIR/check.log"
if ! $IP netns add $NS_A 2>"$OUTDIR/netns.log"; then
	echo "@@SKIP 11-link: this kernel cannot make network namespaces ($(cat "$OUTDIR/netns.log"))" >&2
	pending "SKIPPED LOUDLY: the kernel cannot make network namespaces: $(cat "$OUTDIR/netns.log")"
fi
check netns-b $IP netns add $NS_B
check veth $IP link add tlk-va type veth peer name tlk-vb
for side in "$NS_A tlk-va 10.77.0.1/24" "$NS_B tlk-vb 10.77.0.2/24"; do
	set -- $side
	$IP link set "$2" netns "$1" && $IP -n "$1" addr add "$3" dev "$2" && $IP -n "$1" link set "$2" up &&
		$IP -n "$1" link set lo up && $IP -n "$1" route add 224.0.0.0/4 dev "$2" ||
		fail "namespace-$1" "could not set up $2 in $1"
	check "netem-$1" $TC -n "$1" qdisc add dev "$2" root netem delay 10ms 8ms loss 2%
done
check ping-through $IP netns exec $NS_A ping -c 2 -W 2 10.77.0.2
$TC -n $NS_A qdisc show dev tlk-va >"$OUTDIR/netem.txt"

# box NAME NAMESPACE SCRIPT BPM: one box in its namespace, in the background (PID in BOX_PID).
box() {
	mkdir -p "$W/$1/state"
	printf 'schema = 1\n[current]\nbpm = %s\n' "$4" >"$W/$1/state/settings.toml"
	printf "$3" >"$W/$1/script.txt"
	$IP netns exec "$2" $TACTUS simulate --headless --realtime --sync link --script "$W/$1/script.txt" \
		--out "$W/$1/out" --state "$W/$1/state" >"$W/$1/stdout.txt" 2>"$W/$1/stderr.txt" &
	BOX_PID=$!
}
rm -rf "$W"; mkdir -p "$W"
# A: START at once; the wheel at 25 s (120 -> 90 as in Tests/Link), 3 s after the network is back.
box a $NS_A '0.2 press start\n25 turn -18 over 1.8\n34 end\n' 120
A_PID=$BOX_PID
sleep 2
box b $NS_B '0.3 press start\n32 end\n' 137
B_PID=$BOX_PID
# The network goes at 12 s of A's time (B has played with A for about 8 s) for 10 s.
sleep 10
netem_set() { $TC -n $NS_A qdisc change dev tlk-va root netem "$@" && $TC -n $NS_B qdisc change dev tlk-vb root netem "$@"; }
check network-down netem_set loss 100%
echo "down $(up)" >"$W/net.txt"
sleep 10
check network-back netem_set delay 10ms 8ms loss 2%
echo "up $(up)" >>"$W/net.txt"
wait $A_PID; A_RC=$?
wait $B_PID; B_RC=$?
check_eq box-a-exit 0 "$A_RC"
check_eq box-b-exit 0 "$B_RC"
for who in a b; do
	mkdir -p "$OUTDIR/$who"
	cp "$W/$who/out/events.jsonl" "$W/$who/stderr.txt" "$W/$who/script.txt" "$OUTDIR/$who/" 2>/dev/null
done
cp "$W/net.txt" "$OUTDIR/"
cleanup_net
host_check link-phase-and-rejoin link a/events.jsonl b/events.jsonl net.txt
finish
