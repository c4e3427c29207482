/* SPDX-License-Identifier: MIT */
/* The top of the command tree; each object's table lives in its own file. */
#include "cmd/rdmactl.h"

const struct cmd cmd_root[] = {
	{ .name = "status", .summary = "Show the daemon's version, uptime and devices",
	  .run = cmd_status_run },
	{ .name = "dev", .summary = "Show devices, their ports and offload capabilities",
	  .sub = cmd_dev },
	{ .name = "pd", .summary = "Create, show and destroy protection domains", .sub = cmd_pd },
	{ .name = "mr", .summary = "Memory regions: create, show, destroy, read and write bytes",
	  .sub = cmd_mr },
	{ .name = "cq", .summary = "Completion queues: create, show, destroy, arm notification",
	  .sub = cmd_cq },
	{ .name = "qp", .summary = "Queue pairs: create, move through the state machine, show, destroy",
	  .sub = cmd_qp },
	{ .name = "ah", .summary = "Address handles: create, show, destroy", .sub = cmd_ah },
	{ .name = "gid", .summary = "The ports' GID tables: add, show, delete entries",
	  .sub = cmd_gid },
	{ .name = "mkey", .summary = "Indirect MKEYs: signature and crypto offloads, check, transfers",
	  .sub = cmd_mkey },
	{ .name = "pool", .summary = "MKEY pools: create, resize, show counters, destroy",
	  .sub = cmd_pool },
	{ .name = "dek", .summary = "Data encryption keys for AES-XTS MKEYs, and the crypto login",
	  .sub = cmd_dek },
	{ .name = "offload", .summary = "Run one MKEY transform on local bytes, without the daemon",
	  .sub = cmd_offload },
	{ .name = "monitor", .summary = "Print device events as they happen, until interrupted",
	  .args = cmd_monitor_args, .run = cmd_monitor_run },
	{ .name = "daemon", .summary = "Reload the daemon's configuration, set its log level",
	  .sub = cmd_daemon },
	{ NULL },
};
