/* SPDX-License-Identifier: MIT */
/*
 * A vdev's session with its front end: the one connection vdev.c accepted,
 * served as the vhost-user protocol and the virtio-net RoCE device behind
 * it (vdev_session.c).  The session knows of its vdev only what it is
 * given here: vdev.c opens and closes it and hears when it ended.
 */
#pragma once

#include <json-c/json.h>
#include <stdint.h>
#include <sys/socket.h>
#include <systemd/sd-event.h>

struct worker_set;
struct vdev_session;

/* What a session is given of its vdev, for its life. */
struct vdev_session_env {
	const char *name;            /* the vdev's, for the log */
	uint8_t mac[6];              /* the config space's */
	uint32_t max_qps, max_cqs;   /* max_rdma_qps, max_rdma_cqs */
	sd_event *event;
	struct worker_set *workers;  /* where the VM's device runs; NULL: no data path */
	int tap_fd;                  /* the TAP's (still the vdev's), -1: none */
	/* The front end went (or broke the protocol): the vdev closes the session from here. */
	void (*ended)(void *data);
	void *data;
};

/*
 * Serves the front end on fd (connected, nonblocking; the session's from now
 * on, closed on failure too), peer as SO_PEERCRED gave it.  0 or a negative
 * errno.
 */
int vdev_session_open(struct vdev_session **out, const struct vdev_session_env *env, int fd,
		      const struct ucred *peer);
/* Ends the session now (no callback); NULL is nothing. */
void vdev_session_close(struct vdev_session *s);
struct rdma_device;
/* The VM's device while the session lasts (its counters, for the vdev's record), or NULL. */
struct rdma_device *vdev_session_device(const struct vdev_session *s);
/* What the session adds to the vdev's "virtio" record (negotiated features, queues, counters...). */
void vdev_session_info(const struct vdev_session *s, struct json_object *o);
