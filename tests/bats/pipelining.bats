#!/usr/bin/env bats
# Transfers through MKEYs on the data path, signature errors, signature
# pipelining and its recovery, against a real rdmad.  Expected bytes: the
# HW-backed T10-DIF tuple of reference mlx5_sig_crypto.md §2.2 (512 x 0xA5,
# bg 0xFFFF -> guard 0xEC7D; app 0x5678, ref 0xF0DEBC9A) and IEEE 1619
# vector 2; through plain MKEYs, the layout's bytes taken by hand.  The
# pipelining flow and its completions: seed 003 and reference §5 (a data
# WRITE, then a fenced, signaled SEND with the same wr_id).

load helper
load qp-helper

GOOD_PI=ec7d5678f0debc9a
BAD_PI=00005678f0debc9a

setup_file() {
	# QPs created without --recovery follow rdmad.conf.
	echo "recovery = auto" >"$BATS_FILE_TMPDIR/rdmad.conf"
	datapath_start
}
teardown_file() { rdmad_stop; }

setup() {
	load_libs
	cd "$BATS_TEST_TMPDIR"
	MEM=$(new_mr 1 8192 local_write,remote_write,remote_read)
	PEER=$(new_mr 1 8192 local_write,remote_write,remote_read)
	echo "$T10_CONFIG" >t10.json
}

# server POLICY [CREATE OPTIONS...]: S (sig_pipelining, recovery POLICY) connected to client C;
# CS, CC their CQs.
server() {
	local policy=$1
	shift
	CS=$(new_cq 64)
	CC=$(new_cq 64)
	S=$(new_qp "$CS" --sig-pipelining --recovery "$policy" --max-send-wr 32 "$@")
	C=$(new_qp "$CC" --max-recv-wr 32)
	connect "$S" "$C" >/dev/null
	connect "$C" "$S" >/dev/null
}

# transaction WRID MKEY: the seed's pair, under one doorbell: the data WRITE from MKEY
# (unsignaled), then the fenced signaled response.
transaction() {
	cat >wrs.json <<-EOF
	[{"opcode":"write","wr_id":$1,"sges":[{"key":$2,"offset":0,"length":512}],"remote":{"key":$PEER,"offset":$(( $1 * 512 ))}},
	 {"opcode":"send","wr_id":$1,"sges":[{"key":$MEM,"offset":4096,"length":16}],"signaled":true,"fence":true}]
	EOF
	"$RDMACTL" qp post-list "$S" --file wrs.json
}

counters() {
	"$RDMACTL" -j qp show "$1" | jq -c '.[0].datapath | [.sig_errors.guard, .sig_stops, .sqd_entries, .recoveries, .wrs_canceled, .nops]'
}

wait_state() { # QP STATE
	for i in $(seq 1 100); do
		[ "$(qp_field "$1" state)" = "$2" ] && return 0
		sleep 0.02
	done
	qp_field "$1" state >&2
	return 1
}

# ---- transfers through MKEYs ----

@test "write from a T10-DIF MKEY (PI in memory only): the wire carries the data, the PI is checked and stripped" {
	server manual
	k=$(t10_mkey "$MEM" 0 "$GOOD_PI")
	"$RDMACTL" qp post "$S" write --sge "$k:0:512" --remote "$PEER:0" --wrid 7 --signaled
	assert_equal "$(wc_fields "$(poll_n "$CS" 1)")" "7 success rdma_write 512 0 $S 0 "
	assert_equal "$(get "$PEER" 0 520)" "$(a5 512)0000000000000000"
	assert_equal "$("$RDMACTL" -j mkey check "$k" | jq -r .err_type)" none
	assert_equal "$("$RDMACTL" -j mkey show "$k" | jq -c '.[0] | [.transfers, (.sig_errors | add)]')" "[1,0]"
}

