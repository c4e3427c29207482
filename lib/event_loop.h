/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdint.h>
#include <systemd/sd-event.h>

/*
 * sd_event_loop(), except that after dispatching anything the loop looks for
 * the next event without sleeping for busy_usec before it sleeps again: a
 * client that calls again at once (as scripts and rdmactl do) finds the daemon
 * awake instead of paying for a wake-up, which on a virtual machine costs more
 * than a short call.  The cost is at most busy_usec of CPU after each burst of
 * work; 0 makes it sd_event_loop().  Returns what sd_event_loop() would.
 */
/* *busy_usec is read at every turn, so that a change (a reload) applies at once. */
int event_loop_run(sd_event *event, const unsigned *busy_usec);
