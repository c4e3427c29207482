/* SPDX-License-Identifier: MIT */
/*
 * bench_datapath: the data path of the software device through real, started
 * dataplane workers (worker_set_start, rdma_device_start, as rdmad starts
 * them), in-process: the main thread posts with rdma_dp_post_send /
 * rdma_dp_post_recv and reaps with dp_cq_poll, the workers execute.
 *
 *   - RDMA WRITE 4 KiB, RC: GB/s of payload, beside memcpy of 4 KiB in the same run;
 *   - SEND 64 B, RC, with a receive posted for each: messages/s;
 *   - RDMA WRITE 4 KiB from a T10-DIF MKEY (8 blocks of 512 + 8 bytes of PI in
 *     memory, none on the wire: checked and stripped) and from an AES-XTS
 *     MKEY (AES-256, data unit 4096, encrypted on the wire), GB/s of wire
 *     bytes, beside the offload engine's own figure for the same transform
 *     on the main thread (dp_transform_run, no copy before or after);
 * each with 1 worker (1 QP pair) and with 2 workers (2 QP pairs, one on each
 * worker, throughput summed); and RDMA WRITE 4 KiB between the two QPs of one
 * pair placed on two workers (every request and response crossing the
 * loopback transport's queues between workers).  64 B SENDs through those MKEYs are not
 * measured: 64 bytes are not a whole block of either transform.
 *
 * Then the auto recovery of signature pipelining: a QP with sig_pipelining
 * and the auto policy posts the seed's transaction (RDMA WRITE from a T10-DIF
 * MKEY with a bad guard, then a fenced signaled SEND) as one list, the
 * main thread runs the event loop as rdmad does, and the recovery's record
 * gives the time from the worker finding the error to the QP back in RTS;
 * median and p99 over BENCH_RECOVERIES (default 1000).  Samples of all rows interleaved (A, B, C, A, B,
 * C, ...; each round starting one row later), median of NSAMPLE.
 *
 * Posting (run_wr_loop): per QP pair a window of WINDOW send WRs known not to
 * be complete (= max_send_wr), every SIGNAL_EVERY-th WR signaled (a CQE covers
 * the unsignaled ones before it, RC completing in order), as perftest's
 * ib_write_bw posts (tx-depth, cq-mod).  Why not every WR signaled: an
 * application after throughput does not, and a CQE per WR measures the CQ
 * path as much as the transfer (BENCH_SIGNAL=1 shows that figure).  The
 * responder's receive queue is kept full (RQ_DEPTH); receives complete one
 * CQE each whatever the sender signals.
 *
 * CPUs: those this process may run on (sched_getaffinity).  The main thread
 * takes the first; with 3 or more, the workers take the next ones; with 2,
 * the 1-worker rows put the worker on the second CPU and the 2-worker rows
 * share the first CPU between the main thread and a worker (printed); with 1,
 * everything runs on it (printed).
 *
 * BENCH_MS (default 100): ms per sample; BENCH_SIGNAL (default 16): signal
 * every Nth send WR; BENCH_ONLY: rows whose name contains it; BENCH_RECOVERIES
 * (default 1000).  ~25 s in all.
 *
 * Printed beside the table: a check of how much of the CPUs the process
 * really gets (threads spinning on them at once), since a busy or
 * oversubscribed host shows up as spread in every row.
 *
 * To add a row: an entry in all[] in main() naming a struct bench_dev (a
 * device with its workers and connected pairs, bench_dev_start +
 * bench_dev_add_pairs) and a struct wr_op (what each WR is, fill_send and,
 * for operations that consume receives, fill_recv).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <systemd/sd-event.h>

#include "daemon/soft/soft_device.h"
#include "daemon/verbs/cq.h"
#include "daemon/soft/datapath.h"
#include "daemon/verbs/dek.h"
#include "daemon/verbs/gid.h"
#include "daemon/verbs/mkey.h"
#include "daemon/verbs/mr.h"
#include "daemon/verbs/qp.h"
#include "daemon/verbs/recovery.h"
#include "daemon/soft/workers.h"
#include "lib/cpulist.h"
#include "lib/log.h"
#include "tests/bench/lib/verbs.h"

#define NSAMPLE      21
#define MAX_WORKERS  8
#define MAX_PAIRS    8
#define WINDOW       256u     /* send WRs outstanding per QP pair = max_send_wr */
#define RQ_DEPTH     512u     /* receives kept posted per responder = max_recv_wr */
#define POLL_BATCH   64u
#define N_SLOTS      16u      /* WRs rotate over this many buffers of their size (64 KiB for 4 KiB) */
#define AREA         (N_SLOTS * 4096u)
/*
 * Each MR: the RDMA area (WRITE sources and targets) then the receive area
 * (receive buffers); a requester's receive area holds what its MKEYs lay out.
 */
#define RECV_AREA    AREA
#define MR_SIZE      (2 * AREA)
#define DRAIN_SECONDS 5.0     /* a run that does not drain in this long is broken */

static double sample_ms = 100;
static unsigned signal_every = 16;
static volatile uint64_t sink;

static void pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0)
		bench_die("cannot pin the main thread", NULL);
}

/* ---------------------------------------------------------------- devices, workers, pairs */

/*
 * A connected RC pair: req sends (its SGEs in src), resp receives into dst and
 * is the target of RDMA (dst grants remote access).  One send CQ and one
 * receive CQ per pair, both QPs using them, so that each CQ is written by the
 * pair's worker only.
 */
struct bench_pair {
	struct rdma_qp *req, *resp;
	struct rdma_cq *scq, *rcq;
	struct rdma_mr *src, *dst;
	struct rdma_mkey *t10, *xts;   /* over the receive area of src: see pair_add_mkeys */
	/* run_wr_loop's: send WRs of this run posted and known complete; receives ever posted and completed. */
	uint64_t posted, done;
	uint64_t recv_posted, recv_done;
	uint64_t sq_busy, rq_busy;   /* posts refused as full although the window allowed them */
};

