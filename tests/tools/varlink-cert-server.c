/* SPDX-License-Identifier: MIT */
/*
 * varlink-cert-server: org.varlink.certification served by lib/varlink, so that
 * a client nobody here wrote (varlink-go-certification --client) can check our
 * server side of the protocol.
 *
 *   varlink-cert-server --varlink=unix:PATH
 *   LISTEN_FDS=1 varlink-cert-server            (socket activation)
 *
 * Every test method checks its client_id and that its input is the previous
 * method's reply; End answers all_ok only when Test01 … Test11 all passed for
 * that client.  Runs until SIGTERM or SIGINT.
 */
#include "lib/json-util.h"
#include "lib/varlink/varlink.h"
#include "tests/tools/varlink-cert-vectors.h"
#include "lib/log.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <systemd/sd-daemon.h>
#include <time.h>
#include <unistd.h>

static const char cert_idl[] =
	"# Interface to test varlink implementations against.\n"
	"# First you write a varlink client calling:\n"
	"# Start, Test01, Test02, …, Test09, End\n"
	"# The return value of the previous call should be the argument of the next call.\n"
	"# Then you test this client against well known servers like python or rust from\n"
	"# https://github.com/varlink/\n"
	"#\n"
	"# Next you write a varlink server providing the same service as the well known ones.\n"
	"# Now run your client against it and run well known clients like python or rust\n"
	"# from https://github.com/varlink/ against your server. If all works out, then\n"
	"# your new language bindings should be varlink certified.\n"
	"interface org.varlink.certification\n"
	"\n"
	"type Interface (\n"
	"  foo: ?[]?[string](foo, bar, baz),\n"
	"  anon: (foo: bool, bar: bool)\n"
	")\n"
	"\n"
	"type MyType (\n"
	"  object: object,\n"
	"  enum: (one, two, three),\n"
	"  struct: (first: int, second: string),\n"
	"  array: []string,\n"
	"  dictionary: [string]string,\n"
	"  stringset: [string](),\n"
	"  nullable: ?string,\n"
	"  nullable_array_struct: ?[](first: int, second: string),\n"
	"  interface: Interface\n"
	")\n"
	"\n"
	"method Start() -> (client_id: string)\n"
	"\n"
	"method Test01(client_id: string) -> (bool: bool)\n"
	"\n"
	"method Test02(client_id: string, bool: bool) -> (int: int)\n"
	"\n"
	"method Test03(client_id: string, int: int) -> (float: float)\n"
	"\n"
	"method Test04(client_id: string, float: float) -> (string: string)\n"
	"\n"
	"method Test05(client_id: string, string: string) -> (\n"
	"  bool: bool,\n"
	"  int: int,\n"
	"  float: float,\n"
	"  string: string\n"
	")\n"
	"\n"
	"method Test06(\n"
	"  client_id: string,\n"
	"  bool: bool,\n"
	"  int: int,\n"
	"  float: float,\n"
	"  string: string\n"
	") -> (\n"
	"  struct: (\n"
	"    bool: bool,\n"
	"    int: int,\n"
	"    float: float,\n"
	"    string: string\n"
	"  )\n"
	")\n"
	"\n"
	"method Test07(\n"
	"  client_id: string,\n"
	"  struct: (\n"
	"    bool: bool,\n"
	"    int: int,\n"
	"    float: float,\n"
	"    string: string\n"
	"  )\n"
	") -> (map: [string]string)\n"
	"\n"
	"method Test08(client_id: string, map: [string]string) -> (set: [string]())\n"
	"\n"
	"method Test09(client_id: string, set: [string]()) -> (mytype: MyType)\n"
	"\n"
	"# returns more than one reply with \"continues\"\n"
	"method Test10(client_id: string, mytype: MyType) -> (string: string)\n"
	"\n"
	"method Test11(\n"
	"  client_id: string,\n"
	"  last_more_replies: []string\n"
	") -> ()\n"
	"\n"
	"method End(client_id: string) -> (all_ok: bool)\n"
	"\n"
	"error ClientIdError ()\n"
	"\n"
	"error CertificationError (wants: object, got: object)\n";

