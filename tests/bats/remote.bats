#!/usr/bin/env bats
# rdmactl -H [USER@]HOST (issue #31, many hosts): ssh runs `rdmactl --bridge`
# on the far host, whose standard input and output carry the varlink stream
# to its rdmad.  Two daemons here: "near" (the file's, for the commands run
# locally) and "far", reached only through a real sshd on loopback with a
# host key and a user key made in the test's directory.  The tests that need
# sshd skip when /usr/sbin/sshd is not installed (make deps installs it).

load helper

SSHD=${SSHD:-/usr/sbin/sshd}

# sshd on 127.0.0.1 at a free port, and an ssh_config naming it rdmad-far;
# rdmad-nowhere is a port nobody listens on.
sshd_start() {
	local d=$BATS_FILE_TMPDIR/ssh port closed
	mkdir -p "$d"
	ssh-keygen -q -t ed25519 -N '' -C rdmad-ctlhost-host -f "$d/host_key"
	ssh-keygen -q -t ed25519 -N '' -C rdmad-ctlhost-user -f "$d/user_key"
	cp "$d/user_key.pub" "$d/authorized_keys"
	read -r port closed < <(python3 -c '
import socket
a, b = socket.socket(), socket.socket()
a.bind(("127.0.0.1", 0)); b.bind(("127.0.0.1", 0))
print(a.getsockname()[1], b.getsockname()[1])')
	cat >"$d/sshd_config" <<-EOF
	ListenAddress 127.0.0.1
	Port $port
	HostKey $d/host_key
	AuthorizedKeysFile $d/authorized_keys
	PidFile $d/sshd.pid
	UsePAM no
	StrictModes no
	PasswordAuthentication no
	KbdInteractiveAuthentication no
	PermitRootLogin prohibit-password
	EOF
	cat >"$d/ssh_config" <<-EOF
	Host rdmad-far rdmad-nowhere
		HostName 127.0.0.1
		IdentityFile $d/user_key
		IdentitiesOnly yes
		UserKnownHostsFile $d/known_hosts
		StrictHostKeyChecking yes
		BatchMode yes
		ConnectTimeout 5
	Host rdmad-far
		Port $port
	Host rdmad-nowhere
		Port $closed
	EOF
	echo "[127.0.0.1]:$port $(cat "$d/host_key.pub")" >"$d/known_hosts"
	# sshd's privilege separation directory, as its service makes it.
	mkdir -p /run/sshd
	"$SSHD" -f "$d/sshd_config" -E "$d/sshd.log" || return 1
	for i in $(seq 1 100); do
		[ -s "$d/sshd.pid" ] && return 0
		sleep 0.05
	done
	cat "$d/sshd.log" >&2
	return 1
}

setup_file() {
	rdmad_start
	rdmad_start "$BATS_FILE_TMPDIR/far"
	export NEAR="$BATS_FILE_TMPDIR/io.rdmad" FAR="$BATS_FILE_TMPDIR/far/io.rdmad"
	export RDMACTL_SOCKET="$NEAR"
	if [ -x "$SSHD" ] && command -v ssh >/dev/null; then
		sshd_start
		export HAVE_SSHD=1
	fi
}

teardown_file() {
	local pid
	pid=$(cat "$BATS_FILE_TMPDIR/ssh/sshd.pid" 2>/dev/null) && kill "$pid" 2>/dev/null || true
	rdmad_stop "$BATS_FILE_TMPDIR/far"
	rdmad_stop
}

setup() {
	load_libs
	cd "$BATS_TEST_TMPDIR"
	# The far host's rdmactl is this build's (it is not on sshd's PATH).
	export RDMACTL_SSH="ssh -F $BATS_FILE_TMPDIR/ssh/ssh_config" RDMACTL_REMOTE="$RDMACTL"
	unset RDMACTL_HOST
}

teardown() {
	[ -e mon.out.pid ] && monitor_stop mon.out
	return 0
}

need_sshd() {
	[ -n "${HAVE_SSHD:-}" ] || skip "no sshd ($SSHD): make deps installs openssh-server"
}

# PDs of a daemon, as handles.
pds() {
	"$RDMACTL" -s "$1" -j pd list | jq -c 'map(.handle)'
}

@test "--bridge relays standard input to the daemon and its replies to standard output" {
	run bash -c "printf '{\"method\":\"io.rdmad.Device.List\"}\0' | '$RDMACTL' --bridge -s '$FAR' | tr '\0' '\n'"
	assert_success
	assert_output --partial '"soft0"'
}

@test "--bridge takes no command, and says why its daemon cannot be reached" {
	run "$RDMACTL" --bridge pd list
	assert_failure 2
	assert_output --partial "--bridge relays standard input and output to rdmad: no command"
	run bash -c "'$RDMACTL' --bridge -s '$BATS_TEST_TMPDIR/none' </dev/null"
	assert_failure 1
	assert_output "rdmactl: cannot connect to $BATS_TEST_TMPDIR/none: No such file or directory (is rdmad running?)"
}

@test "-H refuses a host ssh would take for an option, and one with blanks" {
	run "$RDMACTL" -H -oProxyCommand=true pd list
	assert_failure 2
	assert_output "rdmactl: -H: '-oProxyCommand=true' is not a host: [USER@]HOST"
	RDMACTL_HOST='a b' run "$RDMACTL" pd list
	assert_failure 2
	assert_output --partial "-H: 'a b' is not a host"
}

@test "-H without ssh names the host and the program it could not run" {
	before=$(pds "$FAR")
	RDMACTL_SSH=/nonexistent/ssh run "$RDMACTL" -H rdmad-far -s "$FAR" pd create
	assert_failure 1
	assert_output "rdmactl: -H rdmad-far: cannot run '/nonexistent/ssh': No such file or directory (install ssh, or name it in RDMACTL_SSH)"
	[ "$(pds "$FAR")" = "$before" ]
}

@test "-H lists the far host's objects, as rdmactl on that host does (text and -j)" {
	need_sshd
	"$RDMACTL" -s "$FAR" pd create >/dev/null
	run "$RDMACTL" -H rdmad-far -s "$FAR" -j pd list
	assert_success
	[ "$output" = "$("$RDMACTL" -s "$FAR" -j pd list)" ]
	[ "$output" != "$("$RDMACTL" -s "$NEAR" -j pd list)" ]
	run "$RDMACTL" -H root@rdmad-far -s "$FAR" dev list
	assert_success
	assert_output "soft0"
}

@test "RDMACTL_HOST is -H; RDMACTL_SOCKET names a local socket and does not go along" {
	need_sshd
	RDMACTL_HOST=rdmad-far run "$RDMACTL" -s "$FAR" -j dev list
	assert_success
	assert_output --partial '"soft0"'
	# Without -s the far host's default socket is asked, not this one's.
	RDMACTL_HOST=rdmad-far RDMACTL_SOCKET="$BATS_TEST_TMPDIR/here-only" run "$RDMACTL" pd list
	refute_output --partial "here-only"
	[ "$status" -eq 0 ] || assert_output --partial "cannot connect to /run/rdmad/io.rdmad"
}

@test "-H creates as root on the far host, and nothing on this one" {
	need_sshd
	near=$(pds "$NEAR")
	far=$(pds "$FAR")
	run "$RDMACTL" -H root@rdmad-far -s "$FAR" -j pd create
	assert_success
	handle=$(jq -r '.[0].handle' <<<"$output")
	[ "$(pds "$FAR")" = "$(jq -c ". + [$handle]" <<<"$far")" ]
	[ "$(pds "$NEAR")" = "$near" ]
	run "$RDMACTL" -H rdmad-far -s "$FAR" pd destroy "$handle"
	assert_success
	[ "$(pds "$FAR")" = "$far" ]
}

@test "dump here | apply on the far host with -H; the far dump is then the same" {
	need_sshd
	"$RDMACTL" -s "$NEAR" pool create sig --type signature --size 2 >/dev/null
	"$RDMACTL" -s "$NEAR" daemon log-level debug >/dev/null
	"$RDMACTL" -s "$NEAR" dump >near.json
	run "$RDMACTL" -H rdmad-far -s "$FAR" apply --dry-run near.json
	assert_success
	assert_output --partial "would change: settings: log_level info -> debug"
	run "$RDMACTL" -H rdmad-far -s "$FAR" apply near.json
	assert_success
	"$RDMACTL" -H rdmad-far -s "$FAR" dump >far.json
	diff near.json far.json
	# The far daemon holds it, not a copy of the near one's answers.
	[ "$("$RDMACTL" -s "$FAR" -j pool show sig | jq -r '.[0].size')" = 2 ]
}

@test "-H monitor hears an event of the far host" {
	need_sshd
	monitor_start mon.out -H rdmad-far -s "$FAR" -j monitor --type object_created
	"$RDMACTL" -s "$NEAR" pd create >/dev/null
	handle=$("$RDMACTL" -s "$FAR" -j pd create | jq -r '.[0].handle')
	wait_for_lines mon.out 2
	run grep -c object_created mon.out
	assert_output 1
	run jq -c 'select(.type == "object_created") | [.kind, .handle]' mon.out
	assert_output "[\"pd\",$handle]"
}

@test "-H with -i and -b: the shell and batch run their lines on the far host" {
	need_sshd
	far=$(pds "$FAR")
	run bash -c "printf 'pd create\npd show 999999\npd list\n' | '$RDMACTL' -H rdmad-far -s '$FAR' -b -"
	assert_failure 1
	assert_output --partial "io.rdmad.Pd.NoSuchObject"
	[ "$(pds "$FAR" | jq length)" = $(($(jq length <<<"$far") + 1)) ]
	run bash -c "printf 'dev list\n' | '$RDMACTL' -H rdmad-far -s '$FAR' -i"
	assert_success
	assert_output --partial "soft0"
}

@test "-H errors name the host: unreachable, no rdmactl there, its rdmad down" {
	need_sshd
	run "$RDMACTL" -H rdmad-nowhere -s "$FAR" pd list
	assert_failure 1
	assert_line --partial "Connection refused"
	assert_line "rdmactl: pd list: host 'rdmad-nowhere': ssh could not reach it or log in (ssh exit status 255; ssh's own message is above)"
	RDMACTL_REMOTE=/nonexistent/rdmactl run "$RDMACTL" -H rdmad-far -s "$FAR" pd list
	assert_failure 1
	assert_line "rdmactl: pd list: host 'rdmad-far': no rdmactl to run there (exit status 127): install rdmad on it, or name its rdmactl in RDMACTL_REMOTE"
	run "$RDMACTL" -H rdmad-far -s "$BATS_TEST_TMPDIR/down" pd list
	assert_failure 1
	assert_line "rdmactl: cannot connect to $BATS_TEST_TMPDIR/down: No such file or directory (is rdmad running?)"
	assert_line "rdmactl: pd list: host 'rdmad-far': rdmactl --bridge there could not reach its rdmad (its message is above)"
}

@test "-H refuses a command that passes a file descriptor, and the far host has nothing new" {
	need_sshd
	run bash -c "head -c 32 /dev/zero | '$RDMACTL' -H rdmad-far -s '$FAR' dek create k1 --size 256 --key-file -"
	assert_failure 1
	assert_output --partial "host 'rdmad-far': the command passes a file descriptor, which cannot travel over ssh"
	run "$RDMACTL" -s "$FAR" -j dek show
	assert_success
	assert_output "[]"
}

@test "a socket path with a quote reaches the far host's shell as one word" {
	need_sshd
	mkdir -p "$BATS_TEST_TMPDIR/it's here"
	ln -s "$FAR" "$BATS_TEST_TMPDIR/it's here/io.rdmad"
	run "$RDMACTL" -H rdmad-far -s "$BATS_TEST_TMPDIR/it's here/io.rdmad" dev list
	assert_success
	assert_output "soft0"
}
