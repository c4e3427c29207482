/* SPDX-License-Identifier: MIT */
/*
 * rdmactl's input files: the whole text some commands take from a file (MKEY
 * configurations, WRs), and the pieces of the bytes long operations stream.
 */
#include "cmd/rdmactl.h"
#include "lib/io.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

int ctl_read_text_file(const char *path, size_t max, char **text)
{
	uint8_t *data;
	size_t len;
	int fd, r;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = read_all_alloc(fd, max, &data, &len);
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

int ctl_read_chunk(int fd, uint8_t *buf, size_t cap, size_t *got)
{
	*got = 0;
	while (*got < cap) {
		ssize_t n = read(fd, buf + *got, cap - *got);

		/* No retry on EINTR: in the shell it is Ctrl-C, which stops the command. */
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		*got += (size_t)n;
	}
	return 0;
}

bool ctl_input_size(int fd, uint64_t *size)
{
	struct stat st;
	off_t at;

	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return false;
	at = lseek(fd, 0, SEEK_CUR);
	if (at < 0 || at > st.st_size)
		return false;
	*size = (uint64_t)(st.st_size - at);
	return true;
}
