/* SPDX-License-Identifier: MIT */
/* libnl errors as errno values, and rtnetlink notification sockets (see netlink.h). */
#include "lib/netlink.h"

#include <errno.h>
#include <stddef.h>
#include <netlink/errno.h>
#include <netlink/socket.h>

/* Notifications come in bursts; a big receive buffer makes an overrun rare (and harmless). */
#define NOTIFY_RCVBUF (1 << 20)

int netlink_errno(int nle)
{
	static const int map[][2] = {
		{ NLE_INTR, EINTR },		{ NLE_BAD_SOCK, EBADF },
		{ NLE_AGAIN, EAGAIN },		{ NLE_NOMEM, ENOMEM },
		{ NLE_EXIST, EEXIST },		{ NLE_INVAL, EINVAL },
		{ NLE_RANGE, ERANGE },		{ NLE_MSGSIZE, EMSGSIZE },
		{ NLE_OPNOTSUPP, EOPNOTSUPP },	{ NLE_AF_NOSUPPORT, EAFNOSUPPORT },
		{ NLE_OBJ_NOTFOUND, ENODEV },	{ NLE_NOATTR, ENODATA },
		{ NLE_BUSY, EBUSY },		{ NLE_PERM, EPERM },
		{ NLE_NOACCESS, EACCES },	{ NLE_NODEV, ENODEV },
		{ NLE_MSG_TRUNC, EMSGSIZE },	{ NLE_PROTO_MISMATCH, EPROTONOSUPPORT },
	};

	if (nle < 0)
		nle = -nle;
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (map[i][0] == nle)
			return -map[i][1];
	return -EIO;
}

int netlink_notify_open(struct nl_sock **sock, struct nl_cb **cb, const unsigned *groups,
			unsigned n_groups, nl_recvmsg_msg_cb_t on_msg, void *arg)
{
	struct nl_sock *s = nl_socket_alloc();
	int r;

	*sock = s;
	*cb = NULL;
	if (!s)
		return -ENOMEM;
	/* Notifications come unasked: no sequence number to match. */
	nl_socket_disable_seq_check(s);
	r = nl_socket_modify_cb(s, NL_CB_VALID, NL_CB_CUSTOM, on_msg, arg);
	if (r >= 0)
		r = nl_connect(s, NETLINK_ROUTE);
	for (unsigned i = 0; r >= 0 && i < n_groups; i++)
		r = nl_socket_add_membership(s, (int)groups[i]);
	if (r >= 0)
		r = nl_socket_set_nonblocking(s);
	if (r >= 0)
		r = nl_socket_set_buffer_size(s, NOTIFY_RCVBUF, 0);
	if (r < 0)
		return netlink_errno(r);
	*cb = nl_socket_get_cb(s);
	return *cb ? 0 : -ENOMEM;
}

int netlink_notify_read(struct nl_sock *sock, struct nl_cb *cb, bool *overrun)
{
	int r;

	*overrun = false;
	/* Until the nonblocking socket is empty: -NLE_AGAIN (or 0, by libnl version). */
	do {
		r = nl_recvmsgs_report(sock, cb);
		if (r == -NLE_NOMEM) {	/* ENOBUFS: notifications were lost */
			*overrun = true;
			r = 1;
		}
	} while (r > 0);
	return r < 0 && r != -NLE_AGAIN ? netlink_errno(r) : 0;
}
