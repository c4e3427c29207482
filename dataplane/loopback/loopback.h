/* SPDX-License-Identifier: MIT */
/*
 * The loopback transport (dataplane/transport.h): requests and responses
 * between QPs of one NIC, a call on one worker, a queue each way between
 * two.
 */
#pragma once

struct dp_nic;

/*
 * Driver: the NIC's local transport from now on, polled by each of its
 * workers; before any QP runs.  It goes with the NIC (dp_nic_release).
 */
int dp_loopback_open(struct dp_nic *nic);
