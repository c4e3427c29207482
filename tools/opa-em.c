/* SPDX-License-Identifier: MIT */
/*
 * NAME
 *	opa-em - an Ethernet Manager simulator that speaks VEMA over the software fabric
 *
 * SYNOPSIS
 *	opa-em --lid LID --address HOST:PORT --node LID=HOST:PORT [--node ...]
 *	       [--timeout MS] [--sl N] [--pkey P] COMMAND [-- COMMAND ...]
 *	opa-em ... -            (commands one per line on stdin; '#' starts a comment)
 *
 * DESCRIPTION
 *	Joins the software Omni-Path fabric (docs/opa-fabric.md) as a node of its own LID,
 *	sends VEMA MADs (class 0x34, reference opa_vnic.md §1-3) to rdmad nodes and prints
 *	each result as ONE JSON object per line on stdout.  Every line has "type": "reply"
 *	(a command's result, with "command"), "trap" (a decoded VEMA notice) or "mad" (any
 *	other MAD, as hex).  Traps arriving while a command waits are printed as they come.
 *	Field names are the reference's.  Requests are full 2048-byte MADs; nothing is
 *	retried.  The MAD layouts are coded here again, on purpose apart from the agent
 *	(daemon/vnic/), so a bug there is not mirrored here.
 *
 * COMMANDS
 *	get-cpi LID                         Get ClassPortInfo (0x0001)
 *	set-cpi LID trap_lid=N [trap_sl=N] [key=value ...]
 *	                                    Get, change the keys, Set the whole block
 *	get-port LID VPORT                  Get VESWPortInfo (0x0011)
 *	set-port LID VPORT key=value ...    Get, change the keys, Set the whole block
 *	delete-port LID VPORT               Set Delete VESW (0x0015)
 *	set-macs LID VPORT OFFSET DIGEST MAC=DLID[/SD] ...
 *	                                    Set MAC entries (0x0012); MAC 00:00:00:00:00:00
 *	                                    empties its slot
 *	get-macs LID VPORT OFFSET COUNT     Get MAC entries (0x0012)
 *	get-ucast LID VPORT [START [COUNT]] Get interface unicast MACs (0x0013)
 *	get-mcast LID VPORT [START [COUNT]] Get interface multicast MACs (0x0014)
 *	get-counters LID VPORT              Get summary counters (0x0020)
 *	get-errors LID VPORT                Get error counters (0x0022)
 *	raw LID HEX...                      send these MAD bytes (24..2048) as they are, print
 *	                                    the reply as hex, or "reply": null after the timeout
 *	listen MS                           print every MAD arriving within MS milliseconds
 *	wait-trap MS OPCODE [VPORT]         wait for a trap of OPCODE (1 ucast, 2 mcast,
 *	                                    3 link) from vport index VPORT; traps seen earlier in
 *	                                    the same run count
 *
 *	Keys of set-port: every field get-port prints (read-only ones are sent as given; the
 *	agent must ignore them): fabric_id vesw_id def_port_mask pkey u_mcast_dlid
 *	u_ucast_dlid.N (or u_ucast_dlid=16 comma-separated) rc eth_mtu port_num
 *	base_mac (= base_mac_addr, aa:bb:cc:dd:ee:ff) config_state (forwarding, drop_all or a
 *	number) encap_slid pcp_to_sc_uc pcp_to_vl_uc pcp_to_sc_mc pcp_to_vl_mc (8
 *	comma-separated, or .N for one) non_vlan_sc_uc non_vlan_vl_uc non_vlan_sc_mc
 *	non_vlan_vl_mc.  Keys of set-cpi: every field get-cpi prints (GIDs as 32 hex digits).
 *	Numbers are decimal or 0x hexadecimal.
 *
 * EXIT STATUS
 *	0 all commands done; 1 a reply with status != 0 or a malformed reply (the reply is
 *	still printed); 2 usage; 3 no reply (or no trap) within the timeout; 4 system error.
 *	The first failing command ends the run.
 *
 * EXAMPLE
 *	opa-em --lid 100 --address 127.0.0.1:4800 --node 1=127.0.0.1:4795 \
 *	    set-cpi 1 trap_lid=100 -- set-port 1 0 vesw_id=2 encap_slid=1 \
 *	    config_state=forwarding -- get-port 1 0 | jq .oper_state
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <netdb.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <json-c/json.h>

#include "dataplane/bytes.h"
#include "dataplane/opa/opa9b.h"
#include "lib/hex.h"
#include "lib/json-util.h"

enum em_exit {
	EM_OK = 0,
	EM_STATUS = 1,		/* reply status != 0, or a malformed reply */
	EM_USAGE = 2,
	EM_TIMEOUT = 3,
	EM_SYSTEM = 4,
};

/* The MAD header (reference §1.2). */
#define MAD_BASE_VERSION	0x80
#define MAD_CLASS_EMA		0x34
#define MAD_CLASS_VERSION	0x80
#define MAD_METHOD_GET		0x01
#define MAD_METHOD_SET		0x02
#define MAD_METHOD_TRAP		0x05
#define MAD_METHOD_GETRESP	0x81
#define MAD_HDR_LEN		40	/* common + RMPP + reserved + OUI */
#define MAD_DATA_MAX		(OPA9B_MAD_MAX - MAD_HDR_LEN)	/* 2008 */
#define MAD_OFF_STATUS		4
#define MAD_OFF_TID		8
#define MAD_OFF_ATTR_ID		16
#define MAD_OFF_ATTR_MOD	20
#define MAD_OFF_OUI		37

static const uint8_t intel_oui[3] = { 0x00, 0x06, 0x6a };

/* Attributes (reference §2.1) and the bytes of each we read. */
#define ATTR_CPI		0x0001
#define ATTR_NOTICE		0x0002
#define ATTR_PORT_INFO		0x0011
#define ATTR_MAC_TABLE		0x0012
#define ATTR_UCAST_MACS		0x0013
#define ATTR_MCAST_MACS		0x0014
#define ATTR_DELETE_VESW	0x0015
#define ATTR_SUMMARY		0x0020
#define ATTR_ERRORS		0x0022
#define CPI_LEN			80
#define PORT_INFO_LEN		280
#define SUMMARY_LEN		360
#define ERRORS_LEN		304

/* MAC entries: 8-byte header, 16-byte entries, at most 125 in one MAD (§2.4). */
#define MACTBL_HDR		8
#define MACTBL_ENTRY		16
#define MACTBL_PER_MAD		((MAD_DATA_MAX - MACTBL_HDR) / MACTBL_ENTRY)
/* Interface MAC lists: 8-byte header, 6-byte MACs, at most 333 (§2.5). */
#define IFMACS_HDR		8
#define IFMACS_PER_MAD		((MAD_DATA_MAX - IFMACS_HDR) / 6)

/* The trap (§3.2): notice at data 0, the VEMA trap record at data 32. */
#define TRAP_RECORD_OFF		32
#define TRAP_MIN_DATA		(TRAP_RECORD_OFF + 16)

#define MAX_NODES		64
#define MAX_WORDS		512	/* one stdin line: set-macs with 125 entries fits */
#define TRAP_BACKLOG		64

/* ---- Attribute fields, described once for printing and for key=value ---- */

enum field_kind {
	FK_UINT,	/* big-endian, size 1, 2, 4 or 8 */
	FK_MAC,		/* 6 bytes, aa:bb:cc:dd:ee:ff */
	FK_BYTES,	/* count bytes, a JSON array */
	FK_BE32S,	/* count big-endian u32, a JSON array */
	FK_GID,		/* 16 bytes, 32 hex digits */
	FK_HIGH5,	/* bits 7..3 of one byte (the trap SL) */
};

struct symbol {
	uint64_t value;
	const char *name;
};

