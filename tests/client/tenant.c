/* SPDX-License-Identifier: MIT */
/*
 * rdmad-tenant: two programs of client.bats that share a device.
 *
 *   rdmad-tenant victim
 *	Two RC QPs connected to each other and 64 KiB of memory (bytes 0xa5)
 *	others could WRITE and READ; prints
 *	"qpn A B rkey K addr X pd P" and waits for SIGUSR1, then says whether
 *	its bytes are "unchanged" (exit 0) or "changed" (exit 3).
 *   rdmad-tenant hijack QPN RKEY ADDR
 *	Connects a QP of its own to QPN, takes it to RTS, WRITEs 64 bytes to
 *	ADDR with RKEY, then from a second QP READs 64 bytes from there; prints
 *	"write STATUS" and "read STATUS" (the completions' statuses) and
 *	"read_landed yes|no" (whether bytes came into its buffer).
 */
#include <rdmad/rdmad.h>

#include <arpa/inet.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BYTES   65536
#define PATTERN 0xa5
#define OWN     0x11

static void die(const char *what)
{
	fprintf(stderr, "rdmad-tenant: %s: %s (%s)\n", what, strerror(errno), rdmad_last_error());
	_exit(1);
}

#define MUST(expr, what) do { if (!(expr)) die(what); } while (0)

struct tenant {
	struct rdmad_context *ctx;
	struct rdmad_pd *pd;
	struct rdmad_cq *cq;
	uint8_t *buf;
	struct rdmad_mr *mr;
};

static void tenant_open(struct tenant *t)
{
	MUST(t->ctx = rdmad_open(NULL, NULL), "rdmad_open");
	MUST(t->pd = rdmad_alloc_pd(t->ctx), "rdmad_alloc_pd");
	MUST(t->cq = rdmad_create_cq(t->ctx, 16), "rdmad_create_cq");
	MUST(t->buf = rdmad_alloc_buf(t->ctx, BYTES), "rdmad_alloc_buf");
	MUST(t->mr = rdmad_reg_mr(t->pd, t->buf, BYTES, RDMAD_ACCESS_LOCAL_WRITE | RDMAD_ACCESS_REMOTE_WRITE |
				  RDMAD_ACCESS_REMOTE_READ), "rdmad_reg_mr");
}

static struct rdmad_qp *qp_new(struct tenant *t)
{
	struct rdmad_qp_init_attr init = { .send_cq = t->cq, .recv_cq = t->cq, .qp_type = RDMAD_QPT_RC,
					   .cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1 } };
	struct rdmad_qp *qp;

	MUST(qp = rdmad_create_qp(t->pd, &init), "rdmad_create_qp");
	return qp;
}

/* Through INIT and RTR to RTS, connected to peer (retry_cnt 1, timeout 14: 67 ms). */
static struct rdmad_qp *qp_connect(struct rdmad_qp *qp, uint32_t peer)
{
	struct rdmad_qp_attr a = { .qp_state = RDMAD_QPS_INIT,
				   .qp_access_flags = RDMAD_ACCESS_LOCAL_WRITE | RDMAD_ACCESS_REMOTE_WRITE |
						      RDMAD_ACCESS_REMOTE_READ };

	errno = -rdmad_modify_qp(qp, &a, RDMAD_QP_STATE | RDMAD_QP_ACCESS_FLAGS);
	MUST(errno == 0, "INIT");
	a = (struct rdmad_qp_attr){ .qp_state = RDMAD_QPS_RTR, .path_mtu = 1024, .dest_qp_num = peer,
				    .max_dest_rd_atomic = 4, .min_rnr_timer = 1 };
	inet_pton(AF_INET6, "fe80::1", a.ah_attr.dgid);
	errno = -rdmad_modify_qp(qp, &a, RDMAD_QP_STATE | RDMAD_QP_AV | RDMAD_QP_PATH_MTU | RDMAD_QP_DEST_QPN |
				 RDMAD_QP_RQ_PSN | RDMAD_QP_MAX_DEST_RD_ATOMIC | RDMAD_QP_MIN_RNR_TIMER);
	MUST(errno == 0, "RTR");
	a = (struct rdmad_qp_attr){ .qp_state = RDMAD_QPS_RTS, .timeout = 14, .retry_cnt = 1, .rnr_retry = 1,
				    .max_rd_atomic = 4 };
	errno = -rdmad_modify_qp(qp, &a, RDMAD_QP_STATE | RDMAD_QP_TIMEOUT | RDMAD_QP_RETRY_CNT |
				 RDMAD_QP_RNR_RETRY | RDMAD_QP_SQ_PSN | RDMAD_QP_MAX_QP_RD_ATOMIC);
	MUST(errno == 0, "RTS");
	return qp;
}

