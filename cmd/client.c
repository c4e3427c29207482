/* SPDX-License-Identifier: MIT */
/* Talking to rdmad: connect on first use, call, and say what went wrong. */
#include "cmd/rdmactl.h"
#include "cmd/output.h"
#include "cmd/permissions.h"
#include "cmd/progress.h"
#include "cmd/remote.h"
#include "lib/varlink/varlink.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * A failure to talk to the daemon is never a usage error nor a signature
 * error, whatever its errno (cmd_exit_code()).
 */
static int talk_failure(int r)
{
	return r == -EINVAL || r == -EBADMSG ? -EIO : r;
}

/* What went wrong on a connection, in words. */
static const char *talk_error(struct ctl *ctl, int r)
{
	if (ctl->host)
		return ctl_remote_talk_error(ctl, r);
	if (r == -ECONNRESET)
		return "the daemon closed the connection";
	if (r == -EINTR)
		return "interrupted";
	return strerror(-r);
}

void ctl_say_connect_error(const char *socket_path, int r)
{
	if (r == -EACCES) {
		char *needs = ctl_connect_denial_needs(socket_path);

		fprintf(stderr, "rdmactl: cannot connect to %s: %s: %s\n", socket_path,
			strerror(-r), needs ? needs : "(out of memory)");
		free(needs);
	} else {
		fprintf(stderr, "rdmactl: cannot connect to %s: %s%s\n", socket_path, strerror(-r),
			r == -ENOENT || r == -ECONNREFUSED ? " (is rdmad running?)" : "");
	}
}

static int ctl_connect(struct ctl *ctl)
{
	int r;

	/* The daemon closes idle connections of users other than root: the shell connects again. */
	if (ctl->client && varlink_client_hung_up(ctl->client))
		ctl_disconnect(ctl);
	if (ctl->client)
		return 0;
	/* -H: ssh says on its own what fails, ctl_remote_connect() what it could not start. */
	r = ctl->host ? ctl_remote_connect(ctl, &ctl->client) :
			varlink_client_connect(&ctl->client, ctl->socket_path);
	/* In the shell, Ctrl-C stops the command waiting for the daemon (shell.c). */
	if (r >= 0 && ctl->interrupt)
		varlink_client_set_interrupt(ctl->client, ctl->interrupt);
	if (r < 0 && !ctl->host)
		ctl_say_connect_error(ctl->socket_path, r);
	return talk_failure(r);
}

void ctl_disconnect(struct ctl *ctl)
{
	ctl->client = varlink_client_free(ctl->client);
}

int ctl_pass_fd(struct ctl *ctl, const char *path, int fd)
{
	if (fcntl(fd, F_GETFD) < 0) {
		ctl_fail("%s: %d is not a file descriptor rdmactl holds open", path, fd);
		return -EBADF;
	}
	if (ctl->n_pass_fds >= CTL_PASS_FDS_MAX)
		return -E2BIG;
	ctl->pass_fd[ctl->n_pass_fds] = fd;
	return (int)ctl->n_pass_fds++;
}

/* The descriptors for the call about to go out; the next call starts with none. */
static unsigned take_pass_fds(struct ctl *ctl, int fds[CTL_PASS_FDS_MAX])
{
	unsigned n = ctl->n_pass_fds;

	memcpy(fds, ctl->pass_fd, n * sizeof(int));
	ctl->n_pass_fds = 0;
	return n;
}

/* A call; a broken connection is said naming who made it: the command's path, else the method. */
static int call(struct ctl *ctl, const char *who, const char *method, struct json_object *params,
		struct json_object **reply, char **error)
{
	int fds[CTL_PASS_FDS_MAX];
	unsigned n_fds = take_pass_fds(ctl, fds);
	int r = ctl_connect(ctl);

	if (r < 0)
		return r;
	r = varlink_client_call_fds(ctl->client, method, params, fds, n_fds, reply, error);
	if (r < 0) {
		progress_hide();
		fprintf(stderr, "rdmactl: %s: %s\n", who, talk_error(ctl, r));
		/* A broken connection is not reused (the shell goes on with a new one). */
		ctl_disconnect(ctl);
	}
	return talk_failure(r);
}

/*
 * The rest of a List that answered a page (its reply says next): the pages
 * after it, called with after = next, their records appended to the arrays
 * of *reply, until a page says no more (then *reply has no next).  A page
 * refused: *reply is its reply, with *error.  Every caller sees the whole
 * list (rdmad-varlink(7), Lists).
 */
static int call_pages(struct ctl *ctl, const char *who, const char *method, struct json_object *params,
		      struct json_object **reply, char **error)
{
	struct json_object *next;
	int r = 0;

	while ((next = json_object_object_get(*reply, "next"))) {
		struct json_object *p = params ? json_object_get(params) : json_object_new_object(), *page = NULL;

		json_object_object_add(p, "after", json_object_get(next));
		json_object_object_del(*reply, "next");
		r = call(ctl, who, method, p, &page, error);
		json_object_put(p);
		if (r < 0 || *error) {
			json_object_put(*reply);
			*reply = page;
			return r;
		}
		json_object_object_foreach(page, key, records) {
			struct json_object *into = json_object_object_get(*reply, key);

			if (json_object_is_type(records, json_type_array) && json_object_is_type(into, json_type_array))
				for (size_t i = 0; i < json_object_array_length(records); i++)
					json_object_array_add(into, json_object_get(json_object_array_get_idx(records, i)));
			else if (!strcmp(key, "next"))
				json_object_object_add(*reply, key, json_object_get(records));
		}
		json_object_put(page);
	}
	return r;
}

