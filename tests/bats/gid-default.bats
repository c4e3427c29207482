#!/usr/bin/env bats
# The default GID (issue 25 item 7): without roce_netdev, port 1 of soft0
# starts with a link-local GID at index 0, the same after a restart, marked
# default; it yields to a user's gid add at its index unless something sends
# from it, gid del removes it, and librdmad's examples run on a fresh daemon
# without anyone adding a GID.

load helper

setup() {
	load_libs
	D=$BATS_TEST_TMPDIR/d
}
teardown() { rdmad_stop "$D"; }

gids() {
	"$RDMACTL" -j gid show | jq -c '[.[] | [.index, .gid, .default]]'
}

@test "a fresh daemon has one GID: index 0, link-local, default, stable across a restart" {
	rdmad_start "$D"
	run "$RDMACTL" -j gid show
	assert_success
	assert_equal "$(jq length <<<"$output")" 1
	assert_equal "$(jq -c '.[0] | [.port, .index, .users, .default, .netdev]' <<<"$output")" '[1,0,0,true,null]'
	gid=$(jq -r '.[0].gid' <<<"$output")
	# fe80::/64, an interface identifier that is not zero, the universal/local bit clear.
	python3 - "$gid" <<'PY'
import ipaddress, sys
g = ipaddress.IPv6Address(sys.argv[1]).packed
assert g[:8] == bytes.fromhex("fe80000000000000"), g.hex()
assert g[8:] != bytes(8) and not g[8] & 2, g.hex()
PY
	run "$RDMACTL" gid show 0
	assert_output "gid 0: ifname soft0 ifindex 0 port 1 gid $gid users 0 default true"
	rdmad_stop "$D"
	rdmad_start "$D"
	assert_equal "$(gids)" "[[0,\"$gid\",true]]"
}

@test "gid add at index 0 replaces the default; gid del removes it; a duplicate of it is refused" {
	rdmad_start "$D"
	gid=$("$RDMACTL" -j gid show 0 | jq -r '.[0].gid')
	run "$RDMACTL" gid add 5 "$gid"
	assert_failure 2
	assert_output --partial "io.rdmad.Gid.InvalidArgument: field 'gid'"
	assert_output --partial "already at index 0"
	run "$RDMACTL" -j gid add 0 fe80::1
	assert_success
	assert_equal "$(gids)" '[[0,"fe80::1",null]]'
	# A user's entry is not replaced.
	run "$RDMACTL" gid add 0 fe80::2
	assert_failure
	assert_output --partial "io.rdmad.Gid.InvalidState: field 'index'"
	rdmad_stop "$D"
	rdmad_start "$D"
	"$RDMACTL" gid del 0
	assert_equal "$(gids)" '[]'
	run "$RDMACTL" gid show 0
	assert_failure
	assert_output --partial 'io.rdmad.Gid.NoSuchObject'
}

@test "the default GID in use by an AH is not replaced, and the refusal says so" {
	rdmad_start "$D"
	"$RDMACTL" pd create >/dev/null
	"$RDMACTL" ah create 1 --dgid fe80::9 --sgid-index 0 >/dev/null
	before=$(gids)
	run "$RDMACTL" gid add 0 fe80::1
	assert_failure
	assert_output --partial "io.rdmad.Gid.InvalidState: field 'index'"
	assert_output --partial "delete it first"
	assert_equal "$(gids)" "$before"
}

@test "rdmad_rc_pingpong and rdmad_perftest run on a fresh daemon, nobody having added a GID" {
	rdmad_start "$D"
	cd "$BATS_TEST_TMPDIR"
	mkfifo a b
	timeout 30 "$BUILD/examples/rdmad_rc_pingpong" -n 50 <a >b 2>server.err &
	server=$!
	# The line exchange is over the FIFOs; the result comes on stderr.
	run timeout 30 bash -c '"$0" -c -n 50 >a <b' "$BUILD/examples/rdmad_rc_pingpong"
	assert_success
	assert_output --regexp '^client: 50 iters of 4096 bytes in '
	wait "$server"
	assert_file_contains server.err '^server: 50 iters of 4096 bytes in '
	run timeout 60 "$BUILD/examples/rdmad_perftest" -t write,lat -n 200 -j
	assert_success
	assert_equal "$(jq -c '[.mkey, (.results[] | .test)]' <<<"$output")" '["none","write","lat"]'
}
