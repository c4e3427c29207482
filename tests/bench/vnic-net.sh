#!/bin/sh
# SPDX-License-Identifier: MIT
#
# vnic-net: ping RTT and TCP throughput (iperf3) over an Omni-Path VNIC beside the same
# over the bare veth that carries the software fabric, on one machine:
#
#   namespace A: rdmad LID 1 at 10.232.0.1:4795, opa-em LID 100 at 10.232.0.1:4796,
#                veth 10.232.0.1/24, vnic0 10.232.1.1/24
#   namespace B: rdmad LID 2 at 10.232.0.2:4795, veth 10.232.0.2/24, vnic0 10.232.1.2/24
#
# The VNIC's 16B packets travel as UDP datagrams over that veth (docs/opa-fabric.md), so
# the veth numbers are the ceiling the VNIC is measured against.  The bare veth is measured
# at its default MTU 1500; for the VNIC runs the veth is then set to MTU 1600 (FABRIC_MTU):
# the fabric's link, like any encapsulation underlay, must carry eth_mtu + 73 bytes without
# IP fragmentation ("MTU of the fabric link" in docs/opa-fabric.md).
#
# Targets: TCP over the VNIC >= 0.3x the veth's (0.5x the aim); ping avg over the VNIC
# within 2x the veth's.  A target missed is reported, not a failure; a setup that does not
# come up is (exit 1).  Without root, ip, iperf3, ping, /dev/net/tun or jq/python3 it
# prints one "# skipped" line and exits 0.
#
# Environment: BUILD (default build), VNIC_NET_SECONDS (iperf3 time, default 5),
# VNIC_NET_PINGS (default 200), VNIC_NET_MTU (more VNIC MTUs to measure TCP at, with the
# veth's MTU 100 above; default "9000", "" for none), VNIC_NET_FRAG=1 also measures the
# VNIC at MTU 1500 over a 1500-MTU veth (every datagram fragmented), VNIC_NET_RDMAD_A / _B (more rdmad options, e.g. "--cpus 0"),
# VNIC_NET_KEEP=1 keeps the temporary directory (logs, iperf3's JSON).
# Results travel as words ("avg p50 p99 lost"), split on purpose with set -- $(...).
# shellcheck disable=SC2046,SC2086
set -u

