/* SPDX-License-Identifier: MIT */
/*
 * The Ethernet Manager's Sets answered once durable (vnic_save.h); why, and
 * what happens when the file cannot be written: docs/decisions.md, "The OPA
 * port in rdmad".
 */
#include "daemon/vnic/vnic_save.h"
#include "daemon/vnic/vnic.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"

static void list_init(struct vnic_mad **head, struct vnic_mad ***tail)
{
	*head = NULL;
	*tail = head;
}

static void list_append(struct vnic_mad ***tail, struct vnic_mad *m)
{
	m->next = NULL;
	**tail = m;
	*tail = &m->next;
}

static void list_free(struct vnic_mad **head, struct vnic_mad ***tail)
{
	struct vnic_mad *m;

	while ((m = *head)) {
		*head = m->next;
		free(m);
	}
	*tail = head;
}

void vnic_save_init(struct vnic_save *sv)
{
	memset(sv, 0, sizeof(*sv));
	list_init(&sv->replies, &sv->replies_tail);
	list_init(&sv->held, &sv->held_tail);
}

/* The Sets waiting are settled: what they found is no longer needed. */
static void forget(struct vnic_save *sv)
{
	sv->cpi_kept = false;
	for (unsigned i = 0; i < VNIC_MAX_VPORTS; i++) {
		free(sv->before[i]);
		sv->before[i] = NULL;
		sv->kept[i] = false;
	}
}

void vnic_save_fini(struct vnic_save *sv)
{
	forget(sv);
	list_free(&sv->replies, &sv->replies_tail);
	list_free(&sv->held, &sv->held_tail);
	sv->n_held = 0;
	sv->waiting = false;
}

/* What a Set addressing target finds, kept once for the Sets that wait together. */
static int keep(struct vnic_save *sv, const struct vema *v, int target)
{
	struct vema_vport_state *st;

	if (target == VEMA_SET_CPI) {
		if (!sv->cpi_kept)
			vema_export_cpi(v, sv->cpi);
		sv->cpi_kept = true;
		return 0;
	}
	if (target < 0 || sv->kept[target])
		return 0;
	if (vema_vport(v, target)) {
		st = malloc(sizeof(*st));
		if (!st)
			return -ENOMEM;
		vema_export_vport(v, target, st);
		sv->before[target] = st;
	}
	sv->kept[target] = true;
	return 0;
}

/* The file still holds what the waiting Sets found: memory goes back to it. */
static void undo(struct vnic_save *sv, struct vema *v)
{
	if (sv->cpi_kept)
		vema_restore_cpi(v, sv->cpi);
	for (unsigned i = 0; i < VNIC_MAX_VPORTS; i++) {
		int r;

		if (!sv->kept[i])
			continue;
		r = vema_reset_vport(v, i, sv->before[i]);
		if (r < 0)
			log_error_errno(r, "vnic %u: its configuration could not be put back as saved", i);
	}
}

static void send_reply(struct vnic_service *s, struct vnic_mad *m)
{
	int r;

	/* Back to the requester's LID, SL, P_Key and QP (reference §1.4). */
	if (m->len) {
		r = mad_transport_send(s->mad, &m->addr, m->bytes, m->len);
		if (r < 0)
			log_full_errno(LOG_DEBUG, r, "no reply to LID %u", m->addr.lid);
	}
	free(m);
}

/* Runs the Set m holds; m then holds its reply, sent at once or kept for the disk. */
static void run_set(struct vnic_service *s, struct vnic_mad *m)
{
	static uint8_t reply[VEMA_MAD_LEN];   /* main thread only */
	struct vnic_save *sv = &s->save;
	bool changed;
	int r;

	r = keep(sv, &s->vema, vema_set_target(m->bytes, m->len));
	if (r < 0) {
		/* Not run, not answered: the manager sends it again. */
		log_warning_errno(r, "a VEMA Set from LID %u is dropped: it could not be undone",
				  m->addr.lid);
		free(m);
		return;
	}
	s->dirty = false;
	m->len = vema_handle(&s->vema, &m->addr, m->bytes, m->len, reply, sizeof(reply));
	memcpy(m->bytes, reply, m->len);
	changed = s->dirty || (sv->cpi_kept && memcmp(sv->cpi, s->vema.cpi, VEMA_CPI_LEN) != 0);
	/* After a change, even a Set that changed nothing shows it: it waits its turn. */
	if (changed || sv->replies) {
		list_append(&sv->replies_tail, m);
		return;
	}
	/* Nothing changed and nothing waits: the file holds what the reply says. */
	forget(sv);
	send_reply(s, m);
}

/* The Sets that changed something wait for the committer. */
static void submit(struct vnic_service *s)
{
	if (!s->save.replies || s->save.waiting)
		return;
	s->save.waiting = true;
	s->env.changed(s->env.userdata);
}

void vnic_save_set(struct vnic_service *s, const struct mad_addr *from, const uint8_t *mad,
		   size_t len)
{
	struct vnic_save *sv = &s->save;
	struct vnic_mad *m;

	if (sv->waiting && sv->n_held >= VNIC_SETS_HELD_MAX) {
		log_debug("a VEMA Set from LID %u is dropped: %u wait already", from->lid,
			  sv->n_held);
		return;
	}
	m = malloc(sizeof(*m));
	if (!m) {
		log_warning("out of memory: a VEMA Set from LID %u is dropped", from->lid);
		return;
	}
	/* Whatever lies past 2048 bytes the agent ignores (vema_handle()). */
	m->addr = *from;
	m->len = len < sizeof(m->bytes) ? len : sizeof(m->bytes);
	memcpy(m->bytes, mad, m->len);
	if (sv->waiting) {
		list_append(&sv->held_tail, m);
		sv->n_held++;
		return;
	}
	run_set(s, m);
	submit(s);
}

void vnic_service_saved(struct vnic_service *s, int r)
{
	struct vnic_save *sv = &s->save;
	struct vnic_mad *m, *held;
	unsigned n = 0;

	sv->waiting = false;
	if (r < 0) {
		for (m = sv->replies; m; m = m->next)
			n++;
		log_warning_errno(r, "the VNIC ports' configuration could not be saved: %u VEMA "
				  "Set(s) undone and not answered (the manager sends them again)", n);
		undo(sv, &s->vema);
	}
	forget(sv);
	while ((m = sv->replies)) {
		sv->replies = m->next;
		if (r < 0)
			free(m);
		else
			send_reply(s, m);
	}
	sv->replies_tail = &sv->replies;
	/* The Sets held meanwhile, in the order they came, wait together for the next write. */
	held = sv->held;
	list_init(&sv->held, &sv->held_tail);
	sv->n_held = 0;
	while ((m = held)) {
		held = m->next;
		run_set(s, m);
	}
	submit(s);
}
