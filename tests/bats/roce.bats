#!/usr/bin/env bats
# RoCE v2 between two rdmad in two network namespaces joined by a veth pair:
# RC SEND, WRITE (with immediate) and READ from 1 byte to 1 MiB, UC, UD, the
# bytes checked on both sides, the counters.  Needs root.

load helper
load vnic-helper
load roce-helper

setup_file() {
	roce_require
	roce_setup
	roce_pair rc
}

teardown_file() {
	roce_teardown
}

setup() {
	load_libs
	[ -n "${NS_A:-}" ] || skip "needs root for network namespaces"
}

# fill DIR KEY OFFSET LENGTH SEED: writes LENGTH pseudo-random bytes; prints their sha256.
fill() {
	local f=$BATS_TEST_TMPDIR/fill.$5
	head -c "$4" </dev/urandom >"$f"
	ctl "$1" mr write "$2" --offset "$3" <"$f"
	sha256sum <"$f" | cut -d' ' -f1
}

sum() {
	ctl "$1" mr read "$2" --offset "$3" --length "$4" | sha256sum | cut -d' ' -f1
}

@test "RC SEND of 3000 bytes lands in the receive WR on the other host" {
	want=$(fill "$A" "$MA" 0 3000 s1)
	ctl "$B" qp post-recv "$QB" --wrid 7 --sge "$MB:0:4096"
	ctl "$A" qp post "$QA" send --wrid 8 --sge "$MA:0:3000" --signaled
	run roce_poll "$B" "$CB" 1
	assert_equal "$(jq -r '.[0] | "\(.wr_id) \(.status) \(.opcode) \(.byte_len)"' <<<"$output")" "7 success recv 3000"
	run roce_poll "$A" "$CA" 1
	assert_equal "$(jq -r '.[0] | "\(.wr_id) \(.status) \(.opcode)"' <<<"$output")" "8 success send"
	assert_equal "$(sum "$B" "$MB" 0 3000)" "$want"
}
