/* SPDX-License-Identifier: MIT */
/*
 * rdmactl offload tx|rx: one transfer through the dataplane transform engine on
 * local bytes, no daemon.  The configuration is the JSON object the MKEY
 * configure method takes, so a configuration can be tried here first.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gcrypt.h>
#include <json-c/json.h>

#include "cmd/rdmactl.h"
#include "dataplane/offload/kern.h"
#include "dataplane/offload/transform.h"
#include "dataplane/offload/transform_json.h"
#include "dataplane/offload/xts.h"
#include "lib/io.h"

#define PROG "rdmactl: offload"
/* key1 || key2 of AES-256-XTS, the longest key */
#define KEY_MAX 64

/* The key goes straight into libgcrypt secure memory and is wiped after use. */
static int read_key(const char *path, uint8_t **key, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	uint8_t *k;
	size_t n = 0;
	int r;

	if (fd < 0) {
		fprintf(stderr, PROG ": key-file %s: %s\n", path, strerror(errno));
		return -1;
	}
	k = gcry_malloc_secure(KEY_MAX);
	if (!k) {
		close(fd);
		fprintf(stderr, PROG ": key-file: out of secure memory\n");
		return -1;
	}
	r = read_all(fd, k, KEY_MAX, &n);
	close(fd);
	if (r < 0 && r != -EFBIG)
		fprintf(stderr, PROG ": key-file %s: %s\n", path, strerror(-r));
	else if (r == -EFBIG || (n != 32 && n != 64))
		fprintf(stderr, PROG ": key-file %s: must hold the raw key key1||key2, 32 bytes (AES-128-XTS) "
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
	json_object_object_add(o, "kernel", json_object_new_string(dp_kern_level_name(dp_kern_level())));
	s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	FILE *f = fopen(path, "we");
	int rc = 0;

	if (!f || fprintf(f, "%s\n", s) < 0)
		rc = -1;
	if (f && fclose(f) != 0)
		rc = -1;
	if (rc)
		fprintf(stderr, PROG ": report %s: %s\n", path, strerror(errno));
	json_object_put(o);
	return rc;
}

/*
 * One transfer: IN on stdin, OUT to out_fd, the record to report_path.  A
 * signature error is said after the bytes went out (the hardware delivers
 * them too) and gives -EBADMSG.
 */
static int offload_run(const struct cmd_args *args, enum dp_dir dir, int out_fd)
{
	const char *config_path = arg_get(args, "--config");
	const char *key_path = arg_get(args, "--key-file");
	const char *report_path = arg_get(args, "--report");
	struct dp_transform_cfg cfg;
	struct dp_transform *t = NULL;
	struct dp_sig_err rec;
	struct dp_error err;
	char *cfg_text = NULL;
	uint8_t *in = NULL, *out = NULL, *key = NULL;
	size_t in_len = 0, out_len = 0, key_len = 0;
	int rc, status = -EIO;
	char level_msg[160];

	if (dp_kern_env_describe(level_msg, sizeof(level_msg)) < 0) {
		fprintf(stderr, PROG ": %s\n", level_msg);
		return -EIO;
	}
	rc = ctl_read_text_file(config_path, 1 << 20, &cfg_text);
	if (rc < 0) {
		fprintf(stderr, PROG ": config %s: %s\n", config_path,
			rc == -EILSEQ ? "contains a NUL byte" : strerror(-rc));
		return -EIO;
	}
	rc = dp_transform_cfg_parse(cfg_text, &cfg, &err);
	if (rc) {
		fprintf(stderr, PROG ": config %s: %s%s%s\n", config_path, err.field, *err.field ? ": " : "", err.message);
		goto out;
	}
	if (key_path) {
		if (dp_crypto_global_init(&err)) {
			fprintf(stderr, PROG ": %s\n", err.message);
			goto out;
		}
		if (read_key(key_path, &key, &key_len))
			goto out;
	} else if (cfg.crypto.enabled) {
		fprintf(stderr, PROG ": the configuration has crypto: --key-file FILE is required\n");
		goto out;
	}
	rc = dp_transform_create(&cfg, key, key_len, &t, &err);
	if (rc) {
		fprintf(stderr, PROG ": %s%s%s\n", !strcmp(err.field, "key") ? "key-file: " : err.field,
			!strcmp(err.field, "key") || !*err.field ? "" : ": ", err.message);
		goto out;
	}
	rc = read_all_alloc(STDIN_FILENO, (size_t)1 << 40, &in, &in_len);
	if (rc) {
		fprintf(stderr, PROG ": reading input: %s\n", strerror(-rc));
		goto out;
	}
	ctl_warn_partial_block(args->path, &cfg, dir == DP_RX, in_len);
	rc = dp_transform_out_len(t, dir, in_len, &out_len, &err);
	if (rc) {
		fprintf(stderr, PROG ": input: %s\n", err.message);
		goto out;
	}
	out = malloc(out_len ? out_len : 1);
	if (!out) {
		fprintf(stderr, PROG ": out of memory for %zu output bytes\n", out_len);
		goto out;
	}
	rc = dp_transform_run(t, dir, in, in_len, out, out_len, &out_len, NULL, &err);
	if (rc) {
		fprintf(stderr, PROG ": %s: %s\n", err.field, err.message);
		goto out;
	}
	rc = write_all(out_fd, out, out_len);
	if (rc) {
		fprintf(stderr, PROG ": writing output: %s\n", strerror(-rc));
		goto out;
	}
	dp_transform_check(t, &rec);
	if (report_path && write_report(report_path, &rec))
		goto out;
	status = ctl_report_sig_error(args->path, dp_sig_err_type_name(rec.type), rec.expected,
				      rec.actual, rec.offset);
out:
	dp_transform_destroy(t);
	if (key) {
		explicit_bzero(key, KEY_MAX);
		gcry_free(key);
	}
	free(cfg_text);
	free(in);
	free(out);
	return status;
}

static int offload(const struct cmd_args *args, enum dp_dir dir)
{
	int fd, r = ctl_binary_output_open(args, &fd);

	if (r < 0)
		return r;
	r = offload_run(args, dir, fd);
	if (ctl_binary_output_close(args, fd) < 0 && r == 0)
		r = -EIO;
	return r;
}

static int offload_tx(struct ctl *ctl, const struct cmd_args *args)
{
	return offload(args, DP_TX);
}

static int offload_rx(struct ctl *ctl, const struct cmd_args *args)
{
	return offload(args, DP_RX);
}

/* The kernel levels this CPU runs, one a line, the one in effect marked. */
static int offload_levels(struct ctl *ctl, const struct cmd_args *args)
{
	for (int l = 0; l < DP_KERN_LEVELS; l++)
		if (dp_kern_level_supported((enum dp_kern_level)l))
			printf("%s%s\n", dp_kern_level_name((enum dp_kern_level)l),
			       (int)dp_kern_level() == l ? " *" : "");
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
