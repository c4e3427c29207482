/* SPDX-License-Identifier: MIT */
/*
 * Guest memory tables and split virtqueues (dataplane/virtio/): rings are
 * laid out by hand here, byte by byte as a guest driver would, in a memfd
 * the library maps as guest memory; each malformed chain must break its own
 * queue and nothing else.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "dataplane/virtio/guest_mem.h"
#include "dataplane/virtio/virtqueue.h"

/* Guest memory: two regions that follow each other in guest physical space, one file. */
#define REGION    0x100000ull
#define GPA0      0x100000ull
#define UVA0      0x7f0000000000ull
#define FILE_SIZE (2 * REGION)

/* Where the test puts things, as offsets from GPA0. */
#define DESC_OFF  0x0000
#define AVAIL_OFF 0x1000
#define USED_OFF  0x2000
#define DESC2_OFF 0x3000          /* a second queue's rings */
#define AVAIL2_OFF 0x4000
#define USED2_OFF 0x5000
#define IND_OFF   0x8000          /* indirect tables */
#define BUF_OFF   0x10000

#define F_NEXT     1
#define F_WRITE    2
#define F_INDIRECT 4

struct fixture {
	int fd;
	uint8_t *g;                  /* the test's own mapping of guest memory (offset = gpa - GPA0) */
	struct vhost_mem *mem;
	struct virtqueue vq, vq2;
	uint32_t num;
	uint16_t avail_idx, avail2_idx;
};

static void w16(uint8_t *p, uint16_t v)
{
	v = htole16(v);
	memcpy(p, &v, 2);
}

static void w32(uint8_t *p, uint32_t v)
{
	v = htole32(v);
	memcpy(p, &v, 4);
}

static void w64(uint8_t *p, uint64_t v)
{
	v = htole64(v);
	memcpy(p, &v, 8);
}

static uint16_t r16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return le16toh(v);
}

static uint32_t r32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return le32toh(v);
}

static void put_desc(struct fixture *f, uint64_t table_off, unsigned i, uint64_t gpa, uint32_t len,
		     uint16_t flags, uint16_t next)
{
	uint8_t *d = f->g + table_off + 16ull * i;

	w64(d, gpa);
	w32(d + 8, len);
	w16(d + 12, flags);
	w16(d + 14, next);
}

/* The guest makes chain head available on the ring at avail_off. */
static void offer_at(struct fixture *f, uint64_t avail_off, uint16_t *idx, uint16_t head)
{
	w16(f->g + avail_off + 4 + 2 * (*idx & (f->num - 1)), head);
	(*idx)++;
	__atomic_store_n((uint16_t *)(f->g + avail_off + 2), htole16(*idx), __ATOMIC_RELEASE);
}

static void offer(struct fixture *f, uint16_t head)
{
	offer_at(f, AVAIL_OFF, &f->avail_idx, head);
}

static uint16_t used_idx(struct fixture *f)
{
	return r16(f->g + USED_OFF + 2);
}

static int make_mem(struct fixture *f, struct vhost_mem **mem)
{
	struct vhost_mem_region_desc d[2] = {
		{ .guest_phys = GPA0, .size = REGION, .user_addr = UVA0, .mmap_offset = 0 },
		{ .guest_phys = GPA0 + REGION, .size = REGION, .user_addr = UVA0 + REGION,
		  .mmap_offset = REGION },
	};
	int fds[2] = { f->fd, f->fd };

	return vhost_mem_new(d, fds, 2, 0, mem);
}

static void setup_queue(struct fixture *f, struct virtqueue *vq, unsigned index, uint64_t desc,
			uint64_t avail, uint64_t used)
{
	vq_init(vq, index);
	assert_int_equal(vq_set_num(vq, f->num), 0);
	assert_int_equal(vq_set_addr(vq, UVA0 + desc, UVA0 + avail, UVA0 + used), 0);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	f->fd = memfd_create("test-guest", MFD_CLOEXEC);
	assert_true(f->fd >= 0);
	assert_int_equal(ftruncate(f->fd, FILE_SIZE), 0);
	f->g = mmap(NULL, FILE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, f->fd, 0);
	assert_true(f->g != MAP_FAILED);
	assert_int_equal(make_mem(f, &f->mem), 0);
	f->num = 8;
	setup_queue(f, &f->vq, 0, DESC_OFF, AVAIL_OFF, USED_OFF);
	setup_queue(f, &f->vq2, 1, DESC2_OFF, AVAIL2_OFF, USED2_OFF);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	vq_reset(&f->vq);
	vq_reset(&f->vq2);
	vhost_mem_unref(f->mem);
	munmap(f->g, FILE_SIZE);
	close(f->fd);
	free(f);
	return 0;
}

