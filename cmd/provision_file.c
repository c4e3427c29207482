/* SPDX-License-Identifier: MIT */
/*
 * The provisioning file, both ways: parsed and checked (it comes from
 * outside: every member is typed, bounded and named in the error, unknown
 * members are refused, nothing is trusted), and written from a configuration
 * (dump).  The format is in rdmactl(8), "PROVISIONING FILE".
 */
#include "cmd/provision.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Deeper than any valid file (top, devices, device, list, item, member). */
#define JSON_DEPTH_MAX 8

void prov_config_free(struct prov_config *c)
{
	for (unsigned i = 0; i < c->n_devices; i++) {
		free(c->devices[i].deks);
		free(c->devices[i].pools);
		free(c->devices[i].vdevs);
	}
	free(c->devices);
	memset(c, 0, sizeof(*c));
}

struct prov_device *prov_find_device(const struct prov_config *c, const char *name)
{
	for (unsigned i = 0; i < c->n_devices; i++)
		if (strcmp(c->devices[i].name, name) == 0)
			return &c->devices[i];
	return NULL;
}

/* ---- checked members ---- */

#define NAME_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-"
#define HEX_CHARS "0123456789abcdefABCDEF"

static const char *const log_levels[] = {
	"emerg", "alert", "crit", "err", "warning", "notice", "info", "debug", NULL,
};
static const char *const pool_types[] = { "signature", "crypto", "signature+crypto", NULL };
static const char *const imports[] = { "plaintext", "wrapped", NULL };

static void join(char *out, size_t size, const char *base, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* out = base + the formatted tail ("devices.soft0" + ".deks[2]"). */
static void join(char *out, size_t size, const char *base, const char *fmt, ...)
{
	size_t n = (size_t)snprintf(out, size, "%s", base);
	va_list ap;

	if (n >= size)
		return;
	va_start(ap, fmt);
	vsnprintf(out + n, size - n, fmt, ap);
	va_end(ap);
}

static const char *type_name(struct json_object *v)
{
	return v ? json_type_to_name(json_object_get_type(v)) : "null";
}

static void words_list(const char *const *words, char *out, size_t size)
{
	size_t n = 0;

	out[0] = '\0';
	for (const char *const *w = words; *w && n < size; w++)
		n += (size_t)snprintf(out + n, size - n, "%s%s", w == words ? "" : ", ", *w);
}

/* Refuses members of obj not in allowed (NULL-ended), naming the first. */
static int check_members(struct json_object *obj, const char *path, const char *const *allowed,
			 struct prov_error *err)
{
	json_object_object_foreach(obj, key, val) {
		const char *const *a = allowed;
		char where[256], list[256];

		(void)val;
		while (*a && strcmp(*a, key) != 0)
			a++;
		if (*a)
			continue;
		words_list(allowed, list, sizeof(list));
		join(where, sizeof(where), path, "%s%.64s", path[0] ? "." : "", key);
		return prov_fail(err, where, "unknown member; allowed: %s", list);
	}
	return 0;
}

static int want_object(struct json_object *v, const char *path, struct prov_error *err)
{
	if (!json_object_is_type(v, json_type_object))
		return prov_fail(err, path, "must be an object, not %s", type_name(v));
	return 0;
}

/*
 * obj[key] as a string of 1 to max - 1 characters of allowed (NULL: any but
 * control characters) into out; absent or null leaves out as it is, unless
 * required.
 */
static int get_string(struct json_object *obj, const char *path, const char *key, bool required,
		      const char *allowed, const char *what, char *out, size_t max,
		      struct prov_error *err)
{
	struct json_object *v = json_object_object_get(obj, key);
	char where[256];
	const char *s;
	size_t len;

	join(where, sizeof(where), path, ".%s", key);
	if (!v) {
		if (required)
			return prov_fail(err, where, "is required: %s", what);
		return 0;
	}
	if (!json_object_is_type(v, json_type_string))
		return prov_fail(err, where, "must be a string (%s), not %s", what, type_name(v));
	s = json_object_get_string(v);
	len = (size_t)json_object_get_string_len(v);
	if (len == 0 || len >= max || strlen(s) != len)
		return prov_fail(err, where, "must be %s, 1 to %zu characters", what, max - 1);
	for (size_t i = 0; i < len; i++)
		if (allowed ? !strchr(allowed, s[i]) : (unsigned char)s[i] < 0x20)
			return prov_fail(err, where, "must be %s", what);
	memcpy(out, s, len + 1);
	return 0;
}

/* obj[key] as one of words (NULL-ended) into out; absent leaves out as it is. */
static int get_word(struct json_object *obj, const char *path, const char *key, bool required,
		    const char *const *words, char *out, size_t max, struct prov_error *err)
{
	char list[256], where[256], word[64] = "";
	int r;

	words_list(words, list, sizeof(list));
	r = get_string(obj, path, key, required, NULL, list, word, sizeof(word), err);
	if (r < 0 || !word[0])
		return r;
	for (const char *const *w = words; *w; w++)
		if (strcmp(*w, word) == 0) {
			snprintf(out, max, "%s", word);
			return 0;
		}
	join(where, sizeof(where), path, ".%s", key);
	return prov_fail(err, where, "'%s' is not one of: %s", word, list);
}

/* obj[key] as a whole number in [min, max]; absent leaves out as it is, unless required. */
static int get_u32(struct json_object *obj, const char *path, const char *key, bool required,
		   uint32_t min, uint32_t max, uint32_t *out, struct prov_error *err)
{
	struct json_object *v = json_object_object_get(obj, key);
	char where[256];
	int64_t n;

	join(where, sizeof(where), path, ".%s", key);
	if (!v) {
		if (required)
			return prov_fail(err, where, "is required: a number in %u-%u", min, max);
		return 0;
	}
	n = json_object_get_int64(v);
	if (!json_object_is_type(v, json_type_int) || n < min || n > max)
		return prov_fail(err, where, "must be a number in %u-%u, not %s", min, max,
				 json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN));
	*out = (uint32_t)n;
	return 0;
}