@test "write into an MKEY (rkey): the responder's RX inserts the T10-DIF tuple of the reference" {
	server manual
	put "$PEER" 0 "$(a5 512)"
	put "$MEM" 1024 "$(printf '00%.0s' $(seq 1 520))"
	k=$(t10_mkey_over "$MEM" 1024 local_write,remote_write)
	# C writes 512 wire bytes into S's MKEY.
	"$RDMACTL" qp post "$C" write --sge "$PEER:0:512" --remote "$k:0" --wrid 9 --signaled
	assert_equal "$(wc_fields "$(poll_n "$CC" 1)")" "9 success rdma_write 512 0 $C 0 "
	assert_equal "$(get "$MEM" 1024 520)" "$(a5 512)$GOOD_PI"
}

@test "read from an MKEY (rkey): the responder's TX checks and strips; an MKEY range past its layout fails the WR" {
	server manual
	k=$(t10_mkey "$MEM" 0 "$GOOD_PI")
	"$RDMACTL" qp post "$C" read --sge "$PEER:2048:512" --remote "$k:0" --wrid 3 --signaled
	assert_equal "$(wc_fields "$(poll_n "$CC" 1)")" "3 success rdma_read 512 0 $C 0 "
	assert_equal "$(get "$PEER" 2048 512)" "$(a5 512)"
	# 1024 wire bytes are two blocks: the layout holds one.
	"$RDMACTL" qp post "$S" write --sge "$k:0:1024" --remote "$PEER:0" --wrid 4
	assert_equal "$(wc_fields "$(poll_n "$CS" 1)")" "4 loc_prot_err rdma_write 0 0 $S 0 "
	assert_equal "$(qp_field "$S" state)" err
}

@test "AES-XTS through an MKEY on the data path: IEEE 1619 vector 2 on the wire" {
	server manual
	python3 -c "import sys; sys.stdout.buffer.write(bytes.fromhex('11'*16 + '22'*16))" >key
	chmod 600 key
	dek=$("$RDMACTL" -j dek create dpv2 --size 128 --key-file "$PWD/key" | jq -r '.[0].handle')
	put "$MEM" 64 "$(printf '44%.0s' $(seq 1 32))"
	k=$("$RDMACTL" -j mkey create 1 --flags crypto --max-entries 4 | jq -r '.[0].handle')
	echo '{"mem":null,"wire":null,"crypto":{"standard":"aes_xts","encrypt_on_tx":true,"signature_crypto_order":"signature_after_crypto_on_tx","data_unit_size":512,"initial_tweak":"33333333330000000000000000000000"}}' >x.json
	"$RDMACTL" mkey configure "$k" --layout "$MEM:64:32" --config x.json --dek "$dek" >/dev/null
	"$RDMACTL" qp post-recv "$C" --sge "$PEER:0:64" --wrid 5
	"$RDMACTL" qp post "$S" send --sge "$k:0:32" --wrid 6 --signaled
	assert_equal "$(wc_fields "$(poll_n "$CC" 1)")" "5 success recv 32 0 $C 0 "
	assert_equal "$(get "$PEER" 0 32)" c454185e6a16936e39334038acef838bfb186fff7480adc4289382ecd6d394f0
	"$RDMACTL" qp destroy "$S"
	"$RDMACTL" mkey destroy "$k"
	"$RDMACTL" dek destroy dpv2
}

