/* SPDX-License-Identifier: MIT */
/*
 * What `rdmactl status` says, gathered from the daemon's replies into one
 * document: io.rdmad.Daemon.GetStatus as it is, and for each device its
 * ports, its objects by kind, its QPs by state, its pools, DEKs, crypto
 * login and vdevs, its recoveries, and the problems found among them.  The text and
 * the JSON output both print this document, so they say the same; its keys
 * are rdmad-varlink(7)'s vocabulary, as every reply's.
 */
#include "cmd/status.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PERMISSION_DENIED "org.varlink.service.PermissionDenied"

/*
 * The kinds listed whole, which users name, with the interface that lists
 * them and the key of its list.  The others are counted by the daemon
 * (Device.CountObjects): a device may hold tens of thousands of QPs.
 */
static const struct {
	const char *kind, *iface, *key;
} listed_kinds[] = {
	{ "pool", "io.rdmad.Pool", "pools" },
	{ "dek", "io.rdmad.Dek", "deks" },
	{ "vdev", "io.rdmad.Vdev", "vdevs" },
};

/* What is known of one device while its section is made. */
struct device_facts {
	const char *name;
	struct json_object *section;   /* the device's part of the document */
	struct json_object *problems;  /* the document's list, shared by every device */
	struct json_object *counts;    /* its Device.CountObjects record; NULL when refused */
	struct json_object *lists[sizeof(listed_kinds) / sizeof(listed_kinds[0])];
};

