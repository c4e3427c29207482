#!/usr/bin/env bats
# Debian's QEMU as the front end of a vdev (issue #28, item 6).  What this
# covers: the vhost-user session with a real QEMU (7.2 in Debian 12) from its
# connection to where a guest's driver would take over: the features and
# protocol features it takes (MQ, REPLY_ACK, RESET_DEVICE: QEMU's net front
# end does not use CONFIG), the owner, the queue count, its rings' call
# descriptors, and its going and coming again.  No guest OS boots here (none
# is installed), so QEMU drives no queue: the data queues and the control
# queue are driven by tests/tools/vhost-guest in vdev-guest.bats.  Skipped
# without qemu-system-x86_64, which make deps does not install: Debian's QEMU
# depends on libibverbs1, whose installation makes the system group rdma, the
# group these tests make and remove themselves (apt-get install
# qemu-system-x86 to run it, then groupdel rdma).

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
