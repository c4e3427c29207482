#!/usr/bin/env bats
# make check runs this file alone: network namespaces, veths or TAPs, with names of their own.
# RoCE v2 between two rdmad in two network namespaces joined by a veth pair
# (roce-helper.bash): RC SEND, WRITE (with immediate) and READ from 1 byte to
# 1 MiB, RNR, UC, UD, remote errors and retries running out; the bytes checked
# on both sides, the completions, the counters.  Needs root.

load helper
load vnic-helper
load roce-helper

setup_file() {
	roce_require
	roce_setup
	roce_pair rc
}

teardown_file() { roce_teardown; }
setup() { roce_test_setup; }

roce_counter() {
	ctl "$1" -j qp show "$2" | jq -r ".[0].datapath.roce.$3"
}

@test "RC SEND of 3000 bytes (3 packets) lands in the receive WR on the other host" {
	want=$(fill "$A" "$MA" 0 3000)
	ctl "$B" qp post-recv "$QB" --wrid 7 --sge "$MB:0:4096"
	ctl "$A" qp post "$QA" send --wrid 8 --sge "$MA:0:3000" --signaled
	run completions "$B" "$CB" 1
	assert_output "7 success recv 3000 0 0 "
	run completions "$A" "$CA" 1
	assert_output "8 success send 3000 0 0 "
	assert_equal "$(sum "$B" "$MB" 0 3000)" "$want"
}

@test "RC SEND with immediate and solicited, both ways; SEND of 0 bytes" {
	ctl "$A" qp post-recv "$QA" --wrid 1 --sge "$MA:0:64"
	ctl "$B" qp post-recv "$QB" --wrid 2 --sge "$MB:0:64"
	printf '\1\2\3\4\5' | ctl "$B" mr write "$MB" --offset 4000
	ctl "$B" qp post "$QB" send_imm --sge "$MB:4000:5" --imm 0x11223344 --solicited --wrid 3 --signaled
	ctl "$A" qp post "$QA" send --wrid 4 --signaled
	run completions "$A" "$CA" 2
	assert_line "1 success recv 5 287454020 0 with_imm"
	assert_line "4 success send 0 0 0 "
	run completions "$B" "$CB" 2
	assert_line "2 success recv 0 0 0 "
	assert_line "3 success send 5 0 0 "
	assert_equal "$(ctl "$A" mr read "$MA" --offset 0 --length 5 | xxd -p)" 0102030405
}

@test "RC WRITE and READ of 1, 1023, 1025, 4096, 65536 and 1048576 bytes keep every byte" {
	for len in 1 1023 1025 4096 65536 1048576; do
		roce_write_read "$len"
	done
	# A READ at an offset into the peer's region, into an offset of ours.
	want=$(ctl "$B" mr read "$MB" --offset 5000 --length 3333 | sha256sum | cut -d' ' -f1)
	ctl "$A" qp post "$QA" read --wrid 9 --sge "$MA:7:3333" --remote "$MB@$((IOVA_B + 5000))" --signaled
	run completions "$A" "$CA" 1
	assert_output "9 success rdma_read 3333 0 0 "
	assert_equal "$(sum "$A" "$MA" 7 3333)" "$want"
}

@test "RC WRITE with immediate consumes a receive WR and reports the length written" {
	want=$(fill "$A" "$MA" 0 2500)
	ctl "$B" qp post-recv "$QB" --wrid 21
	ctl "$A" qp post "$QA" write_imm --sge "$MA:0:2500" --remote "$MB@$((IOVA_B + 100))" --imm 77 \
		--wrid 22 --signaled
	run completions "$B" "$CB" 1
	assert_output "21 success recv_rdma_with_imm 2500 77 0 with_imm"
	run completions "$A" "$CA" 1
	assert_output "22 success rdma_write 2500 0 0 "
	assert_equal "$(sum "$B" "$MB" 100 2500)" "$want"
}

