#!/usr/bin/env bats
# rdmad's life: options, sockets, socket activation, sd_notify, watchdog,
# signals, reload, the state-directory lock, detaching, authorization.

load helper

setup() {
	load_libs
	D=$BATS_TEST_TMPDIR
	mkdir -p "$D"
}

teardown() {
	rdmad_stop "$D" || true
	[ -f "$D/listener.pid" ] && kill "$(cat "$D/listener.pid")" 2>/dev/null
	true
}

# Starts a stand-in for the service manager's notify socket.
notify_listen() {
	python3 "$TOP/tests/tools/notify-listen.py" "$D/notify" "$D/notify.log" 3>&- &
	echo $! >"$D/listener.pid"
	while [ ! -S "$D/notify" ]; do sleep 0.02; done
	export NOTIFY_SOCKET="$D/notify"
}

wait_for_line() { # FILE REGEX
	local i
	for i in $(seq 1 100); do
		grep -Eq "$2" "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	echo "no line matching '$2' in $1:" >&2
	cat "$1" >&2
	return 1
}

wait_for_notices() { # WORDS: the notify log's NAME=1 words, once they are all there
	local i
	for i in $(seq 1 100); do
		[ "$(grep -o '^[A-Z]*=1' "$D/notify.log" | xargs)" = "$1" ] && return 0
		sleep 0.05
	done
	echo "notices: $(grep -o '^[A-Z]*=1' "$D/notify.log" | xargs), not $1" >&2
	return 1
}

@test "--version and --help" {
	run "$RDMAD" --version
	assert_success
	assert_output --regexp '^rdmad [0-9]+\.[0-9]+\.[0-9]+$'
	run "$RDMAD" --help
	assert_success
	assert_output --partial '--socket PATH'
	assert_output --partial '--state-dir DIR'
	assert_output --partial '--foreground'
}

@test "bad options are usage errors (exit 2)" {
	run "$RDMAD" --bogus
	assert_failure 2
	run --separate-stderr "$RDMAD" --log-level loud
	assert_failure 2
	assert_equal "$stderr" "rdmad: --log-level: 'loud' is not one of emerg, alert, crit, err, warning, notice, info, debug"
	run "$RDMAD" extra
	assert_failure 2
}

@test "its own socket has mode 0660 and goes away on exit" {
	rdmad_start "$D"
	run stat -c %a "$D/io.rdmad"
	assert_output 660
	assert_socket_exists "$D/io.rdmad"
	rdmad_stop "$D"
	assert_not_exists "$D/io.rdmad"
}

@test "log lines carry sd-daemon priority prefixes" {
	rdmad_start "$D"
	run cat "$D/rdmad.log"
	assert_line --regexp '^<6>rdmad [0-9.]+ ready$'
	assert_line '<6>device soft0 (soft) ready'
}

@test "READY=1 with STATUS, then RELOADING=1/READY=1 on SIGHUP, STOPPING=1 on SIGTERM" {
	notify_listen
	rdmad_start "$D"
	wait_for_line "$D/notify.log" '^READY=1 STATUS=Serving 1 device\(s\)$'
	kill -HUP "$(cat "$D/rdmad.pid")"
	wait_for_line "$D/notify.log" '^RELOADING=1 STATUS=Reloading configuration$'
	rdmad_stop "$D"
	wait_for_line "$D/notify.log" '^STOPPING=1'
	run grep -o '^[A-Z]*=1' "$D/notify.log"
	assert_equal "$(echo $output)" "READY=1 RELOADING=1 READY=1 STOPPING=1"
}

@test "rdmactl daemon reload (rdmad.service's ExecReload=) answers after RELOADING=1 and READY=1, and fails on a bad file" {
	notify_listen
	rdmad_start "$D"
	wait_for_line "$D/notify.log" '^READY=1 STATUS=Serving 1 device\(s\)$'
	# Both are sent before the reply (the listener may write them down a little later):
	# the service manager's reload is over when the command is.
	run "$RDMACTL" daemon reload
	assert_success
	wait_for_notices "READY=1 RELOADING=1 READY=1"
	echo 'max_connections = lots' >>"$D/rdmad.conf"
	run "$RDMACTL" daemon reload
	assert_failure
	wait_for_notices "READY=1 RELOADING=1 READY=1 RELOADING=1 READY=1"
}

@test "the watchdog is fed when WATCHDOG_USEC is set" {
	notify_listen
	mkdir -p "$D"
	: >"$D/rdmad.conf"
	export RDMACTL_SOCKET="$D/io.rdmad"
	(
		WATCHDOG_USEC=200000 sh -c 'export WATCHDOG_PID=$$; exec "$@"' sh \
			"$RDMAD" -f -s "$D/io.rdmad" -d "$D/state" -c "$D/rdmad.conf" >"$D/rdmad.log" 2>&1 || rc=$?
		echo "${rc:-0}" >"$D/rdmad.status"
	) 3>&- &
	rdmad_wait_ready "$D"
	wait_for_line "$D/notify.log" '^WATCHDOG=1$'
}

