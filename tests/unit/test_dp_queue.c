/* SPDX-License-Identifier: MIT */
/* dp_queue: the one queue type of the data path, also when the other side is hostile. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "dataplane/queue.h"

/* A doorbell with a count reads it; one without fails at once (non-blocking). */
static uint64_t doorbell_count(const struct dp_queue *q)
{
	uint64_t count = 0;

	return read(q->doorbell, &count, sizeof(count)) == sizeof(count) ? count : 0;
}

static void test_capacity_rounding(void **state)
{
	struct dp_queue q;

	assert_int_equal(dp_queue_init(&q, 3, 8, 0), 0);
	assert_int_equal(dp_queue_capacity(&q), 4);
	assert_int_equal(q.doorbell, -1);
	dp_queue_release(&q);
	assert_int_equal(dp_queue_init(&q, 1024, 8, DP_QUEUE_DOORBELL), 0);
	assert_int_equal(dp_queue_capacity(&q), 1024);
	assert_true(q.doorbell >= 0);
	/* What the creator chose is in the header, for a peer to check. */
	assert_int_equal(q.hdr->log2_entries, 10);
	assert_int_equal(q.hdr->entry_size, 8);
	assert_int_equal(q.hdr->entries_offset, (uint8_t *)q.entries - (uint8_t *)q.hdr);
	dp_queue_release(&q);
	assert_int_equal(dp_queue_init(&q, 1025, 8, 0), 0);
	assert_int_equal(dp_queue_capacity(&q), 2048);
	dp_queue_release(&q);

	assert_int_equal(dp_queue_init(&q, 0, 8, 0), -EINVAL);
	assert_int_equal(dp_queue_init(&q, 8, 0, 0), -EINVAL);
	assert_int_equal(dp_queue_init(&q, DP_QUEUE_MAX_ENTRIES + 1, 8, 0), -EINVAL);
}

/* Each index on a cache line of its own: producer and consumer never write one line. */
static void test_header_cache_lines(void **state)
{
	size_t prod = offsetof(struct dp_queue_hdr, prod), cons = offsetof(struct dp_queue_hdr, cons);
	size_t sleeping = offsetof(struct dp_queue_hdr, sleeping);

	assert_int_equal(prod % DP_QUEUE_CACHELINE, 0);
	assert_int_equal(cons % DP_QUEUE_CACHELINE, 0);
	assert_int_equal(sleeping % DP_QUEUE_CACHELINE, 0);
	assert_true(cons - prod >= DP_QUEUE_CACHELINE);
	assert_true(sleeping - cons >= DP_QUEUE_CACHELINE);
	assert_true(offsetof(struct dp_queue_hdr, log2_entries) - sleeping >= DP_QUEUE_CACHELINE);
	assert_int_equal(dp_queue_bytes(4, 16) % DP_QUEUE_CACHELINE, 0);
}

static void test_fifo_full_empty(void **state)
{
	struct dp_queue q;
	uint64_t v;

	assert_int_equal(dp_queue_init(&q, 4, sizeof(v), 0), 0);
	assert_false(dp_queue_pop(&q, &v));
	for (uint64_t round = 0; round < 10; round++) {
		assert_int_equal(dp_queue_room(&q), 4);
		for (uint64_t i = 0; i < 4; i++)
			assert_true(dp_queue_push(&q, &(uint64_t){ round * 4 + i }));
		/* Full at capacity: no slot kept free. */
		assert_int_equal(dp_queue_room(&q), 0);
		assert_int_equal(dp_queue_count(&q), 4);
		assert_false(dp_queue_push(&q, &(uint64_t){ 99 }));
		assert_null(dp_queue_reserve(&q, &(uint32_t){ 0 }));
		for (uint64_t i = 0; i < 4; i++) {
			assert_true(dp_queue_pop(&q, &v));
			assert_int_equal(v, round * 4 + i);
		}
		assert_int_equal(dp_queue_count(&q), 0);
		assert_false(dp_queue_pop(&q, &v));
	}
	dp_queue_release(&q);
}

