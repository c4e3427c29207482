/* SPDX-License-Identifier: MIT */
/* rdmactl qp: queue pairs and their state machine. */
#include "cmd/rdmactl.h"
#include "cmd/output.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define IFACE "io.rdmad.Qp"

/* Typed in lower case; the API spells states and types as the kernel does. */
static void add_upper(struct json_object *params, const char *key, const char *word)
{
	char buf[16];
	size_t i;

	for (i = 0; word[i] && i + 1 < sizeof(buf); i++)
		buf[i] = (char)toupper((unsigned char)word[i]);
	buf[i] = '\0';
	json_object_object_add(params, key, json_object_new_string(buf));
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
	return output_call_records(ctl, args, IFACE ".List", ctl_device_params(args), "qps", "qp");
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
		return EXIT_USAGE;
	}
	add_upper(params, "type", arg_get(args, "--type"));
	if (arg_flag(args, "--sq-sig-all"))
		json_object_object_add(params, "sq_sig_all", json_object_new_boolean(true));
	if (arg_flag(args, "--sig-pipelining"))
		json_object_object_add(params, "sig_pipelining", json_object_new_boolean(true));
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

static int qp_modify(struct ctl *ctl, const struct cmd_args *args)
{
	static const struct number_opt numbers[] = {
		{ "QP", "handle" }, { "--qkey", "qkey" }, { "--path-mtu", "path_mtu" },
		{ "--timeout", "timeout" }, { "--retry-cnt", "retry_cnt" },
		{ "--rnr-retry", "rnr_retry" }, { "--rq-psn", "rq_psn" }, { "--sq-psn", "sq_psn" },
		{ "--max-rd-atomic", "max_rd_atomic" },
		{ "--max-dest-rd-atomic", "max_dest_rd_atomic" },
		{ "--min-rnr-timer", "min_rnr_timer" }, { "--dest-qp", "dest_qp_num" },
	};
	struct json_object *params = ctl_device_params(args);

	if (add_numbers(ctl, args, numbers, sizeof(numbers) / sizeof(numbers[0]), params) < 0 ||
	    add_av(ctl, args, params) < 0) {
		json_object_put(params);
		return EXIT_USAGE;
	}
	add_upper(params, "state", arg_get(args, "--state"));
	if (arg_get(args, "--cur-state"))
		add_upper(params, "cur_state", arg_get(args, "--cur-state"));
	if (arg_get(args, "--access"))
		json_object_object_add(params, "access_flags", word_list(arg_get(args, "--access")));
	return ctl_call_quiet(ctl, args, IFACE ".Modify", params);
}

static int qp_destroy(struct ctl *ctl, const struct cmd_args *args)
{
	return ctl_object_destroy(ctl, args, "QP", IFACE);
}

static const char *const states[] = { "reset", "init", "rtr", "rts", "sqd", "sqe", "err", NULL };
static const char *const types[] = { "rc", "uc", "ud", NULL };
static const char *const mtus[] = { "256", "512", "1024", "2048", "4096", NULL };

static const struct cmd_arg dev_only[] = { CMD_ARG_DEV, { NULL } };
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
	  .help = "stop in SQD on a signature error (needs sqd2rts)" },
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
	{ .name = "destroy", .summary = "Destroy a queue pair", .args = destroy_args,
	  .run = qp_destroy },
	{ NULL },
};