/* 16 hex digits, as the daemon takes them, kept in lower case. */
static int get_hex8(struct json_object *obj, const char *path, const char *key, char *out,
		    struct prov_error *err)
{
	char hex[64] = "", where[256];
	int r = get_string(obj, path, key, false, NULL, "16 hex digits (8 bytes)", hex, sizeof(hex), err);

	if (r < 0 || !hex[0])
		return r;
	if (strlen(hex) != PROV_HEX8_LEN || strspn(hex, HEX_CHARS) != PROV_HEX8_LEN) {
		join(where, sizeof(where), path, ".%s", key);
		return prov_fail(err, where, "must be 16 hex digits (8 bytes), not '%s'", hex);
	}
	for (int i = 0; i < PROV_HEX8_LEN; i++)
		out[i] = (char)(hex[i] >= 'A' && hex[i] <= 'F' ? hex[i] - 'A' + 'a' : hex[i]);
	out[PROV_HEX8_LEN] = '\0';
	return 0;
}

/* ---- the parts ---- */

static int parse_dek(struct json_object *obj, const char *path, struct prov_dek *d,
		     struct prov_error *err)
{
	static const char *const members[] = {
		"name", "size", "import", "key_file", "keytag", "opaque", "pd", "kek", "note", "allow",
		NULL,
	};
	char import[16] = "plaintext", where[256];
	struct json_object *v;
	int r;