static void start(struct fixture *f, bool event_idx, bool indirect)
{
	assert_int_equal(vq_set_features(&f->vq, event_idx, indirect), 0);
	assert_int_equal(vq_start(&f->vq, f->mem), 0);
}

/* ---- guest memory tables ---- */

static void test_mem_translate(void **state)
{
	struct fixture *f = *state;
	struct iovec iov[4];
	uint64_t off;

	f->g[0x10] = 0x5a;
	assert_int_equal(*(uint8_t *)vhost_mem_gpa(f->mem, GPA0 + 0x10, 1), 0x5a);
	assert_int_equal(*(uint8_t *)vhost_mem_uva(f->mem, UVA0 + 0x10, 1), 0x5a);
	/* The last byte of a region, and no further. */
	assert_non_null(vhost_mem_gpa(f->mem, GPA0 + REGION - 1, 1));
	assert_null(vhost_mem_gpa(f->mem, GPA0 + REGION - 1, 2));
	assert_null(vhost_mem_gpa(f->mem, GPA0 - 1, 1));
	assert_null(vhost_mem_gpa(f->mem, GPA0 + 2 * REGION, 1));
	assert_null(vhost_mem_gpa(f->mem, UINT64_MAX, 2));
	assert_null(vhost_mem_uva(f->mem, UVA0 + 0x10, UINT64_MAX));
	/* A range across both regions comes in two pieces, adjacent in the file here. */
	f->g[REGION - 1] = 1;
	f->g[REGION] = 2;
	assert_int_equal(vhost_mem_gpa_iov(f->mem, GPA0 + REGION - 1, 2, iov, 4), 2);
	assert_int_equal(iov[0].iov_len, 1);
	assert_int_equal(iov[1].iov_len, 1);
	assert_int_equal(*(uint8_t *)iov[0].iov_base, 1);
	assert_int_equal(*(uint8_t *)iov[1].iov_base, 2);
	assert_int_equal(vhost_mem_gpa_iov(f->mem, GPA0 + REGION - 1, 2, iov, 1), -E2BIG);
	assert_int_equal(vhost_mem_gpa_iov(f->mem, GPA0 + 2 * REGION - 1, 2, iov, 4), -EFAULT);
	assert_int_equal(vhost_mem_gpa_iov(f->mem, UINT64_MAX, 2, iov, 4), -EFAULT);
	assert_int_equal(vhost_mem_gpa_iov(f->mem, GPA0, 0, iov, 4), 0);
	/* Which region and where in its file, for mapping an MR. */
	assert_int_equal(vhost_mem_gpa_region(f->mem, GPA0 + REGION + 0x40, 8, &off), 1);
	assert_int_equal(off, REGION + 0x40);
	assert_int_equal(vhost_mem_gpa_region(f->mem, GPA0 + REGION - 4, 8, &off), -EFAULT);
	assert_int_equal(vhost_mem_region_count(f->mem), 2);
	assert_true(vhost_mem_region_fd(f->mem, 1) >= 0);
	assert_true(vhost_mem_region_fd(f->mem, 1) != f->fd);
	assert_int_equal(vhost_mem_region_fd(f->mem, 2), -ENXIO);
	assert_int_equal(vhost_mem_region(f->mem, 1)->guest_phys, GPA0 + REGION);
	assert_null(vhost_mem_region(f->mem, 2));
}

