/* SPDX-License-Identifier: MIT */
/*
 * Whole reads and writes on a file descriptor: the loops that retry EINTR and
 * short transfers, written once for the daemon and rdmactl.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

/*
 * Reads fd to its end into buf (cap bytes) and sets *len.  -EFBIG when fd holds
 * more than cap bytes (*len = cap): the byte that shows it is read past buf into
 * a wiped scratch byte, so key material lands nowhere but in buf.  -errno when
 * a read fails.
 */
int read_all(int fd, void *buf, size_t cap, size_t *len);

/*
 * Reads fd to its end into a malloc'ed buffer, NUL-terminated so that text can
 * be used as a string.  Past max: -EFBIG, with *len the bytes read so far (more
 * than max, not necessarily all).  -ENOMEM, -errno.
 */
int read_all_alloc(int fd, size_t max, uint8_t **out, size_t *len);

/* Writes all len bytes, retrying EINTR and short writes.  0 or -errno. */
int write_all(int fd, const void *buf, size_t len);
