#!/usr/bin/env bats
# make check runs this file alone: network namespaces, veths or TAPs, with names of their own.
# The socket receive path forced (rdmad.conf roce_receive = socket) where the packet path
# could be had (root): rdmad says so, traffic is whole over it with segmentation offload on,
# and it takes a packet whose ICRC is right for another IPv4 ID than its own, since a socket
# does not see the ID (the 16 bits of the check the packet path keeps, roce-rxpath.bats).
# roce_receive = packet where the ring cannot open, and a value not of the three, stop rdmad
# with a message naming the setting.  Needs root.

load helper
load vnic-helper
load roce-helper

setup_file() {
	roce_require
	roce_setup "$(printf 'roce_segmentation_offload = 1\nroce_receive = socket')"
	roce_pair rc
}

teardown_file() { roce_teardown; }
setup() { roce_test_setup; }

@test "forced, the socket path is in use: said at start, and in dev show" {
	for d in "$A" "$B"; do
		run grep -c "RoCE v2 receive path: socket (roce_receive = socket" "$d/rdmad.log"
		assert_output 1
		assert_equal "$(roce_dev "$d" receive)" socket
	done
	run ctl "$B" dev show soft0
	assert_output --regexp "receive +socket"
}

@test "over the socket path, SEND, WRITE and READ of 1 byte to 1 MiB are whole" {
	local len
	for len in 1 4096 1048576; do
		roce_send "$len"
		roce_write_read "$len"
	done
	for d in "$A" "$B"; do
		assert_equal "$(roce_dev "$d" icrc_errors)" 0
		assert_equal "$(roce_dev "$d" rx_dropped)" 0
	done
}

@test "the socket path takes a packet whose ICRC is right for another IPv4 ID, and counts no icrc_other_id" {
	roce_qps rc
	ctl "$B" qp post-recv "$PQB" --wrid 71 --sge "$MB:0:64"
	ip netns exec "$NS_A" python3 "$TOP/tests/tools/roce-craft.py" 10.232.0.1 10.232.0.2 \
		"$PQB" 100 "forged!!" 7 5
	run completions "$B" "$PCB" 1
	assert_output "71 success recv 8 0 0 "
	assert_equal "$(roce_dev "$B" icrc_other_id)" 0
}

@test "roce_receive: a value not of auto, packet, socket stops rdmad naming the setting" {
	local d=$BATS_TEST_TMPDIR/bad
	mkdir -p "$d"
	printf 'roce_netdev = lo\nroce_receive = raw\n' >"$d/rdmad.conf"
	run "$BUILD/rdmad" --foreground --socket "$d/io.rdmad" --state-dir "$d/state" --config "$d/rdmad.conf"
	assert_failure
	assert_output --partial "roce_receive: 'raw' is not one of auto, packet, socket"
}

@test "roce_receive = packet where the ring cannot open (no such interface) stops rdmad, saying why" {
	local d=$BATS_TEST_TMPDIR/nodev
	mkdir -p "$d"
	printf 'roce_netdev = rdmad-none0\nroce_receive = packet\n' >"$d/rdmad.conf"
	run timeout 10 "$BUILD/rdmad" --foreground --socket "$d/io.rdmad" --state-dir "$d/state" \
		--config "$d/rdmad.conf"
	assert_failure
	assert_output --partial "roce_receive = packet: cannot open the packet path on rdmad-none0"
}

@test "roce_receive = auto without CAP_NET_RAW: the socket path, and the journal says why" {
	local d=$BATS_TEST_TMPDIR/nocap ns=rdmad-rxc-$$ wrapper
	mkdir -p "$d"
	ip netns add "$ns"
	ip -n "$ns" link set lo up
	printf 'roce_netdev = lo\n' >"$d/rdmad.conf"
	wrapper=$d/rdmad-no-raw
	printf '#!/bin/sh\nexec ip netns exec %s setpriv --inh-caps=-net_raw --bounding-set=-net_raw %s "$@"\n' \
		"$ns" "$BUILD/rdmad" >"$wrapper"
	chmod +x "$wrapper"
	RDMAD=$wrapper rdmad_start "$d"
	run grep -c "RoCE v2 receive path: socket (the packet path on lo could not be had" "$d/rdmad.log"
	assert_output 1
	assert_equal "$(roce_dev "$d" receive)" socket
	rdmad_stop "$d"
	ip netns del "$ns"
}
