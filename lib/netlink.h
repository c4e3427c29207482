/* SPDX-License-Identifier: MIT */
/*
 * What the daemon's users of libnl share (the RoCE GID table following its
 * interface's addresses, the VNIC ports following their interfaces): libnl's
 * error codes as errno values.
 */
#pragma once

/* libnl's NLE_* code (either sign) as a negative errno; -EIO for one with no like. */
int netlink_errno(int nle);
