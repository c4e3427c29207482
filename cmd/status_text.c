/* SPDX-License-Identifier: MIT */
/*
 * `rdmactl status` as text, in the manner of `resolvectl status`: blocks of
 * "label: value" lines with the labels aligned, a label's further values on
 * lines of their own under the first.  The labels are the JSON keys, so what
 * a person reads is found under the same name with -j.  Nothing is cut and
 * no JSON null is printed: what is unknown to the caller says why.
 */
#include "cmd/status.h"

#include <inttypes.h>
#include <stdarg.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A block: label → array of lines, in order. */
static void add_line(struct json_object *block, const char *label, const char *line)
{
	struct json_object *lines = json_object_object_get(block, label);

	if (!lines) {
		lines = json_object_new_array();
		json_object_object_add(block, label, lines);
	}
	json_object_array_add(lines, json_object_new_string(line ? line : "(out of memory)"));
}

static void add_linef(struct json_object *block, const char *label, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void add_linef(struct json_object *block, const char *label, const char *fmt, ...)
{
	char *line = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&line, fmt, ap) < 0)
		line = NULL;
	va_end(ap);
	add_line(block, label, line);
	free(line);
}

static int block_width(struct json_object *block)
{
	int width = 0;

	json_object_object_foreach(block, k, v) {
		(void)v;
		if ((int)strlen(k) > width)
			width = (int)strlen(k);
	}
	return width;
}

static void print_block(struct json_object *block, int width)
{
	json_object_object_foreach(block, label, lines) {
		for (size_t i = 0; i < json_object_array_length(lines); i++)
			printf("%*s%s %s\n", width, i ? "" : label, i ? " " : ":",
			       json_object_get_string(json_object_array_get_idx(lines, i)));
	}
}

/* A value as text: a list of scalars as "a,b" ("-" when empty), null as NULL (left out). */
static char *value_text(struct json_object *v)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f;

	if (!v)
		return NULL;
	if (!json_object_is_type(v, json_type_array))
		return strdup(json_object_get_string(v));
	if (json_object_array_length(v) == 0)
		return strdup("-");
	f = open_memstream(&text, &size);
	if (!f)
		return NULL;
	for (size_t i = 0; i < json_object_array_length(v); i++)
		fprintf(f, "%s%s", i ? "," : "", json_object_get_string(json_object_array_get_idx(v, i)));
	fclose(f);
	return text;
}

/* "key value key value ...": an object as one line, whole; null members left out. */
static char *fields_line(struct json_object *obj)
{
	const char *sep = "";
	char *line = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&line, &size);

	if (!f)
		return NULL;
	json_object_object_foreach(obj, key, val) {
		char *text = value_text(val);

		if (!text)
			continue;
		fprintf(f, "%s%s %s", sep, key, text);
		sep = " ";
		free(text);
	}
	fclose(f);
	return line;
}

static void add_fields_line(struct json_object *block, const char *label, struct json_object *obj)
{
	char *line = fields_line(obj);

	add_line(block, label, line);
	free(line);
}

/* Each element of a list of objects on a line of its own; empty says so. */
static void add_records(struct json_object *block, const char *label, struct json_object *list,
			const char *none)
{
	if (json_object_array_length(list) == 0 && none)
		add_line(block, label, none);
	for (size_t i = 0; i < json_object_array_length(list); i++)
		add_fields_line(block, label, json_object_array_get_idx(list, i));
}

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

/* "2 on CPU 0, 1", then a line per worker with what it carries. */
static void add_workers(struct json_object *block, struct json_object *workers)
{
	size_t n = json_object_array_length(workers);
	char *line = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&line, &size);

	if (f) {
		fprintf(f, "%zu on CPU", n);
		for (size_t i = 0; i < n; i++)
			fprintf(f, "%s %s", i ? "," : "", json_object_get_string(json_object_object_get(
				json_object_array_get_idx(workers, i), "cpu")));
		fclose(f);
	}
	add_line(block, "workers", line);
	free(line);
	add_records(block, "workers", workers, NULL);
}

