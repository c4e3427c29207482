/* SPDX-License-Identifier: MIT */
/* Bytes from standard input and files, for the commands that move data. */
#include "cmd/rdmactl.h"

#include <errno.h>
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
		return -EFBIG;
	}
	*out = buf;
	*len = n;
	return 0;
}
