/* SPDX-License-Identifier: MIT */
/* daemon/verbs/mr.c: access rules, keys, the bytes of an MR, and key resolution as the data path does it. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "daemon/soft/soft_device.h"
#include "daemon/verbs/mr.h"
#include "daemon/verbs/mr_map.h"

#define LW RDMA_ACCESS_LOCAL_WRITE
#define RW RDMA_ACCESS_REMOTE_WRITE
#define RR RDMA_ACCESS_REMOTE_READ
#define OD RDMA_ACCESS_ON_DEMAND
#define MAX (1u << 20)

struct fixture {
	struct rdma_device *dev;
	uint32_t pd, pd2;
};

static int setup(void **state)
{
	static struct fixture f;
	struct rdma_error err;

	if (soft_device_create(&f.dev, "soft0", 0) < 0)
		return -1;
	f.pd = rdma_object_create(f.dev, RDMA_OBJ_PD, &err)->handle;
	f.pd2 = rdma_object_create(f.dev, RDMA_OBJ_PD, &err)->handle;
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	rdma_device_free(f->dev);
	return 0;
}

static void test_access_rules(void **state)
{
	struct rdma_error err;

	/* The RFC's bits (virtio_ib_access_flags), and IBV_ACCESS_ON_DEMAND's. */
	assert_int_equal(RDMA_ACCESS_LOCAL_WRITE, 1);
	assert_int_equal(RDMA_ACCESS_REMOTE_WRITE, 2);
	assert_int_equal(RDMA_ACCESS_REMOTE_READ, 4);
	assert_int_equal(RDMA_ACCESS_ON_DEMAND, 64);
	assert_string_equal(rdma_access_name(OD), "on_demand");
	assert_int_equal(rdma_access_check(0, RDMA_ACCESS_ALL, &err), 0);
	assert_int_equal(rdma_access_check(LW | RW | RR, RDMA_ACCESS_ALL, &err), 0);
	assert_int_equal(rdma_access_check(RR, RDMA_ACCESS_ALL, &err), 0);
	assert_int_equal(rdma_access_check(LW | RW | OD, RDMA_ACCESS_MR_ALL, &err), 0);
	/* ibv_reg_mr: remote write needs local write, on demand or not. */
	assert_int_equal(rdma_access_check(RW, RDMA_ACCESS_ALL, &err), -EINVAL);
	assert_string_equal(err.field, "access");
	assert_int_equal(rdma_access_check(RW | RR, RDMA_ACCESS_ALL, &err), -EINVAL);
	assert_int_equal(rdma_access_check(RW | OD, RDMA_ACCESS_MR_ALL, &err), -EINVAL);
	/* A refusal names the field and the words allowed. */
	assert_int_equal(rdma_access_check(8, RDMA_ACCESS_MR_ALL, &err), -EINVAL);
	assert_string_equal(err.field, "access");
	assert_string_equal(err.reason, "0x8 is not one of local_write, remote_write, remote_read, "
			    "on_demand");
	assert_int_equal(rdma_access_check(LW | OD, RDMA_ACCESS_ALL, &err), -EINVAL);
	assert_string_equal(err.reason, "'on_demand' is not one of local_write, remote_write, "
			    "remote_read");
}

static void test_keys(void **state)
{
	struct fixture *f = *state;
	struct rdma_mr *local, *remote;
	struct rdma_error err;

	assert_int_equal(rdma_mr_create(f->dev, f->pd, 100, LW, MAX, &local, &err), 0);
	assert_int_equal(rdma_mr_create(f->dev, f->pd, 100, LW | RW, MAX, &remote, &err), 0);
	/* key = index << 8 | tag; rkey = lkey with remote access, else 0 (roce_virtio.md 1.5). */
	assert_int_not_equal(local->obj.handle >> 8, 0);
	assert_int_not_equal(local->obj.handle >> 8, remote->obj.handle >> 8);
	assert_int_equal(local->rkey, 0);
	assert_int_equal(remote->rkey, remote->obj.handle);
	assert_int_equal(rdma_object_destroy(f->dev, RDMA_OBJ_MR, local->obj.handle, &err), 0);
	assert_int_equal(rdma_object_destroy(f->dev, RDMA_OBJ_MR, remote->obj.handle, &err), 0);
}

