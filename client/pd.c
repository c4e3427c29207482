/* SPDX-License-Identifier: MIT */
/* Protection domains and address handles. */
#include "client/internal.h"

#include <arpa/inet.h>
#include <stdlib.h>

int client_destroy_handle(struct rdmad_context *ctx, const char *method, uint32_t handle)
{
	return client_call(ctx, method, client_add_u64(json_object_new_object(), "handle", handle),
			   NULL, 0, NULL);
}

struct rdmad_pd *rdmad_alloc_pd(struct rdmad_context *ctx)
{
	struct json_object *reply = NULL;
	struct rdmad_pd *pd = calloc(1, sizeof(*pd));
	int r;

	if (!pd)
		return client_fail_null(client_fail(-ENOMEM, "out of memory"));
	r = client_call(ctx, "io.rdmad.Pd.Create", json_object_new_object(), NULL, 0, &reply);
	if (r < 0) {
		free(pd);
		return client_fail_null(r);
	}
	pd->context = ctx;
	pd->handle = (uint32_t)client_get_u64(client_get(reply, "pd"), "handle");
	json_object_put(reply);
	return client_hold(ctx, pd);
}

int rdmad_dealloc_pd(struct rdmad_pd *pd)
{
	int r = client_destroy_handle(pd->context, "io.rdmad.Pd.Destroy", pd->handle);

	if (r == 0)
		client_release(pd->context, pd);
	return r;
}

/* The members of an address vector (io.rdmad.Qp's Av, io.rdmad.Ah.Create) into params. */
int client_add_av(struct json_object *params, const struct rdmad_ah_attr *attr)
{
	char dgid[INET6_ADDRSTRLEN];

	if (!inet_ntop(AF_INET6, attr->dgid, dgid, sizeof(dgid)))
		return client_fail(-EINVAL, "dgid: not a GID");
	client_add_str(params, "dgid", dgid);
	client_add_u64(params, "sgid_index", attr->sgid_index);
	client_add_u64(params, "flow_label", attr->flow_label);
	if (attr->hop_limit)
		client_add_u64(params, "hop_limit", attr->hop_limit);
	client_add_u64(params, "traffic_class", attr->traffic_class);
	return 0;
}

struct rdmad_ah *rdmad_create_ah(struct rdmad_pd *pd, const struct rdmad_ah_attr *attr)
{
	struct json_object *p = json_object_new_object(), *reply = NULL;
	struct rdmad_ah *ah;
	int r;

	client_ok();
	client_add_u64(p, "pd", pd->handle);
	if (attr->port_num)
		client_add_u64(p, "port", attr->port_num);
	r = client_add_av(p, attr);
	ah = r < 0 ? NULL : calloc(1, sizeof(*ah));
	if (!ah) {
		json_object_put(p);
		return client_fail_null(r < 0 ? r : client_fail(-ENOMEM, "out of memory"));
	}
	r = client_call(pd->context, "io.rdmad.Ah.Create", p, NULL, 0, &reply);
	if (r < 0) {
		free(ah);
		return client_fail_null(r);
	}
	*ah = (struct rdmad_ah){ .context = pd->context, .pd = pd,
				 .handle = (uint32_t)client_get_u64(client_get(reply, "ah"), "handle") };
	json_object_put(reply);
	return client_hold(pd->context, ah);
}

int rdmad_destroy_ah(struct rdmad_ah *ah)
{
	int r = client_destroy_handle(ah->context, "io.rdmad.Ah.Destroy", ah->handle);

	if (r == 0)
		client_release(ah->context, ah);
	return r;
}
