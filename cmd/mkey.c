/* SPDX-License-Identifier: MIT */
/*
 * rdmactl mkey: indirect MKEYs with signature and crypto offloads.  configure
 * takes the configuration file of `rdmactl offload`, and tx/rx run one
 * transfer through the MKEY, so a configuration tried offline can be tried on
 * the daemon with the same bytes.
 */
#include "cmd/rdmactl.h"
#include "cmd/output.h"
#include "lib/base64.h"
#include "lib/io.h"
#include "dataplane/offload/transform_json.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define IFACE "io.rdmad.Mkey"

/* Bytes per Rx call: base64 of it stays well inside a 16 MiB message. */
#define CHUNK (4u << 20)
/* The daemon's limit for one transfer (RDMA_MKEY_TRANSFER_MAX). */
#define TRANSFER_MAX (32u << 20)

static const char *const flag_words[] = { "block_signature", "crypto", "remote_invalidate", NULL };
static const char *const access_words[] = {
	"local_write", "remote_write", "remote_read", "remote_atomic", NULL,
};

static void complete_flags(struct ctl *ctl, const char *prefix,
			   void (*add)(void *data, const char *word), void *data)
{
	ctl_complete_words(flag_words, prefix, add, data);
}

void mkey_complete_access(struct ctl *ctl, const char *prefix,
			  void (*add)(void *data, const char *word), void *data)
{
	ctl_complete_words(access_words, prefix, add, data);
}

/* params with "handle" = the MKEY argument; NULL after a usage error. */
static struct json_object *mkey_params(struct ctl *ctl, const struct cmd_args *args)
{
	struct json_object *params = ctl_device_params(args);

	if (ctl_add_number(ctl, args, "MKEY", params, "handle", UINT32_MAX) < 0) {
		json_object_put(params);
		return NULL;
	}
	return params;
}

static int mkey_show(struct ctl *ctl, const struct cmd_args *args)
{
	return ctl_object_show(ctl, args, "MKEY", IFACE, "mkey", "mkeys");
}

static int mkey_list(struct ctl *ctl, const struct cmd_args *args)
{
	return output_call_list(ctl, args, IFACE ".List", ctl_device_params(args), "mkeys", "mkey");
}

static int mkey_destroy(struct ctl *ctl, const struct cmd_args *args)
{
	return ctl_object_destroy(ctl, args, "MKEY", IFACE);
}

static int mkey_create(struct ctl *ctl, const struct cmd_args *args)
{
	struct json_object *params = ctl_device_params(args);

	if (ctl_add_number(ctl, args, "PD", params, "pd", UINT32_MAX) < 0 ||
	    ctl_add_number(ctl, args, "--max-entries", params, "max_entries", UINT16_MAX) < 0 ||
	    ctl_add_words(args, "--flags", flag_words, params, "flags") != 0) {
		json_object_put(params);
		return -EINVAL;
	}
	return output_call_records(ctl, args, IFACE ".Create", params, "mkey", "mkey");
}

/* ---- configure ---- */

/* "N:N:N[:N]" as count numbers (decimal or 0x); false if it is not that. */
static bool parse_numbers(const char *s, unsigned count, uint64_t *out)
{
	for (unsigned i = 0; i < count; i++) {
		char *end;

		if (*s < '0' || *s > '9')
			return false;
		errno = 0;
		out[i] = ctl_strtou64(s, &end);
		if (errno || (i + 1 < count ? *end != ':' : *end != '\0'))
			return false;
		s = end + 1;
	}
	return true;
}

/* The --layout or --interleave entries as JSON objects with keys[]. */
static int add_entries(const struct cmd_args *args, const char *opt, const char *const keys[],
		       unsigned count, struct json_object *list)
{
	for (unsigned i = 0; i < arg_count(args, opt); i++) {
		const char *v = arg_get_nth(args, opt, i);
		struct json_object *e;
		uint64_t n[4];

		if (!parse_numbers(v, count, n))
			return ctl_usage_error("%s: %s: '%s' is not %s", args->path, opt, v,
					       count == 3 ? "MR:OFFSET:LENGTH" : "MR:OFFSET:COUNT:SKIP");
		e = json_object_new_object();
		for (unsigned k = 0; k < count; k++)
			json_object_object_add(e, keys[k], json_object_new_uint64(n[k]));
		json_object_array_add(list, e);
	}
	return 0;
}

