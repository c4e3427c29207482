#!/usr/bin/env bats
# make check runs this file alone: network namespaces, veths or TAPs, with names of their own.
# A virtual machine on rdmad's virtio-net RoCE device (seed 004), as the test
# front end tests/tools/vhost-guest plays it: QEMU's half of vhost-user and
# the guest's driver, written from the seed and the vhost-user spec alone.
# What is asserted comes from the bytes the device wrote (acks, frames) and
# from vdev show -j.

load helper

setup_file() { rdmad_start; }
teardown_file() { rdmad_stop; }

setup() {
	load_libs
	cd "$BATS_TEST_TMPDIR"
	S=$BATS_TEST_TMPDIR
	GUEST="$BUILD/tools/vhost-guest"
}

teardown() {
	for p in "$BATS_TEST_TMPDIR"/*.pid; do
		[ -e "$p" ] && kill -9 "$(cat "$p")" 2>/dev/null || true
	done
	for v in ${VDEVS:-}; do
		"$RDMACTL" vdev destroy "$v" 2>/dev/null || true
	done
}

vdev_json() { # NAME JQ
	"$RDMACTL" -j vdev show "$1" | jq -c ".[0]$2"
}

# guest_start VM SOCKET: a guest reading its commands from VM.in, answering in VM.out.
guest_start() {
	local fd
	mkfifo "$S/$1.in"
	"$GUEST" "$2" <"$S/$1.in" >"$S/$1.out" 2>&1 &
	echo $! >"$S/$1.pid"
	exec {fd}>"$S/$1.in"
	eval "GUEST_FD_$1=$fd"
}
# g VM COMMAND...: runs one command; its answer line ("ok ..." or "fail ...") on stdout.
g() {
	local vm=$1 fdvar="GUEST_FD_$1" n
	shift
	n=$(grep -c '^\(ok\|fail\)' "$S/$vm.out" || true)
	echo "$*" >&"${!fdvar}"
	for _ in $(seq 1 300); do
		[ "$(grep -c '^\(ok\|fail\)' "$S/$vm.out" || true)" -gt "$n" ] && break
		sleep 0.05
	done
	grep '^\(ok\|fail\)' "$S/$vm.out" | sed -n "$((n + 1))p"
}
# kv KEY LINE: the value of KEY=value in LINE.
kv() {
	sed -n "s/.*[ ]$1=\([^ ]*\).*/\1/p" <<<"$2"
}
# gok VM COMMAND...: the command must succeed; its answer in $reply.
gok() {
	reply=$(g "$@")
	[[ "$reply" == ok* ]] || { echo "$*: $reply" >&2; return 1; }
}
# gfail VM COMMAND...: the device must refuse it (ack 1).
gfail() {
	reply=$(g "$@")
	[[ "$reply" == "fail ack=1"* ]] || { echo "$*: $reply" >&2; return 1; }
}
wait_state() { # NAME STATE
	for _ in $(seq 1 100); do
		[ "$(vdev_json "$1" .state)" = "\"$2\"" ] && return 0
		sleep 0.05
	done
	return 1
}
# A guest with its three queues running on vdev NAME (made here).
guest_up() { # VM [create options...]
	local vm=$1
	shift
	"$RDMACTL" vdev create "$vm" --socket "$S/$vm.sock" "$@" >/dev/null
	VDEVS="${VDEVS:-} $vm"
	guest_start "$vm" "$S/$vm.sock"
	gok "$vm" negotiate
	gok "$vm" start
}

