/* SPDX-License-Identifier: MIT */
/*
 * The session as it is until the vhost-user protocol is served here: it
 * holds the front end's connection and watches it, and ends when the front
 * end hangs up, or sends anything, since nothing here reads it: a front end
 * that talks and gets no answer would wait for ever.
 */
#include "daemon/vdev/vdev_session.h"
#include "daemon/vdev/vdev.h"
#include "lib/log.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>

struct vdev_session {
	struct vdev *vdev;
	sd_event_source *source;     /* owns the connection */
};

static int on_io(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct vdev_session *session = userdata;
	char byte;
	ssize_t n = recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);

	if (n < 0 && (errno == EAGAIN || errno == EINTR) && !(revents & (EPOLLHUP | EPOLLERR)))
		return 0;
	if (n > 0)
		log_warning("vdev %s: the front end sent a message; the vhost-user protocol is not "
			    "served yet, closing its connection", session->vdev->conf.name);
	vdev_session_ended(session->vdev);
	return 0;
}

int vdev_session_open(struct vdev *v, int fd, const struct ucred *peer)
{
	struct vdev_session *session = calloc(1, sizeof(*session));
	int r;

	(void)peer;
	if (!session) {
		close(fd);
		return -ENOMEM;
	}
	session->vdev = v;
	r = sd_event_add_io(v->set->event, &session->source, fd, EPOLLIN | EPOLLRDHUP, on_io, session);
	if (r < 0) {
		close(fd);
		free(session);
		return r;
	}
	sd_event_source_set_io_fd_own(session->source, 1);
	v->session = session;
	return 0;
}

void vdev_session_close(struct vdev *v)
{
	struct vdev_session *session = v->session;

	if (!session)
		return;
	v->session = NULL;
	/* The source may be the one running (on_io -> vdev_session_ended): sd-event allows that. */
	sd_event_source_disable_unref(session->source);
	free(session);
}

void vdev_session_info(const struct vdev *v, struct json_object *o)
{
	(void)v;
	(void)o;
}
