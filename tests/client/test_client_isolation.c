/* SPDX-License-Identifier: MIT */
/*
 * Applications are apart (io.rdmad.Daemon.Attach): one program cannot
 * address another's objects, a connection that did not attach sees them
 * all, and what a program created goes when it closes, with what others
 * built on it.
 */
#include "tests/client/harness.h"
#include "lib/varlink/varlink.h"

#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

static const struct {
	const char *iface, *key;
} kinds[] = {
	{ "Pd", "pds" }, { "Mr", "mrs" }, { "Cq", "cqs" }, { "Qp", "qps" }, { "Ah", "ahs" },
	{ "Mkey", "mkeys" },
};
#define N_KINDS (sizeof(kinds) / sizeof(kinds[0]))

static void count_all(size_t counts[N_KINDS])
{
	for (size_t i = 0; i < N_KINDS; i++)
		counts[i] = harness_count(kinds[i].iface, kinds[i].key);
}

struct app {
	struct rdmad_context *ctx;
	struct rdmad_pd *pd;
	struct rdmad_mr *mr;
	struct rdmad_cq *cq;
	struct rdmad_qp *qp;
	struct rdmad_ah *ah;
	struct rdmad_mkey *mkey;
};

/* One object of every kind, as a program leaves them when it exits without cleaning up. */
static void app_create(struct app *a)
{
	struct rdmad_ah_attr av = { 0 };
	struct rdmad_qp_init_attr init = { .qp_type = RDMAD_QPT_RC };
	void *buf;

	a->ctx = harness_open();
	a->pd = rdmad_alloc_pd(a->ctx);
	assert_non_null(a->pd);
	buf = rdmad_alloc_buf(a->ctx, 4096);
	a->mr = rdmad_reg_mr(a->pd, buf, 4096, RDMAD_ACCESS_LOCAL_WRITE);
	a->cq = rdmad_create_cq(a->ctx, 4);
	init.send_cq = init.recv_cq = a->cq;
	a->qp = rdmad_create_qp(a->pd, &init);
	inet_pton(AF_INET6, "fe80::2", av.dgid);
	a->ah = rdmad_create_ah(a->pd, &av);
	a->mkey = rdmad_create_mkey(a->pd, 0, 4);
	assert_non_null(a->mr);
	assert_non_null(a->qp);
	assert_non_null(a->ah);
	assert_non_null(a->mkey);
}

static void test_close_reclaims_everything(void **state)
{
	size_t before[N_KINDS], during[N_KINDS], after[N_KINDS];
	size_t apps = harness_applications();
	struct app a;

	count_all(before);
	app_create(&a);
	count_all(during);
	for (size_t i = 0; i < N_KINDS; i++)
		assert_int_equal(during[i], before[i] + 1);
	assert_int_equal(harness_applications(), apps + 1);
	/* No destroy: closing is enough (the objects' descriptions leak, as ibverbs' would). */
	rdmad_close(a.ctx);
	harness_wait_applications(apps);
	count_all(after);
	for (size_t i = 0; i < N_KINDS; i++)
		assert_int_equal(after[i], before[i]);
	assert_int_equal(harness_applications(), apps);
}

static void test_other_applications_objects_are_not_there(void **state)
{
	struct rdmad_context *other = harness_open();
	struct app a;
	struct rdmad_qp_attr attr;
	char params[64];

	app_create(&a);
	/* The other program names a's objects by their handles: there is nothing there for it. */
	struct rdmad_pd pd = { .context = other, .handle = a.pd->handle };
	struct rdmad_cq cq = { .context = other, .handle = a.cq->handle };
	struct rdmad_qp qp = { .context = other, .qp_num = a.qp->qp_num, .pd = &pd };
	struct rdmad_mr mr = { .context = other, .handle = a.mr->handle };
	struct rdmad_mkey mkey = { .context = other, .lkey = a.mkey->lkey };
	struct rdmad_ah ah = { .context = other, .handle = a.ah->handle };

	/* (Polling a's CQ needs its rings, which rdmad handed to a alone.) */
	assert_int_equal(rdmad_query_qp(&qp, &attr, NULL), -ENOENT);
	assert_int_equal(rdmad_destroy_qp(&qp), -ENOENT);
	assert_int_equal(rdmad_destroy_ah(&ah), -ENOENT);
	assert_int_equal(rdmad_destroy_mkey(&mkey), -ENOENT);
	assert_int_equal(rdmad_dereg_mr(&mr), -ENOENT);
	assert_int_equal(rdmad_destroy_cq(&cq), -ENOENT);
	assert_int_equal(rdmad_dealloc_pd(&pd), -ENOENT);
	/* Nor can it build on them: a PD or CQs of a's are no PD or CQ to it. */
	struct rdmad_pd *own_pd = rdmad_alloc_pd(other);
	struct rdmad_cq *own_cq = rdmad_create_cq(other, 4);
	struct rdmad_qp_init_attr init = { .send_cq = &cq, .recv_cq = own_cq, .qp_type = RDMAD_QPT_RC };
	struct rdmad_ah_attr av = { 0 };
	void *buf = rdmad_alloc_buf(other, 4096);

	assert_non_null(own_pd);
	assert_non_null(own_cq);
	assert_null(rdmad_reg_mr(&pd, buf, 4096, RDMAD_ACCESS_LOCAL_WRITE));
	assert_int_equal(errno, ENOENT);
	assert_null(rdmad_create_mkey(&pd, 0, 4));
	assert_int_equal(errno, ENOENT);
	inet_pton(AF_INET6, "fe80::2", av.dgid);
	assert_null(rdmad_create_ah(&pd, &av));
	assert_int_equal(errno, ENOENT);
	assert_null(rdmad_create_qp(own_pd, &init));
	assert_int_equal(errno, ENOENT);
	assert_non_null(strstr(rdmad_last_error(), "NoSuchObject"));
	init.send_cq = own_cq;
	assert_null(rdmad_create_qp(&pd, &init));
	assert_int_equal(errno, ENOENT);
	/* A connection that did not attach (rdmactl's) sees it. */
	snprintf(params, sizeof(params), "{\"handle\": %u}", a.qp->qp_num);
	json_object_put(harness_call("io.rdmad.Qp.Show", params));
	/* And a's own calls still work. */
	assert_int_equal(rdmad_query_qp(a.qp, &attr, NULL), 0);
	rdmad_close(other);
	rdmad_close(a.ctx);
}

