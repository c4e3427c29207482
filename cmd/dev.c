/* SPDX-License-Identifier: MIT */
/* rdmactl dev: devices, their ports and offload capabilities. */
#include "cmd/rdmactl.h"
#include "cmd/output.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void complete_devices(struct ctl *ctl, const char *prefix,
		      void (*add)(void *data, const char *word), void *data)
{
	struct json_object *reply, *list;
	char *error = NULL;

	if (ctl_call_raw(ctl, "io.rdmad.Device.List", NULL, &reply, &error) < 0)
		return;
	if (!error && json_object_object_get_ex(reply, "ifnames", &list))
		for (size_t i = 0; i < json_object_array_length(list); i++) {
			const char *name = json_object_get_string(json_object_array_get_idx(list, i));

			if (strncmp(name, prefix, strlen(prefix)) == 0)
				add(data, name);
		}
	free(error);
	json_object_put(reply);
}

static int dev_show(struct ctl *ctl, const struct cmd_args *args)
{
	const char *name = arg_get(args, "DEV");
	struct json_object *params = NULL, *reply, *devices;
	int r;

	if (name) {
		params = json_object_new_object();
		json_object_object_add(params, "ifname", json_object_new_string(name));
	}
	r = ctl_call(ctl, args->path, "io.rdmad.Device.Show", params, &reply);
	json_object_put(params);
	if (r < 0)
		return r;
	devices = json_object_object_get(reply, "devices");
	ctl->out->begin_list(ctl);
	for (size_t i = 0; i < json_object_array_length(devices); i++) {
		struct json_object *dev = json_object_array_get_idx(devices, i);

		if (!ctl->details && !ctl->json) {
			/* The short form: identity, ports, the RoCE receive path; -d or -j for everything. */
			struct json_object *brief = json_object_new_object(), *datapath, *roce, *receive;
			static const char *const keys[] = {
				"ifindex", "ifname", "backend", "node_type", "fw", "node_guid", "ports",
			};

			for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
				json_object_object_add(brief, keys[k],
						       json_object_get(json_object_object_get(dev, keys[k])));
			if (json_object_object_get_ex(dev, "datapath", &datapath) &&
			    json_object_object_get_ex(datapath, "roce", &roce) &&
			    json_object_object_get_ex(roce, "receive", &receive)) {
				roce = json_object_new_object();
				json_object_object_add(roce, "receive", json_object_get(receive));
				json_object_object_add(brief, "roce", roce);
			}
			ctl->out->record(ctl, brief, NULL, "ifname");
			json_object_put(brief);
		} else {
			ctl->out->record(ctl, dev, NULL, "ifname");
		}
	}
	ctl->out->end(ctl);
	json_object_put(reply);
	return 0;
}

static int dev_list(struct ctl *ctl, const struct cmd_args *args)
{
	struct json_object *reply, *devices;
	int r = ctl_call(ctl, args->path, "io.rdmad.Device.List", NULL, &reply);

	if (r < 0)
		return r;
	devices = json_object_object_get(reply, "ifnames");
	if (ctl->json) {
		output_print_json(ctl, devices);
	} else {
		for (size_t i = 0; i < json_object_array_length(devices); i++)
			puts(json_object_get_string(json_object_array_get_idx(devices, i)));
	}
	json_object_put(reply);
	return 0;
}

static const struct cmd_arg dev_show_args[] = {
	{ .name = "DEV", .kind = ARG_POSITIONAL, .help = "the device (default: all)",
	  .complete = complete_devices },
	{ NULL },
};

const struct cmd cmd_dev[] = {
	{ .name = "show", .summary = "Show devices: attributes, ports, limits, offloads (-d for all)",
	  .args = dev_show_args, .run = dev_show, .is_default = true },
	{ .name = "list", .summary = "List device names, one per line", .run = dev_list },
	{ NULL },
};
