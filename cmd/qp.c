/* SPDX-License-Identifier: MIT */
/* rdmactl qp: queue pairs and their state machine. */
#include "cmd/rdmactl.h"
#include "cmd/output.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define IFACE "io.rdmad.Qp"

/* A word the table's values checked (a state, a type), as the API spells it too. */
static void add_word(struct json_object *params, const char *key, const char *word)
{
	json_object_object_add(params, key, json_object_new_string(word));
}

/* Options given as numbers: the daemon checks each against its width or limit and names it. */
struct number_opt {
	const char *arg, *key;
};

static int add_numbers(struct ctl *ctl, const struct cmd_args *args, const struct number_opt *opts,
		       size_t n, struct json_object *params)
{
	for (size_t i = 0; i < n; i++)
		if (ctl_add_number(ctl, args, opts[i].arg, params, opts[i].key, UINT32_MAX) < 0)
			return -1;
	return 0;
}

static int qp_show(struct ctl *ctl, const struct cmd_args *args)
{
	return ctl_object_show(ctl, args, "QP", IFACE, "qp", "qps");
}

static int qp_list(struct ctl *ctl, const struct cmd_args *args)
{
	return output_call_list(ctl, args, IFACE ".List", ctl_device_params(args), "qps", "qp");
}

static int qp_create(struct ctl *ctl, const struct cmd_args *args)
{
	static const struct number_opt numbers[] = {
		{ "--pd", "pd" }, { "--send-cq", "send_cq" }, { "--recv-cq", "recv_cq" },
		{ "--max-send-wr", "max_send_wr" }, { "--max-recv-wr", "max_recv_wr" },
		{ "--max-send-sge", "max_send_sge" }, { "--max-recv-sge", "max_recv_sge" },
		{ "--max-inline-data", "max_inline_data" },
	};
	struct json_object *params = ctl_device_params(args);

	if (add_numbers(ctl, args, numbers, sizeof(numbers) / sizeof(numbers[0]), params) < 0) {
		json_object_put(params);
		return -EINVAL;
	}
	add_word(params, "type", arg_get(args, "--type"));
	if (arg_flag(args, "--sq-sig-all"))
		json_object_object_add(params, "sq_sig_all", json_object_new_boolean(true));
	if (arg_flag(args, "--sig-pipelining"))
		json_object_object_add(params, "sig_pipelining", json_object_new_boolean(true));
	if (arg_get(args, "--recovery"))
		json_object_object_add(params, "recovery", json_object_new_string(arg_get(args, "--recovery")));
	if (ctl_add_number(ctl, args, "--cpu", params, "cpu", INT32_MAX) < 0) {
		json_object_put(params);
		return -EINVAL;
	}
	return output_call_records(ctl, args, IFACE ".Create", params, "qp", "qp");
}

/* "local_write,remote_read" as a list; "" clears every flag. */
static struct json_object *word_list(const char *text)
{
	struct json_object *list = json_object_new_array();
	char *copy = strdup(text), *save = NULL;

	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save))
		json_object_array_add(list, json_object_new_string(w));
	free(copy);
	return list;
}

/* The address vector options, gathered into "av" when any is given. */
static int add_av(struct ctl *ctl, const struct cmd_args *args, struct json_object *params)
{
	static const struct number_opt numbers[] = {
		{ "--sgid-index", "sgid_index" }, { "--flow-label", "flow_label" },
		{ "--hop-limit", "hop_limit" }, { "--traffic-class", "traffic_class" },
	};
	static const char *const strings[][2] = { { "--dgid", "dgid" }, { "--dmac", "dmac" } };
	struct json_object *av = json_object_new_object();

	if (add_numbers(ctl, args, numbers, sizeof(numbers) / sizeof(numbers[0]), av) < 0) {
		json_object_put(av);
		return -1;
	}
	for (size_t i = 0; i < sizeof(strings) / sizeof(strings[0]); i++)
		if (arg_get(args, strings[i][0]))
			json_object_object_add(av, strings[i][1],
					       json_object_new_string(arg_get(args, strings[i][0])));
	if (json_object_object_length(av) == 0)
		json_object_put(av);
	else
		json_object_object_add(params, "av", av);
	return 0;
}

