#!/usr/bin/env bats
# make check runs this file alone: users and groups of the system.
# rdmad under hostile and heavy clients (rdmad.conf(5) "Connections"): an
# unfinished message, replies left unread, the buffers' budget, connection
# limits per uid and root's reserve, idle connections of users other than
# root, a NUL in a method name, and key text that does not outlive its call.
# Limits are small here so that each test takes a few seconds at most.

load helper
load users-helper
load core-helper

A_USER=rdmad-limits-a   # in group rdma
B_USER=rdmad-limits-b

setup_file() {
	command -v setpriv >/dev/null || skip "setpriv missing"
	users_make "$A_USER" "$B_USER"
	D=$(shared_dir limits)
	cat >"$D/rdmad.conf" <<-EOF
	max_connections = 24
	max_connections_per_uid = 10
	connections_reserved_for_root = 4
	connection_output_budget = 65536
	connection_output_timeout = 1
	connection_incomplete_timeout = 1
	connection_buffer_budget = 8388608
	EOF
	rdmad_start "$D"
	chmod 0666 "$D/io.rdmad"
}

teardown_file() {
	D=$(cat "$BATS_FILE_TMPDIR/dir" 2>/dev/null) || return 0
	rdmad_stop "$D"
	rm -rf "$D"
	users_remove "$A_USER" "$B_USER"
}

setup() {
	load_libs
	D=$(cat "$BATS_FILE_TMPDIR/dir")
	export RDMACTL_SOCKET="$D/io.rdmad"
	HOG="$BUILD/tools/varlink-hog"
}

# A test that failed leaves the daemon it started for itself (bats would wait
# for it), and the clients it started in the background, whose connections the
# next test would count.
teardown() {
	rdmad_stop "$D/shares" || true
	rdmad_stop "$D/idle" || true
	jobs -p | xargs -r kill 2>/dev/null || true
	wait 2>/dev/null || true
}

# counter NAME: a field of the status's connections object.
counter() {
	"$RDMACTL" -j status | python3 -c 'import json,sys; print(json.load(sys.stdin)["connections"][sys.argv[1]])' "$1"
}

# rss: rdmad's resident memory in KiB.
rss() {
	awk '/^VmRSS:/ { print $2 }' "/proc/$(cat "$D/rdmad.pid")/status"
}

# value KEY FILE: the number after KEY in the hog's report.
value() {
	awk -v k="$1" '$1 == k { print $2 }' "$2"
}

# wait_for_line FILE PATTERN: until the background hog has said it.
wait_for_line() {
	for i in $(seq 1 200); do
		grep -q "$2" "$1" && return 0
		sleep 0.05
	done
	cat "$1" >&2
	return 1
}

@test "status: connections are one object, the limits in force and the counters" {
	run "$RDMACTL" -j status
	assert_success
	# The buffer shares the file leaves out: a quarter and an eighth of the budget.
	assert_output --regexp '"connections":\{"open":[0-9]+,"max":24,"max_per_uid":10,"reserved_for_root":4,"buffered_bytes":[0-9]+,"buffer_budget":8388608,"buffer_budget_per_uid":2097152,"buffer_reserved_for_root":1048576,"refused_limit":[0-9]+,"refused_memory_budget":[0-9]+,"refused_buffer_per_uid":[0-9]+,"closed_output_budget":[0-9]+,"closed_incomplete_timeout":[0-9]+,"closed_idle":[0-9]+\}'
	# Text: one line, nothing cut.
	run "$RDMACTL" status
	assert_success
	assert_line --regexp '^ *connections: open [0-9]+ max 24 max_per_uid 10 reserved_for_root 4 buffered_bytes [0-9]+ buffer_budget 8388608 buffer_budget_per_uid 2097152 buffer_reserved_for_root 1048576 refused_limit [0-9]+ refused_memory_budget [0-9]+ refused_buffer_per_uid [0-9]+ closed_output_budget [0-9]+ closed_incomplete_timeout [0-9]+ closed_idle [0-9]+$'
}

