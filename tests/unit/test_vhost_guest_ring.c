/* SPDX-License-Identifier: MIT */
/*
 * tests/tools/vhost-guest: the driver side of the split virtqueue (chains
 * direct and indirect, used buffers taken back, the event index rule), the
 * seed's structs against the sizes and offsets the seed and roce_virtio.md
 * §1.4 give, and the input words' parsers.  The test plays the device by
 * writing the used ring and avail_event itself.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tests/tools/vhost-guest/args.h"
#include "tests/tools/vhost-guest/roce_abi.h"
#include "tests/tools/vhost-guest/vring.h"

#define NUM		8
#define BLOCK_GPA	0x10000ull

struct ring_mem {
	struct vring vr;
	struct vring_layout l;
	uint8_t *block;
};

static void ring_open(struct ring_mem *m, bool indirect, bool event_idx)
{
	struct vring_area none = { 0 };

	vring_layout(NUM, indirect, &m->l);
	m->block = aligned_alloc(4096, m->l.total);
	assert_non_null(m->block);
	memset(m->block, 0, m->l.total);
	assert_int_equal(vring_init(&m->vr, NUM,
				    (struct vring_area){ m->block + m->l.desc, BLOCK_GPA + m->l.desc },
				    (struct vring_area){ m->block + m->l.avail, BLOCK_GPA + m->l.avail },
				    (struct vring_area){ m->block + m->l.used, BLOCK_GPA + m->l.used },
				    indirect ? (struct vring_area){ m->block + m->l.indirect,
								    BLOCK_GPA + m->l.indirect }
					     : none,
				    event_idx), 0);
}

static void ring_close(struct ring_mem *m)
{
	vring_free(&m->vr);
	free(m->block);
}

/* The device's side: head used with len written. */
static void device_use(struct vring *vr, uint16_t head, uint32_t len)
{
	uint16_t idx = vr->used->idx;

	vr->used->ring[idx % vr->num].id = head;
	vr->used->ring[idx % vr->num].len = len;
	__atomic_store_n(&vr->used->idx, (uint16_t)(idx + 1), __ATOMIC_RELEASE);
}

static void test_seed_layouts(void **state)
{
	assert_int_equal(sizeof(struct virtio_rdma_sq_req), 576);
	assert_int_equal(sizeof(struct virtio_rdma_sge), 16);
	assert_int_equal(offsetof(struct virtio_rdma_sq_req, sg_list), 576);
	assert_int_equal(offsetof(struct virtio_rdma_sq_req, opcode), 8);
	assert_int_equal(offsetof(struct virtio_rdma_sq_req, send_flags), 9);
	assert_int_equal(offsetof(struct virtio_rdma_sq_req, imm_data), 12);
	assert_int_equal(offsetof(struct virtio_rdma_sq_req, rdma.remote_addr), 16);
	assert_int_equal(offsetof(struct virtio_rdma_sq_req, rdma.rkey), 24);
	assert_int_equal(offsetof(struct virtio_rdma_sq_req, ud.remote_qpn), 16);
	assert_int_equal(offsetof(struct virtio_rdma_sq_req, ud.ah), 24);
	assert_int_equal(offsetof(struct virtio_rdma_sq_req, inline_data), 48);
	assert_int_equal(offsetof(struct virtio_rdma_sq_req, num_sge), 560);
	assert_int_equal(offsetof(struct virtio_rdma_sq_req, inline_len), 560);
	assert_int_equal(sizeof(struct virtio_rdma_rq_req), 24);
	assert_int_equal(offsetof(struct virtio_rdma_rq_req, num_sge), 8);
	assert_int_equal(offsetof(struct virtio_rdma_rq_req, sg_list), 24);
	assert_int_equal(sizeof(struct virtio_rdma_cq_req), 48);
	assert_int_equal(offsetof(struct virtio_rdma_cq_req, status), 8);
	assert_int_equal(offsetof(struct virtio_rdma_cq_req, opcode), 9);
	assert_int_equal(offsetof(struct virtio_rdma_cq_req, byte_len), 16);
	assert_int_equal(offsetof(struct virtio_rdma_cq_req, imm_data), 20);
	assert_int_equal(offsetof(struct virtio_rdma_cq_req, qp_num), 24);
	assert_int_equal(offsetof(struct virtio_rdma_cq_req, src_qp), 28);
	assert_int_equal(offsetof(struct virtio_rdma_cq_req, wc_flags), 32);
	assert_int_equal(offsetof(struct virtio_net_config, max_rdma_qps), 24);
	assert_int_equal(offsetof(struct virtio_net_config, max_rdma_cqs), 28);
	assert_int_equal(offsetof(struct virtio_rdma_cmd_reg_user_mr, pages), 32);
	assert_int_equal(offsetof(struct virtio_rdma_cmd_modify_qp, qkey), 24);
	assert_int_equal(offsetof(struct virtio_rdma_cmd_modify_qp, ah_attr), 72);
	assert_int_equal(offsetof(struct virtio_rdma_ack_query_qp, qkey), 16);
	assert_int_equal(offsetof(struct virtio_rdma_cmd_create_qp, send_cqn), 8);
	assert_int_equal(offsetof(struct virtio_rdma_cmd_add_gid, gid), 8);
	assert_int_equal(sizeof(struct virtio_net_hdr_v1), 12);
}

