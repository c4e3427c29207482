/* SPDX-License-Identifier: MIT */
/*
 * A nonblocking UDP endpoint for the transports that travel between nodes (the OPA software
 * fabric now, RoCE v2 later): one socket, IPv4 or IPv6, batched receive (recvmmsg) into the
 * caller's buffers, single and batched send (sendto, sendmmsg), and counters.  Sending from
 * several threads at once is fine (the kernel serialises per datagram), so every counter is
 * atomic; the receiving side is one thread.
 *
 * Segmentation offload (Linux >= 4.18), invisible to the callers: a batch's consecutive
 * datagrams of one size to one address (the last may be shorter) leave as one sendmmsg entry
 * with a UDP_SEGMENT cmsg, the kernel cutting them apart as late as it can (UDP GSO); a
 * kernel or path that refuses it (EINVAL, EIO) turns it off for the socket and the datagrams
 * go one by one.  On receive, dp_udp_enable_gro() lets the kernel hand over several
 * datagrams of one flow as one buffer (UDP GRO); dp_udp_recv() cuts it at the gso_size the
 * kernel reports, so callbacks and counters still see one datagram at a time.
 */
#pragma once

#include <netinet/in.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define DP_UDP_BATCH		32	/* datagrams per recvmmsg / sendmmsg call */
#define DP_UDP_ADDR_STRLEN	(INET6_ADDRSTRLEN + 8)	/* "[v6]:65535" */
#define DP_UDP_GSO_MAX_BYTES	65000	/* payload of one GSO send (an IP packet's limit) */
#define DP_UDP_GRO_BUF_SIZE	65536	/* a receive buffer that holds any GRO buffer */

/* A numeric IPv4 or IPv6 socket address; len says which. */
struct dp_udp_addr {
	union {
		struct sockaddr sa;
		struct sockaddr_in in;
		struct sockaddr_in6 in6;
	};
	socklen_t len;
};

struct dp_udp_counters {
	_Atomic uint64_t rx_datagrams;
	_Atomic uint64_t rx_bytes;
	_Atomic uint64_t rx_truncated;	/* longer than the caller's buffer: dropped */
	_Atomic uint64_t rx_errors;	/* recvmmsg failed other than EAGAIN */
	_Atomic uint64_t tx_datagrams;
	_Atomic uint64_t tx_bytes;
	_Atomic uint64_t tx_again;	/* socket buffer full (EAGAIN, ENOBUFS) */
	_Atomic uint64_t tx_errors;	/* any other send failure */
	_Atomic uint64_t tx_gso;	/* sendmmsg entries that carried several datagrams */
	_Atomic uint64_t rx_gro;	/* buffers the kernel coalesced from several datagrams */
};

struct dp_udp {
	int fd;				/* -1: closed */
	struct dp_udp_addr local;	/* as bound (the kernel's port if 0 was asked) */
	struct dp_udp_counters stats;
	_Atomic bool gso_off;		/* the kernel refused UDP_SEGMENT once: plain sends */
	bool gro;			/* UDP_GRO is on: buffers of DP_UDP_GRO_BUF_SIZE needed */
	bool pktinfo;			/* receive: the local address each datagram was sent to */
};

/*
 * One datagram handed over by dp_udp_recv(); buf is the caller's, valid during the call.  to is
 * the local address it was sent to (with dp_udp_enable_pktinfo(); else len 0).
 */
typedef void (*dp_udp_rx_fn)(void *arg, const uint8_t *buf, size_t len,
			     const struct dp_udp_addr *from, const struct dp_udp_addr *to);

/* The kernel's view of one receive batch: lives with the receiving thread, no state between calls. */
struct dp_udp_rx_batch {
	struct mmsghdr msgs[DP_UDP_BATCH];
	struct iovec iov[DP_UDP_BATCH];
	struct dp_udp_addr from[DP_UDP_BATCH];
	struct dp_udp_addr to[DP_UDP_BATCH];
	union {
		/* UDP_GRO: the segment size; IP_PKTINFO / IPV6_PKTINFO: the local address */
		char buf[CMSG_SPACE(sizeof(int)) + CMSG_SPACE(sizeof(struct in6_pktinfo))];
		struct cmsghdr align;
	} ctl[DP_UDP_BATCH];
	unsigned msgs_got;		/* buffers the last dp_udp_recv() filled */
};

/* Datagrams queued for one sendmmsg; err[i] is filled by dp_udp_send_batch(). */
struct dp_udp_tx_batch {
	unsigned n;
	struct mmsghdr msgs[DP_UDP_BATCH];
	struct iovec iov[DP_UDP_BATCH];
	int err[DP_UDP_BATCH];		/* 0 or negative errno, per datagram */
	uint32_t tag[DP_UDP_BATCH];	/* the caller's, e.g. which frame a datagram carries */
	union {
		char buf[CMSG_SPACE(sizeof(struct in6_pktinfo))];	/* the source address */
		struct cmsghdr align;
	} sctl[DP_UDP_BATCH];
	/* dp_udp_send_batch()'s own: the sendmmsg entries, one per run of datagrams. */
	struct mmsghdr gmsgs[DP_UDP_BATCH];
	union {
		/* the run's pktinfo, if any, then UDP_SEGMENT */
		char buf[CMSG_SPACE(sizeof(struct in6_pktinfo)) + CMSG_SPACE(sizeof(uint16_t))];
		struct cmsghdr align;
	} gctl[DP_UDP_BATCH];
	uint8_t gfirst[DP_UDP_BATCH], gcount[DP_UDP_BATCH];
	uint8_t gpos[DP_UDP_BATCH];	/* datagram i's place in its run (dp_udp_tx_plan) */
	unsigned ng;			/* runs planned; 0: not planned yet */
};