	memset(d, 0, sizeof(*d));
	memset(d->opaque, '0', PROV_HEX8_LEN);
	if ((r = want_object(obj, path, err)) < 0 || (r = check_members(obj, path, members, err)) < 0 ||
	    (r = get_string(obj, path, "name", true, NAME_CHARS,
			    "a DEK's name: a letter, then letters, digits, '_', '.', '-'",
			    d->name, sizeof(d->name), err)) < 0)
		return r;
	if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", d->name[0])) {
		join(where, sizeof(where), path, ".name");
		return prov_fail(err, where, "must start with a letter (a DEK's name never reads as a handle)");
	}
	if ((r = get_u32(obj, path, "size", true, 0, UINT32_MAX, &d->size, err)) < 0)
		return r;
	if (d->size != 128 && d->size != 256) {
		join(where, sizeof(where), path, ".size");
		return prov_fail(err, where, "must be 128 or 256 (AES-128-XTS or AES-256-XTS)");
	}
	if ((r = get_word(obj, path, "import", false, imports, import, sizeof(import), err)) < 0)
		return r;
	d->wrapped = strcmp(import, "wrapped") == 0;
	/* null: the key was given by value and no file is known (what dump says of such a DEK). */
	if ((r = get_string(obj, path, "key_file", false, NULL, "an absolute path the daemon reads",
			    d->key_file, sizeof(d->key_file), err)) < 0)
		return r;
	if (d->key_file[0] && d->key_file[0] != '/') {
		join(where, sizeof(where), path, ".key_file");
		return prov_fail(err, where, "must be an absolute path (the daemon reads it, from its own "
				 "working directory), not '%s'", d->key_file);
	}
	v = json_object_object_get(obj, "keytag");
	join(where, sizeof(where), path, ".keytag");
	if (json_object_is_type(v, json_type_boolean))
		d->keytag = json_object_get_boolean(v) ? PROV_KEYTAG_HIDDEN : PROV_KEYTAG_NONE;
	else if (v && get_hex8(obj, path, "keytag", d->keytag_hex, err) < 0)
		return prov_fail(err, where, "must be 16 hex digits (the keytag), or true or false "
				 "(whether the DEK has one, as dump says it)");
	else if (v)
		d->keytag = PROV_KEYTAG_GIVEN;
	if ((r = get_hex8(obj, path, "opaque", d->opaque, err)) < 0 ||
	    (r = get_u32(obj, path, "pd", false, 0, UINT32_MAX, &d->pd, err)) < 0 ||
	    (r = get_string(obj, path, "kek", false, NAME_CHARS, "an import KEK's name (rdmad.conf)",
			    d->kek, sizeof(d->kek), err)) < 0 ||
	    (r = get_string(obj, path, "note", false, NULL, "free text", d->note, sizeof(d->note),
			    err)) < 0)
		return r;
	if (d->kek[0] && !d->wrapped) {
		join(where, sizeof(where), path, ".kek");
		return prov_fail(err, where, "only a wrapped import has an import KEK");
	}
	return prov_allow_parse(obj, path, &d->allow, err);
}

static int parse_pool(struct json_object *obj, const char *path, struct prov_pool *p,
		      struct prov_error *err)
{
	static const char *const members[] = { "name", "type", "size", "max_entries", "note", "allow",
					       NULL };
	char note[PROV_NOTE_MAX];
	int r;

	memset(p, 0, sizeof(*p));
	p->max_entries = 128;
	if ((r = want_object(obj, path, err)) < 0 || (r = check_members(obj, path, members, err)) < 0 ||
	    (r = get_string(obj, path, "name", true, NAME_CHARS,
			    "a pool's name: letters, digits, '_', '.', '-'", p->name, sizeof(p->name),
			    err)) < 0 ||
	    (r = get_word(obj, path, "type", true, pool_types, p->type, sizeof(p->type), err)) < 0 ||
	    (r = get_u32(obj, path, "size", true, 1, UINT32_MAX, &p->size, err)) < 0 ||
	    (r = get_u32(obj, path, "max_entries", false, 1, UINT16_MAX, &p->max_entries, err)) < 0 ||
	    (r = prov_allow_parse(obj, path, &p->allow, err)) < 0)
		return r;
	return get_string(obj, path, "note", false, NULL, "free text", note, sizeof(note), err);
}

#define TAP_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-"
#define MAC_CHARS HEX_CHARS ":"

static int parse_vdev(struct json_object *obj, const char *path, struct prov_vdev *v,
		      struct prov_error *err)
{
	static const char *const members[] = { "name", "socket", "mac", "tap", "max_qps", "max_cqs",
					       "note", NULL };
	char note[PROV_NOTE_MAX];
	int r;

