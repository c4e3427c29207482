/* SPDX-License-Identifier: MIT */
/* What a caller the daemon or the socket refused needs (cmd/permissions.c). */
#pragma once

#include "lib/varlink/varlink.h"

/*
 * For a call of method refused with org.varlink.service.PermissionDenied on
 * client's connection to socket_path: "needs root (socket PATH)" or "needs
 * root or group rdma (socket PATH)", as the daemon says
 * (io.rdmad.Daemon.GetAccess, asked on the same connection).  Allocated;
 * NULL when out of memory.
 */
char *ctl_denial_needs(struct varlink_client *client, const char *socket_path, const char *method);
/*
 * For a connection refused with EACCES: who may connect, from the socket
 * file's owner, group and mode ("needs root or group rdma (socket PATH is
 * root:rdma 0660)"), or the directory that is closed.  Allocated; NULL when
 * out of memory.
 */
char *ctl_connect_denial_needs(const char *socket_path);
