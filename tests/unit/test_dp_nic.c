/* SPDX-License-Identifier: MIT */
/*
 * The NIC below the driver: dataplane/ alone, no daemon/.  A
 * fixture builds a dp_nic on two workers, one CQ, two connected RC QP
 * contexts (a on worker 0, b on worker 1) and MRs in the key table; the
 * tests write queue entries into the slots themselves, as a client process
 * writing shared memory would.
 *  - Hostile entries (counts, lengths, opcodes and keys out of range) end in
 *    the error completion dataplane/engine/wqe_read.c decides, and nothing reads or
 *    writes outside the memory given: queues and MRs are allocated to the
 *    byte, so ASan (make check SANITIZE=1) sees any step past them.
 *  - Keys replaced and cleared under traffic on started workers are never
 *    used once freed (make check SANITIZE=thread, and ASan).
 *  - Loopback between two started workers: SEND, WRITE, READ, RNR, order.
 *  - Invalidation: LOCAL_INV in order with the WRs around it, SEND_WITH_INV
 *    of an MKEY that allows it and of one that does not.
 *  - Who asks: a QP of another PD that connects to a connected QP's number
 *    (the hijack), every QP number guessed, keys of another PD: refused,
 *    counted, the victim's bytes unchanged.
 */
#include <arpa/inet.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "dataplane/cq.h"
#include "dataplane/engine/engine.h"
#include "dataplane/loopback/loopback.h"
#include "dataplane/keytab.h"
#include "dataplane/mkey.h"
#include "dataplane/nic.h"
#include "dataplane/offload/transform.h"
#include "dataplane/engine/qp.h"
#include "dataplane/worker.h"

#define N_WORKERS 2
#define N_QPN     64
#define QPN_A     10
#define QPN_B     11
#define PD        1
#define OTHER_PD  2
#define TAG       0x5a
#define MR_BYTES  4096
#define ACCESS_ALL (DP_ACCESS_LOCAL_WRITE | DP_ACCESS_REMOTE_WRITE | DP_ACCESS_REMOTE_READ)
/* Started workers are shared with the rest of the machine (and TSan): generous. */
#define WAIT_NS   (30ull * 1000000000u)

/* MR slots of the key table; MR_SPARE is published only by the tests that want it. */
enum { MR_A = 1, MR_B, MR_OTHER_PD, MR_READ_ONLY, MR_SPARE, MR_COUNT, N_MR = 16 };
#define N_MKEY     4
#define MKEY_SPARE DP_MKEY_INDEX_BASE

struct hostile;

struct opts {
	bool started;             /* worker threads run; else the test plays their turns */
	uint32_t wrs;             /* max_send_wr and max_recv_wr of both QPs */
	uint32_t sges;            /* max_send_sge and max_recv_sge */
	uint32_t max_inline;
};

struct fixture {
	struct opts o;
	const struct hostile *hostile;
	struct dp_worker workers[N_WORKERS];
	struct dp_worker *wp[N_WORKERS];
	struct dp_nic nic;
	struct dp_cq *cq;
	struct dp_qp *a, *b;
	void *queue_mem[4];       /* the QPs' queues, as a client's shared memory */
	unsigned n_queue_mem;
	uint8_t *mem[MR_COUNT];   /* MR memory by index, MR_BYTES each */
};

/* ---- keys ---- */

static uint32_t key_of(uint32_t index, uint8_t tag)
{
	return index << 8 | tag;
}

static uint32_t mr_key(unsigned index)
{
	return key_of(index, TAG);
}

/* Far from the address of its memory: a worker that forgot to translate would be seen. */
static uint64_t mr_iova(unsigned index)
{
	return (uint64_t)index << 32;
}

static struct dp_key *mr_entry(struct fixture *f, unsigned index, uint8_t tag, uint32_t pd, uint32_t access)
{
	struct dp_key *k = malloc(sizeof(*k));

	assert_non_null(k);
	*k = (struct dp_key){
		.key = key_of(index, tag), .kind = DP_KEY_MR, .pd = pd, .access = access, .rkey = true,
		.iova = mr_iova(index), .length = MR_BYTES, .addr = f->mem[index],
	};
	return k;
}

static void mr_publish(struct fixture *f, unsigned index, uint8_t tag, uint32_t pd, uint32_t access)
{
	assert_int_equal(dp_keytab_set(&f->nic.keytab, mr_entry(f, index, tag, pd, access)), 0);
}

/*
 * An MKEY over the first 256 bytes of MR_SPARE's memory (a context the table
 * frees with its entry); remote_invalidate lets a SEND_WITH_INV invalidate it.
 */
static void mkey_publish_in(struct fixture *f, uint32_t key, uint32_t pd, bool remote_invalidate)
{
	struct dp_mkey *m = calloc(1, sizeof(*m));
	struct dp_key *k = calloc(1, sizeof(*k));

	assert_non_null(m);
	assert_non_null(k);
	m->entries = calloc(1, sizeof(*m->entries));
	assert_non_null(m->entries);
	m->entries[0] = (struct dp_mkey_entry){ .addr = f->mem[MR_SPARE], .length = 256 };
	m->n_entries = 1;
	m->rounds = 1;
	m->length = 256;
	m->pd = pd;
	m->access = ACCESS_ALL;
	m->usable = true;
	*k = (struct dp_key){ .key = key, .kind = DP_KEY_MKEY, .pd = pd, .access = ACCESS_ALL, .rkey = true,
			      .remote_invalidate = remote_invalidate, .mkey = m };
	assert_int_equal(dp_keytab_set(&f->nic.keytab, k), 0);
}

static void mkey_publish(struct fixture *f, uint32_t key, bool remote_invalidate)
{
	mkey_publish_in(f, key, PD, remote_invalidate);
}

/* ---- memory ---- */

static bool untouched(const struct fixture *f, unsigned index)
{
	for (unsigned i = 0; i < MR_BYTES; i++)
		if (f->mem[index][i] != index)
			return false;
	return true;
}

static void fill(uint8_t *p, size_t n, uint8_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed + i * 7);
}

/*
 * The queue moved into memory of exactly its size, as a client's shared
 * memory would be: ASan then sees any read past its last entry.
 */
static void queue_in_own_memory(struct fixture *f, struct dp_queue *q)
{
	uint32_t entries = dp_queue_capacity(q), size = q->entry_size;
	size_t bytes = dp_queue_bytes(entries, size);
	void *mem = NULL;

	assert_int_equal(posix_memalign(&mem, DP_QUEUE_CACHELINE, bytes), 0);
	memset(mem, 0, bytes);
	dp_queue_release(q);
	assert_int_equal(dp_queue_format(q, mem, bytes, entries, size), 0);
	f->queue_mem[f->n_queue_mem++] = mem;
}

/* ---- workers ---- */

/* One turn of an unstarted worker, as its loop would play it: its commands, then its pollers. */
static unsigned turn(struct dp_worker *w)
{
	unsigned work = 0;

	dp_worker_run_commands(w);
	for (unsigned p = 0; p < w->n_pollers; p++)
		work += w->pollers[p].fn(w, w->pollers[p].arg);
	return work;
}

/* Turns of both unstarted workers until neither has anything left to do. */
static void settle(struct fixture *f)
{
	for (unsigned i = 0; i < 100000; i++)
		if (turn(&f->workers[0]) + turn(&f->workers[1]) == 0)
			return;
	fail_msg("the workers never went idle");
}

/* ---- QPs ---- */

static struct dp_qp *qp_new_in(struct fixture *f, uint32_t qpn, uint32_t pd, enum dp_qp_type type)
{
	struct dp_qp_config cfg = {
		.qpn = qpn, .pd = pd, .type = type,
		.max_send_wr = f->o.wrs, .max_recv_wr = f->o.wrs,
		.max_send_sge = f->o.sges, .max_recv_sge = f->o.sges, .max_inline = f->o.max_inline,
	};
	struct dp_qp *q;

	assert_int_equal(dp_qp_new(&f->nic, &cfg, f->cq, f->cq, &q), 0);
	return q;
}

static struct dp_qp *qp_new(struct fixture *f, uint32_t qpn)
{
	struct dp_qp *q = qp_new_in(f, qpn, PD, DP_QPT_RC);

	queue_in_own_memory(f, &q->sq);
	queue_in_own_memory(f, &q->rq);
	return q;
}

