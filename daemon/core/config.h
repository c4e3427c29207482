/* SPDX-License-Identifier: MIT */
/* rdmad.conf(5): "key = value" lines; '#' starts a comment. */
#pragma once

#include <net/if.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/verbs/crypto_config.h"
#include "daemon/verbs/object.h"
#include "dataplane/roce/transport.h"
#include "daemon/vnic/fabric_config.h"
#include "lib/varlink/varlink.h"

#define RDMAD_CONFIG_PATH "/etc/rdmad/rdmad.conf"

/*
 * What each uid but root may hold at once (rdmad.conf(5), "Tenants"): objects
 * of the kinds a program owns, by kind (PD to MKEY), and registered bytes.
 */
#define RDMAD_TENANT_KINDS (RDMA_OBJ_MKEY + 1)
struct rdmad_tenant_limits {
	unsigned max_objects[RDMAD_TENANT_KINDS];
	/* The uid's MRs together; 0: each program within its RLIMIT_MEMLOCK instead, as with ibverbs. */
	uint64_t max_registered_bytes;
};

struct rdmad_config {
	int log_level;
	struct rdmad_tenant_limits tenant;
	/* The per-uid limits the file set (bit 1 << kind); those it leaves follow the caps below down. */
	unsigned tenant_set;
	/*
	 * Caps of the host's devices lower than their own (max_qps, ...; read at
	 * start, as they size the tables), by kind; 0: the device's own.
	 */
	unsigned device_max_objects[RDMAD_TENANT_KINDS];
	/* max_connections, max_connections_per_uid and the connection_* settings. */
	struct varlink_limits limits;
	uint64_t max_mr_size;     /* bytes of one daemon-allocated MR */
	int recovery;             /* enum rdma_recovery_policy of QPs created without one */
	unsigned busy_poll_usec;  /* the event loop stays awake this long after work */
	/* Crypto officer's provisioning (crypto_credential, import_kek.NAME), for the model. */
	struct rdma_crypto_config crypto;
	struct rdmad_fabric_config fabric;
	/* The interface whose addresses are port 1's RoCE v2 GIDs; "": none (read at start). */
	char roce_netdev[IF_NAMESIZE];
	unsigned roce_port;       /* UDP port of RoCE v2 (4791), served while roce_netdev is set */
	unsigned roce_segmentation_offload;  /* 1: runs of packets leave as one GSO send (read at start) */
	/* For tests: outgoing RoCE packets dropped, doubled, reordered, in millionths (read at start). */
	struct dp_roce_faults roce_faults;
	enum dp_roce_receive roce_receive;  /* roce_receive = auto|packet|socket (read at start) */
};

/* A quarter of soft0's caps for QPs and CQs; AHs as a UD service with a few dozen peers needs. */
#define RDMAD_TENANT_LIMITS_DEFAULT ((struct rdmad_tenant_limits) {			\
	.max_objects = { [RDMA_OBJ_PD] = 256, [RDMA_OBJ_MR] = 1024, [RDMA_OBJ_CQ] = 256,	\
			 [RDMA_OBJ_QP] = 256, [RDMA_OBJ_AH] = 64, [RDMA_OBJ_MKEY] = 1024 },	\
})

#define RDMAD_MAX_MR_SIZE_DEFAULT (1ull << 30)
#define RDMAD_MAX_MR_SIZE_MAX     (1ull << 40)
#define RDMAD_BUSY_POLL_USEC_DEFAULT 50
#define RDMAD_BUSY_POLL_USEC_MAX     10000

void config_defaults(struct rdmad_config *config);
/* The setting of a tenant's limit of objects of kind ("max_qps_per_uid"); NULL past MKEY. */
const char *config_tenant_setting(enum rdma_object_kind kind);
/* The setting of the devices' cap of objects of kind ("max_qps"); NULL past MKEY. */
const char *config_device_setting(enum rdma_object_kind kind);
/*
 * The per-uid limits within cap[kind] (0: none), the cap of a device
 * (device names it, NULL: the devices' settings): a limit the file set above
 * it is refused ("PATH: max_qps_per_uid (N) is above soft0's cap of qps (M)",
 * or "... above max_qps (M)"); one it left at its default comes down to the
 * cap.  -EINVAL.
 */
int config_fit_tenant(struct rdmad_config *config, const unsigned cap[RDMAD_TENANT_KINDS], const char *path,
		      const char *device, char *err, size_t err_size);
/* What config_load() allocated (the fabric map). */
void config_free(struct rdmad_config *config);
/*
 * Reads path over the defaults: 1 when it was read, 0 when there is none (a
 * missing file is no error: the defaults stay).  On a bad line returns
 * -EINVAL with "FILE:LINE: what" in err, and config is left untouched.
 */
int config_load(const char *path, struct rdmad_config *config, char *err, size_t err_size);
