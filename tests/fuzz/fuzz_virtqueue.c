/* SPDX-License-Identifier: MIT */
/*
 * A split virtqueue in guest memory the input wrote: its first byte picks
 * the queue size (2^(b & 7), 1..128), whether EVENT_IDX (bit 3) and
 * INDIRECT_DESC (bit 4) were negotiated; the rest is copied over the guest's
 * memory from its first byte: the descriptor table at 0, the available ring
 * at 0x1000, the used ring at 0x2000, and anything a descriptor points to,
 * in two regions adjacent in guest physical space.  The device walks it as
 * a device would (pop, read every readable byte, write the writable ones,
 * push, signal, ask for kicks) until the queue is empty or broken.  Nothing
 * may be touched outside the table (ASan watches the copies), nothing may
 * loop, and a queue that broke must say why.
 */
#include "tests/fuzz/fuzz.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "dataplane/virtio/guest_mem.h"
#include "dataplane/virtio/virtqueue.h"

#define REGION 0x10000ull
#define GPA0   0x10000ull
#define UVA0   0x500000000ull

static uint8_t *guest;
static struct vhost_mem *mem;

static void setup(void)
{
	struct vhost_mem_region_desc d[2] = {
		{ .guest_phys = GPA0, .size = REGION, .user_addr = UVA0 },
		{ .guest_phys = GPA0 + REGION, .size = REGION, .user_addr = UVA0 + REGION, .mmap_offset = REGION },
	};
	int fd = memfd_create("fuzz-guest", MFD_CLOEXEC), fds[2] = { fd, fd };

	if (fd < 0 || ftruncate(fd, 2 * REGION) < 0)
		abort();
	guest = mmap(NULL, 2 * REGION, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (guest == MAP_FAILED || vhost_mem_new(d, fds, 2, 0, &mem) < 0)
		abort();
	close(fd);
}

/* Reads and writes every byte of the chain, in pieces of odd sizes, and checks the bounds hold. */
static uint32_t consume(struct virtqueue *vq, const struct vq_chain *c)
{
	static uint8_t buf[4096];
	uint64_t off;

	for (off = 0; off < c->read_bytes && off < (1u << 20); off += sizeof(buf) - 3) {
		size_t n = c->read_bytes - off < sizeof(buf) - 3 ? c->read_bytes - off : sizeof(buf) - 3;

		if (vq_chain_read(vq, c, off, buf, n))
			abort();
	}
	if (vq_chain_read(vq, c, c->read_bytes, buf, 1) != -ERANGE)
		abort();
	memset(buf, 0xa5, sizeof(buf));
	for (off = 0; off < c->write_bytes && off < (1u << 20); off += sizeof(buf) - 5) {
		size_t n = c->write_bytes - off < sizeof(buf) - 5 ? c->write_bytes - off : sizeof(buf) - 5;

		if (vq_chain_write(vq, c, off, buf, n))
			abort();
	}
	return (uint32_t)(c->write_bytes < UINT32_MAX ? c->write_bytes : UINT32_MAX);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct virtqueue vq;
	struct vq_chain c;
	unsigned turns = 0;
	int r;

	if (!mem)
		setup();
	if (size < 1)
		return 0;
	memset(guest, 0, 2 * REGION);
	memcpy(guest, data + 1, size - 1 < 2 * REGION ? size - 1 : 2 * REGION);
	vq_init(&vq, 0);
	if (vq_set_num(&vq, 1u << (data[0] & 7)) || vq_set_addr(&vq, UVA0, UVA0 + 0x1000, UVA0 + 0x2000) ||
	    vq_set_features(&vq, data[0] & 8, data[0] & 16) || vq_start(&vq, mem))
		abort();
	while ((r = vq_pop(&vq, &c)) == 1) {
		if (c.n_read + c.n_write > VQ_CHAIN_SEGS_MAX || c.head >= vq.num)
			abort();
		if (vq_push(&vq, c.head, consume(&vq, &c)))
			abort();
		if (++turns % 3 == 0)
			vq_signal(&vq);
		/*
		 * A buffer may overlap the available ring, so the device's own
		 * writes can offer more: a guest may keep a device busy, as
		 * a real one may; a device takes a budget per turn.
		 */
		if (turns == 4096)
			break;
	}
	if (r < 0 && !vq_broken(&vq))
		abort();
	vq_signal(&vq);
	vq_kick_enable(&vq);
	vq_kick_disable(&vq);
	vq_reset(&vq);
	return 0;
}
