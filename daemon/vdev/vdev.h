/* SPDX-License-Identifier: MIT */
/*
 * vdevs: the virtio-net RoCE devices rdmad serves to virtual machines as a
 * vhost-user back end (issue 28), one per VM.  A vdev is a device's, named
 * by the operator, and is a unix socket rdmad listens on (the front end,
 * QEMU, connects to it), a MAC for the guest, optionally a TAP interface
 * for its Ethernet frames, and the VM's limits on QPs and CQs.
 *
 * One front end at a time: its connection is handed to the session
 * (vdev_session.h); another one that comes meanwhile is closed at once and
 * counted.  When the session ends the vdev listens again.
 *
 * The driver's, on the main thread: sd-event watches the sockets.  Errors
 * are values: a negative errno, and for a refusal a struct rdma_error naming
 * the field.  Who saves vdevs (daemon/core/vdev_state.c) and who serves them
 * (daemon/api/vdev.c) look at struct vdev; nothing here knows of either.
 */
#pragma once

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/un.h>
#include <systemd/sd-event.h>

#include "daemon/verbs/device.h"
#include "daemon/verbs/error.h"
#include "daemon/vdev/virtio_net.h"

#define VDEV_NAME_MAX      31       /* characters: [A-Za-z0-9_-] */
#define VDEV_SOCKET_MAX    (sizeof(((struct sockaddr_un *)0)->sun_path) - 1)
#define VDEV_TAP_MAX       (IFNAMSIZ - 1)
/*
 * max_qps and max_cqs: a guest's QP numbers are 2 to max_qps - 1 (0 and 1
 * are SMI and GSI) and its CQ numbers 1 to max_cqs - 1 (0 names none), each
 * its virtqueues' number (docs/decisions.md, "A VM's RoCE device"); and the
 * device's 3 + max_cqs + 2 * max_qps queues must be numbered in the 8 bits
 * vhost-user gives a queue's index.
 */
#define VDEV_QPS_MIN       3
#define VDEV_CQS_MIN       2
#define VDEV_QPS_MAX       ((VDEV_QUEUES_MAX - 3 - VDEV_CQS_MIN) / 2)
#define VDEV_CQS_MAX       (VDEV_QUEUES_MAX - 3 - 2 * VDEV_QPS_MIN)
#define VDEV_DEFAULT_QPS   64
#define VDEV_DEFAULT_CQS   64
/* The header before each frame on the TAP: struct virtio_net_hdr_v1, as the guest's. */
#define VDEV_VNET_HDR_LEN  12

struct vdev_session;
struct worker_set;
struct vnic_netdev;
struct vnic_netdev_watch;

/* What the operator gives (and vdev.json keeps). */
struct vdev_config {
	char name[VDEV_NAME_MAX + 1];
	char socket[VDEV_SOCKET_MAX + 1];
	bool has_mac;                /* else derived from the name (vdev_derive_mac) */
	uint8_t mac[6];
	char tap[VDEV_TAP_MAX + 1];  /* "": no TAP */
	uint32_t max_qps, max_cqs;
};

/* The change the committer holds for a vdev (daemon/api/change.h). */
enum vdev_pending { VDEV_SETTLED, VDEV_CREATING, VDEV_DESTROYING };

/* The connected front end, as its socket's SO_PEERCRED and /proc said at accept. */
struct vdev_front_end {
	pid_t pid;
	uid_t uid;
	char comm[16];
	uint64_t started_usec;       /* CLOCK_REALTIME */
};

struct vdev {
	struct vdev_set *set;
	struct vdev *next;
	struct rdma_device *dev;
	struct vdev_config conf;     /* mac filled in */
	enum vdev_pending pending;
	sd_event_source *listener;   /* owns the listening socket */
	dev_t socket_dev;            /* the socket file made, to unlink only that one */
	ino_t socket_ino;
	struct vnic_netdev *tap;     /* NULL: none */
	struct vdev_session *session;   /* NULL: listening */
	struct vdev_front_end front_end;   /* while session */
	uint64_t accepted;           /* front ends served */
	uint64_t refused;            /* connections closed while one was served */
};

enum vdev_event { VDEV_EVENT_CREATED, VDEV_EVENT_DESTROYED, VDEV_EVENT_CONNECTED,
		  VDEV_EVENT_DISCONNECTED };

/* Every device's vdevs, and what they need of the daemon. */
struct vdev_set {
	sd_event *event;
	const char *own_socket;      /* rdmad's varlink socket: no vdev may take its path */
	struct vnic_netdev_watch *taps;   /* made with the first TAP */
	struct worker_set *workers;  /* the data path the VMs' devices run on (set once it runs) */
	struct vdev *list;           /* in creation order */
	/* Told of each event (may be NULL); a disconnect comes before the session's end is undone. */
	void (*on_event)(void *userdata, const struct vdev *v, enum vdev_event event);
	void *userdata;
};

int vdev_set_new(struct vdev_set **out, sd_event *event, const char *own_socket);
/* Destroys every vdev (sessions, sockets, TAPs) without events. */
void vdev_set_free(struct vdev_set *set);

/* The name of a vdev as the operator gave it, checked: 0, or -EINVAL with err on "name". */
int vdev_check_name(const char *name, struct rdma_error *err);
/* A locally administered unicast MAC from name, the same on every start (docs/decisions.md). */
void vdev_derive_mac(const char *name, uint8_t mac[6]);

/*
 * Makes a vdev of dev as conf says (a MAC derived when conf has none) and
 * listens on its socket, made mode 0660 with the group of rdmad's own socket;
 * a socket file left by a process that died is replaced.  -EEXIST: a vdev has
 * that name; -EADDRINUSE: the socket path is another vdev's, rdmad's, or
 * something answers there (err.reason says which); -EINVAL and others with
 * err naming the field.  Pending VDEV_CREATING until vdev_settle().
 */
int vdev_create(struct vdev_set *set, struct rdma_device *dev, const struct vdev_config *conf,
		struct vdev **out, struct rdma_error *err);
/* Marks v to be destroyed once that is saved: VDEV_DESTROYING. */
void vdev_destroy_begin(struct vdev *v);
/* The change is saved: a created vdev is settled, a destroyed one goes (and is freed). */
void vdev_settle(struct vdev *v);
/* The change could not be saved: a created vdev goes, a destroyed one stays. */
void vdev_undo(struct vdev *v);

struct vdev *vdev_find(const struct vdev_set *set, const char *name);
/* "listening" or "connected". */
const char *vdev_state_word(const struct vdev *v);

