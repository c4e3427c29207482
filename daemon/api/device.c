/* SPDX-License-Identifier: MIT */
/* io.rdmad.Device */
#include "daemon/api/api.h"
#include "daemon/api/application.h"
#include "daemon/api/counters.h"
#include "daemon/api/dispatch.h"
#include "dataplane/offload/kern.h"
#include "dataplane/offload/kern_json.h"

static void add_names(struct json_object *obj, const char *key, unsigned mask,
		      const char *const *names, unsigned count)
{
	struct json_object *list = json_object_new_array();

	for (unsigned i = 0; i < count; i++)
		if (names[i] && (mask & (1u << i)))
			json_object_array_add(list, json_object_new_string(names[i]));
	json_object_object_add(obj, key, list);
}

static struct json_object *port_json(const struct rdma_port_attr *p, unsigned num)
{
	struct json_object *o = json_object_new_object();

	json_add_uint(o, "port", num);
	json_add_string(o, "state", rdma_port_state_name(p->state));
	json_add_string(o, "physical_state", rdma_port_phys_state_name(p->phys_state));
	json_add_string(o, "link_layer", "Ethernet");
	json_add_uint(o, "max_mtu", p->max_mtu);
	json_add_uint(o, "active_mtu", p->active_mtu);
	json_add_uint(o, "gid_tbl_len", p->gid_tbl_len);
	json_add_uint(o, "max_msg_sz", p->max_msg_sz);
	return o;
}

static struct json_object *signature_json(const struct rdma_offload_caps *c)
{
	static const char *const prot[] = { "t10dif", "crc" };
	static const char *const bg[] = { "crc", "csum" };
	static const char *const crc[] = { "crc32", "crc32c", "crc64_xp10" };
	struct json_object *o = json_object_new_object();
	struct json_object *sizes = json_object_new_array();

	for (unsigned i = 0; i < RDMA_BLOCK_SIZE_COUNT; i++)
		if (c->block_sizes & (1ull << i))
			json_object_array_add(sizes, json_object_new_int(rdma_block_size_bytes(i)));
	json_object_object_add(o, "block_sizes", sizes);
	add_names(o, "protections", c->block_prot, prot, 2);
	add_names(o, "t10dif_bg", c->t10dif_bg, bg, 2);
	add_names(o, "crc_types", c->crc_types, crc, 3);
	json_object_object_add(o, "kernel", json_object_new_string(dp_kern_level_name(dp_kern_level_in_use())));
	json_object_object_add(o, "kernel_selftests", dp_kern_selftest_json());
	return o;
}

static struct json_object *crypto_json(const struct rdma_offload_caps *c)
{
	static const char *const engines[] = { NULL, "aes_xts_single_block", "aes_xts_multi_block" };
	struct json_object *o = json_object_new_object();
	struct json_object *list = json_object_new_array();

	if (c->crypto_engines)
		json_object_array_add(list, json_object_new_string("aes_xts"));
	json_object_object_add(o, "standards", list);
	add_names(o, "engines", c->crypto_engines, engines, 3);
	list = json_object_new_array();
	json_object_array_add(list, json_object_new_int(128));
	json_object_array_add(list, json_object_new_int(256));
	json_object_object_add(o, "key_sizes", list);
	json_add_bool(o, "wrapped_import_only", c->wrapped_import_only);
	json_add_uint(o, "max_deks", 1u << c->log_max_num_deks);
	return o;
}

/* datapath.roce.receive: the way the device's RoCE endpoint takes packets in, where it has one. */
static void roce_receive_json(struct json_object *device, struct rdma_device *d)
{
	struct json_object *datapath, *roce;
	enum dp_roce_receive how;
	int why;

	how = rdma_datapath_roce_receive(d, &why);
	if (how == DP_ROCE_RECEIVE_AUTO || !json_object_object_get_ex(device, "datapath", &datapath) ||
	    !json_object_object_get_ex(datapath, "roce", &roce))
		return;
	json_add_string(roce, "receive", dp_roce_receive_name(how));
}