/* Free-running 32-bit indices: nothing changes when they wrap. */
static void test_wrap_across_2_32(void **state)
{
	struct dp_queue q;
	uint32_t start = UINT32_MAX - 5;
	uint64_t v, next_in = 0, next_out = 0;

	assert_int_equal(dp_queue_init(&q, 8, sizeof(v), 0), 0);
	atomic_store(&q.hdr->prod, start);
	atomic_store(&q.hdr->cons, start);
	atomic_store(&q.prod_own, start);
	atomic_store(&q.cons_own, start);
	for (int round = 0; round < 6; round++) {
		while (dp_queue_push(&q, &next_in))
			next_in++;
		assert_int_equal(dp_queue_count(&q), 8);
		for (int i = 0; i < 5; i++) {
			assert_true(dp_queue_pop(&q, &v));
			assert_int_equal(v, next_out++);
		}
	}
	while (dp_queue_pop(&q, &v))
		assert_int_equal(v, next_out++);
	assert_int_equal(next_in, next_out);
	/* The indices did wrap. */
	assert_true(dp_queue_prod(&q) < start);
	dp_queue_release(&q);
}

/* A batch: filled in place, visible at once, consumed at once. */
static void test_publish_n(void **state)
{
	struct dp_queue q;
	uint32_t index = 0, cons;
	uint64_t v;

	assert_int_equal(dp_queue_init(&q, 8, sizeof(v), 0), 0);
	assert_non_null(dp_queue_reserve(&q, &index));
	for (uint32_t i = 0; i < 5; i++)
		memcpy(dp_queue_slot(&q, index + i), &(uint64_t){ 100 + i }, sizeof(v));
	/* Nothing is visible before the publish. */
	assert_int_equal(dp_queue_count(&q), 0);
	dp_queue_publish(&q, 5);
	assert_int_equal(dp_queue_count(&q), 5);
	assert_int_equal(dp_queue_room(&q), 3);
	cons = dp_queue_cons(&q);
	for (uint32_t i = 0; i < 5; i++) {
		assert_int_equal(dp_queue_ready(&q, cons + i), 5 - i);
		dp_queue_copy(&q, cons + i, &v);
		assert_int_equal(v, 100 + i);
	}
	dp_queue_consume(&q, 5);
	assert_int_equal(dp_queue_count(&q), 0);
	assert_int_equal(dp_queue_room(&q), 8);
	dp_queue_release(&q);
}

/* Whatever a producer in another process writes into prod, a consumer never counts past the capacity. */
static void test_ready_bounded_against_hostile_producer(void **state)
{
	static const uint32_t moves[] = { 9, 1000, 1u << 31, UINT32_MAX, UINT32_MAX - 3 };
	struct dp_queue q;
	uint32_t cons;

	assert_int_equal(dp_queue_init(&q, 8, 8, 0), 0);
	atomic_store(&q.hdr->cons, 77);
	cons = dp_queue_cons(&q);
	for (size_t i = 0; i < sizeof(moves) / sizeof(moves[0]); i++) {
		/* Far ahead, or behind the consumer (a negative distance). */
		atomic_store(&q.hdr->prod, cons + moves[i]);
		assert_true(dp_queue_count(&q) <= 8);
		/* Counted from an index the consumer holds already, only what is left. */
		assert_true(dp_queue_ready(&q, cons + 3) <= 5);
		/* From an index beyond what the queue can hold: nothing. */
		assert_int_equal(dp_queue_ready(&q, cons + 9), 0);
		assert_int_equal(dp_queue_ready(&q, cons - 1), 0);
	}
	/* A hostile consumer: the producer sees no room rather than a huge one. */
	atomic_store(&q.hdr->prod, 10);
	atomic_store(&q.hdr->cons, 20);
	assert_int_equal(dp_queue_room(&q), 0);
	dp_queue_release(&q);
}

