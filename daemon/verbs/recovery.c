/* SPDX-License-Identifier: MIT */
/* The recovery engine of signature pipelining (daemon/verbs/recovery.h). */
#include "daemon/verbs/recovery.h"
#include "daemon/verbs/mkey.h"
#include "daemon/verbs/qp.h"
#include "lib/log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

static uint64_t clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

const char *rdma_recovery_policy_name(enum rdma_recovery_policy policy)
{
	return policy == RDMA_RECOVERY_AUTO ? "auto" : "manual";
}

int rdma_recovery_policy_from_name(const char *name)
{
	if (strcmp(name, "manual") == 0)
		return RDMA_RECOVERY_MANUAL;
	if (strcmp(name, "auto") == 0)
		return RDMA_RECOVERY_AUTO;
	return -1;
}

/*
 * Remembers (mkey, wr_id), the newest failure of an MKEY replacing an older
 * one; what does not fit is still on the MKEY for whoever checks it.
 */
static void suspect(struct rdma_qp_recovery *rec, uint32_t mkey, uint64_t wr_id)
{
	struct rdma_qp_recovery_log *log;

	if (rdma_qp_recovery_log(rec) < 0)
		return;
	log = rec->log;
	for (unsigned i = 0; i < log->n_suspects; i++)
		if (log->suspects[i].mkey == mkey) {
			log->suspects[i].wr_id = wr_id;
			return;
		}
	if (log->n_suspects == RDMA_RECOVERY_SUSPECTS_MAX)
		return;
	log->suspects[log->n_suspects].mkey = mkey;
	log->suspects[log->n_suspects].wr_id = wr_id;
	log->n_suspects++;
}

int rdma_qp_recovery_log(struct rdma_qp_recovery *rec)
{
	if (!rec->log && !(rec->log = calloc(1, sizeof(*rec->log))))
		return -ENOMEM;
	return 0;
}

void rdma_recovery_sig_error(struct rdma_device *dev, struct rdma_qp *qp, uint32_t qpn, uint64_t wr_id,
			     uint32_t mkey_key, enum dp_dir dir, const struct dp_sig_err *e)
{
	struct rdma_object *obj = object_table_find(&dev->tables[RDMA_OBJ_MKEY], mkey_key);
	struct rdma_event ev = {
		.type = RDMA_EVENT_SIG_ERROR, .kind = RDMA_OBJ_MKEY, .handle = mkey_key,
		.wr_id = wr_id, .qpn = qpn,
		.sig = { e->type, e->expected, e->actual, e->offset },
	};

	if (obj)
		rdma_mkey_record_sig_error(rdma_mkey(obj), dir, e);
	/* Only a pipelining QP stops, and so has a recovery that needs them. */
	if (qp && qp->sig_pipelining)
		suspect(&qp->recovery, mkey_key, wr_id);
	rdma_device_post_event(dev, &ev);
}

int rdma_qp_cancel(struct rdma_device *dev, struct rdma_qp *qp, uint64_t wr_id, uint32_t *count,
		   struct rdma_error *err)
{
	struct rdma_event ev = {
		.type = RDMA_EVENT_WR_CANCELED, .kind = RDMA_OBJ_QP, .handle = qp->obj.handle,
		.wr_id = wr_id,
	};
	int r = rdma_device_cancel(dev, qp, wr_id, count, err);

	if (r < 0)
		return r;
	qp->sqd_stats.wrs_canceled += *count;
	dev->sqd_stats.wrs_canceled += *count;
	ev.count = *count;
	rdma_device_post_event(dev, &ev);
	return 0;
}

/* Step 2's list: each MKEY once, with the wr_id of its transaction. */
struct candidates {
	unsigned n;
	struct {
		uint32_t mkey;
		uint64_t wr_id;
	} c[RDMA_RECOVERY_SUSPECTS_MAX * 2];
};

static void candidate(uint32_t mkey, uint64_t wr_id, void *data)
{
	struct candidates *cs = data;

	for (unsigned i = 0; i < cs->n; i++)
		if (cs->c[i].mkey == mkey)
			return;
	if (cs->n == sizeof(cs->c) / sizeof(cs->c[0]))
		return;
	cs->c[cs->n].mkey = mkey;
	cs->c[cs->n].wr_id = wr_id;
	cs->n++;
}

/* Steps 2 and 3 for one MKEY. */
static int check_and_cancel(struct rdma_device *dev, struct rdma_qp *qp, uint32_t key, uint64_t wr_id,
			    struct rdma_recovery_record *rec, struct rdma_error *err)
{
	struct rdma_object *obj = object_table_find(&dev->tables[RDMA_OBJ_MKEY], key);
	struct rdma_recovery_failure *f;
	struct dp_sig_err found;
	uint32_t n = 0;
	int r;

