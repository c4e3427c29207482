/* SPDX-License-Identifier: MIT */
/*
 * The QP state machine against reference roce_virtio.md §3.1 (legal
 * transitions) and §3.2 (required and optional attributes per transition and
 * QP type), cell by cell.  The expected tables are written as the reference
 * prints them, kernel attribute names included; the names the virtio RFC has
 * no mask bit for (PKEY_INDEX, PORT, ALT_PATH, PATH_MIG_STATE,
 * EN_SQD_ASYNC_NOTIFY) are dropped, as §3.2 says the prototype drops them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "daemon/verbs/qp_state.h"

/* enum virtio_ib_qp_state's numbers, as plain ints. */
#define RESET 0
#define INIT 1
#define RTR 2
#define RTS 3
#define SQD 4
#define SQE 5
#define ERR 6
#define NSTATES 7

/* §3.1: 1 where the table has a tick. */
static const int legal[NSTATES][NSTATES] = {
	/*            RESET INIT RTR RTS SQD SQE ERR */
	[RESET] = {     1,   1,   0,  0,  0,  0,  0 },
	[INIT]  = {     1,   1,   1,  0,  0,  0,  1 },
	[RTR]   = {     1,   0,   0,  1,  0,  0,  1 },
	[RTS]   = {     1,   0,   0,  1,  1,  0,  1 },
	[SQD]   = {     1,   0,   0,  1,  1,  0,  1 },
	[SQE]   = {     1,   0,   0,  1,  0,  0,  1 },
	[ERR]   = {     1,   0,   0,  0,  0,  0,  1 },
};

/* §3.2, one row per transition with attributes; every other legal cell has none. */
static const struct {
	int from, to;
	const char *required[3], *optional[3];   /* RC, UC, UD */
} sets[] = {
	{ RESET, INIT,
	  { "PKEY_INDEX PORT ACCESS_FLAGS", "PKEY_INDEX PORT ACCESS_FLAGS", "PKEY_INDEX PORT QKEY" },
	  { "", "", "" } },
	{ INIT, INIT,
	  { "", "", "" },
	  { "PKEY_INDEX PORT ACCESS_FLAGS", "PKEY_INDEX PORT ACCESS_FLAGS", "PKEY_INDEX PORT QKEY" } },
	{ INIT, RTR,
	  { "AV PATH_MTU DEST_QPN RQ_PSN MAX_DEST_RD_ATOMIC MIN_RNR_TIMER",
	    "AV PATH_MTU DEST_QPN RQ_PSN", "" },
	  { "ALT_PATH ACCESS_FLAGS PKEY_INDEX", "ALT_PATH ACCESS_FLAGS PKEY_INDEX", "PKEY_INDEX QKEY" } },
	{ RTR, RTS,
	  { "TIMEOUT RETRY_CNT RNR_RETRY SQ_PSN MAX_QP_RD_ATOMIC", "SQ_PSN", "SQ_PSN" },
	  { "CUR_STATE ALT_PATH ACCESS_FLAGS MIN_RNR_TIMER PATH_MIG_STATE",
	    "CUR_STATE ALT_PATH ACCESS_FLAGS PATH_MIG_STATE", "CUR_STATE QKEY" } },
	{ RTS, RTS,
	  { "", "", "" },
	  { "CUR_STATE ACCESS_FLAGS ALT_PATH PATH_MIG_STATE MIN_RNR_TIMER",
	    "CUR_STATE ACCESS_FLAGS ALT_PATH PATH_MIG_STATE", "CUR_STATE QKEY" } },
	{ RTS, SQD,
	  { "", "", "" },
	  { "EN_SQD_ASYNC_NOTIFY", "EN_SQD_ASYNC_NOTIFY", "EN_SQD_ASYNC_NOTIFY" } },
	{ SQD, RTS,
	  { "", "", "" },
	  { "CUR_STATE ALT_PATH ACCESS_FLAGS MIN_RNR_TIMER PATH_MIG_STATE",
	    "CUR_STATE ALT_PATH ACCESS_FLAGS PATH_MIG_STATE", "CUR_STATE QKEY" } },
	{ SQD, SQD,
	  { "", "", "" },
	  { "PORT AV TIMEOUT RETRY_CNT RNR_RETRY MAX_QP_RD_ATOMIC MAX_DEST_RD_ATOMIC ALT_PATH "
	    "ACCESS_FLAGS PKEY_INDEX MIN_RNR_TIMER PATH_MIG_STATE",
	    "AV ALT_PATH ACCESS_FLAGS PKEY_INDEX PATH_MIG_STATE", "PKEY_INDEX QKEY" } },
	/* RC: "(n/a)", the QP never is in SQE; the kernel's cell is empty. */
	{ SQE, RTS,
	  { "", "", "" },
	  { "", "CUR_STATE ACCESS_FLAGS", "CUR_STATE QKEY" } },
};

