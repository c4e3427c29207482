/* SPDX-License-Identifier: MIT */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/udp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "dataplane/udp.h"

static void count(_Atomic uint64_t *c, uint64_t n)
{
	atomic_fetch_add_explicit(c, n, memory_order_relaxed);
}

static int parse_port(const char *s, uint16_t *port, const char **why)
{
	unsigned long v = 0;

	if (!*s) {
		*why = "missing port after ':'";
		return -EINVAL;
	}
	for (; *s; s++) {
		if (*s < '0' || *s > '9') {
			*why = "port is not a decimal number";
			return -EINVAL;
		}
		v = v * 10 + (*s - '0');
		if (v > 65535) {
			*why = "port out of range (0-65535)";
			return -EINVAL;
		}
	}
	*port = v;
	return 0;
}

/* host[0..host_len) is copied out so inet_pton sees a terminated string of bounded size. */
static int parse_host(int family, const char *host, size_t host_len, struct dp_udp_addr *out,
		      const char **why)
{
	char buf[INET6_ADDRSTRLEN];
	void *dst = family == AF_INET ? (void *)&out->in.sin_addr : (void *)&out->in6.sin6_addr;

	if (host_len == 0 || host_len >= sizeof(buf)) {
		*why = host_len ? "host address too long" : "missing host address";
		return -EINVAL;
	}
	memcpy(buf, host, host_len);
	buf[host_len] = 0;
	if (inet_pton(family, buf, dst) != 1) {
		*why = family == AF_INET ? "not a numeric IPv4 address" : "not a numeric IPv6 address";
		return -EINVAL;
	}
	return 0;
}

int dp_udp_addr_parse(const char *s, uint16_t default_port, struct dp_udp_addr *out,
		      const char **why)
{
	struct dp_udp_addr a;
	const char *host = s, *port_s = NULL, *end;
	uint16_t port = default_port;
	int family, r;

	memset(&a, 0, sizeof(a));
	*why = NULL;
	if (s[0] == '[') {
		family = AF_INET6;
		host = s + 1;
		end = strchr(host, ']');
		if (!end) {
			*why = "missing ']' after the IPv6 address";
			return -EINVAL;
		}
		if (end[1] == ':')
			port_s = end + 2;
		else if (end[1]) {
			*why = "expected ':PORT' after ']'";
			return -EINVAL;
		}
	} else {
		family = AF_INET;
		end = strchr(s, ':');
		if (end && strchr(end + 1, ':')) {
			*why = "an IPv6 address must be written in brackets: [ADDR]:PORT";
			return -EINVAL;
		}
		if (end)
			port_s = end + 1;
		else
			end = s + strlen(s);
	}
	r = parse_host(family, host, end - host, &a, why);
	if (r)
		return r;
	if (port_s) {
		r = parse_port(port_s, &port, why);
		if (r)
			return r;
	} else if (!default_port) {
		*why = "missing ':PORT'";
		return -EINVAL;
	}
	if (family == AF_INET) {
		a.in.sin_family = AF_INET;
		a.in.sin_port = htons(port);
		a.len = sizeof(a.in);
	} else {
		a.in6.sin6_family = AF_INET6;
		a.in6.sin6_port = htons(port);
		a.len = sizeof(a.in6);
	}
	*out = a;
	return 0;
}

uint16_t dp_udp_addr_port(const struct dp_udp_addr *a)
{
	return ntohs(a->sa.sa_family == AF_INET6 ? a->in6.sin6_port : a->in.sin_port);
}

void dp_udp_addr_format(const struct dp_udp_addr *a, char *buf, size_t size)
{
	char host[INET6_ADDRSTRLEN] = "?";

	if (a->sa.sa_family == AF_INET6) {
		inet_ntop(AF_INET6, &a->in6.sin6_addr, host, sizeof(host));
		snprintf(buf, size, "[%s]:%u", host, dp_udp_addr_port(a));
	} else {
		if (a->sa.sa_family == AF_INET)
			inet_ntop(AF_INET, &a->in.sin_addr, host, sizeof(host));
		snprintf(buf, size, "%s:%u", host, dp_udp_addr_port(a));
	}
}