@test "a guest negotiates the seed's device: its features, config fields and the device's limits" {
	guest_up g1 --max-qps 16 --max-cqs 8 --mac 52:54:00:12:34:56
	features=$(kv features "$(sed -n 1p "$S/g1.out")")
	# VIRTIO_NET_F_ROCE 55 with CTRL_VQ 17 (which it needs), MAC 5, VERSION_1 32.
	for bit in 5 17 32 55; do
		(( (features >> bit) & 1 )) || { echo "bit $bit missing in $features"; false; }
	done
	gok g1 config
	assert_equal "$(kv mac "$reply")" 52:54:00:12:34:56
	assert_equal "$(kv status "$reply")" 1
	assert_equal "$(kv max_rdma_qps "$reply")" 16
	assert_equal "$(kv max_rdma_cqs "$reply")" 8
	# QUERY_DEVICE and QUERY_PORT: the software device's limits (reference §1.6),
	# object counts at least rxe's (issue 32).
	gok g1 query_device
	assert_equal "$(kv max_qp_wr "$reply")" 1024
	assert_equal "$(kv max_cqe "$reply")" 32767
	assert_equal "$(kv max_mr "$reply")" 262144
	assert_equal "$(kv max_ah "$reply")" 16384
	assert_equal "$(kv max_pd "$reply")" 32764
	assert_equal "$(kv max_send_sge "$reply")" 32
	assert_equal "$(kv local_ca_ack_delay "$reply")" 15
	gok g1 query_port
	assert_equal "$(kv gid_tbl_len "$reply")" 512
	assert_equal "$(kv max_msg_sz "$reply")" 8388608
	run vdev_json g1 '.virtio | [.features, (.queues | map(select(.index < 3)) | map([.name, .running]))]'
	assert_output "[$((features)),[[\"receiveq1\",true],[\"transmitq1\",true],[\"controlq\",true]]]"
	assert_equal "$(vdev_json g1 .state)" '"connected"'
}

@test "the control commands make the guest's objects, numbered by its queues, and vdev show counts them" {
	guest_up g2 --max-qps 16 --max-cqs 8
	gok g2 create_pd
	pd=$(kv pdn "$reply")
	gok g2 create_cq cqe=16
	cq=$(kv cqn "$reply")
	# A CQ's number is its completion virtqueue's, a QP's its send/receive pair's.
	[ "$cq" -ge 1 ] && [ "$cq" -lt 8 ]
	assert_equal "$(kv vq "$reply")" $((3 + cq))
	gok g2 create_qp pdn=$pd type=rc send_cqn=$cq recv_cqn=$cq max_send_wr=16 max_recv_wr=16 max_send_sge=2 max_recv_sge=2 max_inline_data=64
	qp=$(kv qpn "$reply")
	[ "$qp" -ge 2 ] && [ "$qp" -lt 16 ]
	assert_equal "$(kv sq_vq "$reply")" $((3 + 8 + 2 * qp))
	gok g2 modify_qp qpn=$qp state=init access=local_write,remote_write
	gok g2 query_qp qpn=$qp
	assert_equal "$(kv state "$reply")" init
	assert_equal "$(kv access "$reply")" local_write,remote_write
	gok g2 alloc buf 8192 scatter
	gok g2 reg_user_mr buf pdn=$pd access=local_write,remote_read
	lkey=$(kv lkey "$reply")
	assert_equal "$(kv rkey "$reply")" "$lkey"
	gok g2 get_dma_mr pdn=$pd access=local_write
	assert_equal "$(kv rkey "$reply")" 0x0
	gok g2 add_gid index=0 gid=10.77.0.2
	gok g2 create_ah pdn=$pd dgid=10.77.0.3 sgid_index=0
	ah=$(kv ah "$reply")
	gok g2 req_notify_cq cqn=$cq flags=next
	run vdev_json g2 '.virtio | [.objects, .control.received, .control.refused, .control.last_refused]'
	assert_output '[{"pds":1,"mrs":2,"cqs":1,"qps":1,"ahs":1,"gids":1},10,0,null]'
	# Refusals change nothing and say why.
	gfail g2 destroy_pd pdn=$pd
	run vdev_json g2 '.virtio.control.last_refused | [.command, .error, .field, .reason]'
	assert_output "[\"DESTROY_PD\",\"ObjectInUse\",null,\"pd $pd is used by mr $((lkey))\"]"
	gfail g2 create_qp pdn=$pd type=gsi send_cqn=$cq recv_cqn=$cq
	run vdev_json g2 '.virtio.control.last_refused | [.command, .error, .field]'
	assert_output '["CREATE_QP","NotSupported","qp_type"]'
	gfail g2 modify_qp qpn=$qp state=rts
	assert_equal "$(vdev_json g2 .virtio.control.last_refused.field)" '"state"'
	gfail g2 reg_user_mr buf pdn=$pd access=remote_write
	assert_equal "$(vdev_json g2 .virtio.control.last_refused.field)" '"access"'
	# A command the seed has not, and a class that was not offered: not the seed's.
	reply=$(g g2 raw_ctrl 6 18 -)
	[[ "$reply" == "fail ack=1"* ]]
	reply=$(g g2 raw_ctrl 0 0 01)
	[[ "$reply" == "fail ack=1"* ]]
	run vdev_json g2 '.virtio | [.objects, .control.refused, .control.malformed]'
	assert_output '[{"pds":1,"mrs":2,"cqs":1,"qps":1,"ahs":1,"gids":1},4,2]'
	# Everything goes again, users first.
	gok g2 destroy_ah pdn=$pd ah=$ah
	gok g2 destroy_qp qpn=$qp
	gok g2 dereg_mr mrn=$lkey
	gok g2 destroy_cq cqn=$cq
	gfail g2 destroy_pd pdn=$pd
	run vdev_json g2 '.virtio.objects'
	assert_output '{"pds":1,"mrs":1,"cqs":0,"qps":0,"ahs":0,"gids":1}'
	# The guest's objects are on its own device: none of them on soft0.
	run "$RDMACTL" -j pd list
	assert_output '[]'
}