	/* Gone, or no signature to check: nothing to learn from it. */
	if (!obj || !(rdma_mkey(obj)->flags & RDMA_MKEY_BLOCK_SIGNATURE))
		return 0;
	if (rdma_mkey_check(rdma_mkey(obj), &found, err) < 0)
		return 0;
	rec->checked++;
	if (found.type == DP_SIG_ERR_NONE)
		return 0;
	r = rdma_qp_cancel(dev, qp, wr_id, &n, err);
	/* Canceled by an earlier failure of the same transaction: nothing left to do. */
	if (r < 0 && r != -EALREADY)
		return r;
	rec->canceled += r < 0 ? 0 : n;
	if (rec->n_failed == RDMA_RECOVERY_FAILED_MAX)
		return 0;
	f = &rec->failed[rec->n_failed++];
	f->mkey = key;
	f->wr_id = wr_id;
	f->err = found;
	f->canceled = r < 0 ? 0 : n;
	return 0;
}

int rdma_qp_recover(struct rdma_device *dev, struct rdma_qp *qp, bool automatic,
		    const struct rdma_recovery_record **out, struct rdma_error *err)
{
	uint64_t start = clock_ns(CLOCK_MONOTONIC), end, stopped_at_ns;
	struct rdma_qp_attr attr = { .state = RDMA_QPS_RTS, .cur_state = RDMA_QPS_SQD };
	struct rdma_recovery_record rec = { .automatic = automatic };
	struct rdma_qp_recovery *state = &qp->recovery;
	struct candidates cs = { 0 };
	struct rdma_event ev;
	int r;

	if (qp->state != RDMA_QPS_SQD)
		return rdma_error_state(err, "state", "the QP is in %s; a recovery takes a QP stopped "
					"in sqd", rdma_qp_state_name(qp->state));
	/* Where its record goes, before anything is done. */
	r = rdma_qp_recovery_log(state);
	if (r < 0)
		return rdma_error_system(err, r);
	/* 1. What the workers found and have not told yet (a data path error may also end here). */
	rdma_device_sync(dev);
	if (qp->state != RDMA_QPS_SQD)
		return rdma_error_state(err, "state", "the QP went to %s while recovering",
					rdma_qp_state_name(qp->state));
	/* 2-3. The transfers that failed first: their wr_ids are the transactions to withdraw. */
	for (unsigned i = 0; i < state->log->n_suspects; i++)
		candidate(state->log->suspects[i].mkey, state->log->suspects[i].wr_id, &cs);
	rdma_device_posted_mkeys(dev, qp, candidate, &cs);
	for (unsigned i = 0; i < cs.n; i++) {
		r = check_and_cancel(dev, qp, cs.c[i].mkey, cs.c[i].wr_id, &rec, err);
		if (r < 0)
			return r;
	}
	/* 4. (Leaving SQD forgets the stop: its time is taken first.) */
	stopped_at_ns = state->stopped_at_ns;
	r = rdma_qp_modify(dev, qp, &attr, RDMA_QP_STATE | RDMA_QP_CUR_STATE, err);
	if (r < 0)
		return r;
	end = clock_ns(CLOCK_MONOTONIC);
	rec.took_ns = end - start;
	if (stopped_at_ns)
		rec.since_error_ns = end - stopped_at_ns;
	rec.at_usec = clock_ns(CLOCK_REALTIME) / 1000u;
	rec.seq = ++state->runs;
	state->log->records[(rec.seq - 1) % RDMA_RECOVERY_RECORDS] = rec;
	qp->sqd_stats.recoveries++;
	dev->sqd_stats.recoveries++;
	ev = (struct rdma_event){
		.type = RDMA_EVENT_RECOVERY, .kind = RDMA_OBJ_QP, .handle = qp->obj.handle,
		.count = rec.canceled, .automatic = automatic,
		.duration_ns = rec.since_error_ns ? rec.since_error_ns : rec.took_ns,
		.mkey = rec.n_failed ? rec.failed[0].mkey : 0,
		.wr_id = rec.n_failed ? rec.failed[0].wr_id : 0,
	};
	rdma_device_post_event(dev, &ev);
	if (out)
		*out = rdma_qp_recovery_record(qp, 0);
	return 0;
}

void rdma_recovery_stopped(struct rdma_device *dev, struct rdma_qp *qp)
{
	struct rdma_error err;

	if (qp->recovery.policy == RDMA_RECOVERY_AUTO && rdma_qp_recover(dev, qp, true, NULL, &err) < 0)
		log_warning("QP %u: automatic recovery failed: %s (%s)", qp->obj.handle,
			    err.reason, err.field);
}

const struct rdma_recovery_record *rdma_qp_recovery_record(const struct rdma_qp *qp, unsigned i)
{
	const struct rdma_qp_recovery *state = &qp->recovery;

	if (!state->log || i >= state->runs || i >= RDMA_RECOVERY_RECORDS)
		return NULL;
	return &state->log->records[(state->runs - 1 - i) % RDMA_RECOVERY_RECORDS];
}
