/* SPDX-License-Identifier: MIT */
/*
 * lib/varlink server and client together in one process: the server runs its
 * sd-event loop in a thread on a socket in a temporary directory, the tests
 * talk to it through the blocking client.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "lib/varlink/varlink.h"
#include "lib/log.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <grp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <linux/sockios.h>
#include <time.h>
#include <unistd.h>

#define TIMEOUT_MS 5000

static const char test_idl[] =
	"# A test interface for lib/varlink.\n"
	"interface org.example.test\n"
	"\n"
	"# Answers with what it got.\n"
	"method Echo(text: string, n: ?int) -> (text: string, n: ?int)\n"
	"# With more: n replies i = 1 … n, all but the last with continues; without: one reply, i = n.\n"
	"method Count(n: int) -> (i: int)\n"
	"# Must be called with more.\n"
	"method Stream() -> (i: int)\n"
	"method Fail(reason: string) -> ()\n"
	"method Errno(errno: int) -> ()\n"
	"method Forget() -> ()\n"
	"method Whoami() -> (uid: int, gid: int, pid: int)\n"
	"# Replies ms milliseconds later, from a timer.\n"
	"method Later(ms: int, text: string) -> (text: string)\n"
	"# Never replies; the call is kept until its client goes away.\n"
	"method Hang() -> ()\n"
	"method Secret() -> ()\n"
	"# Keeps the event loop busy for ms milliseconds, then replies.\n"
	"method Block(ms: int) -> ()\n"
	"# A read and a change (privileged): each replies with its place among the calls that ran.\n"
	"method Look(text: string) -> (text: string, order: int)\n"
	"method Change(text: string) -> (text: string, order: int)\n"
	"method Undone() -> ()\n"
	"# What each descriptor passed with the call holds (its first bytes).\n"
	"method ReadFds() -> (texts: []string)\n"
	"# Keeps the descriptor passed at index until the test closes it.\n"
	"method TakeFd(index: int) -> ()\n"
	"# n replies, each with a pipe that holds i.\n"
	"method Pipes(n: int) -> (i: int)\n"
	"# varlink_server_stats(), read in the server's thread, and what uid nobody's buffers hold.\n"
	"method Stats() -> (open: int, buffered_bytes: int, refused_limit: int,\n"
	"                   refused_memory_budget: int, refused_buffer_per_uid: int,\n"
	"                   nobody_buffered: int, closed_output_budget: int,\n"
	"                   closed_incomplete_timeout: int, closed_idle: int)\n"
	"error Failed (reason: string, code: int)\n";

#define NOBODY 65534

struct fixture {
	char dir[64], path[96];
	pthread_t thread;
	int stop_fd;
	sem_t ready;
	int setup_rc;
	struct varlink_limits limits;

	/* Written by the server thread, read by the tests: use the atomics. */
	int echo_calls, hang_calls, cancelled, reply_after_cancel, closes, blocking;
	int taken_fd;

	/* Server thread only. */
	int order;        /* calls of Look and Change so far */
	sd_event *event;
	struct varlink_server *server;
};

static struct fixture *F;

#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_SEQ_CST)
#define BUMP(x) __atomic_add_fetch(&(x), 1, __ATOMIC_SEQ_CST)
#define STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_SEQ_CST)

/* ---- the service ---- */

static int m_echo(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct fixture *f = userdata;

	BUMP(f->echo_calls);
	return varlink_call_reply(call, json_object_get(params));
}

static int m_count(struct varlink_call *call, struct json_object *params, void *userdata)
{
	int64_t n = json_object_get_int64(json_object_object_get(params, "n"));
	struct json_object *p;

	if (n < 0)
		return varlink_call_error_invalid_parameter(call, "n");
	if (!varlink_call_wants_more(call)) {
		p = json_object_new_object();
		json_object_object_add(p, "i", json_object_new_int64(n));
		return varlink_call_reply(call, p);
	}
	for (int64_t i = 1; i <= n; i++) {
		int r;

		p = json_object_new_object();
		json_object_object_add(p, "i", json_object_new_int64(i));
		r = i < n ? varlink_call_reply_more(call, p) : varlink_call_reply(call, p);
		if (r < 0)
			return r;
	}
	return n == 0 ? varlink_call_reply(call, NULL) : 0;
}

static int m_stream(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct json_object *p = json_object_new_object();

	json_object_object_add(p, "i", json_object_new_int(1));
	return varlink_call_reply(call, p);
}

static int m_fail(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct json_object *p = json_object_new_object();

	json_object_object_add(p, "reason", json_object_get(json_object_object_get(params, "reason")));
	json_object_object_add(p, "code", json_object_new_int(42));
	return varlink_call_error(call, "org.example.test.Failed", p);
}

static int m_errno(struct varlink_call *call, struct json_object *params, void *userdata)
{
	return -(int)json_object_get_int64(json_object_object_get(params, "errno"));
}

/* Returns without replying and without keeping the call: a handler bug. */
static int m_forget(struct varlink_call *call, struct json_object *params, void *userdata)
{
	return 0;
}

static int m_whoami(struct varlink_call *call, struct json_object *params, void *userdata)
{
	const struct ucred *peer = varlink_call_peer(call);
	struct json_object *p = json_object_new_object();

	/* No cmocka asserts here: this runs in the server thread. */
	if (peer != varlink_connection_peer(varlink_call_connection(call)))
		return -EFAULT;
	json_object_object_add(p, "uid", json_object_new_int64(peer->uid));
	json_object_object_add(p, "gid", json_object_new_int64(peer->gid));
	json_object_object_add(p, "pid", json_object_new_int64(peer->pid));
	return varlink_call_reply(call, p);
}

struct later {
	struct varlink_call *call;
	char *text;
};

static int on_later(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct later *l = userdata;
	struct json_object *p = json_object_new_object();

	json_object_object_add(p, "text", json_object_new_string(l->text));
	varlink_call_reply(l->call, p);
	varlink_call_unref(l->call);
	free(l->text);
	free(l);
	sd_event_source_unref(s);
	return 0;
}

static int m_later(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct fixture *f = userdata;
	int64_t ms = json_object_get_int64(json_object_object_get(params, "ms"));
	struct later *l = calloc(1, sizeof(*l));
	sd_event_source *s;
	int r;

	if (!l)
		return -ENOMEM;
	l->text = strdup(json_object_get_string(json_object_object_get(params, "text")));
	l->call = varlink_call_ref(call);
	r = sd_event_add_time_relative(f->event, &s, CLOCK_MONOTONIC, (uint64_t)ms * 1000, 0,
				       on_later, l);
	if (r < 0) {
		varlink_call_unref(l->call);
		free(l->text);
		free(l);
	}
	return r;
}

static void on_hang_cancel(struct varlink_call *call, void *userdata)
{
	struct fixture *f = userdata;

	/* Nobody listens any more: replying must fail, not crash. */
	STORE(f->reply_after_cancel, varlink_call_reply(call, NULL));
	BUMP(f->cancelled);
	varlink_call_unref(call);
}

static int m_hang(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct fixture *f = userdata;

	varlink_call_set_cancel(varlink_call_ref(call), on_hang_cancel, f);
	BUMP(f->hang_calls);
	return 0;
}

static int m_read_fds(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct json_object *texts = json_object_new_array(), *p = json_object_new_object();

	for (unsigned i = 0; i < varlink_call_n_fds(call); i++) {
		char buf[64];
		ssize_t n = pread(varlink_call_peek_fd(call, i), buf, sizeof(buf), 0);

		json_object_array_add(texts, json_object_new_string_len(buf, n > 0 ? (int)n : 0));
	}
	json_object_object_add(p, "texts", texts);
	return varlink_call_reply(call, p);
}

static int m_take_fd(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct fixture *f = userdata;
	int64_t i = json_object_get_int64(json_object_object_get(params, "index"));
	int fd = varlink_call_take_fd(call, (unsigned)i);

	if (fd < 0)
		return varlink_call_error_invalid_parameter(call, "index");
	STORE(f->taken_fd, fd);
	return varlink_call_reply(call, NULL);
}

