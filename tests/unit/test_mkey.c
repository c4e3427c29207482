/* SPDX-License-Identifier: MIT */
/*
 * daemon/verbs/mkey.c and daemon/verbs/pool.c below the API: the creation rule of
 * max_entries (reference §1.2), configure persistence and all-or-nothing
 * (§3.1-3.2), the signature-error record and its re-arming (§3.4-3.5), the
 * pool counters (§6.1), a pool's pending changes and their undoing, and plain
 * MKEYs (no flag): their bytes through list and interleaved layouts, by the
 * daemon and by the NIC's context.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "daemon/soft/soft_device.h"
#include "daemon/verbs/mkey.h"
#include "daemon/verbs/mkey_int.h"
#include "daemon/verbs/mr.h"
#include "daemon/verbs/pool.h"
#include "dataplane/keytab.h"

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
	/* Unknown flag bits are refused (EOPNOTSUPP in rdma-core); none is INDIRECT alone, a plain MKEY. */
	assert_int_equal(rdma_mkey_create(f->dev, f->pd, 1u << 3, 4, &m, &err), -EINVAL);
	assert_string_equal(err.field, "flags");
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
	/* Counted by type: whatever types the six were, they add up to six. */
	uint64_t transfers, by_type[DP_SIG_ERR_APPTAG + 1];

	rdma_mkey_counts(m, &transfers, by_type);
	assert_int_equal(by_type[DP_SIG_ERR_GUARD] + by_type[DP_SIG_ERR_REFTAG] + by_type[DP_SIG_ERR_APPTAG], 6);
}

/* One piece of MR memory an MKEY covers, as the test spells it out by hand. */
struct piece {
	uint64_t offset, length;
};

/* The bytes of the pieces in order: what the layout must give, known without walking it. */
static size_t expected_bytes(const uint8_t *mem, const struct piece *p, unsigned n, uint8_t *out)
{
	size_t len = 0;

	for (unsigned i = 0; i < n; i++) {
		memcpy(out + len, mem + p[i].offset, p[i].length);
		len += p[i].length;
	}
	return len;
}

/*
 * A plain MKEY's TX gives the pieces' bytes in order, its RX puts them back
 * there, and the NIC's context gathers and scatters any span of them.
 */
static void check_plain_bytes(struct fixture *f, struct rdma_mkey *m, const struct piece *p, unsigned n)
{
	uint8_t want[512], back[512], *mem = f->mr->addr, *out;
	struct dp_mkey *ctx = dp_mkey_new(0);
	struct dp_mkey_span span;
	struct rdma_error err;
	struct dp_sig_err x;
	size_t len, got;

	for (size_t i = 0; i < f->mr->length; i++)
		mem[i] = (uint8_t)(i * 7 + 3);
	len = expected_bytes(mem, p, n, want);
	assert_int_equal(rdma_mkey_length(m), len);
	assert_int_equal(rdma_mkey_tx(f->dev, m, &out, &got, &x, &err), 0);
	assert_int_equal(got, len);
	assert_memory_equal(out, want, len);
	assert_int_equal(x.type, DP_SIG_ERR_NONE);
	free(out);

	/* RX scatters new bytes to the same places and nowhere else. */
	for (size_t i = 0; i < len; i++)
		want[i] = (uint8_t)~want[i];
	assert_int_equal(rdma_mkey_rx(f->dev, m, want, len, &got, &x, &err), 0);
	assert_int_equal(got, len);
	assert_int_equal(expected_bytes(mem, p, n, back), len);
	assert_memory_equal(back, want, len);
	assert_int_equal(mem[f->mr->length - 1], (uint8_t)((f->mr->length - 1) * 7 + 3));

	/* The NIC's context: no transform; a span from byte 3 gathers the same bytes. */
	assert_non_null(ctx);
	assert_int_equal(mkey_layout_context(m, ctx), 0);
	ctx->usable = true;
	ctx->pd = m->pd->handle;
	ctx->access = m->access;
	assert_int_equal(dp_mkey_span(ctx, 0, ctx->pd, 0, 3, len - 3, len, &span), 0);
	assert_int_equal(span.mem_length, len - 3);
	dp_mkey_gather(&span, back);
	assert_memory_equal(back, want + 3, len - 3);
	for (size_t i = 0; i < len; i++)
		want[i] ^= 0x5a;
	dp_mkey_scatter(&span, want + 3);
	assert_int_equal(expected_bytes(mem, p, n, back), len);
	assert_memory_equal(back + 3, want + 3, len - 3);
	assert_memory_not_equal(back, want, 3);
	/* Access the MKEY was not given is refused. */
	assert_int_equal(dp_mkey_span(ctx, 0, ctx->pd, DP_ACCESS_REMOTE_WRITE, 0, len, len, &span), -EPERM);
	dp_mkey_free(ctx);
}

