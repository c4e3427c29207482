# Two rdmad joined by a software Omni-Path fabric, each in its own network
# namespace, the namespaces joined by a veth pair, and the Ethernet Manager
# simulator (tools/opa-em.c, opa-em(1)) as a third node beside rdmad A:
#
#   namespace A: rdmad LID 1 at 10.231.0.1:4795, opa-em LID 100 at 10.231.0.1:4796
#   namespace B: rdmad LID 2 at 10.231.0.2:4795
#
# The veth ends are $VETH_A and $VETH_B.
# Multicast LID 0xF00001 reaches both rdmad.  Needs root, ip and /dev/net/tun.

OPA_EM="$BUILD/tools/opa-em"
EM_LID=100
MCAST_LID=0xf00001

vnic_require() {
	[ "$(id -u)" -eq 0 ] || skip "needs root for network namespaces"
	[ -c /dev/net/tun ] || skip "needs /dev/net/tun"
	command -v ip >/dev/null || skip "needs ip (iproute2)"
}

# fabric_conf LID: rdmad.conf of the node with that LID.
fabric_conf() {
	cat <<CONF
fabric_lid = $1
fabric_address = 10.231.0.$1:4795
fabric_node.1 = 10.231.0.1:4795
fabric_node.2 = 10.231.0.2:4795
fabric_node.$EM_LID = 10.231.0.1:4796
fabric_node.$MCAST_LID = 10.231.0.1:4795 10.231.0.2:4795
CONF
}

# vnic_fabric_setup: the namespaces, the veth pair and both rdmad (dirs $A and $B).
vnic_fabric_setup() {
	NS_A=rdmad-a-$$
	NS_B=rdmad-b-$$
	A=$BATS_FILE_TMPDIR/a
	B=$BATS_FILE_TMPDIR/b
	VETH_A=fa$$
	VETH_B=fb$$
	export NS_A NS_B A B VETH_A VETH_B
	ns_veth_pair 10.231.0 1600
	mkdir -p "$A" "$B"
	fabric_conf 1 >"$A/rdmad.conf"
	fabric_conf 2 >"$B/rdmad.conf"
	ns_rdmad_start "$NS_A" "$A"
	ns_rdmad_start "$NS_B" "$B"
}

# ns_veth_pair NET MTU: namespaces $NS_A and $NS_B joined by veth $VETH_A - $VETH_B,
# addresses NET.1/24 and NET.2/24, up with that MTU.
ns_veth_pair() {
	ip netns add "$NS_A"
	ip netns add "$NS_B"
	ip link add "$VETH_A" netns "$NS_A" type veth peer name "$VETH_B" netns "$NS_B"
	ip -n "$NS_A" addr add "$1.1/24" dev "$VETH_A"
	ip -n "$NS_B" addr add "$1.2/24" dev "$VETH_B"
	ip -n "$NS_A" link set "$VETH_A" mtu "$2" up
	ip -n "$NS_B" link set "$VETH_B" mtu "$2" up
	ip -n "$NS_A" link set lo up
	ip -n "$NS_B" link set lo up
}

vnic_fabric_teardown() {
	rdmad_stop "$A" || true
	rdmad_stop "$B" || true
	ip netns del "$NS_A" 2>/dev/null || true
	ip netns del "$NS_B" 2>/dev/null || true
}

# ns_rdmad_start NS DIR [OPTIONS...]: rdmad_start with rdmad inside namespace NS.
ns_rdmad_start() {
	local ns=$1 dir=$2 wrapper=$2/rdmad-in-ns
	shift 2
	printf '#!/bin/sh\nexec ip netns exec %s %s "$@"\n' "$ns" "$BUILD/rdmad" >"$wrapper"
	chmod +x "$wrapper"
	RDMAD=$wrapper rdmad_start "$dir" "$@"
}

# ctl DIR ARGS...: rdmactl against the rdmad of DIR.
ctl() {
	local dir=$1
	shift
	"$RDMACTL" -s "$dir/io.rdmad" "$@"
}

# em ARGS...: the Ethernet Manager simulator, a node in namespace A.
em() {
	ip netns exec "$NS_A" "$OPA_EM" --lid "$EM_LID" --address 10.231.0.1:4796 \
		--node 1=10.231.0.1:4795 --node 2=10.231.0.2:4795 "$@"
}

# lmac LID: the locally administered MAC the manager gives the port of that
# LID on fabric 0, vesw 1 (reference opa_vnic.md §4.6: bytes 3-5 the LID).
lmac() {
	printf '02:10:00:%02x:%02x:%02x\n' $(($1 & 255)) $(($1 >> 8 & 255)) $(($1 >> 16 & 255))
}

# em_port LID: what the manager does to make port 0 of node LID forward on vesw 1.
em_port() {
	em set-cpi "$1" trap_lid=$EM_LID -- \
		set-port "$1" 0 vesw_id=1 pkey=0x8001 encap_slid="$1" base_mac="$(lmac "$1")" \
		u_mcast_dlid=$MCAST_LID config_state=forwarding eth_mtu=1500 port_num=$((10 + $1))
}
