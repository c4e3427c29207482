#!/usr/bin/env bats
# The data path against a real rdmad: WRs posted with rdmactl qp post /
# post-recv run on the workers between two RC QPs of the device, the bytes
# really move (checked with mr write / mr read), and cq poll shows the
# completions each side sees.  Expected statuses: reference roce_virtio.md
# §4.1 (successes), §4.2 (errors: who sees what), §3.3 (ERR flushes in order,
# RESET drops), §3.4 (rnr_retry 7 retries for ever).

load helper
load qp-helper

setup_file() {
	datapath_start 2
	# Memory of PD 1 with every access, of PD 1 without remote access, of PD 1
	# read-only, and of PD 2.
	MA=$(new_mr 1 4096 local_write,remote_write,remote_read)
	MB=$(new_mr 1 4096 local_write,remote_write,remote_read)
	MLOCAL=$(new_mr 1 4096 local_write)
	MRO=$(new_mr 1 4096 "")
	MPD2=$(new_mr 2 4096 local_write,remote_write,remote_read)
	export MA MB MLOCAL MRO MPD2
}
teardown_file() { rdmad_stop; }
setup() { load_libs; }

# ---- successful operations (§4.1) ----

@test "send: the bytes land in the receive WR's memory; both sides complete" {
	pair
	put "$MA" 0 48656c6c6f2c20776f726c6421
	"$RDMACTL" qp post-recv "$B" --sge "$MB:100:64" --wrid 7
	"$RDMACTL" qp post "$A" send --sge "$MA:0:13" --wrid 1 --signaled
	run wc_fields "$(poll_n "$CA" 1)"
	assert_output "1 success send 13 0 $A 0 "
	run wc_fields "$(poll_n "$CB" 1)"
	assert_output "7 success recv 13 0 $B 0 "
	run get "$MB" 100 13
	assert_output 48656c6c6f2c20776f726c6421
}

@test "send_imm: the receiver gets the immediate data and with_imm" {
	pair
	"$RDMACTL" qp post-recv "$B" --sge "$MB:0:16" --wrid 8
	"$RDMACTL" qp post "$A" send_imm --sge "$MA:0:4" --imm 0x12345678 --wrid 2 --signaled
	run wc_fields "$(poll_n "$CB" 1)"
	assert_output "8 success recv 4 305419896 $B 0 with_imm"
	run wc_fields "$(poll_n "$CA" 1)"
	assert_output "2 success send 4 0 $A 0 "
}

@test "send gathers several SGEs and scatters into several" {
	pair --max-send-sge 2 --max-recv-sge 2
	put "$MA" 200 616263
	put "$MA" 300 6465666768
	"$RDMACTL" qp post-recv "$B" --sge "$MB:500:2" --sge "$MB:600:10" --wrid 9
	"$RDMACTL" qp post "$A" send --sge "$MA:200:3" --sge "$MA:300:5" --wrid 3 --signaled
	run wc_fields "$(poll_n "$CB" 1)"
	assert_output "9 success recv 8 0 $B 0 "
	run get "$MB" 500 2
	assert_output 6162
	run get "$MB" 600 6
	assert_output 636465666768
}

@test "inline send: the WR carries the bytes itself" {
	pair --max-inline-data 64
	"$RDMACTL" qp post-recv "$B" --sge "$MB:700:64" --wrid 10
	"$RDMACTL" qp post "$A" send --inline cafebabe00ff --wrid 4 --signaled
	run wc_fields "$(poll_n "$CB" 1)"
	assert_output "10 success recv 6 0 $B 0 "
	run get "$MB" 700 6
	assert_output cafebabe00ff
}

@test "write: the bytes land in the peer's MR; the peer sees nothing" {
	pair
	put "$MA" 1000 0102030405060708
	"$RDMACTL" qp post "$A" write --sge "$MA:1000:8" --remote "$MB:1500" --wrid 5 --signaled
	run wc_fields "$(poll_n "$CA" 1)"
	assert_output "5 success rdma_write 8 0 $A 0 "
	run get "$MB" 1500 8
	assert_output 0102030405060708
	run "$RDMACTL" -j cq poll "$CB"
	assert_output '[]'
}

@test "write_imm: the data is written and a receive WR completes as recv_rdma_with_imm" {
	pair
	put "$MA" 1100 aabbccdd
	"$RDMACTL" qp post-recv "$B" --wrid 11
	"$RDMACTL" qp post "$A" write_imm --sge "$MA:1100:4" --remote "$MB:1600" --imm 7 --wrid 6 --signaled
	run wc_fields "$(poll_n "$CB" 1)"
	assert_output "11 success recv_rdma_with_imm 4 7 $B 0 with_imm"
	run wc_fields "$(poll_n "$CA" 1)"
	assert_output "6 success rdma_write 4 0 $A 0 "
	run get "$MB" 1600 4
	assert_output aabbccdd
}

@test "inline write" {
	pair --max-inline-data 16
	"$RDMACTL" qp post "$A" write --inline 0badf00d --remote "$MB:1700" --wrid 12 --signaled
	run wc_fields "$(poll_n "$CA" 1)"
	assert_output "12 success rdma_write 4 0 $A 0 "
	run get "$MB" 1700 4
	assert_output 0badf00d
}

@test "read: the peer's bytes land in the local SGEs" {
	pair
	put "$MB" 2000 11223344556677
	"$RDMACTL" qp post "$A" read --sge "$MA:2100:7" --remote "$MB:2000" --wrid 13 --signaled
	run wc_fields "$(poll_n "$CA" 1)"
	assert_output "13 success rdma_read 7 0 $A 0 "
	run get "$MA" 2100 7
	assert_output 11223344556677
	run "$RDMACTL" -j cq poll "$CB"
	assert_output '[]'
}