static void test_mem_refused(void **state)
{
	struct fixture *f = *state;
	struct vhost_mem_region_desc d[2] = {
		{ .guest_phys = GPA0, .size = REGION, .user_addr = UVA0 },
		{ .guest_phys = GPA0 + REGION, .size = REGION, .user_addr = UVA0 + REGION, .mmap_offset = REGION },
	};
	int fds[2] = { f->fd, f->fd }, pipefd[2];
	struct vhost_mem *m = (void *)1;

	assert_int_equal(vhost_mem_new(d, fds, 0, 0, &m), -EINVAL);
	assert_null(m);
	d[1].guest_phys = GPA0 + REGION - 1;                 /* overlaps in guest space */
	assert_int_equal(vhost_mem_new(d, fds, 2, 0, &m), -EINVAL);
	d[1].guest_phys = GPA0 + REGION;
	d[1].user_addr = UVA0;                               /* overlaps in front-end space */
	assert_int_equal(vhost_mem_new(d, fds, 2, 0, &m), -EINVAL);
	d[1].user_addr = UVA0 + REGION;
	d[1].size = 0;                                       /* empty */
	assert_int_equal(vhost_mem_new(d, fds, 2, 0, &m), -EINVAL);
	d[1].size = REGION;
	d[1].guest_phys = UINT64_MAX - 10;                   /* wraps */
	assert_int_equal(vhost_mem_new(d, fds, 2, 0, &m), -EINVAL);
	d[1].guest_phys = GPA0 + REGION;
	d[1].mmap_offset = REGION + 1;                       /* past the file's end */
	assert_int_equal(vhost_mem_new(d, fds, 2, 0, &m), -ERANGE);
	d[1].mmap_offset = REGION;
	assert_int_equal(vhost_mem_new(d, fds, 2, VHOST_MEM_SEALED_ONLY, &m), -EPERM);
	assert_int_equal(pipe(pipefd), 0);                  /* not a file */
	fds[1] = pipefd[0];
	assert_int_equal(vhost_mem_new(d, fds, 2, 0, &m), -EINVAL);
	close(pipefd[0]);
	close(pipefd[1]);
	assert_null(m);
}

static void test_mem_sealed(void **state)
{
	int fd = memfd_create("sealed", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	struct vhost_mem_region_desc d = { .guest_phys = 0, .size = 4096, .user_addr = 4096 };
	struct vhost_mem *m;

	assert_int_equal(ftruncate(fd, 4096), 0);
	assert_int_equal(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK), 0);
	assert_int_equal(vhost_mem_new(&d, &fd, 1, VHOST_MEM_SEALED_ONLY, &m), 0);
	close(fd);                                           /* the table keeps its own */
	assert_non_null(vhost_mem_gpa(m, 0, 4096));
	assert_ptr_equal(vhost_mem_ref(m), m);
	vhost_mem_unref(m);
	assert_non_null(vhost_mem_gpa(m, 0, 4096));
	vhost_mem_unref(m);
}

/* ---- queues ---- */

static void test_start_checks(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(vq_set_num(&f->vq, 0), -EINVAL);
	assert_int_equal(vq_set_num(&f->vq, 6), -EINVAL);
	assert_int_equal(vq_set_num(&f->vq, 65536), -EINVAL);
	assert_int_equal(vq_set_num(&f->vq, 32768), 0);
	assert_int_equal(vq_set_num(&f->vq, f->num), 0);
	/* Misaligned parts, or parts outside the table, are refused at start. */
	assert_int_equal(vq_set_addr(&f->vq, UVA0 + 8, UVA0 + AVAIL_OFF, UVA0 + USED_OFF), 0);
	assert_int_equal(vq_start(&f->vq, f->mem), -EFAULT);
	assert_int_equal(vq_set_addr(&f->vq, UVA0, UVA0 + AVAIL_OFF + 1, UVA0 + USED_OFF), 0);
	assert_int_equal(vq_start(&f->vq, f->mem), -EFAULT);
	assert_int_equal(vq_set_addr(&f->vq, UVA0, UVA0 + AVAIL_OFF, UVA0 + USED_OFF + 2), 0);
	assert_int_equal(vq_start(&f->vq, f->mem), -EFAULT);
	assert_int_equal(vq_set_addr(&f->vq, UVA0, UVA0 + AVAIL_OFF, UVA0 + 2 * REGION - 16), 0);
	assert_int_equal(vq_start(&f->vq, f->mem), -EFAULT);
	/* A part that straddles two regions is refused too (one region each). */
	assert_int_equal(vq_set_addr(&f->vq, UVA0 + REGION - 64, UVA0 + AVAIL_OFF, UVA0 + USED_OFF), 0);
	assert_int_equal(vq_start(&f->vq, f->mem), -EFAULT);
	assert_false(vq_running(&f->vq));
	assert_int_equal(vq_set_addr(&f->vq, UVA0, UVA0 + AVAIL_OFF, UVA0 + USED_OFF), 0);
	assert_int_equal(vq_start(&f->vq, NULL), -EINVAL);
	assert_int_equal(vq_start(&f->vq, f->mem), 0);
	assert_int_equal(vq_start(&f->vq, f->mem), -EBUSY);
	assert_int_equal(vq_set_num(&f->vq, 16), -EBUSY);
	assert_int_equal(vq_set_base(&f->vq, 3), -EBUSY);
	assert_int_equal(vq_set_kick(&f->vq, -1), -EBUSY);
}

