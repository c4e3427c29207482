/* SPDX-License-Identifier: MIT */
/*
 * rdmactl: one command table (object → command → arguments) drives parsing,
 * help at every level, prefix abbreviations, the readline shell and shell
 * completion.  Each object lives in its own file and exports its table.
 */
#pragma once

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

#define RDMACTL_SOCKET_DEFAULT "/run/rdmad/io.rdmad"

/*
 * Exit codes (rdmactl(8) EXIT STATUS).  Commands and the builders of their
 * parameters return 0 or a negative errno, having printed what went wrong:
 * -EINVAL is a usage error (found here or by the daemon's parameter check),
 * -EBADMSG a transfer that ran and found a signature error, any other a
 * failure; cmd_exit_code() is the one place that turns them into exit codes.
 */
enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2, EXIT_SIGNATURE = 3 };

struct ctl;
struct cmd_args;

/* Completion candidates for an argument's value, one callback per kind of value. */
typedef void (*cmd_complete_fn)(struct ctl *ctl, const char *prefix,
				void (*add)(void *data, const char *word), void *data);

enum cmd_arg_kind {
	ARG_POSITIONAL,   /* "DEV" */
	ARG_OPTION,       /* "--size N" or "--size=N" */
	ARG_FLAG,         /* "--force" */
};

struct cmd_arg {
	const char *name;            /* "DEV" or "--size" */
	enum cmd_arg_kind kind;
	const char *metavar;         /* for options: "N" */
	const char *help;
	bool required;
	bool repeat;                 /* may be given several times (positional: takes the rest) */
	const char *const *values;   /* the allowed words, NULL-terminated, or NULL for any */
	cmd_complete_fn complete;
};

struct cmd {
	const char *name;
	const char *summary;
	const struct cmd *sub;       /* a table ending with { NULL } */
	const struct cmd_arg *args;  /* a table ending with { NULL } */
	int (*run)(struct ctl *ctl, const struct cmd_args *args);   /* 0 or a negative errno */
	bool is_default;             /* runs when its parent is given no command */
	bool spelled_out;            /* destructive: never run from an abbreviation */
	bool raw_args;               /* run gets the words unparsed (offload's own parser) */
};

#define CMD_ARGS_MAX 32
#define CMD_VALUES_MAX 64

struct cmd_args {
	const struct cmd *cmd;
	const char *path;                        /* "dev show" */
	unsigned count[CMD_ARGS_MAX];            /* times each arg was given */
	const char *value[CMD_ARGS_MAX][CMD_VALUES_MAX];
	int argc;                                /* raw_args commands */
	char **argv;
};

/* Values of parsed arguments, looked up by their name in the command's table. */
const char *arg_get(const struct cmd_args *a, const char *name);
unsigned arg_count(const struct cmd_args *a, const char *name);
const char *arg_get_nth(const struct cmd_args *a, const char *name, unsigned n);
bool arg_flag(const struct cmd_args *a, const char *name);
/* Parses an unsigned number (decimal or 0x hex) within [min, max]; a usage error otherwise. */
/* A number as typed: 0x... hexadecimal, anything else decimal (a leading 0 too). */
uint64_t ctl_strtou64(const char *s, char **end);
int arg_get_u64(struct ctl *ctl, const struct cmd_args *a, const char *name, uint64_t min,
		uint64_t max, uint64_t *out);

/* ---- the tree ---- */

extern const struct cmd cmd_root[];
extern const struct cmd cmd_dev[];
extern const struct cmd cmd_daemon[];
extern const struct cmd cmd_pd[];
extern const struct cmd cmd_mr[];
extern const struct cmd cmd_cq[];
extern const struct cmd cmd_qp[];
extern const struct cmd cmd_ah[];
extern const struct cmd cmd_gid[];
extern const struct cmd cmd_offload[];
extern const struct cmd_arg cmd_monitor_args[];
extern const struct cmd cmd_mkey[];

/*
 * The setters of `mkey configure`, shared with `qp post configure` (a
 * configure WR): their options, whether one is given, and the parameters of
 * io.rdmad.Mkey.Configure they make (added to params).
 */