BUILD=${BUILD:-build}
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
case "$BUILD" in /*) ;; *) BUILD="$top/$BUILD" ;; esac
SECONDS_TCP=${VNIC_NET_SECONDS:-5}
PINGS=${VNIC_NET_PINGS:-200}
EXTRA_MTUS=${VNIC_NET_MTU-9000}
FABRIC_MTU=1600	# the veth's MTU for the VNIC runs: 1500 + 73 and some

RDMAD=$BUILD/rdmad
RDMACTL=$BUILD/rdmactl
OPA_EM=$BUILD/tools/opa-em
EM_LID=100
MCAST_LID=0xf00001
NET=10.232.0	# the veth (the fabric's wire)
VNET=10.232.1	# the VNIC
IPERF_PORT=5299

skip() {
	echo "# skipped: needs root / ip / iperf3 ($1)"
	exit 0
}

[ "$(id -u)" -eq 0 ] || skip "not root: network namespaces need it"
command -v ip >/dev/null 2>&1 || skip "no ip (iproute2)"
command -v iperf3 >/dev/null 2>&1 || skip "no iperf3"
command -v ping >/dev/null 2>&1 || skip "no ping"
[ -c /dev/net/tun ] || skip "no /dev/net/tun"
if command -v jq >/dev/null 2>&1; then
	JSON=jq
elif command -v python3 >/dev/null 2>&1; then
	JSON=python3
else
	skip "neither jq nor python3 to read iperf3's JSON"
fi
for f in "$RDMAD" "$RDMACTL" "$OPA_EM"; do
	[ -x "$f" ] || skip "$f not built (make build)"
done
# A namespace we may not create (a container without CAP_SYS_ADMIN) is a skip too.
probe=rdmad-probe-$$
ip netns add "$probe" 2>/dev/null || skip "ip netns add refused"
ip netns del "$probe"

NS_A=rdmad-bench-a-$$
NS_B=rdmad-bench-b-$$
VETH_A=vba$$
VETH_B=vbb$$
TMP=$(mktemp -d "${TMPDIR:-/tmp}/vnic-net.XXXXXX") || exit 1
A=$TMP/a
B=$TMP/b
IPERF_PID=

# ---- teardown: runs on every exit, whatever state the setup reached ----

# rdmad_stop DIR: SIGTERM, then SIGKILL after 5 s.
rdmad_stop() {
	pid=$(cat "$1/rdmad.pid" 2>/dev/null) || return 0
	kill -TERM "$pid" 2>/dev/null
	i=0
	while kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	kill -KILL "$pid" 2>/dev/null
	rm -f "$1/rdmad.pid"
}

cleanup() {
	trap - EXIT INT TERM HUP
	[ -n "$IPERF_PID" ] && kill "$IPERF_PID" 2>/dev/null
	rdmad_stop "$A"
	rdmad_stop "$B"
	# Anything of ours still in the namespaces (an iperf3 or ping cut short), by pid.
	for ns in "$NS_A" "$NS_B"; do
		for pid in $(ip netns pids "$ns" 2>/dev/null); do
			kill -KILL "$pid" 2>/dev/null
		done
		ip netns del "$ns" 2>/dev/null
	done
	if [ "${VNIC_NET_KEEP:-0}" = 1 ]; then
		echo "# kept $TMP"
	else
		rm -rf "$TMP"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

fail() {
	echo "vnic-net: $*" >&2
	for d in "$A" "$B"; do
		if [ -s "$d/rdmad.log" ]; then
			echo "--- $d/rdmad.log (last lines)" >&2
			tail -n 20 "$d/rdmad.log" >&2
		fi
	done
	exit 1
}

# ---- setup ----

# fabric_conf LID: rdmad.conf of the node with that LID (as tests/bats/vnic-helper.bash).
fabric_conf() {
	cat <<CONF
fabric_lid = $1
fabric_address = $NET.$1:4795
fabric_node.1 = $NET.1:4795
fabric_node.2 = $NET.2:4795
fabric_node.$EM_LID = $NET.1:4796
fabric_node.$MCAST_LID = $NET.1:4795 $NET.2:4795
CONF
}

# rdmad_start NS DIR: rdmad in namespace NS, its socket, state and config in DIR.
rdmad_start() {
	ip netns exec "$1" "$RDMAD" --foreground --socket "$2/io.rdmad" --state-dir "$2/state" \
		--config "$2/rdmad.conf" $3 >"$2/rdmad.log" 2>&1 &
	# ip netns exec execs rdmad: this is its pid (status reports it too).
	echo $! >"$2/rdmad.pid"
	i=0
	until "$RDMACTL" -s "$2/io.rdmad" -j status >"$2/status.json" 2>/dev/null; do
		kill -0 "$(cat "$2/rdmad.pid")" 2>/dev/null || fail "rdmad in $1 exited"
		i=$((i + 1))
		[ $i -lt 200 ] || fail "rdmad in $1 did not answer within 10 s"
		sleep 0.05
	done
}

# em ARGS...: the Ethernet Manager simulator, a node in namespace A.
em() {
	ip netns exec "$NS_A" "$OPA_EM" --lid "$EM_LID" --address "$NET.1:4796" \
		--node "1=$NET.1:4795" --node "2=$NET.2:4795" "$@"
}

# lmac LID: the locally administered MAC the manager gives the port of that LID.
lmac() {
	printf '02:10:00:%02x:%02x:%02x\n' $(($1 & 255)) $(($1 >> 8 & 255)) $(($1 >> 16 & 255))
}

# em_port LID MTU: port 0 of node LID forwarding on vesw 1 with eth_mtu MTU.
em_port() {
	em set-cpi "$1" trap_lid=$EM_LID -- \
		set-port "$1" 0 vesw_id=1 pkey=0x8001 encap_slid="$1" base_mac="$(lmac "$1")" \
		u_mcast_dlid=$MCAST_LID config_state=forwarding eth_mtu="$2" \
		port_num=$((10 + $1)) >"$TMP/em-$1.out" 2>&1
}

# wait_link NS IFNAME
wait_link() {
	i=0
	until ip -n "$1" link show "$2" >/dev/null 2>&1; do
		i=$((i + 1))
		[ $i -lt 200 ] || fail "$2 did not appear in $1"
		sleep 0.05
	done
}

# wait_ping NS ADDR: until one ping passes (10 s at most).
wait_ping() {
	i=0
	until ip netns exec "$1" ping -n -q -c 1 -W 1 "$2" >/dev/null 2>&1; do
		i=$((i + 1))
		[ $i -lt 20 ] || fail "no ping from $1 to $2"
		sleep 0.2
	done
}

t0=$(date +%s)
ip netns add "$NS_A" || fail "ip netns add"
ip netns add "$NS_B" || fail "ip netns add"
ip link add "$VETH_A" netns "$NS_A" type veth peer name "$VETH_B" netns "$NS_B" ||
	fail "ip link add veth"
ip -n "$NS_A" addr add "$NET.1/24" dev "$VETH_A"
ip -n "$NS_B" addr add "$NET.2/24" dev "$VETH_B"
for x in "$NS_A $VETH_A" "$NS_B $VETH_B"; do
	set -- $x
	ip -n "$1" link set lo up
	ip -n "$1" link set "$2" up
done
mkdir -p "$A" "$B"
fabric_conf 1 >"$A/rdmad.conf"
fabric_conf 2 >"$B/rdmad.conf"
rdmad_start "$NS_A" "$A" "${VNIC_NET_RDMAD_A:-}"
rdmad_start "$NS_B" "$B" "${VNIC_NET_RDMAD_B:-}"
em_port 1 1500 || fail "opa-em set-port on LID 1: $(cat "$TMP/em-1.out")"
em_port 2 1500 || fail "opa-em set-port on LID 2: $(cat "$TMP/em-2.out")"
wait_link "$NS_A" vnic0
wait_link "$NS_B" vnic0
ip -n "$NS_A" addr add "$VNET.1/24" dev vnic0 || fail "address on vnic0 in A"
ip -n "$NS_B" addr add "$VNET.2/24" dev vnic0 || fail "address on vnic0 in B"
ip -n "$NS_A" link set vnic0 up || fail "vnic0 up in A"
ip -n "$NS_B" link set vnic0 up || fail "vnic0 up in B"
wait_ping "$NS_A" "$NET.2"
wait_ping "$NS_A" "$VNET.2"

# ---- measurements ----

# ping_stats ADDR: "avg p50 p99" of PINGS round trips from A, in ms; "- - -" if none.
ping_stats() {
	ip netns exec "$NS_A" ping -n -c "$PINGS" -i 0.002 -W 1 "$1" 2>/dev/null |
		sed -n 's/.* time=\([0-9.]*\) ms.*/\1/p' | sort -n |
		awk -v want="$PINGS" '
			{ v[NR] = $1; s += $1 }
			END {
				if (NR == 0) { print "- - - 0"; exit }
				p50 = v[int((NR - 1) * 0.50) + 1]
				p99 = v[int((NR - 1) * 0.99) + 1]
				printf "%.3f %.3f %.3f %d\n", s / NR, p50, p99, want - NR
			}'
}

