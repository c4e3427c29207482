/* SPDX-License-Identifier: MIT */
/*
 * The software device: a RoCE device living inside rdmad, with the mlx5
 * signature and crypto offloads done by dataplane/.  Its limits are those the
 * virtio-net RoCE prototype reports (reference roce_virtio.md §1.6), so software
 * written against it meets the same limits on a device of that family.
 */
#include "daemon/soft/soft_device.h"
#include "daemon/soft/datapath.h"
#include "daemon/verbs/qp.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* After the objects (rdma_device_free): none of them holds a NIC context any more. */
static void soft_destroy(struct rdma_device *dev)
{
	rdma_datapath_free(dev->datapath);
	free(dev);
}

static const struct rdma_device_ops soft_ops = {
	.backend = "soft",
	.destroy = soft_destroy,
	.start = rdma_datapath_start,
	.workers_stopped = rdma_datapath_workers_stopped,
	.sync = rdma_datapath_sync,
	.counters = rdma_datapath_counters,
	.cpus = rdma_datapath_cpus,
	.cq_create = rdma_datapath_cq_create,
	.cq_hold = rdma_datapath_cq_hold,
	.cq_release = rdma_datapath_cq_release,
	.cq_poll = rdma_datapath_cq_poll,
	.rings = rdma_datapath_rings,
	.cq_set_wanted = rdma_datapath_cq_set_wanted,
	.cq_set_armed = rdma_datapath_cq_set_armed,
	.set_cq_hook = rdma_datapath_set_cq_hook,
	.qp_create = rdma_dp_qp_create,
	.qp_reserve = rdma_dp_qp_reserve,
	.qp_modified = rdma_dp_qp_modified,
	.qp_destroy = rdma_dp_qp_destroy,
	.qp_placement = rdma_dp_qp_placement,
	.qp_counters = rdma_dp_qp_counters,
	.key_set = rdma_datapath_key_set,
	.key_clear = rdma_datapath_key_clear,
	.key_user = rdma_datapath_key_user,
	.key_settle = rdma_dp_key_settle,
	.key_retire = rdma_datapath_key_retire,
	.memory_user = rdma_datapath_memory_user,
	.post_send = rdma_dp_post_sends,
	.post_recv = rdma_dp_post_recv,
	.cancel = rdma_dp_cancel,
	.posted_mkeys = rdma_dp_posted_mkeys,
};

/*
 * The software device's caps: at least Linux rxe's (rxe_param.h: 64Ki QPs,
 * 16Ki CQs of up to 32767 entries, 256Ki MRs), as many MKEYs as an MKEY pool
 * of a storage target holds, and AHs for a UD service with thousands of
 * peers.  Tables sized by them cost nothing until used (object tables grow,
 * the key table's pages come when first written).
 */
#define SOFT_MAX_QP   65536
#define SOFT_MAX_CQ   16384
#define SOFT_MAX_CQE  32767
#define SOFT_MAX_MR   262144
#define SOFT_MAX_MKEY 65536
#define SOFT_MAX_AH   16384

/* A device's QP and CQ limits: the host's own, or a VM's. */
struct limits {
	uint32_t max_qp, max_cq;
};

static int create(struct rdma_device **out, const char *name, unsigned index,
		  const struct limits *limits)
{
	struct rdma_device *dev;
	int r;

	if (strlen(name) >= RDMA_DEVICE_NAME_MAX)
		return -ENAMETOOLONG;
	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return -ENOMEM;
	snprintf(dev->name, sizeof(dev->name), "%s", name);
	dev->index = index;
	dev->ops = &soft_ops;
	snprintf(dev->fw_ver, sizeof(dev->fw_ver), "%s", RDMAD_VERSION);
	/* A locally administered EUI-64, one per device index. */
	dev->node_guid = 0x02c0ffee00000000ull | index;
	dev->sys_image_guid = dev->node_guid;

	dev->attr = (struct rdma_device_attr) {
		.device_cap_flags = RDMA_DEVICE_RC_RNR_NAK_GEN,
		.max_mr_size = UINT64_MAX,
		.page_size_cap = 0xfffff000ull,
		.hw_ver = 1,
		.max_qp_wr = 1024,
		.max_send_sge = 32,
		.max_recv_sge = 32,
		.max_sge_rd = 32,
		.max_cqe = SOFT_MAX_CQE,
		.max_mr = SOFT_MAX_MR,
		.max_pd = 0x7ffc,
		.max_qp_rd_atom = 128,
		.max_qp_init_rd_atom = 128,
		.max_ah = SOFT_MAX_AH,
		.local_ca_ack_delay = 15,
		.max_qp = limits->max_qp,
		.max_cq = limits->max_cq,
		.max_inline_data = 512,
	};
	dev->num_ports = 1;
	dev->ports[0] = (struct rdma_port_attr) {
		.gid_tbl_len = 512,
		.max_msg_sz = 8u << 20,
		.state = RDMA_PORT_ACTIVE,
		.phys_state = RDMA_PHYS_LINK_UP,
		.max_mtu = 4096,
		.active_mtu = 1024,
	};
	dev->caps = (struct rdma_offload_caps) {
		.block_sizes = (1u << RDMA_BLOCK_512) | (1u << RDMA_BLOCK_520) | (1u << RDMA_BLOCK_4048) |
			       (1u << RDMA_BLOCK_4096) | (1u << RDMA_BLOCK_4160),
		.block_prot = RDMA_SIG_PROT_T10DIF | RDMA_SIG_PROT_CRC,
		.t10dif_bg = RDMA_SIG_T10DIF_BG_CRC | RDMA_SIG_T10DIF_BG_CSUM,
		.crc_types = RDMA_SIG_CRC32 | RDMA_SIG_CRC32C | RDMA_SIG_CRC64_XP10,
		.crypto_engines = RDMA_CRYPTO_AES_XTS_SINGLE_BLOCK | RDMA_CRYPTO_AES_XTS_MULTI_BLOCK,
		.wrapped_import_only = false,
		.log_max_num_deks = 12,
		.max_mkeys = SOFT_MAX_MKEY,
		.max_mkey_entries = 256,
		.sqd2rts = true,
	};
	r = rdma_device_init_tables(dev);
	if (r < 0) {
		rdma_device_free(dev);
		return r;
	}
	*out = dev;
	return 0;
}

int soft_device_create(struct rdma_device **out, const char *name, unsigned index)
{
	static const struct limits host = { .max_qp = SOFT_MAX_QP, .max_cq = SOFT_MAX_CQ };

	return create(out, name, index, &host);
}

int soft_device_create_vm(struct rdma_device **out, const char *name, unsigned index,
			  uint32_t max_qpn, uint32_t max_cqn)
{
	/* QP numbers start at 2 (SMI, GSI), CQ numbers at 1 (0 names none). */
	struct limits vm = { .max_qp = max_qpn - RDMA_QPN_FIRST, .max_cq = max_cqn - 1 };

	if (max_qpn <= RDMA_QPN_FIRST || max_cqn <= 1)
		return -EINVAL;
	return create(out, name, index, &vm);
}
