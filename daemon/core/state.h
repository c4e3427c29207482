/* SPDX-License-Identifier: MIT */
/*
 * Persistence: what users configured (settings, DEKs, MKEY pools) survives a
 * restart or a crash.  Each kind of state is one JSON file in the state
 * directory (manager->state_dir, locked by the manager), STATE_DIR/NAME.json:
 *
 *     {"version": 1, "NAME": <what the kind's save gave>}
 *
 * A file is always replaced whole and atomically: a temporary file in the same
 * directory is written and fsync'ed, renamed over the old one, and the
 * directory is fsync'ed, so a crash at any moment leaves the old file or the
 * new one.  Temporary files a crash left behind are removed at start.  Files
 * are written off the main loop, by daemon/core/commit.h: the main thread
 * serializes a kind (state_serialize), the committer's thread writes it
 * (state_write_files).
 *
 * Device objects (QPs, MRs, MKEYs, PDs) are not kept, as on a real device.
 *
 * Adding a kind: a kind kept per device (DEKs, pools) is a list of records
 * per device, the file holding {"DEVICE": [record, ...], ...}; it says how to
 * save and restore one device's list and state.c does the rest:
 *
 *     static struct json_object *ports_save_device(struct manager *m,
 *                                                  struct rdma_device *dev) { ... }
 *     static void ports_restore_device(struct manager *m, struct rdma_device *dev,
 *                                      struct json_object *list) { ... }
 *     const struct state_kind state_ports = {
 *         .name = "ports", .items = "ports",
 *         .save_device = ports_save_device, .restore_device = ports_restore_device,
 *     };
 *
 * (a kind that is not per device, as the settings, gives save and restore
 * instead), declare it below, add it to the kinds[] table in manager.c (its
 * place there is the restore order), and submit every change a client makes
 * to the committer (daemon/core/commit.h, through daemon/api/change.h): the
 * call is answered once the change is durable, and a change that cannot be
 * saved is undone and the call fails.
 */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

#include "daemon/verbs/object.h"

struct manager;
struct rdma_device;

struct state_kind {
	const char *name;
	/* A kind saved whole: all of it as JSON (a new reference), or NULL when out of memory. */
	struct json_object *(*save)(struct manager *m);
	/*
	 * Puts back what save gave, once at start, after the devices exist and
	 * before clients are served; saved is NULL when there is no file yet.
	 * Problems with one entry are the kind's to report (log, error states)
	 * and do not fail the start; a negative errno does.
	 */
	int (*restore)(struct manager *m, struct json_object *saved);

	/* A kind kept per device gives these three instead. */
	/* What its records are, plural, for the log: "saved DEKs of device mlx5_0: ...". */
	const char *items;
	/* The device's records as a JSON array (a new reference), or NULL when out of memory. */
	struct json_object *(*save_device)(struct manager *m, struct rdma_device *dev);
	/*
	 * Puts back what save_device gave for dev, at the same moment as restore.
	 * A saved device that is gone, or a list that is not a list, is reported
	 * by state.c; problems with one record are the kind's to report.
	 */
	void (*restore_device)(struct manager *m, struct rdma_device *dev, struct json_object *list);
};

extern const struct state_kind state_settings;   /* daemon/core/settings.c */
extern const struct state_kind state_deks;       /* daemon/core/dek_state.c */
extern const struct state_kind state_pools;      /* daemon/core/pool_state.c */
extern const struct state_kind state_vnic;       /* daemon/core/vnic_state.c */
extern const struct state_kind state_vdevs;      /* daemon/core/vdev_state.c */

/*
 * What state.c is given of the daemon, and all it knows of it: the manager
 * goes to the kinds as it came (state.c never looks inside), the directory
 * and the devices are read here.  The manager fills it in once its devices
 * exist; the committer (daemon/core/commit.h) serializes through it.
 */
struct state_env {
	struct manager *m;                     /* the kinds' argument */
	const char *dir;                       /* the state directory */
	struct rdma_device *const *devices;    /* whose records the per-device kinds keep */
	unsigned n_devices;
};

/*
 * Restores the n kinds in their order.  A file that does not parse, or is not
 * of a version this rdmad reads, is moved aside to NAME.json.bad (and logged)
 * so that the next save does not destroy what an administrator may recover.
 */
int state_restore(const struct state_env *env, const struct state_kind *const *kinds, unsigned n);
/*
 * kind's file as it would be written now, from the running state (main
 * thread): malloc'ed text of *len bytes, or NULL when out of memory.
 */
char *state_serialize(const struct state_env *env, const struct state_kind *kind, size_t *len);

/*
 * A save_device for a kind whose records are the objects of one of the
 * device's tables: record(obj) for each that kept(obj), in handle order;
 * NULL when out of memory (a record missing would be an object lost).
 */
struct json_object *state_save_table(struct rdma_device *dev, enum rdma_object_kind table,
				     bool (*kept)(struct rdma_object *obj),
				     struct json_object *(*record)(struct rdma_object *obj));

/* One file of state_write_files(). */
struct state_file {
	const struct state_kind *kind;
	const char *name;         /* STATE_DIR/NAME.json */
	char *text;
	size_t len;
	/* In: 0 to write the file, -errno to leave it (the text could not be made).  Out: 0 or -errno. */
	int result;
	/*
	 * Out: the new file was renamed over the old one.  With a result < 0
	 * (the directory's fsync failed) the new content is in place but may not
	 * survive a crash.
	 */
	bool replaced;
};

/*
 * Replaces each file whose result is 0, atomically (see above), then fsyncs
 * the directory once for all of them.  Touches no daemon state: the
 * committer's thread calls it.
 */
void state_write_files(const char *dir, struct state_file *files, unsigned n);
/* Replaces dir/name with len bytes of data, atomically and durably: 0 or -errno. */
int state_write_file(const char *dir, const char *name, const char *data, size_t len);
