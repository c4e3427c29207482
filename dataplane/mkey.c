/* SPDX-License-Identifier: MIT */
#include "dataplane/mkey.h"
#include "dataplane/counters.h"
#include "dataplane/keytab.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct dp_mkey *dp_mkey_new(unsigned n_workers)
{
	struct dp_mkey *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->n_counters = n_workers;
	if (n_workers && !(m->seen = aligned_alloc(64, n_workers * sizeof(*m->seen)))) {
		free(m);
		return NULL;
	}
	if (m->seen)
		memset(m->seen, 0, n_workers * sizeof(*m->seen));
	return m;
}

void dp_mkey_free(struct dp_mkey *m)
{
	if (!m)
		return;
	free(m->seen);
	for (unsigned i = 0; i < m->n_transforms; i++)
		dp_transform_destroy(m->transforms[i]);
	free(m->transforms);
	free(m->entries);
	free(m);
}

int dp_mkey_mem_length(const struct dp_mkey *m, unsigned worker, uint64_t wire_length,
		       uint64_t *mem_length)
{
	struct dp_mkey_length_seen *seen = worker < m->n_counters ? &m->seen[worker] : NULL;
	struct dp_error de;
	size_t mem;

	*mem_length = wire_length;
	if (!m->transforms || !wire_length)
		return 0;
	if (seen && seen->wire == wire_length) {
		*mem_length = seen->mem;
		return 0;
	}
	/* Wire to memory is the one-valued way (reference §2.1 "partial trailing block"). */
	if (dp_transform_out_len(m->transforms[0], DP_RX, wire_length, &mem, &de) < 0)
		return -EINVAL;
	*mem_length = mem;
	if (seen)
		*seen = (struct dp_mkey_length_seen){ .wire = wire_length, .mem = mem };
	return 0;
}

static int mem_offset(const struct dp_mkey *m, uint64_t wire_offset, uint64_t *mem_offset)
{
	struct dp_error de;
	size_t mem;

	*mem_offset = wire_offset;
	if (!m->transforms || !wire_offset)
		return 0;
	if (dp_transform_offset(m->transforms[0], wire_offset, &mem, &de) < 0)
		return -EINVAL;
	*mem_offset = mem;
	return 0;
}

int dp_mkey_span(const struct dp_mkey *m, unsigned worker, uint32_t pd, uint32_t access,
		 uint64_t wire_offset, uint64_t wire_length, uint64_t max_length, struct dp_mkey_span *out)
{
	if (!m->usable || m->pd != pd || (access & ~m->access))
		return -EPERM;
	if (wire_length > max_length || mem_offset(m, wire_offset, &out->mem_offset) < 0 ||
	    dp_mkey_mem_length(m, worker, wire_length, &out->mem_length) < 0 ||
	    out->mem_offset > m->length || out->mem_length > m->length - out->mem_offset)
		return -EINVAL;
	out->mkey = m;
	return 0;
}

/* fn(memory, n, data) for each piece of the span's bytes, in MKEY order. */
static void walk(const struct dp_mkey_span *s, void (*fn)(uint8_t *mem, size_t n, void *data), void *data)
{
	const struct dp_mkey *m = s->mkey;
	uint64_t offset = s->mem_offset, length = s->mem_length;

	for (uint32_t r = 0; r < m->rounds && length; r++)
		for (unsigned i = 0; i < m->n_entries && length; i++) {
			const struct dp_mkey_entry *e = &m->entries[i];
			uint64_t n;

			if (offset >= e->length) {
				offset -= e->length;
				continue;
			}
			n = e->length - offset < length ? e->length - offset : length;
			fn(e->addr + (uint64_t)r * (e->length + e->skip) + offset, n, data);
			offset = 0;
			length -= n;
		}
}

struct one_piece {
	uint8_t *addr;
	unsigned pieces;
};

static void note_piece(uint8_t *mem, size_t n, void *data)
{
	struct one_piece *o = data;

	(void)n;
	if (!o->pieces++)
		o->addr = mem;
}

uint8_t *dp_mkey_span_addr(const struct dp_mkey_span *s)
{
	struct one_piece o = { 0 };

	walk(s, note_piece, &o);
	return o.pieces == 1 ? o.addr : NULL;
}

static void gather_piece(uint8_t *mem, size_t n, void *data)
{
	uint8_t **cursor = data;

	memcpy(*cursor, mem, n);
	*cursor += n;
}

static void scatter_piece(uint8_t *mem, size_t n, void *data)
{
	uint8_t **cursor = data;

	memcpy(mem, *cursor, n);
	*cursor += n;
}

void dp_mkey_gather(const struct dp_mkey_span *s, uint8_t *out)
{
	walk(s, gather_piece, &out);
}

void dp_mkey_scatter(const struct dp_mkey_span *s, const uint8_t *in)
{
	uint8_t *cursor = (uint8_t *)in;

	walk(s, scatter_piece, &cursor);
}

int dp_mkey_run(const struct dp_mkey *m, unsigned worker, enum dp_dir dir, const uint8_t *in,
		size_t in_len, uint8_t *out, size_t out_len, struct dp_sig_err *xfer)
{
	struct dp_error de;
	int r = 0;

	memset(xfer, 0, sizeof(*xfer));
	if (!m->transforms)
		memcpy(out, in, in_len);
	else if (worker >= m->n_transforms)
		r = -EINVAL;
	else
		r = dp_transform_transfer(m->transforms[worker], dir, in, in_len, out, out_len, xfer, &de);
	if (r == 0 && worker < m->n_counters) {
		dp_count_add(&m->counters[worker].transfers, 1);
		if (xfer->type != DP_SIG_ERR_NONE)
			dp_count_add(&m->counters[worker].sig_errors[xfer->type], 1);
	}
	return r;
}