# json_get FILE EXPR: a number from iperf3's JSON (EXPR as jq path, e.g. .end.sum_received.bits_per_second).
json_get() {
	if [ "$JSON" = jq ]; then
		jq -r "$2 // empty" "$1" 2>/dev/null
	else
		python3 - "$1" "$2" <<'PY' 2>/dev/null
import json, sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2].strip('.').split('.'):
    v = v.get(k) if isinstance(v, dict) else None
if v is not None:
    print(v)
PY
	fi
}

iperf_server() {
	ip netns exec "$NS_B" iperf3 -s -p "$IPERF_PORT" >"$TMP/iperf3-server.log" 2>&1 &
	IPERF_PID=$!
	i=0
	until ip netns exec "$NS_B" ss -Hltn "sport = :$IPERF_PORT" 2>/dev/null | grep -q .; do
		i=$((i + 1))
		[ $i -lt 100 ] || fail "iperf3 server did not listen"
		sleep 0.05
	done
}

# tcp_rate ADDR NAME: one iperf3 run from A; sets tcp_result to "Gbit/s retransmits", "- -"
# if it failed.  iperf3 runs in the background so a signal's trap runs at once (wait is
# interruptible, a foreground command is not).
tcp_rate() {
	tcp_result="- -"
	ip netns exec "$NS_A" iperf3 -c "$1" -p "$IPERF_PORT" -t "$SECONDS_TCP" -J \
		>"$TMP/iperf3-$2.json" 2>&1 &
	wait $! || return 0
	bps=$(json_get "$TMP/iperf3-$2.json" .end.sum_received.bits_per_second)
	rtx=$(json_get "$TMP/iperf3-$2.json" .end.sum_sent.retransmits)
	[ -n "$bps" ] || return 0
	tcp_result=$(awk -v b="$bps" -v r="${rtx:-0}" 'BEGIN { printf "%.3f %d\n", b / 1e9, r }')
}