struct pair_cfg {
	uint32_t max_send_wr, max_recv_wr, max_inline_data;
	bool sq_sig_all;
	bool sig_pipelining;      /* the requester's, with the auto recovery policy */
	bool apart;               /* requester on the device's first worker, responder on its second */
};

static const struct pair_cfg default_pair = {
	.max_send_wr = WINDOW, .max_recv_wr = RQ_DEPTH, .max_inline_data = 0,
};

/* A software device with its own started worker set (as rdmad: worker_set_start, rdma_device_start). */
struct bench_dev {
	struct bench_soft s;
	int cpus[MAX_WORKERS];
	unsigned n_workers;
	struct bench_pair pairs[MAX_PAIRS];
	unsigned n_pairs;
};

static const uint8_t bench_gid[RDMA_GID_LEN] = { 0xfe, 0x80, [15] = 1 };

static void bench_dev_start(struct bench_dev *bd, unsigned index, const int *cpus, unsigned n)
{
	memset(bd, 0, sizeof(*bd));
	memcpy(bd->cpus, cpus, n * sizeof(int));
	bd->n_workers = n;
	/* The address vector's source GID (index 0 of port 1); loopback: the destination is the same. */
	bench_soft_start(&bd->s, index, cpus, n, bench_gid);
}

/* RESET -> INIT -> RTR -> RTS towards the QP numbered dest, looped back (the destination GID is the source's). */
static void connect_qp(struct bench_dev *bd, struct rdma_qp *qp, uint32_t dest)
{
	struct bench_rc_path path = { .dest_qpn = dest, .dgid = bench_gid, .path_mtu = 4096, .max_rd_atomic = 1 };

	bench_qp_connect_rc(bd->s.dev, qp, &path);
}

/* cpu >= 0: placed on that CPU's worker (qp create --cpu). */
static struct rdma_qp *qp_new(struct bench_dev *bd, struct bench_pair *p, const struct pair_cfg *cfg, int cpu)
{
	struct rdma_qp_init init = {
		.has_cpu = cpu >= 0, .cpu = cpu >= 0 ? (uint32_t)cpu : 0,
		.type = RDMA_QPT_RC, .pd = bd->s.pd, .send_cq = p->scq->obj.handle,
		.recv_cq = p->rcq->obj.handle, .sq_sig_all = cfg->sq_sig_all,
		.sig_pipelining = cfg->sig_pipelining, .has_recovery = true,
		.recovery = RDMA_RECOVERY_AUTO,
		.cap = { .max_send_wr = cfg->max_send_wr, .max_recv_wr = cfg->max_recv_wr,
			 .max_send_sge = 1, .max_recv_sge = 1, .max_inline_data = cfg->max_inline_data },
	};
	struct rdma_error err;
	struct rdma_qp *qp;

	if (rdma_qp_create(bd->s.dev, &init, &qp, &err) < 0)
		bench_die("QP", &err);
	if (!soft_qp(qp))
		bench_die("the QP has no data path", NULL);
	return qp;
}

static struct rdma_mr *mr_new(struct bench_dev *bd, uint8_t seed)
{
	struct rdma_error err;
	struct rdma_mr *mr;

	if (rdma_mr_create(bd->s.dev, bd->s.pd, MR_SIZE, RDMA_ACCESS_ALL, MR_SIZE, &mr, &err) < 0)
		bench_die("MR", &err);
	for (uint32_t i = 0; i < MR_SIZE; i++)
		mr->addr[i] = (uint8_t)(i * 131 + seed);
	return mr;
}

/*
 * n connected RC pairs.  The requester of each goes to RTR first and takes
 * the next worker (worker_set_pick, round robin); its responder joins it
 * (choose_worker in daemon/soft/datapath.c).  Checked: pair i on worker i % workers.
 * Pairs apart: the requester placed on the first worker, the responder on the
 * second, so each request and its response cross the loopback transport's
 * queues between workers.
 */
static void bench_dev_add_pairs(struct bench_dev *bd, unsigned n, const struct pair_cfg *cfg)
{
	for (unsigned i = 0; i < n; i++) {
		struct bench_pair *p = &bd->pairs[bd->n_pairs];
		struct rdma_error err;
		uint32_t scqe = cfg->max_send_wr, rcqe = cfg->max_recv_wr;

		if (bd->n_pairs == MAX_PAIRS)
			bench_die("too many pairs", NULL);
		memset(p, 0, sizeof(*p));
		/* Each CQ holds all its QPs could complete into it at once (both QPs' queues). */
		if (rdma_cq_create(bd->s.dev, 2 * scqe, false, &p->scq, &err) < 0 ||
		    rdma_cq_create(bd->s.dev, 2 * rcqe, false, &p->rcq, &err) < 0)
			bench_die("CQ", &err);
		p->req = qp_new(bd, p, cfg, cfg->apart ? bd->cpus[0] : -1);
		p->resp = qp_new(bd, p, cfg, cfg->apart ? bd->cpus[1] : -1);
		p->src = mr_new(bd, 7);
		p->dst = mr_new(bd, 99);
		connect_qp(bd, p->req, p->resp->obj.handle);
		connect_qp(bd, p->resp, p->req->obj.handle);
		if (cfg->apart) {
			if (soft_qp(p->req)->worker != &bd->s.ws->workers[0] ||
			    soft_qp(p->resp)->worker != &bd->s.ws->workers[1])
				bench_die("the pair is not apart on the two workers", NULL);
		} else if (!soft_qp(p->req)->worker || soft_qp(p->req)->worker != soft_qp(p->resp)->worker) {
			bench_die("the two QPs of a pair are not on one worker", NULL);
		} else if (soft_qp(p->req)->worker != &bd->s.ws->workers[bd->n_pairs % bd->n_workers]) {
			bench_die("pair not on the worker expected (round robin)", NULL);
		}
		bd->n_pairs++;
	}
}

/* ---------------------------------------------------------------- MKEYs */

