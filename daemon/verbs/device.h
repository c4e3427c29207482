/* SPDX-License-Identifier: MIT */
/*
 * The device interface: what rdmad knows of an RDMA device, whatever backs it.
 * The software device (daemon/soft/) is one backend; a hardware backend over
 * libibverbs + mlx5dv fits behind the same ops.  Nothing here knows of JSON.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "dataplane/ring_mem.h"
#include "daemon/verbs/error.h"
#include "daemon/verbs/event.h"
#include "daemon/verbs/object.h"

struct rdma_mr_maps;

#define RDMA_DEVICE_NAME_MAX 64
#define RDMA_PORTS_MAX       2
/* CPUs a device's data path may run on, as far as the model looks. */
#define RDMA_DEVICE_CPUS_MAX 1024

/* Capability bits of QUERY_DEVICE (virtio-net RoCE). */
#define RDMA_DEVICE_RC_RNR_NAK_GEN (1u << 0)

/* The attributes of the virtio-net RoCE QUERY_DEVICE command, plus the limits it lacks. */
struct rdma_device_attr {
	uint64_t device_cap_flags;
	uint64_t max_mr_size;
	uint64_t page_size_cap;
	uint32_t hw_ver;
	uint32_t max_qp_wr;
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	uint32_t max_sge_rd;
	uint32_t max_cqe;
	uint32_t max_mr;
	uint32_t max_pd;
	uint32_t max_qp_rd_atom;
	uint32_t max_qp_init_rd_atom;
	uint32_t max_ah;
	uint8_t local_ca_ack_delay;
	/* Not in QUERY_DEVICE; a device still has them. */
	uint32_t max_qp;
	uint32_t max_cq;
	uint32_t max_inline_data;
};

enum rdma_port_state { RDMA_PORT_DOWN = 1, RDMA_PORT_INIT, RDMA_PORT_ARMED, RDMA_PORT_ACTIVE };
enum rdma_port_phys_state { RDMA_PHYS_POLLING = 2, RDMA_PHYS_DISABLED = 3, RDMA_PHYS_LINK_UP = 5 };

/* QUERY_PORT, plus the port state a user expects to see. */
struct rdma_port_attr {
	uint32_t gid_tbl_len;
	uint32_t max_msg_sz;
	enum rdma_port_state state;
	enum rdma_port_phys_state phys_state;
	uint32_t max_mtu;
	uint32_t active_mtu;
};

/* Block sizes, as mlx5dv_block_size numbers them. */
enum rdma_block_size {
	RDMA_BLOCK_512, RDMA_BLOCK_520, RDMA_BLOCK_4048, RDMA_BLOCK_4096, RDMA_BLOCK_4160,
	RDMA_BLOCK_SIZE_COUNT,
};

/* Bits of the signature and crypto capability masks (mlx5dv_query_device). */
#define RDMA_SIG_PROT_T10DIF       (1u << 0)
#define RDMA_SIG_PROT_CRC          (1u << 1)
#define RDMA_SIG_T10DIF_BG_CRC     (1u << 0)
#define RDMA_SIG_T10DIF_BG_CSUM    (1u << 1)
#define RDMA_SIG_CRC32             (1u << 0)
#define RDMA_SIG_CRC32C            (1u << 1)
#define RDMA_SIG_CRC64_XP10        (1u << 2)
#define RDMA_CRYPTO_AES_XTS_SINGLE_BLOCK (1u << 1)
#define RDMA_CRYPTO_AES_XTS_MULTI_BLOCK  (1u << 2)

struct rdma_offload_caps {
	uint64_t block_sizes;        /* 1 << enum rdma_block_size */
	uint32_t block_prot;
	uint16_t t10dif_bg;
	uint16_t crc_types;
	uint8_t crypto_engines;
	bool wrapped_import_only;    /* else plaintext DEKs are accepted */
	uint8_t log_max_num_deks;
	uint32_t max_mkeys;
	uint16_t max_mkey_entries;
	bool sqd2rts;                /* needed for signature pipelining */
};

struct rdma_device;
struct rdma_gid_entry;
struct rdma_uid_usage;
struct rdma_datapath;
struct rdma_qp;
struct rdma_cq;
struct rdma_object;
struct rdma_dp_send_wr;
struct rdma_dp_sge;
struct dp_key;
struct dp_cqe;
struct dp_counters;
struct worker_set;

/*
 * A CQ's entries as the device writes them, held by the CQ and by whoever
 * waits on it (the backend's; opaque above it).
 */
struct rdma_cq_ring;