static void test_layout(void **state)
{
	struct vring_layout l;

	assert_int_equal(vring_desc_bytes(256), 4096);
	assert_int_equal(vring_avail_bytes(256), 6 + 512);
	assert_int_equal(vring_used_bytes(256), 6 + 8 * 256);
	vring_layout(256, true, &l);
	assert_int_equal(l.avail, 4096);
	assert_int_equal(l.used % 4096, 0);
	assert_true(l.used >= l.avail + vring_avail_bytes(256));
	assert_int_equal(l.indirect % 16, 0);
	assert_true(l.total >= l.indirect + vring_indirect_bytes(256));
	assert_int_equal(l.total % 4096, 0);
}

static void test_direct_chain(void **state)
{
	struct ring_mem m;
	struct vring_seg segs[3] = {
		{ 0x1000, 2, false }, { 0x2000, 100, false }, { 0x3000, 1, true },
	};
	int cookie, head, next;
	uint32_t len = 0;
	void *got = NULL;

	ring_open(&m, false, false);
	assert_int_equal(vring_peek_head(&m.vr), 0);
	head = vring_add(&m.vr, segs, 3, &cookie);
	assert_int_equal(head, 0);
	assert_int_equal(m.vr.num_free, NUM - 3);
	assert_int_equal(m.vr.desc[head].addr, 0x1000);
	assert_int_equal(m.vr.desc[head].len, 2);
	assert_int_equal(m.vr.desc[head].flags, VRING_DESC_F_NEXT);
	next = m.vr.desc[head].next;
	assert_int_equal(m.vr.desc[next].addr, 0x2000);
	assert_int_equal(m.vr.desc[next].flags, VRING_DESC_F_NEXT);
	next = m.vr.desc[next].next;
	assert_int_equal(m.vr.desc[next].addr, 0x3000);
	assert_int_equal(m.vr.desc[next].flags, VRING_DESC_F_WRITE);
	/* Nothing visible before publish; then one avail entry naming the head. */
	assert_int_equal(m.vr.avail->idx, 0);
	assert_true(vring_publish(&m.vr));
	assert_int_equal(m.vr.avail->idx, 1);
	assert_int_equal(m.vr.avail->ring[0], head);
	/* Nothing new: no kick. */
	assert_false(vring_publish(&m.vr));

	assert_int_equal(vring_get_used(&m.vr, &len, &got), -EAGAIN);
	device_use(&m.vr, (uint16_t)head, 1);
	assert_int_equal(vring_get_used(&m.vr, &len, &got), head);
	assert_int_equal(len, 1);
	assert_ptr_equal(got, &cookie);
	assert_int_equal(m.vr.num_free, NUM);
	/* Every descriptor can be had again. */
	for (int i = 0; i < NUM; i++)
		assert_true(vring_add(&m.vr, &segs[0], 1, NULL) >= 0);
	assert_int_equal(vring_add(&m.vr, &segs[0], 1, NULL), -ENOSPC);
	assert_int_equal(vring_peek_head(&m.vr), -ENOSPC);
	ring_close(&m);
}

