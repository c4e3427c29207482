/* SPDX-License-Identifier: MIT */
/*
 * The OPA port in the daemon's life: started with the workers, its map read
 * again at reload, and the VNIC ports the Ethernet Manager configured kept in
 * the state directory (vnic.json): per device, one record of ClassPortInfo
 * and of each port's VESWPortInfo and MAC table, as the attributes' wire bytes
 * in hex.  A restart puts them back as they were, as a host whose VNIC driver
 * reloads; the manager re-reads them and may overwrite them.
 *
 * The state files are restored before the workers start, the ports need them:
 * what the file holds waits in m->vnic_saved until vnic_start().
 */
#include "daemon/core/manager.h"
#include "daemon/core/commit.h"
#include "daemon/core/state.h"
#include "daemon/vnic/vnic.h"
#include "lib/hex.h"
#include "lib/json-util.h"
#include "lib/log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static struct json_object *hex_json(const uint8_t *bytes, size_t n)
{
	char text[2 * VEMA_VPINFO_LEN + 1];

	hex_encode(bytes, n, text);
	return json_object_new_string(text);
}

/* bytes[0..n) from rec[key], which must be exactly 2n hex digits. */
static bool hex_field(struct json_object *rec, const char *key, uint8_t *bytes, size_t n)
{
	const char *text = json_get_string(rec, key);

	return text && strlen(text) == 2 * n && hex_decode(text, bytes, n) == 0;
}

static struct json_object *port_record(const struct vema *v, unsigned index,
				       struct vema_vport_state *st)
{
	struct json_object *o, *macs;

	if (vema_export_vport(v, index, st) < 0)
		return NULL;
	o = json_object_new_object();
	macs = json_object_new_array();
	json_add_uint(o, "handle", index);
	json_object_object_add(o, "info", hex_json(st->info, sizeof(st->info)));
	for (size_t i = 0; i < st->n_macs; i++) {
		struct json_object *m = json_object_new_object();

		json_add_uint(m, "slot", st->macs[i].index);
		json_object_object_add(m, "entry", hex_json(st->macs[i].entry,
							    sizeof(st->macs[i].entry)));
		json_object_array_add(macs, m);
	}
	json_object_object_add(o, "macs", macs);
	return o;
}

static struct json_object *vnic_save_device(struct manager *m, struct rdma_device *dev)
{
	struct vnic_service *s = m->vnic;
	struct json_object *list, *rec, *ports;
	struct vema_vport_state *st;
	uint8_t cpi[VEMA_CPI_LEN];

	/* No OPA port this time: what the file held stays (the fabric may come back). */
	if (!s || s->env.dev != dev)
		return m->vnic_saved ? json_object_get(m->vnic_saved) : json_object_new_array();
	st = malloc(sizeof(*st));
	if (!st)
		return NULL;
	list = json_object_new_array();
	rec = json_object_new_object();
	ports = json_object_new_array();
	vema_export_cpi(&s->vema, cpi);
	json_object_object_add(rec, "class_port_info", hex_json(cpi, sizeof(cpi)));
	for (unsigned i = 0; i < VNIC_MAX_VPORTS; i++) {
		struct json_object *p = port_record(&s->vema, i, st);

		if (p)
			json_object_array_add(ports, p);
	}
	free(st);
	json_object_object_add(rec, "ports", ports);
	json_object_array_add(list, rec);
	return list;
}

static void vnic_restore_device(struct manager *m, struct rdma_device *dev, struct json_object *list)
{
	/* The first device's OPA port is the one there is (vnic_start). */
	if (dev != m->devices[0] || m->vnic_saved)
		return;
	m->vnic_saved = json_object_get(list);
}

const struct state_kind state_vnic = {
	.name = "vnic",
	.items = "VNIC ports",
	.save_device = vnic_save_device,
	.restore_device = vnic_restore_device,
};

