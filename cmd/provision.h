/* SPDX-License-Identifier: MIT */
/*
 * Declarative provisioning (`rdmactl apply`, `rdmactl dump`): a configuration
 * of what users set up on the daemon (its settings, each device's DEKs by key
 * file, MKEY pools and vdevs), read from a JSON file or from the daemon, compared,
 * and made true by a plan of changes that is undone if one of them fails.
 *
 * The file is hostile input: provision_file.c bounds and checks all of it
 * before anything is asked of the daemon.  The format is in rdmactl(8),
 * "PROVISIONING FILE".
 */
#pragma once

#include "cmd/rdmactl.h"

#include <stdbool.h>
#include <stdint.h>

#define PROV_FORMAT_VERSION 1
#define PROV_FILE_MAX (1u << 20)
#define PROV_NAME_MAX 64          /* DEK, pool, device, KEK names, with the NUL */
#define PROV_PATH_MAX 4096
#define PROV_NOTE_MAX 1024
#define PROV_DEVICES_MAX 16
#define PROV_ITEMS_MAX 4096       /* DEKs, pools, per device */
#define PROV_HEX8_LEN 16          /* 8 bytes as hex digits */

/* What went wrong, and where: a dotted path into the file ("devices.soft0.pools[1].size"). */
struct prov_error {
	char path[256];
	char reason[512];
};

