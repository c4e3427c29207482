/* SPDX-License-Identifier: MIT */
/*
 * A method's parameters by table: each handler describes its parameter struct
 * as an array of fields and api_dispatch() fills it.  The varlink layer has
 * checked the JSON types against the IDL already; the table adds what the IDL
 * cannot say: ranges, enum words as numbers, word lists as masks, nested
 * objects and lists.  A refusal names the field by its path ("attr.dest_qp_num",
 * "wrs[2].opcode") and leaves nothing to undo but api_dispatch_free().
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

#include "daemon/verbs/error.h"
#include "lib/varlink/varlink.h"

enum api_field_type {
	API_FIELD_U32,      /* uint32_t in [min, max] */
	API_FIELD_U64,      /* uint64_t in [min, max]; JSON numbers stop at INT64_MAX */
	API_FIELD_BOOL,     /* bool */
	API_FIELD_HANDLE,   /* uint32_t naming an object; a bad one is InvalidParameter */
	API_FIELD_ENUM,     /* unsigned or an enum member: the value in 0..max whose word() is the string */
	API_FIELD_FLAGS,    /* uint32_t: a list of words as the mask of the bits of max they name */
	API_FIELD_STRING,   /* const char *, borrowed from the parameters */
	API_FIELD_JSON,     /* struct json_object *, borrowed: parsed by someone else */
	API_FIELD_OBJECT,   /* a struct at offset, filled by the table fields */
	API_FIELD_LIST,     /* a calloc'ed array of size-byte structs filled by fields;
			     * its uint32_t length at count; min..max entries */
};

/*
 * One parameter.  Absent and null are the same: the struct keeps what the
 * handler put there (its default).
 */
struct api_field {
	const char *name;
	enum api_field_type type;
	size_t offset;
	/* API_GIVEN(): a bool the dispatcher sets when the field is there; 0 for none. */
	size_t given;
	/* Absent is refused with InvalidParameter. */
	bool required;
	/*
	 * Out of range is refused with org.varlink.service.InvalidParameter
	 * (the protocol's refusal, as for a handle) rather than the interface's
	 * InvalidArgument with a reason.
	 */
	bool invalid_parameter;
	/* U32, U64: bounds (max 0: the type's whole range); LIST: entries; ENUM: highest value; FLAGS: every bit. */
	uint64_t min, max;
	/* ENUM, FLAGS: the word of a value or bit, NULL for none. */
	const char *(*word)(unsigned value);
	/* OBJECT, LIST: the members, ending with { NULL }. */
	const struct api_field *fields;
	/* LIST: bytes of one entry, and where the entry count goes. */
	size_t size, count;
};

/* The offset of a "given" bool: offset 0 is a real member, so it is stored plus one. */
#define API_GIVEN(type, member) (offsetof(type, member) + 1)

/* Why the parameters were refused: the protocol's InvalidParameter or the interface's error. */
struct api_refusal {
	bool invalid_parameter;   /* org.varlink.service.InvalidParameter naming err.field */
	struct rdma_error err;    /* otherwise: InvalidArgument (or a system failure) */
};

/* Fills out from params by table; on a refusal r < 0 and *why says it.  No reply is sent. */
int api_fields_parse(struct json_object *params, const struct api_field *table, void *out,
		     struct api_refusal *why);

/*
 * Fills out from params by table; a refusal is answered (InvalidParameter, or
 * the calling interface's InvalidArgument) and gives a negative errno.
 */
int api_dispatch(struct varlink_call *call, struct json_object *params,
		 const struct api_field *table, void *out);

/* Frees the lists a dispatch of table allocated in out (also after a refusal). */
void api_dispatch_free(const struct api_field *table, void *out);