	memset(v, 0, sizeof(*v));
	v->max_qps = 64;
	v->max_cqs = 64;
	if ((r = want_object(obj, path, err)) < 0 || (r = check_members(obj, path, members, err)) < 0 ||
	    (r = get_string(obj, path, "name", true, NAME_CHARS,
			    "a vdev's name: letters, digits, '_', '-'", v->name, 32, err)) < 0 ||
	    (r = get_string(obj, path, "socket", true, NULL, "an absolute path",
			    v->socket, sizeof(v->socket), err)) < 0 ||
	    (r = get_string(obj, path, "mac", false, MAC_CHARS, "a MAC address xx:xx:xx:xx:xx:xx",
			    v->mac, sizeof(v->mac), err)) < 0 ||
	    (r = get_string(obj, path, "tap", false, TAP_CHARS,
			    "an interface name: letters, digits, '_', '-', '.'", v->tap, sizeof(v->tap),
			    err)) < 0 ||
	    (r = get_u32(obj, path, "max_qps", false, 3, 125, &v->max_qps, err)) < 0 ||
	    (r = get_u32(obj, path, "max_cqs", false, 2, 247, &v->max_cqs, err)) < 0)
		return r;
	return get_string(obj, path, "note", false, NULL, "free text", note, sizeof(note), err);
}

/*
 * list (absent: none) as n items of size bytes, each parsed by fn; a name
 * twice is refused.
 */
static int parse_list(struct json_object *list, const char *path, size_t size,
		      int (*fn)(struct json_object *, const char *, void *, struct prov_error *),
		      void **items, unsigned *n, struct prov_error *err)
{
	size_t len;

	*items = NULL;
	*n = 0;
	if (!list)
		return 0;
	if (!json_object_is_type(list, json_type_array))
		return prov_fail(err, path, "must be a list, not %s", type_name(list));
	len = json_object_array_length(list);
	if (len > PROV_ITEMS_MAX)
		return prov_fail(err, path, "has %zu items; at most %d", len, PROV_ITEMS_MAX);
	*items = calloc(len ? len : 1, size);
	if (!*items)
		return prov_fail(err, path, "out of memory");
	for (size_t i = 0; i < len; i++) {
		char where[256];
		/* Both item kinds start with their name. */
		char *item = (char *)*items + i * size;
		int r;

		join(where, sizeof(where), path, "[%zu]", i);
		r = fn(json_object_array_get_idx(list, i), where, item, err);
		if (r < 0)
			return r;
		++*n;
		for (size_t j = 0; j < i; j++)
			if (strcmp((char *)*items + j * size, item) == 0) {
				join(where, sizeof(where), path, "[%zu].name", i);
				return prov_fail(err, where, "'%s' is named twice (also [%zu])", item, j);
			}
	}
	return 0;
}

static int dek_item(struct json_object *o, const char *path, void *out, struct prov_error *err)
{
	return parse_dek(o, path, out, err);
}

static int pool_item(struct json_object *o, const char *path, void *out, struct prov_error *err)
{
	return parse_pool(o, path, out, err);
}

static int vdev_item(struct json_object *o, const char *path, void *out, struct prov_error *err)
{
	return parse_vdev(o, path, out, err);
}

static int parse_device(struct json_object *obj, const char *path, struct prov_device *d,
			struct prov_error *err)
{
	static const char *const members[] = { "deks", "pools", "vdevs", "vnic", NULL };
	struct json_object *vnic = json_object_object_get(obj, "vnic");
	char where[256];
	void *items;
	int r;

