#!/usr/bin/env bats
# make check runs this file alone: network namespaces, veths or TAPs, with names of their own.
# A guest's RoCE v2 with QPs that are not its own device's, over the guest's
# TAP: its RC QP (the test front end tests/tools/vhost-guest, through its
# virtqueues) and a QP of the same host's device soft0 (driven by rdmactl),
# then a QP of a second rdmad on another host (namespace).  The guest's
# frames leave from its own address and MAC; the host's go through its
# kernel and rdmad's UDP socket.  SEND, WRITE and READ both ways, every byte
# checked; UD datagrams both ways through AHs (the guest's naming the TAP's
# MAC as next hop).  Needs root (namespaces, a TAP, addresses).
#
#   namespace H: rdmad with vdev gr, its TAP vdgr0 10.77.0.1 (the guest is
#                10.77.0.2), roce_netdev = vdgr0; veth 10.88.0.1; forwarding
#   namespace R: the second rdmad, veth 10.88.0.2, roce_netdev = the veth,
#                its route to 10.77.0.0/24 through H

load helper
load vnic-helper

setup_file() {
	[ "$(id -u)" = 0 ] || skip "needs root"
	command -v ip >/dev/null || skip "needs ip (iproute2)"
	NS_A=rdmad-vh-$$
	NS_B=rdmad-vr-$$
	VETH_A=vh$$
	VETH_B=vr$$
	export NS_A NS_B VETH_A VETH_B
	D=$BATS_FILE_TMPDIR/d
	R=$BATS_FILE_TMPDIR/r
	mkdir -p "$D" "$R"
	ns_veth_pair 10.88.0 1500
	# The vdev first, for its TAP to be there when the daemon starts again with roce_netdev on it.
	ns_rdmad_start "$NS_A" "$D"
	"$RDMACTL" -s "$D/io.rdmad" vdev create gr --socket "$D/gr.sock" --tap vdgr0 \
		--mac 52:54:00:00:77:02 >/dev/null
	rdmad_stop "$D"
	echo "roce_netdev = vdgr0" >"$D/rdmad.conf"
	ns_rdmad_start "$NS_A" "$D"
	ip netns exec "$NS_A" sysctl -qw net.ipv6.conf.vdgr0.disable_ipv6=1 || true
	ip netns exec "$NS_A" sysctl -qw net.ipv4.ip_forward=1
	ip -n "$NS_A" addr add 10.77.0.1/24 dev vdgr0
	ip -n "$NS_A" link set vdgr0 up
	# The guest answers no ARP here (its driver is a test's): its address is known.
	ip -n "$NS_A" neigh replace 10.77.0.2 lladdr 52:54:00:00:77:02 dev vdgr0 nud permanent
	ip -n "$NS_B" route add 10.77.0.0/24 via 10.88.0.1
	echo "roce_netdev = $VETH_B" >"$R/rdmad.conf"
	ns_rdmad_start "$NS_B" "$R"
}

teardown_file() {
	[ -n "${NS_A:-}" ] || return 0
	rdmad_stop "$BATS_FILE_TMPDIR/d" || true
	rdmad_stop "$BATS_FILE_TMPDIR/r" || true
	ip netns del "$NS_A" 2>/dev/null || true
	ip netns del "$NS_B" 2>/dev/null || true
}

setup() {
	load_libs
	[ -n "${NS_A:-}" ] || skip "needs root"
	D=$BATS_FILE_TMPDIR/d
	R=$BATS_FILE_TMPDIR/r
	export RDMACTL_SOCKET="$D/io.rdmad"
	S=$BATS_TEST_TMPDIR
	GUEST="$BUILD/tools/vhost-guest"
	# Files the tests write (w.bin) are theirs, not the checkout's.
	cd "$S"
}

teardown() {
	[ -e "$S/g.pid" ] && kill -9 "$(cat "$S/g.pid")" 2>/dev/null || true
	wait 2>/dev/null || true
}

