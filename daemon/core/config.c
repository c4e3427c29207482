/* SPDX-License-Identifier: MIT */
#include "daemon/core/config.h"
#include "daemon/verbs/recovery.h"
#include "dataplane/opa/opa16b.h"
#include "dataplane/opa/opa9b.h"
#include "dataplane/udp.h"
#include "lib/log.h"
#include "lib/varlink/varlink.h"

#include <ctype.h>
#include <stdbool.h>
#include <stddef.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void config_defaults(struct rdmad_config *config)
{
	*config = (struct rdmad_config) {
		.log_level = LOG_INFO,
		.tenant = RDMAD_TENANT_LIMITS_DEFAULT,
		.limits = VARLINK_LIMITS_DEFAULT,
		.max_mr_size = RDMAD_MAX_MR_SIZE_DEFAULT,
		.busy_poll_usec = RDMAD_BUSY_POLL_USEC_DEFAULT,
		.roce_port = ROCE_UDP_PORT,
		.roce_segmentation_offload = 1,
	};
}

void config_free(struct rdmad_config *config)
{
	free(config->fabric.nodes);
	config->fabric.nodes = NULL;
	config->fabric.n_nodes = 0;
}

static int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

/* A setting that is a number in [min, max], times scale, into the field at offset. */
struct number_setting {
	const char *key;
	const char *what;     /* "a number", "a number of bytes", ... */
	uint64_t min, max;
	uint64_t scale;       /* seconds in the file are microseconds in the field */
	size_t offset;
	enum { FIELD_UNSIGNED, FIELD_SIZE, FIELD_U64 } type;
};

#define LIMIT(f) offsetof(struct rdmad_config, limits.f)
#define USEC    VARLINK_USEC_PER_SEC

#define TENANT(kind) offsetof(struct rdmad_config, tenant.max_objects[kind])
#define DEVICE(kind) offsetof(struct rdmad_config, device_max_objects[kind])

