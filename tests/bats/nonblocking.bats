#!/usr/bin/env bats
# Nothing a client names or passes makes the event loop wait: a descriptor
# passed with a call (Dek.Create key_fd, Mr.RegUser fd) and every file the daemon opens for a
# caller (key_file, credential_file, the import KEKs and the device's
# credential of rdmad.conf) is examined with fstat() before a byte is read, a
# path is opened with O_NONBLOCK, and anything but a regular file is refused
# at once with an error naming the field.  A FIFO with no writer used to hang
# every client.  Each refusal here is timed against a GetStatus on a second
# connection, sent while the first call is in the daemon.

load helper
load key-helper

setup_file() {
	K="$BATS_FILE_TMPDIR/keys"
	login_keys "$K"
	# Root's, mode 0600, and no writer ever: everything a key file must be but regular.
	mkfifo -m 0600 "$K/fifo"
	cat >"$BATS_FILE_TMPDIR/rdmad.conf" <<-EOF
	crypto_credential = $K/credential
	import_kek.main = $K/kek
	import_kek.fifo = $K/fifo
	EOF
	rdmad_start "$BATS_FILE_TMPDIR"
}
teardown_file() { rdmad_stop; }

setup() {
	load_libs
	K="$BATS_FILE_TMPDIR/keys"
	T="$BATS_TEST_TMPDIR"
	export T K
}

# meanwhile: runs the python3 script on stdin, which calls
# meanwhile(method, params, fds): the call on one connection (fds passed with
# it) and, while it is in the daemon, io.rdmad.Daemon.GetStatus on another.
# Prints "status: ok" (or "timeout": the loop was blocked), the call's
# "ERROR {parameters}", and "quick: True" when both came within 2 s.
meanwhile() {
	{
		cat <<-'EOF'
		import json, os, socket, sys, time
		def connect():
		    s = socket.socket(socket.AF_UNIX)
		    s.settimeout(3)
		    s.connect(sys.argv[1])
		    return s
		def send(s, method, params, fds=()):
		    msg = json.dumps({"method": method, "parameters": params}).encode() + b"\0"
		    socket.send_fds(s, [msg], list(fds))
		def read(s):
		    reply = b""
		    try:
		        while not reply.endswith(b"\0"):
		            chunk = s.recv(65536)
		            if not chunk:
		                return "closed"
		            reply += chunk
		    except socket.timeout:
		        return "timeout"
		    r = json.loads(reply[:-1])
		    return r.get("error", "ok") + " " + json.dumps(r.get("parameters", {}), sort_keys=True)
		def meanwhile(method, params, fds=()):
		    start = time.monotonic()
		    a = connect()
		    send(a, method, params, fds)
		    b = connect()
		    send(b, "io.rdmad.Daemon.GetStatus", {})
		    print("status:", read(b).split()[0])
		    print("call:", read(a))
		    print("quick:", time.monotonic() - start < 2)
		EOF
		cat
	} >"$T/meanwhile.py"
	python3 "$T/meanwhile.py" "$RDMACTL_SOCKET"
}

# assert_refused_meanwhile ERROR FIELD REASON: the output of one meanwhile() call.
assert_refused_meanwhile() {
	assert_line --index 0 "status: ok"
	assert_line --index 1 --partial "call: $1 {\"field\": \"$2\", \"reason\": \"$3"
	assert_line --index 2 "quick: True"
}

@test "key_fd: a FIFO with no writer is refused at once naming key_fd; GetStatus is answered meanwhile" {
	run meanwhile <<-'EOF'
	fd = os.open(os.path.join(os.environ["K"], "fifo"), os.O_RDONLY | os.O_NONBLOCK)
	meanwhile("io.rdmad.Dek.Create", {"name": "fifo", "size": 128, "key_fd": 0}, [fd])
	EOF
	assert_success
	assert_refused_meanwhile io.rdmad.Dek.InvalidArgument key_fd "not a regular file or memfd"
	run "$RDMACTL" -j dek list
	assert_output '[]'
}

@test "key_fd: a socket, a FIFO with a silent writer, character devices, a directory: refused, none read" {
	run meanwhile <<-'EOF'
	fifo = os.path.join(os.environ["K"], "fifo")
	rd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
	wr = os.open(fifo, os.O_WRONLY)
	mine, theirs = socket.socketpair()
	for fd in (theirs.fileno(), rd, os.open("/dev/zero", os.O_RDONLY),
	           os.open("/dev/null", os.O_RDONLY), os.open(os.environ["T"], os.O_RDONLY)):
	    meanwhile("io.rdmad.Dek.Create", {"name": "odd", "size": 128, "key_fd": 0}, [fd])
	EOF
	assert_success
	for i in 0 3 6 9 12; do
		assert_line --index $i "status: ok"
		assert_line --index $((i + 1)) --partial 'call: io.rdmad.Dek.InvalidArgument {"field": "key_fd", "reason": "not a regular file or memfd'
		assert_line --index $((i + 2)) "quick: True"
	done
}

