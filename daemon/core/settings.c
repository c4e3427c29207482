/* SPDX-License-Identifier: MIT */
/*
 * The daemon's run-time settings in the state directory (settings.json): what
 * varlink changes while the daemon runs, which outlives a restart.  Today the
 * log level of io.rdmad.Daemon.SetLogLevel.  rdmad --log-level, given for one
 * run, wins over the saved level; the saved level wins over rdmad.conf.
 */
#include "daemon/core/manager.h"
#include "daemon/core/state.h"
#include "lib/json-util.h"
#include "lib/log.h"

static struct json_object *settings_save(struct manager *m)
{
	struct json_object *o = json_object_new_object();

	if (o && m->log_level_set >= 0)
		json_add_string(o, "log_level", log_level_to_string(m->log_level_set));
	return o;
}

static int settings_restore(struct manager *m, struct json_object *saved)
{
	const char *name = saved ? json_get_string(saved, "log_level") : NULL;
	int level;

	if (!name)
		return 0;
	level = log_level_from_string(name);
	if (level < 0) {
		log_error("settings: log_level '%s' is not a level; ignored", name);
		return 0;
	}
	m->log_level_set = m->log_level_saved = level;
	if (m->log_level_override < 0) {
		m->log_level_override = level;
		log_set_max_level(level);
	}
	return 0;
}

const struct state_kind state_settings = {
	.name = "settings",
	.save = settings_save,
	.restore = settings_restore,
};