@test "RC SEND before its receive WR: RNR NAKs until the WR comes, then delivered once" {
	rnr_before=$(roce_counter "$B" "$QB" rnr_naks_sent)
	fill "$A" "$MA" 0 1500 >/dev/null
	ctl "$A" qp post "$QA" send --wrid 31 --sge "$MA:0:1500" --signaled
	sleep 0.2
	[ "$(roce_counter "$B" "$QB" rnr_naks_sent)" -gt "$rnr_before" ]
	ctl "$B" qp post-recv "$QB" --wrid 32 --sge "$MB:0:2048"
	run completions "$B" "$CB" 1
	assert_output "32 success recv 1500 0 0 "
	run completions "$A" "$CA" 1
	assert_output "31 success send 1500 0 0 "
	[ "$(ctl "$A" -j qp show "$QA" | jq -r '.[0].datapath.rnr_naks')" -gt 0 ]
	[ "$(ctl "$B" -j qp show "$QB" | jq -r '.[0].datapath.recvs')" -ge 1 ]
}

@test "the counters say what crossed the wire, per QP and per device" {
	run ctl "$A" -j qp show "$QA"
	[ "$(jq -r '.[0].datapath.roce.tx_packets' <<<"$output")" -gt 1000 ]
	[ "$(jq -r '.[0].datapath.roce.rx_packets' <<<"$output")" -gt 100 ]
	run ctl "$B" -j dev show soft0
	[ "$(jq -r '.[0].datapath.roce.rx_packets' <<<"$output")" -gt 1000 ]
	assert_equal "$(jq -r '.[0].datapath.roce.icrc_errors' <<<"$output")" 0
	# The QPs run on the worker of the RoCE endpoint.
	assert_equal "$(ctl "$A" -j qp show "$QA" | jq -r '.[0].state')" rts
}

@test "UC WRITE crosses; UC SEND without a receive WR is lost, the sender succeeds" {
	roce_qps uc
	CUA=$PCA CUB=$PCB UA=$PQA UB=$PQB
	want=$(fill "$A" "$MA" 0 5000)
	ctl "$A" qp post "$UA" write --wrid 41 --sge "$MA:0:5000" --remote "$MB@$((IOVA_B + 8192))" --signaled
	run completions "$A" "$CUA" 1
	assert_output "41 success rdma_write 5000 0 0 "
	sleep 0.2
	assert_equal "$(sum "$B" "$MB" 8192 5000)" "$want"
	ctl "$A" qp post "$UA" send --wrid 42 --sge "$MA:0:100" --signaled
	run completions "$A" "$CUA" 1
	assert_output "42 success send 100 0 0 "
	ctl "$B" qp post-recv "$UB" --wrid 43 --sge "$MB:0:200"
	ctl "$A" qp post "$UA" send --wrid 44 --sge "$MA:0:150" --signaled
	run completions "$B" "$CUB" 1
	assert_output "43 success recv 150 0 0 "
}

