#!/usr/bin/env bats
# make check runs this file alone: network namespaces, veths or TAPs, with names of their own.
# RoCE v2 with segmentation offload turned off (rdmad.conf roce_segmentation_offload = 0):
# every packet leaves on its own, with IPv4 ID 0, and transfers stay whole.  Needs root.

load helper
load vnic-helper
load roce-helper

setup_file() {
	roce_require
	roce_setup "roce_segmentation_offload = 0"
	roce_pair rc
}

teardown_file() { roce_teardown; }
setup() { roce_test_setup; }

@test "without segmentation offload, SEND, WRITE and READ of 1 byte to 1 MiB are whole" {
	local len
	for len in 1 4096 1048576; do
		roce_send "$len"
		roce_write_read "$len"
	done
	assert_equal "$(ctl "$A" -j dev show soft0 | jq -r '.[0].datapath.roce.icrc_errors')" 0
}

@test "without segmentation offload, every packet has IPv4 ID 0 and DF and its ICRC checks" {
	local cap=$BATS_TEST_TMPDIR/nogso.pcap
	roce_capture_start "$cap"
	roce_write_read 65536
	roce_capture_stop
	roce_capture_checks "$cap"
	run --separate-stderr tshark -r "$cap" -T fields -e ip.id -e ip.flags.df
	assert_success
	assert_line "0x0000	1"
	refute_line --regexp "^(0x0*[1-9a-f]|.*	0$)"
}
