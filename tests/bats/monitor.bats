#!/usr/bin/env bats
# io.rdmad.Monitor and rdmactl monitor: events stream as they happen.

load helper
load qp-helper

# PD 1 and GID 0 for the QPs that move data.
setup_file() { datapath_start; }
teardown_file() { rdmad_stop; }
setup() { load_libs; }


@test "monitor -j streams object and QP state events as JSON lines" {
	out=$BATS_TEST_TMPDIR/events
	monitor_start "$out" -j monitor
	pd=$("$RDMACTL" -j pd create | sed -n 's/.*"handle":\([0-9]*\).*/\1/p')
	cq=$("$RDMACTL" -j cq create --cqe 16 | sed -n 's/.*"handle":\([0-9]*\).*/\1/p')
	qp=$("$RDMACTL" -j qp create --pd "$pd" --send-cq "$cq" --recv-cq "$cq" --type ud | sed -n 's/.*"handle":\([0-9]*\).*/\1/p')
	"$RDMACTL" qp modify "$qp" --state init --qkey 7
	"$RDMACTL" qp destroy "$qp"
	wait_for_lines "$out" 6
	monitor_stop "$out"
	run cat "$out"
	assert_line --index 0 --regexp '^\{"type":"subscribed","time_usec":[0-9]+\}$'
	assert_line --index 1 --regexp "^\{\"type\":\"object_created\",\"time_usec\":[0-9]+,\"ifname\":\"soft0\",\"ifindex\":0,\"kind\":\"pd\",\"handle\":$pd\}$"
	assert_line --index 2 --regexp "\"type\":\"object_created\".*\"kind\":\"cq\",\"handle\":$cq\}$"
	assert_line --index 3 --regexp "\"type\":\"object_created\".*\"kind\":\"qp\",\"handle\":$qp\}$"
	assert_line --index 4 --regexp "\"type\":\"qp_state\".*\"kind\":\"qp\",\"handle\":$qp,\"old_state\":\"reset\",\"new_state\":\"init\"\}$"
	assert_line --index 5 --regexp "\"type\":\"object_destroyed\".*\"kind\":\"qp\",\"handle\":$qp\}$"
}

@test "monitor --type keeps only those events; text lines name type, object and fields" {
	out=$BATS_TEST_TMPDIR/events
	monitor_start "$out" monitor --type qp_state
	pd=$("$RDMACTL" -j pd create | sed -n 's/.*"handle":\([0-9]*\).*/\1/p')
	cq=$("$RDMACTL" -j cq create --cqe 16 | sed -n 's/.*"handle":\([0-9]*\).*/\1/p')
	qp=$("$RDMACTL" -j qp create --pd "$pd" --send-cq "$cq" --recv-cq "$cq" --type ud | sed -n 's/.*"handle":\([0-9]*\).*/\1/p')
	"$RDMACTL" qp modify "$qp" --state init --qkey 7
	"$RDMACTL" qp modify "$qp" --state err
	wait_for_lines "$out" 3
	monitor_stop "$out"
	run cat "$out"
	assert_equal "${#lines[@]}" 3
	assert_line --index 0 --regexp '^[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3} subscribed:$'
	assert_line --index 1 --regexp "^[0-9:.]+ qp_state qp $qp: ifname soft0 ifindex 0 old_state reset new_state init$"
	assert_line --index 2 --regexp "^[0-9:.]+ qp_state qp $qp: ifname soft0 ifindex 0 old_state init new_state err$"
}

@test "a CQ that overflows: monitor --type cq_error shows it once; the CQ stays in error" {
	out=$BATS_TEST_TMPDIR/events
	monitor_start "$out" -j monitor --type cq_error
	text=$BATS_TEST_TMPDIR/text
	monitor_start "$text" monitor --type cq_error
	M=$(new_mr 1 4096 local_write,remote_write,remote_read)
	CA=$(new_cq 1)
	CB=$(new_cq)
	A=$(new_qp "$CA")
	B=$(new_qp "$CB")
	connect "$A" "$B"
	connect "$B" "$A"
	# Three signaled WRITEs into a CQ of one entry, none polled.
	for id in 1 2 3; do
		"$RDMACTL" qp post "$A" write --sge "$M:0:4" --remote "$M:8" --wrid "$id" --signaled
	done
	wait_for_lines "$out" 2
	[ "$(qp_field "$A" state)" = err ]
	[ "$(qp_field "$A" datapath.cq_overflows)" = 2 ]
	run wc_fields "$("$RDMACTL" -j cq poll "$CA")"
	assert_output "1 success rdma_write 4 0 $A 0 "
	# Polled, it has room, yet takes no completion: another QP's is lost, that QP goes to ERR.
	C=$(new_qp "$CA")
	D=$(new_qp "$CB")
	connect "$C" "$D"
	connect "$D" "$C"
	"$RDMACTL" qp post "$C" write --sge "$M:0:4" --remote "$M:8" --wrid 9 --signaled
	for i in $(seq 1 50); do
		[ "$(qp_field "$C" state)" = err ] && break
		sleep 0.05
	done
	[ "$(qp_field "$C" state)" = err ]
	[ "$("$RDMACTL" -j cq poll "$CA")" = "[]" ]
	[ "$(qp_field "$C" datapath.cq_overflows)" = 1 ]
	monitor_stop "$out"
	monitor_stop "$text"
	# Once, for the CQ; the QPs' own events are qp_state ones.
	run jq -c 'select(.type != "subscribed") | [.type, .ifname, .kind, .handle]' "$out"
	assert_output "[\"cq_error\",\"soft0\",\"cq\",$CA]"
	run cat "$text"
	assert_equal "${#lines[@]}" 2
	assert_line --index 1 --regexp "^[0-9:.]+ cq_error cq $CA: ifname soft0 ifindex 0$"
}