@test "kill -9 of the front end reclaims every object; the socket takes the next front end, which starts with none" {
	guest_up g3
	gok g3 create_pd
	gok g3 create_cq cqe=8
	cq=$(kv cqn "$reply")
	gok g3 create_qp pdn=1 type=ud send_cqn=$cq recv_cqn=$cq
	gok g3 alloc b 4096
	gok g3 reg_user_mr b pdn=1 access=local_write
	run vdev_json g3 '.virtio.objects | [.pds, .cqs, .qps, .mrs]'
	assert_output '[1,1,1,1]'
	kill -9 "$(cat "$S/g3.pid")"
	rm "$S/g3.pid"
	wait_state g3 listening
	assert_regex "$(cat "$BATS_FILE_TMPDIR/rdmad.log")" "vdev g3: the guest's objects went: 1 QPs, 0 AHs, 1 MRs, 1 CQs, 1 PDs"
	assert_equal "$(vdev_json g3 .virtio)" '{}'
	guest_start g3b "$S/g3.sock"
	gok g3b negotiate
	gok g3b start
	run vdev_json g3 ' | [.state, .accepted, .virtio.objects]'
	assert_output '["connected",2,{"pds":0,"mrs":0,"cqs":0,"qps":0,"ahs":0,"gids":0}]'
	gok g3b create_pd
	assert_equal "$(kv pdn "$reply")" 1
}

@test "a second VM cannot touch the first's objects" {
	guest_up va
	guest_up vb
	gok va create_pd
	gok va create_cq cqe=8
	gok va create_qp pdn=1 type=rc send_cqn=1 recv_cqn=1
	qp=$(kv qpn "$reply")
	# vb names va's numbers: on its own device they name nothing.
	gfail vb query_qp qpn=$qp
	gfail vb destroy_qp qpn=$qp
	assert_equal "$(vdev_json vb .virtio.control.last_refused.error)" '"NoSuchObject"'
	gfail vb destroy_cq cqn=1
	gfail vb destroy_pd pdn=1
	gok va query_qp qpn=$qp
	assert_equal "$(kv state "$reply")" reset
	run vdev_json va '.virtio.objects | [.pds, .cqs, .qps]'
	assert_output '[1,1,1]'
	# vb's own PD 1 is its own.
	gok vb create_pd
	assert_equal "$(kv pdn "$reply")" 1
	gok vb destroy_pd pdn=1
	run vdev_json va '.virtio.objects | [.pds, .cqs, .qps]'
	assert_output '[1,1,1]'
}

