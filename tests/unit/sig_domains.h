/* SPDX-License-Identifier: MIT */
/*
 * The guard domains the kernel tests run every level over: T10-DIF CRC and checksum guards
 * with seed 0 and 0xffff, CRC32, CRC32C and CRC64_XP10 with seed 0 and all ones; 512-byte
 * blocks (a caller sets other sizes).
 */
#pragma once

#include <string.h>

#include "dataplane/offload/sig.h"

#define SIG_DOMAINS 10

/* Fills d[0..SIG_DOMAINS-1]; returns SIG_DOMAINS. */
static inline int sig_domains(struct dp_sig_domain *d)
{
	int n = 0;

	for (int bgt = 0; bgt < 2; bgt++)
		for (int s = 0; s < 2; s++) {
			memset(&d[n], 0, sizeof(d[n]));
			d[n].sig_type = DP_SIG_T10DIF;
			d[n].block_size = 512;
			d[n].t10dif.bg_type = bgt ? DP_T10DIF_BG_CSUM : DP_T10DIF_BG_CRC;
			d[n].t10dif.bg = s ? 0xffff : 0;
			n++;
		}
	for (int ty = 0; ty < 3; ty++)
		for (int s = 0; s < 2; s++) {
			memset(&d[n], 0, sizeof(d[n]));
			d[n].sig_type = DP_SIG_CRC;
			d[n].block_size = 512;
			d[n].crc.type = (enum dp_crc_type)ty;
			d[n].crc.seed = s ? (ty == DP_CRC_CRC64_XP10 ? ~0ull : 0xffffffffull) : 0;
			n++;
		}
	return n;
}
