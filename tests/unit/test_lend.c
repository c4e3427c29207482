/* SPDX-License-Identifier: MIT */
/*
 * daemon/verbs/lend.c: who root lends a DEK or a pool to.  The user database
 * is a table here, so that names can appear, change number and vanish between
 * lookups as they would between reloads.  Then the checks as the handlers
 * call them: a DEK by name and by handle in an MKEY configure (a caller it is
 * not lent to is told what it would be told of a DEK that does not exist),
 * and a pool's borrow.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "daemon/soft/soft_device.h"
#include "daemon/verbs/dek.h"
#include "daemon/verbs/lend.h"
#include "daemon/verbs/mkey.h"
#include "daemon/verbs/mr.h"
#include "daemon/verbs/pool.h"
#include "daemon/verbs/secret.h"

/* ---- a user database of our own ---- */

struct name_id {
	const char *name;
	uint32_t id;
};

static struct name_id users[8], groups[8];
/* The next lookups fail as an unreachable NSS server would. */
static bool db_down;

static int table_lookup(const struct name_id *t, const char *name, uint32_t *id)
{
	if (db_down)
		return -EHOSTUNREACH;
	for (int i = 0; i < 8 && t[i].name; i++)
		if (strcmp(t[i].name, name) == 0) {
			*id = t[i].id;
			return 1;
		}
	return 0;
}

static int fake_user(const char *name, uint32_t *id)
{
	return table_lookup(users, name, id);
}

static int fake_group(const char *name, uint32_t *id)
{
	return table_lookup(groups, name, id);
}

static const struct rdma_lend_resolver fake = { .user = fake_user, .group = fake_group };

static int reset_db(void **state)
{
	memset(users, 0, sizeof(users));
	memset(groups, 0, sizeof(groups));
	users[0] = (struct name_id){ "alice", 1001 };
	users[1] = (struct name_id){ "bob", 1002 };
	groups[0] = (struct name_id){ "storage", 2001 };
	groups[1] = (struct name_id){ "ops", 2002 };
	db_down = false;
	return 0;
}

static int set(struct rdma_lend_policy *p, const char *const *add, size_t n, struct rdma_error *err)
{
	return rdma_lend_edit(p, add, n, NULL, 0, &fake, "allow", "disallow", err);
}

#define LIST(...) ((const char *const[]){ __VA_ARGS__ })
#define N(...) (sizeof(LIST(__VA_ARGS__)) / sizeof(const char *))

/* ---- the policy ---- */

static void test_user_allowed(void **state)
{
	struct rdma_lend_policy p = { 0 };
	struct rdma_error err;

	assert_int_equal(set(&p, LIST("alice"), 1, &err), 0);
	assert_int_equal(p.n, 1);
	assert_true(p.entries[0].resolved);
	assert_true(rdma_lend_allows(&p, 1001, 100, NULL, 0));
	/* bob, whose group is alice's uid as a number, is no one the list names. */
	assert_false(rdma_lend_allows(&p, 1002, 1001, NULL, 0));
	/* Root passes any list, the empty one too. */
	assert_true(rdma_lend_allows(&p, 0, 0, NULL, 0));
	memset(&p, 0, sizeof(p));
	assert_true(rdma_lend_allows(&p, 0, 0, NULL, 0));
	assert_false(rdma_lend_allows(&p, 1001, 1001, NULL, 0));
}

static void test_group_allowed(void **state)
{
	struct rdma_lend_policy p = { 0 };
	struct rdma_error err;
	const gid_t supplementary[] = { 5, 2001, 7 }, others[] = { 5, 2002 };
	struct rdma_lend_caller caller = { .uid = 1002, .gid = 100, .groups = supplementary,
					   .n_groups = 3 };

	assert_int_equal(set(&p, LIST("@storage"), 1, &err), 0);
	assert_true(p.entries[0].group);
	/* Through the primary group, and through a supplementary one. */
	assert_true(rdma_lend_allows(&p, 1002, 2001, NULL, 0));
	assert_true(rdma_lend_allows_caller(&p, &caller));
	assert_false(rdma_lend_allows(&p, 1002, 100, others, 2));
	/* A group entry is no user entry: uid 2001 is not group 2001. */
	assert_false(rdma_lend_allows(&p, 2001, 100, NULL, 0));
}