@test "an unsignaled WR completes silently; sq_sig_all completes every WR" {
	pair
	"$RDMACTL" qp post "$A" write --sge "$MA:0:4" --remote "$MB:0" --wrid 20
	"$RDMACTL" qp post "$A" write --sge "$MA:0:4" --remote "$MB:0" --wrid 21 --signaled
	# Completions of one QP come in order: seeing 21 means 20 ran, without a CQE.
	run wc_fields "$(poll_n "$CA" 1)"
	assert_output "21 success rdma_write 4 0 $A 0 "
	pair --sq-sig-all
	"$RDMACTL" qp post "$A" write --sge "$MA:0:4" --remote "$MB:0" --wrid 22
	run wc_fields "$(poll_n "$CA" 1)"
	assert_output "22 success rdma_write 4 0 $A 0 "
}

# ---- errors (§4.2) ----

# expect_local_error ARGS...: the WR posted on A with ARGS fails locally with
# loc_prot_err; A goes to ERR, B does not.
expect_local_error() {
	pair
	"$RDMACTL" qp post "$A" "$@" --wrid 30
	run wc_fields "$(poll_n "$CA" 1)"
	assert_output "30 loc_prot_err ${WC_OPCODE} 0 0 $A 0 "
	[ "$(qp_field "$A" state)" = err ]
	[ "$(qp_field "$B" state)" = rts ]
}

@test "a bad lkey, an lkey of another PD, an SGE past its MR: loc_prot_err, the QP to ERR" {
	WC_OPCODE=send expect_local_error send --sge 999999:0:4
	WC_OPCODE=send expect_local_error send --sge "$MPD2:0:4"
	WC_OPCODE=rdma_write expect_local_error write --sge "$MA:4090:7" --remote "$MB:0"
}

@test "read into memory without local_write: loc_prot_err" {
	WC_OPCODE=rdma_read expect_local_error read --sge "$MRO:0:4" --remote "$MB:0"
}

# expect_remote_error STATUS ARGS...: the WR fails with STATUS on A; both QPs go
# to ERR and B's receive WR (posted first, wr_id 40) is flushed.
expect_remote_error() {
	local want=$1 opcode=$2
	shift 2
	"$RDMACTL" qp post-recv "$B" --sge "$MB:0:64" --wrid 40
	"$RDMACTL" qp post "$A" "$@" --wrid 31
	run wc_fields "$(poll_n "$CA" 1)"
	assert_output "31 $want $opcode 0 0 $A 0 "
	run wc_fields "$(poll_n "$CB" 1)"
	assert_output "40 wr_flush_err recv 0 0 $B 0 "
	[ "$(qp_field "$A" state)" = err ]
	[ "$(qp_field "$B" state)" = err ]
}

@test "a bad rkey, an rkey of another PD, a range past the MR, an MR without remote access: rem_access_err on both" {
	pair
	expect_remote_error rem_access_err rdma_write write --sge "$MA:0:4" --remote "999999:0"
	pair
	expect_remote_error rem_access_err rdma_write write --sge "$MA:0:4" --remote "$MPD2:0"
	pair
	expect_remote_error rem_access_err rdma_read read --sge "$MA:0:8" --remote "$MB:4092"
	pair
	expect_remote_error rem_access_err rdma_write write --sge "$MA:0:4" --remote "$MLOCAL:0"
}

@test "write_imm with a bad rkey: the receive WR it took completes rem_access_err" {
	pair
	"$RDMACTL" qp post-recv "$B" --wrid 41
	"$RDMACTL" qp post-recv "$B" --wrid 42
	"$RDMACTL" qp post "$A" write_imm --sge "$MA:0:4" --remote "$MLOCAL:0" --imm 1 --wrid 32
	run wc_fields "$(poll_n "$CA" 1)"
	assert_output "32 rem_access_err rdma_write 0 0 $A 0 "
	run wc_fields "$(poll_n "$CB" 2)"
	assert_output "41 rem_access_err recv 0 0 $B 0 
42 wr_flush_err recv 0 0 $B 0 "
}

@test "a peer QP without remote_write / remote_read access: rem_inv_req_err, no receive consumed" {
	CA=$(new_cq)
	CB=$(new_cq)
	A=$(new_qp "$CA")
	B=$(new_qp "$CB")
	connect "$A" "$B"
	connect "$B" "$A" local_write
	expect_remote_error rem_inv_req_err rdma_write write --sge "$MA:0:4" --remote "$MB:0"
	CA=$(new_cq)
	CB=$(new_cq)
	A=$(new_qp "$CA")
	B=$(new_qp "$CB")
	connect "$A" "$B"
	connect "$B" "$A" local_write,remote_write
	expect_remote_error rem_inv_req_err rdma_read read --sge "$MA:0:4" --remote "$MB:0"
}

@test "a send longer than the receive WR: rem_inv_req_err, the receiver loc_len_err" {
	pair
	"$RDMACTL" qp post-recv "$B" --sge "$MB:0:4" --wrid 43
	"$RDMACTL" qp post "$A" send --sge "$MA:0:5" --wrid 33
	run wc_fields "$(poll_n "$CA" 1)"
	assert_output "33 rem_inv_req_err send 0 0 $A 0 "
	run wc_fields "$(poll_n "$CB" 1)"
	assert_output "43 loc_len_err recv 0 0 $B 0 "
	[ "$(qp_field "$B" state)" = err ]
}

