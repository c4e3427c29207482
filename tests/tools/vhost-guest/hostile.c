/* SPDX-License-Identifier: MIT */
/*
 * hostile.c - a guest that breaks the rules, for the back end's tests: a
 * malformed chain posted and kicked on one virtqueue (bad_ring), a memory
 * table the back end must refuse (bad_mem_table).  Each must cost the guest
 * that queue or that message, never rdmad.
 */
#include "guest.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Far beyond any region of the memory table. */
#define NOWHERE_GPA	(1ull << 46)

static const struct name_value bad_rings[] = {
	{ "loop", 0 }, { "out_of_range", 1 }, { "huge_avail", 2 }, { "nested_indirect", 3 },
	{ "write_before_read", 4 }, { "bad_head", 5 }, { NULL, 0 },
};

/* Adds a two-descriptor chain written directly in the table (never indirect). */
static int add_direct_pair(struct vring *vr, uint64_t gpa, uint16_t *second)
{
	struct vring_seg segs[2] = { { gpa, 64, false }, { gpa + 64, 64, false } };
	void *indirect = vr->indirect.host;
	int head;

	vr->indirect.host = NULL;
	head = vring_add(vr, segs, 2, NULL);
	vr->indirect.host = indirect;
	if (head >= 0)
		*second = vr->desc[head].next;
	return head;
}

static int cmd_bad_ring(struct guest *g, struct args *a)
{
	const char *vq_s = args_pos(a, 1), *kind_s = args_pos(a, 2);
	struct vring_seg one, two[2];
	uint64_t index, scratch;
	uint16_t second = 0;
	char allowed[128];
	uint32_t kind;
	struct vring *vr;
	struct vq *q;
	int head = -EINVAL;
	uint64_t kick = 1;

	names_list(bad_rings, allowed, sizeof(allowed));
	if (!vq_s || !kind_s || parse_num(vq_s, &index) < 0)
		return reply_fail(g, "usage: bad_ring VQ %s", allowed);
	kind = UINT32_MAX;
	for (const struct name_value *t = bad_rings; t->name; t++)
		if (!strcmp(t->name, kind_s))
			kind = t->value;
	if (kind == UINT32_MAX)
		return reply_fail(g, "bad_ring: '%s' is not one of %s", kind_s, allowed);
	if (args_done(a, 2) < 0)
		return reply_fail(g, "%s", a->err);
	if (!g->started || index >= g->nvqs || g->vqs[index].kind == VQ_NONE)
		return reply_fail(g, "bad_ring: vq %s is not set up here", vq_s);
	q = &g->vqs[index];
	vr = &q->ring;
	/* The chains point at the control pages' request area: real memory, nothing of value. */
	scratch = g->ctrl_gpa + 2 * GUEST_PAGE;
	one = (struct vring_seg){ scratch, 64, false };
	switch (kind) {
	case 0:	/* loop: the chain's second descriptor leads back to its first */
		head = add_direct_pair(vr, scratch, &second);
		if (head >= 0) {
			vr->desc[second].flags |= VRING_DESC_F_NEXT;
			vr->desc[second].next = (uint16_t)head;
		}
		break;
	case 1:	/* out_of_range: a buffer no region holds */
		one.gpa = NOWHERE_GPA;
		one.len = GUEST_PAGE;
		head = vring_add(vr, &one, 1, NULL);
		break;
	case 2:	/* huge_avail: the index runs ahead by more than the queue holds */
		head = vring_add(vr, &one, 1, NULL);
		if (head >= 0)
			vr->avail_idx = (uint16_t)(vr->avail_idx + 0x8000);
		break;
	case 3:	/* nested_indirect: an indirect table holding an indirect descriptor */
		if (!vr->indirect.host)
			return reply_fail(g, "bad_ring nested_indirect: INDIRECT_DESC not negotiated");
		two[0] = one;
		two[1] = (struct vring_seg){ scratch + 64, 64, false };
		head = vring_add(vr, two, 2, NULL);
		if (head >= 0) {
			struct vring_desc *table = (struct vring_desc *)vr->indirect.host +
						   (size_t)head * VRING_INDIRECT_MAX;

			table[0].flags |= VRING_DESC_F_INDIRECT;
			table[0].addr = vr->desc[head].addr;
			table[0].len = vr->desc[head].len;
		}
		break;
	case 4:	/* write_before_read: a device-writable buffer ahead of a readable one */
		head = add_direct_pair(vr, scratch, &second);
		if (head >= 0)
			vr->desc[head].flags |= VRING_DESC_F_WRITE;
		break;
	case 5:	/* bad_head: the avail entry names no descriptor of the table */
		head = vring_add(vr, &one, 1, NULL);
		if (head >= 0)
			vr->avail->ring[(uint16_t)(vr->avail_idx - 1) % vr->num] = (uint16_t)(vr->num + 5);
		break;
	}
	if (head < 0)
		return reply_fail(g, "bad_ring: vq %s has no free descriptors", vq_s);
	vring_publish(vr);
	if (write(q->kick_fd, &kick, sizeof(kick)) < 0)
		return reply_errno(g, "bad_ring: kick", errno);
	return reply_ok("vq=%u kind=%s", q->index, kind_s);
}

static int cmd_bad_mem_table(struct guest *g, struct args *a)
{
	const char *kind = args_pos(a, 1);
	struct vhost_user_memory mem;
	uint64_t refused = 0, again = 0;
	int r;

	if (!kind || (strcmp(kind, "overlap") && strcmp(kind, "empty")))
		return reply_fail(g, "usage: bad_mem_table overlap|empty");
	if (args_done(a, 1) < 0)
		return reply_fail(g, "%s", a->err);
	if (!g->negotiated)
		return reply_fail(g, "negotiate first");
	if (!g->vu.reply_ack)
		return reply_fail(g, "bad_mem_table: a refusal is seen only with REPLY_ACK, not negotiated");
	session_mem_table(g, &mem);
	if (!strcmp(kind, "empty")) {
		mem.nregions = 0;
	} else {
		/* The second region over the first's guest-physical range. */
		mem.regions[1].guest_phys_addr = mem.regions[0].guest_phys_addr + GUEST_PAGE;
	}
	r = session_send_mem_table(g, &mem, &refused);
	if (r < 0)
		return reply_errno(g, "SET_MEM_TABLE", r);
	/* The good table again, so the session goes on either way. */
	session_mem_table(g, &mem);
	r = session_send_mem_table(g, &mem, &again);
	if (r < 0)
		return reply_errno(g, "SET_MEM_TABLE (the good one again)", r);
	if (!refused)
		return reply_fail(g, "accepted");
	if (again)
		return reply_fail(g, "refused=%" PRIu64 " but the good table again was refused too (%"
				  PRIu64 ")", refused, again);
	return reply_ok("refused=%" PRIu64, refused);
}

const struct command hostile_commands[] = {
	{ "bad_ring", cmd_bad_ring },
	{ "bad_mem_table", cmd_bad_mem_table },
	{ NULL, NULL },
};