struct field {
	const char *name;
	uint16_t off;
	uint8_t kind;
	uint8_t size;		/* FK_UINT */
	uint8_t count;		/* FK_BYTES, FK_BE32S */
	const struct symbol *symbols;	/* names a value may be given by; NULL-terminated */
};

#define UINT_F(n, o, s)		{ .name = (n), .off = (o), .kind = FK_UINT, .size = (s) }
#define SYM_F(n, o, s, y)	{ .name = (n), .off = (o), .kind = FK_UINT, .size = (s), .symbols = (y) }
#define ARR_F(n, o, k, c)	{ .name = (n), .off = (o), .kind = (k), .count = (c) }
#define KIND_F(n, o, k)		{ .name = (n), .off = (o), .kind = (k) }

static const struct symbol vport_states[] = {
	{ 1, "drop_all" }, { 3, "forwarding" }, { 0, NULL },
};

static const struct symbol link_states[] = {
	{ 1, "up" }, { 2, "down" }, { 0, NULL },
};

/* §2.2 */
static const struct field cpi_fields[] = {
	UINT_F("base_version", 0, 1),
	UINT_F("class_version", 1, 1),
	UINT_F("cap_mask", 2, 2),
	UINT_F("cap_mask2_resp_time", 4, 4),
	KIND_F("redirect_gid", 8, FK_GID),
	UINT_F("redirect_tc_fl", 24, 4),
	UINT_F("redirect_lid", 28, 4),
	UINT_F("redirect_sl_qp", 32, 4),
	UINT_F("redirect_qkey", 36, 4),
	KIND_F("trap_gid", 40, FK_GID),
	UINT_F("trap_tc_fl", 56, 4),
	UINT_F("trap_lid", 60, 4),
	UINT_F("trap_hl_qp", 64, 4),
	UINT_F("trap_qkey", 68, 4),
	UINT_F("trap_pkey", 72, 2),
	UINT_F("redirect_pkey", 74, 2),
	UINT_F("trap_sl_rsvd", 76, 1),
	KIND_F("trap_sl", 76, FK_HIGH5),
};

/* §2.3: opa_vesw_info at 0, opa_per_veswport_info at 152.  Reserved bytes are not listed:
 * set-port sends back what get-port read. */
static const struct field port_fields[] = {
	UINT_F("fabric_id", 0, 2),
	UINT_F("vesw_id", 2, 2),
	UINT_F("def_port_mask", 10, 2),
	UINT_F("pkey", 14, 2),
	UINT_F("u_mcast_dlid", 20, 4),
	ARR_F("u_ucast_dlid", 24, FK_BE32S, 16),
	UINT_F("rc", 88, 4),
	UINT_F("eth_mtu", 148, 2),
	UINT_F("port_num", 152 + 0, 4),
	SYM_F("eth_link_status", 152 + 4, 1, link_states),	/* read-only */
	KIND_F("base_mac_addr", 152 + 8, FK_MAC),
	SYM_F("config_state", 152 + 14, 1, vport_states),
	SYM_F("oper_state", 152 + 15, 1, vport_states),		/* read-only */
	UINT_F("max_mac_tbl_ent", 152 + 16, 2),			/* read-only */
	UINT_F("max_smac_ent", 152 + 18, 2),			/* read-only */
	UINT_F("mac_tbl_digest", 152 + 20, 4),			/* read-only */
	UINT_F("encap_slid", 152 + 28, 4),
	ARR_F("pcp_to_sc_uc", 152 + 32, FK_BYTES, 8),
	ARR_F("pcp_to_vl_uc", 152 + 40, FK_BYTES, 8),
	ARR_F("pcp_to_sc_mc", 152 + 48, FK_BYTES, 8),
	ARR_F("pcp_to_vl_mc", 152 + 56, FK_BYTES, 8),
	UINT_F("non_vlan_sc_uc", 152 + 64, 1),
	UINT_F("non_vlan_vl_uc", 152 + 65, 1),
	UINT_F("non_vlan_sc_mc", 152 + 66, 1),
	UINT_F("non_vlan_vl_mc", 152 + 67, 1),
	UINT_F("uc_macs_gen_count", 152 + 116, 2),		/* read-only */
	UINT_F("mc_macs_gen_count", 152 + 118, 2),		/* read-only */
};

/* The head both counter attributes share (§2.7, §2.8). */
#define COUNTER_HEAD \
	UINT_F("vp_instance", 0, 2), \
	UINT_F("vesw_id", 2, 2), \
	UINT_F("veswport_num", 4, 4), \
	UINT_F("tx_errors", 8, 8), \
	UINT_F("rx_errors", 16, 8)

/* §2.7 */
static const struct field summary_fields[] = {
	COUNTER_HEAD,
	UINT_F("tx_packets", 24, 8), UINT_F("rx_packets", 32, 8),
	UINT_F("tx_bytes", 40, 8), UINT_F("rx_bytes", 48, 8),
	UINT_F("tx_unicast", 56, 8), UINT_F("tx_mcastbcast", 64, 8),
	UINT_F("tx_untagged", 72, 8), UINT_F("tx_vlan", 80, 8),
	UINT_F("tx_64_size", 88, 8), UINT_F("tx_65_127", 96, 8),
	UINT_F("tx_128_255", 104, 8), UINT_F("tx_256_511", 112, 8),
	UINT_F("tx_512_1023", 120, 8), UINT_F("tx_1024_1518", 128, 8),
	UINT_F("tx_1519_max", 136, 8),
	UINT_F("rx_unicast", 144, 8), UINT_F("rx_mcastbcast", 152, 8),
	UINT_F("rx_untagged", 160, 8), UINT_F("rx_vlan", 168, 8),
	UINT_F("rx_64_size", 176, 8), UINT_F("rx_65_127", 184, 8),
	UINT_F("rx_128_255", 192, 8), UINT_F("rx_256_511", 200, 8),
	UINT_F("rx_512_1023", 208, 8), UINT_F("rx_1024_1518", 216, 8),
	UINT_F("rx_1519_max", 224, 8),
};

/* §2.8 */
static const struct field error_fields[] = {
	COUNTER_HEAD,
	UINT_F("tx_smac_filt", 32, 8),
	UINT_F("tx_dlid_zero", 64, 8),
	UINT_F("tx_logic", 80, 8),
	UINT_F("tx_drop_state", 96, 8),
	UINT_F("rx_bad_veswid", 104, 8),
	UINT_F("rx_runt", 120, 8),
	UINT_F("rx_oversize", 128, 8),
	UINT_F("rx_eth_down", 144, 8),
	UINT_F("rx_drop_state", 152, 8),
	UINT_F("rx_logic", 160, 8),
};

struct field_table {
	const struct field *fields;
	size_t n;
	size_t len;		/* bytes of the attribute */
};

#define TABLE(f, l) { (f), sizeof(f) / sizeof((f)[0]), (l) }
static const struct field_table cpi_table = TABLE(cpi_fields, CPI_LEN);
static const struct field_table port_table = TABLE(port_fields, PORT_INFO_LEN);
static const struct field_table summary_table = TABLE(summary_fields, SUMMARY_LEN);
static const struct field_table error_table = TABLE(error_fields, ERRORS_LEN);

/* The command line's names for fields the reference names otherwise. */
static const struct {
	const char *alias, *name;
} key_aliases[] = {
	{ "base_mac", "base_mac_addr" },
};

static uint64_t get_be(const uint8_t *p, size_t size)
{
	uint64_t v = 0;

	for (size_t i = 0; i < size; i++)
		v = v << 8 | p[i];
	return v;
}

static void put_be(uint8_t *p, size_t size, uint64_t v)
{
	for (size_t i = size; i-- > 0; v >>= 8)
		p[i] = (uint8_t)v;
}

