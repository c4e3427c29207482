/* SPDX-License-Identifier: MIT */
/* io.rdmad.Daemon */
#include "daemon/api/vocab.h"
#include "daemon/api/api.h"
#include "daemon/api/async_events.h"
#include "daemon/api/tenant.h"
#include "daemon/api/application.h"
#include "daemon/api/change.h"
#include "daemon/api/dispatch.h"
#include "daemon/core/state.h"
#include "daemon/soft/workers.h"
#include "daemon/verbs/qp.h"
#include "daemon/vnic/vnic.h"
#include "lib/log.h"

#include <string.h>
#include <unistd.h>

/* The QPs of every device that run on worker index: its share of the load. */
static unsigned worker_qps(struct manager *m, unsigned index)
{
	unsigned n = 0;

	for (unsigned d = 0; d < m->n_devices; d++) {
		struct rdma_device *dev = m->devices[d];
		struct rdma_object *obj;
		unsigned worker;

		for (uint32_t pos = 0; (obj = object_table_next(&dev->tables[RDMA_OBJ_QP], &pos)); )
			if (rdma_device_qp_placement(dev, rdma_qp(obj), &worker) >= 0 && worker == index)
				n++;
	}
	return n;
}

static struct json_object *workers_json(struct manager *m)
{
	const struct worker_set *ws = m->workers;
	struct json_object *list = json_object_new_array();

	for (unsigned i = 0; ws && i < ws->n; i++) {
		const struct dp_worker *w = &ws->workers[i];
		struct json_object *o = json_object_new_object();

		json_add_uint(o, "index", w->index);
		json_add_int(o, "cpu", w->cpu);
		json_add_uint(o, "qps", worker_qps(m, w->index));
		json_add_uint(o, "loops", atomic_load_explicit(&w->stats.loops, memory_order_relaxed));
		json_add_uint(o, "commands", atomic_load_explicit(&w->stats.commands, memory_order_relaxed));
		json_add_uint(o, "work", atomic_load_explicit(&w->stats.work, memory_order_relaxed));
		json_add_uint(o, "sleeps", atomic_load_explicit(&w->stats.sleeps, memory_order_relaxed));
		json_object_array_add(list, o);
	}
	return list;
}

/* The varlink connections: open now, the limits in force, what they refused or closed. */
static struct json_object *connections_json(const struct varlink_server *server)
{
	const struct varlink_limits *l = varlink_server_limits(server);
	struct json_object *o = json_object_new_object();
	struct varlink_server_stats st;

	varlink_server_stats(server, &st);
	json_add_uint(o, "open", st.open);
	json_add_uint(o, "max", l->max_connections);
	json_add_uint(o, "max_per_uid", l->max_per_uid);
	json_add_uint(o, "reserved_for_root", l->reserved_for_root);
	json_add_uint(o, "buffered_bytes", st.buffered_bytes);
	json_add_uint(o, "buffer_budget", l->buffer_budget);
	json_add_uint(o, "buffer_budget_per_uid", l->buffer_per_uid);
	json_add_uint(o, "buffer_reserved_for_root", l->buffer_reserved_for_root);
	json_add_uint(o, "refused_limit", st.refused_limit);
	json_add_uint(o, "refused_memory_budget", st.refused_memory_budget);
	json_add_uint(o, "refused_buffer_per_uid", st.refused_buffer_per_uid);
	json_add_uint(o, "closed_output_budget", st.closed_output_budget);
	json_add_uint(o, "closed_incomplete_timeout", st.closed_incomplete_timeout);
	json_add_uint(o, "closed_idle", st.closed_idle);
	return o;
}

static struct json_object *vnic_ports_json(const struct vnic_service *s)
{
	struct json_object *ports = json_object_new_array();

	for (unsigned i = 0; s && i < VNIC_MAX_VPORTS; i++) {
		const struct vnic_port *p = vnic_service_port(s, i);
		struct json_object *o;

		if (!p)
			continue;
		o = json_object_new_object();
		api_add_device(o, s->env.dev);
		json_add_uint(o, "handle", i);
		json_add_string(o, "netdev", p->ifname);
		json_add_string(o, "oper_state", vnic_port_forwarding(p) ? "forwarding" : "drop_all");
		json_add_bool(o, "passing", vnic_port_passing(p));
		json_object_array_add(ports, o);
	}
	return ports;
}

/* Who may call the methods that only read, besides root (rdmad-varlink(7) AUTHORIZATION). */
static struct json_object *read_group_json(const struct manager *m)
{
	struct json_object *o = json_object_new_object();