@test "SIGINT ends the daemon cleanly too" {
	rdmad_start "$D"
	kill -INT "$(cat "$D/rdmad.pid")"
	wait_for_line "$D/rdmad.status" '^0$'
}

@test "a stale socket file is replaced" {
	python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$D/io.rdmad"
	assert_socket_exists "$D/io.rdmad"
	rdmad_start "$D"
	assert_daemon_serves
}

@test "a socket somebody answers on is not taken over" {
	rdmad_start "$D"
	run --separate-stderr "$RDMAD" -f -s "$D/io.rdmad" -d "$D/state2" -c /dev/null
	assert_failure 1
	assert_regex "$stderr" "<3>$D/io.rdmad: another daemon answers on this socket"
	assert_daemon_serves
}

@test "a regular file at the socket path is not removed" {
	echo keep >"$D/io.rdmad"
	run --separate-stderr "$RDMAD" -f -s "$D/io.rdmad" -d "$D/state" -c /dev/null
	assert_failure 1
	assert_regex "$stderr" "<3>$D/io.rdmad exists and is not a socket; not removing it"
	assert_file_contains "$D/io.rdmad" keep
}

@test "secure memory that cannot be locked is said once at start, not silently swappable" {
	# Without CAP_IPC_LOCK and with no lockable memory, libgcrypt would fall back quietly.
	cat >"$D/unlockable" <<-EOF
	#!/bin/sh
	exec setpriv --bounding-set -ipc_lock prlimit --memlock=0:0 "$RDMAD" "\$@"
	EOF
	chmod +x "$D/unlockable"
	RDMAD="$D/unlockable" rdmad_start "$D"
	assert_daemon_serves
	assert_file_contains "$D/rdmad.log" '^<4>secure memory cannot be locked .*may be swapped out$'
	rdmad_stop "$D"
	rdmad_start "$D"
	run grep -c 'cannot be locked' "$D/rdmad.log"
	assert_output 0
}

@test "one daemon per state directory" {
	rdmad_start "$D"
	run --separate-stderr "$RDMAD" -f -s "$D/other" -d "$D/state" -c /dev/null
	assert_failure 1
	assert_regex "$stderr" "state directory $D/state is in use by another rdmad"
}

@test "SIGHUP re-reads the configuration" {
	rdmad_start "$D"
	run "$RDMACTL" -j status
	assert_output --partial '"log_level":"info"'
	echo 'log_level = debug  # more' >"$D/rdmad.conf"
	kill -HUP "$(cat "$D/rdmad.pid")"
	for i in $(seq 1 50); do
		"$RDMACTL" -j status | grep -q '"log_level":"debug"' && break
		sleep 0.05
	done
	run "$RDMACTL" -j status
	assert_output --partial '"log_level":"debug"'
}

@test "a bad configuration on reload is refused and the old one stays" {
	rdmad_start "$D"
	printf 'log_level = debug\nmax_connections = lots\n' >"$D/rdmad.conf"
	run --separate-stderr "$RDMACTL" daemon reload
	assert_failure 1
	assert_equal "$stderr" "rdmactl: daemon reload: io.rdmad.Daemon.ReloadFailed: reason '$D/rdmad.conf:2: max_connections: 'lots' is not a number in 1-65536'"
	run "$RDMACTL" -j status
	assert_output --partial '"log_level":"info"'
	printf 'colour = blue\n' >"$D/rdmad.conf"
	run --separate-stderr "$RDMACTL" daemon reload
	assert_failure 1
	assert_regex "$stderr" "unknown setting 'colour' \(known: log_level, max_connections, max_connections_per_uid[,)]"
	printf 'log_level = notice\n' >"$D/rdmad.conf"
	run "$RDMACTL" daemon reload
	assert_success
	run "$RDMACTL" -j status
	assert_output --partial '"log_level":"notice"'
}

@test "a bad configuration at start stops the daemon with the reason" {
	echo 'log_level = shouty' >"$D/bad.conf"
	run --separate-stderr "$RDMAD" -f -s "$D/io.rdmad" -d "$D/state" -c "$D/bad.conf"
	assert_failure 1
	assert_equal "$stderr" "<3>$D/bad.conf:1: log_level: 'shouty' is not one of emerg, alert, crit, err, warning, notice, info, debug"
}

@test "socket activation: the fd named varlink is served" {
	export RDMACTL_SOCKET="$D/io.rdmad"
	(
		systemd-socket-activate -l "$D/io.rdmad" --fdname=varlink \
			"$RDMAD" -f -d "$D/state" -c /dev/null >"$D/rdmad.log" 2>&1 || rc=$?
		echo "${rc:-0}" >"$D/rdmad.status"
	) 3>&- &
	while [ ! -S "$D/io.rdmad" ]; do sleep 0.02; done
	rdmad_wait_ready "$D"
	run "$RDMACTL" -j status
	assert_output --partial '"socket":"(socket activation)"'
	assert_file_contains "$D/rdmad.log" 'listening on the socket passed by the service manager'
}

