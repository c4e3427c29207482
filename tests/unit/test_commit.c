/* SPDX-License-Identifier: MIT */
/*
 * daemon/core/commit.c: a change is settled only once its file is on disk;
 * changes submitted while a batch is written go together in the next one
 * (one write, one serialization per kind); a failed file fails exactly the
 * changes of its kind; a file replaced before the directory's fsync failed is
 * written again; hooks run in order, answers after the done hooks; a flush at
 * shutdown writes and answers everything.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "daemon/core/commit.h"
#include "daemon/core/manager.h"
#include "daemon/core/state.h"

/* Two kinds whose content is a counter the test changes, as a handler changes the model. */
static int alpha_value, beta_value, serialized;

static struct json_object *save_value(int value)
{
	struct json_object *o = json_object_new_object();

	serialized++;
	json_object_object_add(o, "value", json_object_new_int(value));
	return o;
}

static struct json_object *alpha_save(struct manager *m)
{
	return save_value(alpha_value);
}

static struct json_object *beta_save(struct manager *m)
{
	return save_value(beta_value);
}

static const struct state_kind alpha = { .name = "alpha", .save = alpha_save };
static const struct state_kind beta = { .name = "beta", .save = beta_save };

/* The writer the thread runs: the real one, behind a gate the test opens, failing on demand. */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool closed;
	unsigned writes, files;
	int fail;                 /* -errno for alpha's file */
	bool fail_after_rename;   /* as when the directory's fsync fails */
} gate = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };

static void gated_write(const char *dir, struct state_file *files, unsigned n)
{
	pthread_mutex_lock(&gate.lock);
	while (gate.closed)
		pthread_cond_wait(&gate.cond, &gate.lock);
	gate.writes++;
	gate.files += n;
	pthread_mutex_unlock(&gate.lock);
	state_write_files(dir, files, n);
	for (unsigned i = 0; i < n; i++)
		if (gate.fail && files[i].kind == &alpha) {
			files[i].result = gate.fail;
			files[i].replaced = gate.fail_after_rename;
		}
}

static void gate_set(bool closed)
{
	pthread_mutex_lock(&gate.lock);
	gate.closed = closed;
	pthread_cond_broadcast(&gate.cond);
	pthread_mutex_unlock(&gate.lock);
}

static unsigned gate_writes(void)
{
	unsigned n;

	pthread_mutex_lock(&gate.lock);
	n = gate.writes;
	pthread_mutex_unlock(&gate.lock);
	return n;
}

/* What happened to the changes, in order: "d1+" done 1 with 0, "d2-" done with an error, "a1" answered. */
static char trail[256];

struct change {
	struct commit_change c;
	int id;
	int result;
	bool done, answered;
	int *undo_var, undo_value;  /* what a refused change puts back, as the model's undo */
};

static void on_done(struct commit_change *cc, int r)
{
	struct change *ch = (struct change *)cc;

	ch->done = true;
	ch->result = r;
	if (r < 0 && ch->undo_var)
		*ch->undo_var = ch->undo_value;
	snprintf(trail + strlen(trail), sizeof(trail) - strlen(trail), "d%d%c ", ch->id, r ? '-' : '+');
}

static void on_answer(struct commit_change *cc)
{
	struct change *ch = (struct change *)cc;

	ch->answered = true;
	snprintf(trail + strlen(trail), sizeof(trail) - strlen(trail), "a%d ", ch->id);
}

static struct change change_of(int id, const struct state_kind *kind, const void *object)
{
	return (struct change){
		.c = { .kind = kind, .object = object, .done = on_done, .answer = on_answer },
		.id = id,
	};
}

struct fixture {
	struct manager m;
	struct state_env env;
	struct commit *c;
	char dir[64];
};

static int setup(void **state)
{
	static struct fixture f;

	memset(&f, 0, sizeof(f));
	snprintf(f.dir, sizeof(f.dir), "/tmp/test_commit.XXXXXX");
	if (!mkdtemp(f.dir) || sd_event_new(&f.m.event) < 0)
		return -1;
	f.m.state_dir = f.dir;
	f.env = (struct state_env){ .m = &f.m, .dir = f.dir };
	gate.closed = false;
	gate.writes = gate.files = 0;
	gate.fail = 0;
	gate.fail_after_rename = false;
	alpha_value = beta_value = serialized = 0;
	trail[0] = '\0';
	if (commit_new(&f.c, f.m.event, &f.env, gated_write) < 0)
		return -1;
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char path[128];

	commit_free(f->c);
	sd_event_unref(f->m.event);
	for (const char *const *n = (const char *const[]){ "alpha", "beta", NULL }; *n; n++) {
		snprintf(path, sizeof(path), "%s/%s.json", f->dir, *n);
		unlink(path);
	}
	return rmdir(f->dir);
}

/* Runs the event loop until *flag, or fails after a few seconds. */
static void run_until(struct fixture *f, const bool *flag)
{
	for (int i = 0; i < 500 && !*flag; i++)
		sd_event_run(f->m.event, 10 * 1000);
	assert_true(*flag);
}