static int m_pipes(struct varlink_call *call, struct json_object *params, void *userdata)
{
	int64_t n = json_object_get_int64(json_object_object_get(params, "n"));

	for (int64_t i = 1; i <= n; i++) {
		struct json_object *p = json_object_new_object();
		char text[32];
		int fds[2], r;

		if (pipe2(fds, O_CLOEXEC) < 0)
			return -errno;
		snprintf(text, sizeof(text), "%lld", (long long)i);
		if (write(fds[1], text, strlen(text)) < 0)
			r = -errno;
		else
			r = varlink_call_push_fd(call, fds[0]);
		close(fds[1]);
		if (r < 0) {
			close(fds[0]);
			json_object_put(p);
			return r;
		}
		json_object_object_add(p, "i", json_object_new_int64(i));
		r = i < n ? varlink_call_reply_more(call, p) : varlink_call_reply(call, p);
		if (r < 0)
			return r;
	}
	return 0;
}

static int m_secret(struct varlink_call *call, struct json_object *params, void *userdata)
{
	return varlink_call_reply(call, NULL);
}

static int m_block(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct fixture *f = userdata;

	STORE(f->blocking, 1);
	usleep((useconds_t)json_object_get_int64(json_object_object_get(params, "ms")) * 1000);
	STORE(f->blocking, 0);
	return varlink_call_reply(call, NULL);
}

static int m_ordered(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct fixture *f = userdata;
	struct json_object *p = json_object_new_object();

	json_object_object_add(p, "text", json_object_get(json_object_object_get(params, "text")));
	json_object_object_add(p, "order", json_object_new_int(++f->order));
	return varlink_call_reply(call, p);
}

static int m_stats(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct fixture *f = userdata;
	struct json_object *p = json_object_new_object();
	struct varlink_server_stats st;

	varlink_server_stats(f->server, &st);
	json_object_object_add(p, "open", json_object_new_int64(st.open));
	json_object_object_add(p, "buffered_bytes", json_object_new_int64((int64_t)st.buffered_bytes));
	json_object_object_add(p, "refused_limit", json_object_new_int64((int64_t)st.refused_limit));
	json_object_object_add(p, "refused_memory_budget",
			       json_object_new_int64((int64_t)st.refused_memory_budget));
	json_object_object_add(p, "refused_buffer_per_uid",
			       json_object_new_int64((int64_t)st.refused_buffer_per_uid));
	json_object_object_add(p, "nobody_buffered",
			       json_object_new_int64((int64_t)varlink_server_uid_buffered(f->server,
											  NOBODY)));
	json_object_object_add(p, "closed_output_budget",
			       json_object_new_int64((int64_t)st.closed_output_budget));
	json_object_object_add(p, "closed_incomplete_timeout",
			       json_object_new_int64((int64_t)st.closed_incomplete_timeout));
	json_object_object_add(p, "closed_idle", json_object_new_int64((int64_t)st.closed_idle));
	return varlink_call_reply(call, p);
}

static bool authorize(const struct varlink_peer *peer, const char *method, unsigned flags,
		      void *userdata)
{
	/* Everyone may call the plain methods; only root the privileged one, and only this one. */
	if (!(flags & VARLINK_METHOD_PRIVILEGED))
		return true;
	return peer->cred.uid == 0 && (strcmp(method, "org.example.test.Secret") == 0 ||
					strcmp(method, "org.example.test.Change") == 0);
}

static void on_close(struct varlink_connection *conn, void *userdata)
{
	struct fixture *f = userdata;

	BUMP(f->closes);
}

static const struct varlink_method test_methods[] = {
	{ "Echo", m_echo, 0 },
	{ "Count", m_count, 0 },
	{ "Stream", m_stream, VARLINK_METHOD_REQUIRES_MORE },
	{ "Fail", m_fail, 0 },
	{ "Errno", m_errno, 0 },
	{ "Forget", m_forget, 0 },
	{ "Whoami", m_whoami, 0 },
	{ "Later", m_later, 0 },
	{ "Hang", m_hang, 0 },
	{ "Secret", m_secret, VARLINK_METHOD_PRIVILEGED },
	{ "Block", m_block, 0 },
	{ "Look", m_ordered, 0 },
	{ "Change", m_ordered, VARLINK_METHOD_PRIVILEGED },
	{ "ReadFds", m_read_fds, 0 },
	{ "TakeFd", m_take_fd, 0 },
	{ "Pipes", m_pipes, 0 },
	{ "Stats", m_stats, 0 },
	/* Undone is described but has no handler. */
	{ NULL, NULL, 0 },
};

static int on_stop(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	return sd_event_exit(sd_event_source_get_event(s), 0);
}

static void *server_thread(void *arg)
{
	struct fixture *f = arg;
	static const struct varlink_server_info info = {
		.vendor = "test", .product = "test_varlink_server", .version = "0", .url = "x",
	};
	int r;

	r = sd_event_new(&f->event);
	if (r >= 0)
		r = sd_event_add_io(f->event, NULL, f->stop_fd, EPOLLIN, on_stop, f);
	if (r >= 0)
		r = varlink_server_new(&f->server, f->event, &info);
	if (r >= 0)
		r = varlink_server_add_interface(f->server, test_idl, test_methods, f);
	if (r >= 0) {
		varlink_server_set_limits(f->server, &f->limits);
		varlink_server_set_authorizer(f->server, authorize, f);
		varlink_server_set_errno_error(f->server, "org.example.test.System");
		varlink_server_set_close_hook(f->server, on_close, f);
		r = varlink_server_listen_path(f->server, f->path, 0600);
	}
	f->setup_rc = r;
	sem_post(&f->ready);
	if (r >= 0)
		sd_event_loop(f->event);
	varlink_server_free(f->server);
	sd_event_unref(f->event);
	return NULL;
}

static int start_server(void **state, const struct varlink_limits *limits)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	snprintf(f->dir, sizeof(f->dir), "/tmp/test_varlink_server.XXXXXX");
	if (!mkdtemp(f->dir)) {
		free(f);
		return -1;
	}
	snprintf(f->path, sizeof(f->path), "%s/sock", f->dir);
	f->limits = *limits;
	f->taken_fd = -1;
	f->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	sem_init(&f->ready, 0, 0);
	if (pthread_create(&f->thread, NULL, server_thread, f) != 0)
		return -1;
	sem_wait(&f->ready);
	F = f;
	*state = f;
	return f->setup_rc < 0 ? -1 : 0;
}

static int setup(void **state)
{
	return start_server(state, &VARLINK_LIMITS_DEFAULT);
}

static int setup_two_connections(void **state)
{
	struct varlink_limits l = VARLINK_LIMITS_DEFAULT;

	l.max_connections = 2;
	l.reserved_for_root = 0;
	return start_server(state, &l);
}

static int setup_two_per_uid(void **state)
{
	struct varlink_limits l = VARLINK_LIMITS_DEFAULT;

	l.max_connections = 100;
	l.max_per_uid = 2;
	return start_server(state, &l);
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	uint64_t one = 1;

	if (write(f->stop_fd, &one, sizeof(one)) != sizeof(one))
		return -1;
	pthread_join(f->thread, NULL);
	close(f->stop_fd);
	sem_destroy(&f->ready);
	unlink(f->path);
	rmdir(f->dir);
	free(f);
	F = NULL;
	return 0;
}

/* ---- client helpers ---- */

static char address[128];

static struct varlink_client *connect_client(struct fixture *f)
{
	struct varlink_client *c = NULL;

	snprintf(address, sizeof(address), "unix:%s", f->path);
	assert_int_equal(varlink_client_connect(&c, address), 0);
	assert_non_null(c);
	return c;
}

/* Reads one reply, with a timeout, expecting no error. */
static struct json_object *read_ok(struct varlink_client *c, bool *continues)
{
	struct json_object *p = NULL;
	char *error = NULL;
	bool cont = false;

	assert_int_equal(varlink_client_read(c, &p, &error, &cont, TIMEOUT_MS), 0);
	if (error)
		fail_msg("unexpected error %s %s", error, json_object_to_json_string(p));
	if (continues)
		*continues = cont;
	else
		assert_false(cont);
	return p;
}

/* Reads one reply that must be the error name; returns its parameters. */
static struct json_object *read_error(struct varlink_client *c, const char *name)
{
	struct json_object *p = NULL;
	char *error = NULL;
	bool cont = true;

	assert_int_equal(varlink_client_read(c, &p, &error, &cont, TIMEOUT_MS), 0);
	if (!error)
		fail_msg("expected %s, got %s", name, json_object_to_json_string(p));
	assert_string_equal(error, name);
	assert_false(cont);
	free(error);
	return p;
}

