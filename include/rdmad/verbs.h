/* SPDX-License-Identifier: MIT */
/*
 * librdmad's ABI: every structure and constant an application shares with the
 * library, in one header.  The work request and completion entries follow
 * the virtio-net RoCE formats (struct virtio_rdma_sge, virtio_rdma_sq_req,
 * virtio_rdma_cq_req: opcodes, flags and statuses keep their numbers), so
 * that the shared-memory rings of the next part carry them unchanged.
 *
 * Changing a structure here changes the ABI: librdmad.so.0's soname goes up.
 */
#ifndef RDMAD_VERBS_H
#define RDMAD_VERBS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rdmad_context;

/* enum virtio_ib_qp_state */
enum rdmad_qp_state {
	RDMAD_QPS_RESET, RDMAD_QPS_INIT, RDMAD_QPS_RTR, RDMAD_QPS_RTS,
	RDMAD_QPS_SQD, RDMAD_QPS_SQE, RDMAD_QPS_ERR,
};

enum rdmad_qp_type { RDMAD_QPT_RC, RDMAD_QPT_UC, RDMAD_QPT_UD };

/* Access flags of MRs, MKEYs and QPs (IBV_ACCESS_* bits). */
enum {
	RDMAD_ACCESS_LOCAL_WRITE  = 1u << 0,
	RDMAD_ACCESS_REMOTE_WRITE = 1u << 1,
	RDMAD_ACCESS_REMOTE_READ  = 1u << 2,
	RDMAD_ACCESS_ON_DEMAND    = 1u << 6,   /* MRs only */
};

/* enum virtio_ib_wr_opcode, then rdmad's additions. */
enum rdmad_wr_opcode {
	RDMAD_WR_RDMA_WRITE, RDMAD_WR_RDMA_WRITE_WITH_IMM, RDMAD_WR_SEND,
	RDMAD_WR_SEND_WITH_IMM, RDMAD_WR_RDMA_READ,
	RDMAD_WR_LOCAL_INV = 16, RDMAD_WR_SEND_WITH_INV,
};

/* VIRTIO_IB_SEND_* */
enum {
	RDMAD_SEND_FENCE     = 1u << 0,
	RDMAD_SEND_SIGNALED  = 1u << 1,
	RDMAD_SEND_SOLICITED = 1u << 2,
	RDMAD_SEND_INLINE    = 1u << 3,
};

/* enum virtio_ib_wc_opcode, then rdmad's additions. */
enum rdmad_wc_opcode {
	RDMAD_WC_SEND, RDMAD_WC_RDMA_WRITE, RDMAD_WC_RDMA_READ, RDMAD_WC_RECV,
	RDMAD_WC_RECV_RDMA_WITH_IMM,
	RDMAD_WC_LOCAL_INV = 16, RDMAD_WC_CONFIGURE,
};

/* enum virtio_ib_wc_status */
enum rdmad_wc_status {
	RDMAD_WC_SUCCESS, RDMAD_WC_LOC_LEN_ERR, RDMAD_WC_LOC_QP_OP_ERR, RDMAD_WC_LOC_PROT_ERR,
	RDMAD_WC_WR_FLUSH_ERR, RDMAD_WC_BAD_RESP_ERR, RDMAD_WC_LOC_ACCESS_ERR,
	RDMAD_WC_REM_INV_REQ_ERR, RDMAD_WC_REM_ACCESS_ERR, RDMAD_WC_REM_OP_ERR,
	RDMAD_WC_RETRY_EXC_ERR, RDMAD_WC_RNR_RETRY_EXC_ERR, RDMAD_WC_REM_ABORT_ERR,
	RDMAD_WC_FATAL_ERR, RDMAD_WC_RESP_TIMEOUT_ERR, RDMAD_WC_GENERAL_ERR,
};

/* VIRTIO_IB_WC_* */
enum {
	RDMAD_WC_GRH      = 1u << 0,
	RDMAD_WC_WITH_IMM = 1u << 1,
	RDMAD_WC_WITH_INV = 1u << 2,
};

/* struct virtio_rdma_sge: addr is an address of the MR whose key is lkey (its iova plus an offset). */
struct rdmad_sge {
	uint64_t addr;
	uint32_t length;
	uint32_t lkey;
};