@test "one AES-XTS MKEY used at once by QPs on both workers: every copy on the wire is vector 2" {
	[ "$(nproc)" -ge 2 ] || skip "one CPU: one worker"
	python3 -c "import sys; sys.stdout.buffer.write(bytes.fromhex('11'*16 + '22'*16))" >key
	chmod 600 key
	dek=$("$RDMACTL" -j dek create dpboth --size 128 --key-file "$PWD/key" | jq -r '.[0].handle')
	put "$MEM" 64 "$(printf '44%.0s' $(seq 1 32))"
	k=$("$RDMACTL" -j mkey create 1 --flags crypto --max-entries 4 | jq -r '.[0].handle')
	echo '{"mem":null,"wire":null,"crypto":{"standard":"aes_xts","encrypt_on_tx":true,"signature_crypto_order":"signature_after_crypto_on_tx","data_unit_size":512,"initial_tweak":"33333333330000000000000000000000"}}' >x.json
	"$RDMACTL" mkey configure "$k" --layout "$MEM:64:32" --access local_write,remote_write --config x.json --dek "$dek" >/dev/null
	# Two pairs: round robin puts them on different workers.
	server manual
	S1=$S CS1=$CS
	server manual
	S2=$S CS2=$CS
	# 32 signaled WRITEs of the MKEY's 32 bytes from each, into PEER's first and second KiB.
	for q in 0 1; do
		jq -n --argjson k "$k" --argjson peer "$PEER" --argjson base $((q * 1024)) \
			'[range(32) | {opcode: "write", wr_id: ., signaled: true,
			  sges: [{key: $k, offset: 0, length: 32}],
			  remote: {key: $peer, offset: ($base + 32 * .)}}]' >"w$q.json"
	done
	for round in 1 2 3 4; do
		"$RDMACTL" qp post-list "$S1" --file w0.json &
		"$RDMACTL" qp post-list "$S2" --file w1.json
		wait
		[ "$(jq length <<<"$(poll_n "$CS1" 32)")" = 32 ]
		[ "$(jq length <<<"$(poll_n "$CS2" 32)")" = 32 ]
	done
	expected=$(for i in $(seq 1 32); do printf c454185e6a16936e39334038acef838bfb186fff7480adc4289382ecd6d394f0; done)
	assert_equal "$(get "$PEER" 0 1024)" "$expected"
	assert_equal "$(get "$PEER" 1024 1024)" "$expected"
	"$RDMACTL" qp destroy "$S1"
	"$RDMACTL" qp destroy "$S2"
	"$RDMACTL" mkey destroy "$k"
	"$RDMACTL" dek destroy dpboth
}

@test "a plain MKEY (no flag) as lkey: WRITE and SEND gather its list and interleaved layouts" {
	pair
	mem=$(pattern 2048)
	put "$MEM" 0 "$mem"
	k=$("$RDMACTL" -j mkey create 1 --max-entries 4 | jq -r '.[0].handle')
	"$RDMACTL" mkey configure "$k" --layout "$MEM:100:5" --layout "$MEM:1500:3" --layout "$MEM:10:7" \
		--access local_write >/dev/null
	"$RDMACTL" qp post "$A" write --sge "$k:0:15" --remote "$PEER:0" --wrid 1 --signaled
	assert_equal "$(wc_fields "$(poll_n "$CA" 1)")" "1 success rdma_write 15 0 $A 0 "
	assert_equal "$(get "$PEER" 0 15)" "$(pieces "$mem" 100:5 1500:3 10:7)"
	# A span inside the layout: bytes 3 to 12, across all three entries.
	"$RDMACTL" qp post "$A" write --sge "$k:3:10" --remote "$PEER:64" --wrid 2 --signaled
	assert_equal "$(wc_fields "$(poll_n "$CA" 1)")" "2 success rdma_write 10 0 $A 0 "
	assert_equal "$(get "$PEER" 64 10)" "$(pieces "$mem" 103:2 1500:3 10:5)"
	# Interleaved, 3 rounds: 4 bytes at 0 then 2 skipped; 3 bytes at 1000 then 5 skipped.
	"$RDMACTL" mkey configure "$k" --interleave "$MEM:0:4:2" --interleave "$MEM:1000:3:5" --repeat 3 >/dev/null
	"$RDMACTL" qp post-recv "$B" --sge "$PEER:256:64" --wrid 3
	"$RDMACTL" qp post "$A" send --sge "$k:0:21" --wrid 4 --signaled
	assert_equal "$(wc_fields "$(poll_n "$CB" 1)")" "3 success recv 21 0 $B 0 "
	assert_equal "$(get "$PEER" 256 21)" "$(pieces "$mem" 0:4 1000:3 6:4 1008:3 12:4 1016:3)"
	assert_equal "$("$RDMACTL" -j mkey show "$k" | jq -c '.[0] | [.transfers, (.sig_errors | add)]')" "[3,0]"
	# More bytes than the layout holds fail the WR.
	"$RDMACTL" qp post "$A" write --sge "$k:0:22" --remote "$PEER:0" --wrid 5
	assert_equal "$(wc_fields "$(poll_n "$CA" 2)" | tail -1)" "5 loc_prot_err rdma_write 0 0 $A 0 "
}

