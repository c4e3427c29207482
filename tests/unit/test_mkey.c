/* SPDX-License-Identifier: MIT */
/*
 * daemon/verbs/mkey.c and daemon/verbs/pool.c below the API: the creation rule of
 * max_entries (reference §1.2), configure persistence and all-or-nothing
 * (§3.1-3.2), the signature-error record and its re-arming (§3.4-3.5), and the
 * pool counters (§6.1).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "daemon/soft/soft_device.h"
#include "daemon/verbs/mkey.h"
#include "daemon/verbs/mr.h"
#include "daemon/verbs/pool.h"

struct fixture {
	struct rdma_device *dev;
	uint32_t pd, pd2;
	struct rdma_mr *mr, *mr2;
};

static int setup(void **state)
{
	static struct fixture f;
	struct rdma_error err;

	if (soft_device_create(&f.dev, "soft0", 0) < 0)
		return -1;
	f.pd = rdma_object_create(f.dev, RDMA_OBJ_PD, &err)->handle;
	f.pd2 = rdma_object_create(f.dev, RDMA_OBJ_PD, &err)->handle;
	if (rdma_mr_create(f.dev, f.pd, 8192, 0, 1u << 20, &f.mr, &err) < 0 ||
	    rdma_mr_create(f.dev, f.pd2, 4096, 0, 1u << 20, &f.mr2, &err) < 0)
		return -1;
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	rdma_device_free(f->dev);
	return 0;
}

/* A T10-DIF wire domain (CRC guard, bg 0xFFFF) with this app tag. */
static void t10dif_wire(struct rdma_mkey_conf *c, uint16_t app_tag)
{
	c->set_sig = true;
	c->cfg.wire.sig_type = DP_SIG_T10DIF;
	c->cfg.wire.block_size = 512;
	c->cfg.wire.t10dif.bg = 0xffff;
	c->cfg.wire.t10dif.app_tag = app_tag;
}

static struct rdma_mkey *new_mkey(struct fixture *f, uint32_t flags)
{
	struct rdma_mkey *m;
	struct rdma_error err;

	assert_int_equal(rdma_mkey_create(f->dev, f->pd, flags, 4, &m, &err), 0);
	return m;
}

static void test_max_entries_rounding(void **state)
{
	struct fixture *f = *state;
	struct rdma_error err;
	struct rdma_mkey *m;

	/* max_entries rounded up to a multiple of 4, up to the device's 256. */
	assert_int_equal(rdma_mkey_round_entries(f->dev, 1), 4);
	assert_int_equal(rdma_mkey_round_entries(f->dev, 4), 4);
	assert_int_equal(rdma_mkey_round_entries(f->dev, 5), 8);
	assert_int_equal(rdma_mkey_round_entries(f->dev, 253), 256);
	assert_int_equal(rdma_mkey_round_entries(f->dev, 256), 256);
	assert_int_equal(rdma_mkey_round_entries(f->dev, 257), 0);
	assert_int_equal(rdma_mkey_round_entries(f->dev, 0), 0);
	/* create_flags 0 or unknown bits are refused (EOPNOTSUPP in rdma-core). */
	assert_int_equal(rdma_mkey_create(f->dev, f->pd, 0, 4, &m, &err), -EINVAL);
	assert_string_equal(err.field, "flags");
	assert_int_equal(rdma_mkey_create(f->dev, f->pd, 1u << 3, 4, &m, &err), -EINVAL);
	assert_int_equal(rdma_mkey_create(f->dev, f->pd, RDMA_MKEY_CRYPTO, 300, &m, &err), -EINVAL);
	assert_string_equal(err.field, "max_entries");
}

static void test_configure_persistence(void **state)
{
	struct fixture *f = *state;
	struct rdma_mkey *m = new_mkey(f, RDMA_MKEY_BLOCK_SIGNATURE);
	struct rdma_mkey_entry e = { .mr = f->mr->obj.handle, .offset = 0, .length = 512 };
	struct rdma_mkey_conf c;
	struct rdma_error err;

	assert_false(m->configured);
	rdma_mkey_conf_init(&c);
	c.set_layout = true;
	c.layout = (struct rdma_mkey_layout){ .type = RDMA_LAYOUT_LIST, .n = 1, .entries = &e };
	c.set_access = true;
	c.access = RDMA_MKEY_ACCESS_REMOTE_READ;
	t10dif_wire(&c, 7);
	assert_int_equal(rdma_mkey_configure(f->dev, m, &c, &err), 0);
	assert_true(m->configured && m->sig_set && m->transform);
	/* MR and PD are referenced: PD + one MR. */
	assert_int_equal(m->obj.n_refs, 2);

	/* An empty configure keeps everything (and re-arms). */
	rdma_mkey_conf_init(&c);
	assert_int_equal(rdma_mkey_configure(f->dev, m, &c, &err), 0);
	assert_int_equal(m->access, RDMA_MKEY_ACCESS_REMOTE_READ);
	assert_int_equal(m->cfg.wire.t10dif.app_tag, 7);
	assert_int_equal(rdma_mkey_length(m), 512);

	/* Access replaced, even by nothing. */
	c.set_access = true;
	c.access = 0;
	assert_int_equal(rdma_mkey_configure(f->dev, m, &c, &err), 0);
	assert_int_equal(m->access, 0);
	assert_true(m->sig_set);

	/* RESET_SIG_ATTR: both domains none; a plain MKEY (no transform). */
	rdma_mkey_conf_init(&c);
	c.reset_sig_attr = true;
	assert_int_equal(rdma_mkey_configure(f->dev, m, &c, &err), 0);
	assert_false(m->sig_set);
	assert_null(m->transform);
	assert_int_equal(m->cfg.wire.sig_type, DP_SIG_NONE);
	assert_int_equal(m->configures, 4);
}