@test "a receive WR with a bad lkey: rem_op_err, the receiver loc_qp_op_err" {
	pair
	"$RDMACTL" qp post-recv "$B" --sge "$MRO:0:16" --wrid 44
	"$RDMACTL" qp post "$A" send --sge "$MA:0:5" --wrid 34
	run wc_fields "$(poll_n "$CA" 1)"
	assert_output "34 rem_op_err send 0 0 $A 0 "
	run wc_fields "$(poll_n "$CB" 1)"
	assert_output "44 loc_qp_op_err recv 0 0 $B 0 "
}

@test "a destination QP that does not exist: retry_exc_err" {
	CA=$(new_cq)
	A=$(new_qp "$CA")
	connect "$A" 4000
	"$RDMACTL" qp post "$A" send --sge "$MA:0:4" --wrid 35
	run wc_fields "$(poll_n "$CA" 1)"
	assert_output "35 retry_exc_err send 0 0 $A 0 "
}

@test "after an error every outstanding WR of both queues flushes, in order" {
	pair
	"$RDMACTL" qp post-recv "$A" --sge "$MA:0:8" --wrid 50
	"$RDMACTL" qp post-recv "$A" --sge "$MA:0:8" --wrid 51
	# rnr_retry 7 on A: the first send waits for a receive WR of B, holding 37 and 38 behind it.
	"$RDMACTL" qp post "$A" send --sge "$MA:0:4" --wrid 36
	"$RDMACTL" qp post "$A" send --sge "$MA:0:4" --wrid 37 --signaled
	"$RDMACTL" qp post "$A" write --sge "$MA:0:4" --remote "$MB:0" --wrid 38
	sleep 0.2
	run "$RDMACTL" -j cq poll "$CA"
	assert_output '[]'
	"$RDMACTL" qp modify "$A" --state err
	run wc_fields "$(poll_n "$CA" 5)"
	assert_output "36 wr_flush_err send 0 0 $A 0 
37 wr_flush_err send 0 0 $A 0 
38 wr_flush_err rdma_write 0 0 $A 0 
50 wr_flush_err recv 0 0 $A 0 
51 wr_flush_err recv 0 0 $A 0 "
	# Posted in ERR: flushed too.
	"$RDMACTL" qp post "$A" send --sge "$MA:0:4" --wrid 39
	run wc_fields "$(poll_n "$CA" 1)"
	assert_output "39 wr_flush_err send 0 0 $A 0 "
}

@test "RESET drops posted WRs without completions" {
	pair
	"$RDMACTL" qp post-recv "$B" --sge "$MB:0:8" --wrid 52
	"$RDMACTL" qp post-recv "$B" --sge "$MB:0:8" --wrid 53
	"$RDMACTL" qp modify "$B" --state reset
	connect "$B" "$A"
	"$RDMACTL" qp post "$A" send --sge "$MA:0:4" --wrid 54 --signaled
	# The receive WRs are gone: RNR until one is posted after the RESET.
	sleep 0.2
	run "$RDMACTL" -j cq poll "$CB"
	assert_output '[]'
	"$RDMACTL" qp post-recv "$B" --sge "$MB:0:8" --wrid 55
	run wc_fields "$(poll_n "$CB" 1)"
	assert_output "55 success recv 4 0 $B 0 "
}

# ---- RNR (§3.4, §4.2) ----

@test "RNR: rnr_retry 0 fails at once, 2 after three NAKs, 7 waits until a receive WR comes" {
	CA=$(new_cq)
	CB=$(new_cq)
	A=$(new_qp "$CA")
	B=$(new_qp "$CB")
	connect "$A" "$B" local_write,remote_write,remote_read 0
	connect "$B" "$A"
	"$RDMACTL" qp post "$A" send --sge "$MA:0:4" --wrid 60
	run wc_fields "$(poll_n "$CA" 1)"
	assert_output "60 rnr_retry_exc_err send 0 0 $A 0 "
	[ "$(qp_field "$A" datapath.rnr_naks)" = 1 ]
	[ "$(qp_field "$A" state)" = err ]

	A=$(new_qp "$CA")
	B=$(new_qp "$CB")
	connect "$A" "$B" local_write,remote_write,remote_read 2
	connect "$B" "$A"
	"$RDMACTL" qp post "$A" send_imm --sge "$MA:0:4" --imm 1 --wrid 61
	run wc_fields "$(poll_n "$CA" 1)"
	assert_output "61 rnr_retry_exc_err send 0 0 $A 0 "
	[ "$(qp_field "$A" datapath.rnr_naks)" = 3 ]

	pair
	"$RDMACTL" qp post "$A" write_imm --sge "$MA:0:4" --remote "$MB:0" --imm 2 --wrid 62 --signaled
	sleep 0.3
	run "$RDMACTL" -j cq poll "$CA"
	assert_output '[]'
	[ "$(qp_field "$A" datapath.rnr_naks)" -ge 2 ]
	[ "$(qp_field "$A" state)" = rts ]
	"$RDMACTL" qp post-recv "$B" --wrid 63
	run wc_fields "$(poll_n "$CA" 1)"
	assert_output "62 success rdma_write 4 0 $A 0 "
	run wc_fields "$(poll_n "$CB" 1)"
	assert_output "63 success recv_rdma_with_imm 4 2 $B 0 with_imm"
}

# ---- CQ ----

