/* SPDX-License-Identifier: MIT */
/*
 * Signature pipelining recovered by the program, as mlx5's pipelining flow
 * asks (seed 003): a server QP with signature pipelining answers each
 * transaction with a data WRITE through a T10-DIF MKEY, then a fenced,
 * signaled SEND of the same wr_id.  When a block's guard is wrong the QP
 * stops in SQD right after the WRITE and the response never goes.  The
 * program waits for the SQ-drained event on the async fd (poll), reads the
 * MKEY's error (rdmad_check_mkey), cancels the stopped transaction's
 * response by wr_id, posts an error response in its place, moves the QP back
 * to RTS, and shows the next transaction going through.
 *
 * The server QP's recovery is manual whatever rdmad.conf says: automatic
 * recovery would cancel and resume before the program could.  Both QPs are
 * on the same rdmad, connected through GID -g (default 0) of port 1.
 * Steps go to stderr; the exit status is 0 only if the whole flow happened.
 *
 *     rdmad_sig_pipeline [-s SOCKET] [-d DEVICE] [-g GID_INDEX]
 */
#include <rdmad/rdmad.h>

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BLOCK 512
#define PI_BYTES 8
/* Where things lie in the one buffer. */
#define DATA_OFFSET 0             /* one block and its PI, behind the MKEY */
#define RESPONSE_OFFSET 4096      /* what the SENDs carry */
#define RESPONSE_BYTES 16
#define PEER_OFFSET 8192          /* where the WRITEs land */
#define RECV_OFFSET 12288         /* where the responses land */
#define BUF_BYTES 16384
#define WAIT_MS 5000

/* The T10-DIF tuple of 512 bytes of 0xA5 with guard seed 0xFFFF, app tag 0x5678, ref tag 0xF0DEBC9A. */
static const uint8_t good_pi[PI_BYTES] = { 0xec, 0x7d, 0x56, 0x78, 0xf0, 0xde, 0xbc, 0x9a };
static const uint8_t bad_pi[PI_BYTES] = { 0x00, 0x00, 0x56, 0x78, 0xf0, 0xde, 0xbc, 0x9a };

struct flow {
	struct rdmad_context *ctx;
	struct rdmad_pd *pd;
	uint8_t *buf;
	struct rdmad_mr *mr;
	struct rdmad_mkey *mkey;
	struct rdmad_cq *server_cq, *client_cq;
	struct rdmad_qp *server, *client;
};

static void die(const char *what, int r)
{
	fprintf(stderr, "rdmad_sig_pipeline: %s: %s (%s)\n", what, strerror(r < 0 ? -r : r),
		rdmad_last_error());
	exit(1);
}

static void fail(const char *fmt, const char *detail)
{
	fprintf(stderr, "rdmad_sig_pipeline: ");
	fprintf(stderr, fmt, detail);
	fprintf(stderr, "\n");
	exit(1);
}

static void usage(void)
{
	fprintf(stderr, "usage: rdmad_sig_pipeline [-s SOCKET] [-d DEVICE] [-g GID_INDEX]\n");
	exit(2);
}

static struct rdmad_qp *new_qp(struct flow *f, struct rdmad_cq *cq, int pipelining)
{
	struct rdmad_qp_init_attr init = {
		.send_cq = cq, .recv_cq = cq, .qp_type = RDMAD_QPT_RC,
		.cap = { .max_send_wr = 32, .max_recv_wr = 32 },
		.sig_pipelining = (uint8_t)pipelining,
		/* The program recovers: rdmad must not do it first. */
		.recovery = RDMAD_RECOVERY_MANUAL,
	};
	struct rdmad_qp *qp = rdmad_create_qp(f->pd, &init);

	if (!qp)
		die("rdmad_create_qp", -errno);
	return qp;
}

