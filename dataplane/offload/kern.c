/* SPDX-License-Identifier: MIT */
/*
 * Kernel levels and the dispatch of dp_sig_guard_blocks() (see kern.h).  The kernels are in
 * kern_fold.c (carry-less multiply folding), kern_crc32c.c (crc32 streams), kern_csum.c
 * (IP checksum) and kern512.c (all of them with 512-bit lanes); the portable path is ISA-L +
 * memcpy.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dataplane/offload/crc.h"
#include "dataplane/offload/kern.h"
#include "dataplane/offload/kern_impl.h"
#include "dataplane/offload/kern_selftest.h"

static const char *const level_names[DP_KERN_LEVELS] = {
	[DP_KERN_PORTABLE] = "portable",
	[DP_KERN_PCLMUL] = "pclmul",
	[DP_KERN_AVX2] = "avx2",
	[DP_KERN_VPCLMUL256] = "vpclmul256",
	[DP_KERN_VPCLMUL512] = "vpclmul512",
};

static bool supported[DP_KERN_LEVELS];
static const char *lacks[DP_KERN_LEVELS];      /* the first CPU feature a level needs and lacks */
static bool failed[DP_KERN_LEVELS];
static char selftest_result[DP_KERN_LEVELS][192];
static enum dp_kern_level level;
static enum dp_fold_isa fold_isa_128;          /* SSE or VEX encoding of the 128-bit folding */
static int env_status;

/* The feature's name when this CPU lacks it, else NULL (the builtin takes literals only). */
#define LACKS(feature) (__builtin_cpu_supports(feature) ? NULL : (feature))

static void probe_cpu(void)
{
	__builtin_cpu_init();
	lacks[DP_KERN_PCLMUL] = LACKS("pclmul") ?: LACKS("ssse3") ?: LACKS("sse4.1") ?: LACKS("sse4.2");
	lacks[DP_KERN_AVX2] = lacks[DP_KERN_PCLMUL] ?: LACKS("avx2");
	lacks[DP_KERN_VPCLMUL256] = lacks[DP_KERN_AVX2] ?: LACKS("vpclmulqdq");
	/* libgcc's answer for these includes the OS's: XCR0 enables the zmm state */
	lacks[DP_KERN_VPCLMUL512] = lacks[DP_KERN_VPCLMUL256] ?: LACKS("avx512f") ?: LACKS("avx512bw") ?:
				    LACKS("avx512vl");
	for (int l = 0; l < DP_KERN_LEVELS; l++)
		supported[l] = !lacks[l];
	fold_isa_128 = __builtin_cpu_supports("avx") ? DP_FOLD_AVX : DP_FOLD_SSE;
}

/* Self-test every level this CPU runs, then choose the best that passed (portable, the
 * reference, runs even if it failed: there is nothing below it), or the forced one. */
static void select_level(void)
{
	const char *forced = getenv(DP_KERN_LEVEL_ENV);
	char reason[160];

	env_status = 0;
	level = DP_KERN_PORTABLE;
	for (int l = 0; l < DP_KERN_LEVELS; l++) {
		failed[l] = false;
		if (!supported[l]) {
			snprintf(selftest_result[l], sizeof(selftest_result[l]), "not run: CPU lacks %s", lacks[l]);
			continue;
		}
		failed[l] = dp_kern_selftest((enum dp_kern_level)l, dp_kern_guard_blocks_at, reason, sizeof(reason)) < 0;
		snprintf(selftest_result[l], sizeof(selftest_result[l]), failed[l] ? "failed: %s" : "passed", reason);
		if (!failed[l])
			level = (enum dp_kern_level)l;
	}
	if (forced && *forced) {
		int l = dp_kern_level_parse(forced);

		if (l < 0)
			env_status = l;
		else if (!supported[l])
			env_status = -EOPNOTSUPP;
		else if (failed[l])
			env_status = -EIO;
		else
			level = (enum dp_kern_level)l;
	}
}

/* Once at load time, before main() (so before any worker thread); the self-tests take about
 * 2 ms (docs/decisions.md). */
__attribute__((constructor(102))) static void kern_level_init(void)
{
	probe_cpu();
	select_level();
}

void dp_kern_selftest_break(enum dp_kern_level l)
{
	dp_kern_selftest_set_broken((int)l);
	select_level();
}

const char *dp_kern_level_selftest(enum dp_kern_level l)
{
	return (unsigned)l < DP_KERN_LEVELS ? selftest_result[l] : "?";
}

bool dp_kern_level_usable(enum dp_kern_level l)
{
	return (unsigned)l < DP_KERN_LEVELS && supported[l] && !failed[l];
}

const char *dp_kern_level_name(enum dp_kern_level l)
{
	return (unsigned)l < DP_KERN_LEVELS ? level_names[l] : "?";
}

int dp_kern_level_parse(const char *name)
{
	for (int l = 0; l < DP_KERN_LEVELS; l++)
		if (strcmp(name, level_names[l]) == 0)
			return l;
	return -EINVAL;
}

