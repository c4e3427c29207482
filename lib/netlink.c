/* SPDX-License-Identifier: MIT */
/* libnl errors as errno values (see netlink.h). */
#include "lib/netlink.h"

#include <errno.h>
#include <stddef.h>
#include <netlink/errno.h>

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