static struct json_object *string_or_null(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

static const char *get_string(struct json_object *o, const char *key)
{
	struct json_object *v = json_object_object_get(o, key);

	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

static void add_problem(struct device_facts *d, const char *kind, const char *key,
			struct json_object *value, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/*
 * One problem: {"ifname", "kind", KEY, "reason"}, KEY naming the object as
 * its own records do: "handle" (a QP), "name" (a pool, a DEK), "port", "kek".
 */
static void add_problem(struct device_facts *d, const char *kind, const char *key,
			struct json_object *value, const char *fmt, ...)
{
	struct json_object *p = json_object_new_object();
	char *reason = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&reason, fmt, ap) < 0)
		reason = NULL;
	va_end(ap);
	json_object_object_add(p, "ifname", json_object_new_string(d->name));
	json_object_object_add(p, "kind", json_object_new_string(kind));
	json_object_object_add(p, key, value);
	json_object_object_add(p, "reason", json_object_new_string(reason ? reason : "(out of memory)"));
	free(reason);
	json_object_array_add(d->problems, p);
}

/*
 * reply[key] of method called on the device (named by its parameter
 * device_key); *value is NULL (and 0 returned) when the daemon refuses the
 * caller (DEKs are root's even to read).
 */
static int call_device(struct ctl *ctl, const char *path, const char *method, const char *device_key,
		       const char *device, const char *key, struct json_object **value)
{
	struct json_object *params = json_object_new_object(), *reply = NULL;
	char *error = NULL;
	int r;

	json_object_object_add(params, device_key, json_object_new_string(device));
	r = ctl_call_raw(ctl, method, params, &reply, &error);
	json_object_put(params);
	*value = NULL;
	if (r < 0)
		return r;
	if (error) {
		bool denied = strcmp(error, PERMISSION_DENIED) == 0;

		if (!denied)
			r = ctl_fail("%s: %s: %s", path, method, error);
		free(error);
		json_object_put(reply);
		return r;
	}
	*value = json_object_get(json_object_object_get(reply, key));
	json_object_put(reply);
	return 0;
}

/* "port 1 ACTIVE ..." as its record: state, physical state, link layer, MTU. */
static struct json_object *ports_section(struct device_facts *d, struct json_object *dev)
{
	static const char *const keys[] = { "port", "state", "physical_state", "link_layer",
					    "active_mtu" };
	struct json_object *ports = json_object_object_get(dev, "ports"), *out = json_object_new_array();

	for (size_t i = 0; i < json_object_array_length(ports); i++) {
		struct json_object *p = json_object_array_get_idx(ports, i), *brief = json_object_new_object();
		const char *state = get_string(p, "state");

		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			json_object_object_add(brief, keys[k], json_object_get(json_object_object_get(p, keys[k])));
		json_object_array_add(out, brief);
		if (state && strcmp(state, "ACTIVE") != 0)
			add_problem(d, "port", "port", json_object_get(json_object_object_get(p, "port")),
				    "state %s", state);
	}
	return out;
}

/* counts[key] of the device's CountObjects record, or null when the caller may not count. */
static struct json_object *counted(const struct device_facts *d, const char *key)
{
	return d->counts ? json_object_get(json_object_object_get(d->counts, key)) : NULL;
}

static struct json_object *kind_list(const struct device_facts *d, const char *kind)
{
	for (size_t k = 0; k < sizeof(listed_kinds) / sizeof(listed_kinds[0]); k++)
		if (strcmp(listed_kinds[k].kind, kind) == 0)
			return d->lists[k];
	return NULL;
}

/* Each QP in err is a problem. */
static void err_qp_problems(struct device_facts *d)
{
	struct json_object *err_qps = d->counts ? json_object_object_get(d->counts, "err_qps") : NULL;

	for (size_t i = 0; i < json_object_array_length(err_qps); i++)
		add_problem(d, "qp", "handle", json_object_get(json_object_array_get_idx(err_qps, i)),
			    "state err");
}

/* Its pools, DEKs and vdevs, listed whole. */
static int list_named_kinds(struct ctl *ctl, const char *path, struct device_facts *d)
{
	char method[64];
	int r = 0;

	for (size_t k = 0; k < sizeof(listed_kinds) / sizeof(listed_kinds[0]) && r >= 0; k++) {
		snprintf(method, sizeof(method), "%s.List", listed_kinds[k].iface);
		r = call_device(ctl, path, method, "device", d->name, listed_kinds[k].key, &d->lists[k]);
	}
	return r;
}

/* The device's record in Device.CountObjects's reply: how many of each object, QPs by state. */
static int count_objects(struct ctl *ctl, const char *path, struct device_facts *d)
{
	struct json_object *devices;
	int r = call_device(ctl, path, "io.rdmad.Device.CountObjects", "ifname", d->name, "devices",
			    &devices);

	if (r < 0 || !devices)
		return r;
	d->counts = json_object_get(json_object_array_get_idx(devices, 0));
	json_object_put(devices);
	return 0;
}

/* Each pool's name, type and how many of its MKEYs are free; an exhausted one is a problem. */
static struct json_object *pools_section(struct device_facts *d)
{
	static const char *const keys[] = { "name", "type", "size", "available", "in_use",
					    "borrow_failures" };
	struct json_object *pools = kind_list(d, "pool"), *out = json_object_new_array();

	for (size_t i = 0; i < json_object_array_length(pools); i++) {
		struct json_object *p = json_object_array_get_idx(pools, i), *brief = json_object_new_object();

		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			json_object_object_add(brief, keys[k], json_object_get(json_object_object_get(p, keys[k])));
		json_object_array_add(out, brief);
		if (json_object_get_int64(json_object_object_get(p, "size")) > 0 &&
		    json_object_get_int64(json_object_object_get(p, "available")) == 0)
			add_problem(d, "pool", "name", string_or_null(get_string(p, "name")),
				    "no MKEY available (%lld borrows refused)",
				    (long long)json_object_get_int64(json_object_object_get(p, "borrow_failures")));
	}
	return out;
}

/* Each DEK's name, handle and state (null when the caller may not see DEKs); state error is a problem. */
static struct json_object *deks_section(struct device_facts *d)
{
	struct json_object *deks = kind_list(d, "dek"), *out;

	if (!deks)
		return NULL;
	out = json_object_new_array();
	for (size_t i = 0; i < json_object_array_length(deks); i++) {
		struct json_object *k = json_object_array_get_idx(deks, i), *brief = json_object_new_object();
		const char *state = get_string(k, "state"), *why = get_string(k, "error");

		json_object_object_add(brief, "name", json_object_get(json_object_object_get(k, "name")));
		json_object_object_add(brief, "handle", json_object_get(json_object_object_get(k, "handle")));
		json_object_object_add(brief, "state", string_or_null(state));
		json_object_object_add(brief, "error", string_or_null(why));
		json_object_array_add(out, brief);
		if (state && strcmp(state, "error") == 0)
			add_problem(d, "dek", "name", string_or_null(get_string(k, "name")), "state error: %s",
				    why ? why : "(no reason given)");
	}
	return out;
}

/* Each vdev's name, state, socket and front end (null while listening). */
static struct json_object *vdevs_section(struct device_facts *d)
{
	static const char *const keys[] = { "name", "state", "socket", "front_end" };
	struct json_object *vdevs = kind_list(d, "vdev"), *out = json_object_new_array();

	for (size_t i = 0; i < json_object_array_length(vdevs); i++) {
		struct json_object *v = json_object_array_get_idx(vdevs, i), *brief = json_object_new_object();

		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			json_object_object_add(brief, keys[k], json_object_get(json_object_object_get(v, keys[k])));
		json_object_array_add(out, brief);
	}
	return out;
}

/* The login's state (null when the caller may not see it); invalid is a problem. */
static int crypto_login_section(struct ctl *ctl, const char *path, struct device_facts *d,
				struct json_object **out)
{
	struct json_object *login;
	const char *state;
	int r = call_device(ctl, path, "io.rdmad.Dek.GetLogin", "device", d->name, "login", &login);

	*out = NULL;
	if (r < 0 || !login)
		return r;
	state = get_string(login, "state");
	*out = string_or_null(state);
	if (state && strcmp(state, "invalid") == 0)
		add_problem(d, "crypto_login", "kek", string_or_null(get_string(login, "kek")),
			    "invalid: its import KEK or credential is no longer in rdmad.conf");
	json_object_put(login);
	return 0;
}

static int device_section(struct ctl *ctl, const char *path, struct json_object *dev,
			  struct json_object *problems, struct json_object **out)
{
	struct device_facts d = { .name = get_string(dev, "ifname"), .problems = problems };
	struct json_object *login = NULL, *dp = json_object_object_get(dev, "datapath");
	/* The data-path counters status shows, under their own keys. */
	static const char *const counters[] = { "recoveries", "sig_stops", "refused_not_peer" };
	int r;

	if (!d.name)
		return ctl_fail("%s: a device without ifname", path);
	r = count_objects(ctl, path, &d);
	if (r >= 0)
		r = list_named_kinds(ctl, path, &d);
	if (r >= 0)
		r = crypto_login_section(ctl, path, &d, &login);
	if (r >= 0) {
		d.section = json_object_new_object();
		json_object_object_add(d.section, "ifname", json_object_new_string(d.name));
		json_object_object_add(d.section, "ports", ports_section(&d, dev));
		json_object_object_add(d.section, "objects", counted(&d, "objects"));
		json_object_object_add(d.section, "qp_states", counted(&d, "qp_states"));
		err_qp_problems(&d);
		json_object_object_add(d.section, "pools", pools_section(&d));
		json_object_object_add(d.section, "deks", deks_section(&d));
		json_object_object_add(d.section, "vdevs", vdevs_section(&d));
		json_object_object_add(d.section, "crypto_login", login);
		/*
		 * Recoveries done, signature stops, and requests its responders
		 * refused as not their peer's (docs/decisions.md).
		 */
		json_object_object_add(d.section, "sqd_qps", counted(&d, "sqd_qps"));
		for (size_t c = 0; c < sizeof(counters) / sizeof(counters[0]); c++)
			json_object_object_add(d.section, counters[c],
					       json_object_get(json_object_object_get(dp, counters[c])));
	}
	for (size_t k = 0; k < sizeof(listed_kinds) / sizeof(listed_kinds[0]); k++)
		json_object_put(d.lists[k]);
	json_object_put(d.counts);
	*out = d.section;
	return r;
}

int status_gather(struct ctl *ctl, const char *path, struct json_object **doc)
{
	struct json_object *status, *reply = NULL, *devices, *sections, *problems;
	int r = ctl_call(ctl, path, "io.rdmad.Daemon.GetStatus", NULL, &status);

	if (r < 0)
		return r;
	r = ctl_call(ctl, path, "io.rdmad.Device.Show", NULL, &reply);
	if (r < 0) {
		json_object_put(status);
		return r;
	}
	devices = json_object_object_get(reply, "devices");
	sections = json_object_new_array();
	problems = json_object_new_array();
	for (size_t i = 0; i < json_object_array_length(devices) && r >= 0; i++) {
		struct json_object *section = NULL;

		r = device_section(ctl, path, json_object_array_get_idx(devices, i), problems, &section);
		if (section)
			json_object_array_add(sections, section);
	}
	json_object_put(reply);
	reply = NULL;
	/* The programs attached through librdmad, and what each owns. */
	if (r >= 0 && (r = ctl_call(ctl, path, "io.rdmad.Daemon.ListApplications", NULL, &reply)) >= 0) {
		json_object_object_add(status, "applications",
				       json_object_get(json_object_object_get(reply, "applications")));
		json_object_put(reply);
	}
	json_object_object_add(status, "device_status", sections);
	json_object_object_add(status, "problems", problems);
	if (r < 0) {
		json_object_put(status);
		return r;
	}
	*doc = status;
	return 0;
}