static void test_plain_mkey(void **state)
{
	struct fixture *f = *state;
	struct rdma_mkey *m = new_mkey(f, 0);
	uint32_t mr = f->mr->obj.handle;
	struct rdma_mkey_entry list[3] = {
		{ .mr = mr, .offset = 100, .length = 5 }, { .mr = mr, .offset = 4000, .length = 3 },
		{ .mr = mr, .offset = 10, .length = 7 },
	};
	/* Interleaved, 3 rounds: 4 bytes at 0 then 2 skipped; 3 bytes at 1000 then 5 skipped. */
	struct rdma_mkey_entry il[2] = {
		{ .mr = mr, .offset = 0, .length = 4, .skip = 2 }, { .mr = mr, .offset = 1000, .length = 3, .skip = 5 },
	};
	const struct piece list_pieces[] = { { 100, 5 }, { 4000, 3 }, { 10, 7 } };
	const struct piece il_pieces[] = {
		{ 0, 4 }, { 1000, 3 }, { 6, 4 }, { 1008, 3 }, { 12, 4 }, { 1016, 3 },
	};
	struct rdma_mkey_conf c;
	struct dp_sig_err rec;
	struct rdma_error err;

	assert_int_equal(m->flags, 0);
	assert_false(m->configured);
	/* A layout and access only. */
	rdma_mkey_conf_init(&c);
	c.set_layout = true;
	c.layout = (struct rdma_mkey_layout){ .type = RDMA_LAYOUT_LIST, .n = 3, .entries = list };
	c.set_access = true;
	c.access = RDMA_MKEY_ACCESS_LOCAL_WRITE | RDMA_MKEY_ACCESS_REMOTE_READ;
	assert_int_equal(rdma_mkey_configure(f->dev, m, &c, &err), 0);
	assert_true(m->configured);
	assert_null(m->transform);
	assert_int_equal(mkey_check_usable(f->dev, m, &err), 0);
	check_plain_bytes(f, m, list_pieces, 3);

	c.layout = (struct rdma_mkey_layout){ .type = RDMA_LAYOUT_INTERLEAVED, .repeat_count = 3, .n = 2,
					      .entries = il };
	assert_int_equal(rdma_mkey_configure(f->dev, m, &c, &err), 0);
	check_plain_bytes(f, m, il_pieces, 6);

	/* Signature and crypto setters are refused, naming the field; nothing changes. */
	rdma_mkey_conf_init(&c);
	t10dif_wire(&c, 1);
	assert_int_equal(rdma_mkey_configure(f->dev, m, &c, &err), -EINVAL);
	assert_string_equal(err.field, "config.wire");
	rdma_mkey_conf_init(&c);
	c.set_crypto = true;
	c.cfg.crypto.enabled = true;
	c.cfg.crypto.data_unit_size = 512;
	c.crypto.dek = 1;
	assert_int_equal(rdma_mkey_configure(f->dev, m, &c, &err), -EINVAL);
	assert_string_equal(err.field, "config.crypto");
	assert_int_equal(m->configures, 2);
	assert_int_equal(m->layout.type, RDMA_LAYOUT_INTERLEAVED);
	assert_null(m->transform);
	/* No signature, nothing to check. */
	assert_int_equal(rdma_mkey_check(m, &rec, &err), -EINVAL);
	assert_string_equal(err.field, "handle");
	assert_int_equal(rdma_mkey_destroy(f->dev, m->obj.handle, &err), 0);
}

