/* SPDX-License-Identifier: MIT */
#include "daemon/verbs/keyfile.h"
#include "lib/io.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int open_error(const char *path, const char *field, int e, struct rdma_error *err)
{
	switch (e) {
	case ENOENT:
		return rdma_error_invalid(err, field, "%s does not exist", path);
	case ELOOP:
		return rdma_error_invalid(err, field, "%s is a symbolic link; name the file itself",
					  path);
	case ENXIO:
		/* What open() says of a socket, and of a device without its driver. */
		return rdma_error_invalid(err, field, "%s is not a regular file", path);
	default:
		return rdma_error_invalid(err, field, "%s cannot be opened: %s", path, strerror(e));
	}
}

static int check_file(const char *path, const char *field, const struct stat *st,
		      struct rdma_error *err)
{
	if (!S_ISREG(st->st_mode))
		return rdma_error_invalid(err, field, "%s is not a regular file", path);
	if (st->st_uid != 0)
		return rdma_error_invalid(err, field, "%s is owned by uid %u; key files must be owned "
					  "by root", path, (unsigned)st->st_uid);
	if (st->st_mode & 077)
		return rdma_error_invalid(err, field, "%s has mode %04o; key files must be mode 0600 "
					  "or stricter (nothing for group and others)", path,
					  (unsigned)(st->st_mode & 07777));
	return 0;
}

static int read_error(const char *path, const char *field, size_t max, int r,
		      struct rdma_error *err)
{
	if (r == -EFBIG)
		return rdma_error_invalid(err, field, "%s holds more than %zu bytes, more than "
					  "any key", path, max);
	return rdma_error_invalid(err, field, "%s cannot be read: %s", path, strerror(-r));
}

int keyfile_read(const char *path, const char *field, uint8_t *buf, size_t max, size_t *len,
		 struct rdma_error *err)
{
	struct stat st;
	int fd, r;

	*len = 0;
	if (path[0] != '/')
		return rdma_error_invalid(err, field, "'%s' is not an absolute path", path);
	/* O_NONBLOCK: a FIFO must not hang the daemon before fstat() refuses it. */
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return open_error(path, field, errno, err);
	if (fstat(fd, &st) < 0)
		r = rdma_error_invalid(err, field, "%s cannot be examined: %s", path, strerror(errno));
	else
		r = check_file(path, field, &st, err);
	if (r == 0) {
		r = read_all(fd, buf, max, len);
		if (r < 0) {
			*len = 0;
			r = read_error(path, field, max, r, err);
		}
	}
	close(fd);
	return r;
}
