#!/usr/bin/env bats
# make check runs this file alone: users and groups of the system.
# Group rdma is looked up when rdmad starts and at every reload
# (io.rdmad.Daemon.Reload, SIGHUP), never per call: the user database may be
# NSS over the network, and the event loop must not wait for it.  A group made,
# renumbered or removed while rdmad runs counts from the next reload on.  The
# caller's own groups come from the socket, so a process is given the gid by
# number (setpriv --groups) whatever the group database says.

load helper

USER_=rdmad-authz-group

# rdmad runs in its own mount namespace over a copy of /etc/group, and the
# tests make, renumber and remove group rdma in that copy: the system's group
# database is not touched, and a group rdma the system has (rdma-core makes
# one) does not matter.  The copy is rewritten in place: the bind mount holds
# its inode.
setup_file() {
	command -v setpriv >/dev/null || skip "setpriv missing"
	command -v unshare >/dev/null || skip "unshare missing"
	userdel "$USER_" 2>/dev/null || true
	useradd --no-create-home --no-user-group --shell /usr/sbin/nologin "$USER_"
	D=$(mktemp -d /tmp/rdmad-authz-group.XXXXXX)
	chmod 0755 "$D"
	echo "$D" >"$BATS_FILE_TMPDIR/dir"
	grep -v '^rdma:' /etc/group >"$D/group"
	cat >"$D/rdmad-private-group" <<-EOF
		#!/bin/sh
		exec unshare --mount --propagation private sh -c 'mount --bind "\$0" /etc/group && exec "\$@"' \\
			"$D/group" "$RDMAD" "\$@"
	EOF
	chmod 0755 "$D/rdmad-private-group"
	RDMAD="$D/rdmad-private-group" rdmad_start "$D"
	chmod 0666 "$D/io.rdmad"
}

teardown_file() {
	D=$(cat "$BATS_FILE_TMPDIR/dir" 2>/dev/null) || return 0
	rdmad_stop "$D"
	rm -rf "$D"
	userdel "$USER_" 2>/dev/null || true
}

setup() {
	load_libs
	D=$(cat "$BATS_FILE_TMPDIR/dir")
	export RDMACTL_SOCKET="$D/io.rdmad"
}

# group_set [GID]: group rdma in rdmad's /etc/group has GID, or is not there.
group_set() {
	local rest
	rest=$(grep -v '^rdma:' "$D/group")
	if [ $# -gt 0 ]; then
		printf '%s\nrdma:x:%s:\n' "$rest" "$1" >"$D/group"
	else
		printf '%s\n' "$rest" >"$D/group"
	fi
}

# group_gid: the gid group rdma has in rdmad's /etc/group now.
group_gid() {
	sed -n 's/^rdma:x:\([0-9]*\):.*/\1/p' "$D/group"
}

# free_gid ABOVE: a gid above ABOVE that no group of the system has.
free_gid() {
	local g=$(($1 + 1))
	while getent group "$g" >/dev/null || grep -q "^[^:]*:[^:]*:$g:" "$D/group"; do g=$((g + 1)); done
	echo "$g"
}

# status_with GID: rdmactl status by a user whose only supplementary group is GID.
status_with() {
	run --separate-stderr setpriv --reuid="$USER_" --regid=65534 --groups="$1" "$RDMACTL" status
}

allowed() {
	status_with "$1"
	assert_success
}

denied() {
	status_with "$1"
	assert_failure 1
	assert_regex "$stderr" "org\.varlink\.service\.PermissionDenied: needs root.* \(socket $RDMACTL_SOCKET\)$"
}

@test "without group rdma at start only root may call; the daemon says so once" {
	run grep -c "group rdma does not exist: only root may call methods" "$D/rdmad.log"
	assert_output 1
	run "$RDMACTL" status
	assert_success
}

@test "a group made after start counts only from the next reload" {
	group_set "$(free_gid 900)"
	gid=$(group_gid)
	denied "$gid"
	"$RDMACTL" daemon reload
	allowed "$gid"
	run grep -c "group rdma is gid $gid: its members may call the methods that only read" "$D/rdmad.log"
	assert_output 1
	# A reload that finds the same group says nothing again.
	"$RDMACTL" daemon reload
	run grep -c "group rdma is gid" "$D/rdmad.log"
	assert_output 1
}

@test "a renumbered group counts by its old gid until SIGHUP reloads" {
	[ -n "$(group_gid)" ] || group_set "$(free_gid 900)"
	"$RDMACTL" daemon reload
	old=$(group_gid)
	new=$(free_gid $((old + 1000)))
	group_set "$new"
	allowed "$old"
	denied "$new"
	kill -HUP "$(cat "$D/rdmad.pid")"
	for i in $(seq 1 100); do
		grep -q "group rdma is gid $new:" "$D/rdmad.log" && break
		sleep 0.05
	done
	allowed "$new"
	denied "$old"
}

@test "a removed group counts until the next reload, then only root may call" {
	[ -n "$(group_gid)" ] || group_set "$(free_gid 900)"
	"$RDMACTL" daemon reload
	gid=$(group_gid)
	group_set
	allowed "$gid"
	"$RDMACTL" daemon reload
	denied "$gid"
	run grep -c "group rdma does not exist: only root may call methods" "$D/rdmad.log"
	assert_output 2
	run "$RDMACTL" status
	assert_success
}