static void connect_qp(struct rdmad_qp *qp, uint32_t peer, unsigned gid_index)
{
	struct rdmad_qp_attr init = { .qp_state = RDMAD_QPS_INIT,
				      .qp_access_flags = RDMAD_ACCESS_LOCAL_WRITE | RDMAD_ACCESS_REMOTE_WRITE |
							 RDMAD_ACCESS_REMOTE_READ };
	struct rdmad_qp_attr rtr = { .qp_state = RDMAD_QPS_RTR, .path_mtu = 1024, .dest_qp_num = peer,
				     .max_dest_rd_atomic = 4, .min_rnr_timer = 1,
				     .ah_attr = { .sgid_index = (uint8_t)gid_index } };
	struct rdmad_qp_attr rts = { .qp_state = RDMAD_QPS_RTS, .timeout = 14, .retry_cnt = 7,
				     .rnr_retry = 7, .max_rd_atomic = 4 };
	int r = rdmad_query_gid(qp->context, 1, gid_index, rtr.ah_attr.dgid);

	if (r < 0)
		die("rdmad_query_gid", r);
	if ((r = rdmad_modify_qp(qp, &init, RDMAD_QP_STATE | RDMAD_QP_ACCESS_FLAGS)) < 0)
		die("INIT", r);
	if ((r = rdmad_modify_qp(qp, &rtr, RDMAD_QP_STATE | RDMAD_QP_AV | RDMAD_QP_PATH_MTU |
				 RDMAD_QP_DEST_QPN | RDMAD_QP_RQ_PSN | RDMAD_QP_MAX_DEST_RD_ATOMIC |
				 RDMAD_QP_MIN_RNR_TIMER)) < 0)
		die("RTR", r);
	if ((r = rdmad_modify_qp(qp, &rts, RDMAD_QP_STATE | RDMAD_QP_TIMEOUT | RDMAD_QP_RETRY_CNT |
				 RDMAD_QP_RNR_RETRY | RDMAD_QP_SQ_PSN | RDMAD_QP_MAX_QP_RD_ATOMIC)) < 0)
		die("RTS", r);
}

/* A T10-DIF MKEY over the block and its PI in memory: the wire carries the data alone. */
static struct rdmad_mkey *t10dif_mkey(struct flow *f)
{
	const struct rdmad_sig_block_domain mem = {
		.sig_type = RDMAD_SIG_TYPE_T10DIF, .block_size = BLOCK,
		.sig.dif = { .bg_type = RDMAD_SIG_T10DIF_CRC, .bg = 0xffff, .app_tag = 0x5678,
			     .ref_tag = 0xf0debc9a },
	};
	const struct rdmad_sig_block_attr sig = { .mem = &mem, .check_mask = 0xff };
	const struct rdmad_mkey_layout_entry layout = { f->mr, DATA_OFFSET, BLOCK + PI_BYTES };
	struct rdmad_mkey *mkey = rdmad_create_mkey(f->pd, RDMAD_MKEY_BLOCK_SIGNATURE, 4);
	int r;

	if (!mkey)
		die("rdmad_create_mkey", -errno);
	r = rdmad_configure_mkey_attr(mkey, RDMAD_ACCESS_LOCAL_WRITE | RDMAD_ACCESS_REMOTE_READ |
				      RDMAD_ACCESS_REMOTE_WRITE, &layout, 1, &sig, NULL, 0);
	if (r < 0)
		die("rdmad_configure_mkey_attr", r);
	return mkey;
}

static void post_recv(struct flow *f, uint64_t wr_id)
{
	struct rdmad_sge sge = { .addr = (uintptr_t)(f->buf + RECV_OFFSET), .length = 64,
				 .lkey = f->mr->lkey };
	struct rdmad_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 };
	int r = rdmad_post_recv(f->client, &wr, NULL);

	if (r < 0)
		die("rdmad_post_recv", r);
}

static void post_response(struct flow *f, uint64_t wr_id, struct rdmad_send_wr *wr, struct rdmad_sge *sge)
{
	*sge = (struct rdmad_sge){ .addr = (uintptr_t)(f->buf + RESPONSE_OFFSET), .length = RESPONSE_BYTES,
				   .lkey = f->mr->lkey };
	*wr = (struct rdmad_send_wr){ .wr_id = wr_id, .opcode = RDMAD_WR_SEND, .sg_list = sge, .num_sge = 1,
				      .send_flags = RDMAD_SEND_SIGNALED | RDMAD_SEND_FENCE };
}

/* The seed's transaction under one post: the data WRITE through the MKEY, then the fenced response. */
static void transaction(struct flow *f, uint64_t wr_id)
{
	struct rdmad_sge data = { .addr = 0, .length = BLOCK, .lkey = f->mkey->lkey }, resp_sge;
	struct rdmad_send_wr response, write = {
		.next = &response, .wr_id = wr_id, .opcode = RDMAD_WR_RDMA_WRITE, .sg_list = &data,
		.num_sge = 1,
		.wr.rdma = { .remote_addr = (uintptr_t)(f->buf + PEER_OFFSET), .rkey = f->mr->rkey },
	};
	int r;

	post_response(f, wr_id, &response, &resp_sge);
	r = rdmad_post_send(f->server, &write, NULL);
	if (r < 0)
		die("rdmad_post_send", r);
}