#define CERT_ERROR_CLIENT_ID     "org.varlink.certification.ClientIdError"
#define CERT_ERROR_CERTIFICATION "org.varlink.certification.CertificationError"

#define STREAM_REPLIES 10
#define N_TESTS 11
#define ALL_PASSED (((1u << N_TESTS) - 1) << 1) /* bits 1 … 11 */

#define MAX_CLIENTS 100
#define CLIENT_TTL_SEC 60

struct cert_client {
	struct cert_client *next;
	char id[37];
	time_t created;
	unsigned passed; /* bit N: TestN passed */
};

struct cert_state {
	struct cert_client *clients;
	unsigned n_clients;
};

static void client_remove(struct cert_state *st, struct cert_client *c)
{
	for (struct cert_client **p = &st->clients; *p; p = &(*p)->next)
		if (*p == c) {
			*p = c->next;
			st->n_clients--;
			free(c);
			return;
		}
}

static struct cert_client *client_find(struct cert_state *st, struct json_object *params)
{
	const char *id = json_object_get_string(json_object_object_get(params, "client_id"));

	for (struct cert_client *c = st->clients; c && id; c = c->next)
		if (strcmp(c->id, id) == 0)
			return c;
	return NULL;
}

static int client_new(struct cert_state *st, struct cert_client **out)
{
	unsigned char b[16];
	struct cert_client *c, *next;
	time_t now = time(NULL);

	/* Forget clients that never came to End. */
	for (c = st->clients; c; c = next) {
		next = c->next;
		if (now - c->created > CLIENT_TTL_SEC)
			client_remove(st, c);
	}
	if (st->n_clients >= MAX_CLIENTS)
		return -EUSERS;
	if (getrandom(b, sizeof(b), 0) != (ssize_t)sizeof(b))
		return -EIO;
	b[6] = (b[6] & 0x0f) | 0x40; /* UUID version 4 */
	b[8] = (b[8] & 0x3f) | 0x80; /* RFC 4122 variant */
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	snprintf(c->id, sizeof(c->id),
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11],
		 b[12], b[13], b[14], b[15]);
	c->created = now;
	c->next = st->clients;
	st->clients = c;
	st->n_clients++;
	*out = c;
	return 0;
}


/* The parameters without client_id, as a new object. */
static struct json_object *without_client_id(struct json_object *params)
{
	struct json_object *copy = json_object_new_object();

	json_object_object_foreach(params, key, val)
		if (strcmp(key, "client_id") != 0)
			json_object_object_add(copy, key, json_object_get(val));
	return copy;
}

static int certification_error(struct varlink_call *call, struct json_object *wants,
			       struct json_object *params)
{
	struct json_object *e = json_object_new_object();

	log_warning("cert: %s got %s, wants %s", varlink_call_method(call),
		    json_object_to_json_string_ext(params, JSON_C_TO_STRING_PLAIN),
		    json_object_to_json_string_ext(wants, JSON_C_TO_STRING_PLAIN));
	json_object_object_add(e, "wants", wants);
	json_object_object_add(e, "got", without_client_id(params));
	return varlink_call_error(call, CERT_ERROR_CERTIFICATION, e);
}

/* "Test07" → 7 */
static int test_number(struct varlink_call *call)
{
	const char *m = strrchr(varlink_call_method(call), '.');

	return m && strncmp(m, ".Test", 5) == 0 ? atoi(m + 5) : -1;
}

static int method_start(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct cert_state *st = userdata;
	struct cert_client *c;
	struct json_object *reply;
	int r;

	r = client_new(st, &c);
	if (r < 0)
		return r;
	reply = json_object_new_object();
	json_object_object_add(reply, "client_id", json_object_new_string(c->id));
	log_info("cert: Start: client %s", c->id);
	return varlink_call_reply(call, reply);
}

