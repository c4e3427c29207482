/* SPDX-License-Identifier: MIT */
/* Opening the device (an attached connection), and what it says of itself. */
#include "client/internal.h"
#include "lib/varlink/varlink.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The name given to Attach: the program's, as rdmactl's applications list shows it. */
static struct json_object *attach_params(void)
{
	extern char *program_invocation_short_name;
	struct json_object *p = json_object_new_object();
	char name[64];
	size_t j = 0;

	/* Only the characters Attach accepts; the rest become '_'. */
	for (const char *c = program_invocation_short_name; *c && j < sizeof(name) - 1; c++)
		name[j++] = (strchr("_.-@:", *c) || (*c >= '0' && *c <= '9') ||
			     ((*c | 0x20) >= 'a' && (*c | 0x20) <= 'z')) ? *c : '_';
	name[j] = '\0';
	return j ? client_add_str(p, "name", name) : p;
}

struct rdmad_context *rdmad_open(const char *socket, const char *device)
{
	struct rdmad_context *ctx;
	int r;

	client_ok();
	if (!socket)
		socket = getenv("RDMACTL_SOCKET");
	if (!socket || !*socket)
		socket = RDMAD_SOCKET_DEFAULT;
	if (device && strlen(device) >= sizeof(ctx->device))
		return client_fail_null(client_fail(-EINVAL, "device name too long: %s", device));
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return client_fail_null(client_fail(-ENOMEM, "out of memory"));
	if (device)
		snprintf(ctx->device, sizeof(ctx->device), "%s", device);
	r = varlink_client_connect(&ctx->varlink, socket);
	if (r < 0) {
		client_fail(r, "cannot connect to rdmad at %s: %s", socket, strerror(-r));
		free(ctx);
		return client_fail_null(r);
	}
	/* Before anything is created: every object of the context is then the program's. */
	r = client_call_plain(ctx, "io.rdmad.Daemon.Attach", attach_params(), NULL);
	if (r < 0) {
		varlink_client_free(ctx->varlink);
		free(ctx);
		return client_fail_null(r);
	}
	return ctx;
}

int rdmad_close(struct rdmad_context *ctx)
{
	if (!ctx)
		return 0;
	client_ok();
	/* Closing the connection is what destroys the objects: rdmad does it. */
	varlink_client_free(ctx->varlink);
	client_async_free(ctx);
	client_mrs_free_all(ctx);
	client_bufs_free_all(ctx);
	client_release_all(ctx);
	free(ctx);
	return 0;
}

static void copy_str(char *dst, size_t size, const char *src)
{
	snprintf(dst, size, "%s", src);
}

/* The device's record in *d, inside *reply (the caller's to put, also on failure). */
static int device_record(struct rdmad_context *ctx, struct json_object **reply, struct json_object **d)
{
	struct json_object *p = json_object_new_object();
	struct json_object *list;
	int r;

	*reply = NULL;
	if (ctx->device[0])
		client_add_str(p, "ifname", ctx->device);
	r = client_call_plain(ctx, "io.rdmad.Device.Show", p, reply);
	if (r < 0)
		return r;
	list = client_get(*reply, "devices");
	if (!list || json_object_array_length(list) < 1)
		return client_fail(-ENODEV, "rdmad has no device");
	*d = json_object_array_get_idx(list, 0);
	return 0;
}

int rdmad_query_device(struct rdmad_context *ctx, struct rdmad_device_attr *attr)
{
	struct json_object *reply, *d;
	int r = device_record(ctx, &reply, &d);

	if (r < 0) {
		json_object_put(reply);
		return r;
	}
	memset(attr, 0, sizeof(*attr));
	copy_str(attr->name, sizeof(attr->name), client_get_str(d, "ifname"));
	copy_str(attr->fw_ver, sizeof(attr->fw_ver), client_get_str(d, "fw"));
	copy_str(attr->node_guid, sizeof(attr->node_guid), client_get_str(d, "node_guid"));
	attr->device_cap_flags = client_get_u64(d, "device_cap_flags");
	attr->max_mr_size = client_get_u64(d, "max_mr_size");
	attr->page_size_cap = client_get_u64(d, "page_size_cap");
	attr->hw_ver = (uint32_t)client_get_u64(d, "hw_ver");
#define U32(f) attr->f = (uint32_t)client_get_u64(d, #f)
	U32(max_qp); U32(max_qp_wr); U32(max_send_sge); U32(max_recv_sge); U32(max_sge_rd);
	U32(max_cq); U32(max_cqe); U32(max_mr); U32(max_pd); U32(max_ah);
	U32(max_qp_rd_atom); U32(max_qp_init_rd_atom); U32(max_inline_data);
	U32(max_mkey); U32(max_mkey_entries);
#undef U32
	attr->phys_port_cnt = (uint8_t)json_object_array_length(client_get(d, "ports"));
	attr->sqd2rts = json_object_get_boolean(client_get(d, "sqd2rts"));
	json_object_put(reply);
	return 0;
}

static uint8_t port_state(const char *word)
{
	static const char *const states[] = { "DOWN", "INIT", "ARMED", "ACTIVE" };

	for (size_t i = 0; i < sizeof(states) / sizeof(states[0]); i++)
		if (!strcmp(word, states[i]))
			return (uint8_t)(RDMAD_PORT_DOWN + i);
	return 0;
}

int rdmad_query_port(struct rdmad_context *ctx, uint8_t port, struct rdmad_port_attr *attr)
{
	struct json_object *reply, *d, *ports;
	int r = device_record(ctx, &reply, &d);

	if (r < 0) {
		json_object_put(reply);
		return r;
	}
	r = -ENOENT;
	ports = client_get(d, "ports");
	for (size_t i = 0; ports && i < json_object_array_length(ports); i++) {
		struct json_object *p = json_object_array_get_idx(ports, i);

		if (client_get_u64(p, "port") != port)
			continue;
		memset(attr, 0, sizeof(*attr));
		attr->state = port_state(client_get_str(p, "state"));
		attr->max_mtu = (uint32_t)client_get_u64(p, "max_mtu");
		attr->active_mtu = (uint32_t)client_get_u64(p, "active_mtu");
		attr->gid_tbl_len = (uint32_t)client_get_u64(p, "gid_tbl_len");
		attr->max_msg_sz = (uint32_t)client_get_u64(p, "max_msg_sz");
		copy_str(attr->link_layer, sizeof(attr->link_layer), client_get_str(p, "link_layer"));
		r = 0;
	}
	json_object_put(reply);
	return r < 0 ? client_fail(r, "the device has no port %u", port) : 0;
}

int rdmad_query_gid(struct rdmad_context *ctx, uint8_t port, unsigned index, uint8_t gid[16])
{
	struct json_object *p = json_object_new_object(), *reply = NULL;
	int r;

	client_add_u64(p, "port", port);
	client_add_u64(p, "index", index);
	r = client_call(ctx, "io.rdmad.Gid.Show", p, NULL, 0, &reply);
	if (r < 0)
		return r;
	if (inet_pton(AF_INET6, client_get_str(client_get(reply, "gid"), "gid"), gid) != 1)
		r = client_fail(-EPROTO, "rdmad sent a GID that is no IPv6 address");
	json_object_put(reply);
	return r;
}