static void test_refused_configure_changes_nothing(void **state)
{
	struct fixture *f = *state;
	struct rdma_mkey *m = new_mkey(f, RDMA_MKEY_BLOCK_SIGNATURE);
	struct rdma_mkey_entry e[5] = {
		{ .mr = f->mr->obj.handle, .length = 512 }, { .mr = f->mr->obj.handle, .length = 1 },
		{ .mr = f->mr->obj.handle, .length = 1 }, { .mr = f->mr->obj.handle, .length = 1 },
		{ .mr = f->mr->obj.handle, .length = 1 },
	};
	struct rdma_mkey_conf c;
	struct rdma_error err;

	rdma_mkey_conf_init(&c);
	c.set_layout = true;
	c.layout = (struct rdma_mkey_layout){ .type = RDMA_LAYOUT_LIST, .n = 1, .entries = e };
	t10dif_wire(&c, 1);
	assert_int_equal(rdma_mkey_configure(f->dev, m, &c, &err), 0);

	/* Five entries on an MKEY of four; with a valid signature in the same configure. */
	c.layout.n = 5;
	t10dif_wire(&c, 2);
	assert_int_equal(rdma_mkey_configure(f->dev, m, &c, &err), -EINVAL);
	assert_string_equal(err.field, "layout");
	/* Interleaved: 3 entries + the header fit 4; 4 do not. */
	c.layout = (struct rdma_mkey_layout){ .type = RDMA_LAYOUT_INTERLEAVED, .repeat_count = 1, .n = 4,
					      .entries = e };
	assert_int_equal(rdma_mkey_configure(f->dev, m, &c, &err), -EINVAL);
	assert_string_equal(err.field, "interleaved.entries");
	/* An MR of another PD. */
	e[4].mr = f->mr2->obj.handle;
	c.layout = (struct rdma_mkey_layout){ .type = RDMA_LAYOUT_LIST, .n = 1, .entries = &e[4] };
	assert_int_equal(rdma_mkey_configure(f->dev, m, &c, &err), -EINVAL);
	assert_string_equal(err.field, "layout[0].mr");
	/* Crypto on an MKEY without the crypto flag. */
	rdma_mkey_conf_init(&c);
	c.set_crypto = true;
	c.cfg.crypto.enabled = true;
	c.cfg.crypto.data_unit_size = 512;
	c.crypto.dek = 1;
	assert_int_equal(rdma_mkey_configure(f->dev, m, &c, &err), -EINVAL);
	assert_string_equal(err.field, "config.crypto");
	/* A signature setter with neither domain. */
	rdma_mkey_conf_init(&c);
	c.set_sig = true;
	assert_int_equal(rdma_mkey_configure(f->dev, m, &c, &err), -EINVAL);
	assert_string_equal(err.field, "config");

	assert_int_equal(m->configures, 1);
	assert_int_equal(m->cfg.wire.t10dif.app_tag, 1);
	assert_int_equal(m->layout.n, 1);
	assert_int_equal(m->obj.n_refs, 2);
	/* The signature setter on a crypto-only MKEY. */
	m = new_mkey(f, RDMA_MKEY_CRYPTO);
	rdma_mkey_conf_init(&c);
	t10dif_wire(&c, 1);
	assert_int_equal(rdma_mkey_configure(f->dev, m, &c, &err), -EINVAL);
	assert_string_equal(err.field, "config.wire");
	assert_false(m->configured);
}

/* Wire bytes of one 512-byte zero block whose T10-DIF app tag is app. */
static void wire_block(uint8_t *w, uint16_t app)
{
	memset(w, 0, 520);
	w[514] = app >> 8;
	w[515] = app & 0xff;
}