/* §3.2's RFC mask bits, by the kernel's names; 0 for the names the RFC lacks. */
static uint32_t bit_of(const char *name)
{
	static const struct { const char *name; uint32_t bit; } bits[] = {
		{ "STATE", 1u << 0 }, { "CUR_STATE", 1u << 1 }, { "ACCESS_FLAGS", 1u << 2 },
		{ "QKEY", 1u << 3 }, { "AV", 1u << 4 }, { "PATH_MTU", 1u << 5 },
		{ "TIMEOUT", 1u << 6 }, { "RETRY_CNT", 1u << 7 }, { "RNR_RETRY", 1u << 8 },
		{ "RQ_PSN", 1u << 9 }, { "MAX_QP_RD_ATOMIC", 1u << 10 },
		{ "MIN_RNR_TIMER", 1u << 11 }, { "SQ_PSN", 1u << 12 },
		{ "MAX_DEST_RD_ATOMIC", 1u << 13 }, { "DEST_QPN", 1u << 15 },
		{ "PKEY_INDEX", 0 }, { "PORT", 0 }, { "ALT_PATH", 0 }, { "PATH_MIG_STATE", 0 },
		{ "EN_SQD_ASYNC_NOTIFY", 0 },
	};

	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		if (strcmp(bits[i].name, name) == 0)
			return bits[i].bit;
	fail_msg("unknown attribute %s in the expected table", name);
	return 0;
}

static uint32_t mask_of(const char *names)
{
	char buf[256], *save = NULL;
	uint32_t mask = 0;

	snprintf(buf, sizeof(buf), "%s", names);
	for (char *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save))
		mask |= bit_of(w);
	return mask;
}

/* The expected sets of one cell (both 0 for an illegal cell or one without attributes). */
static void expected(int from, int to, int type, uint32_t *req, uint32_t *opt)
{
	*req = *opt = 0;
	for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++)
		if (sets[i].from == from && sets[i].to == to) {
			*req = mask_of(sets[i].required[type]);
			*opt = mask_of(sets[i].optional[type]);
		}
}

/* Every attribute the RFC mask has a bit for (CAP and RATE_LIMIT aside). */
static const uint32_t all_attrs = (1u << 0) | (1u << 1) | (1u << 2) | (1u << 3) | (1u << 4) |
				  (1u << 5) | (1u << 6) | (1u << 7) | (1u << 8) | (1u << 9) |
				  (1u << 10) | (1u << 11) | (1u << 12) | (1u << 13) | (1u << 15);

static void test_state_numbers_and_names(void **state)
{
	static const char *const names[NSTATES] = { "reset", "init", "rtr", "rts", "sqd", "sqe", "err" };

	/* enum virtio_ib_qp_state numbers them 0..6 in this order. */
	for (int s = 0; s < NSTATES; s++) {
		assert_string_equal(rdma_qp_state_name(s), names[s]);
		assert_int_equal(rdma_qp_state_from_name(names[s]), s);
	}
	assert_int_equal(rdma_qp_state_from_name("RTS"), RTS);
	assert_int_equal(rdma_qp_state_from_name("ready"), -1);
	assert_int_equal(RDMA_QPS_COUNT, NSTATES);
	assert_int_equal(rdma_qp_type_from_name("ud"), RDMA_QPT_UD);
	assert_string_equal(rdma_qp_type_name(RDMA_QPT_RC), "rc");
	assert_int_equal(rdma_qp_type_from_name("gsi"), -1);
	assert_int_equal(RDMA_QP_ATTR_ALL, all_attrs);
}