/* As the driver does it: attached to its worker, then RTR and RTS towards dest. */
static void qp_connect(struct dp_qp *q, struct dp_worker *w, uint32_t dest)
{
	struct dp_qp_attr attr = {
		.access_flags = ACCESS_ALL, .dest_qpn = dest, .rnr_retry = DP_RNR_RETRY_INFINITE,
		.min_rnr_timer = 1, .max_dest_rd_atomic = 1,
	};

	dp_qp_attach(q, w);
	attr.state = DP_QPS_RTR;
	assert_int_equal(dp_qp_update(q, &attr), 0);
	attr.state = DP_QPS_RTS;
	assert_int_equal(dp_qp_update(q, &attr), 0);
}

/* As the driver destroys a QP: taken back from its worker (nothing of it in flight), then freed. */
static void qp_destroy(struct dp_qp *q)
{
	if (q->worker)
		dp_qp_release(q);
	dp_qp_free(q);
}

static struct fixture *fixture_new(const struct opts *o)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->o = *o;
	for (unsigned i = 0; i < N_WORKERS; i++) {
		assert_int_equal(dp_worker_init(&f->workers[i], i, -1), 0);
		f->wp[i] = &f->workers[i];
		if (o->started)
			assert_int_equal(dp_worker_start(&f->workers[i]), 0);
	}
	assert_int_equal(dp_nic_init(&f->nic, f->wp, N_WORKERS, N_MR, N_MKEY, N_QPN), 0);
	assert_int_equal(dp_loopback_open(&f->nic), 0);
	/* Both QPs' send and receive completions, with room to spare. */
	f->cq = dp_cq_new(1, 4 * o->wrs + 16, N_WORKERS);
	assert_non_null(f->cq);
	for (unsigned i = MR_A; i < MR_COUNT; i++) {
		f->mem[i] = malloc(MR_BYTES);
		assert_non_null(f->mem[i]);
		memset(f->mem[i], (int)i, MR_BYTES);
	}
	mr_publish(f, MR_A, TAG, PD, ACCESS_ALL);
	mr_publish(f, MR_B, TAG, PD, ACCESS_ALL);
	mr_publish(f, MR_OTHER_PD, TAG, OTHER_PD, ACCESS_ALL);
	/* Local read only: a READ cannot land there. */
	mr_publish(f, MR_READ_ONLY, TAG, PD, DP_ACCESS_REMOTE_READ);
	f->a = qp_new(f, QPN_A);
	f->b = qp_new(f, QPN_B);
	qp_connect(f->a, &f->workers[0], QPN_B);
	qp_connect(f->b, &f->workers[1], QPN_A);
	/* Both QPs in RTS before anything is posted: a request never finds its responder not there yet. */
	for (unsigned i = 0; i < N_WORKERS; i++)
		dp_worker_barrier(&f->workers[i]);
	return f;
}

static int setup(void **state)
{
	*state = fixture_new(*state);
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	qp_destroy(f->a);
	qp_destroy(f->b);
	for (unsigned i = 0; i < N_WORKERS; i++)
		dp_worker_stop(&f->workers[i]);
	dp_nic_workers_stopped(&f->nic);
	dp_nic_release(&f->nic);
	dp_cq_put(f->cq);
	for (unsigned i = 0; i < f->n_queue_mem; i++)
		free(f->queue_mem[i]);
	for (unsigned i = MR_A; i < MR_COUNT; i++)
		free(f->mem[i]);
	free(f);
	return 0;
}

/* ---- posting: entries written into the slots in the RFC's format ---- */

static struct dp_sge sge(unsigned index, uint64_t offset, uint32_t length)
{
	return (struct dp_sge){ .addr = mr_iova(index) + offset, .length = length, .lkey = mr_key(index) };
}

/* The next send slot, cleared, holding a signaled WR of opcode; sq_post publishes it. */
static struct dp_sq_req *sq_entry(struct dp_qp *q, uint64_t wr_id, uint8_t opcode)
{
	uint32_t index;
	struct dp_sq_req *req = dp_queue_reserve(&q->sq, &index);

	assert_non_null(req);
	memset(req, 0, q->sq.entry_size);
	req->wr_id = wr_id;
	req->opcode = opcode;
	req->send_flags = DP_SEND_SIGNALED;
	return req;
}

static void sq_post(struct dp_qp *q)
{
	dp_queue_publish(&q->sq, 1);
	dp_worker_wake(q->worker);
}

static struct dp_rq_req *rq_entry(struct dp_qp *q, uint64_t wr_id)
{
	uint32_t index;
	struct dp_rq_req *req = dp_queue_reserve(&q->rq, &index);

	assert_non_null(req);
	memset(req, 0, q->rq.entry_size);
	req->wr_id = wr_id;
	return req;
}

static void rq_post(struct dp_qp *q)
{
	dp_queue_publish(&q->rq, 1);
	dp_worker_wake(q->worker);
}

/* A WRITE or READ of the bytes of sges (n) to or from offset in the MR of index remote. */
static void post_rdma(struct dp_qp *q, uint64_t wr_id, uint8_t opcode, const struct dp_sge *sges, uint32_t n,
		      unsigned remote, uint64_t offset)
{
	struct dp_sq_req *req = sq_entry(q, wr_id, opcode);

	req->rdma.remote_addr = mr_iova(remote) + offset;
	req->rdma.rkey = mr_key(remote);
	req->num_sge = n;
	memcpy(req->sg_list, sges, n * sizeof(*sges));
	sq_post(q);
}

static void post_send(struct dp_qp *q, uint64_t wr_id, struct dp_sge s)
{
	struct dp_sq_req *req = sq_entry(q, wr_id, DP_WR_SEND);

	req->num_sge = 1;
	req->sg_list[0] = s;
	sq_post(q);
}

static void post_recv(struct dp_qp *q, uint64_t wr_id, struct dp_sge s)
{
	struct dp_rq_req *req = rq_entry(q, wr_id);

	req->num_sge = 1;
	req->sg_list[0] = s;
	rq_post(q);
}

/* ---- completions ---- */

/* The next completion: played out (unstarted workers) or waited for (started). */
static struct dp_cqe next_cqe(struct fixture *f)
{
	uint64_t deadline = dp_worker_now_ns() + WAIT_NS;
	struct dp_cqe e;

	for (;;) {
		if (!f->o.started)
			settle(f);
		if (dp_cq_poll(f->cq, &e, 1))
			return e;
		if (!f->o.started || dp_worker_now_ns() > deadline)
			fail_msg("no completion came");
		sched_yield();
	}
}

/* A status by name, so that a failure says which. */
static const char *status_name(uint8_t status)
{
	const char *name = dp_wc_status_name(status);

	return name ? name : "(out of range)";
}

static void check_cqe(const struct dp_cqe *e, uint32_t qpn, uint64_t wr_id, uint8_t status, uint8_t opcode,
		      uint32_t byte_len)
{
	assert_int_equal(e->qp_num, qpn);
	assert_int_equal(e->wr_id, wr_id);
	assert_string_equal(status_name(e->status), status_name(status));
	/* Of an error completion only wr_id, status and qp_num are defined (reference §4.2). */
	if (status == DP_WC_SUCCESS) {
		assert_int_equal(e->opcode, opcode);
		assert_int_equal(e->byte_len, byte_len);
	}
}

static void expect_cqe(struct fixture *f, uint32_t qpn, uint64_t wr_id, uint8_t status, uint8_t opcode,
		       uint32_t byte_len)
{
	struct dp_cqe e = next_cqe(f);

	check_cqe(&e, qpn, wr_id, status, opcode, byte_len);
}

/* The next two completions, one of a and one of b: the lanes of two workers have no order between them. */
static void next_pair(struct fixture *f, struct dp_cqe *of_a, struct dp_cqe *of_b)
{
	struct dp_cqe e[2] = { next_cqe(f), next_cqe(f) };
	unsigned first_b = e[0].qp_num == QPN_B;

	*of_a = e[first_b];
	*of_b = e[!first_b];
}

static void expect_cq_empty(struct fixture *f)
{
	struct dp_cqe e;

	if (!f->o.started)
		settle(f);
	assert_int_equal(dp_cq_poll(f->cq, &e, 1), 0);
}

/* The driver's walk over the keys posted WRs name (before an MR goes): counted only. */
static bool count_key(uint32_t key, uint64_t iova, uint64_t length, void *data)
{
	(void)key;
	(void)iova;
	(void)length;
	++*(unsigned *)data;
	return false;
}

/* ==== 1. entries out of range ==== */

