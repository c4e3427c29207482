#!/usr/bin/env bats
# Who may call what (rdmad-varlink(7) AUTHORIZATION): root everything; group
# rdma the methods that only read; everyone else nothing but introspection.
# DEK methods, even the reading ones, are root's alone.  The caller's identity
# comes from the socket (SO_PEERCRED, SO_PEERGROUPS).

load helper

IN_USER=rdmad-authz-in
OUT_USER=rdmad-authz-out

setup_file() {
	command -v setpriv >/dev/null || skip "setpriv missing"
	# The group and the users are made here and removed in teardown_file.
	if ! getent group rdma >/dev/null; then
		groupadd --system rdma
		touch "$BATS_FILE_TMPDIR/made-group"
	fi
	userdel "$IN_USER" 2>/dev/null || true
	userdel "$OUT_USER" 2>/dev/null || true
	useradd --no-create-home --no-user-group --shell /usr/sbin/nologin --groups rdma "$IN_USER"
	useradd --no-create-home --no-user-group --shell /usr/sbin/nologin "$OUT_USER"
	# Test directories are private; unprivileged callers need a socket they can reach.
	D=$(mktemp -d /tmp/rdmad-authz.XXXXXX)
	chmod 0755 "$D"
	echo "$D" >"$BATS_FILE_TMPDIR/dir"
	rdmad_start "$D"
	chmod 0666 "$D/io.rdmad"
}

teardown_file() {
	D=$(cat "$BATS_FILE_TMPDIR/dir" 2>/dev/null) || return 0
	rdmad_stop "$D"
	rm -rf "$D"
	userdel "$IN_USER" 2>/dev/null || true
	userdel "$OUT_USER" 2>/dev/null || true
	[ ! -e "$BATS_FILE_TMPDIR/made-group" ] || groupdel rdma
}

setup() {
	load_libs
	D=$(cat "$BATS_FILE_TMPDIR/dir")
	export RDMACTL_SOCKET="$D/io.rdmad"
}

# as USER COMMAND...: runs COMMAND with USER's ids and the groups the user database gives it.
as() {
	local user=$1
	shift
	setpriv --reuid="$user" --regid="$(id -g "$user")" --init-groups "$@"
}

# denied USER RDMACTL-ARGS...: the call is refused with PermissionDenied, exit 1.
denied() {
	local user=$1
	shift
	run --separate-stderr as "$user" "$RDMACTL" "$@"
	assert_failure 1
	assert_regex "$stderr" "org\.varlink\.service\.PermissionDenied$"
}

@test "a user outside group rdma may not even read" {
	denied "$OUT_USER" status
	denied "$OUT_USER" dev show
	denied "$OUT_USER" pd list
	denied "$OUT_USER" pd create
	denied "$OUT_USER" daemon log-level debug
}

@test "a user outside group rdma may still introspect the socket" {
	run as "$OUT_USER" sh -c 'printf "{\"method\":\"org.varlink.service.GetInfo\"}\0" | socat -t 2 - "UNIX-CONNECT:$RDMACTL_SOCKET" | tr "\0" "\n"'
	assert_success
	assert_output --partial '"product":"rdmad"'
}

@test "a member of group rdma may read" {
	run as "$IN_USER" "$RDMACTL" -j status
	assert_success
	assert_output --partial '"devices":["soft0"]'
	run as "$IN_USER" "$RDMACTL" -j dev show soft0
	assert_success
	assert_output --partial '"ifname":"soft0"'
	run as "$IN_USER" "$RDMACTL" -j pd list
	assert_success
}

@test "a member of group rdma may not change state" {
	run "$RDMACTL" -j pd list
	before=$output
	denied "$IN_USER" pd create
	denied "$IN_USER" daemon log-level debug
	denied "$IN_USER" daemon reload
	run "$RDMACTL" -j pd list
	assert_output "$before"
	run "$RDMACTL" -j status
	assert_output --partial '"log_level":"info"'
}

@test "group rdma counts as the primary group and as a supplementary group of the process" {
	gid=$(getent group rdma | cut -d: -f3)
	run setpriv --reuid="$OUT_USER" --regid="$gid" --clear-groups "$RDMACTL" status
	assert_success
	run setpriv --reuid="$OUT_USER" --regid=65534 --groups="$gid" "$RDMACTL" status
	assert_success
	run --separate-stderr setpriv --reuid="$OUT_USER" --regid=65534 --clear-groups "$RDMACTL" status
	assert_failure 1
}

@test "root may change state" {
	run "$RDMACTL" -j pd create
	assert_success
	handle=$(echo "$output" | sed -n 's/.*"handle":\([0-9]*\).*/\1/p')
	run "$RDMACTL" pd destroy "$handle"
	assert_success
}

@test "DEK methods are root's alone, even the reading ones" {
	denied "$IN_USER" dek list
	denied "$IN_USER" dek show 1
	denied "$IN_USER" dek login-state
	denied "$IN_USER" dek create x --size 128 --key-file /nonexistent
	denied "$IN_USER" dek login --credential-file /nonexistent
	denied "$IN_USER" dek logout
	denied "$IN_USER" dek destroy x
	denied "$OUT_USER" dek list
	run "$RDMACTL" -j dek list
	assert_success
	assert_output '[]'
}