static void test_create_refusals_change_nothing(void **state)
{
	struct fixture *f = *state;
	uint32_t before = f->dev->tables[RDMA_OBJ_MR].count;
	struct rdma_error err;
	struct rdma_mr *mr;

	assert_int_equal(rdma_mr_create(f->dev, f->pd, 0, 0, MAX, &mr, &err), -EINVAL);
	assert_string_equal(err.field, "size");
	assert_int_equal(rdma_mr_create(f->dev, f->pd, MAX + 1, 0, MAX, &mr, &err), -EINVAL);
	assert_string_equal(err.field, "size");
	assert_int_equal(rdma_mr_create(f->dev, f->pd, 10, RW, MAX, &mr, &err), -EINVAL);
	assert_string_equal(err.field, "access");
	assert_int_equal(rdma_mr_create(f->dev, 999, 10, 0, MAX, &mr, &err), -ENOENT);
	assert_int_equal(err.code, RDMA_ERR_NO_SUCH_OBJECT);
	assert_int_equal(err.kind, RDMA_OBJ_PD);
	assert_int_equal(f->dev->tables[RDMA_OBJ_MR].count, before);
}

static void test_bytes_are_zeroed_and_bounded(void **state)
{
	struct fixture *f = *state;
	struct rdma_error err;
	struct rdma_mr *mr;
	uint8_t *p;

	assert_int_equal(rdma_mr_create(f->dev, f->pd, 5000, 0, MAX, &mr, &err), 0);
	assert_int_equal(mr->length, 5000);
	assert_int_equal(rdma_mr_bytes(mr, 0, 5000, &p, &err), 0);
	for (int i = 0; i < 5000; i++)
		assert_int_equal(p[i], 0);
	assert_int_equal(rdma_mr_bytes(mr, 5000, 0, &p, &err), 0);
	assert_int_equal(rdma_mr_bytes(mr, 4999, 2, &p, &err), -EINVAL);
	assert_string_equal(err.field, "length");
	assert_int_equal(rdma_mr_bytes(mr, 5001, 0, &p, &err), -EINVAL);
	assert_string_equal(err.field, "offset");
	/* No wrap-around of offset + length. */
	assert_int_equal(rdma_mr_bytes(mr, 1, UINT64_MAX, &p, &err), -EINVAL);
	assert_int_equal(rdma_object_destroy(f->dev, RDMA_OBJ_MR, mr->obj.handle, &err), 0);
}

static void test_resolve_checks_key_pd_access_range(void **state)
{
	struct fixture *f = *state;
	struct rdma_mr *mr, *ro;
	struct rdma_error err;
	uint8_t *p;

	assert_int_equal(rdma_mr_create(f->dev, f->pd, 4096, LW | RW, MAX, &mr, &err), 0);
	assert_int_equal(rdma_mr_create(f->dev, f->pd, 4096, 0, MAX, &ro, &err), 0);
	assert_int_equal(rdma_mr_resolve(f->dev, mr->obj.handle, false, f->pd, LW, mr->iova + 10, 100,
					 &p, &err), 0);
	assert_ptr_equal(p, mr->addr + 10);
	assert_int_equal(rdma_mr_resolve(f->dev, mr->rkey, true, f->pd, RW, mr->iova, 4096, &p, &err), 0);
	/* A stale or made-up key. */
	assert_int_equal(rdma_mr_resolve(f->dev, mr->obj.handle ^ 1, false, f->pd, 0, mr->iova, 1, &p,
					 &err), -EINVAL);
	assert_string_equal(err.field, "key");
	/* No rkey without remote access: its lkey does not work remotely. */
	assert_int_equal(rdma_mr_resolve(f->dev, ro->obj.handle, true, f->pd, 0, ro->iova, 1, &p, &err),
			 -EINVAL);
	assert_string_equal(err.field, "key");
	assert_int_equal(rdma_mr_resolve(f->dev, mr->obj.handle, false, f->pd2, 0, mr->iova, 1, &p, &err),
			 -EINVAL);
	assert_string_equal(err.field, "pd");
	assert_int_equal(rdma_mr_resolve(f->dev, mr->rkey, true, f->pd, RR, mr->iova, 1, &p, &err),
			 -EINVAL);
	assert_string_equal(err.field, "access");
	assert_int_equal(rdma_mr_resolve(f->dev, mr->obj.handle, false, f->pd, 0, mr->iova + 4000, 97,
					 &p, &err), -EINVAL);
	assert_string_equal(err.field, "addr");
	assert_int_equal(rdma_mr_resolve(f->dev, mr->obj.handle, false, f->pd, 0, mr->iova - 1, 1, &p,
					 &err), -EINVAL);
	assert_string_equal(err.field, "addr");
	assert_int_equal(rdma_object_destroy(f->dev, RDMA_OBJ_MR, mr->obj.handle, &err), 0);
	assert_int_equal(rdma_object_destroy(f->dev, RDMA_OBJ_MR, ro->obj.handle, &err), 0);
}