#define MKEY_CONFIGURE_ARGS \
	{ .name = "--layout", .kind = ARG_OPTION, .metavar = "MR:OFFSET:LENGTH", .repeat = true, \
	  .help = "a list layout entry: LENGTH bytes at OFFSET of MR (repeat for more entries)" }, \
	{ .name = "--interleave", .kind = ARG_OPTION, .metavar = "MR:OFFSET:COUNT:SKIP", .repeat = true, \
	  .help = "an interleaved layout entry: COUNT bytes per round, then SKIP bytes skipped" }, \
	{ .name = "--repeat", .kind = ARG_OPTION, .metavar = "N", \
	  .help = "rounds of an interleaved layout (default 1)" }, \
	{ .name = "--access", .kind = ARG_OPTION, .metavar = "FLAGS", .complete = mkey_complete_access, \
	  .help = "comma-separated: local_write, remote_write, remote_read, remote_atomic, or none" }, \
	{ .name = "--config", .kind = ARG_OPTION, .metavar = "FILE", \
	  .help = "signature and crypto as JSON, the file `rdmactl offload` takes" }, \
	{ .name = "--dek", .kind = ARG_OPTION, .metavar = "DEK", \
	  .help = "the DEK of the crypto member of --config: its name or handle" }, \
	{ .name = "--keytag", .kind = ARG_OPTION, .metavar = "HEX", \
	  .help = "the keytag to check against the DEK's, 16 hex digits" }, \
	{ .name = "--reset-sig", .kind = ARG_FLAG, \
	  .help = "remove the signature first (RESET_SIG_ATTR)" }
void mkey_complete_access(struct ctl *ctl, const char *prefix,
			  void (*add)(void *data, const char *word), void *data);
bool mkey_configure_given(const struct cmd_args *args);
int mkey_configure_params(struct ctl *ctl, const struct cmd_args *args, struct json_object *params);
extern const struct cmd cmd_pool[];
extern const struct cmd cmd_dek[];
extern const struct cmd cmd_vnic[];
extern const struct cmd cmd_vdev[];

int cmd_status_run(struct ctl *ctl, const struct cmd_args *args);
/* Declarative provisioning (cmd/apply.c, cmd/dump.c; cmd/provision.h). */
extern const struct cmd_arg cmd_apply_args[];
int cmd_apply_run(struct ctl *ctl, const struct cmd_args *args);
extern const struct cmd_arg cmd_dump_args[];
int cmd_dump_run(struct ctl *ctl, const struct cmd_args *args);
int cmd_monitor_run(struct ctl *ctl, const struct cmd_args *args);

/*
 * Runs one command line; returns an exit code.  Global options among its
 * words (-j, -p, -d, -s PATH) apply to this line only.
 */
int cmd_dispatch(struct ctl *ctl, int argc, char **argv);
/*
 * The global option at argv[i] (-j, --json, -p, --pretty, -d, --details, -q,
 * --quiet, -s PATH, --socket PATH, --socket=PATH, or short ones together, -jp), applied
 * to ctl when ctl is not NULL: the words it takes, 0 when argv[i] is none, or
 * -EINVAL after a usage error.
 */
int ctl_global_option(struct ctl *ctl, int argc, char **argv, int i);
/* Sets global option letter ('j', 'p', 'd', 'q', or 's' with its value) wherever it was given. */
void ctl_set_global_option(struct ctl *ctl, char letter, const char *value);
/*
 * The commands of path ("-": standard input), one per line as on the command
 * line after the global options; blank lines and lines starting with '#'
 * are skipped.  Stops at the first that fails and returns its exit code;
 * with force, runs them all and returns the last failure's.
 */
int batch_run(struct ctl *ctl, const char *path, bool force);
/* "rdmactl: NAME:LINE: the command failed (exit status N); stopping" (or not, when going on). */
void batch_say_failed(const char *name, unsigned lineno, int status, bool going_on);
/* Splits a line on blanks, '...' and "..." grouping words; the count, or -1 if over max. */
int split_words(char *line, char **words, int max);
/* 0 or a negative errno as an exit code: -EINVAL is EXIT_USAGE, any other EXIT_FAIL. */
int cmd_exit_code(int r);
/* Candidates for the last word of words[0..n-1] (the word being typed, maybe ""). */
void cmd_complete(struct ctl *ctl, int n, char **words,
		  void (*add)(void *data, const char *word), void *data);
/*
 * Candidates for a value the table names by kind (cmd/complete_values.c):
 * an argument shown as FILE takes file names, one shown as PD, MR, CQ, QP,
 * AH, MKEY, DEK, PORT or POOL the daemon's live objects of that kind.
 */
/* The live objects of kind word (PD, MR, ..., POOL) that start with prefix, from the daemon. */
void cmd_complete_objects(struct ctl *ctl, const char *word, const char *prefix,
			  void (*add)(void *data, const char *word), void *data);