# ratio X Y: X / Y to two decimals, "-" when either is missing.
ratio() {
	awk -v x="$1" -v y="$2" 'BEGIN {
		if (x == "-" || y == "-" || y + 0 == 0) print "-"; else printf "%.2f\n", x / y }'
}

# verdict VALUE OP LIMIT: "met" / "NOT MET".
verdict() {
	awk -v v="$1" -v op="$2" -v l="$3" 'BEGIN {
		if (v == "-") { print "NOT MET"; exit }
		ok = op == ">=" ? v + 0 >= l + 0 : v + 0 <= l + 0
		print ok ? "met" : "NOT MET" }'
}

# cpu_of PID: user+system CPU seconds of a process so far.
cpu_of() {
	awk -v hz="$(getconf CLK_TCK)" '{ sub(/.*\) /, ""); printf "%.2f\n", ($12 + $13) / hz }' \
		"/proc/$1/stat" 2>/dev/null || echo 0
}

# snmp NS PROTO FIELD: a counter of /proc/net/snmp as namespace NS sees it.
snmp() {
	ip netns exec "$1" cat /proc/net/snmp 2>/dev/null | awk -v p="$2:" -v f="$3" '
		$1 == p && !names { for (i = 2; i <= NF; i++) col[$i] = i; names = 1; next }
		$1 == p && names { print (f in col) ? $col[f] : 0; exit }'
}

# tap_drops NS: frames vnic0 dropped on its way to rdmad (the TAP queue was full).
tap_drops() {
	ip netns exec "$1" cat /sys/class/net/vnic0/statistics/tx_dropped 2>/dev/null || echo 0
}

# vnic_tcp NAME: tcp_rate over the VNIC, with what went wrong meanwhile in $diag.
vnic_tcp() {
	ca=$(cpu_of "$(cat "$A/rdmad.pid")")
	cb=$(cpu_of "$(cat "$B/rdmad.pid")")
	rb=$(snmp "$NS_B" Udp RcvbufErrors)
	fr=$(snmp "$NS_B" Ip ReasmOKs)
	td=$(tap_drops "$NS_A")
	tcp_rate "$VNET.2" "$1"
	diag=$(awk -v ca="$ca" -v ca1="$(cpu_of "$(cat "$A/rdmad.pid")")" \
		-v cb="$cb" -v cb1="$(cpu_of "$(cat "$B/rdmad.pid")")" \
		-v rb="$rb" -v rb1="$(snmp "$NS_B" Udp RcvbufErrors)" \
		-v fr="$fr" -v fr1="$(snmp "$NS_B" Ip ReasmOKs)" \
		-v td="$td" -v td1="$(tap_drops "$NS_A")" -v t="$SECONDS_TCP" 'BEGIN {
		printf "rdmad CPU A %.0f%% B %.0f%%; fabric datagrams reassembled %d, " \
			"dropped at B socket %d; frames dropped at A vnic0 queue %d",
			(ca1 - ca) * 100 / t, (cb1 - cb) * 100 / t, fr1 - fr, rb1 - rb, td1 - td }')
}

# fabric_mtu MTU: the veth (the fabric's wire) MTU on both sides.
fabric_mtu() {
	ip -n "$NS_A" link set "$VETH_A" mtu "$1" && ip -n "$NS_B" link set "$VETH_B" mtu "$1"
}

# vnic_mtu MTU: the EM's eth_mtu and vnic0's MTU on both sides.
vnic_mtu() {
	em_port 1 "$1" && em_port 2 "$1" &&
		ip -n "$NS_A" link set vnic0 mtu "$1" && ip -n "$NS_B" link set vnic0 mtu "$1"
}

