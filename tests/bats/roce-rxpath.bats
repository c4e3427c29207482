#!/usr/bin/env bats
# make check runs this file alone: network namespaces, veths or TAPs, with names of their own.
# The packet receive path (rdmad.conf roce_receive = auto, as root: an AF_PACKET ring on
# roce_netdev): rdmad says it is in use, traffic is whole over it, with segmentation offload
# on (numbered IPv4 IDs, GSO buffers that cross the veth whole and are cut apart by the
# parser), a capture decodes in tshark and every ICRC checks with the project's checker, and
# a packet whose ICRC is right only for another IPv4 ID is dropped and counted
# (icrc_other_id) where the socket path would have taken it (roce-rxpath-socket.bats).
# Needs root.

load helper
load vnic-helper
load roce-helper

setup_file() {
	roce_require
	roce_setup "roce_segmentation_offload = 1"
	roce_pair rc
}

teardown_file() { roce_teardown; }
setup() { roce_test_setup; }

@test "the packet path is in use: said at start, and in dev show (-j and text)" {
	for d in "$A" "$B"; do
		run grep -c "RoCE v2 receive path: packet (AF_PACKET ring on" "$d/rdmad.log"
		assert_output 1
		assert_equal "$(roce_dev "$d" receive)" packet
	done
	run ctl "$A" dev show soft0
	assert_success
	assert_output --regexp "receive +packet"
}

@test "over the packet path, SEND, WRITE and READ of 1 byte to 1 MiB are whole, GSO buffers cut apart" {
	local len rx_before
	rx_before=$(roce_dev "$B" rx_packets)
	for len in 1 1500 4096 65536 1048576; do
		roce_send "$len"
		roce_write_read "$len"
	done
	[ "$(roce_dev "$B" rx_packets)" -gt $((rx_before + 2000)) ]
	roce_clean "$A" "$B"
	assert_equal "$(ctl "$A" -j qp show "$QA" | jq -r '.[0].state')" rts
}

@test "a capture of packets as NICs send them decodes in tshark, every ICRC valid, IDs numbered" {
	local cap=$BATS_TEST_TMPDIR/rx.pcap
	# Runs cut before the wire, as a NIC cuts them: what the ring takes is what is captured.
	roce_capture_start "$cap"
	roce_send 65536
	roce_write_read 65536
	roce_capture_stop
	roce_capture_checks "$cap"
	run --separate-stderr tshark -r "$cap" -Y "ip.src == 10.232.0.1 && infiniband" -T fields -e ip.id
	assert_success
	assert_line 0x0001
	assert_line 0x0002
	[ "${#lines[@]}" -gt 100 ]
	for d in "$A" "$B"; do
		assert_equal "$(roce_dev "$d" icrc_errors)" 0
		assert_equal "$(roce_dev "$d" icrc_other_id)" 0
	done
}

# craft SEAL_ID SEND_ID PAYLOAD: an RC SEND ONLY from A's address to QP PQB with PSN 100.
craft() {
	ip netns exec "$NS_A" python3 "$TOP/tests/tools/roce-craft.py" 10.232.0.1 10.232.0.2 \
		"$PQB" 100 "$3" "$1" "$2"
}

@test "a packet whose ICRC is right only for another IPv4 ID is dropped and counted; the right one lands" {
	roce_qps rc
	ctl "$B" qp post-recv "$PQB" --wrid 61 --sge "$MB:0:64"
	errors=$(roce_dev "$B" icrc_errors)
	craft 7 5 "forged!!"
	sleep 0.3
	assert_equal "$(roce_dev "$B" icrc_other_id)" 1
	assert_equal "$(roce_dev "$B" icrc_errors)" "$errors"
	assert_equal "$(ctl "$B" -j cq poll "$PCB" --max 8 | jq length)" 0
	# The same packet under the ID its ICRC was computed for is a good one: it lands.
	craft 7 7 "genuine!"
	run completions "$B" "$PCB" 1
	assert_output "61 success recv 8 0 0 "
	assert_equal "$(ctl "$B" mr read "$MB" --offset 0 --length 8)" "genuine!"
	assert_equal "$(roce_dev "$B" icrc_other_id)" 1
}

@test "the veth pair deleted and made again (new indexes): the rings follow their interfaces, traffic crosses" {
	ip -n "$NS_A" link del "$VETH_A"
	sleep 0.3
	ip link add "$VETH_A" netns "$NS_A" type veth peer name "$VETH_B" netns "$NS_B"
	ip -n "$NS_A" addr add 10.232.0.1/24 dev "$VETH_A"
	ip -n "$NS_B" addr add 10.232.0.2/24 dev "$VETH_B"
	ip -n "$NS_A" addr add "$ROCE_GID6_A/64" dev "$VETH_A" nodad
	ip -n "$NS_B" addr add "$ROCE_GID6_B/64" dev "$VETH_B" nodad
	ip -n "$NS_A" link set "$VETH_A" mtu 1500 up
	ip -n "$NS_B" link set "$VETH_B" mtu 1500 up
	roce_wait_gid "$A" "$ROCE_GID_A"
	roce_wait_gid "$B" "$ROCE_GID_B"
	roce_qps rc
	CA=$PCA CB=$PCB QA=$PQA QB=$PQB
	roce_send 65536
	roce_write_read 4096
	assert_equal "$(roce_dev "$B" receive)" packet
}
