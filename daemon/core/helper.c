/* SPDX-License-Identifier: MIT */
/* Blocking work off the event loop, on a thread of its own (see helper.h). */
#include "daemon/core/helper.h"
#include "lib/thread.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

struct helper {
	int efd;                  /* the thread rings it when a job has run */
	sd_event_source *source;
	pthread_t thread;
	bool started;

	/* Shared with the thread, under lock. */
	pthread_mutex_t lock;
	pthread_cond_t wake;      /* a job, or stop */
	struct helper_job *todo, **todo_tail;
	struct helper_job *ran, **ran_tail;
	bool stop;
};

static void append(struct helper_job ***tail, struct helper_job *job)
{
	job->next = NULL;
	**tail = job;
	*tail = &job->next;
}

static void *helper_main(void *arg)
{
	struct helper *h = arg;

	pthread_mutex_lock(&h->lock);
	for (;;) {
		struct helper_job *job;

		while (!h->todo && !h->stop)
			pthread_cond_wait(&h->wake, &h->lock);
		if (h->stop)
			break;
		job = h->todo;
		h->todo = job->next;
		if (!h->todo)
			h->todo_tail = &h->todo;
		pthread_mutex_unlock(&h->lock);
		job->run(job);
		pthread_mutex_lock(&h->lock);
		append(&h->ran_tail, job);
		eventfd_write(h->efd, 1);
	}
	pthread_mutex_unlock(&h->lock);
	return NULL;
}

/* Takes a list out from under the lock. */
static struct helper_job *take(struct helper *h, struct helper_job **list, struct helper_job ***tail)
{
	struct helper_job *jobs;

	pthread_mutex_lock(&h->lock);
	jobs = *list;
	*list = NULL;
	*tail = list;
	pthread_mutex_unlock(&h->lock);
	return jobs;
}

static void call_done(struct helper_job *jobs, bool ran)
{
	while (jobs) {
		struct helper_job *job = jobs;

		jobs = job->next;
		job->done(job, ran);
	}
}

static int on_ran(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct helper *h = userdata;
	eventfd_t n;

	eventfd_read(fd, &n);
	call_done(take(h, &h->ran, &h->ran_tail), true);
	return 0;
}

int helper_new(struct helper **out, sd_event *event)
{
	struct helper *h = calloc(1, sizeof(*h));
	int r;

	if (!h)
		return -ENOMEM;
	h->todo_tail = &h->todo;
	h->ran_tail = &h->ran;
	pthread_mutex_init(&h->lock, NULL);
	pthread_cond_init(&h->wake, NULL);
	h->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (h->efd < 0) {
		r = -errno;
		goto fail;
	}
	r = sd_event_add_io(event, &h->source, h->efd, EPOLLIN, on_ran, h);
	if (r < 0)
		goto fail;
	r = thread_start_quiet(&h->thread, helper_main, h, "rdmad-helper");
	if (r < 0)
		goto fail;
	h->started = true;
	*out = h;
	return 0;
fail:
	helper_free(h);
	return r;
}

struct helper *helper_free(struct helper *h)
{
	if (!h)
		return NULL;
	if (h->started) {
		pthread_mutex_lock(&h->lock);
		h->stop = true;
		pthread_cond_signal(&h->wake);
		pthread_mutex_unlock(&h->lock);
		pthread_join(h->thread, NULL);
	}
	call_done(take(h, &h->ran, &h->ran_tail), true);
	call_done(take(h, &h->todo, &h->todo_tail), false);
	sd_event_source_disable_unref(h->source);
	if (h->efd >= 0)
		close(h->efd);
	pthread_cond_destroy(&h->wake);
	pthread_mutex_destroy(&h->lock);
	free(h);
	return NULL;
}

void helper_submit(struct helper *h, struct helper_job *job)
{
	pthread_mutex_lock(&h->lock);
	append(&h->todo_tail, job);
	pthread_cond_signal(&h->wake);
	pthread_mutex_unlock(&h->lock);
}
