#!/usr/bin/env bats
# make check runs this file alone: network namespaces, veths or TAPs, with names of their own.
# vdevs against a real rdmad: the vhost-user sockets rdmad serves VMs on, one
# front end at a time, kept across restarts and crashes, in apply and dump.
# A front end here is a plain unix socket client (python3): what the session
# does with it is the device's, tested with the device.

load helper

setup_file() { rdmad_start; }
teardown_file() { rdmad_stop; }
# The persistence tests' own daemon, if one failed half-way.
teardown() {
	rdmad_stop "$BATS_TEST_TMPDIR/d" || true
	[ -z "${MONITOR:-}" ] || monitor_stop "$MONITOR"
	[ ! -e "$BATS_TEST_TMPDIR/fe.pid" ] || kill "$(cat "$BATS_TEST_TMPDIR/fe.pid")" 2>/dev/null || true
	"$RDMACTL" vdev destroy "${VDEV:-none}" 2>/dev/null || true
}

setup() {
	load_libs
	cd "$BATS_TEST_TMPDIR"
	S=$BATS_TEST_TMPDIR
}

vdev_json() {
	"$RDMACTL" -j vdev show "$1" | jq -c ".[0]$2"
}
assert_refused() { # ERROR FIELD
	assert_failure "$(refusal_status "$1")"
	assert_output --partial "io.rdmad.Vdev.$1: field '$2'"
}
# front_end SOCKET: a front end that connects and stays until its stdin closes
# (front_end_close), saying "eof" when rdmad ends the connection; its pid in fe.pid.
front_end() {
	local line pid
	coproc FE { exec python3 -c '
import os, select, socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
print("connected", os.getpid(), flush=True)
watch = [sys.stdin, s]
while True:
    for f in select.select(watch, [], [])[0]:
        if f is sys.stdin:
            if not sys.stdin.read(1):
                sys.exit(0)
        elif not s.recv(4096):
            print("eof", flush=True)
            watch.remove(s)
' "$1"; }
	read -r line pid <&"${FE[0]}"
	echo "$pid" >"$BATS_TEST_TMPDIR/fe.pid"
	[ "$line" = connected ]
}
front_end_close() {
	exec {FE[1]}>&-
	wait "$FE_PID" 2>/dev/null || true
	rm -f "$BATS_TEST_TMPDIR/fe.pid"
}
# wait_state NAME STATE
wait_state() {
	for i in $(seq 1 100); do
		[ "$(vdev_json "$1" .state)" = "\"$2\"" ] && return 0
		sleep 0.05
	done
	vdev_json "$1" >&2
	return 1
}

@test "create: the socket listens (0660), list and show in text and -j, defaults" {
	VDEV=vm1
	run "$RDMACTL" vdev create vm1 --socket "$S/vm1.sock"
	assert_success
	assert_line --index 0 --regexp "^vdev: ifname soft0 ifindex 0 name vm1 socket $S/vm1.sock mac [0-9a-f:]{17} tap - max_qps 64 max_cqs 64 state listening front_end - accepted 0 refused 0$"
	[ -S "$S/vm1.sock" ]
	[ "$(stat -c %a "$S/vm1.sock")" = 660 ]
	run "$RDMACTL" vdev list
	assert_success
	assert_line --regexp "^vdev: ifname soft0 name vm1 socket $S/vm1.sock mac [0-9a-f:]{17} state listening accepted 0 refused 0$"
	[ "$(echo "$output" | wc -l)" -eq 1 ]
	run vdev_json vm1 '| [.name, .socket, .tap, .max_qps, .max_cqs, .state, .front_end, .accepted, .refused, .virtio]'
	assert_output "[\"vm1\",\"$S/vm1.sock\",null,64,64,\"listening\",null,0,0,{}]"
	# The MAC is derived from the name: locally administered, unicast, and as documented.
	mac=$(python3 -c 'import hashlib; d = bytearray(hashlib.sha256(b"rdmad vdev vm1").digest()[:6]); d[0] = (d[0] & 0xfc) | 2; print(":".join("%02x" % b for b in d))')
	assert_equal "$(vdev_json vm1 .mac)" "\"$mac\""
	run "$RDMACTL" -j vdev list
	assert_equal "$(jq -c '[.[].name]' <<<"$output")" '["vm1"]'
	"$RDMACTL" vdev destroy vm1
	[ ! -e "$S/vm1.sock" ]
	run "$RDMACTL" -j vdev list
	assert_output '[]'
}

@test "create with --mac, --max-qps, --max-cqs keeps them" {
	VDEV=vm2
	run "$RDMACTL" -j vdev create vm2 --socket "$S/vm2.sock" --mac 52:54:00:AB:cd:01 --max-qps 120 --max-cqs 13
	assert_success
	assert_equal "$(jq -c '.[0] | [.mac, .max_qps, .max_cqs]' <<<"$output")" '["52:54:00:ab:cd:01",120,13]'
}

@test "bad input per field: exit status, the field named with what is allowed, nothing made" {
	long=/tmp/$(printf 'x%.0s' $(seq 1 110))
	run "$RDMACTL" vdev create 'bad/name' --socket "$S/a.sock"
	assert_refused InvalidArgument name
	assert_output --partial "1 to 31 letters, digits, '_' or '-'"
	run "$RDMACTL" vdev create "$(printf 'n%.0s' $(seq 1 32))" --socket "$S/a.sock"
	assert_refused InvalidArgument name
	run "$RDMACTL" vdev create a --socket relative.sock
	assert_refused InvalidArgument socket
	assert_output --partial "an absolute path"
	run "$RDMACTL" vdev create a --socket "$long"
	assert_refused InvalidArgument socket
	assert_output --partial "at most 107 bytes"
	run "$RDMACTL" vdev create a --socket "$S/../a.sock"
	assert_refused InvalidArgument socket
	run "$RDMACTL" vdev create a --socket "$S/no-such-dir/a.sock"
	assert_refused InvalidArgument socket
	assert_output --partial "a path in a directory rdmad can write"
	: >"$S/plain"
	run "$RDMACTL" vdev create a --socket "$S/plain"
	assert_refused InvalidArgument socket
	assert_output --partial "it is a file of another type"
	run "$RDMACTL" vdev create a --socket "$S/a.sock" --mac 01:00:5e:00:00:01
	assert_refused InvalidArgument mac
	assert_output --partial "a unicast MAC address"
	run "$RDMACTL" vdev create a --socket "$S/a.sock" --mac 52:54:00:zz:00:01
	assert_refused InvalidArgument mac
	run "$RDMACTL" vdev create a --socket "$S/a.sock" --tap "abcdefghijklmnop"
	assert_refused InvalidArgument tap
	assert_output --partial "1 to 15 letters"
	run "$RDMACTL" vdev create a --socket "$S/a.sock" --tap "a/b"
	assert_refused InvalidArgument tap
	for v in 2 126; do
		run "$RDMACTL" vdev create a --socket "$S/a.sock" --max-qps $v
		assert_refused InvalidArgument max_qps
		assert_output --partial "from 3 to 125"
	done
	for v in 1 248; do
		run "$RDMACTL" vdev create a --socket "$S/a.sock" --max-cqs $v
		assert_refused InvalidArgument max_cqs
		assert_output --partial "from 2 to 247"
	done
	# Each in range, but 3 + 64 + 2 x 100 queues pass the 256 vhost-user numbers.
	run "$RDMACTL" vdev create a --socket "$S/a.sock" --max-qps 100
	assert_refused InvalidArgument max_qps
	assert_output --partial "3 + max_cqs + 2 x max_qps = 267 virtqueues; vhost-user numbers 256 at most"
	run "$RDMACTL" -j vdev list
	assert_output '[]'
	[ ! -e "$S/a.sock" ]
	run "$RDMACTL" vdev show nope
	assert_failure 1
	assert_output --partial "io.rdmad.Vdev.NoSuchVdev: name 'nope'"
	run "$RDMACTL" vdev destroy nope
	assert_failure 1
	assert_output --partial "io.rdmad.Vdev.NoSuchVdev: name 'nope'"
}

@test "a name or socket in use is refused: VdevExists, SocketInUse naming who has it" {
	VDEV=vm3
	"$RDMACTL" vdev create vm3 --socket "$S/vm3.sock" >/dev/null
	run "$RDMACTL" vdev create vm3 --socket "$S/other.sock"
	assert_failure 1
	assert_output --partial "io.rdmad.Vdev.VdevExists: name 'vm3'"
	run "$RDMACTL" vdev create vm4 --socket "$S/vm3.sock"
	assert_failure 1
	assert_output --partial "io.rdmad.Vdev.SocketInUse: socket '$S/vm3.sock', reason 'vdev vm3's socket'"
	run "$RDMACTL" vdev create vm4 --socket "$RDMACTL_SOCKET"
	assert_failure 1
	assert_output --partial "reason 'rdmad's own varlink socket'"
	# Something else answering on a path: not taken over.
	python3 -c 'import socket, sys, time; s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(); time.sleep(3)' "$S/busy.sock" &
	for i in $(seq 1 50); do [ -S "$S/busy.sock" ] && break; sleep 0.05; done
	run "$RDMACTL" vdev create vm4 --socket "$S/busy.sock"
	assert_failure 1
	assert_output --partial "io.rdmad.Vdev.SocketInUse: socket '$S/busy.sock', reason 'something answers on it'"
	kill %1 || true
	run "$RDMACTL" -j vdev list
	assert_equal "$(jq -c '[.[].name]' <<<"$output")" '["vm3"]'
}

@test "a stale socket file nobody answers on is replaced" {
	VDEV=vm5
	python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$S/stale.sock"
	[ -S "$S/stale.sock" ]
	run "$RDMACTL" vdev create vm5 --socket "$S/stale.sock"
	assert_success
	python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).connect(sys.argv[1])' "$S/stale.sock"
}

