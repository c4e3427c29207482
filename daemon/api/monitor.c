/* SPDX-License-Identifier: MIT */
/* io.rdmad.Monitor: device events streamed to every subscribed caller. */
#include "daemon/api/vocab.h"
#include "daemon/api/api.h"
#include "daemon/api/dispatch.h"
#include "daemon/verbs/qp_state.h"
#include "daemon/vdev/vdev.h"
#include "dataplane/offload/sig.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define IFACE "io.rdmad.Monitor"

/*
 * Beyond the devices' event types: applications coming and going
 * (daemon/api/application.c), vdevs made and gone, front ends connecting and
 * going (daemon/vdev/vdev.h, in the order of enum vdev_event).
 */
enum { MONITOR_APPLICATION_ATTACHED = RDMA_EVENT_TYPE_COUNT, MONITOR_APPLICATION_DETACHED,
       MONITOR_VDEV_CREATED, MONITOR_VDEV_DESTROYED, MONITOR_VDEV_CONNECTED,
       MONITOR_VDEV_DISCONNECTED, MONITOR_TYPE_COUNT };
_Static_assert(MONITOR_TYPE_COUNT <= 32, "event types are the bits of a mask");

struct subscriber {
	struct subscriber *prev, *next;
	struct varlink_call *call;
	unsigned types;           /* 1 << enum rdma_event_type */
	bool knows_deks;          /* api_caller_knows_deks() */
	uid_t uid;                /* not root: events of its uid's objects and of the device only */
};

struct api_monitor {
	struct subscriber *subscribers;
};

static uint64_t now_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static struct json_object *event_json(const char *type, const struct rdma_device *dev)
{
	struct json_object *o = json_object_new_object();

	json_add_string(o, "type", type);
	json_add_uint(o, "time_usec", now_usec());
	if (dev)
		api_add_device(o, dev);
	return o;
}

static const char *vnic_state_word(int state)
{
	return state == VNIC_EVENT_FORWARDING ? "forwarding" : "drop_all";
}

/* Reference opa_vnic.md §3.1's opcodes. */
static const char *vnic_trap_word(uint8_t opcode)
{
	switch (opcode) {
	case 1: return "ucast_mac_change";
	case 2: return "mcast_mac_change";
	case 3: return "link_status_change";
	}
	return "unknown";
}

static const char *vnic_trap_result_word(uint8_t result)
{
	switch (result) {
	case VNIC_TRAP_SENT: return "sent";
	case VNIC_TRAP_RATE_LIMITED: return "rate_limited";
	case VNIC_TRAP_NO_LID: return "no_trap_lid";
	}
	return "unknown";
}

static struct json_object *device_event_json(const struct rdma_device *dev, const struct rdma_event *ev)
{
	struct json_object *o = event_json(rdma_event_type_name(ev->type), dev);

	json_add_string(o, "kind", rdma_object_kind_name(ev->kind));
	json_add_uint(o, "handle", ev->handle);
	switch (ev->type) {
	case RDMA_EVENT_QP_STATE:
		json_add_string(o, "old_state", rdma_qp_state_name(ev->old_state));
		json_add_string(o, "new_state", rdma_qp_state_name(ev->new_state));
		break;
	case RDMA_EVENT_WR_CANCELED:
		json_add_uint(o, "wr_id", ev->wr_id);
		json_add_uint(o, "count", ev->count);
		break;
	case RDMA_EVENT_RECOVERY:
		json_add_uint(o, "wr_id", ev->wr_id);
		json_add_uint(o, "count", ev->count);
		json_add_uint(o, "mkey", ev->mkey);
		json_add_string(o, "trigger", ev->automatic ? "auto" : "manual");
		json_add_uint(o, "duration_ns", ev->duration_ns);
		break;
	case RDMA_EVENT_SIG_ERROR:
		json_add_uint(o, "qp", ev->qpn);
		json_add_uint(o, "wr_id", ev->wr_id);
		json_add_string(o, "err_type", dp_sig_err_type_name(ev->sig[0]));
		json_add_uint(o, "expected_value", ev->sig[1]);
		json_add_uint(o, "actual_value", ev->sig[2]);
		json_add_uint(o, "offset", ev->sig[3]);
		break;
	case RDMA_EVENT_POOL_BORROW:
	case RDMA_EVENT_POOL_RETURN:
		json_add_string(o, "name", ev->name);
		json_add_uint(o, "mkey", ev->mkey);
		json_object_object_add(o, "owner", ev->owner ? json_object_new_string(ev->owner) : NULL);
		json_add_uint(o, "available", ev->available);
		break;
	case RDMA_EVENT_POOL_RESIZE:
		json_add_string(o, "name", ev->name);
		json_add_uint(o, "old_size", ev->old_size);
		json_add_uint(o, "size", ev->size);
		json_add_uint(o, "available", ev->available);
		break;
	case RDMA_EVENT_VNIC_STATE:
		json_add_string(o, "old_state", vnic_state_word(ev->old_state));
		json_add_string(o, "new_state", vnic_state_word(ev->new_state));
		json_object_object_add(o, "passing", json_object_new_boolean(ev->passing));
		break;
	case RDMA_EVENT_VNIC_MAC_TABLE:
		json_add_uint(o, "offset", ev->offset);
		json_add_uint(o, "count", ev->count);
		json_add_uint(o, "mac_tbl_digest", ev->digest);
		break;
	case RDMA_EVENT_VNIC_TRAP:
		json_add_string(o, "trap", vnic_trap_word(ev->trap));
		json_add_string(o, "result", vnic_trap_result_word(ev->trap_result));
		break;
	default:
		break;
	}
	return o;
}

