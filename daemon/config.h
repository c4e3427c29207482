/* SPDX-License-Identifier: MIT */
/* rdmad.conf(5): "key = value" lines; '#' starts a comment. */
#pragma once

#include <stddef.h>

#define RDMAD_CONFIG_PATH "/etc/rdmad/rdmad.conf"

struct rdmad_config {
	int log_level;
	unsigned max_connections;
	unsigned max_connections_per_uid;
};

void config_defaults(struct rdmad_config *config);
/*
 * Reads path over the defaults.  A missing file is no error.  On a bad line
 * returns -EINVAL with "FILE:LINE: what" in err, and config is left untouched.
 */
int config_load(const char *path, struct rdmad_config *config, char *err, size_t err_size);