row() {	# row LABEL AVG P50 P99 LOST GBITS RETR [NOTE]
	printf '%-34s %7s %7s %7s %4s  %7s %6s  %s\n' "$1" "$2" "$3" "$4" "$5" "$6" "$7" "${8:-}"
}

echo "# vnic-net: 2 rdmad in 2 namespaces over a veth; ping -c $PINGS -i 0.002 (ms)," \
	"iperf3 -t $SECONDS_TCP, 1 stream (Gbit/s); bare veth at its default mtu 1500," \
	"the fabric's veth at mtu $FABRIC_MTU for the vnic runs"

# The bare veth at its default MTU 1500.
set -- $(ping_stats "$NET.2")
p_veth_avg=$1 p_veth_p50=$2 p_veth_p99=$3 p_veth_lost=$4
iperf_server
tcp_rate "$NET.2" veth
set -- $tcp_result
t_veth=$1 r_veth=$2

# The VNIC (MTU 1500) over the veth at FABRIC_MTU.
fabric_mtu "$FABRIC_MTU" || fail "veth mtu $FABRIC_MTU"
wait_ping "$NS_A" "$VNET.2"
set -- $(ping_stats "$VNET.2")
p_vnic_avg=$1 p_vnic_p50=$2 p_vnic_p99=$3 p_vnic_lost=$4
vnic_tcp vnic
set -- $tcp_result
t_vnic=$1 r_vnic=$2
diag_main=$diag

row "" "avg" "p50" "p99" "lost" "TCP" "retr"
row "veth (mtu 1500, its default)" "$p_veth_avg" "$p_veth_p50" "$p_veth_p99" "$p_veth_lost" \
	"$t_veth" "$r_veth"
row "vnic (mtu 1500) over veth $FABRIC_MTU" "$p_vnic_avg" "$p_vnic_p50" "$p_vnic_p99" \
	"$p_vnic_lost" "$t_vnic" "$r_vnic" "$(ratio "$t_vnic" "$t_veth")x"
echo "  vnic run: $diag_main"

# The MTU effect.  A 1500-byte VNIC frame is a 1573-byte IP datagram on the fabric's wire:
# over a 1500-MTU veth each would be sent as two IP fragments (VNIC_NET_FRAG=1 shows the
# cost).  Then a jumbo VNIC MTU with the veth's MTU 100 above it (as an OPA link's 8 or
# 10 KiB MTU would be).
if [ "${VNIC_NET_FRAG:-0}" = 1 ]; then
	if fabric_mtu 1500; then
		wait_ping "$NS_A" "$VNET.2"
		vnic_tcp vnic-frag
		set -- $tcp_result
		row "vnic (mtu 1500) over veth 1500" "" "" "" "" "$1" "$2" "$(ratio "$1" "$t_veth")x"
		echo "  vnic run: $diag"
	else
		echo "  vnic mtu 1500 over veth 1500: could not be set up"
	fi
fi
for m in $EXTRA_MTUS; do
	if ! fabric_mtu $((m + 100)) || ! vnic_mtu "$m"; then
		echo "  vnic mtu $m over veth $((m + 100)): could not be set up"
		continue
	fi
	wait_ping "$NS_A" "$VNET.2"
	vnic_tcp "vnic-$m"
	set -- $tcp_result
	row "vnic (mtu $m) over veth $((m + 100))" "" "" "" "" "$1" "$2" "$(ratio "$1" "$t_veth")x"
	echo "  vnic run: $diag"
done

tcp_ratio=$(ratio "$t_vnic" "$t_veth")
ping_ratio=$(ratio "$p_vnic_avg" "$p_veth_avg")
echo "  target vnic TCP >= 0.3x veth (aim 0.5x), vnic mtu 1500 over veth $FABRIC_MTU vs veth 1500: ${tcp_ratio}x" \
	"$(verdict "$tcp_ratio" ">=" 0.3) (aim $(verdict "$tcp_ratio" ">=" 0.5))"
echo "  target vnic ping avg <= 2x veth: ${ping_ratio}x  $(verdict "$ping_ratio" "<=" 2)"
echo "# total $(($(date +%s) - t0)) s"
exit 0
