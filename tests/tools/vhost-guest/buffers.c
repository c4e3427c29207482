/* SPDX-License-Identifier: MIT */
/*
 * buffers.c - named guest buffers for the data path: alloc (pages
 * contiguous in guest-physical memory, or scattered over both regions),
 * fill, pattern, check and dump.  A buffer's guest-virtual address is this
 * program's choice, from 0x7f0000000000 on, as a guest process would have
 * one; REG_USER_MR maps it to the pages.
 */
#include "guest.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GUEST_VA_FIRST	0x7f0000000000ull
#define DUMP_MAX	65536

struct gbuf *gbuf_find(struct guest *g, const char *name)
{
	struct gbuf *b;

	for (b = g->bufs; b; b = b->next)
		if (!strcmp(b->name, name))
			return b;
	return NULL;
}

/* Copies between p and [off, off+len) of b, one page at a time. */
void gbuf_forget_all(struct guest *g)
{
	while (g->bufs) {
		struct gbuf *b = g->bufs;

		g->bufs = b->next;
		free(b->pages);
		free(b);
	}
}

static int gbuf_copy(struct guest *g, struct gbuf *b, uint64_t off, void *p, size_t len, bool in)
{
	uint8_t *cursor = p;

	if (off > b->bytes || len > b->bytes - off)
		return -ERANGE;
	while (len) {
		uint64_t page = off / GUEST_PAGE, in_page = off % GUEST_PAGE;
		size_t n = GUEST_PAGE - in_page < len ? GUEST_PAGE - in_page : len;
		uint8_t *host = guest_mem_host(&g->mem, b->pages[page] + in_page, n);

		if (in)
			memcpy(host, cursor, n);
		else
			memcpy(cursor, host, n);
		cursor += n;
		off += n;
		len -= n;
	}
	return 0;
}

int gbuf_copy_in(struct guest *g, struct gbuf *b, uint64_t off, const void *src, size_t len)
{
	return gbuf_copy(g, b, off, (void *)src, len, true);
}

int gbuf_copy_out(struct guest *g, struct gbuf *b, uint64_t off, void *dst, size_t len)
{
	return gbuf_copy(g, b, off, dst, len, false);
}

int gbuf_addr(struct guest *g, const char *text, uint64_t *addr)
{
	char name[sizeof(((struct gbuf *)0)->name)];
	const char *plus = strchr(text, '+');
	size_t len = plus ? (size_t)(plus - text) : strlen(text);
	uint64_t off = 0;
	struct gbuf *b;

	if (parse_num(text, addr) == 0)
		return 0;
	if (len >= sizeof(name) || (plus && parse_num(plus + 1, &off) < 0))
		return -EINVAL;
	memcpy(name, text, len);
	name[len] = 0;
	b = gbuf_find(g, name);
	if (!b)
		return -ENOENT;
	*addr = b->va + off;
	return 0;
}

static int cmd_alloc(struct guest *g, struct args *a)
{
	const char *name = args_pos(a, 1), *size = args_pos(a, 2), *how = args_pos(a, 3);
	bool scatter = false;
	uint64_t bytes;
	struct gbuf *b;
	size_t i;

	if (!name || !size)
		return reply_fail(g, "usage: alloc NAME BYTES [scatter]");
	if (how && strcmp(how, "scatter"))
		return reply_fail(g, "alloc: '%s' is not 'scatter'", how);
	scatter = how != NULL;
	if (strlen(name) >= sizeof(b->name) || strchr(name, ':') || strchr(name, '+'))
		return reply_fail(g, "alloc: NAME '%s' must be shorter than %zu and hold no ':' or '+'",
				  name, sizeof(b->name));
	if (gbuf_find(g, name))
		return reply_fail(g, "alloc: a buffer named '%s' exists", name);
	if (parse_num(size, &bytes) < 0 || bytes == 0 || bytes > g->mem.bytes / 2)
		return reply_fail(g, "alloc: BYTES '%s' is not a number 1..%zu", size, g->mem.bytes / 2);
	if (args_done(a, 3) < 0)
		return reply_fail(g, "%s", a->err);
	b = calloc(1, sizeof(*b));
	if (!b)
		return reply_errno(g, "alloc", ENOMEM);
	strcpy(b->name, name);
	b->bytes = bytes;
	b->npages = (bytes + GUEST_PAGE - 1) / GUEST_PAGE;
	b->pages = calloc(b->npages, sizeof(*b->pages));
	if (!b->pages)
		goto full;
	if (!scatter && guest_mem_alloc(&g->mem, b->npages, &b->pages[0]) == 0) {
		for (i = 1; i < b->npages; i++)
			b->pages[i] = b->pages[0] + i * GUEST_PAGE;
	} else if (scatter) {
		/* Alternating regions: no two neighbours are neighbours in guest-physical memory. */
		for (i = 0; i < b->npages; i++) {
			if (guest_mem_alloc_in(&g->mem, i % GUEST_REGIONS, &b->pages[i]) < 0) {
				while (i--)
					guest_mem_free(&g->mem, b->pages[i], 1);
				goto full;
			}
		}
	} else {
		goto full;
	}
	if (!g->next_va)
		g->next_va = GUEST_VA_FIRST;
	b->va = g->next_va;
	g->next_va += (b->npages + 1) * GUEST_PAGE;	/* a hole between buffers */
	b->next = g->bufs;
	g->bufs = b;
	return reply_ok("name=%s va=0x%" PRIx64 " bytes=%" PRIu64 " pages=%zu pa=0x%" PRIx64, name,
			b->va, bytes, b->npages, b->pages[0]);
full:
	free(b->pages);
	free(b);
	return reply_fail(g, "alloc: guest memory full (--mem)");
}