/* A send work request (the fields of struct virtio_rdma_sq_req), chained by next. */
struct rdmad_send_wr {
	struct rdmad_send_wr *next;
	uint64_t wr_id;
	uint8_t opcode;            /* enum rdmad_wr_opcode */
	uint8_t send_flags;        /* RDMAD_SEND_* */
	uint16_t reserved;
	uint32_t imm_data;         /* host order; WITH_IMM opcodes */
	struct rdmad_sge *sg_list; /* with RDMAD_SEND_INLINE: the bytes are copied at post */
	uint32_t num_sge;
	uint32_t invalidate_rkey;  /* LOCAL_INV, SEND_WITH_INV */
	union {
		struct {
			uint64_t remote_addr;  /* the peer MR's iova plus an offset */
			uint32_t rkey;
		} rdma;
		struct {
			uint32_t ah;           /* rdmad_ah.handle */
			uint32_t remote_qpn;
			uint32_t remote_qkey;
		} ud;
		uint64_t reserved2[4];
	} wr;
};

/* A receive work request (struct virtio_rdma_rq_req). */
struct rdmad_recv_wr {
	struct rdmad_recv_wr *next;
	uint64_t wr_id;
	struct rdmad_sge *sg_list;
	uint32_t num_sge;
};

/* A work completion: struct virtio_rdma_cq_req, 48 bytes. */
struct rdmad_wc {
	uint64_t wr_id;
	uint8_t status;            /* enum rdmad_wc_status */
	uint8_t opcode;            /* enum rdmad_wc_opcode */
	uint16_t padding;
	uint32_t vendor_err;
	uint32_t byte_len;
	uint32_t imm_data;         /* host order; the invalidated key with RDMAD_WC_WITH_INV */
	uint32_t qp_num;
	uint32_t src_qp;
	uint32_t wc_flags;         /* RDMAD_WC_GRH, _WITH_IMM, _WITH_INV */
	uint32_t reserved[3];
};

/* struct virtio_rdma_ack_query_device, as rdmad's io.rdmad.Device reports it. */
struct rdmad_device_attr {
	char name[64];
	char fw_ver[64];
	char node_guid[24];        /* xxxx:xxxx:xxxx:xxxx */
	uint64_t device_cap_flags;
	uint64_t max_mr_size;
	uint64_t page_size_cap;
	uint32_t hw_ver;
	uint32_t max_qp, max_qp_wr, max_send_sge, max_recv_sge, max_sge_rd;
	uint32_t max_cq, max_cqe, max_mr, max_pd, max_ah;
	uint32_t max_qp_rd_atom, max_qp_init_rd_atom, max_inline_data;
	uint32_t max_mkey, max_mkey_entries;
	uint8_t phys_port_cnt;
	uint8_t sqd2rts;
	uint8_t reserved[6];
};

enum rdmad_port_state { RDMAD_PORT_DOWN = 1, RDMAD_PORT_INIT, RDMAD_PORT_ARMED, RDMAD_PORT_ACTIVE };

/* struct virtio_rdma_ack_query_port */
struct rdmad_port_attr {
	uint8_t state;             /* enum rdmad_port_state */
	uint8_t reserved[3];
	uint32_t max_mtu, active_mtu;  /* bytes */
	uint32_t gid_tbl_len;
	uint32_t max_msg_sz;
	char link_layer[16];
};

struct rdmad_qp_cap {
	uint32_t max_send_wr, max_recv_wr;       /* 0: rdmad's default (64) */
	uint32_t max_send_sge, max_recv_sge;     /* 0: 1 */
	uint32_t max_inline_data;
};

struct rdmad_qp_init_attr {
	struct rdmad_cq *send_cq, *recv_cq;
	struct rdmad_qp_cap cap;
	uint8_t qp_type;           /* enum rdmad_qp_type */
	uint8_t sq_sig_all;
	uint8_t sig_pipelining;
	/*
	 * Who takes a QP stopped in SQD by a signature error back to RTS
	 * (enum rdmad_recovery); 0: rdmad.conf's recovery.
	 */
	uint8_t recovery;
};

