/* SPDX-License-Identifier: MIT */
/*
 * Single-producer single-consumer ring of fixed-size entries, with an eventfd
 * doorbell for a consumer that sleeps.  The only way the main thread and a
 * worker talk: one ring each way, no lock, one writer per index.
 */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dp_ring {
	/* Written by the producer only. */
	_Alignas(64) _Atomic uint32_t head;
	/* Written by the consumer only. */
	_Alignas(64) _Atomic uint32_t tail;
	/* Set by a consumer about to sleep; the producer then rings the doorbell. */
	_Alignas(64) _Atomic bool sleeping;
	uint32_t mask;
	uint32_t entry_size;
	uint8_t *entries;
	int doorbell;             /* eventfd */
};

/* capacity: a power of two. */
int dp_ring_init(struct dp_ring *r, uint32_t capacity, uint32_t entry_size);
void dp_ring_release(struct dp_ring *r);

/* Producer side.  false when the ring is full. */
bool dp_ring_push(struct dp_ring *r, const void *entry);
/* Wakes the consumer if it sleeps (or always, for an event-loop consumer). */
void dp_ring_kick(struct dp_ring *r);

/* Consumer side.  false when the ring is empty. */
bool dp_ring_pop(struct dp_ring *r, void *entry);
bool dp_ring_empty(struct dp_ring *r);
/*
 * Sleeps until the producer kicks or timeout_ms passes (-1: forever), unless
 * entries arrived meanwhile.  Returns at once if the ring is not empty.
 */
void dp_ring_wait(struct dp_ring *r, int timeout_ms);
/* For a consumer driven by an event loop on the doorbell: every kick rings. */
void dp_ring_set_event_driven(struct dp_ring *r);
/* Clears the doorbell's count, for an event-loop consumer woken by it. */
void dp_ring_ack(struct dp_ring *r);