static void test_error_record_and_rearming(void **state)
{
	struct fixture *f = *state;
	struct rdma_mkey *m = new_mkey(f, RDMA_MKEY_BLOCK_SIGNATURE);
	struct rdma_mkey_entry e = { .mr = f->mr->obj.handle, .offset = 0, .length = 512 };
	struct rdma_mkey_conf c;
	struct dp_sig_err x, rec;
	struct rdma_error err;
	uint8_t w[520];
	size_t n;

	rdma_mkey_conf_init(&c);
	c.set_layout = true;
	c.layout = (struct rdma_mkey_layout){ .type = RDMA_LAYOUT_LIST, .n = 1, .entries = &e };
	t10dif_wire(&c, 0x1234);
	c.cfg.check_mask = DP_SIG_MASK_T10DIF_APPTAG;   /* only the app tag is checked */
	assert_int_equal(rdma_mkey_configure(f->dev, m, &c, &err), 0);
	assert_true(m->sig_armed);

	/* First error: recorded (expected = configured, actual = found), detection disarmed. */
	wire_block(w, 0x1111);
	assert_int_equal(rdma_mkey_rx(f->dev, m, w, sizeof(w), &n, &x, &err), 0);
	assert_int_equal(n, 512);
	assert_int_equal(x.type, DP_SIG_ERR_APPTAG);
	assert_true(m->err_pending);
	assert_false(m->sig_armed);
	/* Second error: reported for the transfer, not recorded. */
	wire_block(w, 0x2222);
	assert_int_equal(rdma_mkey_rx(f->dev, m, w, sizeof(w), &n, &x, &err), 0);
	assert_int_equal(x.actual, 0x2222);
	assert_int_equal(rdma_mkey_check(m, &rec, &err), 0);
	assert_int_equal(rec.type, DP_SIG_ERR_APPTAG);
	assert_int_equal(rec.expected, 0x1234);
	assert_int_equal(rec.actual, 0x1111);
	/* Read and clear. */
	assert_int_equal(rdma_mkey_check(m, &rec, &err), 0);
	assert_int_equal(rec.type, DP_SIG_ERR_NONE);
	/* Still disarmed until a configure. */
	assert_int_equal(rdma_mkey_rx(f->dev, m, w, sizeof(w), &n, &x, &err), 0);
	assert_false(m->err_pending);
	rdma_mkey_conf_init(&c);
	assert_int_equal(rdma_mkey_configure(f->dev, m, &c, &err), 0);
	assert_int_equal(rdma_mkey_rx(f->dev, m, w, sizeof(w), &n, &x, &err), 0);
	assert_int_equal(rdma_mkey_check(m, &rec, &err), 0);
	assert_int_equal(rec.actual, 0x2222);
	/* A re-armed MKEY overwrites a record nobody read (libmlx5 overwrites the saved error). */
	wire_block(w, 0x3333);
	assert_int_equal(rdma_mkey_rx(f->dev, m, w, sizeof(w), &n, &x, &err), 0);
	assert_int_equal(rdma_mkey_configure(f->dev, m, &c, &err), 0);
	wire_block(w, 0x4444);
	assert_int_equal(rdma_mkey_rx(f->dev, m, w, sizeof(w), &n, &x, &err), 0);
	assert_int_equal(rdma_mkey_check(m, &rec, &err), 0);
	assert_int_equal(rec.actual, 0x4444);
	assert_int_equal(m->counters.transfers, 6);
	assert_int_equal(m->counters.sig_errors, 6);
}

static void test_pool_counters(void **state)
{
	struct fixture *f = *state;
	struct rdma_mkey *a, *b, *c;
	struct rdma_pool *p;
	struct rdma_error err;
	int owner1, owner2;

	assert_int_equal(rdma_pool_create(f->dev, "p", RDMA_MKEY_BLOCK_SIGNATURE, 2, 0, 16, &p, &err), 0);
	assert_true(p->own_pd);
	assert_int_equal(p->max_entries, 16);
	assert_int_equal(rdma_pool_borrow(p, &owner1, &a, &err), 0);
	assert_int_equal(rdma_pool_borrow(p, &owner2, &b, &err), 0);
	assert_ptr_not_equal(a, b);
	assert_int_equal(rdma_pool_borrow(p, &owner1, &c, &err), -EPERM);
	assert_int_equal(p->borrow_failures, 1);
	assert_int_equal(p->high_water, 2);
	/* Not yours to return. */
	assert_int_equal(rdma_pool_return(a, &owner2, &err), -EPERM);
	/* Shrinking below the borrowed count is refused; destroy too, unless forced. */
	assert_int_equal(rdma_pool_resize(f->dev, p, 1, &err), -EPERM);
	assert_string_equal(err.field, "size");
	assert_int_equal(rdma_pool_destroy(f->dev, p, false, &err), -EBUSY);
	assert_int_equal(rdma_pool_return_all(f->dev, &owner1), 1);
	assert_int_equal(rdma_pool_available(p), 1);
	/* Shrinking keeps the borrowed one. */
	assert_int_equal(rdma_pool_resize(f->dev, p, 1, &err), 0);
	assert_ptr_equal(p->mkeys[0], b);
	assert_int_equal(rdma_pool_resize(f->dev, p, 3, &err), 0);
	assert_int_equal(rdma_pool_available(p), 2);
	assert_int_equal(rdma_pool_return(b, &owner2, &err), 0);
	assert_int_equal(p->returns, 2);
	assert_int_equal(p->high_water, 2);
	assert_int_equal(rdma_pool_destroy(f->dev, p, false, &err), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_max_entries_rounding),
		cmocka_unit_test(test_configure_persistence),
		cmocka_unit_test(test_refused_configure_changes_nothing),
		cmocka_unit_test(test_error_record_and_rearming),
		cmocka_unit_test(test_pool_counters),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
