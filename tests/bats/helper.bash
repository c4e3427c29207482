# Shared by the BATS suites: a real rdmad per test file, on a temporary socket
# and state directory, stopped (and checked for a clean exit) at the end.
bats_require_minimum_version 1.5.0

TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
BUILD=${BUILD:-build}
case "$BUILD" in /*) ;; *) BUILD="$TOP/$BUILD" ;; esac
RDMAD="$BUILD/rdmad"
RDMACTL="$BUILD/rdmactl"
export TOP BUILD RDMAD RDMACTL

load_libs() {
	bats_load_library bats-support
	bats_load_library bats-assert
	bats_load_library bats-file
}

# rdmad_start [DIR] [RDMAD OPTIONS...]: starts rdmad in DIR (default
# $BATS_FILE_TMPDIR) and waits until it answers.  Sets RDMACTL_SOCKET.
rdmad_start() {
	local dir=${1:-$BATS_FILE_TMPDIR}
	[ $# -gt 0 ] && shift
	mkdir -p "$dir"
	[ -e "$dir/rdmad.conf" ] || : >"$dir/rdmad.conf"
	export RDMACTL_SOCKET="$dir/io.rdmad"
	# The wrapper keeps rdmad's exit status for rdmad_stop (bats runs with errexit).
	(
		rc=0
		"$RDMAD" --foreground --socket "$dir/io.rdmad" --state-dir "$dir/state" \
			--config "$dir/rdmad.conf" "$@" >"$dir/rdmad.log" 2>&1 || rc=$?
		echo "$rc" >"$dir/rdmad.status"
	) 3>&- &
	rdmad_wait_ready "$dir"
}

rdmad_wait_ready() {
	local dir=$1 i
	for i in $(seq 1 200); do
		if "$RDMACTL" -s "$dir/io.rdmad" -j status >"$dir/status.json" 2>/dev/null; then
			sed -n 's/.*"pid":\([0-9]*\).*/\1/p' "$dir/status.json" >"$dir/rdmad.pid"
			return 0
		fi
		[ -e "$dir/rdmad.status" ] && break
		sleep 0.05
	done
	echo "rdmad did not start; its log:" >&2
	cat "$dir/rdmad.log" >&2
	return 1
}

# rdmad_stop [DIR]: SIGTERM, then expects exit status 0 and no sanitizer report.
rdmad_stop() {
	local dir=${1:-$BATS_FILE_TMPDIR} pid i
	pid=$(cat "$dir/rdmad.pid" 2>/dev/null) || return 0
	kill -TERM "$pid" 2>/dev/null || true
	for i in $(seq 1 200); do
		[ -e "$dir/rdmad.status" ] && break
		sleep 0.05
	done
	rm -f "$dir/rdmad.pid"
	if [ ! -e "$dir/rdmad.status" ]; then
		kill -KILL "$pid" 2>/dev/null
		echo "rdmad did not stop on SIGTERM" >&2
		return 1
	fi
	# A reply its interface does not describe is a bug even when the client took it.
	if grep -Eq 'AddressSanitizer|LeakSanitizer|ThreadSanitizer|runtime error:|does not match its description' \
		"$dir/rdmad.log"; then
		cat "$dir/rdmad.log" >&2
		return 1
	fi
	if [ "$(cat "$dir/rdmad.status")" != 0 ]; then
		echo "rdmad exited with status $(cat "$dir/rdmad.status"); its log:" >&2
		cat "$dir/rdmad.log" >&2
		return 1
	fi
	rm -f "$dir/rdmad.status"
}

# rdmad_kill9 [DIR]: SIGKILL, as a crash, at once; the wrapper's status file goes
# so that the next rdmad_start waits properly.
rdmad_kill9() {
	local dir=${1:-$BATS_FILE_TMPDIR} pid i
	# No process between the caller's last reply and the signal.
	read -r pid <"$dir/rdmad.pid"
	kill -KILL "$pid"
	for i in $(seq 1 500); do
		[ -e "$dir/rdmad.status" ] && break
		sleep 0.01
	done
	rm -f "$dir/rdmad.status" "$dir/rdmad.pid"
}

# Bytes through MKEY layouts, the expected ones computed without the daemon:
# pattern N: N bytes, byte i = (7 i + 3) mod 256, as hex.
pattern() {
	python3 -c "import sys; print(bytes((7 * i + 3) % 256 for i in range(int(sys.argv[1]))).hex())" "$1"
}
# pieces HEX OFFSET:LENGTH...: those bytes of HEX in the order given (the layout spelled out by hand).
pieces() {
	local hex=$1 p out=
	shift
	for p in "$@"; do
		out+=${hex:$((${p%:*} * 2)):$((${p#*:} * 2))}
	done
	echo "$out"
}

# varlink_raw BYTES: sends printf-style BYTES to the daemon and prints the
# replies one per line (NULs turned into newlines).
varlink_raw() {
	printf "$1" | socat -t 2 - "UNIX-CONNECT:$RDMACTL_SOCKET" | tr '\0' '\n'
}

# The daemon still answers a fresh client.
assert_daemon_serves() {
	run "$RDMACTL" -j status
	assert_success
	assert_output --partial '"version"'
}

# monitor_start FILE [ARGS...]: rdmactl monitor in the background, once subscribed.
monitor_start() {
	local out=$1
	shift
	"$RDMACTL" "$@" >"$out" 2>&1 3>&- &
	echo $! >"$out.pid"
	for i in $(seq 1 100); do
		grep -q subscribed "$out" && return 0
		sleep 0.05
	done
	cat "$out" >&2
	return 1
}

monitor_stop() {
	kill "$(cat "$1.pid")" 2>/dev/null || true
}

wait_for_lines() { # FILE N
	for i in $(seq 1 100); do
		[ "$(wc -l <"$1")" -ge "$2" ] && return 0
		sleep 0.05
	done
	cat "$1" >&2
	return 1
}

# on_tty CMD...: runs CMD with its standard output on a pseudo-terminal
# (standard input and error as they are), copies what it printed there to
# standard output, and exits with CMD's status.
on_tty() {
	python3 -c '
import os, subprocess, sys
master, slave = os.openpty()
child = subprocess.Popen(sys.argv[1:], stdout=slave)
os.close(slave)
while True:
    try:
        chunk = os.read(master, 4096)
    except OSError:
        break
    if not chunk:
        break
    sys.stdout.buffer.write(chunk)
sys.exit(child.wait())
' "$@"
}

# sig_error CMD...: runs CMD, which must find a signature error (exit status 3, rdmactl(8)).
sig_error() {
	local rc=0
	"$@" || rc=$?
	[ "$rc" -eq 3 ] || { echo "expected exit status 3 (a signature error), got $rc: $*" >&2; return 1; }
}

# refusal_status ERROR: rdmactl's exit status for a varlink error: 2 for the
# daemon's parameter check (InvalidParameter, InvalidArgument), 1 otherwise.
refusal_status() {
	case $1 in
	*.InvalidParameter | *InvalidArgument) echo 2 ;;
	*) echo 1 ;;
	esac
}
