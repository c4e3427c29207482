/* SPDX-License-Identifier: MIT */
#include "lib/io.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Fills buf unless the end of the file comes first: *len < cap means the end was reached. */
static int read_full(int fd, uint8_t *buf, size_t cap, size_t *len)
{
	size_t n = 0;

	while (n < cap) {
		ssize_t got = read(fd, buf + n, cap - n);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			*len = n;
			return -errno;
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	*len = n;
	return 0;
}

int read_all(int fd, void *buf, size_t cap, size_t *len)
{
	uint8_t extra;
	size_t more;
	int r;

	r = read_full(fd, buf, cap, len);
	if (r < 0 || *len < cap)
		return r;
	r = read_full(fd, &extra, 1, &more);
	explicit_bzero(&extra, sizeof(extra));
	if (r < 0)
		return r;
	return more ? -EFBIG : 0;
}

int read_all_alloc(int fd, size_t max, uint8_t **out, size_t *len)
{
	size_t cap = 0, n = 0, got;
	uint8_t *buf = NULL;
	int r;

	do {
		uint8_t *grown;

		if (n > max) {
			free(buf);
			*len = n;
			return -EFBIG;
		}
		/* + 1: room for the NUL whatever the end */
		cap = cap ? cap * 2 : 65536;
		grown = realloc(buf, cap + 1);
		if (!grown) {
			free(buf);
			return -ENOMEM;
		}
		buf = grown;
		r = read_full(fd, buf + n, cap - n, &got);
		if (r < 0) {
			free(buf);
			return r;
		}
		n += got;
	} while (n == cap);
	if (n > max) {
		free(buf);
		*len = n;
		return -EFBIG;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

int write_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}