static int restore_port(struct vnic_service *s, struct json_object *p, struct vema_vport_state *st)
{
	int64_t handle = json_get_int(p, "handle", -1);
	struct json_object *macs;

	memset(st, 0, sizeof(*st));
	if (handle < 0 || handle >= VNIC_MAX_VPORTS || !hex_field(p, "info", st->info, sizeof(st->info)))
		return -EINVAL;
	if (json_object_object_get_ex(p, "macs", &macs) && json_object_is_type(macs, json_type_array)) {
		size_t n = json_object_array_length(macs);

		if (n > VNIC_MAC_TBL_ENTRIES)
			return -EINVAL;
		for (size_t i = 0; i < n; i++) {
			struct json_object *e = json_object_array_get_idx(macs, i);
			int64_t slot = json_get_int(e, "slot", -1);

			if (slot < 0 || slot >= VNIC_MAC_TBL_ENTRIES ||
			    !hex_field(e, "entry", st->macs[i].entry, sizeof(st->macs[i].entry)))
				return -EINVAL;
			st->macs[i].index = (uint16_t)slot;
		}
		st->n_macs = n;
	}
	return vema_restore_vport(&s->vema, (unsigned)handle, st);
}

/* What vnic.json held for the device, back into the agent. */
static void restore(struct vnic_service *s, struct json_object *list)
{
	struct json_object *rec = json_object_array_get_idx(list, 0), *ports;
	struct vema_vport_state *st;
	uint8_t cpi[VEMA_CPI_LEN];

	if (!rec)
		return;
	if (hex_field(rec, "class_port_info", cpi, sizeof(cpi)))
		vema_restore_cpi(&s->vema, cpi);
	if (!json_object_object_get_ex(rec, "ports", &ports) ||
	    !json_object_is_type(ports, json_type_array))
		return;
	st = malloc(sizeof(*st));
	if (!st) {
		log_error("out of memory: saved VNIC ports not restored");
		return;
	}
	s->restoring = true;
	for (size_t i = 0; i < json_object_array_length(ports); i++) {
		int r = restore_port(s, json_object_array_get_idx(ports, i), st);

		if (r < 0)
			log_error_errno(r, "%s: saved VNIC port #%zu not restored", s->env.dev->name, i);
	}
	s->restoring = false;
	free(st);
}

/* What the committer hands back once the Sets' changes are written. */
struct vnic_change {
	struct commit_change commit;  /* first */
	struct manager *m;
};

/*
 * The manager's Sets that changed the ports are durable, or undone: their replies go
 * now.  The committer is freed before the service (manager_free()), so m->vnic is there.
 */
static void saved(struct commit_change *change, int r)
{
	struct vnic_change *vc = (struct vnic_change *)change;

	vnic_service_saved(vc->m->vnic, r);
}

static void answered(struct commit_change *change)
{
	free(change);
}

static void vnic_changed(void *userdata)
{
	struct manager *m = userdata;
	struct vnic_change *vc = calloc(1, sizeof(*vc));

	if (!vc) {
		/* As a write that failed: the Sets are undone and the manager sends them again. */
		log_error("out of memory: the VNIC ports' configuration is not saved");
		vnic_service_saved(m->vnic, -ENOMEM);
		return;
	}
	vc->commit = (struct commit_change) {
		.kind = &state_vnic, .object = m->vnic, .done = saved, .answer = answered,
	};
	vc->m = m;
	commit_submit(m->commit, &vc->commit);
}

int vnic_start(struct manager *m)
{
	struct vnic_env env = {
		.event = m->event, .workers = m->workers, .dev = m->devices[0],
		.changed = vnic_changed, .userdata = m,
	};
	int r;

	r = vnic_service_new(&m->vnic, &env, &m->config.fabric);
	if (r == -ENODEV)
		return 0;
	if (r < 0)
		return log_error_errno(r, "cannot start the OPA port of %s", env.dev->name);
	if (m->vnic_saved)
		restore(m->vnic, m->vnic_saved);
	log_info("%s: OPA port LID %u over %s, %u VNIC port(s)", env.dev->name,
		 vnic_service_lid(m->vnic), m->vnic->mad->ops->name, m->vnic->n_ports);
	return 0;
}

void vnic_stop(struct manager *m)
{
	m->vnic = (vnic_service_free(m->vnic), NULL);
	json_object_put(m->vnic_saved);
	m->vnic_saved = NULL;
}

int vnic_reload(struct manager *m, const struct rdmad_fabric_config *fc, char *err, size_t err_size)
{
	return m->vnic ? vnic_service_reload(m->vnic, fc, err, err_size) : 0;
}
