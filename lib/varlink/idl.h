/* SPDX-License-Identifier: MIT */
/*
 * The varlink interface definition language: parsed once, then used to check
 * values against a method's input type (every call) and output type (every
 * reply: a reply that does not match its description is logged).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <json-c/json.h>

enum idl_kind {
	IDL_BOOL, IDL_INT, IDL_FLOAT, IDL_STRING, IDL_OBJECT, IDL_ANY,
	IDL_STRUCT, IDL_ENUM, IDL_ARRAY, IDL_MAP, IDL_REF,
};

struct idl_type {
	enum idl_kind kind;
	bool nullable;
	struct idl_type *elem;    /* IDL_ARRAY, IDL_MAP */
	char *ref;                /* IDL_REF: a type name of the same interface */
	const struct idl_type *target; /* IDL_REF: that type, resolved when parsed */
	size_t n;                 /* IDL_STRUCT fields / IDL_ENUM values */
	char **names;
	struct idl_type **types;  /* IDL_STRUCT only */
};

enum idl_member_kind { IDL_MEMBER_TYPE, IDL_MEMBER_METHOD, IDL_MEMBER_ERROR };

struct idl_member {
	enum idl_member_kind kind;
	char *name;
	struct idl_type *in;      /* the type, the method's input, or the error's parameters */
	struct idl_type *out;     /* method output */
};

struct idl_interface {
	char *name;
	size_t n;
	struct idl_member *members;
};

/* On error returns -EINVAL and, if errmsg, a malloc'ed "line N: what" message. */
int idl_parse(const char *text, struct idl_interface **out, char **errmsg);
void idl_interface_free(struct idl_interface *iface);

const struct idl_member *idl_find(const struct idl_interface *iface, enum idl_member_kind kind,
				  const char *name);

/*
 * Checks value against type, one of a parsed interface (whose references to
 * its own types were resolved when it was parsed).  A NULL value means "absent".  On mismatch returns
 * -EINVAL and writes the dotted path of the offending field (e.g. "mem.bg") to
 * path; for a top-level struct the path is the parameter's name.
 */
int idl_validate(const struct idl_type *type, struct json_object *value, char *path,
		 size_t path_size);
/* The same for a call's parameters, whose ints must also fit int64. */
int idl_validate_call(const struct idl_type *type, struct json_object *value, char *path,
		      size_t path_size);
