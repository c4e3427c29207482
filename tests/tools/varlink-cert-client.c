/* SPDX-License-Identifier: MIT */
/*
 * varlink-cert-client: the org.varlink.certification client sequence on the
 * lib/varlink client, to be run against a server nobody here wrote
 * (varlink-go-certification --varlink=unix:PATH).
 *
 *   varlink-cert-client --varlink=unix:PATH
 *
 * Start, Test01 … Test09 (each passing the previous reply on), Test10 with
 * more (ten streamed replies), Test11 oneway, End.  Every reply is checked
 * against the interface description the server itself serves (parsed with
 * lib/varlink/idl) and against the values the certification expects.
 * Exits 0 only when every step passed and End says all_ok.
 */
#include "lib/json-util.h"
#include "lib/varlink/varlink.h"
#include "tests/tools/varlink-cert-vectors.h"
#include "lib/varlink/idl.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define IFACE "org.varlink.certification"
#define TIMEOUT_MS 10000
#define STREAM_REPLIES 10


static struct idl_interface *iface;
static int failures;

static const char *js(struct json_object *o)
{
	return json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
}

static void fail(const char *step, const char *fmt, const char *arg)
{
	printf("FAIL %s: ", step);
	printf(fmt, arg);
	printf("\n");
	failures++;
}


/* The reply must fit the method's output type as the server describes it. */
static void check_type(const char *method, struct json_object *reply)
{
	const struct idl_member *m = idl_find(iface, IDL_MEMBER_METHOD, method);
	char path[256];

	if (!m) {
		fail(method, "%s is not in the interface description", method);
		return;
	}
	if (idl_validate(m->out, reply, path, sizeof(path)) < 0)
		fail(method, "reply does not match the description at '%s'", path);
}

static void check_value(const char *method, const char *want_json, struct json_object *reply)
{
	struct json_object *want = json_tokener_parse(want_json);

	if (!json_values_match(want, reply))
		fail(method, "expected %s", want_json);
	json_object_put(want);
}

/* A plain call; returns the reply or NULL after reporting why. */
static struct json_object *call(struct varlink_client *c, const char *method,
				struct json_object *params)
{
	struct json_object *reply = NULL;
	char *error = NULL;
	char full[128];
	int r;

	if (strchr(method, '.'))
		snprintf(full, sizeof(full), "%s", method);
	else
		snprintf(full, sizeof(full), IFACE ".%s", method);
	r = varlink_client_call(c, full, params, &reply, &error);
	if (r < 0) {
		fail(method, "call failed: %s", strerror(-r));
		return NULL;
	}
	if (error) {
		printf("FAIL %s: error %s %s\n", method, error, js(reply));
		failures++;
		free(error);
		json_object_put(reply);
		return NULL;
	}
	return reply;
}

static struct json_object *with_client_id(struct json_object *params, const char *client_id)
{
	struct json_object *p = NULL;

	if (params)
		json_object_deep_copy(params, &p, NULL);
	else
		p = json_object_new_object();
	json_object_object_add(p, "client_id", json_object_new_string(client_id));
	return p;
}

static int load_description(struct varlink_client *c)
{
	struct json_object *params = json_object_new_object(), *reply, *list;
	char *msg = NULL;
	bool listed = false;
	int r;

	reply = call(c, "org.varlink.service.GetInfo", NULL);
	if (!reply)
		return -EPROTO;
	printf("GetInfo: %s\n", js(reply));
	list = json_object_object_get(reply, "interfaces");
	for (size_t i = 0; i < json_object_array_length(list); i++)
		listed |= strcmp(json_object_get_string(json_object_array_get_idx(list, i)), IFACE) == 0;
	if (!listed)
		fail("GetInfo", "%s is not listed", IFACE);
	json_object_put(reply);

	json_object_object_add(params, "interface", json_object_new_string(IFACE));
	reply = call(c, "org.varlink.service.GetInterfaceDescription", params);
	json_object_put(params);
	if (!reply)
		return -EPROTO;
	r = idl_parse(json_object_get_string(json_object_object_get(reply, "description")),
		      &iface, &msg);
	if (r < 0) {
		fail("GetInterfaceDescription", "the description does not parse: %s", msg ? msg : "?");
		free(msg);
	} else {
		printf("GetInterfaceDescription: %s parsed, %zu members\n", iface->name, iface->n);
	}
	json_object_put(reply);
	return r;
}