static void test_pool_counters(void **state)
{
	struct fixture *f = *state;
	struct rdma_mkey *a, *b, *c;
	struct rdma_pool *p;
	struct rdma_error err;
	int owner1, owner2;

	/* No pool of plain MKEYs (docs/decisions.md): the type names an offload. */
	assert_int_equal(rdma_pool_create(f->dev, "p", 0, 2, 0, 16, &p, &err), -EINVAL);
	assert_string_equal(err.field, "type");
	assert_int_equal(rdma_pool_create(f->dev, "p", RDMA_MKEY_BLOCK_SIGNATURE, 2, 0, 16, &p, &err), 0);
	rdma_pool_settle(f->dev, p);
	assert_true(p->own_pd);
	assert_int_equal(p->max_entries, 16);
	assert_int_equal(rdma_pool_borrow(p, &owner1, NULL, &a, &err), 0);
	assert_int_equal(rdma_pool_borrow(p, &owner2, NULL, &b, &err), 0);
	assert_ptr_not_equal(a, b);
	assert_int_equal(rdma_pool_borrow(p, &owner1, NULL, &c, &err), -EPERM);
	assert_int_equal(p->borrow_failures, 1);
	assert_int_equal(p->high_water, 2);
	/* Not yours to return. */
	assert_int_equal(rdma_pool_return(a, &owner2, NULL, &err), -EPERM);
	/* Shrinking below the borrowed count is refused; destroy too, unless forced. */
	assert_int_equal(rdma_pool_resize(f->dev, p, 1, &err), -EPERM);
	assert_string_equal(err.field, "size");
	assert_int_equal(rdma_pool_destroy(f->dev, p, false, &err), -EBUSY);
	assert_int_equal(rdma_pool_return_all(f->dev, &owner1), 1);
	assert_int_equal(rdma_pool_available(p), 1);
	/* Shrinking keeps the borrowed one. */
	assert_int_equal(rdma_pool_resize(f->dev, p, 1, &err), 0);
	rdma_pool_settle(f->dev, p);
	assert_ptr_equal(p->mkeys[0], b);
	assert_int_equal(rdma_pool_resize(f->dev, p, 3, &err), 0);
	rdma_pool_settle(f->dev, p);
	assert_int_equal(rdma_pool_available(p), 2);
	assert_int_equal(rdma_pool_return(b, &owner2, NULL, &err), 0);
	assert_int_equal(p->returns, 2);
	assert_int_equal(p->high_water, 2);
	assert_int_equal(rdma_pool_destroy(f->dev, p, false, &err), 0);
	rdma_pool_settle(f->dev, p);
	assert_null(rdma_pool_find(f->dev, "p", &err));
}