static int file_value(struct fixture *f, const char *name)
{
	char path[128];
	struct json_object *o, *kind, *v;
	int value;

	snprintf(path, sizeof(path), "%s/%s.json", f->dir, name);
	o = json_object_from_file(path);
	if (!o)
		return -1;
	assert_true(json_object_object_get_ex(o, name, &kind));
	assert_true(json_object_object_get_ex(kind, "value", &v));
	value = json_object_get_int(v);
	json_object_put(o);
	return value;
}

static void test_done_once_on_disk(void **state)
{
	struct fixture *f = *state;
	struct change a = change_of(1, &alpha, &alpha_value);

	alpha_value = 7;
	commit_submit(f->c, &a.c);
	assert_ptr_equal(commit_find(f->c, &alpha_value), &a.c);
	run_until(f, &a.answered);
	assert_int_equal(a.result, 0);
	assert_int_equal(file_value(f, "alpha"), 7);
	assert_null(commit_find(f->c, &alpha_value));
	assert_string_equal(trail, "d1+ a1 ");
}

static void test_changes_group_while_a_batch_is_written(void **state)
{
	struct fixture *f = *state;
	struct change ch[5];

	gate_set(true);
	alpha_value = 1;
	ch[0] = change_of(0, &alpha, NULL);
	commit_submit(f->c, &ch[0].c);
	/* Written at once (the thread was free); the next four wait for it, whatever their kind. */
	for (int i = 1; i < 5; i++) {
		ch[i] = change_of(i, i % 2 ? &alpha : &beta, NULL);
		alpha_value += i % 2;
		beta_value += !(i % 2);
		commit_submit(f->c, &ch[i].c);
	}
	assert_int_equal(serialized, 1);
	gate_set(false);
	run_until(f, &ch[4].answered);
	assert_int_equal(gate_writes(), 2);
	assert_int_equal(commit_batches(f->c), 2);
	/* The second batch: alpha and beta once each, for four changes. */
	assert_int_equal(serialized, 3);
	assert_int_equal(gate.files, 3);
	assert_int_equal(file_value(f, "alpha"), 3);
	assert_int_equal(file_value(f, "beta"), 2);
	/* Done hooks of a batch before its answers, each in submission order. */
	assert_true(strncmp(trail, "d0+ ", 4) == 0);
	assert_non_null(strstr(trail, "d1+ d2+ d3+ d4+ a1 a2 a3 a4 "));
}

static void test_a_failed_file_fails_its_kind_only(void **state)
{
	struct fixture *f = *state;
	struct change a, b, c;

	gate_set(true);
	c = change_of(0, &beta, NULL);
	commit_submit(f->c, &c.c);
	gate.fail = -ENOSPC;
	a = change_of(1, &alpha, NULL);
	b = change_of(2, &beta, NULL);
	alpha_value = beta_value = 5;
	commit_submit(f->c, &a.c);
	commit_submit(f->c, &b.c);
	gate_set(false);
	run_until(f, &b.answered);
	assert_int_equal(a.result, -ENOSPC);
	assert_int_equal(b.result, 0);
	assert_int_equal(file_value(f, "beta"), 5);
	assert_int_equal(gate_writes(), 2);
	assert_non_null(strstr(trail, "d1- d2+ a1 a2 "));
}

static void test_replaced_then_failed_is_written_again(void **state)
{
	struct fixture *f = *state;
	struct change a = change_of(1, &alpha, NULL);

	/* Renamed, then the directory's fsync failed: the file holds 9, which is undone to 4. */
	alpha_value = 9;
	a.undo_var = &alpha_value;
	a.undo_value = 4;
	gate.fail = -EIO;
	gate.fail_after_rename = true;
	commit_submit(f->c, &a.c);
	run_until(f, &a.answered);
	assert_int_equal(a.result, -EIO);
	assert_int_equal(file_value(f, "alpha"), 9);
	/* Written again from memory: once, even though that write fails too. */
	for (int i = 0; i < 500 && commit_batches(f->c) < 2; i++)
		sd_event_run(f->m.event, 10 * 1000);
	assert_int_equal(commit_batches(f->c), 2);
	assert_int_equal(file_value(f, "alpha"), 4);
	for (int i = 0; i < 20; i++)
		sd_event_run(f->m.event, 1000);
	assert_int_equal(gate_writes(), 2);
}

static void test_flush_writes_and_answers_everything(void **state)
{
	struct fixture *f = *state;
	struct change a = change_of(1, &alpha, NULL), b = change_of(2, &beta, NULL);

	alpha_value = 11;
	commit_submit(f->c, &a.c);
	beta_value = 12;
	commit_submit(f->c, &b.c);
	/* Without the event loop, as after it ended. */
	commit_flush(f->c);
	assert_true(a.answered);
	assert_true(b.answered);
	assert_int_equal(file_value(f, "alpha"), 11);
	assert_int_equal(file_value(f, "beta"), 12);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_done_once_on_disk, setup, teardown),
		cmocka_unit_test_setup_teardown(test_changes_group_while_a_batch_is_written, setup, teardown),
		cmocka_unit_test_setup_teardown(test_a_failed_file_fails_its_kind_only, setup, teardown),
		cmocka_unit_test_setup_teardown(test_replaced_then_failed_is_written_again, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flush_writes_and_answers_everything, setup, teardown),
	};

	return cmocka_run_group_tests_name("commit", tests, NULL, NULL);
}
