#!/usr/bin/env bats
# make check runs this file alone: users and groups of the system.
# vdevs are root's to make and destroy; group rdma may list and show them
# (front ends included); anyone else may do neither.

load helper
load users-helper

IN_USER=rdmad-vdevctl-in
OUT_USER=rdmad-vdevctl-out

setup_file() {
	command -v setpriv >/dev/null || skip "setpriv missing"
	users_make "$IN_USER" "$OUT_USER"
	D=$(shared_dir vdevctl)
	rdmad_start "$D"
	chmod 0666 "$D/io.rdmad"
	"$RDMACTL" vdev create shown --socket "$D/shown.sock" >/dev/null
}

teardown_file() {
	D=$(cat "$BATS_FILE_TMPDIR/dir" 2>/dev/null) || return 0
	rdmad_stop "$D"
	rm -rf "$D"
	users_remove "$IN_USER" "$OUT_USER"
}

setup() {
	load_libs
	D=$(cat "$BATS_FILE_TMPDIR/dir")
	export RDMACTL_SOCKET="$D/io.rdmad"
}

@test "a member of group rdma lists and shows vdevs" {
	run as "$IN_USER" "$RDMACTL" -j vdev list
	assert_success
	assert_equal "$(jq -c '[.[] | [.name, .state]]' <<<"$output")" '[["shown","listening"]]'
	run as "$IN_USER" "$RDMACTL" vdev show shown
	assert_success
	assert_line --index 0 --partial "name shown socket $D/shown.sock"
}

@test "a member of group rdma may not create or destroy one; nothing changes" {
	run --separate-stderr as "$IN_USER" "$RDMACTL" vdev create mine --socket "$D/mine.sock"
	assert_failure 1
	assert_equal "$stderr" "rdmactl: vdev create: org.varlink.service.PermissionDenied: needs root (socket $RDMACTL_SOCKET)"
	run --separate-stderr as "$IN_USER" "$RDMACTL" vdev destroy shown
	assert_failure 1
	[ ! -e "$D/mine.sock" ]
	run "$RDMACTL" -j vdev list
	assert_equal "$(jq -c '[.[].name]' <<<"$output")" '["shown"]'
}

@test "a user outside group rdma may not even list them" {
	run --separate-stderr as "$OUT_USER" "$RDMACTL" vdev list
	assert_failure 1
	assert_regex "$stderr" "PermissionDenied: needs root or group rdma"
}