bool dp_kern_level_supported(enum dp_kern_level l)
{
	return (unsigned)l < DP_KERN_LEVELS && supported[l];
}

enum dp_kern_level dp_kern_level_in_use(void)
{
	return level;
}

int dp_kern_env_status(void)
{
	return env_status;
}

int dp_kern_env_describe(char *buf, size_t size)
{
	const char *forced = getenv(DP_KERN_LEVEL_ENV) ? getenv(DP_KERN_LEVEL_ENV) : "";
	int l = dp_kern_level_parse(forced);
	size_t n;

	if (env_status == -EIO)
		n = (size_t)snprintf(buf, size, "%s=%s: its self-test %s (levels this CPU runs:", DP_KERN_LEVEL_ENV,
				     forced, selftest_result[l]);
	else
		n = (size_t)snprintf(buf, size, "%s=%s: %s (levels this CPU runs:", DP_KERN_LEVEL_ENV, forced,
				     env_status == -EINVAL ? "not a kernel level" : "this CPU cannot run it");
	for (l = 0; l < DP_KERN_LEVELS && n < size; l++)
		if (dp_kern_level_usable((enum dp_kern_level)l))
			n += (size_t)snprintf(buf + n, size - n, " %s", level_names[l]);
	if (n < size)
		snprintf(buf + n, size - n, ")");
	return env_status;
}

int dp_kern_set_level(enum dp_kern_level l)
{
	enum dp_kern_level old = level;

	if (!dp_kern_level_supported(l))
		return -EOPNOTSUPP;
	if (failed[l])
		return -EIO;
	level = l;
	return (int)old;
}

/* ---------------------------------------------------------------- dispatch */

static void portable_blocks(const struct dp_sig_domain *d, uint64_t *g, uint8_t *dst, size_t ds,
			    const uint8_t *src, size_t ss, size_t len, size_t n)
{
	bool t10crc = d->sig_type == DP_SIG_T10DIF && d->t10dif.bg_type == DP_T10DIF_BG_CRC;
	bool c64 = d->sig_type == DP_SIG_CRC && d->crc.type == DP_CRC_CRC64_XP10;

	for (size_t i = 0; i < n; i++, src += ss) {
		if (dst && t10crc) {
			g[i] = dp_crc16_t10dif_copy(d->t10dif.bg, dst, src, len);
		} else if (dst && c64) {
			g[i] = dp_crc64_xp10_copy(d->crc.seed, dst, src, len);
		} else {
			if (dst)
				memcpy(dst, src, len);
			g[i] = dp_sig_guard(d, src, len);
		}
		if (dst)
			dst += ds;
	}
}

void dp_sig_guard_blocks(const struct dp_sig_domain *d, uint64_t *g, uint8_t *dst, size_t ds,
			 const uint8_t *src, size_t ss, size_t len, size_t n)
{
	dp_kern_guard_blocks_at(level, d, g, dst, ds, src, ss, len, n);
}

void dp_kern_guard_blocks_at(enum dp_kern_level at, const struct dp_sig_domain *d, uint64_t *g,
			     uint8_t *dst, size_t ds, const uint8_t *src, size_t ss, size_t len, size_t n)
{
	bool csum = d->sig_type == DP_SIG_T10DIF && d->t10dif.bg_type == DP_T10DIF_BG_CSUM;
	uint64_t seed = d->sig_type == DP_SIG_T10DIF ? d->t10dif.bg : d->crc.seed;
	enum dp_fold_kind kind;
	size_t done;

	if (at == DP_KERN_PORTABLE || n == 0) {
		portable_blocks(d, g, dst, ds, src, ss, len, n);
		return;
	}
	if (at == DP_KERN_VPCLMUL512) {
		dp_kern512_guard_blocks(d, g, dst, ds, src, ss, len, n);
		return;
	}
	if (csum) {
		if (at >= DP_KERN_AVX2)
			dp_csum_blocks_avx2(d->t10dif.bg, g, dst, ds, src, ss, len, n);
		else
			portable_blocks(d, g, dst, ds, src, ss, len, n);
		return;
	}
	kind = dp_fold_kind_of(d);
	/* with 256-bit folding, CRC32C folds too: 4096-byte blocks x0.76 -> x0.95 of ISA-L's
	 * crc32_iscsi alone on Zen 3, 512-byte blocks the same as the crc32 streams */
	if (kind == DP_FOLD_CRC32C && at == DP_KERN_AVX2) {
		done = dp_crc32c_streams_blocks((uint32_t)seed, g, dst, ds, src, ss, len, n);
		if (done < n)
			portable_blocks(d, g + done, dst ? dst + done * ds : NULL, ds, src + done * ss, ss, len,
					n - done);
		return;
	}
	if (len < DP_FOLD_MIN_LEN) {
		portable_blocks(d, g, dst, ds, src, ss, len, n);
		return;
	}
	dp_fold_blocks(kind, at >= DP_KERN_VPCLMUL256 ? DP_FOLD_VPCLMUL256 : fold_isa_128, seed, g, dst, ds,
		       src, ss, len, n);
}