/* The numbers of qp modify: the options, and the attributes they set. */
static const struct number_opt modify_numbers[] = {
	{ "QP", "handle" }, { "--qkey", "qkey" }, { "--path-mtu", "path_mtu" },
	{ "--timeout", "timeout" }, { "--retry-cnt", "retry_cnt" },
	{ "--rnr-retry", "rnr_retry" }, { "--rq-psn", "rq_psn" }, { "--sq-psn", "sq_psn" },
	{ "--max-rd-atomic", "max_rd_atomic" },
	{ "--max-dest-rd-atomic", "max_dest_rd_atomic" },
	{ "--min-rnr-timer", "min_rnr_timer" }, { "--dest-qp", "dest_qp_num" },
};
#define N_MODIFY_NUMBERS (sizeof(modify_numbers) / sizeof(modify_numbers[0]))

/* The option(s) of qp modify that set the attribute named name (len bytes), or NULL. */
static const char *modify_option(const char *name, size_t len)
{
	static const struct number_opt others[] = {
		{ "--dgid (with --sgid-index)", "av" }, { "--access", "access" },
		{ "--cur-state", "cur_state" }, { "--state", "state" },
	};

	const struct number_opt *tables[] = { modify_numbers, others };
	const size_t sizes[] = { N_MODIFY_NUMBERS, sizeof(others) / sizeof(others[0]) };

	for (size_t t = 0; t < 2; t++)
		for (size_t i = 0; i < sizes[t]; i++)
			if (strlen(tables[t][i].key) == len && strncmp(tables[t][i].key, name, len) == 0)
				return tables[t][i].arg;
	return NULL;
}

/*
 * The daemon's reason with each attribute it names given as the option that
 * sets it ("required: av, path_mtu" → "required: --dgid and --sgid-index,
 * --path-mtu").  NULL when out of memory.
 */