enum rdmad_recovery { RDMAD_RECOVERY_DEFAULT, RDMAD_RECOVERY_MANUAL, RDMAD_RECOVERY_AUTO };

/* Where an RC or UC QP sends (virtio_rdma_ah_attr); also an AH's attributes. */
struct rdmad_ah_attr {
	uint8_t dgid[16];          /* network order */
	uint32_t flow_label;
	uint8_t sgid_index;
	uint8_t hop_limit;         /* 0: rdmad's default (64) */
	uint8_t traffic_class;
	uint8_t port_num;          /* 0: port 1 */
};

/* Which members of rdmad_qp_attr a modify sets (IBV_QP_* bits). */
enum rdmad_qp_attr_mask {
	RDMAD_QP_STATE              = 1u << 0,
	RDMAD_QP_CUR_STATE          = 1u << 1,
	RDMAD_QP_ACCESS_FLAGS       = 1u << 3,
	RDMAD_QP_QKEY               = 1u << 6,
	RDMAD_QP_AV                 = 1u << 7,
	RDMAD_QP_PATH_MTU           = 1u << 8,
	RDMAD_QP_TIMEOUT            = 1u << 9,
	RDMAD_QP_RETRY_CNT          = 1u << 10,
	RDMAD_QP_RNR_RETRY          = 1u << 11,
	RDMAD_QP_RQ_PSN             = 1u << 12,
	RDMAD_QP_MAX_QP_RD_ATOMIC   = 1u << 13,
	RDMAD_QP_MIN_RNR_TIMER      = 1u << 15,
	RDMAD_QP_SQ_PSN             = 1u << 16,
	RDMAD_QP_MAX_DEST_RD_ATOMIC = 1u << 17,
	RDMAD_QP_DEST_QPN           = 1u << 20,
};

struct rdmad_qp_attr {
	uint8_t qp_state, cur_qp_state;      /* enum rdmad_qp_state */
	uint8_t timeout, retry_cnt, rnr_retry, min_rnr_timer;
	uint8_t max_rd_atomic, max_dest_rd_atomic;
	uint32_t qp_access_flags;            /* RDMAD_ACCESS_LOCAL_WRITE, _REMOTE_WRITE, _REMOTE_READ */
	uint32_t qkey;
	uint32_t path_mtu;                   /* bytes: 256 to 4096 */
	uint32_t rq_psn, sq_psn;
	uint32_t dest_qp_num;
	struct rdmad_ah_attr ah_attr;
	struct rdmad_qp_cap cap;             /* query only */
};

/* Objects: the library allocates them; applications read, never write, their fields. */
struct rdmad_pd {
	struct rdmad_context *context;
	uint32_t handle;
};

struct rdmad_mr {
	struct rdmad_context *context;
	struct rdmad_pd *pd;
	void *addr;                /* where the application sees its first byte */
	uint64_t length;
	uint64_t iova;             /* its first byte's address in work requests */
	uint32_t handle, lkey, rkey;
};

struct rdmad_cq {
	struct rdmad_context *context;
	uint32_t handle;
	uint32_t cqe;
};

/* ibv_comp_channel: fd is an epoll set, readable when a CQ's event waits. */
struct rdmad_comp_channel {
	struct rdmad_context *context;
	int fd;
};

struct rdmad_qp {
	struct rdmad_context *context;
	struct rdmad_pd *pd;
	struct rdmad_cq *send_cq, *recv_cq;
	uint32_t qp_num;
	uint8_t qp_type;           /* enum rdmad_qp_type */
	uint8_t state;             /* enum rdmad_qp_state, as last created, modified or queried */
};

struct rdmad_ah {
	struct rdmad_context *context;
	struct rdmad_pd *pd;
	uint32_t handle;
};

/* MKEY flags (mlx5dv_create_mkey's create_flags, as rdmad names them). */
enum {
	RDMAD_MKEY_BLOCK_SIGNATURE  = 1u << 0,
	RDMAD_MKEY_CRYPTO           = 1u << 1,
	RDMAD_MKEY_REMOTE_INVALIDATE = 1u << 2,
};

struct rdmad_mkey {
	struct rdmad_context *context;
	struct rdmad_pd *pd;       /* NULL for one borrowed from a pool */
	uint32_t lkey, rkey;
	uint8_t from_pool;         /* give it back with rdmad_pool_return, not destroy */
	uint8_t reserved[7];
};