	if ((r = want_object(obj, path, err)) < 0 || (r = check_members(obj, path, members, err)) < 0)
		return r;
	/* The place VNIC defaults will take; until then only an empty one is accepted. */
	join(where, sizeof(where), path, ".vnic");
	if (vnic && !(json_object_is_type(vnic, json_type_object) && json_object_object_length(vnic) == 0))
		return prov_fail(err, where, "VNIC defaults are not supported yet: leave it out, or {}");
	join(where, sizeof(where), path, ".deks");
	r = parse_list(json_object_object_get(obj, "deks"), where, sizeof(struct prov_dek), dek_item,
		       &items, &d->n_deks, err);
	d->deks = items;
	if (r < 0)
		return r;
	join(where, sizeof(where), path, ".pools");
	r = parse_list(json_object_object_get(obj, "pools"), where, sizeof(struct prov_pool), pool_item,
		       &items, &d->n_pools, err);
	d->pools = items;
	if (r < 0)
		return r;
	join(where, sizeof(where), path, ".vdevs");
	r = parse_list(json_object_object_get(obj, "vdevs"), where, sizeof(struct prov_vdev), vdev_item,
		       &items, &d->n_vdevs, err);
	d->vdevs = items;
	return r;
}

static int parse_devices(struct json_object *devices, struct prov_config *c, struct prov_error *err)
{
	int r;

	if (!devices)
		return 0;
	if ((r = want_object(devices, "devices", err)) < 0)
		return r;
	if (json_object_object_length(devices) > PROV_DEVICES_MAX)
		return prov_fail(err, "devices", "names %d devices; at most %d",
				 json_object_object_length(devices), PROV_DEVICES_MAX);
	c->devices = calloc(PROV_DEVICES_MAX, sizeof(*c->devices));
	if (!c->devices)
		return prov_fail(err, "devices", "out of memory");
	json_object_object_foreach(devices, name, dev) {
		struct prov_device *d = &c->devices[c->n_devices++];
		char path[256];
		size_t len = strlen(name);

		join(path, sizeof(path), "devices.", "%.64s", name);
		if (len == 0 || len >= sizeof(d->name) || strspn(name, NAME_CHARS) != len)
			return prov_fail(err, path, "is not a device name (letters, digits, '_', '.', '-')");
		memcpy(d->name, name, len + 1);
		r = parse_device(dev, path, d, err);
		if (r < 0)
			return r;
	}
	return 0;
}

static int parse_top(struct json_object *top, struct prov_config *c, struct prov_error *err)
{
	static const char *const members[] = { "version", "settings", "devices", NULL };
	static const char *const settings_members[] = { "log_level", NULL };
	struct json_object *settings = json_object_object_get(top, "settings");
	uint32_t version = PROV_FORMAT_VERSION;
	int r;

	if (!json_object_is_type(top, json_type_object))
		return prov_fail(err, "(file)", "must be a JSON object, not %s", type_name(top));
	if ((r = check_members(top, "", members, err)) < 0 ||
	    (r = get_u32(top, "", "version", false, PROV_FORMAT_VERSION, PROV_FORMAT_VERSION, &version,
			 err)) < 0)
		return r;
	if (settings && ((r = want_object(settings, "settings", err)) < 0 ||
			 (r = check_members(settings, "settings", settings_members, err)) < 0 ||
			 (r = get_word(settings, "settings", "log_level", false, log_levels, c->log_level,
				       sizeof(c->log_level), err)) < 0))
		return r;
	return parse_devices(json_object_object_get(top, "devices"), c, err);
}

int prov_parse(const char *text, size_t len, struct prov_config *out, struct prov_error *err)
{
	struct json_tokener *tok = json_tokener_new_ex(JSON_DEPTH_MAX);
	struct json_object *top;
	size_t used;
	int r;

	memset(out, 0, sizeof(*out));
	if (!tok)
		return prov_fail(err, "(file)", "out of memory");
	if (len > PROV_FILE_MAX) {
		json_tokener_free(tok);
		return prov_fail(err, "(file)", "is larger than %u bytes", PROV_FILE_MAX);
	}
	top = json_tokener_parse_ex(tok, text, (int)len);
	used = json_tokener_get_parse_end(tok);
	if (!top || json_tokener_get_error(tok) != json_tokener_success) {
		r = prov_fail(err, "(file)", "is not JSON: %s, near byte %zu",
			      top || json_tokener_get_error(tok) != json_tokener_continue ?
			      json_tokener_error_desc(json_tokener_get_error(tok)) : "it ends early", used);
		json_object_put(top);
		json_tokener_free(tok);
		return r;
	}
	json_tokener_free(tok);
	if (used < len && strspn(text + used, " \t\r\n") != len - used)
		r = prov_fail(err, "(file)", "has more after its JSON object, at byte %zu", used);
	else
		r = parse_top(top, out, err);
	json_object_put(top);
	if (r < 0)
		prov_config_free(out);
	return r;
}

