/* SPDX-License-Identifier: MIT */
/* Blocking varlink client: what rdmactl and the test tools talk through. */
#include "lib/varlink/varlink.h"
#include "lib/varlink/buffer.h"
#include "lib/varlink/fds.h"
#include "lib/varlink/transport.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct varlink_client {
	struct varlink_transport t;
	struct varlink_buffer in, out;
	struct varlink_fd_queue in_fds, out_fds;
	struct varlink_fds reply_fds;  /* of the reply read last */
	const volatile sig_atomic_t *interrupt;  /* set: a wait for a reply ends with -EINTR */
	unsigned spin_skip, spin_backoff;        /* see spin_worth_it() */
};

/* Connections of this process: with one, fill() spins before it sleeps. */
static atomic_uint n_clients;

/* A client on a transport made, or -ENOMEM (the transport is then closed). */
static int client_new(struct varlink_client **out, struct varlink_transport *t)
{
	struct varlink_client *client = calloc(1, sizeof(*client));

	if (!client) {
		varlink_transport_close(t);
		return -ENOMEM;
	}
	client->t = *t;
	atomic_fetch_add_explicit(&n_clients, 1, memory_order_relaxed);
	*out = client;
	return 0;
}

int varlink_client_connect(struct varlink_client **out, const char *address)
{
	struct varlink_transport t;
	int r = varlink_transport_connect(&t, address);

	return r < 0 ? r : client_new(out, &t);
}

int varlink_client_connect_exec(struct varlink_client **out, char *const argv[])
{
	struct varlink_transport t;
	int r = varlink_transport_spawn(&t, argv);

	return r < 0 ? r : client_new(out, &t);
}

int varlink_client_child_status(struct varlink_client *client, int timeout_ms, int *status)
{
	return varlink_transport_child_status(&client->t, timeout_ms, status);
}

struct varlink_client *varlink_client_free(struct varlink_client *client)
{
	if (!client)
		return NULL;
	atomic_fetch_sub_explicit(&n_clients, 1, memory_order_relaxed);
	varlink_transport_close(&client->t);
	varlink_buffer_release(&client->in);
	varlink_buffer_release(&client->out);
	varlink_fd_queue_release(&client->in_fds);
	varlink_fd_queue_release(&client->out_fds);
	varlink_fds_close(&client->reply_fds);
	free(client);
	return NULL;
}

bool varlink_client_hung_up(const struct varlink_client *client)
{
	return varlink_transport_hung_up(&client->t);
}

static int flush(struct varlink_client *client)
{
	while (varlink_buffer_pending(&client->out) > 0) {
		ssize_t n = varlink_transport_send(&client->t, &client->out, &client->out_fds);

		if (n == -EINTR)
			continue;
		if (n < 0) {
			/* What is left of the message must not start the next one. */
			varlink_buffer_release(&client->out);
			varlink_fd_queue_release(&client->out_fds);
			return (int)n;
		}
	}
	return 0;
}

/* Copies of fds, which the message owns until they are sent. */
static int dup_fds(const int *fds, unsigned n_fds, struct varlink_fds *out)
{
	out->n = 0;
	if (n_fds > VARLINK_FDS_PER_MESSAGE_MAX)
		return -E2BIG;
	for (unsigned i = 0; i < n_fds; i++) {
		int fd = fcntl(fds[i], F_DUPFD_CLOEXEC, 3);

		if (fd < 0) {
			int r = -errno;

			varlink_fds_close(out);
			return r;
		}
		varlink_fds_add(out, fd);
	}
	return 0;
}

int varlink_client_send(struct varlink_client *client, const char *method,
			struct json_object *params, unsigned flags)
{
	return varlink_client_send_fds(client, method, params, flags, NULL, 0);
}

