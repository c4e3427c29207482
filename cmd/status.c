/* SPDX-License-Identifier: MIT */
/* rdmactl status */
#include "cmd/rdmactl.h"
#include "cmd/output.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void format_duration(char *buf, size_t size, uint64_t usec)
{
	uint64_t s = usec / 1000000;

	if (s >= 86400)
		snprintf(buf, size, "%" PRIu64 "d %" PRIu64 "h %" PRIu64 "min", s / 86400,
			 s % 86400 / 3600, s % 3600 / 60);
	else if (s >= 3600)
		snprintf(buf, size, "%" PRIu64 "h %" PRIu64 "min %" PRIu64 "s", s / 3600,
			 s % 3600 / 60, s % 60);
	else if (s >= 60)
		snprintf(buf, size, "%" PRIu64 "min %" PRIu64 "s", s / 60, s % 60);
	else
		snprintf(buf, size, "%" PRIu64 ".%03" PRIu64 "s", s, usec / 1000 % 1000);
}

/* "2 on CPU 0, 1" */
static struct json_object *workers_summary(struct json_object *workers)
{
	size_t n = json_object_array_length(workers);
	char buf[256];
	size_t used;

	used = (size_t)snprintf(buf, sizeof(buf), "%zu on CPU", n);
	for (size_t i = 0; i < n && used < sizeof(buf); i++)
		used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s %d", i ? "," : "",
					 json_object_get_int(json_object_object_get(
						 json_object_array_get_idx(workers, i), "cpu")));
	return json_object_new_string(buf);
}

/* "vnic0 forwarding passing, vnic1 drop_all", or "-" */
static struct json_object *vnic_summary(struct json_object *ports)
{
	size_t n = json_object_array_length(ports);
	struct json_object *line;
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	if (!f)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		struct json_object *p = json_object_array_get_idx(ports, i);

		fprintf(f, "%s%s %s%s", i ? ", " : "",
			json_object_get_string(json_object_object_get(p, "ifname")),
			json_object_get_string(json_object_object_get(p, "oper_state")),
			json_object_get_boolean(json_object_object_get(p, "passing")) ? " passing" : "");
	}
	if (!n)
		fputs("-", f);
	fclose(f);
	line = json_object_new_string(buf);
	free(buf);
	return line;
}

/* "open 3 max 4096 ...": an object of scalars as one line, whole, where the text output would wrap it. */
static struct json_object *fields_line(struct json_object *obj)
{
	struct json_object *line;
	const char *sep = "";
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	if (!f)
		return NULL;
	json_object_object_foreach(obj, key, val) {
		fprintf(f, "%s%s %s", sep, key, json_object_get_string(val));
		sep = " ";
	}
	fclose(f);
	line = json_object_new_string(buf);
	free(buf);
	return line;
}

int cmd_status_run(struct ctl *ctl, const struct cmd_args *args)
{
	struct json_object *reply, *shown;
	char uptime[64];

	int r = ctl_call(ctl, args->path, "io.rdmad.Daemon.GetStatus", NULL, &reply);

	if (r < 0)
		return r;
	if (ctl->json) {
		ctl->out->details(ctl, reply);
	} else {
		/* People read durations, scripts read microseconds (-j). */
		format_duration(uptime, sizeof(uptime),
				(uint64_t)json_object_get_int64(json_object_object_get(reply, "uptime_usec")));
		shown = json_object_new_object();
		json_object_object_foreach(reply, key, val) {
			if (strcmp(key, "uptime_usec") == 0)
				json_object_object_add(shown, "uptime", json_object_new_string(uptime));
			else if (strcmp(key, "workers") == 0)
				json_object_object_add(shown, key, workers_summary(val));
			else if (strcmp(key, "vnic_ports") == 0)
				json_object_object_add(shown, key, vnic_summary(val));
			else if (json_object_is_type(val, json_type_object))
				json_object_object_add(shown, key, fields_line(val));
			else if (strcmp(key, "started_usec") != 0)
				json_object_object_add(shown, key, json_object_get(val));
		}
		ctl->out->details(ctl, shown);
		json_object_put(shown);
	}
	ctl->out->end(ctl);
	json_object_put(reply);
	return 0;
}
