/* SPDX-License-Identifier: MIT */
/*
 * rdmactl dek: data encryption keys and the crypto login.  Key files and
 * credential files are read by the daemon, not here: rdmactl sends their
 * paths.  Only "--key-file -" makes rdmactl read key bytes (from stdin); they
 * are held in locked memory and wiped once sent.
 */
#include "cmd/rdmactl.h"
#include "cmd/output.h"
#include "lib/io.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define IFACE "io.rdmad.Dek"
/* More than any key material (a wrapped AES-256-XTS key with keytag is 80 bytes). */
#define STDIN_KEY_MAX 128

static const char *const size_words[] = { "128", "256", NULL };
static const char *const import_words[] = { "plaintext", "wrapped", NULL };

/* DEK is a handle when it is all digits (names start with a letter), else a name. */
static struct json_object *dek_params(const struct cmd_args *args)
{
	struct json_object *params = ctl_device_params(args);
	const char *dek = arg_get(args, "DEK");
	char *end;
	unsigned long long handle = strtoull(dek, &end, 10);

	if (*dek && !*end && dek[0] != '-' && handle <= UINT32_MAX)
		json_object_object_add(params, "handle", json_object_new_int64((int64_t)handle));
	else
		json_object_object_add(params, "name", json_object_new_string(dek));
	return params;
}

/*
 * The daemon reads the file, with its own working directory: a relative path
 * is made absolute here, without resolving links (the daemon refuses a link).
 */
static int add_path(const struct cmd_args *args, const char *arg, struct json_object *params,
		    const char *key)
{
	const char *path = arg_get(args, arg);
	char cwd[PATH_MAX], full[2 * PATH_MAX];

	if (path[0] == '/') {
		json_object_object_add(params, key, json_object_new_string(path));
		return 0;
	}
	if (!getcwd(cwd, sizeof(cwd)))
		return ctl_fail("%s: %s: cannot find the working directory: %s", args->path, arg,
				strerror(errno));
	snprintf(full, sizeof(full), "%s/%s", cwd, path);
	json_object_object_add(params, key, json_object_new_string(full));
	return 0;
}

/*
 * "--key-file -": the key bytes from stdin, copied into a memfd that is passed
 * with the call (its index goes as "key_fd").  The key travels in no message,
 * so neither side's varlink or JSON buffers ever hold it; the one copy here is
 * in locked memory and wiped.  *fd stays open for the call.
 */
static int add_stdin_key(struct ctl *ctl, const struct cmd_args *args, struct json_object *params,
			 int *fd)
{
	static uint8_t key[STDIN_KEY_MAX];
	size_t n = 0;
	int r;

	mlock(key, sizeof(key));
	r = read_all(STDIN_FILENO, key, sizeof(key), &n);
	if (r == -EFBIG)
		r = ctl_usage_error("%s: --key-file: stdin holds more than %d bytes, more than any key",
				    args->path, STDIN_KEY_MAX);
	else if (r < 0)
		r = ctl_fail("%s: --key-file: cannot read stdin: %s", args->path, strerror(-r));
	if (r == 0) {
		*fd = memfd_create("rdmactl-key", MFD_CLOEXEC);
		r = *fd < 0 ? -errno : write_all(*fd, key, n);
		if (r < 0)
			r = ctl_fail("%s: --key-file: cannot hand the key over: %s", args->path,
				     strerror(-r));
		else
			json_object_object_add(params, "key_fd",
					       json_object_new_int(ctl_pass_fd(ctl, args->path, *fd)));
	}
	explicit_bzero(key, sizeof(key));
	return r;
}

static void add_string(const struct cmd_args *args, const char *arg, struct json_object *params,
		       const char *key)
{
	if (arg_get(args, arg))
		json_object_object_add(params, key, json_object_new_string(arg_get(args, arg)));
}

static int dek_create(struct ctl *ctl, const struct cmd_args *args)
{
	struct json_object *params = ctl_device_params(args);
	const char *key_file = arg_get(args, "--key-file");
	int r, fd = -1;

	json_object_object_add(params, "name", json_object_new_string(arg_get(args, "NAME")));
	json_object_object_add(params, "size", json_object_new_int(atoi(arg_get(args, "--size"))));
	add_string(args, "--import", params, "import");
	add_string(args, "--keytag", params, "keytag");
	add_string(args, "--opaque", params, "opaque");
	ctl_add_lend(args, "--allow", params, "allow");
	if (arg_get(args, "--pd") && ctl_add_number(ctl, args, "--pd", params, "pd", UINT32_MAX) < 0)
		r = -EINVAL;
	else if (strcmp(key_file, "-") == 0)
		r = add_stdin_key(ctl, args, params, &fd);
	else
		r = add_path(args, "--key-file", params, "key_file");
	if (r == 0)
		r = output_call_records(ctl, args, IFACE ".Create", params, "dek", "dek");
	else
		json_object_put(params);
	if (fd >= 0)
		close(fd);
	return r;
}

static int dek_show(struct ctl *ctl, const struct cmd_args *args)
{
	if (!arg_get(args, "DEK"))
		return output_call_records(ctl, args, IFACE ".List", ctl_device_params(args), "deks", "dek");
	return output_call_records(ctl, args, IFACE ".Show", dek_params(args), "dek", "dek");
}

static int dek_list(struct ctl *ctl, const struct cmd_args *args)
{
	return output_call_list(ctl, args, IFACE ".List", ctl_device_params(args), "deks", "dek");
}

