# Two rdmad speaking RoCE v2 to each other, each in its own network namespace,
# the namespaces joined by a veth pair (MTU 1500, so the path MTU is 1024):
#
#   namespace A: rdmad, veth $VETH_A 10.232.0.1, roce_netdev = $VETH_A
#   namespace B: rdmad, veth $VETH_B 10.232.0.2, roce_netdev = $VETH_B
#
# Each rdmad's port 1 GIDs are its interface's addresses; ::ffff:10.232.0.N
# is the one the QPs use.  Needs root and ip.  Needs helper.bash and
# vnic-helper.bash (ns_rdmad_start, ctl).

ROCE_GID_A=::ffff:10.232.0.1
ROCE_GID_B=::ffff:10.232.0.2
ROCE_GID6_A=fd00:232::1
ROCE_GID6_B=fd00:232::2

roce_require() {
	[ "$(id -u)" -eq 0 ] || skip "needs root for network namespaces"
	command -v ip >/dev/null || skip "needs ip (iproute2)"
}

# roce_setup [EXTRA CONF LINES]: namespaces, veth pair, both rdmad (dirs $A and $B).
roce_setup() {
	NS_A=rdmad-ra-$$
	NS_B=rdmad-rb-$$
	A=$BATS_FILE_TMPDIR/a
	B=$BATS_FILE_TMPDIR/b
	VETH_A=ra$$
	VETH_B=rb$$
	export NS_A NS_B A B VETH_A VETH_B
	ns_veth_pair 10.232.0 1500
	ip -n "$NS_A" addr add "$ROCE_GID6_A/64" dev "$VETH_A" nodad
	ip -n "$NS_B" addr add "$ROCE_GID6_B/64" dev "$VETH_B" nodad
	mkdir -p "$A" "$B"
	printf 'roce_netdev = %s\n%s\n' "$VETH_A" "${1:-}" >"$A/rdmad.conf"
	printf 'roce_netdev = %s\n%s\n' "$VETH_B" "${1:-}" >"$B/rdmad.conf"
	ns_rdmad_start "$NS_A" "$A"
	ns_rdmad_start "$NS_B" "$B"
	roce_wait_gid "$A" "$ROCE_GID_A"
	roce_wait_gid "$B" "$ROCE_GID_B"
	roce_wait_gid "$A" "$ROCE_GID6_A"
	roce_wait_gid "$B" "$ROCE_GID6_B"
}

# roce_test_setup: each test's setup (skipped where setup_file could not make the hosts).
roce_test_setup() {
	load_libs
	[ -n "${NS_A:-}" ] || skip "needs root for network namespaces"
}

roce_teardown() {
	[ -n "${NS_A:-}" ] || return 0
	rdmad_stop "$A" || true
	rdmad_stop "$B" || true
	ip netns del "$NS_A" 2>/dev/null || true
	ip netns del "$NS_B" 2>/dev/null || true
}

# roce_gid_index DIR GID: the index of GID in port 1's table.
roce_gid_index() {
	ctl "$1" -j gid show | jq -r --arg g "$2" '[.[] | select(.gid == $g) | .index] | .[0]'
}

roce_wait_gid() {
	local i
	for i in $(seq 1 40); do
		[ "$(roce_gid_index "$1" "$2")" != null ] && return 0
		sleep 0.05
	done
	echo "no GID $2 in $1" >&2
	return 1
}

# roce_qp DIR CQ TYPE: a QP of PD 1; prints its number.
roce_qp() {
	ctl "$1" -j qp create --pd 1 --send-cq "$2" --recv-cq "$2" --type "$3" \
		--max-send-wr 256 --max-recv-wr 256 --max-send-sge 4 --max-recv-sge 4 | jq -r '.[0].handle'
}