static int run(const char *address)
{
	struct varlink_client *c = NULL;
	struct json_object *reply, *prev = NULL, *params, *all = NULL;
	char client_id[128];
	int r;

	r = varlink_client_connect(&c, address);
	if (r < 0) {
		printf("FAIL connect %s: %s\n", address, strerror(-r));
		return 1;
	}
	if (load_description(c) < 0)
		goto out;

	reply = call(c, "Start", NULL);
	if (!reply)
		goto out;
	check_type("Start", reply);
	snprintf(client_id, sizeof(client_id), "%s",
		 json_object_get_string(json_object_object_get(reply, "client_id")));
	printf("Start: %s\n", js(reply));
	json_object_put(reply);
	if (!client_id[0]) {
		fail("Start", "%s", "no client_id");
		goto out;
	}

	for (int n = 1; n <= 9; n++) {
		char method[8];

		snprintf(method, sizeof(method), "Test%02d", n);
		params = with_client_id(prev, client_id);
		reply = call(c, method, params);
		json_object_put(params);
		if (!reply)
			goto out;
		printf("%s: %s\n", method, js(reply));
		check_type(method, reply);
		check_value(method, cert_reply_json[n], reply);
		json_object_put(prev);
		prev = reply;
	}

	/* Test10 with more: the replies continue until one without "continues". */
	params = with_client_id(prev, client_id);
	r = varlink_client_send(c, IFACE ".Test10", params, VARLINK_CALL_MORE);
	json_object_put(params);
	if (r < 0) {
		fail("Test10", "send failed: %s", strerror(-r));
		goto out;
	}
	printf("Test10: sent with more\n");
	all = json_object_new_array();
	for (bool continues = true; continues;) {
		char *error = NULL;

		r = varlink_client_read(c, &reply, &error, &continues, TIMEOUT_MS);
		if (r < 0) {
			fail("Test10", "read failed: %s", strerror(-r));
			goto out;
		}
		if (error) {
			printf("FAIL Test10: error %s %s\n", error, js(reply));
			failures++;
			free(error);
			json_object_put(reply);
			goto out;
		}
		printf("  reply%s: %s\n", continues ? " (continues)" : "", js(reply));
		check_type("Test10", reply);
		json_object_array_add(all, json_object_get(json_object_object_get(reply, "string")));
		json_object_put(reply);
		if (json_object_array_length(all) > 100) {
			fail("Test10", "%s", "more than 100 replies");
			goto out;
		}
	}
	for (size_t i = 0; i < json_object_array_length(all); i++) {
		char want[48];

		snprintf(want, sizeof(want), "Reply number %zu", i + 1);
		if (strcmp(json_object_get_string(json_object_array_get_idx(all, i)), want) != 0)
			fail("Test10", "expected '%s'", want);
	}
	if (json_object_array_length(all) != STREAM_REPLIES)
		fail("Test10", "%s", "expected 10 replies");
	printf("Test10: %s\n", js(all));

	/* Test11 oneway: nothing comes back; the next reply read belongs to End. */
	params = json_object_new_object();
	json_object_object_add(params, "client_id", json_object_new_string(client_id));
	json_object_object_add(params, "last_more_replies", json_object_get(all));
	r = varlink_client_send(c, IFACE ".Test11", params, VARLINK_CALL_ONEWAY);
	json_object_put(params);
	if (r < 0) {
		fail("Test11", "send failed: %s", strerror(-r));
		goto out;
	}
	printf("Test11: sent oneway\n");

	params = with_client_id(NULL, client_id);
	reply = call(c, "End", params);
	json_object_put(params);
	if (!reply)
		goto out;
	check_type("End", reply);
	printf("End: %s\n", js(reply));
	if (!json_object_get_boolean(json_object_object_get(reply, "all_ok")))
		fail("End", "%s", "all_ok is not true");
	json_object_put(reply);
	r = 0;
	goto done;
out:
	failures++;
done:
	json_object_put(prev);
	json_object_put(all);
	varlink_client_free(c);
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "varlink", required_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *address = NULL;
	int opt, r;

	while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		switch (opt) {
		case 'v':
			address = optarg;
			break;
		case 'h':
			printf("Usage: varlink-cert-client --varlink=unix:PATH\n");
			return 0;
		default:
			return 2;
		}
	}
	if (!address) {
		fprintf(stderr, "Usage: varlink-cert-client --varlink=unix:PATH\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	r = run(address);
	idl_interface_free(iface);
	printf("%s\n", r == 0 ? "PASS: all_ok" : "FAIL");
	return r;
}
