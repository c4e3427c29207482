/* SPDX-License-Identifier: MIT */
/*
 * Indirect MKEYs with block-signature and crypto offloads (mlx5dv_create_mkey,
 * mlx5dv_wr_mkey_configure and its setters, mlx5dv_mkey_check; reference
 * mlx5_sig_crypto.md §1.2, §1.4, §1.8, §3).
 *
 * An MKEY is created free, on a PD, with BLOCK_SIGNATURE and/or CRYPTO and a
 * number of layout entries (rounded up to a multiple of 4).  A configure is
 * the WR chain mkey_configure + setters, all or nothing: what it does not set
 * stays (access replaced, layout replaced, signature kept unless reset or
 * replaced, crypto kept once set).  A transfer through it (tx: layout memory
 * -> wire bytes, rx: wire bytes -> layout memory) runs the dataplane
 * transform; the first signature error after a configure is kept for
 * rdma_mkey_check (read and clear) and later ones are ignored until the next
 * configure, as the PSV in ERROR state does (§3.5).
 *
 * The MKEY uses (rdma_object_use) its PD, the MRs of its layout and its DEK,
 * so none of them can be destroyed under it.  The handle is the key
 * (index << 8 | tag, lkey == rkey).
 */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/verbs/device.h"
#include "dataplane/keytab.h"
#include "dataplane/mkey.h"
#include "dataplane/offload/transform.h"

struct rdma_lend_caller;

/* mlx5dv_mkey_init_attr_flags (INDIRECT is implied: every MKEY here is indirect). */
#define RDMA_MKEY_BLOCK_SIGNATURE (1u << 1)
#define RDMA_MKEY_CRYPTO          (1u << 2)
/* A SEND_WITH_INV from a peer may invalidate it (MLX5DV_MKEY_INIT_ATTR_FLAGS_REMOTE_INVALIDATE). */
#define RDMA_MKEY_REMOTE_INVALIDATE (1u << 4)
#define RDMA_MKEY_FLAGS_ALL       (RDMA_MKEY_BLOCK_SIGNATURE | RDMA_MKEY_CRYPTO | RDMA_MKEY_REMOTE_INVALIDATE)

/* The access flags a configure accepts, numbered as IBV_ACCESS_*; local read is implied. */
#define RDMA_MKEY_ACCESS_LOCAL_WRITE   (1u << 0)
#define RDMA_MKEY_ACCESS_REMOTE_WRITE  (1u << 1)
#define RDMA_MKEY_ACCESS_REMOTE_READ   (1u << 2)
#define RDMA_MKEY_ACCESS_REMOTE_ATOMIC (1u << 3)
#define RDMA_MKEY_ACCESS_ALL           0xfu

/*
 * Bytes one transfer may carry in or out: the NIC's limit, one definition for
 * both.  Replies of a tx are queued on the connection as base64; 32 MiB of
 * bytes stays inside the 64 MiB a client may leave unread.
 */
#define RDMA_MKEY_TRANSFER_MAX DP_MKEY_TRANSFER_MAX

/*
 * The first index of MKEY keys: MR keys are below it, so a key names one
 * object of either.  The key table's (dataplane/keytab.h): the model's
 * handles are the NIC's keys.
 */
#define RDMA_MKEY_KEY_BASE DP_MKEY_INDEX_BASE

struct rdma_mr;
struct rdma_pool;
struct rdma_qp;
struct rdma_mkey_pending;

enum rdma_mkey_layout_type {
	RDMA_LAYOUT_NONE,
	RDMA_LAYOUT_LIST,          /* mlx5dv_wr_set_mkey_layout_list */
	RDMA_LAYOUT_INTERLEAVED,   /* mlx5dv_wr_set_mkey_layout_interleaved */
};

/*
 * One layout entry.  List: length bytes at offset of the MR.  Interleaved:
 * in each of repeat_count rounds, length (bytes_count) bytes, then the entry
 * moves on by length + skip (bytes_skip).
 */
struct rdma_mkey_entry {
	uint32_t mr;               /* the MR's key */
	uint64_t offset;           /* from the MR's first byte */
	uint64_t length;           /* list: length; interleaved: bytes_count */
	uint32_t skip;             /* interleaved: bytes_skip */
	struct rdma_mr *mr_obj;    /* filled in by the configure (held through a reference) */
};

struct rdma_mkey_layout {
	enum rdma_mkey_layout_type type;
	uint32_t repeat_count;     /* interleaved only */
	uint16_t n;
	struct rdma_mkey_entry *entries;
};