static int send_event(struct varlink_call *call, struct json_object *event)
{
	struct json_object *reply = json_object_new_object();

	json_object_object_add(reply, "event", event);
	return api_reply_more(call, reply);
}

/* An event about a DEK (its creation or destruction): for those who may know DEKs only. */
static bool event_about_dek(const struct rdma_event *ev)
{
	return ev->kind == RDMA_OBJ_DEK;
}

/*
 * Whose object an event is about: the uid of its owner, or 0 for root's and
 * the device's own (DEKs, pools, GIDs, VNIC ports).  A destroyed object's
 * owner came with the event; any other is still in its table.
 */
static uid_t event_owner(struct rdma_device *dev, const struct rdma_event *ev)
{
	const struct rdma_object *obj;

	if (ev->type == RDMA_EVENT_OBJECT_DESTROYED)
		return ev->owner_uid;
	if (ev->kind >= RDMA_OBJ_DEK)
		return 0;
	obj = object_table_find(&dev->tables[ev->kind], ev->handle);
	return obj ? obj->owner_uid : 0;
}

/*
 * A tenant's subscription carries the device's events and its own objects';
 * those of root's objects and other tenants' are not there for it.  An
 * object's creation reaches it once the object is its own
 * (api_monitor_object_owned), as the model tells before it has an owner.
 */
static bool tenant_may_see(const struct subscriber *s, struct rdma_device *dev,
			   const struct rdma_event *ev)
{
	if (s->uid == 0)
		return true;
	/* Who borrows from a pool is root's to know, as Pool.Show's borrowers are. */
	if (ev->type == RDMA_EVENT_POOL_BORROW || ev->type == RDMA_EVENT_POOL_RETURN)
		return false;
	if (ev->kind >= RDMA_OBJ_DEK || ev->type >= RDMA_EVENT_VNIC_STATE)
		return true;
	if (ev->type == RDMA_EVENT_OBJECT_CREATED)
		return false;
	return event_owner(dev, ev) == s->uid;
}

static void on_device_event(struct rdma_device *dev, const struct rdma_event *ev, void *userdata)
{
	struct api_monitor *mon = userdata;
	struct subscriber *s, *next;

	/* A send may close a slow subscriber's connection, which unlinks it: keep next first. */
	for (s = mon->subscribers; s; s = next) {
		next = s->next;
		if ((s->types & (1u << ev->type)) && (s->knows_deks || !event_about_dek(ev)) &&
		    tenant_may_see(s, dev, ev))
			send_event(s->call, device_event_json(dev, ev));
	}
}

void api_monitor_object_owned(struct rdma_device *dev, const struct rdma_object *obj)
{
	struct rdma_event ev = { .type = RDMA_EVENT_OBJECT_CREATED, .kind = obj->kind, .handle = obj->handle };
	struct api_monitor *mon = NULL;
	struct subscriber *s, *next;

	/* The device's sinks are the monitor's and the applications' event channels'. */
	for (unsigned i = 0; i < RDMA_EVENT_SINKS_MAX && !mon; i++)
		if (dev->event_sinks[i].fn == on_device_event)
			mon = dev->event_sinks[i].userdata;
	for (s = mon ? mon->subscribers : NULL; s; s = next) {
		next = s->next;
		if (s->uid && s->uid == obj->owner_uid && (s->types & (1u << ev.type)))
			send_event(s->call, device_event_json(dev, &ev));
	}
}

static void unsubscribe(struct varlink_call *call, void *userdata)
{
	struct manager *m = userdata;
	struct api_monitor *mon = m->monitor;

	for (struct subscriber *s = mon->subscribers; s; s = s->next)
		if (s->call == call) {
			if (s->prev)
				s->prev->next = s->next;
			else
				mon->subscribers = s->next;
			if (s->next)
				s->next->prev = s->prev;
			varlink_call_unref(s->call);
			free(s);
			return;
		}
}