guest_start() {
	mkfifo "$S/g.in"
	"$GUEST" "$D/gr.sock" <"$S/g.in" >"$S/g.out" 2>&1 &
	echo $! >"$S/g.pid"
	exec {GUEST_FD}>"$S/g.in"
}
# g COMMAND...: runs one command of the guest; its answer line.
g() {
	local n
	n=$(grep -c '^\(ok\|fail\)' "$S/g.out" || true)
	echo "$*" >&"$GUEST_FD"
	for _ in $(seq 1 300); do
		[ "$(grep -c '^\(ok\|fail\)' "$S/g.out" || true)" -gt "$n" ] && break
		sleep 0.05
	done
	grep '^\(ok\|fail\)' "$S/g.out" | sed -n "$((n + 1))p"
}
gok() {
	reply=$(g "$@")
	[[ "$reply" == ok* ]] || { echo "$*: $reply" >&2; return 1; }
}
kv() {
	sed -n "s/.*[ ]$1=\([^ ]*\).*/\1/p" <<<"$2"
}
# host_completions N [DIR]: the host CQ's N completions, "wr_id status opcode byte_len" each.
host_completions() {
	local all='[]' got
	for _ in $(seq 1 50); do
		got=$("$RDMACTL" -s "${2:-$D}/io.rdmad" -j cq poll "$CH" --max 64 --wait 200)
		all=$(jq -c --argjson a "$all" '$a + .' <<<"$got")
		[ "$(jq length <<<"$all")" -ge "$1" ] && break
	done
	jq -r '.[] | "\(.wr_id) \(.status) \(.opcode) \(.byte_len)"' <<<"$all"
}
sum() { # KEY OFFSET LENGTH: sha256 of the host MR's bytes
	"$RDMACTL" mr read "$1" --offset "$2" --length "$3" | sha256sum | cut -d' ' -f1
}

# guest_device: the guest's front end up, its device started, PD 1, CQ 1 and GID 10.77.0.2.
guest_device() {
	guest_start
	gok negotiate
	gok start
	gok create_pd
	gok create_cq cqe=64
	gok add_gid index=0 gid=10.77.0.2
}

# guest_qp DGID QPN DMAC [PSN]: the guest's PD, CQ, GID 10.77.0.2, an RC QP towards QPN at
# DGID through next hop DMAC (PSNs from PSN, default 100), a 16 KiB buffer of scattered
# pages as an MR (qg, kg, guest_va).
guest_qp() {
	guest_device
	gok create_qp pdn=1 type=rc send_cqn=1 recv_cqn=1 max_send_wr=16 max_recv_wr=16 max_send_sge=2 max_recv_sge=2
	qg=$(kv qpn "$reply")
	gok alloc g 16384 scatter
	guest_va=$(kv va "$reply")
	gok reg_user_mr g pdn=1 access=local_write,remote_write,remote_read
	kg=$(kv lkey "$reply")
	gok modify_qp qpn=$qg state=init access=local_write,remote_write,remote_read
	gok modify_qp qpn=$qg state=rtr dgid="$1" sgid_index=0 path_mtu=1024 dest_qpn="$2" rq_psn="${4:-100}" \
		max_dest_rd_atomic=4 min_rnr_timer=1 dmac="$3" hop_limit=64
	gok modify_qp qpn=$qg state=rts timeout=14 retry_cnt=7 rnr_retry=7 sq_psn="${4:-100}" max_rd_atomic=4
}

# host_side DIR GID: PD 1, a 64 KiB MR, a CQ and an RC QP on the rdmad of DIR (MH, IOVA_H, CH, QH).
host_side() {
	local c=("$RDMACTL" -s "$1/io.rdmad")
	"${c[@]}" pd create >/dev/null
	MH=$("${c[@]}" -j mr create 1 --size 65536 --access local_write,remote_write,remote_read | jq -r '.[0].lkey')
	IOVA_H=$("${c[@]}" -j mr show "$MH" | jq -r '.[0].iova')
	CH=$("${c[@]}" -j cq create --cqe 256 | jq -r '.[0].handle')
	QH=$("${c[@]}" -j qp create --pd 1 --send-cq "$CH" --recv-cq "$CH" --type rc --max-send-wr 64 \
		--max-recv-wr 64 --max-send-sge 4 --max-recv-sge 4 | jq -r '.[0].handle')
	for _ in $(seq 1 40); do
		"${c[@]}" -j gid show | jq -e --arg g "$2" '.[] | select(.gid == $g)' >/dev/null && break
		sleep 0.05
	done
}