static void test_attr_names(void **state)
{
	/* The RFC mask bits and the field names of virtio_rdma_cmd_modify_qp. */
	assert_string_equal(rdma_qp_attr_name(1u << 0), "state");
	assert_string_equal(rdma_qp_attr_name(1u << 1), "cur_state");
	assert_string_equal(rdma_qp_attr_name(1u << 2), "access");
	assert_string_equal(rdma_qp_attr_name(1u << 3), "qkey");
	assert_string_equal(rdma_qp_attr_name(1u << 4), "av");
	assert_string_equal(rdma_qp_attr_name(1u << 5), "path_mtu");
	assert_string_equal(rdma_qp_attr_name(1u << 6), "timeout");
	assert_string_equal(rdma_qp_attr_name(1u << 7), "retry_cnt");
	assert_string_equal(rdma_qp_attr_name(1u << 8), "rnr_retry");
	assert_string_equal(rdma_qp_attr_name(1u << 9), "rq_psn");
	assert_string_equal(rdma_qp_attr_name(1u << 10), "max_rd_atomic");
	assert_string_equal(rdma_qp_attr_name(1u << 11), "min_rnr_timer");
	assert_string_equal(rdma_qp_attr_name(1u << 12), "sq_psn");
	assert_string_equal(rdma_qp_attr_name(1u << 13), "max_dest_rd_atomic");
	assert_string_equal(rdma_qp_attr_name(1u << 15), "dest_qp_num");
	/* CAP and RATE_LIMIT: no transition allows them, so they have no name here. */
	assert_null(rdma_qp_attr_name(1u << 14));
	assert_null(rdma_qp_attr_name(1u << 16));
}

static void test_legal_transitions(void **state)
{
	for (int from = 0; from < NSTATES; from++)
		for (int to = 0; to < NSTATES; to++) {
			if ((int)rdma_qp_transition_legal(from, to) != legal[from][to])
				fail_msg("%s -> %s: legal %d, expected %d", rdma_qp_state_name(from),
					 rdma_qp_state_name(to), rdma_qp_transition_legal(from, to),
					 legal[from][to]);
		}
	/* The one the reference stresses: not in the table. */
	assert_false(rdma_qp_transition_legal(RESET, ERR));
}

static void test_attribute_sets(void **state)
{
	for (int type = 0; type < RDMA_QPT_COUNT; type++)
		for (int from = 0; from < NSTATES; from++)
			for (int to = 0; to < NSTATES; to++) {
				uint32_t req, opt;

				expected(from, to, type, &req, &opt);
				if (rdma_qp_attrs_required(type, from, to) != req ||
				    rdma_qp_attrs_optional(type, from, to) != opt)
					fail_msg("%s %s -> %s: required 0x%x optional 0x%x, expected 0x%x 0x%x",
						 rdma_qp_type_name(type), rdma_qp_state_name(from),
						 rdma_qp_state_name(to),
						 rdma_qp_attrs_required(type, from, to),
						 rdma_qp_attrs_optional(type, from, to), req, opt);
			}
}

/* One call of the check; the error's field, or "" when it passed. */
static const char *check(int type, int from, int to, uint32_t mask, enum rdma_error_code *code)
{
	static struct rdma_error err;
	int r;

	memset(&err, 0, sizeof(err));
	r = rdma_qp_transition_check(type, from, to, mask, &err);
	*code = err.code;
	if (r == 0) {
		assert_int_equal(err.code, RDMA_ERR_NONE);
		return "";
	}
	assert_true(r < 0);
	return err.field;
}

