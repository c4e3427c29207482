/* SPDX-License-Identifier: MIT */
/*
 * Files that hold key material: DEK key files, import KEKs, the device's crypto
 * credential and wrapped login credentials.  Such a file must be a regular file
 * named by an absolute path, not a symbolic link, owned by root and closed to
 * group and others (mode 0600 or stricter).  The checks are made with fstat()
 * on the descriptor that is read, so the file checked is the file read.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "daemon/verbs/error.h"

/*
 * Reads the whole file at path into buf (at most max bytes; the caller's
 * memory, locked and wiped by the caller) and sets *len.  A file longer than
 * max is refused.  Errors are InvalidArgument naming field and saying what is
 * wrong with the file; no error ever holds a byte of its content.
 */
int keyfile_read(const char *path, const char *field, uint8_t *buf, size_t max, size_t *len,
		 struct rdma_error *err);