static int add_layout(struct ctl *ctl, const struct cmd_args *args, struct json_object *params)
{
	static const char *const list_keys[] = { "mr", "offset", "length" };
	static const char *const inter_keys[] = { "mr", "offset", "bytes_count", "bytes_skip" };
	struct json_object *entries;

	if (arg_count(args, "--layout") && arg_count(args, "--interleave"))
		return ctl_usage_error("%s: --layout and --interleave: one layout per configure", args->path);
	if (arg_count(args, "--layout")) {
		entries = json_object_new_array();
		json_object_object_add(params, "layout", entries);
		return add_entries(args, "--layout", list_keys, 3, entries);
	}
	if (arg_count(args, "--interleave")) {
		struct json_object *inter = json_object_new_object();
		uint64_t repeat = 1;

		if (arg_get_u64(ctl, args, "--repeat", 0, UINT32_MAX, &repeat) < 0)
			return -EINVAL;
		entries = json_object_new_array();
		json_object_object_add(inter, "repeat_count", json_object_new_uint64(repeat));
		json_object_object_add(inter, "entries", entries);
		json_object_object_add(params, "interleaved", inter);
		return add_entries(args, "--interleave", inter_keys, 4, entries);
	}
	if (arg_get(args, "--repeat"))
		return ctl_usage_error("%s: --repeat goes with --interleave", args->path);
	return 0;
}

/*
 * --dek as crypto.dek: a handle when it starts with a digit (a DEK's name
 * starts with a letter), else the name, which the daemon looks up.
 */
static int add_dek(struct ctl *ctl, const struct cmd_args *args, struct json_object *crypto)
{
	const char *dek = arg_get(args, "--dek");

	if (dek[0] >= '0' && dek[0] <= '9')
		return ctl_add_number(ctl, args, "--dek", crypto, "dek", UINT32_MAX);
	json_object_object_add(crypto, "dek", json_object_new_string(dek));
	return 0;
}

/* --config FILE (the offload configuration), with --dek and --keytag put into its crypto. */
static int add_config(struct ctl *ctl, const struct cmd_args *args, struct json_object *params)
{
	const char *path = arg_get(args, "--config");
	struct json_object *config = NULL, *crypto = NULL;
	int r;

	if (!path) {
		if (arg_get(args, "--dek") || arg_get(args, "--keytag"))
			return ctl_usage_error("%s: --dek and --keytag go with --config", args->path);
		return 0;
	}
	r = ctl_read_json_file(args->path, "--config", path, 1 << 20, json_type_object, &config);
	if (r < 0)
		return r;
	json_object_object_add(params, "config", config);
	if (!arg_get(args, "--dek") && !arg_get(args, "--keytag"))
		return 0;
	if (!json_object_object_get_ex(config, "crypto", &crypto) ||
	    !json_object_is_type(crypto, json_type_object))
		return ctl_usage_error("%s: --dek and --keytag need a crypto member in --config",
				       args->path);
	if (arg_get(args, "--dek") && add_dek(ctl, args, crypto) < 0)
		return -EINVAL;
	if (arg_get(args, "--keytag"))
		json_object_object_add(crypto, "keytag", json_object_new_string(arg_get(args, "--keytag")));
	return 0;
}

int mkey_configure_params(struct ctl *ctl, const struct cmd_args *args, struct json_object *params)
{
	int r = add_layout(ctl, args, params);

	if (r == 0 && arg_get(args, "--access"))
		r = ctl_add_words(args, "--access", access_words, params, "access");
	if (r == 0 && arg_flag(args, "--reset-sig"))
		json_object_object_add(params, "reset_sig_attr", json_object_new_boolean(true));
	if (r == 0)
		r = add_config(ctl, args, params);
	return r;
}

bool mkey_configure_given(const struct cmd_args *args)
{
	static const char *const opts[] = {
		"--layout", "--interleave", "--repeat", "--access", "--config", "--dek", "--keytag",
		"--reset-sig",
	};

	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		if (arg_count(args, opts[i]))
			return true;
	return false;
}

static int mkey_configure(struct ctl *ctl, const struct cmd_args *args)
{
	struct json_object *params = mkey_params(ctl, args);
	int r;

	if (!params)
		return -EINVAL;
	r = mkey_configure_params(ctl, args, params);
	if (r != 0) {
		json_object_put(params);
		return r;
	}
	return output_call_records(ctl, args, IFACE ".Configure", params, "mkey", "mkey");
}