#define BLOCKS      8u
#define T10_MEM     (BLOCKS * 520u)   /* memory bytes of 4 KiB on the wire */
#define XTS_UNIT    4096u

static struct dp_transform_cfg t10_cfg(void)
{
	struct dp_transform_cfg c;

	dp_transform_cfg_init(&c);
	c.mem.sig_type = DP_SIG_T10DIF;
	c.mem.block_size = 512;
	c.mem.t10dif.bg = 0xffff;
	c.mem.t10dif.app_tag = 0x5678;
	c.mem.t10dif.ref_tag = 0xf0debc9a;
	return c;
}

static struct dp_transform_cfg xts_cfg(void)
{
	struct dp_transform_cfg c;

	dp_transform_cfg_init(&c);
	c.crypto.enabled = true;
	c.crypto.standard = DP_CRYPTO_AES_XTS;
	c.crypto.encrypt_on_tx = true;
	c.crypto.order = DP_SIG_AFTER_CRYPTO_ON_TX;
	c.crypto.data_unit_size = XTS_UNIT;
	return c;
}

/* A public, fixed AES-256-XTS key (key1 || key2): the bench needs no secret. */
static const uint8_t xts_key[64] = {
	0x27, 0x18, 0x28, 0x18, 0x28, 0x45, 0x90, 0x45, 0x23, 0x53, 0x60, 0x28, 0x74, 0x71, 0x35, 0x26,
	0x62, 0x49, 0x77, 0x57, 0x24, 0x70, 0x93, 0x69, 0x99, 0x59, 0x57, 0x49, 0x66, 0x96, 0x76, 0x27,
	0x31, 0x41, 0x59, 0x26, 0x53, 0x58, 0x97, 0x93, 0x23, 0x84, 0x62, 0x64, 0x33, 0x83, 0x27, 0x95,
	0x02, 0x88, 0x41, 0x97, 0x16, 0x93, 0x99, 0x37, 0x51, 0x05, 0x82, 0x09, 0x74, 0x94, 0x45, 0x92,
};

static struct dp_transform *transform_new(const struct dp_transform_cfg *cfg)
{
	struct dp_transform *t;
	struct dp_error de;

	if (dp_transform_create(cfg, cfg->crypto.enabled ? xts_key : NULL,
				cfg->crypto.enabled ? sizeof(xts_key) : 0, &t, &de) < 0) {
		fprintf(stderr, "bench_datapath: transform: %s: %s\n", de.field, de.message);
		exit(1);
	}
	return t;
}

/* An MKEY of the pair's PD laying out length bytes of mr from offset, with cfg. */
static struct rdma_mkey *mkey_new(struct bench_dev *bd, struct rdma_mr *mr, uint64_t offset,
				  uint64_t length, const struct dp_transform_cfg *cfg, uint32_t dek)
{
	struct rdma_mkey_entry e = { .mr = mr->obj.handle, .offset = offset, .length = length };
	uint32_t flags = cfg->crypto.enabled ? RDMA_MKEY_CRYPTO : RDMA_MKEY_BLOCK_SIGNATURE;
	struct rdma_mkey_conf c;
	struct rdma_error err;
	struct rdma_mkey *m;

	if (rdma_mkey_create(bd->s.dev, bd->s.pd, flags, 4, &m, &err) < 0)
		bench_die("MKEY", &err);
	rdma_mkey_conf_init(&c);
	c.set_layout = true;
	c.layout = (struct rdma_mkey_layout){ .type = RDMA_LAYOUT_LIST, .n = 1, .entries = &e };
	c.set_access = true;
	c.access = RDMA_MKEY_ACCESS_ALL;
	c.cfg = *cfg;
	c.set_sig = !cfg->crypto.enabled;
	c.set_crypto = cfg->crypto.enabled;
	c.crypto.dek = dek;
	if (rdma_mkey_configure(bd->s.dev, m, &c, &err) < 0)
		bench_die("MKEY configure", &err);
	return m;
}

/*
 * Per pair: a T10-DIF MKEY over 8 blocks of the src MR's data with their PI
 * (computed here: an RX of the wire bytes generates it) and an AES-XTS MKEY
 * over 4 KiB, both in src's receive area (the requester receives nothing).
 */
static void pair_add_mkeys(struct bench_dev *bd, struct bench_pair *p, uint32_t dek)
{
	struct dp_transform_cfg t10 = t10_cfg(), xts = xts_cfg();
	struct dp_transform *t = transform_new(&t10);
	struct dp_sig_err x;
	struct dp_error de;
	size_t n;

	if (dp_transform_run(t, DP_RX, p->src->addr, 4096, p->src->addr + RECV_AREA, T10_MEM, &n, &x,
			     &de) < 0 || n != T10_MEM)
		bench_die("T10-DIF memory", NULL);
	dp_transform_destroy(t);
	p->t10 = mkey_new(bd, p->src, RECV_AREA, T10_MEM, &t10, 0);
	p->xts = mkey_new(bd, p->src, RECV_AREA + 2 * 4096, 4096, &xts, dek);
}

static uint32_t dek_new(struct bench_dev *bd)
{
	struct rdma_dek_params prm = {
		.name = "bench", .key_bits = 256, .import = RDMA_DEK_PLAINTEXT,
		.key = xts_key, .key_len = sizeof(xts_key),
	};
	struct rdma_crypto_config none = { 0 };   /* a plaintext import needs no provisioning */
	struct rdma_error err;
	struct rdma_dek *dek;

	if (rdma_dek_create(bd->s.dev, &none, &prm, &dek, &err) < 0)
		bench_die("DEK", &err);
	/* A new DEK serves once its change is saved; the bench saves nothing, so at once. */
	rdma_dek_settle(bd->s.dev, dek);
	return dek->obj.handle;
}

static void bench_dev_add_mkeys(struct bench_dev *bd)
{
	uint32_t dek = dek_new(bd);

	for (unsigned i = 0; i < bd->n_pairs; i++)
		pair_add_mkeys(bd, &bd->pairs[i], dek);
}