/*
 * One entry a hostile producer wrote: a's send entry starts as a good
 * 8-byte WRITE of MR_A[0, 8) to MR_B[0, 8) and spoil_send changes one thing
 * in it; spoil_recv, if any, writes b's receive entry (one SGE of 64 bytes
 * of MR_B before).  One WR per queue, in a queue of one slot: the slot is
 * the last bytes of the queue's memory.
 */
struct hostile {
	const char *name;
	struct opts o;
	void (*spoil_send)(struct fixture *f, struct dp_sq_req *req);
	void (*spoil_recv)(struct fixture *f, struct dp_rq_req *req);
	uint8_t send_status;
	uint8_t recv_status;      /* of b's receive, when there is one */
	bool responder_fails;     /* b goes to ERR too */
};

#define HOSTILE_WR_ID 0x4057
#define RECV_WR_ID    0x7ec

/* Every SGE the entry has room for, good ones; num_sge says more. */
static void fill_sges(struct dp_sge *sges, uint32_t room, unsigned index)
{
	for (uint32_t i = 0; i < room; i++)
		sges[i] = sge(index, 8 * i, 8);
}

static void send_sges_past_qp(struct fixture *f, struct dp_sq_req *req)
{
	fill_sges(req->sg_list, f->a->max_send_sge, MR_A);
	req->num_sge = f->a->max_send_sge + 1;
}

/* The QP was made with more SGEs than the device has (the driver's cap is not the NIC's). */
static void send_sges_past_device(struct fixture *f, struct dp_sq_req *req)
{
	fill_sges(req->sg_list, f->a->max_send_sge, MR_A);
	req->num_sge = DP_SEGS_MAX + 1;
}

static void send_sges_all_ones(struct fixture *f, struct dp_sq_req *req)
{
	(void)f;
	req->num_sge = UINT32_MAX;
}

static void inline_past_qp(struct fixture *f, struct dp_sq_req *req)
{
	req->send_flags |= DP_SEND_INLINE;
	req->inline_len = (uint16_t)(f->a->max_inline + 1);
}

/* max_inline beyond what an entry holds: the entry's size bounds it. */
static void inline_past_entry(struct fixture *f, struct dp_sq_req *req)
{
	(void)f;
	req->send_flags |= DP_SEND_INLINE;
	req->inline_len = DP_INLINE_MAX + 1;
}

static void inline_all_ones(struct fixture *f, struct dp_sq_req *req)
{
	(void)f;
	req->send_flags |= DP_SEND_INLINE;
	req->inline_len = UINT16_MAX;
}

static void opcode_past_last(struct fixture *f, struct dp_sq_req *req)
{
	(void)f;
	req->opcode = DP_WR_OPCODE_COUNT;
}

static void opcode_all_ones(struct fixture *f, struct dp_sq_req *req)
{
	(void)f;
	req->opcode = UINT8_MAX;
}

/* Each length fits 32 bits, their sum does not. */
static void send_lengths_past_4g(struct fixture *f, struct dp_sq_req *req)
{
	(void)f;
	req->num_sge = 2;
	req->sg_list[0] = sge(MR_A, 0, 1u << 31);
	req->sg_list[1] = sge(MR_A, 0, 1u << 31);
}

static void lkey_of_nothing(struct fixture *f, struct dp_sq_req *req)
{
	(void)f;
	req->sg_list[0].lkey = mr_key(MR_SPARE);
}

static void lkey_past_table(struct fixture *f, struct dp_sq_req *req)
{
	(void)f;
	req->sg_list[0].lkey = key_of(N_MR + 1, TAG);
}

static void lkey_all_ones(struct fixture *f, struct dp_sq_req *req)
{
	(void)f;
	req->sg_list[0].lkey = UINT32_MAX;
}

static void lkey_stale_tag(struct fixture *f, struct dp_sq_req *req)
{
	(void)f;
	req->sg_list[0].lkey = key_of(MR_A, TAG + 1);
}

static void lkey_other_pd(struct fixture *f, struct dp_sq_req *req)
{
	(void)f;
	req->sg_list[0] = sge(MR_OTHER_PD, 0, 8);
}

static void sge_past_mr(struct fixture *f, struct dp_sq_req *req)
{
	(void)f;
	req->sg_list[0] = sge(MR_A, MR_BYTES - 4, 8);
}

static void sge_before_mr(struct fixture *f, struct dp_sq_req *req)
{
	(void)f;
	req->sg_list[0].addr = mr_iova(MR_A) - 4;
}

static void read_into_read_only(struct fixture *f, struct dp_sq_req *req)
{
	(void)f;
	req->opcode = DP_WR_RDMA_READ;
	req->sg_list[0] = sge(MR_READ_ONLY, 0, 8);
}

static void rkey_of_nothing(struct fixture *f, struct dp_sq_req *req)
{
	(void)f;
	req->rdma.rkey = mr_key(MR_SPARE);
}

static void rkey_other_pd(struct fixture *f, struct dp_sq_req *req)
{
	(void)f;
	req->rdma.rkey = mr_key(MR_OTHER_PD);
	req->rdma.remote_addr = mr_iova(MR_OTHER_PD);
}

static void remote_past_mr(struct fixture *f, struct dp_sq_req *req)
{
	(void)f;
	req->rdma.remote_addr = mr_iova(MR_B) + MR_BYTES - 4;
}

static void as_send(struct fixture *f, struct dp_sq_req *req)
{
	(void)f;
	req->opcode = DP_WR_SEND;
}

static void recv_sges_past_qp(struct fixture *f, struct dp_rq_req *req)
{
	fill_sges(req->sg_list, f->b->max_recv_sge, MR_B);
	req->num_sge = f->b->max_recv_sge + 1;
}

static void recv_sges_past_device(struct fixture *f, struct dp_rq_req *req)
{
	fill_sges(req->sg_list, f->b->max_recv_sge, MR_B);
	req->num_sge = DP_SEGS_MAX + 1;
}

static void recv_sges_all_ones(struct fixture *f, struct dp_rq_req *req)
{
	(void)f;
	req->num_sge = UINT32_MAX;
}

static void recv_lengths_past_4g(struct fixture *f, struct dp_rq_req *req)
{
	(void)f;
	req->num_sge = 2;
	req->sg_list[0] = sge(MR_B, 0, 1u << 31);
	req->sg_list[1] = sge(MR_B, 0, 1u << 31);
}

static void recv_lkey_stale_tag(struct fixture *f, struct dp_rq_req *req)
{
	(void)f;
	req->sg_list[0].lkey = key_of(MR_B, TAG + 1);
}

/* Queues of one slot; 4 SGEs make a send entry end on a cache line, so no padding hides a step past it. */
#define HOSTILE_OPTS { .wrs = 1, .sges = 4, .max_inline = 64 }
#define WIDE_OPTS    { .wrs = 1, .sges = DP_SEGS_MAX + 4, .max_inline = 64 }
#define LONG_INLINE_OPTS { .wrs = 1, .sges = 4, .max_inline = 2 * DP_INLINE_MAX }

