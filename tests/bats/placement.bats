#!/usr/bin/env bats
# make check runs this file alone: it measures time, memory or CPU placement, which other tests beside it would disturb.
# Where QPs run, and transfers between QPs on two different workers (the
# loopback transport's queues between workers): placement with qp create
# --cpu, what qp show -j says of it, refusals, SEND/WRITE/READ with and
# without MKEYs, RNR across workers, and signature pipelining across workers.
# Expected bytes: the T10-DIF tuple of reference mlx5_sig_crypto.md §2.2
# (512 x 0xA5, bg 0xFFFF -> guard 0xEC7D; app 0x5678, ref 0xF0DEBC9A).

load helper
load qp-helper

GOOD_PI=ec7d5678f0debc9a
BAD_PI=00005678f0debc9a

setup_file() {
	datapath_start
	# The workers' CPUs, as rdmad runs them (--cpus: all this process may use).
	CPUS=$("$RDMACTL" -j status | jq -r '[.workers[].cpu] | join(" ")')
	export CPUS
}
teardown_file() { rdmad_stop; }

setup() {
	load_libs
	cd "$BATS_TEST_TMPDIR"
	read -r CPU0 CPU1 _ <<<"$CPUS"
	[ -n "$CPU1" ] || skip "rdmad runs one worker here: nothing to place apart"
	MA=$(new_mr 1 8192 local_write,remote_write,remote_read)
	MB=$(new_mr 1 8192 local_write,remote_write,remote_read)
}

# apart [CREATE OPTIONS...]: A on the first worker, B on the second, connected; CA, CB their CQs.
apart() {
	CA=$(new_cq 64)
	CB=$(new_cq 64)
	A=$(new_qp "$CA" --cpu "$CPU0" "$@")
	B=$(new_qp "$CB" --cpu "$CPU1" "$@")
	connect "$A" "$B" >/dev/null
	connect "$B" "$A" >/dev/null
}

@test "qp create --cpu: qp show -j names the worker and its CPU once the QP runs" {
	apart
	run "$RDMACTL" -j qp show "$A"
	assert_equal "$(jq -c '.[0] | [.worker, .cpu]' <<<"$output")" "[0,$CPU0]"
	assert_equal "$(qp_field "$B" cpu)" "$CPU1"
	assert_equal "$(qp_field "$B" worker)" 1
	# In RESET it runs nowhere; where it was placed stays.
	"$RDMACTL" qp modify "$B" --state reset
	run "$RDMACTL" -j qp show "$B"
	assert_equal "$(jq -c '.[0] | [.worker, .cpu]' <<<"$output")" "[null,$CPU1]"
}

@test "qp create --cpu of a CPU without a worker is refused naming cpu and the workers' CPUs; nothing is made" {
	cq=$(new_cq)
	before=$("$RDMACTL" -j qp list | jq length)
	run "$RDMACTL" qp create --pd 1 --send-cq "$cq" --recv-cq "$cq" --type rc --cpu 4095
	assert_refused Qp InvalidArgument cpu
	assert_output --partial "its workers run on CPU ${CPUS// /,}"
	assert_equal "$("$RDMACTL" -j qp list | jq length)" "$before"
	run "$RDMACTL" qp create --pd 1 --send-cq "$cq" --recv-cq "$cq" --type rc --cpu -1
	assert_failure 2
}

@test "without --cpu, a connected QP joins its peer's worker" {
	cq=$(new_cq)
	a=$(new_qp "$cq" --cpu "$CPU1")
	b=$(new_qp "$cq")
	connect "$a" "$b" >/dev/null
	connect "$b" "$a" >/dev/null
	assert_equal "$(qp_field "$b" worker)" "$(qp_field "$a" worker)"
}

