/* SPDX-License-Identifier: MIT */
/*
 * Device-wide objects root lends to tenants (DESIGN.md, "Tenants"): which
 * users and groups may configure MKEYs with a DEK, or borrow from a pool.
 *
 * A policy is a list of entries, "USER" or "@GROUP", kept by name (what root
 * typed, what the state file holds, what is shown) and by number (what a call
 * is checked against).  Names are looked up when the list is set, at start and
 * at every reload, never per call: the user database may be NSS over the
 * network, and the event loop must not wait for it.  A name that does not
 * resolve when set is refused; one that stops resolving later is kept but
 * lets nobody in (its number could be given to someone else), until a reload
 * finds it again.  Root (uid 0) passes every policy.
 *
 * A change of the list is made durable before it holds, as every change of
 * a DEK or a pool: the new list waits in next until the state file holding
 * it is written (rdma_lend_settle), or goes if it cannot be (rdma_lend_undo).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "daemon/verbs/error.h"

/* Entries of one list: a few users and groups, not a user database. */
#define RDMA_LEND_MAX 32
/* 32 characters, as useradd and groupadd allow, and the NUL. */
#define RDMA_LEND_NAME_MAX 33

struct rdma_lend_entry {
	bool group;                   /* "@NAME" */
	bool resolved;                /* the name was found at the last lookup */
	uint32_t id;                  /* its uid or gid, when resolved */
	char name[RDMA_LEND_NAME_MAX];
};

struct rdma_lend_policy {
	unsigned n;
	struct rdma_lend_entry entries[RDMA_LEND_MAX];
};

/* A DEK's or pool's policy, and its change not yet durable. */
struct rdma_lend {
	struct rdma_lend_policy now;
	struct rdma_lend_policy *next;   /* NULL: no change pending */
};

/* Who calls: the credentials the kernel gave for the caller's connection. */
struct rdma_lend_caller {
	uid_t uid;
	gid_t gid;
	const gid_t *groups;          /* supplementary groups */
	size_t n_groups;
};

/* Looks a name up: 1 and *id when found, 0 when there is no such name, a negative errno when the lookup failed. */
struct rdma_lend_resolver {
	int (*user)(const char *name, uint32_t *id);
	int (*group)(const char *name, uint32_t *id);
};

/* getpwnam_r, getgrnam_r. */
extern const struct rdma_lend_resolver rdma_lend_nss;

/*
 * The caller is root, or the policy names its uid, its primary gid or one of
 * its supplementary groups (resolved entries only).
 */
bool rdma_lend_allows(const struct rdma_lend_policy *p, uid_t uid, gid_t gid, const gid_t *groups,
		      size_t n_groups);
bool rdma_lend_allows_caller(const struct rdma_lend_policy *p, const struct rdma_lend_caller *caller);

/*
 * Edits p (all or nothing): removes the entries of remove, then adds those of
 * add that it lacks, looking each added name up.  InvalidArgument naming
 * field add_field or remove_field for an entry that is not "USER" or "@GROUP"
 * with a valid name, a name that does not resolve (or whose lookup failed),
 * an entry to remove that p lacks, and a list longer than RDMA_LEND_MAX.
 */
int rdma_lend_edit(struct rdma_lend_policy *p, const char *const *add, size_t n_add,
		   const char *const *remove, size_t n_remove, const struct rdma_lend_resolver *r,
		   const char *add_field, const char *remove_field, struct rdma_error *err);

/*
 * Looks every name of p up again (at start, at reload).  A lookup that fails
 * keeps what was known; a name that no longer exists lets nobody in.  Changes
 * are logged, naming what (e.g. "soft0: DEK 'k1'").
 */
void rdma_lend_resolve(struct rdma_lend_policy *p, const struct rdma_lend_resolver *r, const char *what);

/*
 * A saved list back (start): entries that are not "USER" or "@GROUP" are
 * left out and logged, the rest looked up as rdma_lend_resolve does.
 */
void rdma_lend_restore(struct rdma_lend_policy *p, const char *const *names, size_t n,
		       const struct rdma_lend_resolver *r, const char *what);

/* "alice" or "@ops": the entry as typed. */
void rdma_lend_entry_text(const struct rdma_lend_entry *e, char *buf, size_t size);

/* ---- the change not yet durable ---- */

/* next becomes l's pending list (copied); -ENOMEM. */
int rdma_lend_change(struct rdma_lend *l, const struct rdma_lend_policy *next);
/* The list a change would start from, and the one the state file holds: next if pending, else now. */
const struct rdma_lend_policy *rdma_lend_latest(const struct rdma_lend *l);
void rdma_lend_settle(struct rdma_lend *l);
void rdma_lend_undo(struct rdma_lend *l);
/* At reload: both lists. */
void rdma_lend_resolve_all(struct rdma_lend *l, const struct rdma_lend_resolver *r, const char *what);
void rdma_lend_release(struct rdma_lend *l);