/*
 * What the model asks of whatever backs the device.  The software backend
 * (daemon/soft/) does it with its NIC (dataplane/); a hardware backend over
 * rdma-core (libibverbs + mlx5dv) would do the same operations.  Nothing
 * above this table knows which backend it talks to.  The data-path
 * operations are NULL for a device without a data path (no workers): the
 * rdma_device_* wrappers below then program nothing and refuse what needs
 * one.
 */
/*
 * The queues of a QP or a CQ that an application produces or consumes
 * itself (librdmad): the memory it maps, the eventfd of the queues (a QP's
 * doorbell it rings, a CQ's notifications it reads) and where each queue
 * lies (a QP: send, receive; a CQ: its lanes).  The descriptors and the
 * list are the holder's until rdma_rings_release.
 */
struct rdma_rings {
	int memfd, eventfd;
	uint64_t bytes;
	unsigned n_queues;
	struct dp_ring_geometry *queues;
};

void rdma_rings_release(struct rdma_rings *r);

struct rdma_device_ops {
	const char *backend;
	void (*destroy)(struct rdma_device *dev);

	/* The data path runs on these workers from now on; they have stopped. */
	int (*start)(struct rdma_device *dev, struct worker_set *ws);
	void (*workers_stopped)(struct rdma_device *dev);
	/* Applies what the data path reported so far (states, completions, signature errors). */
	void (*sync)(struct rdma_device *dev);
	void (*counters)(struct rdma_device *dev, struct dp_counters *out);
	/* The CPUs the data path runs on (at most max of them), and how many it has. */
	unsigned (*cpus)(const struct rdma_device *dev, int *cpus, unsigned max);

	/* CQs: their entries, polled; waited on (wanted) or armed, which the workers then report. */
	int (*cq_create)(struct rdma_device *dev, struct rdma_cq *cq);
	void (*cq_hold)(struct rdma_cq_ring *ring);
	void (*cq_release)(struct rdma_cq_ring *ring);
	unsigned (*cq_poll)(struct rdma_cq_ring *ring, struct dp_cqe *out, unsigned max);
	void (*cq_set_wanted)(struct rdma_cq_ring *ring, bool wanted);
	void (*cq_set_armed)(struct rdma_cq_ring *ring, bool armed);
	/* Called when a CQ that is wanted may have new entries. */
	void (*set_cq_hook)(struct rdma_device *dev, void (*fn)(struct rdma_device *dev, void *ud),
			    void *userdata);

	/* QPs: the context made with the QP, told of each state change, gone with the QP. */
	int (*qp_create)(struct rdma_device *dev, struct rdma_qp *qp);
	/* Before the QP first leaves RESET and INIT: what it needs to run (-ENOMEM; the change is refused). */
	int (*qp_reserve)(struct rdma_device *dev, struct rdma_qp *qp);
	void (*qp_modified)(struct rdma_device *dev, struct rdma_qp *qp, int old_state);
	void (*qp_destroy)(struct rdma_device *dev, struct rdma_qp *qp);
	/* The CPU the QP runs on (-1: its worker is not pinned) and its worker; -ENOENT: none yet. */
	int (*qp_placement)(struct rdma_device *dev, const struct rdma_qp *qp, unsigned *worker);
	/* A QP's or CQ's made with rings: what its application maps. */
	int (*rings)(struct rdma_device *dev, struct rdma_object *obj, struct rdma_rings *out);
	/* false: the QP has no data-path counters (it never ran: all would be 0). */
	bool (*qp_counters)(struct rdma_device *dev, const struct rdma_qp *qp, struct dp_counters *out);

	/* Keys (MRs, MKEYs): what a key names to the device from now on, or nothing. */
	void (*key_set)(struct rdma_device *dev, struct dp_key *k);
	void (*key_clear)(struct rdma_device *dev, uint32_t key);
	/* A QP whose posted, not yet retired WRs name key / reach the memory, or NULL. */
	struct rdma_object *(*key_user)(struct rdma_device *dev, uint32_t key);
	/*
	 * A configure WR's entry k, posted at sq_index of qp (NULL: the QP is
	 * gone): 1 the WR put it in the key table (what it replaced is freed
	 * then, key_retire), 0 it may still, -1 it never will.
	 */
	int (*key_settle)(struct rdma_device *dev, const struct dp_key *k, struct rdma_qp *qp, uint32_t sq_index);
	void (*key_retire)(struct rdma_device *dev, struct dp_key *k);
	struct rdma_object *(*memory_user)(struct rdma_device *dev, const uint8_t *addr, uint64_t length);

