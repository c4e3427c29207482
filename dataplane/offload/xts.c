/* SPDX-License-Identifier: MIT */
/* AES-XTS per data unit through libgcrypt (see xts.h) */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <gcrypt.h>

#include "dataplane/offload/xts.h"

struct dp_xts {
	gcry_cipher_hd_t hd;
	unsigned key_bits;
};

static pthread_once_t gcry_once = PTHREAD_ONCE_INIT;
static int gcry_ok;

static void gcry_global_init(void)
{
	if (gcry_control(GCRYCTL_INITIALIZATION_FINISHED_P)) {
		gcry_ok = 1;            /* the application did it */
		return;
	}
	if (!gcry_check_version(GCRYPT_VERSION))
		return;
	gcry_control(GCRYCTL_SUSPEND_SECMEM_WARN);
	gcry_control(GCRYCTL_INIT_SECMEM, 65536, 0);
	gcry_control(GCRYCTL_RESUME_SECMEM_WARN);
	gcry_control(GCRYCTL_DISABLE_SECMEM_WARN);
	gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
	gcry_ok = 1;
}

int dp_crypto_global_init(struct dp_error *err)
{
	pthread_once(&gcry_once, gcry_global_init);
	if (!gcry_ok)
		return dp_error_set(err, ENOTSUP, "crypto", "libgcrypt %s or newer is required", GCRYPT_VERSION);
	return 0;
}

int dp_xts_create(const uint8_t *key, size_t key_len, struct dp_xts **out, struct dp_error *err)
{
	struct dp_xts *x;
	gcry_error_t ge;
	int algo;
	int rc;

	*out = NULL;
	if (!key || (key_len != 32 && key_len != 64))
		return dp_error_set(err, EINVAL, "key",
				    "AES-XTS key must be key1||key2: 32 bytes (AES-128-XTS) or 64 bytes (AES-256-XTS), got %zu",
				    key ? key_len : 0);
	if (memcmp(key, key + key_len / 2, key_len / 2) == 0)
		return dp_error_set(err, EINVAL, "key", "AES-XTS key halves key1 and key2 must differ");
	rc = dp_crypto_global_init(err);
	if (rc)
		return rc;
	x = calloc(1, sizeof(*x));
	if (!x)
		return dp_error_set(err, ENOMEM, "key", "out of memory");
	algo = key_len == 32 ? GCRY_CIPHER_AES128 : GCRY_CIPHER_AES256;
	ge = gcry_cipher_open(&x->hd, algo, GCRY_CIPHER_MODE_XTS, GCRY_CIPHER_SECURE);
	if (ge) {
		free(x);
		return dp_error_set(err, ENOTSUP, "key", "libgcrypt AES-XTS unavailable: %s", gcry_strerror(ge));
	}
	ge = gcry_cipher_setkey(x->hd, key, key_len);
	if (ge) {
		gcry_cipher_close(x->hd);
		free(x);
		return dp_error_set(err, EINVAL, "key", "libgcrypt refused the key: %s", gcry_strerror(ge));
	}
	x->key_bits = key_len == 32 ? 128 : 256;
	*out = x;
	return 0;
}

void dp_xts_destroy(struct dp_xts *x)
{
	if (!x)
		return;
	gcry_cipher_close(x->hd);      /* wipes the key schedule */
	free(x);
}

unsigned dp_xts_key_bits(const struct dp_xts *x)
{
	return x->key_bits;
}

void dp_tweak_add(uint8_t tweak[16], uint64_t n)
{
	unsigned carry = 0;

	for (int i = 0; i < 16; i++) {
		unsigned v = tweak[i] + (unsigned)(n & 0xff) + carry;

		tweak[i] = (uint8_t)v;
		carry = v >> 8;
		n >>= 8;
		if (!n && !carry)
			break;
	}
}

bool dp_xts_job_size_ok(size_t job, uint32_t dus)
{
	size_t rem;

	if (dus < 16)
		return false;
	rem = job % dus;
	if (rem == 0)
		return true;
	return job % 16 == 0 && rem <= dus - 16 && rem >= 16;
}

/* One data unit; the tweak is libgcrypt's XTS IV.  libgcrypt crypts in place when given no
 * source, so out == in takes that form. */
static int crypt_unit(struct dp_xts *x, bool encrypt, const uint8_t tweak[16], uint8_t *out,
		      const uint8_t *in, size_t len, struct dp_error *err)
{
	const uint8_t *src = out == in ? NULL : in;
	size_t srclen = src ? len : 0;
	gcry_error_t ge = gcry_cipher_setiv(x->hd, tweak, 16);

	if (!ge)
		ge = encrypt ? gcry_cipher_encrypt(x->hd, out, len, src, srclen)
			     : gcry_cipher_decrypt(x->hd, out, len, src, srclen);
	if (ge)
		return dp_error_set(err, EIO, "crypto", "libgcrypt AES-XTS failed: %s", gcry_strerror(ge));
	return 0;
}

static inline uint64_t le64_get(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	return v;
}

static inline void le64_put(uint8_t *p, uint64_t v)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	memcpy(p, &v, 8);
}

/* The running tweak is kept as two integers, not bumped byte-wise by dp_tweak_add: part of the
 * batched-call gain measured in docs/offload.md ("Batched crypto calls"). */
int dp_xts_crypt_units(struct dp_xts *x, bool encrypt, uint8_t tweak[16], uint8_t *out, size_t ostride,
		       const uint8_t *in, size_t istride, size_t len, size_t n, struct dp_error *err)
{
	uint64_t lo = le64_get(tweak), hi = le64_get(tweak + 8);
	uint8_t tw[16];
	int rc = 0;

	for (size_t i = 0; i < n; i++, out += ostride, in += istride) {
		le64_put(tw, lo);
		le64_put(tw + 8, hi);
		rc = crypt_unit(x, encrypt, tw, out, in, len, err);
		if (rc)
			break;
		hi += ++lo == 0;
	}
	le64_put(tweak, lo);
	le64_put(tweak + 8, hi);
	return rc;
}

int dp_xts_crypt(struct dp_xts *x, bool encrypt, const uint8_t initial_tweak[16], uint64_t first_unit,
		 uint32_t dus, void *out, const void *in, size_t len, struct dp_error *err)
{
	uint8_t tweak[16];
	size_t whole, tail;
	int rc;

	if (dus < 16)
		return dp_error_set(err, EINVAL, "crypto.data_unit_size", "data unit of %u bytes is below 16", dus);
	memcpy(tweak, initial_tweak, 16);
	dp_tweak_add(tweak, first_unit);
	whole = len / dus;
	tail = len % dus;
	rc = dp_xts_crypt_units(x, encrypt, tweak, out, dus, in, dus, dus, whole, err);
	if (rc || !tail)
		return rc;
	if (tail < 16)
		return dp_error_set(err, EINVAL, "input",
				    "last AES-XTS data unit is %zu bytes; XTS needs at least 16", tail);
	return crypt_unit(x, encrypt, tweak, (uint8_t *)out + whole * dus, (const uint8_t *)in + whole * dus,
			  tail, err);
}