@test "cq poll --wait: answered when the completion arrives, or empty when the time has passed" {
	pair
	start=$(date +%s%N)
	run "$RDMACTL" -j cq poll "$CA" --wait 300
	assert_success
	assert_output '[]'
	[ $(( ($(date +%s%N) - start) / 1000000 )) -ge 280 ]

	"$RDMACTL" -j cq poll "$CA" --wait 5000 >"$BATS_TEST_TMPDIR/polled" &
	poller=$!
	sleep 0.3
	start=$(date +%s%N)
	"$RDMACTL" qp post "$A" write --sge "$MA:0:4" --remote "$MB:0" --wrid 70 --signaled
	wait "$poller"
	[ $(( ($(date +%s%N) - start) / 1000000 )) -lt 3000 ]
	run wc_fields "$(cat "$BATS_TEST_TMPDIR/polled")"
	assert_output "70 success rdma_write 4 0 $A 0 "
}

@test "cq poll --max takes that many, oldest first" {
	pair
	for i in 1 2 3; do
		"$RDMACTL" qp post "$A" write --sge "$MA:0:4" --remote "$MB:0" --wrid "$i" --signaled
	done
	sleep 0.3
	run "$RDMACTL" -j cq poll "$CA" --max 2
	[ "$(jq -r 'map(.wr_id) | join(" ")' <<<"$output")" = "1 2" ]
	run "$RDMACTL" -j cq poll "$CA" --max 2
	[ "$(jq -r 'map(.wr_id) | join(" ")' <<<"$output")" = "3" ]
}

@test "a full CQ: the completion is lost, counted, and its QP goes to ERR" {
	CA=$(new_cq 1)
	CB=$(new_cq)
	A=$(new_qp "$CA")
	B=$(new_qp "$CB")
	connect "$A" "$B"
	connect "$B" "$A"
	"$RDMACTL" qp post "$A" write --sge "$MA:0:4" --remote "$MB:0" --wrid 80 --signaled
	"$RDMACTL" qp post "$A" write --sge "$MA:0:4" --remote "$MB:0" --wrid 81 --signaled
	sleep 0.3
	[ "$(qp_field "$A" datapath.cq_overflows)" = 1 ]
	[ "$(qp_field "$A" state)" = err ]
	run wc_fields "$("$RDMACTL" -j cq poll "$CA")"
	assert_output "80 success rdma_write 4 0 $A 0 "
}

# ---- counters ----

@test "counters: WRs by opcode, bytes, completions by status, in qp show and dev show" {
	before=$("$RDMACTL" -j dev show | jq -c '.[0].datapath')
	pair
	"$RDMACTL" qp post-recv "$B" --sge "$MB:0:64" --wrid 1
	"$RDMACTL" qp post "$A" send --sge "$MA:0:10" --wrid 1 --signaled
	"$RDMACTL" qp post "$A" write --sge "$MA:0:20" --remote "$MB:0" --wrid 2
	"$RDMACTL" qp post "$A" read --sge "$MA:0:30" --remote "$MB:0" --wrid 3 --signaled
	poll_n "$CA" 2 >/dev/null
	poll_n "$CB" 1 >/dev/null
	run "$RDMACTL" -j qp show "$A"
	assert_success
	[ "$(jq -c '.[0].datapath.wrs' <<<"$output")" = '{"write":1,"write_imm":0,"send":1,"send_imm":0,"read":1,"local_inv":0,"send_inv":0,"configure":0}' ]
	[ "$(jq -r '.[0].datapath | "\(.bytes_sent) \(.bytes_read) \(.completions.success) \(.recvs)"' <<<"$output")" = "30 30 2 0" ]
	run "$RDMACTL" -j qp show "$B"
	[ "$(jq -r '.[0].datapath | "\(.recvs) \(.completions.success) \(.wrs.send)"' <<<"$output")" = "1 1 0" ]
	after=$("$RDMACTL" -j dev show | jq -c '.[0].datapath')
	[ "$(jq -n --argjson a "$after" --argjson b "$before" '$a.wrs.send - $b.wrs.send')" = 1 ]
	[ "$(jq -n --argjson a "$after" --argjson b "$before" '$a.bytes_sent - $b.bytes_sent')" = 30 ]
	[ "$(jq -n --argjson a "$after" --argjson b "$before" '$a.completions.success - $b.completions.success')" = 3 ]
}

# ---- refusals: exit 1 with the error and field, exit 2 for usage; nothing posted ----

