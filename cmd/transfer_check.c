/* SPDX-License-Identifier: MIT */
/*
 * What a transfer's bytes turned out to be, said where a script and a person
 * both see it: a signature error on standard error with its own exit status
 * (the bytes are still delivered, as the hardware delivers them), and input
 * that ends inside a block as a warning.
 */
#include "cmd/rdmactl.h"
#include "cmd/progress.h"
#include "dataplane/offload/transform.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

int ctl_report_sig_error(const char *path, const char *err_type, uint64_t expected,
			 uint64_t actual, uint64_t offset)
{
	if (!err_type || strcmp(err_type, "none") == 0)
		return 0;
	progress_hide();
	fprintf(stderr, "rdmactl: %s: signature error: %s expected 0x%" PRIx64 " actual 0x%" PRIx64
		" at offset %" PRIu64 "\n", path, err_type, expected, actual, offset);
	return -EBADMSG;
}

int ctl_report_sig_error_json(const char *path, struct json_object *rec)
{
	struct json_object *v;

	if (!rec || !json_object_is_type(rec, json_type_object))
		return 0;
	return ctl_report_sig_error(
		path,
		json_object_object_get_ex(rec, "err_type", &v) ? json_object_get_string(v) : NULL,
		json_object_get_uint64(json_object_object_get(rec, "expected_value")),
		json_object_get_uint64(json_object_object_get(rec, "actual_value")),
		json_object_get_uint64(json_object_object_get(rec, "offset")));
}

void ctl_warn_partial_block(const char *path, const struct dp_transform_cfg *cfg,
			    bool input_on_wire, size_t len)
{
	const struct dp_sig_domain *input = input_on_wire ? &cfg->wire : &cfg->mem;
	const struct dp_sig_domain *other = input_on_wire ? &cfg->mem : &cfg->wire;
	size_t block, field = 0, rest;

	/* Without a signature of its own, the input is cut in the other domain's data blocks. */
	if (dp_sig_present(input))
		field = dp_sig_field_size(input);
	else if (dp_sig_present(other))
		input = other;
	else
		return;
	block = input->block_size + field;
	rest = len % block;
	if (!rest)
		return;
	progress_hide();
	fprintf(stderr, "rdmactl: %s: warning: the input (%zu bytes) is not whole blocks: "
		"it ends %zu bytes into a block of %zu bytes", path, len, rest, block);
	if (field)
		fprintf(stderr, " (%" PRIu32 " data + %zu signature)", input->block_size, field);
	fputc('\n', stderr);
}