static const struct hostile hostile_cases[] = {
	{ "send num_sge past max_send_sge", HOSTILE_OPTS, send_sges_past_qp, NULL, DP_WC_LOC_QP_OP_ERR, 0, false },
	{ "send num_sge past DP_SEGS_MAX", WIDE_OPTS, send_sges_past_device, NULL, DP_WC_LOC_QP_OP_ERR, 0, false },
	{ "send num_sge all ones", HOSTILE_OPTS, send_sges_all_ones, NULL, DP_WC_LOC_QP_OP_ERR, 0, false },
	{ "inline_len past max_inline", HOSTILE_OPTS, inline_past_qp, NULL, DP_WC_LOC_LEN_ERR, 0, false },
	{ "inline_len past the entry", LONG_INLINE_OPTS, inline_past_entry, NULL, DP_WC_LOC_LEN_ERR, 0, false },
	{ "inline_len all ones", LONG_INLINE_OPTS, inline_all_ones, NULL, DP_WC_LOC_LEN_ERR, 0, false },
	{ "opcode past the last", HOSTILE_OPTS, opcode_past_last, NULL, DP_WC_LOC_QP_OP_ERR, 0, false },
	{ "opcode all ones", HOSTILE_OPTS, opcode_all_ones, NULL, DP_WC_LOC_QP_OP_ERR, 0, false },
	{ "send SGE lengths past 2^32", HOSTILE_OPTS, send_lengths_past_4g, NULL, DP_WC_LOC_LEN_ERR, 0, false },
	{ "lkey of nothing", HOSTILE_OPTS, lkey_of_nothing, NULL, DP_WC_LOC_PROT_ERR, 0, false },
	{ "lkey past the table", HOSTILE_OPTS, lkey_past_table, NULL, DP_WC_LOC_PROT_ERR, 0, false },
	{ "lkey all ones", HOSTILE_OPTS, lkey_all_ones, NULL, DP_WC_LOC_PROT_ERR, 0, false },
	{ "lkey with a stale tag", HOSTILE_OPTS, lkey_stale_tag, NULL, DP_WC_LOC_PROT_ERR, 0, false },
	{ "lkey of another PD", HOSTILE_OPTS, lkey_other_pd, NULL, DP_WC_LOC_PROT_ERR, 0, false },
	{ "SGE past its MR", HOSTILE_OPTS, sge_past_mr, NULL, DP_WC_LOC_PROT_ERR, 0, false },
	{ "SGE before its MR", HOSTILE_OPTS, sge_before_mr, NULL, DP_WC_LOC_PROT_ERR, 0, false },
	{ "READ into an MR without local write", HOSTILE_OPTS, read_into_read_only, NULL, DP_WC_LOC_PROT_ERR, 0,
	  false },
	{ "rkey of nothing", HOSTILE_OPTS, rkey_of_nothing, NULL, DP_WC_REM_ACCESS_ERR, 0, true },
	{ "rkey of another PD", HOSTILE_OPTS, rkey_other_pd, NULL, DP_WC_REM_ACCESS_ERR, 0, true },
	{ "remote range past its MR", HOSTILE_OPTS, remote_past_mr, NULL, DP_WC_REM_ACCESS_ERR, 0, true },
	{ "recv num_sge past max_recv_sge", HOSTILE_OPTS, as_send, recv_sges_past_qp, DP_WC_REM_OP_ERR,
	  DP_WC_LOC_QP_OP_ERR, true },
	{ "recv num_sge past DP_SEGS_MAX", WIDE_OPTS, as_send, recv_sges_past_device, DP_WC_REM_OP_ERR,
	  DP_WC_LOC_QP_OP_ERR, true },
	{ "recv num_sge all ones", HOSTILE_OPTS, as_send, recv_sges_all_ones, DP_WC_REM_OP_ERR,
	  DP_WC_LOC_QP_OP_ERR, true },
	{ "recv SGE lengths past 2^32", HOSTILE_OPTS, as_send, recv_lengths_past_4g, DP_WC_REM_OP_ERR,
	  DP_WC_LOC_QP_OP_ERR, true },
	{ "recv lkey with a stale tag", HOSTILE_OPTS, as_send, recv_lkey_stale_tag, DP_WC_REM_OP_ERR,
	  DP_WC_LOC_QP_OP_ERR, true },
};

#define N_HOSTILE (sizeof(hostile_cases) / sizeof(hostile_cases[0]))

static int setup_hostile(void **state)
{
	const struct hostile *h = *state;
	struct fixture *f = fixture_new(&h->o);

	f->hostile = h;
	*state = f;
	return 0;
}

static void test_hostile_entry(void **state)
{
	struct fixture *f = *state;
	const struct hostile *h = f->hostile;
	struct dp_sge good = sge(MR_A, 0, 8);
	struct dp_sq_req *req;
	unsigned keys = 0;

	if (h->spoil_recv) {
		struct dp_rq_req *r = rq_entry(f->b, RECV_WR_ID);

		r->num_sge = 1;
		r->sg_list[0] = sge(MR_B, 0, 64);
		h->spoil_recv(f, r);
		rq_post(f->b);
	}
	req = sq_entry(f->a, HOSTILE_WR_ID, DP_WR_RDMA_WRITE);
	req->rdma.remote_addr = mr_iova(MR_B);
	req->rdma.rkey = mr_key(MR_B);
	req->num_sge = 1;
	req->sg_list[0] = good;
	h->spoil_send(f, req);
	sq_post(f->a);

	/* The driver reads posted entries too (is a key still named?): only inside them. */
	dp_qp_each_posted_key(f->a, count_key, &keys);
	dp_qp_each_posted_key(f->b, count_key, &keys);
	assert_in_range(keys, 0, f->a->max_send_sge + 1 + f->b->max_recv_sge);

	if (h->spoil_recv) {
		struct dp_cqe of_a, of_b;

		next_pair(f, &of_a, &of_b);
		check_cqe(&of_a, QPN_A, HOSTILE_WR_ID, h->send_status, 0, 0);
		check_cqe(&of_b, QPN_B, RECV_WR_ID, h->recv_status, 0, 0);
	} else {
		expect_cqe(f, QPN_A, HOSTILE_WR_ID, h->send_status, 0, 0);
	}
	expect_cq_empty(f);
	assert_int_equal(f->a->state, DP_QPS_ERR);
	assert_int_equal(f->b->state, h->responder_fails ? DP_QPS_ERR : DP_QPS_RTS);
	for (unsigned i = MR_A; i < MR_COUNT; i++)
		assert_true(untouched(f, i));
}

/*
 * A producer index a million entries past the consumer: the consumer sees
 * no more than the queue holds, and one turn of the requester sends that
 * many.  The slots hold zeros: unsignaled WRITEs of no bytes.
 */
static void test_producer_index_far_ahead(void **state)
{
	struct fixture *f = *state;
	struct dp_queue *sq = &f->a->sq;
	uint32_t cons = dp_queue_cons(sq), cap = dp_queue_capacity(sq);
	struct dp_sge s = sge(MR_A, 0, 16);
	unsigned keys = 0;

	atomic_store_explicit(&sq->hdr->prod, cons + 1000000, memory_order_release);
	assert_int_equal(dp_queue_ready(sq, cons), cap);
	assert_int_equal(dp_queue_ready(sq, cons + cap - 1), 1);
	assert_int_equal(dp_queue_ready(sq, cons + cap), 0);
	assert_int_equal(dp_queue_count(sq), cap);
	/* Each zero entry names its rkey (0), no SGE. */
	dp_qp_each_posted_key(f->a, count_key, &keys);
	assert_int_equal(keys, cap);

	turn(&f->workers[0]);
	assert_int_equal(atomic_load(&f->a->in_flight), cap);
	assert_int_equal(atomic_load(&f->a->req_next), cons + cap);

	/* The producer owns up to the entries it wrote: they complete, and the queue goes on. */
	atomic_store_explicit(&sq->prod_own, cons + cap, memory_order_relaxed);
	atomic_store_explicit(&sq->hdr->prod, cons + cap, memory_order_release);
	settle(f);
	assert_int_equal(dp_queue_cons(sq), cons + cap);
	assert_int_equal(atomic_load(&f->a->counters.wrs[DP_WR_RDMA_WRITE]), cap);
	expect_cq_empty(f);
	post_rdma(f->a, 1, DP_WR_RDMA_WRITE, &s, 1, MR_B, 0);
	expect_cqe(f, QPN_A, 1, DP_WC_SUCCESS, DP_WC_RDMA_WRITE, 16);
	assert_memory_equal(f->mem[MR_B], f->mem[MR_A], 16);
}

/* ==== 2. keys changing under traffic ==== */

/* One QP's signaled WRITEs of 64 bytes at offset of its MR into the other's, wr_id 0, 1, ... */
struct stream {
	struct dp_qp *q;
	unsigned from, to;
	uint64_t offset;
	uint64_t posted, completed;
	bool failed;
	uint8_t first_error;      /* the status of the first completion that was not a success */
	uint64_t first_error_wr;
};

#define STREAM_BYTES 64

/* Up to n more WRs, while the QP has fewer than its max_send_wr (so the CQ has room for them all). */
static void stream_post(struct stream *s, unsigned n)
{
	struct dp_sge from = sge(s->from, s->offset, STREAM_BYTES);

	for (unsigned i = 0; i < n && s->posted - s->completed < s->q->max_send_wr; i++)
		post_rdma(s->q, s->posted++, DP_WR_RDMA_WRITE, &from, 1, s->to, s->offset);
}

/*
 * Takes one completion into its stream: in order; once one failed, the
 * rest are flushed (reference §4.2).
 */
static void stream_take(struct stream *streams, unsigned n, const struct dp_cqe *e)
{
	struct stream *s = NULL;

	for (unsigned i = 0; i < n; i++)
		if (streams[i].q->qpn == e->qp_num)
			s = &streams[i];
	assert_non_null(s);
	assert_int_equal(e->wr_id, s->completed);
	s->completed++;
	if (s->failed) {
		assert_int_equal(e->status, DP_WC_WR_FLUSH_ERR);
	} else if (e->status != DP_WC_SUCCESS) {
		s->failed = true;
		s->first_error = e->status;
		s->first_error_wr = e->wr_id;
	} else {
		assert_int_equal(e->byte_len, STREAM_BYTES);
	}
}