static const struct number_setting number_settings[] = {
	{ "max_connections", "a number", 1, 65536, 1, LIMIT(max_connections), FIELD_UNSIGNED },
	{ "max_connections_per_uid", "a number", 1, 65536, 1, LIMIT(max_per_uid), FIELD_UNSIGNED },
	{ "connections_reserved_for_root", "a number", 0, 65535, 1, LIMIT(reserved_for_root),
	  FIELD_UNSIGNED },
	{ "connection_output_budget", "a number of bytes", 4096, 1ull << 30, 1, LIMIT(output_budget),
	  FIELD_SIZE },
	{ "connection_output_timeout", "a number of seconds", 0, 86400, USEC,
	  LIMIT(output_timeout_usec), FIELD_U64 },
	{ "connection_incomplete_timeout", "a number of seconds", 0, 86400, USEC,
	  LIMIT(incomplete_timeout_usec), FIELD_U64 },
	{ "connection_idle_timeout", "a number of seconds", 0, 86400, USEC,
	  LIMIT(idle_timeout_usec), FIELD_U64 },
	{ "connection_buffer_budget", "a number of bytes", 1ull << 20, 1ull << 40, 1,
	  LIMIT(buffer_budget), FIELD_SIZE },
	{ "connection_buffer_budget_per_uid", "a number of bytes", 1ull << 16, 1ull << 40, 1,
	  LIMIT(buffer_per_uid), FIELD_SIZE },
	{ "connection_buffer_reserved_for_root", "a number of bytes", 0, 1ull << 40, 1,
	  LIMIT(buffer_reserved_for_root), FIELD_SIZE },
	{ "max_mr_size", "a number of bytes", 1, RDMAD_MAX_MR_SIZE_MAX, 1,
	  offsetof(struct rdmad_config, max_mr_size), FIELD_U64 },
	{ "max_pds", "a number", 1, 1u << 24, 1, DEVICE(RDMA_OBJ_PD), FIELD_UNSIGNED },
	{ "max_mrs", "a number", 1, 1u << 24, 1, DEVICE(RDMA_OBJ_MR), FIELD_UNSIGNED },
	{ "max_cqs", "a number", 1, 1u << 24, 1, DEVICE(RDMA_OBJ_CQ), FIELD_UNSIGNED },
	{ "max_qps", "a number", 1, 1u << 24, 1, DEVICE(RDMA_OBJ_QP), FIELD_UNSIGNED },
	{ "max_ahs", "a number", 1, 1u << 24, 1, DEVICE(RDMA_OBJ_AH), FIELD_UNSIGNED },
	{ "max_mkeys", "a number", 1, 1u << 24, 1, DEVICE(RDMA_OBJ_MKEY), FIELD_UNSIGNED },
	{ "max_pds_per_uid", "a number", 0, 1u << 24, 1, TENANT(RDMA_OBJ_PD), FIELD_UNSIGNED },
	{ "max_mrs_per_uid", "a number", 0, 1u << 24, 1, TENANT(RDMA_OBJ_MR), FIELD_UNSIGNED },
	{ "max_cqs_per_uid", "a number", 0, 1u << 24, 1, TENANT(RDMA_OBJ_CQ), FIELD_UNSIGNED },
	{ "max_qps_per_uid", "a number", 0, 1u << 24, 1, TENANT(RDMA_OBJ_QP), FIELD_UNSIGNED },
	{ "max_ahs_per_uid", "a number", 0, 1u << 24, 1, TENANT(RDMA_OBJ_AH), FIELD_UNSIGNED },
	{ "max_mkeys_per_uid", "a number", 0, 1u << 24, 1, TENANT(RDMA_OBJ_MKEY), FIELD_UNSIGNED },
	{ "max_registered_bytes_per_uid", "a number of bytes (0: each program's RLIMIT_MEMLOCK)", 0,
	  1ull << 50, 1, offsetof(struct rdmad_config, tenant.max_registered_bytes), FIELD_U64 },
	{ "busy_poll_usec", "a number of microseconds", 0, RDMAD_BUSY_POLL_USEC_MAX, 1,
	  offsetof(struct rdmad_config, busy_poll_usec), FIELD_UNSIGNED },
	{ "roce_port", "a number (a UDP port)", 1, 65535, 1, offsetof(struct rdmad_config, roce_port),
	  FIELD_UNSIGNED },
	{ "roce_segmentation_offload", "a number, 0 (off) or 1 (on),", 0, 1, 1,
	  offsetof(struct rdmad_config, roce_segmentation_offload), FIELD_UNSIGNED },
	{ "roce_fault_drop_ppm", "a number of packets per million", 0, 1000000, 1,
	  offsetof(struct rdmad_config, roce_faults.drop), FIELD_UNSIGNED },
	{ "roce_fault_duplicate_ppm", "a number of packets per million", 0, 1000000, 1,
	  offsetof(struct rdmad_config, roce_faults.duplicate), FIELD_UNSIGNED },
	{ "roce_fault_reorder_ppm", "a number of packets per million", 0, 1000000, 1,
	  offsetof(struct rdmad_config, roce_faults.reorder), FIELD_UNSIGNED },
};

static const char *setting_at(size_t offset)
{
	for (size_t i = 0; i < sizeof(number_settings) / sizeof(number_settings[0]); i++)
		if (number_settings[i].offset == offset)
			return number_settings[i].key;
	return NULL;
}

const char *config_tenant_setting(enum rdma_object_kind kind)
{
	return kind < RDMAD_TENANT_KINDS ? setting_at(TENANT(kind)) : NULL;
}

const char *config_device_setting(enum rdma_object_kind kind)
{
	return kind < RDMAD_TENANT_KINDS ? setting_at(DEVICE(kind)) : NULL;
}

