#!/usr/bin/env bats
# The varlink protocol as rdmad serves it, sent raw with socat: framing,
# pipelining, oneway, errors, malformed input and limits.  After every abuse
# the daemon must go on serving other clients.

load helper

setup_file() {
	printf 'max_connections = 8\nmax_connections_per_uid = 6\nconnections_reserved_for_root = 2\n' \
		>"$BATS_FILE_TMPDIR/rdmad.conf"
	rdmad_start
}
teardown_file() { rdmad_stop; }
setup() { load_libs; }

@test "GetInfo names the service and lists its interfaces" {
	run varlink_raw '{"method":"org.varlink.service.GetInfo"}\0'
	assert_success
	assert_output --regexp '^\{"parameters":\{"vendor":"[^"]+","product":"rdmad","version":"[0-9.]+","url":"[^"]+","interfaces":\["org.varlink.service","io.rdmad.Daemon","io.rdmad.Device"(,"io.rdmad.[A-Za-z]+")*\]\}\}$'
}

@test "GetInterfaceDescription returns the .varlink file verbatim" {
	run varlink_raw '{"method":"org.varlink.service.GetInterfaceDescription","parameters":{"interface":"io.rdmad.Device"}}\0'
	assert_success
	echo "$output" | python3 -c 'import json,sys; sys.stdout.write(json.loads(sys.stdin.readline())["parameters"]["description"])' >"$BATS_TEST_TMPDIR/idl"
	cmp "$BATS_TEST_TMPDIR/idl" "$TOP/daemon/api/io.rdmad.Device.varlink"
}

@test "GetInterfaceDescription of an unknown interface is InterfaceNotFound" {
	run varlink_raw '{"method":"org.varlink.service.GetInterfaceDescription","parameters":{"interface":"io.nope"}}\0'
	assert_output '{"error":"org.varlink.service.InterfaceNotFound","parameters":{"interface":"io.nope"}}'
}

@test "unknown interface and unknown method" {
	run varlink_raw '{"method":"io.rdmad.Nope.Show"}\0{"method":"io.rdmad.Device.Nope"}\0{"method":"Show"}\0'
	assert_line --index 0 '{"error":"org.varlink.service.InterfaceNotFound","parameters":{"interface":"io.rdmad.Nope"}}'
	assert_line --index 1 '{"error":"org.varlink.service.MethodNotFound","parameters":{"method":"io.rdmad.Device.Nope"}}'
	assert_line --index 2 '{"error":"org.varlink.service.InterfaceNotFound","parameters":{"interface":""}}'
}

@test "strict parameter checks name the parameter" {
	run varlink_raw '{"method":"io.rdmad.Device.Show","parameters":{"ifname":5}}\0{"method":"io.rdmad.Device.Show","parameters":{"bogus":"x"}}\0{"method":"io.rdmad.Daemon.SetLogLevel","parameters":{"level":"loud"}}\0{"method":"io.rdmad.Daemon.SetLogLevel"}\0{"method":"org.varlink.service.GetInterfaceDescription","parameters":{"interface":null}}\0'
	assert_line --index 0 '{"error":"org.varlink.service.InvalidParameter","parameters":{"parameter":"ifname"}}'
	assert_line --index 1 '{"error":"org.varlink.service.InvalidParameter","parameters":{"parameter":"bogus"}}'
	assert_line --index 2 '{"error":"org.varlink.service.InvalidParameter","parameters":{"parameter":"level"}}'
	assert_line --index 3 '{"error":"org.varlink.service.InvalidParameter","parameters":{"parameter":"level"}}'
	assert_line --index 4 '{"error":"org.varlink.service.InvalidParameter","parameters":{"parameter":"interface"}}'
	assert_daemon_serves
}

@test "absent, null and empty parameters are the same" {
	run varlink_raw '{"method":"io.rdmad.Device.List"}\0{"method":"io.rdmad.Device.List","parameters":null}\0{"method":"io.rdmad.Device.List","parameters":{}}\0'
	assert_equal "${#lines[@]}" 3
	for i in 0 1 2; do assert_line --index $i '{"parameters":{"ifnames":["soft0"]}}'; done
}

@test "several calls in one write are answered in order; oneway gets no reply" {
	run varlink_raw '{"method":"io.rdmad.Device.List"}\0{"method":"io.rdmad.Daemon.GetStatus","oneway":true}\0{"method":"io.rdmad.Device.Show","parameters":{"ifname":"x"}}\0{"method":"io.rdmad.Device.Nope","oneway":true}\0{"method":"io.rdmad.Device.List"}\0'
	assert_equal "${#lines[@]}" 3
	assert_line --index 0 '{"parameters":{"ifnames":["soft0"]}}'
	assert_line --index 1 '{"error":"io.rdmad.Device.NoSuchDevice","parameters":{"ifname":"x"}}'
	assert_line --index 2 '{"parameters":{"ifnames":["soft0"]}}'
}

@test "more on a plain method: one reply without continues" {
	run varlink_raw '{"method":"io.rdmad.Device.List","more":true}\0'
	assert_output '{"parameters":{"ifnames":["soft0"]}}'
}

