/* SPDX-License-Identifier: MIT */
/*
 * What the parts of the MKEY transform share; not for its users (transform.h).
 *
 *   transform.c        the object: configuration, creation, the mkey-check record
 *   transform_plan.c   a transfer's plan: which domain goes in and out, what is crypted, lengths
 *   transform_steps.c  the block engine: data copied, guards computed, fields checked and built
 *   transform_run.c    one transfer: planned, sized, run through the engine, its error kept
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dataplane/offload/transform.h"

struct dp_transform {
	struct dp_transform_cfg cfg;
	uint8_t copy;                   /* copy mask in effect */
	struct dp_xts *xts;             /* NULL without crypto */
	struct dp_sig_err rec;          /* mkey-check record, read-and-clear */
	uint8_t *scratch;               /* input-crypto window */
	size_t chunk;                   /* bytes of data units crypted per window fill */
};

struct transform_plan {
	const struct dp_sig_domain *in, *out;   /* NULL when absent */
	uint32_t bin, bout;
	unsigned fin, fout;
	bool crypt_in, crypt_out, encrypt;
	bool in_mem;                            /* the input is the memory domain (TX) */
};

struct transform_run {
	struct dp_transform *t;
	const struct transform_plan *p;
	uint8_t *out;
	size_t opos;                    /* bytes of output written */
	size_t ocrypted;                /* bytes of output already crypted (output crypto) */
	uint64_t k_in, k_out;           /* block indexes */
	uint64_t fields_out;            /* output fields the transfer has room for (§2.1) */
	size_t ofill;                   /* data bytes in the current output block (general path) */
	uint64_t oacc;                  /* running guard of that block */
	uint8_t cmask;                  /* check mask bits relevant to the input field */
	bool chk_guard, gen_guard, shared, aligned, in_escapes;
	uint64_t cmask64, copy64;       /* the masks as byte masks over the field loaded LE */
	struct dp_sig_err e;            /* first error of this transfer */
};

/* The plan of a transfer in direction dir through t. */
void transform_plan_make(const struct dp_transform *t, enum dp_dir dir, struct transform_plan *p);

/* In *data the data bytes of a stream of len bytes (b-byte blocks, f-byte fields); false when
 * such a stream cannot end there (see transform_plan.c). */
bool transform_stream_data(uint32_t b, unsigned f, size_t len, bool field_always, size_t *data);

/* Stream bytes of data bytes; the last complete block brings its field only with last_field. */
size_t transform_stream_len(uint32_t b, unsigned f, size_t data, bool last_field);

/* The output length of an input of in_len bytes under plan p, or -EINVAL (field "input"). */
int transform_plan_lengths(const struct dp_transform *t, const struct transform_plan *p,
			   size_t in_len, bool last_field, size_t *out_len, struct dp_error *err);

/* r set up to write olen bytes to out under plan p (last_field as for transform_stream_len()). */
void transform_run_init(struct transform_run *r, struct dp_transform *t,
			const struct transform_plan *p, void *out, size_t olen, bool last_field);

/* Runs r's steps over in[0..in_len), by the path its plan allows; r->e holds the first
 * signature error. */
int transform_steps(struct transform_run *r, const uint8_t *in, size_t in_len,
		    struct dp_error *err);