static void format_mac(const uint8_t *m, char out[18])
{
	snprintf(out, 18, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
}

static int parse_mac(const char *s, uint8_t m[6])
{
	unsigned int b[6];
	char end;

	if (strlen(s) != 17 || sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3],
				      &b[4], &b[5], &end) != 6)
		return -EINVAL;
	for (int i = 0; i < 6; i++)
		m[i] = (uint8_t)b[i];
	return 0;
}

/* A whole decimal or 0x number no larger than max. */
static int parse_uint(const char *s, uint64_t max, uint64_t *v)
{
	char *end;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 0);
	if (errno || *end || *v > max)
		return -EINVAL;
	return 0;
}

static uint64_t uint_max(size_t size)
{
	return size >= 8 ? UINT64_MAX : (UINT64_C(1) << (8 * size)) - 1;
}

static void fields_to_json(const struct field_table *t, const uint8_t *data,
			   struct json_object *obj)
{
	char text[40];

	for (size_t i = 0; i < t->n; i++) {
		const struct field *f = &t->fields[i];
		const uint8_t *p = data + f->off;
		struct json_object *arr;

		switch (f->kind) {
		case FK_UINT:
			json_add_uint(obj, f->name, get_be(p, f->size));
			break;
		case FK_MAC:
			format_mac(p, text);
			json_add_string(obj, f->name, text);
			break;
		case FK_GID:
			hex_encode(p, 16, text);
			json_add_string(obj, f->name, text);
			break;
		case FK_HIGH5:
			json_add_uint(obj, f->name, p[0] >> 3);
			break;
		case FK_BYTES:
		case FK_BE32S:
			arr = json_object_new_array();
			for (size_t j = 0; j < f->count; j++)
				json_object_array_add(arr, json_object_new_uint64(
					f->kind == FK_BYTES ? p[j] : dp_get_be32(p + 4 * j)));
			json_object_object_add(obj, f->name, arr);
			break;
		}
	}
}

static int parse_symbolic(const struct field *f, const char *s, uint64_t max, uint64_t *v)
{
	for (const struct symbol *y = f->symbols; y && y->name; y++) {
		if (!strcmp(s, y->name)) {
			*v = y->value;
			return 0;
		}
	}
	return parse_uint(s, max, v);
}

/* One element of an array field. */
static int set_element(const struct field *f, uint8_t *p, size_t idx, const char *s)
{
	uint64_t v;

	if (idx >= f->count || parse_uint(s, f->kind == FK_BYTES ? 0xff : 0xffffffff, &v))
		return -EINVAL;
	if (f->kind == FK_BYTES)
		p[idx] = (uint8_t)v;
	else
		dp_put_be32(p + 4 * idx, (uint32_t)v);
	return 0;
}

/* "a,b,c": exactly count elements. */
static int set_array(const struct field *f, uint8_t *p, const char *s)
{
	char buf[256], *save, *tok;
	size_t n = 0;

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (set_element(f, p, n++, tok))
			return -EINVAL;
	return n == f->count ? 0 : -EINVAL;
}

/* Applies "key=value" (key may be "name.N" for one element of an array) to data. */
static int field_assign(const struct field_table *t, uint8_t *data, const char *assignment)
{
	char key[64];
	const char *eq = strchr(assignment, '='), *value, *dot;
	size_t klen;
	uint64_t v, idx;

	if (!eq || (klen = (size_t)(eq - assignment)) == 0 || klen >= sizeof(key))
		return -EINVAL;
	memcpy(key, assignment, klen);
	key[klen] = '\0';
	value = eq + 1;
	for (size_t i = 0; i < sizeof(key_aliases) / sizeof(key_aliases[0]); i++)
		if (!strcmp(key, key_aliases[i].alias))
			strcpy(key, key_aliases[i].name);
	dot = strchr(key, '.');
	for (size_t i = 0; i < t->n; i++) {
		const struct field *f = &t->fields[i];
		uint8_t *p = data + f->off;
		size_t nlen = dot ? (size_t)(dot - key) : strlen(key);

		if (strlen(f->name) != nlen || strncmp(f->name, key, nlen))
			continue;
		if (dot) {
			if (f->kind != FK_BYTES && f->kind != FK_BE32S)
				return -EINVAL;
			if (parse_uint(dot + 1, f->count - 1, &idx))
				return -EINVAL;
			return set_element(f, p, idx, value);
		}
		switch (f->kind) {
		case FK_UINT:
			if (parse_symbolic(f, value, uint_max(f->size), &v))
				return -EINVAL;
			put_be(p, f->size, v);
			return 0;
		case FK_MAC:
			return parse_mac(value, p);
		case FK_GID:
			return hex_decode(value, p, 16);
		case FK_HIGH5:
			if (parse_uint(value, 31, &v))
				return -EINVAL;
			p[0] = (uint8_t)((p[0] & 7) | v << 3);
			return 0;
		default:
			return set_array(f, p, value);
		}
	}
	return -ENOENT;
}

/* ---- The fabric: our socket, the map, 9B MAD packets ---- */

struct node {
	uint16_t lid;
	struct sockaddr_storage addr;
	socklen_t addr_len;
};

/* A MAD as received: its 9B addressing and its bytes (bounded by OPA9B_MAD_MAX). */
struct rx_mad {
	struct opa9b_mad_addr addr;
	uint8_t mad[OPA9B_MAD_MAX];
	size_t len;
};

struct trap_seen {
	uint8_t opcode;
	uint8_t vport;
};

struct em {
	uint16_t lid;
	uint8_t sl;
	uint16_t pkey;
	int timeout_ms;
	int fd;
	int family;
	struct node nodes[MAX_NODES];
	size_t n_nodes;
	uint32_t seq;		/* low 32 bits of our TIDs and the PSN */
	/* Traps already printed that no wait-trap took yet (oldest dropped when full). */
	struct trap_seen backlog[TRAP_BACKLOG];
	size_t n_backlog;
};

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void print_json(struct json_object *obj)
{
	fputs(json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PLAIN), stdout);
	fputc('\n', stdout);
	fflush(stdout);
}