@test "key_fd: a huge file is refused by its size and a write-only one as unreadable, at once" {
	truncate -s 1G "$T/huge"
	key "$T/k" 32
	run meanwhile <<-'EOF'
	t = os.environ["T"]
	meanwhile("io.rdmad.Dek.Create", {"name": "huge", "size": 128, "key_fd": 0},
	          [os.open(os.path.join(t, "huge"), os.O_RDONLY)])
	meanwhile("io.rdmad.Dek.Create", {"name": "wronly", "size": 128, "key_fd": 0},
	          [os.open(os.path.join(t, "k"), os.O_WRONLY)])
	EOF
	assert_success
	assert_refused_meanwhile io.rdmad.Dek.InvalidArgument key_fd "has more bytes than any key"
	assert_line --index 3 "status: ok"
	assert_line --index 4 --partial 'call: io.rdmad.Dek.InvalidArgument {"field": "key_fd", "reason": "cannot be read (Bad file descriptor)'
	assert_line --index 5 "quick: True"
}

@test "Mr.RegUser fd: a FIFO, a socket and /dev/zero are refused at once naming fd" {
	pd=$("$RDMACTL" -j pd create | jq -r '.[0].handle')
	export pd
	run meanwhile <<-'EOF'
	mine, theirs = socket.socketpair()
	for fd in (os.open(os.environ["K"] + "/fifo", os.O_RDWR), theirs.fileno(),
	           os.open("/dev/zero", os.O_RDWR)):
	    meanwhile("io.rdmad.Mr.RegUser", {"pd": int(os.environ["pd"]), "fd": 0, "length": 4096,
	                                      "access": ["local_write"]}, [fd])
	EOF
	assert_success
	for i in 0 3 6; do
		assert_line --index $i "status: ok"
		assert_line --index $((i + 1)) 'call: io.rdmad.Mr.InvalidArgument {"field": "fd", "reason": "not a memfd"}'
		assert_line --index $((i + 2)) "quick: True"
	done
	run "$RDMACTL" -j mr list
	assert_output '[]'
	"$RDMACTL" pd destroy "$pd"
}

@test "key_file: a FIFO, a socket, a character device and a huge file are refused at once naming key_file" {
	python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$T/socket"
	chmod 0600 "$T/socket"
	truncate -s 1G "$T/huge"
	chmod 0600 "$T/huge"
	run meanwhile <<-'EOF'
	t, k = os.environ["T"], os.environ["K"]
	for path in (k + "/fifo", t + "/socket", "/dev/zero", t + "/huge"):
	    meanwhile("io.rdmad.Dek.Create", {"name": "odd", "size": 128, "key_file": path})
	EOF
	assert_success
	assert_refused_meanwhile io.rdmad.Dek.InvalidArgument key_file "$K/fifo is not a regular file"
	assert_line --index 4 --partial "call: io.rdmad.Dek.InvalidArgument {\"field\": \"key_file\", \"reason\": \"$T/socket is not a regular file"
	assert_line --index 7 --partial 'call: io.rdmad.Dek.InvalidArgument {"field": "key_file", "reason": "/dev/zero is not a regular file'
	assert_line --index 10 --partial "call: io.rdmad.Dek.InvalidArgument {\"field\": \"key_file\", \"reason\": \"$T/huge holds more than"
	for i in 3 6 9; do
		assert_line --index $i "status: ok"
		assert_line --index $((i + 2)) "quick: True"
	done
	run "$RDMACTL" -j dek list
	assert_output '[]'
}

@test "credential_file: a FIFO is refused at once naming credential_file; no login" {
	run meanwhile <<-'EOF'
	meanwhile("io.rdmad.Dek.Login", {"credential_file": os.environ["K"] + "/fifo", "kek": "main"})
	EOF
	assert_success
	assert_refused_meanwhile io.rdmad.Dek.InvalidArgument credential_file "$K/fifo is not a regular file"
	run "$RDMACTL" -j dek login-state
	assert_output --partial '"state":"no_login"'
}

@test "rdmad.conf's files: an import KEK or the device's credential that is a FIFO fails the login at once" {
	run meanwhile <<-'EOF'
	meanwhile("io.rdmad.Dek.Login", {"credential_file": os.environ["K"] + "/login", "kek": "fifo"})
	EOF
	assert_success
	assert_refused_meanwhile io.rdmad.Dek.InvalidState kek "import KEK 'fifo': $K/fifo is not a regular file"
	cp "$BATS_FILE_TMPDIR/rdmad.conf" "$T/saved.conf"
	sed -i "s|^crypto_credential = .*|crypto_credential = $K/fifo|" "$BATS_FILE_TMPDIR/rdmad.conf"
	"$RDMACTL" daemon reload
	run meanwhile <<-'EOF'
	meanwhile("io.rdmad.Dek.Login", {"credential_file": os.environ["K"] + "/login", "kek": "main"})
	EOF
	cp "$T/saved.conf" "$BATS_FILE_TMPDIR/rdmad.conf"
	"$RDMACTL" daemon reload
	assert_success
	assert_refused_meanwhile io.rdmad.Dek.InvalidState login "the device's credential: $K/fifo is not a regular file"
	# The same files, regular, still log in.
	run "$RDMACTL" -j dek login --credential-file "$K/login" --kek main
	assert_success
	assert_output --partial '"state":"valid"'
	"$RDMACTL" dek logout
}
