/* SPDX-License-Identifier: MIT */
/*
 * librdmad: programs use rdmad's RDMA device through this ibverbs-shaped API
 * (librdmad(3)).  The structures are in <rdmad/verbs.h>.
 *
 * Control (open, PDs, MRs, CQs, QPs, AHs, MKEYs, pools, DEKs) goes over
 * rdmad's varlink socket.  The connection is attached (io.rdmad.Daemon.Attach):
 * what it creates is the program's, no other program addresses it, and rdmad
 * destroys it all when the program closes the device, exits or crashes.
 *
 * Data goes through memory shared with rdmad: the send and receive queues of
 * RC and UC QPs and every CQ are rings rdmad maps too, so rdmad_post_send,
 * rdmad_post_recv and rdmad_poll_cq make no system call (a post writes the
 * QP's eventfd only when rdmad's worker sleeps).  A UD QP's sends name
 * address handles, which rdmad resolves: its posts are one varlink call each.
 *
 * Every call returning int gives 0 (or a count) on success and a negative
 * errno on failure; calls returning a pointer give NULL and set errno.
 * rdmad_last_error() then says what rdmad or the library refused, and why.
 * A context is for one thread at a time.
 */
#ifndef RDMAD_RDMAD_H
#define RDMAD_RDMAD_H

#include <stddef.h>
#include <stdint.h>
#include <rdmad/verbs.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The socket rdmad_open uses without one given and without $RDMACTL_SOCKET. */
#define RDMAD_SOCKET_DEFAULT "/run/rdmad/io.rdmad"

/* The message of the last failed call of this thread ("" when none failed). */
const char *rdmad_last_error(void);

/*
 * Connects to rdmad at socket (NULL: $RDMACTL_SOCKET, else
 * RDMAD_SOCKET_DEFAULT) and opens device (NULL: rdmad's first device).
 */
struct rdmad_context *rdmad_open(const char *socket, const char *device);
/* Closes the connection: rdmad destroys every object the context created. */
int rdmad_close(struct rdmad_context *ctx);

int rdmad_query_device(struct rdmad_context *ctx, struct rdmad_device_attr *attr);
int rdmad_query_port(struct rdmad_context *ctx, uint8_t port, struct rdmad_port_attr *attr);
/* Entry index of port's GID table, in network order; -ENOENT when empty. */
int rdmad_query_gid(struct rdmad_context *ctx, uint8_t port, unsigned index, uint8_t gid[16]);

struct rdmad_pd *rdmad_alloc_pd(struct rdmad_context *ctx);
int rdmad_dealloc_pd(struct rdmad_pd *pd);

/*
 * size bytes of zeroed memory shared with rdmad: a memfd (sealed against
 * shrinking) mapped here, which rdmad_reg_mr can register.  Freed with
 * rdmad_free_buf, not free(3); rdmad_close frees what is left.
 */
void *rdmad_alloc_buf(struct rdmad_context *ctx, size_t size);
int rdmad_free_buf(struct rdmad_context *ctx, void *buf);
/*
 * REG_USER_MR of length bytes at addr, inside one buffer of rdmad_alloc_buf;
 * its iova is addr, so SGEs and remote addresses are plain pointers.
 */
struct rdmad_mr *rdmad_reg_mr(struct rdmad_pd *pd, void *addr, size_t length, unsigned access);
/*
 * The same for a memfd of the caller's (open for reading and writing,
 * sealed with F_SEAL_SHRINK): length bytes from offset, at iova in work
 * requests; addr is where the caller mapped them (may be NULL).  fd stays
 * the caller's.
 */
struct rdmad_mr *rdmad_reg_memfd(struct rdmad_pd *pd, int fd, uint64_t offset, size_t length,
				 uint64_t iova, void *addr, unsigned access);
int rdmad_dereg_mr(struct rdmad_mr *mr);

/* A CQ of at least cqe entries (cq->cqe says how many). */
struct rdmad_cq *rdmad_create_cq(struct rdmad_context *ctx, unsigned cqe);
/* The same, its completion events going to channel (ibv_create_cq's channel). */
struct rdmad_cq *rdmad_create_cq_with_channel(struct rdmad_context *ctx, unsigned cqe,
					      struct rdmad_comp_channel *channel);
int rdmad_destroy_cq(struct rdmad_cq *cq);
/* Up to n completions into wc, oldest first; how many (0: none).  No system call. */
int rdmad_poll_cq(struct rdmad_cq *cq, int n, struct rdmad_wc *wc);
/*
 * ibv_req_notify_cq: the CQ's next completion (solicited_only: next
 * solicited one) raises one event on its channel.  Poll once more after
 * arming: a completion that came before is not an event.
 */
int rdmad_req_notify_cq(struct rdmad_cq *cq, int solicited_only);

/*
 * ibv_create_comp_channel: channel->fd is readable (poll(2), epoll) when an
 * event is waiting; rdmad_get_cq_event waits for one and says whose it is.
 */