static void test_dma_mr_reaches_daemon_mrs_of_its_pd(void **state)
{
	struct fixture *f = *state;
	struct rdma_mr *a, *b, *other, *dma;
	struct rdma_error err;
	uint8_t *p;

	assert_int_equal(rdma_mr_create(f->dev, f->pd, 4096, 0, MAX, &a, &err), 0);
	assert_int_equal(rdma_mr_create(f->dev, f->pd, 100, 0, MAX, &b, &err), 0);
	assert_int_equal(rdma_mr_create(f->dev, f->pd2, 100, 0, MAX, &other, &err), 0);
	assert_int_equal(rdma_mr_get_dma(f->dev, f->pd, LW, &dma, &err), 0);
	assert_int_equal(dma->type, RDMA_MR_DMA);
	assert_int_equal(dma->length, 0);
	/* Daemon MRs do not touch in iova space: no range runs from one into the next. */
	assert_true(b->iova >= a->iova + a->length + RDMA_MR_IOVA_ALIGN);
	assert_int_equal(rdma_mr_resolve(f->dev, dma->obj.handle, false, f->pd, LW, b->iova + 5, 10,
					 &p, &err), 0);
	assert_ptr_equal(p, b->addr + 5);
	assert_int_equal(rdma_mr_resolve(f->dev, dma->obj.handle, false, f->pd, LW, a->iova, 4096,
					 &p, &err), 0);
	assert_ptr_equal(p, a->addr);
	/* Past the end of a, and an MR of another PD, are out of its reach. */
	assert_int_equal(rdma_mr_resolve(f->dev, dma->obj.handle, false, f->pd, LW, a->iova + 4000,
					 200, &p, &err), -EINVAL);
	assert_string_equal(err.field, "addr");
	assert_int_equal(rdma_mr_resolve(f->dev, dma->obj.handle, false, f->pd, LW, other->iova, 1,
					 &p, &err), -EINVAL);
	/* It has no bytes of its own for mr read/write. */
	assert_int_equal(rdma_mr_bytes(dma, 0, 0, &p, &err), -EOPNOTSUPP);
	assert_int_equal(err.code, RDMA_ERR_NOT_SUPPORTED);
	/* DMA MRs are refused remote write without local write, like any MR. */
	assert_int_equal(rdma_mr_get_dma(f->dev, f->pd, RW, &dma, &err), -EINVAL);
}

static void test_register_memfd(void **state)
{
	struct fixture *f = *state;
	struct rdma_error err;
	struct rdma_mr *mr;
	uint8_t *p;
	int fd = memfd_create("test", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 3 * 4096), 0);
	/* Unsealed: the application could shrink it under the daemon. */
	assert_int_equal(rdma_mr_register_memfd(f->dev, f->pd, fd, 0, 4096, 0x10000, LW, MAX, &mr,
						&err), -EINVAL);
	assert_string_equal(err.field, "fd");
	assert_int_equal(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK), 0);
	assert_int_equal(rdma_mr_register_memfd(f->dev, f->pd, fd, 4096, 3 * 4096, 0x10000, LW, MAX,
						&mr, &err), -EINVAL);
	assert_string_equal(err.field, "length");
	/* A sub-page offset is kept (unlike the prototype, roce_virtio.md 1.7). */
	assert_int_equal(pwrite(fd, "xyz", 3, 4096 + 100), 3);
	assert_int_equal(rdma_mr_register_memfd(f->dev, f->pd, fd, 4096 + 100, 200, 0x7f0000000064,
						LW, MAX, &mr, &err), 0);
	assert_int_equal(mr->type, RDMA_MR_USER);
	assert_int_equal(mr->iova, 0x7f0000000064);
	assert_int_equal(rdma_mr_bytes(mr, 0, 3, &p, &err), 0);
	assert_memory_equal(p, "xyz", 3);
	assert_int_equal(rdma_mr_resolve(f->dev, mr->obj.handle, false, f->pd, LW, 0x7f0000000065, 2,
					 &p, &err), 0);
	assert_memory_equal(p, "yz", 2);
	close(fd);
	/* The MR holds its own reference to the memory. */
	assert_int_equal(rdma_mr_bytes(mr, 1, 1, &p, &err), 0);
	assert_int_equal(*p, 'y');
	assert_int_equal(rdma_object_destroy(f->dev, RDMA_OBJ_MR, mr->obj.handle, &err), 0);
}