@test "a front end connects: connected with its pid and a Monitor event; it goes: listening, and it reconnects" {
	VDEV=vm6
	MONITOR=$S/mon
	monitor_start "$MONITOR" -j monitor
	"$RDMACTL" vdev create vm6 --socket "$S/vm6.sock" >/dev/null
	front_end "$S/vm6.sock"
	pid=$(cat "$S/fe.pid")
	wait_state vm6 connected
	run vdev_json vm6 '| [.state, .front_end.pid, .front_end.uid, .front_end.comm, .accepted]'
	assert_output "[\"connected\",$pid,0,\"python3\",1]"
	run "$RDMACTL" vdev show vm6
	assert_output --regexp "state connected"
	run "$RDMACTL" status
	assert_line --regexp "^ *vdevs: vm6 connected $S/vm6.sock pid $pid \(python3\)$"
	run "$RDMACTL" -j status
	assert_equal "$(jq -c ".device_status[0].vdevs[] | select(.name == \"vm6\") | [.state, .front_end.pid]" <<<"$output")" "[\"connected\",$pid]"
	front_end_close
	wait_state vm6 listening
	assert_equal "$(vdev_json vm6 .front_end)" null
	# Reconnectable.
	front_end "$S/vm6.sock"
	wait_state vm6 connected
	assert_equal "$(vdev_json vm6 .accepted)" 2
	front_end_close
	wait_state vm6 listening
	"$RDMACTL" vdev destroy vm6
	wait_for_lines "$MONITOR" 7
	run jq -r 'select(.kind == "vdev") | "\(.type) \(.name) \(.front_end.pid // "-")"' "$MONITOR"
	assert_equal "$(head -3 <<<"$output")" "vdev_created vm6 -
vdev_connected vm6 $pid
vdev_disconnected vm6 $pid"
	assert_equal "$(tail -1 <<<"$output")" "vdev_destroyed vm6 -"
	assert_equal "$(grep -c . <<<"$output")" 6
}

@test "a second front end while one is served is closed at once and counted" {
	VDEV=vm7
	"$RDMACTL" vdev create vm7 --socket "$S/vm7.sock" >/dev/null
	front_end "$S/vm7.sock"
	wait_state vm7 connected
	pid=$(cat "$S/fe.pid")
	# The second one reads the end of its connection at once.
	run python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.settimeout(5)
print("closed" if s.recv(1) == b"" else "open")
' "$S/vm7.sock"
	assert_output closed
	run vdev_json vm7 '| [.state, .front_end.pid, .accepted, .refused]'
	assert_output "[\"connected\",$pid,1,1]"
	front_end_close
}

@test "destroy while a front end is connected ends its session and removes the socket" {
	"$RDMACTL" vdev create vm8 --socket "$S/vm8.sock" >/dev/null
	front_end "$S/vm8.sock"
	wait_state vm8 connected
	"$RDMACTL" vdev destroy vm8
	[ ! -e "$S/vm8.sock" ]
	# The front end sees its connection end.
	read -t 5 -r line <&"${FE[0]}"
	assert_equal "$line" eof
	front_end_close
	run "$RDMACTL" -j vdev list
	assert_output '[]'
}

@test "--tap: the TAP exists as long as the vdev, carrier on while a front end is connected" {
	[ -c /dev/net/tun ] || skip "no /dev/net/tun"
	VDEV=vm9
	tap=vdt$$
	run "$RDMACTL" -j vdev create vm9 --socket "$S/vm9.sock" --tap "$tap"
	assert_success
	ifindex=$(jq -r '.[0].tap.ifindex' <<<"$output")
	assert_equal "$(jq -r '.[0].tap.netdev' <<<"$output")" "$tap"
	run ip -j link show "$tap"
	assert_success
	assert_equal "$(jq -r '.[0].ifindex' <<<"$output")" "$ifindex"
	ip link set "$tap" up
	assert_equal "$(cat /sys/class/net/$tap/carrier)" 0
	front_end "$S/vm9.sock"
	wait_state vm9 connected
	assert_equal "$(cat /sys/class/net/$tap/carrier)" 1
	front_end_close
	wait_state vm9 listening
	assert_equal "$(cat /sys/class/net/$tap/carrier)" 0
	# A second vdev may not have it, nor may an interface that exists.
	run "$RDMACTL" vdev create vm10 --socket "$S/vm10.sock" --tap "$tap"
	assert_refused InvalidArgument tap
	run "$RDMACTL" vdev create vm10 --socket "$S/vm10.sock" --tap lo
	assert_refused InvalidArgument tap
	assert_output --partial "lo exists"
	"$RDMACTL" vdev destroy vm9
	run ip link show "$tap"
	assert_failure
}

@test "vdevs survive a restart and kill -9: listening again on their sockets, as they were" {
	D=$BATS_TEST_TMPDIR/d
	rdmad_start "$D"
	"$RDMACTL" vdev create keep --socket "$D/keep.sock" --mac 52:54:00:00:00:07 --max-qps 3 >/dev/null
	"$RDMACTL" vdev create gone --socket "$D/gone.sock" >/dev/null
	"$RDMACTL" vdev destroy gone
	before=$("$RDMACTL" -j vdev list | jq -c '[.[] | [.name, .socket, .mac, .max_qps, .max_cqs]]')
	assert_equal "$before" "[[\"keep\",\"$D/keep.sock\",\"52:54:00:00:00:07\",3,64]]"
	jq -e '.vdev.soft0 | length == 1' "$D/state/vdev.json"
	rdmad_stop "$D"
	rdmad_start "$D"
	assert_equal "$("$RDMACTL" -j vdev list | jq -c '[.[] | [.name, .socket, .mac, .max_qps, .max_cqs]]')" "$before"
	python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).connect(sys.argv[1])' "$D/keep.sock"
	# A crash leaves the socket file: nobody answers on it, so it is replaced.
	rdmad_kill9 "$D"
	[ -S "$D/keep.sock" ]
	rdmad_start "$D"
	assert_equal "$("$RDMACTL" -j vdev list | jq -c '[.[] | [.name, .socket, .mac, .max_qps, .max_cqs]]')" "$before"
	front_end "$D/keep.sock"
	RDMACTL_SOCKET=$D/io.rdmad wait_state keep connected
	front_end_close
	rdmad_stop "$D"
	# Stopped, rdmad removes the socket files it made.
	[ ! -e "$D/keep.sock" ]
}