/* "HOST:PORT" (numeric IPv4) or "[IPv6]:PORT". */
static int parse_address(const char *s, struct sockaddr_storage *ss, socklen_t *len)
{
	char host[INET6_ADDRSTRLEN + 2];
	const char *port;
	struct addrinfo hints = { .ai_socktype = SOCK_DGRAM,
				  .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV };
	struct addrinfo *res;
	size_t hlen;

	if (s[0] == '[') {
		const char *close = strchr(s, ']');

		if (!close || close[1] != ':')
			return -EINVAL;
		hlen = (size_t)(close - s - 1);
		s++;
		port = close + 2;
	} else {
		const char *colon = strrchr(s, ':');

		if (!colon)
			return -EINVAL;
		hlen = (size_t)(colon - s);
		port = colon + 1;
	}
	if (hlen == 0 || hlen >= sizeof(host) || !*port)
		return -EINVAL;
	memcpy(host, s, hlen);
	host[hlen] = '\0';
	if (getaddrinfo(host, port, &hints, &res))
		return -EINVAL;
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*len = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

static int parse_lid(const char *s, uint16_t *lid)
{
	uint64_t v;

	/* A 9B packet carries unicast LIDs 1 .. 0xBFFF (docs/opa-fabric.md). */
	if (parse_uint(s, 0xbfff, &v) || v == 0)
		return -EINVAL;
	*lid = (uint16_t)v;
	return 0;
}

static const struct node *find_node(const struct em *em, uint16_t lid)
{
	for (size_t i = 0; i < em->n_nodes; i++)
		if (em->nodes[i].lid == lid)
			return &em->nodes[i];
	return NULL;
}

static int send_mad(struct em *em, uint16_t lid, const uint8_t *mad, size_t len)
{
	uint8_t dgram[1 + OPA9B_MAX_PKT];
	struct opa9b_mad_addr a = {
		.sc = em->sl,		/* an identity SL-to-SC map */
		.sl = em->sl,
		.dlid = lid,
		.slid = em->lid,
		.pkey = em->pkey,
		.src_qp = OPA9B_GSI_QP,
		.psn = em->seq & 0xffffff,
	};
	const struct node *n = find_node(em, lid);
	enum opa_reason r;
	size_t plen;

	if (!n) {
		fprintf(stderr, "opa-em: LID %u is not in the map (--node)\n", lid);
		return EM_USAGE;
	}
	dgram[0] = 0x09;
	r = opa9b_mad_build(&a, mad, len, dgram + 1, sizeof(dgram) - 1, &plen);
	if (r != OPA_OK) {
		fprintf(stderr, "opa-em: cannot build the packet: %s\n", opa_reason_name(r));
		return EM_USAGE;
	}
	if (sendto(em->fd, dgram, plen + 1, 0, (const struct sockaddr *)&n->addr,
		   n->addr_len) < 0) {
		fprintf(stderr, "opa-em: send to LID %u: %s\n", lid, strerror(errno));
		return EM_SYSTEM;
	}
	return EM_OK;
}

/*
 * Waits until deadline for the next MAD addressed to us.  0 and *rx filled, -ETIMEDOUT,
 * or -errno.  Datagrams that are not a valid 9B MAD packet to our LID are reported on
 * stderr and skipped: everything from the fabric is checked before use.
 */
static int recv_mad(struct em *em, long long deadline, struct rx_mad *rx)
{
	uint8_t dgram[1 + OPA9B_MAX_PKT + 1];	/* one spare byte shows an oversized one */
	struct opa9b_mad_pkt pkt;

	for (;;) {
		long long left = deadline - now_ms();
		struct pollfd pfd = { .fd = em->fd, .events = POLLIN };
		enum opa_reason r;
		ssize_t n;
		int ret;

		if (left <= 0)
			return -ETIMEDOUT;
		ret = poll(&pfd, 1, left > 60000 ? 60000 : (int)left);
		if (ret < 0 && errno != EINTR)
			return -errno;
		if (ret <= 0)
			continue;
		n = recv(em->fd, dgram, sizeof(dgram), 0);
		if (n < 0) {
			/* ICMP port unreachable from an earlier send shows up here: not ours. */
			if (errno == EINTR || errno == EAGAIN || errno == ECONNREFUSED)
				continue;
			return -errno;
		}
		if (n < 1 || dgram[0] != 0x09) {
			fprintf(stderr, "opa-em: ignored a datagram of %zd bytes, type 0x%02x\n", n,
				n ? dgram[0] : 0);
			continue;
		}
		r = opa9b_mad_parse(dgram + 1, (size_t)n - 1, &pkt);
		if (r != OPA_OK) {
			fprintf(stderr, "opa-em: dropped a MAD packet: %s\n", opa_reason_name(r));
			continue;
		}
		if (pkt.addr.dlid != em->lid) {
			fprintf(stderr, "opa-em: dropped a MAD packet for DLID %u\n", pkt.addr.dlid);
			continue;
		}
		rx->addr = pkt.addr;
		rx->len = pkt.mad_len;
		memcpy(rx->mad, pkt.mad, pkt.mad_len);
		return 0;
	}
}

/* ---- Received MADs: traps and the rest ---- */

static uint64_t mad_tid(const uint8_t *mad)
{
	return get_be(mad + MAD_OFF_TID, 8);
}

static bool is_vema_trap(const struct rx_mad *rx)
{
	return rx->len >= MAD_HDR_LEN + TRAP_MIN_DATA && rx->mad[0] == MAD_BASE_VERSION &&
	       rx->mad[1] == MAD_CLASS_EMA && rx->mad[3] == MAD_METHOD_TRAP &&
	       dp_get_be16(rx->mad + MAD_OFF_ATTR_ID) == ATTR_NOTICE;
}

static const char *trap_opcode_name(unsigned int opcode)
{
	switch (opcode) {
	case 1:
		return "iface_ucast_mac_change";
	case 2:
		return "iface_mcast_mac_change";
	case 3:
		return "eth_link_status_change";
	default:
		return "unknown";
	}
}

static void add_packet_fields(struct json_object *obj, const struct rx_mad *rx)
{
	json_add_uint(obj, "slid", rx->addr.slid);
	json_add_uint(obj, "dlid", rx->addr.dlid);
	json_add_uint(obj, "sl", rx->addr.sl);
	json_add_uint(obj, "pkey", rx->addr.pkey);
	json_add_uint(obj, "mad_len", rx->len);
}

static void add_hex(struct json_object *obj, const char *key, const uint8_t *p, size_t n)
{
	char *text = malloc(2 * n + 1);

	if (!text)
		abort();
	hex_encode(p, n, text);
	json_add_string(obj, key, text);
	free(text);
}

/* Prints a trap (§3.2) and keeps it for a later wait-trap. */
static void print_trap(struct em *em, const struct rx_mad *rx)
{
	const uint8_t *notice = rx->mad + MAD_HDR_LEN;
	const uint8_t *rec = notice + TRAP_RECORD_OFF;
	struct json_object *obj = json_object_new_object();
	char oui[9];

	json_add_string(obj, "type", "trap");
	add_packet_fields(obj, rx);
	json_add_uint(obj, "tid", mad_tid(rx->mad));
	json_add_uint(obj, "attr_mod", dp_get_be32(rx->mad + MAD_OFF_ATTR_MOD));
	json_add_uint(obj, "gen_type", notice[0]);
	snprintf(oui, sizeof(oui), "%02x:%02x:%02x", notice[1], notice[2], notice[3]);
	json_add_string(obj, "oui", oui);
	json_add_uint(obj, "trap_num", dp_get_be16(notice + 4));
	json_add_uint(obj, "toggle_count", dp_get_be16(notice + 6));
	json_add_uint(obj, "issuer_lid", dp_get_be32(notice + 8));
	json_add_uint(obj, "fabric_id", dp_get_be16(rec + 0));
	json_add_uint(obj, "veswid", dp_get_be16(rec + 2));
	json_add_uint(obj, "veswportnum", dp_get_be32(rec + 4));
	json_add_uint(obj, "opaportnum", dp_get_be16(rec + 8));
	json_add_uint(obj, "veswportindex", rec[10]);
	json_add_uint(obj, "opcode", rec[11]);
	json_add_string(obj, "opcode_name", trap_opcode_name(rec[11]));
	print_json(obj);
	json_object_put(obj);

	if (em->n_backlog == TRAP_BACKLOG) {
		memmove(em->backlog, em->backlog + 1, sizeof(em->backlog) - sizeof(em->backlog[0]));
		em->n_backlog--;
	}
	em->backlog[em->n_backlog++] = (struct trap_seen){ .opcode = rec[11], .vport = rec[10] };
}

/* Anything that is neither a trap nor the reply awaited: its header and its bytes. */
static void print_other(const struct rx_mad *rx)
{
	struct json_object *obj = json_object_new_object();

	json_add_string(obj, "type", "mad");
	add_packet_fields(obj, rx);
	json_add_uint(obj, "tid", mad_tid(rx->mad));
	json_add_uint(obj, "mgmt_class", rx->mad[1]);
	json_add_uint(obj, "method", rx->mad[3]);
	json_add_uint(obj, "status", dp_get_be16(rx->mad + MAD_OFF_STATUS));
	json_add_uint(obj, "attr_id", dp_get_be16(rx->mad + MAD_OFF_ATTR_ID));
	add_hex(obj, "hex", rx->mad, rx->len);
	print_json(obj);
	json_object_put(obj);
}

static void print_unsolicited(struct em *em, const struct rx_mad *rx)
{
	if (is_vema_trap(rx))
		print_trap(em, rx);
	else
		print_other(rx);
}

/*
 * Waits for the reply (any MAD but a Trap) carrying tid, printing whatever else arrives.
 * EM_OK, EM_TIMEOUT or EM_SYSTEM.
 */
static int wait_reply(struct em *em, uint64_t tid, struct rx_mad *rx)
{
	long long deadline = now_ms() + em->timeout_ms;
	int ret;

	while ((ret = recv_mad(em, deadline, rx)) == 0) {
		if (rx->mad[3] != MAD_METHOD_TRAP && mad_tid(rx->mad) == tid)
			return EM_OK;
		print_unsolicited(em, rx);
	}
	if (ret == -ETIMEDOUT)
		return EM_TIMEOUT;
	fprintf(stderr, "opa-em: receive: %s\n", strerror(-ret));
	return EM_SYSTEM;
}

/* ---- Requests and replies ---- */

struct request {
	const char *command;
	uint16_t lid;
	int vport;		/* -1: the attribute has none */
	uint8_t method;
	uint16_t attr_id;
	uint8_t mad[OPA9B_MAD_MAX];	/* always sent whole (docs/decisions.md) */
};

static void request_init(struct em *em, struct request *req, const char *command, uint16_t lid,
			 int vport, uint8_t method, uint16_t attr_id)
{
	uint8_t *m = req->mad;

	memset(req, 0, sizeof(*req));
	req->command = command;
	req->lid = lid;
	req->vport = vport;
	req->method = method;
	req->attr_id = attr_id;
	m[0] = MAD_BASE_VERSION;
	m[1] = MAD_CLASS_EMA;
	m[2] = MAD_CLASS_VERSION;
	m[3] = method;
	/* The pid in the upper half keeps a late reply to an earlier run from matching. */
	em->seq++;
	put_be(m + MAD_OFF_TID, 8, (uint64_t)(getpid() & 0xffff) << 32 | em->seq);
	dp_put_be16(m + MAD_OFF_ATTR_ID, attr_id);
	dp_put_be32(m + MAD_OFF_ATTR_MOD, vport < 0 ? 0 : (uint32_t)vport);
	memcpy(m + MAD_OFF_OUI, intel_oui, sizeof(intel_oui));
}

static uint8_t *request_data(struct request *req)
{
	return req->mad + MAD_HDR_LEN;
}

static int transact(struct em *em, const struct request *req, struct rx_mad *rx)
{
	int ret = send_mad(em, req->lid, req->mad, sizeof(req->mad));

	if (ret != EM_OK)
		return ret;
	ret = wait_reply(em, mad_tid(req->mad), rx);
	if (ret == EM_TIMEOUT)
		fprintf(stderr, "opa-em: %s: no reply from LID %u within %d ms\n", req->command,
			req->lid, em->timeout_ms);
	return ret;
}

/* What in a reply's header is not what the request asks for, or NULL. */
static const char *reply_header_problem(const struct request *req, const struct rx_mad *rx)
{
	const uint8_t *m = rx->mad;

	if (m[0] != MAD_BASE_VERSION)
		return "base_version is not 0x80";
	if (m[1] != MAD_CLASS_EMA)
		return "mgmt_class is not 0x34";
	if (m[2] != MAD_CLASS_VERSION)
		return "class_version is not 0x80";
	if (m[3] != MAD_METHOD_GETRESP)
		return "method is not GetResp (0x81)";
	if (dp_get_be16(m + MAD_OFF_ATTR_ID) != req->attr_id)
		return "attr_id is not the request's";
	if (memcmp(m + MAD_OFF_ATTR_MOD, req->mad + MAD_OFF_ATTR_MOD, 4))
		return "attr_mod is not the request's";
	if (rx->len >= MAD_HDR_LEN && memcmp(m + MAD_OFF_OUI, intel_oui, sizeof(intel_oui)))
		return "oui is not 00:06:6a";
	if (rx->addr.slid != req->lid)
		return "SLID is not the LID asked";
	return NULL;
}

static const char *status_name(unsigned int status)
{
	switch (status) {
	case 0x0000:
		return "success";
	case 0x0004:
		return "bad_version";
	case 0x0008:
		return "unsupported_method";
	case 0x000c:
		return "unsupported_method_attrib";
	case 0x001c:
		return "invalid_attrib_value";
	default:
		return "other";
	}
}

/* The object every reply line starts with. */
static struct json_object *reply_object(const struct request *req, const struct rx_mad *rx)
{
	struct json_object *obj = json_object_new_object();
	unsigned int status = dp_get_be16(rx->mad + MAD_OFF_STATUS);

	json_add_string(obj, "type", "reply");
	json_add_string(obj, "command", req->command);
	json_add_uint(obj, "lid", req->lid);
	if (req->vport >= 0)
		json_add_uint(obj, "vport", (uint64_t)req->vport);
	json_add_uint(obj, "tid", mad_tid(rx->mad));
	json_add_uint(obj, "status", status);
	json_add_string(obj, "status_name", status_name(status));
	json_add_uint(obj, "mad_len", rx->len);
	return obj;
}

/*
 * Prints the reply line and says how the command ends: a reply with status != 0, a header
 * that does not answer the request, or (status 0) too few bytes for the attribute fail.
 */
static int finish_reply(const struct request *req, const struct rx_mad *rx,
			struct json_object *obj, size_t need)
{
	unsigned int status = dp_get_be16(rx->mad + MAD_OFF_STATUS);
	const char *problem = reply_header_problem(req, rx);
	int ret = EM_OK;

	if (problem) {
		json_add_string(obj, "error", problem);
		fprintf(stderr, "opa-em: %s: reply from LID %u: %s\n", req->command, req->lid,
			problem);
		ret = EM_STATUS;
	} else if (status) {
		fprintf(stderr, "opa-em: %s: LID %u answered status 0x%04x (%s)\n", req->command,
			req->lid, status, status_name(status));
		ret = EM_STATUS;
	} else if (rx->len < MAD_HDR_LEN + need) {
		json_add_string(obj, "error", "reply too short");
		fprintf(stderr, "opa-em: %s: reply of %zu bytes, %zu needed\n", req->command,
			rx->len, MAD_HDR_LEN + need);
		ret = EM_STATUS;
	}
	print_json(obj);
	json_object_put(obj);
	return ret;
}

/* A reply carrying one fixed-layout attribute, all of whose fields are printed. */
static int print_table_reply(const struct request *req, const struct rx_mad *rx,
			     const struct field_table *t)
{
	struct json_object *obj = reply_object(req, rx);

	if (rx->len >= MAD_HDR_LEN + t->len)
		fields_to_json(t, rx->mad + MAD_HDR_LEN, obj);
	return finish_reply(req, rx, obj, t->len);
}

/* ---- Commands ---- */

struct args {
	int argc;
	char **argv;
};

static int usage_error(const char *command, const char *what)
{
	fprintf(stderr, "opa-em: %s: %s\n", command, what);
	return EM_USAGE;
}

static int arg_lid(const struct args *a, int i, uint16_t *lid)
{
	if (i >= a->argc || parse_lid(a->argv[i], lid))
		return usage_error(a->argv[0], "LID must be 1 .. 0xbfff");
	return EM_OK;
}

static int arg_vport(const struct args *a, int i, int *vport)
{
	uint64_t v;

	/* The agent reads attr_mod & 0xff (§1.2); larger values go out as given. */
	if (i >= a->argc || parse_uint(a->argv[i], 0xffffffff, &v))
		return usage_error(a->argv[0], "VPORT must be a number (0 .. 255)");
	*vport = (int)v;
	return EM_OK;
}

static int arg_uint(const struct args *a, int i, uint64_t max, uint64_t *v, const char *what)
{
	if (i >= a->argc || parse_uint(a->argv[i], max, v))
		return usage_error(a->argv[0], what);
	return EM_OK;
}

/* LID [VPORT]: the two arguments every attribute command starts with. */
static int args_target(const struct args *a, bool with_vport, uint16_t *lid, int *vport)
{
	int ret = arg_lid(a, 1, lid);

	*vport = -1;
	if (ret == EM_OK && with_vport)
		ret = arg_vport(a, 2, vport);
	return ret;
}

static int too_many(const struct args *a, int max)
{
	return a->argc > max ? usage_error(a->argv[0], "too many arguments") : EM_OK;
}

/* get-cpi, get-port, get-counters, get-errors, delete-port: one request, one table. */
static int cmd_simple(struct em *em, const struct args *a, uint8_t method, uint16_t attr_id,
		      bool with_vport, const struct field_table *t)
{
	struct request req;
	struct rx_mad rx;
	uint16_t lid;
	int vport, ret;

	if ((ret = args_target(a, with_vport, &lid, &vport)) ||
	    (ret = too_many(a, with_vport ? 3 : 2)))
		return ret;
	request_init(em, &req, a->argv[0], lid, vport, method, attr_id);
	if ((ret = transact(em, &req, &rx)))
		return ret;
	return print_table_reply(&req, &rx, t);
}

static int cmd_get_cpi(struct em *em, const struct args *a)
{
	return cmd_simple(em, a, MAD_METHOD_GET, ATTR_CPI, false, &cpi_table);
}

static int cmd_get_port(struct em *em, const struct args *a)
{
	return cmd_simple(em, a, MAD_METHOD_GET, ATTR_PORT_INFO, true, &port_table);
}

static int cmd_delete_port(struct em *em, const struct args *a)
{
	return cmd_simple(em, a, MAD_METHOD_SET, ATTR_DELETE_VESW, true, &port_table);
}

static int cmd_get_counters(struct em *em, const struct args *a)
{
	return cmd_simple(em, a, MAD_METHOD_GET, ATTR_SUMMARY, true, &summary_table);
}

static int cmd_get_errors(struct em *em, const struct args *a)
{
	return cmd_simple(em, a, MAD_METHOD_GET, ATTR_ERRORS, true, &error_table);
}

/*
 * set-cpi and set-port: as an EM does, Get the block, change only the keys given, Set the
 * whole block back.  The Get is not printed; a failing Get ends the command.
 */
static int cmd_read_modify_write(struct em *em, const struct args *a, uint16_t attr_id,
				 bool with_vport, const struct field_table *t)
{
	struct request get, set;
	struct rx_mad rx;
	int first = with_vport ? 3 : 2, vport, ret;
	uint16_t lid;

	if ((ret = args_target(a, with_vport, &lid, &vport)))
		return ret;
	if (first >= a->argc)
		return usage_error(a->argv[0], "no key=value given");
	request_init(em, &set, a->argv[0], lid, vport, MAD_METHOD_SET, attr_id);
	/* Check every key before anything goes out, on a scratch block. */
	for (int i = first; i < a->argc; i++) {
		int r = field_assign(t, request_data(&set), a->argv[i]);

		if (r) {
			fprintf(stderr, "opa-em: %s: %s '%s'\n", a->argv[0],
				r == -ENOENT ? "unknown key" : "bad value in", a->argv[i]);
			return EM_USAGE;
		}
	}
	request_init(em, &get, a->argv[0], lid, vport, MAD_METHOD_GET, attr_id);
	if ((ret = transact(em, &get, &rx)))
		return ret;
	if (dp_get_be16(rx.mad + MAD_OFF_STATUS) || reply_header_problem(&get, &rx) ||
	    rx.len < MAD_HDR_LEN + t->len)
		return print_table_reply(&get, &rx, t);
	memcpy(request_data(&set), rx.mad + MAD_HDR_LEN, t->len);
	for (int i = first; i < a->argc; i++)
		field_assign(t, request_data(&set), a->argv[i]);
	if ((ret = transact(em, &set, &rx)))
		return ret;
	return print_table_reply(&set, &rx, t);
}

static int cmd_set_cpi(struct em *em, const struct args *a)
{
	return cmd_read_modify_write(em, a, ATTR_CPI, false, &cpi_table);
}

static int cmd_set_port(struct em *em, const struct args *a)
{
	return cmd_read_modify_write(em, a, ATTR_PORT_INFO, true, &port_table);
}

/* The MAC entries of a 0x0012 reply (§2.4), as many as it says and its length holds. */
static int print_mac_table(const struct request *req, const struct rx_mad *rx)
{
	struct json_object *obj = reply_object(req, rx), *entries;
	const uint8_t *d = rx->mad + MAD_HDR_LEN;
	size_t avail, n, offset;
	char mac[18];

	if (rx->len < MAD_HDR_LEN + MACTBL_HDR)
		return finish_reply(req, rx, obj, MACTBL_HDR);
	offset = dp_get_be16(d);
	n = dp_get_be16(d + 2);
	json_add_uint(obj, "offset", offset);
	json_add_uint(obj, "num_entries", n);
	json_add_uint(obj, "mac_tbl_digest", dp_get_be32(d + 4));
	avail = (rx->len - MAD_HDR_LEN - MACTBL_HDR) / MACTBL_ENTRY;
	if (n > avail) {
		json_add_bool(obj, "truncated", true);
		n = avail;
	}
	entries = json_object_new_array();
	for (size_t i = 0; i < n; i++) {
		const uint8_t *e = d + MACTBL_HDR + i * MACTBL_ENTRY;
		struct json_object *entry = json_object_new_object();
		uint32_t dlid_sd = dp_get_be32(e + 12);

		json_add_uint(entry, "index", offset + i);
		format_mac(e, mac);
		json_add_string(entry, "mac_addr", mac);
		format_mac(e + 6, mac);
		json_add_string(entry, "mac_addr_mask", mac);
		json_add_uint(entry, "dlid", dlid_sd >> 8);
		json_add_uint(entry, "sd", dlid_sd & 0xff);
		json_object_array_add(entries, entry);
	}
	json_object_object_add(obj, "entries", entries);
	return finish_reply(req, rx, obj, MACTBL_HDR);
}

static int cmd_get_macs(struct em *em, const struct args *a)
{
	struct request req;
	struct rx_mad rx;
	uint64_t offset, count;
	uint16_t lid;
	int vport, ret;

	if ((ret = args_target(a, true, &lid, &vport)) ||
	    (ret = arg_uint(a, 3, 0xffff, &offset, "OFFSET must be 0 .. 65535")) ||
	    (ret = arg_uint(a, 4, 0xffff, &count, "COUNT must be 0 .. 65535")) ||
	    (ret = too_many(a, 5)))
		return ret;
	/* Out-of-range values go out as given: refusing them is the agent's job (§2.4). */
	request_init(em, &req, a->argv[0], lid, vport, MAD_METHOD_GET, ATTR_MAC_TABLE);
	dp_put_be16(request_data(&req), (uint16_t)offset);
	dp_put_be16(request_data(&req) + 2, (uint16_t)count);
	if ((ret = transact(em, &req, &rx)))
		return ret;
	return print_mac_table(&req, &rx);
}

/* "MAC=DLID[/SD]" into a 16-byte entry; the mask is all ones, or zero for a deletion. */
static int parse_mac_entry(const char *s, uint8_t *e)
{
	char mac[18], *slash;
	const char *eq = strchr(s, '=');
	char rest[32];
	uint64_t dlid, sd = 0;

	if (!eq || eq - s != 17 || strlen(eq + 1) >= sizeof(rest))
		return -EINVAL;
	memcpy(mac, s, 17);
	mac[17] = '\0';
	strcpy(rest, eq + 1);
	slash = strchr(rest, '/');
	if (slash) {
		*slash = '\0';
		if (parse_uint(slash + 1, 0xff, &sd))
			return -EINVAL;
	}
	if (parse_mac(mac, e) || parse_uint(rest, 0xffffff, &dlid))
		return -EINVAL;
	memset(e + 6, memcmp(e, "\0\0\0\0\0\0", 6) ? 0xff : 0, 6);
	dp_put_be32(e + 12, (uint32_t)(dlid << 8 | sd));
	return 0;
}

static int cmd_set_macs(struct em *em, const struct args *a)
{
	struct request req;
	struct rx_mad rx;
	uint64_t offset, digest;
	uint16_t lid;
	int vport, ret, n = a->argc - 5;
	uint8_t *d;

	if ((ret = args_target(a, true, &lid, &vport)) ||
	    (ret = arg_uint(a, 3, 0xffff, &offset, "OFFSET must be 0 .. 65535")) ||
	    (ret = arg_uint(a, 4, 0xffffffff, &digest, "DIGEST must be a 32-bit number")))
		return ret;
	if (n < 1 || n > (int)MACTBL_PER_MAD)
		return usage_error(a->argv[0], "give 1 .. 125 MAC=DLID[/SD] entries");
	request_init(em, &req, a->argv[0], lid, vport, MAD_METHOD_SET, ATTR_MAC_TABLE);
	d = request_data(&req);
	dp_put_be16(d, (uint16_t)offset);
	dp_put_be16(d + 2, (uint16_t)n);
	dp_put_be32(d + 4, (uint32_t)digest);
	for (int i = 0; i < n; i++)
		if (parse_mac_entry(a->argv[5 + i], d + MACTBL_HDR + i * MACTBL_ENTRY))
			return usage_error(a->argv[0], "an entry is not MAC=DLID[/SD]");
	if ((ret = transact(em, &req, &rx)))
		return ret;
	return print_mac_table(&req, &rx);
}

/* get-ucast / get-mcast (§2.5). */
static int cmd_get_iface_macs(struct em *em, const struct args *a, uint16_t attr_id)
{
	struct request req;
	struct rx_mad rx;
	struct json_object *obj, *macs;
	uint64_t start = 0, count = 0;
	const uint8_t *d;
	size_t n, avail;
	uint16_t lid;
	int vport, ret;
	char mac[18];

	if ((ret = args_target(a, true, &lid, &vport)) ||
	    (a->argc > 3 && (ret = arg_uint(a, 3, 0xffff, &start, "START must be 0 .. 65535"))) ||
	    (a->argc > 4 && (ret = arg_uint(a, 4, 0xffff, &count, "COUNT must be 0 .. 65535"))) ||
	    (ret = too_many(a, 5)))
		return ret;
	request_init(em, &req, a->argv[0], lid, vport, MAD_METHOD_GET, attr_id);
	dp_put_be16(request_data(&req), (uint16_t)start);
	dp_put_be16(request_data(&req) + 2, (uint16_t)count);
	if ((ret = transact(em, &req, &rx)))
		return ret;
	obj = reply_object(&req, &rx);
	if (rx.len < MAD_HDR_LEN + IFMACS_HDR)
		return finish_reply(&req, &rx, obj, IFMACS_HDR);
	d = rx.mad + MAD_HDR_LEN;
	n = dp_get_be16(d + 2);
	json_add_uint(obj, "start_idx", dp_get_be16(d));
	json_add_uint(obj, "num_macs_in_msg", n);
	json_add_uint(obj, "tot_macs_in_lst", dp_get_be16(d + 4));
	json_add_uint(obj, "gen_count", dp_get_be16(d + 6));
	avail = (rx.len - MAD_HDR_LEN - IFMACS_HDR) / 6;
	if (n > avail) {
		json_add_bool(obj, "truncated", true);
		n = avail;
	}
	macs = json_object_new_array();
	for (size_t i = 0; i < n; i++) {
		format_mac(d + IFMACS_HDR + 6 * i, mac);
		json_object_array_add(macs, json_object_new_string(mac));
	}
	json_object_object_add(obj, "macs", macs);
	return finish_reply(&req, &rx, obj, IFMACS_HDR);
}

static int cmd_get_ucast(struct em *em, const struct args *a)
{
	return cmd_get_iface_macs(em, a, ATTR_UCAST_MACS);
}

static int cmd_get_mcast(struct em *em, const struct args *a)
{
	return cmd_get_iface_macs(em, a, ATTR_MCAST_MACS);
}

/* raw LID HEX...: the words are joined; blanks and ":.-_" between digits are ignored. */
static int cmd_raw(struct em *em, const struct args *a)
{
	uint8_t mad[OPA9B_MAD_MAX];
	char digits[2 * OPA9B_MAD_MAX + 1];
	size_t nd = 0;
	struct rx_mad rx;
	struct json_object *obj;
	uint16_t lid;
	uint64_t tid;
	int ret;

	if ((ret = arg_lid(a, 1, &lid)))
		return ret;
	for (int i = 2; i < a->argc; i++)
		for (const char *p = a->argv[i]; *p; p++) {
			if (strchr(" \t:.-_", *p))
				continue;
			if (nd == sizeof(digits) - 1)
				return usage_error(a->argv[0], "more than 2048 bytes");
			digits[nd++] = *p;
		}
	digits[nd] = '\0';
	if (nd % 2 || nd / 2 < OPA9B_MAD_MIN || hex_decode(digits, mad, nd / 2))
		return usage_error(a->argv[0], "HEX must be 24 .. 2048 bytes of hex digits");
	em->seq++;
	if ((ret = send_mad(em, lid, mad, nd / 2)))
		return ret;
	tid = mad_tid(mad);
	ret = wait_reply(em, tid, &rx);
	if (ret == EM_SYSTEM)
		return ret;
	obj = json_object_new_object();
	json_add_string(obj, "type", "reply");
	json_add_string(obj, "command", "raw");
	json_add_uint(obj, "lid", lid);
	json_add_uint(obj, "tid", tid);
	if (ret == EM_TIMEOUT) {
		json_object_object_add(obj, "reply", NULL);
	} else {
		add_hex(obj, "reply", rx.mad, rx.len);
		add_packet_fields(obj, &rx);
		json_add_uint(obj, "method", rx.mad[3]);
		json_add_uint(obj, "status", dp_get_be16(rx.mad + MAD_OFF_STATUS));
	}
	print_json(obj);
	json_object_put(obj);
	return EM_OK;
}

static int cmd_listen(struct em *em, const struct args *a)
{
	uint64_t ms;
	long long deadline;
	struct rx_mad rx;
	int ret;

	if ((ret = arg_uint(a, 1, 86400000, &ms, "MS must be a number of milliseconds")) ||
	    (ret = too_many(a, 2)))
		return ret;
	deadline = now_ms() + (long long)ms;
	while ((ret = recv_mad(em, deadline, &rx)) == 0)
		print_unsolicited(em, &rx);
	if (ret == -ETIMEDOUT)
		return EM_OK;
	fprintf(stderr, "opa-em: receive: %s\n", strerror(-ret));
	return EM_SYSTEM;
}

/* Takes the first trap seen that matches, if any. */
static bool take_backlog(struct em *em, uint64_t opcode, int vport)
{
	for (size_t i = 0; i < em->n_backlog; i++) {
		const struct trap_seen *t = &em->backlog[i];

		if (t->opcode == opcode && (vport < 0 || t->vport == vport)) {
			memmove(&em->backlog[i], &em->backlog[i + 1],
				(em->n_backlog - i - 1) * sizeof(em->backlog[0]));
			em->n_backlog--;
			return true;
		}
	}
	return false;
}

static int cmd_wait_trap(struct em *em, const struct args *a)
{
	uint64_t ms, opcode, vp;
	int vport = -1, ret;
	long long deadline;
	struct rx_mad rx;

	if ((ret = arg_uint(a, 1, 86400000, &ms, "MS must be a number of milliseconds")) ||
	    (ret = arg_uint(a, 2, 0xff, &opcode, "OPCODE must be 0 .. 255")) ||
	    (a->argc > 3 && (ret = arg_uint(a, 3, 0xff, &vp, "VPORT must be 0 .. 255"))) ||
	    (ret = too_many(a, 4)))
		return ret;
	if (a->argc > 3)
		vport = (int)vp;
	deadline = now_ms() + (long long)ms;
	while (!take_backlog(em, opcode, vport)) {
		ret = recv_mad(em, deadline, &rx);
		if (ret == -ETIMEDOUT) {
			fprintf(stderr, "opa-em: wait-trap: no trap of opcode %" PRIu64
				" within %" PRIu64 " ms\n", opcode, ms);
			return EM_TIMEOUT;
		}
		if (ret) {
			fprintf(stderr, "opa-em: receive: %s\n", strerror(-ret));
			return EM_SYSTEM;
		}
		print_unsolicited(em, &rx);
	}
	return EM_OK;
}

static const struct command {
	const char *name;
	int (*run)(struct em *em, const struct args *a);
} commands[] = {
	{ "get-cpi", cmd_get_cpi },
	{ "set-cpi", cmd_set_cpi },
	{ "get-port", cmd_get_port },
	{ "set-port", cmd_set_port },
	{ "delete-port", cmd_delete_port },
	{ "set-macs", cmd_set_macs },
	{ "get-macs", cmd_get_macs },
	{ "get-ucast", cmd_get_ucast },
	{ "get-mcast", cmd_get_mcast },
	{ "get-counters", cmd_get_counters },
	{ "get-errors", cmd_get_errors },
	{ "raw", cmd_raw },
	{ "listen", cmd_listen },
	{ "wait-trap", cmd_wait_trap },
};

static int run_command(struct em *em, int argc, char **argv)
{
	struct args a = { argc, argv };

	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[0], commands[i].name))
			return commands[i].run(em, &a);
	fprintf(stderr, "opa-em: unknown command '%s' (see opa-em(1))\n",
		argv[0]);
	return EM_USAGE;
}

