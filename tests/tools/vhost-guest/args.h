/* SPDX-License-Identifier: MIT */
/*
 * args.h - one command line of vhost-guest's input: words, positional and
 * key=value, read with checks that name the field and what it allows, so a
 * bad line says what is wrong and the program goes on.  Every key=value word
 * must be taken by the command: args_done names one that was not.
 */
#ifndef VHOST_GUEST_ARGS_H
#define VHOST_GUEST_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ARGS_MAX	64

struct args {
	unsigned n;
	char *word[ARGS_MAX];
	bool taken[ARGS_MAX];
	char err[256];
};

/* A name for a value or a bit (access flags, QP types, states ...). */
struct name_value {
	const char *name;
	uint32_t value;
};

/* Splits line in place at blanks; -1 (err set) for too many words. */
int args_split(struct args *a, char *line);

/* The i-th word that is not key=value after the command (1-based), or NULL. */
const char *args_pos(struct args *a, unsigned i);
bool args_has(const struct args *a, const char *key);

/* Each returns 0, or -1 with a->err naming the field and what it takes.
 * With required false, an absent key leaves *v alone and returns 0. */
int args_num(struct args *a, const char *key, bool required, uint64_t max, uint64_t *v);
int args_u32(struct args *a, const char *key, bool required, uint32_t max, uint32_t *v);
int args_u8(struct args *a, const char *key, bool required, uint8_t max, uint8_t *v);
int args_str(struct args *a, const char *key, bool required, const char **v);
int args_enum(struct args *a, const char *key, bool required, const struct name_value *t,
	      uint32_t *v);
/* A comma-separated list of names whose bits are or-ed; "0" is none. */
int args_flags(struct args *a, const char *key, bool required, const struct name_value *t,
	       uint32_t *v);
int args_gid(struct args *a, const char *key, bool required, uint8_t gid[16]);
int args_mac(struct args *a, const char *key, bool required, uint8_t mac[6]);
/* The next value of a key that may repeat (sge=...), from *iter on; NULL at the end. */
const char *args_next(struct args *a, const char *key, unsigned *iter);
/* -1 with err for the first key=value word or extra positional no one took. */
int args_done(struct args *a, unsigned positional);

/* Plain parsers, for values inside a word. */
int parse_num(const char *s, uint64_t *v);	/* decimal or 0x hex, whole string */
/* Hex text (an even number of digits) into out; the byte count, or -1. */
long parse_hex(const char *s, uint8_t *out, size_t max);
int parse_gid(const char *s, uint8_t gid[16]);	/* IPv6 text; IPv4 becomes ::ffff:a.b.c.d */

/* "a,b,c" of the table's names. */
void names_list(const struct name_value *t, char *out, size_t len);

#endif