@test "apply creates and re-creates vdevs, undoes them when a later change fails; dump round-trips" {
	cat >want.json <<-EOF
	{"version": 1, "devices": {"soft0": {"vdevs": [
	  {"name": "pa", "socket": "$S/pa.sock", "max_qps": 5},
	  {"name": "pb", "socket": "$S/pb.sock", "mac": "52:54:00:00:00:0b"}]}}}
	EOF
	run "$RDMACTL" apply want.json
	assert_success
	assert_line "changed: soft0: vdev pa: create (socket $S/pa.sock, 5 QPs, 64 CQs)"
	assert_line "2 changes made"
	"$RDMACTL" dump >dump.json
	run jq -c '.devices.soft0.vdevs | map([.name, .socket, .max_qps, .max_cqs])' dump.json
	assert_output "[[\"pa\",\"$S/pa.sock\",5,64],[\"pb\",\"$S/pb.sock\",64,64]]"
	# What dump printed, applied again, changes nothing.
	run "$RDMACTL" apply dump.json
	assert_success
	assert_output --partial "no change"
	# pa differs: made again; pc takes pb's socket: refused, and pa is undone.
	jq '.devices.soft0.vdevs[0].max_qps = 6 | .devices.soft0.vdevs += [{"name": "pc", "socket": "'"$S"'/pb.sock"}]' \
		dump.json >bad.json
	run "$RDMACTL" apply bad.json
	assert_failure
	assert_output --partial "io.rdmad.Vdev.SocketInUse"
	assert_output --partial "devices.soft0.vdevs[2]"
	assert_equal "$("$RDMACTL" -j vdev show pa | jq -c '.[0].max_qps')" 5
	run "$RDMACTL" -j vdev list
	assert_equal "$(jq -c '[.[].name]' <<<"$output")" '["pb","pa"]'
	jq '.devices.soft0.vdevs[0].max_qps = 6' dump.json >good.json
	run "$RDMACTL" -j apply good.json
	assert_success
	assert_equal "$(jq -c '.changes | map([.kind, .action, .name, .from.max_qps, .to.max_qps])' <<<"$output")" \
		'[["vdev","recreate","pa",5,6]]'
	assert_equal "$("$RDMACTL" -j vdev show pa | jq -c '.[0].max_qps')" 6
	# The file is checked before anything is asked.
	echo '{"version": 1, "devices": {"soft0": {"vdevs": [{"name": "x", "socket": "/x", "max_qps": 0}]}}}' >zero.json
	run "$RDMACTL" apply zero.json
	assert_failure 2
	assert_output --partial "devices.soft0.vdevs[0].max_qps"
	"$RDMACTL" vdev destroy pa
	"$RDMACTL" vdev destroy pb
}

@test "completion offers vdev names" {
	VDEV=vmc
	"$RDMACTL" vdev create vmc --socket "$S/vmc.sock" >/dev/null
	run "$RDMACTL" __complete vdev show vm
	assert_line vmc
}