# host_connect DIR QP SGID_INDEX: the host's QP to the guest's (qg at 10.77.0.2).
host_connect() {
	local c=("$RDMACTL" -s "$1/io.rdmad")
	"${c[@]}" qp modify "$2" --state init --access local_write,remote_write,remote_read
	"${c[@]}" qp modify "$2" --state rtr --dgid ::ffff:10.77.0.2 --sgid-index "$3" --path-mtu 1024 \
		--dest-qp "$qg" --rq-psn 100 --max-dest-rd-atomic 4 --min-rnr-timer 1
	"${c[@]}" qp modify "$2" --state rts --sq-psn 100 --timeout 14 --retry-cnt 7 --rnr-retry 7 --max-rd-atomic 4
}

# exchange DIR SEND WRITE WRITE_AT READ READ_AT: over the connected QPs (guest qg,
# host QH on the rdmad of DIR): the guest SENDs SEND bytes (one receive of the host's
# takes them), the host WRITEs WRITE random bytes at WRITE_AT of the guest's scattered
# pages, the guest READs the first READ of them back to READ_AT; every byte checked.
exchange() {
	local c=("$RDMACTL" -s "$1/io.rdmad")
	"${c[@]}" qp post-recv "$QH" --wrid 7 --sge "$MH:0:4096"
	gok pattern g 0 "$2" 5
	gok post_send qpn=$qg opcode=send wr_id=1 flags=signaled sge=g:0:$2:$kg
	gok poll cqn=1 n=1
	assert_regex "$(tail -2 "$S/g.out")" "cqe wr_id=1 status=success opcode=send byte_len=$2"
	run host_completions 1 "$1"
	assert_output "7 success recv $2"
	gok dump g 0 "$2"
	assert_equal "$("${c[@]}" mr read "$MH" --offset 0 --length "$2" | xxd -p | tr -d '\n')" "$(kv hex "$reply")"

	head -c "$3" /dev/urandom >w.bin
	"${c[@]}" mr write "$MH" --offset 8192 <w.bin
	"${c[@]}" qp post "$QH" write --wrid 9 --sge "$MH:8192:$3" --remote "$kg@$((guest_va + $4))" --signaled
	run host_completions 1 "$1"
	assert_output "9 success rdma_write $3"
	gok dump g "$4" "$3"
	assert_equal "$(kv hex "$reply")" "$(xxd -p w.bin | tr -d '\n')"

	gok post_send qpn=$qg opcode=read wr_id=3 flags=signaled sge=g:$6:$5:$kg remote_addr=$((IOVA_H + 8192)) rkey=$MH
	gok poll cqn=1 n=1
	assert_regex "$(tail -2 "$S/g.out")" "cqe wr_id=3 status=success opcode=rdma_read byte_len=$5"
	gok dump g "$6" "$5"
	assert_equal "$(kv hex "$reply")" "$(head -c "$5" w.bin | xxd -p | tr -d '\n')"
}

