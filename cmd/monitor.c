/* SPDX-License-Identifier: MIT */
/* rdmactl monitor: device events as they happen, until interrupted. */
#include "cmd/rdmactl.h"
#include "cmd/output.h"
#include "lib/json-util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const event_types[] = {
	"object_created", "object_destroyed", "qp_state", "sq_drained", "sig_error",
	"wr_canceled", "recovery", "cq_error", "pool_borrow", "pool_return", "pool_resize",
	"vnic_state", "vnic_mac_table", "vnic_trap",
	"application_attached", "application_detached", NULL,
};

/*
 * " pid 4711 uid 0 comm app owns qps 2 cqs 1": an application event's
 * process, and its objects that are not 0: those it owns when it attached,
 * those rdmad reclaimed when it went away ("reclaimed nothing" if none).
 */
static void print_application(struct json_object *app, bool detached)
{
	json_object_object_foreach(app, key, val) {
		if (strcmp(key, "objects")) {
			printf(" %s %s", key, json_object_get_string(val));
			continue;
		}
		const char *word = detached ? " reclaimed" : " owns";

		json_object_object_foreach(val, kind, n)
			if (json_object_get_int64(n)) {
				printf("%s %s %s", word, kind, json_object_get_string(n));
				word = "";
			}
		if (detached && word[0])
			printf(" reclaimed nothing");
	}
}

/* " KEY VALUE", the value as lists print it (keys in hex). */
static void print_value(const char *kind, const char *key, struct json_object *v)
{
	char *text = output_scalar_text(kind, key, v);

	printf(" %s %s", key, text ? text : "(out of memory)");
	free(text);
}

/* "12:34:56.789 qp_state qp 5: ifname soft0 ifindex 0 old_state rtr new_state rts" */
static void print_text(struct json_object *event)
{
	struct json_object *rest = json_object_new_object();
	int64_t usec = json_object_get_int64(json_object_object_get(event, "time_usec"));
	time_t sec = (time_t)(usec / 1000000);
	const char *kind = json_get_string(event, "kind");
	char stamp[32];
	struct tm tm;

	localtime_r(&sec, &tm);
	strftime(stamp, sizeof(stamp), "%H:%M:%S", &tm);
	printf("%s.%03d %s", stamp, (int)(usec / 1000 % 1000), json_get_string(event, "type"));
	if (kind) {
		char *handle = output_scalar_text(kind, "handle", json_object_object_get(event, "handle"));

		printf(" %s %s", kind, handle ? handle : "(out of memory)");
		free(handle);
	}
	json_object_object_foreach(event, key, val) {
		if (strcmp(key, "type") && strcmp(key, "time_usec") && strcmp(key, "kind") &&
		    strcmp(key, "handle"))
			json_object_object_add(rest, key, json_object_get(val));
	}
	printf(":");
	json_object_object_foreach(rest, k, v) {
		if (strcmp(k, "application") == 0)
			print_application(v, strcmp(json_get_string(event, "type"), "application_detached") == 0);
		else
			print_value(kind, k, v);
	}
	printf("\n");
	json_object_put(rest);
}

static int print_event(struct json_object *reply, void *data)
{
	struct ctl *ctl = data;
	struct json_object *event = json_object_object_get(reply, "event");

	if (ctl->json)
		output_print_json(ctl, event);
	else
		print_text(event);
	fflush(stdout);
	return 0;
}

int cmd_monitor_run(struct ctl *ctl, const struct cmd_args *args)
{
	struct json_object *params = json_object_new_object(), *types;
	int r;

	if (arg_count(args, "--type")) {
		types = json_object_new_array();
		for (unsigned i = 0; i < arg_count(args, "--type"); i++)
			json_object_array_add(types, json_object_new_string(arg_get_nth(args, "--type", i)));
		json_object_object_add(params, "types", types);
	}
	/* The stream only ends when the daemon goes away: that is a failure for a monitor. */
	r = ctl_call_more(ctl, args->path, "io.rdmad.Monitor.Subscribe", params, print_event, ctl);
	json_object_put(params);
	return r < 0 ? r : ctl_fail("%s: the daemon ended the stream", args->path);
}

const struct cmd_arg cmd_monitor_args[] = {
	{ .name = "--type", .kind = ARG_OPTION, .metavar = "TYPE", .repeat = true,
	  .values = event_types, .help = "only events of this type (may be repeated)" },
	{ NULL },
};