int config_fit_tenant(struct rdmad_config *c, const unsigned cap[RDMAD_TENANT_KINDS], const char *path,
		      const char *device, char *err, size_t err_size)
{
	for (int kind = 0; kind < RDMAD_TENANT_KINDS; kind++) {
		unsigned *limit = &c->tenant.max_objects[kind];

		if (!cap[kind] || *limit <= cap[kind])
			continue;
		if (!(c->tenant_set & 1u << kind)) {
			*limit = cap[kind];
			continue;
		}
		if (device)
			snprintf(err, err_size, "%s: %s (%u) is above %s's cap of %ss (%u)", path,
				 config_tenant_setting(kind), *limit, device, rdma_object_kind_name(kind),
				 cap[kind]);
		else
			snprintf(err, err_size, "%s: %s (%u) is above %s (%u)", path, config_tenant_setting(kind),
				 *limit, config_device_setting(kind), cap[kind]);
		return -EINVAL;
	}
	return 0;
}

static const struct number_setting *find_number_setting(const char *key)
{
	for (size_t i = 0; i < sizeof(number_settings) / sizeof(number_settings[0]); i++)
		if (strcmp(number_settings[i].key, key) == 0)
			return &number_settings[i];
	return NULL;
}

static int apply_number(struct rdmad_config *c, const struct number_setting *n, const char *value,
			char *msg, size_t size)
{
	char *field = (char *)c + n->offset;
	uint64_t v;

	if (parse_u64(value, n->min, n->max, &v) < 0) {
		snprintf(msg, size, "%s: '%s' is not %s in %llu-%llu", n->key, value, n->what,
			 (unsigned long long)n->min, (unsigned long long)n->max);
		return -EINVAL;
	}
	v *= n->scale;
	switch (n->type) {
	case FIELD_UNSIGNED:
		*(unsigned *)field = (unsigned)v;
		break;
	case FIELD_SIZE:
		*(size_t *)field = (size_t)v;
		break;
	case FIELD_U64:
		*(uint64_t *)field = v;
		break;
	}
	return 0;
}

/* "unknown setting 'KEY' (known: log_level, max_connections, ..., import_kek.NAME)" */
static void unknown_setting(const char *key, char *msg, size_t size)
{
	size_t used = (size_t)snprintf(msg, size, "unknown setting '%s' (known: log_level", key);

	for (size_t i = 0; i < sizeof(number_settings) / sizeof(number_settings[0]) && used < size; i++)
		used += (size_t)snprintf(msg + used, size - used, ", %s", number_settings[i].key);
	if (used < size)
		snprintf(msg + used, size - used, ", recovery, crypto_credential, import_kek.NAME, "
			 "fabric_lid, fabric_address, fabric_node.LID, roce_netdev, roce_receive)");
}

static char *strip(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}

/* Paths of key material: absolute, as the daemon's working directory is no one's business. */
static int set_path(char *dst, const char *key, const char *value, char *msg, size_t size)
{
	if (value[0] != '/' || strlen(value) >= RDMA_CRYPTO_PATH_MAX) {
		snprintf(msg, size, "%s: '%s' is not an absolute path of less than %d bytes", key, value,
			 RDMA_CRYPTO_PATH_MAX);
		return -EINVAL;
	}
	strcpy(dst, value);
	return 0;
}

static bool valid_name(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n >= RDMA_KEK_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)name[i]) && name[i] != '_' && name[i] != '-')
			return false;
	return true;
}