static void test_pop_push(void **state)
{
	struct fixture *f = *state;
	struct vq_chain c;
	char buf[32] = { 0 };

	memcpy(f->g + BUF_OFF, "hello, device", 13);
	put_desc(f, DESC_OFF, 3, GPA0 + BUF_OFF, 13, F_NEXT, 5);
	put_desc(f, DESC_OFF, 5, GPA0 + BUF_OFF + 0x100, 0, F_NEXT, 6);   /* zero length: skipped */
	put_desc(f, DESC_OFF, 6, GPA0 + BUF_OFF + 0x200, 32, F_WRITE, 0);
	start(f, false, false);
	assert_int_equal(vq_pop(&f->vq, &c), 0);
	offer(f, 3);
	assert_int_equal(vq_pop(&f->vq, &c), 1);
	assert_int_equal(c.head, 3);
	assert_int_equal(c.n_read, 1);
	assert_int_equal(c.n_write, 1);
	assert_int_equal(c.read_bytes, 13);
	assert_int_equal(c.write_bytes, 32);
	assert_int_equal(vq_chain_read(&f->vq, &c, 7, buf, 6), 0);
	assert_memory_equal(buf, "device", 6);
	assert_int_equal(vq_chain_read(&f->vq, &c, 7, buf, 7), -ERANGE);
	assert_int_equal(vq_chain_read(&f->vq, &c, UINT64_MAX, buf, 2), -ERANGE);
	assert_int_equal(vq_chain_write(&f->vq, &c, 30, "abc", 3), -ERANGE);
	assert_int_equal(vq_chain_write(&f->vq, &c, 29, "abc", 3), 0);
	assert_memory_equal(f->g + BUF_OFF + 0x200 + 29, "abc", 3);
	/* Nothing more until the guest offers more. */
	assert_int_equal(vq_pop(&f->vq, &c), 0);
	assert_int_equal(vq_push(&f->vq, 3, 32), 0);
	assert_int_equal(used_idx(f), 1);
	assert_int_equal(r32(f->g + USED_OFF + 4), 3);
	assert_int_equal(r32(f->g + USED_OFF + 8), 32);
	assert_int_equal(vq_push(&f->vq, 8, 0), -EINVAL);
	assert_int_equal(vq_last_avail(&f->vq), 1);
	assert_int_equal(f->vq.counters.popped, 1);
	assert_int_equal(f->vq.counters.pushed, 1);
	assert_int_equal(f->vq.counters.errors, 4);            /* three copies out of range, one bad push */
	assert_null(vq_broken(&f->vq));
}

/* The available index wraps at 2^16; SET_VRING_BASE starts anywhere. */
static void test_index_wraps(void **state)
{
	struct fixture *f = *state;
	struct vq_chain c;

	put_desc(f, DESC_OFF, 0, GPA0 + BUF_OFF, 8, 0, 0);
	f->avail_idx = 65534;
	w16(f->g + AVAIL_OFF + 2, 65534);
	assert_int_equal(vq_set_base(&f->vq, 65534), 0);
	start(f, false, false);
	for (int i = 0; i < 4; i++) {
		offer(f, 0);
		assert_int_equal(vq_pop(&f->vq, &c), 1);
		assert_int_equal(vq_push(&f->vq, c.head, 0), 0);
	}
	assert_int_equal(vq_last_avail(&f->vq), 2);
	assert_null(vq_broken(&f->vq));
}

