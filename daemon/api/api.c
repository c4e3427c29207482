/* SPDX-License-Identifier: MIT */
/* Registers the io.rdmad.* interfaces and decides who may change state. */
#include "daemon/api/api.h"
#include "lib/log.h"
#include "daemon/api/idl-table.h"

#include <errno.h>

static const struct {
	const char *name;
	const struct varlink_method *methods;
} interfaces[] = {
	{ "io.rdmad.Daemon", api_daemon_methods },
	{ "io.rdmad.Device", api_device_methods },
};

/* Methods that change state are for root only. */
static bool authorize(const struct ucred *peer, const char *method, void *userdata)
{
	return peer->uid == 0;
}

int api_error_string(struct varlink_call *call, const char *error, const char *key, const char *value)
{
	struct json_object *p = json_object_new_object();

	json_add_string(p, key, value);
	return varlink_call_error(call, error, p);
}

int api_register(struct manager *m)
{
	varlink_server_set_authorizer(m->varlink, authorize, m);
	varlink_server_set_errno_error(m->varlink, "io.rdmad.Daemon.System");
	for (size_t i = 0; i < sizeof(interfaces) / sizeof(interfaces[0]); i++) {
		const char *idl = varlink_idl_text_find(interfaces[i].name);
		int r;

		if (!idl) {
			log_error("no interface description for %s", interfaces[i].name);
			return -ENOENT;
		}
		r = varlink_server_add_interface(m->varlink, idl, interfaces[i].methods, m);
		if (r < 0)
			return r;
	}
	return 0;
}