/* The next completion of cq, which must be wr_id's, successful. */
static void expect_completion(struct rdmad_cq *cq, uint64_t wr_id, const char *what)
{
	struct timespec pause = { .tv_nsec = 1000000 };
	struct rdmad_wc wc;

	for (int ms = 0; ms < WAIT_MS; ms++) {
		int n = rdmad_poll_cq(cq, 1, &wc);

		if (n < 0)
			die("rdmad_poll_cq", n);
		if (n == 0) {
			nanosleep(&pause, NULL);
			continue;
		}
		if (wc.wr_id != wr_id || wc.status != RDMAD_WC_SUCCESS) {
			fprintf(stderr, "rdmad_sig_pipeline: %s: completion of wr_id %" PRIu64
				" status %u, expected wr_id %" PRIu64 " success\n", what, wc.wr_id,
				wc.status, wr_id);
			exit(1);
		}
		fprintf(stderr, "  completion: wr_id %" PRIu64 " (%s)\n", wr_id, what);
		return;
	}
	fail("%s: no completion", what);
}

/* Nothing more on cq: the stopped response must not have gone. */
static void expect_nothing(struct rdmad_cq *cq, const char *what)
{
	struct rdmad_wc wc;
	int n = rdmad_poll_cq(cq, 1, &wc);

	if (n != 0)
		fail("%s: a completion came while the QP was stopped", what);
}

/* Waits on the async fd for the server QP's SQ-drained event. */
static void wait_sq_drained(struct flow *f)
{
	struct pollfd p = { .fd = rdmad_async_fd(f->ctx), .events = POLLIN };
	struct rdmad_async_event ev;
	int r;

	for (;;) {
		r = poll(&p, 1, WAIT_MS);
		if (r < 0)
			die("poll", -errno);
		if (r == 0)
			fail("%s", "no SQ-drained event within 5 s");
		r = rdmad_get_async_event(f->ctx, &ev);
		if (r == -EAGAIN)
			continue;
		if (r < 0)
			die("rdmad_get_async_event", r);
		rdmad_ack_async_event(&ev);
		if (ev.event_type == RDMAD_EVENT_SQ_DRAINED && ev.element.qp == f->server) {
			fprintf(stderr, "2. async event: SQ drained on QP %u (%" PRIu64 " lost before it)\n",
				f->server->qp_num, ev.lost);
			return;
		}
		fprintf(stderr, "   async event %u, not the one awaited\n", ev.event_type);
	}
}

static void setup(struct flow *f, const char *socket, const char *device, unsigned gid_index)
{
	int r;

	f->ctx = rdmad_open(socket, device);
	if (!f->ctx)
		die("rdmad_open", -errno);
	/* Opened before anything happens: no event of this program is missed. */
	if ((r = rdmad_async_fd(f->ctx)) < 0)
		die("rdmad_async_fd", r);
	f->pd = rdmad_alloc_pd(f->ctx);
	if (!f->pd)
		die("rdmad_alloc_pd", -errno);
	f->buf = rdmad_alloc_buf(f->ctx, BUF_BYTES);
	if (!f->buf)
		die("rdmad_alloc_buf", -errno);
	f->mr = rdmad_reg_mr(f->pd, f->buf, BUF_BYTES, RDMAD_ACCESS_LOCAL_WRITE | RDMAD_ACCESS_REMOTE_WRITE |
			     RDMAD_ACCESS_REMOTE_READ);
	if (!f->mr)
		die("rdmad_reg_mr", -errno);
	f->mkey = t10dif_mkey(f);
	f->server_cq = rdmad_create_cq(f->ctx, 64);
	f->client_cq = rdmad_create_cq(f->ctx, 64);
	if (!f->server_cq || !f->client_cq)
		die("rdmad_create_cq", -errno);
	f->server = new_qp(f, f->server_cq, 1);
	f->client = new_qp(f, f->client_cq, 0);
	connect_qp(f->server, f->client->qp_num, gid_index);
	connect_qp(f->client, f->server->qp_num, gid_index);
	memset(f->buf + DATA_OFFSET, 0xa5, BLOCK);
	memcpy(f->buf + RESPONSE_OFFSET, "response", 8);
}