@test "a second VM's WQEs on its worker reach none of the first's memory: a key only the first has fails" {
	guest_up vm1 --max-qps 16 --max-cqs 8
	guest_up vm2 --max-qps 16 --max-cqs 8
	connect_pair vm1 1024
	gok vm1 alloc c 4096
	gok vm1 pattern c 0 4096 7
	gok vm1 reg_user_mr c pdn=1 access=local_write,remote_write,remote_read
	kc=$(kv lkey "$reply")
	connect_pair vm2 1024
	# vm2 names vm1's third key, at vm1's address of it: on vm2's device it names nothing.
	gok vm2 post_send qpn=2 opcode=write wr_id=5 flags=signaled sge=a:0:64:$KA remote_addr=0x7f0000008000 rkey=$kc
	cqes vm2 1
	assert_regex "$cqes" "cqe wr_id=5 status=rem_access_err"
	# The error took the pair to ERR: up again, and vm1's key as vm2's local key.
	pair_reset_up vm2
	gok vm2 post_send qpn=2 opcode=write wr_id=6 flags=signaled sge=a:0:64:$kc remote_addr=b rkey=$KB
	cqes vm2 1
	assert_regex "$cqes" "cqe wr_id=6 status=loc_prot_err"
	gok vm1 check c 0 4096 7
}

@test "guest Ethernet: its frames reach the TAP, the TAP's frames reach it; counted in vdev show" {
	ip tuntap list >/dev/null 2>&1 || skip "no TUN/TAP here"
	guest_up ge --tap vdgt-ge --mac 52:54:00:00:0e:01
	sysctl -qw net.ipv6.conf.vdgt-ge.disable_ipv6=1 || true
	ip link set vdgt-ge up
	# The host listens for the guest's frame of a local ethertype (0x88b5)...
	python3 - >host.out <<-'EOF' &
	import binascii, socket
	s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x88b5))
	s.bind(("vdgt-ge", 0))
	s.settimeout(5)
	print("listening", flush=True)
	print(binascii.hexlify(s.recv(4096)).decode(), flush=True)
	EOF
	listener=$!
	for _ in $(seq 1 100); do grep -q listening host.out && break; sleep 0.05; done
	frame=020202020202525400000e0188b572646d61642066726f6d20746865206775657374
	gok ge net_tx "$frame"
	wait "$listener"
	assert_equal "$(sed -n 2p host.out)" "$frame"
	# ... and sends one to the guest's MAC.
	python3 -c '
import socket, sys
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(("vdgt-ge", 0))
s.send(bytes.fromhex(sys.argv[1]))
' 525400000e0102020202020288b5686f737420746f206775657374
	gok ge net_rx timeout_ms=3000
	assert_equal "$(kv hex "$reply")" 525400000e0102020202020288b5686f737420746f206775657374
	run vdev_json ge '.virtio | [.tx_frames, .tx_dropped, .rx_frames >= 1]'
	assert_output '[1,0,true]'
}

@test "a guest's malformed ring breaks that queue only: rdmad, the guest's other queues and other VMs go on" {
	guest_up gm
	guest_up gn
	gok gm bad_ring 2 loop
	for _ in $(seq 1 50); do
		[ "$(vdev_json gm '.virtio.queues[2].broken')" != null ] && break
		sleep 0.05
	done
	run vdev_json gm '.virtio.queues[2] | [.name, .running, (.broken | length > 0)]'
	assert_output '["controlq",true,true]'
	assert_daemon_serves
	# Its transmit queue is served still (no TAP: the frame is counted dropped).
	gok gm net_tx 020202020202525400000e0188b500
	for _ in $(seq 1 50); do
		[ "$(vdev_json gm .virtio.tx_dropped)" = 1 ] && break
		sleep 0.05
	done
	assert_equal "$(vdev_json gm .virtio.tx_dropped)" 1
	gok gn create_pd
	# A memory table the front end gets wrong is refused and changes nothing.
	gok gn bad_mem_table overlap
	gok gn create_cq cqe=4
}

