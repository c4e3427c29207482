#!/usr/bin/env bats
# Invalidation on the data path against a real rdmad: local_inv invalidates an
# MKEY or MR of the QP's PD in order with the WRs before it; send_inv sends a
# message that invalidates an MKEY created with remote_invalidate at the
# receiver, whose receive completion carries with_inv and the key.  After
# either, the key reaches no memory (loc_prot_err / rem_access_err) until
# the MKEY is configured again.  Rules: docs/decisions.md, "Invalidation".

load helper
load qp-helper

setup_file() {
	datapath_start 2
	MA=$(new_mr 1 8192 local_write,remote_write,remote_read)
	MB=$(new_mr 1 8192 local_write,remote_write,remote_read)
	MPD2=$(new_mr 2 4096 local_write)
	export MA MB MPD2
}
teardown_file() { rdmad_stop; }
setup() {
	load_libs
	cd "$BATS_TEST_TMPDIR"
}

mkey_state() { "$RDMACTL" -j mkey show "$1" | jq -r '.[0].state'; }

# plain_t10 MR OFFSET [FLAGS]: a configured T10-DIF MKEY of PD 1 over a good block at OFFSET.
plain_t10() {
	local k
	put "$1" "$2" "$(a5 512)$GOOD_PI"
	echo "$T10_CONFIG" >t10.json
	k=$("$RDMACTL" -j mkey create 1 --flags "${3:-block_signature}" --max-entries 4 | jq -r '.[0].handle')
	"$RDMACTL" mkey configure "$k" --layout "$1:$2:520" --access local_write,remote_read,remote_write \
		--config t10.json >/dev/null
	echo "$k"
}

# The guard of 512 x 0xA5 (CRC-16/T10-DIF), app tag 0x5678, ref tag 0xF0DEBC9A.
GOOD_PI=ec7d5678f0debc9a

@test "local_inv of an MKEY: completes as local_inv, the MKEY goes free, a later WR through it fails" {
	pair
	k=$(plain_t10 "$MA" 0)
	"$RDMACTL" qp post "$A" write --sge "$k:0:512" --remote "$MB:0" --wrid 1 --signaled
	"$RDMACTL" qp post "$A" local_inv --key "$k" --wrid 2 --signaled
	run wc_fields "$(poll_n "$CA" 2)"
	assert_output "1 success rdma_write 512 0 $A 0 
2 success local_inv 0 0 $A 0 "
	assert_equal "$(mkey_state "$k")" free
	"$RDMACTL" qp post "$A" write --sge "$k:0:512" --remote "$MB:0" --wrid 3 --signaled
	run wc_fields "$(poll_n "$CA" 1)"
	assert_output "3 loc_prot_err rdma_write 0 0 $A 0 "
}

@test "an invalidated MKEY configured again carries data again" {
	pair
	k=$(plain_t10 "$MA" 1024)
	"$RDMACTL" qp post "$A" local_inv --key "$k" --wrid 1 --signaled
	poll_n "$CA" 1 >/dev/null
	assert_equal "$(mkey_state "$k")" free
	"$RDMACTL" mkey configure "$k" --layout "$MA:1024:520" --access local_write,remote_read,remote_write \
		--config t10.json >/dev/null
	assert_equal "$(mkey_state "$k")" configured
	"$RDMACTL" qp post "$A" write --sge "$k:0:512" --remote "$MB:2048" --wrid 2 --signaled
	run wc_fields "$(poll_n "$CA" 1)"
	assert_output "2 success rdma_write 512 0 $A 0 "
	run get "$MB" 2048 8
	assert_output a5a5a5a5a5a5a5a5
}