# roce_connect DIR QP SGID DGID PEER [uc]: RESET -> INIT -> RTR -> RTS towards QP PEER on
# the other host (PSNs 100 both ways, path MTU $ROCE_MTU (default 1024); RC: timeout $ROCE_TIMEOUT (default
# 14 = 67 ms), retry_cnt $ROCE_RETRY (default 7: for ever), rnr_retry 7, min_rnr_timer 1).
roce_connect() {
	local dir=$1 qp=$2 sgid=$3 dgid=$4 peer=$5 idx rc_rtr=() rc_rts=()
	idx=$(roce_gid_index "$dir" "$sgid")
	if [ "${6:-rc}" = rc ]; then
		rc_rtr=(--max-dest-rd-atomic 4 --min-rnr-timer 1)
		rc_rts=(--timeout "${ROCE_TIMEOUT:-14}" --retry-cnt "${ROCE_RETRY:-7}" --rnr-retry 7
			--max-rd-atomic 4)
	fi
	ctl "$dir" qp modify "$qp" --state init --access local_write,remote_write,remote_read
	ctl "$dir" qp modify "$qp" --state rtr --dgid "$dgid" --sgid-index "$idx" --path-mtu "${ROCE_MTU:-1024}" \
		--dest-qp "$peer" --rq-psn 100 "${rc_rtr[@]}"
	ctl "$dir" qp modify "$qp" --state rts --sq-psn 100 "${rc_rts[@]}"
}

# roce_qps TYPE [6]: a new CQ and QP of TYPE on each host, connected to each other over
# IPv4 (or IPv6) GIDs: CQs PCA and PCB, QPs PQA and PQB.
roce_qps() {
	local ga=$ROCE_GID_A gb=$ROCE_GID_B
	[ "${2:-}" = 6 ] && ga=$ROCE_GID6_A gb=$ROCE_GID6_B
	PCA=$(ctl "$A" -j cq create --cqe 256 | jq -r '.[0].handle')
	PCB=$(ctl "$B" -j cq create --cqe 256 | jq -r '.[0].handle')
	PQA=$(roce_qp "$A" "$PCA" "$1")
	PQB=$(roce_qp "$B" "$PCB" "$1")
	roce_connect "$A" "$PQA" "$ga" "$gb" "$PQB" "$1"
	roce_connect "$B" "$PQB" "$gb" "$ga" "$PQA" "$1"
}

# roce_pair TYPE: PD 1 and a 1 MiB MR with remote access on each host (MA, MB; IOVA_B
# the address of MB), and a pair of QPs of TYPE (QA, QB completing into CA, CB).
roce_pair() {
	local dir
	for dir in "$A" "$B"; do
		ctl "$dir" pd create >/dev/null
	done
	MA=$(ctl "$A" -j mr create 1 --size 1048576 --access local_write,remote_write,remote_read | jq -r '.[0].lkey')
	MB=$(ctl "$B" -j mr create 1 --size 1048576 --access local_write,remote_write,remote_read | jq -r '.[0].lkey')
	IOVA_B=$(ctl "$B" -j mr show "$MB" | jq -r '.[0].iova')
	roce_qps "$1"
	CA=$PCA CB=$PCB QA=$PQA QB=$PQB
	export CA CB MA MB QA QB IOVA_B
}

# fill DIR KEY OFFSET LENGTH: writes LENGTH random bytes into the MR; prints their sha256.
fill() {
	local f=$BATS_TEST_TMPDIR/fill
	head -c "$4" </dev/urandom >"$f"
	ctl "$1" mr write "$2" --offset "$3" <"$f"
	sha256sum <"$f" | cut -d' ' -f1
}

# sum DIR KEY OFFSET LENGTH: the sha256 of the MR's bytes.
sum() {
	ctl "$1" mr read "$2" --offset "$3" --length "$4" | sha256sum | cut -d' ' -f1
}

# roce_poll DIR CQ N: the completions of CQ once N have come (or 10 s passed), as JSON.
roce_poll() {
	local dir=$1 cq=$2 n=$3 all='[]' got i
	for i in $(seq 1 50); do
		got=$(ctl "$dir" -j cq poll "$cq" --max 1024 --wait 200)
		all=$(jq -c --argjson a "$all" '$a + .' <<<"$got")
		[ "$(jq length <<<"$all")" -ge "$n" ] && break
	done
	echo "$all"
}

# completions DIR CQ N: the N completions, one line each: "wr_id status opcode byte_len imm src_qp flags".
completions() {
	roce_poll "$1" "$2" "$3" | jq -r '.[] | "\(.wr_id) \(.status) \(.opcode) \(.byte_len) \(.imm) \(.src_qp) \(.flags | join(","))"'
}