@test "reload applies new limits; an impossible reserve is refused and changes nothing" {
	cp "$D/rdmad.conf" "$BATS_TEST_TMPDIR/saved"
	sed -i 's/^max_connections_per_uid = 10$/max_connections_per_uid = 9/' "$D/rdmad.conf"
	"$RDMACTL" daemon reload
	assert_equal "$(counter max_per_uid)" 9
	echo "connections_reserved_for_root = 24" >>"$D/rdmad.conf"
	run --separate-stderr "$RDMACTL" daemon reload
	assert_failure 1
	assert_regex "$stderr" "connections_reserved_for_root \(24\) must be less than max_connections \(24\)"
	assert_equal "$(counter reserved_for_root)" 4
	cp "$BATS_TEST_TMPDIR/saved" "$D/rdmad.conf"
	"$RDMACTL" daemon reload
	assert_equal "$(counter max_per_uid)" 10
}

@test "reload: buffer shares that cannot be are refused naming the setting, and change nothing" {
	cp "$D/rdmad.conf" "$BATS_TEST_TMPDIR/saved"
	echo "connection_buffer_reserved_for_root = 8388608" >>"$D/rdmad.conf"
	run --separate-stderr "$RDMACTL" daemon reload
	assert_failure 1
	assert_regex "$stderr" "connection_buffer_reserved_for_root \(8388608\) must be less than connection_buffer_budget \(8388608\)"
	cp "$BATS_TEST_TMPDIR/saved" "$D/rdmad.conf"
	echo "connection_buffer_budget_per_uid = 8388608" >>"$D/rdmad.conf"
	run --separate-stderr "$RDMACTL" daemon reload
	assert_failure 1
	assert_regex "$stderr" "connection_buffer_budget_per_uid \(8388608\) must be at most connection_buffer_budget \(8388608\) less connection_buffer_reserved_for_root \(1048576\)"
	cp "$BATS_TEST_TMPDIR/saved" "$D/rdmad.conf"
	echo "connection_buffer_budget_per_uid = 1000" >>"$D/rdmad.conf"
	run --separate-stderr "$RDMACTL" daemon reload
	assert_failure 1
	assert_regex "$stderr" "connection_buffer_budget_per_uid: '1000' is not a number of bytes in 65536-1099511627776"
	assert_equal "$(counter buffer_budget_per_uid)" 2097152
	assert_equal "$(counter buffer_reserved_for_root)" 1048576
	# Set, they apply; taken out again, they follow the budget again.
	cp "$BATS_TEST_TMPDIR/saved" "$D/rdmad.conf"
	printf 'connection_buffer_budget_per_uid = 3145728\nconnection_buffer_reserved_for_root = 0\n' >>"$D/rdmad.conf"
	"$RDMACTL" daemon reload
	assert_equal "$(counter buffer_budget_per_uid)" 3145728
	assert_equal "$(counter buffer_reserved_for_root)" 0
	cp "$BATS_TEST_TMPDIR/saved" "$D/rdmad.conf"
	"$RDMACTL" daemon reload
	assert_equal "$(counter buffer_budget_per_uid)" 2097152
	assert_equal "$(counter buffer_reserved_for_root)" 1048576
}