static char *reason_in_options(const char *reason)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	if (!f)
		return NULL;
	for (const char *s = reason; *s; ) {
		size_t word = strspn(s, "abcdefghijklmnopqrstuvwxyz_");
		const char *opt = word ? modify_option(s, word) : NULL;

		if (opt)
			fputs(opt, f);
		else
			fwrite(s, 1, word ? word : 1, f);
		s += word ? word : 1;
	}
	if (fclose(f) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

/*
 * An attribute the transition needs or does not take, said with the
 * command's options: "qp modify: --rq-psn is required for uc init -> rtr;
 * required: --dgid and --sgid-index, --path-mtu, ...".  The JSON output
 * keeps the daemon's error as it came, for scripts.
 */
static int modify_refused(struct ctl *ctl, const struct cmd_args *args, char *error,
			  struct json_object *params)
{
	const char *field = json_object_get_string(json_object_object_get(params, "field"));
	const char *reason = json_object_get_string(json_object_object_get(params, "reason"));
	const char *opt = field ? modify_option(field, strlen(field)) : NULL;
	char *text;
	int r;

	if (strcmp(error, IFACE ".InvalidArgument") != 0 || !opt || !reason ||
	    (strncmp(reason, "required for ", 13) != 0 && strncmp(reason, "not allowed for ", 16) != 0))
		return ctl_report_error(ctl, args->path, IFACE ".Modify", error, params);
	text = reason_in_options(reason);
	r = ctl_usage_error("%s: %s is %s", args->path, opt, text ? text : "(out of memory)");
	ctl->out->error(ctl, error, params);
	free(text);
	free(error);
	json_object_put(params);
	return r;
}

static int qp_modify(struct ctl *ctl, const struct cmd_args *args)
{
	struct json_object *params = ctl_device_params(args), *reply = NULL;
	char *error = NULL;
	int r;

	if (add_numbers(ctl, args, modify_numbers, N_MODIFY_NUMBERS, params) < 0 ||
	    add_av(ctl, args, params) < 0) {
		json_object_put(params);
		return -EINVAL;
	}
	add_word(params, "state", arg_get(args, "--state"));
	if (arg_get(args, "--cur-state"))
		add_word(params, "cur_state", arg_get(args, "--cur-state"));
	if (arg_get(args, "--access"))
		json_object_object_add(params, "access", word_list(arg_get(args, "--access")));
	r = ctl_call_raw(ctl, IFACE ".Modify", params, &reply, &error);
	json_object_put(params);
	if (r == 0 && error)
		return modify_refused(ctl, args, error, reply);
	json_object_put(reply);
	return r;
}

static int qp_destroy(struct ctl *ctl, const struct cmd_args *args)
{
	return ctl_object_destroy(ctl, args, "QP", IFACE);
}

/* ---- posting ---- */

/* "A:B[:C]" into n numbers; false unless there are exactly n, each a number. */
static bool split_numbers(const char *text, uint64_t *out, unsigned n)
{
	const char *p = text;

	for (unsigned i = 0; i < n; i++) {
		char *end;

		if (!*p || *p == '-')
			return false;
		out[i] = ctl_strtou64(p, &end);
		if (end == p || (i + 1 < n ? *end != ':' : *end != '\0'))
			return false;
		p = end + 1;
	}
	return true;
}

/* --sge KEY:OFFSET:LENGTH, as many as given, into "sges". */
static int add_sges(const struct cmd_args *args, struct json_object *params)
{
	unsigned n = arg_count(args, "--sge");
	struct json_object *list;

	if (!n)
		return 0;
	list = json_object_new_array();
	json_object_object_add(params, "sges", list);
	for (unsigned i = 0; i < n; i++) {
		const char *text = arg_get_nth(args, "--sge", i);
		struct json_object *sge;
		uint64_t v[3];

		if (!split_numbers(text, v, 3))
			return ctl_usage_error("%s: --sge %s: KEY:OFFSET:LENGTH, three numbers", args->path,
					       text);
		sge = json_object_new_object();
		json_object_object_add(sge, "key", json_object_new_int64((int64_t)v[0]));
		json_object_object_add(sge, "offset", json_object_new_int64((int64_t)v[1]));
		json_object_object_add(sge, "length", json_object_new_int64((int64_t)v[2]));
		json_object_array_add(list, sge);
	}
	return 0;
}

/* --ah, --dest-qp, --qkey: where a UD send goes, all three or none. */
static int add_ud(struct ctl *ctl, const struct cmd_args *args, struct json_object *params)
{
	static const struct number_opt numbers[] = {
		{ "--ah", "ah" }, { "--dest-qp", "remote_qpn" }, { "--qkey", "remote_qkey" },
	};
	size_t n = sizeof(numbers) / sizeof(numbers[0]), given = 0;
	struct json_object *ud;

	for (size_t i = 0; i < n; i++)
		given += arg_get(args, numbers[i].arg) != NULL;
	if (!given)
		return 0;
	if (given != n)
		return ctl_usage_error("%s: a UD send needs --ah, --dest-qp and --qkey", args->path), -1;
	ud = json_object_new_object();
	json_object_object_add(params, "ud", ud);
	return add_numbers(ctl, args, numbers, n, ud);
}

/* --key (local_inv) or --inv-key (send_inv): the key the WR invalidates, as invalidate. */
static int add_invalidate(struct ctl *ctl, const struct cmd_args *args, struct json_object *params)
{
	static const struct { const char *arg, *opcode; } keys[] = {
		{ "--key", "local_inv" }, { "--inv-key", "send_inv" },
	};
	const char *opcode = arg_get(args, "OPCODE");

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (!arg_get(args, keys[i].arg))
			continue;
		if (strcmp(opcode, keys[i].opcode) != 0)
			return ctl_usage_error("%s: %s goes with %s, not %s", args->path, keys[i].arg,
					       keys[i].opcode, opcode), -1;
		return ctl_add_number(ctl, args, keys[i].arg, params, "invalidate", UINT32_MAX);
	}
	return 0;
}

/* configure: --mkey and the setters of `mkey configure`, as mkey and configure; only with it. */
static int add_configure(struct ctl *ctl, const struct cmd_args *args, struct json_object *params)
{
	struct json_object *configure;
	int r;

	if (strcmp(arg_get(args, "OPCODE"), "configure") != 0) {
		if (arg_get(args, "--mkey") || mkey_configure_given(args))
			return ctl_usage_error("%s: --mkey and the configure options go with configure, "
					       "not %s", args->path, arg_get(args, "OPCODE")), -1;
		return 0;
	}
	if (!arg_get(args, "--mkey"))
		return ctl_usage_error("%s: configure needs --mkey", args->path), -1;
	configure = json_object_new_object();
	json_object_object_add(params, "configure", configure);
	r = mkey_configure_params(ctl, args, configure);
	if (r != 0)
		return r;
	/* ctl_add_number says 1 when it added the number: that is no failure here. */
	return ctl_add_number(ctl, args, "--mkey", params, "mkey", UINT32_MAX) < 0 ? -EINVAL : 0;
}

