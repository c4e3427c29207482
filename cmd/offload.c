/* SPDX-License-Identifier: MIT */
/*
 * rdmactl offload tx|rx: one transfer through the dataplane transform engine on
 * local bytes, no daemon.  The configuration is the JSON object the MKEY
 * configure method takes, so a configuration can be tried here first.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gcrypt.h>
#include <json-c/json.h>

#include "cmd/rdmactl.h"
#include "cmd/offload_chunks.h"
#include "cmd/progress.h"
#include "cmd/output.h"
#include "dataplane/offload/kern.h"
#include "dataplane/offload/kern_json.h"
#include "dataplane/offload/transform.h"
#include "dataplane/offload/transform_json.h"
#include "dataplane/offload/xts.h"
#include "lib/io.h"

/* key1 || key2 of AES-256-XTS, the longest key */
#define KEY_MAX 64

/* The command running ("offload tx"): every message of this file starts with it. */
static const char *command_path = "offload";

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "rdmactl: offload tx: " and the message (fmt ends with its newline). */
static void say(const char *fmt, ...)
{
	va_list ap;

	progress_hide();
	fprintf(stderr, "rdmactl: %s: ", command_path);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

/* The key goes straight into libgcrypt secure memory and is wiped after use. */
static int read_key(const char *path, uint8_t **key, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	uint8_t *k;
	size_t n = 0;
	int r;

	if (fd < 0) {
		say("key-file %s: %s\n", path, strerror(errno));
		return -1;
	}
	k = gcry_malloc_secure(KEY_MAX);
	if (!k) {
		close(fd);
		say("key-file: out of secure memory\n");
		return -1;
	}
	r = read_all(fd, k, KEY_MAX, &n);
	close(fd);
	if (r < 0 && r != -EFBIG)
		say("key-file %s: %s\n", path, strerror(-r));
	else if (r == -EFBIG || (n != 32 && n != 64))
		say("key-file %s: must hold the raw key key1||key2, 32 bytes (AES-128-XTS) "
			"or 64 bytes (AES-256-XTS); it has %s%zu bytes\n", path, r ? "more than " : "", n);
	else {
		*key = k;
		*len = n;
		return 0;
	}
	explicit_bzero(k, KEY_MAX);
	gcry_free(k);
	return -1;
}

static int write_report(const char *path, const struct dp_sig_err *rec)
{
	struct json_object *o = dp_sig_err_to_json(rec);
	const char *s;

	/* which guard kernels ran: a level forced for a test shows here */
	json_object_object_add(o, "kernel", json_object_new_string(dp_kern_level_name(dp_kern_level_in_use())));
	s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	FILE *f = fopen(path, "we");
	int rc = 0;

	if (!f || fprintf(f, "%s\n", s) < 0)
		rc = -1;
	if (f && fclose(f) != 0)
		rc = -1;
	if (rc)
		say("report %s: %s\n", path, strerror(errno));
	json_object_put(o);
	return rc;
}

/*
 * One transfer of any length, run a chunk at a time (offload_chunks.h): what
 * rdmactl holds is a chunk of input and its output, whatever the input's size.
 */
struct stream {
	const struct cmd_args *args;
	enum dp_dir dir;
	const struct dp_transform_cfg *cfg;
	const uint8_t *key;
	size_t key_len;
	struct offload_chunks chunks;
	uint8_t *in, *out;
	size_t out_cap;
	bool sized;                     /* the input's length was known before reading it */
	uint64_t total;                 /* input bytes run */
	struct dp_sig_err first;        /* the transfer's first signature error */
	/* The shell's Ctrl-C: a file's input is never a wait that it would end. */
	const volatile sig_atomic_t *interrupt;
};

/* Input bytes per chunk: about 1 MiB, or RDMACTL_OFFLOAD_CHUNK's. */
static int chunk_target(size_t *target)
{
	const char *v = getenv("RDMACTL_OFFLOAD_CHUNK");
	char *end;

	*target = 1 << 20;
	if (!v || !*v)
		return 0;
	errno = 0;
	*target = strtoull(v, &end, 0);
	if (errno || *end || *target == 0 || *target > ((size_t)1 << 40)) {
		say("RDMACTL_OFFLOAD_CHUNK: '%s' is not a number of bytes from 1 "
			"to 2^40\n", v);
		return -1;
	}
	return 0;
}

static int stream_init(struct stream *s, const struct ctl *ctl, const struct cmd_args *args,
		       enum dp_dir dir, const struct dp_transform *t, const uint8_t *key, size_t key_len)
{
	size_t target;

	memset(s, 0, sizeof(*s));
	s->interrupt = ctl->interrupt;
	s->args = args;
	s->dir = dir;
	s->cfg = dp_transform_get_cfg(t);
	s->key = key;
	s->key_len = key_len;
	if (chunk_target(&target) < 0)
		return -1;
	offload_chunks_init(&s->chunks, s->cfg, dp_transform_copy_mask(t), dir, target);
	s->in = malloc(s->chunks.in_bytes);
	if (!s->in) {
		say("out of memory for a chunk of %zu input bytes\n", s->chunks.in_bytes);
		return -1;
	}
	return 0;
}

static void stream_free(struct stream *s)
{
	free(s->in);
	free(s->out);
}

/*
 * Says what is wrong with an input of len bytes: a warning when it is not
 * whole blocks, an error when it does not map at all.
 */
static int check_length(const struct stream *s, const struct dp_transform *t, uint64_t len)
{
	struct dp_error err;
	size_t out_len;

	/* One message: an input refused is not warned about first. */
	if (dp_transform_out_len(t, s->dir, len, &out_len, &err)) {
		say("input: %s\n", err.message);
		return -1;
	}
	ctl_warn_partial_block(s->args->path, s->cfg, s->dir == DP_RX, len);
	return 0;
}

static int out_room(struct stream *s, size_t len)
{
	uint8_t *out;

	if (len <= s->out_cap && s->out)
		return 0;
	out = realloc(s->out, len ? len : 1);
	if (!out) {
		say("out of memory for %zu output bytes\n", len);
		return -1;
	}
	s->out = out;
	s->out_cap = len;
	return 0;
}

/* The transform's bytes of the chunk in s->in, n bytes, to out_fd; its signature error kept. */
static int run_transform(struct stream *s, struct dp_transform *t, size_t n, int out_fd)
{
	struct dp_sig_err e;
	struct dp_error err;
	size_t out_len;
	int rc;

	if (dp_transform_out_len(t, s->dir, n, &out_len, &err) == 0 && out_room(s, out_len) < 0)
		return -1;
	if (dp_transform_run(t, s->dir, s->in, n, s->out, s->out_cap, &out_len, &e, &err)) {
		say("%s: %s\n", err.field, err.message);
		return -1;
	}
	rc = write_all(out_fd, s->out, out_len);
	if (rc < 0) {
		say("writing output: %s\n", strerror(-rc));
		return -1;
	}
	if (s->first.type == DP_SIG_ERR_NONE && e.type != DP_SIG_ERR_NONE) {
		s->first = e;
		s->first.offset += offload_chunks_in_offset(&s->chunks);
	}
	return 0;
}

/*
 * The next n input bytes through a transform of their own.  Only the last
 * chunk can end inside a block: the length of a pipe's input is checked there.
 */
static int run_chunk(struct stream *s, size_t n, bool last, int out_fd)
{
	struct dp_transform_cfg cfg;
	struct dp_transform *t;
	struct dp_error err;
	int rc;

	offload_chunks_next_cfg(&s->chunks, &cfg);
	if (dp_transform_create(&cfg, s->key, s->key_len, &t, &err)) {
		say("%s%s%s\n", err.field, *err.field ? ": " : "", err.message);
		return -1;
	}
	rc = last && !s->sized ? check_length(s, t, s->total + n) : 0;
	if (rc == 0)
		rc = run_transform(s, t, n, out_fd);
	dp_transform_destroy(t);
	s->chunks.done++;
	return rc;
}

static int stream_run(struct stream *s, int out_fd)
{
	size_t n;
	bool last;
	int rc;

	/* One chunk at least: an empty input is a transfer too. */
	do {
		if (s->interrupt && *s->interrupt) {
			say("interrupted\n");
			return -1;
		}
		rc = ctl_read_chunk(STDIN_FILENO, s->in, s->chunks.in_bytes, &n);
		if (rc) {
			say("reading input: %s\n", strerror(-rc));
			return -1;
		}
		last = n < s->chunks.in_bytes;
		if (n == 0 && s->total > 0)
			break;
		rc = run_chunk(s, n, last, out_fd);
		if (rc)
			return rc;
		s->total += n;
		progress_set(s->total);
	} while (!last);
	return 0;
}

/*
 * One transfer: IN on stdin, OUT to --output or stdout, the record to
 * report_path.  The output is opened once the configuration, the key and a
 * file's length are found good, so a refused transfer leaves no file; one
 * that fails later (a pipe's input ends inside a field) removes what it
 * wrote to --output.  A signature error is said after the bytes went out
 * (the hardware delivers them too) and gives -EBADMSG.
 */
static int offload_run(struct ctl *ctl, const struct cmd_args *args, enum dp_dir dir)
{
	const char *config_path = arg_get(args, "--config");
	const char *key_path = arg_get(args, "--key-file");
	const char *report_path = arg_get(args, "--report");
	struct dp_transform_cfg cfg;
	struct dp_transform *t = NULL;
	struct stream s = { 0 };
	struct dp_error err;
	char *cfg_text = NULL;
	uint8_t *key = NULL;
	size_t key_len = 0;
	uint64_t size = 0;
	int rc, out_fd = -1, status = -EIO;
	char level_msg[160];

	if (ctl_binary_input_check(args) < 0)
		return -EINVAL;
	if (dp_kern_env_describe(level_msg, sizeof(level_msg)) < 0) {
		say("%s\n", level_msg);
		return -EIO;
	}
	rc = ctl_read_text_file(config_path, 1 << 20, &cfg_text);
	if (rc < 0 && rc != -EILSEQ) {
		say("config %s: %s\n", config_path, strerror(-rc));
		return -EIO;
	}
	/* A configuration that is not one is a usage error, as for mkey configure --config (ctl_read_json_file). */
	if (rc == -EILSEQ) {
		say("config %s: holds a NUL byte: not a JSON text\n", config_path);
		return -EINVAL;
	}
	rc = dp_transform_cfg_parse(cfg_text, &cfg, &err);
	if (rc) {
		say("config %s: %s%s%s\n", config_path, err.field, *err.field ? ": " : "", err.message);
		status = -EINVAL;
		goto out;
	}
	if (key_path) {
		if (dp_crypto_global_init(&err)) {
			say("%s\n", err.message);
			goto out;
		}
		if (read_key(key_path, &key, &key_len))
			goto out;
	} else if (cfg.crypto.enabled) {
		say("the configuration has crypto: --key-file FILE is required\n");
		goto out;
	}
	/* The whole transfer's transform checks the configuration and the key once. */
	rc = dp_transform_create(&cfg, key, key_len, &t, &err);
	if (rc) {
		bool of_key = !strcmp(err.field, "key");

		say("%s%s%s\n", of_key ? "key-file: " : err.field, of_key || !*err.field ? "" : ": ",
		    err.message);
		if (!of_key)
			status = -EINVAL;
		goto out;
	}
	if (stream_init(&s, ctl, args, dir, t, key, key_len) < 0)
		goto out;
	/* A file's length is known: an input that does not map is refused before any output. */
	s.sized = ctl_input_size(STDIN_FILENO, &size);
	if (s.sized && check_length(&s, t, size) < 0)
		goto out;
	rc = ctl_binary_output_open(args, &out_fd);
	if (rc < 0) {
		status = rc;
		goto out;
	}
	progress_start(ctl, args->path, NULL, s.sized ? size : 0);
	rc = stream_run(&s, out_fd);
	progress_end();
	if (ctl_binary_output_close(args, out_fd) < 0)
		rc = -1;
	if (rc) {
		if (out_fd != STDOUT_FILENO)
			unlink(arg_get(args, "--output"));
		goto out;
	}
	if (report_path && write_report(report_path, &s.first))
		goto out;
	status = ctl_report_sig_error(args->path, dp_sig_err_type_name(s.first.type), s.first.expected,
				      s.first.actual, s.first.offset);
out:
	stream_free(&s);
	dp_transform_destroy(t);
	if (key) {
		explicit_bzero(key, KEY_MAX);
		gcry_free(key);
	}
	free(cfg_text);
	return status;
}

static int offload(struct ctl *ctl, const struct cmd_args *args, enum dp_dir dir)
{
	command_path = args->path;
	return offload_run(ctl, args, dir);
}

static int offload_tx(struct ctl *ctl, const struct cmd_args *args)
{
	return offload(ctl, args, DP_TX);
}

static int offload_rx(struct ctl *ctl, const struct cmd_args *args)
{
	return offload(ctl, args, DP_RX);
}

/*
 * Every kernel level, one a line: its start-up self-test's result (passed, failed: why, not
 * run: CPU lacks what), the one in effect marked; with -j {"kernel": the one in effect,
 * "kernels": those that can run (CPU has them, self-test passed), "selftests": [{kernel, result}]},
 * as dev show names the device's kernel.
 */
static int offload_levels(struct ctl *ctl, const struct cmd_args *args)
{
	struct json_object *doc, *kernels;

	if (!ctl->json) {
		for (int l = 0; l < DP_KERN_LEVELS; l++)
			printf("%-10s %s%s\n", dp_kern_level_name((enum dp_kern_level)l),
			       dp_kern_level_selftest((enum dp_kern_level)l), (int)dp_kern_level_in_use() == l ? " *" : "");
		return 0;
	}
	doc = json_object_new_object();
	kernels = json_object_new_array();
	for (int l = 0; l < DP_KERN_LEVELS; l++)
		if (dp_kern_level_usable((enum dp_kern_level)l))
			json_object_array_add(kernels, json_object_new_string(
				dp_kern_level_name((enum dp_kern_level)l)));
	json_object_object_add(doc, "kernel", json_object_new_string(dp_kern_level_name(dp_kern_level_in_use())));
	json_object_object_add(doc, "kernels", kernels);
	json_object_object_add(doc, "selftests", dp_kern_selftest_json());
	output_print_json(ctl, doc);
	json_object_put(doc);
	return 0;
}

static const struct cmd_arg offload_args[] = {
	{ .name = "--config", .kind = ARG_OPTION, .metavar = "FILE", .required = true,
	  .help = "the MKEY configuration: JSON with mem, wire, check_mask, copy_mask, crypto" },
	{ .name = "--key-file", .kind = ARG_OPTION, .metavar = "FILE",
	  .help = "raw AES-XTS key key1||key2, 32 or 64 bytes (needed with crypto)" },
	{ .name = "--report", .kind = ARG_OPTION, .metavar = "FILE",
	  .help = "write the mkey-check record as JSON" },
	CMD_ARG_OUTPUT,
	{ NULL },
};

const struct cmd cmd_offload[] = {
	{ .name = "tx", .summary = "Memory bytes on stdin to wire bytes on stdout",
	  .args = offload_args, .run = offload_tx },
	{ .name = "rx", .summary = "Wire bytes on stdin to memory bytes on stdout",
	  .args = offload_args, .run = offload_rx },
	{ .name = "levels", .summary = "The guard kernel levels this CPU runs (* = in effect)",
	  .run = offload_levels },
	{ NULL },
};