/* A borrow under an owner name outlives connections: returned only with that name. */
static void test_pool_owner_names(void **state)
{
	struct fixture *f = *state;
	struct rdma_mkey *a, *b;
	struct rdma_pool *p;
	struct rdma_error err;
	int conn1, conn2;

	assert_int_equal(rdma_pool_create(f->dev, "o", RDMA_MKEY_CRYPTO, 2, 0, 4, &p, &err), 0);
	rdma_pool_settle(f->dev, p);
	assert_int_equal(rdma_pool_borrow(p, &conn1, "bad name", &a, &err), -EINVAL);
	assert_string_equal(err.field, "owner");
	assert_int_equal(p->borrows, 0);
	assert_int_equal(rdma_pool_borrow(p, &conn1, "job-7@host:1", &a, &err), 0);
	assert_int_equal(rdma_pool_holder(a), RDMA_POOL_HOLDER_OWNER);
	assert_string_equal(a->owner, "job-7@host:1");
	assert_int_equal(rdma_pool_borrow(p, &conn1, NULL, &b, &err), 0);
	assert_int_equal(rdma_pool_holder(b), RDMA_POOL_HOLDER_CONNECTION);
	/* The borrowing connection going away leaves the named one borrowed. */
	assert_int_equal(rdma_pool_return_all(f->dev, &conn1), 1);
	assert_int_equal(rdma_pool_holder(b), RDMA_POOL_HOLDER_NONE);
	assert_int_equal(p->borrowed, 1);
	/* Any connection returns it, with the name; not without it, not with another. */
	assert_int_equal(rdma_pool_return(a, &conn2, NULL, &err), -EPERM);
	assert_string_equal(err.field, "owner");
	assert_int_equal(rdma_pool_return(a, &conn2, "job-8", &err), -EPERM);
	assert_string_equal(err.field, "owner");
	assert_int_equal(rdma_pool_return(a, &conn2, "job-7@host:1", &err), 0);
	assert_null(a->owner);
	assert_int_equal(p->borrowed, 0);
	/* A connection's MKEY is not returned under a name. */
	assert_int_equal(rdma_pool_borrow(p, &conn2, NULL, &b, &err), 0);
	assert_int_equal(rdma_pool_return(b, &conn2, "job-7", &err), -EPERM);
	assert_string_equal(err.field, "owner");
	/* A forced destroy takes named borrows back too (and frees their names). */
	assert_int_equal(rdma_pool_borrow(p, &conn2, "job-9", &a, &err), 0);
	assert_int_equal(rdma_pool_destroy(f->dev, p, true, &err), 0);
	assert_null(a->owner);
	rdma_pool_settle(f->dev, p);
}

/* MKEYs of the device's table: what a pool's undo must give back exactly. */
static uint32_t mkey_count(struct fixture *f)
{
	return f->dev->tables[RDMA_OBJ_MKEY].count;
}

/*
 * A pool's change stays pending until it is saved: then settled, or undone
 * when the state file could not be written.  Undoing needs nothing that could
 * be missing: what a change frees is kept until it settles, what it adds is
 * not lent before, and a pool being created or destroyed lends nothing.
 */
