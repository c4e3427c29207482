/* SPDX-License-Identifier: MIT */
/* vdevs: their checks, sockets, TAPs and front ends (vdev.h). */
#include "daemon/vdev/vdev.h"
#include "daemon/vdev/vdev_session.h"
#include "daemon/vnic/netdev_linux.h"
#include "lib/log.h"
#include "lib/unix_listen.h"

#include <errno.h>
#include <fcntl.h>
#include <gcrypt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The socket's mode: root and the group of rdmad's own socket (docs/decisions.md). */
#define VDEV_SOCKET_MODE 0660

int vdev_set_new(struct vdev_set **out, sd_event *event, const char *own_socket)
{
	struct vdev_set *set = calloc(1, sizeof(*set));

	if (!set)
		return -ENOMEM;
	set->event = event;
	set->own_socket = own_socket;
	*out = set;
	return 0;
}

static void vdev_free(struct vdev *v)
{
	struct stat st;
	struct vdev **p;

	for (p = &v->set->list; *p && *p != v; p = &(*p)->next)
		;
	if (*p)
		*p = v->next;
	vdev_session_close(v->session);
	v->session = NULL;
	sd_event_source_disable_unref(v->listener);
	/* Only the file made: another one put there since is not ours to remove. */
	if (lstat(v->conf.socket, &st) == 0 && st.st_dev == v->socket_dev && st.st_ino == v->socket_ino)
		unlink(v->conf.socket);
	vnic_netdev_destroy(v->tap);
	free(v);
}

void vdev_set_free(struct vdev_set *set)
{
	if (!set)
		return;
	while (set->list)
		vdev_free(set->list);
	vnic_netdev_watch_free(set->taps);
	free(set);
}

static void tell(struct vdev *v, enum vdev_event event)
{
	if (v->set->on_event)
		v->set->on_event(v->set->userdata, v, event);
}

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-';
}

int vdev_check_name(const char *name, struct rdma_error *err)
{
	size_t n = strlen(name);

	for (size_t i = 0; i < n; i++)
		if (!name_char(name[i]))
			n = 0;
	if (n == 0 || n > VDEV_NAME_MAX)
		return rdma_error_invalid(err, "name", "1 to %d letters, digits, '_' or '-'", VDEV_NAME_MAX);
	return 0;
}

/* Absolute and plain: no empty, "." or ".." component, so one socket has one spelling. */
static int check_socket_path(const char *path, struct rdma_error *err)
{
	const char *c = path;

	if (path[0] != '/')
		return rdma_error_invalid(err, "socket", "an absolute path (it starts with '/')");
	if (strlen(path) > VDEV_SOCKET_MAX)
		return rdma_error_invalid(err, "socket", "a path of at most %zu bytes (a unix socket's)",
					  VDEV_SOCKET_MAX);
	while (*c == '/') {
		size_t len = strcspn(c + 1, "/");

		if (len == 0 || (len == 1 && c[1] == '.') || (len == 2 && c[1] == '.' && c[2] == '.'))
			return rdma_error_invalid(err, "socket", "a path to a file without empty, '.' or "
						  "'..' components");
		c += 1 + len;
	}
	return 0;
}

/* What the kernel takes as an interface name, kept to the characters that need no quoting. */
static int check_tap(const char *tap, struct rdma_error *err)
{
	size_t n = strlen(tap);

	for (size_t i = 0; i < n; i++)
		if (!name_char(tap[i]) && tap[i] != '.')
			n = 0;
	if (n == 0 || n > VDEV_TAP_MAX || strcmp(tap, ".") == 0 || strcmp(tap, "..") == 0)
		return rdma_error_invalid(err, "tap", "an interface name of 1 to %d letters, digits, "
					  "'_', '-' or '.'", VDEV_TAP_MAX);
	return 0;
}

static int check_limit(const char *field, uint32_t value, uint32_t min, uint32_t max,
		       struct rdma_error *err)
{
	if (value < min || value > max)
		return rdma_error_invalid(err, field, "from %u to %u", min, max);
	return 0;
}