static void test_format_attach_geometry(void **state)
{
	size_t bytes = dp_queue_bytes(16, 32);
	uint8_t *mem = aligned_alloc(DP_QUEUE_CACHELINE, bytes + DP_QUEUE_CACHELINE);
	struct dp_queue producer, consumer;
	uint8_t entry[32] = { 1, 2, 3 }, out[32];

	assert_non_null(mem);
	/* Not a power of two, none, too many, entries of no size. */
	assert_int_equal(dp_queue_format(&producer, mem, bytes, 12, 32), -EINVAL);
	assert_int_equal(dp_queue_format(&producer, mem, bytes, 0, 32), -EINVAL);
	assert_int_equal(dp_queue_format(&producer, mem, SIZE_MAX, DP_QUEUE_MAX_ENTRIES * 2, 32), -EINVAL);
	assert_int_equal(dp_queue_format(&producer, mem, bytes, 16, 0), -EINVAL);
	/* Memory too small for the geometry, or misaligned. */
	assert_int_equal(dp_queue_format(&producer, mem, bytes - 1, 16, 32), -EINVAL);
	assert_int_equal(dp_queue_format(&producer, mem + 8, bytes, 16, 32), -EINVAL);
	assert_int_equal(dp_queue_attach(&consumer, mem, bytes, 12, 32), -EINVAL);
	assert_int_equal(dp_queue_attach(&consumer, mem, bytes - 1, 16, 32), -EINVAL);
	assert_int_equal(dp_queue_attach(&consumer, mem + 8, bytes, 16, 32), -EINVAL);
	assert_int_equal(dp_queue_attach(&consumer, mem, bytes, 32, 32), -EINVAL);

	assert_int_equal(dp_queue_format(&producer, mem, bytes, 16, 32), 0);
	assert_int_equal(dp_queue_attach(&consumer, mem, bytes, 16, 32), 0);
	assert_true(dp_queue_push(&producer, entry));
	assert_true(dp_queue_pop(&consumer, out));
	assert_memory_equal(entry, out, sizeof(out));
	assert_int_equal(dp_queue_room(&producer), 16);
	/* A peer rewriting the shared geometry moves nothing: the handle has its own. */
	mem[offsetof(struct dp_queue_hdr, log2_entries)] = 30;
	assert_true(dp_queue_push(&producer, entry));
	assert_int_equal(dp_queue_count(&consumer), 1);
	assert_ptr_equal(consumer.entries, mem + (dp_queue_bytes(16, 32) - 16 * 32));
	dp_queue_release(&producer);
	dp_queue_release(&consumer);
	free(mem);
}

/* The doorbell rings only for a consumer that announced its sleep, or always for an event loop. */
static void test_kick_sleep_handshake(void **state)
{
	struct dp_queue q;
	uint64_t v = 7;

	assert_int_equal(dp_queue_init(&q, 8, sizeof(v), DP_QUEUE_DOORBELL), 0);
	/* Awake: no system call, nothing to read. */
	assert_true(dp_queue_push(&q, &v));
	dp_queue_kick(&q);
	assert_int_equal(doorbell_count(&q), 0);
	/* Announced: the kick rings. */
	dp_queue_set_sleeping(&q, true);
	/* A consumer that announced looks once more and finds what came before. */
	assert_int_equal(dp_queue_count(&q), 1);
	assert_true(dp_queue_push(&q, &v));
	dp_queue_kick(&q);
	assert_int_equal(doorbell_count(&q), 1);
	dp_queue_kick(&q);
	dp_queue_ack(&q);
	assert_int_equal(doorbell_count(&q), 0);
	dp_queue_set_sleeping(&q, false);
	dp_queue_kick(&q);
	assert_int_equal(doorbell_count(&q), 0);
	/* A ring is not a kick: it rings whatever the flag says. */
	dp_queue_ring(&q);
	assert_int_equal(doorbell_count(&q), 1);
	dp_queue_release(&q);

	assert_int_equal(dp_queue_init(&q, 8, sizeof(v), DP_QUEUE_EVENT_DRIVEN), 0);
	assert_true(dp_queue_push(&q, &v));
	dp_queue_kick(&q);
	assert_int_equal(doorbell_count(&q), 1);
	dp_queue_release(&q);
}