@test "UD SEND to another host: the GRH area holds the IPv4 header, src_qp the sender" {
	CDA=$(ctl "$A" -j cq create --cqe 64 | jq -r '.[0].handle')
	CDB=$(ctl "$B" -j cq create --cqe 64 | jq -r '.[0].handle')
	for d in A B; do
		dir=${!d}
		q=$(ctl "$dir" -j qp create --pd 1 --send-cq "$([ $d = A ] && echo "$CDA" || echo "$CDB")" \
			--recv-cq "$([ $d = A ] && echo "$CDA" || echo "$CDB")" --type ud | jq -r '.[0].handle')
		ctl "$dir" qp modify "$q" --state init --qkey 0x2222
		ctl "$dir" qp modify "$q" --state rtr
		ctl "$dir" qp modify "$q" --state rts --sq-psn 0
		printf -v "D$d" '%s' "$q"
	done
	idx=$(roce_gid_index "$A" "$ROCE_GID_A")
	AH=$(ctl "$A" -j ah create 1 --dgid "$ROCE_GID_B" --sgid-index "$idx" | jq -r '.[0].handle')
	printf 'hello' | ctl "$A" mr write "$MA" --offset 0
	ctl "$B" qp post-recv "$DB" --wrid 51 --sge "$MB:0:100"
	ctl "$A" qp post "$DA" send_imm --sge "$MA:0:5" --ah "$AH" --dest-qp "$DB" --qkey 0x2222 --imm 5 \
		--wrid 52 --signaled
	run completions "$B" "$CDB" 1
	assert_output "51 success recv 45 5 $DA grh,with_imm"
	run completions "$A" "$CDA" 1
	assert_output "52 success send 5 0 0 "
	# 20 zero bytes, an IPv4 header from 10.232.0.1 to 10.232.0.2, then the payload.
	run ctl "$B" mr read "$MB" --offset 0 --length 45
	hex=$(ctl "$B" mr read "$MB" --offset 0 --length 45 | xxd -p | tr -d '\n')
	assert_equal "${hex:0:40}" 0000000000000000000000000000000000000000
	assert_equal "${hex:64:16}" 0ae800010ae80002
	assert_equal "${hex:80}" 68656c6c6f
	# A wrong Q_Key is dropped: nothing arrives, the sender still succeeds.
	ctl "$B" qp post-recv "$DB" --wrid 53 --sge "$MB:0:100"
	ctl "$A" qp post "$DA" send --sge "$MA:0:5" --ah "$AH" --dest-qp "$DB" --qkey 0x3333 --wrid 54 --signaled
	run completions "$A" "$CDA" 1
	assert_output "54 success send 5 0 0 "
	run ctl "$B" -j cq poll "$CDB" --wait 300
	assert_output "[]"
}

@test "RC WRITE with a bad rkey: REM_ACCESS_ERR at the requester, both QPs go to ERR" {
	roce_qps rc
	CEA=$PCA EA=$PQA EB=$PQB
	ctl "$A" qp post "$EA" write --wrid 61 --sge "$MA:0:16" --remote "$((MB + 1))@$((IOVA_B))"
	ctl "$A" qp post "$EA" write --wrid 62 --sge "$MA:0:16" --remote "$MB@$((IOVA_B))"
	run completions "$A" "$CEA" 2
	assert_line --index 0 "61 rem_access_err rdma_write 0 0 0 "
	assert_line --index 1 "62 wr_flush_err rdma_write 0 0 0 "
	assert_equal "$(ctl "$A" -j qp show "$EA" | jq -r '.[0].state')" err
	assert_equal "$(ctl "$B" -j qp show "$EB" | jq -r '.[0].state')" err
	[ "$(roce_counter "$A" "$EA" naks_received)" -ge 1 ]
}

@test "RC to a QP that does not answer: retries, then RETRY_EXC_ERR" {
	CXA=$(ctl "$A" -j cq create --cqe 64 | jq -r '.[0].handle')
	XA=$(roce_qp "$A" "$CXA" rc)
	# QP 999 of host B does not exist: nothing answers.  timeout 10 = 4 ms, retry_cnt 2.
	ROCE_TIMEOUT=10 ROCE_RETRY=2 roce_connect "$A" "$XA" "$ROCE_GID_A" "$ROCE_GID_B" 999
	ctl "$A" qp post "$XA" write --wrid 71 --sge "$MA:0:16" --remote "$MB@$((IOVA_B))"
	run completions "$A" "$CXA" 1
	assert_output "71 retry_exc_err rdma_write 0 0 0 "
	assert_equal "$(roce_counter "$A" "$XA" timeouts)" 3
	assert_equal "$(roce_counter "$A" "$XA" retransmits)" 2
	assert_equal "$(ctl "$A" -j qp show "$XA" | jq -r '.[0].state')" err
	[ "$(ctl "$B" -j dev show soft0 | jq -r '.[0].datapath.roce.rx_dropped')" -ge 3 ]
}

