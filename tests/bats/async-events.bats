#!/usr/bin/env bats
# Applications' asynchronous events (io.rdmad.Daemon.OpenAsyncEvents,
# rdmad_get_async_event): seed 003's pipelining flow run from a program,
# rdmad_sig_pipeline, against a real rdmad whose rdmad.conf would have
# recovered automatically; and the method's refusals.

load helper

setup_file() {
	# QPs created without a policy recover by themselves here: the example must opt out.
	echo "recovery = auto" >"$BATS_FILE_TMPDIR/rdmad.conf"
	rdmad_start
	"$RDMACTL" gid add 0 fe80::1 >/dev/null
}
teardown_file() { rdmad_stop; }

setup() {
	load_libs
	cd "$BATS_TEST_TMPDIR"
}

@test "rdmad_sig_pipeline: a bad guard stops the QP, the program hears SQ drained, checks, cancels, resumes" {
	out=$BATS_TEST_TMPDIR/monitor
	monitor_start "$out" -j monitor --type qp_state --type sq_drained --type sig_error \
		--type wr_canceled --type recovery
	run "$BUILD/examples/rdmad_sig_pipeline"
	assert_success
	assert_line --partial "2. async event: SQ drained on QP"
	assert_line --partial "3. MKEY check: guard error, expected 0x0 actual 0xec7d at offset 0"
	assert_line "4. canceled 1 WR of wr_id 1; error response posted as wr_id 2"
	assert_line --partial "completion: wr_id 1 (the canceled response, as a NOP)"
	assert_line --partial "completion: wr_id 2 (the error response)"
	assert_line "6. transaction 3: 512 bytes written, no signature error, QP in RTS"
	# rdmad saw the program do it, and never recovered by itself.
	wait_for_lines "$out" 5
	monitor_stop "$out"
	qp=$(jq -r 'select(.type == "sq_drained") | .handle' "$out")
	[ -n "$qp" ]
	run jq -r 'select(.type != "subscribed" and .handle == '"$qp"') | [.type, .new_state // .count] | map(tostring) | join(" ")' "$out"
	assert_line --index 0 "qp_state init"
	assert_line "qp_state sqd"
	assert_line "sq_drained null"
	assert_line "wr_canceled 1"
	refute_line --partial "recovery"
	assert_equal "$(jq -c 'select(.type == "sig_error") | [.qp, .wr_id, .err_type]' "$out")" "[$qp,1,\"guard\"]"
}

@test "rdmad_sig_pipeline fails, naming the step, when the flow cannot run (no GID at -g)" {
	run "$BUILD/examples/rdmad_sig_pipeline" -g 9
	assert_failure 1
	assert_output --partial "rdmad_query_gid"
	run "$BUILD/examples/rdmad_sig_pipeline" -x
	assert_failure 2
	assert_output --partial "usage: rdmad_sig_pipeline"
}

@test "OpenAsyncEvents: an attached connection gets a ring of the capacity rounded up; refusals name what" {
	run varlink_raw '{"method":"io.rdmad.Daemon.Attach"}\0{"method":"io.rdmad.Daemon.OpenAsyncEvents","parameters":{"capacity":5}}\0'
	assert_line --index 1 '{"parameters":{"capacity":8,"ring_layout":{"bytes":4096,"queues":[{"slots":8,"slot_size":32,"offset":64}]}}}'
	# Not attached (rdmactl's kind of connection).
	run varlink_raw '{"method":"io.rdmad.Daemon.OpenAsyncEvents"}\0'
	assert_output '{"error":"io.rdmad.Daemon.NotAttached","parameters":{}}'
	run varlink_raw '{"method":"io.rdmad.Daemon.Attach"}\0{"method":"io.rdmad.Daemon.OpenAsyncEvents","parameters":{"capacity":4097}}\0'
	assert_line --index 1 --partial '"error":"io.rdmad.Daemon.InvalidArgument","parameters":{"field":"capacity"'
	assert_line --index 1 --partial '4096'
	run varlink_raw '{"method":"io.rdmad.Daemon.Attach"}\0{"method":"io.rdmad.Daemon.OpenAsyncEvents","parameters":{"device":"mlx5_9"}}\0'
	assert_line --index 1 '{"error":"io.rdmad.Daemon.NoSuchDevice","parameters":{"device":"mlx5_9"}}'
	assert_daemon_serves
}