void cmd_complete_by_kind(struct ctl *ctl, const struct cmd_arg *a, const char *prefix,
			  void (*add)(void *data, const char *word), void *data);
/* Names in prefix's directory that start as its last part does; directories end in '/'. */
void cmd_complete_file_names(const char *prefix, void (*add)(void *data, const char *word),
			     void *data);
/* The global options a line may hold (cmd/options.c), for completion. */
extern const char *const ctl_global_option_words[];
/* Help for a table of commands; path names it ("" for the top). */
void cmd_help(const struct cmd *table, const char *path);

/* ---- context ---- */

struct output;
struct varlink_client;

#define CTL_PASS_FDS_MAX 4

struct ctl {
	const char *socket_path;
	/* -H [USER@]HOST: socket_path is that host's, reached through ssh (cmd/remote.h). */
	const char *host;
	bool json;
	bool pretty;
	bool details;
	/* -q: no records on stdout (output_quiet), no progress line; -j does not undo it. */
	bool quiet;
	bool interactive;
	/*
	 * One command on the command line: its connection ends with it (not so
	 * in the shell and in batch mode, which keep one connection).
	 */
	bool one_shot;
	/* Set by the shell's SIGINT handler: a wait for the daemon ends (-EINTR). */
	const volatile sig_atomic_t *interrupt;
	const struct output *out;
	struct varlink_client *client;   /* connected on first use */
	struct json_object *doc;         /* JSON output being gathered */
	int pass_fd[CTL_PASS_FDS_MAX];   /* borrowed: they go with the next call */
	unsigned n_pass_fds;
};

/*
 * Calls method; on success *reply holds the parameters (caller puts it).
 * A varlink error is printed ("rdmactl: PATH: ERROR: details") and gives -EBADE;
 * a connection failure is printed and gives its -errno.
 */
int ctl_call(struct ctl *ctl, const char *path, const char *method, struct json_object *params,
	     struct json_object **reply);
/* Same, reporting a varlink error as the daemon sent it, for callers that map errors. */
int ctl_call_raw(struct ctl *ctl, const char *method, struct json_object *params,
		 struct json_object **reply, char **error);
/*
 * Calls method with "more": fn(reply, data) for each reply until the last (a
 * negative return stops and gives it).  Errors are printed as ctl_call does.
 */
int ctl_call_more(struct ctl *ctl, const char *path, const char *method, struct json_object *params,
		  int (*fn)(struct json_object *reply, void *data), void *data);
/*
 * Says what the daemon refused (stderr, and the JSON output), as ctl_call
 * does; takes error and params.  -EINVAL for a usage error, else -EBADE.
 */
int ctl_report_error(struct ctl *ctl, const char *path, const char *method, char *error,
		     struct json_object *params);
void ctl_disconnect(struct ctl *ctl);
/* "rdmactl: cannot connect to PATH: why" on stderr, for r from connecting to socket_path. */
void ctl_say_connect_error(const char *socket_path, int r);
/*
 * fd goes with the next call, passed (SCM_RIGHTS): the daemon gets the open
 * file itself, whatever PID namespace either side is in.  Returns its index
 * among the call's descriptors, which is what the call's parameter names;
 * fd stays the caller's.  -EBADF (said on stderr) when fd is not open here.
 */
int ctl_pass_fd(struct ctl *ctl, const char *path, int fd);
/* A whole text file (at most max bytes; -EILSEQ if it holds a NUL), as a string. */
int ctl_read_text_file(const char *path, size_t max, char **text);
/*
 * The JSON value of type want in the file option names ("-": standard input),
 * at most max bytes; said on stderr as "rdmactl: CMD: OPTION PATH: ...".
 * Every command reading a JSON file agrees: a file that cannot be read is a
 * failure (-EIO, exit 1); one that is not JSON, or not a want, is a usage
 * error (-EINVAL, exit 2), as the daemon's refusal of the same text would be.
 */
int ctl_read_json_file(const char *cmd_path, const char *option, const char *path, size_t max,
		       json_type want, struct json_object **value);
/*
 * The next cap bytes of fd into buf, fewer only at its end (*got); 0 or
 * -errno (-EINTR: interrupted, in the shell by Ctrl-C).
 */
int ctl_read_chunk(int fd, uint8_t *buf, size_t cap, size_t *got);
/*
 * The bytes left to read in fd when it is a regular file, whose size is known
 * before reading it (a pipe's is not: false).
 */
bool ctl_input_size(int fd, uint64_t *size);

