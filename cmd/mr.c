/* SPDX-License-Identifier: MIT */
/* rdmactl mr: memory regions, and the bytes of those the daemon allocated. */
#include "cmd/rdmactl.h"
#include "cmd/output.h"
#include "cmd/progress.h"
#include "lib/base64.h"
#include "lib/io.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define IFACE "io.rdmad.Mr"

/*
 * Bytes per Write/Read call, and all rdmactl holds of a transfer at a time,
 * whatever its size: well below the daemon's 8 MiB a call, and small enough
 * that the calls' base64 and JSON copies of it stay a few MiB.
 */
#define CHUNK (1u << 20)

/* What ibv_reg_mr takes, on_demand included; a DMA MR has no memory of its own to map on demand. */
static const char *const access_words[] = {
	"local_write", "remote_write", "remote_read", "on_demand", NULL,
};
static const char *const dma_access_words[] = {
	"local_write", "remote_write", "remote_read", NULL,
};

static void complete_access(struct ctl *ctl, const char *prefix,
			    void (*add)(void *data, const char *word), void *data)
{
	ctl_complete_words(access_words, prefix, add, data);
}

static void complete_dma_access(struct ctl *ctl, const char *prefix,
				void (*add)(void *data, const char *word), void *data)
{
	ctl_complete_words(dma_access_words, prefix, add, data);
}

static int mr_show(struct ctl *ctl, const struct cmd_args *args)
{
	return ctl_object_show(ctl, args, "MR", IFACE, "mr", "mrs");
}

static int mr_list(struct ctl *ctl, const struct cmd_args *args)
{
	return output_call_list(ctl, args, IFACE ".List", ctl_device_params(args), "mrs", "mr");
}

static int mr_destroy(struct ctl *ctl, const struct cmd_args *args)
{
	return ctl_object_destroy(ctl, args, "MR", IFACE);
}

/* create and dma: a PD and access flags, plus what extra adds. */
static int mr_make(struct ctl *ctl, const struct cmd_args *args, const char *method, bool sized)
{
	struct json_object *params = ctl_device_params(args);

	if (ctl_add_number(ctl, args, "PD", params, "pd", UINT32_MAX) < 0 ||
	    (sized && ctl_add_number(ctl, args, "--size", params, "size", INT64_MAX) < 0) ||
	    ctl_add_words(args, "--access", sized ? access_words : dma_access_words, params,
			  "access") != 0) {
		json_object_put(params);
		return -EINVAL;
	}
	return output_call_records(ctl, args, method, params, "mr", "mr");
}

static int mr_create(struct ctl *ctl, const struct cmd_args *args)
{
	return mr_make(ctl, args, IFACE ".Create", true);
}

static int mr_dma(struct ctl *ctl, const struct cmd_args *args)
{
	return mr_make(ctl, args, IFACE ".GetDma", false);
}

/* REG_USER_MR of a memfd this rdmactl inherited as --fd N, passed along with the call. */
static int mr_reg(struct ctl *ctl, const struct cmd_args *args)
{
	struct json_object *params = ctl_device_params(args);
	uint64_t fd = 0;
	int index;

	if (ctl_add_number(ctl, args, "PD", params, "pd", UINT32_MAX) < 0 ||
	    arg_get_u64(ctl, args, "--fd", 0, INT32_MAX, &fd) < 0 ||
	    ctl_add_number(ctl, args, "--length", params, "length", INT64_MAX) < 0 ||
	    ctl_add_number(ctl, args, "--offset", params, "offset", INT64_MAX) < 0 ||
	    ctl_add_number(ctl, args, "--iova", params, "iova", INT64_MAX) < 0 ||
	    ctl_add_words(args, "--access", access_words, params, "access") != 0) {
		json_object_put(params);
		return -EINVAL;
	}
	index = ctl_pass_fd(ctl, args->path, (int)fd);
	if (index < 0) {
		json_object_put(params);
		return index;
	}
	json_object_object_add(params, "fd", json_object_new_int(index));
	return output_call_records(ctl, args, IFACE ".RegUser", params, "mr", "mr");
}

