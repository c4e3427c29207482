/* SPDX-License-Identifier: MIT */
/* The descriptions a context handed out, freed at rdmad_close() if the program did not. */
#include "client/internal.h"

#include <stdlib.h>
#include <string.h>

void *client_hold_by(struct rdmad_context *ctx, void *desc, void (*free_fn)(void *desc))
{
	if (ctx->n_held == ctx->cap_held) {
		size_t cap = ctx->cap_held ? 2 * ctx->cap_held : 16;
		struct client_held *held = realloc(ctx->held, cap * sizeof(*held));

		if (!held) {
			free_fn(desc);
			return client_fail_null(client_fail(-ENOMEM, "out of memory"));
		}
		ctx->held = held;
		ctx->cap_held = cap;
	}
	ctx->held[ctx->n_held++] = (struct client_held){ .desc = desc, .free_fn = free_fn };
	return desc;
}

void *client_hold(struct rdmad_context *ctx, void *desc)
{
	return client_hold_by(ctx, desc, free);
}

void *client_held_find(struct rdmad_context *ctx, void (*free_fn)(void *desc), size_t handle_offset,
		       uint32_t handle)
{
	for (size_t i = 0; i < ctx->n_held; i++) {
		const struct client_held *h = &ctx->held[i];
		uint32_t held_handle;

		if (h->free_fn != free_fn)
			continue;
		memcpy(&held_handle, (const uint8_t *)h->desc + handle_offset, sizeof(held_handle));
		if (held_handle == handle)
			return h->desc;
	}
	return NULL;
}

void client_release(struct rdmad_context *ctx, void *desc)
{
	for (size_t i = 0; i < ctx->n_held; i++)
		if (ctx->held[i].desc == desc) {
			ctx->held[i].free_fn(desc);
			ctx->held[i] = ctx->held[--ctx->n_held];
			return;
		}
	free(desc);
}

void client_release_all(struct rdmad_context *ctx)
{
	for (size_t i = 0; i < ctx->n_held; i++)
		ctx->held[i].free_fn(ctx->held[i].desc);
	free(ctx->held);
	ctx->held = NULL;
	ctx->n_held = ctx->cap_held = 0;
}
