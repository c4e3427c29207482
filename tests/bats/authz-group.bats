#!/usr/bin/env bats
# Group rdma is looked up when rdmad starts and at every reload
# (io.rdmad.Daemon.Reload, SIGHUP), never per call: the user database may be
# NSS over the network, and the event loop must not wait for it.  A group made,
# renumbered or removed while rdmad runs counts from the next reload on.  The
# caller's own groups come from the socket, so a process is given the gid by
# number (setpriv --groups) whatever the group database says.

load helper

USER_=rdmad-authz-group

setup_file() {
	command -v setpriv >/dev/null || skip "setpriv missing"
	# These tests make and remove group rdma: not where one exists already.
	! getent group rdma >/dev/null || skip "group rdma exists on this system"
	userdel "$USER_" 2>/dev/null || true
	useradd --no-create-home --no-user-group --shell /usr/sbin/nologin "$USER_"
	D=$(mktemp -d /tmp/rdmad-authz-group.XXXXXX)
	chmod 0755 "$D"
	echo "$D" >"$BATS_FILE_TMPDIR/dir"
	rdmad_start "$D"
	chmod 0666 "$D/io.rdmad"
}

teardown_file() {
	D=$(cat "$BATS_FILE_TMPDIR/dir" 2>/dev/null) || return 0
	rdmad_stop "$D"
	rm -rf "$D"
	userdel "$USER_" 2>/dev/null || true
	groupdel rdma 2>/dev/null || true
}

setup() {
	load_libs
	D=$(cat "$BATS_FILE_TMPDIR/dir")
	export RDMACTL_SOCKET="$D/io.rdmad"
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

# group_gid: the gid group rdma has now.
group_gid() {
	getent group rdma | cut -d: -f3
}

@test "without group rdma at start only root may call; the daemon says so once" {
	run grep -c "group rdma does not exist: only root may call methods" "$D/rdmad.log"
	assert_output 1
	run "$RDMACTL" status
	assert_success
}

@test "a group made after start counts only from the next reload" {
	groupadd --system rdma
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
	getent group rdma >/dev/null || groupadd --system rdma
	"$RDMACTL" daemon reload
	old=$(group_gid)
	new=$((old + 1000))
	while getent group "$new" >/dev/null; do new=$((new + 1)); done
	groupmod --gid "$new" rdma
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
	getent group rdma >/dev/null || groupadd --system rdma
	"$RDMACTL" daemon reload
	gid=$(group_gid)
	groupdel rdma
	allowed "$gid"
	"$RDMACTL" daemon reload
	denied "$gid"
	run grep -c "group rdma does not exist: only root may call methods" "$D/rdmad.log"
	assert_output 2
	run "$RDMACTL" status
	assert_success
}