/* Pages of mr resident now. */
static uint64_t resident(const struct rdma_mr *mr)
{
	uint64_t pages, n;

	assert_int_equal(rdma_mr_residency(mr, &pages, &n), 0);
	assert_int_equal(pages, (mr->map_size + 4095) / 4096);
	return n;
}

/* MRs on one memfd share one mapping (mr_map.c), which lasts as long as its last MR. */
static void test_mrs_on_one_memfd_share_its_mapping(void **state)
{
	struct fixture *f = *state;
	struct rdma_mr *a, *b, *c, *d;
	struct rdma_error err;
	uint8_t *p;
	int fd = memfd_create("test", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 2 * 4096), 0);
	assert_int_equal(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK), 0);
	assert_int_equal(pwrite(fd, "ab", 2, 4096), 2);
	assert_int_equal(rdma_mr_register_memfd(f->dev, f->pd, fd, 0, 4096, 0x10000, LW, MAX, &a, &err), 0);
	assert_int_equal(rdma_mr_register_memfd(f->dev, f->pd, fd, 4096, 2, 0x20000, LW, MAX, &b, &err), 0);
	assert_non_null(a->shared);
	assert_ptr_equal(a->shared, b->shared);
	assert_int_equal(a->shared->refs, 2);
	assert_ptr_equal(b->addr, (uint8_t *)a->addr + 4096);
	/* The memfd grew: an MR past the old end gets a mapping of the whole file as it is now. */
	assert_int_equal(ftruncate(fd, 3 * 4096), 0);
	assert_int_equal(pwrite(fd, "c", 1, 2 * 4096), 1);
	assert_int_equal(rdma_mr_register_memfd(f->dev, f->pd, fd, 2 * 4096, 1, 0x30000, LW, MAX, &c,
						&err), 0);
	assert_ptr_not_equal(c->shared, a->shared);
	assert_int_equal(c->shared->size, 3 * 4096);
	assert_int_equal(*c->addr, 'c');
	/* Later MRs find the larger one. */
	assert_int_equal(rdma_mr_register_memfd(f->dev, f->pd, fd, 4096, 1, 0x40000, LW, MAX, &d, &err), 0);
	assert_ptr_equal(d->shared, c->shared);
	close(fd);
	/* The first MR gone, the second still reaches the bytes through the mapping they shared. */
	assert_int_equal(rdma_object_destroy(f->dev, RDMA_OBJ_MR, a->obj.handle, &err), 0);
	assert_int_equal(rdma_mr_bytes(b, 0, 2, &p, &err), 0);
	assert_memory_equal(p, "ab", 2);
	assert_int_equal(rdma_object_destroy(f->dev, RDMA_OBJ_MR, b->obj.handle, &err), 0);
	assert_int_equal(rdma_object_destroy(f->dev, RDMA_OBJ_MR, c->obj.handle, &err), 0);
	assert_int_equal(rdma_mr_bytes(d, 0, 1, &p, &err), 0);
	assert_int_equal(*p, 'a');
	assert_int_equal(rdma_object_destroy(f->dev, RDMA_OBJ_MR, d->obj.handle, &err), 0);
}

static void test_pinned_mr_is_populated_at_registration(void **state)
{
	struct fixture *f = *state;
	struct rdma_error err;
	struct rdma_mr *mr;

	assert_int_equal(rdma_mr_create(f->dev, f->pd, 16 * 4096, LW, MAX, &mr, &err), 0);
	assert_int_equal(resident(mr), 16);
	/* Root (the tests) may lock; the daemon's unit grants CAP_IPC_LOCK. */
	if (geteuid() == 0)
		assert_true(mr->pinned);
	assert_int_equal(rdma_object_destroy(f->dev, RDMA_OBJ_MR, mr->obj.handle, &err), 0);
}