/* import_kek.NAME = PATH: an import KEK the crypto login can name (rdmad.conf(5)). */
static int add_import_kek(struct rdma_crypto_config *c, const char *name, const char *value,
			  char *msg, size_t size)
{
	struct rdma_import_kek *kek;
	char key[16 + RDMA_KEK_NAME_MAX];

	if (!valid_name(name)) {
		snprintf(msg, size, "import_kek.%s: the name must be 1-%d letters, digits, '_' or '-'",
			 name, RDMA_KEK_NAME_MAX - 1);
		return -EINVAL;
	}
	if (rdma_crypto_config_kek(c, name)) {
		snprintf(msg, size, "import_kek.%s: set twice", name);
		return -EINVAL;
	}
	if (c->n_import_keks >= RDMA_IMPORT_KEKS_MAX) {
		snprintf(msg, size, "import_kek.%s: no more than %d import KEKs", name,
			 RDMA_IMPORT_KEKS_MAX);
		return -EINVAL;
	}
	kek = &c->import_keks[c->n_import_keks];
	snprintf(key, sizeof(key), "import_kek.%s", name);
	if (set_path(kek->path, key, value, msg, size) < 0)
		return -EINVAL;
	strcpy(kek->name, name);
	c->n_import_keks++;
	return 0;
}

/* A LID: decimal or 0x hexadecimal, 1 to 24 bits. */
static int parse_lid(const char *s, uint32_t *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || end == s || *end || s[0] == '-' || v == 0 || v > OPA16B_LID_MAX)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

static int check_address(const char *key, const char *text, char *msg, size_t size)
{
	struct dp_udp_addr addr;
	const char *why;

	if (strlen(text) >= RDMAD_FABRIC_ADDR_TEXT ||
	    dp_udp_addr_parse(text, RDMAD_FABRIC_PORT_DEFAULT, &addr, &why) < 0) {
		snprintf(msg, size, "%s: '%s' is not an address HOST:PORT (numeric IPv4 host, or "
			 "[IPv6]:PORT): %s", key, text,
			 strlen(text) >= RDMAD_FABRIC_ADDR_TEXT ? "too long" : why);
		return -EINVAL;
	}
	return 0;
}

/* fabric_node.LID = ADDRESS...: who serves LID on the software fabric (docs/opa-fabric.md). */
static int add_fabric_node(struct rdmad_fabric_config *f, const char *lid_text, const char *value,
			   char *msg, size_t size)
{
	struct rdmad_fabric_node node = { 0 }, *nodes;
	char key[64], copy[1024], *save = NULL, *word;

	snprintf(key, sizeof(key), "fabric_node.%.40s", lid_text);
	if (parse_lid(lid_text, &node.lid) < 0) {
		snprintf(msg, size, "%s: '%s' is not a LID (1 to 0x%x, decimal or 0x hex)", key,
			 lid_text, OPA16B_LID_MAX);
		return -EINVAL;
	}
	for (unsigned i = 0; i < f->n_nodes; i++)
		if (f->nodes[i].lid == node.lid) {
			snprintf(msg, size, "%s: LID %u is set twice", key, node.lid);
			return -EINVAL;
		}
	if (f->n_nodes >= RDMAD_FABRIC_NODES_MAX) {
		snprintf(msg, size, "%s: no more than %d nodes", key, RDMAD_FABRIC_NODES_MAX);
		return -EINVAL;
	}
	snprintf(copy, sizeof(copy), "%s", value);
	for (word = strtok_r(copy, " \t", &save); word; word = strtok_r(NULL, " \t", &save)) {
		if (check_address(key, word, msg, size) < 0)
			return -EINVAL;
		if (node.n_addrs == RDMAD_FABRIC_NODE_ADDRS) {
			snprintf(msg, size, "%s: no more than %d addresses", key,
				 RDMAD_FABRIC_NODE_ADDRS);
			return -EINVAL;
		}
		strcpy(node.addrs[node.n_addrs++], word);
	}
	if (!node.n_addrs) {
		snprintf(msg, size, "%s: give one address HOST:PORT or more", key);
		return -EINVAL;
	}
	nodes = realloc(f->nodes, (f->n_nodes + 1) * sizeof(*nodes));
	if (!nodes) {
		snprintf(msg, size, "%s: out of memory", key);
		return -ENOMEM;
	}
	nodes[f->n_nodes++] = node;
	f->nodes = nodes;
	return 0;
}

