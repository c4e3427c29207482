#!/usr/bin/env bats
# Configure as a work request against a real rdmad: an MKEY configure posted
# into a QP's send queue (qp post configure, a post-list WR, PostSend with
# opcode configure) is checked as `mkey configure` checks it when posted,
# takes effect when the QP executes it, in order with the WRs around it, and
# completes with opcode configure; flushed it changes nothing.  Rules:
# docs/decisions.md, "Configure as a work request".

load helper
load qp-helper

setup_file() {
	datapath_start 2
	MA=$(new_mr 1 8192 local_write,remote_write,remote_read)
	MB=$(new_mr 1 8192 local_write,remote_write,remote_read)
	export MA MB
}
teardown_file() { rdmad_stop; }
setup() {
	load_libs
	cd "$BATS_TEST_TMPDIR"
}

# The guard of 512 x 0xA5 (CRC-16/T10-DIF), app tag 0x5678, ref tag 0xF0DEBC9A.
GOOD_PI=ec7d5678f0debc9a

mkey_json() { "$RDMACTL" -j mkey show "$1" | jq -c '.[0]'; }
mkey_state() { "$RDMACTL" -j mkey show "$1" | jq -r '.[0].state'; }
new_mkey() { "$RDMACTL" -j mkey create "${1:-1}" ${2:+--flags "$2"} --max-entries 4 | jq -r '.[0].handle'; }

@test "post-list: configure an MKEY, write through it, local_inv; completions and bytes" {
	pair
	put "$MA" 0 "$(a5 512)$GOOD_PI"
	k=$(new_mkey 1 block_signature)
	cat >wrs.json <<-EOF
	[{"opcode":"configure","mkey":$k,"wr_id":1,"signaled":true,
	  "configure":{"layout":[{"mr":$MA,"offset":0,"length":520}],
	               "access":["local_write","remote_read","remote_write"],"config":$T10_CONFIG}},
	 {"opcode":"write","wr_id":2,"signaled":true,"sges":[{"key":$k,"offset":0,"length":512}],
	  "remote":{"key":$MB,"offset":0}},
	 {"opcode":"local_inv","wr_id":3,"signaled":true,"invalidate":$k}]
	EOF
	"$RDMACTL" qp post-list "$A" --file wrs.json
	run wc_fields "$(poll_n "$CA" 3)"
	assert_output "1 success configure 0 0 $A 0 
2 success rdma_write 512 0 $A 0 
3 success local_inv 0 0 $A 0 "
	# T10-DIF in memory, none on the wire: the 512 data bytes, PI checked and stripped.
	assert_equal "$(get "$MB" 0 512)" "$(a5 512)"
	assert_equal "$(mkey_state "$k")" free
	assert_equal "$("$RDMACTL" -j qp show "$A" | jq -r '.[0].datapath.wrs.configure')" 1
}

@test "configure WR then WRITE on the same QP: the WRITE sees the new layout; mkey show follows" {
	pair
	put "$MA" 2048 1111111111111111
	put "$MA" 2056 2222222222222222
	k=$(new_mkey 1)
	"$RDMACTL" mkey configure "$k" --layout "$MA:2048:8" --access local_write >/dev/null
	"$RDMACTL" qp post "$A" configure --mkey "$k" --layout "$MA:2056:8" --access local_write,remote_read \
		--wrid 1 --signaled
	"$RDMACTL" qp post "$A" write --sge "$k:0:8" --remote "$MB:4096" --wrid 2 --signaled
	run wc_fields "$(poll_n "$CA" 2)"
	assert_output "1 success configure 0 0 $A 0 
2 success rdma_write 8 0 $A 0 "
	assert_equal "$(get "$MB" 4096 8)" 2222222222222222
	run mkey_json "$k"
	assert_output --partial '"state":"configured"'
	assert_output --partial "\"offset\":2056"
	assert_output --partial '"remote_read"'
}