@test "socket activation without a varlink fd is refused" {
	(
		systemd-socket-activate -l "$D/sock" --fdname=other \
			"$RDMAD" -f -d "$D/state" -c /dev/null >"$D/rdmad.log" 2>&1 || rc=$?
		echo "${rc:-0}" >"$D/activate.status"
	) 3>&- &
	while [ ! -S "$D/sock" ]; do sleep 0.02; done
	run timeout 10 "$RDMACTL" -s "$D/sock" status
	assert_failure 1
	wait_for_line "$D/activate.status" "^1$"
	assert_file_contains "$D/rdmad.log" "socket activation passed no socket named 'varlink'"
}

@test "without --foreground it detaches once serving" {
	run env -u NOTIFY_SOCKET -u INVOCATION_ID -u LISTEN_FDS \
		"$RDMAD" -s "$D/io.rdmad" -d "$D/state" -c /dev/null
	assert_success
	export RDMACTL_SOCKET="$D/io.rdmad"
	assert_daemon_serves
	pid=$("$RDMACTL" -j status | sed -n 's/.*"pid":\([0-9]*\).*/\1/p')
	kill -TERM "$pid"
	for i in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
	run kill -0 "$pid"
	assert_failure
}

@test "state-changing methods need root; reading needs group rdma (authz.bats has the rest)" {
	command -v setpriv >/dev/null || skip "setpriv missing"
	# Test directories are private; an unprivileged caller needs a path it can reach.
	D=$(mktemp -d /tmp/rdmad-auth.XXXXXX)
	chmod 0755 "$D"
	rdmad_start "$D"
	chmod 0666 "$D/io.rdmad"
	as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
	run --separate-stderr as_nobody "$RDMACTL" -s "$D/io.rdmad" daemon reload
	assert_failure 1
	assert_equal "$stderr" "rdmactl: daemon reload: org.varlink.service.PermissionDenied: needs root (socket $D/io.rdmad)"
	run --separate-stderr as_nobody "$RDMACTL" -s "$D/io.rdmad" daemon log-level debug
	assert_failure 1
	run --separate-stderr as_nobody "$RDMACTL" -s "$D/io.rdmad" -j status
	assert_failure 1
	run "$RDMACTL" -s "$D/io.rdmad" -j status
	assert_output --partial '"log_level":"info"'
	rdmad_stop "$D"
	rm -rf "$D"
}

@test "one pinned worker per CPU rdmad may use, by default" {
	rdmad_start "$D"
	n=$(python3 -c 'import os; print(len(os.sched_getaffinity(0)))')
	run "$RDMACTL" -j status
	assert_success
	assert_equal "$(echo "$output" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["workers"]))')" "$n"
	assert_file_contains "$D/rdmad.log" "<6>$n dataplane worker.s. started"
}

@test "--cpus chooses the workers' CPUs" {
	rdmad_start "$D" --cpus 0
	run "$RDMACTL" -j status
	assert_output --regexp '"workers":\[\{"index":0,"cpu":0,'
	run "$RDMACTL" status
	assert_line --regexp '^ *workers: 1 on CPU 0$'
	# The thread really runs on that CPU.
	pid=$(cat "$D/rdmad.pid")
	for t in /proc/$pid/task/*; do
		if grep -q '^rdmad-dp0$' "$t/comm"; then
			run taskset -pc "${t##*/}"
			assert_output --regexp 'current affinity list: 0$'
		fi
	done
}

@test "--cpus refuses CPUs rdmad may not use and bad lists" {
	run --separate-stderr "$RDMAD" -f -s "$D/io.rdmad" -d "$D/state" -c /dev/null --cpus 1023
	assert_failure 1
	assert_regex "$stderr" "^<3>--cpus: CPU 1023 is not one this process may run on \(allowed: [0-9,-]+\)$"
	run --separate-stderr "$RDMAD" -f -s "$D/io.rdmad" -d "$D/state" -c /dev/null --cpus 3-1
	assert_failure 1
	assert_equal "$stderr" "<3>--cpus: '3-1' is not a CPU number or range below 1024"
	assert_not_exists "$D/io.rdmad"
}

@test "busy_poll_usec: from rdmad.conf at a reload, shown by status, bounded" {
	rdmad_start "$D"
	run "$RDMACTL" -j status
	assert_output --partial '"busy_poll_usec":50'
	echo 'busy_poll_usec = 0' >"$D/rdmad.conf"
	run "$RDMACTL" daemon reload
	assert_success
	run "$RDMACTL" -j status
	assert_output --partial '"busy_poll_usec":0'
	run "$RDMACTL" status
	assert_output --partial 'busy_poll_usec'
	echo 'busy_poll_usec = 10001' >"$D/rdmad.conf"
	run --separate-stderr "$RDMACTL" daemon reload
	assert_failure 1
	assert_equal "$stderr" "rdmactl: daemon reload: io.rdmad.Daemon.ReloadFailed: reason '$D/rdmad.conf:1: busy_poll_usec: '10001' is not a number of microseconds in 0-10000'"
	run "$RDMACTL" -j status
	assert_output --partial '"busy_poll_usec":0'
}
