/* SPDX-License-Identifier: MIT */
/* Bytes from standard input and files, for the commands that move data. */
#include "cmd/rdmactl.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

int ctl_read_fd(int fd, size_t max, uint8_t **out, size_t *len)
{
	size_t cap = 0, n = 0;
	uint8_t *buf = NULL;

	for (;;) {
		ssize_t got;

		if (n == cap) {
			uint8_t *grown;

			if (n > max) {
				free(buf);
				*len = n;
				return -EFBIG;
			}
			cap = cap ? cap * 2 : 65536;
			grown = realloc(buf, cap);
			if (!grown) {
				free(buf);
				return -ENOMEM;
			}
			buf = grown;
		}
		got = read(fd, buf + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			int e = -errno;

			free(buf);
			return e;
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	if (n > max) {
		free(buf);
		*len = n;
		return -EFBIG;
	}
	/* Room for the NUL that lets text callers use the bytes as a string. */
	if (n == cap) {
		uint8_t *grown = realloc(buf, n + 1);

		if (!grown) {
			free(buf);
			return -ENOMEM;
		}
		buf = grown;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

int ctl_read_text_file(const char *path, size_t max, char **text)
{
	uint8_t *data;
	size_t len;
	int fd, r;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = ctl_read_fd(fd, max, &data, &len);
	close(fd);
	if (r < 0)
		return r;
	if (memchr(data, '\0', len)) {
		free(data);
		return -EILSEQ;
	}
	*text = (char *)data;
	return 0;
}