/* A DEK's name with its NUL (RDMA_DEK_NAME_MAX of daemon/verbs/dek.h). */
#define RDMA_MKEY_DEK_NAME_MAX 64

/* The crypto setter's own fields (the rest is dp_crypto_cfg). */
struct rdma_mkey_crypto {
	uint32_t dek;              /* the DEK's handle (0: given by name only) */
	/*
	 * The DEK's name when the configure gave one: resolved by the configure,
	 * which then sets dek (both given: they must name the same DEK).
	 */
	char dek_name[RDMA_MKEY_DEK_NAME_MAX];
	bool has_keytag;
	uint8_t keytag[8];
};

/* What one configure sets; unset parts keep their value. */
struct rdma_mkey_conf {
	bool reset_sig_attr;       /* MLX5DV_MKEY_CONF_FLAG_RESET_SIG_ATTR */
	bool set_access;
	uint32_t access;
	bool set_layout;
	struct rdma_mkey_layout layout;   /* borrowed: entries stay the caller's */
	bool set_sig;              /* cfg.mem, cfg.wire, check_mask, copy mask */
	bool set_crypto;           /* cfg.crypto + crypto */
	struct dp_transform_cfg cfg;
	struct rdma_mkey_crypto crypto;
	/*
	 * Who configures: the DEK must be lent to them (daemon/verbs/lend.h).
	 * NULL: the daemon itself, as root.
	 */
	const struct rdma_lend_caller *caller;
};

struct rdma_mkey {
	struct rdma_object obj;    /* handle = key; refs: PD, layout MRs, DEK */
	struct rdma_object *pd;
	uint32_t flags;            /* RDMA_MKEY_* */
	uint16_t max_entries;
	bool configured;           /* false: free, unusable */
	uint32_t access;
	struct rdma_mkey_layout layout;
	bool sig_set, crypto_set;
	struct dp_transform_cfg cfg;       /* the signature and crypto in effect */
	struct rdma_mkey_crypto crypto;
	struct dp_transform *transform;    /* NULL when neither is set: a plain copy */
	/*
	 * The same transform once per dataplane worker: a transform keeps state
	 * while it runs (its cipher handle, its window), and WRs of QPs on
	 * several workers may go through one MKEY at once.  NULL when transform is.
	 */
	struct dp_transform **worker_transforms;
	unsigned n_worker_transforms;
	/* mkey check (§3.4-3.5) */
	bool sig_armed;
	bool err_pending;
	enum dp_dir err_dir;       /* the transfer that found it: its input domain checked */
	struct dp_sig_err err;
	/* counters: the main thread's (mkey tx/rx), and each dataplane worker's */
	uint64_t configures;
	struct dp_mkey_counters counters;
	struct dp_mkey_counters *worker_counters;
	unsigned n_worker_counters;
	/* pools (daemon/verbs/pool.h) */
	struct rdma_pool *pool;
	/*
	 * The pool's name while pool is set, for the refusals of the MKEY rules,
	 * which know no pool (pool.c is above them); the pool outlives its MKEYs.
	 */
	const char *pool_name;
	/*
	 * Who holds it, NULL while in the pool: the connection that borrowed it,
	 * or for a borrow under an owner name the pool's mark, with the name in
	 * owner (daemon/verbs/pool.h).
	 */
	const void *borrower;
	char *owner;
	struct rdma_object *dek_obj;   /* the DEK in effect (referenced), NULL without crypto */
	/* A configure WR posted on a QP, not yet executed (or flushed): one at a time. */
	struct rdma_mkey_pending *pending;
};

static inline struct rdma_mkey *rdma_mkey(struct rdma_object *obj)
{
	return (struct rdma_mkey *)obj;
}

/* "local_write", ... for one RDMA_MKEY_ACCESS_* bit; "block_signature", "crypto" for a flag. */
const char *rdma_mkey_access_name(uint32_t bit);
const char *rdma_mkey_flag_name(uint32_t bit);

/* The entries max_entries becomes (multiple of 4), 0 when over the device's limit. */
uint16_t rdma_mkey_round_entries(const struct rdma_device *dev, uint32_t max_entries);

/* mlx5dv_create_mkey on pd; flags 0 is a plain indirect MKEY.  *out is free (not configured). */
int rdma_mkey_create(struct rdma_device *dev, uint32_t pd, uint32_t flags, uint32_t max_entries,
		     struct rdma_mkey **out, struct rdma_error *err);
