/* SPDX-License-Identifier: MIT */
/* The progress line of long operations (progress.h). */
#include "cmd/progress.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

/* A redraw per chunk would flood a slow terminal (a serial console, ssh) for no one's eyes. */
#define REDRAW_NS 100000000ll

static struct {
	bool on;                /* a person watches: the line is drawn */
	bool shown;             /* the line is on the terminal now */
	bool counted;           /* false: the label is the whole line */
	const char *label, *noun;
	uint64_t done, total;
	struct timespec drawn;
} line;

static void format_bytes(uint64_t n, char *buf, size_t size)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB" };
	double v = (double)n;
	unsigned u = 0;

	if (n < 1024) {
		snprintf(buf, size, "%" PRIu64 " B", n);
		return;
	}
	for (v /= 1024; v >= 1024 && u + 1 < sizeof(units) / sizeof(units[0]); u++)
		v /= 1024;
	snprintf(buf, size, "%.1f %s", v, units[u]);
}

static void format_count(uint64_t n, char *buf, size_t size)
{
	if (line.noun)
		snprintf(buf, size, "%" PRIu64, n);
	else
		format_bytes(n, buf, size);
}

/* The terminal's width: a line that wraps could not be taken back with one carriage return. */
static size_t columns(void)
{
	struct winsize ws;

	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1)
		return ws.ws_col;
	return 80;
}

static void draw(void)
{
	char done[32], total[32], text[256], out[300];
	size_t width = columns() - 1;
	int n;

	format_count(line.done, done, sizeof(done));
	if (!line.counted) {
		snprintf(text, sizeof(text), "%s", line.label);
	} else if (line.total) {
		double pct = line.done >= line.total ? 100.0 : 100.0 * (double)line.done / (double)line.total;

		format_count(line.total, total, sizeof(total));
		snprintf(text, sizeof(text), "%s: %s of %s%s%s (%d%%)", line.label, done, total,
			 line.noun ? " " : "", line.noun ? line.noun : "", (int)pct);
	} else {
		snprintf(text, sizeof(text), "%s: %s%s%s", line.label, done, line.noun ? " " : "",
			 line.noun ? line.noun : "");
	}
	if (strlen(text) > width)
		text[width] = '\0';
	/* One write: the line never shows half drawn. */
	n = snprintf(out, sizeof(out), "\r%s\033[K", text);
	if (n > 0 && write(STDERR_FILENO, out, (size_t)n) == n)
		line.shown = true;
	clock_gettime(CLOCK_MONOTONIC, &line.drawn);
}

static void start(const struct ctl *ctl, const char *label, const char *noun, uint64_t total,
		  bool counted)
{
	progress_end();
	line.on = !ctl->json && !ctl->quiet && isatty(STDERR_FILENO);
	line.counted = counted;
	line.label = label;
	line.noun = noun;
	line.done = 0;
	line.total = total;
	if (line.on)
		draw();
}

void progress_start(const struct ctl *ctl, const char *label, const char *noun, uint64_t total)
{
	start(ctl, label, noun, total, true);
}

void progress_start_text(const struct ctl *ctl, const char *text)
{
	start(ctl, text, NULL, 0, false);
}

void progress_set(uint64_t done)
{
	struct timespec now;

	line.done = done;
	if (!line.on)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (line.shown && (now.tv_sec - line.drawn.tv_sec) * 1000000000ll +
			  (now.tv_nsec - line.drawn.tv_nsec) < REDRAW_NS)
		return;
	draw();
}

void progress_hide(void)
{
	static const char erase[] = "\r\033[K";

	if (!line.shown)
		return;
	/* Nothing to do if the terminal is gone: the line went with it. */
	if (write(STDERR_FILENO, erase, sizeof(erase) - 1) < 0)
		line.on = false;
	line.shown = false;
}

void progress_end(void)
{
	progress_hide();
	line.on = false;
}