@test "send between QPs on two workers: the bytes land, both sides complete" {
	apart
	put "$MA" 0 48656c6c6f2c20776f726c6421
	"$RDMACTL" qp post-recv "$B" --sge "$MB:100:64" --wrid 7
	"$RDMACTL" qp post "$A" send --sge "$MA:0:13" --wrid 1 --signaled
	run wc_fields "$(poll_n "$CA" 1)"
	assert_output "1 success send 13 0 $A 0 "
	run wc_fields "$(poll_n "$CB" 1)"
	assert_output "7 success recv 13 0 $B 0 "
	assert_equal "$(get "$MB" 100 13)" 48656c6c6f2c20776f726c6421
}

@test "write and read between QPs on two workers" {
	apart
	put "$MA" 1000 0102030405060708
	put "$MB" 3000 a1a2a3a4
	"$RDMACTL" qp post "$A" write --sge "$MA:1000:8" --remote "$MB:2000" --wrid 2 --signaled
	"$RDMACTL" qp post "$A" read --sge "$MA:4000:4" --remote "$MB:3000" --wrid 3 --signaled
	run wc_fields "$(poll_n "$CA" 2)"
	assert_output "2 success rdma_write 8 0 $A 0 
3 success rdma_read 4 0 $A 0 "
	assert_equal "$(get "$MB" 2000 8)" 0102030405060708
	assert_equal "$(get "$MA" 4000 4)" a1a2a3a4
	assert_equal "$("$RDMACTL" -j cq poll "$CB")" "[]"
}

@test "many WRs across workers complete in order, each QP's counters on its own side" {
	apart --max-send-wr 128 --max-recv-wr 128
	for i in $(seq 1 100); do
		printf '{"opcode":"write","wr_id":%d,"sges":[{"key":%d,"offset":0,"length":64}],"remote":{"key":%d,"offset":%d},"signaled":true}\n' \
			"$i" "$MA" "$MB" $(( i * 64 ))
	done | jq -s . >wrs.json
	"$RDMACTL" qp post-list "$A" --file wrs.json
	run poll_n "$CA" 100
	assert_equal "$(jq -c '[.[].wr_id]' <<<"$output")" "$(seq 1 100 | jq -s -c .)"
	assert_equal "$(jq -c '[.[].status] | unique' <<<"$output")" '["success"]'
	assert_equal "$("$RDMACTL" -j qp show "$A" | jq '.[0].datapath.wrs.write')" 100
	assert_equal "$("$RDMACTL" -j qp show "$B" | jq '.[0].datapath.wrs.write')" 0
}

@test "RNR across workers: the send waits for a receive, then completes (rnr_retry 7)" {
	apart
	put "$MA" 0 c0ffee
	"$RDMACTL" qp post "$A" send --sge "$MA:0:3" --wrid 5 --signaled
	sleep 0.1
	assert_equal "$("$RDMACTL" -j cq poll "$CA")" "[]"
	"$RDMACTL" qp post-recv "$B" --sge "$MB:0:16" --wrid 6
	run wc_fields "$(poll_n "$CA" 1)"
	assert_output "5 success send 3 0 $A 0 "
	assert_equal "$(get "$MB" 0 3)" c0ffee
	[ "$("$RDMACTL" -j qp show "$A" | jq '.[0].datapath.rnr_naks')" -ge 1 ]
}

@test "a peer QP that went to RESET answers nothing: the RC requester fails with retry_exc_err" {
	apart
	"$RDMACTL" qp modify "$B" --state reset
	"$RDMACTL" qp post "$A" write --sge "$MA:0:8" --remote "$MB:0" --wrid 8 --signaled
	run wc_fields "$(poll_n "$CA" 1)"
	assert_output "8 retry_exc_err rdma_write 0 0 $A 0 "
	assert_equal "$(qp_field "$A" state)" err
}

@test "write from a T10-DIF MKEY to a QP on another worker: PI checked and stripped on the way" {
	apart
	k=$(t10_mkey "$MA" 0 "$GOOD_PI")
	"$RDMACTL" qp post "$A" write --sge "$k:0:512" --remote "$MB:0" --wrid 7 --signaled
	assert_equal "$(wc_fields "$(poll_n "$CA" 1)")" "7 success rdma_write 512 0 $A 0 "
	assert_equal "$(get "$MB" 0 512)" "$(a5 512)"
	assert_equal "$("$RDMACTL" -j mkey show "$k" | jq -c '.[0] | [.transfers, (.sig_errors | add)]')" "[1,0]"
}