static struct json_object *params_of(const char *json)
{
	struct json_object *p = json_tokener_parse(json);

	assert_non_null(p);
	return p;
}

static void send_call(struct varlink_client *c, const char *method, const char *json, unsigned flags)
{
	struct json_object *p = json ? params_of(json) : NULL;

	assert_int_equal(varlink_client_send(c, method, p, flags), 0);
	json_object_put(p);
}

static const char *str(struct json_object *o, const char *key)
{
	return json_object_get_string(json_object_object_get(o, key));
}

static int64_t num(struct json_object *o, const char *key)
{
	return json_object_get_int64(json_object_object_get(o, key));
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits until *counter reaches want (the server thread updates it). */
static bool wait_for(int *counter, int want)
{
	for (long long end = now_ms() + TIMEOUT_MS; now_ms() < end;) {
		if (LOAD(*counter) >= want)
			return true;
		usleep(1000);
	}
	return false;
}

/* ---- tests ---- */

static void test_round_trip(void **state)
{
	struct fixture *f = *state;
	struct varlink_client *c = connect_client(f);
	struct json_object *p, *reply = NULL;
	char *error = NULL;

	p = params_of("{\"text\":\"h\\u00e9llo/\\\"x\\\"\",\"n\":7}");
	assert_int_equal(varlink_client_call(c, "org.example.test.Echo", p, &reply, &error), 0);
	assert_null(error);
	assert_string_equal(str(reply, "text"), "h\xc3\xa9llo/\"x\"");
	assert_int_equal(num(reply, "n"), 7);
	json_object_put(reply);
	json_object_put(p);

	/* GetInfo lists org.varlink.service and ours. */
	assert_int_equal(varlink_client_call(c, "org.varlink.service.GetInfo", NULL, &reply, &error), 0);
	assert_null(error);
	assert_string_equal(str(reply, "product"), "test_varlink_server");
	assert_string_equal(json_object_to_json_string_ext(json_object_object_get(reply, "interfaces"),
							   JSON_C_TO_STRING_PLAIN),
			    "[\"org.varlink.service\",\"org.example.test\"]");
	json_object_put(reply);

	/* GetInterfaceDescription gives back the very text. */
	p = params_of("{\"interface\":\"org.example.test\"}");
	assert_int_equal(varlink_client_call(c, "org.varlink.service.GetInterfaceDescription", p,
					     &reply, &error), 0);
	assert_null(error);
	assert_string_equal(str(reply, "description"), test_idl);
	json_object_put(reply);
	json_object_put(p);
	varlink_client_free(c);
}

static void test_more_continues(void **state)
{
	struct fixture *f = *state;
	struct varlink_client *c = connect_client(f);
	struct json_object *p;
	bool cont;

	send_call(c, "org.example.test.Count", "{\"n\":3}", VARLINK_CALL_MORE);
	for (int i = 1; i <= 3; i++) {
		p = read_ok(c, &cont);
		assert_int_equal(num(p, "i"), i);
		assert_int_equal(cont, i < 3);
		json_object_put(p);
	}
	/* Without more: exactly one reply without continues. */
	send_call(c, "org.example.test.Count", "{\"n\":3}", 0);
	p = read_ok(c, NULL);
	assert_int_equal(num(p, "i"), 3);
	json_object_put(p);
	/* More on a method that answers once is fine. */
	send_call(c, "org.example.test.Echo", "{\"text\":\"once\"}", VARLINK_CALL_MORE);
	p = read_ok(c, &cont);
	assert_false(cont);
	assert_string_equal(str(p, "text"), "once");
	json_object_put(p);
	/* A method that needs more says so. */
	send_call(c, "org.example.test.Stream", NULL, 0);
	json_object_put(read_error(c, VARLINK_ERROR_EXPECTED_MORE));
	send_call(c, "org.example.test.Stream", NULL, VARLINK_CALL_MORE);
	p = read_ok(c, &cont);
	assert_int_equal(num(p, "i"), 1);
	json_object_put(p);
	varlink_client_free(c);
}

static void test_oneway(void **state)
{
	struct fixture *f = *state;
	struct varlink_client *c = connect_client(f);
	struct json_object *p;

	send_call(c, "org.example.test.Echo", "{\"text\":\"first\"}", VARLINK_CALL_ONEWAY);
	send_call(c, "org.example.test.Fail", "{\"reason\":\"silent\"}", VARLINK_CALL_ONEWAY);
	send_call(c, "org.example.test.Nope", NULL, VARLINK_CALL_ONEWAY);
	send_call(c, "org.example.test.Echo", "{\"text\":\"second\"}", 0);
	/* The first reply that comes is the one of the last call. */
	p = read_ok(c, NULL);
	assert_string_equal(str(p, "text"), "second");
	json_object_put(p);
	assert_int_equal(LOAD(f->echo_calls), 2);
	varlink_client_free(c);
}

static void test_errors_with_parameters(void **state)
{
	struct fixture *f = *state;
	struct varlink_client *c = connect_client(f);
	struct json_object *p;

	send_call(c, "org.example.test.Fail", "{\"reason\":\"because\"}", 0);
	p = read_error(c, "org.example.test.Failed");
	assert_string_equal(str(p, "reason"), "because");
	assert_int_equal(num(p, "code"), 42);
	json_object_put(p);

	send_call(c, "org.example.test.Errno", "{\"errno\":2}", 0);
	p = read_error(c, "org.example.test.System");
	assert_int_equal(num(p, "errno"), ENOENT);
	assert_string_equal(str(p, "errnoName"), "ENOENT");
	json_object_put(p);

	/* A handler that neither replies nor keeps the call gets an EIO answer. */
	send_call(c, "org.example.test.Forget", NULL, 0);
	p = read_error(c, "org.example.test.System");
	assert_int_equal(num(p, "errno"), EIO);
	json_object_put(p);

	send_call(c, "org.example.test.Undone", NULL, 0);
	p = read_error(c, VARLINK_ERROR_METHOD_NOT_IMPLEMENTED);
	assert_string_equal(str(p, "method"), "org.example.test.Undone");
	json_object_put(p);

	send_call(c, "org.example.test.Nope", NULL, 0);
	p = read_error(c, VARLINK_ERROR_METHOD_NOT_FOUND);
	assert_string_equal(str(p, "method"), "org.example.test.Nope");
	json_object_put(p);

	send_call(c, "org.example.other.Echo", NULL, 0);
	p = read_error(c, VARLINK_ERROR_INTERFACE_NOT_FOUND);
	assert_string_equal(str(p, "interface"), "org.example.other");
	json_object_put(p);

	send_call(c, "org.example.test.Echo", "{\"text\":1}", 0);
	p = read_error(c, VARLINK_ERROR_INVALID_PARAMETER);
	assert_string_equal(str(p, "parameter"), "text");
	json_object_put(p);

	send_call(c, "org.example.test.Count", "{\"n\":-1}", 0);
	p = read_error(c, VARLINK_ERROR_INVALID_PARAMETER);
	assert_string_equal(str(p, "parameter"), "n");
	json_object_put(p);

	/* Privileged: our uid is let in only if it is root. */
	send_call(c, "org.example.test.Secret", NULL, 0);
	if (getuid() == 0)
		json_object_put(read_ok(c, NULL));
	else
		json_object_put(read_error(c, VARLINK_ERROR_PERMISSION_DENIED));

	/* After all those errors the connection still works. */
	send_call(c, "org.example.test.Echo", "{\"text\":\"still here\"}", 0);
	p = read_ok(c, NULL);
	assert_string_equal(str(p, "text"), "still here");
	json_object_put(p);
	varlink_client_free(c);
}

static void test_peer_credentials(void **state)
{
	struct fixture *f = *state;
	struct varlink_client *c = connect_client(f);
	struct json_object *p;

	send_call(c, "org.example.test.Whoami", NULL, 0);
	p = read_ok(c, NULL);
	assert_int_equal(num(p, "uid"), getuid());
	assert_int_equal(num(p, "gid"), getgid());
	assert_int_equal(num(p, "pid"), getpid());
	json_object_put(p);
	varlink_client_free(c);
}

static void test_async_reply(void **state)
{
	struct fixture *f = *state;
	struct varlink_client *a = connect_client(f), *b = connect_client(f);
	struct json_object *p;
	char *error = NULL;
	bool cont;
	long long t0 = now_ms();

	/* a waits for a timer; a call pipelined behind it must wait its turn. */
	send_call(a, "org.example.test.Later", "{\"ms\":500,\"text\":\"late\"}", 0);
	send_call(a, "org.example.test.Echo", "{\"text\":\"behind\"}", 0);
	/* Meanwhile b is served at once, and a has nothing yet. */
	send_call(b, "org.example.test.Echo", "{\"text\":\"b\"}", 0);
	p = read_ok(b, NULL);
	assert_string_equal(str(p, "text"), "b");
	json_object_put(p);
	if (now_ms() - t0 < 400) /* else the machine is too slow to tell */
		assert_int_equal(varlink_client_read(a, &p, &error, &cont, 0), -ETIMEDOUT);

	p = read_ok(a, NULL);
	assert_string_equal(str(p, "text"), "late");
	assert_true(now_ms() - t0 >= 490);
	json_object_put(p);
	p = read_ok(a, NULL);
	assert_string_equal(str(p, "text"), "behind");
	json_object_put(p);
	varlink_client_free(a);
	varlink_client_free(b);
}

static void test_async_reply_after_half_close(void **state)
{
	struct fixture *f = *state;
	struct varlink_client *c = connect_client(f);
	struct json_object *p;
	char *error = NULL;
	bool cont;

	/* A client that shuts its writing side still gets its answers, then EOF. */
	send_call(c, "org.example.test.Later", "{\"ms\":50,\"text\":\"bye\"}", 0);
	send_call(c, "org.example.test.Echo", "{\"text\":\"last\"}", 0);
	/* The client has no API for it; shut down a dup of its socket by number. */
	for (int fd = 3; fd < 1024; fd++) {
		struct sockaddr_storage peer;
		socklen_t len = sizeof(peer);
		char want[108];

		if (getpeername(fd, (struct sockaddr *)&peer, &len) < 0 || peer.ss_family != AF_UNIX)
			continue;
		snprintf(want, sizeof(want), "%s", f->path);
		if (strcmp(((struct sockaddr_un *)&peer)->sun_path, want) == 0 &&
		    shutdown(fd, SHUT_WR) == 0)
			break;
	}
	p = read_ok(c, NULL);
	assert_string_equal(str(p, "text"), "bye");
	json_object_put(p);
	p = read_ok(c, NULL);
	assert_string_equal(str(p, "text"), "last");
	json_object_put(p);
	assert_int_equal(varlink_client_read(c, &p, &error, &cont, TIMEOUT_MS), -ECONNRESET);
	varlink_client_free(c);
}

static void test_cancel_on_disconnect(void **state)
{
	struct fixture *f = *state;
	struct varlink_client *c = connect_client(f), *other = connect_client(f);
	struct json_object *p;
	int closes;

	send_call(c, "org.example.test.Hang", NULL, 0);
	assert_true(wait_for(&f->hang_calls, 1));
	assert_int_equal(LOAD(f->cancelled), 0);
	closes = LOAD(f->closes);
	varlink_client_free(c);
	assert_true(wait_for(&f->cancelled, 1));
	assert_int_equal(LOAD(f->cancelled), 1);
	assert_int_equal(LOAD(f->reply_after_cancel), -ENOTCONN);
	assert_true(wait_for(&f->closes, closes + 1));

	/* Others are not disturbed. */
	send_call(other, "org.example.test.Echo", "{\"text\":\"fine\"}", 0);
	p = read_ok(other, NULL);
	assert_string_equal(str(p, "text"), "fine");
	json_object_put(p);

	/* A kept call of a connection still open at shutdown is cancelled too. */
	send_call(other, "org.example.test.Hang", NULL, 0);
	assert_true(wait_for(&f->hang_calls, 2));
	varlink_client_free(other);
	assert_true(wait_for(&f->cancelled, 2));
}

static void test_disconnect_mid_stream(void **state)
{
	struct fixture *f = *state;
	struct varlink_client *c = connect_client(f), *other = connect_client(f);
	struct json_object *p;

	/* A long stream to a client that hangs up without reading. */
	send_call(c, "org.example.test.Count", "{\"n\":200000}", VARLINK_CALL_MORE);
	varlink_client_free(c);
	send_call(other, "org.example.test.Echo", "{\"text\":\"ok\"}", 0);
	p = read_ok(other, NULL);
	assert_string_equal(str(p, "text"), "ok");
	json_object_put(p);
	varlink_client_free(other);
}

/* The client refused by the limit is closed; the ones before it go on. */
static void check_limit_of_two(struct fixture *f)
{
	struct varlink_client *a = connect_client(f), *b = connect_client(f), *c, *d;
	struct json_object *p = NULL;
	char *error = NULL;
	bool cont;
	int r;

	/* Make sure a and b are accepted before c comes. */
	send_call(a, "org.example.test.Echo", "{\"text\":\"a\"}", 0);
	json_object_put(read_ok(a, NULL));
	send_call(b, "org.example.test.Echo", "{\"text\":\"b\"}", 0);
	json_object_put(read_ok(b, NULL));

	c = connect_client(f);
	/* The refusal may come as a failed send or as a closed connection. */
	r = varlink_client_send(c, "org.example.test.Echo", NULL, 0);
	if (r == 0)
		r = varlink_client_read(c, &p, &error, &cont, TIMEOUT_MS);
	assert_true(r == -ECONNRESET || r == -EPIPE);
	varlink_client_free(c);

	send_call(a, "org.example.test.Echo", "{\"text\":\"a2\"}", 0);
	p = read_ok(a, NULL);
	assert_string_equal(str(p, "text"), "a2");
	json_object_put(p);
	send_call(b, "org.example.test.Echo", "{\"text\":\"b2\"}", 0);
	p = read_ok(b, NULL);
	assert_string_equal(str(p, "text"), "b2");
	json_object_put(p);

	/* Once a leaves, there is room again. */
	varlink_client_free(a);
	for (int tries = 0;; tries++) {
		struct json_object *in = params_of("{\"text\":\"d\"}");

		d = connect_client(f);
		r = varlink_client_send(d, "org.example.test.Echo", in, 0);
		json_object_put(in);
		if (r == 0)
			r = varlink_client_read(d, &p, &error, &cont, TIMEOUT_MS);
		if (r == 0)
			break;
		varlink_client_free(d);
		assert_true(tries < 100);
		usleep(10000);
	}
	assert_null(error);
	assert_string_equal(str(p, "text"), "d");
	json_object_put(p);
	varlink_client_free(d);
	varlink_client_free(b);
}

static void test_connection_limit(void **state)
{
	check_limit_of_two(*state);
}

static void test_many_pipelined(void **state)
{
	struct fixture *f = *state;
	struct varlink_client *c = connect_client(f);

	/* 500 calls written before any reply is read: all answered, in order. */
	for (int i = 0; i < 500; i++) {
		char json[64];

		snprintf(json, sizeof(json), "{\"text\":\"m\",\"n\":%d}", i);
		send_call(c, "org.example.test.Echo", json, 0);
	}
	for (int i = 0; i < 500; i++) {
		struct json_object *p = read_ok(c, NULL);

		assert_int_equal(num(p, "n"), i);
		json_object_put(p);
	}
	varlink_client_free(c);
}

/* ---- file descriptors ---- */

static int memfd_with(const char *text)
{
	int fd = memfd_create("test", MFD_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	return fd;
}

/* The "texts" of a ReadFds reply, as one string: "one,two". */
static void assert_texts(struct varlink_client *c, const char *want)
{
	struct json_object *p = read_ok(c, NULL), *texts = json_object_object_get(p, "texts");
	char got[256] = "";

	for (size_t i = 0; i < json_object_array_length(texts); i++) {
		if (i > 0)
			strcat(got, ",");
		strcat(got, json_object_get_string(json_object_array_get_idx(texts, i)));
	}
	assert_string_equal(got, want);
	json_object_put(p);
}

/* Whether reading fd finds its writing end closed within ms. */
static bool closed_within(int fd, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char c;

	return poll(&pfd, 1, ms) == 1 && read(fd, &c, 1) == 0;
}

/* A raw connection to the server, for what the client would not send. */
static int connect_raw(struct fixture *f)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", f->path);
	assert_int_equal(connect(fd, (struct sockaddr *)&addr, sizeof(addr)), 0);
	return fd;
}

static void send_raw_fds(int sock, const char *bytes, size_t len, const int *fds, unsigned n)
{
	char control[CMSG_SPACE(sizeof(int) * 32)] = { 0 };
	struct iovec iov = { .iov_base = (void *)bytes, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;

	assert_true(n <= 32);
	if (n > 0) {
		mh.msg_control = control;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * n);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * n);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * n);
	}
	assert_int_equal(sendmsg(sock, &mh, MSG_NOSIGNAL), (ssize_t)len);
}

