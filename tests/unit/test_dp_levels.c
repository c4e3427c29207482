/* Differential test of the kernel levels (dataplane/offload/kern.h) through the whole engine:
 * random configurations (signature domains, masks, crypto), random inputs made valid by the
 * reverse direction and sometimes corrupted, run in both directions at every level this CPU
 * runs; every level must give the portable level's result, output bytes and mkey-check
 * records alike.  The portable level's own answers are the known ones of test_dp_sig. */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tests/unit/test_rng.h"

#include "dataplane/offload/kern.h"
#include "dataplane/offload/transform.h"
#include "dataplane/offload/xts.h"

#define CAP (40u * 4224u + 4096u)


static const uint32_t sizes[] = { 512, 520, 4048, 4096, 4160 };

static struct dp_sig_domain random_domain(void)
{
	struct dp_sig_domain d;

	memset(&d, 0, sizeof(d));
	d.block_size = sizes[rnd() % 5];
	switch (rnd() % 3) {
	case 0:
		d.sig_type = DP_SIG_NONE;
		break;
	case 1:
		d.sig_type = DP_SIG_T10DIF;
		d.t10dif.bg_type = rnd() % 3 ? DP_T10DIF_BG_CRC : DP_T10DIF_BG_CSUM;
		d.t10dif.bg = rnd() & 1 ? 0xffff : 0;
		d.t10dif.app_tag = (uint16_t)rnd();
		d.t10dif.ref_tag = (uint32_t)rnd();
		d.t10dif.flags = (uint16_t)(rnd() & DP_T10DIF_FLAGS_ALL);
		break;
	default:
		d.sig_type = DP_SIG_CRC;
		d.crc.type = (enum dp_crc_type)(rnd() % 3);
		if (rnd() & 1)
			d.crc.seed = d.crc.type == DP_CRC_CRC64_XP10 ? ~0ull : 0xffffffffull;
		break;
	}
	return d;
}

static void random_cfg(struct dp_transform_cfg *c)
{
	dp_transform_cfg_init(c);
	c->mem = random_domain();
	c->wire = rnd() % 4 ? random_domain() : c->mem;
	if (rnd() % 4 == 0)
		c->check_mask = (uint8_t)rnd();
	if (rnd() % 4 == 0) {
		c->copy_mask_set = true;
		c->copy_mask = (uint8_t)rnd();
	}
	if (rnd() % 3 == 0) {
		c->crypto.enabled = true;
		c->crypto.encrypt_on_tx = rnd() & 1;
		c->crypto.order = rnd() & 1 ? DP_SIG_BEFORE_CRYPTO_ON_TX : DP_SIG_AFTER_CRYPTO_ON_TX;
		c->crypto.data_unit_size = sizes[rnd() % 5];
		for (int i = 0; i < 16; i++)
			c->crypto.initial_tweak[i] = (uint8_t)rnd();
	}
}

struct result {
	int rc;
	size_t len;
	struct dp_sig_err xfer, rec;
};

static void run_at(struct dp_transform *t, enum dp_dir dir, const uint8_t *in, size_t in_len, uint8_t *out,
		   struct result *r)
{
	struct dp_error err;

	memset(r, 0, sizeof(*r));
	memset(out, 0x5a, CAP);
	r->rc = dp_transform_run(t, dir, in, in_len, out, CAP, &r->len, &r->xfer, &err);
	dp_transform_check(t, &r->rec);
}

static int one_case(uint8_t *raw, uint8_t *in, uint8_t *ref, uint8_t *out)
{
	struct dp_transform_cfg c;
	struct dp_transform *t;
	struct dp_error err;
	uint8_t key[64];
	size_t klen = rnd() & 1 ? 64 : 32, raw_len, in_len;
	enum dp_dir dir = rnd() & 1 ? DP_RX : DP_TX;
	struct result want, got;
	int compared = 0;

	for (size_t i = 0; i < sizeof(key); i++)
		key[i] = (uint8_t)rnd();
	random_cfg(&c);
	if (dp_transform_create(&c, c.crypto.enabled ? key : NULL, c.crypto.enabled ? klen : 0, &t, &err))
		return 0;
	/* whole blocks of some size, sometimes a short tail */
	raw_len = (1 + rnd() % 36) * sizes[rnd() % 5] / (1 + rnd() % 4);
	if (raw_len > CAP / 2)
		raw_len = CAP / 2;
	for (size_t i = 0; i < raw_len; i++)
		raw[i] = (uint8_t)rnd();
	/* a valid input: raw bytes through the other direction at the portable level */
	dp_kern_set_level(DP_KERN_PORTABLE);
	if (dp_transform_run(t, dir == DP_TX ? DP_RX : DP_TX, raw, raw_len, in, CAP, &in_len, NULL, &err)) {
		memcpy(in, raw, raw_len);
		in_len = raw_len;
	}
	dp_transform_check(t, &want.rec);
	if (in_len && rnd() % 3 == 0)
		in[rnd() % in_len] ^= (uint8_t)(1u << (rnd() % 8));
	run_at(t, dir, in, in_len, ref, &want);
	for (int l = DP_KERN_PORTABLE + 1; l < DP_KERN_LEVELS; l++) {
		if (!dp_kern_level_supported((enum dp_kern_level)l))
			continue;
		dp_kern_set_level((enum dp_kern_level)l);
		run_at(t, dir, in, in_len, out, &got);
		assert_int_equal(got.rc, want.rc);
		assert_int_equal(got.len, want.len);
		assert_memory_equal(out, ref, CAP);
		assert_memory_equal(&got.xfer, &want.xfer, sizeof(got.xfer));
		assert_memory_equal(&got.rec, &want.rec, sizeof(got.rec));
		compared = 1;
	}
	dp_transform_destroy(t);
	return compared && want.rc == 0;
}

static void test_levels_agree(void **state)
{
	uint8_t *raw = malloc(CAP), *in = malloc(CAP), *ref = malloc(CAP), *out = malloc(CAP);
	int old = dp_kern_level_in_use(), ran = 0;

	(void)state;
	test_rng_state = 0xD1B54A32D192ED03ull;
	assert_int_equal(dp_crypto_global_init(NULL), 0);
	for (int it = 0; it < 1500; it++)
		ran += one_case(raw, in, ref, out);
	dp_kern_set_level((enum dp_kern_level)old);
	/* enough of them got through to the kernels (not refused configurations or lengths) */
	if (dp_kern_level_supported(DP_KERN_PCLMUL))
		assert_true(ran > 400);
	free(raw);
	free(in);
	free(ref);
	free(out);
}

/* The levels test_levels_agree could not compare, this CPU lacking them: a skip with the
 * reason, never a silent one. */
static void test_levels_not_run(void **state)
{
	int missing = 0;

	(void)state;
	for (int l = DP_KERN_PORTABLE + 1; l < DP_KERN_LEVELS; l++)
		if (!dp_kern_level_usable((enum dp_kern_level)l)) {
			print_message("# skip level %s: %s\n", dp_kern_level_name((enum dp_kern_level)l),
				      dp_kern_level_selftest((enum dp_kern_level)l));
			missing++;
		}
	if (missing)
		skip();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_levels_agree),
		cmocka_unit_test(test_levels_not_run),
	};

	return cmocka_run_group_tests_name("offload kernel levels", tests, NULL, NULL);
}