/* The device's queues, numbered in vhost-user's 8 bits. */
static int check_queues(const struct vdev_config *conf, struct rdma_error *err)
{
	uint32_t n = VDEV_QUEUES(conf->max_qps, conf->max_cqs);

	if (n > VDEV_QUEUES_MAX)
		return rdma_error_invalid(err, "max_qps", "%u with max_cqs %u makes 3 + max_cqs + "
					  "2 x max_qps = %u virtqueues; vhost-user numbers %u at most",
					  conf->max_qps, conf->max_cqs, n, VDEV_QUEUES_MAX);
	return 0;
}

/* A guest's own address: unicast, and not all zeros. */
static int check_mac(const uint8_t mac[6], struct rdma_error *err)
{
	static const uint8_t zero[6];

	if ((mac[0] & 1) || memcmp(mac, zero, 6) == 0)
		return rdma_error_invalid(err, "mac", "a unicast MAC address, not 00:00:00:00:00:00 (the "
					  "first byte even), as xx:xx:xx:xx:xx:xx");
	return 0;
}

static int check_config(const struct vdev_config *conf, struct rdma_error *err)
{
	int r = vdev_check_name(conf->name, err);

	if (r == 0)
		r = check_socket_path(conf->socket, err);
	if (r == 0 && conf->has_mac)
		r = check_mac(conf->mac, err);
	if (r == 0 && conf->tap[0])
		r = check_tap(conf->tap, err);
	if (r == 0)
		r = check_limit("max_qps", conf->max_qps, VDEV_QPS_MIN, VDEV_QPS_MAX, err);
	if (r == 0)
		r = check_limit("max_cqs", conf->max_cqs, VDEV_CQS_MIN, VDEV_CQS_MAX, err);
	if (r == 0)
		r = check_queues(conf, err);
	return r;
}

void vdev_derive_mac(const char *name, uint8_t mac[6])
{
	uint8_t digest[32];
	char text[sizeof("rdmad vdev ") + VDEV_NAME_MAX];

	snprintf(text, sizeof(text), "rdmad vdev %s", name);
	gcry_md_hash_buffer(GCRY_MD_SHA256, digest, text, strlen(text));
	memcpy(mac, digest, 6);
	/* Locally administered (bit 1), unicast (bit 0 clear): no vendor's, nobody's group. */
	mac[0] = (uint8_t)((mac[0] & 0xfc) | 0x02);
}

struct vdev *vdev_find(const struct vdev_set *set, const char *name)
{
	for (struct vdev *v = set->list; v; v = v->next)
		if (strcmp(v->conf.name, name) == 0)
			return v;
	return NULL;
}

const char *vdev_state_word(const struct vdev *v)
{
	return v->session ? "connected" : "listening";
}

/* What another vdev or rdmad already has: -EEXIST (name), -EADDRINUSE (socket), -EINVAL (tap). */
static int check_free(const struct vdev_set *set, const struct vdev_config *conf,
		      struct rdma_error *err)
{
	if (vdev_find(set, conf->name))
		return -EEXIST;
	if (set->own_socket && strcmp(conf->socket, set->own_socket) == 0) {
		rdma_error_invalid(err, "socket", "rdmad's own varlink socket");
		return -EADDRINUSE;
	}
	for (struct vdev *v = set->list; v; v = v->next) {
		if (strcmp(v->conf.socket, conf->socket) == 0) {
			rdma_error_invalid(err, "socket", "vdev %s's socket", v->conf.name);
			return -EADDRINUSE;
		}
		if (conf->tap[0] && strcmp(v->conf.tap, conf->tap) == 0)
			return rdma_error_invalid(err, "tap", "an interface no vdev has (vdev %s has %s)",
						  v->conf.name, conf->tap);
	}
	return 0;
}

