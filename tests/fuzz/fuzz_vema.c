/* SPDX-License-Identifier: MIT */
/*
 * What an Ethernet Manager (or anyone on the fabric) can send the VEMA agent: the input
 * once as one MAD, then as a sequence of MADs (2-byte big-endian length, then the bytes)
 * handled by one agent, so Sets reach the Gets and traps after them.  Every reply must
 * have the §1.4 frame, and the agent's state must export and restore to itself.
 *
 * The agent lives in daemon/, which the fuzz build does not link (it carries the whole
 * service); its pure files are compiled in here instead.
 */
#include "tests/fuzz/fuzz.h"
#include "daemon/vnic/vema.h"


#include <stdlib.h>
#include <string.h>

struct fuzz_ctx {
	uint64_t now;
	uint8_t macs[3][6];
};

static size_t fuzz_iface(void *ctx, const struct vnic_vport *vp, bool multicast, size_t start,
			 uint8_t (*out)[6], size_t max, size_t *total)
{
	struct fuzz_ctx *f = ctx;
	size_t i;

	*total = 3;
	for (i = 0; start + i < 3 && i < max; i++)
		memcpy(out[i], f->macs[start + i], 6);
	return i;
}

static int fuzz_send(void *ctx, const struct mad_addr *to, const uint8_t *mad, size_t len)
{
	if (len != VEMA_TRAP_LEN || !to->lid || mad[VEMA_OFF_METHOD] != VEMA_METHOD_TRAP)
		abort();
	return 0;
}

static uint64_t fuzz_now(void *ctx)
{
	return ((struct fuzz_ctx *)ctx)->now += 100000;
}

static const struct vema_ops fuzz_ops = {
	.iface_macs = fuzz_iface,
	.send = fuzz_send,
	.now_us = fuzz_now,
};

static void check_reply(const uint8_t *mad, size_t len, const uint8_t *reply, size_t n)
{
	uint16_t status;

	if (n == 0)
		return;
	if (n != VEMA_COMMON_HDR_LEN && n != VEMA_MAD_LEN)
		abort();
	if (len < n && n == VEMA_MAD_LEN && len < VEMA_HDR_LEN)
		abort();
	if (reply[VEMA_OFF_METHOD] != VEMA_METHOD_GET_RESP || memcmp(reply, mad, 3) ||
	    memcmp(reply + 6, mad + 6, (n == VEMA_MAD_LEN ? VEMA_HDR_LEN : n) - 6))
		abort();
	status = reply[4] << 8 | reply[5];
	if (status != VEMA_STATUS_OK && status != VEMA_STATUS_UNSUP &&
	    status != VEMA_STATUS_INVAL)
		abort();
	if (n == VEMA_COMMON_HDR_LEN && status != VEMA_STATUS_UNSUP)
		abort();
}

static void handle(struct vema *v, const uint8_t *mad, size_t len)
{
	static uint8_t reply[VEMA_MAD_LEN];
	static const struct mad_addr from = { .lid = 1, .qpn = 1 };
	size_t n;

	n = vema_handle(v, &from, mad, len, reply, sizeof(reply));
	check_reply(mad, len, reply, n);
	if (len > VEMA_OFF_ATTR_MOD + 3)
		vema_port_event(v, mad[VEMA_OFF_ATTR_MOD + 3],
				(enum vema_trap_opcode)(1 + mad[VEMA_OFF_METHOD] % 3));
}

/* Export every vport, restore into a fresh agent, export again: same bytes. */
static void check_persistence(const struct vema *v)
{
	static struct vema_vport_state a, b;
	struct fuzz_ctx ctx = { 0 };
	struct vema w;
	unsigned i;

	vema_init(&w, &fuzz_ops, &ctx);
	for (i = 0; i < VNIC_MAX_VPORTS; i++) {
		if (vema_export_vport(v, i, &a) < 0)
			continue;
		if (vema_restore_vport(&w, i, &a) < 0 || vema_export_vport(&w, i, &b) < 0 ||
		    a.n_macs != b.n_macs || memcmp(a.macs, b.macs, a.n_macs * sizeof(a.macs[0])))
			abort();
		/* Read-only state (link, oper_state) follows the host, which differs here. */
		a.info[156] = b.info[156];
		a.info[167] = b.info[167];
		memset(a.info + 268, 0, 4);
		memset(b.info + 268, 0, 4);
		if (memcmp(a.info, b.info, VEMA_VPINFO_LEN))
			abort();
	}
	vema_fini(&w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_ctx ctx = { .macs = { { 2, 0, 0, 0, 0, 1 }, { 2, 0, 0, 0, 0, 2 } } };
	struct vema v;

	vema_init(&v, &fuzz_ops, &ctx);
	handle(&v, data, size);
	vema_fini(&v);

	vema_init(&v, &fuzz_ops, &ctx);
	while (size >= 2) {
		size_t len = (size_t)(data[0] << 8 | data[1]) % (VEMA_MAD_LEN + 1);

		data += 2;
		size -= 2;
		if (len > size)
			len = size;
		handle(&v, data, len);
		if (len > 0)
			vema_host_open(&v, data[0]);
		data += len;
		size -= len;
	}
	check_persistence(&v);
	vema_fini(&v);
	return 0;
}
