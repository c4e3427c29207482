/* SPDX-License-Identifier: MIT */
/*
 * Byte buffers for NUL-framed messages, shared by the varlink server and client.
 *
 * Messages may carry secrets (key material in a call's parameters), so a
 * buffer leaves no copy behind: what a move vacates and what is freed is
 * wiped first, and input is consumed with varlink_buffer_consume_wipe().
 * Buffers up to VARLINK_BUFFER_KEEP bytes come from malloc; larger ones are
 * mapped, so that freeing one gives its memory back to the kernel at once
 * (malloc would keep it for reuse) with nothing to wipe (the kernel zeroes
 * pages before it hands them out again).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

/* The least a buffer allocates, and the most it keeps from malloc. */
#define VARLINK_BUFFER_MIN  4096u
#define VARLINK_BUFFER_KEEP (64u * 1024)

struct varlink_buffer {
	char *data;
	size_t start;   /* consumed bytes before this offset */
	size_t len;     /* bytes in use from data[0] */
	size_t cap;
	size_t scanned; /* bytes after start already known to hold no NUL */
	uint64_t base;  /* where data[start] is in the stream: the bytes consumed so far */
};

void varlink_buffer_release(struct varlink_buffer *b);
size_t varlink_buffer_pending(const struct varlink_buffer *b);
/*
 * The capacity varlink_buffer_reserve(b, n) would leave b with (its
 * capacity now when the room is there), or SIZE_MAX when that is more than
 * memory can hold: what reserving would cost, asked before reserving.
 */
size_t varlink_buffer_capacity_for(const struct varlink_buffer *b, size_t n);
/* Makes room for at least n more bytes at data + len. */
int varlink_buffer_reserve(struct varlink_buffer *b, size_t n);
int varlink_buffer_append(struct varlink_buffer *b, const void *data, size_t n);
/*
 * Returns the next NUL-terminated message (pointer into the buffer, valid until
 * the buffer changes) and its length without the NUL, or NULL when none is complete.
 */
const char *varlink_buffer_next_message(struct varlink_buffer *b, size_t *len);
void varlink_buffer_consume(struct varlink_buffer *b, size_t n);
/* The same, wiping the n bytes first. */
void varlink_buffer_consume_wipe(struct varlink_buffer *b, size_t n);
/*
 * Gives back what a large message made b allocate: when b holds more than
 * keep bytes and its pending bytes fit in half of keep, they move to a
 * buffer of keep bytes.  Returns whether b shrank; -ENOMEM leaves b as it was.
 */
int varlink_buffer_shrink(struct varlink_buffer *b, size_t keep);

/*
 * Parses one message as strict UTF-8 JSON, which must be a single object filling
 * the whole message.  Returns NULL otherwise.
 */
struct json_object *varlink_parse_message(const char *msg, size_t len);
/*
 * Wipes the text of every string in obj, which must be no one else's: a
 * message's strings may be secrets, and json-c frees them as they are.
 */
void varlink_json_wipe_strings(struct json_object *obj);
/* Appends obj and the NUL terminator. */
int varlink_buffer_append_message(struct varlink_buffer *b, struct json_object *obj);
