#!/usr/bin/env bats
# The test front end of the virtio-net RoCE device (tests/tools/vhost-guest,
# issue 28 item 4) on its own, before rdmad serves the device: its usage,
# "fail closed" and status 3 when the back end goes, a bad line that says
# what is wrong and lets the next run, and the vhost-user session it opens
# (features, protocol features, the two-region memory table, the config
# space, the three net/control rings) against a back end that answers
# messages and touches no ring (tests/tools/vhost-fake-backend.py).

load helper

GUEST=$BUILD/tools/vhost-guest
FAKE=$TOP/tests/tools/vhost-fake-backend.py

setup() {
	load_libs
	S=$BATS_TEST_TMPDIR/vhost.sock
	LOG=$BATS_TEST_TMPDIR/backend.log
}

teardown() {
	[ -z "${FAKE_PID:-}" ] || kill "$FAKE_PID" 2>/dev/null || true
}

# fake_start MODE: the fake back end on $S, once it listens.
fake_start() {
	python3 "$FAKE" "$S" "$1" "$LOG" 3>&- &
	FAKE_PID=$!
	for _ in $(seq 1 100); do
		[ -S "$S" ] && return 0
		sleep 0.05
	done
	echo "the fake back end did not listen" >&2
	return 1
}

@test "usage errors exit 2 and say what is wrong" {
	run -2 "$GUEST"
	assert_output --partial "SOCKET missing"
	run -2 "$GUEST" a b
	assert_output --partial "one SOCKET only"
	run -2 "$GUEST" "$S" --queue-size 100
	assert_output --partial "--queue-size '100' is not a power of two"
	run -2 "$GUEST" "$S" --mem 1
	assert_output --partial "--mem '1' is not a number of MiB 2..65536"
	run -2 "$GUEST" "$S" --frobnicate
	assert_output --partial "usage: vhost-guest SOCKET"
}

@test "no back end: fail closed, status 3" {
	run -3 "$GUEST" "$BATS_TEST_TMPDIR/nobody" </dev/null
	assert_output --partial "fail closed (connect"
}

@test "a back end that accepts and closes: fail closed, status 3, nothing after it runs" {
	fake_start close
	run -3 "$GUEST" "$S" <<-EOF
		negotiate
		echo after
	EOF
	assert_output "fail closed"
}

@test "a bad line says what is wrong and the next runs; exit 1 for a failure not expected" {
	fake_start serve
	run -1 "$GUEST" "$S" <<-EOF
		frobnicate
		alloc a 10000
		alloc a 10
		alloc b 8192 scatter
		fill a 0 zz
		fill a 9998 00112233
		fill a 4094 0102030405
		dump a 4093 7
		pattern b 100 3000 7
		check b 100 3000 7
		check b 100 3000 8
		expect-fail create_pd
		create_pd pdn=1
		get_dma_mr pdn=x access=local_write
		get_dma_mr pdn=1 access=local_write,everything
		post_send qpn=0 opcode=fly wr_id=1
		echo still here
	EOF
	assert_line -n 0 "fail unknown command 'frobnicate'"
	assert_line -n 1 --regexp '^ok name=a va=0x7f0000000000 bytes=10000 pages=3 pa=0x[0-9a-f]+$'
	assert_line -n 2 "fail alloc: a buffer named 'a' exists"
	assert_line -n 3 --regexp '^ok name=b va=0x7f0000004000 bytes=8192 pages=2 pa=0x[0-9a-f]+$'
	assert_line -n 4 --partial "fail fill: HEX is an even number of hex digits"
	assert_line -n 5 "fail fill: 4 bytes at 9998 run past a's 10000"
	assert_line -n 6 "ok"
	# Across the page boundary of a's pages.
	assert_line -n 7 "ok hex=00010203040500"
	assert_line -n 8 "ok"
	assert_line -n 9 "ok"
	assert_line -n 10 --regexp '^fail mismatch at offset 100: '
	assert_line -n 11 "fail start first"
	assert_line -n 12 "fail unknown field 'pdn=1' for create_pd"
	assert_line -n 13 "fail field pdn: 'x' is not a number 0..4294967295"
	assert_line -n 14 "fail field access: 'everything' is not one of local_write, remote_write, remote_read (comma-separated) or 0"
	assert_line -n 15 "fail field opcode: 'fly' is not one of write, write_imm, send, send_imm, read"
	assert_line -n 16 "ok still here"
	assert_equal "${#lines[@]}" 17
}