static struct json_object *device_json(struct varlink_call *call, struct rdma_device *d)
{
	static const char *const cap_names[] = { "RC_RNR_NAK_GEN" };
	const struct rdma_device_attr *a = &d->attr;
	struct json_object *o = json_object_new_object();
	struct json_object *ports = json_object_new_array();

	json_add_uint(o, "ifindex", d->index);
	json_add_string(o, "ifname", d->name);
	json_add_string(o, "backend", d->ops->backend);
	json_add_string(o, "node_type", "ca");
	json_add_string(o, "fw", d->fw_ver);
	json_add_guid(o, "node_guid", d->node_guid);
	json_add_guid(o, "sys_image_guid", d->sys_image_guid);
	json_add_uint(o, "device_cap_flags", a->device_cap_flags);
	add_names(o, "caps", (unsigned)a->device_cap_flags, cap_names, 1);
	json_add_uint(o, "max_mr_size", a->max_mr_size);
	json_add_uint(o, "page_size_cap", a->page_size_cap);
	json_add_uint(o, "hw_ver", a->hw_ver);
	json_add_uint(o, "max_qp", a->max_qp);
	json_add_uint(o, "max_qp_wr", a->max_qp_wr);
	json_add_uint(o, "max_send_sge", a->max_send_sge);
	json_add_uint(o, "max_recv_sge", a->max_recv_sge);
	json_add_uint(o, "max_sge_rd", a->max_sge_rd);
	json_add_uint(o, "max_cq", a->max_cq);
	json_add_uint(o, "max_cqe", a->max_cqe);
	json_add_uint(o, "max_mr", a->max_mr);
	json_add_uint(o, "max_pd", a->max_pd);
	json_add_uint(o, "max_qp_rd_atom", a->max_qp_rd_atom);
	json_add_uint(o, "max_qp_init_rd_atom", a->max_qp_init_rd_atom);
	json_add_uint(o, "max_ah", a->max_ah);
	json_add_uint(o, "max_inline_data", a->max_inline_data);
	json_add_uint(o, "local_ca_ack_delay", a->local_ca_ack_delay);
	json_add_uint(o, "max_mkey", d->caps.max_mkeys);
	json_add_uint(o, "max_mkey_entries", d->caps.max_mkey_entries);
	json_add_bool(o, "sqd2rts", d->caps.sqd2rts);
	for (unsigned i = 0; i < d->num_ports; i++)
		json_object_array_add(ports, port_json(&d->ports[i], i + 1));
	json_object_object_add(o, "ports", ports);
	json_object_object_add(o, "signature", signature_json(&d->caps));
	json_object_object_add(o, "crypto", crypto_json(&d->caps));
	if (rdma_device_has_datapath(d)) {
		struct dp_counters c;

		rdma_device_counters(d, &c);
		json_object_object_add(o, "datapath", api_dp_counters_json(&c, &d->sqd_stats));
		roce_receive_json(o, d);
	}
	return o;
}

static int list(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct manager *m = userdata;
	struct json_object *reply = json_object_new_object();
	struct json_object *names = json_object_new_array();

	for (unsigned i = 0; i < m->n_devices; i++)
		json_object_array_add(names, json_object_new_string(m->devices[i]->name));
	json_object_object_add(reply, "ifnames", names);
	return api_reply(call, reply);
}

struct show_params {
	const char *ifname;
};

static const struct api_field show_fields[] = {
	{ .name = "ifname", .type = API_FIELD_STRING, .offset = offsetof(struct show_params, ifname) },
	{ NULL },
};

/* The kinds CountObjects counts, under the keys of their lists. */
static const struct {
	enum rdma_object_kind kind;
	const char *key;
} counted_kinds[] = {
	{ RDMA_OBJ_PD, "pds" }, { RDMA_OBJ_MR, "mrs" }, { RDMA_OBJ_CQ, "cqs" },
	{ RDMA_OBJ_QP, "qps" }, { RDMA_OBJ_AH, "ahs" }, { RDMA_OBJ_MKEY, "mkeys" },
};