/* "vnic0 forwarding passing" a line per port, "-" for none. */
static void add_vnic_ports(struct json_object *block, struct json_object *ports)
{
	if (json_object_array_length(ports) == 0)
		add_line(block, "vnic_ports", "-");
	for (size_t i = 0; i < json_object_array_length(ports); i++) {
		struct json_object *p = json_object_array_get_idx(ports, i);

		add_linef(block, "vnic_ports", "%s %s%s (ifname %s handle %s)",
			  json_object_get_string(json_object_object_get(p, "netdev")),
			  json_object_get_string(json_object_object_get(p, "oper_state")),
			  json_object_get_boolean(json_object_object_get(p, "passing")) ? " passing" : "",
			  json_object_get_string(json_object_object_get(p, "ifname")),
			  json_object_get_string(json_object_object_get(p, "handle")));
	}
}

/* "vm1 connected /run/vm1.sock pid 4242 (qemu-system-x86)" a line per vdev, "-" for none. */
static void add_vdevs(struct json_object *block, struct json_object *vdevs)
{
	if (json_object_array_length(vdevs) == 0)
		add_line(block, "vdevs", "-");
	for (size_t i = 0; i < json_object_array_length(vdevs); i++) {
		struct json_object *v = json_object_array_get_idx(vdevs, i);
		struct json_object *fe = json_object_object_get(v, "front_end");

		if (fe)
			add_linef(block, "vdevs", "%s %s %s pid %s (%s)",
				  json_object_get_string(json_object_object_get(v, "name")),
				  json_object_get_string(json_object_object_get(v, "state")),
				  json_object_get_string(json_object_object_get(v, "socket")),
				  json_object_get_string(json_object_object_get(fe, "pid")),
				  json_object_get_string(json_object_object_get(fe, "comm")));
		else
			add_linef(block, "vdevs", "%s %s %s",
				  json_object_get_string(json_object_object_get(v, "name")),
				  json_object_get_string(json_object_object_get(v, "state")),
				  json_object_get_string(json_object_object_get(v, "socket")));
	}
}

/* Who may call: root always; group rdma too for what only reads, if it exists. */
static void add_read_group(struct json_object *block, struct json_object *g)
{
	const char *name = json_object_get_string(json_object_object_get(g, "name"));

	if (json_object_get_boolean(json_object_object_get(g, "exists")))
		add_linef(block, "read_group", "%s (gid %s): its members may read and run programs "
			  "(their own objects); other changes need root",
			  name, json_object_get_string(json_object_object_get(g, "gid")));
	else
		add_linef(block, "read_group", "%s does not exist: only root may call", name);
}

/* "soft0 dek vol1: state error: ..." */
static void add_problems(struct json_object *block, struct json_object *problems)
{
	if (json_object_array_length(problems) == 0)
		add_line(block, "problems", "none");
	for (size_t i = 0; i < json_object_array_length(problems); i++) {
		struct json_object *p = json_object_array_get_idx(problems, i), *id = NULL;

		/* The object, under the key its kind's records name it by. */
		json_object_object_foreach(p, key, val)
			if (strcmp(key, "ifname") != 0 && strcmp(key, "kind") != 0 &&
			    strcmp(key, "reason") != 0)
				id = val;

		add_linef(block, "problems", "%s %s%s%s: %s",
			  json_object_get_string(json_object_object_get(p, "ifname")),
			  json_object_get_string(json_object_object_get(p, "kind")), id ? " " : "",
			  id ? json_object_get_string(id) : "",
			  json_object_get_string(json_object_object_get(p, "reason")));
	}
}