int main(int argc, char **argv)
{
	const char *socket = NULL, *device = NULL;
	struct rdmad_qp_attr rts = { .qp_state = RDMAD_QPS_RTS, .cur_qp_state = RDMAD_QPS_SQD }, now;
	struct rdmad_send_wr error_response;
	struct rdmad_sge error_sge;
	struct rdmad_mkey_err err;
	unsigned gid_index = 0;
	struct flow f = { 0 };
	int opt, r;

	while ((opt = getopt(argc, argv, "s:d:g:")) != -1) {
		switch (opt) {
		case 's': socket = optarg; break;
		case 'd': device = optarg; break;
		case 'g': gid_index = (unsigned)strtoul(optarg, NULL, 0); break;
		default: usage();
		}
	}
	setup(&f, socket, device, gid_index);

	/* 1. A transaction whose block carries a wrong guard. */
	memcpy(f.buf + DATA_OFFSET + BLOCK, bad_pi, PI_BYTES);
	post_recv(&f, 100);
	transaction(&f, 1);
	fprintf(stderr, "1. transaction 1 posted: WRITE through MKEY 0x%x (guard 0x0000), fenced SEND\n",
		f.mkey->lkey);

	/* 2. The QP stops in SQD after the WRITE: the async fd says so. */
	wait_sq_drained(&f);
	if ((r = rdmad_query_qp(f.server, &now, NULL)) < 0)
		die("rdmad_query_qp", r);
	if (now.qp_state != RDMAD_QPS_SQD)
		fail("%s", "the server QP is not in SQD after the event");
	expect_nothing(f.server_cq, "the stopped response");

	/* 3. What failed: the MKEY's error record. */
	if ((r = rdmad_check_mkey(f.mkey, &err)) < 0)
		die("rdmad_check_mkey", r);
	if (err.err_type != RDMAD_SIG_ERR_GUARD)
		fail("%s", "rdmad_check_mkey found no guard error");
	fprintf(stderr, "3. MKEY check: guard error, expected 0x%" PRIx64 " actual 0x%" PRIx64
		" at offset %" PRIu64 "\n", err.expected_value, err.actual_value, err.offset);

	/* 4. The response of transaction 1 becomes a NOP; an error response goes instead. */
	r = rdmad_cancel_posted_send_wrs(f.server, 1);
	if (r != 1) {
		fprintf(stderr, "rdmad_sig_pipeline: cancel of wr_id 1 gave %d, expected 1 (%s)\n", r,
			rdmad_last_error());
		return 1;
	}
	post_response(&f, 2, &error_response, &error_sge);
	if ((r = rdmad_post_send(f.server, &error_response, NULL)) < 0)
		die("rdmad_post_send", r);
	fprintf(stderr, "4. canceled 1 WR of wr_id 1; error response posted as wr_id 2\n");

	/* 5. Back to RTS: the NOP completes as the SEND it was, then the error response. */
	if ((r = rdmad_modify_qp(f.server, &rts, RDMAD_QP_STATE | RDMAD_QP_CUR_STATE)) < 0)
		die("SQD to RTS", r);
	fprintf(stderr, "5. QP %u back to RTS\n", f.server->qp_num);
	expect_completion(f.server_cq, 1, "the canceled response, as a NOP");
	expect_completion(f.server_cq, 2, "the error response");
	expect_completion(f.client_cq, 100, "the error response received");

	/* 6. The next transaction, with the right guard, goes through. */
	memcpy(f.buf + DATA_OFFSET + BLOCK, good_pi, PI_BYTES);
	memset(f.buf + PEER_OFFSET, 0, BLOCK);
	post_recv(&f, 101);
	transaction(&f, 3);
	expect_completion(f.server_cq, 3, "transaction 3's response");
	expect_completion(f.client_cq, 101, "transaction 3's response received");
	if ((r = rdmad_check_mkey(f.mkey, &err)) < 0)
		die("rdmad_check_mkey", r);
	if (err.err_type != RDMAD_SIG_ERR_NONE)
		fail("%s", "transaction 3 found a signature error");
	for (int i = 0; i < BLOCK; i++)
		if (f.buf[PEER_OFFSET + i] != 0xa5)
			fail("%s", "transaction 3's WRITE did not land whole");
	if ((r = rdmad_query_qp(f.server, &now, NULL)) < 0)
		die("rdmad_query_qp", r);
	if (now.qp_state != RDMAD_QPS_RTS)
		fail("%s", "the server QP left RTS after transaction 3");
	fprintf(stderr, "6. transaction 3: %d bytes written, no signature error, QP in RTS\n", BLOCK);
	rdmad_close(f.ctx);
	fprintf(stderr, "the pipelining flow ran: stop, event, check, cancel, RTS, next transfer\n");
	return 0;
}