@test "upgrade is refused with InvalidParameter upgrade" {
	run varlink_raw '{"method":"io.rdmad.Device.List","upgrade":true}\0{"method":"io.rdmad.Device.List"}\0'
	assert_line --index 0 '{"error":"org.varlink.service.InvalidParameter","parameters":{"parameter":"upgrade"}}'
	assert_line --index 1 '{"parameters":{"ifnames":["soft0"]}}'
}

@test "vendor extension keys are ignored" {
	run varlink_raw '{"method":"io.rdmad.Device.List","org.example.trace":{"id":1}}\0'
	assert_output '{"parameters":{"ifnames":["soft0"]}}'
}

# Each of these breaks the protocol: the connection is closed without a reply
# (calls before it in the same write are still answered).
@test "protocol violations close the connection" {
	for msg in 'garbage' '{"method":' '[1,2]' '"str"' '{}' '{"method":5}' \
		'{"method":"io.rdmad.Device.List","more":true,"oneway":true}' \
		'{"method":"io.rdmad.Device.List","oneway":"yes"}' \
		'{"method":"io.rdmad.Device.List","bogus":1}' \
		'{"method":"io.rdmad.Device.List","parameters":[1]}' \
		'{"method":"io.rdmad.Device.List"}{"method":"io.rdmad.Device.List"}' \
		'{"method":"io.rdmad.Device.List","parameters":{"x":NaN}}' \
		'{"method":"io.rdmad.Device.List",}' \
		"{'method':'io.rdmad.Device.List'}" \
		'{"method":"io.rdmad.Device.L\xffist"}'; do
		run varlink_raw "{\"method\":\"io.rdmad.Device.List\"}\\0$msg\\0{\"method\":\"io.rdmad.Device.List\"}\\0"
		assert_success
		assert_equal "${#lines[@]}" 1
		assert_output '{"parameters":{"ifnames":["soft0"]}}'
	done
	assert_daemon_serves
}

@test "whitespace around a message is accepted" {
	run varlink_raw ' {"method" : "io.rdmad.Device.List"}\n\0'
	assert_output '{"parameters":{"ifnames":["soft0"]}}'
}

@test "a message without its NUL gets no reply" {
	run varlink_raw '{"method":"io.rdmad.Device.List"}'
	assert_success
	assert_output ''
	assert_daemon_serves
}

# big_call SIZE: one call whose vendor extension string makes it SIZE bytes long.
big_call() {
	python3 - "$RDMACTL_SOCKET" "$1" <<'PY'
import socket, sys
head = b'{"method":"io.rdmad.Device.List","org.example.pad":"'
tail = b'"}\0'
msg = head + b"a" * (int(sys.argv[2]) - len(head) - len(tail) + 1) + tail
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
try:
    s.sendall(msg)
    s.shutdown(socket.SHUT_WR)
except (BrokenPipeError, ConnectionResetError):
    pass
reply = b""
try:
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        reply += chunk
except ConnectionResetError:
    pass
print(reply.decode().rstrip("\0"))
PY
}

@test "a message of exactly 16 MiB is served" {
	run big_call $((16 * 1024 * 1024))
	assert_success
	assert_output '{"parameters":{"ifnames":["soft0"]}}'
}

@test "a message over 16 MiB closes the connection; the daemon goes on" {
	run big_call $((16 * 1024 * 1024 + 1))
	assert_success
	assert_output ''
	assert_daemon_serves
}

@test "a client that vanishes mid-call does not disturb the daemon" {
	python3 - "$RDMACTL_SOCKET" <<'PY'
import socket, struct, sys
for i in range(20):
    s = socket.socket(socket.AF_UNIX)
    s.connect(sys.argv[1])
    s.sendall(b'{"method":"io.rdmad.Device.Show"}\0' * 50 + b'{"method":"io.rdmad.Dev')
    # Reset instead of an orderly close, with replies unread.
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.close()
PY
	assert_daemon_serves
}

@test "over the connection limit a client is refused and the others go on" {
	python3 - "$RDMACTL_SOCKET" <<'PY'
import socket, sys
path = sys.argv[1]
def call(s):
    try:
        s.sendall(b'{"method":"io.rdmad.Device.List"}\0')
    except (BrokenPipeError, ConnectionResetError):
        return None
    data = b""
    while not data.endswith(b"\0"):
        try:
            chunk = s.recv(4096)
        except ConnectionResetError:
            return None
        if not chunk:
            return None
        data += chunk
    return data
held = []
for i in range(8):          # max_connections = 8; root has no per-uid limit (limits.bats)
    s = socket.socket(socket.AF_UNIX); s.connect(path)
    assert call(s) is not None, "connection %d refused too early" % i
    held.append(s)
extra = socket.socket(socket.AF_UNIX); extra.connect(path)
assert call(extra) is None, "the ninth connection was served"
for s in held:
    assert call(s) is not None, "a held connection stopped being served"
for s in held:
    s.close()
PY
	assert_daemon_serves
}