/* ---------------------------------------------------------------- the WR loop */

/*
 * What each WR of a run is.  fill_send fills the seq-th send WR of a run on
 * pair p (all but wr_id and DP_SEND_SIGNALED, which the loop sets), its one
 * SGE in *sge.  fill_recv (NULL when the operation consumes no receive)
 * fills the SGE of the seq-th receive ever posted on the pair's responder.
 */
struct wr_op {
	void (*fill_send)(const struct wr_op *op, struct bench_pair *p, uint64_t seq,
			  struct rdma_dp_send_wr *wr, struct rdma_dp_sge *sge);
	void (*fill_recv)(const struct wr_op *op, struct bench_pair *p, uint64_t seq,
			  struct rdma_dp_sge *sge);
	uint32_t bytes;           /* payload of one send WR */
	unsigned mkey;            /* 0: none; 1: the pair's T10-DIF MKEY, 2: its AES-XTS MKEY */
};

struct loop_result {
	uint64_t wrs;             /* send WRs completed in the timed part, all pairs */
	double seconds;
	double waited;            /* of seconds: in turns of the loop that could post nothing */
	uint64_t sq_busy, rq_busy;
	uint64_t worker_sleeps;   /* times the pairs' workers went to sleep meanwhile */
	uint64_t rnr_naks;        /* SENDs that found no receive posted (the device's counter) */
};

/*
 * A post refused because the queue holds max WRs not yet executed (-ENOBUFS):
 * the window allowed it, but the worker has not given the slot back yet.
 */
static bool queue_full(int r)
{
	return r == -ENOBUFS;
}

static void post_recvs(struct bench_dev *bd, struct bench_pair *p, const struct wr_op *op)
{
	while (p->recv_posted - p->recv_done < RQ_DEPTH) {
		struct rdma_dp_sge sge;
		struct rdma_error err;
		int r;

		op->fill_recv(op, p, p->recv_posted, &sge);
		r = rdma_dp_post_recv(bd->s.dev, p->resp, p->recv_posted, &sge, 1, &err);
		if (r < 0 && queue_full(r)) {
			/* Its completion was seen, its slot not given back yet: next turn. */
			p->rq_busy++;
			return;
		}
		if (r < 0)
			bench_die("post recv", &err);
		p->recv_posted++;
	}
}

/* Posts the next send WR; false when the send queue refused it for lack of room. */
static bool post_one(struct bench_dev *bd, struct bench_pair *p, const struct wr_op *op, bool force_signal)
{
	struct rdma_dp_send_wr wr;
	struct rdma_dp_sge sge;
	struct rdma_error err;
	uint64_t seq = p->posted;
	int r;

	memset(&wr, 0, sizeof(wr));
	op->fill_send(op, p, seq, &wr, &sge);
	wr.wr_id = seq;
	if (force_signal || seq % signal_every == signal_every - 1)
		wr.send_flags |= DP_SEND_SIGNALED;
	r = rdma_dp_post_sends(bd->s.dev, p->req, &wr, 1, &(uint32_t){ 0 }, &err);
	if (r < 0 && queue_full(r)) {
		p->sq_busy++;
		return false;
	}
	if (r < 0)
		bench_die("post send", &err);
	p->posted++;
	return true;
}

static void check_cqe(const struct dp_cqe *e, const char *which)
{
	if (e->status != DP_WC_SUCCESS) {
		fprintf(stderr, "bench_datapath: %s completion of QP %u wr_id %llu: status %u\n", which,
			e->qp_num, (unsigned long long)e->wr_id, e->status);
		exit(1);
	}
}

/* Takes the pair's completions: send CQEs move done on, receive CQEs are replaced by new receives. */
static void reap(struct bench_dev *bd, struct bench_pair *p, const struct wr_op *op)
{
	struct dp_cqe e[POLL_BATCH];
	unsigned n;

	do {
		n = dp_cq_poll(soft_cq(p->scq->ring), e, POLL_BATCH);
		for (unsigned i = 0; i < n; i++) {
			check_cqe(&e[i], "send");
			/* RC completes in order: a signaled WR's CQE says every WR before it is done. */
			if (e[i].wr_id + 1 <= p->done || e[i].wr_id >= p->posted)
				bench_die("send completion out of order", NULL);
			p->done = e[i].wr_id + 1;
		}
	} while (n == POLL_BATCH);
	if (!op->fill_recv)
		return;
	/* Every receive taken is replaced at once: the receive queue stays full (no RNR NAKs). */
	do {
		n = dp_cq_poll(soft_cq(p->rcq->ring), e, POLL_BATCH);
		for (unsigned i = 0; i < n; i++) {
			check_cqe(&e[i], "receive");
			if (e[i].byte_len != op->bytes)
				bench_die("a receive completed with the wrong length", NULL);
		}
		p->recv_done += n;
		post_recvs(bd, p, op);
	} while (n == POLL_BATCH);
}

static uint64_t worker_sleeps(struct bench_dev *bd)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < bd->n_workers; i++)
		n += atomic_load_explicit(&bd->s.ws->workers[i].stats.sleeps, memory_order_relaxed);
	return n;
}

/*
 * Runs op on every pair of bd for seconds: per pair, keep WINDOW send WRs
 * outstanding, reap, repeat.  Counted: the send WRs known complete when the
 * time is up.  Then the queues are drained (untimed): a last signaled WR if
 * the last one posted was not, and every completion taken.
 */
static void run_wr_loop(struct bench_dev *bd, const struct wr_op *op, double seconds,
			struct loop_result *res)
{
	uint64_t sleeps0 = worker_sleeps(bd);
	struct dp_counters c0, c1;
	double t0, t, end, drain_end;