/* A call, and the rest of a List that answered a page. */
static int call_whole(struct ctl *ctl, const char *who, const char *method, struct json_object *params,
		      struct json_object **reply, char **error)
{
	int r = call(ctl, who, method, params, reply, error);

	return r < 0 || *error || !*reply ? r : call_pages(ctl, who, method, params, reply, error);
}

int ctl_call_raw(struct ctl *ctl, const char *method, struct json_object *params,
		 struct json_object **reply, char **error)
{
	return call_whole(ctl, method, method, params, reply, error);
}

/*
 * An error parameter's value as lists print it: a key in hex, the handle of
 * an MR or MKEY too (kind, or user_kind for user_handle, says whose).
 */
static char *param_text(struct json_object *params, const char *key, struct json_object *val)
{
	bool of_user = strcmp(key, "user_handle") == 0;
	const char *kind = json_object_get_string(json_object_object_get(params,
									of_user ? "user_kind" : "kind"));

	if (json_object_is_type(val, json_type_object) || json_object_is_type(val, json_type_array))
		return strdup(json_object_to_json_string_ext(val, JSON_C_TO_STRING_PLAIN));
	return output_scalar_text(kind, of_user ? "handle" : key, val);
}

/*
 * "rdmactl: dev show: io.rdmad.Device.NoSuchDevice: ifname 'x'"; a refusal
 * says what the caller needs: "rdmactl: pd create:
 * org.varlink.service.PermissionDenied: needs root (socket PATH)".
 */
static void print_error(struct ctl *ctl, const char *path, const char *method, const char *error,
			struct json_object *params)
{
	const char *sep = ": ";

	progress_hide();
	fprintf(stderr, "rdmactl: %s: %s", path, error);
	json_object_object_foreach(params, key, val) {
		char *text = param_text(params, key, val);

		fprintf(stderr, "%s%s '%s'", sep, key, text ? text : "(out of memory)");
		free(text);
		sep = ", ";
	}
	if (strcmp(error, VARLINK_ERROR_PERMISSION_DENIED) == 0) {
		char *needs = ctl_denial_needs(ctl->client, ctl->socket_path, method);

		fprintf(stderr, "%s%s", sep, needs ? needs : "(out of memory)");
		free(needs);
	}
	fputc('\n', stderr);
}

/*
 * The daemon's parameter check refusing a call is a usage error as much as
 * rdmactl's own (exit status 2): the varlink one (a missing, unknown or
 * mistyped field) and each interface's InvalidArgument (a value out of range).
 */
static bool is_usage_error(const char *error)
{
	static const char prefix[] = "io.rdmad.", suffix[] = ".InvalidArgument";
	size_t len = strlen(error);

	if (strcmp(error, "org.varlink.service.InvalidParameter") == 0)
		return true;
	return strncmp(error, prefix, strlen(prefix)) == 0 && len > strlen(suffix) &&
	       strcmp(error + len - strlen(suffix), suffix) == 0;
}

int ctl_report_error(struct ctl *ctl, const char *path, const char *method, char *error,
		     struct json_object *params)
{
	int r = is_usage_error(error) ? -EINVAL : -EBADE;

	print_error(ctl, path, method, error, params);
	ctl->out->error(ctl, error, params);
	json_object_put(params);
	free(error);
	return r;
}

int ctl_call(struct ctl *ctl, const char *path, const char *method, struct json_object *params,
	     struct json_object **reply)
{
	char *error = NULL;
	int r;

	r = call_whole(ctl, path, method, params, reply, &error);
	if (r < 0)
		return r;
	if (error) {
		r = ctl_report_error(ctl, path, method, error, *reply);
		*reply = NULL;
		return r;
	}
	return 0;
}

int ctl_call_more(struct ctl *ctl, const char *path, const char *method, struct json_object *params,
		  int (*fn)(struct json_object *reply, void *data), void *data)
{
	int fds[CTL_PASS_FDS_MAX];
	unsigned n_fds = take_pass_fds(ctl, fds);
	bool continues = true;
	int r = ctl_connect(ctl);

	if (r < 0)
		return r;
	r = varlink_client_send_fds(ctl->client, method, params, VARLINK_CALL_MORE, fds, n_fds);
	while (r >= 0 && continues) {
		struct json_object *reply;
		char *error = NULL;

		r = varlink_client_read(ctl->client, &reply, &error, &continues, -1);
		if (r < 0)
			break;
		if (error)
			return ctl_report_error(ctl, path, method, error, reply);
		r = fn(reply, data);
		json_object_put(reply);
		if (r < 0) {
			/* Replies may still be on their way: this connection is done. */
			ctl_disconnect(ctl);
			return r;
		}
	}
	if (r < 0) {
		progress_hide();
		fprintf(stderr, "rdmactl: %s: %s\n", path, talk_error(ctl, r));
		ctl_disconnect(ctl);
	}
	return talk_failure(r);
}
