/* SPDX-License-Identifier: MIT */
/* Completion queues, and polling them through io.rdmad.Cq.Poll (the slow path). */
#include "client/internal.h"

#include <stdlib.h>
#include <string.h>

/* Cq.Poll takes at most this many per call. */
#define POLL_MAX 1024

struct rdmad_cq *rdmad_create_cq(struct rdmad_context *ctx, unsigned cqe)
{
	struct json_object *reply = NULL, *rec;
	struct rdmad_cq *cq = calloc(1, sizeof(*cq));
	int r;

	if (!cq)
		return client_fail_null(client_fail(-ENOMEM, "out of memory"));
	r = client_call(ctx, "io.rdmad.Cq.Create",
			client_add_u64(json_object_new_object(), "cqe", cqe), NULL, 0, &reply);
	if (r < 0) {
		free(cq);
		return client_fail_null(r);
	}
	rec = client_get(reply, "cq");
	*cq = (struct rdmad_cq){ .context = ctx, .handle = (uint32_t)client_get_u64(rec, "handle"),
				 .cqe = (uint32_t)client_get_u64(rec, "cqe") };
	json_object_put(reply);
	return client_hold(ctx, cq);
}

int rdmad_destroy_cq(struct rdmad_cq *cq)
{
	int r = client_destroy_handle(cq->context, "io.rdmad.Cq.Destroy", cq->handle);

	if (r == 0)
		client_release(cq->context, cq);
	return r;
}

/* The index of word in words[n], or fallback. */
static unsigned word_index(const char *word, const char *const *words, unsigned n, unsigned fallback)
{
	for (unsigned i = 0; i < n; i++)
		if (words[i] && !strcmp(word, words[i]))
			return i;
	return fallback;
}

static const char *const statuses[] = {
	"success", "loc_len_err", "loc_qp_op_err", "loc_prot_err", "wr_flush_err", "bad_resp_err",
	"loc_access_err", "rem_inv_req_err", "rem_access_err", "rem_op_err", "retry_exc_err",
	"rnr_retry_exc_err", "rem_abort_err", "fatal_err", "resp_timeout_err", "general_err",
};

/* By enum rdmad_wc_opcode; the gap between the RFC's and rdmad's own is NULL. */
static const char *const opcodes[] = {
	[RDMAD_WC_SEND] = "send", [RDMAD_WC_RDMA_WRITE] = "rdma_write",
	[RDMAD_WC_RDMA_READ] = "rdma_read", [RDMAD_WC_RECV] = "recv",
	[RDMAD_WC_RECV_RDMA_WITH_IMM] = "recv_rdma_with_imm", [RDMAD_WC_LOCAL_INV] = "local_inv",
	[RDMAD_WC_CONFIGURE] = "configure",
};

static uint32_t wc_flags(struct json_object *list)
{
	static const char *const words[] = { "grh", "with_imm", "with_inv" };
	uint32_t flags = 0;

	for (size_t i = 0; list && i < json_object_array_length(list); i++) {
		const char *w = json_object_get_string(json_object_array_get_idx(list, i));

		flags |= 1u << word_index(w ? w : "", words, 3, 31);
	}
	return flags & (RDMAD_WC_GRH | RDMAD_WC_WITH_IMM | RDMAD_WC_WITH_INV);
}

static void wc_from_json(struct rdmad_wc *wc, struct json_object *c)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = client_get_u64(c, "wr_id");
	wc->status = (uint8_t)word_index(client_get_str(c, "status"), statuses,
					 sizeof(statuses) / sizeof(statuses[0]), RDMAD_WC_GENERAL_ERR);
	wc->opcode = (uint8_t)word_index(client_get_str(c, "opcode"), opcodes,
					 sizeof(opcodes) / sizeof(opcodes[0]), RDMAD_WC_SEND);
	wc->byte_len = (uint32_t)client_get_u64(c, "byte_len");
	wc->imm_data = (uint32_t)client_get_u64(c, "imm");
	wc->qp_num = (uint32_t)client_get_u64(c, "qp");
	wc->src_qp = (uint32_t)client_get_u64(c, "src_qp");
	wc->wc_flags = wc_flags(client_get(c, "flags"));
}

int rdmad_poll_cq(struct rdmad_cq *cq, int n, struct rdmad_wc *wc)
{
	struct json_object *p = json_object_new_object(), *reply = NULL, *list;
	size_t got;
	int r;

	if (n <= 0) {
		json_object_put(p);
		return n == 0 ? 0 : client_fail(-EINVAL, "poll of %d completions", n);
	}
	client_add_u64(p, "handle", cq->handle);
	client_add_u64(p, "max", n < POLL_MAX ? (unsigned)n : POLL_MAX);
	r = client_call(cq->context, "io.rdmad.Cq.Poll", p, NULL, 0, &reply);
	if (r < 0)
		return r;
	list = client_get(reply, "completions");
	got = list ? json_object_array_length(list) : 0;
	/* rdmad gives at most max; more would be a broken daemon, not an overflow here. */
	if (got > (size_t)n)
		got = (size_t)n;
	for (size_t i = 0; i < got; i++)
		wc_from_json(&wc[i], json_object_array_get_idx(list, i));
	json_object_put(reply);
	return (int)got;
}
