#!/usr/bin/env bats
# A refused caller is told what it needs and which socket (rdmactl(8)
# PERMISSIONS): the daemon's refusal (PermissionDenied, with what
# io.rdmad.Daemon.GetAccess says the method needs) and the kernel's (EACCES on
# the socket or its directory).  The caller here is nobody; no user or group
# is made (authz.bats has group rdma's members).

load helper

setup_file() {
	command -v setpriv >/dev/null || skip "setpriv missing"
	# Test directories are private; nobody needs a path it can reach.
	D=$(mktemp -d /tmp/rdmad-permissions.XXXXXX)
	chmod 0755 "$D"
	echo "$D" >"$BATS_FILE_TMPDIR/dir"
	rdmad_start "$D"
}

teardown_file() {
	D=$(cat "$BATS_FILE_TMPDIR/dir" 2>/dev/null) || return 0
	chmod 0755 "$D"
	rdmad_stop "$D"
	rm -rf "$D"
}

setup() {
	load_libs
	D=$(cat "$BATS_FILE_TMPDIR/dir")
	export RDMACTL_SOCKET="$D/io.rdmad"
	chmod 0755 "$D"
	chown root:root "$D/io.rdmad"
	chmod 0666 "$D/io.rdmad"
}

nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
}

@test "reading refused: needs group rdma or root, as the daemon found group rdma" {
	if [ "$("$RDMACTL" -j status | jq .read_group.exists)" = true ]; then
		needs="needs root or group rdma"
	else
		needs="needs root (group rdma, whose members may read, does not exist)"
	fi
	run --separate-stderr nobody "$RDMACTL" pd list
	assert_failure 1
	assert_equal "$stderr" "rdmactl: pd list: org.varlink.service.PermissionDenied: $needs (socket $D/io.rdmad)"
	run --separate-stderr nobody "$RDMACTL" status
	assert_failure 1
	assert_equal "$stderr" "rdmactl: status: org.varlink.service.PermissionDenied: $needs (socket $D/io.rdmad)"
}

@test "changing refused: needs root, or for a program's methods a program of group rdma" {
	if [ "$("$RDMACTL" -j status | jq .read_group.exists)" = true ]; then
		needs="needs root, or a program of group rdma attached to the daemon"
	else
		needs="needs root"
	fi
	run --separate-stderr nobody "$RDMACTL" pd create
	assert_failure 1
	assert_equal "$stderr" "rdmactl: pd create: org.varlink.service.PermissionDenied: $needs (socket $D/io.rdmad)"
	# -j: the error document on stdout, the explanation on stderr.
	run --separate-stderr nobody "$RDMACTL" -j daemon log-level debug
	assert_failure 1
	assert_output '{"error":"org.varlink.service.PermissionDenied","parameters":{}}'
	assert_equal "$stderr" "rdmactl: daemon log-level: org.varlink.service.PermissionDenied: needs root (socket $D/io.rdmad)"
}

@test "GetAccess answers any caller what a method needs" {
	run nobody bash -c "printf '%s\0' '{\"method\":\"io.rdmad.Daemon.GetAccess\",\"parameters\":{\"method\":\"io.rdmad.Pd.Create\"}}' \
		'{\"method\":\"io.rdmad.Daemon.GetAccess\",\"parameters\":{\"method\":\"io.rdmad.Qp.List\"}}' \
		'{\"method\":\"io.rdmad.Daemon.GetAccess\",\"parameters\":{\"method\":\"io.rdmad.Dek.List\"}}' \
		'{\"method\":\"io.rdmad.Daemon.GetAccess\",\"parameters\":{\"method\":\"io.rdmad.Pd.Nothing\"}}' |
		socat -t 2 - UNIX-CONNECT:$D/io.rdmad | tr '\0' '\n'"
	assert_success
	assert_line --index 0 --regexp '^\{"parameters":\{"method":"io.rdmad.Pd.Create","needs":"attached","read_group":\{"name":"rdma","exists":(true|false),"gid":([0-9]+|null)\}\}\}$'
	assert_line --index 1 --regexp '^\{"parameters":\{"method":"io.rdmad.Qp.List","needs":"read_group",'
	assert_line --index 2 --regexp '^\{"parameters":\{"method":"io.rdmad.Dek.List","needs":"root",'
	assert_line --index 3 '{"error":"org.varlink.service.MethodNotFound","parameters":{"method":"io.rdmad.Pd.Nothing"}}'
}

@test "the socket closed to the caller: who may connect, from its owner, group and mode" {
	chmod 0660 "$D/io.rdmad"
	run --separate-stderr nobody "$RDMACTL" status
	assert_failure 1
	assert_equal "$stderr" "rdmactl: cannot connect to $D/io.rdmad: Permission denied: needs root (socket $D/io.rdmad is root:root 0660)"
	# As the shipped rdmad.socket makes it, with a group that exists everywhere.
	chgrp daemon "$D/io.rdmad"
	run --separate-stderr nobody "$RDMACTL" status
	assert_failure 1
	assert_equal "$stderr" "rdmactl: cannot connect to $D/io.rdmad: Permission denied: needs root or group daemon (socket $D/io.rdmad is root:daemon 0660)"
}

@test "the socket's directory closed to the caller is said" {
	chmod 0700 "$D"
	run --separate-stderr nobody "$RDMACTL" -s "$D/io.rdmad" status
	assert_failure 1
	assert_equal "$stderr" "rdmactl: cannot connect to $D/io.rdmad: Permission denied: the directory $D (root:root 0700) is closed to this user"
}