static int victim(void)
{
	struct tenant t;
	struct rdmad_qp *a, *b;
	sigset_t usr1;
	int sig;

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, NULL);
	tenant_open(&t);
	memset(t.buf, PATTERN, BYTES);
	a = qp_new(&t);
	b = qp_new(&t);
	qp_connect(a, b->qp_num);
	qp_connect(b, a->qp_num);
	printf("qpn %u %u rkey %u addr %llu pd %u\n", a->qp_num, b->qp_num, t.mr->rkey,
	       (unsigned long long)(uintptr_t)t.buf, t.pd->handle);
	fflush(stdout);
	sigwait(&usr1, &sig);
	for (size_t i = 0; i < BYTES; i++)
		if (t.buf[i] != PATTERN) {
			printf("changed\n");
			return 3;
		}
	printf("unchanged\n");
	return rdmad_close(t.ctx) < 0;
}

static const char *status_name(uint8_t status)
{
	static const char *const names[] = {
		"success", "loc_len_err", "loc_qp_op_err", "loc_prot_err", "wr_flush_err", "bad_resp_err",
		"loc_access_err", "rem_inv_req_err", "rem_access_err", "rem_op_err", "retry_exc_err",
		"rnr_retry_exc_err", "rem_abort_err", "fatal_err", "resp_timeout_err", "general_err",
	};

	return status < sizeof(names) / sizeof(names[0]) ? names[status] : "?";
}

/* One RDMA WR of 64 bytes at offset 0 of the buffer; the status its completion has (5 s at most). */
static const char *rdma(struct tenant *t, struct rdmad_qp *qp, uint8_t opcode, uint64_t addr, uint32_t rkey)
{
	struct rdmad_sge sge = { .addr = (uintptr_t)t->buf, .length = 64, .lkey = t->mr->lkey };
	struct rdmad_send_wr wr = {
		.wr_id = opcode, .opcode = opcode, .send_flags = RDMAD_SEND_SIGNALED, .sg_list = &sge,
		.num_sge = 1, .wr.rdma = { .remote_addr = addr, .rkey = rkey },
	}, *bad;
	struct rdmad_wc wc;

	errno = -rdmad_post_send(qp, &wr, &bad);
	MUST(errno == 0, "rdmad_post_send");
	for (int i = 0; i < 5000; i++) {
		int n = rdmad_poll_cq(t->cq, 1, &wc);

		MUST(n >= 0, "rdmad_poll_cq");
		if (n == 1)
			return status_name(wc.status);
		usleep(1000);
	}
	return "none";
}

static int hijack(char **argv)
{
	uint32_t qpn = (uint32_t)strtoul(argv[0], NULL, 0), rkey = (uint32_t)strtoul(argv[1], NULL, 0);
	uint64_t addr = strtoull(argv[2], NULL, 0);
	struct tenant t;
	bool landed = false;

	tenant_open(&t);
	memset(t.buf, OWN, BYTES);
	printf("write %s\n", rdma(&t, qp_connect(qp_new(&t), qpn), RDMAD_WR_RDMA_WRITE, addr, rkey));
	printf("read %s\n", rdma(&t, qp_connect(qp_new(&t), qpn), RDMAD_WR_RDMA_READ, addr, rkey));
	for (size_t i = 0; i < 64; i++)
		landed |= t.buf[i] != OWN;
	printf("read_landed %s\n", landed ? "yes" : "no");
	/* Everything the library holds goes with the context (LeakSanitizer looks). */
	return rdmad_close(t.ctx) < 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "victim") == 0)
		return victim();
	if (argc == 5 && strcmp(argv[1], "hijack") == 0)
		return hijack(argv + 2);
	fprintf(stderr, "usage: rdmad-tenant victim | hijack QPN RKEY ADDR\n");
	return 2;
}
