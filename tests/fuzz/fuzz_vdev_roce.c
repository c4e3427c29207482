/* SPDX-License-Identifier: MIT */
/*
 * What a guest can send the RoCE control door of its virtio-net device: the
 * input as a sequence of commands (a command byte, a 2-byte little-endian
 * length, then that many bytes of command-specific data) run by one door on
 * one device, so that objects made by one command meet the ones after.  The
 * guest's memory is 16 pages of a memfd at guest physical 0x10000.  Every
 * ack must be its command's size and VIRTIO_NET_OK or _ERR; at the end the
 * VM's objects are reclaimed, and none may be left.
 */
#include "tests/fuzz/fuzz.h"
#include "daemon/soft/soft_device.h"
#include "daemon/vdev/roce_ctrl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define GPA 0x10000ull
#define MEM (16 * 4096ull)

static int memfd = -1;
static uint8_t *mem;

static int locate(void *data, uint64_t gpa, uint64_t len, int *fd, uint64_t *offset)
{
	if (gpa < GPA || gpa - GPA > MEM || len > MEM - (gpa - GPA))
		return -EFAULT;
	*fd = memfd;
	*offset = gpa - GPA;
	return 0;
}

static unsigned windows(void *data, struct dp_dma_window *out, unsigned max)
{
	out[0] = (struct dp_dma_window){ .iova = GPA, .length = MEM, .addr = mem };
	return 1;
}

static void guest_memory(void)
{
	if (memfd >= 0)
		return;
	memfd = memfd_create("fuzz-guest", MFD_CLOEXEC);
	if (memfd < 0 || ftruncate(memfd, (off_t)MEM) < 0)
		abort();
	mem = mmap(NULL, MEM, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
	if (mem == MAP_FAILED)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int owner;
	unsigned reclaimed[6] = { 0 };
	struct rdma_device *dev;
	struct vdev_roce r;
	size_t at = 0;

	guest_memory();
	if (soft_device_create(&dev, "fuzz0", 1) < 0)
		abort();
	r = (struct vdev_roce){
		.dev = dev, .owner = &owner, .max_qps = 64, .max_cqs = 64, .last_refused = -1,
		.mem = { .locate = locate, .windows = windows },
	};
	while (size - at >= 3) {
		unsigned cmd = data[at];
		size_t len = (size_t)data[at + 1] | (size_t)data[at + 2] << 8, ack_len;
		uint8_t ack[256];
		uint8_t a;

		at += 3;
		if (len > size - at)
			len = size - at;
		a = vdev_roce_command(&r, cmd, data + at, len, ack, sizeof(ack), &ack_len);
		if ((a != VIRTIO_NET_OK && a != VIRTIO_NET_ERR) || (a == VIRTIO_NET_ERR && ack_len) ||
		    ack_len > sizeof(ack))
			abort();
		at += len;
	}
	vdev_roce_reclaim(&r, reclaimed);
	for (int k = 0; k < RDMA_OBJ_KIND_COUNT; k++)
		if (k != RDMA_OBJ_GID && dev->tables[k].count)
			abort();
	rdma_device_free(dev);
	return 0;
}