static uint64_t realtime_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* The process's name from /proc, as ps shows it; "" when it is gone already. */
static void read_comm(pid_t pid, char comm[16])
{
	char path[64];
	ssize_t n = -1;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, comm, 15);
		close(fd);
	}
	comm[n > 0 ? n : 0] = '\0';
	comm[strcspn(comm, "\n")] = '\0';
}

/* The TAP's carrier says whether a guest is there to take its frames. */
static void set_carrier(struct vdev *v, bool on)
{
	if (v->tap && vnic_netdev_set_carrier(v->tap, on) < 0)
		log_warning("vdev %s: the carrier of %s stays %s", v->conf.name, v->conf.tap,
			    on ? "off" : "on");
}

/* The session's end (the front end hung up or broke the protocol): the vdev listens again. */
static void session_ended(void *data)
{
	struct vdev *v = data;

	log_info("vdev %s: front end pid %d went away; listening again", v->conf.name,
		 (int)v->front_end.pid);
	/* Told while the front end is still known, so the event says whose it was. */
	tell(v, VDEV_EVENT_DISCONNECTED);
	vdev_session_close(v->session);
	v->session = NULL;
	set_carrier(v, false);
	memset(&v->front_end, 0, sizeof(v->front_end));
}

static int on_accept(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct vdev *v = userdata;
	struct vdev_session_env env;
	struct ucred peer = { 0 };
	socklen_t len = sizeof(peer);
	int cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC), r;

	if (cfd < 0)
		return 0;
	if (getsockopt(cfd, SOL_SOCKET, SO_PEERCRED, &peer, &len) < 0) {
		log_warning_errno(-errno, "vdev %s: a connection without credentials; closed", v->conf.name);
		close(cfd);
		return 0;
	}
	/* One front end at a time: a second QEMU would fight the first for the device. */
	if (v->session) {
		v->refused++;
		log_warning("vdev %s: connection of pid %d refused: pid %d is its front end", v->conf.name,
			    (int)peer.pid, (int)v->front_end.pid);
		close(cfd);
		return 0;
	}
	v->front_end = (struct vdev_front_end){
		.pid = peer.pid, .uid = peer.uid, .started_usec = realtime_usec(),
	};
	read_comm(peer.pid, v->front_end.comm);
	env = (struct vdev_session_env){
		.name = v->conf.name, .max_qps = v->conf.max_qps, .max_cqs = v->conf.max_cqs,
		.event = v->set->event, .workers = v->set->workers,
		.tap_fd = v->tap ? vnic_netdev_fd(v->tap) : -1,
		.ended = session_ended, .data = v,
	};
	memcpy(env.mac, v->conf.mac, sizeof(env.mac));
	r = vdev_session_open(&v->session, &env, cfd, &peer);
	if (r < 0) {
		log_error_errno(r, "vdev %s: cannot serve the front end pid %d", v->conf.name, (int)peer.pid);
		return 0;
	}
	v->accepted++;
	set_carrier(v, true);
	log_info("vdev %s: front end pid %d (%s, uid %u) connected", v->conf.name, (int)peer.pid,
		 v->front_end.comm, (unsigned)peer.uid);
	tell(v, VDEV_EVENT_CONNECTED);
	return 0;
}


/* The group of rdmad's own socket, or -1 when it has none yet (ours then, as that one's will be). */
static gid_t socket_group(const struct vdev_set *set)
{
	struct stat st;

	if (set->own_socket && stat(set->own_socket, &st) == 0 && S_ISSOCK(st.st_mode))
		return st.st_gid;
	return (gid_t)-1;
}