@test "a plain MKEY (no flag) as rkey: WRITE scatters into its interleaved layout, READ gathers it" {
	pair
	mem=$(pattern 2048)
	put "$MEM" 0 "$mem"
	k=$("$RDMACTL" -j mkey create 1 --max-entries 4 | jq -r '.[0].handle')
	"$RDMACTL" mkey configure "$k" --interleave "$MEM:0:4:2" --interleave "$MEM:1000:3:5" --repeat 3 \
		--access local_write,remote_write,remote_read >/dev/null
	new=$(python3 -c "print(bytes(range(0xc0, 0xc0 + 21)).hex())")
	put "$PEER" 512 "$new"
	"$RDMACTL" qp post "$B" write --sge "$PEER:512:21" --remote "$k:0" --wrid 1 --signaled
	assert_equal "$(wc_fields "$(poll_n "$CB" 1)")" "1 success rdma_write 21 0 $B 0 "
	after=$(get "$MEM" 0 2048)
	assert_equal "$(pieces "$after" 0:4 1000:3 6:4 1008:3 12:4 1016:3)" "$new"
	# The skipped bytes and those past the last round stay.
	assert_equal "$(pieces "$after" 4:2 10:2 16:2 1003:5 1011:5 1019:5 18:982)" \
		"$(pieces "$mem" 4:2 10:2 16:2 1003:5 1011:5 1019:5 18:982)"
	"$RDMACTL" qp post "$B" read --sge "$PEER:1024:21" --remote "$k:0" --wrid 2 --signaled
	assert_equal "$(wc_fields "$(poll_n "$CB" 1)")" "2 success rdma_read 21 0 $B 0 "
	assert_equal "$(get "$PEER" 1024 21)" "$new"
	# A READ of bytes 5 to 15.
	"$RDMACTL" qp post "$B" read --sge "$PEER:1100:11" --remote "$k:5" --wrid 3 --signaled
	assert_equal "$(wc_fields "$(poll_n "$CB" 1)")" "3 success rdma_read 11 0 $B 0 "
	assert_equal "$(get "$PEER" 1100 11)" "${new:10:22}"
}

@test "a plain MKEY's access is enforced on the data path: no remote_write, a WRITE into it fails" {
	pair
	k=$("$RDMACTL" -j mkey create 1 --max-entries 4 | jq -r '.[0].handle')
	"$RDMACTL" mkey configure "$k" --layout "$MEM:0:64" --access local_write,remote_read >/dev/null
	put "$MEM" 0 "$(a5 64)"
	"$RDMACTL" qp post "$B" write --sge "$PEER:0:64" --remote "$k:0" --wrid 1 --signaled
	run wc_fields "$(poll_n "$CB" 1)"
	assert_output --regexp "^1 rem_access_err rdma_write "
	assert_equal "$(get "$MEM" 0 64)" "$(a5 64)"
}

@test "an MKEY must be the only SGE of its WR; UD QPs take none (refused, nothing posted)" {
	server manual --max-send-sge 2
	k=$(t10_mkey "$MEM" 0 "$GOOD_PI")
	run "$RDMACTL" qp post "$S" write --sge "$k:0:512" --sge "$MEM:0:8" --remote "$PEER:0"
	assert_refused Qp NotSupported sges
	cq=$(new_cq)
	ud=$("$RDMACTL" -j qp create --pd 1 --send-cq "$cq" --recv-cq "$cq" --type ud | jq -r '.[0].handle')
	"$RDMACTL" qp modify "$ud" --state init --qkey 1
	run "$RDMACTL" qp post-recv "$ud" --sge "$k:0:512"
	assert_refused Qp NotSupported sges
	assert_equal "$("$RDMACTL" -j qp show "$S" | jq -c '.[0].datapath.wrs')" \
		'{"write":0,"write_imm":0,"send":0,"send_imm":0,"read":0,"local_inv":0,"send_inv":0,"configure":0}'
}