static void test_refusals(void **state)
{
	struct ring_mem m;
	struct vring_seg bad[2] = { { 0x1000, 1, true }, { 0x2000, 1, false } };
	uint32_t len;

	ring_open(&m, false, false);
	assert_int_equal(vring_add(&m.vr, bad, 2, NULL), -EINVAL);
	assert_int_equal(vring_add(&m.vr, bad, 0, NULL), -EINVAL);
	assert_int_equal(m.vr.num_free, NUM);
	/* A used entry naming nothing in flight is an error, and skipped. */
	device_use(&m.vr, 3, 0);
	assert_int_equal(vring_get_used(&m.vr, &len, NULL), -EIO);
	device_use(&m.vr, NUM + 4, 0);
	assert_int_equal(vring_get_used(&m.vr, &len, NULL), -EIO);
	assert_int_equal(vring_get_used(&m.vr, &len, NULL), -EAGAIN);
	vring_free(&m.vr);
	/* A size that is no power of two is refused, and nothing allocated. */
	assert_int_equal(vring_init(&m.vr, 6, (struct vring_area){ 0 }, (struct vring_area){ 0 },
				    (struct vring_area){ 0 }, (struct vring_area){ 0 }, false), -EINVAL);
	free(m.block);
}

static void test_indirect(void **state)
{
	struct ring_mem m;
	struct vring_seg segs[4] = {
		{ 0x1000, 2, false }, { 0x2000, 8, false }, { 0x3000, 1, true }, { 0x4000, 16, true },
	};
	struct vring_desc *table;
	int head, second;

	ring_open(&m, true, false);
	/* One segment goes direct even with tables. */
	head = vring_add(&m.vr, segs, 1, NULL);
	assert_int_equal(m.vr.desc[head].flags, 0);
	second = vring_add(&m.vr, segs, 4, NULL);
	assert_int_equal(m.vr.num_free, NUM - 2);
	assert_int_equal(m.vr.desc[second].flags, VRING_DESC_F_INDIRECT);
	assert_int_equal(m.vr.desc[second].len, 4 * 16);
	assert_int_equal(m.vr.desc[second].addr,
			 BLOCK_GPA + m.l.indirect + (uint64_t)second * VRING_INDIRECT_MAX * 16);
	table = (struct vring_desc *)(m.block + m.l.indirect) + second * VRING_INDIRECT_MAX;
	assert_int_equal(table[0].addr, 0x1000);
	assert_int_equal(table[0].flags, VRING_DESC_F_NEXT);
	assert_int_equal(table[0].next, 1);
	assert_int_equal(table[1].next, 2);
	assert_int_equal(table[2].flags, VRING_DESC_F_NEXT | VRING_DESC_F_WRITE);
	assert_int_equal(table[3].addr, 0x4000);
	assert_int_equal(table[3].flags, VRING_DESC_F_WRITE);
	vring_publish(&m.vr);
	device_use(&m.vr, (uint16_t)second, 17);
	assert_int_equal(vring_get_used(&m.vr, NULL, NULL), second);
	assert_int_equal(m.vr.num_free, NUM - 1);
	ring_close(&m);
}

static void test_event_idx_rule(void **state)
{
	/* The device asked to hear when idx passes event. */
	assert_true(vring_need_event(0, 1, 0));
	assert_false(vring_need_event(1, 1, 0));
	assert_true(vring_need_event(4, 8, 2));
	assert_false(vring_need_event(8, 8, 2));
	assert_false(vring_need_event(1, 8, 2));
	/* Across the 16-bit wrap. */
	assert_true(vring_need_event(0xfffe, 2, 0xfff0));
	assert_true(vring_need_event(0xffff, 0, 0xffff));
	assert_false(vring_need_event(5, 2, 0xfff0));
	assert_false(vring_need_event(0, 0, 0));
}

