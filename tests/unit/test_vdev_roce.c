/* SPDX-License-Identifier: MIT */
/*
 * The RoCE control commands of a VM's virtio-net device (daemon/vdev/roce_ctrl.c)
 * on a software device: requests are laid out byte by byte at the offsets of
 * seed 004's structs (not with the door's own), acks read the same way.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "daemon/soft/soft_device.h"
#include "daemon/vdev/roce_ctrl.h"
#include "daemon/verbs/gid.h"
#include "daemon/verbs/mr.h"
#include "daemon/verbs/qp.h"
#include "dataplane/keytab.h"

/* The guest's memory: one region of 64 pages at guest physical GPA_BASE. */
#define GPA_BASE  0x100000ull
#define MEM_PAGES 64
#define PAGE      4096u

struct fixture {
	struct rdma_device *dev;
	int memfd;
	uint8_t *mem;
	struct vdev_roce r;
	int other_owner;
};

static int locate(void *data, uint64_t gpa, uint64_t len, int *fd, uint64_t *offset)
{
	struct fixture *f = data;

	if (gpa < GPA_BASE || gpa - GPA_BASE > MEM_PAGES * PAGE || len > MEM_PAGES * PAGE - (gpa - GPA_BASE))
		return -EFAULT;
	*fd = f->memfd;
	*offset = gpa - GPA_BASE;
	return 0;
}

static unsigned windows(void *data, struct dp_dma_window *out, unsigned max)
{
	struct fixture *f = data;

	out[0] = (struct dp_dma_window){ .iova = GPA_BASE, .length = MEM_PAGES * PAGE, .addr = f->mem };
	return 1;
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	assert_int_equal(soft_device_create(&f->dev, "vm0", 1), 0);
	f->memfd = memfd_create("guest", MFD_CLOEXEC);
	assert_true(f->memfd >= 0);
	assert_int_equal(ftruncate(f->memfd, MEM_PAGES * PAGE), 0);
	f->mem = mmap(NULL, MEM_PAGES * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, f->memfd, 0);
	assert_true(f->mem != MAP_FAILED);
	f->r = (struct vdev_roce){
		.dev = f->dev, .owner = f, .owner_uid = 0, .max_qps = 64, .max_cqs = 64,
		.mem = { .locate = locate, .windows = windows, .data = f }, .last_refused = -1,
	};
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	rdma_device_free(f->dev);
	munmap(f->mem, MEM_PAGES * PAGE);
	close(f->memfd);
	free(f);
	return 0;
}