int prov_fail(struct prov_error *err, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Who besides root may use a DEK or borrow from a pool: "USER" or "@GROUP" (the daemon checks them). */
#define PROV_ALLOW_MAX 32
#define PROV_ALLOW_NAME 35        /* '@', 32 characters, the NUL, and one to tell a longer name */

struct prov_allow {
	bool given;                      /* absent from the file: left as the daemon has it */
	unsigned n;
	char names[PROV_ALLOW_MAX][PROV_ALLOW_NAME];
};

enum prov_keytag {
	PROV_KEYTAG_NONE,
	PROV_KEYTAG_HIDDEN,   /* the DEK has one; its value is never shown (dump writes true) */
	PROV_KEYTAG_GIVEN,    /* its 16 hex digits, to create a plaintext DEK */
};

struct prov_dek {
	char name[PROV_NAME_MAX];
	unsigned size;                   /* 128 or 256 */
	bool wrapped;                    /* import: wrapped (else plaintext) */
	char key_file[PROV_PATH_MAX];    /* "": not known (the key was given by value) */
	enum prov_keytag keytag;
	char keytag_hex[PROV_HEX8_LEN + 1];
	char opaque[PROV_HEX8_LEN + 1];  /* hex digits, lower case */
	uint32_t pd;                     /* 0: any PD */
	char kek[PROV_NAME_MAX];         /* a wrapped DEK's import KEK; "": not said */
	char note[PROV_NOTE_MAX];        /* said by dump, ignored by apply */
	struct prov_allow allow;
};

struct prov_pool {
	char name[PROV_NAME_MAX];
	char type[24];                   /* signature, crypto, signature+crypto */
	uint32_t size;
	uint32_t max_entries;
	uint32_t borrowed;               /* the daemon's pools only */
	struct prov_allow allow;
};

/* A vdev (io.rdmad.Vdev): the daemon checks the values, the file's parser bounds them. */
#define PROV_VDEV_SOCKET_MAX 108  /* a unix socket's path, with the NUL */
struct prov_vdev {
	char name[PROV_NAME_MAX];
	char socket[PROV_VDEV_SOCKET_MAX];
	char mac[18];                    /* "": not given (the daemon derives it; any matches) */
	char tap[16];                    /* "": no TAP */
	uint32_t max_qps, max_cqs;
};

struct prov_device {
	char name[PROV_NAME_MAX];
	struct prov_dek *deks;
	unsigned n_deks;
	struct prov_pool *pools;
	unsigned n_pools;
	struct prov_vdev *vdevs;
	unsigned n_vdevs;
	/* The daemon's devices only: the crypto login wrapped imports need. */
	bool login_valid;
	char login_kek[PROV_NAME_MAX];
};

struct prov_config {
	char log_level[16];              /* "": not given */
	struct prov_device *devices;
	unsigned n_devices;
};

void prov_config_free(struct prov_config *c);
struct prov_device *prov_find_device(const struct prov_config *c, const char *name);

/* ---- the file (provision_file.c) ---- */

/* Parses and checks text (len bytes) as a provisioning file; all of it or an error. */
int prov_parse(const char *text, size_t len, struct prov_config *out, struct prov_error *err);
/* The configuration in the file's format (dump); one DEK, one pool as the file has them. */
struct json_object *prov_to_json(const struct prov_config *c);
struct json_object *prov_dek_json(const struct prov_dek *d);
struct json_object *prov_pool_json(const struct prov_pool *p);
struct json_object *prov_vdev_json(const struct prov_vdev *v);

/* A record's "allow" list (absent: not given); the file's parser bounds and checks it. */
int prov_allow_parse(struct json_object *obj, const char *path, struct prov_allow *a,
		     struct prov_error *err);
void prov_allow_from_record(struct json_object *rec, struct prov_allow *a);
/* obj["allow"] = the list. */
void prov_allow_add_json(struct json_object *obj, const struct prov_allow *a);
/* The same entries, in any order. */
bool prov_allow_same(const struct prov_allow *a, const struct prov_allow *b);
/* params[key] = the entries of a that b lacks. */
void prov_allow_add_diff(struct json_object *params, const char *key, const struct prov_allow *a,
			 const struct prov_allow *b);

/* ---- the daemon (provision_daemon.c) ---- */

/* What the daemon has now, in the same terms; errors are printed (ctl_call), as a negative errno. */
int prov_read_daemon(struct ctl *ctl, const char *path, struct prov_config *out);

/* ---- the plan (provision_plan.c) ---- */

enum prov_change_kind {
	PROV_SET_LOG_LEVEL,
	PROV_CREATE_DEK,
	PROV_CREATE_POOL,
	PROV_RESIZE_POOL,
	PROV_LEND_DEK,                   /* who may use it: from *old_allow to the file's */
	PROV_LEND_POOL,
	PROV_CREATE_VDEV,
	PROV_RECREATE_VDEV,              /* destroyed and made again as the file says */
};

struct prov_change {
	enum prov_change_kind kind;
	char where[128];                 /* the part of the file asking for it: "devices.soft0.pools[1]" */
	const char *device;              /* NULL for a setting */
	const struct prov_dek *dek;      /* PROV_CREATE_DEK: what the file says */
	const struct prov_pool *pool;    /* PROV_CREATE_POOL, PROV_RESIZE_POOL: what the file says */
	uint32_t old_size;               /* PROV_RESIZE_POOL */
	const struct prov_allow *old_allow;   /* PROV_LEND_*: what the daemon has */
	const struct prov_vdev *vdev;    /* PROV_*_VDEV: what the file says */
	const struct prov_vdev *old_vdev;   /* PROV_RECREATE_VDEV: what the daemon has */
	char old_level[16], new_level[16];   /* PROV_SET_LOG_LEVEL */
};

struct prov_plan {
	struct prov_change *changes;
	unsigned n;
};

/*
 * The changes that make the daemon (now) what the file (want) says; pointers
 * into want.  Fails, naming the file's path, where the file asks what no
 * change can do (a DEK or pool that exists differently, a device the daemon
 * lacks, a resize below what is borrowed, a wrapped import without login).
 */
int prov_plan(const struct prov_config *want, const struct prov_config *now, struct prov_plan *plan,
	      struct prov_error *err);
void prov_plan_free(struct prov_plan *plan);

/* One line for people: "soft0: pool p1: size 8 -> 16". */
void prov_change_describe(const struct prov_change *c, char *buf, size_t size);
/* The same as a JSON object for scripts. */
struct json_object *prov_change_json(const struct prov_change *c);
/* Makes the change, or takes it back (after it was made); errors printed, as a negative errno. */
int prov_change_do(struct ctl *ctl, const char *path, const struct prov_change *c);
int prov_change_undo(struct ctl *ctl, const char *path, const struct prov_change *c);