/*
 * More pipelined bytes than the server reads at once (VARLINK_MESSAGE_MAX):
 * it stops reading with bytes still in the socket, works through what it
 * has, and must look at the socket again (its edge-triggered watch sees no
 * new edge for bytes that were there before).  Each call is 1 MiB of JSON
 * whitespace around a small Echo: all 24 are answered, in order.
 */
static void test_pipelined_past_the_read_limit(void **state)
{
	struct fixture *f = *state;
	const size_t pad = 1u << 20, calls = 24;
	char *msg = malloc(pad + 128), got[64 * 24], *at = got;
	int sock = connect_raw(f);
	size_t have = 0, replies = 0;

	assert_non_null(msg);
	for (size_t i = 0; i < calls; i++) {
		int n = snprintf(msg, 128, "{\"method\":\"org.example.test.Echo\",\"parameters\":"
				 "{\"text\":\"m\",\"n\":%zu}", i);

		memset(msg + n, ' ', pad);
		memcpy(msg + n + pad, "}", 2);
		send_raw_fds(sock, msg, (size_t)n + pad + 2, NULL, 0);
	}
	free(msg);
	while (replies < calls) {
		struct pollfd pfd = { .fd = sock, .events = POLLIN };
		ssize_t n;

		assert_int_equal(poll(&pfd, 1, 10000), 1);
		n = read(sock, got + have, sizeof(got) - have - 1);
		assert_true(n > 0);
		have += (size_t)n;
		got[have] = '\0';
		for (char *end; (end = memchr(at, '\0', have - (size_t)(at - got))) && at < got + have;
		     at = end + 1) {
			struct json_object *o = json_tokener_parse(at);

			assert_non_null(o);
			assert_int_equal(num(json_object_object_get(o, "parameters"), "n"), (int64_t)replies);
			json_object_put(o);
			replies++;
		}
	}
	close(sock);
}