bool dp_udp_addr_equal(const struct dp_udp_addr *a, const struct dp_udp_addr *b)
{
	if (a->sa.sa_family != b->sa.sa_family)
		return false;
	if (a->sa.sa_family == AF_INET)
		return a->in.sin_port == b->in.sin_port &&
		       a->in.sin_addr.s_addr == b->in.sin_addr.s_addr;
	if (a->sa.sa_family == AF_INET6)
		return a->in6.sin6_port == b->in6.sin6_port &&
		       a->in6.sin6_scope_id == b->in6.sin6_scope_id &&
		       !memcmp(&a->in6.sin6_addr, &b->in6.sin6_addr, sizeof(a->in6.sin6_addr));
	return false;
}

/* The options of flags on fd; -errno of the first refused. */
static int set_options(int fd, int family, unsigned flags)
{
	int on = 1, size = DP_UDP_BIG_BUFFER;
	int pmtu = family == AF_INET6 ? IPV6_PMTUDISC_DO : IP_PMTUDISC_DO;

	if ((flags & DP_UDP_V6ONLY) && family == AF_INET6 &&
	    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof(on)) < 0)
		return -errno;
	if ((flags & DP_UDP_DONT_FRAGMENT) &&
	    setsockopt(fd, family == AF_INET6 ? IPPROTO_IPV6 : IPPROTO_IP,
		       family == AF_INET6 ? IPV6_MTU_DISCOVER : IP_MTU_DISCOVER, &pmtu, sizeof(pmtu)) < 0)
		return -errno;
	if (flags & DP_UDP_BIG_BUFFERS) {
		/* The FORCE variants pass rmem_max/wmem_max with CAP_NET_ADMIN; without it, what the limit allows. */
		if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) < 0)
			(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
		if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &size, sizeof(size)) < 0)
			(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
	}
	return 0;
}

int dp_udp_open(struct dp_udp *u, const struct dp_udp_addr *addr)
{
	return dp_udp_open_flags(u, addr, 0);
}

int dp_udp_open_flags(struct dp_udp *u, const struct dp_udp_addr *addr, unsigned flags)
{
	int fd, r;

	memset(u, 0, sizeof(*u));
	u->fd = -1;
	if (addr->sa.sa_family != AF_INET && addr->sa.sa_family != AF_INET6)
		return -EAFNOSUPPORT;
	fd = socket(addr->sa.sa_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	r = set_options(fd, addr->sa.sa_family, flags);
	if (r < 0) {
		close(fd);
		return r;
	}
	if (bind(fd, &addr->sa, addr->len) < 0)
		goto fail;
	u->local.len = sizeof(u->local.in6);
	if (getsockname(fd, &u->local.sa, &u->local.len) < 0)
		goto fail;
	u->fd = fd;
	return 0;
fail:
	r = -errno;
	close(fd);
	return r;
}

void dp_udp_close(struct dp_udp *u)
{
	if (u->fd >= 0)
		close(u->fd);
	u->fd = -1;
}

int dp_udp_enable_gro(struct dp_udp *u)
{
	int on = 1;

	if (setsockopt(u->fd, SOL_UDP, UDP_GRO, &on, sizeof(on)) < 0)
		return -errno;
	u->gro = true;
	return 0;
}

int dp_udp_enable_pktinfo(struct dp_udp *u)
{
	int on = 1, r;

	if (u->local.sa.sa_family == AF_INET6)
		r = setsockopt(u->fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, &on, sizeof(on));
	else
		r = setsockopt(u->fd, IPPROTO_IP, IP_PKTINFO, &on, sizeof(on));
	if (r < 0)
		return -errno;
	u->pktinfo = true;
	return 0;
}

/*
 * What the kernel said of one received buffer: the segment size of a GRO buffer (0 for a
 * plain datagram) and the local address it was sent to (to->len 0 when not said).
 */
static size_t read_cmsgs(const struct dp_udp *u, const struct msghdr *h, struct dp_udp_addr *to)
{
	struct cmsghdr *c;
	size_t seg = 0;
	int v;

	to->len = 0;
	if (h->msg_flags & MSG_CTRUNC)
		return 0;
	for (c = CMSG_FIRSTHDR(h); c; c = CMSG_NXTHDR((struct msghdr *)h, c)) {
		if (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_GRO &&
		    c->cmsg_len >= CMSG_LEN(sizeof(int))) {
			memcpy(&v, CMSG_DATA(c), sizeof(v));
			seg = v > 0 ? (size_t)v : 0;
		} else if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_PKTINFO &&
			   c->cmsg_len >= CMSG_LEN(sizeof(struct in_pktinfo))) {
			struct in_pktinfo pi;

			memcpy(&pi, CMSG_DATA(c), sizeof(pi));
			*to = (struct dp_udp_addr){ .in = { .sin_family = AF_INET, .sin_addr = pi.ipi_addr,
							    .sin_port = u->local.in.sin_port },
						    .len = sizeof(struct sockaddr_in) };
		} else if (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_PKTINFO &&
			   c->cmsg_len >= CMSG_LEN(sizeof(struct in6_pktinfo))) {
			struct in6_pktinfo pi;

			memcpy(&pi, CMSG_DATA(c), sizeof(pi));
			*to = (struct dp_udp_addr){ .in6 = { .sin6_family = AF_INET6, .sin6_addr = pi.ipi6_addr,
							     .sin6_port = u->local.in6.sin6_port },
						    .len = sizeof(struct sockaddr_in6) };
		}
	}
	return seg;
}