@test "post-list: all or none; a refusal names the WR; not a JSON array is an error" {
	server manual
	echo '[{"opcode":"send","wr_id":1,"inline":"00"},{"opcode":"write","wr_id":2,"sges":[{"key":1,"offset":0,"length":1}]}]' >bad.json
	run "$RDMACTL" qp post-list "$S" --file bad.json
	assert_refused Qp InvalidArgument 'wrs[1].remote'
	echo '{"opcode":"send"}' >obj.json
	run "$RDMACTL" qp post-list "$S" --file obj.json
	assert_failure 2
	assert_output --partial "must be a JSON array, not object"
	"$RDMACTL" qp post-recv "$C" --sge "$PEER:0:64" --wrid 50
	printf '[{"opcode":"send","wr_id":3,"sges":[{"key":%s,"offset":0,"length":8}],"signaled":true}]' "$MEM" |
		"$RDMACTL" qp post-list "$S" --file -
	# The first completion is WR 3's: nothing of the refused list was posted.
	assert_equal "$(wc_fields "$(poll_n "$CS" 1)")" "3 success send 8 0 $S 0 "
	assert_equal "$(wc_fields "$(poll_n "$CC" 1)")" "50 success recv 8 0 $C 0 "
}

@test "raw varlink: Cancel, Recover, PostSendList" {
	server manual
	run varlink_raw '{"method":"io.rdmad.Qp.Cancel","parameters":{"handle":'"$S"'}}\0'
	assert_output '{"error":"org.varlink.service.InvalidParameter","parameters":{"parameter":"wr_id"}}'
	# Past int64: refused, not read as some other number.
	run varlink_raw '{"method":"io.rdmad.Qp.Cancel","parameters":{"handle":'"$S"',"wr_id":18446744073709551616}}\0'
	assert_output '{"error":"org.varlink.service.InvalidParameter","parameters":{"parameter":"wr_id"}}'
	run varlink_raw '{"method":"io.rdmad.Qp.Cancel","parameters":{"handle":'"$S"',"wr_id":1}}\0'
	assert_output --partial '"error":"io.rdmad.Qp.InvalidState","parameters":{"field":"state"'
	run varlink_raw '{"method":"io.rdmad.Qp.Recover","parameters":{"handle":'"$S"'}}\0'
	assert_output --partial '"error":"io.rdmad.Qp.InvalidState","parameters":{"field":"state"'
	run varlink_raw '{"method":"io.rdmad.Qp.PostSendList","parameters":{"handle":'"$S"',"wrs":[]}}\0'
	assert_output --partial '"error":"io.rdmad.Qp.InvalidArgument","parameters":{"field":"wrs"'
	run varlink_raw '{"method":"io.rdmad.Qp.PostSendList","parameters":{"handle":'"$S"',"wrs":[{"opcode":"nop"}]}}\0'
	assert_output '{"error":"org.varlink.service.InvalidParameter","parameters":{"parameter":"wrs[0].opcode"}}'
	run varlink_raw '{"method":"io.rdmad.Qp.Create","parameters":{"pd":1,"send_cq":'"$CS"',"recv_cq":'"$CS"',"type":"rc","recovery":"later"}}\0'
	assert_output '{"error":"org.varlink.service.InvalidParameter","parameters":{"parameter":"recovery"}}'
	run varlink_raw '{"method":"io.rdmad.Qp.PostSendList","parameters":{"handle":'"$S"',"wrs":[{"opcode":"send","wr_id":4,"inline":"","signaled":true}]}}\0'
	assert_output '{"parameters":{}}'
}

# ---- signature errors and pipelining ----