/* Refused for an MKEY of a pool (it goes with its pool). */
int rdma_mkey_destroy(struct rdma_device *dev, uint32_t key, struct rdma_error *err);
/* The MKEY, or NULL with NoSuchObject. */
struct rdma_mkey *rdma_mkey_lookup(struct rdma_device *dev, uint32_t key, struct rdma_error *err);

void rdma_mkey_conf_init(struct rdma_mkey_conf *conf);
/* One configure, all or nothing (on failure the MKEY is unchanged). */
int rdma_mkey_configure(struct rdma_device *dev, struct rdma_mkey *mkey,
			const struct rdma_mkey_conf *conf, struct rdma_error *err);
/*
 * Configure as a work request (decisions.md, "Configure as a work request").
 * _check: what the WR would be refused for on qp (the control path's checks,
 * the QP's PD, no configure WR pending, no posted WR through the MKEY);
 * nothing is kept.  _wr: the same, then the NIC's new context built into
 * *entry for the WR's private slot at sq_index; the MKEY has a pending
 * configure until it settles.  _cancel: the post did not happen after all.
 * settle: the model follows what the NIC did (the WR executed: the
 * configure takes effect; flushed or its QP gone: it is dropped).
 */
int rdma_mkey_configure_wr_check(struct rdma_device *dev, struct rdma_mkey *mkey, const struct rdma_qp *qp,
				 const struct rdma_mkey_conf *conf, struct rdma_error *err);
int rdma_mkey_configure_wr(struct rdma_device *dev, struct rdma_mkey *mkey, const struct rdma_qp *qp,
			   uint32_t sq_index, const struct rdma_mkey_conf *conf, struct dp_key **entry,
			   struct rdma_error *err);
void rdma_mkey_configure_wr_cancel(struct rdma_device *dev, struct rdma_mkey *mkey);
void rdma_mkey_settle(struct rdma_device *dev, struct rdma_mkey *mkey);
/* Back to free: layout, signature, crypto, access and record gone (IBV_WR_LOCAL_INV). */
void rdma_mkey_invalidate(struct rdma_device *dev, struct rdma_mkey *mkey);

/* Bytes the layout covers (the MKEY's length). */
uint64_t rdma_mkey_length(const struct rdma_mkey *mkey);

/*
 * One transfer.  tx: the layout's bytes as memory-domain input, the wire bytes
 * in a malloc'ed *out.  rx: in_len wire bytes, their memory-domain output
 * scattered from the layout's first byte (*out_len bytes).  *xfer_err: the
 * first signature error of this transfer (type NONE if none); the MKEY
 * records it if armed.
 */
/* The wire bytes a tx would give now, or why it would be refused. */
int rdma_mkey_tx_length(struct rdma_device *dev, struct rdma_mkey *mkey, size_t *out_len,
			struct rdma_error *err);
int rdma_mkey_tx(struct rdma_device *dev, struct rdma_mkey *mkey, uint8_t **out, size_t *out_len,
		 struct dp_sig_err *xfer_err, struct rdma_error *err);
int rdma_mkey_rx(struct rdma_device *dev, struct rdma_mkey *mkey, const uint8_t *in, size_t in_len,
		 size_t *out_len, struct dp_sig_err *xfer_err, struct rdma_error *err);

/*
 * The device invalidated the MKEY (a LOCAL_INV, or a peer's SEND_WITH_INV):
 * it is free, as rdma_mkey_invalidate leaves it.
 */
void rdma_mkey_invalidated(struct rdma_device *dev, struct rdma_mkey *mkey);
/* Transfers through the MKEY and their signature errors, every thread's. */
void rdma_mkey_counts(const struct rdma_mkey *mkey, uint64_t *transfers,
		      uint64_t sig_errors[DP_SIG_ERR_APPTAG + 1]);
/* No posted WR goes through the MKEY and no configure WR of it is pending (it may change). */
bool rdma_mkey_idle(struct rdma_device *dev, struct rdma_mkey *mkey);
/* The QP whose posted WRs use the MKEY (through it, or a pending configure WR), or NULL. */
struct rdma_object *rdma_mkey_user(struct rdma_device *dev, struct rdma_mkey *mkey);
/* Main thread: a signature error a data-path transfer found (recorded if detection is armed). */
void rdma_mkey_record_sig_error(struct rdma_mkey *mkey, enum dp_dir dir, const struct dp_sig_err *e);

/* mlx5dv_mkey_check: the recorded error (type NONE if none), then cleared. */
int rdma_mkey_check(struct rdma_mkey *mkey, struct dp_sig_err *rec, struct rdma_error *err);