@test "refusals name the field and change nothing: PD, sges, UD QP, config, a second pending configure" {
	pair
	k2=$(new_mkey 2)
	run "$RDMACTL" qp post "$A" configure --mkey "$k2" --layout "$MA:0:8"
	assert_refused Qp InvalidArgument mkey
	k=$(new_mkey 1)
	run varlink_raw '{"method":"io.rdmad.Qp.PostSend","parameters":{"handle":'"$A"',"opcode":"configure","mkey":'"$k"',"sges":[{"key":'"$MA"',"offset":0,"length":8}]}}\0'
	assert_output --partial '"field":"sges"'
	echo "$T10_CONFIG" >t10.json
	run "$RDMACTL" qp post "$A" configure --mkey "$k" --layout "$MA:0:520" --config t10.json
	assert_refused Qp InvalidArgument configure.config.mem
	run "$RDMACTL" qp post "$A" configure --mkey "$k" --layout "$MB:0:99999"
	assert_refused Qp InvalidArgument "configure.layout[0].length"
	run "$RDMACTL" qp post "$A" write --mkey "$k" --sge "$MA:0:8" --remote "$MB:0"
	assert_failure 2
	cq=$(new_cq)
	ud=$("$RDMACTL" -j qp create --pd 1 --send-cq "$cq" --recv-cq "$cq" --type ud | jq -r '.[0].handle')
	"$RDMACTL" qp modify "$ud" --state init --qkey 0x11111111
	"$RDMACTL" qp modify "$ud" --state rtr
	"$RDMACTL" qp modify "$ud" --state rts --sq-psn 0
	run "$RDMACTL" qp post "$ud" configure --mkey "$k" --layout "$MA:0:8"
	assert_refused Qp InvalidArgument opcode
	assert_equal "$(mkey_state "$k")" free
	# One configure WR per MKEY at a time, in a list too.
	cat >two.json <<-EOF
	[{"opcode":"configure","mkey":$k,"configure":{"layout":[{"mr":$MA,"offset":0,"length":8}]}},
	 {"opcode":"configure","mkey":$k,"configure":{"layout":[{"mr":$MA,"offset":8,"length":8}]}}]
	EOF
	run "$RDMACTL" qp post-list "$A" --file two.json
	assert_refused Qp InvalidState "wrs[1].mkey"
	assert_equal "$(mkey_state "$k")" free
}

@test "a configure WR flushed in ERR leaves the MKEY as it was" {
	pair
	k=$(new_mkey 1)
	"$RDMACTL" mkey configure "$k" --layout "$MA:0:8" --access local_write >/dev/null
	before=$(mkey_json "$k")
	"$RDMACTL" qp modify "$A" --state err
	"$RDMACTL" qp post "$A" configure --mkey "$k" --layout "$MA:8:16" --wrid 9 --signaled
	run wc_fields "$(poll_n "$CA" 1)"
	assert_output --partial "9 wr_flush_err"
	assert_equal "$(mkey_json "$k")" "$before"
	# Nothing is pending any more: the MKEY configures again, and the QP goes.
	"$RDMACTL" mkey configure "$k" --layout "$MA:16:8" >/dev/null
	run mkey_json "$k"
	assert_output --partial '"offset":16'
	"$RDMACTL" qp destroy "$A"
	"$RDMACTL" mkey destroy "$k"
}

@test "raw varlink PostSend with opcode configure" {
	pair
	k=$(new_mkey 1)
	run varlink_raw '{"method":"io.rdmad.Qp.PostSend","parameters":{"handle":'"$A"',"opcode":"configure","mkey":'"$k"',"wr_id":4,"signaled":true,"configure":{"layout":[{"mr":'"$MA"',"offset":0,"length":64}],"access":["local_write"]}}}\0'
	assert_output '{"parameters":{}}'
	run wc_fields "$(poll_n "$CA" 1)"
	assert_output "4 success configure 0 0 $A 0 "
	assert_equal "$(mkey_state "$k")" configured
	run varlink_raw '{"method":"io.rdmad.Qp.PostSend","parameters":{"handle":'"$A"',"opcode":"send","mkey":'"$k"'}}\0'
	assert_output --partial '"field":"mkey"'
}

@test "rdmactl qp help and qp post help list configure" {
	run "$RDMACTL" qp help
	assert_success
	assert_output --partial configure
	run "$RDMACTL" qp post help
	assert_success
	assert_output --partial configure
	assert_output --partial -- --mkey
}

@test "a configure WR posted in SQD is pending: the MKEY is in use until the QP executes it" {
	pair
	k=$(new_mkey 1)
	"$RDMACTL" qp modify "$A" --state sqd
	"$RDMACTL" qp post "$A" configure --mkey "$k" --layout "$MA:0:8" --wrid 1 --signaled
	assert_equal "$(mkey_state "$k")" free
	run "$RDMACTL" mkey configure "$k" --layout "$MA:8:8"
	assert_failure 1
	assert_output --partial ObjectInUse
	run "$RDMACTL" mkey destroy "$k"
	assert_failure 1
	assert_output --partial ObjectInUse
	run "$RDMACTL" qp post "$A" configure --mkey "$k" --layout "$MA:8:8"
	assert_refused Qp InvalidState mkey
	"$RDMACTL" qp modify "$A" --state rts
	run wc_fields "$(poll_n "$CA" 1)"
	assert_output "1 success configure 0 0 $A 0 "
	run mkey_json "$k"
	assert_output --partial '"state":"configured"'
	assert_output --partial '"offset":0'
	"$RDMACTL" mkey destroy "$k"
}

@test "a configure WR still pending when rdmad stops is freed with its MKEY (ASan runs check it)" {
	pair
	k=$(new_mkey 1 block_signature)
	echo "$T10_CONFIG" >t10.json
	"$RDMACTL" qp modify "$A" --state sqd
	"$RDMACTL" qp post "$A" configure --mkey "$k" --layout "$MA:0:520" --config t10.json
	assert_equal "$(mkey_state "$k")" free
}