@test "local_inv of an MR: mr show says free; its lkey and rkey reach nothing any more" {
	pair
	m=$(new_mr 1 4096 local_write,remote_write,remote_read)
	assert_equal "$("$RDMACTL" -j mr show "$m" | jq -r '.[0].state')" valid
	"$RDMACTL" qp post "$A" local_inv --key "$m" --wrid 1 --signaled
	run wc_fields "$(poll_n "$CA" 1)"
	assert_output "1 success local_inv 0 0 $A 0 "
	assert_equal "$("$RDMACTL" -j mr show "$m" | jq -r '.[0].state')" free
	run "$RDMACTL" mr show "$m"
	assert_output --partial free
	"$RDMACTL" qp post "$A" write --sge "$MA:0:16" --remote "$m:0" --wrid 2 --signaled
	run wc_fields "$(poll_n "$CA" 1)"
	assert_output "2 rem_access_err rdma_write 0 0 $A 0 "
}

@test "local_inv of a key the QP's PD does not own, or of no key, completes with loc_prot_err" {
	pair
	"$RDMACTL" qp post "$A" local_inv --key "$MPD2" --wrid 1 --signaled
	run wc_fields "$(poll_n "$CA" 1)"
	assert_output "1 loc_prot_err local_inv 0 0 $A 0 "
	assert_equal "$("$RDMACTL" -j mr show "$MPD2" | jq -r '.[0].state')" valid
	assert_equal "$(qp_field "$A" state)" err
	pair
	"$RDMACTL" qp post "$A" local_inv --key 0x7fffff00 --wrid 2 --signaled
	run wc_fields "$(poll_n "$CA" 1)"
	assert_output "2 loc_prot_err local_inv 0 0 $A 0 "
}

@test "send_inv to an MKEY with remote_invalidate: the receiver sees with_inv and the key; the MKEY goes free" {
	pair
	k=$(plain_t10 "$MB" 0 block_signature,remote_invalidate)
	run "$RDMACTL" -j mkey show "$k"
	assert_output --partial '"remote_invalidate"'
	put "$MA" 4000 0badf00d
	"$RDMACTL" qp post-recv "$B" --sge "$MB:4096:64" --wrid 7
	"$RDMACTL" qp post "$A" send_inv --inv-key "$k" --sge "$MA:4000:4" --wrid 1 --signaled
	run wc_fields "$(poll_n "$CB" 1)"
	assert_output "7 success recv 4 $k $B 0 with_inv"
	run wc_fields "$(poll_n "$CA" 1)"
	assert_output "1 success send 4 0 $A 0 "
	run get "$MB" 4096 4
	assert_output 0badf00d
	assert_equal "$(mkey_state "$k")" free
	assert_equal "$("$RDMACTL" -j qp show "$A" | jq -c '.[0].datapath.wrs | [.send_inv, .local_inv]')" "[1,0]"
}

@test "send_inv to an MKEY without remote_invalidate: rem_inv_req_err at the sender, the MKEY stays configured" {
	pair
	k=$(plain_t10 "$MB" 1024)
	"$RDMACTL" qp post-recv "$B" --sge "$MB:4096:64" --wrid 7
	"$RDMACTL" qp post "$A" send_inv --inv-key "$k" --sge "$MA:4000:4" --wrid 1 --signaled
	run wc_fields "$(poll_n "$CA" 1)"
	assert_output "1 rem_inv_req_err send 0 0 $A 0 "
	run wc_fields "$(poll_n "$CB" 1)"
	assert_output "7 loc_qp_op_err recv 0 0 $B 0 "
	assert_equal "$(mkey_state "$k")" configured
}

@test "post-list: a WRITE through an MKEY and its local_inv go under one doorbell, in order" {
	pair
	k=$(plain_t10 "$MA" 2048)
	cat >wrs.json <<-EOF
	[{"opcode":"write","wr_id":1,"sges":[{"key":$k,"offset":0,"length":512}],"remote":{"key":$MB,"offset":6144}},
	 {"opcode":"local_inv","wr_id":2,"invalidate":$k,"signaled":true},
	 {"opcode":"write","wr_id":3,"sges":[{"key":$k,"offset":0,"length":512}],"remote":{"key":$MB,"offset":6144},"signaled":true}]
	EOF
	"$RDMACTL" qp post-list "$A" --file wrs.json
	run wc_fields "$(poll_n "$CA" 2)"
	assert_output "2 success local_inv 0 0 $A 0 
3 loc_prot_err rdma_write 0 0 $A 0 "
	run get "$MB" 6144 4
	assert_output a5a5a5a5
}