static void test_indirect(void **state)
{
	struct fixture *f = *state;
	struct vq_chain c;
	char buf[8];

	memcpy(f->g + BUF_OFF, "indirect", 8);
	put_desc(f, IND_OFF, 0, GPA0 + BUF_OFF, 8, F_NEXT, 1);
	put_desc(f, IND_OFF, 1, GPA0 + BUF_OFF + 0x100, 64, F_WRITE, 0);
	put_desc(f, DESC_OFF, 2, GPA0 + IND_OFF, 32, F_INDIRECT, 0);
	start(f, false, true);
	offer(f, 2);
	assert_int_equal(vq_pop(&f->vq, &c), 1);
	assert_int_equal(c.head, 2);
	assert_int_equal(c.read_bytes, 8);
	assert_int_equal(c.write_bytes, 64);
	assert_int_equal(vq_chain_read(&f->vq, &c, 0, buf, 8), 0);
	assert_memory_equal(buf, "indirect", 8);
	/* An indirect table need not be aligned. */
	memmove(f->g + IND_OFF + 4, f->g + IND_OFF, 32);
	put_desc(f, DESC_OFF, 2, GPA0 + IND_OFF + 4, 32, F_INDIRECT, 0);
	offer(f, 2);
	assert_int_equal(vq_pop(&f->vq, &c), 1);
	assert_int_equal(c.write_bytes, 64);
}

/* A descriptor that spans two regions adjacent in guest space is two segments, one buffer. */
static void test_buffer_across_regions(void **state)
{
	struct fixture *f = *state;
	struct vq_chain c;
	char buf[8];

	memcpy(f->g + REGION - 4, "acrossit", 8);
	put_desc(f, DESC_OFF, 0, GPA0 + REGION - 4, 8, 0, 0);
	start(f, false, false);
	offer(f, 0);
	assert_int_equal(vq_pop(&f->vq, &c), 1);
	assert_int_equal(c.n_read, 2);
	assert_int_equal(c.read_bytes, 8);
	assert_int_equal(vq_chain_read(&f->vq, &c, 0, buf, 8), 0);
	assert_memory_equal(buf, "acrossit", 8);
}

/* How each malformed case is laid out; the head offered is 0 unless set. */
struct bad_case {
	const char *name;
	bool indirect;               /* the feature negotiated */
	void (*lay)(struct fixture *f);
	uint16_t head;
};

static void lay_next_out(struct fixture *f)
{
	put_desc(f, DESC_OFF, 0, GPA0 + BUF_OFF, 8, F_NEXT, 8);
}

static void lay_loop(struct fixture *f)
{
	put_desc(f, DESC_OFF, 0, GPA0 + BUF_OFF, 8, F_NEXT, 1);
	put_desc(f, DESC_OFF, 1, GPA0 + BUF_OFF, 8, F_NEXT, 0);
}

static void lay_read_after_write(struct fixture *f)
{
	put_desc(f, DESC_OFF, 0, GPA0 + BUF_OFF, 8, F_WRITE | F_NEXT, 1);
	put_desc(f, DESC_OFF, 1, GPA0 + BUF_OFF, 8, 0, 0);
}

static void lay_outside(struct fixture *f)
{
	put_desc(f, DESC_OFF, 0, GPA0 + 2 * REGION - 4, 8, 0, 0);
}

static void lay_wrapping(struct fixture *f)
{
	put_desc(f, DESC_OFF, 0, UINT64_MAX - 3, 8, 0, 0);
}

static void lay_indirect(struct fixture *f)
{
	put_desc(f, IND_OFF, 0, GPA0 + BUF_OFF, 8, 0, 0);
	put_desc(f, DESC_OFF, 0, GPA0 + IND_OFF, 16, F_INDIRECT, 0);
}

static void lay_nested_indirect(struct fixture *f)
{
	put_desc(f, IND_OFF, 0, GPA0 + IND_OFF + 0x100, 16, F_INDIRECT, 0);
	put_desc(f, IND_OFF + 0x100, 0, GPA0 + BUF_OFF, 8, 0, 0);
	put_desc(f, DESC_OFF, 0, GPA0 + IND_OFF, 16, F_INDIRECT, 0);
}