@test "post refused: before RTS, wrong opcode for the type, SGEs, inline, imm, remote" {
	CA=$(new_cq)
	A=$(new_qp "$CA" --max-inline-data 8)
	run "$RDMACTL" qp post "$A" send --sge "$MA:0:4"
	assert_refused Qp InvalidState state
	run "$RDMACTL" qp post-recv "$A" --sge "$MA:0:4"
	assert_refused Qp InvalidState state
	B=$(new_qp "$CA")
	connect "$A" "$B"
	connect "$B" "$A"
	run "$RDMACTL" qp post "$A" send --sge "$MA:0:4" --sge "$MA:4:4"
	assert_refused Qp InvalidArgument sges
	run "$RDMACTL" qp post "$A" send --inline 000102030405060708
	assert_refused Qp InvalidArgument inline
	run "$RDMACTL" qp post "$A" send --inline 0g
	assert_refused Qp InvalidArgument inline
	run "$RDMACTL" qp post "$A" send --inline 00 --sge "$MA:0:1"
	assert_refused Qp InvalidArgument sges
	run "$RDMACTL" qp post "$A" send_imm --sge "$MA:0:4"
	assert_refused Qp InvalidArgument imm
	run "$RDMACTL" qp post "$A" send --sge "$MA:0:4" --imm 3
	assert_refused Qp InvalidArgument imm
	run "$RDMACTL" qp post "$A" write --sge "$MA:0:4"
	assert_refused Qp InvalidArgument remote
	run "$RDMACTL" qp post "$A" send --sge "$MA:0:4" --remote "$MB:0"
	assert_refused Qp InvalidArgument remote
	run "$RDMACTL" qp post 9999 send --sge "$MA:0:4"
	assert_failure 1
	assert_output --partial "io.rdmad.Qp.NoSuchObject: kind 'qp', handle '9999'"
	# UC carries no RDMA READ.
	U=$("$RDMACTL" -j qp create --pd 1 --send-cq "$CA" --recv-cq "$CA" --type uc | jq -r '.[0].handle')
	"$RDMACTL" qp modify "$U" --state init --access remote_write
	"$RDMACTL" qp modify "$U" --state rtr --dgid fe80::1 --sgid-index 0 --path-mtu 1024 --dest-qp "$B" --rq-psn 0
	"$RDMACTL" qp modify "$U" --state rts --sq-psn 0
	run "$RDMACTL" qp post "$U" read --sge "$MA:0:4" --remote "$MB:0"
	assert_refused Qp InvalidArgument opcode
	# Nothing was posted: the counters did not move.
	[ "$("$RDMACTL" -j qp show "$A" | jq -r '.[0].datapath.wrs | add')" = 0 ]
	run "$RDMACTL" -j cq poll "$CA"
	assert_output '[]'
}

@test "post refused when the queue holds max_send_wr / max_recv_wr WRs" {
	CA=$(new_cq)
	A=$(new_qp "$CA" --max-recv-wr 2)
	"$RDMACTL" qp modify "$A" --state init --access local_write
	"$RDMACTL" qp post-recv "$A" --sge "$MA:0:4" --wrid 1
	"$RDMACTL" qp post-recv "$A" --sge "$MA:0:4" --wrid 2
	run "$RDMACTL" qp post-recv "$A" --sge "$MA:0:4" --wrid 3
	assert_refused Qp InvalidState recv
	# The two that fit flush in order when the QP goes to ERR.
	"$RDMACTL" qp modify "$A" --state err
	run wc_fields "$(poll_n "$CA" 2)"
	assert_output "1 wr_flush_err recv 0 0 $A 0 
2 wr_flush_err recv 0 0 $A 0 "
}

@test "usage errors: bad --sge, bad --remote, unknown opcode (exit 2)" {
	run "$RDMACTL" qp post 2 send --sge 1:2
	assert_failure 2
	run "$RDMACTL" qp post 2 send --sge a:b:c
	assert_failure 2
	run "$RDMACTL" qp post 2 write --sge 1:0:4 --remote 1
	assert_failure 2
	run "$RDMACTL" qp post 2 atomic --sge 1:0:4
	assert_failure 2
	run "$RDMACTL" qp post-recv 2 --sge 1:0:-4
	assert_failure 2
}

@test "cq poll refused: max out of range, wait too long, no such CQ" {
	CA=$(new_cq)
	run "$RDMACTL" cq poll "$CA" --max 0
	assert_refused Cq InvalidArgument max
	run "$RDMACTL" cq poll "$CA" --max 1025
	assert_refused Cq InvalidArgument max
	run "$RDMACTL" cq poll "$CA" --wait 3600001
	assert_refused Cq InvalidArgument wait
	run "$RDMACTL" cq poll 999
	assert_failure 1
	assert_output --partial "io.rdmad.Cq.NoSuchObject: kind 'cq', handle '999'"
}

@test "raw varlink: PostRecv, PostSend, Poll" {
	pair
	run varlink_raw '{"method":"io.rdmad.Qp.PostRecv","parameters":{"handle":'"$B"',"wr_id":5,"sges":[{"key":'"$MB"',"offset":0,"length":8}]}}\0'
	assert_output '{"parameters":{}}'
	run varlink_raw '{"method":"io.rdmad.Qp.PostSend","parameters":{"handle":'"$A"',"opcode":"send","wr_id":6,"sges":[{"key":'"$MA"',"offset":0,"length":8}],"signaled":true}}\0'
	assert_output '{"parameters":{}}'
	run varlink_raw '{"method":"io.rdmad.Cq.Poll","parameters":{"handle":'"$CB"',"wait":2000}}\0'
	assert_output '{"parameters":{"completions":[{"wr_id":5,"status":"success","opcode":"recv","byte_len":8,"imm":0,"qp":'"$B"',"src_qp":0,"flags":[]}]}}'
	run varlink_raw '{"method":"io.rdmad.Qp.PostSend","parameters":{"handle":'"$A"',"opcode":"fetch_add"}}\0'
	assert_output '{"error":"org.varlink.service.InvalidParameter","parameters":{"parameter":"opcode"}}'
	run varlink_raw '{"method":"io.rdmad.Qp.PostSend","parameters":{"handle":'"$A"',"opcode":"send","wr_id":-1}}\0'
	assert_output --partial '"error":"io.rdmad.Qp.InvalidArgument","parameters":{"field":"wr_id"'
	run varlink_raw '{"method":"io.rdmad.Cq.Poll","parameters":{"handle":'"$CA"',"max":"x"}}\0'
	assert_output '{"error":"org.varlink.service.InvalidParameter","parameters":{"parameter":"max"}}'
}

