/* bench_offload: the dataplane transform engine against the libraries called directly on the
 * same buffers, in the same run (issue 3 §6).  GB/s of payload (data bytes, fields excluded),
 * median of several samples; ratio = engine / direct.
 *
 *   direct references: ISA-L crc16_t10dif / crc16_t10dif_copy / crc32_iscsi / crc32_ieee /
 *   crc64_ecma_refl, libgcrypt AES-XTS (setiv + encrypt per data unit), OpenSSL 3 EVP aes-xts
 *   (init with the tweak + update per data unit), memcpy.  Each signature row also gives the
 *   engine's ratio to min(CRC alone, memcpy) measured in the same run: the limit of a
 *   one-pass transform on this core ("limit").  The guard kernel level in effect is in the
 *   first line (RDMAD_OFFLOAD_LEVEL forces one).
 *
 * BENCH_MS (default 120) sets the time per measurement; the whole run stays under ~20 s. */
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <gcrypt.h>
#include <isa-l/crc.h>
#include <isa-l/crc64.h>
#include <openssl/evp.h>

#include "dataplane/offload/crc.h"
#include "dataplane/offload/kern.h"
#include "dataplane/offload/transform.h"
#include "dataplane/offload/xts.h"

#define PAYLOAD (256u * 1024u)           /* data bytes per operation: stays in L2 */
#define BIG     (8u * 1024u * 1024u)     /* rows C and J also beyond L2 */
#define BUFCAP  (BIG / 512 * 520 + BIG / 512 * 16 + 8192)

static uint8_t *in_buf, *out_buf, *tmp_buf;
static double budget_ms = 120;
static volatile uint64_t sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

typedef void (*op_fn)(void *arg);

struct meas {
	op_fn fn;
	void *arg;
	size_t payload;
	double gbs;             /* result: median GB/s */
};

/* Measure several operations with their samples interleaved (A, B, C, A, B, C, ...; each round
 * starts at the next operation so that none always runs right after the same other one) so
 * that other load on the machine hits all of them alike.  Many short samples (NSAMPLE of
 * budget_ms / NSAMPLE each), median of each operation. */
#define NSAMPLE 61
static void measure_set(struct meas *m, int n)
{
	double s[8][NSAMPLE];
	int reps[8];

	for (int i = 0; i < n; i++) {
		double t0, per;

		m[i].fn(m[i].arg);              /* warm up */
		t0 = now();
		m[i].fn(m[i].arg);
		per = now() - t0;
		if (per < 1e-7)
			per = 1e-7;
		reps[i] = (int)(budget_ms / 1000.0 / NSAMPLE / per);
		if (reps[i] < 1)
			reps[i] = 1;
	}
	for (int k = 0; k < NSAMPLE; k++)
		for (int j = 0; j < n; j++) {
			int i = (j + k) % n;
			double t0;

			m[i].fn(m[i].arg);      /* one untimed call: its buffers back in cache */
			t0 = now();
			for (int r = 0; r < reps[i]; r++)
				m[i].fn(m[i].arg);
			s[i][k] = m[i].payload * (double)reps[i] / (now() - t0) / 1e9;
		}
	for (int i = 0; i < n; i++) {
		qsort(s[i], NSAMPLE, sizeof(double), cmp_d);
		m[i].gbs = s[i][NSAMPLE / 2];
	}
}

/* Buffers on 2 MiB pages where the kernel gives them (THP, madvise mode): physically
 * contiguous, so the engine's input + output (~520 KiB) spread evenly over the 1 MiB L2's sets
 * whatever pages a run happens to get.  With 4 KiB pages the placement varied from run to run
 * and cost the engine, which touches twice the bytes of a no-copy library call, up to 30 %
 * of some runs; the direct calls use the same buffers. */
static uint8_t *bench_alloc(void)
{
	size_t cap = (BUFCAP + (2u << 20) - 1) & ~(size_t)((2u << 20) - 1);
	uint8_t *p = aligned_alloc(2u << 20, cap);

	if (!p)
		abort();
	if (!getenv("BENCH_NOHP"))
		madvise(p, cap, MADV_HUGEPAGE);
	return p;
}

/* One CPU for the whole run (BENCH_CPU, default the one it starts on): no migration between
 * samples of the engine and of the direct calls. */
