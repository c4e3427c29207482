/* SPDX-License-Identifier: MIT */
#include "daemon/verbs/mr_map.h"
#include "daemon/verbs/device.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>

/* The mappings in the table by inode: a hash that doubles, so chains stay short at any count. */
struct rdma_mr_maps {
	struct rdma_mr_map **buckets;
	size_t n_buckets;         /* a power of two */
	size_t count;
};

#define MR_MAPS_FIRST 64

static size_t bucket_of(const struct rdma_mr_maps *t, dev_t dev, ino_t ino)
{
	uint64_t h = ((uint64_t)ino ^ ((uint64_t)dev << 32)) * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 32) & (t->n_buckets - 1);
}

/* Twice the buckets; a table that cannot grow keeps its longer chains. */
static void grow(struct rdma_mr_maps *t)
{
	size_t old_n = t->n_buckets;
	struct rdma_mr_map **old = t->buckets, **more = calloc(2 * old_n, sizeof(*more));

	if (!more)
		return;
	t->buckets = more;
	t->n_buckets = 2 * old_n;
	for (size_t i = 0; i < old_n; i++)
		for (struct rdma_mr_map *m = old[i], *next; m; m = next) {
			size_t b = bucket_of(t, m->dev, m->ino);

			next = m->next;
			m->next = more[b];
			more[b] = m;
		}
	free(old);
}

static struct rdma_mr_maps *table(struct rdma_device *dev)
{
	struct rdma_mr_maps *t = dev->mr_maps;

	if (t)
		return t;
	t = calloc(1, sizeof(*t));
	if (!t || !(t->buckets = calloc(MR_MAPS_FIRST, sizeof(*t->buckets)))) {
		free(t);
		return NULL;
	}
	t->n_buckets = MR_MAPS_FIRST;
	dev->mr_maps = t;
	return t;
}

static void unlink_map(struct rdma_mr_maps *t, struct rdma_mr_map *map)
{
	for (struct rdma_mr_map **p = &t->buckets[bucket_of(t, map->dev, map->ino)]; *p; p = &(*p)->next)
		if (*p == map) {
			*p = map->next;
			t->count--;
			map->table = NULL;
			return;
		}
}

int rdma_mr_map_get(struct rdma_device *dev, int memfd, const struct stat *st, size_t end,
		    struct rdma_mr_map **out)
{
	struct rdma_mr_maps *t = table(dev);
	struct rdma_mr_map *m, *grown;
	size_t b;

	if (!t)
		return -ENOMEM;
	b = bucket_of(t, st->st_dev, st->st_ino);
	for (m = t->buckets[b]; m; m = m->next)
		if (m->dev == st->st_dev && m->ino == st->st_ino)
			break;
	if (m && m->size >= end) {
		m->refs++;
		*out = m;
		return 0;
	}
	/* None, or the memfd grew past it: the whole file as it is now, which holds [0, end). */
	if ((uint64_t)st->st_size < end || (uint64_t)st->st_size > SIZE_MAX)
		return -EINVAL;
	grown = calloc(1, sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	*grown = (struct rdma_mr_map){ .dev = st->st_dev, .ino = st->st_ino, .size = (size_t)st->st_size,
				       .refs = 1, .table = t };
	grown->addr = mmap(NULL, grown->size, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
	if (grown->addr == MAP_FAILED) {
		int r = -errno;

		free(grown);
		return r;
	}
	/* The smaller one stays for its MRs; later ones find this. */
	if (m)
		unlink_map(t, m);
	m = grown;
	if (t->count >= t->n_buckets)
		grow(t);
	b = bucket_of(t, m->dev, m->ino);
	m->next = t->buckets[b];
	t->buckets[b] = m;
	t->count++;
	*out = m;
	return 0;
}

void rdma_mr_map_put(struct rdma_mr_map *map)
{
	if (!map || --map->refs)
		return;
	if (map->table)
		unlink_map(map->table, map);
	munmap(map->addr, map->size);
	free(map);
}

void rdma_mr_maps_free(struct rdma_device *dev)
{
	struct rdma_mr_maps *t = dev->mr_maps;

	if (!t)
		return;
	/* A pending MR may still hold one (its memory made ready meanwhile): it unmaps it alone. */
	for (size_t i = 0; i < t->n_buckets; i++)
		for (struct rdma_mr_map *m = t->buckets[i]; m; m = m->next)
			m->table = NULL;
	free(t->buckets);
	free(t);
	dev->mr_maps = NULL;
}