@test "UC: a message the responder cannot take is lost, the sender succeeds" {
	CA=$(new_cq)
	CB=$(new_cq)
	A=$("$RDMACTL" -j qp create --pd 1 --send-cq "$CA" --recv-cq "$CA" --type uc | jq -r '.[0].handle')
	B=$("$RDMACTL" -j qp create --pd 1 --send-cq "$CB" --recv-cq "$CB" --type uc | jq -r '.[0].handle')
	for q in "$A:$B" "$B:$A"; do
		"$RDMACTL" qp modify "${q%:*}" --state init --access remote_write
		"$RDMACTL" qp modify "${q%:*}" --state rtr --dgid fe80::1 --sgid-index 0 --path-mtu 1024 \
			--dest-qp "${q#*:}" --rq-psn 0
		"$RDMACTL" qp modify "${q%:*}" --state rts --sq-psn 0
	done
	"$RDMACTL" qp post "$A" send --sge "$MA:0:4" --wrid 90 --signaled
	run wc_fields "$(poll_n "$CA" 1)"
	assert_output "90 success send 4 0 $A 0 "
	put "$MA" 3000 99887766
	"$RDMACTL" qp post-recv "$B" --sge "$MB:3000:4" --wrid 91
	"$RDMACTL" qp post "$A" send --sge "$MA:3000:4" --wrid 92 --signaled
	run wc_fields "$(poll_n "$CB" 1)"
	assert_output "91 success recv 4 0 $B 0 "
	run get "$MB" 3000 4
	assert_output 99887766
}

@test "an MR named by a WR not yet executed is not destroyed; once the WR is done it is" {
	pair
	M=$(new_mr 1 4096 local_write,remote_write,remote_read)
	# RNR (rnr_retry 7): the send waits at the head of A's send queue.
	"$RDMACTL" qp post "$A" send --sge "$M:0:4" --wrid 1
	run "$RDMACTL" mr destroy "$M"
	assert_failure 1
	assert_output --partial "io.rdmad.Mr.ObjectInUse: kind 'mr', handle '$(printf 0x%x "$M")', user_kind 'qp', user_handle '$A'"
	"$RDMACTL" mr show "$M" >/dev/null
	"$RDMACTL" qp modify "$A" --state err
	poll_n "$CA" 1 >/dev/null
	"$RDMACTL" mr destroy "$M"
	# A receive WR naming it holds it the same way.
	M=$(new_mr 1 4096 local_write)
	"$RDMACTL" qp post-recv "$B" --sge "$M:0:4" --wrid 2
	run "$RDMACTL" mr destroy "$M"
	assert_failure 1
	assert_output --partial "user_kind 'qp', user_handle '$B'"
}

@test "cq notify: an armed CQ counts one event on the next completion, solicited ones when armed so" {
	pair
	"$RDMACTL" cq notify "$CB" --solicited
	"$RDMACTL" qp post-recv "$B" --sge "$MB:0:8" --wrid 1
	"$RDMACTL" qp post-recv "$B" --sge "$MB:0:8" --wrid 2
	"$RDMACTL" qp post "$A" send --sge "$MA:0:4" --wrid 1
	poll_n "$CB" 1 >/dev/null
	# Not solicited: still armed, no event.
	run "$RDMACTL" -j cq show "$CB"
	[ "$(jq -r '.[0] | "\(.armed) \(.events)"' <<<"$output")" = "solicited 0" ]
	"$RDMACTL" qp post "$A" send --sge "$MA:0:4" --wrid 2 --solicited
	poll_n "$CB" 1 >/dev/null
	run "$RDMACTL" -j cq show "$CB"
	[ "$(jq -r '.[0] | "\(.armed) \(.events)"' <<<"$output")" = "none 1" ]
	# Disarmed: the next completion raises nothing; armed for next, any completion does.
	"$RDMACTL" qp post "$A" write --sge "$MA:0:4" --remote "$MB:0" --wrid 3 --signaled
	poll_n "$CA" 1 >/dev/null
	"$RDMACTL" cq notify "$CA" --next
	[ "$("$RDMACTL" -j cq show "$CA" | jq -r '.[0].events')" = 0 ]
	"$RDMACTL" qp post "$A" write --sge "$MA:0:4" --remote "$MB:0" --wrid 4 --signaled
	poll_n "$CA" 1 >/dev/null
	run "$RDMACTL" -j cq show "$CA"
	[ "$(jq -r '.[0] | "\(.armed) \(.events)"' <<<"$output")" = "none 1" ]
}

# ---- UD (§4.1 UD SEND, §4.2 UD drops) ----

# ud_qp CQ QKEY: a UD QP of PD 1 in RTS with that Q_Key; prints its number.
ud_qp() {
	local qp
	qp=$("$RDMACTL" -j qp create --pd 1 --send-cq "$1" --recv-cq "$1" --type ud | jq -r '.[0].handle')
	"$RDMACTL" qp modify "$qp" --state init --qkey "$2"
	"$RDMACTL" qp modify "$qp" --state rtr
	"$RDMACTL" qp modify "$qp" --state rts --sq-psn 0
	echo "$qp"
}

# ipv4_header HEX: checks version, lengths, TTL, protocol and the header checksum
# (RFC 791: the one's complement sum over the header is 0xffff).
ipv4_header_ok() {
	python3 - "$1" "$2" <<'PY'
import sys
h = bytes.fromhex(sys.argv[1]); total = int(sys.argv[2])
s = sum(h[i] << 8 | h[i + 1] for i in range(0, 20, 2))
while s >> 16: s = (s & 0xffff) + (s >> 16)
assert h[0] == 0x45 and int.from_bytes(h[2:4], "big") == total and h[8] == 64 and h[9] == 17, h.hex()
assert s == 0xffff, hex(s)
assert h[12:16] == bytes([192, 0, 2, 1]) and h[16:20] == bytes([192, 0, 2, 1])
PY
}