static void lay_indirect_next(struct fixture *f)
{
	lay_indirect(f);
	put_desc(f, DESC_OFF, 0, GPA0 + IND_OFF, 16, F_INDIRECT | F_NEXT, 1);
	put_desc(f, DESC_OFF, 1, GPA0 + BUF_OFF, 8, 0, 0);
}

static void lay_indirect_len(struct fixture *f)
{
	lay_indirect(f);
	put_desc(f, DESC_OFF, 0, GPA0 + IND_OFF, 24, F_INDIRECT, 0);
}

static void lay_indirect_empty(struct fixture *f)
{
	lay_indirect(f);
	put_desc(f, DESC_OFF, 0, GPA0 + IND_OFF, 0, F_INDIRECT, 0);
}

static void lay_indirect_huge(struct fixture *f)
{
	put_desc(f, DESC_OFF, 0, GPA0, 16 * (VQ_SIZE_MAX + 1), F_INDIRECT, 0);
}

static void lay_indirect_outside(struct fixture *f)
{
	put_desc(f, DESC_OFF, 0, GPA0 + 2 * REGION - 16, 32, F_INDIRECT, 0);
}

static void lay_indirect_next_out(struct fixture *f)
{
	put_desc(f, IND_OFF, 0, GPA0 + BUF_OFF, 8, F_NEXT, 1);   /* a table of one: next 1 is outside */
	put_desc(f, DESC_OFF, 0, GPA0 + IND_OFF, 16, F_INDIRECT, 0);
}

static void lay_indirect_loop(struct fixture *f)
{
	put_desc(f, IND_OFF, 0, GPA0 + BUF_OFF, 8, F_NEXT, 1);
	put_desc(f, IND_OFF, 1, GPA0 + BUF_OFF, 8, F_NEXT, 0);
	put_desc(f, DESC_OFF, 0, GPA0 + IND_OFF, 32, F_INDIRECT, 0);
}

static void lay_too_many_segments(struct fixture *f)
{
	for (unsigned i = 0; i <= VQ_CHAIN_SEGS_MAX; i++)
		put_desc(f, IND_OFF, i, GPA0 + BUF_OFF + i, 1, i < VQ_CHAIN_SEGS_MAX ? F_NEXT : 0, (uint16_t)(i + 1));
	put_desc(f, DESC_OFF, 0, GPA0 + IND_OFF, 16 * (VQ_CHAIN_SEGS_MAX + 1), F_INDIRECT, 0);
}

static void lay_avail_ahead(struct fixture *f)
{
	put_desc(f, DESC_OFF, 0, GPA0 + BUF_OFF, 8, 0, 0);
	f->avail_idx += f->num;      /* with the offer: num + 1 ahead */
}

static const struct bad_case bad_cases[] = {
	{ "head not below the size", false, lay_outside, 8 },
	{ "next not below the size", false, lay_next_out, 0 },
	{ "a loop", false, lay_loop, 0 },
	{ "readable after writable", false, lay_read_after_write, 0 },
	{ "buffer outside memory", false, lay_outside, 0 },
	{ "buffer wrapping the address space", false, lay_wrapping, 0 },
	{ "indirect not negotiated", false, lay_indirect, 0 },
	{ "indirect in indirect", true, lay_nested_indirect, 0 },
	{ "indirect with NEXT", true, lay_indirect_next, 0 },
	{ "indirect length not a multiple of 16", true, lay_indirect_len, 0 },
	{ "indirect length 0", true, lay_indirect_empty, 0 },
	{ "indirect table outside memory", true, lay_indirect_outside, 0 },
	{ "indirect table longer than a queue", true, lay_indirect_huge, 0 },
	{ "next outside an indirect table", true, lay_indirect_next_out, 0 },
	{ "a loop in an indirect table", true, lay_indirect_loop, 0 },
	{ "more segments than a chain takes", true, lay_too_many_segments, 0 },
	{ "available index too far ahead", false, lay_avail_ahead, 0 },
};

