/* The transform engine: signature insert/strip/check per domain, error records, masks, copy
 * rules, escapes, re-blocking, and rows A-J of seed 001 with AES-XTS.
 *
 * Expected bytes are built here independently of the engine: guards with ISA-L called directly
 * (and CRC-64/NVME bit by bit from its definition), fields laid out per reference §2 and the
 * decisions of docs/offload.md, encryption with libgcrypt called directly, one setiv per unit. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <gcrypt.h>
#include <isa-l/crc.h>

#include "dataplane/offload/transform.h"
#include "dataplane/offload/xts.h"

/* ---------------------------------------------------------------- reference helpers */

static const uint32_t block_sizes[] = { 512, 520, 4048, 4096, 4160 };

static void put_be(uint8_t *p, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
}

static void put_le(uint8_t *p, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t crc64_nvme_bitwise(uint64_t seed, const uint8_t *p, size_t n)
{
	uint64_t reg = seed;

	while (n--) {
		reg ^= *p++;
		for (int i = 0; i < 8; i++)
			reg = (reg >> 1) ^ ((reg & 1) ? 0x9A6C9329AC4BC9B5ull : 0);
	}
	return ~reg;
}

static uint16_t csum_ref(uint16_t bg, const uint8_t *p, size_t n)
{
	uint32_t s = bg;

	for (size_t i = 0; i + 1 < n; i += 2) {
		s += (uint32_t)p[i] << 8 | p[i + 1];
		s = (s & 0xffff) + (s >> 16);
	}
	return (uint16_t)~s;
}

static unsigned fsize(const struct dp_sig_domain *d)
{
	if (d->sig_type == DP_SIG_NONE)
		return 0;
	if (d->sig_type == DP_SIG_T10DIF || d->crc.type == DP_CRC_CRC64_XP10)
		return 8;
	return 4;
}

static uint64_t ref_guard(const struct dp_sig_domain *d, const uint8_t *data, size_t n)
{
	if (d->sig_type == DP_SIG_T10DIF)
		return d->t10dif.bg_type == DP_T10DIF_BG_CRC ? crc16_t10dif(d->t10dif.bg, data, n)
							      : csum_ref(d->t10dif.bg, data, n);
	switch (d->crc.type) {
	case DP_CRC_CRC32:  return crc32_ieee(~(uint32_t)d->crc.seed, data, n);
	case DP_CRC_CRC32C: return ~crc32_iscsi((unsigned char *)data, (int)n, (uint32_t)d->crc.seed) & 0xffffffffu;
	default:            return crc64_nvme_bitwise(d->crc.seed, data, n);
	}
}

/* The field for block k as the decisions lay it out. */
static void ref_field(const struct dp_sig_domain *d, const uint8_t *data, size_t n, uint64_t k, uint8_t *f)
{
	uint64_t g = ref_guard(d, data, n);

	if (d->sig_type == DP_SIG_T10DIF) {
		put_be(f, g, 2);
		put_be(f + 2, d->t10dif.app_tag, 2);
		put_be(f + 4, (d->t10dif.flags & DP_T10DIF_FLAG_REF_REMAP) ? (uint32_t)(d->t10dif.ref_tag + k)
									    : d->t10dif.ref_tag, 4);
	} else if (d->crc.type == DP_CRC_CRC32) {
		put_be(f, g, 4);
	} else if (d->crc.type == DP_CRC_CRC32C) {
		put_le(f, g, 4);
	} else {
		put_le(f, g, 8);
	}
}

/* data (dlen bytes) -> blocks of domain d with fields; a short last block keeps no field. */
static size_t ref_protect(const struct dp_sig_domain *d, const uint8_t *data, size_t dlen, uint8_t *out)
{
	size_t o = 0;
	uint64_t k = 0;

	if (d->sig_type == DP_SIG_NONE) {
		memcpy(out, data, dlen);
		return dlen;
	}
	for (size_t i = 0; i < dlen; i += d->block_size, k++) {
		size_t n = dlen - i < d->block_size ? dlen - i : d->block_size;

		memcpy(out + o, data + i, n);
		o += n;
		if (n == d->block_size) {
			ref_field(d, data + i, n, k, out + o);
			o += fsize(d);
		}
	}
	return o;
}

static void ref_xts(bool enc, const uint8_t *key, size_t klen, const uint8_t tweak0[16], uint32_t dus,
		    uint8_t *buf, size_t len)
{
	gcry_cipher_hd_t h;
	uint8_t tw[16];
	uint64_t j = 0;

	assert_int_equal(gcry_cipher_open(&h, klen == 32 ? GCRY_CIPHER_AES128 : GCRY_CIPHER_AES256,
					  GCRY_CIPHER_MODE_XTS, 0), 0);
	assert_int_equal(gcry_cipher_setkey(h, key, klen), 0);
	for (size_t i = 0; i < len; i += dus, j++) {
		size_t n = len - i < dus ? len - i : dus;
		unsigned carry = 0;
		uint64_t add = j;

		memcpy(tw, tweak0, 16);
		for (int b = 0; b < 16; b++) {      /* tw = tweak0 + j, 128-bit little-endian */
			unsigned v = tw[b] + (unsigned)(add & 0xff) + carry;

			tw[b] = (uint8_t)v;
			carry = v >> 8;
			add >>= 8;
		}
		assert_int_equal(gcry_cipher_setiv(h, tw, 16), 0);
		if (enc)
			assert_int_equal(gcry_cipher_encrypt(h, buf + i, n, NULL, 0), 0);
		else
			assert_int_equal(gcry_cipher_decrypt(h, buf + i, n, NULL, 0), 0);
	}
	gcry_cipher_close(h);
}

static void fill_data(uint8_t *b, size_t n, unsigned seed)
{
	uint32_t x = seed * 2654435761u + 12345;

	for (size_t i = 0; i < n; i++) {
		x = x * 1103515245u + 12345;
		b[i] = (uint8_t)(x >> 16);
	}
}

static struct dp_sig_domain t10(uint32_t bs, enum dp_t10dif_bg_type bgt, uint16_t bg, uint16_t app,
				uint32_t ref, uint16_t flags)
{
	struct dp_sig_domain d;

	memset(&d, 0, sizeof(d));
	d.sig_type = DP_SIG_T10DIF;
	d.block_size = bs;
	d.t10dif.bg_type = bgt;
	d.t10dif.bg = bg;
	d.t10dif.app_tag = app;
	d.t10dif.ref_tag = ref;
	d.t10dif.flags = flags;
	return d;
}

static struct dp_sig_domain crcd(uint32_t bs, enum dp_crc_type type, uint64_t seed)
{
	struct dp_sig_domain d;

	memset(&d, 0, sizeof(d));
	d.sig_type = DP_SIG_CRC;
	d.block_size = bs;
	d.crc.type = type;
	d.crc.seed = seed;
	return d;
}

static struct dp_transform *mk(const struct dp_transform_cfg *cfg, const uint8_t *key, size_t klen)
{
	struct dp_transform *t = NULL;
	struct dp_error err;
	int rc = dp_transform_create(cfg, key, klen, &t, &err);

	if (rc)
		print_error("create: %s: %s\n", err.field, err.message);
	assert_int_equal(rc, 0);
	return t;
}

/* run and return output length; asserts success */
static size_t run(struct dp_transform *t, enum dp_dir dir, const uint8_t *in, size_t n, uint8_t *out,
		  size_t cap, struct dp_sig_err *e)
{
	struct dp_error err;
	size_t olen = 0, want = 0;
	int rc;

	assert_int_equal(dp_transform_out_len(t, dir, n, &want, &err), 0);
	rc = dp_transform_run(t, dir, in, n, out, cap, &olen, e, &err);
	if (rc)
		print_error("run: %s: %s\n", err.field, err.message);
	assert_int_equal(rc, 0);
	assert_int_equal(olen, want);
	return olen;
}

static void cfg_sig(struct dp_transform_cfg *c, const struct dp_sig_domain *mem, const struct dp_sig_domain *wire)
{
	dp_transform_cfg_init(c);
	if (mem)
		c->mem = *mem;
	if (wire)
		c->wire = *wire;
}

#define BUF (8 * 4168 + 64)

/* ---------------------------------------------------------------- §2.8 known answers */

static void expect_field_tx(const struct dp_sig_domain *wire, uint8_t byte, const uint8_t *want, unsigned flen)
{
	struct dp_transform_cfg c;
	struct dp_transform *t;
	static uint8_t in[512], out[600];
	struct dp_sig_err e;

	memset(in, byte, 512);
	cfg_sig(&c, NULL, wire);
	t = mk(&c, NULL, 0);
	assert_int_equal(run(t, DP_TX, in, 512, out, sizeof(out), &e), 512 + flen);
	assert_memory_equal(out, in, 512);
	assert_memory_equal(out + 512, want, flen);
	assert_int_equal(e.type, DP_SIG_ERR_NONE);
	/* and back: RX checks and strips it without error */
	assert_int_equal(run(t, DP_RX, out, 512 + flen, in, sizeof(in), &e), 512);
	assert_int_equal(e.type, DP_SIG_ERR_NONE);
	dp_transform_destroy(t);
}

static void test_kat_fields(void **state)
{
	struct dp_sig_domain d;

	(void)state;
	/* [EX] pipelining_example: 512 x 0xA5, bg 0xFFFF, app 0x5678, ref 0xf0debc9a -> ec7d5678f0debc9a */
	d = t10(512, DP_T10DIF_BG_CRC, 0xffff, 0x5678, 0xf0debc9a, 0);
	expect_field_tx(&d, 0xA5, (const uint8_t[]){ 0xec, 0x7d, 0x56, 0x78, 0xf0, 0xde, 0xbc, 0x9a }, 8);
	/* IP checksum guard 512 x 0xA5 -> 0x5A5A, stored big-endian */
	d = t10(512, DP_T10DIF_BG_CSUM, 0, 0, 0, 0);
	expect_field_tx(&d, 0xA5, (const uint8_t[]){ 0x5a, 0x5a, 0, 0, 0, 0, 0, 0 }, 8);
	/* [EX] CRC32 seed 0 over 512 x 0x01 = 0x15D286F7, stored big-endian */
	d = crcd(512, DP_CRC_CRC32, 0);
	expect_field_tx(&d, 0x01, (const uint8_t[]){ 0x15, 0xd2, 0x86, 0xf7 }, 4);
	d = crcd(512, DP_CRC_CRC32, 0xffffffff);
	expect_field_tx(&d, 0x01, (const uint8_t[]){ 0xf4, 0x83, 0x2c, 0x45 }, 4);
	/* CRC32C seed ~0 over 512 zero bytes = 0x30FCEDC0, stored little-endian */
	d = crcd(512, DP_CRC_CRC32C, 0xffffffff);
	expect_field_tx(&d, 0x00, (const uint8_t[]){ 0xc0, 0xed, 0xfc, 0x30 }, 4);
	/* CRC64_XP10 seed ~0 over 512 zero bytes = 0x1DE60E2868A782E9, stored little-endian */
	d = crcd(512, DP_CRC_CRC64_XP10, ~0ull);
	expect_field_tx(&d, 0x00, (const uint8_t[]){ 0xe9, 0x82, 0xa7, 0x68, 0x28, 0x0e, 0xe6, 0x1d }, 8);
}

/* ---------------------------------------------------------------- every type x seed x size */

static void roundtrip_domain(const struct dp_sig_domain *d, unsigned nblocks)
{
	static uint8_t data[BUF], wire[BUF], got[BUF], back[BUF];
	struct dp_transform_cfg c;
	struct dp_transform *t;
	struct dp_sig_err e;
	size_t dlen = (size_t)nblocks * d->block_size, wlen;

	fill_data(data, dlen, d->block_size + d->sig_type);
	wlen = ref_protect(d, data, dlen, wire);
	/* memory: none, wire: d.  TX inserts, RX checks and strips */
	cfg_sig(&c, NULL, d);
	t = mk(&c, NULL, 0);
	assert_int_equal(run(t, DP_TX, data, dlen, got, BUF, &e), wlen);
	assert_memory_equal(got, wire, wlen);
	assert_int_equal(run(t, DP_RX, wire, wlen, back, BUF, &e), dlen);
	assert_memory_equal(back, data, dlen);
	assert_int_equal(e.type, DP_SIG_ERR_NONE);
	/* a flipped data bit in the last block -> GUARD at that block's offset */
	wire[wlen - fsize(d) - 1] ^= 0x10;
	run(t, DP_RX, wire, wlen, back, BUF, &e);
	assert_int_equal(e.type, DP_SIG_ERR_GUARD);
	assert_int_equal(e.offset, (uint64_t)(nblocks - 1) * (d->block_size + fsize(d)));
	assert_true(e.actual == ref_guard(d, wire + wlen - fsize(d) - d->block_size, d->block_size));
	dp_transform_destroy(t);
	/* memory: d, wire: none.  TX checks and strips, RX inserts */
	cfg_sig(&c, d, NULL);
	t = mk(&c, NULL, 0);
	wire[wlen - fsize(d) - 1] ^= 0x10;
	assert_int_equal(run(t, DP_TX, wire, wlen, back, BUF, &e), dlen);
	assert_memory_equal(back, data, dlen);
	assert_int_equal(e.type, DP_SIG_ERR_NONE);
	assert_int_equal(run(t, DP_RX, data, dlen, got, BUF, &e), wlen);
	assert_memory_equal(got, wire, wlen);
	dp_transform_destroy(t);
}

static void test_all_crc_types_seeds_sizes(void **state)
{
	(void)state;
	for (size_t b = 0; b < 5; b++) {
		roundtrip_domain(&(struct dp_sig_domain){ .sig_type = DP_SIG_CRC, .block_size = block_sizes[b],
			.crc = { DP_CRC_CRC32, 0 } }, 3);
		roundtrip_domain(&(struct dp_sig_domain){ .sig_type = DP_SIG_CRC, .block_size = block_sizes[b],
			.crc = { DP_CRC_CRC32, 0xffffffff } }, 3);
		roundtrip_domain(&(struct dp_sig_domain){ .sig_type = DP_SIG_CRC, .block_size = block_sizes[b],
			.crc = { DP_CRC_CRC32C, 0 } }, 3);
		roundtrip_domain(&(struct dp_sig_domain){ .sig_type = DP_SIG_CRC, .block_size = block_sizes[b],
			.crc = { DP_CRC_CRC32C, 0xffffffff } }, 3);
		roundtrip_domain(&(struct dp_sig_domain){ .sig_type = DP_SIG_CRC, .block_size = block_sizes[b],
			.crc = { DP_CRC_CRC64_XP10, 0 } }, 3);
		roundtrip_domain(&(struct dp_sig_domain){ .sig_type = DP_SIG_CRC, .block_size = block_sizes[b],
			.crc = { DP_CRC_CRC64_XP10, ~0ull } }, 3);
	}
}

static void test_all_t10dif_guards_sizes(void **state)
{
	(void)state;
	for (size_t b = 0; b < 5; b++)
		for (int bgt = 0; bgt < 2; bgt++) {
			struct dp_sig_domain d0 = t10(block_sizes[b], bgt, 0, 0x1234, 100, DP_T10DIF_FLAG_REF_REMAP);
			struct dp_sig_domain d1 = t10(block_sizes[b], bgt, 0xffff, 0xbeef, 0xfffffffe,
						      DP_T10DIF_FLAG_REF_REMAP);   /* ref tag wraps */
			struct dp_sig_domain d2 = t10(block_sizes[b], bgt, 0xffff, 7, 42, 0);

			roundtrip_domain(&d0, 4);
			roundtrip_domain(&d1, 4);
			roundtrip_domain(&d2, 2);
		}
}

/* ---------------------------------------------------------------- error records */

struct errfix {
	struct dp_sig_domain d;
	struct dp_transform *t;
	uint8_t data[4 * 512], wire[4 * 520], out[4 * 520];
};

static void errfix_init(struct errfix *f, uint16_t flags, uint8_t check_mask)
{
	struct dp_transform_cfg c;

	f->d = t10(512, DP_T10DIF_BG_CRC, 0xffff, 0x5678, 1000, flags);
	fill_data(f->data, sizeof(f->data), 9);
	ref_protect(&f->d, f->data, sizeof(f->data), f->wire);
	cfg_sig(&c, NULL, &f->d);
	c.check_mask = check_mask;
	f->t = mk(&c, NULL, 0);
}

static void test_error_types_and_order(void **state)
{
	struct errfix f;
	struct dp_sig_err e, rec;
	uint8_t *blk2;

	(void)state;
	errfix_init(&f, DP_T10DIF_FLAG_REF_REMAP, 0xff);
	blk2 = f.wire + 2 * 520;
	/* data bit -> GUARD: expected = found in the field, actual = computed; bytes delivered */
	blk2[100] ^= 1;
	assert_int_equal(run(f.t, DP_RX, f.wire, sizeof(f.wire), f.out, sizeof(f.out), &e), sizeof(f.data));
	assert_int_equal(e.type, DP_SIG_ERR_GUARD);
	assert_int_equal(e.expected, (uint64_t)(blk2[512] << 8 | blk2[513]));
	assert_int_equal(e.actual, crc16_t10dif(0xffff, blk2, 512));
	assert_int_equal(e.offset, 2 * 520);
	assert_memory_equal(f.out + 1024, blk2, 512);          /* delivered as received */
	blk2[100] ^= 1;
	/* app tag -> APPTAG: expected = configured, actual = found */
	blk2[512 + 3] ^= 0x01;
	run(f.t, DP_RX, f.wire, sizeof(f.wire), f.out, sizeof(f.out), &e);
	assert_int_equal(e.type, DP_SIG_ERR_APPTAG);
	assert_int_equal(e.expected, 0x5678);
	assert_int_equal(e.actual, 0x5679);
	assert_int_equal(e.offset, 2 * 520);
	/* app + ref wrong -> APPTAG first */
	blk2[512 + 7] ^= 0x01;
	run(f.t, DP_RX, f.wire, sizeof(f.wire), f.out, sizeof(f.out), &e);
	assert_int_equal(e.type, DP_SIG_ERR_APPTAG);
	/* guard + app + ref wrong -> GUARD first */
	blk2[512] ^= 0x80;
	run(f.t, DP_RX, f.wire, sizeof(f.wire), f.out, sizeof(f.out), &e);
	assert_int_equal(e.type, DP_SIG_ERR_GUARD);
	blk2[512] ^= 0x80;
	blk2[512 + 3] ^= 0x01;
	/* ref only -> REFTAG: expected = ref_tag + block index (REF_REMAP), actual = found */
	run(f.t, DP_RX, f.wire, sizeof(f.wire), f.out, sizeof(f.out), &e);
	assert_int_equal(e.type, DP_SIG_ERR_REFTAG);
	assert_int_equal(e.expected, 1002);
	assert_int_equal(e.actual, 1002 ^ 1);
	/* an earlier block's error is the one reported */
	f.wire[0 * 520 + 10] ^= 4;
	run(f.t, DP_RX, f.wire, sizeof(f.wire), f.out, sizeof(f.out), &e);
	assert_int_equal(e.type, DP_SIG_ERR_GUARD);
	assert_int_equal(e.offset, 0);
	/* mkey-check record: the first error (the GUARD of the first faulty transfer), read and cleared */
	dp_transform_check(f.t, &rec);
	assert_int_equal(rec.type, DP_SIG_ERR_GUARD);
	assert_int_equal(rec.offset, 2 * 520);
	dp_transform_check(f.t, &rec);
	assert_int_equal(rec.type, DP_SIG_ERR_NONE);
	assert_int_equal(rec.expected, 0);
	assert_int_equal(rec.actual, 0);
	assert_int_equal(rec.offset, 0);
	/* after the read, the next error is recorded again */
	run(f.t, DP_RX, f.wire, sizeof(f.wire), f.out, sizeof(f.out), &e);
	dp_transform_check(f.t, &rec);
	assert_int_equal(rec.type, DP_SIG_ERR_GUARD);
	assert_int_equal(rec.offset, 0);
	dp_transform_destroy(f.t);
}

static void test_ref_tag_without_remap(void **state)
{
	struct errfix f;
	struct dp_sig_err e;

	(void)state;
	errfix_init(&f, 0, 0xff);
	/* without REF_REMAP every block carries ref_tag itself */
	for (int k = 0; k < 4; k++)
		assert_int_equal(f.wire[k * 520 + 512 + 7], 1000 & 0xff);
	f.wire[3 * 520 + 512 + 4] = 0x12;
	run(f.t, DP_RX, f.wire, sizeof(f.wire), f.out, sizeof(f.out), &e);
	assert_int_equal(e.type, DP_SIG_ERR_REFTAG);
	assert_int_equal(e.expected, 1000);
	assert_int_equal(e.actual, 0x12000000u | 1000);
	assert_int_equal(e.offset, 3 * 520);
	dp_transform_destroy(f.t);
}

static void test_check_mask(void **state)
{
	struct errfix f;
	struct dp_sig_err e;

	(void)state;
	/* ref-only mask: guard and app errors are not seen */
	errfix_init(&f, DP_T10DIF_FLAG_REF_REMAP, 0x0f);
	f.wire[512] ^= 0xff;
	f.wire[514] ^= 0xff;
	run(f.t, DP_RX, f.wire, sizeof(f.wire), f.out, sizeof(f.out), &e);
	assert_int_equal(e.type, DP_SIG_ERR_NONE);
	dp_transform_destroy(f.t);
	/* bit 7 = guard byte 0 only: a difference in guard byte 1 passes, in byte 0 fails, whole values */
	errfix_init(&f, 0, 0x80);
	f.wire[513] ^= 0xff;
	run(f.t, DP_RX, f.wire, sizeof(f.wire), f.out, sizeof(f.out), &e);
	assert_int_equal(e.type, DP_SIG_ERR_NONE);
	f.wire[512] ^= 0x01;
	run(f.t, DP_RX, f.wire, sizeof(f.wire), f.out, sizeof(f.out), &e);
	assert_int_equal(e.type, DP_SIG_ERR_GUARD);
	assert_int_equal(e.expected, (uint64_t)(f.wire[512] << 8 | f.wire[513]));
	assert_int_equal(e.actual, crc16_t10dif(0xffff, f.wire, 512));
	dp_transform_destroy(f.t);
	/* bit 4 = app byte 1 (low byte) */
	errfix_init(&f, 0, 0x10);
	f.wire[514] ^= 0x01;
	run(f.t, DP_RX, f.wire, sizeof(f.wire), f.out, sizeof(f.out), &e);
	assert_int_equal(e.type, DP_SIG_ERR_NONE);
	f.wire[515] ^= 0x01;
	run(f.t, DP_RX, f.wire, sizeof(f.wire), f.out, sizeof(f.out), &e);
	assert_int_equal(e.type, DP_SIG_ERR_APPTAG);
	assert_int_equal(e.actual, 0x5779);
	dp_transform_destroy(f.t);
	/* check_mask 0: nothing checked (garbage CRC passes) */
	errfix_init(&f, 0, 0);
	memset(f.wire + 512, 0xee, 8);
	run(f.t, DP_RX, f.wire, sizeof(f.wire), f.out, sizeof(f.out), &e);
	assert_int_equal(e.type, DP_SIG_ERR_NONE);
	dp_transform_destroy(f.t);
}

static void test_check_mask_crc(void **state)
{
	struct dp_sig_domain d = crcd(512, DP_CRC_CRC32C, 0xffffffff);
	struct dp_transform_cfg c;
	struct dp_transform *t;
	static uint8_t data[1024], wire[1032], out[1032];
	struct dp_sig_err e;

	(void)state;
	fill_data(data, sizeof(data), 3);
	ref_protect(&d, data, sizeof(data), wire);
	cfg_sig(&c, NULL, &d);
	c.check_mask = 0x0f;            /* irrelevant bits for a 4-byte CRC: nothing checked */
	t = mk(&c, NULL, 0);
	wire[512 + 516] ^= 1;
	run(t, DP_RX, wire, sizeof(wire), out, sizeof(out), &e);
	assert_int_equal(e.type, DP_SIG_ERR_NONE);
	dp_transform_destroy(t);
	c.check_mask = 0x10;            /* byte 3 (the most significant, stored last) */
	t = mk(&c, NULL, 0);
	run(t, DP_RX, wire, sizeof(wire), out, sizeof(out), &e);
	assert_int_equal(e.type, DP_SIG_ERR_NONE);
	wire[516 + 512 + 3] ^= 0x40;
	run(t, DP_RX, wire, sizeof(wire), out, sizeof(out), &e);
	assert_int_equal(e.type, DP_SIG_ERR_GUARD);      /* a CRC mismatch is a GUARD error */
	assert_int_equal(e.offset, 516);
	assert_int_equal(e.actual, ~crc32_iscsi(wire + 516, 512, 0xffffffff) & 0xffffffffu);
	assert_int_equal(e.expected, (uint64_t)wire[516 + 512] | (uint64_t)wire[516 + 513] << 8 |
				     (uint64_t)wire[516 + 514] << 16 | (uint64_t)wire[516 + 515] << 24);
	dp_transform_destroy(t);
}

static void test_escapes(void **state)
{
	struct errfix f;
	struct dp_sig_err e;

	(void)state;
	/* APP_ESCAPE: app tag 0xFFFF -> block not checked (bad guard and ref ignored), whatever the mask */
	errfix_init(&f, DP_T10DIF_FLAG_APP_ESCAPE | DP_T10DIF_FLAG_REF_REMAP, 0xc0);
	f.wire[520 + 514] = 0xff;
	f.wire[520 + 515] = 0xff;
	f.wire[520 + 512] ^= 0x55;
	f.wire[520 + 519] ^= 0x55;
	run(f.t, DP_RX, f.wire, sizeof(f.wire), f.out, sizeof(f.out), &e);
	assert_int_equal(e.type, DP_SIG_ERR_NONE);
	dp_transform_destroy(f.t);
	/* APP_REF_ESCAPE needs ref 0xFFFFFFFF too */
	errfix_init(&f, DP_T10DIF_FLAG_APP_REF_ESCAPE, 0xff);
	f.wire[514] = 0xff;
	f.wire[515] = 0xff;
	run(f.t, DP_RX, f.wire, sizeof(f.wire), f.out, sizeof(f.out), &e);
	assert_int_equal(e.type, DP_SIG_ERR_APPTAG);
	memset(f.wire + 516, 0xff, 4);
	f.wire[0] ^= 1;
	run(f.t, DP_RX, f.wire, sizeof(f.wire), f.out, sizeof(f.out), &e);
	assert_int_equal(e.type, DP_SIG_ERR_NONE);
	dp_transform_destroy(f.t);
	/* both flags: APP_REF_ESCAPE wins, app 0xFFFF alone does not escape */
	errfix_init(&f, DP_T10DIF_FLAG_APP_ESCAPE | DP_T10DIF_FLAG_APP_REF_ESCAPE, 0xff);
	f.wire[514] = 0xff;
	f.wire[515] = 0xff;
	run(f.t, DP_RX, f.wire, sizeof(f.wire), f.out, sizeof(f.out), &e);
	assert_int_equal(e.type, DP_SIG_ERR_APPTAG);
	memset(f.wire + 516, 0xff, 4);
	run(f.t, DP_RX, f.wire, sizeof(f.wire), f.out, sizeof(f.out), &e);
	assert_int_equal(e.type, DP_SIG_ERR_NONE);
	dp_transform_destroy(f.t);
}

/* ---------------------------------------------------------------- copy rules */

static void test_copy_rules_t10dif(void **state)
{
	struct dp_sig_domain m = t10(512, DP_T10DIF_BG_CRC, 0, 0x1111, 50, DP_T10DIF_FLAG_REF_REMAP);
	struct dp_sig_domain w = t10(512, DP_T10DIF_BG_CRC, 0, 0x2222, 50, 0);
	struct dp_transform_cfg c;
	struct dp_transform *t;
	static uint8_t data[1024], mem[1040], out[1040], want[1040];
	struct dp_sig_err e;

	(void)state;
	fill_data(data, sizeof(data), 5);
	ref_protect(&m, data, sizeof(data), mem);
	/* unknown bytes in the memory guard of block 1, not checked, must be preserved */
	mem[520 + 512] = 0xab;
	mem[520 + 513] = 0xcd;
	cfg_sig(&c, &m, &w);
	c.check_mask = DP_SIG_MASK_T10DIF_APPTAG | DP_SIG_MASK_T10DIF_REFTAG;
	t = mk(&c, NULL, 0);
	/* same bg_type/bg -> guard copied; app tags differ -> regenerated; ref tags equal -> copied
	 * (REF_REMAP difference ignored: block 1 keeps the memory's 51) */
	assert_int_equal(dp_transform_copy_mask(t), 0xcf);
	run(t, DP_TX, mem, sizeof(mem), out, sizeof(out), &e);
	assert_int_equal(e.type, DP_SIG_ERR_NONE);
	ref_protect(&w, data, sizeof(data), want);
	memcpy(want + 512, mem + 512, 2);
	memcpy(want + 520 + 512, mem + 520 + 512, 2);
	memcpy(want + 516, mem + 516, 4);
	memcpy(want + 520 + 516, mem + 520 + 516, 4);
	assert_memory_equal(out, want, sizeof(want));
	assert_int_equal(out[520 + 519], 51);
	dp_transform_destroy(t);

	/* explicit copy mask: only the app tag copied, guard and ref regenerated */
	c.copy_mask_set = true;
	c.copy_mask = DP_SIG_MASK_T10DIF_APPTAG;
	t = mk(&c, NULL, 0);
	run(t, DP_TX, mem, sizeof(mem), out, sizeof(out), &e);
	ref_protect(&w, data, sizeof(data), want);
	memcpy(want + 514, mem + 514, 2);
	memcpy(want + 520 + 514, mem + 520 + 514, 2);
	assert_memory_equal(out, want, sizeof(want));
	dp_transform_destroy(t);

	/* different guard seed: guard not copied -> regenerated for the wire */
	c.copy_mask_set = false;
	c.wire.t10dif.bg = 0xffff;
	t = mk(&c, NULL, 0);
	assert_int_equal(dp_transform_copy_mask(t), 0x0f);
	dp_transform_destroy(t);
}

static void test_copy_rules_crc(void **state)
{
	struct dp_sig_domain m = crcd(4096, DP_CRC_CRC64_XP10, 0);
	struct dp_sig_domain w = crcd(4096, DP_CRC_CRC64_XP10, ~0ull);
	struct dp_transform_cfg c;
	struct dp_transform *t;
	static uint8_t data[8192], wire[8208], out[8208];
	struct dp_sig_err e;

	(void)state;
	fill_data(data, sizeof(data), 6);
	ref_protect(&w, data, sizeof(data), wire);
	cfg_sig(&c, &m, &w);
	t = mk(&c, NULL, 0);
	/* same structure: the whole field is copied even though the seeds differ */
	assert_int_equal(dp_transform_copy_mask(t), 0xff);
	c.check_mask = 0;
	dp_transform_destroy(t);
	t = mk(&c, NULL, 0);
	run(t, DP_RX, wire, sizeof(wire), out, sizeof(out), &e);
	assert_memory_equal(out, wire, sizeof(wire));    /* field carries the wire-seed CRC */
	dp_transform_destroy(t);
	/* not the same structure (CRC type differs) -> nothing copied, explicit copy_mask refused */
	c.wire.crc.type = DP_CRC_CRC32C;
	c.wire.crc.seed = 0;
	t = mk(&c, NULL, 0);
	assert_int_equal(dp_transform_copy_mask(t), 0);
	dp_transform_destroy(t);
}

/* ---------------------------------------------------------------- different block sizes */

static void test_reblocking(void **state)
{
	struct dp_sig_domain m = t10(512, DP_T10DIF_BG_CRC, 0xffff, 9, 7, DP_T10DIF_FLAG_REF_REMAP);
	struct dp_sig_domain w = crcd(4096, DP_CRC_CRC32C, 0xffffffff);
	struct dp_transform_cfg c;
	struct dp_transform *t;
	static uint8_t data[2 * 4096], mem[16 * 520], wire[2 * 4100], out[16 * 520];
	struct dp_sig_err e;

	(void)state;
	fill_data(data, sizeof(data), 7);
	ref_protect(&m, data, sizeof(data), mem);
	ref_protect(&w, data, sizeof(data), wire);
	cfg_sig(&c, &m, &w);
	t = mk(&c, NULL, 0);
	assert_int_equal(run(t, DP_TX, mem, sizeof(mem), out, sizeof(out), &e), sizeof(wire));
	assert_memory_equal(out, wire, sizeof(wire));
	assert_int_equal(e.type, DP_SIG_ERR_NONE);
	assert_int_equal(run(t, DP_RX, wire, sizeof(wire), out, sizeof(out), &e), sizeof(mem));
	assert_memory_equal(out, mem, sizeof(mem));
	/* 3 memory blocks: the 4096-byte wire block is cut short and delivered without its field */
	assert_int_equal(run(t, DP_TX, mem, 3 * 520, out, sizeof(out), &e), 1536);
	assert_memory_equal(out, data, 1536);
	/* 11 memory blocks: one whole wire block + 1536 bytes without field */
	assert_int_equal(run(t, DP_TX, mem, 11 * 520, out, sizeof(out), &e), 4100 + 1536);
	assert_memory_equal(out, wire, 4100);
	assert_memory_equal(out + 4100, data + 4096, 1536);
	/* error in memory block 9 is found at its memory offset */
	mem[9 * 520 + 3] ^= 1;
	run(t, DP_TX, mem, sizeof(mem), out, sizeof(out), &e);
	assert_int_equal(e.type, DP_SIG_ERR_GUARD);
	assert_int_equal(e.offset, 9 * 520);
	dp_transform_destroy(t);
	/* memory none, wire T10 4096: a transfer that is not a multiple of 4096 keeps no last field */
	cfg_sig(&c, NULL, &w);
	t = mk(&c, NULL, 0);
	assert_int_equal(run(t, DP_TX, data, 5000, out, sizeof(out), &e), 4100 + 904);
	assert_memory_equal(out, wire, 4100);
	dp_transform_destroy(t);
}

static void test_bad_lengths(void **state)
{
	struct dp_sig_domain w = t10(512, DP_T10DIF_BG_CRC, 0, 0, 0, 0);
	struct dp_transform_cfg c;
	struct dp_transform *t;
	static uint8_t buf[2048], out[2048];
	struct dp_error err;
	size_t olen;

	(void)state;
	cfg_sig(&c, NULL, &w);
	t = mk(&c, NULL, 0);
	/* 520 + 517: ends inside the second block's field (1000 = 520 + 480 is a short last block) */
	assert_int_equal(dp_transform_run(t, DP_RX, buf, 1037, out, sizeof(out), &olen, NULL, &err), -EINVAL);
	assert_string_equal(err.field, "input");
	assert_int_equal(dp_transform_run(t, DP_TX, buf, 1024, out, 1000, &olen, NULL, &err), -ENOSPC);
	assert_string_equal(err.field, "output");
	dp_transform_destroy(t);
}

/* ---------------------------------------------------------------- rows A-J (seed 001) */

static const uint8_t key256[64] = {
	0x27, 0x18, 0x28, 0x18, 0x28, 0x45, 0x90, 0x45, 0x23, 0x53, 0x60, 0x28, 0x74, 0x71, 0x35, 0x26,
	0x62, 0x49, 0x77, 0x57, 0x24, 0x70, 0x93, 0x69, 0x99, 0x59, 0x57, 0x49, 0x66, 0x96, 0x76, 0x27,
	0x31, 0x41, 0x59, 0x26, 0x53, 0x58, 0x97, 0x93, 0x23, 0x84, 0x62, 0x64, 0x33, 0x83, 0x27, 0x95,
	0x02, 0x88, 0x41, 0x97, 0x16, 0x93, 0x99, 0x37, 0x51, 0x05, 0x82, 0x09, 0x74, 0x94, 0x45, 0x92,
};

struct row {
	char name;
	bool mem_sig, wire_sig, enc_on_tx;
	enum dp_crypto_order order;
	uint32_t dus;
};

/* memory/wire layouts of seed 001 with T10-DIF (SIG1 in memory, SIG2 on the wire) */
static const struct row rows[] = {
	{ 'A', false, false, true,  DP_SIG_AFTER_CRYPTO_ON_TX,  512 },   /* data | enc(data) */
	{ 'B', false, true,  true,  DP_SIG_AFTER_CRYPTO_ON_TX,  512 },   /* data | enc(data)+SIG */
	{ 'C', false, true,  true,  DP_SIG_BEFORE_CRYPTO_ON_TX, 520 },   /* data | enc(data+SIG) */
	{ 'D', true,  false, true,  DP_SIG_BEFORE_CRYPTO_ON_TX, 512 },   /* data+SIG | enc(data) */
	{ 'E', true,  true,  true,  DP_SIG_BEFORE_CRYPTO_ON_TX, 520 },   /* data+SIG1 | enc(data+SIG2) */
	{ 'F', false, false, false, DP_SIG_BEFORE_CRYPTO_ON_TX, 4096 },  /* enc(data) | data */
	{ 'G', false, true,  false, DP_SIG_AFTER_CRYPTO_ON_TX,  512 },   /* enc(data) | data+SIG */
	{ 'H', true,  false, false, DP_SIG_AFTER_CRYPTO_ON_TX,  520 },   /* enc(data+SIG) | data */
	{ 'I', true,  true,  false, DP_SIG_AFTER_CRYPTO_ON_TX,  520 },   /* enc(data+SIG1) | data+SIG2 */
	{ 'J', true,  false, false, DP_SIG_BEFORE_CRYPTO_ON_TX, 512 },   /* enc(data)+SIG | data */
};

static void run_row(const struct row *r, size_t key_len, unsigned nblocks)
{
	struct dp_sig_domain sig1 = t10(512, DP_T10DIF_BG_CRC, 0xffff, 0x0a0a, 500, DP_T10DIF_FLAG_REF_REMAP);
	struct dp_sig_domain sig2 = t10(512, DP_T10DIF_BG_CRC, 0, 0x0b0b, 900, DP_T10DIF_FLAG_REF_REMAP);
	static uint8_t data[8 * 512], tmp[8 * 520], mem[8 * 520], wire[8 * 520], out[8 * 520];
	uint8_t tweak[16] = { 0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	size_t dlen = (size_t)nblocks * 512, mlen, wlen;
	struct dp_transform_cfg c;
	struct dp_transform *t;
	struct dp_sig_err e;

	print_message("# row %c, AES-%zu-XTS, %u blocks\n", r->name, key_len * 4, nblocks);
	fill_data(data, dlen, (unsigned)r->name);
	/* memory bytes */
	if (r->name == 'A' || r->name == 'B' || r->name == 'C') {
		mlen = ref_protect(&(struct dp_sig_domain){ 0 }, data, dlen, mem);
	} else if (r->name == 'D' || r->name == 'E') {
		mlen = ref_protect(&sig1, data, dlen, mem);
	} else if (r->name == 'F' || r->name == 'G') {          /* enc(data) */
		mlen = ref_protect(&(struct dp_sig_domain){ 0 }, data, dlen, mem);
		ref_xts(true, key256, key_len, tweak, r->dus, mem, mlen);
	} else if (r->name == 'H' || r->name == 'I') {          /* enc(data+SIG) */
		mlen = ref_protect(&sig1, data, dlen, mem);
		ref_xts(true, key256, key_len, tweak, r->dus, mem, mlen);
	} else {                                                /* J: enc(data)+SIG over enc(data) */
		memcpy(tmp, data, dlen);
		ref_xts(true, key256, key_len, tweak, r->dus, tmp, dlen);
		mlen = ref_protect(&sig1, tmp, dlen, mem);
	}
	/* wire bytes */
	if (r->name == 'A' || r->name == 'D') {                 /* enc(data) */
		wlen = ref_protect(&(struct dp_sig_domain){ 0 }, data, dlen, wire);
		ref_xts(true, key256, key_len, tweak, r->dus, wire, wlen);
	} else if (r->name == 'B') {                            /* enc(data)+SIG over enc(data) */
		memcpy(tmp, data, dlen);
		ref_xts(true, key256, key_len, tweak, r->dus, tmp, dlen);
		wlen = ref_protect(&sig2, tmp, dlen, wire);
	} else if (r->name == 'C' || r->name == 'E') {          /* enc(data+SIG) */
		wlen = ref_protect(&sig2, data, dlen, wire);
		ref_xts(true, key256, key_len, tweak, r->dus, wire, wlen);
	} else if (r->name == 'G' || r->name == 'I') {          /* data+SIG */
		wlen = ref_protect(&sig2, data, dlen, wire);
	} else {                                                /* F, H, J: data */
		wlen = ref_protect(&(struct dp_sig_domain){ 0 }, data, dlen, wire);
	}

	dp_transform_cfg_init(&c);
	if (r->mem_sig)
		c.mem = sig1;
	if (r->wire_sig)
		c.wire = sig2;
	c.crypto.enabled = true;
	c.crypto.standard = DP_CRYPTO_AES_XTS;
	c.crypto.encrypt_on_tx = r->enc_on_tx;
	c.crypto.order = r->order;
	c.crypto.data_unit_size = r->dus;
	memcpy(c.crypto.initial_tweak, tweak, 16);
	t = mk(&c, key256, key_len);
	assert_int_equal(run(t, DP_TX, mem, mlen, out, sizeof(out), &e), wlen);
	assert_memory_equal(out, wire, wlen);
	assert_int_equal(e.type, DP_SIG_ERR_NONE);
	/* round trip: rx of tx's output gives back the memory bytes */
	assert_int_equal(run(t, DP_RX, out, wlen, tmp, sizeof(tmp), &e), mlen);
	assert_memory_equal(tmp, mem, mlen);
	assert_int_equal(e.type, DP_SIG_ERR_NONE);
	if (r->mem_sig || r->wire_sig) {
		/* a corrupted byte of the checked stream gives a GUARD error, bytes still delivered */
		uint8_t *src = r->wire_sig ? wire : mem;
		size_t slen = r->wire_sig ? wlen : mlen;

		src[slen - 600] ^= 0x20;
		run(t, r->wire_sig ? DP_RX : DP_TX, src, slen, out, sizeof(out), &e);
		assert_int_equal(e.type, DP_SIG_ERR_GUARD);
		dp_transform_check(t, &e);
		assert_int_equal(e.type, DP_SIG_ERR_GUARD);
	}
	dp_transform_destroy(t);
}

static void test_rows_a_j(void **state)
{
	(void)state;
	assert_int_equal(dp_crypto_global_init(NULL), 0);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		run_row(&rows[i], 64, 8);
		run_row(&rows[i], 32, 3);
	}
}

static void test_crypto_job_size(void **state)
{
	struct dp_transform_cfg c;
	struct dp_transform *t;
	static uint8_t buf[2048], out[2048];
	struct dp_error err;
	size_t olen;

	(void)state;
	dp_transform_cfg_init(&c);
	c.crypto.enabled = true;
	c.crypto.encrypt_on_tx = true;
	c.crypto.data_unit_size = 520;
	t = mk(&c, key256, 64);
	assert_int_equal(dp_transform_out_len(t, DP_TX, 496, &olen, &err), 0);
	assert_int_equal(dp_transform_out_len(t, DP_TX, 512, &olen, &err), -EINVAL);
	assert_string_equal(err.field, "input");
	/* 528 = 520 + 8: allowed by the job-size formula, refused because the last unit is < 16 */
	assert_int_equal(dp_transform_run(t, DP_TX, buf, 528, out, sizeof(out), &olen, NULL, &err), -EINVAL);
	assert_string_equal(err.field, "input");
	assert_int_equal(dp_transform_run(t, DP_TX, buf, 544, out, sizeof(out), &olen, NULL, &err), 0);
	dp_transform_destroy(t);
	/* row C: the rule applies to the wire stream (512+8 per block) */
	c.wire = t10(512, DP_T10DIF_BG_CRC, 0, 0, 0, 0);
	c.crypto.order = DP_SIG_BEFORE_CRYPTO_ON_TX;
	c.crypto.data_unit_size = 512;
	t = mk(&c, key256, 64);
	/* 1 block: wire stream 520 = 512 + 8, last unit 8 bytes -> refused */
	assert_int_equal(dp_transform_out_len(t, DP_TX, 512, &olen, &err), -EINVAL);
	dp_transform_destroy(t);
}

/* Row D: a wire transfer that ends inside a block: the short last unit is decrypted and the
 * memory block it starts is delivered without its field (and TX refuses a partial block). */
static void test_row_d_partial(void **state)
{
	struct dp_sig_domain sig = t10(512, DP_T10DIF_BG_CRC, 0, 3, 4, DP_T10DIF_FLAG_REF_REMAP);
	uint8_t tweak[16] = { 9 };
	static uint8_t wire[1120], data[1120], mem[1200], out[1200];
	struct dp_transform_cfg c;
	struct dp_transform *t;
	struct dp_sig_err e;
	size_t mlen;

	(void)state;
	fill_data(wire, sizeof(wire), 11);
	memcpy(data, wire, sizeof(wire));
	ref_xts(false, key256, 64, tweak, 512, data, sizeof(data));      /* units 512, 512, 96 */
	mlen = ref_protect(&sig, data, sizeof(data), mem);
	assert_int_equal(mlen, 2 * 520 + 96);
	cfg_sig(&c, &sig, NULL);
	c.crypto.enabled = true;
	c.crypto.encrypt_on_tx = true;
	c.crypto.order = DP_SIG_BEFORE_CRYPTO_ON_TX;
	c.crypto.data_unit_size = 512;
	memcpy(c.crypto.initial_tweak, tweak, 16);
	t = mk(&c, key256, 64);
	assert_int_equal(run(t, DP_RX, wire, sizeof(wire), out, sizeof(out), &e), mlen);
	assert_memory_equal(out, mem, mlen);
	dp_transform_destroy(t);
}

/* ---------------------------------------------------------------- §2.1 partial trailing block */

/* A wire length, the data bytes it carries and the memory bytes it maps to; data -1: refused. */
struct pmap {
	size_t wire;
	long data;
	size_t mem;
};

/* How the expected bytes are built, encrypting on TX: no crypto; row B (enc(data)+SIG on the
 * wire, "after"); the wire stream crypted ("before": rows C and D), enc() of the W wire bytes. */
enum pcrypt { PC_NONE, PC_ROW_B, PC_WIRE_CRYPT };

static const uint8_t ptweak[16] = { 0x5a, 1, 2, 3 };

/* Builds the expected bytes with the test's own reference (ref_protect, ref_xts): memory carries
 * the field of every complete block; the wire would too, and the wire length may only cut the
 * last one off (reference §2.1).  Then runs both directions and compares. */
static void check_pmap(struct dp_transform *t, const struct dp_transform_cfg *c, enum pcrypt pc,
		       const struct pmap *m)
{
	static uint8_t data[9 * 520], tmp[9 * 520], mem[9 * 528], wire[9 * 528], out[9 * 528];
	struct dp_sig_err e;
	struct dp_error err;
	size_t d = (size_t)m->data, mlen, wlen, got;

	print_message("#   wire %zu\n", m->wire);
	if (m->data < 0) {
		assert_int_equal(dp_transform_out_len(t, DP_RX, m->wire, &got, &err), -EINVAL);
		assert_string_equal(err.field, "input");
		assert_int_equal(dp_transform_transfer(t, DP_RX, wire, m->wire, out, sizeof(out), &e, &err), -EINVAL);
		assert_int_equal(dp_transform_transfer(t, DP_TX, mem, m->wire, out, m->wire, &e, &err), -EINVAL);
		return;
	}
	assert_int_equal(dp_transform_out_len(t, DP_RX, m->wire, &got, &err), 0);
	assert_int_equal(got, m->mem);
	fill_data(data, d, (unsigned)m->wire);
	mlen = ref_protect(&c->mem, data, d, mem);
	assert_int_equal(mlen, m->mem);
	if (pc == PC_ROW_B) {
		memcpy(tmp, data, d);
		ref_xts(true, key256, 64, ptweak, c->crypto.data_unit_size, tmp, d);
		wlen = ref_protect(&c->wire, tmp, d, wire);
	} else {
		wlen = ref_protect(&c->wire, data, d, wire);
	}
	/* a wire field outside the transfer is the only thing the wire length can leave out */
	assert_true(wlen == m->wire || wlen == m->wire + fsize(&c->wire));
	if (pc == PC_WIRE_CRYPT)
		ref_xts(true, key256, 64, ptweak, c->crypto.data_unit_size, wire, m->wire);
	memset(out, 0xcc, sizeof(out));
	assert_int_equal(dp_transform_transfer(t, DP_TX, mem, mlen, out, m->wire, &e, &err), 0);
	assert_memory_equal(out, wire, m->wire);
	assert_int_equal(out[m->wire], 0xcc);           /* nothing written past the wire length */
	assert_int_equal(e.type, DP_SIG_ERR_NONE);
	assert_int_equal(dp_transform_transfer(t, DP_RX, wire, m->wire, out, mlen, &e, &err), 0);
	assert_memory_equal(out, mem, mlen);
	assert_int_equal(e.type, DP_SIG_ERR_NONE);
	/* the other side's length must be the mapped one */
	assert_int_equal(dp_transform_transfer(t, DP_RX, wire, m->wire, out, mlen + 1, &e, &err), -EINVAL);
	dp_transform_check(t, &e);
}

static void check_pmaps(const struct dp_transform_cfg *c, enum pcrypt pc, const struct pmap *m, size_t n)
{
	struct dp_transform *t = mk(c, c->crypto.enabled ? key256 : NULL, c->crypto.enabled ? 64 : 0);

	for (size_t i = 0; i < n; i++)
		check_pmap(t, c, pc, &m[i]);
	dp_transform_destroy(t);
}

#define NPMAP(a) (sizeof(a) / sizeof((a)[0]))

/* Every boundary of a 512-byte block (0, 1, block-1, block, block+PI-1, block+PI, many blocks)
 * with the field in the wire domain, in the memory domain and in both. */
static void test_partial_mapping(void **state)
{
	static const struct pmap wire_crc32[] = {       /* wire CRC32 (4), memory none */
		{ 0, 0, 0 }, { 1, 1, 1 }, { 511, 511, 511 }, { 512, 512, 512 }, { 515, -1, 0 },
		{ 516, 512, 512 }, { 517, 513, 513 }, { 3 * 516, 1536, 1536 }, { 3 * 516 + 1, 1537, 1537 },
		{ 3 * 516 + 512, 2048, 2048 }, { 3 * 516 + 514, -1, 0 },
	};
	static const struct pmap mem_crc32[] = {        /* memory CRC32 (4), wire none */
		{ 0, 0, 0 }, { 1, 1, 1 }, { 511, 511, 511 }, { 512, 512, 516 }, { 515, 515, 519 },
		{ 516, 516, 520 }, { 3 * 512, 1536, 3 * 516 }, { 3 * 512 + 1, 1537, 3 * 516 + 1 },
		{ 4 * 512, 2048, 4 * 516 },
	};
	static const struct pmap both_t10[] = {         /* T10-DIF (8) in both domains */
		{ 0, 0, 0 }, { 1, 1, 1 }, { 511, 511, 511 }, { 512, 512, 520 }, { 519, -1, 0 },
		{ 520, 512, 520 }, { 521, 513, 521 }, { 3 * 520, 1536, 1560 }, { 3 * 520 + 1, 1537, 1561 },
		{ 3 * 520 + 512, 2048, 2080 }, { 3 * 520 + 513, -1, 0 },
	};
	static const struct pmap reblock[] = {           /* memory T10 4096, wire T10 512 */
		{ 512, 512, 512 }, { 519, -1, 0 }, { 520, 512, 512 }, { 7 * 520 + 512, 4096, 4104 },
		{ 8 * 520, 4096, 4104 }, { 8 * 520 + 1, 4097, 4105 }, { 8 * 520 - 1, -1, 0 },
	};
	/* a memory stream may not end between a block's data and its field: its field is always there */
	static const size_t mem_refused[] = { 512, 515, 3 * 516 + 512 };
	struct dp_transform_cfg c;
	struct dp_transform *t;
	struct dp_error err;
	size_t olen;

	(void)state;
	print_message("# wire CRC32\n");
	cfg_sig(&c, NULL, &(struct dp_sig_domain){ 0 });
	c.wire = crcd(512, DP_CRC_CRC32, 0);
	check_pmaps(&c, PC_NONE, wire_crc32, NPMAP(wire_crc32));
	print_message("# memory CRC32\n");
	cfg_sig(&c, NULL, NULL);
	c.mem = crcd(512, DP_CRC_CRC32, 0);
	check_pmaps(&c, PC_NONE, mem_crc32, NPMAP(mem_crc32));
	t = mk(&c, NULL, 0);
	for (size_t i = 0; i < NPMAP(mem_refused); i++) {
		assert_int_equal(dp_transform_out_len(t, DP_TX, mem_refused[i], &olen, &err), -EINVAL);
		assert_string_equal(err.field, "input");
	}
	dp_transform_destroy(t);
	print_message("# T10-DIF in both\n");
	c.mem = t10(512, DP_T10DIF_BG_CRC, 0xffff, 0x1234, 7, DP_T10DIF_FLAG_REF_REMAP);
	c.wire = t10(512, DP_T10DIF_BG_CRC, 0, 0x5678, 70, DP_T10DIF_FLAG_REF_REMAP);
	check_pmaps(&c, PC_NONE, both_t10, NPMAP(both_t10));
	print_message("# T10-DIF, 4096-byte blocks in memory, 512 on the wire\n");
	c.mem = t10(4096, DP_T10DIF_BG_CRC, 0xffff, 0x1234, 7, DP_T10DIF_FLAG_REF_REMAP);
	check_pmaps(&c, PC_NONE, reblock, NPMAP(reblock));
}

/* The same rule with crypto and a signature: rows B and D of seed 001. */
static void test_partial_crypto(void **state)
{
	static const struct pmap row_b[] = {            /* wire T10 (8), memory none, "after" */
		{ 512, 512, 512 }, { 519, -1, 0 }, { 520, 512, 512 }, { 520 + 512, 1024, 1024 },
		{ 2 * 520, 1024, 1024 }, { 2 * 520 + 96, 1120, 1120 },
	};
	static const struct pmap row_d[] = {            /* memory T10 (8), wire none, "before" */
		{ 512, 512, 520 }, { 1024, 1024, 1040 }, { 1120, 1120, 1136 },
	};
	/* wire T10 (8), memory none, "before": the job size decides which cuts map (16-byte multiples,
	 * a last unit of at least 16): 1552 = 2 x 520 + 512 is 3 units + 16 */
	static const struct pmap row_c[] = {
		{ 1024 + 16, 1024, 1024 }, { 2 * 520 + 512, 1536, 1536 }, { 3 * 520, -1, 0 },
		{ 520 + 512, -1, 0 },
	};
	struct dp_transform_cfg c;

	(void)state;
	assert_int_equal(dp_crypto_global_init(NULL), 0);
	dp_transform_cfg_init(&c);
	c.crypto.enabled = true;
	c.crypto.encrypt_on_tx = true;
	c.crypto.data_unit_size = 512;
	memcpy(c.crypto.initial_tweak, ptweak, 16);
	print_message("# row B\n");
	c.crypto.order = DP_SIG_AFTER_CRYPTO_ON_TX;
	c.wire = t10(512, DP_T10DIF_BG_CRC, 0, 0x0b0b, 900, DP_T10DIF_FLAG_REF_REMAP);
	check_pmaps(&c, PC_ROW_B, row_b, NPMAP(row_b));
	print_message("# row D\n");
	c.crypto.order = DP_SIG_BEFORE_CRYPTO_ON_TX;
	c.wire = (struct dp_sig_domain){ 0 };
	c.mem = t10(512, DP_T10DIF_BG_CRC, 0xffff, 0x0a0a, 500, DP_T10DIF_FLAG_REF_REMAP);
	check_pmaps(&c, PC_WIRE_CRYPT, row_d, NPMAP(row_d));
	print_message("# row C, 512-byte data units\n");
	c.mem = (struct dp_sig_domain){ 0 };
	c.wire = t10(512, DP_T10DIF_BG_CRC, 0, 0x0b0b, 900, DP_T10DIF_FLAG_REF_REMAP);
	check_pmaps(&c, PC_WIRE_CRYPT, row_c, NPMAP(row_c));
}

/* The memory field of a block whose data completes is checked even when the wire field is not in
 * the transfer; a wire field outside the transfer is not checked (reference §2.1, the tests
 * test_mkey_sig_err and test_mkey_sig_t10dif/crc it is inferred from). */
static void test_partial_checks(void **state)
{
	static uint8_t data[512], mem[520], wire[520], out[520];
	struct dp_transform_cfg c;
	struct dp_transform *t;
	struct dp_sig_err e;
	struct dp_error err;

	(void)state;
	fill_data(data, sizeof(data), 3);
	/* test_mkey_sig_err: 512 wire bytes from "512 data + 4 CRC" with a bad CRC -> BAD_GUARD */
	cfg_sig(&c, NULL, NULL);
	c.mem = crcd(512, DP_CRC_CRC32, 0);
	t = mk(&c, NULL, 0);
	assert_int_equal(ref_protect(&c.mem, data, 512, mem), 516);
	mem[513] ^= 1;
	assert_int_equal(dp_transform_transfer(t, DP_TX, mem, 516, out, 512, &e, &err), 0);
	assert_memory_equal(out, data, 512);
	assert_int_equal(e.type, DP_SIG_ERR_GUARD);
	dp_transform_check(t, &e);
	assert_int_equal(e.type, DP_SIG_ERR_GUARD);
	dp_transform_destroy(t);
	/* both T10-DIF: wire 512 -> no wire field to check whatever follows in the buffer */
	c.wire = t10(512, DP_T10DIF_BG_CRC, 0, 1, 2, 0);
	c.mem = t10(512, DP_T10DIF_BG_CRC, 0, 1, 2, 0);
	t = mk(&c, NULL, 0);
	memcpy(wire, data, 512);
	memset(wire + 512, 0xee, 8);            /* garbage beyond the transfer is not read as a field */
	assert_int_equal(dp_transform_transfer(t, DP_RX, wire, 512, out, 520, &e, &err), 0);
	assert_int_equal(e.type, DP_SIG_ERR_NONE);
	assert_int_equal(ref_protect(&c.mem, data, 512, mem), 520);
	assert_memory_equal(out, mem, 520);
	/* TX of that memory with a bad memory guard and 512 wire bytes: checked, found */
	mem[0] ^= 0x80;
	assert_int_equal(dp_transform_transfer(t, DP_TX, mem, 520, out, 512, &e, &err), 0);
	assert_int_equal(e.type, DP_SIG_ERR_GUARD);
	assert_memory_equal(out, mem, 512);
	dp_transform_destroy(t);
}

static void test_invalid_struct_configs(void **state)
{
	struct dp_transform_cfg c;
	struct dp_transform *t;
	struct dp_error err;
	struct dp_sig_domain d = t10(512, DP_T10DIF_BG_CRC, 0, 0, 0, 0);

	(void)state;
#define REFUSED(field_) do { \
		assert_int_equal(dp_transform_create(&c, NULL, 0, &t, &err), -EINVAL); \
		assert_string_equal(err.field, field_); \
	} while (0)
	dp_transform_cfg_init(&c);
	REFUSED("mem");                                   /* nothing configured */
	cfg_sig(&c, &d, NULL);
	c.mem.block_size = 1024;
	REFUSED("mem.block_size");
	cfg_sig(&c, NULL, &d);
	c.wire.t10dif.bg = 1;
	REFUSED("wire.t10dif.bg");
	cfg_sig(&c, NULL, &d);
	c.wire.t10dif.bg_type = 2;
	REFUSED("wire.t10dif.bg_type");
	cfg_sig(&c, NULL, &d);
	c.wire.t10dif.flags = 8;
	REFUSED("wire.t10dif.flags");
	cfg_sig(&c, NULL, &d);
	c.wire.sig_type = 7;
	REFUSED("wire.sig_type");
	c.wire = crcd(512, 3, 0);
	REFUSED("wire.crc.type");
	c.wire = crcd(512, DP_CRC_CRC32, ~0ull);          /* 64-bit all-ones for a 32-bit CRC */
	REFUSED("wire.crc.seed");
	c.wire = crcd(512, DP_CRC_CRC64_XP10, 0xffffffff);
	REFUSED("wire.crc.seed");
	cfg_sig(&c, NULL, &d);
	c.copy_mask_set = true;                           /* copy mask with a domain absent */
	REFUSED("copy_mask");
	cfg_sig(&c, &d, &d);
	c.wire.block_size = 4096;
	c.copy_mask_set = true;                           /* copy mask, different structure */
	REFUSED("copy_mask");
	cfg_sig(&c, &d, &d);
	c.crypto.enabled = true;
	c.crypto.data_unit_size = 512;
	c.crypto.encrypt_on_tx = true;
	c.crypto.order = DP_SIG_AFTER_CRYPTO_ON_TX;       /* RAW_WIRE with both domains */
	assert_int_equal(dp_transform_create(&c, key256, 64, &t, &err), -EINVAL);
	assert_string_equal(err.field, "crypto.signature_crypto_order");
	c.crypto.encrypt_on_tx = false;
	c.crypto.order = DP_SIG_BEFORE_CRYPTO_ON_TX;      /* RAW_MEMORY with both domains */
	assert_int_equal(dp_transform_create(&c, key256, 64, &t, &err), -EINVAL);
	assert_string_equal(err.field, "crypto.signature_crypto_order");
	c.crypto.order = 5;
	assert_int_equal(dp_transform_create(&c, key256, 64, &t, &err), -EINVAL);
	assert_string_equal(err.field, "crypto.signature_crypto_order");
	c.crypto.order = DP_SIG_AFTER_CRYPTO_ON_TX;
	c.crypto.data_unit_size = 1024;
	assert_int_equal(dp_transform_create(&c, key256, 64, &t, &err), -EINVAL);
	assert_string_equal(err.field, "crypto.data_unit_size");
	c.crypto.data_unit_size = 520;
	c.crypto.standard = 1;
	assert_int_equal(dp_transform_create(&c, key256, 64, &t, &err), -EINVAL);
	assert_string_equal(err.field, "crypto.standard");
	c.crypto.standard = DP_CRYPTO_AES_XTS;
	REFUSED("key");                                   /* crypto without key */
	assert_int_equal(dp_transform_create(&c, key256, 48, &t, &err), -EINVAL);
	assert_string_equal(err.field, "key");
	{
		uint8_t same[64];

		memset(same, 0x5a, sizeof(same));
		assert_int_equal(dp_transform_create(&c, same, 64, &t, &err), -EINVAL);
		assert_string_equal(err.field, "key");
	}
	cfg_sig(&c, &d, NULL);
	assert_int_equal(dp_transform_create(&c, key256, 64, &t, &err), -EINVAL);   /* key, no crypto */
	assert_string_equal(err.field, "key");
#undef REFUSED
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kat_fields),
		cmocka_unit_test(test_all_crc_types_seeds_sizes),
		cmocka_unit_test(test_all_t10dif_guards_sizes),
		cmocka_unit_test(test_error_types_and_order),
		cmocka_unit_test(test_ref_tag_without_remap),
		cmocka_unit_test(test_check_mask),
		cmocka_unit_test(test_check_mask_crc),
		cmocka_unit_test(test_escapes),
		cmocka_unit_test(test_copy_rules_t10dif),
		cmocka_unit_test(test_copy_rules_crc),
		cmocka_unit_test(test_reblocking),
		cmocka_unit_test(test_bad_lengths),
		cmocka_unit_test(test_rows_a_j),
		cmocka_unit_test(test_crypto_job_size),
		cmocka_unit_test(test_row_d_partial),
		cmocka_unit_test(test_partial_mapping),
		cmocka_unit_test(test_partial_crypto),
		cmocka_unit_test(test_partial_checks),
		cmocka_unit_test(test_invalid_struct_configs),
	};

	return cmocka_run_group_tests_name("dataplane transform", tests, NULL, NULL);
}
