/* SPDX-License-Identifier: MIT */
/*
 * What the files of librdmad share: the context, the one way to call rdmad,
 * and errors.  Nothing here is exported (client/librdmad.map).
 */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

#include "include/rdmad/rdmad.h"
#include "dataplane/cq.h"
#include "dataplane/queue.h"

struct varlink_client;

/* A buffer of rdmad_alloc_buf: a memfd mapped at addr. */
struct client_buf {
	void *addr;
	size_t size;
	int fd;
};

/* A description handed out, and how it is freed. */
struct client_held {
	void *desc;
	void (*free_fn)(void *desc);
};

struct rdmad_context {
	struct varlink_client *varlink;
	char device[64];
	/*
	 * The MRs registered through this context, for SGE addresses (post.c),
	 * by their key's index (lkey >> 8): every SGE of every post looks its
	 * key up, and a program may hold soft0's 262,144 MRs.  Slots of MRs
	 * deregistered are NULL.
	 */
	struct rdmad_mr **mr_slots;
	size_t n_mr_slots;
	struct client_buf *bufs;
	size_t n_bufs, cap_bufs;
	/* The PD, AH, CQ, QP and MKEY descriptions handed out and not destroyed (held.c). */
	struct client_held *held;
	size_t n_held, cap_held;
	/* The asynchronous event channel (async.c), once opened. */
	struct client_async *async;
};

/*
 * A description handed out is the context's until destroyed: rdmad_close()
 * frees those the program did not (rdmad destroys the objects themselves).
 * client_hold() returns desc, or frees it and fails with ENOMEM (NULL);
 * client_release() frees it.
 */
void *client_hold(struct rdmad_context *ctx, void *desc);
/* The same for a description freed by free_fn (one with rings to unmap). */
void *client_hold_by(struct rdmad_context *ctx, void *desc, void (*free_fn)(void *desc));
void client_release(struct rdmad_context *ctx, void *desc);
void client_release_all(struct rdmad_context *ctx);
/*
 * The description held with free_fn whose uint32_t at handle_offset is
 * handle, or NULL: how an event's handle finds the program's object.
 */
void *client_held_find(struct rdmad_context *ctx, void (*free_fn)(void *desc), size_t handle_offset,
		       uint32_t handle);
/* The program's QP (qp_num) or CQ of that handle, not destroyed; NULL: none (qp.c, cq.c). */
struct rdmad_qp *client_qp_find(struct rdmad_context *ctx, uint32_t qp_num);
struct rdmad_cq *client_cq_find(struct rdmad_context *ctx, uint32_t handle);

/* Closes the asynchronous event channel, if it was opened (async.c). */
void client_async_free(struct rdmad_context *ctx);

/*
 * Calls rdmad's method (e.g. "io.rdmad.Pd.Create") with params (consumed; the
 * context's device is added) and n_fds descriptors.  0 with *reply (the
 * caller's, may be NULL to drop it), or a negative errno with the thread's
 * message set: rdmad's error mapped as librdmad(3) says, or the connection's.
 */
int client_call(struct rdmad_context *ctx, const char *method, struct json_object *params,
		const int *fds, unsigned n_fds, struct json_object **reply);
/* The same without the device parameter (methods of io.rdmad.Daemon). */
int client_call_plain(struct rdmad_context *ctx, const char *method, struct json_object *params,
		      struct json_object **reply);