	memset(res, 0, sizeof(*res));
	for (unsigned i = 0; i < bd->n_pairs; i++) {
		struct bench_pair *p = &bd->pairs[i];

		p->posted = p->done = 0;
		p->sq_busy = p->rq_busy = 0;
		if (op->fill_recv)
			post_recvs(bd, p, op);
	}
	rdma_datapath_counters(bd->s.dev, &c0);
	t = t0 = bench_now();
	end = t0 + seconds;
	do {
		double turn_start = t;
		uint64_t posted = 0;

		for (unsigned i = 0; i < bd->n_pairs; i++) {
			struct bench_pair *p = &bd->pairs[i];
			uint64_t before = p->posted;

			reap(bd, p, op);
			while (p->posted - p->done < WINDOW && post_one(bd, p, op, false))
				;
			posted += p->posted - before;
		}
		t = bench_now();
		/* Every window full: the main thread waits for the workers. */
		if (!posted)
			res->waited += t - turn_start;
	} while (t < end);
	for (unsigned i = 0; i < bd->n_pairs; i++)
		res->wrs += bd->pairs[i].done;
	res->seconds = t - t0;
	res->worker_sleeps = worker_sleeps(bd) - sleeps0;
	rdma_datapath_counters(bd->s.dev, &c1);
	res->rnr_naks = atomic_load(&c1.rnr_naks) - atomic_load(&c0.rnr_naks);

	drain_end = bench_now() + DRAIN_SECONDS;
	for (unsigned i = 0; i < bd->n_pairs; i++) {
		struct bench_pair *p = &bd->pairs[i];

		if (p->posted && (p->posted - 1) % signal_every != signal_every - 1)
			for (;;) {
				reap(bd, p, op);
				if (p->posted - p->done < WINDOW && post_one(bd, p, op, true))
					break;
				if (bench_now() > drain_end)
					bench_die("the send queue does not drain", NULL);
			}
		while (p->done < p->posted) {
			reap(bd, p, op);
			if (bench_now() > drain_end)
				bench_die("the send queue does not drain", NULL);
		}
		res->sq_busy += p->sq_busy;
		res->rq_busy += p->rq_busy;
	}
	/* What the workers reported (errors, none expected), as the event loop would. */
	rdma_datapath_sync(bd->s.dev);
}

/* ---------------------------------------------------------------- operations */

static void fill_write(const struct wr_op *op, struct bench_pair *p, uint64_t seq,
		       struct rdma_dp_send_wr *wr, struct rdma_dp_sge *sge)
{
	uint64_t off = (seq % N_SLOTS) * op->bytes;

	*sge = (struct rdma_dp_sge){ .key = p->src->obj.handle, .offset = off, .length = op->bytes };
	wr->opcode = DP_WR_RDMA_WRITE;
	wr->remote_key = p->dst->rkey;
	wr->remote_offset = off;
	wr->sges = sge;
	wr->n_sges = 1;
}

static void fill_send(const struct wr_op *op, struct bench_pair *p, uint64_t seq,
		      struct rdma_dp_send_wr *wr, struct rdma_dp_sge *sge)
{
	*sge = (struct rdma_dp_sge){ .key = p->src->obj.handle, .offset = (seq % N_SLOTS) * op->bytes,
				     .length = op->bytes };
	wr->opcode = DP_WR_SEND;
	wr->sges = sge;
	wr->n_sges = 1;
}

static void fill_recv(const struct wr_op *op, struct bench_pair *p, uint64_t seq, struct rdma_dp_sge *sge)
{
	*sge = (struct rdma_dp_sge){ .key = p->dst->obj.handle,
				     .offset = RECV_AREA + (seq % N_SLOTS) * op->bytes,
				     .length = op->bytes };
}

/* 4 KiB of wire bytes from an MKEY (struct wr_op.mkey says which of the pair's) into the peer's slot. */
static void fill_write_mkey(const struct wr_op *op, struct bench_pair *p, uint64_t seq,
			    struct rdma_dp_send_wr *wr, struct rdma_dp_sge *sge)
{
	fill_write(op, p, seq, wr, sge);
	*sge = (struct rdma_dp_sge){ .key = (op->mkey == 1 ? p->t10 : p->xts)->obj.handle,
				     .offset = 0, .length = op->bytes };
}

static const struct wr_op op_write_4k = { .fill_send = fill_write, .bytes = 4096 };
static const struct wr_op op_write_t10 = { .fill_send = fill_write_mkey, .bytes = 4096, .mkey = 1 };
static const struct wr_op op_write_xts = { .fill_send = fill_write_mkey, .bytes = 4096, .mkey = 2 };
static const struct wr_op op_send_64 = { .fill_send = fill_send, .fill_recv = fill_recv, .bytes = 64 };

/* ---------------------------------------------------------------- auto recovery */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The seed's transaction as one list: WRITE from the bad MKEY, then the fenced signaled response. */
static void post_bad_transaction(struct bench_dev *bd, struct bench_pair *p, uint64_t wr_id)
{
	struct rdma_dp_sge data = { .key = p->t10->obj.handle, .length = 4096 };
	struct rdma_dp_sge resp = { .key = p->src->obj.handle, .length = 64 };
	struct rdma_dp_send_wr wrs[2] = {
		{ .wr_id = wr_id, .opcode = DP_WR_RDMA_WRITE, .remote_key = p->dst->rkey,
		  .sges = &data, .n_sges = 1 },
		{ .wr_id = wr_id, .opcode = DP_WR_SEND, .send_flags = DP_SEND_SIGNALED | DP_SEND_FENCE,
		  .sges = &resp, .n_sges = 1 },
	};
	struct rdma_error err;
	uint32_t bad;

	if (rdma_dp_post_sends(bd->s.dev, p->req, wrs, 2, &bad, &err) < 0)
		bench_die("post the transaction", &err);
}

/*
 * n recoveries of pair 0 of bd (sig_pipelining, auto): each transaction's
 * WRITE fails its guard check, the worker stops the QP, the main thread (in
 * the event loop, as rdmad) recovers it.  since[i], took[i]: the record's
 * error -> RTS and the steps alone, in ns.
 */
