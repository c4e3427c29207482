/* SPDX-License-Identifier: MIT */
/* Who may use a DEK or borrow from a pool: the lists root sets, looked up by name, checked by number. */
#include "daemon/verbs/lend.h"
#include "lib/log.h"

#include <ctype.h>
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the user database ---- */

/* Room for a group's member list: doubled while too small, up to 1 MiB. */
#define NSS_BUF_MIN 16384
#define NSS_BUF_MAX (1u << 20)

static int nss_user(const char *name, uint32_t *id)
{
	for (size_t size = NSS_BUF_MIN;; size *= 2) {
		struct passwd pw, *found = NULL;
		char *buf = malloc(size);
		int r;

		if (!buf)
			return -ENOMEM;
		r = getpwnam_r(name, &pw, buf, size, &found);
		if (r == 0 && found)
			*id = (uint32_t)found->pw_uid;
		free(buf);
		if (r != ERANGE || size >= NSS_BUF_MAX)
			return r ? -r : found != NULL;
	}
}

static int nss_group(const char *name, uint32_t *id)
{
	for (size_t size = NSS_BUF_MIN;; size *= 2) {
		struct group gr, *found = NULL;
		char *buf = malloc(size);
		int r;

		if (!buf)
			return -ENOMEM;
		r = getgrnam_r(name, &gr, buf, size, &found);
		if (r == 0 && found)
			*id = (uint32_t)found->gr_gid;
		free(buf);
		if (r != ERANGE || size >= NSS_BUF_MAX)
			return r ? -r : found != NULL;
	}
}

const struct rdma_lend_resolver rdma_lend_nss = { .user = nss_user, .group = nss_group };

static int lookup(const struct rdma_lend_resolver *r, const struct rdma_lend_entry *e, uint32_t *id)
{
	return e->group ? r->group(e->name, id) : r->user(e->name, id);
}

/* ---- the check ---- */

bool rdma_lend_allows(const struct rdma_lend_policy *p, uid_t uid, gid_t gid, const gid_t *groups,
		      size_t n_groups)
{
	if (uid == 0)
		return true;
	for (unsigned i = 0; i < p->n; i++) {
		const struct rdma_lend_entry *e = &p->entries[i];

		if (!e->resolved)
			continue;
		if (!e->group && e->id == (uint32_t)uid)
			return true;
		if (e->group && e->id == (uint32_t)gid)
			return true;
		for (size_t k = 0; e->group && k < n_groups; k++)
			if (groups[k] == (gid_t)e->id)
				return true;
	}
	return false;
}

bool rdma_lend_allows_caller(const struct rdma_lend_policy *p, const struct rdma_lend_caller *caller)
{
	return rdma_lend_allows(p, caller->uid, caller->gid, caller->groups, caller->n_groups);
}

/* ---- entries ---- */

void rdma_lend_entry_text(const struct rdma_lend_entry *e, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s", e->group ? "@" : "", e->name);
}

/*
 * "USER" or "@GROUP" with the names useradd and groupadd make: letters,
 * digits, '_', '.', '-' (not first), and a '$' last (machine accounts); not
 * all digits, which would read as a number.  The reason when not, else NULL.
 */
static const char *entry_parse(const char *text, struct rdma_lend_entry *e)
{
	const char *name = text[0] == '@' ? text + 1 : text;
	size_t n = strlen(name);
	bool digits = true;

	memset(e, 0, sizeof(*e));
	e->group = text[0] == '@';
	if (n == 0 || n >= RDMA_LEND_NAME_MAX)
		return "a user's name, or @ and a group's name, of 1 to 32 characters";
	if (name[0] == '-')
		return "a name does not begin with '-'";
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)name[i];

		digits = digits && isdigit(c);
		if (!(isalnum(c) || c == '_' || c == '.' || c == '-' || (c == '$' && i == n - 1)))
			return "a name holds letters, digits, '_', '.', '-' (and may end with '$')";
	}
	if (digits)
		return "a name, not a number";
	memcpy(e->name, name, n + 1);
	return NULL;
}

static int find(const struct rdma_lend_policy *p, const struct rdma_lend_entry *e)
{
	for (unsigned i = 0; i < p->n; i++)
		if (p->entries[i].group == e->group && strcmp(p->entries[i].name, e->name) == 0)
			return (int)i;
	return -1;
}

static void remove_at(struct rdma_lend_policy *p, unsigned i)
{
	memmove(&p->entries[i], &p->entries[i + 1], (p->n - i - 1) * sizeof(p->entries[0]));
	p->n--;
}

/* One entry to add, parsed and looked up, into q (which has room); 0 when q has it already. */
static int add_one(struct rdma_lend_policy *q, const char *text, const struct rdma_lend_resolver *r,
		   const char *field, struct rdma_error *err)
{
	struct rdma_lend_entry e;
	const char *bad = entry_parse(text, &e);
	int found;

	if (bad)
		return rdma_error_invalid(err, field, "entry '%.40s' is not USER or @GROUP: %s", text, bad);
	if (find(q, &e) >= 0)
		return 0;
	if (q->n == RDMA_LEND_MAX)
		return rdma_error_invalid(err, field, "at most %d users and groups", RDMA_LEND_MAX);
	found = lookup(r, &e, &e.id);
	if (found < 0)
		return rdma_error_invalid(err, field, "cannot look %s '%s' up: the %s database could not "
					  "be read (%s); nothing changed", e.group ? "group" : "user",
					  e.name, e.group ? "group" : "user", strerror(-found));
	if (!found)
		return rdma_error_invalid(err, field, "no %s is named '%s'%s",
					  e.group ? "group" : "user", e.name,
					  e.group ? "" : " (a group is written @NAME)");
	e.resolved = true;
	q->entries[q->n++] = e;
	return 0;
}