/*
 * Text: a record labelled "sig_error"; -j: the record exactly as `offload
 * --report` writes it.
 */
static int mkey_check(struct ctl *ctl, const struct cmd_args *args)
{
	struct json_object *params = mkey_params(ctl, args);

	if (!params)
		return -EINVAL;
	if (!ctl->json)
		return output_call_records(ctl, args, IFACE ".Check", params, "record", "sig_error");
	return output_call_value(ctl, args, IFACE ".Check", params, "record");
}

/* ---- transfers ---- */

/* Where Tx chunks go, and the first signature error one of them said. */
struct tx_sink {
	const char *path;
	int fd;
	size_t pos;
	int sig;
};

/* Writes each Tx chunk, in order. */
static int tx_chunk(struct json_object *reply, void *data)
{
	struct tx_sink *sink = data;
	const char *text = json_object_get_string(json_object_object_get(reply, "data"));
	uint64_t offset = json_object_get_uint64(json_object_object_get(reply, "offset"));
	size_t len = strlen(text), n;
	uint8_t *bytes = malloc(base64_decoded_max(len) + 1);
	int r = 0;

	if (!bytes)
		return -ENOMEM;
	if (offset != sink->pos || base64_decode(text, len, bytes, &n) < 0)
		r = ctl_fail("%s: the daemon sent data out of order or not in base64", sink->path);
	else if ((r = write_all(sink->fd, bytes, n)) < 0)
		r = ctl_fail("%s: writing the output: %s", sink->path, strerror(-r));
	if (r == 0 && sink->sig == 0)
		sink->sig = ctl_report_sig_error_json(sink->path, json_object_object_get(reply, "sig_error"));
	sink->pos += n;
	free(bytes);
	return r;
}

static int mkey_tx(struct ctl *ctl, const struct cmd_args *args)
{
	struct json_object *params;
	struct tx_sink sink = { .path = args->path };
	int r;

	r = ctl_binary_output_open(args, &sink.fd);
	if (r < 0)
		return r;
	params = mkey_params(ctl, args);
	r = params ? ctl_call_more(ctl, args->path, IFACE ".Tx", params, tx_chunk, &sink) : -EINVAL;
	json_object_put(params);
	if (ctl_binary_output_close(args, sink.fd) < 0 && r == 0)
		r = -EIO;
	return r < 0 ? r : sink.sig;
}

/*
 * Warns when the wire bytes are not whole blocks of the MKEY's wire domain.
 * Its configuration is what `offload` takes, less the DEK that names the key
 * here; one the dataplane cannot read gives no warning.
 */
static void rx_warn_partial_block(struct ctl *ctl, const struct cmd_args *args,
				  struct json_object *params, size_t len)
{
	struct json_object *reply = NULL, *config, *crypto;
	struct dp_transform_cfg cfg;
	struct dp_error err;
	char *error = NULL;

	if (ctl_call_raw(ctl, IFACE ".Show", params, &reply, &error) == 0 && !error &&
	    json_object_object_get_ex(json_object_object_get(reply, "mkey"), "config", &config) &&
	    json_object_is_type(config, json_type_object)) {
		if (json_object_object_get_ex(config, "crypto", &crypto) &&
		    json_object_is_type(crypto, json_type_object)) {
			json_object_object_del(crypto, "dek");
			json_object_object_del(crypto, "dek_name");
			json_object_object_del(crypto, "keytag");
		}
		if (dp_transform_cfg_from_json(config, &cfg, &err) == 0)
			ctl_warn_partial_block(args->path, &cfg, true, len);
	}
	json_object_put(reply);
	free(error);
}

