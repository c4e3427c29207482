/* SPDX-License-Identifier: MIT */
/* Byte buffers for NUL-framed messages, shared by the varlink server and client. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

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
/* Makes room for at least n more bytes at data + len. */
int varlink_buffer_reserve(struct varlink_buffer *b, size_t n);
int varlink_buffer_append(struct varlink_buffer *b, const void *data, size_t n);
/*
 * Returns the next NUL-terminated message (pointer into the buffer, valid until
 * the buffer changes) and its length without the NUL, or NULL when none is complete.
 */
const char *varlink_buffer_next_message(struct varlink_buffer *b, size_t *len);
void varlink_buffer_consume(struct varlink_buffer *b, size_t n);

/*
 * Parses one message as strict UTF-8 JSON, which must be a single object filling
 * the whole message.  Returns NULL otherwise.
 */
struct json_object *varlink_parse_message(const char *msg, size_t len);
/* Appends obj and the NUL terminator. */
int varlink_buffer_append_message(struct varlink_buffer *b, struct json_object *obj);