static int qp_post(struct ctl *ctl, const struct cmd_args *args)
{
	static const char *const flags[][2] = {
		{ "--signaled", "signaled" }, { "--fence", "fence" }, { "--solicited", "solicited" },
	};
	struct json_object *params = ctl_device_params(args);
	const char *remote = arg_get(args, "--remote");
	uint64_t rv[2];
	int r;

	json_object_object_add(params, "opcode", json_object_new_string(arg_get(args, "OPCODE")));
	/* KEY:OFFSET into a region of this device, KEY@ADDR an address of the peer's. */
	bool at = remote && strchr(remote, '@');
	char spec[64] = "", *sep;

	if (remote && strlen(remote) < sizeof(spec)) {
		strcpy(spec, remote);
		if ((sep = strchr(spec, '@')))
			*sep = ':';
	}
	if (remote && !split_numbers(spec, rv, 2)) {
		json_object_put(params);
		return ctl_usage_error("%s: --remote %s: KEY:OFFSET or KEY@ADDR, two numbers", args->path,
				       remote);
	}
	if (remote) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "key", json_object_new_int64((int64_t)rv[0]));
		json_object_object_add(o, at ? "addr" : "offset", json_object_new_int64((int64_t)rv[1]));
		json_object_object_add(params, "remote", o);
	}
	r = add_sges(args, params);
	if (r == 0 && (ctl_add_number(ctl, args, "QP", params, "handle", UINT32_MAX) < 0 ||
		       ctl_add_number(ctl, args, "--wrid", params, "wr_id", INT64_MAX) < 0 ||
		       ctl_add_number(ctl, args, "--imm", params, "imm", UINT32_MAX) < 0 ||
		       add_invalidate(ctl, args, params) < 0))
		r = -EINVAL;
	/* A --config file that cannot be read is a failure, not a usage error. */
	if (r == 0)
		r = add_configure(ctl, args, params);
	if (r) {
		json_object_put(params);
		return r == -EIO ? -EIO : -EINVAL;
	}
	if (arg_get(args, "--inline"))
		json_object_object_add(params, "inline", json_object_new_string(arg_get(args, "--inline")));
	if (add_ud(ctl, args, params) < 0) {
		json_object_put(params);
		return -EINVAL;
	}
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if (arg_flag(args, flags[i][0]))
			json_object_object_add(params, flags[i][1], json_object_new_boolean(true));
	return ctl_call_quiet(ctl, args, IFACE ".PostSend", params);
}

static int qp_post_recv(struct ctl *ctl, const struct cmd_args *args)
{
	struct json_object *params = ctl_device_params(args);

	if (add_sges(args, params) ||
	    ctl_add_number(ctl, args, "QP", params, "handle", UINT32_MAX) < 0 ||
	    ctl_add_number(ctl, args, "--wrid", params, "wr_id", INT64_MAX) < 0) {
		json_object_put(params);
		return -EINVAL;
	}
	return ctl_call_quiet(ctl, args, IFACE ".PostRecv", params);
}

/* --file FILE ("-": stdin): a JSON array of send WRs, each as PostSend's parameters. */
static int qp_post_list(struct ctl *ctl, const struct cmd_args *args)
{
	const char *path = arg_get(args, "--file");
	struct json_object *params = ctl_device_params(args), *wrs = NULL;
	int r;

	if (ctl_add_number(ctl, args, "QP", params, "handle", UINT32_MAX) < 0) {
		json_object_put(params);
		return -EINVAL;
	}
	r = ctl_read_json_file(args->path, "--file", path, 16 << 20, json_type_array, &wrs);
	if (r < 0) {
		json_object_put(params);
		return r;
	}
	json_object_object_add(params, "wrs", wrs);
	return ctl_call_quiet(ctl, args, IFACE ".PostSendList", params);
}

/* Prints the count of WRs canceled, alone. */
static int qp_cancel(struct ctl *ctl, const struct cmd_args *args)
{
	struct json_object *params = ctl_device_params(args);

	if (ctl_add_number(ctl, args, "QP", params, "handle", UINT32_MAX) < 0 ||
	    ctl_add_number(ctl, args, "--wrid", params, "wr_id", INT64_MAX) < 0) {
		json_object_put(params);
		return -EINVAL;
	}
	return output_call_value(ctl, args, IFACE ".Cancel", params, "count");
}

