/* SPDX-License-Identifier: MIT */
/*
 * Applications' asynchronous event channels (ibv_get_async_event): a ring of
 * struct rdmad_async_ring_entry in memory shared with the application, which
 * the main thread writes the events of the application's QPs and of the
 * device's ports into, and a socket it writes a byte to after each.
 * librdmad(3), "Asynchronous events"; docs/decisions.md, "Applications'
 * asynchronous events".
 */
#pragma once

#include "daemon/core/manager.h"
#include "lib/varlink/varlink.h"

/* io.rdmad.Daemon.OpenAsyncEvents (registered in daemon.c). */
int api_async_events_open(struct varlink_call *call, struct json_object *params, void *userdata);
/* The close hook's part (api.c): the channel of conn's application goes with it. */
void api_async_events_connection_closed(struct varlink_connection *conn, struct manager *m);