@test "write into an MKEY of a QP on another worker: its RX inserts the reference's T10-DIF tuple" {
	apart
	put "$MB" 0 "$(a5 512)"
	put "$MA" 1024 "$(printf '00%.0s' $(seq 1 520))"
	k=$(t10_mkey_over "$MA" 1024 local_write,remote_write)
	"$RDMACTL" qp post "$B" write --sge "$MB:0:512" --remote "$k:0" --wrid 9 --signaled
	assert_equal "$(wc_fields "$(poll_n "$CB" 1)")" "9 success rdma_write 512 0 $B 0 "
	assert_equal "$(get "$MA" 1024 520)" "$(a5 512)$GOOD_PI"
}

@test "read from an MKEY of a QP on another worker, and a send received through one" {
	apart
	k=$(t10_mkey "$MA" 0 "$GOOD_PI")
	"$RDMACTL" qp post "$B" read --sge "$MB:2048:512" --remote "$k:0" --wrid 3 --signaled
	assert_equal "$(wc_fields "$(poll_n "$CB" 1)")" "3 success rdma_read 512 0 $B 0 "
	assert_equal "$(get "$MB" 2048 512)" "$(a5 512)"
	# B sends 512 wire bytes into a receive through a fresh T10-DIF MKEY of A.
	put "$MA" 4096 "$(printf '00%.0s' $(seq 1 520))"
	r=$(t10_mkey_over "$MA" 4096 local_write)
	"$RDMACTL" qp post-recv "$A" --sge "$r:0:512" --wrid 11
	"$RDMACTL" qp post "$B" send --sge "$MB:2048:512" --wrid 12 --signaled
	assert_equal "$(wc_fields "$(poll_n "$CA" 1)")" "11 success recv 512 0 $A 0 "
	assert_equal "$(get "$MA" 4096 520)" "$(a5 512)$GOOD_PI"
}

@test "signature pipelining across workers: a bad PI stops the sender in SQD before the fenced response" {
	CA=$(new_cq 64)
	CB=$(new_cq 64)
	A=$(new_qp "$CA" --cpu "$CPU0" --sig-pipelining --recovery manual)
	B=$(new_qp "$CB" --cpu "$CPU1")
	connect "$A" "$B" >/dev/null
	connect "$B" "$A" >/dev/null
	k=$(t10_mkey "$MA" 0 "$BAD_PI")
	"$RDMACTL" qp post-recv "$B" --sge "$MB:4096:16" --wrid 100
	cat >wrs.json <<-EOF
	[{"opcode":"write","wr_id":1,"sges":[{"key":$k,"offset":0,"length":512}],"remote":{"key":$MB,"offset":0}},
	 {"opcode":"send","wr_id":1,"sges":[{"key":$MA,"offset":6000,"length":16}],"signaled":true,"fence":true}]
	EOF
	"$RDMACTL" qp post-list "$A" --file wrs.json
	for i in $(seq 1 100); do
		[ "$(qp_field "$A" state)" = sqd ] && break
		sleep 0.02
	done
	assert_equal "$(qp_field "$A" state)" sqd
	assert_equal "$("$RDMACTL" -j cq poll "$CB")" "[]"
	run "$RDMACTL" -j mkey check "$k"
	assert_equal "$(jq -r .err_type <<<"$output")" guard
	assert_equal "$("$RDMACTL" qp cancel "$A" --wrid 1)" 1
	"$RDMACTL" qp modify "$A" --state rts
	run wc_fields "$(poll_n "$CA" 1)"
	assert_output "1 success send 0 0 $A 0 "
	assert_equal "$("$RDMACTL" -j cq poll "$CB")" "[]"
}