static int qp_recover(struct ctl *ctl, const struct cmd_args *args)
{
	struct json_object *params = ctl_device_params(args);

	if (ctl_add_number(ctl, args, "QP", params, "handle", UINT32_MAX) < 0) {
		json_object_put(params);
		return -EINVAL;
	}
	return output_call_records(ctl, args, IFACE ".Recover", params, "recovery", "recovery");
}

static const char *const states[] = { "reset", "init", "rtr", "rts", "sqd", "sqe", "err", NULL };
static const char *const types[] = { "rc", "uc", "ud", NULL };
static const char *const mtus[] = { "256", "512", "1024", "2048", "4096", NULL };

static const char *const opcodes[] = {
	"send", "send_imm", "write", "write_imm", "read", "local_inv", "send_inv", "configure", NULL,
};
static const char *const policies[] = { "manual", "auto", NULL };

static const struct cmd_arg dev_only[] = { CMD_ARG_DEV, { NULL } };
#define ARG_SGE(what) { .name = "--sge", .kind = ARG_OPTION, .metavar = "KEY:OFFSET:LENGTH", \
			.repeat = true, .help = what }
static const struct cmd_arg post_args[] = {
	{ .name = "QP", .kind = ARG_POSITIONAL, .help = "the QP number", .required = true },
	{ .name = "OPCODE", .kind = ARG_POSITIONAL, .help = "the WR's opcode", .required = true,
	  .values = opcodes },
	ARG_SGE("memory to send, write or read into: LENGTH bytes at OFFSET of the MR of lkey KEY"),
	{ .name = "--remote", .kind = ARG_OPTION, .metavar = "KEY:OFFSET|KEY@ADDR",
	  .help = "the peer's memory (write, write_imm, read): rkey and offset in its MR, or rkey and the peer's address (its MR's iova plus an offset: a QP connected to another host)" },
	{ .name = "--imm", .kind = ARG_OPTION, .metavar = "N",
	  .help = "immediate data, 32 bits (send_imm, write_imm)" },
	{ .name = "--key", .kind = ARG_OPTION, .metavar = "KEY",
	  .help = "local_inv: the MR or MKEY key to invalidate" },
	{ .name = "--inv-key", .kind = ARG_OPTION, .metavar = "KEY",
	  .help = "send_inv: the MKEY key the receiver invalidates" },
	{ .name = "--mkey", .kind = ARG_OPTION, .metavar = "MKEY",
	  .help = "configure: the MKEY to configure (with the options of `mkey configure`)" },
	MKEY_CONFIGURE_ARGS,
	{ .name = "--inline", .kind = ARG_OPTION, .metavar = "HEX",
	  .help = "the bytes to send or write, inline (up to max_inline_data), instead of --sge" },
	{ .name = "--ah", .kind = ARG_OPTION, .metavar = "AH",
	  .help = "UD: the address handle the message goes to" },
	{ .name = "--dest-qp", .kind = ARG_OPTION, .metavar = "QPN", .help = "UD: the destination QP" },
	{ .name = "--qkey", .kind = ARG_OPTION, .metavar = "QKEY",
	  .help = "UD: the Q_Key (bit 31 set: the QP's own)" },
	{ .name = "--wrid", .kind = ARG_OPTION, .metavar = "N", .help = "the WR's id (default 0)" },
	{ .name = "--signaled", .kind = ARG_FLAG, .help = "complete with a CQE when it succeeds" },
	{ .name = "--fence", .kind = ARG_FLAG, .help = "wait for earlier RDMA READs to finish" },
	{ .name = "--solicited", .kind = ARG_FLAG,
	  .help = "ask for a solicited event at the receiver (send, send_imm, write_imm)" },
	CMD_ARG_DEV, { NULL },
};
static const struct cmd_arg post_recv_args[] = {
	{ .name = "QP", .kind = ARG_POSITIONAL, .help = "the QP number", .required = true },
	ARG_SGE("where a message lands: LENGTH bytes at OFFSET of the MR of lkey KEY"),
	{ .name = "--wrid", .kind = ARG_OPTION, .metavar = "N", .help = "the WR's id (default 0)" },
	CMD_ARG_DEV, { NULL },
};
static const struct cmd_arg show_args[] = {
	{ .name = "QP", .kind = ARG_POSITIONAL, .help = "the QP number (default: all)" },
	CMD_ARG_DEV, { NULL },
};
static const struct cmd_arg destroy_args[] = {
	{ .name = "QP", .kind = ARG_POSITIONAL, .help = "the QP number", .required = true },
	CMD_ARG_DEV, { NULL },
};
static const struct cmd_arg create_args[] = {
	{ .name = "--pd", .kind = ARG_OPTION, .metavar = "PD", .required = true,
	  .help = "the protection domain" },
	{ .name = "--send-cq", .kind = ARG_OPTION, .metavar = "CQ", .required = true,
	  .help = "the CQ send completions go to" },
	{ .name = "--recv-cq", .kind = ARG_OPTION, .metavar = "CQ", .required = true,
	  .help = "the CQ receive completions go to (may be the send CQ)" },
	{ .name = "--type", .kind = ARG_OPTION, .metavar = "TYPE", .required = true, .values = types,
	  .help = "reliable connected, unreliable connected or unreliable datagram" },
	{ .name = "--max-send-wr", .kind = ARG_OPTION, .metavar = "N",
	  .help = "send WRs outstanding, up to max_qp_wr (default 64)" },
	{ .name = "--max-recv-wr", .kind = ARG_OPTION, .metavar = "N",
	  .help = "receive WRs outstanding, up to max_qp_wr (default 64)" },
	{ .name = "--max-send-sge", .kind = ARG_OPTION, .metavar = "N",
	  .help = "SGEs per send WR, up to the device's max_send_sge (default 1)" },
	{ .name = "--max-recv-sge", .kind = ARG_OPTION, .metavar = "N",
	  .help = "SGEs per receive WR, up to the device's max_recv_sge (default 1)" },
	{ .name = "--max-inline-data", .kind = ARG_OPTION, .metavar = "N",
	  .help = "bytes a send WR may carry inline, up to max_inline_data (default 0)" },
	{ .name = "--sq-sig-all", .kind = ARG_FLAG,
	  .help = "every send WR completes with a CQE, signaled or not" },
	{ .name = "--sig-pipelining", .kind = ARG_FLAG,
	  .help = "stop in SQD after a WR whose transfer fails a signature check (needs sqd2rts)" },
	{ .name = "--recovery", .kind = ARG_OPTION, .metavar = "POLICY", .values = policies,
	  .help = "who takes a stopped QP back to RTS: manual (qp recover) or auto (rdmad, at once); "
		  "default: rdmad.conf's recovery" },
	{ .name = "--cpu", .kind = ARG_OPTION, .metavar = "CPU",
	  .help = "run the QP on the dataplane worker of this CPU (one of rdmad --cpus); "
		  "default: with the QP it connects to, else round robin" },
	CMD_ARG_DEV, { NULL },
};
static const struct cmd_arg post_list_args[] = {
	{ .name = "QP", .kind = ARG_POSITIONAL, .help = "the QP number", .required = true },
	{ .name = "--file", .kind = ARG_OPTION, .metavar = "FILE", .required = true,
	  .help = "a JSON array of send WRs, each with the keys of io.rdmad.Qp.PostSend "
		  "(opcode, wr_id, sges, remote, ...); - reads stdin" },
	CMD_ARG_DEV, { NULL },
};
static const struct cmd_arg cancel_args[] = {
	{ .name = "QP", .kind = ARG_POSITIONAL, .help = "the QP number (in SQD)", .required = true },
	{ .name = "--wrid", .kind = ARG_OPTION, .metavar = "N", .required = true,
	  .help = "the wr_id of the posted send WRs to turn into NOPs" },
	CMD_ARG_DEV, { NULL },
};
static const struct cmd_arg modify_args[] = {
	{ .name = "QP", .kind = ARG_POSITIONAL, .help = "the QP number", .required = true },
	{ .name = "--state", .kind = ARG_OPTION, .metavar = "STATE", .required = true,
	  .values = states, .help = "the state to move to" },
	{ .name = "--cur-state", .kind = ARG_OPTION, .metavar = "STATE", .values = states,
	  .help = "the state the QP must be in (RTR, RTS, SQD, SQE -> RTS)" },
	{ .name = "--access", .kind = ARG_OPTION, .metavar = "FLAGS",
	  .help = "remote access, comma-separated: local_write, remote_write, remote_read" },
	{ .name = "--qkey", .kind = ARG_OPTION, .metavar = "N", .help = "Q_Key (UD)" },
	{ .name = "--dgid", .kind = ARG_OPTION, .metavar = "GID",
	  .help = "address vector: destination GID, IPv6 text or IPv4 (RC, UC)" },
	{ .name = "--sgid-index", .kind = ARG_OPTION, .metavar = "N",
	  .help = "address vector: source GID index of port 1 (with --dgid)" },
	{ .name = "--flow-label", .kind = ARG_OPTION, .metavar = "N",
	  .help = "address vector: flow label, 20 bits (default 0)" },
	{ .name = "--hop-limit", .kind = ARG_OPTION, .metavar = "N",
	  .help = "address vector: hop limit / IP TTL (default 64)" },
	{ .name = "--traffic-class", .kind = ARG_OPTION, .metavar = "N",
	  .help = "address vector: traffic class (default 0)" },
	{ .name = "--dmac", .kind = ARG_OPTION, .metavar = "MAC",
	  .help = "address vector: destination MAC (default: left to the transport)" },
	{ .name = "--path-mtu", .kind = ARG_OPTION, .metavar = "BYTES", .values = mtus,
	  .help = "path MTU (RC, UC)" },
	{ .name = "--timeout", .kind = ARG_OPTION, .metavar = "N",
	  .help = "ACK timeout 4.096 us * 2^N, 0-31; 0 waits forever (RC)" },
	{ .name = "--retry-cnt", .kind = ARG_OPTION, .metavar = "N", .help = "retries, 0-7 (RC)" },
	{ .name = "--rnr-retry", .kind = ARG_OPTION, .metavar = "N",
	  .help = "RNR retries, 0-7; 7 retries forever (RC)" },
	{ .name = "--rq-psn", .kind = ARG_OPTION, .metavar = "PSN",
	  .help = "first PSN expected, 24 bits (RC, UC)" },
	{ .name = "--sq-psn", .kind = ARG_OPTION, .metavar = "PSN", .help = "first PSN sent, 24 bits" },
	{ .name = "--max-rd-atomic", .kind = ARG_OPTION, .metavar = "N",
	  .help = "RDMA reads/atomics in flight as initiator, up to max_qp_init_rd_atom (RC)" },
	{ .name = "--max-dest-rd-atomic", .kind = ARG_OPTION, .metavar = "N",
	  .help = "RDMA reads/atomics in flight as responder, up to max_qp_rd_atom (RC)" },
	{ .name = "--min-rnr-timer", .kind = ARG_OPTION, .metavar = "N",
	  .help = "RNR NAK timer code, 0-31 (RC)" },
	{ .name = "--dest-qp", .kind = ARG_OPTION, .metavar = "QPN",
	  .help = "the remote QP number, 24 bits (RC, UC)" },
	CMD_ARG_DEV, { NULL },
};