static void test_pool_pending(void **state)
{
	struct fixture *f = *state;
	uint32_t mkeys = mkey_count(f), pds = f->dev->tables[RDMA_OBJ_PD].count;
	struct rdma_mkey *a, *b, *kept[4];
	struct rdma_error err;
	struct rdma_pool *p;
	int owner;

	/* A refused create leaves nothing: no pool, no MKEY, no PD of its own. */
	assert_int_equal(rdma_pool_create(f->dev, "q", RDMA_MKEY_CRYPTO, 3, 0, 4, &p, &err), 0);
	assert_int_equal(p->pending, RDMA_POOL_CREATING);
	assert_int_equal(rdma_pool_borrow(p, &owner, NULL, &a, &err), -EPERM);
	assert_string_equal(err.field, "name");
	assert_non_null(strstr(err.reason, "being created"));
	assert_int_equal(p->borrow_failures, 0);
	assert_int_equal(rdma_pool_resize(f->dev, p, 4, &err), -EPERM);
	rdma_pool_undo(f->dev, p);
	assert_null(rdma_pool_find(f->dev, "q", &err));
	assert_int_equal(mkey_count(f), mkeys);
	assert_int_equal(f->dev->tables[RDMA_OBJ_PD].count, pds);

	assert_int_equal(rdma_pool_create(f->dev, "q", RDMA_MKEY_CRYPTO, 3, 0, 4, &p, &err), 0);
	rdma_pool_settle(f->dev, p);
	memcpy(kept, p->mkeys, 3 * sizeof(*kept));
	assert_int_equal(rdma_pool_borrow(p, &owner, NULL, &a, &err), 0);

	/* Growing: the size is there at once, the new MKEYs are lent once saved. */
	assert_int_equal(rdma_pool_resize(f->dev, p, 5, &err), 0);
	assert_int_equal(p->size, 5);
	assert_int_equal(rdma_pool_available(p), 2);
	assert_int_equal(rdma_pool_borrow(p, &owner, NULL, &b, &err), 0);
	assert_int_equal(rdma_pool_borrow(p, &owner, NULL, &b, &err), 0);
	assert_int_equal(rdma_pool_borrow(p, &owner, NULL, &b, &err), -EPERM);
	assert_non_null(strstr(err.reason, "lent once it is saved"));
	rdma_pool_undo(f->dev, p);
	assert_int_equal(p->size, 3);
	assert_int_equal(mkey_count(f), mkeys + 3);
	assert_memory_equal(p->mkeys, kept, 3 * sizeof(*kept));
	assert_int_equal(rdma_pool_return_all(f->dev, &owner), 3);

	/* Shrinking: the MKEYs removed are kept, unlent, until saved; undone, the same ones are back. */
	assert_int_equal(rdma_pool_resize(f->dev, p, 1, &err), 0);
	assert_int_equal(p->size, 1);
	assert_int_equal(mkey_count(f), mkeys + 3);
	assert_int_equal(rdma_pool_borrow(p, &owner, NULL, &a, &err), 0);
	assert_int_equal(rdma_pool_borrow(p, &owner, NULL, &b, &err), -EPERM);
	assert_int_equal(rdma_pool_destroy(f->dev, p, true, &err), -EPERM);
	assert_non_null(strstr(err.reason, "being resized"));
	rdma_pool_undo(f->dev, p);
	assert_int_equal(p->size, 3);
	assert_int_equal(rdma_pool_available(p), 2);
	assert_int_equal(rdma_pool_resize(f->dev, p, 2, &err), 0);
	rdma_pool_settle(f->dev, p);
	assert_int_equal(mkey_count(f), mkeys + 2);

	/*
	 * Destroying: a forced destroy takes the borrowed MKEY back at once; the
	 * pool lends nothing, its name is not free, and undone it is whole again.
	 */
	assert_int_equal(rdma_pool_destroy(f->dev, p, true, &err), 0);
	assert_int_equal(p->borrowed, 0);
	assert_null(a->borrower);
	assert_int_equal(rdma_pool_borrow(p, &owner, NULL, &a, &err), -EPERM);
	assert_non_null(strstr(err.reason, "being destroyed"));
	assert_int_equal(rdma_pool_create(f->dev, "q", RDMA_MKEY_CRYPTO, 1, 0, 4, &p, &err), -EPERM);
	assert_string_equal(err.field, "name");
	p = rdma_pool_find(f->dev, "q", &err);
	rdma_pool_undo(f->dev, p);
	assert_int_equal(rdma_pool_available(p), 2);
	assert_int_equal(mkey_count(f), mkeys + 2);
	assert_int_equal(rdma_pool_destroy(f->dev, p, false, &err), 0);
	rdma_pool_settle(f->dev, p);
	assert_null(rdma_pool_find(f->dev, "q", &err));
	assert_int_equal(mkey_count(f), mkeys);
	assert_int_equal(f->dev->tables[RDMA_OBJ_PD].count, pds);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_max_entries_rounding),
		cmocka_unit_test(test_configure_persistence),
		cmocka_unit_test(test_refused_configure_changes_nothing),
		cmocka_unit_test(test_error_record_and_rearming),
		cmocka_unit_test(test_pool_counters),
		cmocka_unit_test(test_pool_pending),
		cmocka_unit_test(test_pool_owner_names),
		cmocka_unit_test(test_plain_mkey),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
