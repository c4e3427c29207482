/* SPDX-License-Identifier: MIT */
/* The daemon's one object: event loop, varlink server, devices, settings. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

#include "daemon/core/config.h"
#include "daemon/core/state.h"
#include "daemon/core/trim.h"
#include "daemon/verbs/device.h"
#include "lib/cpulist.h"

#define RDMAD_SOCKET_PATH "/run/rdmad/io.rdmad"
#define RDMAD_STATE_DIR   "/var/lib/rdmad"
#define RDMAD_MAX_DEVICES 8
/* Whose members may call the methods that only read (rdmad-varlink(7) AUTHORIZATION). */
#define RDMAD_READ_GROUP  "rdma"

struct varlink_server;
struct worker_set;
struct api_monitor;
struct commit;
struct helper;
struct vnic_service;
struct vdev_set;
struct gid_netlink;
struct json_object;

struct manager_options {
	const char *socket_path;
	const char *state_dir;
	const char *config_path;
	int log_level;            /* -1: from the configuration */
	const char *cpus;         /* CPU list for the workers; NULL: every allowed CPU */
};

struct manager {
	sd_event *event;
	struct varlink_server *varlink;
	struct rdmad_config config;
	char *socket_path;
	char *state_dir;
	char *config_path;
	bool config_read;         /* config_path existed at start or at the last reload */
	int log_level_override;   /* what wins over rdmad.conf: --log-level, else the saved level */
	int log_level_cmdline;    /* rdmad --log-level; -1: not given */
	int log_level_set;        /* by SetLogLevel, kept in the state directory; -1: never */
	int log_level_saved;      /* log_level_set as the settings file holds it */
	uint64_t log_level_changes;  /* SetLogLevel calls so far, to tell the latest */
	int state_lock_fd;
	int ready_fd;             /* told once serving, when rdmad detached */
	bool socket_activated;
	bool socket_bound;        /* we made the socket file, so we remove it */
	uint64_t start_usec;      /* CLOCK_MONOTONIC */
	uint64_t start_realtime_usec;
	struct rdma_device *devices[RDMAD_MAX_DEVICES];
	unsigned n_devices;
	int cpus[CPULIST_MAX];    /* where the workers run */
	unsigned n_cpus;
	struct worker_set *workers;
	struct api_monitor *monitor;
	/*
	 * RDMAD_READ_GROUP as looked up at start and at the last reload, not per
	 * call: the user database may be NSS over the network, and the event
	 * loop must not wait for it.
	 */
	struct {
		bool looked_up;
		bool exists;
		gid_t gid;
	} read_group;
	struct state_env state;   /* what the state files are read and written with (state.h) */
	struct commit *commit;    /* writes the state files (daemon/core/commit.h) */
	struct helper *helper;    /* blocking work off the event loop (daemon/core/helper.h) */
	struct vnic_service *vnic;   /* the first device's OPA port, or NULL (daemon/vnic/vnic.h) */
	struct gid_netlink *roce_gids;   /* port 1's GIDs from roce_netdev, or NULL */
	struct json_object *vnic_saved;  /* what vnic.json held, until the OPA port starts */
	struct vdev_set *vdevs;   /* the devices' vdevs, for VMs (daemon/vdev/vdev.h) */
	struct memory_trim trim;  /* freed objects' memory back to the system (daemon/core/trim.h) */
};

int manager_new(struct manager **out, const struct manager_options *opts);
/* The log level in force again: the override if any, else rdmad.conf's. */
void manager_apply_log_level(struct manager *m);
struct manager *manager_free(struct manager *m);
void manager_set_ready_fd(struct manager *m, int fd);
/* State directory, devices and their data path, what users configured, signals. */
int manager_start(struct manager *m);
/*
 * READY=1, then the event loop until it ends (serving is the API's:
 * api_varlink_init); then every pending state change is written and answered.
 */
int manager_loop(struct manager *m);
/*
 * Re-reads the configuration and looks group RDMAD_READ_GROUP up again, and
 * the users and groups DEKs and pools are lent to; on error the old
 * configuration stays and err says why.
 */
int manager_reload(struct manager *m, char *err, size_t err_size);
struct rdma_device *manager_find_device(struct manager *m, const char *name);
uint64_t manager_uptime_usec(const struct manager *m);

/* The OPA port (daemon/core/vnic_state.c): after the workers start, before they stop, at reload. */
int vnic_start(struct manager *m);
void vnic_stop(struct manager *m);
int vnic_reload(struct manager *m, const struct rdmad_fabric_config *fc, char *err, size_t err_size);

