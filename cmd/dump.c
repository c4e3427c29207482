/* SPDX-License-Identifier: MIT */
/*
 * rdmactl dump: what users configured on the daemon, in the format `rdmactl
 * apply` takes, so that `rdmactl dump | rdmactl apply -` changes nothing.
 * DEKs appear by name and key file; no key material exists on this side to
 * print, and a DEK whose key file is not known says so in its note.
 */
#include "cmd/provision.h"
#include "cmd/output.h"

#include <stdio.h>

int cmd_dump_run(struct ctl *ctl, const struct cmd_args *args)
{
	struct prov_config now;
	struct json_object *doc;
	int r = prov_read_daemon(ctl, args->path, &now);

	if (r < 0)
		return r;
	doc = prov_to_json(&now);
	/* A file for people to keep and edit: indented unless -j alone asks for one line. */
	puts(json_object_to_json_string_ext(doc, JSON_C_TO_STRING_NOSLASHESCAPE |
		(ctl->json && !ctl->pretty ? JSON_C_TO_STRING_PLAIN :
		 JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED)));
	fflush(stdout);
	json_object_put(doc);
	prov_config_free(&now);
	return 0;
}

const struct cmd_arg cmd_dump_args[] = { { NULL } };