static int apply_fabric(struct rdmad_fabric_config *f, const char *key, const char *value,
			char *msg, size_t size)
{
	if (strcmp(key, "fabric_lid") == 0) {
		if (parse_lid(value, &f->lid) < 0 || f->lid > OPA9B_LID_UNICAST_MAX) {
			snprintf(msg, size, "fabric_lid: '%s' is not a unicast LID (1 to 0x%x)", value,
				 OPA9B_LID_UNICAST_MAX);
			return -EINVAL;
		}
		return 0;
	}
	if (strcmp(key, "fabric_address") == 0) {
		if (check_address(key, value, msg, size) < 0)
			return -EINVAL;
		strcpy(f->address, value);
		return 0;
	}
	return add_fabric_node(f, key + strlen("fabric_node."), value, msg, size);
}

/* roce_netdev = IFNAME: a name the kernel could give an interface. */
static int set_roce_netdev(char dst[IF_NAMESIZE], const char *value, char *msg, size_t size)
{
	size_t len = strlen(value);
	bool ok = len > 0 && len < IF_NAMESIZE && strcmp(value, ".") != 0 &&
		  strcmp(value, "..") != 0;

	for (const char *p = value; ok && *p; p++)
		ok = !isspace((unsigned char)*p) && *p != '/' && *p != ':';
	if (!ok) {
		snprintf(msg, size, "roce_netdev: '%s' is not an interface name (1 to %d characters, "
			 "no space, '/' or ':')", value, IF_NAMESIZE - 1);
		return -EINVAL;
	}
	memcpy(dst, value, len + 1);
	return 0;
}

/* roce_receive = auto|packet|socket: the way RoCE v2 packets come in (dp_roce_receive_name's words). */
static int set_roce_receive(enum dp_roce_receive *dst, const char *value, char *msg, size_t size)
{
	static const enum dp_roce_receive ways[] = {
		DP_ROCE_RECEIVE_AUTO, DP_ROCE_RECEIVE_PACKET, DP_ROCE_RECEIVE_SOCKET,
	};

	for (size_t i = 0; i < sizeof(ways) / sizeof(ways[0]); i++)
		if (strcmp(value, dp_roce_receive_name(ways[i])) == 0) {
			*dst = ways[i];
			return 0;
		}
	snprintf(msg, size, "roce_receive: '%s' is not one of auto, packet, socket", value);
	return -EINVAL;
}

/* One "key = value" line; a message naming the key and its allowed values on error. */
static int apply(struct rdmad_config *c, const char *key, const char *value, char *msg, size_t size)
{
	const struct number_setting *number;

	if (strcmp(key, "log_level") == 0) {
		int level = log_level_from_string(value);

		if (level < 0) {
			snprintf(msg, size, "log_level: '%s' is not one of emerg, alert, crit, err, "
				 "warning, notice, info, debug", value);
			return -EINVAL;
		}
		c->log_level = level;
	} else if ((number = find_number_setting(key))) {
		int r = apply_number(c, number, value, msg, size);

		for (int kind = 0; r == 0 && kind < RDMAD_TENANT_KINDS; kind++)
			if (number->offset == TENANT(kind))
				c->tenant_set |= 1u << kind;
		return r;
	} else if (strcmp(key, "recovery") == 0) {
		c->recovery = rdma_recovery_policy_from_name(value);
		if (c->recovery < 0) {
			snprintf(msg, size, "recovery: '%s' is not one of manual, auto", value);
			return -EINVAL;
		}
	} else if (strcmp(key, "crypto_credential") == 0) {
		return set_path(c->crypto.credential, key, value, msg, size);
	} else if (strncmp(key, "import_kek.", strlen("import_kek.")) == 0) {
		return add_import_kek(&c->crypto, key + strlen("import_kek."), value, msg, size);
	} else if (strcmp(key, "fabric_lid") == 0 || strcmp(key, "fabric_address") == 0 ||
		   strncmp(key, "fabric_node.", strlen("fabric_node.")) == 0) {
		return apply_fabric(&c->fabric, key, value, msg, size);
	} else if (strcmp(key, "roce_netdev") == 0) {
		return set_roce_netdev(c->roce_netdev, value, msg, size);
	} else if (strcmp(key, "roce_receive") == 0) {
		return set_roce_receive(&c->roce_receive, value, msg, size);
	} else {
		unknown_setting(key, msg, size);
		return -EINVAL;
	}
	return 0;
}