/* Prints "rdmactl: " + message to stderr and returns -EINVAL (usage) / -EIO (failure). */
int ctl_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int ctl_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The "--dev DEV" option every object command takes. */
#define CMD_ARG_DEV { .name = "--dev", .kind = ARG_OPTION, .metavar = "DEV", \
		      .help = "the device (default: the first)", .complete = complete_devices }

/* New call parameters: {"device": DEV} when --dev was given, else {}. */
struct json_object *ctl_device_params(const struct cmd_args *args);
/* Adds key = the number given for arg (up to max); a usage error otherwise. */
int ctl_add_number(struct ctl *ctl, const struct cmd_args *args, const char *arg,
		   struct json_object *params, const char *key, uint64_t max);

/*
 * Device objects (cmd/object.c).  "OBJ show [HANDLE]": IFACE.Show of the
 * handle given for arg, else IFACE.List; records labelled one, the list's
 * key many.
 */
int ctl_object_show(struct ctl *ctl, const struct cmd_args *args, const char *arg,
		    const char *iface, const char *one, const char *many);
/* IFACE.Destroy of the handle given for arg. */
int ctl_object_destroy(struct ctl *ctl, const struct cmd_args *args, const char *arg,
		       const char *iface);
/*
 * "--opt a,b" as params[key] = ["a", "b"]; "none" is the empty list, and so
 * is no --opt.  A usage error listing words for a word not in words (NULL
 * ended).
 */
int ctl_add_words(const struct cmd_args *args, const char *opt, const char *const *words,
		  struct json_object *params, const char *key);
/* Completes the word of words after the last comma of prefix. */
void ctl_complete_words(const char *const *words, const char *prefix,
			void (*add)(void *data, const char *word), void *data);
/*
 * Who root lends a DEK or a pool to (cmd/lend.c): "--allow"/"--disallow"
 * USER or @GROUP, repeated or comma-separated, as params[key], a list; no
 * option: nothing added.  The daemon checks the names.
 */
void ctl_add_lend(const struct cmd_args *args, const char *opt, struct json_object *params,
		  const char *key);
#define CMD_ARG_ALLOW(what) { .name = "--allow", .kind = ARG_OPTION, .metavar = "USER|@GROUP", \
			      .repeat = true, .help = what }
#define CMD_ARG_DISALLOW(what) { .name = "--disallow", .kind = ARG_OPTION, \
				 .metavar = "USER|@GROUP", .repeat = true, .help = what }
/* Calls method with params (consumed), printing nothing but an error; 0 or a negative errno. */
int ctl_call_quiet(struct ctl *ctl, const struct cmd_args *args, const char *method,
		   struct json_object *params);

/* The "--output FILE" option of the commands that print bytes. */
#define CMD_ARG_OUTPUT { .name = "--output", .kind = ARG_OPTION, .metavar = "FILE", \
			 .help = "write the bytes to FILE (standard output: only when not a terminal)" }
/*
 * The descriptor the bytes go to: --output's file, else standard output
 * unless it is a terminal (a usage error).  Closed by ctl_binary_output_close().
 */
int ctl_binary_output_open(const struct cmd_args *args, int *fd);
int ctl_binary_output_close(const struct cmd_args *args, int fd);
/* The bytes on standard input: a usage error when it is a terminal. */
int ctl_binary_input_check(const struct cmd_args *args);

/*
 * A transfer's signature error (err_type "none" is none) said on stderr:
 * -EBADMSG (EXIT_SIGNATURE) when there is one, else 0.  The _json form takes
 * the mkey-check record as the daemon and `offload --report` write it.
 */
int ctl_report_sig_error(const char *path, const char *err_type, uint64_t expected,
			 uint64_t actual, uint64_t offset);
int ctl_report_sig_error_json(const char *path, struct json_object *rec);
struct dp_transform_cfg;
/*
 * A warning on stderr when len bytes of input (wire bytes, or memory bytes)
 * are not whole blocks of the configuration's signature.
 */
void ctl_warn_partial_block(const char *path, const struct dp_transform_cfg *cfg,
			    bool input_on_wire, size_t len);

/* Completion of device names, from the daemon. */
void complete_devices(struct ctl *ctl, const char *prefix,
		      void (*add)(void *data, const char *word), void *data);

/*
 * The interactive shell.  Its lines from what is not a terminal (a pipe, a
 * file) are a script's: the first that fails stops it, as in batch mode.
 */
int shell_run(struct ctl *ctl);
/* The shell's history file (cmd/shell_history.c): read at start, each line appended as run. */
void shell_history_open(void);
void shell_history_add(const char *line);
void shell_history_close(void);