/*
 * What the caller may see of d, counted: its objects by kind, its QPs by
 * state, and the QPs in err and in SQD by number.  rdmactl status says this
 * of a device with tens of thousands of QPs without listing each one.
 */
static struct json_object *count_json(struct varlink_call *call, struct rdma_device *d)
{
	struct json_object *o = json_object_new_object(), *objects = json_object_new_object();
	struct json_object *states = json_object_new_array(), *err_qps = json_object_new_array();
	struct json_object *sqd_qps = json_object_new_array();
	uint64_t in_state[RDMA_QPS_COUNT] = { 0 };
	struct rdma_object *obj;

	rdma_device_sync(d);
	for (size_t k = 0; k < sizeof(counted_kinds) / sizeof(counted_kinds[0]); k++) {
		const struct object_table *t = &d->tables[counted_kinds[k].kind];
		uint64_t n = 0;

		for (uint32_t pos = 0; (obj = object_table_next(t, &pos));) {
			if (!api_application_may_use(call, obj))
				continue;
			n++;
			if (obj->kind != RDMA_OBJ_QP)
				continue;
			in_state[rdma_qp(obj)->state]++;
			if (rdma_qp(obj)->state == RDMA_QPS_ERR)
				json_object_array_add(err_qps, json_object_new_int64(obj->handle));
			else if (rdma_qp(obj)->state == RDMA_QPS_SQD)
				json_object_array_add(sqd_qps, json_object_new_int64(obj->handle));
		}
		json_add_uint(objects, counted_kinds[k].key, n);
	}
	for (unsigned s = 0; s < RDMA_QPS_COUNT; s++) {
		struct json_object *rec;

		if (!in_state[s])
			continue;
		rec = json_object_new_object();
		json_add_string(rec, "state", rdma_qp_state_name(s));
		json_add_uint(rec, "qps", in_state[s]);
		json_object_array_add(states, rec);
	}
	json_add_string(o, "ifname", d->name);
	json_object_object_add(o, "objects", objects);
	json_object_object_add(o, "qp_states", states);
	json_object_object_add(o, "err_qps", err_qps);
	json_object_object_add(o, "sqd_qps", sqd_qps);
	return o;
}

/*
 * {"devices": [...]}: a record made by fn of the device the call's ifname
 * names, or of every device when it names none.
 */
static int devices_reply(struct varlink_call *call, struct manager *m, struct json_object *params,
			 struct json_object *(*fn)(struct varlink_call *call, struct rdma_device *d))
{
	struct show_params p = { 0 };
	struct json_object *reply, *devices;
	struct rdma_device *named = NULL;

	if (api_dispatch(call, params, show_fields, &p) < 0)
		return 0;
	if (p.ifname && !(named = manager_find_device(m, p.ifname)))
		return api_error_string(call, "io.rdmad.Device.NoSuchDevice", "ifname", p.ifname);
	devices = json_object_new_array();
	for (unsigned i = 0; i < m->n_devices; i++)
		if (!named || m->devices[i] == named)
			json_object_array_add(devices, fn(call, m->devices[i]));
	reply = json_object_new_object();
	json_object_object_add(reply, "devices", devices);
	return api_reply(call, reply);
}

static int show(struct varlink_call *call, struct json_object *params, void *userdata)
{
	return devices_reply(call, userdata, params, device_json);
}

static int count_objects(struct varlink_call *call, struct json_object *params, void *userdata)
{
	return devices_reply(call, userdata, params, count_json);
}

const struct varlink_method api_device_methods[] = {
	{ "List", list, 0 },
	{ "Show", show, 0 },
	{ "CountObjects", count_objects, 0 },
	{ NULL, NULL, 0 },
};
