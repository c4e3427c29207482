/* SPDX-License-Identifier: MIT */
/*
 * What the daemon's users of libnl share (the RoCE GID table following its
 * interface's addresses, the VNIC ports following their interfaces): libnl's
 * error codes as errno values, and a socket that hears rtnetlink
 * notifications without blocking the event loop.
 */
#pragma once

#include <stdbool.h>
#include <netlink/netlink.h>
#include <netlink/handlers.h>

/* libnl's NLE_* code (either sign) as a negative errno; -EIO for one with no like. */
int netlink_errno(int nle);

/*
 * A nonblocking NETLINK_ROUTE socket in the n_groups multicast groups
 * (RTNLGRP_*), whose valid messages go to on_msg(msg, arg), with a receive
 * buffer that makes an overrun in a burst rare.  *sock and *cb are set as
 * far as they were made (for nl_socket_free() and nl_cb_put() either way);
 * 0 or -errno.
 */
int netlink_notify_open(struct nl_sock **sock, struct nl_cb **cb, const unsigned *groups,
			unsigned n_groups, nl_recvmsg_msg_cb_t on_msg, void *arg);

/*
 * Reads sock until it is empty, each message to cb.  *overrun tells whether
 * notifications were lost (the kernel's ENOBUFS): then what they were about
 * must be read again.  0, or the -errno of a failed read.
 */
int netlink_notify_read(struct nl_sock *sock, struct nl_cb *cb, bool *overrun);
