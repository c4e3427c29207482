/* SPDX-License-Identifier: MIT */
/*
 * rdmad-hold POOL: a program that holds one object of every kind (PD, MR,
 * CQ, QP in INIT, AH, MKEY) and an MKEY borrowed from POOL, prints "ready",
 * and waits to be killed: what client.bats kills with SIGKILL to see rdmad
 * reclaim it all.
 */
#include <rdmad/rdmad.h>

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void die(const char *what)
{
	fprintf(stderr, "rdmad-hold: %s: %s (%s)\n", what, strerror(errno), rdmad_last_error());
	_exit(1);
}

#define MUST(expr, what) do { if (!(expr)) die(what); } while (0)

int main(int argc, char **argv)
{
	struct rdmad_qp_init_attr init = { .qp_type = RDMAD_QPT_RC };
	struct rdmad_qp_attr attr = { .qp_state = RDMAD_QPS_INIT,
				      .qp_access_flags = RDMAD_ACCESS_LOCAL_WRITE };
	struct rdmad_ah_attr av = { 0 };
	struct rdmad_context *ctx;
	struct rdmad_pd *pd;
	void *buf;

	if (argc != 2) {
		fprintf(stderr, "usage: rdmad-hold POOL\n");
		return 2;
	}
	MUST(ctx = rdmad_open(NULL, NULL), "rdmad_open");
	MUST(pd = rdmad_alloc_pd(ctx), "rdmad_alloc_pd");
	MUST(buf = rdmad_alloc_buf(ctx, 65536), "rdmad_alloc_buf");
	MUST(rdmad_reg_mr(pd, buf, 65536, RDMAD_ACCESS_LOCAL_WRITE), "rdmad_reg_mr");
	MUST(init.send_cq = init.recv_cq = rdmad_create_cq(ctx, 16), "rdmad_create_cq");
	struct rdmad_qp *qp = rdmad_create_qp(pd, &init);
	MUST(qp, "rdmad_create_qp");
	errno = -rdmad_modify_qp(qp, &attr, RDMAD_QP_STATE | RDMAD_QP_ACCESS_FLAGS);
	MUST(errno == 0, "INIT");
	inet_pton(AF_INET6, "fe80::2", av.dgid);
	MUST(rdmad_create_ah(pd, &av), "rdmad_create_ah");
	MUST(rdmad_create_mkey(pd, RDMAD_MKEY_BLOCK_SIGNATURE, 4), "rdmad_create_mkey");
	MUST(rdmad_pool_borrow(ctx, argv[1]), "rdmad_pool_borrow");
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}