struct rdmad_comp_channel *rdmad_create_comp_channel(struct rdmad_context *ctx);
int rdmad_destroy_comp_channel(struct rdmad_comp_channel *channel);
int rdmad_get_cq_event(struct rdmad_comp_channel *channel, struct rdmad_cq **cq);
/* For ibverbs' shape: events need no acknowledgement before a CQ is destroyed. */
void rdmad_ack_cq_events(struct rdmad_cq *cq, unsigned nevents);

struct rdmad_qp *rdmad_create_qp(struct rdmad_pd *pd, const struct rdmad_qp_init_attr *attr);
/* Sets the members of attr that mask names (RDMAD_QP_*); RDMAD_QP_STATE is required. */
int rdmad_modify_qp(struct rdmad_qp *qp, const struct rdmad_qp_attr *attr, unsigned mask);
int rdmad_query_qp(struct rdmad_qp *qp, struct rdmad_qp_attr *attr,
		   struct rdmad_qp_init_attr *init_attr);
int rdmad_destroy_qp(struct rdmad_qp *qp);
/*
 * Posts wr and the WRs chained after it (-ENOMEM: the queue is full); on a
 * failure *bad_wr is the WR refused, and those before it are posted.
 */
int rdmad_post_send(struct rdmad_qp *qp, struct rdmad_send_wr *wr, struct rdmad_send_wr **bad_wr);
int rdmad_post_recv(struct rdmad_qp *qp, struct rdmad_recv_wr *wr, struct rdmad_recv_wr **bad_wr);

/*
 * mlx5dv_qp_cancel_posted_send_wrs, on a QP in SQD: the posted send WRs of
 * wr_id not yet executed become NOPs; how many.
 */
int rdmad_cancel_posted_send_wrs(struct rdmad_qp *qp, uint64_t wr_id);

struct rdmad_ah *rdmad_create_ah(struct rdmad_pd *pd, const struct rdmad_ah_attr *attr);
int rdmad_destroy_ah(struct rdmad_ah *ah);

/* mlx5dv_create_mkey: a free indirect MKEY of flags (RDMAD_MKEY_*) with max_entries layout entries. */
struct rdmad_mkey *rdmad_create_mkey(struct rdmad_pd *pd, unsigned flags, unsigned max_entries);
int rdmad_destroy_mkey(struct rdmad_mkey *mkey);
/*
 * mlx5dv_wr_mkey_configure with its setters, all or nothing: access
 * (RDMAD_ACCESS_*), a list layout of n entries (n 0: the layout stays), and
 * the signature and crypto attributes as the JSON configuration object
 * rdmactl mkey configure and rdmactl offload take (NULL: they stay;
 * docs/offload.md).  reset_sig_attr removes the signature first.
 */
int rdmad_configure_mkey(struct rdmad_mkey *mkey, unsigned access,
			 const struct rdmad_mkey_layout_entry *layout, unsigned n,
			 const char *config_json, int reset_sig_attr);
/*
 * The same with mlx5dv's attribute structures in place of the JSON: the
 * signature (sig) and the crypto (crypto) the MKEY has from now on, as one
 * configuration; both NULL leave them as they are.
 */
int rdmad_configure_mkey_attr(struct rdmad_mkey *mkey, unsigned access,
			      const struct rdmad_mkey_layout_entry *layout, unsigned n,
			      const struct rdmad_sig_block_attr *sig, const struct rdmad_crypto_attr *crypto,
			      int reset_sig_attr);
/* mlx5dv_mkey_check: the signature error recorded since the last check, then cleared. */
int rdmad_check_mkey(struct rdmad_mkey *mkey, struct rdmad_mkey_err *err);

/* Borrows an MKEY of pool name, held until returned or the context closes. */
struct rdmad_mkey *rdmad_pool_borrow(struct rdmad_context *ctx, const char *name);
int rdmad_pool_return(struct rdmad_mkey *mkey);

/* The DEK named name (mlx5dv_dek_query); -ENOENT when there is none. */
int rdmad_dek_lookup(struct rdmad_context *ctx, const char *name, struct rdmad_dek_attr *attr);

/*
 * ibv_get_async_event's fd: readable (poll(2), epoll) when an event of this
 * program's QPs and CQs or of the device's ports may be waiting.  The first
 * call opens the context's event channel (io.rdmad.Daemon.OpenAsyncEvents):
 * events that happen before are not kept.  Set O_NONBLOCK on it (fcntl) for
 * rdmad_get_async_event to return -EAGAIN instead of waiting.  Negative
 * errno on failure.
 */
int rdmad_async_fd(struct rdmad_context *ctx);
/*
 * ibv_get_async_event: the next event, oldest first (opening the channel if
 * rdmad_async_fd did not).  Waits for one unless the async fd is
 * non-blocking (-EAGAIN then).  An event of a QP or CQ this program has
 * destroyed meanwhile is passed over.
 */
int rdmad_get_async_event(struct rdmad_context *ctx, struct rdmad_async_event *event);
/* For ibverbs' shape: events need no acknowledgement before their object is destroyed. */
void rdmad_ack_async_event(struct rdmad_async_event *event);

#ifdef __cplusplus
}
#endif

#endif