/* Each case breaks its queue for good, writes its error fd, and the other queue goes on. */
static void test_malformed_breaks_one_queue(void **state)
{
	struct fixture *f = *state;

	for (size_t k = 0; k < sizeof(bad_cases) / sizeof(bad_cases[0]); k++) {
		const struct bad_case *b = &bad_cases[k];
		int err_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		struct vq_chain c;
		eventfd_t n = 0;

		print_message("case: %s\n", b->name);
		memset(f->g, 0, 0x20000);
		f->avail_idx = f->avail2_idx = 0;
		vq_reset(&f->vq);
		vq_reset(&f->vq2);
		setup_queue(f, &f->vq, 0, DESC_OFF, AVAIL_OFF, USED_OFF);
		setup_queue(f, &f->vq2, 1, DESC2_OFF, AVAIL2_OFF, USED2_OFF);
		assert_int_equal(vq_set_err(&f->vq, err_fd), 0);
		start(f, false, b->indirect);
		assert_int_equal(vq_start(&f->vq2, f->mem), 0);
		b->lay(f);
		offer(f, b->head);
		assert_int_equal(vq_pop(&f->vq, &c), -EIO);
		assert_non_null(vq_broken(&f->vq));
		assert_int_equal(eventfd_read(err_fd, &n), 0);
		assert_int_equal(n, 1);
		/* Broken for good: a good chain after it is not taken. */
		put_desc(f, DESC_OFF, 1, GPA0 + BUF_OFF, 8, 0, 0);
		offer(f, 1);
		assert_int_equal(vq_pop(&f->vq, &c), 0);
		assert_int_equal(f->vq.counters.popped, 0);
		/* The other queue in the same memory still works. */
		put_desc(f, DESC2_OFF, 0, GPA0 + BUF_OFF, 8, 0, 0);
		offer_at(f, AVAIL2_OFF, &f->avail2_idx, 0);
		assert_int_equal(vq_pop(&f->vq2, &c), 1);
		assert_null(vq_broken(&f->vq2));
		/* A restart makes the queue whole again (the front end set it up anew). */
		vq_stop(&f->vq);
		assert_int_equal(vq_start(&f->vq, f->mem), 0);
		assert_null(vq_broken(&f->vq));
	}
}

static uint64_t calls(int fd)
{
	eventfd_t n = 0;

	return eventfd_read(fd, &n) == 0 ? n : 0;
}

static void test_signal_event_idx(void **state)
{
	struct fixture *f = *state;
	int call = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	struct vq_chain c;

	put_desc(f, DESC_OFF, 0, GPA0 + BUF_OFF, 8, 0, 0);
	assert_int_equal(vq_set_call(&f->vq, call), 0);
	start(f, true, false);
	assert_false(vq_signal(&f->vq));                        /* nothing used yet */
	offer(f, 0);
	assert_int_equal(vq_pop(&f->vq, &c), 1);
	assert_int_equal(vq_push(&f->vq, 0, 0), 0);
	assert_true(vq_signal(&f->vq));                         /* the first after start */
	assert_int_equal(calls(call), 1);
	/* used_event = 2: the guest wants to hear once the used index passes 2. */
	w16(f->g + AVAIL_OFF + 4 + 2 * f->num, 2);
	offer(f, 0);
	assert_int_equal(vq_pop(&f->vq, &c), 1);
	assert_int_equal(vq_push(&f->vq, 0, 0), 0);             /* used index 2 */
	assert_false(vq_signal(&f->vq));
	/* Two pushes, one signal (batched): used index 4 passed 2. */
	for (int i = 0; i < 2; i++) {
		offer(f, 0);
		assert_int_equal(vq_pop(&f->vq, &c), 1);
		assert_int_equal(vq_push(&f->vq, 0, 0), 0);
	}
	assert_true(vq_signal(&f->vq));
	assert_false(vq_signal(&f->vq));                        /* nothing new since */
	assert_int_equal(calls(call), 1);
	assert_int_equal(f->vq.counters.signals, 2);
}