static void measure_recoveries(struct bench_dev *bd, unsigned n, uint64_t *since, uint64_t *took)
{
	struct bench_pair *p = &bd->pairs[0];
	struct dp_transform_cfg t10 = t10_cfg();

	/* A bad guard in the first block of the MKEY's memory. */
	p->src->addr[RECV_AREA + 512] ^= 0xff;
	for (unsigned i = 0; i < n; i++) {
		const struct rdma_recovery_record *rec;
		uint64_t runs = p->req->recovery.runs;
		struct rdma_mkey_conf c;
		struct rdma_error err;
		struct dp_cqe e;
		double give_up;

		/* Configured again for each transaction, as a user does: detection re-armed. */
		rdma_mkey_conf_init(&c);
		c.set_sig = true;
		c.cfg = t10;
		if (rdma_mkey_configure(bd->s.dev, p->t10, &c, &err) < 0)
			bench_die("MKEY configure", &err);
		post_bad_transaction(bd, p, i);
		give_up = bench_now() + DRAIN_SECONDS;
		while (p->req->recovery.runs == runs) {
			sd_event_run(bd->s.event, 100000);
			if (bench_now() > give_up)
				bench_die("no recovery", NULL);
		}
		rec = rdma_qp_recovery_record(p->req, 0);
		if (rec->canceled != 1 || !rec->since_error_ns)
			bench_die("the recovery did not cancel the response", NULL);
		since[i] = rec->since_error_ns;
		took[i] = rec->took_ns;
		/* The response, now a NOP, completes. */
		while (dp_cq_poll(soft_cq(p->scq->ring), &e, 1) == 0)
			if (bench_now() > give_up)
				bench_die("no completion of the NOP", NULL);
		check_cqe(&e, "NOP");
	}
	qsort(since, n, sizeof(*since), cmp_u64);
	qsort(took, n, sizeof(*took), cmp_u64);
}

/* ---------------------------------------------------------------- rows */

enum unit { UNIT_GBPS, UNIT_MMSGS };

struct row {
	const char *name;
	struct bench_dev *bd;     /* NULL: a reference on the main thread (memcpy, or engine) */
	const struct wr_op *op;
	struct dp_transform *engine;   /* the offload engine's reference: TX of 4 KiB of wire bytes */
	enum unit unit;
	struct bench_stat stat;
	struct loop_result sum;   /* all samples */
	const char *ref;          /* the row the ratio is against (NULL: memcpy's, for GB/s rows) */
};

/* The reference: 4 KiB copies over the same 16 slots of 64 KiB buffers the WRITE rows use. */
static uint8_t *ref_src, *ref_dst;
/* The engine's input: memory bytes of two transfers (T10-DIF with their PI). */
static uint8_t *ref_mem;

static double sample_memcpy(double seconds)
{
	double t0 = bench_now(), t;
	uint64_t n = 0;

	do {
		for (unsigned i = 0; i < 256; i++, n++) {
			size_t off = (n % N_SLOTS) * 4096;

			memcpy(ref_dst + off, ref_src + off, 4096);
			/* Keep the copies: the compiler may not drop or merge them. */
			__asm__ volatile("" : : "r"(ref_dst) : "memory");
		}
		t = bench_now();
	} while (t - t0 < seconds);
	sink += ref_dst[n % AREA];
	return (double)n * 4096 / (t - t0) / 1e9;
}

/* The offload engine alone: TX of the memory bytes of 4 KiB on the wire, in place, no copy. */
static double sample_engine(struct dp_transform *t, double seconds)
{
	size_t in_len, out_len;
	double t0 = bench_now(), t1;
	struct dp_sig_err x;
	struct dp_error de;
	uint64_t n = 0;

	if (dp_transform_out_len(t, DP_RX, 4096, &in_len, &de) < 0)
		bench_die("engine length", NULL);
	do {
		for (unsigned i = 0; i < 64; i++, n++) {
			size_t off = (n % N_SLOTS) * 4096;

			if (dp_transform_run(t, DP_TX, ref_mem + (n % 2) * in_len, in_len, ref_dst + off,
					     4096, &out_len, &x, &de) < 0)
				bench_die("engine run", NULL);
		}
		t1 = bench_now();
	} while (t1 - t0 < seconds);
	sink += ref_dst[n % AREA];
	return (double)n * 4096 / (t1 - t0) / 1e9;
}

static double sample_row(void *row, double seconds)
{
	struct row *r = row;
	struct loop_result res;
	double per_s;

	if (r->engine)
		return sample_engine(r->engine, seconds);
	if (!r->bd)
		return sample_memcpy(seconds);
	run_wr_loop(r->bd, r->op, seconds, &res);
	r->sum.wrs += res.wrs;
	r->sum.waited += res.waited;
	r->sum.seconds += res.seconds;
	r->sum.sq_busy += res.sq_busy;
	r->sum.rq_busy += res.rq_busy;
	r->sum.worker_sleeps += res.worker_sleeps;
	r->sum.rnr_naks += res.rnr_naks;
	per_s = (double)res.wrs / res.seconds;
	return r->unit == UNIT_GBPS ? per_s * r->op->bytes / 1e9 : per_s / 1e6;
}


/* A WRITE landed where it was sent: the responder's MR holds the requester's bytes. */
static void check_written(struct bench_dev *bd)
{
	for (unsigned i = 0; i < bd->n_pairs; i++)
		if (memcmp(bd->pairs[i].dst->addr, bd->pairs[i].src->addr, AREA) != 0)
			bench_die("RDMA WRITE: the responder's memory is not what was written", NULL);
}

/* A WRITE through the T10-DIF MKEY lands as the data without its PI: src's first 4 KiB. */
static void check_written_through_t10(struct bench_dev *bd)
{
	struct loop_result res;

	memset(bd->pairs[0].dst->addr, 0, 4096);
	run_wr_loop(bd, &op_write_t10, 0.005, &res);
	if (memcmp(bd->pairs[0].dst->addr, bd->pairs[0].src->addr, 4096) != 0)
		bench_die("RDMA WRITE through the T10-DIF MKEY: not the data without its PI", NULL);
}