int dp_udp_recv(struct dp_udp *u, struct dp_udp_rx_batch *b, uint8_t *const *bufs,
		size_t buf_size, unsigned n, dp_udp_rx_fn fn, void *arg)
{
	int got, i, datagrams = 0;

	b->msgs_got = 0;
	if (n > DP_UDP_BATCH)
		n = DP_UDP_BATCH;
	for (i = 0; i < (int)n; i++) {
		b->iov[i] = (struct iovec){ .iov_base = bufs[i], .iov_len = buf_size };
		b->msgs[i].msg_hdr = (struct msghdr){
			.msg_name = &b->from[i].sa, .msg_namelen = sizeof(b->from[i].in6),
			.msg_iov = &b->iov[i], .msg_iovlen = 1,
		};
		if (u->gro || u->pktinfo) {
			b->msgs[i].msg_hdr.msg_control = b->ctl[i].buf;
			b->msgs[i].msg_hdr.msg_controllen = sizeof(b->ctl[i].buf);
		}
	}
	got = recvmmsg(u->fd, b->msgs, n, MSG_DONTWAIT, NULL);
	if (got < 0) {
		if (errno == EAGAIN || errno == EINTR)
			return 0;
		count(&u->stats.rx_errors, 1);
		return -errno;
	}
	b->msgs_got = got;
	for (i = 0; i < got; i++) {
		struct mmsghdr *m = &b->msgs[i];
		size_t len = m->msg_len, seg = read_cmsgs(u, &m->msg_hdr, &b->to[i]), off, l;

		count(&u->stats.rx_bytes, len);
		/* MSG_TRUNC: the datagram was longer than the buffer; half a packet is no packet. */
		if (m->msg_hdr.msg_flags & MSG_TRUNC) {
			count(&u->stats.rx_datagrams, 1);
			count(&u->stats.rx_truncated, 1);
			datagrams++;
			continue;
		}
		b->from[i].len = m->msg_hdr.msg_namelen;
		if (!seg || seg >= len) {
			count(&u->stats.rx_datagrams, 1);
			datagrams++;
			fn(arg, bufs[i], len, &b->from[i], &b->to[i]);
			continue;
		}
		/* A GRO buffer: datagrams of seg bytes, the last one maybe shorter. */
		count(&u->stats.rx_gro, 1);
		for (off = 0; off < len; off += l) {
			l = len - off < seg ? len - off : seg;
			count(&u->stats.rx_datagrams, 1);
			datagrams++;
			fn(arg, bufs[i] + off, l, &b->from[i], &b->to[i]);
		}
	}
	return datagrams;
}

