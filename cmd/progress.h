/* SPDX-License-Identifier: MIT */
/*
 * The progress line of a long operation (mr write/read, offload, pool create,
 * apply): one line on standard error, redrawn in place as the work goes on and
 * erased at the end, shown only to a person watching, that is when standard
 * error is a terminal and neither -j nor -q was given.  Never on standard
 * output, so the bytes and the records there are what they are without it.
 *
 * There is one terminal and one line: the state is this file's own, so that
 * whatever else prints to stderr (an error, the daemon's refusal) can take the
 * line away first with progress_hide() without being handed it.
 */
#pragma once

#include "cmd/rdmactl.h"

#include <stdint.h>

/*
 * Starts the line "LABEL: DONE of TOTAL NOUN (P%)"; noun NULL counts bytes
 * ("1.5 MiB of 64.0 MiB"); total 0 is unknown (no "of", no percent).  label
 * and noun must outlive the line.  Nothing is drawn when the line is not
 * wanted (see above).
 */
void progress_start(const struct ctl *ctl, const char *label, const char *noun, uint64_t total);
/* done so far; the line is redrawn at most ten times a second. */
void progress_set(uint64_t done);
/* Erases the line if it shows; the next progress_set() draws it again. */
void progress_hide(void);
/* Erases the line for good. */
void progress_end(void);

/* The line shows text alone: a job that says nothing until its end. */
void progress_start_text(const struct ctl *ctl, const char *text);