/* One command per line; blank lines and '#' comments are skipped. */
static int run_stdin(struct em *em)
{
	char *line = NULL, *words[MAX_WORDS], *save;
	size_t cap = 0;
	int ret = EM_OK;

	while (ret == EM_OK && getline(&line, &cap, stdin) >= 0) {
		char *hash = strchr(line, '#');
		int n = 0;

		if (hash)
			*hash = '\0';
		for (char *w = strtok_r(line, " \t\r\n", &save); w;
		     w = strtok_r(NULL, " \t\r\n", &save)) {
			if (n == MAX_WORDS) {
				ret = usage_error("-", "line has too many words");
				break;
			}
			words[n++] = w;
		}
		if (ret == EM_OK && n)
			ret = run_command(em, n, words);
	}
	free(line);
	return ret;
}

/* COMMAND [-- COMMAND ...] from the command line. */
static int run_args(struct em *em, int argc, char **argv)
{
	int start = 0, ret = EM_OK;

	if (argc == 1 && !strcmp(argv[0], "-"))
		return run_stdin(em);
	for (int i = 0; i <= argc && ret == EM_OK; i++) {
		if (i < argc && strcmp(argv[i], "--"))
			continue;
		if (i == start)
			ret = usage_error("--", "empty command");
		else
			ret = run_command(em, i - start, argv + start);
		start = i + 1;
	}
	return ret;
}