@test "UD send: the receiver gets the GRH area, then the payload; src_qp and grh" {
	"$RDMACTL" gid add 1 192.0.2.1 >/dev/null
	AH6=$("$RDMACTL" -j ah create 1 --dgid fe80::1 --sgid-index 0 --flow-label 5 --hop-limit 9 \
		--traffic-class 3 | jq -r '.[0].handle')
	AH4=$("$RDMACTL" -j ah create 1 --dgid 192.0.2.1 --sgid-index 1 | jq -r '.[0].handle')
	CA=$(new_cq)
	CB=$(new_cq)
	A=$(ud_qp "$CA" 0x1111)
	B=$(ud_qp "$CB" 0x1111)
	put "$MA" 3100 616263646566
	"$RDMACTL" qp post-recv "$B" --sge "$MB:3200:100" --wrid 1
	"$RDMACTL" qp post "$A" send_imm --sge "$MA:3100:6" --ah "$AH6" --dest-qp "$B" --qkey 0x1111 \
		--imm 9 --wrid 2 --signaled
	run wc_fields "$(poll_n "$CB" 1)"
	assert_output "1 success recv 46 9 $B $A grh,with_imm"
	run wc_fields "$(poll_n "$CA" 1)"
	assert_output "2 success send 6 0 $A 0 "
	# IPv6 header: version 6, traffic class 3, flow label 5; payload length
	# UDP 8 + BTH 12 + DETH 8 + ImmDt 4 + 6 bytes + 2 pad + ICRC 4 = 44; UDP; hop limit 9.
	run get "$MB" 3200 46
	assert_output "60300005002c1109fe800000000000000000000000000001fe800000000000000000000000000001616263646566"
	# IPv4-mapped GIDs: 20 zero bytes, then an IPv4 header (total 20 + 40), and the
	# sending QP's own Q_Key when bit 31 is set.
	"$RDMACTL" qp post-recv "$B" --sge "$MB:3300:100" --wrid 3
	"$RDMACTL" qp post "$A" send --sge "$MA:3100:6" --ah "$AH4" --dest-qp "$B" --qkey 0x80000000 --wrid 4
	run wc_fields "$(poll_n "$CB" 1)"
	assert_output "3 success recv 46 0 $B $A grh"
	run get "$MB" 3300 20
	assert_output 0000000000000000000000000000000000000000
	ipv4_header_ok "$(get "$MB" 3320 20)" 60
	run get "$MB" 3340 6
	assert_output 616263646566
	[ "$(qp_field "$B" datapath.recvs)" = 2 ]
}

@test "UD drops what it cannot deliver; the sender succeeds and counts it lost" {
	AH6=$("$RDMACTL" -j ah create 1 --dgid fe80::1 --sgid-index 0 | jq -r '.[0].handle')
	AHX=$("$RDMACTL" -j ah create 1 --dgid fe80::99 --sgid-index 0 | jq -r '.[0].handle')
	CA=$(new_cq)
	CB=$(new_cq)
	A=$(ud_qp "$CA" 0x1111)
	B=$(ud_qp "$CB" 0x1111)
	# No receive WR; then a wrong Q_Key, another GID, no such QP, too long for
	# the receive WR (40 + 6 > 40), longer than the port MTU (1024).
	"$RDMACTL" qp post "$A" send --sge "$MA:0:6" --ah "$AH6" --dest-qp "$B" --qkey 0x1111 --wrid 1 --signaled
	"$RDMACTL" qp post-recv "$B" --sge "$MB:0:40" --wrid 9
	"$RDMACTL" qp post "$A" send --sge "$MA:0:6" --ah "$AH6" --dest-qp "$B" --qkey 0x2222 --wrid 2 --signaled
	"$RDMACTL" qp post "$A" send --sge "$MA:0:6" --ah "$AHX" --dest-qp "$B" --qkey 0x1111 --wrid 3 --signaled
	"$RDMACTL" qp post "$A" send --sge "$MA:0:6" --ah "$AH6" --dest-qp 4000 --qkey 0x1111 --wrid 4 --signaled
	"$RDMACTL" qp post "$A" send --sge "$MA:0:6" --ah "$AH6" --dest-qp "$B" --qkey 0x1111 --wrid 5 --signaled
	"$RDMACTL" qp post "$A" send --sge "$MA:0:1025" --ah "$AH6" --dest-qp "$B" --qkey 0x1111 --wrid 6 --signaled
	run wc_fields "$(poll_n "$CA" 6)"
	assert_output "1 success send 6 0 $A 0 
2 success send 6 0 $A 0 
3 success send 6 0 $A 0 
4 success send 6 0 $A 0 
5 success send 6 0 $A 0 
6 success send 1025 0 $A 0 "
	[ "$(qp_field "$A" datapath.lost)" = 6 ]
	[ "$(qp_field "$A" state)" = rts ]
	[ "$(qp_field "$B" state)" = rts ]
	run "$RDMACTL" -j cq poll "$CB"
	assert_output '[]'
}

