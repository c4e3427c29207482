/* SPDX-License-Identifier: MIT */
/*
 * The global options that may stand anywhere among a command's words
 * (`rdmactl qp show 2 -j`), as systemctl's do: one place that knows them, for
 * the command line, batch lines and shell lines alike.
 */
#include "cmd/rdmactl.h"
#include "cmd/output.h"

#include <errno.h>
#include <string.h>

const char *const ctl_global_option_words[] = {
	"-j", "--json", "-p", "--pretty", "-d", "--details", "-q", "--quiet", "-s", "--socket",
	"--no-legend", "--no-pager", NULL,
};

void ctl_set_global_option(struct ctl *ctl, char letter, const char *value)
{
	switch (letter) {
	case 'j':
		ctl->json = true;
		if (!ctl->quiet)
			ctl->out = &output_json;
		break;
	case 'q':
		ctl->quiet = true;
		ctl->out = &output_quiet;
		break;
	case 'p':
		ctl->pretty = true;
		break;
	case 'd':
		ctl->details = true;
		break;
	case 's':
		/* A socket other than the connected one's: the next call connects to it. */
		if (!value)
			break;
		if (ctl->socket_path && strcmp(ctl->socket_path, value) != 0)
			ctl_disconnect(ctl);
		ctl->socket_path = value;
		break;
	}
}

/* "-jpdq": each letter one flag; false if a letter is not one. */
static bool short_flags(struct ctl *ctl, const char *w)
{
	if (w[0] != '-' || !w[1] || strspn(w + 1, "jpdq") != strlen(w + 1))
		return false;
	for (const char *c = w + 1; ctl && *c; c++)
		ctl_set_global_option(ctl, *c, NULL);
	return true;
}

int ctl_global_option(struct ctl *ctl, int argc, char **argv, int i)
{
	const char *w = argv[i];

	if (strcmp(w, "--json") == 0 || strcmp(w, "--pretty") == 0 || strcmp(w, "--details") == 0 ||
	    strcmp(w, "--quiet") == 0) {
		char letter[3] = { '-', w[2], '\0' };

		return short_flags(ctl, letter) ? 1 : 0;
	}
	/*
	 * As systemd's tools take them.  rdmactl has no pager and prints no
	 * legend (header or footer) around a list, so both change nothing;
	 * scripts written for systemctl and resolvectl run as they are.
	 */
	if (strcmp(w, "--no-legend") == 0 || strcmp(w, "--no-pager") == 0)
		return 1;
	if (short_flags(ctl, w))
		return 1;
	if (strncmp(w, "--socket=", 9) == 0) {
		if (ctl)
			ctl_set_global_option(ctl, 's', w + 9);
		return 1;
	}
	if (strcmp(w, "-s") != 0 && strcmp(w, "--socket") != 0)
		return 0;
	if (i + 1 >= argc)
		return ctl ? ctl_usage_error("%s needs a value (PATH)", w) : 1;
	if (ctl)
		ctl_set_global_option(ctl, 's', argv[i + 1]);
	return 2;
}