static void test_not_allowed_and_bad_entries(void **state)
{
	struct rdma_lend_policy p = { 0 }, before;
	struct rdma_error err;

	assert_int_equal(set(&p, LIST("alice", "@ops"), 2, &err), 0);
	before = p;
	assert_false(rdma_lend_allows(&p, 1002, 2001, NULL, 0));
	/* Unresolvable, malformed: refused naming the field, the list unchanged. */
	assert_int_equal(set(&p, LIST("bob", "carol"), 2, &err), -EINVAL);
	assert_string_equal(err.field, "allow");
	assert_non_null(strstr(err.reason, "no user is named 'carol'"));
	assert_int_equal(set(&p, LIST("@nogroup"), 1, &err), -EINVAL);
	assert_non_null(strstr(err.reason, "no group is named 'nogroup'"));
	static const char *const bad[] = { "", "@", "-x", "a b", "1000", "@12", "a$b",
					   "abcdefghijklmnopqrstuvwxyz0123456", "a,b" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(set(&p, &bad[i], 1, &err), -EINVAL);
		assert_string_equal(err.field, "allow");
		assert_non_null(strstr(err.reason, "is not USER or @GROUP"));
	}
	/* A lookup that fails is a refusal too, never a guess. */
	db_down = true;
	assert_int_equal(set(&p, LIST("bob"), 1, &err), -EINVAL);
	assert_non_null(strstr(err.reason, "could not be read"));
	db_down = false;
	assert_memory_equal(&p, &before, sizeof(p));
	/* Machine accounts end with '$'. */
	users[2] = (struct name_id){ "host$", 3000 };
	assert_int_equal(set(&p, LIST("host$"), 1, &err), 0);
	assert_int_equal(p.n, 3);
}

static void test_edit_and_bound(void **state)
{
	const char *const remove_ops[] = { "@ops" }, *const remove_bob[] = { "bob" };
	struct rdma_lend_policy p = { 0 };
	struct rdma_error err;
	const char *many[RDMA_LEND_MAX + 1];
	char names[RDMA_LEND_MAX + 1][8];

	assert_int_equal(set(&p, LIST("alice", "@ops", "alice"), 3, &err), 0);
	/* An entry given twice is there once. */
	assert_int_equal(p.n, 2);
	assert_int_equal(rdma_lend_edit(&p, NULL, 0, remove_ops, 1, &fake, "allow", "disallow", &err), 0);
	assert_int_equal(p.n, 1);
	assert_string_equal(p.entries[0].name, "alice");
	assert_int_equal(rdma_lend_edit(&p, NULL, 0, remove_bob, 1, &fake, "allow", "disallow", &err),
			 -EINVAL);
	assert_string_equal(err.field, "disallow");
	/* At most RDMA_LEND_MAX entries. */
	for (int i = 0; i <= RDMA_LEND_MAX; i++) {
		snprintf(names[i], sizeof(names[i]), "u%d", i);
		many[i] = names[i];
	}
	memset(users, 0, sizeof(users));
	assert_int_equal(set(&p, many, RDMA_LEND_MAX + 1, &err), -EINVAL);
	assert_non_null(strstr(err.reason, "at most 32"));
	assert_int_equal(p.n, 1);
}

/* A reload looks every name up again: new numbers count, vanished names let nobody in. */
static void test_reload(void **state)
{
	struct rdma_lend_policy p = { 0 };
	struct rdma_error err;

	assert_int_equal(set(&p, LIST("alice", "@storage"), 2, &err), 0);
	users[0].id = 1501;
	groups[0].name = "renamed";
	rdma_lend_resolve(&p, &fake, "test");
	assert_false(rdma_lend_allows(&p, 1001, 100, NULL, 0));
	assert_true(rdma_lend_allows(&p, 1501, 100, NULL, 0));
	assert_false(p.entries[1].resolved);
	assert_false(rdma_lend_allows(&p, 1002, 2001, NULL, 0));
	/* A lookup that fails keeps what was known. */
	db_down = true;
	rdma_lend_resolve(&p, &fake, "test");
	assert_true(rdma_lend_allows(&p, 1501, 100, NULL, 0));
	db_down = false;
	/* The group back under its name: found again. */
	groups[0].name = "storage";
	rdma_lend_resolve(&p, &fake, "test");
	assert_true(rdma_lend_allows(&p, 1002, 2001, NULL, 0));
}

