#!/usr/bin/env bats
# make check runs this file alone: network namespaces, veths or TAPs, with names of their own.
# Debian's QEMU as the front end of a vdev (issue #28, item 6).  What this
# covers:
# - the vhost-user session with a real QEMU (7.2 in Debian 12) from its
#   connection on: the features and protocol features it takes (MQ,
#   REPLY_ACK, RESET_DEVICE: QEMU's net front end does not use CONFIG), the
#   owner, the queue count, its rings' call descriptors, and its going and
#   coming again;
# - a Linux guest booted on it (Debian's cloud kernel and a busybox
#   initramfs, tests/tools/guest-image.sh): the kernel's virtio-net driver
#   takes the device, negotiates its features, starts the receive and
#   transmit queues through QEMU, and pings the host through the vdev's TAP,
#   so frames cross rdmad both ways through the guest's own rings.
# Not covered here: the RoCE queues and the RoCE control commands (QEMU 7.2
# passes no feature bit it does not know, VIRTIO_NET_F_ROCE among them, and
# handles the control queue itself); tests/tools/vhost-guest drives those in
# vdev-guest.bats and vdev-roce.bats.
# The guest runs under TCG: nested KVM here failed in two ways (QEMU aborts
# setting an MSR with -cpu host; qemu64 never reaches the kernel), and TCG
# boots in about 3 s.  MSI-X is off on the guest's device (vectors=0): with it,
# QEMU 7.2 under TCG crashed (SIGSEGV in msix_set_vector_notifiers, from
# vhost_net_start) before it sent rdmad the rings; INTx takes another path.
# make deps installs qemu-system-x86; the guest's two packages are fetched
# with apt-get download into $BUILD/guest, once.  Each test skips, saying
# why, where QEMU or the guest image cannot be had.

load helper

setup_file() { rdmad_start; }
teardown_file() { rdmad_stop; }

setup() {
	load_libs
	command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 is not installed (apt-get install qemu-system-x86)"
	cd "$BATS_TEST_TMPDIR"
}

teardown() {
	[ -z "${QEMU:-}" ] || kill -9 "$QEMU" 2>/dev/null || true
	"$RDMACTL" vdev destroy qv 2>/dev/null || true
	"$RDMACTL" vdev destroy qb 2>/dev/null || true
}

# qemu_start SOCKET: QEMU with its firmware (which finds nothing to boot), its
# guest's RAM a shared memfd as vhost-user needs, on a virtio-net device of SOCKET.
qemu_start() {
	qemu-system-x86_64 -machine q35,accel=tcg -m 64 \
		-object memory-backend-memfd,id=mem,size=64M,share=on -numa node,memdev=mem \
		-chardev socket,id=c0,path="$1" -netdev vhost-user,id=n0,chardev=c0 \
		-device virtio-net-pci,netdev=n0 -display none -monitor none -serial none \
		>qemu.log 2>&1 3>&- &
	QEMU=$!
}

wait_vdev() { # JQ VALUE
	for _ in $(seq 1 200); do
		[ "$("$RDMACTL" -j vdev show qv | jq -c ".[0]$1")" = "$2" ] && return 0
		sleep 0.05
	done
	"$RDMACTL" -j vdev show qv >&2
	cat qemu.log >&2
	return 1
}

@test "QEMU connects as the front end, takes the protocol features, and may go and come again" {
	"$RDMACTL" vdev create qv --socket "$BATS_TEST_TMPDIR/qv.sock" >/dev/null
	qemu_start "$BATS_TEST_TMPDIR/qv.sock"
	wait_vdev .state '"connected"'
	assert_equal "$("$RDMACTL" -j vdev show qv | jq -r '.[0].front_end.comm')" qemu-system-x86
	# MQ (bit 0), REPLY_ACK (3) and RESET_DEVICE (13): what QEMU's net front end takes of ours.
	wait_vdev .virtio.protocol_features $(( (1 << 0) | (1 << 3) | (1 << 13) ))
	kill -TERM "$QEMU"
	wait "$QEMU" || true
	QEMU=
	wait_vdev .state '"listening"'
	refute_regex "$(cat "$BATS_FILE_TMPDIR/rdmad.log")" "ending the front end's session"
	qemu_start "$BATS_TEST_TMPDIR/qv.sock"
	wait_vdev .accepted 2
	wait_vdev .state '"connected"'
}

# tap_packets IFNAME rx|tx: the packets the host's end of a TAP counted.
tap_packets() {
	ip -s -j link show "$1" | jq ".[0].stats64.$2.packets"
}

@test "a Linux guest boots with the vdev as its virtio-net device and pings the host through the TAP" {
	ip tuntap list >/dev/null 2>&1 || skip "no TUN/TAP here"
	run "$TOP/tests/tools/guest-image.sh" "$BUILD/guest"
	[ "$status" -eq 0 ] || skip "no guest image: $output"
	"$RDMACTL" vdev create qb --socket "$BATS_TEST_TMPDIR/qb.sock" --tap vdqb0 \
		--mac 52:54:00:00:0b:01 >/dev/null
	sysctl -qw net.ipv6.conf.vdqb0.disable_ipv6=1 || true
	ip addr add 10.231.78.1/30 dev vdqb0
	ip link set vdqb0 up
	rx0=$(tap_packets vdqb0 rx)
	tx0=$(tap_packets vdqb0 tx)
	timeout 150 qemu-system-x86_64 -machine q35,accel=tcg -cpu max -m 256 \
		-object memory-backend-memfd,id=mem,size=256M,share=on -numa node,memdev=mem \
		-chardev socket,id=c0,path="$BATS_TEST_TMPDIR/qb.sock" -netdev vhost-user,id=n0,chardev=c0 \
		-device virtio-net-pci,netdev=n0,mac=52:54:00:00:0b:01,vectors=0,romfile= \
		-kernel "$BUILD/guest/vmlinuz" -initrd "$BUILD/guest/initrd.img" \
		-append "console=ttyS0 quiet panic=-1 guest_ip=10.231.78.2 host_ip=10.231.78.1" \
		-display none -monitor none -serial file:console.log -no-reboot >qemu.log 2>&1 3>&-
	run sh -c "tr -d '\\r' <console.log | grep -a '^guest:'"
	echo "$output" >&2
	assert_line -n 0 --regexp '^guest: eth0 52:54:00:00:0b:01 features [01]+$'
	# What the guest's driver took of the device: INDIRECT_DESC (28),
	# EVENT_IDX (29) and VERSION_1 (32), rdmad's rings in the data path.
	features=${lines[0]##* }
	assert_equal "${features:28:1}${features:29:1}${features:32:1}" 111
	assert_line -n 1 "guest: ping 10.231.78.1 ok: 3 replies"
	assert_line -n 2 "guest: done"
	# At least the three requests came out of the TAP, the three replies went in.
	[ $(($(tap_packets vdqb0 rx) - rx0)) -ge 3 ]
	[ $(($(tap_packets vdqb0 tx) - tx0)) -ge 3 ]
	assert_equal "$("$RDMACTL" -j vdev show qb | jq -c '.[0] | [.accepted, .state]')" '[1,"listening"]'
	assert_regex "$(cat "$BATS_FILE_TMPDIR/rdmad.log")" "vdev qb: front end pid [0-9]+ \(qemu-system-x86, uid 0\) connected"
}