/* Sets the thread's message (printf format); returns negative_errno. */
int client_fail(int negative_errno, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* For calls returning a pointer: errno = -r, NULL. */
void *client_fail_null(int r);
/*
 * Takes the n descriptors that came with the reply of the last call (rdmad
 * passes a QP's or CQ's rings so); -EPROTO, none taken, when fewer came.
 */
int client_take_fds(struct rdmad_context *ctx, int *fds, unsigned n);

/* Clears the thread's message at the start of a call. */
void client_ok(void);

/* A member of a reply: an unsigned number (0 when absent), a string ("" when absent). */
uint64_t client_get_u64(struct json_object *obj, const char *key);
const char *client_get_str(struct json_object *obj, const char *key);
struct json_object *client_get(struct json_object *obj, const char *key);
/* params with a new member; returns params. */
struct json_object *client_add_u64(struct json_object *params, const char *key, uint64_t value);
struct json_object *client_add_str(struct json_object *params, const char *key, const char *value);
struct json_object *client_add_bool(struct json_object *params, const char *key, bool value);
/* The access bits as rdmad's word list (remote_atomic never: rdmad has none for MRs). */
struct json_object *client_access_words(unsigned access);

/* An address vector's members (pd.c): dgid, sgid_index, flow_label, hop_limit, traffic_class. */
int client_add_av(struct json_object *params, const struct rdmad_ah_attr *attr);
/* Destroys the object named handle with method (pd.c). */
int client_destroy_handle(struct rdmad_context *ctx, const char *method, uint32_t handle);

/* The MR table (memory.c): the registered MR of this context whose key is lkey, or NULL. */
struct rdmad_mr *client_mr_by_key(struct rdmad_context *ctx, uint32_t lkey);
/* Frees every buffer of rdmad_alloc_buf still allocated (at close). */
void client_bufs_free_all(struct rdmad_context *ctx);
/* Frees the descriptions of the context's MRs (rdmad destroys the MRs). */
void client_mrs_free_all(struct rdmad_context *ctx);

/*
 * Rings rdmad handed out with a QP or a CQ (io.rdmad.Qp/Cq Create with
 * rings): the memfd mapped here and the eventfd that came with it.  The
 * library is the application's side of queues whose other side is a worker
 * of rdmad: it trusts the geometry rdmad gave, and nothing in the memory.
 */
struct client_rings {
	void *addr;               /* NULL: none (a UD QP posts through rdmad) */
	size_t bytes;
	int eventfd;              /* a QP's doorbell, a CQ's notifications; -1: none */
};

/* The library's CQ: what the program holds first, then its rings. */
struct client_cq {
	struct rdmad_cq pub;
	struct client_rings rings;
	struct dp_cq_ring_ctl *ctl;
	struct rdmad_comp_channel *channel;
	unsigned n_lanes, next_lane;
	struct dp_queue *lanes;   /* the consumer's handles, one per worker lane */
};

struct client_qp {
	struct rdmad_qp pub;
	struct client_rings rings;
	uint32_t max_send_wr, max_recv_wr, max_send_sge, max_recv_sge, max_inline;
	struct dp_queue sq, rq;   /* the producer's handles */
};

static inline struct client_cq *client_cq_of(struct rdmad_cq *cq)
{
	return (struct client_cq *)cq;
}

static inline struct client_qp *client_qp_of(struct rdmad_qp *qp)
{
	return (struct client_qp *)qp;
}

/* Zeroed memory for a client_cq or client_qp (their queue handles want cache-line alignment). */
void *client_alloc_aligned(size_t size);

/*
 * Maps the rings described by the reply's "ring_layout" (fds: memfd, eventfd,
 * taken over) and attaches n queues to them, the consumer's side of each
 * (a CQ's lanes) or the producer's (a QP's send and receive queues).
 * -EPROTO when rdmad's description does not fit what it passed.
 */
int client_rings_map(struct client_rings *rings, struct json_object *reply, const int fds[2],
		     struct dp_queue *queues, unsigned n);
void client_rings_unmap(struct client_rings *rings);

/* SGEs of MRs this context registered must lie inside them (memory.c); EINVAL naming the first that does not. */
int client_check_sges(struct rdmad_context *ctx, const struct rdmad_sge *sg, uint32_t n);

/* Mkey.Configure of mkey with config (consumed; NULL: the signature and crypto stay). */
int client_configure_mkey(struct rdmad_mkey *mkey, unsigned access,
			  const struct rdmad_mkey_layout_entry *layout, unsigned n,
			  struct json_object *config, int reset_sig_attr);

/* The ring paths of post.c and cq.c. */
int client_ring_post_send(struct client_qp *qp, struct rdmad_send_wr *wr, struct rdmad_send_wr **bad_wr);
int client_ring_post_recv(struct client_qp *qp, struct rdmad_recv_wr *wr, struct rdmad_recv_wr **bad_wr);
int client_ring_poll(struct client_cq *cq, int n, struct rdmad_wc *wc);