/* What a transfer needs to know of the MR: its handle (in params), type and size. */
struct transfer {
	struct json_object *params;   /* device, handle */
	uint64_t offset;
	uint64_t mrlen;
	bool dma;
};

static int transfer_init(struct ctl *ctl, const struct cmd_args *args, struct transfer *t)
{
	struct json_object *reply, *mr;
	int r;

	t->params = ctl_device_params(args);
	t->offset = 0;
	if (ctl_add_number(ctl, args, "MR", t->params, "handle", UINT32_MAX) < 0 ||
	    arg_get_u64(ctl, args, "--offset", 0, INT64_MAX, &t->offset) < 0) {
		json_object_put(t->params);
		t->params = NULL;
		return -EINVAL;
	}
	r = ctl_call(ctl, args->path, IFACE ".Show", t->params, &reply);
	if (r < 0) {
		json_object_put(t->params);
		t->params = NULL;
		return r;
	}
	mr = json_object_object_get(reply, "mr");
	t->mrlen = json_object_get_uint64(json_object_object_get(mr, "mrlen"));
	t->dma = strcmp(json_object_get_string(json_object_object_get(mr, "mr_type")), "dma") == 0;
	json_object_put(reply);
	return 0;
}

/*
 * A transfer takes several calls; checking its whole range first keeps a
 * refused one from doing part of its work.  The daemon checks each call
 * again; an offset past the end and a dma MR are left for it to refuse.
 */
static bool transfer_fits(const struct cmd_args *args, const struct transfer *t, uint64_t length)
{
	if (t->dma || t->offset > t->mrlen || length <= t->mrlen - t->offset)
		return true;
	ctl_fail("%s: length: %" PRIu64 " bytes from offset %" PRIu64 " pass the end of the MR "
		 "(%" PRIu64 " bytes)", args->path, length, t->offset, t->mrlen);
	return false;
}

/* params with offset set for one call; the caller puts it. */
static struct json_object *call_params(const struct transfer *t, uint64_t offset)
{
	struct json_object *p = json_object_new_object();

	json_object_object_foreach(t->params, key, val)
		json_object_object_add(p, key, json_object_get(val));
	json_object_object_add(p, "offset", json_object_new_uint64(offset));
	return p;
}

/*
 * The input past the MR's end, found only after the first chunk of a pipe (a
 * file's size is checked before any byte goes): the chunks before it are in.
 */
static int write_past_end(const struct cmd_args *args, const struct transfer *t, uint64_t pos,
			  uint64_t len)
{
	if (pos == 0)
		return transfer_fits(args, t, len) ? 0 : -EIO;
	if (transfer_fits(args, t, len))
		return 0;
	return ctl_fail("%s: the first %" PRIu64 " bytes were written before the input turned out "
			"longer than the MR", args->path, pos);
}

/* Standard input to the MR a chunk at a time, from the transfer's offset. */
static int write_from(struct ctl *ctl, const struct cmd_args *args, const struct transfer *t,
		      uint64_t *pos)
{
	uint8_t *bytes = malloc(CHUNK);
	char *text = malloc(base64_encoded_size(CHUNK) + 1);
	size_t n = 0;
	int r = bytes && text ? 0 : -ENOMEM;

	/* One call at least, so that an empty input still has its offset checked. */
	while (r == 0) {
		struct json_object *p;

		r = ctl_read_chunk(STDIN_FILENO, bytes, CHUNK, &n);
		if (r < 0) {
			r = ctl_fail("%s: reading standard input: %s", args->path, strerror(-r));
			break;
		}
		if (n == 0 && *pos > 0)
			break;
		r = write_past_end(args, t, *pos, *pos + n);
		if (r < 0)
			break;
		p = call_params(t, t->offset + *pos);
		base64_encode(bytes, n, text);
		json_object_object_add(p, "data", json_object_new_string(text));
		r = ctl_call_quiet(ctl, args, IFACE ".Write", p);
		if (r < 0)
			break;
		*pos += n;
		progress_set(*pos);
		if (n < CHUNK)
			break;
	}
	free(text);
	free(bytes);
	return r;
}