@test "UD post refused: no AH, an AH of another PD, write, a connected QP given --ah" {
	AH2=$("$RDMACTL" -j ah create 2 --dgid fe80::1 --sgid-index 0 | jq -r '.[0].handle')
	CA=$(new_cq)
	A=$(ud_qp "$CA" 1)
	run "$RDMACTL" qp post "$A" send --sge "$MA:0:4"
	assert_refused Qp InvalidArgument ud
	run "$RDMACTL" qp post "$A" send --sge "$MA:0:4" --ah 999 --dest-qp 2 --qkey 1
	assert_refused Qp InvalidArgument ud.ah
	run "$RDMACTL" qp post "$A" send --sge "$MA:0:4" --ah "$AH2" --dest-qp 2 --qkey 1
	assert_refused Qp InvalidArgument ud.ah
	run "$RDMACTL" qp post "$A" write --sge "$MA:0:4" --remote "$MB:0" --ah "$AH2" --dest-qp 2 --qkey 1
	assert_refused Qp InvalidArgument opcode
	run "$RDMACTL" qp post "$A" send --sge "$MA:0:4" --ah "$AH2" --dest-qp 2
	assert_failure 2
	pair
	run "$RDMACTL" qp post "$A" send --sge "$MA:0:4" --ah "$AH2" --dest-qp 2 --qkey 1
	assert_refused Qp InvalidArgument ud
	run "$RDMACTL" -j cq poll "$CA"
	assert_output '[]'
}

@test "the monitor sees both QPs of a remote access error go from RTS to ERR" {
	pair
	out=$BATS_TEST_TMPDIR/events
	"$RDMACTL" -j monitor --type qp_state >"$out" 2>&1 3>&- &
	monitor=$!
	for i in $(seq 1 100); do
		grep -q subscribed "$out" && break
		sleep 0.05
	done
	"$RDMACTL" qp post "$A" write --sge "$MA:0:4" --remote "999999:0" --wrid 1
	poll_n "$CA" 1 >/dev/null
	for i in $(seq 1 100); do
		[ "$(wc -l <"$out")" -ge 3 ] && break
		sleep 0.05
	done
	kill "$monitor"
	run cat "$out"
	# The responder first, then the requester: the order the worker found them.
	assert_line --index 1 --regexp "\"handle\":$B,\"old_state\":\"rts\",\"new_state\":\"err\"\}$"
	assert_line --index 2 --regexp "\"handle\":$A,\"old_state\":\"rts\",\"new_state\":\"err\"\}$"
}

@test "QPs destroyed with WRs queued, their CQs destroyed while a poll waits: the daemon goes on" {
	pair
	"$RDMACTL" qp post-recv "$B" --sge "$MB:0:8" --wrid 1
	"$RDMACTL" qp post "$A" send --sge "$MA:0:4" --wrid 2
	"$RDMACTL" qp post "$A" send --sge "$MA:0:4" --wrid 3
	"$RDMACTL" -j cq poll "$CB" --wait 1500 >"$BATS_TEST_TMPDIR/polled" &
	poller=$!
	"$RDMACTL" qp destroy "$A"
	"$RDMACTL" qp destroy "$B"
	"$RDMACTL" cq destroy "$CA"
	"$RDMACTL" cq destroy "$CB"
	wait "$poller"
	# The waiter had the completion of the first send, or nothing if the QPs went first.
	jq -e 'length <= 1' "$BATS_TEST_TMPDIR/polled"
	run "$RDMACTL" cq show "$CB"
	assert_failure 1
	assert_daemon_serves
	# And queued WRs of live QPs when the daemon stops are for teardown_file (no leak under ASan).
	pair
	"$RDMACTL" qp post "$A" send --sge "$MA:0:4" --wrid 4
	"$RDMACTL" -j cq poll "$CA" --wait 60000 >/dev/null 2>&1 3>&- &
}

@test "RESET from INIT drops the receive WRs posted there too" {
	CA=$(new_cq)
	CB=$(new_cq)
	A=$(new_qp "$CA")
	B=$(new_qp "$CB")
	"$RDMACTL" qp modify "$B" --state init --access local_write,remote_write,remote_read
	"$RDMACTL" qp post-recv "$B" --sge "$MB:0:8" --wrid 1
	"$RDMACTL" qp modify "$B" --state reset
	connect "$A" "$B" local_write,remote_write,remote_read 0
	connect "$B" "$A"
	# B's receive queue is empty: the send meets an RNR NAK and, with rnr_retry 0, fails.
	"$RDMACTL" qp post "$A" send --sge "$MA:0:4" --wrid 2
	run wc_fields "$(poll_n "$CA" 1)"
	assert_output "2 rnr_retry_exc_err send 0 0 $A 0 "
	run "$RDMACTL" -j cq poll "$CB"
	assert_output '[]'
}

@test "QPs that started on different workers, reset and connected to each other, talk" {
	CA=$(new_cq)
	CB=$(new_cq)
	A=$(new_qp "$CA")
	B=$(new_qp "$CB")
	# Each connected to nobody first: round robin puts them on different workers (with two or more).
	connect "$A" 5000
	connect "$B" 5001
	"$RDMACTL" qp modify "$A" --state reset
	"$RDMACTL" qp modify "$B" --state reset
	connect "$A" "$B"
	connect "$B" "$A"
	put "$MA" 3500 c0ffee
	"$RDMACTL" qp post-recv "$B" --sge "$MB:3500:8" --wrid 1
	"$RDMACTL" qp post "$A" send --sge "$MA:3500:3" --wrid 2 --signaled
	run wc_fields "$(poll_n "$CA" 1)"
	assert_output "2 success send 3 0 $A 0 "
	run get "$MB" 3500 3
	assert_output c0ffee
}