/* What the state file held comes back, looked up; what is not an entry is left out. */
static void test_restore(void **state)
{
	const char *const saved[] = { "alice", NULL, "bad name", "@storage", "gone", "alice" };
	struct rdma_lend_policy p;

	rdma_lend_restore(&p, saved, 6, &fake, "test");
	assert_int_equal(p.n, 3);
	assert_true(p.entries[0].resolved);
	assert_true(p.entries[1].resolved && p.entries[1].group);
	assert_string_equal(p.entries[2].name, "gone");
	assert_false(p.entries[2].resolved);
	assert_true(rdma_lend_allows(&p, 1001, 1, NULL, 0));
}

/* A change holds once saved; undone, the old list stays. */
static void test_pending_change(void **state)
{
	struct rdma_lend l = { 0 };
	struct rdma_lend_policy next = { 0 };
	struct rdma_error err;

	assert_int_equal(set(&next, LIST("alice"), 1, &err), 0);
	assert_int_equal(rdma_lend_change(&l, &next), 0);
	assert_int_equal(rdma_lend_latest(&l)->n, 1);
	assert_false(rdma_lend_allows(&l.now, 1001, 1, NULL, 0));
	rdma_lend_undo(&l);
	assert_int_equal(rdma_lend_latest(&l)->n, 0);
	assert_int_equal(rdma_lend_change(&l, &next), 0);
	rdma_lend_settle(&l);
	assert_null(l.next);
	assert_true(rdma_lend_allows(&l.now, 1001, 1, NULL, 0));
	rdma_lend_release(&l);
}

/* ---- the checks where a caller uses a DEK or a pool ---- */

static void test_dek_configure(void **state)
{
	static const uint8_t key[32] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17 };
	struct rdma_crypto_config config = { 0 };
	struct rdma_lend_policy allow = { 0 };
	struct rdma_dek_params p = {
		.name = "k1", .key_bits = 128, .key = key, .key_len = sizeof(key), .allow = &allow,
	};
	struct rdma_mkey_entry e = { .offset = 0, .length = 512 };
	struct rdma_lend_caller alice = { .uid = 1001, .gid = 1001 }, bob = { .uid = 1002, .gid = 1002 };
	struct rdma_lend_caller root = { 0 };
	char missing[sizeof(((struct rdma_error *)0)->reason)];
	struct rdma_device *dev;
	struct rdma_error err;
	struct rdma_mkey *mkey;
	struct rdma_mr *mr;
	struct rdma_dek *dek;
	struct rdma_mkey_conf c;
	uint32_t pd;
	struct secret_memory secrets;

	assert_int_equal(secret_init(&secrets), 0);
	assert_int_equal(soft_device_create(&dev, "soft0", 0), 0);
	pd = rdma_object_create(dev, RDMA_OBJ_PD, &err)->handle;
	assert_int_equal(rdma_mr_create(dev, pd, 4096, 0, 1u << 20, &mr, &err), 0);
	assert_int_equal(rdma_mkey_create(dev, pd, RDMA_MKEY_CRYPTO, 4, &mkey, &err), 0);
	assert_int_equal(set(&allow, LIST("alice"), 1, &err), 0);
	assert_int_equal(rdma_dek_create(dev, &config, &p, &dek, &err), 0);
	rdma_dek_settle(dev, dek);
	e.mr = mr->obj.handle;

	rdma_mkey_conf_init(&c);
	c.set_layout = true;
	c.layout = (struct rdma_mkey_layout){ .type = RDMA_LAYOUT_LIST, .n = 1, .entries = &e };
	c.set_crypto = true;
	c.cfg.crypto.enabled = true;
	c.cfg.crypto.data_unit_size = 512;
	/* What a caller is told of a DEK that is not there. */
	snprintf(c.crypto.dek_name, sizeof(c.crypto.dek_name), "nosuch");
	c.caller = &bob;
	assert_int_equal(rdma_mkey_configure(dev, mkey, &c, &err), -EINVAL);
	assert_string_equal(err.field, "config.crypto.dek");
	snprintf(missing, sizeof(missing), "%s", err.reason);
	assert_non_null(strstr(missing, "no DEK 'nosuch' that user 1002 may use"));
	/* The same of one that is there and not lent to it, by name... */
	snprintf(c.crypto.dek_name, sizeof(c.crypto.dek_name), "k1");
	assert_int_equal(rdma_mkey_configure(dev, mkey, &c, &err), -EINVAL);
	assert_string_equal(err.field, "config.crypto.dek");
	assert_non_null(strstr(err.reason, "no DEK 'k1' that user 1002 may use"));
	assert_false(mkey->configured);
	/* ...and by handle, where a handle that is not there says the same. */
	c.crypto.dek_name[0] = '\0';
	c.crypto.dek = dek->obj.handle;
	assert_int_equal(rdma_mkey_configure(dev, mkey, &c, &err), -EINVAL);
	assert_non_null(strstr(err.reason, "no DEK '1' that user 1002 may use"));
	c.crypto.dek = 77;
	assert_int_equal(rdma_mkey_configure(dev, mkey, &c, &err), -EINVAL);
	assert_non_null(strstr(err.reason, "no DEK '77' that user 1002 may use"));
	/* alice may; so may root and the daemon itself. */
	snprintf(c.crypto.dek_name, sizeof(c.crypto.dek_name), "k1");
	c.crypto.dek = 0;
	c.caller = &alice;
	assert_int_equal(rdma_mkey_configure(dev, mkey, &c, &err), 0);
	assert_true(mkey->configured);
	c.caller = &root;
	assert_int_equal(rdma_mkey_configure(dev, mkey, &c, &err), 0);
	c.caller = NULL;
	assert_int_equal(rdma_mkey_configure(dev, mkey, &c, &err), 0);
	/* Root, missing: the plain answer. */
	c.caller = &root;
	snprintf(c.crypto.dek_name, sizeof(c.crypto.dek_name), "nosuch");
	assert_int_equal(rdma_mkey_configure(dev, mkey, &c, &err), -EINVAL);
	assert_non_null(strstr(err.reason, "no DEK is named 'nosuch'"));
	rdma_device_free(dev);
}