/* One entry of an MKEY's list layout: length bytes at offset of the MR. */
struct rdmad_mkey_layout_entry {
	struct rdmad_mr *mr;
	uint64_t offset;
	uint64_t length;
};

/*
 * mlx5dv_sig_block_attr and its domains (mlx5dv_wr_set_mkey_sig_block), for
 * rdmad_configure_mkey_attr: the signature of the memory and of the wire
 * domain (NULL: none there).  Numbers are bytes where mlx5dv has an enum
 * (block_size 512, 520, 4048, 4096, 4160).
 */
enum rdmad_sig_type { RDMAD_SIG_TYPE_T10DIF = 1, RDMAD_SIG_TYPE_CRC };
enum rdmad_sig_t10dif_bg_type { RDMAD_SIG_T10DIF_CRC, RDMAD_SIG_T10DIF_CSUM };
enum {
	RDMAD_SIG_T10DIF_FLAG_REF_REMAP      = 1u << 0,
	RDMAD_SIG_T10DIF_FLAG_APP_ESCAPE     = 1u << 1,
	RDMAD_SIG_T10DIF_FLAG_APP_REF_ESCAPE = 1u << 2,
};
enum rdmad_sig_crc_type { RDMAD_SIG_CRC_TYPE_CRC32, RDMAD_SIG_CRC_TYPE_CRC32C, RDMAD_SIG_CRC_TYPE_CRC64_XP10 };

struct rdmad_sig_t10dif {
	uint32_t bg_type;          /* enum rdmad_sig_t10dif_bg_type */
	uint16_t bg;               /* the guard's seed */
	uint16_t app_tag;
	uint32_t ref_tag;
	uint16_t flags;            /* RDMAD_SIG_T10DIF_FLAG_* */
};

struct rdmad_sig_crc {
	uint32_t type;             /* enum rdmad_sig_crc_type */
	uint64_t seed;
};

struct rdmad_sig_block_domain {
	uint32_t sig_type;         /* enum rdmad_sig_type */
	union {
		struct rdmad_sig_t10dif dif;
		struct rdmad_sig_crc crc;
	} sig;
	uint32_t block_size;
};

/* copy_mask is used only with RDMAD_SIG_BLOCK_ATTR_FLAG_COPY_MASK (else rdmad chooses, as mlx5dv). */
enum { RDMAD_SIG_BLOCK_ATTR_FLAG_COPY_MASK = 1u << 0 };

struct rdmad_sig_block_attr {
	const struct rdmad_sig_block_domain *mem;
	const struct rdmad_sig_block_domain *wire;
	uint32_t flags;            /* RDMAD_SIG_BLOCK_ATTR_FLAG_* */
	uint8_t check_mask;        /* 0xff: check every byte of the tuple */
	uint8_t copy_mask;
};

/* mlx5dv_crypto_attr (mlx5dv_wr_set_mkey_crypto): AES-XTS with a DEK of rdmad_dek_lookup. */
enum rdmad_crypto_standard { RDMAD_CRYPTO_STANDARD_AES_XTS };
enum rdmad_signature_crypto_order {
	RDMAD_SIGNATURE_CRYPTO_ORDER_SIGNATURE_AFTER_CRYPTO_ON_TX,
	RDMAD_SIGNATURE_CRYPTO_ORDER_SIGNATURE_BEFORE_CRYPTO_ON_TX,
};

struct rdmad_crypto_attr {
	uint32_t crypto_standard;  /* enum rdmad_crypto_standard */
	uint8_t encrypt_on_tx;
	uint8_t has_keytag;        /* keytag is set: the DEK must carry the same */
	uint16_t reserved;
	uint32_t signature_crypto_order;  /* enum rdmad_signature_crypto_order */
	uint32_t data_unit_size;   /* bytes: 512, 520, 4048, 4096, 4160 */
	uint8_t initial_tweak[16];
	uint32_t dek;              /* rdmad_dek_attr.handle */
	uint8_t keytag[8];
};