# One user's slow large messages once took the whole buffer budget, and
# root's large calls failed.  Here (8 MiB, 2.5 MiB per uid, 2 MiB root's)
# a user who sends 8 messages of 1 MB, each in a buffer of 1 MiB, holds 2;
# a second user still holds its 2; root writes 3 MB into an MR in calls of
# 1 MiB (base64 in buffers of 2 MiB) and reads them back.
@test "the buffer budget is shared: a user holds its share, another its own, root's large calls go through" {
	dir=$D/shares
	mkdir -p "$dir"
	chmod 0755 "$dir"
	cat >"$dir/rdmad.conf" <<-EOF
	connection_buffer_budget = 8388608
	connection_buffer_budget_per_uid = 2621440
	connection_buffer_reserved_for_root = 2097152
	EOF
	rdmad_start "$dir"
	chmod 0666 "$dir/io.rdmad"
	as "$A_USER" "$HOG" "$dir/io.rdmad" hold 8 6 1000000 >"$BATS_TEST_TMPDIR/a" 3>&- &
	a=$!
	wait_for_line "$BATS_TEST_TMPDIR/a" '^held'
	as "$B_USER" "$HOG" "$dir/io.rdmad" hold 2 6 1000000 >"$BATS_TEST_TMPDIR/b" 3>&- &
	b=$!
	wait_for_line "$BATS_TEST_TMPDIR/b" '^held'
	assert_equal "$(value held "$BATS_TEST_TMPDIR/a")" 2
	assert_equal "$(value held "$BATS_TEST_TMPDIR/b")" 2
	run "$RDMACTL" -s "$dir/io.rdmad" -j status
	assert_output --partial '"refused_memory_budget":0,"refused_buffer_per_uid":6,'
	assert_regex "$(cat "$dir/rdmad.log")" "would take the buffers of uid $(id -u "$A_USER") past its share of 2621440 bytes"
	"$RDMACTL" -s "$dir/io.rdmad" pd create >/dev/null
	mr=$("$RDMACTL" -s "$dir/io.rdmad" -j mr create 1 --size 3000000 --access local_write | jq -r '.[0].handle')
	head -c 3000000 /dev/urandom >"$BATS_TEST_TMPDIR/bytes"
	"$RDMACTL" -s "$dir/io.rdmad" mr write "$mr" <"$BATS_TEST_TMPDIR/bytes"
	"$RDMACTL" -s "$dir/io.rdmad" mr read "$mr" >"$BATS_TEST_TMPDIR/back"
	cmp "$BATS_TEST_TMPDIR/bytes" "$BATS_TEST_TMPDIR/back"
	# The users' connections were not disturbed by root's calls.
	wait "$a" "$b"
	assert_equal "$(value open "$BATS_TEST_TMPDIR/a")" 2
	assert_equal "$(value open "$BATS_TEST_TMPDIR/b")" 2
	for i in $(seq 1 100); do
		[ "$("$RDMACTL" -s "$dir/io.rdmad" -j status | jq .connections.buffered_bytes)" -lt 1048576 ] && break
		sleep 0.05
	done
	[ "$("$RDMACTL" -s "$dir/io.rdmad" -j status | jq .connections.buffered_bytes)" -lt 1048576 ]
	rdmad_stop "$dir"
}

@test "a message left unfinished is closed after connection_incomplete_timeout; the memory comes back" {
	before=$(counter closed_incomplete_timeout)
	rss0=$(rss)
	"$HOG" "$RDMACTL_SOCKET" partial 4000000 5 >"$BATS_TEST_TMPDIR/hog" 3>&- &
	wait_for_line "$BATS_TEST_TMPDIR/hog" '^sent 4000000$'
	rss1=$(rss)
	wait
	closed=$(value closed_after_ms "$BATS_TEST_TMPDIR/hog")
	[ -n "$closed" ] && [ "$closed" -ge 500 ] && [ "$closed" -le 3000 ]
	assert_equal "$(counter closed_incomplete_timeout)" $((before + 1))
	rss2=$(rss)
	echo "RSS $rss0 KiB before, $rss1 with the message, $rss2 after"
	[ "$rss1" -ge $((rss0 + 3000)) ]
	[ "$rss2" -le $((rss1 - 3000)) ]
	assert_daemon_serves
}

