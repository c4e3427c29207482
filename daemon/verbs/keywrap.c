/* SPDX-License-Identifier: MIT */
#include "daemon/verbs/keywrap.h"

#include <errno.h>
#include <gcrypt.h>
#include <string.h>

static int aes_algo(size_t kek_len)
{
	switch (kek_len) {
	case 16: return GCRY_CIPHER_AES128;
	case 24: return GCRY_CIPHER_AES192;
	case 32: return GCRY_CIPHER_AES256;
	}
	return 0;
}

int keywrap_unwrap(const uint8_t *kek, size_t kek_len, const uint8_t *in, size_t in_len,
		   uint8_t *out)
{
	int algo = aes_algo(kek_len);
	gcry_cipher_hd_t hd;
	gcry_error_t ge;

	if (!algo || in_len < 3 * KEYWRAP_OVERHEAD || in_len % KEYWRAP_OVERHEAD)
		return -EINVAL;
	/* GCRY_CIPHER_SECURE: the KEK's schedule lives in locked memory too. */
	ge = gcry_cipher_open(&hd, algo, GCRY_CIPHER_MODE_AESWRAP, GCRY_CIPHER_SECURE);
	if (ge)
		return -ENOMEM;
	ge = gcry_cipher_setkey(hd, kek, kek_len);
	if (!ge)
		ge = gcry_cipher_decrypt(hd, out, in_len - KEYWRAP_OVERHEAD, in, in_len);
	gcry_cipher_close(hd);
	if (ge) {
		explicit_bzero(out, in_len - KEYWRAP_OVERHEAD);
		return gcry_err_code(ge) == GPG_ERR_CHECKSUM ? -EBADMSG : -EINVAL;
	}
	return 0;
}