/* "pid 4711 comm app name x owns qps 2 cqs 1": one line per attached program, its objects that are not 0. */
static void add_applications(struct json_object *block, struct json_object *list)
{
	if (!json_object_array_length(list))
		add_line(block, "applications", "none attached");
	for (size_t i = 0; i < json_object_array_length(list); i++) {
		struct json_object *a = json_object_array_get_idx(list, i), *name;
		char *line = NULL;
		size_t size = 0;
		FILE *f = open_memstream(&line, &size);

		if (!f)
			return;
		fprintf(f, "pid %s comm %s", json_object_get_string(json_object_object_get(a, "pid")),
			json_object_get_string(json_object_object_get(a, "comm")));
		if (json_object_object_get_ex(a, "name", &name))
			fprintf(f, " name %s", json_object_get_string(name));
		fprintf(f, " owns");
		json_object_object_foreach(json_object_object_get(a, "objects"), kind, n)
			if (json_object_get_int64(n))
				fprintf(f, " %s %s", kind, json_object_get_string(n));
		fclose(f);
		add_line(block, "applications", line);
		free(line);
	}
}

/*
 * "alice (uid 1001): 2 programs, pds 1/256 mrs 3/1024 ... registered_bytes 8192/memlock":
 * one line per tenant, what it holds against its limits.
 */
static void add_tenants(struct json_object *block, struct json_object *list)
{
	if (!json_object_array_length(list))
		add_line(block, "tenants", "none");
	for (size_t i = 0; i < json_object_array_length(list); i++) {
		struct json_object *t = json_object_array_get_idx(list, i);
		struct json_object *limits = json_object_object_get(t, "limits");
		int64_t programs = json_object_get_int64(json_object_object_get(t, "programs"));
		uid_t uid = (uid_t)json_object_get_int64(json_object_object_get(t, "uid"));
		struct passwd *pw = getpwuid(uid);
		char *line = NULL;
		size_t size = 0;
		FILE *f = open_memstream(&line, &size);

		if (!f)
			return;
		fprintf(f, "%s (uid %u): %lld program%s,", pw ? pw->pw_name : "?", (unsigned)uid,
			(long long)programs, programs == 1 ? "" : "s");
		json_object_object_foreach(json_object_object_get(t, "objects"), kind, n) {
			struct json_object *max = json_object_object_get(limits, kind);

			/* No limit of registered bytes per uid: each program's RLIMIT_MEMLOCK is. */
			fprintf(f, " %s %s/%s", kind, json_object_get_string(n),
				max ? json_object_get_string(max) : "memlock");
		}
		fclose(f);
		add_line(block, "tenants", line);
		free(line);
	}
}

static struct json_object *daemon_block(struct json_object *doc)
{
	struct json_object *block = json_object_new_object();
	char uptime[64];

	json_object_object_foreach(doc, key, val) {
		if (strcmp(key, "uptime_usec") == 0) {
			/* People read durations, scripts read microseconds (-j). */
			format_duration(uptime, sizeof(uptime), (uint64_t)json_object_get_int64(val));
			add_line(block, "uptime", uptime);
		} else if (strcmp(key, "config_file") == 0) {
			add_linef(block, key, "%s%s", json_object_get_string(val),
				  json_object_get_boolean(json_object_object_get(doc, "config_read")) ?
				  "" : " (not found: the built-in defaults are in force)");
		} else if (strcmp(key, "read_group") == 0) {
			add_read_group(block, val);
		} else if (strcmp(key, "workers") == 0) {
			add_workers(block, val);
		} else if (strcmp(key, "vnic_ports") == 0) {
			add_vnic_ports(block, val);
		} else if (strcmp(key, "applications") == 0) {
			add_applications(block, val);
		} else if (strcmp(key, "tenants") == 0) {
			add_tenants(block, val);
		} else if (strcmp(key, "ifnames") == 0) {
			char *names = value_text(val);

			add_line(block, key, names);
			free(names);
		} else if (json_object_is_type(val, json_type_object)) {
			add_fields_line(block, key, val);
		} else if (strcmp(key, "started_usec") != 0 && strcmp(key, "config_read") != 0 &&
			   strcmp(key, "device_status") != 0 && strcmp(key, "problems") != 0) {
			char *text = value_text(val);

			if (text)
				add_line(block, key, text);
			free(text);
		}
	}
	add_problems(block, json_object_object_get(doc, "problems"));
	return block;
}