#define STRESS_N 2000000u

struct stress {
	struct dp_queue q;
	uint64_t bad;             /* first out-of-order value + 1, 0: none */
	unsigned sleeps;
	unsigned timeouts;        /* sleeps the doorbell did not end: a lost wake */
};

/* Entries of two words: a torn or stale entry has words that do not match. */
static void *consume(void *arg)
{
	struct stress *s = arg;
	uint64_t e[2], want = 0;

	while (want < STRESS_N) {
		uint32_t cons = dp_queue_cons(&s->q), n = dp_queue_ready(&s->q, cons);

		if (!n) {
			struct pollfd pfd = { .fd = s->q.doorbell, .events = POLLIN };

			/* Now and then sleep, as a worker does, to exercise the handshake. */
			if (want % 1024)
				continue;
			dp_queue_set_sleeping(&s->q, true);
			if (!dp_queue_count(&s->q)) {
				s->sleeps++;
				if (poll(&pfd, 1, 5000) == 0)
					s->timeouts++;
			}
			dp_queue_set_sleeping(&s->q, false);
			dp_queue_ack(&s->q);
			continue;
		}
		for (uint32_t i = 0; i < n; i++) {
			dp_queue_copy(&s->q, cons + i, e);
			if ((e[0] != want || e[1] != ~want) && !s->bad)
				s->bad = want + 1;
			want++;
		}
		dp_queue_consume(&s->q, n);
	}
	return NULL;
}

static void test_spsc_stress(void **state)
{
	struct stress s = { 0 };
	pthread_t consumer;
	uint64_t next = 0;

	assert_int_equal(dp_queue_init(&s.q, 64, 2 * sizeof(uint64_t), DP_QUEUE_DOORBELL), 0);
	assert_int_equal(pthread_create(&consumer, NULL, consume, &s), 0);
	while (next < STRESS_N) {
		uint32_t index = 0, room = dp_queue_room(&s.q), batch = 1 + next % 7;

		if (!room)
			continue;
		if (batch > room)
			batch = room;
		if (batch > STRESS_N - next)
			batch = (uint32_t)(STRESS_N - next);
		assert_non_null(dp_queue_reserve(&s.q, &index));
		for (uint32_t i = 0; i < batch; i++, next++)
			memcpy(dp_queue_slot(&s.q, index + i), (uint64_t[2]){ next, ~next }, 16);
		dp_queue_publish(&s.q, batch);
		dp_queue_kick(&s.q);
		/* Pauses let the consumer run dry and go to sleep. */
		if (next % 4096 < batch)
			usleep(50);
	}
	pthread_join(consumer, NULL);
	assert_int_equal(s.bad, 0);
	assert_int_equal(s.timeouts, 0);
	assert_int_equal(dp_queue_count(&s.q), 0);
	dp_queue_release(&s.q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_capacity_rounding),
		cmocka_unit_test(test_header_cache_lines),
		cmocka_unit_test(test_fifo_full_empty),
		cmocka_unit_test(test_wrap_across_2_32),
		cmocka_unit_test(test_publish_n),
		cmocka_unit_test(test_ready_bounded_against_hostile_producer),
		cmocka_unit_test(test_format_attach_geometry),
		cmocka_unit_test(test_kick_sleep_handshake),
		cmocka_unit_test(test_spsc_stress),
	};

	return cmocka_run_group_tests_name("dataplane queue", tests, NULL, NULL);
}