	json_add_string(o, "name", RDMAD_READ_GROUP);
	json_add_bool(o, "exists", m->read_group.exists);
	if (m->read_group.exists)
		json_add_uint(o, "gid", m->read_group.gid);
	else
		json_object_object_add(o, "gid", NULL);
	return o;
}

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
	json_add_string(reply, "config_file", m->config_path);
	json_add_bool(reply, "config_read", m->config_read);
	json_add_string(reply, "log_level", log_level_to_string(log_get_max_level()));
	json_add_uint(reply, "busy_poll_usec", m->config.busy_poll_usec);
	json_object_object_add(reply, "read_group", read_group_json(m));
	json_object_object_add(reply, "connections", connections_json(m->varlink));
	for (unsigned i = 0; i < m->n_devices; i++)
		json_object_array_add(devices, json_object_new_string(m->devices[i]->name));
	json_object_object_add(reply, "ifnames", devices);
	json_object_object_add(reply, "workers", workers_json(m));
	json_object_object_add(reply, "vnic_ports", vnic_ports_json(m->vnic));
	json_object_object_add(reply, "tenants", api_tenants_json(call, m));
	json_add_uint(reply, "refused_not_owner", api_application_refused());
	return api_reply(call, reply);
}

static int reload(struct varlink_call *call, struct json_object *params, void *userdata)
{
	char err[1024];

	if (manager_reload(userdata, err, sizeof(err)) < 0)
		return api_error_string(call, "io.rdmad.Daemon.ReloadFailed", "reason", err);
	return api_reply(call, NULL);
}

struct log_level_params {
	const char *level;
};

static const struct api_field log_level_fields[] = {
	{ .name = "level", .type = API_FIELD_STRING, .offset = offsetof(struct log_level_params, level),
	  .required = true },
	{ NULL },
};

/* level (-1: reset) for SetLogLevel and in force, unless rdmad --log-level says otherwise. */
static void use_log_level(struct manager *m, int level)
{
	m->log_level_set = level;
	m->log_level_override = level >= 0 ? level : m->log_level_cmdline;
	manager_apply_log_level(m);
}

/*
 * The level is in force at once and answered once saved.  Changes are not
 * serialized as for pools: the settings file holds the latest level, so a
 * refused save goes back to the saved level only if no later change came
 * (which will be saved, or refused, in its turn).
 */
static struct json_object *log_level_finish(struct api_change *change, int r)
{
	struct manager *m = change->m;

	if (r == 0) {
		/* In submission order: the last one of a batch is what its file holds. */
		m->log_level_saved = change->value;
		log_notice("log level %s%s", change->value >= 0 ? "set to " : "reset: now ",
			   log_level_to_string(log_get_max_level()));
	} else if (change->tag == m->log_level_changes) {
		use_log_level(m, m->log_level_saved);
		log_notice("log level back to %s", log_level_to_string(log_get_max_level()));
	}
	return NULL;
}

static int set_log_level(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct manager *m = userdata;
	struct log_level_params p;
	int level;

	if (api_dispatch(call, params, log_level_fields, &p) < 0)
		return 0;
	/* The IDL's enum already limits the names; "reset" forgets the saved level. */
	level = strcmp(p.level, "reset") == 0 ? -1 : log_level_from_string(p.level);
	use_log_level(m, level);
	return api_change_submit(call, m, &state_settings, NULL, m, log_level_finish,
				 ++m->log_level_changes, level);
}

struct access_params {
	const char *method;
};

static const struct api_field access_fields[] = {
	{ .name = "method", .type = API_FIELD_STRING, .offset = offsetof(struct access_params, method),
	  .required = true },
	{ NULL },
};

/*
 * Who may call a method: open to every caller, so that one refused can be
 * told what it needs (rdmactl says "needs root" or "needs group rdma").
 */
static int get_access(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct access_params p;
	struct json_object *reply;
	unsigned flags;

	if (api_dispatch(call, params, access_fields, &p) < 0)
		return 0;
	if (api_method_flags(p.method, &flags) < 0)
		return api_error_string(call, VARLINK_ERROR_METHOD_NOT_FOUND, "method", p.method);
	reply = json_object_new_object();
	json_add_string(reply, "method", p.method);
	json_add_string(reply, "needs", api_access_word(api_method_access(flags)));
	json_object_object_add(reply, "read_group", read_group_json(userdata));
	return api_reply(call, reply);
}

const struct varlink_method api_daemon_methods[] = {
	{ "GetStatus", get_status, 0 },
	{ "GetAccess", get_access, VARLINK_METHOD_PUBLIC },
	{ "Reload", reload, VARLINK_METHOD_PRIVILEGED },
	{ "SetLogLevel", set_log_level, VARLINK_METHOD_PRIVILEGED },
	{ "Attach", api_application_attach, VARLINK_METHOD_PRIVILEGED | API_METHOD_TENANT },
	{ "ListApplications", api_application_list, 0 },
	/* Flags 0: only an attached connection gets a channel, and Attach says who may attach. */
	{ "OpenAsyncEvents", api_async_events_open, VARLINK_METHOD_PRIVILEGED | API_METHOD_OWN },
	{ NULL, NULL, 0 },
};