/* "pds 1 mrs 0 ...": null objects are what the caller may not count. */
static void add_objects(struct json_object *block, struct json_object *objects)
{
	char *line = NULL;
	size_t size = 0;
	const char *sep = "";
	FILE *f;

	if (!objects) {
		add_line(block, "objects", "(not permitted)");
		return;
	}
	f = open_memstream(&line, &size);
	if (f) {
		json_object_object_foreach(objects, kind, n) {
			fprintf(f, "%s%s %s", sep, kind, n ? json_object_get_string(n) : "(root only)");
			sep = " ";
		}
		fclose(f);
	}
	add_line(block, "objects", line);
	free(line);
}

/* "rts 2 reset 1": each record's state and count, "-" for no QP. */
static void add_qp_states(struct json_object *block, struct json_object *states)
{
	char *line = NULL;
	size_t size = 0;
	FILE *f;

	if (json_object_array_length(states) == 0) {
		add_line(block, "qp_states", "-");
		return;
	}
	f = open_memstream(&line, &size);
	if (f) {
		for (size_t i = 0; i < json_object_array_length(states); i++) {
			struct json_object *rec = json_object_array_get_idx(states, i);

			fprintf(f, "%s%s %s", i ? " " : "",
				json_object_get_string(json_object_object_get(rec, "state")),
				json_object_get_string(json_object_object_get(rec, "qps")));
		}
		fclose(f);
	}
	add_line(block, "qp_states", line);
	free(line);
}

/* Each of keys a line of its own, labelled with it: a number, or a list ("-" when empty, or null). */
static void add_scalars(struct json_object *block, struct json_object *obj, const char *const *keys)
{
	for (; *keys; keys++) {
		char *text = value_text(json_object_object_get(obj, *keys));

		add_line(block, *keys, text ? text : "-");
		free(text);
	}
}

static struct json_object *device_block(struct json_object *dev)
{
	struct json_object *block = json_object_new_object();
	struct json_object *states = json_object_object_get(dev, "qp_states");
	struct json_object *deks = json_object_object_get(dev, "deks");
	struct json_object *login = json_object_object_get(dev, "crypto_login");

	add_line(block, "ifname", json_object_get_string(json_object_object_get(dev, "ifname")));
	add_records(block, "ports", json_object_object_get(dev, "ports"), "-");
	add_objects(block, json_object_object_get(dev, "objects"));
	add_qp_states(block, states);
	add_records(block, "pools", json_object_object_get(dev, "pools"), "-");
	if (deks)
		add_records(block, "deks", deks, "-");
	else
		add_line(block, "deks", "(only root may see DEKs)");
	add_line(block, "crypto_login", login ? json_object_get_string(login) : "(only root may see it)");
	add_vdevs(block, json_object_object_get(dev, "vdevs"));
	add_scalars(block, dev, (const char *const[]){ "sqd_qps", "recoveries", "sig_stops",
						       "refused_not_peer", NULL });
	return block;
}

void status_print_text(struct json_object *doc)
{
	struct json_object *devices = json_object_object_get(doc, "device_status");
	struct json_object *blocks = json_object_new_array();
	int width = 0;

	/* The daemon's block, then one per device, their labels in one column. */
	json_object_array_add(blocks, daemon_block(doc));
	for (size_t i = 0; i < json_object_array_length(devices); i++)
		json_object_array_add(blocks, device_block(json_object_array_get_idx(devices, i)));
	for (size_t i = 0; i < json_object_array_length(blocks); i++)
		if (block_width(json_object_array_get_idx(blocks, i)) > width)
			width = block_width(json_object_array_get_idx(blocks, i));
	for (size_t i = 0; i < json_object_array_length(blocks); i++) {
		if (i)
			putchar('\n');
		print_block(json_object_array_get_idx(blocks, i), width);
	}
	json_object_put(blocks);
	fflush(stdout);
}