@test "a guest's RC QP and a host QP exchange SEND, WRITE and READ as RoCE v2 over the guest's TAP" {
	local tapmac
	tapmac=$(ip netns exec "$NS_A" cat /sys/class/net/vdgr0/address)
	# The host's side: soft0, its GID the TAP's address.
	host_side "$D" ::ffff:10.77.0.1
	guest_qp 10.77.0.1 "$QH" "$tapmac"
	host_connect "$D" "$QH" 0
	# A SEND of 3 packets at MTU 1024, a WRITE into scattered pages at an offset, a READ back.
	exchange "$D" 3000 5000 100 2000 10000
	# The VM's device counted its RoCE v2 packets: at least the SEND's 3, READ's 1, WRITE's ACK out.
	run "$RDMACTL" -j vdev show gr
	assert_equal "$(jq '.[0].virtio.datapath.roce.tx_packets >= 5' <<<"$output")" true
	assert_equal "$(jq '.[0].virtio.datapath.roce.rx_packets >= 7' <<<"$output")" true
	assert_equal "$(jq '.[0].virtio.datapath.roce.icrc_errors' <<<"$output")" 0
}

@test "a guest's RC QP and a QP of a second rdmad on another host exchange SEND, WRITE and READ" {
	local tapmac idx
	tapmac=$(ip netns exec "$NS_A" cat /sys/class/net/vdgr0/address)
	host_side "$R" ::ffff:10.88.0.2
	# The guest's frames go to its TAP's MAC, its host routes them on.
	guest_qp 10.88.0.2 "$QH" "$tapmac"
	idx=$("$RDMACTL" -s "$R/io.rdmad" -j gid show | jq -r '[.[] | select(.gid == "::ffff:10.88.0.2") | .index][0]')
	host_connect "$R" "$QH" "$idx"
	exchange "$R" 2500 4096 4000 3000 12000
}

@test "a guest's UD QP and a host UD QP exchange datagrams over the guest's TAP, each behind its GRH area" {
	local tapmac hex ah gq mg kb
	tapmac=$(ip netns exec "$NS_A" cat /sys/class/net/vdgr0/address)
	host_side "$D" ::ffff:10.77.0.1
	QU=$("$RDMACTL" -j qp create --pd 1 --send-cq "$CH" --recv-cq "$CH" --type ud | jq -r '.[0].handle')
	"$RDMACTL" qp modify "$QU" --state init --qkey 0x4444
	"$RDMACTL" qp modify "$QU" --state rtr
	"$RDMACTL" qp modify "$QU" --state rts --sq-psn 0
	guest_device
	gok create_qp pdn=1 type=ud send_cqn=1 recv_cqn=1 max_send_wr=16 max_recv_wr=16 max_send_sge=2 max_recv_sge=2 max_inline_data=64
	gq=$(kv qpn "$reply")
	gok modify_qp qpn=$gq state=init qkey=0x4444
	gok modify_qp qpn=$gq state=rtr
	gok modify_qp qpn=$gq state=rts sq_psn=0
	gok alloc u 8192
	gok reg_user_mr u pdn=1 access=local_write
	kb=$(kv lkey "$reply")
	# The guest's AH names the next hop, the TAP's MAC, as an AV over Ethernet must.
	gok create_ah pdn=1 dgid=10.77.0.1 sgid_index=0 dmac="$tapmac" hop_limit=64
	ah=$(kv ah "$reply")

	# Guest -> host: 20 zero bytes, the IPv4 header from 10.77.0.2 to 10.77.0.1, the payload.
	"$RDMACTL" qp post-recv "$QU" --wrid 21 --sge "$MH:0:200"
	gok post_send qpn=$gq opcode=send wr_id=22 flags=signaled,inline inline=6775657374 ud_qpn=$QU ud_qkey=0x4444 ah=$ah
	run host_completions 1
	assert_output "21 success recv 45"
	hex=$("$RDMACTL" mr read "$MH" --offset 0 --length 45 | xxd -p | tr -d '\n')
	assert_equal "${hex:0:40}" 0000000000000000000000000000000000000000
	assert_equal "${hex:64:16}" 0a4d00020a4d0001
	assert_equal "${hex:80}" 6775657374
	gok poll cqn=1 n=1
	assert_regex "$(tail -2 "$S/g.out")" "cqe wr_id=22 status=success opcode=send byte_len=5"

	# Host -> guest, through an AH of the host's to the guest's address.
	mg=$("$RDMACTL" -j ah create 1 --dgid ::ffff:10.77.0.2 --sgid-index 0 | jq -r '.[0].handle')
	printf 'host' | "$RDMACTL" mr write "$MH" --offset 4096
	gok post_recv qpn=$gq wr_id=23 sge=u:0:200:$kb
	"$RDMACTL" qp post "$QU" send --sge "$MH:4096:4" --ah "$mg" --dest-qp "$gq" --qkey 0x4444 --wrid 24 --signaled
	gok poll cqn=1 n=1
	assert_regex "$(tail -2 "$S/g.out")" "cqe wr_id=23 status=success opcode=recv byte_len=44 imm=0 qp_num=$gq src_qp=$QU wc_flags=0x1"
	gok dump u 32 12
	assert_equal "$(kv hex "$reply")" 0a4d00010a4d0002686f7374
	run host_completions 1
	assert_output "24 success send 4"
}