static int mr_write(struct ctl *ctl, const struct cmd_args *args)
{
	struct transfer t = { 0 };
	uint64_t size = 0, pos = 0;
	bool sized;
	int r;

	r = ctl_binary_input_check(args);
	if (r == 0)
		r = transfer_init(ctl, args, &t);
	if (r < 0)
		return r;
	sized = ctl_input_size(STDIN_FILENO, &size);
	/* A file's length is known: a write past the end is refused before any byte goes. */
	if (sized && !transfer_fits(args, &t, size)) {
		json_object_put(t.params);
		return -EIO;
	}
	progress_start(ctl, args->path, NULL, sized ? size : 0);
	r = write_from(ctl, args, &t, &pos);
	progress_end();
	if (r == 0 && ctl->json) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "written", json_object_new_uint64(pos));
		output_print_json(ctl, o);
		json_object_put(o);
	}
	json_object_put(t.params);
	return r;
}

/* The bytes of length from the transfer's offset to fd, a call per CHUNK. */
static int read_to(struct ctl *ctl, const struct cmd_args *args, const struct transfer *t,
		   uint64_t length, int fd)
{
	uint8_t *bytes = malloc(CHUNK);
	uint64_t pos = 0;
	int r = bytes && transfer_fits(args, t, length) ? 0 : -EIO;

	do {
		uint64_t n = length - pos < CHUNK ? length - pos : CHUNK;
		struct json_object *p, *reply;
		const char *text;
		size_t got;

		if (r < 0)
			break;
		p = call_params(t, t->offset + pos);
		json_object_object_add(p, "length", json_object_new_uint64(n));
		r = ctl_call(ctl, args->path, IFACE ".Read", p, &reply);
		json_object_put(p);
		if (r < 0)
			break;
		text = json_object_get_string(json_object_object_get(reply, "data"));
		if (strlen(text) > base64_encoded_size(CHUNK) ||
		    base64_decode(text, strlen(text), bytes, &got) < 0 || got != n)
			r = ctl_fail("%s: the daemon sent %s", args->path, "data that is not what was asked");
		else if ((r = write_all(fd, bytes, got)) < 0)
			r = ctl_fail("%s: writing the output: %s", args->path, strerror(-r));
		json_object_put(reply);
		pos += n;
		progress_set(pos);
	} while (pos < length);
	free(bytes);
	return r;
}

static int mr_read(struct ctl *ctl, const struct cmd_args *args)
{
	uint64_t length = 0;
	struct transfer t = { 0 };
	int fd, r;

	r = ctl_binary_output_open(args, &fd);
	if (r < 0)
		return r;
	r = transfer_init(ctl, args, &t);
	if (r == 0 && arg_get_u64(ctl, args, "--length", 0, INT64_MAX, &length) < 0)
		r = -EINVAL;
	if (r == 0) {
		if (!arg_get(args, "--length"))
			length = t.offset < t.mrlen ? t.mrlen - t.offset : 0;
		progress_start(ctl, args->path, NULL, length);
		r = read_to(ctl, args, &t, length, fd);
		progress_end();
	}
	if (ctl_binary_output_close(args, fd) < 0 && r == 0)
		r = -EIO;
	if (t.params)
		json_object_put(t.params);
	return r;
}

#define ARG_MR(req, text) { .name = "MR", .kind = ARG_POSITIONAL, .help = text, .required = req }
#define ARG_PD { .name = "PD", .kind = ARG_POSITIONAL, .required = true, \
		 .help = "the protection domain it belongs to" }
#define ACCESS_HELP "comma-separated: local_write, remote_write (needs local_write), remote_read"
#define ACCESS_DEFAULT " (default: none, local read only)"
#define ARG_ACCESS { .name = "--access", .kind = ARG_OPTION, .metavar = "FLAGS", \
		     .help = ACCESS_HELP ", on_demand (pages come when first touched, not pinned " \
			     "now)" ACCESS_DEFAULT, .complete = complete_access }
