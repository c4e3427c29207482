/* SPDX-License-Identifier: MIT */
/*
 * A vdev's session with its front end: the one connection vdev.c accepted.
 * What the session does on it is the vhost-user protocol's (the device of
 * issue 28); vdev.c knows only these three calls and vdev_session_ended().
 */
#pragma once

#include <json-c/json.h>
#include <sys/socket.h>

struct vdev;

/*
 * Serves the front end on fd (connected, nonblocking; the session's from now
 * on, closed on failure too), peer as SO_PEERCRED gave it; sets v->session.
 * 0 or a negative errno.  When the front end goes, the session calls
 * vdev_session_ended(v).
 */
int vdev_session_open(struct vdev *v, int fd, const struct ucred *peer);
/* Ends v's session now (vdev destroyed, rdmad stopping); no callback. */
void vdev_session_close(struct vdev *v);
/* What the session adds to the vdev's "virtio" record (negotiated features, queues, counters...). */
void vdev_session_info(const struct vdev *v, struct json_object *o);
