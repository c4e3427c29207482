#!/bin/sh
# SPDX-License-Identifier: MIT
#
# An Omni-Path VNIC between two network namespaces, with nothing but rdmad,
# rdmactl and the Ethernet Manager simulator opa-em(1):
#
#   namespace vnic-a: rdmad LID 1 at NET.1:4795, opa-em LID 100 at NET.1:4796
#   namespace vnic-b: rdmad LID 2 at NET.2:4795
#
# The namespaces are joined by a veth pair that carries the software fabric
# (UDP).  opa-em configures port 0 of each rdmad over the fabric, as a
# fabric's Ethernet Manager would; each rdmad then makes the interface vnic0
# in its namespace, here addressed 192.168.77.1 and .2, and they ping.
#
#   examples/vnic-netns.sh up       set it all up, ping once, say how to use it
#   examples/vnic-netns.sh down     stop both rdmad, remove the namespaces
#
# Needs root, iproute2 and /dev/net/tun.  The programs come from PATH, or
# from RDMAD, RDMACTL and OPA_EM (for a build tree: RDMAD=build/rdmad,
# RDMACTL=build/rdmactl, OPA_EM=build/tools/opa-em).  NET (default
# 10.231.9) is the veth's /24, DIR (default /run/rdmad-vnic-example) holds
# each rdmad's socket, configuration, state and log.
set -eu

RDMAD=${RDMAD:-rdmad}
RDMACTL=${RDMACTL:-rdmactl}
OPA_EM=${OPA_EM:-opa-em}
NET=${NET:-10.231.9}
DIR=${DIR:-/run/rdmad-vnic-example}
NS_A=vnic-a
NS_B=vnic-b
EM_LID=100
MCAST_LID=0xf00001

say() { echo "vnic-netns: $*" >&2; }
die() { say "$*"; exit 1; }

# conf LID: rdmad.conf of the node with that LID: its place on the fabric and the fabric's map.
conf() {
	cat <<CONF
fabric_lid = $1
fabric_address = $NET.$1:4795
fabric_node.1 = $NET.1:4795
fabric_node.2 = $NET.2:4795
fabric_node.$EM_LID = $NET.1:4796
fabric_node.$MCAST_LID = $NET.1:4795 $NET.2:4795
CONF
}

# start NS LID: rdmad of that LID inside namespace NS, answering on DIR/NS/io.rdmad.
start() {
	d=$DIR/$1
	mkdir -p "$d/state"
	conf "$2" >"$d/rdmad.conf"
	ip netns exec "$1" "$RDMAD" --foreground --socket "$d/io.rdmad" --state-dir "$d/state" \
		--config "$d/rdmad.conf" >"$d/rdmad.log" 2>&1 &
	echo $! >"$d/rdmad.pid"
	for _ in $(seq 1 100); do
		"$RDMACTL" -s "$d/io.rdmad" -q status >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	die "rdmad in $1 did not start; see $d/rdmad.log"
}

# em ARGS...: opa-em, a node of the fabric in namespace A.
em() {
	ip netns exec "$NS_A" "$OPA_EM" --lid "$EM_LID" --address "$NET.1:4796" \
		--node "1=$NET.1:4795" --node "2=$NET.2:4795" "$@"
}

# mac LID: the locally administered MAC of the port of that LID (its bytes 3-5 are the LID).
mac() {
	printf '02:10:00:%02x:%02x:%02x\n' $(($1 & 255)) $(($1 >> 8 & 255)) $(($1 >> 16 & 255))
}

# port LID: what the manager does to make port 0 of node LID forward on virtual switch 1.
port() {
	em set-cpi "$1" trap_lid=$EM_LID -- \
		set-port "$1" 0 vesw_id=1 pkey=0x8001 encap_slid="$1" base_mac="$(mac "$1")" \
		u_mcast_dlid=$MCAST_LID config_state=forwarding eth_mtu=1500 port_num=$((10 + $1)) >/dev/null ||
		die "opa-em could not configure port 0 of LID $1"
}

# address NS IP: the host's side of the VNIC: up and addressed, once rdmad made it.
address() {
	for _ in $(seq 1 50); do
		ip -n "$1" link show vnic0 >/dev/null 2>&1 && break
		sleep 0.1
	done
	ip -n "$1" link set vnic0 up
	ip -n "$1" addr replace "$2/24" dev vnic0
}

up() {
	[ "$(id -u)" -eq 0 ] || die "needs root (network namespaces)"
	ip netns add "$NS_A"
	ip netns add "$NS_B"
	ip link add vnic-va netns "$NS_A" type veth peer name vnic-vb netns "$NS_B"
	ip -n "$NS_A" addr add "$NET.1/24" dev vnic-va
	ip -n "$NS_B" addr add "$NET.2/24" dev vnic-vb
	# Room for a 1500-byte frame in its OPA encapsulation and the fabric's UDP.
	ip -n "$NS_A" link set vnic-va mtu 1600 up
	ip -n "$NS_B" link set vnic-vb mtu 1600 up
	ip -n "$NS_A" link set lo up
	ip -n "$NS_B" link set lo up
	start "$NS_A" 1
	start "$NS_B" 2
	port 1
	port 2
	address "$NS_A" 192.168.77.1
	address "$NS_B" 192.168.77.2
	ip netns exec "$NS_A" ping -c 1 -W 2 192.168.77.2 >/dev/null || die "vnic0 of $NS_A cannot ping $NS_B's"
	cat <<EOF
vnic0 of $NS_A (192.168.77.1) and vnic0 of $NS_B (192.168.77.2) are up and ping.
  ip netns exec $NS_A ping 192.168.77.2
  $RDMACTL -s $DIR/$NS_A/io.rdmad vnic show 0
  $RDMACTL -s $DIR/$NS_A/io.rdmad vnic fabric
  $0 down
EOF
}

down() {
	for ns in "$NS_A" "$NS_B"; do
		pid=$(cat "$DIR/$ns/rdmad.pid" 2>/dev/null) || continue
		kill "$pid" 2>/dev/null || true
		for _ in $(seq 1 50); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		rm -f "$DIR/$ns/rdmad.pid"
	done
	ip netns del "$NS_A" 2>/dev/null || true
	ip netns del "$NS_B" 2>/dev/null || true
}

case "${1:-}" in
up) up ;;
down) down ;;
*) echo "usage: $0 up|down" >&2; exit 2 ;;
esac