static void streams_poll(struct fixture *f, struct stream *streams, unsigned n)
{
	struct dp_cqe e[16];
	unsigned got;

	while ((got = dp_cq_poll(f->cq, e, 16)))
		for (unsigned i = 0; i < got; i++)
			stream_take(streams, n, &e[i]);
}

static void stream_drain(struct fixture *f, struct stream *streams, unsigned n, struct stream *s)
{
	while (s->completed < s->posted) {
		struct dp_cqe e = next_cqe(f);

		stream_take(streams, n, &e);
	}
}

/*
 * Keys the traffic does not name come and go (an MR under a new tag each
 * time, an MKEY), and between them the entries of the MRs it uses are
 * replaced by identical ones, again and again while WRs are on their way:
 * each change waits for both workers to pass a barrier before the entry it
 * replaced is freed.
 */
static void churn(struct fixture *f, unsigned round)
{
	uint8_t tag = (uint8_t)(round * 2 + 1);

	mr_publish(f, MR_A, TAG, PD, ACCESS_ALL);
	mr_publish(f, MR_SPARE, tag, PD, ACCESS_ALL);
	mr_publish(f, MR_B, TAG, PD, ACCESS_ALL);
	mkey_publish(f, key_of(MKEY_SPARE, tag), false);
	mr_publish(f, MR_A, TAG, PD, ACCESS_ALL);
	mkey_publish(f, key_of(MKEY_SPARE, (uint8_t)(tag + 1)), false);
	mr_publish(f, MR_B, TAG, PD, ACCESS_ALL);
	dp_keytab_clear(&f->nic.keytab, key_of(MR_SPARE, tag));
	mr_publish(f, MR_A, TAG, PD, ACCESS_ALL);
	dp_keytab_clear(&f->nic.keytab, key_of(MKEY_SPARE, (uint8_t)(tag + 1)));
	mr_publish(f, MR_B, TAG, PD, ACCESS_ALL);
}

#define CHURN_ROUNDS 300

/*
 * a WRITEs MR_A into MR_B and b MR_B into MR_A (other bytes) while the
 * key table churns; every WRITE succeeds.  Then b's stream stops, and the
 * key the test names (in use by a's stream) is cleared while a's WRs are
 * on their way: those read before the clear succeed, the first after it
 * fails with status, the rest are flushed.
 */
static void key_cleared_under_traffic(struct fixture *f, unsigned cleared, uint8_t status)
{
	struct stream streams[2] = {
		{ .q = f->a, .from = MR_A, .to = MR_B, .offset = 0 },
		{ .q = f->b, .from = MR_B, .to = MR_A, .offset = MR_BYTES / 2 },
	};
	struct stream *a = &streams[0], *b = &streams[1];
	uint64_t before;

	fill(f->mem[MR_A], STREAM_BYTES, 0x11);
	fill(f->mem[MR_B] + MR_BYTES / 2, STREAM_BYTES, 0x22);
	for (unsigned round = 0; round < CHURN_ROUNDS; round++) {
		stream_post(a, 32);
		stream_post(b, 32);
		churn(f, round);
		streams_poll(f, streams, 2);
	}
	stream_drain(f, streams, 2, a);
	stream_drain(f, streams, 2, b);
	assert_false(a->failed);
	assert_false(b->failed);
	assert_memory_equal(f->mem[MR_B], f->mem[MR_A], STREAM_BYTES);
	assert_memory_equal(f->mem[MR_A] + MR_BYTES / 2, f->mem[MR_B] + MR_BYTES / 2, STREAM_BYTES);

	stream_post(a, 16);
	dp_keytab_clear(&f->nic.keytab, mr_key(cleared));
	before = a->posted;
	stream_post(a, 16);
	stream_drain(f, streams, 2, a);
	assert_true(a->failed);
	assert_string_equal(status_name(a->first_error), status_name(status));
	/* No WR posted after the clear returned succeeded. */
	assert_in_range(a->first_error_wr, 0, before);
	expect_cq_empty(f);
}

static void test_lkey_cleared_under_traffic(void **state)
{
	key_cleared_under_traffic(*state, MR_A, DP_WC_LOC_PROT_ERR);
}

static void test_rkey_cleared_under_traffic(void **state)
{
	key_cleared_under_traffic(*state, MR_B, DP_WC_REM_ACCESS_ERR);
}

/* ==== 3. loopback between two started workers ==== */

static void test_send_write_read(void **state)
{
	struct fixture *f = *state;
	struct dp_sge gather[2] = { sge(MR_A, 100, 24), sge(MR_A, 300, 40) };
	struct dp_sge into = sge(MR_A, 1024, 40);
	struct dp_cqe of_a, of_b;
	uint8_t inline_bytes[16];
	struct dp_sq_req *req;

	/* SEND from an SGE into a receive WR larger than the message. */
	fill(f->mem[MR_A], 32, 1);
	post_recv(f->b, 100, sge(MR_B, 512, 64));
	post_send(f->a, 1, sge(MR_A, 0, 32));
	next_pair(f, &of_a, &of_b);
	check_cqe(&of_a, QPN_A, 1, DP_WC_SUCCESS, DP_WC_SEND, 32);
	check_cqe(&of_b, QPN_B, 100, DP_WC_SUCCESS, DP_WC_RECV, 32);
	assert_memory_equal(f->mem[MR_B] + 512, f->mem[MR_A], 32);
	assert_int_equal(f->mem[MR_B][512 + 32], MR_B);

	/* An inline SEND: the bytes travel in the entry. */
	post_recv(f->b, 101, sge(MR_B, 640, 64));
	req = sq_entry(f->a, 2, DP_WR_SEND);
	req->send_flags |= DP_SEND_INLINE;
	req->inline_len = sizeof(inline_bytes);
	fill(inline_bytes, sizeof(inline_bytes), 9);
	memcpy(req->inline_data, inline_bytes, sizeof(inline_bytes));
	sq_post(f->a);
	next_pair(f, &of_a, &of_b);
	check_cqe(&of_a, QPN_A, 2, DP_WC_SUCCESS, DP_WC_SEND, 16);
	check_cqe(&of_b, QPN_B, 101, DP_WC_SUCCESS, DP_WC_RECV, 16);
	assert_memory_equal(f->mem[MR_B] + 640, inline_bytes, sizeof(inline_bytes));

	/* A WRITE gathering two SGEs. */
	fill(f->mem[MR_A] + 100, 24, 3);
	fill(f->mem[MR_A] + 300, 40, 5);
	post_rdma(f->a, 3, DP_WR_RDMA_WRITE, gather, 2, MR_B, 2048);
	expect_cqe(f, QPN_A, 3, DP_WC_SUCCESS, DP_WC_RDMA_WRITE, 64);
	assert_memory_equal(f->mem[MR_B] + 2048, f->mem[MR_A] + 100, 24);
	assert_memory_equal(f->mem[MR_B] + 2048 + 24, f->mem[MR_A] + 300, 40);
	assert_int_equal(f->mem[MR_B][2048 + 64], MR_B);

	/* A READ lands in the requester's SGE. */
	fill(f->mem[MR_B] + 3000, 40, 7);
	post_rdma(f->a, 4, DP_WR_RDMA_READ, &into, 1, MR_B, 3000);
	expect_cqe(f, QPN_A, 4, DP_WC_SUCCESS, DP_WC_RDMA_READ, 40);
	assert_memory_equal(f->mem[MR_A] + 1024, f->mem[MR_B] + 3000, 40);
	expect_cq_empty(f);
}

/* What a worker runs besides its QPs, read on the worker itself. */
struct worker_hooks {
	unsigned pollers, turn_ends;
};

static void read_hooks(struct dp_worker *w, void *arg)
{
	struct worker_hooks *h = arg;

	h->pollers = w->n_pollers;
	h->turn_ends = w->n_turn_ends;
}

/*
 * A second NIC (a VM's device) joins the running workers and leaves them
 * again: its loopback poller and turn end come and go on every worker, and
 * the first NIC's traffic runs as before.
 */