static void test_pool_borrow(void **state)
{
	struct rdma_lend_caller alice = { .uid = 1001, .gid = 1001 }, bob = { .uid = 1002, .gid = 1002 };
	const gid_t ops[] = { 2002 };
	struct rdma_lend_caller carol = { .uid = 1003, .gid = 1003, .groups = ops, .n_groups = 1 };
	struct rdma_lend_caller root = { 0 };
	struct rdma_lend_policy allow = { 0 };
	struct rdma_device *dev;
	struct rdma_error err;
	struct rdma_pool *pool;

	assert_int_equal(soft_device_create(&dev, "soft0", 0), 0);
	assert_int_equal(rdma_pool_create(dev, "p1", RDMA_MKEY_CRYPTO, 2, 0, 4, &pool, &err), 0);
	rdma_pool_settle(dev, pool);
	assert_int_equal(rdma_pool_check_caller(pool, &alice, &err), -EPERM);
	assert_string_equal(err.field, "name");
	assert_non_null(strstr(err.reason, "pool p1 does not lend to user 1001"));
	assert_int_equal(rdma_pool_check_caller(pool, &root, &err), 0);
	assert_int_equal(rdma_pool_check_caller(pool, NULL, &err), 0);
	/* Lent once the change settles, not before; taken back when undone. */
	assert_int_equal(set(&allow, LIST("alice", "@ops"), 2, &err), 0);
	assert_int_equal(rdma_pool_lend(pool, &allow, &err), 0);
	assert_int_equal(rdma_pool_check_caller(pool, &alice, &err), -EPERM);
	rdma_pool_undo(dev, pool);
	assert_int_equal(pool->allow.now.n, 0);
	assert_int_equal(rdma_pool_lend(pool, &allow, &err), 0);
	rdma_pool_settle(dev, pool);
	assert_int_equal(rdma_pool_check_caller(pool, &alice, &err), 0);
	assert_int_equal(rdma_pool_check_caller(pool, &carol, &err), 0);
	assert_int_equal(rdma_pool_check_caller(pool, &bob, &err), -EPERM);
	rdma_device_free(dev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_user_allowed, reset_db),
		cmocka_unit_test_setup(test_group_allowed, reset_db),
		cmocka_unit_test_setup(test_not_allowed_and_bad_entries, reset_db),
		cmocka_unit_test_setup(test_edit_and_bound, reset_db),
		cmocka_unit_test_setup(test_reload, reset_db),
		cmocka_unit_test_setup(test_restore, reset_db),
		cmocka_unit_test_setup(test_pending_change, reset_db),
		cmocka_unit_test_setup(test_dek_configure, reset_db),
		cmocka_unit_test_setup(test_pool_borrow, reset_db),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