@test "invalidate goes with local_inv and send_inv only; both refuse what they cannot carry" {
	pair
	run "$RDMACTL" qp post "$A" local_inv
	assert_refused Qp InvalidArgument invalidate
	run "$RDMACTL" qp post "$A" send --key 5 --sge "$MA:0:4"
	assert_failure 2
	assert_output --partial "--key goes with local_inv, not send"
	run "$RDMACTL" qp post "$A" local_inv --inv-key 5
	assert_failure 2
	assert_output --partial "--inv-key goes with send_inv, not local_inv"
	# The daemon's own rule, for clients that are not rdmactl.
	run varlink_raw '{"method":"io.rdmad.Qp.PostSend","parameters":{"handle":'"$A"',"opcode":"send","invalidate":5}}\0'
	assert_output --partial '"error":"io.rdmad.Qp.InvalidArgument","parameters":{"field":"invalidate"'
	run "$RDMACTL" qp post "$A" local_inv --key 5 --sge "$MA:0:4"
	assert_refused Qp InvalidArgument sges
	run "$RDMACTL" qp post "$A" local_inv --key 4294967296
	assert_failure 2
	run "$RDMACTL" qp post "$A" flush
	assert_failure 2
	assert_output --partial local_inv
}

@test "UD QPs refuse local_inv and send_inv; UC QPs refuse send_inv" {
	cq=$(new_cq)
	ud=$("$RDMACTL" -j qp create --pd 1 --send-cq "$cq" --recv-cq "$cq" --type ud | jq -r '.[0].handle')
	"$RDMACTL" qp modify "$ud" --state init --qkey 0x11111111
	"$RDMACTL" qp modify "$ud" --state rtr
	"$RDMACTL" qp modify "$ud" --state rts --sq-psn 0
	run "$RDMACTL" qp post "$ud" local_inv --key "$MA"
	assert_refused Qp InvalidArgument opcode
	assert_output --partial "local_inv is not carried by ud QPs"
	run "$RDMACTL" qp post "$ud" send_inv --inv-key "$MA" --sge "$MA:0:4"
	assert_refused Qp InvalidArgument opcode
	uc=$("$RDMACTL" -j qp create --pd 1 --send-cq "$cq" --recv-cq "$cq" --type uc | jq -r '.[0].handle')
	"$RDMACTL" qp modify "$uc" --state init --access remote_write
	"$RDMACTL" qp modify "$uc" --state rtr --dgid fe80::1 --sgid-index 0 --path-mtu 1024 \
		--dest-qp "$uc" --rq-psn 0
	"$RDMACTL" qp modify "$uc" --state rts --sq-psn 0
	run "$RDMACTL" qp post "$uc" send_inv --inv-key "$MA" --sge "$MA:0:4"
	assert_refused Qp InvalidArgument opcode
	m=$(new_mr 1 4096 local_write)
	"$RDMACTL" qp post "$uc" local_inv --key "$m" --wrid 4 --signaled
	run wc_fields "$(poll_n "$cq" 1)"
	assert_output "4 success local_inv 0 0 $uc 0 "
}

@test "raw varlink: PostSend with local_inv, Completion with opcode local_inv" {
	pair
	m=$(new_mr 1 4096 local_write)
	run varlink_raw '{"method":"io.rdmad.Qp.PostSend","parameters":{"handle":'"$A"',"opcode":"local_inv","invalidate":'"$m"',"wr_id":9,"signaled":true}}\0'
	assert_output '{"parameters":{}}'
	run wc_fields "$(poll_n "$CA" 1)"
	assert_output "9 success local_inv 0 0 $A 0 "
}

@test "qp help lists the invalidation opcodes, --key and --inv-key" {
	run "$RDMACTL" qp post help
	assert_success
	assert_output --partial local_inv
	assert_output --partial send_inv
	assert_output --partial -- --key
	assert_output --partial -- --inv-key
}
