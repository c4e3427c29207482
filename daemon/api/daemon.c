/* SPDX-License-Identifier: MIT */
/* io.rdmad.Daemon */
#include "daemon/api/api.h"
#include "lib/log.h"

#include <unistd.h>

static int get_status(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct manager *m = userdata;
	struct json_object *reply = json_object_new_object();
	struct json_object *devices = json_object_new_array();

	json_add_string(reply, "version", RDMAD_VERSION);
	json_add_int(reply, "pid", getpid());
	json_add_uint(reply, "uptime_usec", manager_uptime_usec(m));
	json_add_uint(reply, "started_usec", m->start_realtime_usec);
	json_add_string(reply, "socket", m->socket_activated ? "(socket activation)" : m->socket_path);
	json_add_string(reply, "state_dir", m->state_dir);
	json_add_string(reply, "config", m->config_path);
	json_add_string(reply, "log_level", log_level_to_string(log_get_max_level()));
	json_add_uint(reply, "connections", varlink_server_connections(m->varlink));
	for (unsigned i = 0; i < m->n_devices; i++)
		json_object_array_add(devices, json_object_new_string(m->devices[i]->name));
	json_object_object_add(reply, "devices", devices);
	return varlink_call_reply(call, reply);
}

static int reload(struct varlink_call *call, struct json_object *params, void *userdata)
{
	char err[512];

	if (manager_reload(userdata, err, sizeof(err)) < 0)
		return api_error_string(call, "io.rdmad.Daemon.ReloadFailed", "reason", err);
	return varlink_call_reply(call, NULL);
}

static int set_log_level(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct manager *m = userdata;
	int level = log_level_from_string(json_get_string(params, "level"));

	/* The IDL's enum already limits the names. */
	m->log_level_override = level;
	log_set_max_level(level);
	log_notice("log level set to %s", log_level_to_string(level));
	return varlink_call_reply(call, NULL);
}

const struct varlink_method api_daemon_methods[] = {
	{ "GetStatus", get_status, 0 },
	{ "Reload", reload, VARLINK_METHOD_PRIVILEGED },
	{ "SetLogLevel", set_log_level, VARLINK_METHOD_PRIVILEGED },
	{ NULL, NULL, 0 },
};