static void pin_cpu(void)
{
	const char *e = getenv("BENCH_CPU");
	int cpu = e ? atoi(e) : sched_getcpu();
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/* ---------------------------------------------------------------- engine runs */

struct eng {
	struct dp_transform *t;
	enum dp_dir dir;
	const uint8_t *in;
	size_t in_len;
};

static void op_engine(void *a)
{
	struct eng *e = a;
	size_t olen;

	if (dp_transform_run(e->t, e->dir, e->in, e->in_len, out_buf, BUFCAP, &olen, NULL, NULL))
		abort();
	sink += out_buf[0];
}

static struct dp_sig_domain t10dom(uint32_t bs)
{
	struct dp_sig_domain d;

	memset(&d, 0, sizeof(d));
	d.sig_type = DP_SIG_T10DIF;
	d.block_size = bs;
	d.t10dif.bg = 0xffff;
	d.t10dif.app_tag = 0x1234;
	d.t10dif.ref_tag = 77;
	d.t10dif.flags = DP_T10DIF_FLAG_REF_REMAP;
	return d;
}

static struct dp_sig_domain csumdom(uint32_t bs)
{
	struct dp_sig_domain d = t10dom(bs);

	d.t10dif.bg_type = DP_T10DIF_BG_CSUM;
	return d;
}

static struct dp_sig_domain crcdom(uint32_t bs, enum dp_crc_type ty)
{
	struct dp_sig_domain d;

	memset(&d, 0, sizeof(d));
	d.sig_type = DP_SIG_CRC;
	d.block_size = bs;
	d.crc.type = ty;
	d.crc.seed = ty == DP_CRC_CRC64_XP10 ? ~0ull : 0xffffffffu;
	return d;
}

static const uint8_t key64[64] = {
	1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26,
	27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50,
	51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64,
};

static struct dp_transform *mk(const struct dp_transform_cfg *c, size_t klen)
{
	struct dp_transform *t;
	struct dp_error err;

	if (dp_transform_create(c, c->crypto.enabled ? key64 : NULL, c->crypto.enabled ? klen : 0, &t, &err)) {
		fprintf(stderr, "bench: %s: %s\n", err.field, err.message);
		exit(1);
	}
	return t;
}

/* Prepare an input of PAYLOAD data bytes in the input domain of t by running the reverse
 * direction on raw data (so that checks pass). */
static size_t prepare_input(struct dp_transform *t, enum dp_dir dir, size_t raw_len)
{
	size_t n;

	if (dir == DP_TX)
		return raw_len;     /* callers using TX with a memory signature prepare it themselves */
	if (dp_transform_run(t, DP_TX, tmp_buf, raw_len, in_buf, BUFCAP, &n, NULL, NULL))
		abort();
	return n;
}

/* ---------------------------------------------------------------- direct references */

struct dir_arg {
	uint32_t bs;            /* block or data-unit size */
	size_t len;             /* payload */
	gcry_cipher_hd_t gh;
	EVP_CIPHER_CTX *ectx;
	const EVP_CIPHER *ecipher;
	bool enc;
	uint32_t dus;
};

static void op_memcpy(void *a)
{
	struct dir_arg *d = a;

	memcpy(out_buf, in_buf, d->len);
	sink += out_buf[1];
}

/* The direct references of the signature rows: one library call per block, alone or followed
 * by the copy the engine makes (output stride: block + field).  Inlined with the block
 * function constant, so no indirect call per block is measured. */
typedef uint64_t block_fn(const uint8_t *p, size_t n);

static inline __attribute__((always_inline)) void guards_alone(struct dir_arg *d, block_fn *guard)
{
	uint64_t s = 0;

	for (size_t o = 0; o < d->len; o += d->bs)
		s += guard(in_buf + o, d->bs);
	sink += s;
}

static inline __attribute__((always_inline)) void guards_then_copy(struct dir_arg *d, block_fn *guard,
								    size_t field)
{
	uint64_t s = 0;
	uint8_t *o = out_buf;

	for (size_t i = 0; i < d->len; i += d->bs) {
		s += guard(in_buf + i, d->bs);
		memcpy(o, in_buf + i, d->bs);
		o += d->bs + field;
	}
	sink += s;
}

static uint64_t t10dif_block(const uint8_t *p, size_t n)
{
	return crc16_t10dif(0xffff, p, n);
}

static uint64_t crc32c_block(const uint8_t *p, size_t n)
{
	return crc32_iscsi((uint8_t *)p, (int)n, 0xffffffff);
}

static uint64_t crc32_ieee_block(const uint8_t *p, size_t n)
{
	return crc32_ieee(0, p, n);
}

static uint64_t csum_block(const uint8_t *p, size_t n)    /* no library has it */
{
	return dp_ip_csum(0xffff, p, n);
}

static uint64_t crc64_ecma_block(const uint8_t *p, size_t n)
{
	return crc64_ecma_refl(~0ull, p, n);
}

static uint64_t own_crc64_block(const uint8_t *p, size_t n)
{
	return dp_crc64_xp10(~0ull, p, n);
}

static void op_isal_t10dif(void *a)       /* guard per block, no copy */
{
	guards_alone(a, t10dif_block);
}

static void op_isal_t10dif_copy(void *a)  /* guard + copy + field per block (the same work) */
{
	struct dir_arg *d = a;
	uint8_t *o = out_buf;

	for (size_t i = 0; i < d->len; i += d->bs) {
		uint16_t g = crc16_t10dif_copy(0xffff, o, in_buf + i, d->bs);

		o += d->bs;
		o[0] = (uint8_t)(g >> 8);
		o[1] = (uint8_t)g;
		memset(o + 2, 0, 6);
		o += 8;
	}
	sink += out_buf[2];
}

static void op_isal_crc32c(void *a)
{
	guards_alone(a, crc32c_block);
}

static void op_isal_crc32c_copy(void *a)   /* the same work as the engine: CRC + copy */
{
	guards_then_copy(a, crc32c_block, 4);
}

static void op_isal_crc32_ieee(void *a)
{
	guards_alone(a, crc32_ieee_block);
}

static void op_isal_crc32_ieee_copy(void *a)
{
	guards_then_copy(a, crc32_ieee_block, 4);
}

static void op_own_csum(void *a)
{
	guards_alone(a, csum_block);
}

static void op_own_csum_copy(void *a)
{
	guards_then_copy(a, csum_block, 8);
}

static void op_isal_crc64_ecma(void *a)
{
	guards_alone(a, crc64_ecma_block);
}

static void op_own_crc64(void *a)
{
	guards_alone(a, own_crc64_block);
}

static void gcry_units(struct dir_arg *d, uint8_t *dst, const uint8_t *src, size_t len)
{
	uint8_t tw[16] = { 0 };
	uint64_t j = 0;

	for (size_t o = 0; o < len; o += d->dus, j++) {
		size_t n = len - o < d->dus ? len - o : d->dus;

		memcpy(tw, &j, 8);
		gcry_cipher_setiv(d->gh, tw, 16);
		if (d->enc)
			gcry_cipher_encrypt(d->gh, dst + o, n, src + o, n);
		else
			gcry_cipher_decrypt(d->gh, dst + o, n, src + o, n);
	}
}

static void op_gcry_xts(void *a)
{
	struct dir_arg *d = a;

	gcry_units(d, out_buf, in_buf, d->len);
	sink += out_buf[3];
}

static void op_ossl_xts(void *a)
{
	struct dir_arg *d = a;
	uint8_t tw[16] = { 0 };
	uint64_t j = 0;
	int ol;

	for (size_t o = 0; o < d->len; o += d->dus, j++) {
		memcpy(tw, &j, 8);
		EVP_CipherInit_ex(d->ectx, NULL, NULL, NULL, tw, d->enc);
		EVP_CipherUpdate(d->ectx, out_buf + o, &ol, in_buf + o, (int)d->dus);
	}
	sink += out_buf[4];
}

/* Row C the library way, one after the other: T10-DIF insert pass (ISA-L), then AES-XTS over
 * the 520-byte units (libgcrypt). */
static void op_rowc_separate(void *a)
{
	struct dir_arg *d = a;
	size_t wl = d->len / 512 * 520;

	op_isal_t10dif_copy(&(struct dir_arg){ .bs = 512, .len = d->len });
	gcry_units(d, out_buf, out_buf, wl);
	sink += out_buf[5];
}

/* Row J TX the library way: check the T10-DIF of enc(data)+SIG blocks (ISA-L) while stripping,
 * then decrypt the data (libgcrypt, 512-byte units). */
static void op_rowj_separate(void *a)
{
	struct dir_arg *d = a;
	uint8_t *o = out_buf;
	uint64_t bad = 0;

	for (size_t i = 0; i < d->len / 512; i++) {
		const uint8_t *b = in_buf + i * 520;
		uint16_t g = crc16_t10dif_copy(0xffff, o, (uint8_t *)b, 512);

		bad += g != (uint16_t)(b[512] << 8 | b[513]);
		o += 512;
	}
	gcry_units(d, out_buf, out_buf, d->len);
	sink += bad + out_buf[6];
}

/* Row J RX the library way: encrypt the raw 512-byte units (libgcrypt), then copy each into its
 * block with its T10-DIF field (ISA-L), tmp_buf -> in_buf -> out_buf. */
static void op_rowj_rx_separate(void *a)
{
	struct dir_arg *d = a;
	uint8_t *o = out_buf;

	gcry_units(d, in_buf, tmp_buf, d->len);
	for (size_t i = 0; i < d->len; i += 512, o += 520) {
		uint16_t g = crc16_t10dif_copy(0xffff, o, in_buf + i, 512);

		o[512] = (uint8_t)(g >> 8);
		o[513] = (uint8_t)g;
		memset(o + 514, 0, 6);
	}
	sink += out_buf[7];
}

/* ---------------------------------------------------------------- report */

static void row(const char *name, double eng, const char *ref1, double r1, const char *ref2, double r2,
		const char *ref3, double r3, double limit)
{
	printf("%-32s engine %6.2f GB/s", name, eng);
	if (ref1)
		printf(" | %s %6.2f x%.2f", ref1, r1, eng / r1);
	if (ref2)
		printf(" | %s %6.2f x%.2f", ref2, r2, eng / r2);
	if (ref3)
		printf(" | %s %6.2f x%.2f", ref3, r3, eng / r3);
	if (limit > 0)
		printf(" | limit x%.2f", eng / limit);
	printf("\n");
	fflush(stdout);
}

/* Issue 3 targets: one line per config saying whether it is met (ratio of medians). */
static int n_met, n_cfg;
static const char *only;        /* BENCH_ONLY: run the configs whose name contains it */

static void target(const char *name, double ratio, double need, bool strict, const char *what)
{
	bool met = strict ? ratio > need : ratio >= need;

	n_cfg++;
	n_met += met;
	printf("  target %-30s %s %.2f x %s: x%.2f  %s\n", name, strict ? ">" : ">=", need, what, ratio,
	       met ? "met" : "NOT MET");
	fflush(stdout);
}

static bool selected(const char *name)
{
	return !only || strstr(name, only);
}

/* What a signature row is compared with: the library's CRC of each block alone, the same with
 * the copy the engine makes, and the issue 3 target on the first. */
struct sig_refs {
	op_fn alone, with_copy;
	const char *alone_name, *copy_name, *target_name;
	double target;
};

static struct sig_refs sig_refs_of(const struct dp_sig_domain *dom)
{
	if (dom->sig_type == DP_SIG_T10DIF && dom->t10dif.bg_type == DP_T10DIF_BG_CSUM)
		return (struct sig_refs){ op_own_csum, op_own_csum_copy, "own csum", "own csum+memcpy",
					  "own ip csum (no copy)", 0.9 };
	if (dom->sig_type == DP_SIG_T10DIF)
		return (struct sig_refs){ op_isal_t10dif, op_isal_t10dif_copy, "isal crc16", "isal crc16+copy",
					  "isal crc16_t10dif", 0.9 };
	switch (dom->crc.type) {
	case DP_CRC_CRC32:
		return (struct sig_refs){ op_isal_crc32_ieee, op_isal_crc32_ieee_copy, "isal crc32_ieee",
					  "isal crc32_ieee+memcpy", "isal crc32_ieee", 0.9 };
	case DP_CRC_CRC32C:
		return (struct sig_refs){ op_isal_crc32c, op_isal_crc32c_copy, "isal crc32_iscsi",
					  "isal crc32_iscsi+memcpy", "isal crc32_iscsi", 0.9 };
	default:
		return (struct sig_refs){ op_isal_crc64_ecma, op_own_crc64, "isal crc64_ecma",
					  "own crc64 (no copy)", "isal crc64_ecma", 1.0 };
	}
}

static void bench_sig(const char *label, struct dp_sig_domain dom, bool generate)
{
	struct dp_transform_cfg c;
	struct dp_transform *t;
	struct eng e;
	struct dir_arg d = { .bs = dom.block_size, .len = PAYLOAD };
	struct sig_refs refs = sig_refs_of(&dom);
	char name[64];

	snprintf(name, sizeof(name), "%s %s %u", label, generate ? "generate" : "verify", dom.block_size);
	if (!selected(name))
		return;
	dp_transform_cfg_init(&c);
	c.wire = dom;
	t = mk(&c, 0);
	e.t = t;
	e.dir = generate ? DP_TX : DP_RX;
	e.in = in_buf;
	e.in_len = generate ? PAYLOAD : prepare_input(t, DP_RX, PAYLOAD);
	{
		struct meas m[4] = {
			{ op_engine, &e, PAYLOAD, 0 },
			{ op_memcpy, &d, PAYLOAD, 0 },
			{ refs.alone, &d, PAYLOAD, 0 },
			{ refs.with_copy, &d, PAYLOAD, 0 },
		};
		double eng, alone, with_copy, mcpy;

		measure_set(m, 4);
		eng = m[0].gbs;
		mcpy = m[1].gbs;
		alone = m[2].gbs;
		with_copy = m[3].gbs;
		row(name, eng, refs.alone_name, alone, refs.copy_name, with_copy, "memcpy", mcpy,
		    alone < mcpy ? alone : mcpy);
		target(name, eng / alone, refs.target, false, refs.target_name);
	}
	dp_transform_destroy(t);
}

static void bench_xts(size_t klen, uint32_t dus, bool enc)
{
	struct dp_transform_cfg c;
	struct dp_transform *t;
	struct eng e;
	struct dir_arg d = { .len = PAYLOAD, .dus = dus, .enc = enc };
	double eng, r1, r2;
	char name[64];

	snprintf(name, sizeof(name), "AES-%zu-XTS %s unit %u", klen * 4, enc ? "encrypt" : "decrypt", dus);
	if (!selected(name))
		return;
	dp_transform_cfg_init(&c);
	c.crypto.enabled = true;
	c.crypto.encrypt_on_tx = true;
	c.crypto.data_unit_size = dus;
	t = mk(&c, klen);
	e.t = t;
	e.dir = enc ? DP_TX : DP_RX;
	e.in = in_buf;
	e.in_len = PAYLOAD / dus * dus;
	d.len = e.in_len;
	gcry_cipher_open(&d.gh, klen == 32 ? GCRY_CIPHER_AES128 : GCRY_CIPHER_AES256, GCRY_CIPHER_MODE_XTS, 0);
	gcry_cipher_setkey(d.gh, key64, klen);
	d.ectx = EVP_CIPHER_CTX_new();
	d.ecipher = klen == 32 ? EVP_aes_128_xts() : EVP_aes_256_xts();
	EVP_CipherInit_ex(d.ectx, d.ecipher, NULL, key64, NULL, enc);
	{
		struct meas m[3] = { { op_engine, &e, e.in_len, 0 }, { op_gcry_xts, &d, d.len, 0 },
				     { op_ossl_xts, &d, d.len, 0 } };

		measure_set(m, 3);
		eng = m[0].gbs;
		r1 = m[1].gbs;
		r2 = m[2].gbs;
	}
	row(name, eng, "libgcrypt", r1, "openssl", r2, NULL, 0, 0);
	target(name, eng / r1, 0.9, false, "libgcrypt");
	EVP_CIPHER_CTX_free(d.ectx);
	gcry_cipher_close(d.gh);
	dp_transform_destroy(t);
}

static void bench_rows(size_t payload)
{
	struct dp_transform_cfg c;
	struct dp_transform *t;
	struct eng e;
	struct dir_arg d = { .len = payload, .enc = true };
	char name[96];
	double eng, r1;
	size_t n;

	/* Row C: data | enc(data+SIG), 520-byte units, AES-256 */
	snprintf(name, sizeof(name), "row C tx T10+XTS256/520 %zuK", payload / 1024);
	if (!selected(name))
		goto row_j;
	dp_transform_cfg_init(&c);
	c.wire = t10dom(512);
	c.wire.t10dif.app_tag = 0;
	c.wire.t10dif.flags = 0;
	c.wire.t10dif.ref_tag = 0;
	c.crypto.enabled = true;
	c.crypto.encrypt_on_tx = true;
	c.crypto.order = DP_SIG_BEFORE_CRYPTO_ON_TX;
	c.crypto.data_unit_size = 520;
	t = mk(&c, 64);
	e = (struct eng){ t, DP_TX, in_buf, payload };
	gcry_cipher_open(&d.gh, GCRY_CIPHER_AES256, GCRY_CIPHER_MODE_XTS, 0);
	gcry_cipher_setkey(d.gh, key64, 64);
	d.dus = 520;
	{
		struct meas m[2] = { { op_engine, &e, payload, 0 }, { op_rowc_separate, &d, payload, 0 } };

		measure_set(m, 2);
		eng = m[0].gbs;
		r1 = m[1].gbs;
	}
	row(name, eng, "isal then libgcrypt", r1, NULL, 0, NULL, 0, 0);
	target(name, eng / r1, 1.0, true, "ISA-L then libgcrypt");
	gcry_cipher_close(d.gh);
	dp_transform_destroy(t);

row_j:
	snprintf(name, sizeof(name), "row J tx T10+XTS256/512 %zuK", payload / 1024);
	if (!selected(name))
		return;

	/* Row J tx: enc(data)+SIG | data, check + strip + decrypt, 512-byte units */
	dp_transform_cfg_init(&c);
	c.mem = t10dom(512);
	c.mem.t10dif.app_tag = 0;
	c.mem.t10dif.flags = 0;
	c.mem.t10dif.ref_tag = 0;
	c.crypto.enabled = true;
	c.crypto.encrypt_on_tx = false;
	c.crypto.order = DP_SIG_BEFORE_CRYPTO_ON_TX;
	c.crypto.data_unit_size = 512;
	t = mk(&c, 64);
	gcry_cipher_open(&d.gh, GCRY_CIPHER_AES256, GCRY_CIPHER_MODE_XTS, 0);
	gcry_cipher_setkey(d.gh, key64, 64);
	/* memory bytes: rx of raw data (encrypt on rx, then generate the memory field) */
	if (dp_transform_run(t, DP_RX, tmp_buf, payload, in_buf, BUFCAP, &n, NULL, NULL))
		abort();
	e = (struct eng){ t, DP_TX, in_buf, n };
	d.dus = 512;
	d.enc = false;
	{
		struct meas m[2] = { { op_engine, &e, payload, 0 }, { op_rowj_separate, &d, payload, 0 } };

		measure_set(m, 2);
		eng = m[0].gbs;
		r1 = m[1].gbs;
	}
	row(name, eng, "isal then libgcrypt", r1, NULL, 0, NULL, 0, 0);
	target(name, eng / r1, 1.0, true, "ISA-L then libgcrypt");

	/* Row J rx: data | enc(data)+SIG, encrypt + generate: the guard of each unit computed
	 * after the cipher, while the unit is in L1 (transform_steps.c steps_crypt_generate) */
	snprintf(name, sizeof(name), "row J rx T10+XTS256/512 %zuK", payload / 1024);
	if (selected(name)) {
		struct meas m[2] = { { op_engine, &e, payload, 0 }, { op_rowj_rx_separate, &d, payload, 0 } };

		e = (struct eng){ t, DP_RX, tmp_buf, payload };
		d.enc = true;
		measure_set(m, 2);
		row(name, m[0].gbs, "libgcrypt then isal", m[1].gbs, NULL, 0, NULL, 0, 0);
	}
	gcry_cipher_close(d.gh);
	dp_transform_destroy(t);
}

/* The guard kernels alone at each level (dp_sig_guard_blocks, 4096-byte blocks with the copy,
 * PAYLOAD bytes a call), a level this CPU cannot run shown as its self-test says. */
struct kern_arg {
	struct dp_sig_domain d;
	uint64_t g[PAYLOAD / 4096];
};

static void op_kern(void *a)
{
	struct kern_arg *k = a;

	dp_sig_guard_blocks(&k->d, k->g, out_buf, 4104, in_buf, 4096, 4096, PAYLOAD / 4096);
	sink += k->g[0];
}

static void bench_levels(void)
{
	static struct kern_arg k[5];
	enum dp_kern_level old = dp_kern_level_in_use();

	k[0].d = t10dom(4096);
	k[1].d = crcdom(4096, DP_CRC_CRC32C);
	k[2].d = crcdom(4096, DP_CRC_CRC64_XP10);
	k[3].d = crcdom(4096, DP_CRC_CRC32);
	k[4].d = csumdom(4096);
	printf("# guard kernels alone, 4096-byte blocks copied, GB/s: T10-DIF CRC32C CRC64_XP10 CRC32 csum\n");
	for (int l = 0; l < DP_KERN_LEVELS; l++) {
		char name[48];
		struct meas m[5];

		snprintf(name, sizeof(name), "level %s", dp_kern_level_name((enum dp_kern_level)l));
		if (!selected(name))
			continue;
		if (dp_kern_set_level((enum dp_kern_level)l) < 0) {
			printf("%-32s %s\n", name, dp_kern_level_selftest((enum dp_kern_level)l));
			continue;
		}
		for (int i = 0; i < 5; i++)
			m[i] = (struct meas){ op_kern, &k[i], PAYLOAD, 0 };
		measure_set(m, 5);
		printf("%-32s %6.2f %6.2f %6.2f %6.2f %6.2f\n", name, m[0].gbs, m[1].gbs, m[2].gbs, m[3].gbs, m[4].gbs);
	}
	fflush(stdout);
	dp_kern_set_level(old);
}

int main(void)
{
	const char *ms = getenv("BENCH_MS");
	double t0 = now();

	if (ms && atof(ms) > 0)
		budget_ms = atof(ms);
	only = getenv("BENCH_ONLY");
	if (dp_crypto_global_init(NULL))
		return 1;
	if (dp_kern_env_status() < 0) {
		char msg[160];

		dp_kern_env_describe(msg, sizeof(msg));
		fprintf(stderr, "bench_offload: %s\n", msg);
		return 1;
	}
	pin_cpu();
	in_buf = bench_alloc();
	out_buf = bench_alloc();
	tmp_buf = bench_alloc();
	for (size_t i = 0; i < BUFCAP; i++)
		in_buf[i] = tmp_buf[i] = (uint8_t)(i * 131 + 7);
	printf("# bench_offload: %u KiB payload per operation, median of %d interleaved samples on CPU %d, "
	       "ratio = engine / direct, guard kernels %s\n", PAYLOAD / 1024, NSAMPLE, sched_getcpu(),
	       dp_kern_level_name(dp_kern_level_in_use()));
	bench_sig("T10-DIF", t10dom(512), true);
	bench_sig("T10-DIF", t10dom(512), false);
	bench_sig("T10-DIF", t10dom(4096), true);
	bench_sig("T10-DIF", t10dom(4096), false);
	bench_sig("CRC32C", crcdom(512, DP_CRC_CRC32C), true);
	bench_sig("CRC32C", crcdom(4096, DP_CRC_CRC32C), true);
	bench_sig("CRC32C", crcdom(4096, DP_CRC_CRC32C), false);
	bench_sig("CRC64_XP10", crcdom(512, DP_CRC_CRC64_XP10), true);
	bench_sig("CRC64_XP10", crcdom(4096, DP_CRC_CRC64_XP10), true);
	bench_sig("CRC64_XP10", crcdom(4096, DP_CRC_CRC64_XP10), false);
	bench_sig("CRC32", crcdom(512, DP_CRC_CRC32), true);
	bench_sig("CRC32", crcdom(4096, DP_CRC_CRC32), true);
	bench_sig("T10-DIF csum", csumdom(4096), true);
	bench_xts(64, 512, true);
	bench_xts(64, 512, false);
	bench_xts(64, 4096, true);
	bench_xts(64, 4096, false);
	bench_xts(32, 512, true);
	bench_xts(32, 4096, true);
	bench_rows(PAYLOAD);
	bench_rows(BIG);
	bench_levels();
	printf("# targets met: %d of %d\n", n_met, n_cfg);
	printf("# total %.1f s\n", now() - t0);
	free(in_buf);
	free(out_buf);
	free(tmp_buf);
	return (int)(sink & 0);
}
