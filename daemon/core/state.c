/* SPDX-License-Identifier: MIT */
#include "daemon/core/state.h"
#include "daemon/verbs/device.h"
#include "lib/io.h"
#include "lib/log.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STATE_VERSION 1
/* Temporary files are NAME.json.tmp-XXXXXX: in the same directory, so rename() is atomic. */
#define TMP_INFIX ".json.tmp-"

static int fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int r = 0;

	if (fd < 0)
		return -errno;
	if (fsync(fd) < 0)
		r = -errno;
	close(fd);
	return r;
}

/* Writes file's temporary copy, fsyncs it and renames it over the old file. */
static int replace_file(const char *dir, struct state_file *file)
{
	char tmp[PATH_MAX], path[PATH_MAX];
	int fd, r;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s.json", dir, file->name) >= sizeof(path) ||
	    (size_t)snprintf(tmp, sizeof(tmp), "%s/%s" TMP_INFIX "XXXXXX", dir, file->name) >= sizeof(tmp))
		return -ENAMETOOLONG;
	/* mkostemp makes it 0600: state may name key files and settings, nobody else's business. */
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = write_all(fd, file->text, file->len);
	if (r == 0 && fsync(fd) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0)
		unlink(tmp);
	else
		file->replaced = true;
	return r;
}

void state_write_files(const char *dir, struct state_file *files, unsigned n)
{
	bool renamed = false;
	int r;

	for (unsigned i = 0; i < n; i++) {
		files[i].replaced = false;
		if (files[i].result == 0)
			files[i].result = replace_file(dir, &files[i]);
		renamed |= files[i].replaced;
	}
	if (!renamed)
		return;
	/* The renames themselves must reach the disk, or a crash could bring old files back. */
	r = fsync_dir(dir);
	for (unsigned i = 0; r < 0 && i < n; i++)
		if (files[i].replaced)
			files[i].result = r;
}

int state_write_file(const char *dir, const char *name, const char *data, size_t len)
{
	struct state_file file = { .name = name, .text = (char *)data, .len = len };

	state_write_files(dir, &file, 1);
	return file.result;
}

struct json_object *state_save_table(struct rdma_device *dev, enum rdma_object_kind table,
				     bool (*kept)(struct rdma_object *obj),
				     struct json_object *(*record)(struct rdma_object *obj))
{
	struct json_object *list = json_object_new_array();
	struct rdma_object *obj;

	for (uint32_t pos = 0; list && (obj = object_table_next(&dev->tables[table], &pos)); ) {
		struct json_object *rec;

		if (!kept(obj))
			continue;
		rec = record(obj);
		/* A record missing for want of memory would be a record lost: no file at all. */
		if (!rec || json_object_array_add(list, rec) < 0) {
			json_object_put(rec);
			json_object_put(list);
			return NULL;
		}
	}
	return list;
}

static struct json_object *save_per_device(const struct state_env *env, const struct state_kind *kind)
{
	struct json_object *all = json_object_new_object();

	for (unsigned i = 0; all && i < env->n_devices; i++) {
		struct json_object *list = kind->save_device(env->m, env->devices[i]);

		if (!list) {
			json_object_put(all);
			return NULL;
		}
		json_object_object_add(all, env->devices[i]->name, list);
	}
	return all;
}

static void restore_per_device(const struct state_env *env, const struct state_kind *kind,
			       struct json_object *saved)
{
	if (!json_object_is_type(saved, json_type_object)) {
		log_error("saved %s are not listed by device; not restored", kind->items);
		return;
	}
	json_object_object_foreach(saved, name, list) {
		struct rdma_device *dev = rdma_device_find(env->devices, env->n_devices, name);

		if (!dev)
			log_error("saved %s of device %s: no such device now; not restored", kind->items,
				  name);
		else if (!json_object_is_type(list, json_type_array))
			log_error("saved %s of device %s are not a list; not restored", kind->items, name);
		else
			kind->restore_device(env->m, dev, list);
	}
}

static int restore_kind(const struct state_env *env, const struct state_kind *kind,
			struct json_object *saved)
{
	if (kind->restore)
		return kind->restore(env->m, saved);
	if (saved)
		restore_per_device(env, kind, saved);
	return 0;
}

char *state_serialize(const struct state_env *env, const struct state_kind *kind, size_t *len)
{
	struct json_object *file, *data = kind->save ? kind->save(env->m) : save_per_device(env, kind);
	char *text = NULL;

	file = data ? json_object_new_object() : NULL;
	if (file) {
		json_object_object_add(file, "version", json_object_new_int(STATE_VERSION));
		json_object_object_add(file, kind->name, json_object_get(data));
		text = strdup(json_object_to_json_string_ext(file, JSON_C_TO_STRING_PRETTY |
								      JSON_C_TO_STRING_NOSLASHESCAPE));
	}
	json_object_put(file);
	json_object_put(data);
	if (text)
		*len = strlen(text);
	return text;
}

/* A crash between mkostemp() and rename() leaves a temporary file: nobody will finish it. */
static void remove_temporaries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)))
		if (strstr(e->d_name, TMP_INFIX) && unlinkat(dirfd(d), e->d_name, 0) == 0)
			log_info("removed %s/%s, left by an interrupted save", dir, e->d_name);
	closedir(d);
}

static void move_aside(const char *path, const char *why)
{
	char bad[PATH_MAX];

	snprintf(bad, sizeof(bad), "%s.bad", path);
	if (rename(path, bad) < 0)
		log_error_errno(-errno, "%s %s, and it cannot be moved aside", path, why);
	else
		log_error("%s %s; moved to %s, starting without it", path, why, bad);
}

/* kind's saved state (a new reference), NULL when it has none. */
static struct json_object *read_kind(const char *dir, const struct state_kind *kind)
{
	struct json_object *file, *version, *data;
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s.json", dir, kind->name);
	if (access(path, F_OK) < 0)
		return NULL;
	file = json_object_from_file(path);
	if (!file || !json_object_is_type(file, json_type_object)) {
		move_aside(path, "is not JSON");
		json_object_put(file);
		return NULL;
	}
	if (!json_object_object_get_ex(file, "version", &version) ||
	    json_object_get_int(version) != STATE_VERSION ||
	    !json_object_object_get_ex(file, kind->name, &data)) {
		move_aside(path, "is not a state file of this rdmad (version 1)");
		json_object_put(file);
		return NULL;
	}
	json_object_get(data);
	json_object_put(file);
	return data;
}

int state_restore(const struct state_env *env, const struct state_kind *const *kinds, unsigned n)
{
	remove_temporaries(env->dir);
	for (unsigned i = 0; i < n; i++) {
		struct json_object *data = read_kind(env->dir, kinds[i]);
		int r = restore_kind(env, kinds[i], data);

		json_object_put(data);
		if (r < 0)
			return log_error_errno(r, "cannot restore %s from %s", kinds[i]->name, env->dir);
	}
	return 0;
}