# roce_send LEN: a SEND of LEN random bytes from QA into a receive WR of QB, every byte checked.
roce_send() {
	local want
	want=$(fill "$A" "$MA" 0 "$1")
	ctl "$B" qp post-recv "$QB" --wrid "$1" --sge "$MB:0:$1"
	ctl "$A" qp post "$QA" send --wrid "$1" --sge "$MA:0:$1" --signaled
	run completions "$B" "$CB" 1
	assert_output "$1 success recv $1 0 0 "
	run completions "$A" "$CA" 1
	assert_output "$1 success send $1 0 0 "
	assert_equal "$(sum "$B" "$MB" 0 "$1")" "$want"
}

# roce_write_read LEN: QA WRITEs LEN random bytes into MB, then READs LEN others back; checked.
roce_write_read() {
	local want
	want=$(fill "$A" "$MA" 0 "$1")
	ctl "$A" qp post "$QA" write --wrid "$1" --sge "$MA:0:$1" --remote "$MB@$((IOVA_B))" --signaled
	run completions "$A" "$CA" 1
	assert_output "$1 success rdma_write $1 0 0 "
	assert_equal "$(sum "$B" "$MB" 0 "$1")" "$want"
	want=$(fill "$B" "$MB" 0 "$1")
	ctl "$A" qp post "$QA" read --wrid "$1" --sge "$MA:0:$1" --remote "$MB@$((IOVA_B))" --signaled
	run completions "$A" "$CA" 1
	assert_output "$1 success rdma_read $1 0 0 "
	assert_equal "$(sum "$A" "$MA" 0 "$1")" "$want"
}

# roce_capture_start FILE: capture B's RoCE traffic as it is on the wire.  With UDP
# segmentation off on the veths the kernel cuts every run of a GSO send before the wire
# (and before the capture of what B sends), so the capture shows packets as NICs send them.
roce_capture_start() {
	command -v dumpcap >/dev/null || skip "needs dumpcap (tshark)"
	command -v ethtool >/dev/null || skip "needs ethtool"
	ip netns exec "$NS_A" ethtool -K "$VETH_A" tx-udp-segmentation off
	ip netns exec "$NS_B" ethtool -K "$VETH_B" tx-udp-segmentation off
	ip netns exec "$NS_B" dumpcap -q -P -i "$VETH_B" -f "udp port 4791" -w "$1" 2>/dev/null &
	ROCE_CAPTURE_PID=$!
	for i in $(seq 1 50); do [ -s "$1" ] && break; sleep 0.1; done
	sleep 0.3
}

roce_capture_stop() {
	sleep 0.3
	kill -INT "$ROCE_CAPTURE_PID"
	wait "$ROCE_CAPTURE_PID" || true
	ip netns exec "$NS_A" ethtool -K "$VETH_A" tx-udp-segmentation on
	ip netns exec "$NS_B" ethtool -K "$VETH_B" tx-udp-segmentation on
}

# roce_capture_checks FILE: no malformed packet in tshark, every ICRC right against its own
# header, IPv4 ID included (tests/tools/roce-icrc.py, written from the standard).
roce_capture_checks() {
	run --separate-stderr tshark -r "$1" --disable-protocol rpcordma -Y _ws.malformed
	assert_success
	assert_output ""
	run python3 "$TOP/tests/tools/roce-icrc.py" check-pcap "$1"
	assert_success
	assert_output --regexp "^[0-9]+ OK, 0 BAD$"
}

# roce_dev DIR KEY: the device's RoCE counter (or field) KEY.
roce_dev() {
	ctl "$1" -j dev show soft0 | jq -r ".[0].datapath.roce.$2"
}

# roce_clean DIR...: each device dropped nothing on receipt and found no bad ICRC.
roce_clean() {
	local d
	for d in "$@"; do
		assert_equal "$(roce_dev "$d" icrc_errors)" 0
		assert_equal "$(roce_dev "$d" icrc_other_id)" 0
		assert_equal "$(roce_dev "$d" rx_dropped)" 0
	done
}
