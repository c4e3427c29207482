# Helpers for the varlink conformance tests: start and stop test services on
# temporary sockets, and talk raw NUL-framed varlink to them through socat.
#
#   load varlink-helper
#
# Services are started in the background with their stderr in
# $BATS_FILE_TMPDIR/NAME.log; their exit status lands in NAME.rc.

VARLINK_REPO_ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
VARLINK_BUILD=${BUILD:-build}
[[ $VARLINK_BUILD == /* ]] || VARLINK_BUILD=$VARLINK_REPO_ROOT/$VARLINK_BUILD
VARLINK_TOOLS=$VARLINK_BUILD/tools

# varlink_start NAME COMMAND [ARGS...]: runs the command in the background.
varlink_start() {
	local name=$1 dir=$BATS_FILE_TMPDIR
	shift
	rm -f "$dir/$name.pid" "$dir/$name.rc"
	# The wrapper keeps the exit status; fd 3 is bats' own and must not leak.
	# bats runs tests under errexit, which a nonzero wait must not trip.
	(
		set +e
		"$@" >"$dir/$name.out" 2>"$dir/$name.log" 3>&- &
		echo $! >"$dir/$name.pid"
		wait $!
		echo $? >"$dir/$name.rc"
	) 3>&- &
	local i
	for ((i = 0; i < 50; i++)); do
		[[ -s $dir/$name.pid ]] && return 0
		sleep 0.02
	done
	echo "varlink_start: $name did not start" >&2
	return 1
}

# varlink_wait_socket PATH [NAME]: waits up to 10 s for PATH to be a socket;
# fails early when the service NAME has already exited.
varlink_wait_socket() {
	local path=$1 name=${2:-} i
	for ((i = 0; i < 500; i++)); do
		[[ -S $path ]] && return 0
		if [[ -n $name && -e $BATS_FILE_TMPDIR/$name.rc ]]; then
			echo "$name exited with $(cat "$BATS_FILE_TMPDIR/$name.rc") before $path appeared:" >&2
			cat "$BATS_FILE_TMPDIR/$name.log" >&2
			return 1
		fi
		sleep 0.02
	done
	echo "varlink_wait_socket: $path did not appear" >&2
	return 1
}

# varlink_running NAME: the service is still alive.
varlink_running() {
	local pidfile=$BATS_FILE_TMPDIR/$1.pid
	[[ -s $pidfile && ! -e $BATS_FILE_TMPDIR/$1.rc ]] && kill -0 "$(cat "$pidfile")" 2>/dev/null
}

# varlink_stop NAME: SIGTERM, then waits up to 10 s (SIGKILL after that) and
# prints the exit status.  Safe to call for a service that is not running.
varlink_stop() {
	local name=$1 dir=$BATS_FILE_TMPDIR pid i
	[[ -s $dir/$name.pid ]] || return 0
	pid=$(cat "$dir/$name.pid")
	[[ -e $dir/$name.rc ]] || kill -TERM "$pid" 2>/dev/null || true
	for ((i = 0; i < 500; i++)); do
		[[ -e $dir/$name.rc ]] && break
		sleep 0.02
	done
	if [[ ! -e $dir/$name.rc ]]; then
		kill -KILL "$pid" 2>/dev/null || true
		sleep 0.1
	fi
	cat "$dir/$name.rc" 2>/dev/null || echo killed
	rm -f "$dir/$name.pid"
}

# varlink_raw SOCKET MESSAGE...: sends every MESSAGE (printf format, no NUL
# needed) NUL-terminated in one write, half-closes, and prints every reply on
# its own line.
varlink_raw() {
	local sock=$1 m data=
	shift
	for m in "$@"; do
		data+="$m\\0"
	done
	printf "$data" | timeout 10 socat -t2 - "UNIX-CONNECT:$sock" | tr '\0' '\n'
}

# varlink_raw_bytes SOCKET BYTES: sends BYTES (printf format, framing is the
# caller's) and prints the replies, one per line.
varlink_raw_bytes() {
	printf "$2" | timeout 10 socat -t2 - "UNIX-CONNECT:$1" | tr '\0' '\n'
}

# varlink_closes SOCKET BYTES: sends BYTES without closing our side and
# succeeds when the server closes the connection within 3 s without
# answering.  A server that keeps the connection open makes it fail.
varlink_closes() {
	local sock=$1 bytes=$2 out rc
	out=$(timeout 3 socat -t0.2 - "UNIX-CONNECT:$sock" \
		< <(exec 3>&-; printf "$bytes"; exec sleep 4) | tr '\0' '\n'; exit "${PIPESTATUS[0]}")
	rc=$?
	if ((rc == 124)); then
		echo "varlink_closes: the connection is still open after 3 s${out:+; got: $out}" >&2
		return 1
	fi
	if [[ -n $out ]]; then
		echo "varlink_closes: the server answered: $out" >&2
		return 1
	fi
	return 0
}