@test "an unknown event type is a usage error; raw Subscribe without more is ExpectedMore" {
	run --separate-stderr "$RDMACTL" monitor --type bogus
	assert_failure 2
	assert_regex "$stderr" "monitor: --type: 'bogus' is not one of: object_created, "
	run varlink_raw '{"method":"io.rdmad.Monitor.Subscribe"}\0{"method":"io.rdmad.Monitor.Subscribe","more":true,"parameters":{"types":["nope"]}}\0'
	assert_line --index 0 '{"error":"org.varlink.service.ExpectedMore","parameters":{}}'
	assert_line --index 1 --partial '{"error":"io.rdmad.Monitor.InvalidArgument","parameters":{"field":"types","reason":"'"'"'nope'"'"' is not one of object_created, object_destroyed, qp_state,'
}

@test "a subscriber that goes away is dropped; others keep their stream" {
	a=$BATS_TEST_TMPDIR/a
	b=$BATS_TEST_TMPDIR/b
	monitor_start "$a" -j monitor
	monitor_start "$b" -j monitor
	monitor_stop "$a"
	sleep 0.2
	"$RDMACTL" pd create >/dev/null
	wait_for_lines "$b" 2
	monitor_stop "$b"
	assert_daemon_serves
	for i in $(seq 1 100); do
		"$RDMACTL" -j status | grep -q '"connections":{"open":1,' && break
		sleep 0.05
	done
	run "$RDMACTL" -j status
	assert_output --partial '"connections":{"open":1,'
}

@test "the monitor ends with exit 1 when the daemon stops" {
	dir=$BATS_TEST_TMPDIR/d2
	rdmad_start "$dir"
	out=$BATS_TEST_TMPDIR/events
	monitor_start "$out" -s "$dir/io.rdmad" monitor
	rdmad_stop "$dir"
	pid=$(cat "$out.pid")
	for i in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
	run kill -0 "$pid"
	assert_failure
	assert_file_contains "$out" "rdmactl: .*the daemon closed the connection"
	export RDMACTL_SOCKET=$BATS_FILE_TMPDIR/io.rdmad
}

@test "pool borrow, return and resize are pool events naming the pool and what changed, keys in hex" {
	"$RDMACTL" pool create mon --type signature --size 2 >/dev/null
	pool=$("$RDMACTL" -j pool show mon | jq -r '.[0].handle')
	out=$BATS_TEST_TMPDIR/events
	monitor_start "$out" monitor --type pool_borrow --type pool_return --type pool_resize
	json=$BATS_TEST_TMPDIR/events.json
	monitor_start "$json" -j monitor --type pool_borrow --type pool_return --type pool_resize
	key=$("$RDMACTL" pool borrow mon --owner watcher)
	# pool borrow prints the key as lists do: hex.
	[[ $key =~ ^0x[0-9a-f]+$ ]] || fail "pool borrow printed '$key'"
	assert_equal "$("$RDMACTL" pool show mon | grep -o "mkey $key owner watcher")" "mkey $key owner watcher"
	"$RDMACTL" pool resize mon --size 3 >/dev/null
	"$RDMACTL" pool return "$key" --owner watcher
	wait_for_lines "$out" 4
	wait_for_lines "$json" 4
	monitor_stop "$out"
	monitor_stop "$json"
	run cat "$out"
	assert_line --index 1 --regexp "^[0-9:.]+ pool_borrow pool $pool: ifname soft0 ifindex 0 name mon mkey $key owner watcher available 1$"
	assert_line --index 2 --regexp "^[0-9:.]+ pool_resize pool $pool: ifname soft0 ifindex 0 name mon old_size 2 size 3 available 2$"
	assert_line --index 3 --regexp "^[0-9:.]+ pool_return pool $pool: ifname soft0 ifindex 0 name mon mkey $key owner watcher available 3$"
	# JSON keeps numbers.
	run jq -c 'select(.type != "subscribed") | [.type, .kind, .handle, .name, .mkey, .owner, .size]' "$json"
	assert_line --index 0 "[\"pool_borrow\",\"pool\",$pool,\"mon\",$((key)),\"watcher\",null]"
	assert_line --index 1 "[\"pool_resize\",\"pool\",$pool,\"mon\",null,null,3]"
	assert_line --index 2 "[\"pool_return\",\"pool\",$pool,\"mon\",$((key)),\"watcher\",null]"
	"$RDMACTL" pool destroy mon
}

@test "MKEY events and errors print keys in hex, as lists do" {
	out=$BATS_TEST_TMPDIR/events
	monitor_start "$out" monitor --type object_created
	pd=$("$RDMACTL" -j pd create | jq -r '.[0].handle')
	mkey=$("$RDMACTL" -j mkey create "$pd" --max-entries 2 | jq -r '.[0].handle')
	hex=$(printf '0x%x' "$mkey")
	wait_for_lines "$out" 3
	monitor_stop "$out"
	run cat "$out"
	assert_line --index 2 --regexp "^[0-9:.]+ object_created mkey $hex: ifname soft0 ifindex 0$"
	# The PD is in use by the MKEY: the error names it in hex.
	run "$RDMACTL" pd destroy "$pd"
	assert_failure
	assert_output --partial "user_kind 'mkey', user_handle '$(printf 0x%x "$hex")'"
	run "$RDMACTL" mkey show 0x7fff0001
	assert_failure
	assert_output --partial "kind 'mkey', handle '0x7fff0001'"
	"$RDMACTL" mkey destroy "$hex"
	"$RDMACTL" pd destroy "$pd"
}