static int dek_destroy(struct ctl *ctl, const struct cmd_args *args)
{
	return ctl_call_quiet(ctl, args, IFACE ".Destroy", dek_params(args));
}

static int dek_modify(struct ctl *ctl, const struct cmd_args *args)
{
	struct json_object *params = dek_params(args);

	if (!arg_count(args, "--allow") && !arg_count(args, "--disallow")) {
		json_object_put(params);
		return ctl_usage_error("%s: nothing to change: give --allow or --disallow", args->path);
	}
	ctl_add_lend(args, "--allow", params, "allow");
	ctl_add_lend(args, "--disallow", params, "disallow");
	return output_call_records(ctl, args, IFACE ".Modify", params, "dek", "dek");
}

static int dek_login(struct ctl *ctl, const struct cmd_args *args)
{
	struct json_object *params = ctl_device_params(args);
	int r = add_path(args, "--credential-file", params, "credential_file");

	if (r != 0) {
		json_object_put(params);
		return r;
	}
	add_string(args, "--kek", params, "kek");
	return output_call_records(ctl, args, IFACE ".Login", params, "login", "login");
}

static int dek_logout(struct ctl *ctl, const struct cmd_args *args)
{
	return ctl_call_quiet(ctl, args, IFACE ".Logout", ctl_device_params(args));
}

static int dek_login_state(struct ctl *ctl, const struct cmd_args *args)
{
	return output_call_records(ctl, args, IFACE ".GetLogin", ctl_device_params(args), "login",
				   "login");
}

#define ARG_DEK(req) { .name = "DEK", .kind = ARG_POSITIONAL, .required = req, \
		       .help = "the DEK's name or handle" }

static const struct cmd_arg dev_only[] = { CMD_ARG_DEV, { NULL } };
static const struct cmd_arg show_args[] = { ARG_DEK(false), CMD_ARG_DEV, { NULL } };
static const struct cmd_arg destroy_args[] = { ARG_DEK(true), CMD_ARG_DEV, { NULL } };
static const struct cmd_arg create_args[] = {
	{ .name = "NAME", .kind = ARG_POSITIONAL, .required = true,
	  .help = "a new DEK's name: a letter, then letters, digits, '_', '.', '-'" },
	{ .name = "--size", .kind = ARG_OPTION, .metavar = "BITS", .required = true,
	  .values = size_words, .help = "AES-128-XTS or AES-256-XTS" },
	{ .name = "--key-file", .kind = ARG_OPTION, .metavar = "FILE", .required = true,
	  .help = "the key material (owned by root, mode 0600 or stricter), which the daemon reads "
		  "now and at every start; '-': from stdin, not persistent" },
	{ .name = "--import", .kind = ARG_OPTION, .metavar = "METHOD", .values = import_words,
	  .help = "plaintext (default): key1||key2; wrapped: AES-KW under the login's import KEK" },
	{ .name = "--keytag", .kind = ARG_OPTION, .metavar = "HEX",
	  .help = "plaintext import: the keytag MKEYs must give, 16 hex digits" },
	{ .name = "--opaque", .kind = ARG_OPTION, .metavar = "HEX",
	  .help = "8 bytes kept with the DEK, 16 hex digits (default zeros)" },
	{ .name = "--pd", .kind = ARG_OPTION, .metavar = "PD",
	  .help = "the protection domain whose MKEYs may use it (default: any)" },
	CMD_ARG_ALLOW("a user or @group whose programs may use it besides root (repeat, or "
		      "comma-separated)"),
	CMD_ARG_DEV, { NULL },
};
static const struct cmd_arg modify_args[] = {
	ARG_DEK(true),
	CMD_ARG_ALLOW("let this user or @group's programs use it too (repeat, or comma-separated)"),
	CMD_ARG_DISALLOW("take back what --allow gave (repeat, or comma-separated)"),
	CMD_ARG_DEV, { NULL },
};
static const struct cmd_arg login_args[] = {
	{ .name = "--credential-file", .kind = ARG_OPTION, .metavar = "FILE", .required = true,
	  .help = "the device's credential wrapped with the import KEK (48 bytes; owned by root, "
		  "mode 0600 or stricter)" },
	{ .name = "--kek", .kind = ARG_OPTION, .metavar = "NAME",
	  .help = "the import KEK, import_kek.NAME in rdmad.conf (default: the only one)" },
	CMD_ARG_DEV, { NULL },
};

const struct cmd cmd_dek[] = {
	{ .name = "show", .summary = "Show DEKs: size, keytag, import, key file, state (never the key)",
	  .args = show_args, .run = dek_show, .is_default = true },
	{ .name = "list", .summary = "List DEKs", .args = dev_only, .run = dek_list },
	{ .name = "create", .summary = "Create a DEK from a key file", .args = create_args,
	  .run = dek_create },
	{ .name = "destroy", .spelled_out = true, .summary = "Destroy a DEK no MKEY uses, wiping its key",
	  .args = destroy_args, .run = dek_destroy },
	{ .name = "modify", .summary = "Change which users and groups may use a DEK besides root",
	  .args = modify_args, .run = dek_modify },
	{ .name = "login", .summary = "Open the crypto login that wrapped imports need",
	  .args = login_args, .run = dek_login },
	{ .name = "logout", .summary = "End the crypto login", .args = dev_only, .run = dek_logout },
	{ .name = "login-state", .summary = "Show the crypto login state", .args = dev_only,
	  .run = dek_login_state },
	{ NULL },
};