@test "a signature error never fails the transfer: recorded once on the MKEY; without pipelining the QP goes on" {
	CS=$(new_cq 64)
	CC=$(new_cq 64)
	S=$(new_qp "$CS")
	C=$(new_qp "$CC")
	connect "$S" "$C" >/dev/null
	connect "$C" "$S" >/dev/null
	k=$(t10_mkey "$MEM" 0 "$BAD_PI")
	"$RDMACTL" qp post "$S" write --sge "$k:0:512" --remote "$PEER:0" --wrid 1 --signaled
	"$RDMACTL" qp post "$S" write --sge "$k:0:512" --remote "$PEER:512" --wrid 2 --signaled
	assert_equal "$(wc_fields "$(poll_n "$CS" 2)")" "1 success rdma_write 512 0 $S 0 
2 success rdma_write 512 0 $S 0 "
	assert_equal "$(get "$PEER" 512 512)" "$(a5 512)"
	assert_equal "$(qp_field "$S" state)" rts
	# Sticky and read-and-clear; the second error was not recorded (not re-armed).
	assert_equal "$("$RDMACTL" -j mkey check "$k")" '{"err_type":"guard","expected_value":0,"actual_value":60541,"offset":0}'
	assert_equal "$("$RDMACTL" -j mkey check "$k" | jq -r .err_type)" none
	assert_equal "$("$RDMACTL" -j mkey show "$k" | jq -c '.[0] | [.transfers, (.sig_errors | add)]')" "[2,2]"
	assert_equal "$(counters "$S")" "[2,0,0,0,0,0]"
}

@test "seed 003, manual: SQD after the bad WRITE, check, cancel returns 1, repost, RTS; completions as reference §5" {
	server manual
	k=$(t10_mkey "$MEM" 0 "$BAD_PI")
	out=$BATS_TEST_TMPDIR/monitor
	monitor_start "$out" -j monitor --type qp_state --type sq_drained --type sig_error \
		--type wr_canceled --type recovery
	"$RDMACTL" qp post-recv "$C" --sge "$PEER:4096:64" --wrid 100
	transaction 1 "$k"
	wait_state "$S" sqd
	# 1. poll until empty: the WRITE was unsignaled, the SEND has not run.
	assert_equal "$("$RDMACTL" -j cq poll "$CS")" '[]'
	assert_equal "$("$RDMACTL" -j cq poll "$CC")" '[]'
	# 2. the MKEY tells what failed.
	assert_equal "$("$RDMACTL" -j mkey check "$k")" '{"err_type":"guard","expected_value":0,"actual_value":60541,"offset":0}'
	# The MKEY is busy while the SEND is posted?  No: only the WRITE used it, and it ran.
	# 3. cancel the response; post an error response instead.
	run "$RDMACTL" qp cancel "$S" --wrid 1
	assert_success
	assert_output 1
	"$RDMACTL" qp post "$S" send --sge "$MEM:4096:16" --wrid 2 --signaled
	# 4. back to RTS: the NOP completes as the SEND it was, then the new response.
	"$RDMACTL" qp modify "$S" --state rts --cur-state sqd >/dev/null
	assert_equal "$(wc_fields "$(poll_n "$CS" 2)")" "1 success send 0 0 $S 0 
2 success send 16 0 $S 0 "
	assert_equal "$(wc_fields "$(poll_n "$CC" 1)")" "100 success recv 16 0 $C 0 "
	assert_equal "$(counters "$S")" "[1,1,1,0,1,1]"
	# The monitor saw it happen, in order.
	wait_for_lines "$out" 6
	monitor_stop "$out"
	run jq -r 'select(.type != "subscribed") | [.type, .handle, .new_state // .err_type // .count] | map(tostring) | join(" ")' "$out"
	assert_line --index 0 "sig_error $k guard"
	assert_line --index 1 "qp_state $S sqd"
	assert_line --index 2 "sq_drained $S null"
	assert_line --index 3 "wr_canceled $S 1"
	assert_line --index 4 "qp_state $S rts"
	assert_equal "$(jq -c 'select(.type == "sig_error") | [.qp, .wr_id]' "$out")" "[$S,1]"
}