int rdma_lend_edit(struct rdma_lend_policy *p, const char *const *add, size_t n_add,
		   const char *const *remove, size_t n_remove, const struct rdma_lend_resolver *r,
		   const char *add_field, const char *remove_field, struct rdma_error *err)
{
	struct rdma_lend_policy *q = malloc(sizeof(*q));
	int ret = 0;

	if (!q)
		return rdma_error_system(err, -ENOMEM);
	*q = *p;
	for (size_t i = 0; ret == 0 && i < n_remove; i++) {
		struct rdma_lend_entry e;
		const char *bad = entry_parse(remove[i], &e);
		int at = bad ? -1 : find(q, &e);

		if (bad)
			ret = rdma_error_invalid(err, remove_field, "entry '%.40s' is not USER or @GROUP: "
						 "%s", remove[i], bad);
		else if (at < 0)
			ret = rdma_error_invalid(err, remove_field, "'%s' is not in the list now: nothing "
						 "to take back", remove[i]);
		else
			remove_at(q, (unsigned)at);
	}
	if (ret == 0 && n_add > RDMA_LEND_MAX)
		ret = rdma_error_invalid(err, add_field, "at most %d users and groups", RDMA_LEND_MAX);
	for (size_t i = 0; ret == 0 && i < n_add; i++)
		ret = add_one(q, add[i], r, add_field, err);
	if (ret == 0)
		*p = *q;
	free(q);
	return ret;
}

/* ---- lookups again ---- */

static void resolve_entry(struct rdma_lend_entry *e, const struct rdma_lend_resolver *r, const char *what,
			  bool known)
{
	char text[RDMA_LEND_NAME_MAX + 1];
	uint32_t id = 0;
	int found = lookup(r, e, &id);

	rdma_lend_entry_text(e, text, sizeof(text));
	if (found < 0) {
		log_warning("%s: cannot look '%s' up (%s); %s", what, text, strerror(-found),
			    known && e->resolved ? "it stays as it was" : "it lets nobody in until a "
			    "reload finds it");
		if (!known)
			e->resolved = false;
		return;
	}
	if (!found) {
		if (e->resolved || !known)
			log_warning("%s: no %s is named '%s' now: it lets nobody in until a reload "
				    "finds it", what, e->group ? "group" : "user", e->name);
		e->resolved = false;
		return;
	}
	if (known && e->resolved && e->id != id)
		log_notice("%s: '%s' is %s %u now (was %u)", what, text, e->group ? "gid" : "uid", id,
			   e->id);
	e->id = id;
	e->resolved = true;
}

void rdma_lend_resolve(struct rdma_lend_policy *p, const struct rdma_lend_resolver *r, const char *what)
{
	for (unsigned i = 0; i < p->n; i++)
		resolve_entry(&p->entries[i], r, what, true);
}

void rdma_lend_restore(struct rdma_lend_policy *p, const char *const *names, size_t n,
		       const struct rdma_lend_resolver *r, const char *what)
{
	memset(p, 0, sizeof(*p));
	for (size_t i = 0; i < n; i++) {
		struct rdma_lend_entry e;
		const char *bad = names[i] ? entry_parse(names[i], &e) : "not a string";

		if (!bad && find(p, &e) >= 0)
			continue;
		if (!bad && p->n == RDMA_LEND_MAX)
			bad = "past the most a list holds";
		if (bad) {
			log_error("%s: saved allow entry #%zu left out: %s", what, i, bad);
			continue;
		}
		resolve_entry(&e, r, what, false);
		p->entries[p->n++] = e;
	}
}

/* ---- the change not yet durable ---- */

int rdma_lend_change(struct rdma_lend *l, const struct rdma_lend_policy *next)
{
	if (!l->next && !(l->next = malloc(sizeof(*l->next))))
		return -ENOMEM;
	*l->next = *next;
	return 0;
}

const struct rdma_lend_policy *rdma_lend_latest(const struct rdma_lend *l)
{
	return l->next ? l->next : &l->now;
}

void rdma_lend_settle(struct rdma_lend *l)
{
	if (!l->next)
		return;
	l->now = *l->next;
	rdma_lend_undo(l);
}

void rdma_lend_undo(struct rdma_lend *l)
{
	free(l->next);
	l->next = NULL;
}

void rdma_lend_resolve_all(struct rdma_lend *l, const struct rdma_lend_resolver *r, const char *what)
{
	rdma_lend_resolve(&l->now, r, what);
	if (l->next)
		rdma_lend_resolve(l->next, r, what);
}

void rdma_lend_release(struct rdma_lend *l)
{
	rdma_lend_undo(l);
}