/* The server closes the raw connection: end of stream, no reply. */
static void assert_closed_by_server(int sock)
{
	struct pollfd pfd = { .fd = sock, .events = POLLIN };
	char buf[256];
	ssize_t n;

	assert_int_equal(poll(&pfd, 1, TIMEOUT_MS), 1);
	n = recv(sock, buf, sizeof(buf), 0);
	assert_true(n == 0 || (n < 0 && errno == ECONNRESET));
}

static void assert_server_serves(struct fixture *f)
{
	struct varlink_client *c = connect_client(f);
	struct json_object *p;

	send_call(c, "org.example.test.Echo", "{\"text\":\"fine\"}", 0);
	p = read_ok(c, NULL);
	assert_string_equal(str(p, "text"), "fine");
	json_object_put(p);
	varlink_client_free(c);
}

static void test_fds_tied_to_their_message(void **state)
{
	struct fixture *f = *state;
	struct varlink_client *c = connect_client(f);
	int one = memfd_with("one"), two[2] = { memfd_with("two"), memfd_with("three") };

	/* Pipelined: all written before any reply is read; each call sees its own. */
	assert_int_equal(varlink_client_send_fds(c, "org.example.test.ReadFds", NULL, 0, &one, 1), 0);
	send_call(c, "org.example.test.ReadFds", NULL, 0);
	assert_int_equal(varlink_client_send_fds(c, "org.example.test.ReadFds", NULL, 0, two, 2), 0);
	assert_int_equal(varlink_client_send_fds(c, "org.example.test.ReadFds", NULL, 0, &one, 1), 0);
	assert_texts(c, "one");
	assert_texts(c, "");
	assert_texts(c, "two,three");
	assert_texts(c, "one");
	/* The caller's descriptors stay its own. */
	assert_true(fcntl(one, F_GETFD) >= 0);
	close(one);
	close(two[0]);
	close(two[1]);
	varlink_client_free(c);
}

static void test_fds_wait_behind_a_slow_call(void **state)
{
	struct fixture *f = *state;
	struct varlink_client *c = connect_client(f);
	int fds[VARLINK_FDS_PER_MESSAGE_MAX];
	struct json_object *p;
	char want[8];

	/* More descriptors than a connection may have waiting: reading pauses, nothing is lost. */
	send_call(c, "org.example.test.Later", "{\"ms\":100,\"text\":\"slow\"}", 0);
	for (int m = 0; m < 8; m++) {
		snprintf(want, sizeof(want), "m%d", m);
		for (unsigned i = 0; i < VARLINK_FDS_PER_MESSAGE_MAX; i++)
			fds[i] = memfd_with(want);
		assert_int_equal(varlink_client_send_fds(c, "org.example.test.ReadFds", NULL, 0, fds,
							 VARLINK_FDS_PER_MESSAGE_MAX), 0);
		for (unsigned i = 0; i < VARLINK_FDS_PER_MESSAGE_MAX; i++)
			close(fds[i]);
	}
	p = read_ok(c, NULL);
	assert_string_equal(str(p, "text"), "slow");
	json_object_put(p);
	for (int m = 0; m < 8; m++) {
		char all[256] = "";

		for (unsigned i = 0; i < VARLINK_FDS_PER_MESSAGE_MAX; i++)
			snprintf(all + strlen(all), sizeof(all) - strlen(all), "%sm%d", i ? "," : "", m);
		assert_texts(c, all);
	}
	varlink_client_free(c);
}

static void test_unclaimed_fds_closed(void **state)
{
	struct fixture *f = *state;
	struct varlink_client *c = connect_client(f);
	struct json_object *p;
	int pipes[2];

	/* A method that never looks at what came with its call. */
	assert_int_equal(pipe2(pipes, O_CLOEXEC), 0);
	p = params_of("{\"text\":\"x\"}");
	assert_int_equal(varlink_client_send_fds(c, "org.example.test.Echo", p, 0, &pipes[1], 1), 0);
	json_object_put(p);
	close(pipes[1]);
	json_object_put(read_ok(c, NULL));
	assert_true(closed_within(pipes[0], TIMEOUT_MS));
	close(pipes[0]);

	/* Nor do calls that end before a handler runs keep them. */
	assert_int_equal(pipe2(pipes, O_CLOEXEC), 0);
	assert_int_equal(varlink_client_send_fds(c, "org.example.test.Nope", NULL, 0, &pipes[1], 1), 0);
	close(pipes[1]);
	json_object_put(read_error(c, VARLINK_ERROR_METHOD_NOT_FOUND));
	assert_true(closed_within(pipes[0], TIMEOUT_MS));
	close(pipes[0]);

	/* A taken one stays open until its new owner closes it. */
	assert_int_equal(pipe2(pipes, O_CLOEXEC), 0);
	p = params_of("{\"index\":0}");
	assert_int_equal(varlink_client_send_fds(c, "org.example.test.TakeFd", p, 0, &pipes[1], 1), 0);
	json_object_put(p);
	close(pipes[1]);
	json_object_put(read_ok(c, NULL));
	assert_false(closed_within(pipes[0], 50));
	close(LOAD(f->taken_fd));
	assert_true(closed_within(pipes[0], TIMEOUT_MS));
	close(pipes[0]);

	/* An index with nothing passed there. */
	send_call(c, "org.example.test.TakeFd", "{\"index\":0}", 0);
	p = read_error(c, VARLINK_ERROR_INVALID_PARAMETER);
	assert_string_equal(str(p, "parameter"), "index");
	json_object_put(p);
	varlink_client_free(c);
}