static void test_check_every_cell(void **state)
{
	enum rdma_error_code code;

	for (int type = 0; type < RDMA_QPT_COUNT; type++)
		for (int from = 0; from < NSTATES; from++)
			for (int to = 0; to < NSTATES; to++) {
				uint32_t req, opt, base = 1u << 0;

				if (!legal[from][to]) {
					assert_string_equal(check(type, from, to, base, &code), "state");
					assert_int_equal(code, RDMA_ERR_INVALID_STATE);
					continue;
				}
				expected(from, to, type, &req, &opt);
				/* The required set alone, and with every optional one. */
				assert_string_equal(check(type, from, to, base | req, &code), "");
				assert_string_equal(check(type, from, to, base | req | opt, &code), "");
				for (uint32_t bit = 1; bit <= (1u << 16); bit <<= 1) {
					if (!(all_attrs & bit) || bit == base)
						continue;
					if (req & bit) {
						/* Missing: refused naming it. */
						assert_string_equal(check(type, from, to, (base | req) & ~bit,
									  &code),
								    rdma_qp_attr_name(bit));
						assert_int_equal(code, RDMA_ERR_INVALID_ARGUMENT);
					} else if (!(opt & bit)) {
						/* Not allowed: refused naming it. */
						assert_string_equal(check(type, from, to, base | req | bit,
									  &code),
								    rdma_qp_attr_name(bit));
						assert_int_equal(code, RDMA_ERR_INVALID_ARGUMENT);
					}
				}
			}
}

static void test_cur_state_only_from_rtr_rts_sqd_sqe(void **state)
{
	/* ib_modify_qp_is_ok's separate rule, which the table must imply. */
	for (int type = 0; type < RDMA_QPT_COUNT; type++)
		for (int from = 0; from < NSTATES; from++)
			for (int to = 0; to < NSTATES; to++)
				if (rdma_qp_attrs_optional(type, from, to) & (1u << 1))
					assert_true(from == RTR || from == RTS || from == SQD ||
						    from == SQE);
}

static void test_messages_name_the_sets(void **state)
{
	struct rdma_error err;

	assert_true(rdma_qp_transition_check(RDMA_QPT_RC, INIT, RTR, (1u << 0) | (1u << 4), &err) < 0);
	assert_string_equal(err.field, "path_mtu");
	assert_string_equal(err.reason, "required for rc init -> rtr; required: av, path_mtu, rq_psn, "
			    "min_rnr_timer, max_dest_rd_atomic, dest_qp_num; optional: access");

	assert_true(rdma_qp_transition_check(RDMA_QPT_UD, RESET, INIT, (1u << 0) | (1u << 3) | (1u << 2),
					     &err) < 0);
	assert_string_equal(err.field, "access");
	assert_string_equal(err.reason, "not allowed for ud reset -> init; required: qkey; optional: none");

	assert_true(rdma_qp_transition_check(RDMA_QPT_RC, RESET, ERR, 1u << 0, &err) < 0);
	assert_int_equal(err.code, RDMA_ERR_INVALID_STATE);
	assert_string_equal(err.field, "state");
	assert_string_equal(err.reason, "reset -> err is not a legal transition; from reset: reset, init");

	assert_true(rdma_qp_transition_check(RDMA_QPT_UC, SQD, SQE, 1u << 0, &err) < 0);
	assert_string_equal(err.reason, "sqd -> sqe is not a legal transition; from sqd: reset, rts, "
			    "sqd, err");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_state_numbers_and_names),
		cmocka_unit_test(test_attr_names),
		cmocka_unit_test(test_legal_transitions),
		cmocka_unit_test(test_attribute_sets),
		cmocka_unit_test(test_check_every_cell),
		cmocka_unit_test(test_cur_state_only_from_rtr_rts_sqd_sqe),
		cmocka_unit_test(test_messages_name_the_sets),
	};

	return cmocka_run_group_tests_name("QP state machine", tests, NULL, NULL);
}
