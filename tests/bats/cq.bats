#!/usr/bin/env bats
# Completion queues against a real rdmad: CREATE_CQ sizes (rounded as rxe
# does), the max_cqe limit, REQ_NOTIFY_CQ arming (roce_virtio.md §4.3), and
# DESTROY_CQ refused while a QP completes into the CQ.

load helper

setup_file() {
	# A lowered cap (rdmad.conf(5)), so that creating up to it stays quick.
	echo "max_cqs = 1024" >"$BATS_FILE_TMPDIR/rdmad.conf"
	rdmad_start
	"$RDMACTL" pd create >/dev/null
}
teardown_file() { rdmad_stop; }
setup() { load_libs; }

cq_create() {
	"$RDMACTL" -j cq create --cqe "$1" | jq -r '.[0].handle'
}

cq_json() {
	"$RDMACTL" -j cq show "$1" | jq -c '.[0]'
}

cq_count() {
	"$RDMACTL" -j cq list | jq length
}

assert_refused() {
	assert_failure "$(refusal_status "$1")"
	assert_output --partial "io.rdmad.Cq.$1: field '$2'"
}

@test "cq create: the size is cqe+1 rounded up to a power of two, minus one" {
	for pair in 1:1 2:3 100:127 127:127 128:255 1024:2047; do
		run "$RDMACTL" -j cq create --cqe "${pair%:*}"
		assert_success
		[ "$(jq -r '.[0].cqe' <<<"$output")" = "${pair#*:}" ]
	done
}

@test "cq create -j: every key with its first values" {
	h=$(cq_create 16)
	assert_equal "$(cq_json "$h")" \
		"{\"ifname\":\"soft0\",\"ifindex\":0,\"handle\":$h,\"cqe\":31,\"armed\":\"none\",\"notify_requests\":0,\"events\":0,\"qps\":0,\"rings\":false}"
}

@test "cq create: 0 and more than max_cqe (32767) are refused naming cqe; nothing created" {
	n=$(cq_count)
	run "$RDMACTL" cq create --cqe 0
	assert_refused InvalidArgument cqe
	run "$RDMACTL" cq create --cqe 32768
	assert_refused InvalidArgument cqe
	assert_output --partial "1 to 32767 (max_cqe)"
	run "$RDMACTL" cq create
	assert_failure 2
	run "$RDMACTL" cq create --cqe x
	assert_failure 2
	[ "$(cq_count)" = "$n" ]
}

@test "cq notify: solicited, then next; next covers solicited" {
	h=$(cq_create 4)
	run "$RDMACTL" -j cq notify "$h" --solicited
	assert_success
	[ "$(jq -r '.[0].armed' <<<"$output")" = solicited ]
	run "$RDMACTL" -j cq notify "$h" --next
	[ "$(jq -r '.[0].armed' <<<"$output")" = next ]
	run "$RDMACTL" -j cq notify "$h" --solicited
	[ "$(jq -r '.[0].armed' <<<"$output")" = next ]
	[ "$(cq_json "$h" | jq .notify_requests)" = 3 ]
	[ "$(cq_json "$h" | jq .events)" = 0 ]
}

@test "cq notify needs exactly one of --solicited and --next; nothing changes" {
	h=$(cq_create 4)
	before=$(cq_json "$h")
	run "$RDMACTL" cq notify "$h"
	assert_failure 2
	assert_output --partial "give one of --solicited and --next"
	run "$RDMACTL" cq notify "$h" --solicited --next
	assert_failure 2
	run "$RDMACTL" cq notify 4000 --next
	assert_failure 1
	assert_output --partial "io.rdmad.Cq.NoSuchObject: kind 'cq', handle '4000'"
	[ "$(cq_json "$h")" = "$before" ]
}

@test "cq destroy: refused while a QP completes into the CQ, naming the QP" {
	h=$(cq_create 8)
	qp=$("$RDMACTL" -j qp create --pd 1 --send-cq "$h" --recv-cq "$h" --type ud | jq -r '.[0].handle')
	[ "$(cq_json "$h" | jq .qps)" = 1 ]
	run "$RDMACTL" cq destroy "$h"
	assert_failure 1
	assert_output --partial "io.rdmad.Cq.ObjectInUse: kind 'cq', handle '$h', user_kind 'qp', user_handle '$qp'"
	"$RDMACTL" cq show "$h" >/dev/null
	"$RDMACTL" qp destroy "$qp"
	run "$RDMACTL" cq destroy "$h"
	assert_success
	assert_output ''
	run "$RDMACTL" cq show "$h"
	assert_failure 1
	assert_output --partial "NoSuchObject"
}

@test "cq show text, list, and the default command" {
	h=$(cq_create 2)
	run "$RDMACTL" cq show "$h"
	assert_success
	assert_output "cq $h: ifname soft0 ifindex 0 cqe 3 armed none notify_requests 0 events 0 qps 0 rings false"
	run "$RDMACTL" cq
	assert_success
	assert_line "cq $h: ifname soft0 ifindex 0 cqe 3 armed none notify_requests 0 events 0 qps 0 rings false"
	run "$RDMACTL" -j cq list
	jq -e --argjson h "$h" 'map(.handle) | index($h) != null' <<<"$output"
}

@test "cq create: max_cq, lowered to 1024 by rdmad.conf's max_cqs, CQs at most, then LimitReached" {
	run "$RDMACTL" -j dev show soft0
	assert_output --partial '"max_cq":1024'
	n=$(cq_count)
	for _ in $(seq $((n + 1)) 1024); do
		printf '{"method":"io.rdmad.Cq.Create","parameters":{"cqe":1}}\0'
	done | socat -t 5 - "UNIX-CONNECT:$RDMACTL_SOCKET" >/dev/null
	[ "$(cq_count)" = 1024 ]
	run "$RDMACTL" cq create --cqe 1
	assert_failure 1
	assert_output --partial "io.rdmad.Cq.LimitReached: kind 'cq', limit '1024'"
}

@test "raw varlink: every io.rdmad.Cq method" {
	run varlink_raw '{"method":"io.rdmad.Cq.List","parameters":{}}\0'
	h=$(jq -r '.parameters.cqs[0].handle' <<<"$output")
	run varlink_raw '{"method":"io.rdmad.Cq.Destroy","parameters":{"handle":'"$h"'}}\0'
	assert_output '{"parameters":{}}'
	run varlink_raw '{"method":"io.rdmad.Cq.Create","parameters":{"cqe":5}}\0'
	assert_output --partial '"cqe":7,"armed":"none"'
	h=$(jq -r .parameters.cq.handle <<<"$output")
	run varlink_raw '{"method":"io.rdmad.Cq.Notify","parameters":{"handle":'"$h"',"notify":"next"}}\0'
	assert_output --partial '"armed":"next","notify_requests":1'
	run varlink_raw '{"method":"io.rdmad.Cq.Notify","parameters":{"handle":'"$h"',"notify":"both"}}\0'
	assert_output '{"error":"org.varlink.service.InvalidParameter","parameters":{"parameter":"notify"}}'
	run varlink_raw '{"method":"io.rdmad.Cq.Show","parameters":{"handle":'"$h"'}}\0'
	assert_output --partial "\"handle\":$h"
	run varlink_raw '{"method":"io.rdmad.Cq.Create","parameters":{"cqe":-1}}\0'
	assert_output '{"error":"org.varlink.service.InvalidParameter","parameters":{"parameter":"cqe"}}'
}