/* An attached connection's List shows its own objects only. */
static void test_list_shows_own_objects(void **state)
{
	struct varlink_client *attached;
	struct json_object *reply = NULL, *list;
	char *error = NULL;
	struct app a;
	int own;

	app_create(&a);
	assert_int_equal(varlink_client_connect(&attached, harness_socket()), 0);
	assert_int_equal(varlink_client_call(attached, "io.rdmad.Daemon.Attach", NULL, &reply, &error), 0);
	assert_null(error);
	json_object_put(reply);
	assert_int_equal(varlink_client_call(attached, "io.rdmad.Pd.Create", NULL, &reply, &error), 0);
	assert_null(error);
	own = json_object_get_int(json_object_object_get(json_object_object_get(reply, "pd"), "handle"));
	json_object_put(reply);
	assert_int_equal(varlink_client_call(attached, "io.rdmad.Pd.List", NULL, &reply, &error), 0);
	list = json_object_object_get(reply, "pds");
	assert_int_equal(json_object_array_length(list), 1);
	assert_int_equal(json_object_get_int(json_object_object_get(json_object_array_get_idx(list, 0),
								   "handle")), own);
	json_object_put(reply);
	/* Not attached, every PD shows. */
	assert_true(harness_count("Pd", "pds") >= 2);
	varlink_client_free(attached);
	rdmad_close(a.ctx);
}

static void test_borrowed_mkey_returns_on_close(void **state)
{
	struct rdmad_context *ctx = harness_open();
	struct rdmad_context *other = harness_open();
	size_t apps = harness_applications();
	struct rdmad_mkey *mkey, stolen;
	struct json_object *reply;

	json_object_put(harness_call("io.rdmad.Pool.Create",
				     "{\"name\": \"iso\", \"type\": \"signature\", \"size\": 2}"));
	mkey = rdmad_pool_borrow(ctx, "iso");
	assert_non_null(mkey);
	/* Another program cannot give it back. */
	stolen = *mkey;
	stolen.context = other;
	assert_int_equal(rdmad_pool_return(&stolen), -ENOENT);
	rdmad_close(ctx);
	harness_wait_applications(apps - 1);
	reply = harness_call("io.rdmad.Pool.Show", "{\"name\": \"iso\"}");
	assert_int_equal(json_object_get_int(json_object_object_get(
		json_object_object_get(reply, "pool"), "in_use")), 0);
	json_object_put(reply);
	json_object_put(harness_call("io.rdmad.Pool.Destroy", "{\"name\": \"iso\"}"));
	rdmad_close(other);
}

/*
 * rdmactl builds an MR on a program's PD: when the program goes, the PD goes
 * all the same, and the MR built on it with it (NoSuchObject from then on).
 */
static void test_objects_built_on_it_go_too(void **state)
{
	size_t pds = harness_count("Pd", "pds"), mrs = harness_count("Mr", "mrs"), apps = harness_applications();
	struct rdmad_context *ctx = harness_open();
	struct rdmad_pd *pd = rdmad_alloc_pd(ctx);
	/* The description goes with rdmad_close(): the handle is kept. */
	uint32_t pd_handle = pd->handle;
	struct json_object *reply;
	char params[96], *error;
	int mr;

	snprintf(params, sizeof(params), "{\"pd\": %u, \"size\": 4096, \"access\": []}", pd_handle);
	reply = harness_call("io.rdmad.Mr.Create", params);
	mr = json_object_get_int(json_object_object_get(json_object_object_get(reply, "mr"), "handle"));
	json_object_put(reply);
	assert_int_equal(harness_count("Mr", "mrs"), mrs + 1);
	rdmad_close(ctx);
	harness_wait_applications(apps);
	assert_int_equal(harness_count("Pd", "pds"), pds);
	assert_int_equal(harness_count("Mr", "mrs"), mrs);
	snprintf(params, sizeof(params), "{\"handle\": %d}", mr);
	error = harness_call_error("io.rdmad.Mr.Show", params);
	assert_string_equal(error, "io.rdmad.Mr.NoSuchObject");
	free(error);
	snprintf(params, sizeof(params), "{\"handle\": %u}", pd_handle);
	error = harness_call_error("io.rdmad.Pd.Destroy", params);
	assert_string_equal(error, "io.rdmad.Pd.NoSuchObject");
	free(error);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_close_reclaims_everything),
		cmocka_unit_test(test_other_applications_objects_are_not_there),
		cmocka_unit_test(test_list_shows_own_objects),
		cmocka_unit_test(test_borrowed_mkey_returns_on_close),
		cmocka_unit_test(test_objects_built_on_it_go_too),
	};

	return cmocka_run_group_tests_name("librdmad isolation and cleanup", tests, harness_start,
					   harness_stop);
}