/* Test01 … Test09: check the input against the previous reply, then reply. */
static int method_test(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct cert_state *st = userdata;
	struct cert_client *c = client_find(st, params);
	int n = test_number(call);
	struct json_object *wants, *got;
	bool ok;

	if (!c)
		return varlink_call_error(call, CERT_ERROR_CLIENT_ID, NULL);
	if (n < 1 || n > 9)
		return -EINVAL;
	wants = n == 1 ? json_object_new_object() : json_tokener_parse(cert_reply_json[n - 1]);
	if (!wants)
		return -ENOMEM;
	got = without_client_id(params);
	ok = json_values_match(wants, got);
	json_object_put(got);
	if (!ok)
		return certification_error(call, wants, params);
	json_object_put(wants);
	c->passed |= 1u << n;
	log_info("cert: Test%02d passed for %s", n, c->id);
	return varlink_call_reply(call, json_tokener_parse(cert_reply_json[n]));
}

static int method_test10(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct cert_state *st = userdata;
	struct cert_client *c = client_find(st, params);
	struct json_object *wants, *got;
	bool ok;
	int r;

	if (!c)
		return varlink_call_error(call, CERT_ERROR_CLIENT_ID, NULL);
	wants = json_tokener_parse(cert_reply_json[9]);
	if (!wants)
		return -ENOMEM;
	got = without_client_id(params);
	ok = json_values_match(wants, got);
	json_object_put(got);
	if (!ok)
		return certification_error(call, wants, params);
	json_object_put(wants);
	if (!varlink_call_wants_more(call)) {
		struct json_object *w = json_object_new_object();

		json_object_object_add(w, "more", json_object_new_boolean(1));
		log_warning("cert: Test10 called without more");
		return certification_error(call, w, params);
	}
	for (int i = 1; i <= STREAM_REPLIES; i++) {
		struct json_object *reply = json_object_new_object();
		char s[32];

		snprintf(s, sizeof(s), "Reply number %d", i);
		json_object_object_add(reply, "string", json_object_new_string(s));
		r = i < STREAM_REPLIES ? varlink_call_reply_more(call, reply)
				       : varlink_call_reply(call, reply);
		if (r < 0)
			return r;
	}
	c->passed |= 1u << 10;
	log_info("cert: Test10 passed for %s", c->id);
	return 0;
}

static int method_test11(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct cert_state *st = userdata;
	struct cert_client *c = client_find(st, params);
	struct json_object *wants, *list;
	bool ok;

	if (!c)
		return varlink_call_error(call, CERT_ERROR_CLIENT_ID, NULL);
	wants = json_object_new_object();
	list = json_object_new_array();
	for (int i = 1; i <= STREAM_REPLIES; i++) {
		char s[32];

		snprintf(s, sizeof(s), "Reply number %d", i);
		json_object_array_add(list, json_object_new_string(s));
	}
	json_object_object_add(wants, "last_more_replies", list);
	{
		struct json_object *got = without_client_id(params);

		ok = json_values_match(wants, got);
		json_object_put(got);
	}
	if (!ok)
		return certification_error(call, wants, params);
	json_object_put(wants);
	if (!varlink_call_is_oneway(call)) {
		struct json_object *w = json_object_new_object();

		json_object_object_add(w, "oneway", json_object_new_boolean(1));
		log_warning("cert: Test11 called without oneway");
		return certification_error(call, w, params);
	}
	c->passed |= 1u << 11;
	log_info("cert: Test11 passed for %s", c->id);
	return varlink_call_reply(call, NULL);
}

static int method_end(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct cert_state *st = userdata;
	struct cert_client *c = client_find(st, params);
	struct json_object *reply;
	bool all_ok;

	if (!c)
		return varlink_call_error(call, CERT_ERROR_CLIENT_ID, NULL);
	all_ok = (c->passed & ALL_PASSED) == ALL_PASSED;
	log_info("cert: End: client %s all_ok=%s (passed mask 0x%x)", c->id,
		 all_ok ? "true" : "false", c->passed);
	client_remove(st, c);
	reply = json_object_new_object();
	json_object_object_add(reply, "all_ok", json_object_new_boolean(all_ok));
	return varlink_call_reply(call, reply);
}

