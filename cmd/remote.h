/* SPDX-License-Identifier: MIT */
/*
 * The rdmad of another host (rdmactl -H, cmd/remote.c): ssh runs
 * `rdmactl --bridge` there (cmd/bridge.c), whose standard input and output
 * carry the varlink stream to that host's socket.  docs/decisions.md says
 * why a bridge and not a forwarded socket.
 */
#pragma once

#include "cmd/rdmactl.h"

struct varlink_client;

/* The ssh that -H starts, and the rdmactl it runs on the far host. */
#define RDMACTL_SSH_DEFAULT "ssh"
#define RDMACTL_REMOTE_DEFAULT "rdmactl"

/* HOST of -H or RDMACTL_HOST: [USER@]HOST, nothing ssh could take for an option. */
int ctl_remote_check_host(const char *host);
/*
 * Starts ssh to ctl->host running the bridge to ctl->socket_path there
 * (the remote default when it is rdmactl's default); says on stderr what
 * failed, naming the host.
 */
int ctl_remote_connect(struct ctl *ctl, struct varlink_client **client);
/*
 * What broke a remote connection (r from a call), in words that name the
 * host: ssh could not reach it, it has no rdmactl, its rdmad is down...
 * from how ssh ended.  Valid until the next call.
 */
const char *ctl_remote_talk_error(struct ctl *ctl, int r);

/* rdmactl --bridge: relays standard input and output to socket_path until either ends. */
int cmd_bridge_run(const char *socket_path);