enum rdmad_sig_err_type { RDMAD_SIG_ERR_NONE, RDMAD_SIG_ERR_GUARD, RDMAD_SIG_ERR_APPTAG, RDMAD_SIG_ERR_REFTAG };

/* mlx5dv_mkey_err: the record mlx5dv_mkey_check returns. */
struct rdmad_mkey_err {
	uint32_t err_type;         /* enum rdmad_sig_err_type */
	uint32_t reserved;
	uint64_t expected_value;
	uint64_t actual_value;
	uint64_t offset;
};

/* mlx5dv_dek_query, and the handle an MKEY's crypto attributes name. */
struct rdmad_dek_attr {
	uint32_t handle;
	uint32_t size;             /* 128 or 256 */
	uint8_t has_keytag;
	uint8_t ready;             /* 0: in state error */
	uint8_t reserved[6];
};

/*
 * Asynchronous events (ibv_event_type: the same numbers).  rdmad delivers
 * those marked *; the others are named for programs written against
 * ibverbs, and soft0 has nothing that raises them.
 */
enum rdmad_event_type {
	RDMAD_EVENT_CQ_ERR = 0,            /* * a completion overflowed the CQ, in error from now on */
	RDMAD_EVENT_QP_FATAL = 1,          /* * the data path moved the QP to ERR */
	RDMAD_EVENT_QP_REQ_ERR = 2,
	RDMAD_EVENT_QP_ACCESS_ERR = 3,
	RDMAD_EVENT_COMM_EST = 4,
	RDMAD_EVENT_SQ_DRAINED = 5,        /* * the QP is in SQD with its send queue drained */
	RDMAD_EVENT_PATH_MIG = 6,
	RDMAD_EVENT_PATH_MIG_ERR = 7,
	RDMAD_EVENT_DEVICE_FATAL = 8,
	RDMAD_EVENT_PORT_ACTIVE = 9,
	RDMAD_EVENT_PORT_ERR = 10,
	RDMAD_EVENT_LID_CHANGE = 11,
	RDMAD_EVENT_PKEY_CHANGE = 12,
	RDMAD_EVENT_SM_CHANGE = 13,
	RDMAD_EVENT_SRQ_ERR = 14,
	RDMAD_EVENT_SRQ_LIMIT_REACHED = 15,
	RDMAD_EVENT_QP_LAST_WQE_REACHED = 16,
	RDMAD_EVENT_CLIENT_REREGISTER = 17,
	RDMAD_EVENT_GID_CHANGE = 18,       /* * an entry of a port's GID table filled or emptied */
};

/* ibv_async_event: what rdmad_get_async_event returns. */
struct rdmad_async_event {
	union {
		struct rdmad_qp *qp;       /* QP_FATAL, SQ_DRAINED */
		struct rdmad_cq *cq;       /* CQ_ERR */
		uint32_t port_num;         /* GID_CHANGE, PORT_ACTIVE, PORT_ERR */
	} element;
	uint32_t event_type;               /* enum rdmad_event_type */
	uint32_t gid_index;                /* GID_CHANGE: the entry that changed */
	/* Events rdmad could not deliver just before this one: the ring was full. */
	uint64_t lost;
};

/*
 * The ring rdmad writes an application's events into (io.rdmad.Daemon
 * OpenAsyncEvents): memory shared with rdmad, this control block at offset
 * 0, then one queue of struct rdmad_async_ring_entry (librdmad(3), "Event
 * ring").  rdmad is the producer, the application the consumer; librdmad
 * reads it, a program need not.
 */
struct rdmad_async_ring_ctl {
	uint64_t lost;                     /* events dropped because the ring was full, ever */
	uint64_t delivered;                /* events written into the ring, ever */
};

struct rdmad_async_ring_entry {
	uint32_t event_type;               /* enum rdmad_event_type */
	uint32_t handle;                   /* QP: qp_num; CQ: handle; GID_CHANGE: the entry's index */
	uint32_t port;                     /* GID_CHANGE, PORT_*: the port (1-based); else 0 */
	uint32_t reserved;
	uint64_t lost_before;              /* events dropped between the previous entry and this one */
	uint64_t sequence;                 /* 0, 1, 2...: the event's number, dropped ones counted */
};

#ifdef __cplusplus
}
#endif

#endif