/* ---- writing ---- */

struct json_object *prov_dek_json(const struct prov_dek *d)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "name", json_object_new_string(d->name));
	json_object_object_add(o, "size", json_object_new_int(d->size));
	json_object_object_add(o, "import", json_object_new_string(d->wrapped ? "wrapped" : "plaintext"));
	json_object_object_add(o, "key_file", d->key_file[0] ? json_object_new_string(d->key_file) : NULL);
	/* The keytag's value is never shown: only whether there is one. */
	json_object_object_add(o, "keytag", json_object_new_boolean(d->keytag != PROV_KEYTAG_NONE));
	json_object_object_add(o, "opaque", json_object_new_string(d->opaque));
	if (d->pd)
		json_object_object_add(o, "pd", json_object_new_int64(d->pd));
	if (d->kek[0])
		json_object_object_add(o, "kek", json_object_new_string(d->kek));
	prov_allow_add_json(o, &d->allow);
	if (d->note[0])
		json_object_object_add(o, "note", json_object_new_string(d->note));
	return o;
}

struct json_object *prov_pool_json(const struct prov_pool *p)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "name", json_object_new_string(p->name));
	json_object_object_add(o, "type", json_object_new_string(p->type));
	json_object_object_add(o, "size", json_object_new_int64(p->size));
	json_object_object_add(o, "max_entries", json_object_new_int64(p->max_entries));
	prov_allow_add_json(o, &p->allow);
	return o;
}

struct json_object *prov_vdev_json(const struct prov_vdev *v)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "name", json_object_new_string(v->name));
	json_object_object_add(o, "socket", json_object_new_string(v->socket));
	if (v->mac[0])
		json_object_object_add(o, "mac", json_object_new_string(v->mac));
	if (v->tap[0])
		json_object_object_add(o, "tap", json_object_new_string(v->tap));
	json_object_object_add(o, "max_qps", json_object_new_int64(v->max_qps));
	json_object_object_add(o, "max_cqs", json_object_new_int64(v->max_cqs));
	return o;
}

struct json_object *prov_to_json(const struct prov_config *c)
{
	struct json_object *top = json_object_new_object(), *devices = json_object_new_object();

	json_object_object_add(top, "version", json_object_new_int(PROV_FORMAT_VERSION));
	if (c->log_level[0]) {
		struct json_object *settings = json_object_new_object();

		json_object_object_add(settings, "log_level", json_object_new_string(c->log_level));
		json_object_object_add(top, "settings", settings);
	}
	for (unsigned i = 0; i < c->n_devices; i++) {
		const struct prov_device *d = &c->devices[i];
		struct json_object *dev = json_object_new_object();
		struct json_object *deks = json_object_new_array(), *pools = json_object_new_array();
		struct json_object *vdevs = json_object_new_array();

		for (unsigned k = 0; k < d->n_deks; k++)
			json_object_array_add(deks, prov_dek_json(&d->deks[k]));
		for (unsigned k = 0; k < d->n_pools; k++)
			json_object_array_add(pools, prov_pool_json(&d->pools[k]));
		for (unsigned k = 0; k < d->n_vdevs; k++)
			json_object_array_add(vdevs, prov_vdev_json(&d->vdevs[k]));
		json_object_object_add(dev, "deks", deks);
		json_object_object_add(dev, "pools", pools);
		json_object_object_add(dev, "vdevs", vdevs);
		json_object_object_add(devices, d->name, dev);
	}
	json_object_object_add(top, "devices", devices);
	return top;
}