static void test_nic_joins_and_leaves_running_workers(void **state)
{
	struct fixture *f = *state;
	struct worker_hooks before, with, after;
	struct dp_cqe of_a, of_b;
	struct dp_nic *vm = calloc(1, sizeof(*vm));

	assert_non_null(vm);
	dp_worker_run(&f->workers[1], read_hooks, &before);
	assert_int_equal(dp_nic_init(vm, f->wp, N_WORKERS, N_MR, N_MKEY, N_QPN), 0);
	assert_int_equal(dp_loopback_open(vm), 0);
	dp_worker_run(&f->workers[1], read_hooks, &with);
	assert_int_equal(with.pollers, before.pollers + 1);
	assert_int_equal(with.turn_ends, before.turn_ends + 1);
	dp_nic_release(vm);
	free(vm);
	dp_worker_run(&f->workers[1], read_hooks, &after);
	assert_int_equal(after.pollers, before.pollers);
	assert_int_equal(after.turn_ends, before.turn_ends);

	fill(f->mem[MR_A], 32, 4);
	post_recv(f->b, 200, sge(MR_B, 512, 64));
	post_send(f->a, 20, sge(MR_A, 0, 32));
	next_pair(f, &of_a, &of_b);
	check_cqe(&of_a, QPN_A, 20, DP_WC_SUCCESS, DP_WC_SEND, 32);
	check_cqe(&of_b, QPN_B, 200, DP_WC_SUCCESS, DP_WC_RECV, 32);
	assert_memory_equal(f->mem[MR_B] + 512, f->mem[MR_A], 32);
}

/* rnr_retry 7: a SEND that finds no receive WR waits, NAKed again and again, until one comes. */
static void test_rnr_until_a_receive_comes(void **state)
{
	struct fixture *f = *state;
	uint64_t deadline = dp_worker_now_ns() + WAIT_NS;
	struct dp_cqe of_a, of_b;

	fill(f->mem[MR_A], 16, 4);
	post_send(f->a, 1, sge(MR_A, 0, 16));
	while (atomic_load(&f->a->counters.rnr_naks) < 2) {
		assert_true(dp_worker_now_ns() < deadline);
		sched_yield();
	}
	usleep(20000);
	expect_cq_empty(f);
	post_recv(f->b, 7, sge(MR_B, 0, 64));
	next_pair(f, &of_a, &of_b);
	check_cqe(&of_a, QPN_A, 1, DP_WC_SUCCESS, DP_WC_SEND, 16);
	check_cqe(&of_b, QPN_B, 7, DP_WC_SUCCESS, DP_WC_RECV, 16);
	assert_memory_equal(f->mem[MR_B], f->mem[MR_A], 16);
}

#define MANY_WRITES 1000
#define WRITE_SLOTS 256

/*
 * 1000 WRITEs of 8 bytes, WR i writing its number into slot i % 256 of
 * MR_B: they complete in order, and each slot holds the number of the
 * last WR that wrote it, so they were executed in order too.
 */
static void test_many_writes_in_order(void **state)
{
	struct fixture *f = *state;
	uint64_t posted = 0, completed = 0, v, last;

	while (completed < MANY_WRITES) {
		struct dp_cqe e;

		/* A source slot is written again only once the WR that read it completed (256 > 64). */
		while (posted < MANY_WRITES && posted - completed < f->a->max_send_wr) {
			struct dp_sge s = sge(MR_A, (posted % WRITE_SLOTS) * 8, 8);

			memcpy(f->mem[MR_A] + (posted % WRITE_SLOTS) * 8, &posted, 8);
			post_rdma(f->a, posted, DP_WR_RDMA_WRITE, &s, 1, MR_B, (posted % WRITE_SLOTS) * 8);
			posted++;
		}
		e = next_cqe(f);
		assert_int_equal(e.wr_id, completed);
		assert_int_equal(e.status, DP_WC_SUCCESS);
		completed++;
	}
	for (unsigned slot = 0; slot < WRITE_SLOTS; slot++) {
		/* The last WR of the slot: slot + a whole number of rounds below MANY_WRITES. */
		last = slot + (MANY_WRITES - 1 - slot) / WRITE_SLOTS * WRITE_SLOTS;
		memcpy(&v, f->mem[MR_B] + slot * 8, 8);
		assert_int_equal(v, last);
	}
	expect_cq_empty(f);
}

/* ==== 4. invalidation ==== */

static void post_invalidate(struct dp_qp *q, uint64_t wr_id, uint8_t opcode, uint32_t key)
{
	struct dp_sq_req *req = sq_entry(q, wr_id, opcode);

	req->imm_data = key;     /* host order, as ibv_send_wr's invalidate_rkey */
	if (opcode == DP_WR_SEND_WITH_INV) {
		req->num_sge = 1;
		req->sg_list[0] = sge(MR_A, 0, 16);
	}
	sq_post(q);
}

/* LOCAL_INV of an MR: the WRITE before it goes through, the one after it finds no key. */
static void test_local_inv_in_order(void **state)
{
	struct fixture *f = *state;
	struct dp_sge from = sge(MR_SPARE, 0, 32);

	mr_publish(f, MR_SPARE, TAG, PD, ACCESS_ALL);
	fill(f->mem[MR_SPARE], 32, 11);
	post_rdma(f->a, 1, DP_WR_RDMA_WRITE, &from, 1, MR_B, 0);
	post_invalidate(f->a, 2, DP_WR_LOCAL_INV, mr_key(MR_SPARE));
	post_rdma(f->a, 3, DP_WR_RDMA_WRITE, &from, 1, MR_B, 64);
	expect_cqe(f, QPN_A, 1, DP_WC_SUCCESS, DP_WC_RDMA_WRITE, 32);
	expect_cqe(f, QPN_A, 2, DP_WC_SUCCESS, DP_WC_LOCAL_INV, 0);
	expect_cqe(f, QPN_A, 3, DP_WC_LOC_PROT_ERR, 0, 0);
	assert_memory_equal(f->mem[MR_B], f->mem[MR_SPARE], 32);
	assert_int_equal(f->mem[MR_B][64], MR_B);
	assert_null(dp_keytab_get(&f->nic.keytab, mr_key(MR_SPARE)));
}

/* LOCAL_INV of another PD's key: loc_prot_err, and the key stays. */
static void test_local_inv_other_pd(void **state)
{
	struct fixture *f = *state;

	post_invalidate(f->a, 1, DP_WR_LOCAL_INV, mr_key(MR_OTHER_PD));
	expect_cqe(f, QPN_A, 1, DP_WC_LOC_PROT_ERR, 0, 0);
	assert_non_null(dp_keytab_get(&f->nic.keytab, mr_key(MR_OTHER_PD)));
}

/* ==== 5. configure as a work request ==== */

/* A configure WR of key carrying entry k in its private slot (NULL: none, as a forged entry has). */
static void post_configure(struct dp_qp *q, uint64_t wr_id, uint32_t key, struct dp_key *k)
{
	uint32_t index = dp_queue_prod(&q->sq);
	struct dp_sq_req *req = sq_entry(q, wr_id, DP_WR_CONFIGURE);

	req->imm_data = key;     /* host order, as LOCAL_INV's key */
	dp_qp_sq_slot(q, index)->configure = k;
	sq_post(q);
}

/*
 * The entry a configure WR carries goes into the key table in order: the
 * WRITE before it reads the old memory of the key, the one after it the new;
 * the entry it replaced waits for the driver (dp_keytab_retire).
 */
static void test_configure_wr_in_order(void **state)
{
	struct fixture *f = *state;
	struct dp_sge from = sge(MR_SPARE, 0, 32);
	struct dp_key *k = mr_entry(f, MR_SPARE, TAG, PD, ACCESS_ALL);

	mr_publish(f, MR_SPARE, TAG, PD, ACCESS_ALL);
	fill(f->mem[MR_SPARE], 32, 11);
	fill(f->mem[MR_A], 32, 22);
	k->addr = f->mem[MR_A];
	post_rdma(f->a, 1, DP_WR_RDMA_WRITE, &from, 1, MR_B, 0);
	post_configure(f->a, 2, mr_key(MR_SPARE), k);
	post_rdma(f->a, 3, DP_WR_RDMA_WRITE, &from, 1, MR_B, 64);
	expect_cqe(f, QPN_A, 1, DP_WC_SUCCESS, DP_WC_RDMA_WRITE, 32);
	expect_cqe(f, QPN_A, 2, DP_WC_SUCCESS, DP_WC_CONFIGURE, 0);
	expect_cqe(f, QPN_A, 3, DP_WC_SUCCESS, DP_WC_RDMA_WRITE, 32);
	assert_memory_equal(f->mem[MR_B], f->mem[MR_SPARE], 32);
	assert_memory_equal(f->mem[MR_B] + 64, f->mem[MR_A], 32);
	assert_true(dp_keytab_holds(&f->nic.keytab, k));
	assert_non_null(atomic_load(&k->replaced));
	dp_keytab_retire(&f->nic.keytab, k);
	assert_null(atomic_load(&k->replaced));
}