/*
 * Parses "A.B.C.D:PORT" or "[IPv6]:PORT" (numeric hosts only; ":PORT" may be left out when
 * default_port is not 0).  -EINVAL with *why naming what is wrong ("missing ']'", "port out
 * of range", ...), a static string.
 */
int dp_udp_addr_parse(const char *s, uint16_t default_port, struct dp_udp_addr *out,
		      const char **why);
/* "A.B.C.D:PORT" or "[v6]:PORT" into buf (DP_UDP_ADDR_STRLEN is enough). */
void dp_udp_addr_format(const struct dp_udp_addr *a, char *buf, size_t size);
/* Same family, address and port (scope id too for IPv6). */
bool dp_udp_addr_equal(const struct dp_udp_addr *a, const struct dp_udp_addr *b);
uint16_t dp_udp_addr_port(const struct dp_udp_addr *a);

/* Opens a nonblocking socket bound to addr (port 0: the kernel picks; u->local says which). */
int dp_udp_open(struct dp_udp *u, const struct dp_udp_addr *addr);

enum dp_udp_open_flag {
	DP_UDP_V6ONLY = 1 << 0,		/* an IPv6 socket that leaves IPv4 to a socket of its own */
	DP_UDP_DONT_FRAGMENT = 1 << 1,	/* DF set, never fragmented: IPv4 sends ID 0 (RoCE v2's ICRC) */
	DP_UDP_BIG_BUFFERS = 1 << 2,	/* socket buffers of DP_UDP_BIG_BUFFER bytes (root may exceed rmem_max) */
};
#define DP_UDP_BIG_BUFFER (8u << 20)

/* dp_udp_open with enum dp_udp_open_flag options set before the bind. */
int dp_udp_open_flags(struct dp_udp *u, const struct dp_udp_addr *addr, unsigned flags);
void dp_udp_close(struct dp_udp *u);

/*
 * Asks the kernel for UDP GRO (coalesced receive).  The caller's receive buffers must then be
 * DP_UDP_GRO_BUF_SIZE bytes.  0 or a negative errno (an old kernel: plain receive goes on).
 */
int dp_udp_enable_gro(struct dp_udp *u);

/* Asks the kernel for each datagram's local address (dp_udp_rx_fn's to).  0 or a negative errno. */
int dp_udp_enable_pktinfo(struct dp_udp *u);

/*
 * Receives up to n (<= DP_UDP_BATCH) buffers into bufs[i] (buf_size bytes each) and calls
 * fn for each datagram in order (a GRO buffer is cut into its datagrams).  A datagram longer
 * than buf_size is counted (rx_truncated) and not handed over.  Returns how many datagrams
 * were received (0: none waiting) or a negative errno; b->msgs_got says how many buffers.
 */
int dp_udp_recv(struct dp_udp *u, struct dp_udp_rx_batch *b, uint8_t *const *bufs,
		size_t buf_size, unsigned n, dp_udp_rx_fn fn, void *arg);

/* Sends one datagram: 0 or a negative errno (-EAGAIN / -ENOBUFS: no room now). */
int dp_udp_send(struct dp_udp *u, const struct dp_udp_addr *to, const void *buf, size_t len);

static inline void dp_udp_tx_reset(struct dp_udp_tx_batch *b)
{
	b->n = 0;
	b->ng = 0;
}

static inline bool dp_udp_tx_full(const struct dp_udp_tx_batch *b)
{
	return b->n == DP_UDP_BATCH;
}

/* Queues one datagram (buf and to must stay valid until sent); false when the batch is full. */
bool dp_udp_tx_add(struct dp_udp_tx_batch *b, const struct dp_udp_addr *to, const void *buf,
		   size_t len, uint32_t tag);
/*
 * The same, sent from the local address from (of to's family; its port is ignored) rather than
 * the one the kernel's route would pick: what a protocol whose checksum covers the source
 * address needs (RoCE v2's ICRC).  Only datagrams from the same address form a GSO run.
 */
bool dp_udp_tx_add_from(struct dp_udp_tx_batch *b, const struct dp_udp_addr *to,
			const struct dp_udp_addr *from, const void *buf, size_t len, uint32_t tag);

/*
 * Groups the queued datagrams into the runs dp_udp_send_batch() will send, for a caller whose
 * datagrams depend on their place in a run (RoCE's ICRC covers the IPv4 ID, which the kernel
 * numbers 0, 1, 2... along a run): b->gpos[i] is datagram i's place, 0 for each datagram
 * that goes alone.  Nothing is queued after it but by dp_udp_tx_reset().  How many runs.
 */
unsigned dp_udp_tx_plan(struct dp_udp *u, struct dp_udp_tx_batch *b);

/*
 * Sends the queued datagrams with as few sendmmsg calls as the kernel allows, runs of equal
 * size to one address as single GSO entries; a datagram the kernel refuses gets its err[]
 * (every datagram of a refused GSO entry does) and the rest are still tried.  Returns how
 * many datagrams were sent; the batch stays filled (err[], tag[]) for the caller to read,
 * then dp_udp_tx_reset().
 */
unsigned dp_udp_send_batch(struct dp_udp *u, struct dp_udp_tx_batch *b);