/* Root's reserve of the buffers' budget leaves room for others, and one uid's share fits in it. */
static int check_buffer_shares(const char *path, const struct varlink_limits *l, char *err,
			       size_t err_size)
{
	if (l->buffer_reserved_for_root >= l->buffer_budget) {
		snprintf(err, err_size, "%s: connection_buffer_reserved_for_root (%zu) must be less "
			 "than connection_buffer_budget (%zu)", path, l->buffer_reserved_for_root,
			 l->buffer_budget);
		return -EINVAL;
	}
	if (l->buffer_per_uid > l->buffer_budget - l->buffer_reserved_for_root) {
		snprintf(err, err_size, "%s: connection_buffer_budget_per_uid (%zu) must be at most "
			 "connection_buffer_budget (%zu) less connection_buffer_reserved_for_root "
			 "(%zu)", path, l->buffer_per_uid, l->buffer_budget,
			 l->buffer_reserved_for_root);
		return -EINVAL;
	}
	return 0;
}

/* What no single line can say wrong. */
static int check(const char *path, struct rdmad_config *c, char *err, size_t err_size)
{
	if (c->limits.reserved_for_root >= c->limits.max_connections) {
		snprintf(err, err_size, "%s: connections_reserved_for_root (%u) must be less than "
			 "max_connections (%u)", path, c->limits.reserved_for_root,
			 c->limits.max_connections);
		return -EINVAL;
	}
	if (check_buffer_shares(path, &c->limits, err, err_size) < 0)
		return -EINVAL;
	if (config_fit_tenant(c, c->device_max_objects, path, NULL, err, err_size) < 0)
		return -EINVAL;
	if (!c->fabric.lid && (c->fabric.address[0] || c->fabric.n_nodes)) {
		snprintf(err, err_size, "%s: fabric_address and fabric_node.LID need fabric_lid, this "
			 "node's LID on the fabric", path);
		return -EINVAL;
	}
	return 0;
}

int config_load(const char *path, struct rdmad_config *config, char *err, size_t err_size)
{
	struct rdmad_config c = *config;

	/* The fabric map is the file's alone, built afresh (config->fabric stays config's). */
	c.fabric = (struct rdmad_fabric_config) { 0 };
	char *line = NULL;
	size_t cap = 0;
	unsigned lineno = 0;
	FILE *f;
	int r = 0;

	f = fopen(path, "re");
	if (!f) {
		if (errno == ENOENT)
			return 0;
		r = -errno;
		snprintf(err, err_size, "%s: %s", path, strerror(errno));
		return r;
	}
	while (getline(&line, &cap, f) >= 0) {
		char msg[512], *key, *value, *eq, *hash;

		lineno++;
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		key = strip(line);
		if (!*key)
			continue;
		eq = strchr(key, '=');
		if (!eq) {
			snprintf(err, err_size, "%s:%u: expected 'key = value'", path, lineno);
			r = -EINVAL;
			break;
		}
		*eq = '\0';
		value = strip(eq + 1);
		key = strip(key);
		if (apply(&c, key, value, msg, sizeof(msg)) < 0) {
			snprintf(err, err_size, "%s:%u: %s", path, lineno, msg);
			r = -EINVAL;
			break;
		}
	}
	free(line);
	fclose(f);
	/* The buffer shares the file leaves out follow its budget. */
	varlink_limits_derive(&c.limits);
	if (r == 0)
		r = check(path, &c, err, err_size);
	if (r == 0) {
		config_free(config);
		*config = c;
		r = 1;
	} else {
		config_free(&c);
	}
	return r;
}