/* The listening socket at conf->socket, watched; a refusal names the field "socket". */
static int listen_socket(struct vdev *v, struct rdma_error *err)
{
	int fd = unix_listen_path(v->conf.socket, VDEV_SOCKET_MODE), r;
	gid_t gid = socket_group(v->set);
	struct stat st;

	if (fd == -EADDRINUSE) {
		rdma_error_invalid(err, "socket", "something answers on it");
		return fd;
	}
	if (fd == -EEXIST)
		return rdma_error_invalid(err, "socket", "a path that is free or a socket (it is a file "
					  "of another type)");
	if (fd == -ENOENT || fd == -ENOTDIR || fd == -EACCES || fd == -EROFS)
		return rdma_error_invalid(err, "socket", "a path in a directory rdmad can write (%s)",
					  strerror(-fd));
	if (fd < 0)
		return rdma_error_system(err, fd);
	if (fstat(fd, &st) == 0 && lstat(v->conf.socket, &st) == 0) {
		v->socket_dev = st.st_dev;
		v->socket_ino = st.st_ino;
	}
	if (gid != (gid_t)-1 && chown(v->conf.socket, (uid_t)-1, gid) < 0)
		log_warning_errno(-errno, "vdev %s: cannot give %s the group of %s", v->conf.name,
				  v->conf.socket, v->set->own_socket);
	r = sd_event_add_io(v->set->event, &v->listener, fd, EPOLLIN, on_accept, v);
	if (r < 0) {
		close(fd);
		return rdma_error_system(err, r);
	}
	sd_event_source_set_io_fd_own(v->listener, 1);
	return 0;
}

static int make_tap(struct vdev *v, struct rdma_error *err)
{
	static const struct vnic_netdev_options opts = { .vnet_hdr_len = VDEV_VNET_HDR_LEN };
	int r;

	if (!v->set->taps) {
		r = vnic_netdev_watch_new(&v->set->taps, v->set->event, 0);
		if (r < 0)
			return rdma_error_system(err, r);
	}
	/* Its carrier is off until a front end connects (on_accept). */
	r = vnic_netdev_create_opts(&v->tap, v->set->taps, v->conf.tap, &opts, NULL, v);
	if (r == -EBUSY || r == -EEXIST)
		return rdma_error_invalid(err, "tap", "a name no interface has (%s exists)", v->conf.tap);
	if (r == -EPERM || r == -EACCES)
		return rdma_error_invalid(err, "tap", "given only when rdmad may make TAP interfaces "
					  "(CAP_NET_ADMIN)");
	if (r < 0)
		return rdma_error_system(err, r);
	return 0;
}

int vdev_create(struct vdev_set *set, struct rdma_device *dev, const struct vdev_config *conf,
		struct vdev **out, struct rdma_error *err)
{
	struct vdev *v, **p;
	int r = check_config(conf, err);

	if (r == 0)
		r = check_free(set, conf, err);
	if (r < 0)
		return r;
	v = calloc(1, sizeof(*v));
	if (!v)
		return rdma_error_system(err, -ENOMEM);
	v->set = set;
	v->dev = dev;
	v->conf = *conf;
	if (!conf->has_mac)
		vdev_derive_mac(conf->name, v->conf.mac);
	v->pending = VDEV_CREATING;
	for (p = &set->list; *p; p = &(*p)->next)
		;
	*p = v;
	r = listen_socket(v, err);
	if (r == 0 && conf->tap[0])
		r = make_tap(v, err);
	if (r < 0) {
		vdev_free(v);
		return r;
	}
	*out = v;
	return 0;
}

void vdev_destroy_begin(struct vdev *v)
{
	v->pending = VDEV_DESTROYING;
}

void vdev_settle(struct vdev *v)
{
	enum vdev_pending was = v->pending;

	v->pending = VDEV_SETTLED;
	if (was == VDEV_CREATING) {
		log_info("vdev %s: listening on %s", v->conf.name, v->conf.socket);
		tell(v, VDEV_EVENT_CREATED);
	} else if (was == VDEV_DESTROYING) {
		/* Its front end is cut off: said as when it goes by itself. */
		if (v->session)
			tell(v, VDEV_EVENT_DISCONNECTED);
		log_info("vdev %s destroyed", v->conf.name);
		tell(v, VDEV_EVENT_DESTROYED);
		vdev_free(v);
	}
}

void vdev_undo(struct vdev *v)
{
	if (v->pending == VDEV_CREATING)
		vdev_free(v);
	else
		v->pending = VDEV_SETTLED;
}
