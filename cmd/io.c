/* SPDX-License-Identifier: MIT */
/* Whole text files: the JSON some commands take from a file (MKEY configurations, WRs). */
#include "cmd/rdmactl.h"
#include "lib/io.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <stdlib.h>
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
