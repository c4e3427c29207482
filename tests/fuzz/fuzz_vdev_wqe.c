/* SPDX-License-Identifier: MIT */
/*
 * What a guest can put in a send or receive WQE (daemon/vdev/wqe.c): the
 * input as a send WQE and as a receive WQE, each for a UD QP and not.  A
 * WQE taken must be the seed's (opcode 0-4, its four send flags, inline data
 * and SGEs within the bytes), its SGEs' offsets must give their addresses
 * back, and nothing may be read past the input.
 */
#include "tests/fuzz/fuzz.h"
#include "daemon/vdev/wqe.h"

#include <stdlib.h>
#include <string.h>

/* The guest's MRs start at iova 0x1000 x key: an offset plus it is the address again. */
static uint64_t key_iova(void *data, uint32_t key)
{
	return (uint64_t)key * 0x1000;
}

static void check_sges(const uint8_t *in, const struct rdma_dp_sge *sges, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		struct dp_sge g;

		memcpy(&g, in + i * sizeof(g), sizeof(g));
		if (sges[i].key != le32toh(g.lkey) || sges[i].length != le32toh(g.length) ||
		    sges[i].offset + key_iova(NULL, sges[i].key) != le64toh(g.addr))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* A copy of exactly size bytes, so that a read past the end is ASan's to see. */
	uint8_t *wqe = malloc(size ? size : 1);
	struct rdma_dp_sge sges[VDEV_WQE_SGES_MAX];
	struct rdma_dp_send_wr wr;
	uint64_t wr_id;
	uint32_t n;

	if (!wqe)
		return 0;
	memcpy(wqe, data, size);
	/* What the reader copies out of a guest's buffer lies within the bytes it has. */
	if (size >= sizeof(struct dp_sq_req)) {
		struct vdev_wqe_span spans[2];

		for (int pass = 0; pass < 2; pass++) {
			unsigned count = vdev_wqe_send_spans(pass ? wqe : NULL, size, spans);

			for (unsigned i = 0; i < count; i++)
				if (count > 2 || (size_t)spans[i].offset + spans[i].len > size)
					abort();
		}
	}
	for (int ud = 0; ud < 2; ud++) {
		if (vdev_wqe_send(wqe, size, ud, key_iova, NULL, sges, &wr) == 0) {
			if (wr.opcode > DP_WR_RDMA_READ || (wr.send_flags & ~0xfu) ||
			    wr.n_sges > VDEV_WQE_SGES_MAX || wr.inline_len > DP_INLINE_MAX ||
			    size < sizeof(struct dp_sq_req) + wr.n_sges * sizeof(struct dp_sge) || wr.ud != ud ||
			    (wr.has_remote_addr && wr.opcode != DP_WR_RDMA_WRITE &&
			     wr.opcode != DP_WR_RDMA_WRITE_WITH_IMM && wr.opcode != DP_WR_RDMA_READ))
				abort();
			check_sges(wqe + sizeof(struct dp_sq_req), sges, wr.n_sges);
		}
	}
	/*
	 * The entry the worker writes into a slot of max_sge SGEs: within the
	 * slot, and no WR's opcode exactly when vdev_wqe_send refuses the WQE.
	 */
	{
		uint32_t max_sge = size ? data[0] % (VDEV_WQE_SGES_MAX + 1) : 0;
		struct dp_sq_req *slot = malloc(sizeof(*slot) + max_sge * sizeof(struct dp_sge));
		bool valid = vdev_wqe_send(wqe, size, false, key_iova, NULL, sges, &wr) == 0;

		if (!slot)
			abort();
		vdev_wqe_send_entry(wqe, size, max_sge, slot);
		if (valid != (slot->opcode != 0xff) || (valid && slot->opcode != wr.opcode) ||
		    (valid && !(slot->send_flags & DP_SEND_INLINE) && slot->num_sge != wr.n_sges))
			abort();
		free(slot);
	}
	if (vdev_wqe_recv(wqe, size, key_iova, NULL, &wr_id, sges, &n) == 0) {
		if (n > VDEV_WQE_SGES_MAX || size < sizeof(struct dp_rq_req) + n * sizeof(struct dp_sge))
			abort();
		check_sges(wqe + sizeof(struct dp_rq_req), sges, n);
	}
	free(wqe);
	return 0;
}
