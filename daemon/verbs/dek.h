/* SPDX-License-Identifier: MIT */
/*
 * Data encryption keys for AES-XTS MKEYs (mlx5dv_dek_create / _query /
 * _destroy; reference mlx5_sig_crypto.md §1.7, §4.1-4.2).
 *
 * A DEK is AES-128-XTS (key1 || key2, 32 bytes) or AES-256-XTS (64 bytes),
 * optionally with an 8-byte keytag that MKEY crypto attributes must repeat.
 * Its key material comes from a key file the daemon reads (and reads again at
 * every start: the DEK is persistent), or is given by value (not persistent).
 * A plaintext import takes the key as it is; a wrapped import takes
 * AES-KW(import KEK, key1 || key2 [|| keytag]) and needs a crypto login
 * (daemon/verbs/crypto_login.h).  The halves key1 and key2 must differ.
 *
 * Key material lives in libgcrypt secure memory (locked, never swapped), is
 * wiped before it is freed, and appears in no log line, reply or error.
 *
 * A DEK whose key material cannot be loaded at start (its key file vanished,
 * changed owner, mode or content, its import KEK is gone) is kept in state
 * ERROR with the reason, as mlx5's DEK state ERROR: visible, destroyable,
 * unusable.
 *
 * DEKs are persistent, and creating or destroying one is done in two steps as
 * for pools (daemon/verbs/pool.h): the DEK is pending until the state file
 * holding the change is durable, then settled (rdma_dek_settle) or, if that
 * file could not be written, undone (rdma_dek_undo).  A pending DEK serves no
 * MKEY, so undoing never meets a user.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/verbs/crypto_config.h"
#include "daemon/verbs/device.h"
#include "daemon/verbs/lend.h"

#define RDMA_DEK_NAME_MAX   64
#define RDMA_DEK_KEYTAG_LEN 8
#define RDMA_DEK_OPAQUE_LEN 8
#define RDMA_DEK_CHECK_LEN  8
/* The longest key material a DEK takes in: a wrapped AES-256-XTS key with keytag. */
#define RDMA_DEK_INPUT_MAX  (64 + RDMA_DEK_KEYTAG_LEN + 8)

enum rdma_dek_state { RDMA_DEK_READY, RDMA_DEK_ERROR };
/* A change not yet durable (see above). */
enum rdma_dek_pending {
	RDMA_DEK_SETTLED, RDMA_DEK_CREATING, RDMA_DEK_DESTROYING,
	RDMA_DEK_LENDING,                /* its allow list changes (lend.next); it serves MKEYs meanwhile */
};
enum rdma_dek_import { RDMA_DEK_PLAINTEXT, RDMA_DEK_WRAPPED };

struct rdma_dek {
	struct rdma_object obj;          /* handle = DEK number; refs: its PD, if any */
	char name[RDMA_DEK_NAME_MAX];
	unsigned key_bits;               /* 128 or 256 */
	bool has_keytag;
	/* A plaintext import's keytag as given, kept to be saved (a wrapped key holds its own). */
	uint8_t keytag_given[RDMA_DEK_KEYTAG_LEN];
	enum rdma_dek_import import;
	char kek[RDMA_KEK_NAME_MAX];       /* the import KEK of a wrapped DEK */
	uint8_t opaque[RDMA_DEK_OPAQUE_LEN];
	char *key_file;                  /* NULL: the key was given by value */
	uint32_t pd;                     /* the PD it was created on, 0 for none */
	/* A fingerprint of the key material, to notice a key file changed under us. */
	uint8_t check[RDMA_DEK_CHECK_LEN];
	enum rdma_dek_state state;
	enum rdma_dek_pending pending;
	char error[384];                 /* why, in state ERROR: "field: reason" */
	uint8_t *secret;                 /* key1 || key2 [|| keytag], secure memory; NULL in ERROR */
	struct rdma_lend allow;          /* who besides root may configure MKEYs with it */
};

static inline struct rdma_dek *rdma_dek(struct rdma_object *obj)
{
	return (struct rdma_dek *)obj;
}

/* What a create asks for. */
struct rdma_dek_params {
	const char *name;
	unsigned key_bits;               /* 128 or 256 */
	enum rdma_dek_import import;
	const char *key_file;            /* an absolute path, or NULL with key/key_len */
	const uint8_t *key;
	size_t key_len;
	bool has_keytag;                 /* plaintext only: a wrapped key carries its keytag */
	uint8_t keytag[RDMA_DEK_KEYTAG_LEN];
	uint8_t opaque[RDMA_DEK_OPAQUE_LEN];
	uint32_t pd;                     /* 0: none */
	const struct rdma_lend_policy *allow;   /* resolved already; NULL: root only */
};