static void cpus_text(const int *cpus, unsigned n, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = 0;
	for (unsigned i = 0; i < n && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%d", i ? "," : "", cpus[i]);
}

int main(void)
{
	const char *e, *only = getenv("BENCH_ONLY");
	int allowed[CPULIST_MAX], n_allowed, main_cpu, cpus1[1], cpus2[2];
	struct bench_dev *one = calloc(1, sizeof(*one)), *two = calloc(1, sizeof(*two));
	struct bench_dev *rec = calloc(1, sizeof(*rec)), *apart = calloc(1, sizeof(*apart));
	struct dp_transform_cfg t10 = t10_cfg(), xts = xts_cfg();
	struct dp_transform *t10_engine = transform_new(&t10), *xts_engine = transform_new(&xts);
	struct pair_cfg rec_pair = default_pair, apart_pair = default_pair;
	unsigned n_recoveries = 1000;
	uint64_t *since, *took;
	char text[128], c1[32], c2[32];
	double t_start = bench_now(), memcpy_gbs = 0;
	struct row all[] = {
		{ .name = "memcpy 4 KiB (main thread)", .unit = UNIT_GBPS },
		{ .name = "RC RDMA WRITE 4 KiB, 1 worker", .bd = one, .op = &op_write_4k, .unit = UNIT_GBPS },
		{ .name = "RC RDMA WRITE 4 KiB, 2 workers", .bd = two, .op = &op_write_4k, .unit = UNIT_GBPS },
		{ .name = "RC RDMA WRITE 4 KiB, QPs on 2 workers", .bd = apart, .op = &op_write_4k,
		  .unit = UNIT_GBPS },
		{ .name = "RC SEND 64 B, 1 worker", .bd = one, .op = &op_send_64, .unit = UNIT_MMSGS },
		{ .name = "RC SEND 64 B, 2 workers", .bd = two, .op = &op_send_64, .unit = UNIT_MMSGS },
		{ .name = "engine T10-DIF check+strip 4 KiB", .engine = t10_engine, .unit = UNIT_GBPS },
		{ .name = "RC WRITE 4 KiB T10-DIF MKEY, 1 worker", .bd = one, .op = &op_write_t10,
		  .unit = UNIT_GBPS, .ref = "engine T10-DIF check+strip 4 KiB" },
		{ .name = "RC WRITE 4 KiB T10-DIF MKEY, 2 workers", .bd = two, .op = &op_write_t10,
		  .unit = UNIT_GBPS, .ref = "engine T10-DIF check+strip 4 KiB" },
		{ .name = "engine AES-256-XTS encrypt 4 KiB", .engine = xts_engine, .unit = UNIT_GBPS },
		{ .name = "RC WRITE 4 KiB AES-XTS MKEY, 1 worker", .bd = one, .op = &op_write_xts,
		  .unit = UNIT_GBPS, .ref = "engine AES-256-XTS encrypt 4 KiB" },
		{ .name = "RC WRITE 4 KiB AES-XTS MKEY, 2 workers", .bd = two, .op = &op_write_xts,
		  .unit = UNIT_GBPS, .ref = "engine AES-256-XTS encrypt 4 KiB" },
	};
	struct row rows[sizeof(all) / sizeof(all[0])];
	unsigned n_rows = 0;

	if ((e = getenv("BENCH_MS")) && atof(e) > 0)
		sample_ms = atof(e);
	if ((e = getenv("BENCH_SIGNAL")) && atoi(e) > 0)
		signal_every = (unsigned)atoi(e);
	if (signal_every > WINDOW)
		signal_every = WINDOW;
	if ((e = getenv("BENCH_RECOVERIES")) && atoi(e) > 0)
		n_recoveries = (unsigned)atoi(e);
	since = calloc(n_recoveries, sizeof(*since));
	took = calloc(n_recoveries, sizeof(*took));
	if (!one || !two || !rec || !apart || !since || !took)
		bench_die("out of memory", NULL);
	/* CPUs: the main thread on the first allowed; the workers as the comment at the top says. */
	n_allowed = (int)bench_init(allowed, CPULIST_MAX);
	main_cpu = allowed[0];
	pin_self(main_cpu);
	if (n_allowed >= 3) {
		cpus1[0] = allowed[1];
		cpus2[0] = allowed[1];
		cpus2[1] = allowed[2];
	} else if (n_allowed == 2) {
		cpus1[0] = allowed[1];
		cpus2[0] = allowed[1];
		cpus2[1] = allowed[0];
	} else {
		cpus1[0] = cpus2[0] = cpus2[1] = allowed[0];
	}
	bench_dev_start(one, 0, cpus1, 1);
	bench_dev_add_pairs(one, 1, &default_pair);
	bench_dev_add_mkeys(one);
	bench_dev_start(two, 1, cpus2, 2);
	bench_dev_add_pairs(two, 2, &default_pair);
	bench_dev_add_mkeys(two);
	apart_pair.apart = true;
	bench_dev_start(apart, 3, cpus2, 2);
	bench_dev_add_pairs(apart, 1, &apart_pair);
	rec_pair.sig_pipelining = true;
	bench_dev_start(rec, 2, cpus1, 1);
	bench_dev_add_pairs(rec, 1, &rec_pair);
	bench_dev_add_mkeys(rec);

	ref_src = aligned_alloc(4096, AREA);
	ref_dst = aligned_alloc(4096, AREA);
	if (!ref_src || !ref_dst)
		bench_die("out of memory", NULL);
	memcpy(ref_src, one->pairs[0].src->addr, AREA);
	memset(ref_dst, 0, AREA);
	/* The engine's input: the memory the T10-DIF MKEYs lay out, twice. */
	ref_mem = malloc(2 * T10_MEM);
	if (!ref_mem)
		bench_die("out of memory", NULL);
	memcpy(ref_mem, one->pairs[0].src->addr + RECV_AREA, T10_MEM);
	memcpy(ref_mem + T10_MEM, one->pairs[0].src->addr + RECV_AREA, T10_MEM);

	for (unsigned i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (!only || strstr(all[i].name, only))
			rows[n_rows++] = all[i];

	cpulist_format(allowed, (size_t)n_allowed, text, sizeof(text));
	cpus_text(cpus1, 1, c1, sizeof(c1));
	cpus_text(cpus2, 2, c2, sizeof(c2));
	printf("# bench_datapath: soft device, started workers, in-process; per QP pair %u send WRs "
	       "outstanding, every %u%s signaled, %u receives posted; median of %d interleaved samples "
	       "of %.0f ms\n", WINDOW, signal_every, signal_every == 1 ? "st" : "th", RQ_DEPTH, NSAMPLE,
	       sample_ms);
	printf("# CPUs allowed: %s; main thread (posts, polls, memcpy) on CPU %d; 1 worker on CPU %s; "
	       "2 workers on CPUs %s (pair i on worker i)\n", text, main_cpu, c1, c2);
	if (n_allowed == 1)
		printf("# NOTE: only CPU %d is allowed: the main thread and every worker share it; "
		       "the 2-worker rows run 2 workers on that one CPU\n", main_cpu);
	else if (n_allowed == 2)
		printf("# NOTE: 2 CPUs allowed: in the 2-worker rows worker 1 shares CPU %d with the "
		       "main thread\n", main_cpu);
	{
		int used[MAX_WORKERS + 1];
		unsigned n_used = 0;

		for (int i = 0; i < n_allowed && n_used < 3; i++)
			used[n_used++] = allowed[i];
		bench_cpu_probe(used, n_used, 0.3);
	}
	fflush(stdout);

	bench_interleave(&(struct bench_rows){ .rows = rows, .size = sizeof(rows[0]), .n = n_rows, .sample = sample_row,
					   .forget_offset = offsetof(struct row, sum), .forget_size = sizeof(rows[0].sum),
					   .stat_offset = offsetof(struct row, stat) }, sample_ms / 1000.0, NSAMPLE);
	for (unsigned i = 0; i < n_rows; i++)
		if (rows[i].op == &op_write_4k)
			check_written(rows[i].bd);
	check_written_through_t10(one);
	measure_recoveries(rec, n_recoveries, since, took);

	printf("%-40s %9s %9s %9s %-6s %11s %7s %7s %7s %8s\n", "row", "median", "min", "max", "unit",
	       "vs ref", "m-wait", "RNR", "q-full", "w-sleeps");
	for (unsigned i = 0; i < n_rows; i++)
		if (!rows[i].bd && !rows[i].engine)
			memcpy_gbs = rows[i].stat.median;
	for (unsigned i = 0; i < n_rows; i++) {
		struct row *r = &rows[i];
		char ratio[16] = "", full[16] = "", rnr[24] = "", busy[24] = "", sleeps[24] = "";

		if (r->ref) {
			for (unsigned j = 0; j < n_rows; j++)
				if (strcmp(rows[j].name, r->ref) == 0 && rows[j].stat.median > 0)
					snprintf(ratio, sizeof(ratio), "x%.3f eng", r->stat.median / rows[j].stat.median);
		} else if (r->unit == UNIT_GBPS && r->bd && memcpy_gbs > 0) {
			snprintf(ratio, sizeof(ratio), "x%.3f", r->stat.median / memcpy_gbs);
		}
		if (r->bd) {
			snprintf(full, sizeof(full), "%.0f%%", r->sum.seconds > 0 ?
				 100.0 * r->sum.waited / r->sum.seconds : 0.0);
			snprintf(rnr, sizeof(rnr), "%llu", (unsigned long long)r->sum.rnr_naks);
			snprintf(busy, sizeof(busy), "%llu", (unsigned long long)(r->sum.sq_busy + r->sum.rq_busy));
			snprintf(sleeps, sizeof(sleeps), "%llu", (unsigned long long)r->sum.worker_sleeps);
		}
		printf("%-40s %9.3f %9.3f %9.3f %-6s %11s %7s %7s %7s %8s\n", r->name, r->stat.median, r->stat.min,
		       r->stat.max, r->unit == UNIT_GBPS ? "GB/s" : "Mmsg/s", ratio, full, rnr, busy, sleeps);
	}
	printf("# vs ref: GB/s rows against memcpy, MKEY rows against the engine's row (\"eng\")\n");
	printf("# m-wait: time the main thread found every window full and could post nothing (high: "
	       "the workers are the limit, low: the main thread is); RNR: SENDs that found no receive; "
	       "q-full: posts refused as full although the window allowed them (a completion seen before its "
	       "queue slot was given back); w-sleeps: times the workers went to sleep; all summed "
	       "over the samples\n");
	printf("# engine: the offload engine alone on the main thread (dp_transform_run, TX of the memory "
	       "bytes of 4 KiB of wire bytes, no copy around it); \"eng\": the MKEY row against it\n");
	printf("%-40s %9.1f %9.1f us (median, p99 of %u; %.1f / %.1f us of it the recovery's own steps)\n",
	       "auto recovery: sig error -> RTS", since[n_recoveries / 2] / 1e3,
	       since[(size_t)((n_recoveries - 1) * 0.99)] / 1e3, n_recoveries, took[n_recoveries / 2] / 1e3,
	       took[(size_t)((n_recoveries - 1) * 0.99)] / 1e3);
	printf("# %.1f s\n", bench_now() - t_start);
	fflush(stdout);

	bench_soft_stop(&one->s);
	bench_soft_stop(&two->s);
	bench_soft_stop(&rec->s);
	bench_soft_stop(&apart->s);
	dp_transform_destroy(t10_engine);
	dp_transform_destroy(xts_engine);
	free(one);
	free(two);
	free(rec);
	free(since);
	free(took);
	free(ref_mem);
	free(ref_src);
	free(ref_dst);
	return 0;
}