@test "a message that would pass connection_buffer_budget is refused at once" {
	before=$(counter refused_memory_budget)
	run "$HOG" "$RDMACTL_SOCKET" partial 16000000 5
	assert_success
	sent=$(echo "$output" | awk '$1 == "sent" { print $2 }')
	closed=$(echo "$output" | awk '$1 == "closed_after_ms" { print $2 }')
	# Cut off near the budget, and before the incomplete timeout.
	[ "$sent" -lt 16000000 ]
	[ -n "$closed" ] && [ "$closed" -lt 500 ]
	assert_equal "$(counter refused_memory_budget)" $((before + 1))
	assert_daemon_serves
	[ "$(counter buffered_bytes)" -lt 1048576 ]
}

@test "a client that pipelines and never reads is no longer read, others are served, then it is closed" {
	before=$(counter closed_output_budget)
	"$HOG" "$RDMACTL_SOCKET" pipeline 20000 5 >"$BATS_TEST_TMPDIR/hog" 3>&- &
	wait_for_line "$BATS_TEST_TMPDIR/hog" '^sent '
	# The daemon took what the socket holds and one budget of replies, not 20000 calls.
	read -r _ sent _ total <"$BATS_TEST_TMPDIR/hog"
	[ "$sent" -lt $((total / 4)) ]
	assert_daemon_serves
	wait
	closed=$(value closed_after_ms "$BATS_TEST_TMPDIR/hog")
	[ -n "$closed" ] && [ "$closed" -ge 500 ] && [ "$closed" -le 3500 ]
	assert_equal "$(counter closed_output_budget)" $((before + 1))
	assert_regex "$(cat "$D/rdmad.log")" "left over 65536 bytes of replies unread for 1 s, closing"
}

@test "users other than root get max_connections_per_uid each and never root's reserve" {
	refused=$(counter refused_limit)
	logged=$(grep -c "connection limit reached" "$D/rdmad.log" || true)
	as "$A_USER" "$HOG" "$RDMACTL_SOCKET" connect 12 4 >"$BATS_TEST_TMPDIR/a" 3>&- &
	wait_for_line "$BATS_TEST_TMPDIR/a" '^answered'
	as "$B_USER" "$HOG" "$RDMACTL_SOCKET" connect 12 3 >"$BATS_TEST_TMPDIR/b" 3>&- &
	wait_for_line "$BATS_TEST_TMPDIR/b" '^answered'
	# 10 each: per uid for the first, the 20 of 24 others may take for the second.
	assert_equal "$(value answered "$BATS_TEST_TMPDIR/a")" 10
	assert_equal "$(value answered "$BATS_TEST_TMPDIR/b")" 10
	# Root is still served, and may take the last 4 (once the daemon saw that one go).
	run "$RDMACTL" status
	assert_success
	sleep 0.3
	run "$HOG" "$RDMACTL_SOCKET" connect 5 0
	assert_line "answered 4"
	wait
	assert_equal "$(counter refused_limit)" $((refused + 2 + 2 + 1))
	# The first refusal is logged; the journal gets one such line a second at most.
	assert_regex "$(cat "$D/rdmad.log")" "connection limit reached, refusing pid [0-9]+ uid $(id -u "$A_USER") \\([0-9]+ refused in all\\)"
	now=$(grep -c "connection limit reached" "$D/rdmad.log")
	[ "$now" -gt "$logged" ] && [ "$now" -le $((logged + 2)) ]
}