static void put32(uint8_t *p, size_t off, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[off + i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, size_t off, uint64_t v)
{
	put32(p, off, (uint32_t)v);
	put32(p, off + 4, (uint32_t)(v >> 32));
}

static uint32_t get32(const uint8_t *p, size_t off)
{
	return p[off] | p[off + 1] << 8 | p[off + 2] << 16 | (uint32_t)p[off + 3] << 24;
}

/* Runs cmd with len bytes of req; the ack byte, its data in ack. */
static uint8_t run(struct fixture *f, unsigned cmd, const uint8_t *req, size_t len, uint8_t ack[256])
{
	size_t ack_len;

	memset(ack, 0xee, 256);
	return vdev_roce_command(&f->r, cmd, req, len, ack, 256, &ack_len);
}

/* A command whose only data is one u32 (or none), expected to succeed; the ack's first u32. */
static uint32_t ok_u32(struct fixture *f, unsigned cmd, const uint8_t *req, size_t len)
{
	uint8_t ack[256];

	assert_int_equal(run(f, cmd, req, len, ack), VIRTIO_NET_OK);
	return get32(ack, 0);
}

static uint32_t create_pd(struct fixture *f)
{
	return ok_u32(f, VIRTIO_ROCE_CREATE_PD, NULL, 0);
}

static uint32_t create_cq(struct fixture *f, uint32_t cqe)
{
	uint8_t req[4];

	put32(req, 0, cqe);
	return ok_u32(f, VIRTIO_ROCE_CREATE_CQ, req, sizeof(req));
}

/* struct virtio_rdma_cmd_create_qp: pdn @0, qp_type @4, sq_sig_all @5, send_cqn @8, recv_cqn @12, cap @16. */
static uint8_t create_qp(struct fixture *f, uint32_t pdn, uint8_t type, uint32_t cqn, uint32_t *qpn)
{
	uint8_t req[56] = { 0 }, ack[256], a;

	put32(req, 0, pdn);
	req[4] = type;
	put32(req, 8, cqn);
	put32(req, 12, cqn);
	put32(req, 16, 16);
	put32(req, 20, 16);
	put32(req, 24, 1);
	put32(req, 28, 1);
	a = run(f, VIRTIO_ROCE_CREATE_QP, req, sizeof(req), ack);
	*qpn = get32(ack, 0);
	return a;
}

static void query_device_and_port(void **state)
{
	struct fixture *f = *state;
	uint8_t ack[256];

	assert_int_equal(run(f, VIRTIO_ROCE_QUERY_DEVICE, NULL, 0, ack), VIRTIO_NET_OK);
	/* max_qp_wr @28, max_cqe @44, local_ca_ack_delay @68, reserved zero up to 128. */
	assert_int_equal(get32(ack, 28), f->dev->attr.max_qp_wr);
	assert_int_equal(get32(ack, 44), f->dev->attr.max_cqe);
	assert_int_equal(ack[68], f->dev->attr.local_ca_ack_delay);
	assert_int_equal(get32(ack, 124), 0);
	assert_int_equal(ack[128], 0xee);
	assert_int_equal(run(f, VIRTIO_ROCE_QUERY_PORT, NULL, 0, ack), VIRTIO_NET_OK);
	assert_int_equal(get32(ack, 0), f->dev->ports[0].gid_tbl_len);
	assert_int_equal(get32(ack, 4), f->dev->ports[0].max_msg_sz);
	assert_int_equal(f->r.commands[VIRTIO_ROCE_QUERY_PORT], 1);
}

static void qp_life(void **state)
{
	struct fixture *f = *state;
	uint32_t pdn = create_pd(f), cqn = create_cq(f, 16), qpn;
	uint8_t modify[128] = { 0 }, query[8] = { 0 }, ack[256], destroy[4];

	assert_true(cqn < 64);
	assert_int_equal(create_qp(f, pdn, 2 /* RC */, cqn, &qpn), VIRTIO_NET_OK);
	assert_true(qpn >= 2 && qpn < 64);
	assert_ptr_equal(rdma_object_lookup(f->dev, RDMA_OBJ_QP, qpn, &f->r.last_error)->owner, f);
	/* RESET -> INIT: STATE | ACCESS_FLAGS; qp_access_flags @36 (after qkey, rq/sq psn, dest qpn). */
	put32(modify, 0, qpn);
	put32(modify, 4, (1u << 0) | (1u << 2));
	modify[8] = 1;
	put32(modify, 40, 1 | 4);
	assert_int_equal(run(f, VIRTIO_ROCE_MODIFY_QP, modify, sizeof(modify), ack), VIRTIO_NET_OK);
	put32(query, 0, qpn);
	assert_int_equal(run(f, VIRTIO_ROCE_QUERY_QP, query, sizeof(query), ack), VIRTIO_NET_OK);
	/* qp_state @0; qp_access_flags @32; cap.max_send_wr @40 (rounded up by the device, at least 16). */
	assert_int_equal(ack[0], 1);
	assert_int_equal(get32(ack, 32), 1 | 4);
	assert_true(get32(ack, 40) >= 16);
	/* An illegal transition (INIT -> RTS) is refused, and the QP stays in INIT. */
	modify[8] = 3;
	put32(modify, 4, 1);
	assert_int_equal(run(f, VIRTIO_ROCE_MODIFY_QP, modify, sizeof(modify), ack), VIRTIO_NET_ERR);
	assert_string_equal(f->r.last_error.field, "state");
	assert_int_equal(rdma_qp(rdma_object_lookup(f->dev, RDMA_OBJ_QP, qpn, &f->r.last_error))->state,
			 RDMA_QPS_INIT);
	/* The CQ in use cannot go before its QP. */
	put32(destroy, 0, cqn);
	assert_int_equal(run(f, VIRTIO_ROCE_DESTROY_CQ, destroy, 4, ack), VIRTIO_NET_ERR);
	put32(destroy, 0, qpn);
	assert_int_equal(run(f, VIRTIO_ROCE_DESTROY_QP, destroy, 4, ack), VIRTIO_NET_OK);
	put32(destroy, 0, cqn);
	assert_int_equal(run(f, VIRTIO_ROCE_DESTROY_CQ, destroy, 4, ack), VIRTIO_NET_OK);
	put32(destroy, 0, pdn);
	assert_int_equal(run(f, VIRTIO_ROCE_DESTROY_PD, destroy, 4, ack), VIRTIO_NET_OK);
}

/* REG_USER_MR: pdn @0, access @4, virt_addr @8, length @16, npages @24, pages @32. */
static size_t reg_user_mr(uint8_t *req, uint32_t pdn, uint32_t access, uint64_t virt, uint64_t length,
			  const uint64_t *pages, uint32_t npages)
{
	put32(req, 0, pdn);
	put32(req, 4, access);
	put64(req, 8, virt);
	put64(req, 16, length);
	put32(req, 24, npages);
	put32(req, 28, 0);
	for (uint32_t i = 0; i < npages; i++)
		put64(req, 32 + 8 * i, pages[i]);
	return 32 + 8 * (size_t)npages;
}

static void user_mr_maps_scattered_pages(void **state)
{
	struct fixture *f = *state;
	/* Three pages, out of order in guest memory: the MR sees them side by side. */
	const uint64_t pages[3] = { GPA_BASE + 9 * PAGE, GPA_BASE + 2 * PAGE, GPA_BASE + 3 * PAGE };
	uint8_t req[64], ack[256], *bytes;
	uint32_t pdn = create_pd(f);
	struct rdma_error err;
	struct rdma_mr *mr;
	size_t len;

	/* 100 bytes before the end of the first page, 4200 bytes: the range spans three pages. */
	len = reg_user_mr(req, pdn, 1, 0x7f0000000000ull + PAGE - 100, PAGE + 200, pages, 3);
	assert_int_equal(run(f, VIRTIO_ROCE_REG_USER_MR, req, len, ack), VIRTIO_NET_OK);
	assert_int_equal(get32(ack, 0), get32(ack, 4));
	assert_int_equal(get32(ack, 8), 0);        /* no remote access: no rkey */
	mr = rdma_mr(rdma_object_lookup(f->dev, RDMA_OBJ_MR, get32(ack, 0), &err));
	assert_non_null(mr);
	assert_int_equal(mr->iova, 0x7f0000000000ull + PAGE - 100);
	assert_int_equal(rdma_mr_bytes(mr, 0, PAGE + 200, &bytes, &err), 0);
	memset(bytes, 0xab, PAGE + 200);
	/* The guest's memory got them: the last 100 bytes of page 9, all of page 2, 100 of page 3. */
	assert_int_equal(f->mem[10 * PAGE - 101], 0);
	assert_int_equal(f->mem[10 * PAGE - 100], 0xab);
	assert_int_equal(f->mem[10 * PAGE - 1], 0xab);
	assert_int_equal(f->mem[2 * PAGE], 0xab);
	assert_int_equal(f->mem[3 * PAGE - 1], 0xab);
	assert_int_equal(f->mem[3 * PAGE + 99], 0xab);
	assert_int_equal(f->mem[3 * PAGE + 100], 0);
}

static void user_mr_refusals(void **state)
{
	struct fixture *f = *state;
	const uint64_t inside[2] = { GPA_BASE, GPA_BASE + PAGE };
	const uint64_t outside[2] = { GPA_BASE, GPA_BASE + MEM_PAGES * PAGE };
	const uint64_t unaligned[2] = { GPA_BASE, GPA_BASE + PAGE + 8 };
	uint8_t req[64], ack[256];
	uint32_t pdn = create_pd(f);
	size_t len;

	len = reg_user_mr(req, pdn, 1, 0x1000, 2 * PAGE, outside, 2);
	assert_int_equal(run(f, VIRTIO_ROCE_REG_USER_MR, req, len, ack), VIRTIO_NET_ERR);
	assert_string_equal(f->r.last_error.field, "pages");
	len = reg_user_mr(req, pdn, 1, 0x1000, 2 * PAGE, unaligned, 2);
	assert_int_equal(run(f, VIRTIO_ROCE_REG_USER_MR, req, len, ack), VIRTIO_NET_ERR);
	assert_string_equal(f->r.last_error.field, "pages");
	/* Two pages cannot hold 2 pages + 1 byte. */
	len = reg_user_mr(req, pdn, 1, 0x1000, 2 * PAGE + 1, inside, 2);
	assert_int_equal(run(f, VIRTIO_ROCE_REG_USER_MR, req, len, ack), VIRTIO_NET_ERR);
	assert_string_equal(f->r.last_error.field, "npages");
	/* npages says 2, one page follows. */
	len = reg_user_mr(req, pdn, 1, 0x1000, 2 * PAGE, inside, 2);
	assert_int_equal(run(f, VIRTIO_ROCE_REG_USER_MR, req, len - 8, ack), VIRTIO_NET_ERR);
	/* remote_write without local_write. */
	len = reg_user_mr(req, pdn, 2, 0x1000, 2 * PAGE, inside, 2);
	assert_int_equal(run(f, VIRTIO_ROCE_REG_USER_MR, req, len, ack), VIRTIO_NET_ERR);
	assert_string_equal(f->r.last_error.field, "access");
	assert_int_equal(f->dev->tables[RDMA_OBJ_MR].count, 0);
	assert_int_equal(f->r.refused[VIRTIO_ROCE_REG_USER_MR], 5);
}

static void dma_mr_reaches_guest_memory(void **state)
{
	struct fixture *f = *state;
	uint8_t req[8], ack[256];
	struct dp_keytab kt;
	struct rdma_error err;
	struct rdma_mr *mr;
	struct dp_key *k;

	put32(req, 0, create_pd(f));
	put32(req, 4, 1 | 2 | 4);
	assert_int_equal(run(f, VIRTIO_ROCE_GET_DMA_MR, req, 8, ack), VIRTIO_NET_OK);
	assert_int_equal(get32(ack, 8), get32(ack, 0));
	mr = rdma_mr(rdma_object_lookup(f->dev, RDMA_OBJ_MR, get32(ack, 0), &err));
	assert_int_equal(mr->n_windows, 1);
	/* The key the workers get resolves guest physical addresses inside the window only. */
	assert_int_equal(dp_keytab_init(&kt, 1024, 16), 0);
	k = calloc(1, sizeof(*k));
	*k = (struct dp_key){ .key = mr->obj.handle, .kind = DP_KEY_DMA, .pd = mr->pd->handle,
			      .access = 7, .rkey = true, .n_windows = 1 };
	k->windows[0] = mr->windows[0];
	assert_int_equal(dp_keytab_set(&kt, k), 0);
	assert_ptr_equal(dp_keytab_resolve(&kt, k->key, true, k->pd, 2, GPA_BASE + 5, 10), f->mem + 5);
	assert_null(dp_keytab_resolve(&kt, k->key, true, k->pd, 2, GPA_BASE - 1, 10));
	assert_null(dp_keytab_resolve(&kt, k->key, true, k->pd, 2, GPA_BASE + MEM_PAGES * PAGE - 4, 5));
	dp_keytab_release(&kt);
}

static void others_objects_are_not_there(void **state)
{
	struct fixture *f = *state;
	uint8_t req[64] = { 0 }, ack[256];
	struct rdma_error err;
	struct rdma_object *theirs = rdma_object_create(f->dev, RDMA_OBJ_PD, &err);
	uint32_t qpn;

	assert_non_null(theirs);
	theirs->owner = &f->other_owner;
	put32(req, 0, theirs->handle);
	assert_int_equal(run(f, VIRTIO_ROCE_DESTROY_PD, req, 4, ack), VIRTIO_NET_ERR);
	assert_int_equal(f->r.last_error.code, RDMA_ERR_NO_SUCH_OBJECT);
	assert_int_equal(create_qp(f, theirs->handle, 2, create_cq(f, 4), &qpn), VIRTIO_NET_ERR);
	assert_int_equal(f->r.last_error.code, RDMA_ERR_NO_SUCH_OBJECT);
	assert_non_null(rdma_object_lookup(f->dev, RDMA_OBJ_PD, theirs->handle, &err));
}

static void malformed_and_unknown_commands(void **state)
{
	struct fixture *f = *state;
	uint8_t req[64] = { 0 }, ack[256];
	size_t ack_len;
	uint32_t qpn;

	assert_int_equal(run(f, 18, req, 0, ack), VIRTIO_NET_ERR);
	assert_int_equal(run(f, VIRTIO_ROCE_CREATE_CQ, req, 3, ack), VIRTIO_NET_ERR);
	assert_int_equal(run(f, VIRTIO_ROCE_CREATE_CQ, req, 5, ack), VIRTIO_NET_ERR);
	/* Room for the ack is checked before anything runs. */
	put32(req, 0, 4);
	assert_int_equal(vdev_roce_command(&f->r, VIRTIO_ROCE_CREATE_CQ, req, 4, ack, 3, &ack_len),
			 VIRTIO_NET_ERR);
	assert_int_equal(f->r.malformed, 4);
	assert_int_equal(f->dev->tables[RDMA_OBJ_CQ].count, 0);
	/* SMI and GSI are the device's. */
	assert_int_equal(create_qp(f, create_pd(f), 1, create_cq(f, 4), &qpn), VIRTIO_NET_ERR);
	assert_string_equal(f->r.last_error.field, "qp_type");
	/* REQ_NOTIFY_CQ flags are one of two. */
	put32(req, 0, 1);
	put32(req, 4, 3);
	assert_int_equal(run(f, VIRTIO_ROCE_REQ_NOTIFY_CQ, req, 8, ack), VIRTIO_NET_ERR);
	assert_string_equal(f->r.last_error.field, "flags");
}

static void gids_and_ahs(void **state)
{
	struct fixture *f = *state;
	uint8_t req[64] = { 0 }, ack[256];
	uint32_t pdn = create_pd(f), ah;

	/* ADD_GID: index @0 (le16), gid @8. */
	req[0] = 3;
	req[8 + 10] = req[8 + 11] = 0xff;
	req[8 + 12] = 10, req[8 + 13] = 0, req[8 + 14] = 0, req[8 + 15] = 2;
	assert_int_equal(run(f, VIRTIO_ROCE_ADD_GID, req, 24, ack), VIRTIO_NET_OK);
	assert_int_equal(run(f, VIRTIO_ROCE_ADD_GID, req, 24, ack), VIRTIO_NET_ERR);
	/* CREATE_AH: pdn @0, ah_attr @8 (dgid @8, sgid_index @28, hop_limit @29, dmac @32). */
	memset(req, 0, sizeof(req));
	put32(req, 0, pdn);
	req[8 + 10] = req[8 + 11] = 0xff;
	req[8 + 12] = 10, req[8 + 15] = 9;
	req[28] = 3;
	req[29] = 64;
	assert_int_equal(run(f, VIRTIO_ROCE_CREATE_AH, req, 48, ack), VIRTIO_NET_OK);
	ah = get32(ack, 0);
	/* The GID the AH sends from stays while it does. */
	memset(req, 0, sizeof(req));
	req[0] = 3;
	assert_int_equal(run(f, VIRTIO_ROCE_DEL_GID, req, 2, ack), VIRTIO_NET_ERR);
	/* DESTROY_AH names its PD: another is refused. */
	put32(req, 0, pdn + 1);
	put32(req, 4, ah);
	assert_int_equal(run(f, VIRTIO_ROCE_DESTROY_AH, req, 8, ack), VIRTIO_NET_ERR);
	assert_string_equal(f->r.last_error.field, "pdn");
	put32(req, 0, pdn);
	assert_int_equal(run(f, VIRTIO_ROCE_DESTROY_AH, req, 8, ack), VIRTIO_NET_OK);
	memset(req, 0, sizeof(req));
	req[0] = 3;
	assert_int_equal(run(f, VIRTIO_ROCE_DEL_GID, req, 2, ack), VIRTIO_NET_OK);
}

static void reclaim_takes_the_vms_objects_only(void **state)
{
	struct fixture *f = *state;
	const uint64_t page[1] = { GPA_BASE };
	uint8_t req[64], ack[256];
	unsigned reclaimed[6] = { 0 };
	struct rdma_error err;
	struct rdma_object *roots = rdma_object_create(f->dev, RDMA_OBJ_PD, &err);
	uint32_t pdn = create_pd(f), qpn;
	size_t len = reg_user_mr(req, pdn, 1, 0x2000, 100, page, 1);

	assert_int_equal(run(f, VIRTIO_ROCE_REG_USER_MR, req, len, ack), VIRTIO_NET_OK);
	assert_int_equal(create_qp(f, pdn, 4 /* UD */, create_cq(f, 8), &qpn), VIRTIO_NET_OK);
	vdev_roce_reclaim(&f->r, reclaimed);
	/* rdma_reclaim_order: QP, AH, MKEY, MR, CQ, PD. */
	assert_int_equal(reclaimed[0], 1);
	assert_int_equal(reclaimed[3], 1);
	assert_int_equal(reclaimed[4], 1);
	assert_int_equal(reclaimed[5], 1);
	assert_int_equal(f->dev->tables[RDMA_OBJ_PD].count, 1);
	assert_non_null(rdma_object_lookup(f->dev, RDMA_OBJ_PD, roots->handle, &err));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(query_device_and_port, setup, teardown),
		cmocka_unit_test_setup_teardown(qp_life, setup, teardown),
		cmocka_unit_test_setup_teardown(user_mr_maps_scattered_pages, setup, teardown),
		cmocka_unit_test_setup_teardown(user_mr_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(dma_mr_reaches_guest_memory, setup, teardown),
		cmocka_unit_test_setup_teardown(others_objects_are_not_there, setup, teardown),
		cmocka_unit_test_setup_teardown(malformed_and_unknown_commands, setup, teardown),
		cmocka_unit_test_setup_teardown(gids_and_ahs, setup, teardown),
		cmocka_unit_test_setup_teardown(reclaim_takes_the_vms_objects_only, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
