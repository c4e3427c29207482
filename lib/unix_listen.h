/* SPDX-License-Identifier: MIT */
/*
 * A listening AF_UNIX stream socket at a path, as rdmad makes its own varlink
 * socket and each vdev's vhost-user socket: the file made with mode (umask
 * aside), and a socket file left by a process that died replaced, but only
 * when nobody answers on it.
 */
#pragma once

#include <sys/types.h>

/*
 * A nonblocking, close-on-exec listening socket bound to path: its fd, or
 * -ENAMETOOLONG (path does not fit sun_path), -EEXIST (path exists and is not
 * a socket), -EADDRINUSE (something answers on it), -errno.
 */
int unix_listen_path(const char *path, mode_t mode);