	/* Posting, and what recovery needs of posted WRs. */
	int (*post_send)(struct rdma_device *dev, struct rdma_qp *qp, const struct rdma_dp_send_wr *wrs,
			 uint32_t n, uint32_t *bad, struct rdma_error *err);
	int (*post_recv)(struct rdma_device *dev, struct rdma_qp *qp, uint64_t wr_id,
			 const struct rdma_dp_sge *sges, uint32_t n_sges, struct rdma_error *err);
	int (*cancel)(struct rdma_device *dev, struct rdma_qp *qp, uint64_t wr_id, uint32_t *count,
		      struct rdma_error *err);
	void (*posted_mkeys)(struct rdma_device *dev, struct rdma_qp *qp,
			     void (*fn)(uint32_t mkey, uint64_t wr_id, void *data), void *data);
};

/* Counted by the main thread, for one QP or the device. */
struct rdma_sqd_stats {
	uint64_t sqd_entries;     /* the QP went to SQD: modified there, or stopped by a signature error */
	uint64_t recoveries;
	uint64_t wrs_canceled;
};

struct rdma_device {
	char name[RDMA_DEVICE_NAME_MAX];
	unsigned index;
	const struct rdma_device_ops *ops;
	char fw_ver[32];
	uint64_t node_guid;
	uint64_t sys_image_guid;
	struct rdma_device_attr attr;
	unsigned num_ports;
	struct rdma_port_attr ports[RDMA_PORTS_MAX];
	struct rdma_offload_caps caps;
	struct object_table tables[RDMA_OBJ_KIND_COUNT];
	/* Each port's gid_tbl_len entries (daemon/verbs/gid.c). */
	struct rdma_gid_entry *gid_tables[RDMA_PORTS_MAX];
	/* Where the next daemon MR goes in the iova space (daemon/verbs/mr.c); never reused. */
	uint64_t mr_iova_next;
	/* Applications' memfds mapped for their MRs, by inode (daemon/verbs/mr_map.h); NULL: none yet. */
	struct rdma_mr_maps *mr_maps;
	/* The crypto login session, if any (daemon/verbs/crypto_login.c). */
	struct rdma_crypto_login *crypto_login;
	/* What the QPs' signature-pipelining stops led to (daemon/verbs/recovery.h), all QPs ever. */
	struct rdma_sqd_stats sqd_stats;
	int default_recovery;     /* enum rdma_recovery_policy of QPs created without one */
	/* The backend's data path (the soft backend's NIC driver); NULL: none. */
	struct rdma_datapath *datapath;
	/* What each owner's uid holds here (daemon/verbs/owner.h), n_uid_usage of them. */
	struct rdma_uid_usage *uid_usage;
	unsigned n_uid_usage;
	/* Where asynchronous events go (daemon/verbs/event.h): the monitor, the applications' channels. */
	struct rdma_event_sink event_sinks[RDMA_EVENT_SINKS_MAX];
};

/* What the device model needs to know of each kind of object. */
struct rdma_object_type {
	size_t size;
	/* Handles below it are never handed out (0: only handle 0 is, which means "none"). */
	uint32_t first_handle;
	/* Gives back what the object holds besides its memory and references; may be NULL. */
	void (*release)(struct rdma_device *dev, struct rdma_object *obj);
	/*
	 * A user that holds the object without a reference (a WR in a queue
	 * names its memory), so that destroying it is refused; may be NULL.
	 */
	struct rdma_object *(*busy_user)(struct rdma_device *dev, const struct rdma_object *obj);
};

unsigned rdma_block_size_bytes(enum rdma_block_size size);
const char *rdma_port_state_name(enum rdma_port_state state);
const char *rdma_port_phys_state_name(enum rdma_port_phys_state state);
void rdma_device_free(struct rdma_device *dev);
/* The device called name among the n of devices, or NULL. */
struct rdma_device *rdma_device_find(struct rdma_device *const *devices, unsigned n, const char *name);

/* Sets up the object tables and GID tables with the device's limits; backends call it once. */
int rdma_device_init_tables(struct rdma_device *dev);
uint32_t rdma_device_limit(const struct rdma_device *dev, enum rdma_object_kind kind);
/*
 * The device holds at most limit objects of kind (PD to MKEY) from now on,
 * as it reports them: before it has any and before its data path starts
 * (-EBUSY), 1 to its own cap (-ERANGE).
 */
int rdma_device_lower_limit(struct rdma_device *dev, enum rdma_object_kind kind, uint32_t limit);

/* A zeroed object of kind, added to its table, or NULL with err (LimitReached). */
struct rdma_object *rdma_object_create(struct rdma_device *dev, enum rdma_object_kind kind,
				       struct rdma_error *err);
/*
 * The same with a given handle, for objects put back from saved state; NULL
 * with LimitReached, or InvalidArgument (field "handle") when it is taken.
 */
struct rdma_object *rdma_object_create_at(struct rdma_device *dev, enum rdma_object_kind kind,
					  uint32_t handle, struct rdma_error *err);
