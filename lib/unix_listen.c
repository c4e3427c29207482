/* SPDX-License-Identifier: MIT */
#include "lib/unix_listen.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

/* A socket file nobody answers on is left over from a dead process. */
static int socket_path_in_use(const struct sockaddr_un *addr, socklen_t len)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int r;

	if (fd < 0)
		return -errno;
	r = connect(fd, (const struct sockaddr *)addr, len) == 0 ? 1 : 0;
	close(fd);
	return r;
}

/* Binds fd to addr; a stale socket file there is replaced, anything else is not. */
static int bind_replacing_stale(int fd, const struct sockaddr_un *addr, socklen_t len)
{
	struct stat st;
	int r;

	if (bind(fd, (const struct sockaddr *)addr, len) == 0)
		return 0;
	if (errno != EADDRINUSE)
		return -errno;
	if (lstat(addr->sun_path, &st) < 0 || !S_ISSOCK(st.st_mode))
		return -EEXIST;
	r = socket_path_in_use(addr, len);
	if (r != 0)
		return r < 0 ? r : -EADDRINUSE;
	unlink(addr->sun_path);
	return bind(fd, (const struct sockaddr *)addr, len) < 0 ? -errno : 0;
}

int unix_listen_path(const char *path, mode_t mode)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	socklen_t len;
	mode_t old_umask;
	int fd, r;

	if (strlen(path) >= sizeof(addr.sun_path))
		return -ENAMETOOLONG;
	strcpy(addr.sun_path, path);
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	old_umask = umask(~mode & 0777);
	r = bind_replacing_stale(fd, &addr, len);
	umask(old_umask);
	if (r == 0 && listen(fd, SOMAXCONN) < 0)
		r = -errno;
	if (r < 0) {
		close(fd);
		return r;
	}
	return fd;
}