/* A configure entry without its prepared context (an application's forgery): an operation error. */
static void test_configure_wr_forged(void **state)
{
	struct fixture *f = *state;

	post_configure(f->a, 1, mr_key(MR_SPARE), NULL);
	expect_cqe(f, QPN_A, 1, DP_WC_LOC_QP_OP_ERR, 0, 0);
}

/* A prepared context of another key than the entry names (its opcode or key changed): not published. */
static void test_configure_wr_other_key(void **state)
{
	struct fixture *f = *state;
	struct dp_key *k = mr_entry(f, MR_SPARE, TAG, PD, ACCESS_ALL);

	post_configure(f->a, 1, mr_key(MR_B), k);
	expect_cqe(f, QPN_A, 1, DP_WC_LOC_QP_OP_ERR, 0, 0);
	assert_false(dp_keytab_holds(&f->nic.keytab, k));
	free(k);
}

/* SEND_WITH_INV of an MKEY created for it: the receiver sees the key; the MKEY is gone. */
static void test_send_inv(void **state)
{
	struct fixture *f = *state;
	uint32_t key = key_of(MKEY_SPARE, TAG);
	struct dp_cqe of_a, of_b;

	mkey_publish(f, key, true);
	fill(f->mem[MR_A], 16, 3);
	post_recv(f->b, 100, sge(MR_B, 0, 64));
	post_invalidate(f->a, 1, DP_WR_SEND_WITH_INV, key);
	next_pair(f, &of_a, &of_b);
	check_cqe(&of_a, QPN_A, 1, DP_WC_SUCCESS, DP_WC_SEND, 16);
	check_cqe(&of_b, QPN_B, 100, DP_WC_SUCCESS, DP_WC_RECV, 16);
	assert_true(of_b.wc_flags & DP_WC_WITH_INV);
	assert_int_equal(ntohl(of_b.imm_data), key);
	assert_memory_equal(f->mem[MR_B], f->mem[MR_A], 16);
	assert_null(dp_keytab_get(&f->nic.keytab, key));
}

/* SEND_WITH_INV of an MR key (no remote_invalidate): an invalid request on both sides. */
static void test_send_inv_refused(void **state)
{
	struct fixture *f = *state;
	struct dp_cqe of_a, of_b;

	post_recv(f->b, 100, sge(MR_B, 0, 64));
	post_invalidate(f->a, 1, DP_WR_SEND_WITH_INV, mr_key(MR_B));
	next_pair(f, &of_a, &of_b);
	check_cqe(&of_a, QPN_A, 1, DP_WC_REM_INV_REQ_ERR, 0, 0);
	check_cqe(&of_b, QPN_B, 100, DP_WC_LOC_QP_OP_ERR, 0, 0);
	assert_non_null(dp_keytab_get(&f->nic.keytab, mr_key(MR_B)));
}

/* ==== 6. the responder checks who asks ==== */

#define QPN_STRANGER 12

/* Requests the responders of the NIC refused as not their peer's, all workers summed. */
static uint64_t device_refused(struct fixture *f)
{
	struct dp_counters c;

	dp_nic_counters(&f->nic, &c);
	return atomic_load(&c.refused_not_peer);
}

/*
 * Another program's QP: in OTHER_PD (its memory is MR_OTHER_PD's), on worker
 * w, connected (it says) to dest, with nothing of dest's side agreeing.
 */
static struct dp_qp *stranger_new(struct fixture *f, enum dp_qp_type type, unsigned w, uint32_t dest)
{
	struct dp_qp *q = qp_new_in(f, QPN_STRANGER, OTHER_PD, type);

	qp_connect(q, &f->workers[w], dest);
	return q;
}

/* A and B still talk: the stranger left B's state and sequence as they were. */
static void expect_a_and_b_still_talk(struct fixture *f)
{
	struct dp_cqe of_a, of_b;

	fill(f->mem[MR_A], 16, 21);
	post_recv(f->b, 900, sge(MR_B, 1024, 64));
	post_send(f->a, 901, sge(MR_A, 0, 16));
	next_pair(f, &of_a, &of_b);
	check_cqe(&of_a, QPN_A, 901, DP_WC_SUCCESS, DP_WC_SEND, 16);
	check_cqe(&of_b, QPN_B, 900, DP_WC_SUCCESS, DP_WC_RECV, 16);
	assert_memory_equal(f->mem[MR_B] + 1024, f->mem[MR_A], 16);
}

/*
 * The hijack: a QP of another PD connects to B's number (B is connected to
 * A) and WRITEs, then READs, with B's rkey and address.  Both fail with
 * rem_inv_req_err, B's memory is unchanged and so is the stranger's, B
 * counts both and stays in RTS, and A and B go on.  From each worker: one
 * request crosses the loopback queues, the other is a call on B's worker.
 */
static void test_hijack_refused(void **state)
{
	struct fixture *f = *state;
	struct dp_sge from = sge(MR_OTHER_PD, 0, 64), into = sge(MR_OTHER_PD, 0, 64);
	struct dp_qp *c;

	c = stranger_new(f, DP_QPT_RC, 0, QPN_B);
	post_rdma(c, 1, DP_WR_RDMA_WRITE, &from, 1, MR_B, 0);
	expect_cqe(f, QPN_STRANGER, 1, DP_WC_REM_INV_REQ_ERR, 0, 0);
	assert_int_equal(c->state, DP_QPS_ERR);
	qp_destroy(c);
	assert_true(untouched(f, MR_B));

	c = stranger_new(f, DP_QPT_RC, 1, QPN_B);
	post_rdma(c, 2, DP_WR_RDMA_READ, &into, 1, MR_B, 0);
	expect_cqe(f, QPN_STRANGER, 2, DP_WC_REM_INV_REQ_ERR, 0, 0);
	qp_destroy(c);
	assert_true(untouched(f, MR_OTHER_PD));

	assert_int_equal(atomic_load(&f->b->counters.refused_not_peer), 2);
	assert_int_equal(atomic_load(&f->a->counters.refused_not_peer), 0);
	assert_int_equal(device_refused(f), 2);
	assert_int_equal(f->b->state, DP_QPS_RTS);
	expect_cq_empty(f);
	expect_a_and_b_still_talk(f);
}

/* UC: the stranger's message is dropped (its WR succeeds, as UC's do), never written; B counts it. */
static void test_hijack_uc_dropped(void **state)
{
	struct fixture *f = *state;
	struct dp_sge from = sge(MR_OTHER_PD, 0, 64);
	struct dp_qp *c = stranger_new(f, DP_QPT_UC, 0, QPN_B);

	post_rdma(c, 1, DP_WR_RDMA_WRITE, &from, 1, MR_B, 0);
	expect_cqe(f, QPN_STRANGER, 1, DP_WC_SUCCESS, DP_WC_RDMA_WRITE, 64);
	assert_int_equal(atomic_load(&c->counters.lost), 1);
	qp_destroy(c);
	assert_true(untouched(f, MR_B));
	assert_int_equal(atomic_load(&f->b->counters.refused_not_peer), 1);
	expect_a_and_b_still_talk(f);
}

/*
 * Every QP number guessed in turn, by a fresh RC QP each time: B and A
 * (connected to each other) refuse and count it, numbers nobody runs fail
 * with retry_exc_err; nothing is written anywhere.
 */
static void test_guessed_qp_numbers(void **state)
{
	struct fixture *f = *state;
	struct dp_sge from = sge(MR_OTHER_PD, 0, 64);

	for (uint32_t guess = 0; guess < N_QPN + 2; guess++) {
		struct dp_qp *c;

		if (guess == QPN_STRANGER)
			continue;
		c = stranger_new(f, DP_QPT_RC, guess % N_WORKERS, guess);
		post_rdma(c, guess, DP_WR_RDMA_WRITE, &from, 1, guess == QPN_A ? MR_A : MR_B, 0);
		expect_cqe(f, QPN_STRANGER, guess, guess == QPN_A || guess == QPN_B ? DP_WC_REM_INV_REQ_ERR :
			   DP_WC_RETRY_EXC_ERR, 0, 0);
		qp_destroy(c);
	}
	assert_true(untouched(f, MR_A));
	assert_true(untouched(f, MR_B));
	assert_int_equal(atomic_load(&f->a->counters.refused_not_peer), 1);
	assert_int_equal(atomic_load(&f->b->counters.refused_not_peer), 1);
	expect_a_and_b_still_talk(f);
}