static void test_too_many_fds_closes_connection(void **state)
{
	struct fixture *f = *state;
	struct varlink_client *c = connect_client(f);
	static const char msg[] = "{\"method\":\"org.example.test.Echo\",\"parameters\":{\"text\":\"x\"}}";
	int fds[VARLINK_FDS_PER_MESSAGE_MAX + 1], sock;

	for (unsigned i = 0; i <= VARLINK_FDS_PER_MESSAGE_MAX; i++)
		fds[i] = memfd_with("x");
	/* The limit itself is fine; the client refuses to go past it. */
	assert_int_equal(varlink_client_send_fds(c, "org.example.test.ReadFds", NULL, 0, fds,
						 VARLINK_FDS_PER_MESSAGE_MAX), 0);
	json_object_put(read_ok(c, NULL));
	assert_int_equal(varlink_client_send_fds(c, "org.example.test.ReadFds", NULL, 0, fds,
						 VARLINK_FDS_PER_MESSAGE_MAX + 1), -E2BIG);
	varlink_client_free(c);

	sock = connect_raw(f);
	send_raw_fds(sock, msg, sizeof(msg), fds, VARLINK_FDS_PER_MESSAGE_MAX + 1);
	assert_closed_by_server(sock);
	close(sock);
	for (unsigned i = 0; i <= VARLINK_FDS_PER_MESSAGE_MAX; i++)
		close(fds[i]);
	assert_server_serves(f);
}

static void test_fds_without_message_close_connection(void **state)
{
	struct fixture *f = *state;
	static const char head[] = "{\"method\":\"org.example.test.Echo\",\"parameters\":";
	static const char tail[] = "{\"text\":\"x\"}}";
	int fd = memfd_with("x"), sock = connect_raw(f), unread;

	/* Descriptors with the middle of a message, after the server has read its start. */
	send_raw_fds(sock, head, strlen(head), NULL, 0);
	for (long long end = now_ms() + TIMEOUT_MS; now_ms() < end; usleep(1000))
		if (ioctl(sock, SIOCOUTQ, &unread) == 0 && unread == 0)
			break;
	assert_int_equal(unread, 0);
	send_raw_fds(sock, tail, sizeof(tail), &fd, 1);
	assert_closed_by_server(sock);
	close(sock);
	close(fd);
	assert_server_serves(f);
}

static void test_fds_on_replies(void **state)
{
	struct fixture *f = *state;
	struct varlink_client *c = connect_client(f);
	bool cont = true;

	/* Every reply of a stream brings its own pipe. */
	send_call(c, "org.example.test.Pipes", "{\"n\":3}", VARLINK_CALL_MORE);
	for (int i = 1; i <= 3; i++) {
		struct json_object *p = read_ok(c, &cont);
		char buf[8] = "", want[8];
		int fd;

		assert_int_equal(num(p, "i"), i);
		assert_int_equal(cont, i < 3);
		json_object_put(p);
		assert_int_equal(varlink_client_n_fds(c), 1);
		assert_int_equal(varlink_client_peek_fd(c, 1), -ENXIO);
		fd = varlink_client_take_fd(c, 0);
		assert_true(fd >= 0);
		assert_int_equal(varlink_client_peek_fd(c, 0), -ENXIO);
		snprintf(want, sizeof(want), "%d", i);
		assert_int_equal(read(fd, buf, sizeof(buf) - 1), (ssize_t)strlen(want));
		assert_string_equal(buf, want);
		close(fd);
	}
	/* A reply without any. */
	send_call(c, "org.example.test.Echo", "{\"text\":\"none\"}", 0);
	json_object_put(read_ok(c, NULL));
	assert_int_equal(varlink_client_n_fds(c), 0);
	varlink_client_free(c);
}

/* ---- limits for other uids than root ---- */

/* The bytes open_partial() sends on each connection. */
static size_t partial_bytes;

/* Connections a child holds with uid and gid NOBODY. */
struct held {
	pid_t pid;
	int to_child;   /* closed: the child closes its connections and exits */
	int answered;   /* of those it opened, how many the server answered */
};

