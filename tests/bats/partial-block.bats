#!/usr/bin/env bats
# A partial trailing block on the data path (reference mlx5_sig_crypto.md §2.1
# "Partial trailing block", §9): a block whose data is complete but whose wire
# PI lies outside the transfer gets no wire PI and raises no error; a memory
# PI is still consumed and checked, or generated.  SEND, RECV, WRITE and READ,
# both directions, plain and crypto+signature MKEYs.  Expected bytes: the
# HW-backed T10-DIF tuple of reference §2.2 (512 x 0xA5, bg 0xFFFF -> guard
# 0xEC7D; app 0x5678, ref 0xF0DEBC9A) and IEEE 1619 vector 2; where no field
# is expected, the data itself.

load helper
load qp-helper

GOOD_PI=ec7d5678f0debc9a
BAD_PI=00005678f0debc9a
# The reference's tuple, in the wire domain and in both.
T10=${T10_CONFIG#*\"mem\":}
T10=${T10%,\"wire\":null\}}
WIRE_T10="{\"mem\":null,\"wire\":$T10}"
BOTH_T10="{\"mem\":$T10,\"wire\":$T10}"
WIRE_CRC32='{"mem":null,"wire":{"sig_type":"crc","block_size":512,"crc":{"type":"crc32","seed":0}}}'

setup_file() {
	datapath_start
}
teardown_file() { rdmad_stop; }

setup() {
	load_libs
	cd "$BATS_TEST_TMPDIR"
	MEM=$(new_mr 1 8192 local_write,remote_write,remote_read)
	PEER=$(new_mr 1 8192 local_write,remote_write,remote_read)
	pair --max-send-wr 16 --max-recv-wr 16
}

# sig_mkey CONFIG LAYOUT [FLAGS [DEK]]: an MKEY of PD 1 over LAYOUT with every access.
sig_mkey() {
	local k
	echo "$1" >cfg.json
	k=$("$RDMACTL" -j mkey create 1 --flags "${3:-block_signature}" --max-entries 4 | jq -r '.[0].handle')
	"$RDMACTL" mkey configure "$k" --layout "$2" --access local_write,remote_read,remote_write \
		--config cfg.json ${4:+--dek "$4"} >/dev/null
	echo "$k"
}

no_error() { # MKEY
	assert_equal "$("$RDMACTL" -j mkey check "$1" | jq -r .err_type)" none
}

# zeros N: N zero bytes, as hex.
zeros() { printf '00%.0s' $(seq 1 "$1"); }

@test "send 512 bytes through a 512-byte MKEY with a wire CRC32: delivered, no error, no field" {
	put "$MEM" 0 "$(a5 512)"
	put "$PEER" 0 "$(zeros 520)"
	k=$(sig_mkey "$WIRE_CRC32" "$MEM:0:512")
	"$RDMACTL" qp post-recv "$B" --sge "$PEER:0:1024" --wrid 1
	"$RDMACTL" qp post "$A" send --sge "$k:0:512" --wrid 2 --signaled
	assert_equal "$(wc_fields "$(poll_n "$CA" 1)")" "2 success send 512 0 $A 0 "
	assert_equal "$(wc_fields "$(poll_n "$CB" 1)")" "1 success recv 512 0 $B 0 "
	assert_equal "$(get "$PEER" 0 520)" "$(a5 512)$(zeros 8)"
	assert_equal "$(qp_field "$A" state)" rts
	no_error "$k"
}

@test "receive 512 bytes through a wire T10-DIF MKEY: no wire PI checked; in memory too, the tuple is generated" {
	put "$PEER" 0 "$(a5 512)"
	put "$MEM" 0 "$(zeros 1040)"
	k=$(sig_mkey "$WIRE_T10" "$MEM:0:512")
	both=$(sig_mkey "$BOTH_T10" "$MEM:520:520")
	"$RDMACTL" qp post-recv "$B" --sge "$k:0:512" --wrid 3
	"$RDMACTL" qp post-recv "$B" --sge "$both:0:520" --wrid 4
	"$RDMACTL" qp post "$A" send --sge "$PEER:0:512" --wrid 5
	"$RDMACTL" qp post "$A" send --sge "$PEER:0:512" --wrid 6 --signaled
	assert_equal "$(wc_fields "$(poll_n "$CB" 2)")" "3 success recv 512 0 $B 0 
4 success recv 512 0 $B 0 "
	assert_equal "$(wc_fields "$(poll_n "$CA" 1)")" "6 success send 512 0 $A 0 "
	assert_equal "$(get "$MEM" 0 520)" "$(a5 512)$(zeros 8)"
	assert_equal "$(get "$MEM" 520 520)" "$(a5 512)$GOOD_PI"
	no_error "$k"
	no_error "$both"
}

@test "write from a T10-DIF MKEY in both domains: 512 wire bytes carry no field, 520 carry the tuple" {
	put "$MEM" 0 "$(a5 512)$GOOD_PI"
	put "$PEER" 0 "$(zeros 1040)"
	k=$(sig_mkey "$BOTH_T10" "$MEM:0:520")
	"$RDMACTL" qp post "$A" write --sge "$k:0:512" --remote "$PEER:0" --wrid 7 --signaled
	"$RDMACTL" qp post "$A" write --sge "$k:0:520" --remote "$PEER:520" --wrid 8 --signaled
	assert_equal "$(wc_fields "$(poll_n "$CA" 2)")" "7 success rdma_write 512 0 $A 0 
8 success rdma_write 520 0 $A 0 "
	assert_equal "$(get "$PEER" 0 1040)" "$(a5 512)$(zeros 8)$(a5 512)$GOOD_PI"
	no_error "$k"
}

@test "the memory PI of a completed block is checked when the wire PI is outside the transfer" {
	put "$MEM" 0 "$(a5 512)$BAD_PI"
	k=$(sig_mkey "$BOTH_T10" "$MEM:0:520")
	"$RDMACTL" qp post "$A" write --sge "$k:0:512" --remote "$PEER:0" --wrid 9 --signaled
	assert_equal "$(wc_fields "$(poll_n "$CA" 1)")" "9 success rdma_write 512 0 $A 0 "
	assert_equal "$(get "$PEER" 0 512)" "$(a5 512)"
	assert_equal "$("$RDMACTL" -j mkey check "$k" | jq -r .err_type)" guard
	assert_equal "$(qp_field "$A" state)" rts
}

@test "write into and read from an MKEY (rkey) with a wire PI, 512 bytes: no field, no error" {
	put "$PEER" 0 "$(a5 512)"
	put "$MEM" 0 "$(zeros 520)"
	k=$(sig_mkey "$BOTH_T10" "$MEM:0:520")
	# RX at the responder: memory gets the generated tuple.
	"$RDMACTL" qp post "$A" write --sge "$PEER:0:512" --remote "$k:0" --wrid 10 --signaled
	assert_equal "$(wc_fields "$(poll_n "$CA" 1)")" "10 success rdma_write 512 0 $A 0 "
	assert_equal "$(get "$MEM" 0 520)" "$(a5 512)$GOOD_PI"
	# TX at the responder: the memory tuple is checked and stripped, no wire field.
	put "$PEER" 1024 "$(zeros 520)"
	"$RDMACTL" qp post "$A" read --sge "$PEER:1024:512" --remote "$k:0" --wrid 11 --signaled
	assert_equal "$(wc_fields "$(poll_n "$CA" 1)")" "11 success rdma_read 512 0 $A 0 "
	assert_equal "$(get "$PEER" 1024 520)" "$(a5 512)$(zeros 8)"
	no_error "$k"
}

@test "read into an MKEY (local SGE) with a wire CRC32: 512 bytes, no field, no error" {
	put "$PEER" 0 "$(a5 512)"
	put "$MEM" 0 "$(zeros 512)"
	k=$(sig_mkey "$WIRE_CRC32" "$MEM:0:512")
	"$RDMACTL" qp post "$A" read --sge "$k:0:512" --remote "$PEER:0" --wrid 12 --signaled
	assert_equal "$(wc_fields "$(poll_n "$CA" 1)")" "12 success rdma_read 512 0 $A 0 "
	assert_equal "$(get "$MEM" 0 512)" "$(a5 512)"
	no_error "$k"
}

@test "crypto + wire T10-DIF MKEY: 32 bytes (a block cut short) are IEEE 1619 vector 2 both ways" {
	python3 -c "import sys; sys.stdout.buffer.write(bytes.fromhex('11'*16 + '22'*16))" >key
	chmod 600 key
	dek=$("$RDMACTL" -j dek create partial --size 128 --key-file "$PWD/key" | jq -r '.[0].handle')
	cfg="{\"mem\":null,\"wire\":$T10,\"crypto\":{\"standard\":\"aes_xts\",\"encrypt_on_tx\":true,\"signature_crypto_order\":\"signature_after_crypto_on_tx\",\"data_unit_size\":512,\"initial_tweak\":\"33333333330000000000000000000000\"}}"
	put "$MEM" 64 "$(printf '44%.0s' $(seq 1 32))"
	tx=$(sig_mkey "$cfg" "$MEM:64:32" block_signature,crypto "$dek")
	rx=$(sig_mkey "$cfg" "$MEM:128:32" block_signature,crypto "$dek")
	"$RDMACTL" qp post-recv "$B" --sge "$PEER:0:64" --wrid 13
	"$RDMACTL" qp post "$A" send --sge "$tx:0:32" --wrid 14 --signaled
	assert_equal "$(wc_fields "$(poll_n "$CB" 1)")" "13 success recv 32 0 $B 0 "
	assert_equal "$(get "$PEER" 0 32)" c454185e6a16936e39334038acef838bfb186fff7480adc4289382ecd6d394f0
	# and back: the ciphertext received through the MKEY is the plaintext in memory
	"$RDMACTL" qp post-recv "$A" --sge "$rx:0:32" --wrid 15
	"$RDMACTL" qp post "$B" send --sge "$PEER:0:32" --wrid 16
	assert_equal "$(wc_fields "$(poll_n "$CA" 2 | jq -c '[.[] | select(.wr_id == 15)]')")" "15 success recv 32 0 $A 0 "
	assert_equal "$(get "$MEM" 128 32)" "$(printf '44%.0s' $(seq 1 32))"
	no_error "$tx"
	no_error "$rx"
}

@test "a send ending inside a wire field keeps its error: loc_prot_err, the QP to ERR" {
	put "$MEM" 0 "$(a5 1024)"
	k=$(sig_mkey "$WIRE_CRC32" "$MEM:0:1024")
	# 515 = 512 + 3: the wire CRC32 cut short.
	"$RDMACTL" qp post "$A" send --sge "$k:0:515" --wrid 17 --signaled
	assert_equal "$(wc_fields "$(poll_n "$CA" 1)")" "17 loc_prot_err send 0 0 $A 0 "
	assert_equal "$(qp_field "$A" state)" err
}

@test "a message ending inside a wire field, into a receive through an MKEY: loc_len_err / rem_inv_req_err" {
	put "$PEER" 0 "$(a5 1024)"
	k=$(sig_mkey "$WIRE_T10" "$MEM:0:1024")
	# 519 = 512 + 7: the receiver's wire T10-DIF field cut short.
	"$RDMACTL" qp post-recv "$B" --sge "$k:0:1040" --wrid 18
	"$RDMACTL" qp post "$A" send --sge "$PEER:0:519" --wrid 19 --signaled
	assert_equal "$(wc_fields "$(poll_n "$CB" 1)")" "18 loc_len_err recv 0 0 $B 0 "
	assert_equal "$(wc_fields "$(poll_n "$CA" 1)")" "19 rem_inv_req_err send 0 0 $A 0 "
}

@test "raw varlink: a 512-byte WRITE through a wire CRC32 MKEY completes with success, the QP in RTS" {
	put "$MEM" 0 "$(a5 512)"
	put "$PEER" 2048 "$(zeros 520)"
	k=$(sig_mkey "$WIRE_CRC32" "$MEM:0:512")
	run varlink_raw '{"method":"io.rdmad.Qp.PostSend","parameters":{"handle":'"$A"',"opcode":"write","wr_id":9,"sges":[{"key":'"$k"',"offset":0,"length":512}],"remote":{"key":'"$PEER"',"offset":2048},"signaled":true}}\0'
	assert_output '{"parameters":{}}'
	run varlink_raw '{"method":"io.rdmad.Cq.Poll","parameters":{"handle":'"$CA"',"wait":2000}}\0'
	assert_output '{"parameters":{"completions":[{"wr_id":9,"status":"success","opcode":"rdma_write","byte_len":512,"imm":0,"qp":'"$A"',"src_qp":0,"flags":[]}]}}'
	assert_equal "$(get "$PEER" 2048 520)" "$(a5 512)$(zeros 8)"
	run varlink_raw '{"method":"io.rdmad.Qp.Show","parameters":{"handle":'"$A"'}}\0'
	assert_output --partial '"state":"rts"'
	no_error "$k"
}
