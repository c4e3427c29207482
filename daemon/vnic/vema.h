/* SPDX-License-Identifier: MIT */
/*
 * The VEMA agent of one OPA port (reference opa_vnic.md §1-§3): takes the MADs the
 * transport received, does what the kernel's MAD core and VEMA did with them, and
 * answers; sends the VNIC ports' traps.  Pure logic: every side effect (netdev,
 * data path, sending, the clock) goes through struct vema_ops, which the driver
 * (daemon/vnic/vnic.c) supplies.  One thread: the main loop's.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/vnic/mad_transport.h"
#include "daemon/vnic/vema_attr.h"
#include "daemon/vnic/vport.h"
#include "dataplane/opa/vnic_counters.h"

struct vema_ops {
	/* A Set made vport vp (POD values, not yet configured): create its netdev.  A negative
	 * errno undoes the creation and the Set answers 0x001C. */
	int (*vport_created)(void *ctx, struct vnic_vport *vp);
	/* vp's VESWPortInfo or state changed; changed = enum vport_change bits. */
	void (*vport_changed)(void *ctx, struct vnic_vport *vp, unsigned changed);
	/* vp's MAC table slots [offset, offset + num) were written (or all restored). */
	void (*mactable_changed)(void *ctx, struct vnic_vport *vp, uint32_t offset, uint32_t num);
	/* Delete VESW: vp is back at POD values, its MAC table released.  Reprogram all. */
	void (*vport_reset)(void *ctx, struct vnic_vport *vp);
	/* vp goes (vema_remove_vport): its netdev and data path go first.  May be NULL. */
	void (*vport_removed)(void *ctx, struct vnic_vport *vp);
	/* The counters of vp. */
	void (*read_counters)(void *ctx, const struct vnic_vport *vp, struct opa_vnic_counters *c);
	/* The interface's unicast (without base_mac) or multicast addresses: copies entries
	 * [start, start + max) to out, returns how many it copied; *total = the list length. */
	size_t (*iface_macs)(void *ctx, const struct vnic_vport *vp, bool multicast, size_t start,
			     uint8_t (*out)[6], size_t max, size_t *total);
	/* Sends a trap; negative errno. */
	int (*send)(void *ctx, const struct mad_addr *to, const uint8_t *mad, size_t len);
	/* Monotonic clock, µs. */
	uint64_t (*now_us)(void *ctx);
	/* A trap of vp was sent or not (enum vema_trap_result), for the driver's events; may be NULL. */
	void (*trap_done)(void *ctx, const struct vnic_vport *vp, unsigned opcode, int result);
};

/* Why a MAD got no reply at all. */
enum vema_drop {
	VEMA_DROP_SHORT,		/* < 24 bytes */
	VEMA_DROP_BASE_VERSION,		/* not 0x80 */
	VEMA_DROP_METHOD,		/* not Get/Set (responses, traps, reports...) */
	VEMA_DROP_NO_ROOM,		/* the caller's reply buffer is too small */
	VEMA_DROP_REASONS
};

struct vema_stats {
	uint64_t mads_received;
	uint64_t replies;		/* VEMA replies, 2048 bytes */
	uint64_t unmatched_replies;	/* the core's 24-byte 0x000C replies */
	uint64_t dropped[VEMA_DROP_REASONS];
	uint64_t traps_sent;
	uint64_t traps_rate_limited;
	uint64_t traps_no_lid;		/* ClassPortInfo.trap_lid is 0 */
	uint64_t traps_send_failed;
};

struct vema {
	const struct vema_ops *ops;
	void *ctx;
	uint16_t opa_port_num;		/* 1: reported as veswport_num and opaportnum */
	uint8_t cpi[VEMA_CPI_LEN];	/* ClassPortInfo as last Set (all zero before) */
	uint64_t trap_tid;		/* last trap TID; the first is 1 */
	struct vnic_vport_set vports;
	struct vema_stats stats;
};

void vema_init(struct vema *v, const struct vema_ops *ops, void *ctx);

/* Frees the vports (no callbacks). */
void vema_fini(struct vema *v);