@test "expect-fail lines that fail leave the exit status 0" {
	fake_start serve
	run -0 "$GUEST" "$S" <<-EOF
		expect-fail frobnicate
		expect-fail poll cqn=0
		# a comment
		echo done
	EOF
	assert_line -n 0 "fail unknown command 'frobnicate'"
	assert_line -n 1 --partial "fail cqn=0: no CQ set up here"
	assert_line -n 2 "ok done"
}

@test "negotiate, config and start open the session QEMU would" {
	fake_start serve
	run -0 "$GUEST" "$S" --mem 8 --queue-size 64 <<-EOF
		negotiate
		config
		start
		bad_mem_table overlap
		bad_mem_table empty
	EOF
	# What both want: VERSION_1, ROCE, CTRL_VQ, MAC, INDIRECT, EVENT_IDX, PROTOCOL_FEATURES
	# of what was offered (MQ and GUEST_CSUM were too); protocol MQ, REPLY_ACK, CONFIG.
	assert_line -n 0 "ok features=0x80000170020020 protocol=0x209 queues=19"
	assert_line -n 1 "ok mac=52:54:00:12:34:56 status=1 max_virtqueue_pairs=1 mtu=1500 max_rdma_qps=4 max_rdma_cqs=8"
	assert_line -n 2 "ok vqs=19"
	assert_line -n 3 "ok refused=1"
	assert_line -n 4 "ok refused=1"
	run cat "$LOG"
	assert_line -n 0 "GET_FEATURES"
	assert_line -n 1 "SET_OWNER"
	assert_line -n 2 "GET_PROTOCOL_FEATURES"
	assert_line -n 3 "SET_PROTOCOL_FEATURES 0x209"
	assert_line -n 4 "SET_FEATURES 0x80000170020020"
	assert_line -n 5 "GET_QUEUE_NUM"
	# Two regions of the one 8 MiB memfd: 0.. and 4 GiB.., 4 MiB each, one fd each.
	assert_line -n 6 --regexp '^SET_MEM_TABLE fds=2 gpa=0x0,size=0x400000,uaddr=0x[0-9a-f]+,off=0x0 gpa=0x100000000,size=0x400000,uaddr=0x[0-9a-f]+,off=0x400000$'
	assert_line -n 7 "GET_CONFIG"
	for vq in 0 1 2; do
		assert_line "SET_VRING_NUM $vq 64"
		assert_line --regexp "^SET_VRING_ADDR $vq desc=0x[0-9a-f]+ used=0x[0-9a-f]+ avail=0x[0-9a-f]+$"
		assert_line "SET_VRING_BASE $vq 0"
		assert_line "SET_VRING_KICK $vq fds=1"
		assert_line "SET_VRING_CALL $vq fds=1"
		assert_line "SET_VRING_ENABLE $vq 1"
	done
	refute_line --partial "SET_VRING_NUM 3 "
	assert_line --regexp '^SET_MEM_TABLE fds=2 gpa=0x0,size=0x400000,.* gpa=0x1000,size=0x400000,'
	assert_line "SET_MEM_TABLE fds=0"
}

@test "--no-roce, --no-indirect and --no-event-idx leave their feature bits out" {
	fake_start serve
	run -0 "$GUEST" "$S" --no-roce --no-indirect --no-event-idx <<-EOF
		negotiate
		start
		expect-fail create_pd
	EOF
	assert_line -n 0 "ok features=0x140020020 protocol=0x209 queues=19"
	assert_line -n 1 "ok vqs=3"
	assert_line -n 2 "fail ROCE not negotiated"
}