int dp_udp_send(struct dp_udp *u, const struct dp_udp_addr *to, const void *buf, size_t len)
{
	if (sendto(u->fd, buf, len, MSG_DONTWAIT, &to->sa, to->len) < 0) {
		int e = errno;

		count(e == EAGAIN || e == ENOBUFS ? &u->stats.tx_again : &u->stats.tx_errors, 1);
		return -e;
	}
	count(&u->stats.tx_datagrams, 1);
	count(&u->stats.tx_bytes, len);
	return 0;
}

bool dp_udp_tx_add(struct dp_udp_tx_batch *b, const struct dp_udp_addr *to, const void *buf,
		   size_t len, uint32_t tag)
{
	unsigned i = b->n;

	if (i >= DP_UDP_BATCH)
		return false;
	b->iov[i] = (struct iovec){ .iov_base = (void *)buf, .iov_len = len };
	b->msgs[i].msg_hdr = (struct msghdr){
		.msg_name = (void *)&to->sa, .msg_namelen = to->len,
		.msg_iov = &b->iov[i], .msg_iovlen = 1,
	};
	b->err[i] = 0;
	b->tag[i] = tag;
	b->n++;
	return true;
}

bool dp_udp_tx_add_from(struct dp_udp_tx_batch *b, const struct dp_udp_addr *to,
			const struct dp_udp_addr *from, const void *buf, size_t len, uint32_t tag)
{
	struct msghdr *h = &b->msgs[b->n].msg_hdr;
	struct cmsghdr *c = &b->sctl[b->n].align;

	if (!dp_udp_tx_add(b, to, buf, len, tag))
		return false;
	memset(b->sctl[b->n - 1].buf, 0, sizeof(b->sctl[0].buf));
	h->msg_control = b->sctl[b->n - 1].buf;
	if (from->sa.sa_family == AF_INET6) {
		struct in6_pktinfo pi = { .ipi6_addr = from->in6.sin6_addr };

		c->cmsg_level = IPPROTO_IPV6;
		c->cmsg_type = IPV6_PKTINFO;
		c->cmsg_len = CMSG_LEN(sizeof(pi));
		memcpy(CMSG_DATA(c), &pi, sizeof(pi));
		h->msg_controllen = CMSG_SPACE(sizeof(pi));
	} else {
		struct in_pktinfo pi = { .ipi_spec_dst = from->in.sin_addr };

		c->cmsg_level = IPPROTO_IP;
		c->cmsg_type = IP_PKTINFO;
		c->cmsg_len = CMSG_LEN(sizeof(pi));
		memcpy(CMSG_DATA(c), &pi, sizeof(pi));
		h->msg_controllen = CMSG_SPACE(sizeof(pi));
	}
	return true;
}

/* Sends b's datagrams [from, to) one sendmmsg entry each; how many were sent. */
static unsigned send_plain(struct dp_udp *u, struct dp_udp_tx_batch *b, unsigned from,
			   unsigned to)
{
	unsigned i = from, sent = 0, k;
	int r;

	while (i < to) {
		r = sendmmsg(u->fd, b->msgs + i, to - i, MSG_DONTWAIT);
		if (r < 0) {
			/* The failure belongs to the first datagram not sent; try the next ones. */
			if (errno == EINTR)
				continue;
			b->err[i] = -errno;
			count(errno == EAGAIN || errno == ENOBUFS ? &u->stats.tx_again :
				&u->stats.tx_errors, 1);
			i++;
			continue;
		}
		for (k = i; k < i + (unsigned)r; k++)
			count(&u->stats.tx_bytes, b->msgs[k].msg_len);
		count(&u->stats.tx_datagrams, r);
		sent += r;
		i += r;
	}
	return sent;
}

/* One destination, and one source when one is set (the same pktinfo control message). */
static bool same_ends(const struct msghdr *a, const struct msghdr *b)
{
	return a->msg_namelen == b->msg_namelen &&
	       (a->msg_name == b->msg_name || !memcmp(a->msg_name, b->msg_name, a->msg_namelen)) &&
	       a->msg_controllen == b->msg_controllen &&
	       (!a->msg_controllen || !memcmp(a->msg_control, b->msg_control, a->msg_controllen));
}

/*
 * Groups b's datagrams into runs for GSO: consecutive, one destination, one size (the last
 * of a run may be shorter), at most DP_UDP_GSO_MAX_BYTES together.  The runs' entries in
 * b->gmsgs point into b->iov; how many runs.
 */