/* NAME OFFSET as the first two words; -1 replied. */
static int buffer_at(struct guest *g, struct args *a, const char *usage, struct gbuf **b,
		     uint64_t *off)
{
	const char *name = args_pos(a, 1), *o = args_pos(a, 2);

	if (!name || !o)
		return reply_fail(g, "usage: %s", usage);
	*b = gbuf_find(g, name);
	if (!*b)
		return reply_fail(g, "no buffer named '%s' (see alloc)", name);
	if (parse_num(o, off) < 0 || *off > (*b)->bytes)
		return reply_fail(g, "OFFSET '%s' is not a number 0..%" PRIu64, o, (*b)->bytes);
	return 0;
}

static int cmd_fill(struct guest *g, struct args *a)
{
	static uint8_t bytes[DUMP_MAX];
	const char *hex = args_pos(a, 3);
	struct gbuf *b;
	uint64_t off;
	long len;

	if (buffer_at(g, a, "fill NAME OFFSET HEX", &b, &off) < 0)
		return -1;
	if (!hex || (len = parse_hex(hex, bytes, sizeof(bytes))) < 0)
		return reply_fail(g, "fill: HEX is an even number of hex digits (at most %d bytes)",
				  DUMP_MAX);
	if (args_done(a, 3) < 0)
		return reply_fail(g, "%s", a->err);
	if (gbuf_copy_in(g, b, off, bytes, (size_t)len) < 0)
		return reply_fail(g, "fill: %ld bytes at %" PRIu64 " run past %s's %" PRIu64, len, off,
				  b->name, b->bytes);
	return reply_ok("%s", "");
}

/* The pattern's byte i for seed: the same bytes wherever they are written. */
static uint8_t pattern_byte(uint64_t seed, uint64_t i)
{
	uint64_t x = (i + 1) * 0x9e3779b97f4a7c15ull ^ (seed + 1) * 0xc2b2ae3d27d4eb4full;

	x ^= x >> 29;
	return (uint8_t)(x * 0x94d049bb133111ebull >> 56);
}

/* pattern and check share their words: NAME OFFSET LEN SEED. */
static int pattern_words(struct guest *g, struct args *a, const char *usage, struct gbuf **b,
			 uint64_t *off, uint64_t *len, uint64_t *seed)
{
	const char *l = args_pos(a, 3), *s = args_pos(a, 4);

	if (buffer_at(g, a, usage, b, off) < 0)
		return -1;
	if (!l || !s || parse_num(l, len) < 0 || parse_num(s, seed) < 0)
		return reply_fail(g, "usage: %s (numbers)", usage);
	if (*len > (*b)->bytes - *off)
		return reply_fail(g, "LEN %" PRIu64 " at %" PRIu64 " runs past %s's %" PRIu64, *len,
				  *off, (*b)->name, (*b)->bytes);
	if (args_done(a, 4) < 0)
		return reply_fail(g, "%s", a->err);
	return 0;
}

static int cmd_pattern(struct guest *g, struct args *a)
{
	uint64_t off, len, seed, i;
	struct gbuf *b;

	if (pattern_words(g, a, "pattern NAME OFFSET LEN SEED", &b, &off, &len, &seed) < 0)
		return -1;
	for (i = 0; i < len; i++) {
		uint8_t byte = pattern_byte(seed, i);

		gbuf_copy_in(g, b, off + i, &byte, 1);
	}
	return reply_ok("%s", "");
}

static int cmd_check(struct guest *g, struct args *a)
{
	uint64_t off, len, seed, i;
	struct gbuf *b;

	if (pattern_words(g, a, "check NAME OFFSET LEN SEED", &b, &off, &len, &seed) < 0)
		return -1;
	for (i = 0; i < len; i++) {
		uint8_t byte;

		gbuf_copy_out(g, b, off + i, &byte, 1);
		if (byte != pattern_byte(seed, i))
			return reply_fail(g, "mismatch at offset %" PRIu64 ": 0x%02x, pattern 0x%02x",
					  off + i, byte, pattern_byte(seed, i));
	}
	return reply_ok("%s", "");
}

static int cmd_dump(struct guest *g, struct args *a)
{
	static uint8_t bytes[DUMP_MAX];
	const char *l = args_pos(a, 3);
	struct gbuf *b;
	uint64_t off, len;

	if (buffer_at(g, a, "dump NAME OFFSET LEN", &b, &off) < 0)
		return -1;
	if (!l || parse_num(l, &len) < 0 || len > DUMP_MAX)
		return reply_fail(g, "dump: LEN is a number 0..%d", DUMP_MAX);
	if (args_done(a, 3) < 0)
		return reply_fail(g, "%s", a->err);
	if (gbuf_copy_out(g, b, off, bytes, len) < 0)
		return reply_fail(g, "dump: %" PRIu64 " bytes at %" PRIu64 " run past %s's %" PRIu64,
				  len, off, b->name, b->bytes);
	fputs("ok hex=", stdout);
	print_hex(bytes, len);
	putchar('\n');
	fflush(stdout);
	return 0;
}

const struct command buffer_commands[] = {
	{ "alloc", cmd_alloc },
	{ "fill", cmd_fill },
	{ "pattern", cmd_pattern },
	{ "check", cmd_check },
	{ "dump", cmd_dump },
	{ NULL, NULL },
};
