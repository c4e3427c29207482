/* The start-up self-test of the kernel levels (dataplane/offload/kern_selftest.h): every level
 * this CPU runs passed it and the others say what the CPU lacks; it is fast; a level broken by
 * the test hook is refused, the next one down runs, the reason names the failing check, and
 * RDMAD_OFFLOAD_LEVEL cannot force it. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "dataplane/offload/kern.h"
#include "dataplane/offload/kern_impl.h"
#include "dataplane/offload/kern_selftest.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void test_results(void **state)
{
	(void)state;
	for (int l = 0; l < DP_KERN_LEVELS; l++) {
		const char *r = dp_kern_level_selftest((enum dp_kern_level)l);

		if (dp_kern_level_supported((enum dp_kern_level)l)) {
			assert_string_equal(r, "passed");
			assert_true(dp_kern_level_usable((enum dp_kern_level)l));
		} else {
			assert_true(strncmp(r, "not run: CPU lacks ", 19) == 0);
			assert_false(dp_kern_level_usable((enum dp_kern_level)l));
		}
	}
}

/* All the self-tests a start runs, well under 10 ms of CPU time (CPU time: the machine may be
 * busy with other tests; sanitizers slow everything tenfold). */
static void test_fast(void **state)
{
	char reason[160];
	double t0 = now_ms(), ms;
#if defined(__SANITIZE_ADDRESS__)
	const double limit = 100;
#else
	const double limit = 10;
#endif

	(void)state;
	for (int l = 0; l < DP_KERN_LEVELS; l++)
		if (dp_kern_level_supported((enum dp_kern_level)l))
			assert_int_equal(dp_kern_selftest((enum dp_kern_level)l, dp_kern_guard_blocks_at, reason, sizeof(reason)), 0);
	ms = now_ms() - t0;
	print_message("self-tests of every level this CPU runs: %.2f ms\n", ms);
	assert_true(ms < limit);
}

/* The known answers are each guard type's published value at every level. */
static void test_known_answers_cover_every_guard_type(void **state)
{
	bool t10crc = false, csum = false, crc[3] = { false, false, false };

	(void)state;
	for (size_t k = 0; k < dp_kern_known_answer_count; k++) {
		const struct dp_sig_domain *d = &dp_kern_known_answers[k].domain;

		if (d->sig_type == DP_SIG_T10DIF)
			*(d->t10dif.bg_type == DP_T10DIF_BG_CRC ? &t10crc : &csum) = true;
		else
			crc[d->crc.type] = true;
	}
	assert_true(t10crc && csum && crc[DP_CRC_CRC32] && crc[DP_CRC_CRC32C] && crc[DP_CRC_CRC64_XP10]);
}

static int best_usable_below(int l)
{
	while (--l >= 0 && !dp_kern_level_usable((enum dp_kern_level)l))
		;
	return l;
}

/* Break the best level this CPU runs: refused, the next one down runs, the reason says which
 * check failed; forcing it is refused with that reason.  Then break none: all pass again. */
static void test_broken_level_refused(void **state)
{
	enum dp_kern_level best = dp_kern_level_in_use(), next;
	char msg[320];

	(void)state;
	unsetenv(DP_KERN_LEVEL_ENV);
	dp_kern_selftest_break(DP_KERN_LEVELS);
	best = dp_kern_level_in_use();
	if (best == DP_KERN_PORTABLE)
		skip();
	next = (enum dp_kern_level)best_usable_below(best);
	dp_kern_selftest_break(best);
	assert_int_equal(dp_kern_level_in_use(), next);
	assert_false(dp_kern_level_usable(best));
	assert_true(dp_kern_level_supported(best));
	assert_string_equal(dp_kern_level_selftest(best),
			    "failed: known answer T10-DIF CRC (generate), block 2: 0xec7c, want 0xec7d");
	assert_string_equal(dp_kern_level_selftest(next), "passed");
	assert_int_equal(dp_kern_set_level(best), -EIO);
	assert_int_equal(dp_kern_env_status(), 0);

	setenv(DP_KERN_LEVEL_ENV, dp_kern_level_name(best), 1);
	dp_kern_selftest_break(best);
	assert_int_equal(dp_kern_env_status(), -EIO);
	assert_int_equal(dp_kern_level_in_use(), next);
	assert_int_equal(dp_kern_env_describe(msg, sizeof(msg)), -EIO);
	assert_non_null(strstr(msg, ": its self-test failed: known answer T10-DIF CRC"));
	assert_null(strstr(strstr(msg, "levels this CPU runs:"), dp_kern_level_name(best)));

	unsetenv(DP_KERN_LEVEL_ENV);
	dp_kern_selftest_break(DP_KERN_LEVELS);
	assert_int_equal(dp_kern_level_in_use(), best);
	assert_string_equal(dp_kern_level_selftest(best), "passed");
}

/* Forcing vpclmul512 on a CPU without AVX-512 is refused as for any level the CPU lacks: the
 * best level runs, and the status says why for programs to refuse to go on; on a CPU with it
 * (and its self-test passed), forcing it makes it the level in effect. */
static void test_force_vpclmul512(void **state)
{
	enum dp_kern_level best;
	char msg[320];

	(void)state;
	unsetenv(DP_KERN_LEVEL_ENV);
	dp_kern_selftest_break(DP_KERN_LEVELS);
	best = dp_kern_level_in_use();
	setenv(DP_KERN_LEVEL_ENV, "vpclmul512", 1);
	dp_kern_selftest_break(DP_KERN_LEVELS);
	if (dp_kern_level_usable(DP_KERN_VPCLMUL512)) {
		assert_int_equal(dp_kern_env_status(), 0);
		assert_int_equal(dp_kern_level_in_use(), DP_KERN_VPCLMUL512);
	} else {
		assert_false(dp_kern_level_supported(DP_KERN_VPCLMUL512));
		assert_int_equal(dp_kern_env_status(), -EOPNOTSUPP);
		assert_int_equal(dp_kern_level_in_use(), best);
		assert_int_equal(dp_kern_env_describe(msg, sizeof(msg)), -EOPNOTSUPP);
		assert_true(strstr(msg, "RDMAD_OFFLOAD_LEVEL=vpclmul512: this CPU cannot run it "
				    "(levels this CPU runs: portable") == msg);
		assert_null(strstr(msg, "vpclmul512)"));
		assert_int_equal(dp_kern_set_level(DP_KERN_VPCLMUL512), -EOPNOTSUPP);
		assert_true(strncmp(dp_kern_level_selftest(DP_KERN_VPCLMUL512), "not run: CPU lacks ", 19) == 0);
	}
	unsetenv(DP_KERN_LEVEL_ENV);
	dp_kern_selftest_break(DP_KERN_LEVELS);
	assert_int_equal(dp_kern_level_in_use(), best);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_results),
		cmocka_unit_test(test_fast),
		cmocka_unit_test(test_known_answers_cover_every_guard_type),
		cmocka_unit_test(test_broken_level_refused),
		cmocka_unit_test(test_force_vpclmul512),
	};

	return cmocka_run_group_tests_name("kernel level self-test", tests, NULL, NULL);
}
