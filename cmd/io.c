/* SPDX-License-Identifier: MIT */
/*
 * rdmactl's input files: the whole text some commands take from a file (MKEY
 * configurations, WRs), and the pieces of the bytes long operations stream.
 */
#include "cmd/rdmactl.h"
#include "lib/io.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
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

int ctl_read_json_file(const char *cmd_path, const char *option, const char *path, size_t max,
		       json_type want, struct json_object **value)
{
	bool is_stdin = strcmp(path, "-") == 0;
	struct json_tokener *tok;
	struct json_object *v;
	enum json_tokener_error e;
	char *text = NULL;
	size_t len, used;
	int r;

	*value = NULL;
	r = ctl_read_text_file(is_stdin ? "/dev/stdin" : path, max, &text);
	if (r == -EILSEQ)
		return ctl_usage_error("%s: %s %s: holds a NUL byte: not a JSON text", cmd_path, option, path);
	if (r == -EFBIG)
		return ctl_usage_error("%s: %s %s: larger than %zu bytes", cmd_path, option, path, max);
	if (r < 0)
		return ctl_fail("%s: %s %s: %s", cmd_path, option, path, strerror(-r));
	len = strlen(text);
	tok = json_tokener_new();
	if (!tok) {
		free(text);
		return ctl_fail("%s: out of memory", cmd_path);
	}
	v = json_tokener_parse_ex(tok, text, (int)len);
	e = json_tokener_get_error(tok);
	used = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (!v || e != json_tokener_success) {
		r = ctl_usage_error("%s: %s %s: not JSON: %s, near byte %zu", cmd_path, option, path,
				    e == json_tokener_continue ? "it ends early" : json_tokener_error_desc(e),
				    used);
	} else if (strspn(text + used, " \t\r\n") != len - used) {
		r = ctl_usage_error("%s: %s %s: more after its JSON value, at byte %zu", cmd_path, option,
				    path, used);
	} else if (!json_object_is_type(v, want)) {
		r = ctl_usage_error("%s: %s %s: must be a JSON %s, not %s", cmd_path, option, path,
				    json_type_to_name(want), json_type_to_name(json_object_get_type(v)));
	} else {
		*value = v;
		v = NULL;
	}
	json_object_put(v);
	free(text);
	return r;
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