static const char *type_name(int type)
{
	static const char *const more[] = {
		[MONITOR_APPLICATION_ATTACHED - RDMA_EVENT_TYPE_COUNT] = "application_attached",
		[MONITOR_APPLICATION_DETACHED - RDMA_EVENT_TYPE_COUNT] = "application_detached",
		[MONITOR_VDEV_CREATED - RDMA_EVENT_TYPE_COUNT] = "vdev_created",
		[MONITOR_VDEV_DESTROYED - RDMA_EVENT_TYPE_COUNT] = "vdev_destroyed",
		[MONITOR_VDEV_CONNECTED - RDMA_EVENT_TYPE_COUNT] = "vdev_connected",
		[MONITOR_VDEV_DISCONNECTED - RDMA_EVENT_TYPE_COUNT] = "vdev_disconnected",
	};

	if (type < RDMA_EVENT_TYPE_COUNT)
		return rdma_event_type_name(type);
	return more[type - RDMA_EVENT_TYPE_COUNT];
}

/* Event types as the bits of a mask: bit 1 << type. */
static const char *event_word(unsigned bit)
{
	for (int t = 0; t < MONITOR_TYPE_COUNT; t++)
		if (bit == 1u << t)
			return type_name(t);
	return NULL;
}

void api_monitor_application(struct manager *m, bool attached, struct json_object *application)
{
	int type = attached ? MONITOR_APPLICATION_ATTACHED : MONITOR_APPLICATION_DETACHED;
	/* A tenant hears of its own programs only. */
	uid_t application_uid = (uid_t)json_get_int(application, "uid", 0);
	struct subscriber *s, *next;

	for (s = m->monitor ? m->monitor->subscribers : NULL; s; s = next) {
		struct json_object *ev;

		next = s->next;
		if (!(s->types & (1u << type)) || (s->uid && s->uid != application_uid))
			continue;
		ev = event_json(type_name(type), NULL);
		json_object_object_add(ev, "application", json_object_get(application));
		send_event(s->call, ev);
	}
	json_object_put(application);
}

/*
 * A vdev's event, to every subscriber: vdevs are shown to group rdma as to
 * root (io.rdmad.Vdev.List), front ends included.
 */
static void on_vdev_event(void *userdata, const struct vdev *v, enum vdev_event event)
{
	struct manager *m = userdata;
	int type = MONITOR_VDEV_CREATED + (int)event;
	struct subscriber *s, *next;

	for (s = m->monitor ? m->monitor->subscribers : NULL; s; s = next) {
		struct json_object *ev;

		next = s->next;
		if (!(s->types & (1u << type)))
			continue;
		ev = event_json(type_name(type), v->dev);
		json_add_string(ev, "kind", "vdev");
		json_add_string(ev, "name", v->conf.name);
		if (event == VDEV_EVENT_CONNECTED || event == VDEV_EVENT_DISCONNECTED)
			json_object_object_add(ev, "front_end", api_front_end_json(&v->front_end));
		send_event(s->call, ev);
	}
}

struct subscribe_params {
	uint32_t types;
};

static const struct api_field subscribe_fields[] = {
	{ .name = "types", .type = API_FIELD_FLAGS, .offset = offsetof(struct subscribe_params, types),
	  .word = event_word, .max = (1u << MONITOR_TYPE_COUNT) - 1 },
	{ NULL },
};

static int subscribe(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct manager *m = userdata;
	struct api_monitor *mon = m->monitor;
	struct subscribe_params p = { .types = ~0u };
	struct subscriber *s;

	if (api_dispatch(call, params, subscribe_fields, &p) < 0)
		return 0;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->call = varlink_call_ref(call);
	s->types = p.types;
	s->knows_deks = api_caller_knows_deks(call);
	s->uid = varlink_call_peer(call)->uid;
	s->next = mon->subscribers;
	if (s->next)
		s->next->prev = s;
	mon->subscribers = s;
	varlink_call_set_cancel(call, unsubscribe, m);
	return send_event(call, event_json("subscribed", NULL));
}

int api_monitor_start(struct manager *m)
{
	m->monitor = calloc(1, sizeof(*m->monitor));
	if (!m->monitor)
		return -ENOMEM;
	for (unsigned i = 0; i < m->n_devices; i++) {
		int r = rdma_device_add_event_sink(m->devices[i], on_device_event, m->monitor);

		if (r < 0)
			return r;
	}
	if (m->vdevs) {
		m->vdevs->on_event = on_vdev_event;
		m->vdevs->userdata = m;
	}
	return 0;
}

void api_monitor_free(struct manager *m)
{
	if (m->vdevs)
		m->vdevs->on_event = NULL;
	/* The varlink server went first and canceled every subscription. */
	for (unsigned i = 0; i < m->n_devices; i++)
		rdma_device_remove_event_sink(m->devices[i], on_device_event, m->monitor);
	free(m->monitor);
	m->monitor = NULL;
}

const struct varlink_method api_monitor_methods[] = {
	{ "Subscribe", subscribe, VARLINK_METHOD_REQUIRES_MORE },
	{ NULL, NULL, 0 },
};
