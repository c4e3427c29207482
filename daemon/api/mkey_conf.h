/* SPDX-License-Identifier: MIT */
/*
 * The parameters of io.rdmad.Mkey.Configure as a field table, for Configure
 * itself and for a configure WR (io.rdmad.Qp.PostSend's configure object):
 * one parser, one set of checks.
 */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

#include "daemon/api/dispatch.h"
#include "daemon/verbs/mkey.h"

/* What Configure is given; api_mkey_conf_from_params() makes the model's configuration of it. */
struct configure_params {
	bool reset_sig_attr, has_access, has_layout, has_interleaved;
	uint32_t access;
	struct rdma_mkey_entry *layout;
	uint32_t n_layout;
	struct {
		uint32_t repeat_count;
		struct rdma_mkey_entry *entries;
		uint32_t n;
	} interleaved;
	struct json_object *config;
};

/* Configure's parameters but device and handle. */
extern const struct api_field api_mkey_configure_fields[];

/*
 * The model's configuration of p, made by caller (whom its DEK must be lent
 * to): the layout's entries move from p into conf (the caller frees
 * conf->layout.entries and wipes conf->crypto).  conf keeps caller.
 */
int api_mkey_conf_from_params(struct configure_params *p, const struct rdma_lend_caller *caller,
			      struct rdma_mkey_conf *conf, struct rdma_error *err);