# connect_pair VM [CQE]: QPs 2 and 3 of one guest, connected to each other through its own
# GID, completing into CQ 1 of CQE entries (64).
connect_pair() {
	local vm=$1
	gok "$vm" create_pd
	gok "$vm" create_cq cqe="${2:-64}"
	gok "$vm" add_gid index=0 gid=10.77.0.2
	for i in 1 2; do
		gok "$vm" create_qp pdn=1 type=rc send_cqn=1 recv_cqn=1 max_send_wr=16 max_recv_wr=16 max_send_sge=2 max_recv_sge=2 max_inline_data=64
	done
	gok "$vm" alloc a 8192
	gok "$vm" alloc b 8192 scatter
	gok "$vm" reg_user_mr a pdn=1 access=local_write,remote_write,remote_read
	KA=$(kv lkey "$reply")
	gok "$vm" reg_user_mr b pdn=1 access=local_write,remote_write,remote_read
	KB=$(kv lkey "$reply")
	pair_up "$vm"
}
# pair_up VM [A B]: QPs A and B (2 and 3; in RESET) through INIT and RTR to RTS, each the other's peer.
pair_up() {
	local vm=$1 a=${2:-2} b=${3:-3}
	for qp in "$a" "$b"; do
		gok "$vm" modify_qp qpn=$qp state=init access=local_write,remote_write,remote_read
	done
	gok "$vm" modify_qp qpn=$a state=rtr dgid=10.77.0.2 sgid_index=0 path_mtu=1024 dest_qpn=$b rq_psn=0 max_dest_rd_atomic=4 min_rnr_timer=1
	gok "$vm" modify_qp qpn=$b state=rtr dgid=10.77.0.2 sgid_index=0 path_mtu=1024 dest_qpn=$a rq_psn=0 max_dest_rd_atomic=4 min_rnr_timer=1
	for qp in "$a" "$b"; do
		gok "$vm" modify_qp qpn=$qp state=rts timeout=14 retry_cnt=7 rnr_retry=7 sq_psn=0 max_rd_atomic=4
	done
}
# pair_reset_up VM: QPs 2 and 3 (after an error) to RESET, then up again as pair_up.
pair_reset_up() {
	for qp in 2 3; do
		gok "$1" modify_qp qpn=$qp state=reset
	done
	pair_up "$1"
}
# cqes VM N: polls N completions of CQ 1; their lines ("cqe ...") in $cqes.
cqes() {
	local n
	n=$(grep -c '^cqe' "$S/$1.out" || true)
	gok "$1" poll cqn=1 n="$2"
	cqes=$(grep '^cqe' "$S/$1.out" | sed -n "$((n + 1)),\$p")
}

@test "a guest's RC QPs exchange SEND, WRITE and READ through its virtqueues; the bytes land where the WQEs say" {
	guest_up gq --max-qps 16 --max-cqs 8
	connect_pair gq
	gok gq pattern a 0 64 7
	gok gq post_recv qpn=3 wr_id=100 sge=b:0:64:$KB
	gok gq post_send qpn=2 opcode=send wr_id=1 flags=signaled sge=a:0:64:$KA
	cqes gq 2
	assert_regex "$cqes" "cqe wr_id=100 status=success opcode=recv byte_len=64 imm=0 qp_num=3"
	assert_regex "$cqes" "cqe wr_id=1 status=success opcode=send byte_len=64 imm=0 qp_num=2"
	gok gq check b 0 64 7
	# A WRITE of 4000 bytes into b, whose pages are scattered in guest memory.
	gok gq pattern a 4096 4000 9
	gok gq post_send qpn=2 opcode=write wr_id=2 flags=signaled sge=a:4096:4000:$KA remote_addr=b+1000 rkey=$KB
	cqes gq 1
	assert_regex "$cqes" "cqe wr_id=2 status=success opcode=rdma_write byte_len=4000"
	gok gq check b 1000 4000 9
	# A READ back from a, and a SEND with immediate data, inline.
	gok gq post_send qpn=3 opcode=read wr_id=3 flags=signaled sge=b:6000:100:$KB remote_addr=a+4096 rkey=$KA
	cqes gq 1
	assert_regex "$cqes" "cqe wr_id=3 status=success opcode=rdma_read byte_len=100"
	gok gq check b 6000 100 9
	gok gq post_recv qpn=2 wr_id=101 sge=a:0:64:$KA
	gok gq post_send qpn=3 opcode=send_imm wr_id=4 imm=0x12345678 flags=signaled,inline inline=68656c6c6f
	cqes gq 2
	assert_regex "$cqes" "cqe wr_id=101 status=success opcode=recv byte_len=5 imm=305419896 qp_num=2 src_qp=[0-9]+ wc_flags=0x2"
	gok gq dump a 0 5
	assert_equal "$(kv hex "$reply")" 68656c6c6f
	run vdev_json gq '.virtio.queues | map(select(.name == "qp 2 send" or .name == "qp 3 send")) | map(.popped)'
	assert_output '[2,2]'
}