# pingpong_bytes ROUND SIZE: rdmad_rc_pingpong's message of that round, in hex (byte j: 31 ROUND + j).
pingpong_bytes() {
	python3 -c 'import sys; r, n = int(sys.argv[1]), int(sys.argv[2]); print(bytes((r * 31 + j) & 255 for j in range(n)).hex())' "$1" "$2"
}

@test "a guest's RC QP and a librdmad program's QP (rdmad_rc_pingpong) bounce messages over the guest's TAP" {
	local tapmac line qh pp to from
	tapmac=$(ip netns exec "$NS_A" cat /sys/class/net/vdgr0/address)
	mkfifo "$S/to" "$S/from"
	# The program is the server: its QP, through librdmad's rings, on the host's soft0.
	"$BUILD/examples/rdmad_rc_pingpong" -s "$D/io.rdmad" -r 10.77.0.2 -n 3 -z 64 \
		<"$S/to" >"$S/from" 2>"$S/pp.err" 3>&- &
	pp=$!
	exec {to}>"$S/to" {from}<"$S/from"
	read -r line qh <&"$from"
	assert_equal "$line" qpn
	# rdmad_rc_pingpong starts its PSNs at 0.
	guest_qp 10.77.0.1 "$qh" "$tapmac" 0
	echo "qpn $qg" >&"$to"
	read -r line <&"$from"
	assert_equal "$line" ready
	echo ready >&"$to"
	for round in 0 1 2; do
		gok fill g 0 "$(pingpong_bytes "$round" 64)"
		gok post_recv qpn=$qg wr_id=$((100 + round)) sge=g:4096:64:$kg
		gok post_send qpn=$qg opcode=send wr_id=$round flags=signaled sge=g:0:64:$kg
		gok poll cqn=1 n=2
		# The program checked our message; its answer is the same round's.
		gok dump g 4096 64
		assert_equal "$(kv hex "$reply")" "$(pingpong_bytes "$round" 64)"
	done
	wait "$pp"
	assert_regex "$(cat "$S/pp.err")" "server: 3 iters of 64 bytes"
}

@test "the guest's link sees the IP header: a packet whose ICRC is right only for another IPv4 ID is dropped and counted" {
	guest_start
	gok negotiate
	gok start
	run "$RDMACTL" -j vdev show gr
	assert_equal "$(jq '.[0].virtio.datapath.roce.icrc_other_id' <<<"$output")" 0
	# From the host to the guest's address, through the TAP (tests/tools/roce-craft.py).
	ip netns exec "$NS_A" python3 "$TOP/tests/tools/roce-craft.py" 10.77.0.1 10.77.0.2 17 100 \
		"forged!!" 7 5
	for _ in $(seq 1 40); do
		run "$RDMACTL" -j vdev show gr
		[ "$(jq '.[0].virtio.datapath.roce.icrc_other_id' <<<"$output")" = 1 ] && break
		sleep 0.05
	done
	assert_equal "$(jq '.[0].virtio.datapath.roce.icrc_other_id' <<<"$output")" 1
	assert_equal "$(jq '.[0].virtio.datapath.roce.icrc_errors' <<<"$output")" 0
}