@test "seed 003, auto: rdmad checks, cancels the response and resumes; the recovery is recorded" {
	server auto
	k=$(t10_mkey "$MEM" 0 "$BAD_PI")
	"$RDMACTL" qp post-recv "$C" --sge "$PEER:4096:64" --wrid 100
	transaction 1 "$k"
	assert_equal "$(wc_fields "$(poll_n "$CS" 1)")" "1 success send 0 0 $S 0 "
	wait_state "$S" rts
	rec=$("$RDMACTL" -j qp show "$S" | jq -c '.[0].recovery_log[0]')
	assert_equal "$(jq -c '[.seq, .trigger, .checked, .canceled, .failed]' <<<"$rec")" \
		"[1,\"auto\",1,1,[{\"mkey\":$k,\"wr_id\":1,\"record\":{\"err_type\":\"guard\",\"expected_value\":0,\"actual_value\":60541,\"offset\":0},\"canceled\":1}]]"
	[ "$(jq .since_error_ns <<<"$rec")" -gt 0 ]
	[ "$(jq .took_ns <<<"$rec")" -gt 0 ]
	# The response was withdrawn: the client got nothing; the MKEY's record was read.
	assert_equal "$("$RDMACTL" -j cq poll "$CC" --wait 100)" '[]'
	assert_equal "$("$RDMACTL" -j mkey check "$k" | jq -r .err_type)" none
	assert_equal "$(counters "$S")" "[1,1,1,1,1,1]"
	assert_equal "$("$RDMACTL" -j dev show | jq -c '.[0].datapath | [.recoveries >= 1, .wrs_canceled >= 1, .sig_stops >= 1]')" '[true,true,true]'
}

@test "several transactions in flight, one bad: only its response is withdrawn" {
	server auto
	k1=$(t10_mkey "$MEM" 0 "$GOOD_PI")
	k2=$(t10_mkey "$MEM" 1024 "$BAD_PI")
	k3=$(t10_mkey "$MEM" 2048 "$GOOD_PI")
	for i in 1 2 3; do "$RDMACTL" qp post-recv "$C" --sge "$PEER:$((4096 + i * 64)):64" --wrid $((100 + i)); done
	# Posted while in SQD (allowed: they wait), so that all three are in flight when one fails.
	"$RDMACTL" qp modify "$S" --state sqd >/dev/null
	transaction 1 "$k1"
	transaction 2 "$k2"
	transaction 3 "$k3"
	"$RDMACTL" qp modify "$S" --state rts >/dev/null
	assert_equal "$(wc_fields "$(poll_n "$CS" 3)")" "1 success send 16 0 $S 0 
2 success send 0 0 $S 0 
3 success send 16 0 $S 0 "
	assert_equal "$(wc_fields "$(poll_n "$CC" 2)")" "101 success recv 16 0 $C 0 
102 success recv 16 0 $C 0 "
	assert_equal "$("$RDMACTL" -j qp show "$S" | jq -c '.[0].recovery_log[0] | [.checked, .canceled, [.failed[].mkey]]')" "[2,1,[$k2]]"
	# All three blocks were written, the bad one too.
	assert_equal "$(get "$PEER" 1024 512)" "$(a5 512)"
}

@test "a recovery by hand forgets the stop: the next failure's transaction is the one withdrawn" {
	server manual
	k=$(t10_mkey "$MEM" 0 "$BAD_PI")
	transaction 1 "$k"
	wait_state "$S" sqd
	"$RDMACTL" mkey check "$k" >/dev/null
	assert_equal "$("$RDMACTL" qp cancel "$S" --wrid 1)" 1
	"$RDMACTL" qp modify "$S" --state rts >/dev/null
	poll_n "$CS" 1 >/dev/null
	# Configured again (re-armed), the same MKEY fails in transaction 7.
	"$RDMACTL" mkey configure "$k" --config t10.json >/dev/null
	transaction 7 "$k"
	wait_state "$S" sqd
	run "$RDMACTL" -j qp recover "$S"
	assert_success
	assert_equal "$(jq -c '.[0] | [.canceled, [.failed[] | .wr_id, .canceled]]' <<<"$output")" '[1,[7,1]]'
}