@test "idle connections of users other than root are closed; root's and a monitor's stay; the shell reconnects" {
	dir=$D/idle
	mkdir -p "$dir"
	chmod 0755 "$dir"
	echo "connection_idle_timeout = 1" >"$dir/rdmad.conf"
	rdmad_start "$dir"
	chmod 0666 "$dir/io.rdmad"
	as "$A_USER" "$RDMACTL" -s "$dir/io.rdmad" -j monitor >"$BATS_TEST_TMPDIR/monitor" 2>&1 3>&- &
	monitor=$!
	wait_for_line "$BATS_TEST_TMPDIR/monitor" subscribed
	as "$B_USER" "$HOG" "$dir/io.rdmad" connect 3 2.5 >"$BATS_TEST_TMPDIR/b" 3>&- &
	b=$!
	run "$HOG" "$dir/io.rdmad" connect 3 2.5
	assert_line "answered 3"
	assert_line "open 3"
	wait "$b"
	assert_equal "$(value answered "$BATS_TEST_TMPDIR/b")" 3
	assert_equal "$(value open "$BATS_TEST_TMPDIR/b")" 0
	# The monitor's call is in progress: it is not idle.
	kill -0 "$monitor"
	kill "$monitor"
	run "$RDMACTL" -s "$dir/io.rdmad" -j status
	assert_output --partial '"closed_idle":3}'
	# The shell finds its connection closed and opens another.
	run --separate-stderr as "$A_USER" sh -c "(echo status; sleep 1.6; echo status) | \"\$0\" -s \"\$1\" -i" \
		"$RDMACTL" "$dir/io.rdmad"
	assert_success
	assert_equal "$(grep -c 'version: ' <<<"$output")" 2
	# Only the prompts and their echo (on stderr, never stdout): no error.
	assert_equal "$(grep -v '^rdmactl>' <<<"$stderr")" ''
	rdmad_stop "$dir"
}

@test "a method name with a NUL in it breaks the protocol: no reply, the connection is closed" {
	run varlink_raw '{"method":"io.rdmad.Device.List"}\0{"method":"io.rdmad.Device.Show\\u0000junk","parameters":{"ifname":"soft0"}}\0{"method":"io.rdmad.Device.List"}\0'
	assert_success
	assert_output '{"parameters":{"ifnames":["soft0"]}}'
	assert_daemon_serves
}

# The key of a DEK given as base64 text, by raw varlink, must be nowhere in
# the daemon's memory once the DEK is destroyed and the connection closed:
# neither its text nor its bytes.
@test "key text and key bytes are gone from the daemon's memory after create, list, destroy" {
	core_skip_unless_possible
	run python3 - "$RDMACTL_SOCKET" <<'PY'
import base64, json, os, socket, sys
path = sys.argv[1]
# Two different halves, and a '/' in the text, sent as "\/" (json-c's tokener
# then gathers the string in pieces).
while True:
    key = os.urandom(32)
    text = base64.b64encode(key).decode()
    if key[:16] != key[16:] and "/" in text:
        break
s = socket.socket(socket.AF_UNIX)
s.connect(path)
def call(method, params):
    msg = json.dumps({"method": method, "parameters": params})
    s.sendall(msg.replace(text, text.replace("/", "\\/")).encode() + b"\0")
    reply = b""
    while not reply.endswith(b"\0"):
        reply += s.recv(65536)
    return reply.decode()
print(call("io.rdmad.Dek.Create", {"name": "coretest", "size": 128, "key": text}))
# Refused before the method runs: the text must go all the same.
print(call("io.rdmad.Dek.Create", {"name": "coretest2", "size": "128", "key": text}))
print(call("io.rdmad.Dek.List", {}))
print(call("io.rdmad.Dek.Destroy", {"name": "coretest"}))
s.close()
for name, needle in (("text", text.encode()), ("escaped-text", text.replace("/", "\\/").encode()),
                     ("bytes", key), ("key1", key[:16]), ("key2", key[16:])):
    print("%s=%s" % (name, needle.hex()))
PY
	assert_success
	assert_line --index 0 --partial '{"parameters":{"dek":{'
	assert_line --index 1 '{"error":"org.varlink.service.InvalidParameter","parameters":{"parameter":"size"}}'
	assert_line --index 3 '{"parameters":{}}'
	mapfile -t needles < <(tail -n 5 <<<"$output")
	core_take "$(cat "$D/rdmad.pid")" "$BATS_TEST_TMPDIR/core"
	run core_count "$BATS_TEST_TMPDIR/core" "${needles[@]}"
	rm -f "$BATS_TEST_TMPDIR/core"
	assert_success
	for what in text escaped-text bytes key1 key2; do
		assert_line "$what 0"
	done
	assert_daemon_serves
}
