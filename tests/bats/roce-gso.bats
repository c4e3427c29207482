#!/usr/bin/env bats
# make check runs this file alone: network namespaces, veths or TAPs, with names of their own.
# RoCE v2 with segmentation offload (rdmad.conf roce_segmentation_offload, on by default): runs of
# equal packets to one peer leave as one UDP GSO send, the kernel numbering their IPv4 IDs
# 0, 1, 2..., and each packet's ICRC is sealed for the ID it gets; the receiver takes GRO
# buffers and finds each packet's ID from its ICRC.  Transfers stay whole, and a capture of
# packets the kernel cut apart checks with an ICRC checker written from the standard.
# Needs root.

load helper
load vnic-helper
load roce-helper

setup_file() {
	roce_require
	roce_setup
	roce_pair rc
}

teardown_file() { roce_teardown; }
setup() { roce_test_setup; }

@test "with segmentation offload, SEND, WRITE and READ of 1 byte to 1 MiB are whole" {
	local len
	for len in 1 1500 4096 65536 1048576; do
		roce_send "$len"
		roce_write_read "$len"
	done
	roce_clean "$A" "$B"
	assert_equal "$(ctl "$A" -j qp show "$QA" | jq -r '.[0].state')" rts
}

@test "cut apart by the kernel, each packet of a run has the next IPv4 ID and an ICRC for it" {
	local cap=$BATS_TEST_TMPDIR/gso.pcap
	roce_capture_start "$cap"
	roce_write_read 65536
	roce_capture_stop
	roce_capture_checks "$cap"
	# A's WRITE left in runs: IDs 1, 2, ... follow a 0 (B's ACKs and READ responses may too).
	run --separate-stderr tshark -r "$cap" -Y "ip.src == 10.232.0.1" -T fields -e ip.id
	assert_success
	assert_line 0x0001
	assert_line 0x0002
	# B's READ responses left in runs too.
	run --separate-stderr tshark -r "$cap" -Y "ip.src == 10.232.0.2 && infiniband.bth.opcode == 14" -T fields -e ip.id
	assert_line 0x0001
}