int varlink_client_send_fds(struct varlink_client *client, const char *method,
			    struct json_object *params, unsigned flags, const int *fds,
			    unsigned n_fds)
{
	struct json_object *msg;
	struct varlink_fds copies;
	int r;

	/* A pipe carries bytes only: refused before anything goes out. */
	if (n_fds > 0 && !varlink_transport_is_socket(&client->t))
		return -EOPNOTSUPP;
	r = dup_fds(fds, n_fds, &copies);
	if (r < 0)
		return r;
	msg = json_object_new_object();
	if (!msg) {
		varlink_fds_close(&copies);
		return -ENOMEM;
	}
	json_object_object_add(msg, "method", json_object_new_string(method));
	if (params)
		json_object_object_add(msg, "parameters", json_object_get(params));
	if (flags & VARLINK_CALL_ONEWAY)
		json_object_object_add(msg, "oneway", json_object_new_boolean(1));
	if (flags & VARLINK_CALL_MORE)
		json_object_object_add(msg, "more", json_object_new_boolean(1));
	r = varlink_queue_message(&client->out, &client->out_fds, msg, &copies);
	json_object_put(msg);
	varlink_fds_close(&copies); /* when not queued */
	return r < 0 ? r : flush(client);
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static long long now_ms(void)
{
	return now_ns() / 1000000;
}

/*
 * A reply to a short call comes within microseconds, and sleeping for it costs
 * more than that: on a virtual machine an idle vCPU halts, and waking it takes
 * tens of microseconds.  So a process with one connection looks for its reply
 * without sleeping for a while first, as the kernel's busy polling does for
 * network sockets.  A process with several does not: its threads spinning
 * side by side would take the CPUs from the daemon and from each other.
 */
#define SPIN_NS 20000
#define SPIN_BACKOFF_MAX 64

void varlink_client_set_interrupt(struct varlink_client *client,
				  const volatile sig_atomic_t *flag)
{
	client->interrupt = flag;
}

static bool interrupted(const struct varlink_client *client)
{
	return client->interrupt && *client->interrupt;
}

/* What fill() makes of what varlink_recv() returned. */
static int received(const struct varlink_client *client, ssize_t n)
{
	if (n == -EINTR)
		return interrupted(client) ? -EINTR : 0;
	if (n == -ETOOMANYREFS)
		return -EPROTO;
	if (n < 0)
		return (int)n;
	return n == 0 ? -ECONNRESET : 0;
}

/* What varlink_recv() gave without sleeping within SPIN_NS: -EAGAIN for nothing. */
static ssize_t recv_spinning(struct varlink_client *client)
{
	long long end = now_ns() + SPIN_NS;
	ssize_t n;

	while ((n = varlink_transport_recv(&client->t, &client->in, &client->in_fds, 64 * 1024,
					   true)) == -EAGAIN && now_ns() < end)
		sched_yield();
	return n;
}

/*
 * Spinning pays only while replies come within SPIN_NS.  When they do not
 * (the daemon is busy, or many one-connection processes wait on it at once:
 * a script's rdmactl calls run in parallel, a monitoring agent), the spinners
 * take the CPU the daemon needs to answer them: eight such processes on two
 * CPUs had the daemon preempted every few tens of microseconds and one call
 * in a hundred wait over 1.5 ms.  So a spin that found nothing makes the
 * client sleep at once for its next spin_backoff waits, twice as many after
 * each such spin (up to SPIN_BACKOFF_MAX), and a spin that found its reply
 * starts over.
 */
static bool spin_worth_it(struct varlink_client *client)
{
	if (client->spin_skip == 0)
		return true;
	client->spin_skip--;
	return false;
}

static void spin_learn(struct varlink_client *client, bool found)
{
	if (found)
		client->spin_backoff = 0;
	else if (client->spin_backoff < SPIN_BACKOFF_MAX)
		client->spin_backoff = client->spin_backoff ? 2 * client->spin_backoff : 1;
	client->spin_skip = client->spin_backoff;
}

static int fill(struct varlink_client *client, long long deadline)
{
	struct pollfd pfd = { .fd = client->t.in_fd, .events = POLLIN };
	ssize_t n;
	int r;

	if (varlink_buffer_pending(&client->in) > VARLINK_MESSAGE_MAX)
		return -EMSGSIZE;
	if (interrupted(client))
		return -EINTR;
	if (atomic_load_explicit(&n_clients, memory_order_relaxed) == 1 && spin_worth_it(client)) {
		n = recv_spinning(client);
		spin_learn(client, n != -EAGAIN);
		if (n != -EAGAIN)
			return received(client, n);
	}
	if (deadline >= 0) {
		long long left = deadline - now_ms();

		r = poll(&pfd, 1, left > 0 ? (int)left : 0);
		if (r < 0)
			return errno == EINTR && !interrupted(client) ? 0 : -errno;
		if (r == 0)
			return -ETIMEDOUT;
	}
	/* Again after the spin: a signal caught during it must not leave us asleep. */
	if (interrupted(client))
		return -EINTR;
	return received(client, varlink_transport_recv(&client->t, &client->in, &client->in_fds,
							64 * 1024, false));
}

int varlink_client_read(struct varlink_client *client, struct json_object **params, char **error,
			bool *continues, int timeout_ms)
{
	long long deadline = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
	struct json_object *msg, *p = NULL, *e = NULL, *c = NULL;
	const char *data;
	size_t len;
	int r;

	while (!(data = varlink_buffer_next_message(&client->in, &len))) {
		r = fill(client, deadline);
		if (r < 0)
			return r;
	}
	msg = varlink_parse_message(data, len);
	varlink_fds_close(&client->reply_fds);
	varlink_fd_queue_take(&client->in_fds, client->in.base, &client->reply_fds);
	varlink_buffer_consume(&client->in, len + 1);
	if (!msg)
		return -EPROTO;

	json_object_object_get_ex(msg, "parameters", &p);
	json_object_object_get_ex(msg, "error", &e);
	json_object_object_get_ex(msg, "continues", &c);
	if ((p && !json_object_is_type(p, json_type_object)) ||
	    (e && !json_object_is_type(e, json_type_string)) ||
	    (c && !json_object_is_type(c, json_type_boolean))) {
		json_object_put(msg);
		return -EPROTO;
	}
	*params = p ? json_object_get(p) : json_object_new_object();
	*error = e ? strdup(json_object_get_string(e)) : NULL;
	*continues = c && json_object_get_boolean(c) && !e;
	json_object_put(msg);
	if (!*params || (e && !*error)) {
		json_object_put(*params);
		free(*error);
		return -ENOMEM;
	}
	return 0;
}

int varlink_client_call(struct varlink_client *client, const char *method,
			struct json_object *params, struct json_object **reply, char **error)
{
	return varlink_client_call_fds(client, method, params, NULL, 0, reply, error);
}

int varlink_client_call_fds(struct varlink_client *client, const char *method,
			    struct json_object *params, const int *fds, unsigned n_fds,
			    struct json_object **reply, char **error)
{
	bool continues;
	int r;

	r = varlink_client_send_fds(client, method, params, 0, fds, n_fds);
	if (r < 0)
		return r;
	r = varlink_client_read(client, reply, error, &continues, -1);
	if (r < 0)
		return r;
	if (continues) {
		/* A server must not set continues without more. */
		json_object_put(*reply);
		free(*error);
		return -EPROTO;
	}
	return 0;
}

int varlink_client_peek_fd(const struct varlink_client *client, unsigned i)
{
	return varlink_fds_peek(&client->reply_fds, i);
}

int varlink_client_take_fd(struct varlink_client *client, unsigned i)
{
	return varlink_fds_take(&client->reply_fds, i);
}

unsigned varlink_client_n_fds(const struct varlink_client *client)
{
	return client->reply_fds.n;
}