/*
 * A new DEK in state READY, pending (RDMA_DEK_CREATING).  A wrapped import
 * uses the device's crypto login (which config says is still valid).  Errors
 * name the field: name, size, key_file / key, keytag, opaque, pd, import,
 * login; a name taken by a pending DEK is InvalidState until it settles.
 */
int rdma_dek_create(struct rdma_device *dev, const struct rdma_crypto_config *config,
		    const struct rdma_dek_params *p, struct rdma_dek **out, struct rdma_error *err);

/*
 * Puts back a DEK saved in the state directory, with its handle, reading its
 * key file again; a wrapped one is unwrapped with config's import KEK named
 * kek (no login is needed to keep a DEK, as on the device).  Problems with the
 * key material give a DEK in state ERROR, not a failure; what fails is a
 * record that cannot be a DEK at all (bad name, size, handle taken...).
 * expect_check: the fingerprint saved with it.
 */
int rdma_dek_restore(struct rdma_device *dev, const struct rdma_crypto_config *config, uint32_t handle,
		     const struct rdma_dek_params *p, const char *kek,
		     const uint8_t expect_check[RDMA_DEK_CHECK_LEN], struct rdma_dek **out,
		     struct rdma_error *err);

/* The DEK with this handle or name, or NULL with NoSuchObject. */
struct rdma_dek *rdma_dek_lookup(struct rdma_device *dev, uint32_t handle, struct rdma_error *err);
struct rdma_dek *rdma_dek_find(struct rdma_device *dev, const char *name, struct rdma_error *err);
/*
 * Refused with ObjectInUse while an MKEY uses it.  The DEK is then pending
 * (RDMA_DEK_DESTROYING): it serves no new MKEY and goes once it settles.
 * Only for a settled DEK.
 */
int rdma_dek_destroy(struct rdma_device *dev, struct rdma_dek *dek, struct rdma_error *err);
/*
 * allow becomes the DEK's list once saved: the DEK is pending
 * (RDMA_DEK_LENDING) meanwhile, under its old list.  Only for a settled DEK.
 */
int rdma_dek_lend(struct rdma_dek *dek, const struct rdma_lend_policy *allow, struct rdma_error *err);
/* The DEK's pending change is durable: a destroyed DEK is freed (its key wiped). */
void rdma_dek_settle(struct rdma_device *dev, struct rdma_dek *dek);
/* The DEK's pending change could not be saved: a new DEK goes, a destroyed one stays. */
void rdma_dek_undo(struct rdma_device *dev, struct rdma_dek *dek);

const char *rdma_dek_state_name(enum rdma_dek_state state);    /* "ready", "error" */
const char *rdma_dek_import_name(enum rdma_dek_import import); /* "plaintext", "wrapped" */

/* ---- for MKEYs (daemon/verbs/mkey.c) ---- */

/*
 * The key (key1 || key2: 32 or 64 bytes) for dp_xts_create() /
 * dp_transform_create(), which copy it; the pointer is valid while the DEK
 * lives and must not be copied anywhere else.  NULL with InvalidState (field
 * "dek") when the DEK is in state ERROR, or pending: a DEK being created or
 * destroyed serves no MKEY until that is saved (undoing it must find no user).
 */
const uint8_t *rdma_dek_key(const struct rdma_dek *dek, size_t *len, struct rdma_error *err);
/*
 * mlx5dv_crypto_attr.keytag: it must equal the DEK's keytag when the DEK has
 * one and is ignored otherwise (seed 001).  InvalidArgument (field "keytag")
 * on a mismatch; compared in constant time.
 */
int rdma_dek_check_keytag(const struct rdma_dek *dek, const uint8_t keytag[RDMA_DEK_KEYTAG_LEN],
			  struct rdma_error *err);
/*
 * Whether caller may configure MKEYs with the DEK (root may; NULL: the daemon
 * itself).  Refused as a DEK that does not exist, with InvalidArgument on
 * "dek" naming what the caller gave, so that a caller learns nothing of DEKs
 * it may not use (docs/decisions.md, "DEKs and pools lent to programs").
 */
int rdma_dek_check_caller(const struct rdma_dek *dek, const char *given,
			  const struct rdma_lend_caller *caller, struct rdma_error *err);
/* The refusal of a DEK that is not there, as a caller other than root gets it. */
int rdma_dek_refuse_unknown(const char *given, const struct rdma_lend_caller *caller,
			    struct rdma_error *err);
/* A DEK created on a PD serves MKEYs of that PD only (InvalidArgument, field "dek"). */
int rdma_dek_check_pd(const struct rdma_dek *dek, uint32_t pd, struct rdma_error *err);