static void test_kick_decisions(void **state)
{
	struct vring_seg seg = { 0x1000, 8, false };
	struct ring_mem m;

	/* Event index: kick only when the new entries pass avail_event. */
	ring_open(&m, false, true);
	*vring_avail_event(&m.vr) = 0;
	vring_add(&m.vr, &seg, 1, NULL);
	assert_true(vring_publish(&m.vr));		/* 0 -> 1 passes 0 */
	vring_add(&m.vr, &seg, 1, NULL);
	assert_false(vring_publish(&m.vr));		/* 1 -> 2 does not pass 0 */
	*vring_avail_event(&m.vr) = 3;
	vring_add(&m.vr, &seg, 1, NULL);
	assert_false(vring_publish(&m.vr));		/* 2 -> 3 */
	vring_add(&m.vr, &seg, 1, NULL);
	vring_add(&m.vr, &seg, 1, NULL);
	assert_true(vring_publish(&m.vr));		/* 3 -> 5 passes 3 */
	/* Taking a used entry asks for the call after it. */
	device_use(&m.vr, 0, 0);
	assert_int_equal(vring_get_used(&m.vr, NULL, NULL), 0);
	assert_int_equal(*vring_used_event(&m.vr), 1);
	ring_close(&m);

	/* Without: the device's NO_NOTIFY flag decides. */
	ring_open(&m, false, false);
	vring_add(&m.vr, &seg, 1, NULL);
	assert_true(vring_publish(&m.vr));
	m.vr.used->flags = VRING_USED_F_NO_NOTIFY;
	vring_add(&m.vr, &seg, 1, NULL);
	assert_false(vring_publish(&m.vr));
	ring_close(&m);
}

static void test_words(void **state)
{
	static const struct name_value access[] = {
		{ "local_write", 1 }, { "remote_write", 2 }, { "remote_read", 4 }, { NULL, 0 },
	};
	char line[] = "cmd pdn=3 access=local_write,remote_read gid=192.0.2.1 mtu=x extra=1";
	uint8_t gid[16], bytes[4];
	uint32_t v = 0;
	struct args a;

	assert_int_equal(args_split(&a, line), 0);
	assert_int_equal(args_u32(&a, "pdn", true, 10, &v), 0);
	assert_int_equal(v, 3);
	assert_int_equal(args_flags(&a, "access", true, access, &v), 0);
	assert_int_equal(v, 5);
	assert_int_equal(args_gid(&a, "gid", true, gid), 0);
	assert_int_equal(gid[10], 0xff);
	assert_int_equal(gid[11], 0xff);
	assert_int_equal(gid[12], 192);
	assert_int_equal(gid[15], 1);
	assert_int_equal(args_u32(&a, "mtu", true, 10, &v), -1);
	assert_non_null(strstr(a.err, "field mtu"));
	assert_int_equal(args_u32(&a, "qpn", true, 10, &v), -1);
	assert_string_equal(a.err, "missing field qpn=");
	assert_int_equal(args_done(&a, 0), -1);
	assert_non_null(strstr(a.err, "extra=1"));
	assert_int_equal(parse_hex("0aff10", bytes, sizeof(bytes)), 3);
	assert_int_equal(bytes[1], 0xff);
	assert_int_equal(parse_hex("0af", bytes, sizeof(bytes)), -1);
	assert_int_equal(parse_hex("0011223344", bytes, sizeof(bytes)), -1);
	assert_int_equal(parse_gid("fe80::1", gid), 0);
	assert_int_equal(gid[0], 0xfe);
	assert_int_equal(parse_gid("300.1.1.1", gid), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seed_layouts),
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_direct_chain),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_indirect),
		cmocka_unit_test(test_event_idx_rule),
		cmocka_unit_test(test_kick_decisions),
		cmocka_unit_test(test_words),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
