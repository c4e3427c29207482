/* SPDX-License-Identifier: MIT */
/* rdmactl status: the facts gathered once (status_gather.c), printed as text or JSON. */
#pragma once

#include "cmd/rdmactl.h"

/*
 * io.rdmad.Daemon.GetStatus's reply with, added, "device_status" (for each
 * device: ports, objects by kind, QPs by state, pools, DEKs, crypto login,
 * recoveries) and "problems" (what needs a person).  0 or a negative errno,
 * said on stderr.
 */
int status_gather(struct ctl *ctl, const char *path, struct json_object **doc);
/* The document as people read it: one block of "label: value" lines, then one per device. */
void status_print_text(struct json_object *doc);
