/* SPDX-License-Identifier: MIT */
/*
 * What a refused caller needs, said with the refusal: the daemon's answer
 * (io.rdmad.Daemon.GetAccess, open to every caller) for a call it refused
 * with PermissionDenied, and the socket file's owner, group and mode for a
 * connection the kernel refused (EACCES).  Both name the socket.
 */
#include "cmd/permissions.h"

#include <grp.h>
#include <libgen.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool get_bool(struct json_object *o, const char *key)
{
	return json_object_get_boolean(json_object_object_get(o, key));
}

char *ctl_denial_needs(struct varlink_client *client, const char *socket_path, const char *method)
{
	struct json_object *params = json_object_new_object(), *reply = NULL, *group;
	const char *needs, *name;
	char *error = NULL, *text = NULL;
	int r;

	json_object_object_add(params, "method", json_object_new_string(method));
	r = varlink_client_call(client, "io.rdmad.Daemon.GetAccess", params, &reply, &error);
	json_object_put(params);
	/* A daemon without GetAccess: the socket alone is said. */
	if (r < 0 || error) {
		free(error);
		json_object_put(reply);
		if (asprintf(&text, "socket %s", socket_path) < 0)
			text = NULL;
		return text;
	}
	needs = json_object_get_string(json_object_object_get(reply, "needs"));
	group = json_object_object_get(reply, "read_group");
	name = json_object_get_string(json_object_object_get(group, "name"));
	if (needs && strcmp(needs, "attached") == 0 && get_bool(group, "exists"))
		r = asprintf(&text, "needs root, or a program of group %s attached to the daemon "
			     "(socket %s)", name, socket_path);
	else if (needs && strcmp(needs, "read_group") == 0 && get_bool(group, "exists"))
		r = asprintf(&text, "needs root or group %s (socket %s)", name, socket_path);
	else if (needs && strcmp(needs, "read_group") == 0)
		r = asprintf(&text, "needs root (group %s, whose members may read, does not exist) "
			     "(socket %s)", name, socket_path);
	else
		r = asprintf(&text, "needs root (socket %s)", socket_path);
	json_object_put(reply);
	return r < 0 ? NULL : text;
}

/* The name of a user or group, or its number when it has none ("root", "rdma", "1234"). */
static void id_name(const char *name, unsigned id, char *buf, size_t size)
{
	if (name)
		snprintf(buf, size, "%s", name);
	else
		snprintf(buf, size, "%u", id);
}

static void user_name(uid_t uid, char *buf, size_t size)
{
	struct passwd *pw = getpwuid(uid);

	id_name(pw ? pw->pw_name : NULL, (unsigned)uid, buf, size);
}

static void group_name(gid_t gid, char *buf, size_t size)
{
	struct group *gr = getgrgid(gid);

	id_name(gr ? gr->gr_name : NULL, (unsigned)gid, buf, size);
}

char *ctl_connect_denial_needs(const char *socket_path)
{
	char *copy = strdup(socket_path), *text = NULL;
	char owner[64], group[64];
	const char *dir;
	struct stat st;
	int r;

	if (!copy)
		return NULL;
	dir = dirname(copy);
	/* The directory may be what is closed, not the socket. */
	if (access(dir, X_OK) < 0 && stat(dir, &st) == 0) {
		user_name(st.st_uid, owner, sizeof(owner));
		group_name(st.st_gid, group, sizeof(group));
		r = asprintf(&text, "the directory %s (%s:%s %04o) is closed to this user", dir, owner,
			     group, (unsigned)(st.st_mode & 07777));
	} else if (stat(socket_path, &st) == 0) {
		user_name(st.st_uid, owner, sizeof(owner));
		group_name(st.st_gid, group, sizeof(group));
		/* Group root adds no one to user root. */
		if ((st.st_mode & S_IWGRP) && strcmp(owner, group) != 0)
			r = asprintf(&text, "needs %s or group %s (socket %s is %s:%s %04o)", owner,
				     group, socket_path, owner, group, (unsigned)(st.st_mode & 07777));
		else
			r = asprintf(&text, "needs %s (socket %s is %s:%s %04o)", owner, socket_path,
				     owner, group, (unsigned)(st.st_mode & 07777));
	} else {
		r = asprintf(&text, "socket %s", socket_path);
	}
	free(copy);
	return r < 0 ? NULL : text;
}