static void test_on_demand_mr_gets_pages_when_touched(void **state)
{
	struct fixture *f = *state;
	struct rdma_mr *mr, *dma;
	struct rdma_error err;
	uint8_t *p;

	assert_int_equal(rdma_mr_create(f->dev, f->pd, 16 * 4096, LW | RW | OD, MAX, &mr, &err), 0);
	assert_int_equal(mr->access, LW | RW | OD);
	assert_false(mr->pinned);
	assert_int_equal(resident(mr), 0);
	/* The data path reaches it like any MR: the flag is not an access the workers check. */
	assert_int_equal(rdma_mr_resolve(f->dev, mr->rkey, true, f->pd, RW, mr->iova + 5 * 4096 + 10,
					 4, &p, &err), 0);
	assert_int_equal(resident(mr), 0);
	memcpy(p, "odp!", 4);
	/* The one page the write touched, and no other. */
	assert_int_equal(resident(mr), 1);
	assert_int_equal(rdma_mr_bytes(mr, 5 * 4096 + 10, 4, &p, &err), 0);
	assert_memory_equal(p, "odp!", 4);
	/* Untouched memory still reads as zeros. */
	assert_int_equal(rdma_mr_bytes(mr, 9 * 4096, 1, &p, &err), 0);
	assert_int_equal(*p, 0);
	/* A DMA MR has no memory of its own to map on demand. */
	assert_int_equal(rdma_mr_get_dma(f->dev, f->pd, LW | OD, &dma, &err), -EINVAL);
	assert_string_equal(err.field, "access");
	assert_int_equal(rdma_object_destroy(f->dev, RDMA_OBJ_MR, mr->obj.handle, &err), 0);
}

static void test_on_demand_user_mr_maps_when_touched(void **state)
{
	struct fixture *f = *state;
	int fd = memfd_create("odp", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	struct rdma_error err;
	struct rdma_mr *mr;
	uint8_t *p;
	char buf[3];

	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 8 * 4096), 0);
	assert_int_equal(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK), 0);
	assert_int_equal(rdma_mr_register_memfd(f->dev, f->pd, fd, 0, 8 * 4096, 0x20000, LW | OD, MAX,
						&mr, &err), 0);
	assert_false(mr->pinned);
	/* Nothing of the application's memfd was allocated by the registration. */
	assert_int_equal(resident(mr), 0);
	assert_int_equal(rdma_mr_resolve(f->dev, mr->obj.handle, false, f->pd, LW, 0x20000 + 3 * 4096,
					 3, &p, &err), 0);
	memcpy(p, "abc", 3);
	assert_int_equal(resident(mr), 1);
	/* The application sees what the device wrote. */
	assert_int_equal(pread(fd, buf, 3, 3 * 4096), 3);
	assert_memory_equal(buf, "abc", 3);
	close(fd);
	assert_int_equal(rdma_object_destroy(f->dev, RDMA_OBJ_MR, mr->obj.handle, &err), 0);
	/* Without on_demand, registration populates the memfd's pages. */
	fd = memfd_create("pinned", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	assert_int_equal(ftruncate(fd, 8 * 4096), 0);
	assert_int_equal(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK), 0);
	assert_int_equal(rdma_mr_register_memfd(f->dev, f->pd, fd, 0, 8 * 4096, 0x20000, LW, MAX,
						&mr, &err), 0);
	assert_int_equal(resident(mr), 8);
	close(fd);
	assert_int_equal(rdma_object_destroy(f->dev, RDMA_OBJ_MR, mr->obj.handle, &err), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_access_rules),
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_create_refusals_change_nothing),
		cmocka_unit_test(test_bytes_are_zeroed_and_bounded),
		cmocka_unit_test(test_resolve_checks_key_pd_access_range),
		cmocka_unit_test(test_dma_mr_reaches_daemon_mrs_of_its_pd),
		cmocka_unit_test(test_register_memfd),
		cmocka_unit_test(test_mrs_on_one_memfd_share_its_mapping),
		cmocka_unit_test(test_pinned_mr_is_populated_at_registration),
		cmocka_unit_test(test_on_demand_mr_gets_pages_when_touched),
		cmocka_unit_test(test_on_demand_user_mr_maps_when_touched),
	};

	return cmocka_run_group_tests_name("memory regions", tests, setup, teardown);
}
