#!/usr/bin/env bats
# make check runs this file alone: network namespaces, veths or TAPs, with names of their own.
# RoCE v2 under loss, duplication and reordering: both rdmad drop, double and
# hold back a share of the packets they send (rdmad.conf roce_fault_*, for
# tests), then the kernel drops more with nftables (numgen random); RC SEND,
# WRITE and READ from 1 byte to 1 MiB still deliver every byte once, with no
# error completion, and the counters show the repairs.  Needs root.

load helper
load vnic-helper
load roce-helper

setup_file() {
	roce_require
	roce_setup "$(printf 'roce_fault_drop_ppm = 20000\nroce_fault_duplicate_ppm = 20000\nroce_fault_reorder_ppm = 20000')"
	# timeout 10 (4 ms): a lost packet is sent again soon.
	ROCE_TIMEOUT=10 roce_pair rc
}

teardown_file() { roce_teardown; }
setup() { roce_test_setup; }

# transfers: SEND, WRITE and READ of each size; every byte and completion checked.
transfers() {
	local len
	for len in 1 1500 4096 65536 1048576; do
		roce_send "$len"
		roce_write_read "$len"
	done
}

@test "with 2% of packets dropped, 2% doubled and 2% reordered by both ends, every transfer is whole" {
	transfers
	# No more and no fewer receives than SENDs; the repairs are counted.
	assert_equal "$(ctl "$B" -j qp show "$QB" | jq -r '.[0].datapath.recvs')" 5
	run ctl "$A" -j dev show soft0
	[ "$(jq -r '.[0].datapath.roce.faults' <<<"$output")" -gt 0 ]
	[ "$(jq -r '.[0].datapath.roce.retransmits' <<<"$output")" -gt 0 ]
	run ctl "$B" -j dev show soft0
	[ "$(jq -r '.[0].datapath.roce.duplicates' <<<"$output")" -gt 0 ]
	# What followed a gap was kept, and mended by the lost packet sent alone.
	[ "$(jq -r '.[0].datapath.roce.kept' <<<"$output")" -gt 0 ]
	assert_equal "$(jq -r '.[0].datapath.roce.icrc_errors' <<<"$output")" 0
	assert_equal "$(ctl "$A" -j qp show "$QA" | jq -r '.[0].state')" rts
}

@test "with nftables dropping 5% of RoCE packets on both hosts as well, every transfer is whole" {
	command -v nft >/dev/null || skip "needs nft (nftables)"
	for ns in "$NS_A" "$NS_B"; do
		ip netns exec "$ns" nft add table inet roce_loss
		ip netns exec "$ns" nft add chain inet roce_loss out '{ type filter hook output priority 0; }'
		ip netns exec "$ns" nft add rule inet roce_loss out udp dport 4791 numgen random mod 100 '<' 5 \
			counter drop
	done
	transfers
	for ns in "$NS_A" "$NS_B"; do
		dropped=$(ip netns exec "$ns" nft -j list ruleset |
			jq '[.nftables[] | .rule? // empty | .expr[] | .counter? // empty | .packets] | add')
		[ "$dropped" -gt 0 ]
		ip netns exec "$ns" nft delete table inet roce_loss
	done
	assert_equal "$(ctl "$A" -j qp show "$QA" | jq -r '.[0].state')" rts
}

# start_refused CONF: rdmad started with that rdmad.conf fails; its output in $output.
start_refused() {
	local d=$BATS_TEST_TMPDIR/bad
	mkdir -p "$d"
	printf '%s\n' "$@" >"$d/rdmad.conf"
	run ip netns exec "$NS_A" "$RDMAD" --foreground --socket "$d/io.rdmad" --state-dir "$d/state" \
		--config "$d/rdmad.conf"
	assert_failure
}

@test "bad RoCE settings are refused naming the key and the allowed values" {
	start_refused "roce_netdev = $VETH_A" "roce_port = 0"
	assert_output --partial "roce_port: '0' is not a number (a UDP port) in 1-65535"
	start_refused "roce_netdev = $VETH_A" "roce_fault_drop_ppm = 1000001"
	assert_output --partial "roce_fault_drop_ppm: '1000001' is not a number of packets per million in 0-1000000"
	start_refused "roce_netdev = $VETH_A" "roce_fault_drop_ppm = 600000" "roce_fault_reorder_ppm = 600000"
	assert_output --partial "roce_fault_drop_ppm + roce_fault_duplicate_ppm + roce_fault_reorder_ppm exceed 1000000"
	# The port the running rdmad holds: refused at start, nothing half done.
	start_refused "roce_netdev = $VETH_A"
	assert_output --partial "cannot serve RoCE v2 on UDP port 4791"
}