/* The peer itself with the key of an MKEY of another PD: a remote access error, the memory unchanged. */
static void test_mkey_of_other_pd(void **state)
{
	struct fixture *f = *state;
	uint32_t key = key_of(MKEY_SPARE, TAG);
	struct dp_sq_req *req;

	mkey_publish_in(f, key, OTHER_PD, false);
	req = sq_entry(f->a, 1, DP_WR_RDMA_WRITE);
	req->rdma.remote_addr = 0;
	req->rdma.rkey = key;
	req->num_sge = 1;
	req->sg_list[0] = sge(MR_A, 0, 64);
	sq_post(f->a);
	expect_cqe(f, QPN_A, 1, DP_WC_REM_ACCESS_ERR, 0, 0);
	assert_true(untouched(f, MR_SPARE));
	/* Not a stranger: the peer asked, with a key that is not its responder's. */
	assert_int_equal(atomic_load(&f->b->counters.refused_not_peer), 0);
}

/* SEND_WITH_INV naming another PD's MKEY, though it allows remote invalidation: refused, the key stays. */
static void test_send_inv_other_pd(void **state)
{
	struct fixture *f = *state;
	uint32_t key = key_of(MKEY_SPARE, TAG);
	struct dp_cqe of_a, of_b;

	mkey_publish_in(f, key, OTHER_PD, true);
	post_recv(f->b, 100, sge(MR_B, 0, 64));
	post_invalidate(f->a, 1, DP_WR_SEND_WITH_INV, key);
	next_pair(f, &of_a, &of_b);
	check_cqe(&of_a, QPN_A, 1, DP_WC_REM_INV_REQ_ERR, 0, 0);
	check_cqe(&of_b, QPN_B, 100, DP_WC_LOC_QP_OP_ERR, 0, 0);
	assert_non_null(dp_keytab_get(&f->nic.keytab, key));
}

/* ---- MKEY spans: reference §2.1 "partial trailing block" ---- */

/* The memory range of wire bytes through a 1040-byte layout with T10-DIF (8-byte PI) in both
 * domains: every boundary of a 512-byte block maps by the rule, a wire PI cut short does not,
 * and offsets must be whole blocks.  Expected values worked out by hand from the rule. */
static void test_mkey_span_partial_block(void **state)
{
	static const struct {
		uint64_t offset, length;
		int rc;
		uint64_t mem_offset, mem_length;
	} cases[] = {
		{ 0, 0, 0, 0, 0 },        { 0, 1, 0, 0, 1 },          { 0, 511, 0, 0, 511 },
		{ 0, 512, 0, 0, 520 },    { 0, 519, -EINVAL, 0, 0 },  { 0, 520, 0, 0, 520 },
		{ 0, 521, 0, 0, 521 },    { 0, 1032, 0, 0, 1040 },    { 0, 1040, 0, 0, 1040 },
		{ 0, 1039, -EINVAL, 0, 0 }, { 0, 1041, -EINVAL, 0, 0 },   /* past the layout */
		{ 520, 512, 0, 520, 520 }, { 520, 520, 0, 520, 520 }, { 520, 1, 0, 520, 1 },
		{ 512, 8, -EINVAL, 0, 0 }, { 1, 8, -EINVAL, 0, 0 },       /* offsets inside a block */
	};
	static uint8_t mem[1040];
	struct dp_sig_domain d = { .sig_type = DP_SIG_T10DIF, .block_size = 512 };
	struct dp_transform_cfg cfg;
	struct dp_mkey *m = dp_mkey_new(1);
	struct dp_error err;

	(void)state;
	assert_non_null(m);
	dp_transform_cfg_init(&cfg);
	cfg.mem = d;
	cfg.wire = d;
	m->transforms = calloc(1, sizeof(*m->transforms));
	m->entries = calloc(1, sizeof(*m->entries));
	assert_non_null(m->transforms);
	assert_non_null(m->entries);
	assert_int_equal(dp_transform_create(&cfg, NULL, 0, &m->transforms[0], &err), 0);
	m->n_transforms = 1;
	m->entries[0] = (struct dp_mkey_entry){ .addr = mem, .length = sizeof(mem) };
	m->n_entries = 1;
	m->rounds = 1;
	m->length = sizeof(mem);
	m->pd = PD;
	m->access = ACCESS_ALL;
	m->usable = true;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct dp_mkey_span s = { 0 };

		print_message("# offset %llu length %llu\n", (unsigned long long)cases[i].offset,
			      (unsigned long long)cases[i].length);
		assert_int_equal(dp_mkey_span(m, 0, PD, ACCESS_ALL, cases[i].offset, cases[i].length, 1u << 20, &s),
				 cases[i].rc);
		if (cases[i].rc)
			continue;
		assert_int_equal(s.mem_offset, cases[i].mem_offset);
		assert_int_equal(s.mem_length, cases[i].mem_length);
	}
	dp_mkey_free(m);
}

int main(void)
{
	static const struct opts unstarted = { .wrs = 4, .sges = 1, .max_inline = 64 };
	static const struct opts started = { .started = true, .wrs = 64, .sges = 2, .max_inline = 64 };
	const struct CMUnitTest fixed[] = {
		cmocka_unit_test_prestate_setup_teardown(test_producer_index_far_ahead, setup, teardown,
							 (void *)&unstarted),
		cmocka_unit_test_prestate_setup_teardown(test_lkey_cleared_under_traffic, setup, teardown,
							 (void *)&started),
		cmocka_unit_test_prestate_setup_teardown(test_rkey_cleared_under_traffic, setup, teardown,
							 (void *)&started),
		cmocka_unit_test_prestate_setup_teardown(test_send_write_read, setup, teardown, (void *)&started),
		cmocka_unit_test_prestate_setup_teardown(test_nic_joins_and_leaves_running_workers, setup,
							 teardown, (void *)&started),
		cmocka_unit_test_prestate_setup_teardown(test_rnr_until_a_receive_comes, setup, teardown,
							 (void *)&started),
		cmocka_unit_test_prestate_setup_teardown(test_many_writes_in_order, setup, teardown,
							 (void *)&started),
		cmocka_unit_test_prestate_setup_teardown(test_local_inv_in_order, setup, teardown,
							 (void *)&unstarted),
		cmocka_unit_test_prestate_setup_teardown(test_configure_wr_in_order, setup, teardown,
							 (void *)&unstarted),
		cmocka_unit_test_prestate_setup_teardown(test_configure_wr_forged, setup, teardown,
							 (void *)&unstarted),
		cmocka_unit_test_prestate_setup_teardown(test_configure_wr_other_key, setup, teardown,
							 (void *)&unstarted),
		cmocka_unit_test_prestate_setup_teardown(test_local_inv_other_pd, setup, teardown,
							 (void *)&unstarted),
		cmocka_unit_test_prestate_setup_teardown(test_send_inv, setup, teardown, (void *)&unstarted),
		cmocka_unit_test_prestate_setup_teardown(test_send_inv_refused, setup, teardown,
							 (void *)&unstarted),
		cmocka_unit_test_prestate_setup_teardown(test_hijack_refused, setup, teardown, (void *)&unstarted),
		cmocka_unit_test_prestate_setup_teardown(test_hijack_refused, setup, teardown, (void *)&started),
		cmocka_unit_test_prestate_setup_teardown(test_hijack_uc_dropped, setup, teardown,
							 (void *)&unstarted),
		cmocka_unit_test_prestate_setup_teardown(test_guessed_qp_numbers, setup, teardown,
							 (void *)&unstarted),
		cmocka_unit_test_prestate_setup_teardown(test_mkey_of_other_pd, setup, teardown,
							 (void *)&unstarted),
		cmocka_unit_test_prestate_setup_teardown(test_send_inv_other_pd, setup, teardown,
							 (void *)&unstarted),
		cmocka_unit_test(test_mkey_span_partial_block),
	};
	struct CMUnitTest tests[N_HOSTILE + sizeof(fixed) / sizeof(fixed[0])];

	/* One test per hostile entry, named after it, each on a fresh NIC. */
	for (unsigned i = 0; i < N_HOSTILE; i++)
		tests[i] = (struct CMUnitTest){
			.name = hostile_cases[i].name, .test_func = test_hostile_entry,
			.setup_func = setup_hostile, .teardown_func = teardown,
			.initial_state = (void *)&hostile_cases[i],
		};
	memcpy(tests + N_HOSTILE, fixed, sizeof(fixed));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