static unsigned group(struct dp_udp_tx_batch *b)
{
	unsigned i = 0, j, ng = 0;

	while (i < b->n) {
		const struct msghdr *h = &b->msgs[i].msg_hdr;
		size_t seg = b->iov[i].iov_len, total = seg;
		struct msghdr *g = &b->gmsgs[ng].msg_hdr;

		for (j = i + 1; j < b->n; j++) {
			size_t l = b->iov[j].iov_len;

			if (l > seg || !l || total + l > DP_UDP_GSO_MAX_BYTES ||
			    !same_ends(h, &b->msgs[j].msg_hdr))
				break;
			total += l;
			if (l < seg) {
				j++;
				break;
			}
		}
		*g = *h;
		g->msg_iov = &b->iov[i];
		g->msg_iovlen = j - i;
		if (j - i > 1) {
			/* The run's source (pktinfo) first, if it has one, then its segment size. */
			struct cmsghdr *c = (struct cmsghdr *)(b->gctl[ng].buf + h->msg_controllen);
			uint16_t v = seg;

			if (h->msg_controllen)
				memcpy(b->gctl[ng].buf, h->msg_control, h->msg_controllen);
			g->msg_control = b->gctl[ng].buf;
			g->msg_controllen = h->msg_controllen + CMSG_SPACE(sizeof(v));
			c->cmsg_level = SOL_UDP;
			c->cmsg_type = UDP_SEGMENT;
			c->cmsg_len = CMSG_LEN(sizeof(v));
			memcpy(CMSG_DATA(c), &v, sizeof(v));
		}
		b->gfirst[ng] = i;
		b->gcount[ng] = j - i;
		for (unsigned k = i; k < j; k++)
			b->gpos[k] = k - i;
		ng++;
		i = j;
	}
	return ng;
}

unsigned dp_udp_tx_plan(struct dp_udp *u, struct dp_udp_tx_batch *b)
{
	if (b->ng)
		return b->ng;
	if (b->n < 2 || atomic_load_explicit(&u->gso_off, memory_order_relaxed)) {
		memset(b->gpos, 0, b->n);
		b->ng = b->n;
		return b->ng;
	}
	b->ng = group(b);
	return b->ng;
}

unsigned dp_udp_send_batch(struct dp_udp *u, struct dp_udp_tx_batch *b)
{
	unsigned ng, gi = 0, sent = 0, k, first, cnt;
	int r, e;

	ng = dp_udp_tx_plan(u, b);
	if (ng == b->n)
		return send_plain(u, b, 0, b->n);	/* no run of two: nothing to gain */
	while (gi < ng) {
		r = sendmmsg(u->fd, b->gmsgs + gi, ng - gi, MSG_DONTWAIT);
		if (r >= 0) {
			for (k = gi; k < gi + (unsigned)r; k++) {
				count(&u->stats.tx_bytes, b->gmsgs[k].msg_len);
				count(&u->stats.tx_datagrams, b->gcount[k]);
				if (b->gcount[k] > 1)
					count(&u->stats.tx_gso, 1);
				sent += b->gcount[k];
			}
			gi += r;
			continue;
		}
		e = errno;
		if (e == EINTR)
			continue;
		first = b->gfirst[gi];
		cnt = b->gcount[gi];
		if (cnt > 1 && (e == EINVAL || e == EIO)) {
			/*
			 * The kernel (or the path: a segment beyond its MTU) refuses GSO.  The run goes
			 * again one by one; if that works, GSO was the problem: off for this socket.
			 */
			r = send_plain(u, b, first, first + cnt);
			sent += r;
			gi++;
			if (r > 0) {
				atomic_store_explicit(&u->gso_off, true, memory_order_relaxed);
				sent += send_plain(u, b, first + cnt, b->n);
				break;
			}
			continue;
		}
		/* The failure belongs to every datagram of the first run not sent. */
		for (k = first; k < first + cnt; k++)
			b->err[k] = -e;
		count(e == EAGAIN || e == ENOBUFS ? &u->stats.tx_again : &u->stats.tx_errors, cnt);
		gi++;
	}
	return sent;
}
