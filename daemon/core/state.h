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
 * new one.  Temporary files a crash left behind are removed at start.
 *
 * Device objects (QPs, MRs, MKEYs, PDs) are not kept, as on a real device.
 *
 * Adding a kind (e.g. MKEY pools):
 *
 *     static struct json_object *pools_save(struct manager *m) { ... }
 *     static int pools_restore(struct manager *m, struct json_object *saved) { ... }
 *     const struct state_kind state_pools = {
 *         .name = "pools", .save = pools_save, .restore = pools_restore,
 *     };
 *
 * declare it below, add it to the kinds[] table in state.c (its place there is
 * the restore order), and call state_save(m, &state_pools) after every change
 * a client makes (see daemon/api/dek.c: a change that cannot be saved is
 * undone and the call fails).
 */
#pragma once

#include <json-c/json.h>

struct manager;

struct state_kind {
	const char *name;
	/* The kind's whole state as JSON (a new reference), or NULL when out of memory. */
	struct json_object *(*save)(struct manager *m);
	/*
	 * Puts back what save gave, once at start, after the devices exist and
	 * before clients are served; saved is NULL when there is no file yet.
	 * Problems with one entry are the kind's to report (log, error states)
	 * and do not fail the start; a negative errno does.
	 */
	int (*restore)(struct manager *m, struct json_object *saved);
};

extern const struct state_kind state_settings;   /* daemon/core/settings.c */
extern const struct state_kind state_deks;       /* daemon/core/dek_state.c */
extern const struct state_kind state_pools;      /* daemon/core/pool_state.c */

/*
 * Restores every kind in table order.  A file that does not parse, or is not
 * of a version this rdmad reads, is moved aside to NAME.json.bad (and logged)
 * so that the next save does not destroy what an administrator may recover.
 */
int state_restore(struct manager *m);
/* Writes kind's file from the running state; -errno (logged) on failure. */
int state_save(struct manager *m, const struct state_kind *kind);

/* Replaces dir/name with len bytes of data, atomically and durably (see above). */
int state_write_file(const char *dir, const char *name, const char *data, size_t len);