@test "a guest's CQ interrupts only when armed, once; a WQE that cannot be posted completes in error" {
	guest_up gi --max-qps 16 --max-cqs 8
	connect_pair gi
	gok gi post_recv qpn=3 wr_id=10 sge=b:0:64:$KB
	gok gi post_send qpn=2 opcode=send wr_id=11 flags=signaled sge=a:0:64:$KA
	# Not armed: the entries come, no interrupt.
	run g gi wait_event cqn=1 timeout_ms=300
	assert_output "fail timeout"
	cqes gi 2
	# Armed for the next completion: one interrupt.
	gok gi req_notify_cq cqn=1 flags=next
	gok gi post_send qpn=2 opcode=write wr_id=12 flags=signaled sge=a:0:8:$KA remote_addr=b+0 rkey=$KB
	gok gi wait_event cqn=1 timeout_ms=3000
	cqes gi 1
	gok gi post_send qpn=2 opcode=write wr_id=13 flags=signaled sge=a:0:8:$KA remote_addr=b+0 rkey=$KB
	run g gi wait_event cqn=1 timeout_ms=300
	assert_output "fail timeout"
	cqes gi 1
	# An SGE past its MR: the worker completes it with a local protection error.
	gok gi post_send qpn=2 opcode=write wr_id=14 flags=signaled sge=a:8000:1000:$KA remote_addr=b+0 rkey=$KB
	cqes gi 1
	assert_regex "$cqes" "cqe wr_id=14 status=loc_prot_err"
	assert_equal "$(vdev_json gi '.virtio.queues | map(select(.broken != null)) | length')" 0
}

@test "a guest keeps its send queue full with every 16th WQE signaled, polling or sleeping on its armed CQ" {
	guest_up gb --max-qps 16 --max-cqs 8
	# The CQ takes what the guest's queues can have in flight (256 receives, a
	# completion per 16 sends), as the seed asks of a driver.
	connect_pair gb 1024
	# Unsignaled WQEs give their descriptors back with the next signaled one's
	# completion: 20000 through a 16-deep QP and the guest's queue.
	for wait in poll event; do
		gok gb bench_send wait=$wait qpn=2 cqn=1 n=20000 size=64 recv_qpn=3 recv_buf=b recv_lkey=$KB
		assert_equal "$(kv msgs "$reply")" 20000
		gok gb bench_write wait=$wait qpn=2 cqn=1 n=20000 size=4096 buf=a lkey=$KA remote_addr=b rkey=$KB
		assert_equal "$(kv msgs "$reply")" 20000
	done
	run vdev_json gb '.virtio.queues | map(select(.name == "qp 2 send")) | map(.popped)'
	assert_output '[80000]'
	# Sleeping needs interrupts: the CQ's queue signalled the guest.
	run vdev_json gb '.virtio.queues | map(select(.name == "cq 1")) | map(.signals > 0)'
	assert_output '[true]'
	assert_equal "$(vdev_json gb '.virtio.queues | map(select(.broken != null)) | length')" 0
}