/* Opens a connection and makes an Echo call on it; the socket, or -1 when refused. */
static int open_answered(const char *path)
{
	static const char call[] = "{\"method\":\"org.example.test.Echo\",\"parameters\":{\"text\":\"x\"}}";
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct pollfd pfd = { .events = POLLIN };
	char buf[256];

	pfd.fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
	if (pfd.fd < 0 || connect(pfd.fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 ||
	    send(pfd.fd, call, sizeof(call), MSG_NOSIGNAL) != sizeof(call) ||
	    poll(&pfd, 1, TIMEOUT_MS) != 1 || recv(pfd.fd, buf, sizeof(buf), 0) <= 0) {
		if (pfd.fd >= 0)
			close(pfd.fd);
		return -1;
	}
	return pfd.fd;
}

/*
 * Opens a connection and sends partial_bytes of a message without its end;
 * the socket once the server has read them all, or -1 when it closed the
 * connection instead.
 */
static int open_partial(const char *path)
{
	static const char head[] = "{\"method\":\"org.example.test.Echo\",\"parameters\":{\"text\":\"";
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct pollfd pfd = { .events = POLLRDHUP };
	char *bytes = malloc(partial_bytes);
	int unread = 0;

	pfd.fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
	if (!bytes || pfd.fd < 0 || connect(pfd.fd, (struct sockaddr *)&addr, sizeof(addr)) < 0)
		_exit(1);
	memset(bytes, 'a', partial_bytes);
	memcpy(bytes, head, strlen(head));
	/* Fails when the server closes the connection before taking all. */
	send(pfd.fd, bytes, partial_bytes, MSG_NOSIGNAL);
	free(bytes);
	/* Nothing left unread: the server took all, or closed (which drops what it had not read). */
	for (long long end = now_ms() + TIMEOUT_MS; now_ms() < end; usleep(1000))
		if (ioctl(pfd.fd, SIOCOUTQ, &unread) < 0 || unread == 0)
			break;
	if (unread != 0 || (poll(&pfd, 1, 0) == 1 && (pfd.revents & (POLLHUP | POLLRDHUP)))) {
		close(pfd.fd);
		return -1;
	}
	return pfd.fd;
}

/* The child of hold_as_nobody(): no cmocka, no assertions, an exit status. */
static void nobody_child(const char *path, unsigned n, int (*open_one)(const char *path),
			 int to_parent, int from_parent)
{
	int answered = 0;
	char c;

	if (setgroups(0, NULL) < 0 || setresgid(NOBODY, NOBODY, NOBODY) < 0 ||
	    setresuid(NOBODY, NOBODY, NOBODY) < 0)
		_exit(1);
	for (unsigned i = 0; i < n; i++)
		answered += open_one(path) >= 0;
	if (write(to_parent, &answered, sizeof(answered)) != sizeof(answered))
		_exit(1);
	while (read(from_parent, &c, 1) > 0)
		;
	_exit(0);
}

/*
 * A child of uid NOBODY opens n connections with open_one and keeps them until
 * held_release(); answered is how many open_one kept.
 */
static struct held hold_as_nobody_with(struct fixture *f, unsigned n, int (*open_one)(const char *))
{
	struct held h = { .answered = -1 };
	int up[2], down[2];

	/* Test directories are private: let the child reach the socket. */
	assert_int_equal(chmod(f->dir, 0755), 0);
	assert_int_equal(chmod(f->path, 0666), 0);
	assert_int_equal(pipe2(up, O_CLOEXEC), 0);
	assert_int_equal(pipe2(down, O_CLOEXEC), 0);
	h.pid = fork();
	assert_true(h.pid >= 0);
	if (h.pid == 0) {
		/* Its copy of the pipe's writing end would keep it waiting forever. */
		close(down[1]);
		close(up[0]);
		nobody_child(f->path, n, open_one, up[1], down[0]);
	}
	close(up[1]);
	close(down[0]);
	h.to_child = down[1];
	assert_int_equal(read(up[0], &h.answered, sizeof(h.answered)), sizeof(h.answered));
	close(up[0]);
	return h;
}

/* A child of uid NOBODY opens n connections, makes a call on each, and keeps them. */
static struct held hold_as_nobody(struct fixture *f, unsigned n)
{
	return hold_as_nobody_with(f, n, open_answered);
}

static void held_release(struct held *h)
{
	int status;

	close(h->to_child);
	assert_int_equal(waitpid(h->pid, &status, 0), h->pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* One of the Stats counters. */
static int64_t stat_of(struct fixture *f, const char *key)
{
	struct varlink_client *c = connect_client(f);
	struct json_object *p;
	int64_t v;

	send_call(c, "org.example.test.Stats", NULL, 0);
	p = read_ok(c, NULL);
	v = num(p, key);
	json_object_put(p);
	varlink_client_free(c);
	return v;
}

/* Root is not held to max_per_uid: its connections count against max_connections only. */
static void test_per_uid_limit_spares_root(void **state)
{
	struct fixture *f = *state;
	struct varlink_client *c[3];

	for (int i = 0; i < 3; i++)
		c[i] = connect_client(f);
	for (int i = 0; i < 3; i++) {
		send_call(c[i], "org.example.test.Echo", "{\"text\":\"root\"}", 0);
		json_object_put(read_ok(c[i], NULL));
	}
	for (int i = 0; i < 3; i++)
		varlink_client_free(c[i]);
}

static void test_per_uid_limit(void **state)
{
	struct fixture *f = *state;
	struct held h = hold_as_nobody(f, 3);

	assert_int_equal(h.answered, 2);
	assert_int_equal(stat_of(f, "refused_limit"), 1);
	held_release(&h);
}

static int setup_reserved_for_root(void **state)
{
	struct varlink_limits l = VARLINK_LIMITS_DEFAULT;

	l.max_connections = 6;
	l.reserved_for_root = 2;
	return start_server(state, &l);
}

/* Other uids get max_connections - reserved_for_root at most; root the rest. */
static void test_reserved_for_root(void **state)
{
	struct fixture *f = *state;
	struct held h = hold_as_nobody(f, 6);
	int root[3];

	assert_int_equal(h.answered, 4);
	root[0] = open_answered(f->path);
	root[1] = open_answered(f->path);
	assert_true(root[0] >= 0 && root[1] >= 0);
	/* All six taken: not even root gets another. */
	root[2] = open_answered(f->path);
	assert_int_equal(root[2], -1);
	close(root[1]);
	close(root[0]);
	/* Room again once the server has seen them go. */
	usleep(100 * 1000);
	assert_int_equal(stat_of(f, "refused_limit"), 3);
	held_release(&h);
}

static int setup_short_timeouts(void **state)
{
	struct varlink_limits l = VARLINK_LIMITS_DEFAULT;

	l.idle_timeout_usec = 200 * 1000;
	l.incomplete_timeout_usec = 200 * 1000;
	l.output_timeout_usec = 200 * 1000;
	l.output_budget = 64 * 1024;
	l.buffer_budget = 1024 * 1024;
	return start_server(state, &l);
}

/* Whether the server closed sock within ms; what it sent stays unread. */
static bool hung_up_within(int sock, int ms)
{
	struct pollfd pfd = { .fd = sock, .events = POLLRDHUP };

	return poll(&pfd, 1, ms) == 1 && (pfd.revents & (POLLHUP | POLLRDHUP | POLLERR));
}

/* An idle connection of another uid than root is closed; root's stays. */
static void test_idle_timeout(void **state)
{
	struct fixture *f = *state;
	struct varlink_client *c = connect_client(f);
	struct held h = hold_as_nobody(f, 1);
	struct json_object *p;

	assert_int_equal(h.answered, 1);
	send_call(c, "org.example.test.Echo", "{\"text\":\"before\"}", 0);
	json_object_put(read_ok(c, NULL));
	for (long long end = now_ms() + TIMEOUT_MS; now_ms() < end; usleep(10000))
		if (stat_of(f, "closed_idle") == 1)
			break;
	assert_int_equal(stat_of(f, "closed_idle"), 1);
	usleep(300 * 1000);
	send_call(c, "org.example.test.Echo", "{\"text\":\"after\"}", 0);
	p = read_ok(c, NULL);
	assert_string_equal(str(p, "text"), "after");
	json_object_put(p);
	varlink_client_free(c);
	held_release(&h);
}

/* A message begun and left unfinished closes its connection after the timeout. */
static void test_incomplete_timeout(void **state)
{
	struct fixture *f = *state;
	static const char part[] = "{\"method\":\"org.example.test.Echo\",\"param";
	int sock = connect_raw(f);

	send_raw_fds(sock, part, strlen(part), NULL, 0);
	assert_true(hung_up_within(sock, TIMEOUT_MS));
	close(sock);
	assert_int_equal(stat_of(f, "closed_incomplete_timeout"), 1);
	assert_server_serves(f);
}

/*
 * A client that writes calls and never reads: the server stops reading it
 * once its replies pass the output budget, serves others meanwhile, and
 * closes it after the output timeout.
 */
static void test_output_budget(void **state)
{
	struct fixture *f = *state;
	char call[1024];
	int sock = connect_raw(f), len, stalled = 0;
	size_t sent = 0;

	len = snprintf(call, sizeof(call), "{\"method\":\"org.example.test.Echo\",\"parameters\":"
		       "{\"text\":\"%0900d\"}}", 0) + 1;
	/* Until the server stops taking calls: what the kernel buffers, plus one budget. */
	while (sent < 64u * 1024 * 1024 && stalled < 50) {
		ssize_t n = send(sock, call, (size_t)len, MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0 && errno == EAGAIN) {
			stalled++;
			usleep(2000);
			continue;
		}
		if (n < 0)
			break;
		assert_int_equal(n, len);
		sent += (size_t)n;
		stalled = 0;
	}
	assert_true(sent < 16u * 1024 * 1024);
	assert_server_serves(f);
	assert_true(hung_up_within(sock, TIMEOUT_MS));
	close(sock);
	assert_int_equal(stat_of(f, "closed_output_budget"), 1);
}

/* A message that would take all buffers past their budget closes its connection at once. */
static void test_buffer_budget(void **state)
{
	struct fixture *f = *state;
	static const char head[] = "{\"method\":\"org.example.test.Echo\",\"parameters\":{\"text\":\"";
	char *big = malloc(2 * 1024 * 1024);
	int sock = connect_raw(f);
	size_t sent = strlen(head);

	assert_non_null(big);
	memset(big, 'a', 2 * 1024 * 1024);
	memcpy(big, head, strlen(head));
	send_raw_fds(sock, head, strlen(head), NULL, 0);
	while (sent < 2 * 1024 * 1024) {
		ssize_t n = send(sock, big + sent, 2 * 1024 * 1024 - sent, MSG_NOSIGNAL);

		if (n <= 0)
			break;
		sent += (size_t)n;
	}
	assert_true(hung_up_within(sock, TIMEOUT_MS));
	close(sock);
	free(big);
	assert_int_equal(stat_of(f, "refused_memory_budget"), 1);
	assert_int_equal(stat_of(f, "closed_incomplete_timeout"), 0);
	assert_server_serves(f);
	/* What it held is given back. */
	assert_true(stat_of(f, "buffered_bytes") < 256 * 1024);
}

/*
 * 4 MiB of buffers, 1.5 MiB of it root's alone.  A message of 600 kB takes a
 * buffer of 1 MiB.
 */
static int start_with_buffer_shares(void **state, size_t per_uid)
{
	struct varlink_limits l = VARLINK_LIMITS_DEFAULT;

	l.buffer_budget = 4 * 1024 * 1024;
	l.buffer_reserved_for_root = 1536 * 1024;
	l.buffer_per_uid = per_uid;
	partial_bytes = 600 * 1000;
	return start_server(state, &l);
}

static int setup_buffer_per_uid(void **state)
{
	return start_with_buffer_shares(state, 1536 * 1024);
}

/* With a share as large as all that root's reserve leaves. */
static int setup_buffer_reserve(void **state)
{
	return start_with_buffer_shares(state, 2560 * 1024);
}

/* Root's message of size bytes is answered while others hold what they may. */
static void assert_root_large_call(struct fixture *f, size_t size)
{
	struct varlink_client *c = connect_client(f);
	struct json_object *params = json_object_new_object(), *p;
	char *text = malloc(size + 1);

	assert_non_null(text);
	memset(text, 'r', size);
	text[size] = '\0';
	json_object_object_add(params, "text", json_object_new_string(text));
	assert_int_equal(varlink_client_send(c, "org.example.test.Echo", params, 0), 0);
	json_object_put(params);
	p = read_ok(c, NULL);
	assert_int_equal(strlen(str(p, "text")), size);
	json_object_put(p);
	varlink_client_free(c);
	free(text);
}

/* Until nobody's connections are gone from the server's accounts. */
static void assert_nobody_holds_nothing(struct fixture *f)
{
	for (long long end = now_ms() + TIMEOUT_MS; now_ms() < end; usleep(10000))
		if (stat_of(f, "nobody_buffered") == 0)
			break;
	assert_int_equal(stat_of(f, "nobody_buffered"), 0);
}

/*
 * A uid but root holds its share of the buffers (1.5 MiB: one buffer of
 * 1 MiB, not two): the connections whose message would pass it are closed,
 * root's large call is answered, and once the uid's connections close its
 * sum is 0 again.
 */
static void test_buffer_per_uid(void **state)
{
	struct fixture *f = *state;
	struct held h = hold_as_nobody_with(f, 3, open_partial);
	int64_t held;

	assert_int_equal(h.answered, 1);
	assert_int_equal(stat_of(f, "refused_buffer_per_uid"), 2);
	assert_int_equal(stat_of(f, "refused_memory_budget"), 0);
	held = stat_of(f, "nobody_buffered");
	assert_true(held >= 1024 * 1024 && held <= 1536 * 1024);
	assert_root_large_call(f, 1500 * 1000);
	held_release(&h);
	assert_nobody_holds_nothing(f);
}

/*
 * Other uids together never take root's reserve: with a share as large as
 * what the reserve leaves (2.5 MiB), a uid holds two buffers of 1 MiB and not
 * three, and root's call of 1 MiB still finds room.
 */
static void test_buffer_reserved_for_root(void **state)
{
	struct fixture *f = *state;
	struct held h = hold_as_nobody_with(f, 4, open_partial);

	assert_int_equal(h.answered, 2);
	assert_int_equal(stat_of(f, "refused_memory_budget"), 2);
	assert_int_equal(stat_of(f, "refused_buffer_per_uid"), 0);
	assert_root_large_call(f, 900 * 1000);
	held_release(&h);
	assert_nobody_holds_nothing(f);
}

/* "A.B\u0000junk" is no method name: the connection is closed without a reply. */
static void test_nul_in_method_name(void **state)
{
	struct fixture *f = *state;
	static const char msg[] = "{\"method\":\"org.example.test.Echo\\u0000junk\","
				  "\"parameters\":{\"text\":\"x\"}}";
	int sock = connect_raw(f);

	send_raw_fds(sock, msg, sizeof(msg), NULL, 0);
	assert_closed_by_server(sock);
	close(sock);
	assert_int_equal(LOAD(f->echo_calls), 0);
	assert_server_serves(f);
}

/* The order a Look or Change reply gives; its text must be text. */
static int64_t read_order(struct varlink_client *c, const char *text)
{
	struct json_object *p = read_ok(c, NULL);
	int64_t order = num(p, "order");

	assert_string_equal(str(p, "text"), text);
	json_object_put(p);
	return order;
}

/* Sends calls to a, b and c while the loop is busy, so that they are all waiting when it looks. */
static void while_blocked(struct fixture *f, void (*send)(struct varlink_client **), struct varlink_client **cs)
{
	struct varlink_client *blocker = connect_client(f);

	send_call(blocker, "org.example.test.Block", "{\"ms\":300}", 0);
	assert_true(wait_for(&f->blocking, 1));
	send(cs);
	json_object_put(read_ok(blocker, NULL));
	varlink_client_free(blocker);
}

#define CHANGERS 4
#define READERS 2

/* Changes on connections 0..CHANGERS-1 (the first with a read behind it), then the reads. */
static void send_changes_then_reads(struct varlink_client **cs)
{
	for (unsigned i = 0; i < CHANGERS; i++) {
		char p[32];

		snprintf(p, sizeof(p), "{\"text\":\"%u\"}", i);
		send_call(cs[i], "org.example.test.Change", p, 0);
	}
	send_call(cs[0], "org.example.test.Look", "{\"text\":\"behind\"}", 0);
	usleep(20 * 1000);
	for (unsigned i = CHANGERS; i < CHANGERS + READERS; i++)
		send_call(cs[i], "org.example.test.Look", "{\"text\":\"read\"}", 0);
}

/*
 * Reads before changes: of calls waiting together, the reads run before the
 * changes that came first, the changes one per turn in the order they were
 * read, and a connection's own calls stay in order.
 */
static void test_reads_before_changes(void **state)
{
	struct fixture *f = *state;
	struct varlink_client *cs[CHANGERS + READERS];
	int64_t first_change = INT64_MAX, last_read = 0;

	if (geteuid() != 0)
		skip(); /* Change is root's */
	for (unsigned i = 0; i < CHANGERS + READERS; i++)
		cs[i] = connect_client(f);
	while_blocked(f, send_changes_then_reads, cs);
	for (unsigned i = 0; i < CHANGERS + READERS; i++) {
		char text[16];
		int64_t order;

		snprintf(text, sizeof(text), "%u", i);
		order = read_order(cs[i], i < CHANGERS ? text : "read");
		if (i < CHANGERS)
			first_change = order < first_change ? order : first_change;
		else
			last_read = order > last_read ? order : last_read;
		if (i == 0)
			assert_true(read_order(cs[0], "behind") > order);
	}
	assert_true(last_read < first_change);
	for (unsigned i = 0; i < CHANGERS + READERS; i++)
		varlink_client_free(cs[i]);
}

static void send_change_and_leave(struct varlink_client **cs)
{
	send_call(cs[0], "org.example.test.Change", "{\"text\":\"stays\"}", 0);
	send_call(cs[1], "org.example.test.Change", "{\"text\":\"gone\"}", 0);
	varlink_client_free(cs[1]);
	cs[1] = NULL;
}

/*
 * A change held for its turn whose client leaves: the others' changes run,
 * and the server goes on (under ASan: nothing of the held call is lost).
 * Whether the change of the client that left still runs depends on when the
 * server sees it leave, as for any call sent before a close.
 */
static void test_held_change_of_a_closed_connection(void **state)
{
	struct fixture *f = *state;
	struct varlink_client *cs[2] = { connect_client(f), connect_client(f) };

	if (geteuid() != 0)
		skip();
	while_blocked(f, send_change_and_leave, cs);
	assert_int_equal(read_order(cs[0], "stays"), 1);
	assert_true(wait_for(&f->closes, 2)); /* the blocker's and the one that left */
	varlink_client_free(cs[0]);
	assert_server_serves(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_more_continues, setup, teardown),
		cmocka_unit_test_setup_teardown(test_oneway, setup, teardown),
		cmocka_unit_test_setup_teardown(test_errors_with_parameters, setup, teardown),
		cmocka_unit_test_setup_teardown(test_peer_credentials, setup, teardown),
		cmocka_unit_test_setup_teardown(test_async_reply, setup, teardown),
		cmocka_unit_test_setup_teardown(test_async_reply_after_half_close, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cancel_on_disconnect, setup, teardown),
		cmocka_unit_test_setup_teardown(test_disconnect_mid_stream, setup, teardown),
		cmocka_unit_test_setup_teardown(test_connection_limit, setup_two_connections, teardown),
		cmocka_unit_test_setup_teardown(test_per_uid_limit_spares_root, setup_two_per_uid, teardown),
		cmocka_unit_test_setup_teardown(test_per_uid_limit, setup_two_per_uid, teardown),
		cmocka_unit_test_setup_teardown(test_reserved_for_root, setup_reserved_for_root, teardown),
		cmocka_unit_test_setup_teardown(test_idle_timeout, setup_short_timeouts, teardown),
		cmocka_unit_test_setup_teardown(test_incomplete_timeout, setup_short_timeouts, teardown),
		cmocka_unit_test_setup_teardown(test_output_budget, setup_short_timeouts, teardown),
		cmocka_unit_test_setup_teardown(test_buffer_budget, setup_short_timeouts, teardown),
		cmocka_unit_test_setup_teardown(test_buffer_per_uid, setup_buffer_per_uid, teardown),
		cmocka_unit_test_setup_teardown(test_buffer_reserved_for_root, setup_buffer_reserve,
						teardown),
		cmocka_unit_test_setup_teardown(test_nul_in_method_name, setup, teardown),
		cmocka_unit_test_setup_teardown(test_many_pipelined, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pipelined_past_the_read_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fds_tied_to_their_message, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fds_wait_behind_a_slow_call, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unclaimed_fds_closed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_too_many_fds_closes_connection, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fds_without_message_close_connection, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fds_on_replies, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reads_before_changes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_held_change_of_a_closed_connection, setup, teardown),
	};

	/* The refused connections and closed clients are expected; keep stderr quiet. */
	log_set_max_level(LOG_ERR);
	return cmocka_run_group_tests_name("varlink_server", tests, NULL, NULL);
}