#define ARG_DMA_ACCESS { .name = "--access", .kind = ARG_OPTION, .metavar = "FLAGS", \
			 .help = ACCESS_HELP ACCESS_DEFAULT, .complete = complete_dma_access }
#define ARG_OFFSET { .name = "--offset", .kind = ARG_OPTION, .metavar = "O", \
		     .help = "the first byte, counted from the MR's start (default 0)" }

static const struct cmd_arg dev_only[] = { CMD_ARG_DEV, { NULL } };
static const struct cmd_arg show_args[] = {
	ARG_MR(false, "the MR's handle, its lkey (default: all)"), CMD_ARG_DEV, { NULL },
};
static const struct cmd_arg destroy_args[] = {
	ARG_MR(true, "the MR's handle, its lkey"), CMD_ARG_DEV, { NULL },
};
static const struct cmd_arg create_args[] = {
	ARG_PD,
	{ .name = "--size", .kind = ARG_OPTION, .metavar = "N", .required = true,
	  .help = "bytes of memory, 1 to the daemon's max_mr_size" },
	ARG_ACCESS, CMD_ARG_DEV, { NULL },
};
static const struct cmd_arg dma_args[] = { ARG_PD, ARG_DMA_ACCESS, CMD_ARG_DEV, { NULL } };
static const struct cmd_arg reg_args[] = {
	ARG_PD,
	{ .name = "--fd", .kind = ARG_OPTION, .metavar = "N", .required = true,
	  .help = "a memfd sealed with F_SEAL_SHRINK that rdmactl inherited as descriptor N" },
	{ .name = "--length", .kind = ARG_OPTION, .metavar = "L", .required = true,
	  .help = "bytes of the memfd to register" },
	{ .name = "--offset", .kind = ARG_OPTION, .metavar = "O",
	  .help = "where in the memfd they start (default 0)" },
	{ .name = "--iova", .kind = ARG_OPTION, .metavar = "A",
	  .help = "the address work requests use for the first byte (default 0)" },
	ARG_ACCESS, CMD_ARG_DEV, { NULL },
};
static const struct cmd_arg write_args[] = {
	ARG_MR(true, "the MR's handle; the bytes come from standard input"), ARG_OFFSET, CMD_ARG_DEV,
	{ NULL },
};
static const struct cmd_arg read_args[] = {
	ARG_MR(true, "the MR's handle; the bytes go to standard output"), ARG_OFFSET,
	{ .name = "--length", .kind = ARG_OPTION, .metavar = "L",
	  .help = "how many bytes (default: to the end of the MR)" },
	CMD_ARG_OUTPUT, CMD_ARG_DEV, { NULL },
};

const struct cmd cmd_mr[] = {
	{ .name = "show", .summary = "Show memory regions: keys, access, iova, size, resident pages",
	  .args = show_args, .run = mr_show, .is_default = true },
	{ .name = "list", .summary = "List memory regions", .args = dev_only, .run = mr_list },
	{ .name = "create", .summary = "Allocate memory in the daemon as an MR of a PD",
	  .args = create_args, .run = mr_create },
	{ .name = "dma", .summary = "Get a DMA MR: the daemon MRs of its PD, by iova (GET_DMA_MR)",
	  .args = dma_args, .run = mr_dma },
	{ .name = "reg", .summary = "Register an application's memfd as an MR (REG_USER_MR)",
	  .args = reg_args, .run = mr_reg },
	{ .name = "destroy", .spelled_out = true, .summary = "Destroy (deregister) an MR nothing uses", .args = destroy_args,
	  .run = mr_destroy },
	{ .name = "write", .summary = "Write standard input into an MR's memory",
	  .args = write_args, .run = mr_write },
	{ .name = "read", .summary = "Copy bytes of an MR's memory to standard output",
	  .args = read_args, .run = mr_read },
	{ NULL },
};
