/* SPDX-License-Identifier: MIT */
/* rdmactl status: the health summary, gathered once and printed as text or JSON. */
#include "cmd/status.h"
#include "cmd/output.h"

int cmd_status_run(struct ctl *ctl, const struct cmd_args *args)
{
	struct json_object *doc;
	int r = status_gather(ctl, args->path, &doc);

	if (r < 0)
		return r;
	if (ctl->json) {
		ctl->out->details(ctl, doc);
		ctl->out->end(ctl);
	} else {
		status_print_text(doc);
	}
	json_object_put(doc);
	return 0;
}