/* One received MAD; writes the reply to reply[0..reply_size) and returns its length, 0 for
 * no reply.  A VEMA reply needs reply_size >= VEMA_MAD_LEN. */
size_t vema_handle(struct vema *v, const struct mad_addr *from, const uint8_t *mad, size_t len,
		   uint8_t *reply, size_t reply_size);

static inline struct vnic_vport *vema_vport(const struct vema *v, unsigned index)
{
	return vport_set_get(&v->vports, index);
}

/* ---- traps and host events (vema_trap.c) */

#define VEMA_TRAP_WINDOW_US	1073741	/* 4096 x 2^18 / 1000 */
#define VEMA_TRAP_PER_WINDOW	5

enum vema_trap_result {
	VEMA_TRAP_SENT,
	VEMA_TRAP_NO_VPORT,
	VEMA_TRAP_RATE_LIMITED,
	VEMA_TRAP_NO_LID,		/* dropped: the EM never set a trap LID */
	VEMA_TRAP_SEND_FAILED,
};

/* §3: builds and sends vport index's trap for event (enum vema_trap_opcode). */
enum vema_trap_result vema_port_event(struct vema *v, unsigned index, enum vema_trap_opcode event);

/* The host opened the netdev: -ENOENT, -EINVAL (vesw_id 0); on success the state is
 * updated and the link-status trap sent. */
int vema_host_open(struct vema *v, unsigned index);
/* The host closed it: state updated, link-status trap.  -ENOENT. */
int vema_host_close(struct vema *v, unsigned index);
/* OPA link active or not: carrier of every vport, no trap. */
void vema_link_carrier(struct vema *v, bool on);
/* The host set the interface MAC itself: uc gen count + 1 and a unicast trap. */
int vema_host_mac_changed(struct vema *v, unsigned index);
/* The host's address lists now are uc (secondary unicast, without base_mac) and mc: gen
 * counts move and traps go only for a list that really changed. */
int vema_host_rx_mode(struct vema *v, unsigned index, const uint8_t (*uc)[6], size_t n_uc,
		      const uint8_t (*mc)[6], size_t n_mc);

/* ---- what the driver persists (vema_state.c) */

struct vema_mac_record {
	uint16_t index;
	uint8_t entry[VEMA_MACTBL_ENTRY_LEN];	/* the §2.4 wire entry */
};

/* A vport's configuration as raw attribute bytes: the 280-byte VESWPortInfo (its
 * mac_tbl_digest included) and the used MAC table slots. */
struct vema_vport_state {
	uint8_t info[VEMA_VPINFO_LEN];
	size_t n_macs;
	struct vema_mac_record macs[VNIC_MAC_TBL_ENTRIES];
};

void vema_export_cpi(const struct vema *v, uint8_t out[VEMA_CPI_LEN]);
void vema_restore_cpi(struct vema *v, const uint8_t in[VEMA_CPI_LEN]);
/* -ENOENT for an absent vport. */
int vema_export_vport(const struct vema *v, unsigned index, struct vema_vport_state *out);
/* Creates the vport (vport_created), configures it from the writable fields, restores the
 * MAC table and digest, and reports it (vport_changed, mactable_changed).  -EEXIST,
 * -EINVAL (a MAC record out of range), -ENOMEM, or vport_created's error. */
int vema_restore_vport(struct vema *v, unsigned index, const struct vema_vport_state *in);

/*
 * Undoing Sets whose configuration could not be saved: what a Set MAD addresses
 * (VEMA_SET_CPI, a vport index, or VEMA_SET_NONE for anything a Set cannot change),
 * and putting a vport back as exported (NULL: absent, so removed).  A vport put back
 * is configured from in's writable fields, its MAC table replaced by in's, and reported
 * as after a restore; absent, it is restored.  -EINVAL, -ENOMEM (a table to allocate).
 */
enum { VEMA_SET_CPI = -1, VEMA_SET_NONE = -2 };
int vema_set_target(const uint8_t *mad, size_t len);
int vema_reset_vport(struct vema *v, unsigned index, const struct vema_vport_state *in);
/* Removes the vport (vport_removed first); absent, nothing. */
void vema_remove_vport(struct vema *v, unsigned index);