@test "a capture of the veth decodes in tshark without a malformed packet, and every ICRC checks" {
	local cap=$BATS_TEST_TMPDIR/roce.pcap
	roce_qps rc
	CWA=$PCA WA=$PQA WB=$PQB
	roce_capture_start "$cap"
	fill "$A" "$MA" 0 3000 >/dev/null
	ctl "$B" qp post-recv "$WB" --wrid 1 --sge "$MB:0:4096"
	ctl "$A" qp post "$WA" send_imm --wrid 2 --sge "$MA:0:3000" --imm 9 --solicited --signaled
	ctl "$A" qp post "$WA" write --wrid 3 --sge "$MA:0:2100" --remote "$MB@$((IOVA_B))" --signaled
	ctl "$A" qp post "$WA" read --wrid 4 --sge "$MA:0:2500" --remote "$MB@$((IOVA_B))" --signaled
	run completions "$A" "$CWA" 3
	assert_line "4 success rdma_read 2500 0 0 "
	roce_capture_stop
	roce_capture_checks "$cap"
	# opcode, PSN, AckReq, SE, pad, RETH length, AETH syndrome: SEND FIRST, MIDDLE,
	# LAST with immediate (AckReq, SE); WRITE FIRST (RETH 2100), MIDDLE, LAST
	# (AckReq); READ request (RETH 2500); from B an ACK (0x1f) of the WRITE (which
	# covers the SEND: an ACK of 102 of its own is there unless B found both messages
	# in one batch and coalesced) and READ RESPONSE FIRST, MIDDLE, LAST (AETH 0x1f on
	# the first and last).
	run --separate-stderr tshark -r "$cap" --disable-protocol rpcordma -T fields -E separator=, \
		-e infiniband.bth.opcode -e infiniband.bth.psn -e infiniband.bth.a -e infiniband.bth.se \
		-e infiniband.bth.padcnt -e infiniband.reth.dmalen -e infiniband.aeth.syndrome
	assert_success
	assert_line --index 0 "0,100,0,0,0,,"
	assert_line --index 1 "1,101,0,0,0,,"
	assert_line "3,102,1,1,0,,"
	assert_line "6,103,0,0,0,2100,"
	assert_line "8,105,1,0,0,,"
	assert_line "12,106,0,0,0,2500,"
	assert_line "13,106,0,0,0,,31"
	assert_line "14,107,0,0,0,,"
	assert_line "15,108,0,0,0,,31"
	assert_line "17,105,0,0,0,,31"
	refute_line --regexp '^17,(10[01346-9]|1[1-9][0-9]),'
	# DF on every packet (IDs may be numbered, as rxe's and NICs' are: the ICRC covers them).
	run --separate-stderr tshark -r "$cap" -T fields -e ip.flags.df
	assert_success
	refute_line 0
	# UDP source port: the flow's, both ways (reference roce_virtio.md §2.8: the product of
	# the QP numbers folded to a 20-bit flow label, then 0xC000 | 14 bits); destination 4791.
	sport=$(python3 -c "
v = $WA * $WB
v ^= v >> 20
v ^= v >> 40
fl = v & 0xfffff
print(0xc000 | ((fl & 0x3fff) ^ ((fl & 0xfc000) >> 14)))")
	run --separate-stderr tshark -r "$cap" -T fields -e udp.srcport -e udp.dstport
	assert_success
	assert_line "$sport	4791"
	[ "$(sort -u <<<"$output" | wc -l)" = 1 ]
}

# crc16_t10dif HEXFILE: the T10-DIF guard (CRC-16, polynomial 0x8BB7, initial 0, not
# reflected: SBC-3) of the file's bytes, as 4 hex digits; written from the standard.
crc16_t10dif() {
	python3 - "$1" <<'PY'
import sys
crc = 0
for b in open(sys.argv[1], "rb").read():
    crc ^= b << 8
    for _ in range(8):
        crc = ((crc << 1) ^ 0x8bb7 if crc & 0x8000 else crc << 1) & 0xffff
print("%04x" % crc)
PY
}

@test "a WRITE through a T10-DIF MKEY carries the wire domain: the peer receives data and PI" {
	local data=$BATS_TEST_TMPDIR/block
	head -c 512 </dev/urandom >"$data"
	ctl "$A" mr write "$MA" --offset 0 <"$data"
	echo '{"mem":null,"wire":{"sig_type":"t10dif","block_size":512,"t10dif":{"bg_type":"crc","bg":0,"app_tag":4660,"ref_tag":305419896}}}' \
		>"$BATS_TEST_TMPDIR/wire.json"
	K=$(ctl "$A" -j mkey create 1 --flags block_signature --max-entries 4 | jq -r '.[0].handle')
	ctl "$A" mkey configure "$K" --layout "$MA:0:512" --access local_write,remote_read \
		--config "$BATS_TEST_TMPDIR/wire.json" >/dev/null
	ctl "$A" qp post "$QA" write --wrid 81 --sge "$K:0:520" --remote "$MB@$((IOVA_B + 60000))" --signaled
	run completions "$A" "$CA" 1
	assert_output "81 success rdma_write 520 0 0 "
	# The block, then its PI as the wire carries it: guard, application tag 0x1234, reference tag.
	assert_equal "$(ctl "$B" mr read "$MB" --offset 60000 --length 512 | sha256sum)" "$(sha256sum <"$data")"
	assert_equal "$(ctl "$B" mr read "$MB" --offset 60512 --length 8 | xxd -p)" "$(crc16_t10dif "$data")123412345678"
	# Back through the MKEY: a READ of the 520 wire bytes is checked (no error) and stripped.
	head -c 512 /dev/zero | ctl "$A" mr write "$MA" --offset 0
	ctl "$A" qp post "$QA" read --wrid 82 --sge "$K:0:520" --remote "$MB@$((IOVA_B + 60000))" --signaled
	run completions "$A" "$CA" 1
	assert_output "82 success rdma_read 520 0 0 "
	assert_equal "$(ctl "$A" mr read "$MA" --offset 0 --length 512 | sha256sum)" "$(sha256sum <"$data")"
	assert_equal "$(ctl "$A" -j mkey check "$K" | jq -r .err_type)" none
	# A byte changed on the peer's side (flipped: a random block may hold any value there):
	# the READ still completes, the guard error is the MKEY's.
	byte=$(ctl "$B" mr read "$MB" --offset 60100 --length 1 | xxd -p)
	printf "\\x$(printf %02x $((0x$byte ^ 0xff)))" | ctl "$B" mr write "$MB" --offset 60100
	ctl "$A" qp post "$QA" read --wrid 83 --sge "$K:0:520" --remote "$MB@$((IOVA_B + 60000))" --signaled
	run completions "$A" "$CA" 1
	assert_output "83 success rdma_read 520 0 0 "
	assert_equal "$(ctl "$A" -j mkey check "$K" | jq -r .err_type)" guard
	[ "$(ctl "$A" -j qp show "$QA" | jq -r '.[0].datapath.sig_errors.guard')" -ge 1 ]
}

@test "an address vector from an IPv6 GID to an IPv4 one is refused, naming av.dgid" {
	CFA=$(ctl "$A" -j cq create --cqe 8 | jq -r '.[0].handle')
	FA=$(roce_qp "$A" "$CFA" rc)
	v6=$(ctl "$A" -j gid show | jq -r '[.[] | select(.gid | startswith("fe80")) | .index] | .[0]')
	ctl "$A" qp modify "$FA" --state init --access local_write
	run ctl "$A" qp modify "$FA" --state rtr --dgid "$ROCE_GID_B" --sgid-index "$v6" --path-mtu 1024 \
		--dest-qp 2 --rq-psn 0 --max-dest-rd-atomic 1 --min-rnr-timer 1
	assert_failure 2
	assert_output --partial "io.rdmad.Qp.InvalidArgument: field 'av.dgid'"
	assert_output --partial "both IPv4 (::ffff:a.b.c.d) or both IPv6"
	assert_equal "$(ctl "$A" -j qp show "$FA" | jq -r '.[0].state')" init
	run ctl "$A" ah create 1 --dgid "$ROCE_GID_B" --sgid-index "$v6"
	assert_failure 2
	assert_output --partial "io.rdmad.Ah.InvalidArgument: field 'dgid'"
}

@test "a path MTU larger than the link carries: what fits crosses, the rest is counted and retried out" {
	ROCE_MTU=4096 ROCE_TIMEOUT=10 ROCE_RETRY=1 roce_qps rc
	want=$(fill "$A" "$MA" 0 1000)
	ctl "$A" qp post "$PQA" write --wrid 91 --sge "$MA:0:1000" --remote "$MB@$((IOVA_B))" --signaled
	run completions "$A" "$PCA" 1
	assert_output "91 success rdma_write 1000 0 0 "
	assert_equal "$(sum "$B" "$MB" 0 1000)" "$want"
	before=$(ctl "$A" -j dev show soft0 | jq -r '.[0].datapath.roce.tx_errors')
	ctl "$A" qp post "$PQA" write --wrid 92 --sge "$MA:0:8000" --remote "$MB@$((IOVA_B))" --signaled
	run completions "$A" "$PCA" 1
	assert_output "92 retry_exc_err rdma_write 0 0 0 "
	[ "$(ctl "$A" -j dev show soft0 | jq -r '.[0].datapath.roce.tx_errors')" -gt "$before" ]
}

@test "RC over IPv6 GIDs: SEND and READ cross, a capture's ICRCs (IPv6 rule) check" {
	local cap=$BATS_TEST_TMPDIR/roce6.pcap
	roce_qps rc 6
	roce_capture_start "$cap"
	want=$(fill "$A" "$MA" 0 2000)
	ctl "$B" qp post-recv "$PQB" --wrid 101 --sge "$MB:0:4096"
	ctl "$A" qp post "$PQA" send --wrid 102 --sge "$MA:0:2000" --signaled
	run completions "$B" "$PCB" 1
	assert_output "101 success recv 2000 0 0 "
	assert_equal "$(sum "$B" "$MB" 0 2000)" "$want"
	want=$(fill "$B" "$MB" 4096 3000)
	ctl "$A" qp post "$PQA" read --wrid 103 --sge "$MA:0:3000" --remote "$MB@$((IOVA_B + 4096))" --signaled
	run completions "$A" "$PCA" 2
	assert_line "103 success rdma_read 3000 0 0 "
	assert_equal "$(sum "$A" "$MA" 0 3000)" "$want"
	roce_capture_stop
	run --separate-stderr tshark -r "$cap" --disable-protocol rpcordma -Y "ipv6" -T fields -e infiniband.bth.opcode
	assert_success
	assert_line 12
	roce_capture_checks "$cap"
}

@test "RC SEND gathered from three SGEs across packet edges, scattered into two on the other host" {
	local f=$BATS_TEST_TMPDIR/parts
	head -c 2800 </dev/urandom >"$f"
	head -c 700 "$f" | ctl "$A" mr write "$MA" --offset 10000
	tail -c +701 "$f" | head -c 900 | ctl "$A" mr write "$MA" --offset 20000
	tail -c +1601 "$f" | ctl "$A" mr write "$MA" --offset 30000
	ctl "$B" qp post-recv "$QB" --wrid 111 --sge "$MB:40000:1000" --sge "$MB:50000:2000"
	ctl "$A" qp post "$QA" send --wrid 112 --sge "$MA:10000:700" --sge "$MA:20000:900" \
		--sge "$MA:30000:1200" --signaled
	run completions "$B" "$CB" 1
	assert_output "111 success recv 2800 0 0 "
	run completions "$A" "$CA" 1
	assert_output "112 success send 2800 0 0 "
	assert_equal "$( { ctl "$B" mr read "$MB" --offset 40000 --length 1000
			   ctl "$B" mr read "$MB" --offset 50000 --length 1800; } | sha256sum)" "$(sha256sum <"$f")"
}