static int add_node(struct em *em, const char *spec)
{
	const char *eq = strchr(spec, '=');
	char lid[32];
	struct node *n;

	if (em->n_nodes == MAX_NODES)
		return usage_error("--node", "too many nodes");
	if (!eq || (size_t)(eq - spec) >= sizeof(lid))
		return usage_error("--node", "expected LID=HOST:PORT");
	memcpy(lid, spec, (size_t)(eq - spec));
	lid[eq - spec] = '\0';
	n = &em->nodes[em->n_nodes];
	if (parse_lid(lid, &n->lid))
		return usage_error("--node", "LID must be 1 .. 0xbfff");
	if (parse_address(eq + 1, &n->addr, &n->addr_len))
		return usage_error("--node", "address must be IPv4:PORT or [IPv6]:PORT");
	em->n_nodes++;
	return EM_OK;
}

static int open_socket(struct em *em, const struct sockaddr_storage *ss, socklen_t len)
{
	for (size_t i = 0; i < em->n_nodes; i++)
		if (em->nodes[i].addr.ss_family != ss->ss_family)
			return usage_error("--node", "every address must be of --address's family");
	em->fd = socket(ss->ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (em->fd < 0 || bind(em->fd, (const struct sockaddr *)ss, len)) {
		fprintf(stderr, "opa-em: bind: %s\n", strerror(errno));
		return EM_SYSTEM;
	}
	return EM_OK;
}

static void usage(FILE *f)
{
	fputs("usage: opa-em --lid LID --address HOST:PORT --node LID=HOST:PORT [--node ...]\n"
	      "              [--timeout MS] [--sl N] [--pkey P] COMMAND [-- COMMAND ...] | -\n"
	      "commands: get-cpi set-cpi get-port set-port delete-port set-macs get-macs\n"
	      "          get-ucast get-mcast get-counters get-errors raw listen wait-trap\n"
	      "(see opa-em(1))\n", f);
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "lid", required_argument, NULL, 'l' },
		{ "address", required_argument, NULL, 'a' },
		{ "node", required_argument, NULL, 'n' },
		{ "timeout", required_argument, NULL, 't' },
		{ "sl", required_argument, NULL, 's' },
		{ "pkey", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	static struct em em = { .timeout_ms = 2000, .pkey = 0xffff, .fd = -1 };
	struct sockaddr_storage self;
	socklen_t self_len = 0;
	uint64_t v;
	int opt, ret;

	while ((opt = getopt_long(argc, argv, "+h", options, NULL)) != -1) {
		switch (opt) {
		case 'l':
			if (parse_lid(optarg, &em.lid))
				return usage_error("--lid", "LID must be 1 .. 0xbfff");
			break;
		case 'a':
			if (parse_address(optarg, &self, &self_len))
				return usage_error("--address", "expected IPv4:PORT or [IPv6]:PORT");
			break;
		case 'n':
			if ((ret = add_node(&em, optarg)))
				return ret;
			break;
		case 't':
			if (parse_uint(optarg, 3600000, &v))
				return usage_error("--timeout", "milliseconds, at most 3600000");
			em.timeout_ms = (int)v;
			break;
		case 's':
			if (parse_uint(optarg, 15, &v))
				return usage_error("--sl", "SL must be 0 .. 15");
			em.sl = (uint8_t)v;
			break;
		case 'p':
			if (parse_uint(optarg, 0xffff, &v))
				return usage_error("--pkey", "P_Key must be 0 .. 0xffff");
			em.pkey = (uint16_t)v;
			break;
		case 'h':
			usage(stdout);
			return EM_OK;
		default:
			usage(stderr);
			return EM_USAGE;
		}
	}
	if (!em.lid || !self_len || optind >= argc) {
		usage(stderr);
		return EM_USAGE;
	}
	if ((ret = open_socket(&em, &self, self_len)))
		return ret;
	ret = run_args(&em, argc - optind, argv + optind);
	close(em.fd);
	return ret;
}