@test "a send queue runs on its QP's worker from RTS on: errors, ERR, RESET and RTS again, destroy, and kill -9 under traffic" {
	guest_up gw --max-qps 16 --max-cqs 8
	connect_pair gw 1024
	gok gw bench_write qpn=2 cqn=1 n=5000 size=4096 buf=a lkey=$KA remote_addr=b rkey=$KB
	# A WQE that is not whole completes in error (the worker writes it as no WR is),
	# which takes the QP to ERR; what comes after is flushed.
	gok gw post_raw qpn=2 queue=send hex=4d00000000000000
	cqes gw 1
	assert_regex "$cqes" "cqe wr_id=77 status=loc_qp_op_err"
	gok gw post_send qpn=2 opcode=write wr_id=78 flags=signaled sge=a:0:8:$KA remote_addr=b+0 rkey=$KB
	cqes gw 1
	assert_regex "$cqes" "cqe wr_id=78 status=wr_flush_err"
	# RESET, and up again: the queues go back to the main thread and to the worker again.
	pair_reset_up gw
	gok gw pattern a 0 4096 3
	gok gw bench_write qpn=2 cqn=1 n=5000 size=4096 buf=a lkey=$KA remote_addr=b rkey=$KB
	gok gw check b 0 4096 3
	# A QP destroyed while its queue is the worker's; a new one takes its place.
	gok gw destroy_qp qpn=3
	assert_equal "$(vdev_json gw .virtio.objects.qps)" 1
	gok gw create_qp pdn=1 type=rc send_cqn=1 recv_cqn=1 max_send_wr=16 max_recv_wr=16 max_send_sge=2 max_recv_sge=2 max_inline_data=64
	qn=$(kv qpn "$reply")
	gok gw modify_qp qpn=2 state=reset
	pair_up gw 2 "$qn"
	# kill -9 while WRITEs run on the worker: rdmad takes the queue back and reclaims.
	echo "bench_write qpn=2 cqn=1 n=50000000 size=4096 buf=a lkey=$KA remote_addr=b rkey=$KB" >&"$GUEST_FD_gw"
	sleep 0.5
	kill -9 "$(cat "$S/gw.pid")"
	rm "$S/gw.pid"
	wait_state gw listening
	assert_regex "$(cat "$BATS_FILE_TMPDIR/rdmad.log")" "vdev gw: the guest's objects went: 2 QPs, 0 AHs, 2 MRs, 1 CQs, 1 PDs"
	run "$RDMACTL" status
	assert_success
}

@test "a guest's UD QPs: a SEND through an AH lands behind the 40-byte GRH, with its source QP" {
	guest_up gu --max-qps 16 --max-cqs 8
	gok gu create_pd
	gok gu create_cq cqe=64
	gok gu add_gid index=0 gid=10.77.0.2
	for i in 1 2; do
		gok gu create_qp pdn=1 type=ud send_cqn=1 recv_cqn=1 max_send_wr=16 max_recv_wr=16 max_send_sge=2 max_recv_sge=2 max_inline_data=64
	done
	gok gu alloc b 8192
	gok gu reg_user_mr b pdn=1 access=local_write
	kb=$(kv lkey "$reply")
	for qp in 2 3; do
		gok gu modify_qp qpn=$qp state=init qkey=0x11111111
		gok gu modify_qp qpn=$qp state=rtr
		gok gu modify_qp qpn=$qp state=rts sq_psn=0
	done
	gok gu create_ah pdn=1 dgid=10.77.0.2 sgid_index=0
	ah=$(kv ah "$reply")
	gok gu post_recv qpn=3 wr_id=7 sge=b:0:200:$kb
	gok gu post_send qpn=2 opcode=send wr_id=8 flags=signaled,inline inline=757064 ud_qpn=3 ud_qkey=0x11111111 ah=$ah
	cqes gu 2
	assert_regex "$cqes" "cqe wr_id=7 status=success opcode=recv byte_len=43 imm=0 qp_num=3 src_qp=2 wc_flags=0x1"
	assert_regex "$cqes" "cqe wr_id=8 status=success opcode=send byte_len=3"
	gok gu dump b 40 3
	assert_equal "$(kv hex "$reply")" 757064
	# A wrong Q_Key: the datagram is dropped, the send still completes (UD is unreliable).
	gok gu post_send qpn=2 opcode=send wr_id=9 flags=signaled,inline inline=00 ud_qpn=3 ud_qkey=0x22222222 ah=$ah
	cqes gu 1
	assert_regex "$cqes" "cqe wr_id=9 status=success opcode=send"
}