static const struct varlink_method cert_methods[] = {
	{ "Start", method_start, 0 },
	{ "Test01", method_test, 0 },
	{ "Test02", method_test, 0 },
	{ "Test03", method_test, 0 },
	{ "Test04", method_test, 0 },
	{ "Test05", method_test, 0 },
	{ "Test06", method_test, 0 },
	{ "Test07", method_test, 0 },
	{ "Test08", method_test, 0 },
	{ "Test09", method_test, 0 },
	{ "Test10", method_test10, 0 },
	{ "Test11", method_test11, 0 },
	{ "End", method_end, 0 },
	{ NULL, NULL, 0 },
};

static int on_signal(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
	return sd_event_exit(sd_event_source_get_event(s), 0);
}

static void usage(FILE *f)
{
	fprintf(f, "Usage: varlink-cert-server --varlink=unix:PATH [--debug]\n"
		   "       (or socket-activated with LISTEN_FDS=1)\n"
		   "Serves org.varlink.certification until SIGTERM or SIGINT.\n");
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "varlink", required_argument, NULL, 'v' },
		{ "debug", no_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	static const struct varlink_server_info info = {
		.vendor = "rdmad", .product = "varlink-cert-server",
		.version = "1", .url = "https://example.invalid/rdmad",
	};
	struct cert_state st = { 0 };
	struct varlink_server *server = NULL;
	sd_event *event = NULL;
	char *path = NULL;
	bool bound = false;
	const char *address = NULL;
	sigset_t mask;
	int opt, n_fds, r;

	while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		switch (opt) {
		case 'v':
			address = optarg;
			break;
		case 'd':
			log_set_max_level(LOG_DEBUG);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}

	r = sd_event_new(&event);
	if (r < 0)
		return log_error_errno(r, "sd_event_new"), 1;
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	sd_event_add_signal(event, NULL, SIGTERM, on_signal, NULL);
	sd_event_add_signal(event, NULL, SIGINT, on_signal, NULL);

	r = varlink_server_new(&server, event, &info);
	if (r >= 0)
		r = varlink_server_add_interface(server, cert_idl, cert_methods, &st);
	if (r < 0) {
		log_error_errno(r, "cannot set up the varlink server");
		goto out;
	}

	n_fds = sd_listen_fds(1);
	if (n_fds > 0) {
		for (int i = 0; i < n_fds && r >= 0; i++)
			r = varlink_server_listen_fd(server, SD_LISTEN_FDS_START + i);
	} else if (address) {
		const char *p = address;

		if (strncmp(p, "unix:", 5) == 0)
			p += 5;
		else if (strchr(p, ':')) {
			log_error("only unix: addresses are supported: %s", address);
			r = -EINVAL;
			goto out;
		}
		path = strndup(p, strcspn(p, ";")); /* ";mode=…" and the like are ignored */
		r = path ? varlink_server_listen_path(server, path, 0666) : -ENOMEM;
		bound = r >= 0;
	} else {
		usage(stderr);
		r = -EINVAL;
		goto out;
	}
	if (r < 0) {
		log_error_errno(r, "cannot listen on %s", address ? address : "the passed socket");
		goto out;
	}

	log_info("cert: serving org.varlink.certification on %s",
		 n_fds > 0 ? "the passed socket" : path);
	r = sd_event_loop(event);
	if (r < 0)
		log_error_errno(r, "event loop");
out:
	varlink_server_free(server);
	if (bound)
		unlink(path);
	free(path);
	while (st.clients)
		client_remove(&st, st.clients);
	sd_event_unref(event);
	return r < 0 ? 1 : 0;
}