const struct cmd cmd_qp[] = {
	{ .name = "show", .summary = "Show queue pairs: state, CQs, capabilities, attributes",
	  .args = show_args, .run = qp_show, .is_default = true },
	{ .name = "list", .summary = "List queue pairs", .args = dev_only, .run = qp_list },
	{ .name = "create", .summary = "Create a queue pair (in RESET)", .args = create_args,
	  .run = qp_create },
	{ .name = "modify", .summary = "Move a queue pair to a state, setting attributes",
	  .args = modify_args, .run = qp_modify },
	{ .name = "destroy", .spelled_out = true, .summary = "Destroy a queue pair", .args = destroy_args,
	  .run = qp_destroy },
	{ .name = "post", .summary = "Post a send WR (send, send_imm, write, write_imm, read, "
	  "local_inv, send_inv, configure)",
	  .args = post_args, .run = qp_post },
	{ .name = "post-recv", .summary = "Post a receive WR", .args = post_recv_args,
	  .run = qp_post_recv },
	{ .name = "post-list", .summary = "Post several send WRs under one doorbell (all or none)",
	  .args = post_list_args, .run = qp_post_list },
	{ .name = "cancel", .summary = "Turn posted send WRs with a wr_id into NOPs (QP in SQD); "
	  "prints how many", .args = cancel_args, .run = qp_cancel },
	{ .name = "recover", .summary = "Recover a QP a signature error stopped in SQD: check, "
	  "cancel, back to RTS", .args = destroy_args, .run = qp_recover },
	{ NULL },
};