static int mkey_rx(struct ctl *ctl, const struct cmd_args *args)
{
	struct json_object *params = mkey_params(ctl, args), *reply = NULL;
	uint8_t *data = NULL;
	size_t len = 0, pos = 0;
	char *text;
	int r;

	if (!params)
		return -EINVAL;
	r = ctl_binary_input_check(args);
	if (r < 0) {
		json_object_put(params);
		return r;
	}
	r = read_all_alloc(STDIN_FILENO, TRANSFER_MAX, &data, &len);
	if (r < 0) {
		json_object_put(params);
		return ctl_fail("%s: standard input: %s", args->path,
				r == -EFBIG ? "more than the 33554432 bytes one transfer carries" : strerror(-r));
	}
	rx_warn_partial_block(ctl, args, params, len);
	text = malloc(base64_encoded_size(CHUNK) + 1);
	r = text ? 0 : -ENOMEM;
	/* One call at least: an empty transfer is still a transfer. */
	do {
		size_t n = len - pos < CHUNK ? len - pos : CHUNK;
		struct json_object *p = NULL;

		if (r < 0)
			break;
		json_object_deep_copy(params, &p, NULL);
		json_object_object_add(p, "offset", json_object_new_uint64(pos));
		base64_encode(data + pos, n, text);
		json_object_object_add(p, "data", json_object_new_string(text));
		pos += n;
		json_object_object_add(p, "last", json_object_new_boolean(pos == len));
		json_object_put(reply);
		reply = NULL;
		r = ctl_call(ctl, args->path, IFACE ".Rx", p, &reply);
		json_object_put(p);
	} while (pos < len);
	if (r == 0 && ctl->json)
		output_print_json(ctl, reply);
	if (r == 0)
		r = ctl_report_sig_error_json(args->path, json_object_object_get(reply, "sig_error"));
	json_object_put(reply);
	json_object_put(params);
	free(text);
	free(data);
	return r;
}

#define ARG_MKEY(req, text) { .name = "MKEY", .kind = ARG_POSITIONAL, .help = text, .required = req }

static const struct cmd_arg dev_only[] = { CMD_ARG_DEV, { NULL } };
static const struct cmd_arg show_args[] = {
	ARG_MKEY(false, "the MKEY's handle, its key (default: all)"), CMD_ARG_DEV, { NULL },
};
static const struct cmd_arg mkey_only[] = {
	ARG_MKEY(true, "the MKEY's handle, its key"), CMD_ARG_DEV, { NULL },
};
static const struct cmd_arg create_args[] = {
	{ .name = "PD", .kind = ARG_POSITIONAL, .required = true,
	  .help = "the protection domain it belongs to" },
	{ .name = "--flags", .kind = ARG_OPTION, .metavar = "FLAGS", .complete = complete_flags,
	  .help = "comma-separated: block_signature, crypto, remote_invalidate (a peer's send_inv may "
		  "invalidate it), or none (default: a plain MKEY)" },
	{ .name = "--max-entries", .kind = ARG_OPTION, .metavar = "N", .required = true,
	  .help = "layout entries, rounded up to a multiple of 4 (an interleaved layout takes one more)" },
	CMD_ARG_DEV, { NULL },
};
static const struct cmd_arg configure_args[] = {
	ARG_MKEY(true, "the MKEY's handle, its key"),
	MKEY_CONFIGURE_ARGS,
	CMD_ARG_DEV, { NULL },
};
static const struct cmd_arg tx_args[] = {
	ARG_MKEY(true, "the MKEY's handle; the wire bytes go to standard output"), CMD_ARG_OUTPUT,
	CMD_ARG_DEV, { NULL },
};
static const struct cmd_arg rx_args[] = {
	ARG_MKEY(true, "the MKEY's handle; the wire bytes come from standard input"), CMD_ARG_DEV, { NULL },
};

const struct cmd cmd_mkey[] = {
	{ .name = "show", .summary = "Show MKEYs: flags, layout, signature and crypto, counters",
	  .args = show_args, .run = mkey_show, .is_default = true },
	{ .name = "list", .summary = "List MKEYs", .args = dev_only, .run = mkey_list },
	{ .name = "create", .summary = "Create a free indirect MKEY on a PD", .args = create_args,
	  .run = mkey_create },
	{ .name = "configure", .summary = "Set layout, access, signature and crypto (all or nothing)",
	  .args = configure_args, .run = mkey_configure },
	{ .name = "check", .summary = "Print and clear the recorded signature error (mkey_check)",
	  .args = mkey_only, .run = mkey_check },
	{ .name = "tx", .summary = "One transfer: the layout's memory to wire bytes on standard output",
	  .args = tx_args, .run = mkey_tx },
	{ .name = "rx", .summary = "One transfer: wire bytes on standard input into the layout's memory",
	  .args = rx_args, .run = mkey_rx },
	{ .name = "destroy", .spelled_out = true, .summary = "Destroy an MKEY that is not from a pool", .args = mkey_only,
	  .run = mkey_destroy },
	{ NULL },
};