static void test_signal_no_interrupt(void **state)
{
	struct fixture *f = *state;
	int call = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	struct vq_chain c;

	put_desc(f, DESC_OFF, 0, GPA0 + BUF_OFF, 8, 0, 0);
	assert_int_equal(vq_set_call(&f->vq, call), 0);
	start(f, false, false);
	w16(f->g + AVAIL_OFF, 1);                               /* VRING_AVAIL_F_NO_INTERRUPT */
	offer(f, 0);
	assert_int_equal(vq_pop(&f->vq, &c), 1);
	assert_int_equal(vq_push(&f->vq, 0, 0), 0);
	assert_false(vq_signal(&f->vq));
	w16(f->g + AVAIL_OFF, 0);
	offer(f, 0);
	assert_int_equal(vq_pop(&f->vq, &c), 1);
	assert_int_equal(vq_push(&f->vq, 0, 0), 0);
	assert_true(vq_signal(&f->vq));
	assert_int_equal(calls(call), 1);
}

static void test_kick_suppression(void **state)
{
	struct fixture *f = *state;
	int kick = eventfd(0, EFD_CLOEXEC);
	struct vq_chain c;

	put_desc(f, DESC_OFF, 0, GPA0 + BUF_OFF, 8, 0, 0);
	assert_int_equal(vq_set_kick(&f->vq, kick), 0);
	assert_int_equal(vq_kick_fd(&f->vq), kick);
	start(f, false, false);
	vq_kick_disable(&f->vq);
	assert_int_equal(r16(f->g + USED_OFF), 1);             /* VRING_USED_F_NO_NOTIFY */
	assert_false(vq_kick_enable(&f->vq));
	assert_int_equal(r16(f->g + USED_OFF), 0);
	offer(f, 0);
	assert_true(vq_kick_enable(&f->vq));                    /* came meanwhile: poll again */
	/* Kicks are read without blocking (the fd was made non-blocking). */
	assert_int_equal(vq_kick_read(&f->vq), 0);
	assert_int_equal(eventfd_write(kick, 3), 0);
	assert_int_equal(vq_kick_read(&f->vq), 3);
	assert_int_equal(f->vq.counters.kicks, 1);
	vq_stop(&f->vq);
	/* With EVENT_IDX: avail_event is where the consumer wants the next kick. */
	assert_int_equal(vq_set_features(&f->vq, true, false), 0);
	assert_int_equal(vq_start(&f->vq, f->mem), 0);
	assert_int_equal(vq_pop(&f->vq, &c), 1);
	assert_false(vq_kick_enable(&f->vq));
	assert_int_equal(r16(f->g + USED_OFF + 4 + 8 * f->num), 1);
}

/* A chain popped under one table refuses its bytes once the queue runs on another; its head still goes back. */
static void test_stale_chain(void **state)
{
	struct fixture *f = *state;
	struct vhost_mem *next;
	struct vq_chain c;
	char buf[8];

	put_desc(f, DESC_OFF, 0, GPA0 + BUF_OFF, 8, 0, 0);
	start(f, false, false);
	offer(f, 0);
	assert_int_equal(vq_pop(&f->vq, &c), 1);
	vq_stop(&f->vq);
	assert_int_equal(vq_chain_read(&f->vq, &c, 0, buf, 8), -ESTALE);
	assert_int_equal(vq_push(&f->vq, 0, 0), -ESTALE);
	assert_int_equal(make_mem(f, &next), 0);
	assert_int_equal(vq_start(&f->vq, next), 0);
	vhost_mem_unref(next);                                  /* the queue holds its own reference */
	assert_int_equal(vq_chain_read(&f->vq, &c, 0, buf, 8), -ESTALE);
	assert_int_equal(vq_push(&f->vq, c.head, 0), 0);
	assert_int_equal(vq_last_avail(&f->vq), 1);
	assert_int_equal(used_idx(f), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_mem_translate, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mem_refused, setup, teardown),
		cmocka_unit_test(test_mem_sealed),
		cmocka_unit_test_setup_teardown(test_start_checks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pop_push, setup, teardown),
		cmocka_unit_test_setup_teardown(test_index_wraps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_indirect, setup, teardown),
		cmocka_unit_test_setup_teardown(test_buffer_across_regions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_malformed_breaks_one_queue, setup, teardown),
		cmocka_unit_test_setup_teardown(test_signal_event_idx, setup, teardown),
		cmocka_unit_test_setup_teardown(test_signal_no_interrupt, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kick_suppression, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stale_chain, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
