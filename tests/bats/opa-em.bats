#!/usr/bin/env bats
# make check runs this file alone: network namespaces, veths or TAPs, with names of their own.
# The Ethernet Manager side of VNICs as a user finds it (issue #31, item 13):
# vnic fabric without a fabric names the rdmad.conf key that makes one;
# opa-em is a tool of its own with a page; examples/vnic-netns.sh brings up a
# VNIC between two network namespaces with the programs as installed.

load helper

setup() {
	load_libs
	cd "$BATS_TEST_TMPDIR"
}

@test "vnic fabric without a fabric names fabric_lid, in text and in -j" {
	rdmad_start "$BATS_TEST_TMPDIR/d"
	run --separate-stderr "$RDMACTL" vnic fabric
	assert_failure 1
	assert_equal "$stderr" "rdmactl: vnic fabric: io.rdmad.Vnic.NoSuchObject: kind 'fabric', handle '1', setting 'fabric_lid'"
	run --separate-stderr "$RDMACTL" -j vnic fabric
	assert_failure 1
	assert_equal "$(jq -r .parameters.setting <<<"$output")" fabric_lid
	rdmad_stop "$BATS_TEST_TMPDIR/d"
}

@test "opa-em is built from tools/, says where its manual is, and the page lists every command" {
	assert_file_executable "$BUILD/tools/opa-em"
	run "$BUILD/tools/opa-em" --help
	assert_success
	assert_output --partial "(see opa-em(1))"
	run "$BUILD/tools/opa-em"
	assert_failure 2
	page=$(MANWIDTH=200 man -l "$TOP/man/opa-em.1" 2>/dev/null)
	for c in get-cpi set-cpi get-port set-port delete-port set-macs get-macs get-ucast get-mcast \
		get-counters get-errors raw listen wait-trap; do
		grep -q "^ *$c\b" <<<"$page" || fail "opa-em(1) does not describe $c"
		grep -qw -- "$c" <<<"$output" || fail "the usage does not list $c"
	done
}

@test "examples/vnic-netns.sh brings up a VNIC between two namespaces that ping, and takes it down" {
	[ "$(id -u)" -eq 0 ] || skip "needs root for network namespaces"
	[ -c /dev/net/tun ] || skip "needs /dev/net/tun"
	export RDMAD RDMACTL OPA_EM="$BUILD/tools/opa-em" DIR="$BATS_TEST_TMPDIR/vnic" NET=10.231.19
	run "$TOP/examples/vnic-netns.sh" up
	if [ "$status" -ne 0 ]; then
		"$TOP/examples/vnic-netns.sh" down
		cat "$DIR"/*/rdmad.log >&2 || true
	fi
	assert_success
	assert_line --index 0 "vnic0 of vnic-a (192.168.77.1) and vnic0 of vnic-b (192.168.77.2) are up and ping."
	run ip netns exec vnic-b ping -c 2 -i 0.2 -W 2 192.168.77.1
	assert_success
	run "$RDMACTL" -s "$DIR/vnic-a/io.rdmad" -j vnic show 0
	assert_success
	assert_equal "$(jq -r '.[0].oper_state' <<<"$output")" forwarding
	run "$TOP/examples/vnic-netns.sh" down
	assert_success
	run ip netns list
	refute_output --partial vnic-a
	refute_output --partial vnic-b
	assert_not_exists "$DIR/vnic-a/rdmad.pid"
}
