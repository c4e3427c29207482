/* SPDX-License-Identifier: MIT */
/*
 * Asynchronous events of a device (as ib_dispatch_event in the kernel): what
 * happened to which object.  The device model posts them; the daemon's monitor
 * turns them into io.rdmad.Monitor replies.  No JSON here.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "daemon/verbs/object.h"

enum rdma_event_type {
	RDMA_EVENT_OBJECT_CREATED,
	RDMA_EVENT_OBJECT_DESTROYED,
	RDMA_EVENT_QP_STATE,          /* old_state → new_state (enum rdma_qp_state) */
	RDMA_EVENT_SQ_DRAINED,        /* IBV_EVENT_SQ_DRAINED */
	RDMA_EVENT_SIG_ERROR,         /* on an MKEY: sig[] = type, expected, actual, offset */
	RDMA_EVENT_WR_CANCELED,       /* count WRs with wr_id became NOPs */
	RDMA_EVENT_RECOVERY,          /* a QP was taken from SQD back to RTS */
	RDMA_EVENT_CQ_ERROR,          /* IBV_EVENT_CQ_ERR: a completion overflowed the CQ */
	/* A pool (kind pool): an MKEY borrowed or given back (mkey, owner), a resize saved (size). */
	RDMA_EVENT_POOL_BORROW,
	RDMA_EVENT_POOL_RETURN,
	RDMA_EVENT_POOL_RESIZE,
	/* From here on the device's own events, not an object's (the monitor shows them to all). */
	/* A VNIC port's oper_state or passing changed: old/new_state (enum vnic_event_state). */
	RDMA_EVENT_VNIC_STATE,
	/* The manager wrote a VNIC port's MAC table: count entries from offset, digest. */
	RDMA_EVENT_VNIC_MAC_TABLE,
	/* A trap of a VNIC port: trap (opcode 1-3), trap_result (enum vnic_event_trap_result). */
	RDMA_EVENT_VNIC_TRAP,
	RDMA_EVENT_TYPE_COUNT,
};

struct rdma_event {
	enum rdma_event_type type;
	enum rdma_object_kind kind;
	uint32_t handle;          /* GID: the entry's index, of port */
	uint8_t port;             /* GID */
	int old_state, new_state;
	bool by_device;           /* QP_STATE: the data path moved the QP (a fatal error, a stop) */
	uint64_t wr_id;
	uint64_t count;
	uint64_t sig[4];
	uint32_t qpn;             /* SIG_ERROR: the QP whose WR wr_id found it */
	uint32_t mkey;            /* RECOVERY: the first MKEY that had an error (0: none) */
	uint64_t duration_ns;     /* RECOVERY: from the error to RTS (or the steps alone) */
	bool automatic;           /* RECOVERY: started by the auto policy */
	uint32_t offset;          /* VNIC_MAC_TABLE: the first entry written */
	uint32_t digest;          /* VNIC_MAC_TABLE: the manager's mac_tbl_digest */
	bool passing;             /* VNIC_STATE: frames flow now */
	uint8_t trap;             /* VNIC_TRAP: opcode */
	uint8_t trap_result;      /* VNIC_TRAP */
	/* POOL_*: the pool's name, and the borrower's owner name (NULL: a connection's); read
	 * during the call only.  available: its MKEYs free after the change. */
	const char *name, *owner;
	uint32_t size, old_size;  /* POOL_RESIZE */
	uint32_t available;
	/* OBJECT_DESTROYED: whose it was (the object is gone when the event is read). */
	uint32_t owner_uid;
};

/* VNIC_STATE's old/new_state: the port's oper_state (reference opa_vnic.md §5.1). */
enum vnic_event_state { VNIC_EVENT_DROP_ALL = 1, VNIC_EVENT_FORWARDING = 3 };
enum vnic_event_trap_result { VNIC_TRAP_SENT, VNIC_TRAP_RATE_LIMITED, VNIC_TRAP_NO_LID };

struct rdma_device;

typedef void (*rdma_event_fn)(struct rdma_device *dev, const struct rdma_event *ev, void *userdata);

/* Who hears a device's events: the monitor and the applications' event channels. */
#define RDMA_EVENT_SINKS_MAX 4
struct rdma_event_sink {
	rdma_event_fn fn;         /* NULL: a free place */
	void *userdata;
};

const char *rdma_event_type_name(enum rdma_event_type type);
/* fn hears the device's events from now on; -ENOSPC when RDMA_EVENT_SINKS_MAX already do. */
int rdma_device_add_event_sink(struct rdma_device *dev, rdma_event_fn fn, void *userdata);
/* fn with userdata, added before, hears no more. */
void rdma_device_remove_event_sink(struct rdma_device *dev, rdma_event_fn fn, void *userdata);
/* Hands ev to the device's sinks, in the order they were added; main thread only. */
void rdma_device_post_event(struct rdma_device *dev, const struct rdma_event *ev);