@test "the QP goes to ERR while stopped: the posted response and a canceled NOP flush in order" {
	server manual
	k=$(t10_mkey "$MEM" 0 "$BAD_PI")
	transaction 1 "$k"
	"$RDMACTL" qp post "$S" send --sge "$MEM:4096:16" --wrid 5 --signaled
	wait_state "$S" sqd
	assert_equal "$("$RDMACTL" qp cancel "$S" --wrid 1)" 1
	# The response is posted but not executed: the MKEY is not, so it may change; the QP's memory is.
	"$RDMACTL" qp modify "$S" --state err >/dev/null
	assert_equal "$(wc_fields "$(poll_n "$CS" 2)")" "1 wr_flush_err send 0 0 $S 0 
5 wr_flush_err send 0 0 $S 0 "
}

@test "cancel and recover: refused outside SQD, a second cancel of a NOP changes nothing, no match is 0" {
	server manual
	run "$RDMACTL" qp cancel "$S" --wrid 1
	assert_refused Qp InvalidState state
	run "$RDMACTL" qp recover "$S"
	assert_refused Qp InvalidState state
	k=$(t10_mkey "$MEM" 0 "$BAD_PI")
	transaction 1 "$k"
	wait_state "$S" sqd
	assert_equal "$("$RDMACTL" qp cancel "$S" --wrid 42)" 0
	assert_equal "$("$RDMACTL" -j qp cancel "$S" --wrid 1)" '{"count":1}'
	run "$RDMACTL" qp cancel "$S" --wrid 1
	assert_refused Qp InvalidState wr_id
	run "$RDMACTL" qp cancel "$S"
	assert_failure 2
	assert_equal "$(counters "$S")" "[1,1,1,0,1,0]"
	# A manual recovery finds the error already read (checked, nothing failed) and resumes.
	"$RDMACTL" mkey check "$k" >/dev/null
	run "$RDMACTL" -j qp recover "$S"
	assert_success
	assert_equal "$(jq -c '.[0] | [.seq, .trigger, .checked, .canceled, .failed]' <<<"$output")" '[1,"manual",1,0,[]]'
	assert_equal "$(qp_field "$S" state)" rts
}

@test "an MKEY posted WRs go through cannot change or go; the QP's policy comes from rdmad.conf" {
	server manual
	k=$(t10_mkey "$MEM" 0 "$GOOD_PI")
	"$RDMACTL" qp modify "$S" --state sqd >/dev/null
	"$RDMACTL" qp post "$S" write --sge "$k:0:512" --remote "$PEER:0" --wrid 1
	for cmd in "mkey destroy $k" "mkey configure $k --config t10.json" "mkey tx $k"; do
		run $RDMACTL $cmd
		assert_failure 1
		assert_output --partial "ObjectInUse"
		assert_output --partial "user_kind 'qp', user_handle '$S'"
	done
	"$RDMACTL" qp modify "$S" --state rts >/dev/null
	poll_n "$CS" 0 >/dev/null
	for i in $(seq 1 50); do "$RDMACTL" mkey destroy "$k" 2>/dev/null && break; sleep 0.02; done
	run "$RDMACTL" -j mkey show "$k"
	assert_failure 1
	# Created without --recovery: rdmad.conf says auto.
	cq=$(new_cq)
	assert_equal "$("$RDMACTL" -j qp create --pd 1 --send-cq "$cq" --recv-cq "$cq" --type rc | jq -r '.[0].recovery')" auto
	run "$RDMACTL" qp create --pd 1 --send-cq "$cq" --recv-cq "$cq" --type rc --recovery sometimes
	assert_failure 2
}