/* The object, or NULL with err (NoSuchObject). */
struct rdma_object *rdma_object_lookup(struct rdma_device *dev, enum rdma_object_kind kind,
				       uint32_t handle, struct rdma_error *err);
/* Refused with ObjectInUse naming a user while others use it. */
int rdma_object_destroy(struct rdma_device *dev, enum rdma_object_kind kind, uint32_t handle,
			struct rdma_error *err);
/* Releases obj whatever uses it (for objects that failed half-way through creation). */
void rdma_object_free(struct rdma_device *dev, struct rdma_object *obj);
/* How many objects of kind use target. */
unsigned rdma_object_count_users(struct rdma_device *dev, const struct rdma_object *target,
				 enum rdma_object_kind kind);

/* ---- the device's operations, for the model (daemon/verbs/device_ops.c) ---- */

/* Whether the device has a data path (workers): posting and polling need one. */
bool rdma_device_has_datapath(const struct rdma_device *dev);
/* NotSupported naming field when the device has no data path; 0 when it has one. */
int rdma_device_need_datapath(const struct rdma_device *dev, const char *field, struct rdma_error *err);
int rdma_device_start(struct rdma_device *dev, struct worker_set *ws);
void rdma_device_workers_stopped(struct rdma_device *dev);
void rdma_device_sync(struct rdma_device *dev);
void rdma_device_counters(struct rdma_device *dev, struct dp_counters *out);
unsigned rdma_device_cpus(const struct rdma_device *dev, int *cpus, unsigned max);
int rdma_device_cq_create(struct rdma_device *dev, struct rdma_cq *cq);
struct rdma_cq_ring *rdma_device_cq_hold(struct rdma_device *dev, struct rdma_cq_ring *ring);
void rdma_device_cq_release(struct rdma_device *dev, struct rdma_cq_ring *ring);
unsigned rdma_device_cq_poll(struct rdma_device *dev, struct rdma_cq_ring *ring, struct dp_cqe *out,
			     unsigned max);
/* Someone waits on the CQ / it is armed (REQ_NOTIFY_CQ): the workers tell of each entry then. */
void rdma_device_cq_set_wanted(struct rdma_device *dev, struct rdma_cq_ring *ring, bool wanted);
void rdma_device_cq_set_armed(struct rdma_device *dev, struct rdma_cq_ring *ring, bool armed);
void rdma_device_set_cq_hook(struct rdma_device *dev, void (*fn)(struct rdma_device *dev, void *ud),
			     void *userdata);
int rdma_device_qp_create(struct rdma_device *dev, struct rdma_qp *qp);
int rdma_device_qp_reserve(struct rdma_device *dev, struct rdma_qp *qp);
void rdma_device_qp_modified(struct rdma_device *dev, struct rdma_qp *qp, int old_state);
void rdma_device_qp_destroy(struct rdma_device *dev, struct rdma_qp *qp);
int rdma_device_qp_placement(struct rdma_device *dev, const struct rdma_qp *qp, unsigned *worker);
int rdma_device_rings(struct rdma_device *dev, struct rdma_object *obj, struct rdma_rings *out);
/* The QP's data-path counters; false when the device has none for it. */
bool rdma_device_qp_counters(struct rdma_device *dev, const struct rdma_qp *qp, struct dp_counters *out);
/* k is the device's from now on (freed at once by a device without a data path). */
void rdma_device_key_set(struct rdma_device *dev, struct dp_key *k);
void rdma_device_key_clear(struct rdma_device *dev, uint32_t key);
struct rdma_object *rdma_device_key_user(struct rdma_device *dev, uint32_t key);
int rdma_device_key_settle(struct rdma_device *dev, const struct dp_key *k, struct rdma_qp *qp,
			   uint32_t sq_index);
void rdma_device_key_retire(struct rdma_device *dev, struct dp_key *k);
struct rdma_object *rdma_device_memory_user(struct rdma_device *dev, const uint8_t *addr, uint64_t length);
int rdma_device_post_send(struct rdma_device *dev, struct rdma_qp *qp, const struct rdma_dp_send_wr *wrs,
			  uint32_t n, uint32_t *bad, struct rdma_error *err);
int rdma_device_post_recv(struct rdma_device *dev, struct rdma_qp *qp, uint64_t wr_id,
			  const struct rdma_dp_sge *sges, uint32_t n_sges, struct rdma_error *err);
int rdma_device_cancel(struct rdma_device *dev, struct rdma_qp *qp, uint64_t wr_id, uint32_t *count,
		       struct rdma_error *err);
void rdma_device_posted_mkeys(struct rdma_device *dev, struct rdma_qp *qp,
			      void (*fn)(uint32_t mkey, uint64_t wr_id, void *data), void *data);
