/* SPDX-License-Identifier: MIT */
/*
 * The MAD transport over libibumad: VEMA's agent on an Omni-Path port's
 * user MAD device, in the main thread's event loop.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "daemon/vnic/mad_umad.h"
#include "lib/log.h"

#define PORT_STATE_ACTIVE 4
/* What one event-loop turn reads before other sources get theirs. */
#define RECV_BURST 64
/* Reading a MAD too big for the buffer, to drop it (no RMPP: never happens). */
#define OVERSIZE_DRAIN_MAX (64 * 1024)

struct umad_transport {
	struct mad_transport t;		/* first: the ops get it back */
	int portid;
	int agent_id;
	sd_event_source *io;
	uint32_t lid;
	uint16_t *pkeys;
	size_t npkeys;
	char ca_name[UMAD_CA_NAME_LEN];
	int portnum;
	uint8_t *rbuf;			/* MAD_UMAD_HDR_SIZE + MAD_UMAD_MAD_MAX */
	uint8_t *sbuf;
};

bool mad_umad_port_is_opa(const struct mad_umad_port_desc *p)
{
	bool hfi = strcmp(p->driver, "hfi1") == 0 ||
		   (!p->driver[0] && strncmp(p->ca_name, "hfi1", 4) == 0);

	/* An old kernel leaves link_layer empty; it then means InfiniBand. */
	return hfi && (!p->link_layer[0] || strcmp(p->link_layer, "InfiniBand") == 0);
}

int mad_umad_choose_port(const struct mad_umad_port_desc *ports, size_t n, const char *want_ca,
			 int want_port)
{
	int first = -ENODEV;

	for (size_t i = 0; i < n && i <= INT_MAX; i++) {
		const struct mad_umad_port_desc *p = &ports[i];

		if (!mad_umad_port_is_opa(p))
			continue;
		if (want_ca && strcmp(want_ca, p->ca_name) != 0)
			continue;
		if (want_port > 0 && want_port != p->portnum)
			continue;
		if (p->state == PORT_STATE_ACTIVE)
			return (int)i;
		if (first < 0)
			first = (int)i;
	}
	return first;
}

void mad_umad_reg_attr(struct umad_reg_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->mgmt_class = MAD_UMAD_CLASS;
	attr->mgmt_class_version = MAD_UMAD_CLASS_VERSION;
	attr->oui = MAD_UMAD_OUI;
	/* Bit n of the mask is method n: Get (0x01) and Set (0x02), as the kernel VEMA. */
	attr->method_mask[0] = (1ULL << 0x01) | (1ULL << 0x02);
	/* VEMA sends single MADs only; no RMPP keeps what the kernel hands us at one MAD. */
	attr->rmpp_version = 0;
}

static int pkey_index(const uint16_t *pkeys, size_t npkeys, uint16_t pkey)
{
	for (size_t i = 0; i < npkeys && i <= UINT16_MAX; i++)
		if (pkeys[i] == pkey)
			return (int)i;
	/* The same partition as the other kind of member (bit 15) still reaches it. */
	for (size_t i = 0; i < npkeys && i <= UINT16_MAX; i++)
		if ((pkeys[i] & 0x7fff) == (pkey & 0x7fff) && (pkey & 0x7fff))
			return (int)i;
	return -ENXIO;
}

int mad_umad_build_send(void *umad, size_t cap, const struct mad_addr *to, const uint16_t *pkeys,
			size_t npkeys, const uint8_t *mad, size_t len)
{
	int index;

	if (len < MAD_UMAD_MAD_MIN || len > MAD_UMAD_MAD_MAX || cap < MAD_UMAD_HDR_SIZE + len)
		return -EMSGSIZE;
	/* umad carries 16-bit LIDs (extended LIDs would need a GRH); OPA SLs have 5 bits. */
	if (to->lid == 0 || to->lid > 0xffff || to->sl > 31 || to->qpn > 0xffffff)
		return -EINVAL;
	index = pkey_index(pkeys, npkeys, to->pkey);
	if (index < 0)
		return index;
	memset(umad, 0, MAD_UMAD_HDR_SIZE);
	umad_set_addr_net(umad, htobe16((uint16_t)to->lid), htobe32(to->qpn), to->sl,
			  htobe32(MAD_UMAD_QP1_QKEY));
	/* Not umad_set_pkey(): it does nothing until a port is open, and this runs without one. */
	((struct ib_user_mad *)umad)->addr.pkey_index = (uint16_t)index;
	memcpy(((struct ib_user_mad *)umad)->data, mad, len);
	return 0;
}

int mad_umad_parse_recv(const void *umad, size_t len, const uint16_t *pkeys, size_t npkeys,
			struct mad_addr *from)
{
	const struct ib_user_mad *u = umad;

	if (u->status != 0)
		return -EIO;
	if (len < MAD_UMAD_MAD_MIN || len > MAD_UMAD_MAD_MAX)
		return -EMSGSIZE;
	if (u->addr.pkey_index >= npkeys)
		return -ENXIO;
	from->lid = be16toh(u->addr.lid);
	from->sl = u->addr.sl & 0x1f;
	from->pkey = pkeys[u->addr.pkey_index];
	from->qpn = be32toh(u->addr.qpn) & 0xffffff;
	return 0;
}

static struct umad_transport *to_umad(struct mad_transport *t)
{
	return (struct umad_transport *)t;
}

static int umad_transport_send(struct mad_transport *t, const struct mad_addr *to,
			       const uint8_t *mad, size_t len)
{
	struct umad_transport *u = to_umad(t);
	int r;

	r = mad_umad_build_send(u->sbuf, MAD_UMAD_HDR_SIZE + MAD_UMAD_MAD_MAX, to, u->pkeys,
				u->npkeys, mad, len);
	if (r < 0)
		return r;
	/* Replies and traps are never retried (reference §7.11): timeout 0, no retries. */
	r = umad_send(u->portid, u->agent_id, u->sbuf, (int)len, 0, 0);
	if (r < 0)
		return log_warning_errno(errno ? -errno : -EIO, "umad %s/%d: sending a MAD to LID %u",
					 u->ca_name, u->portnum, to->lid);
	return 0;
}

static uint32_t umad_transport_lid(struct mad_transport *t)
{
	return to_umad(t)->lid;
}

static void umad_transport_free(struct mad_transport *t)
{
	struct umad_transport *u = to_umad(t);

	sd_event_source_disable_unref(u->io);
	if (u->agent_id >= 0)
		umad_unregister(u->portid, u->agent_id);
	if (u->portid >= 0)
		umad_close_port(u->portid);
	free(u->pkeys);
	free(u->rbuf);
	free(u->sbuf);
	free(u);
}

static const struct mad_transport_ops umad_ops = {
	.name = "umad",
	.send = umad_transport_send,
	.lid = umad_transport_lid,
	.free = umad_transport_free,
};

/*
 * A MAD the buffer cannot hold stays queued in the kernel, and the descriptor
 * stays readable: read it into a big buffer and drop it.  No RMPP and no
 * MAD above 2048 bytes on OPA make this unreachable; it keeps a surprise
 * from spinning the event loop.  0 when something was read or nothing is left.
 */
static int drop_unreadable(struct umad_transport *u)
{
	int len = OVERSIZE_DRAIN_MAX, r;
	uint8_t *big;

	big = malloc(MAD_UMAD_HDR_SIZE + OVERSIZE_DRAIN_MAX);
	if (!big)
		return -ENOMEM;
	r = umad_recv(u->portid, big, &len, 0);
	free(big);
	if (r == -EAGAIN || r == -EWOULDBLOCK)
		return 0;
	if (r >= 0)
		log_debug("umad %s/%d: dropped a %d-byte MAD", u->ca_name, u->portnum, len);
	return r < 0 ? r : 0;
}

static int on_umad(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct umad_transport *u = userdata;

	for (int i = 0; i < RECV_BURST; i++) {
		struct mad_addr from;
		int len = MAD_UMAD_MAD_MAX, r;

		r = umad_recv(u->portid, u->rbuf, &len, 0);
		if (r == -EAGAIN || r == -EWOULDBLOCK)
			break;
		if (r < 0) {
			log_debug("umad %s/%d: receiving: %s", u->ca_name, u->portnum, strerror(-r));
			r = drop_unreadable(u);
			if (r < 0) {
				log_error_errno(r, "umad %s/%d: receiving stopped", u->ca_name,
						u->portnum);
				sd_event_source_set_enabled(s, SD_EVENT_OFF);
				break;
			}
			continue;
		}
		r = mad_umad_parse_recv(u->rbuf, (size_t)len, u->pkeys, u->npkeys, &from);
		if (r < 0) {
			log_debug("umad %s/%d: dropped a %d-byte MAD: %s", u->ca_name, u->portnum,
				  len, strerror(-r));
			continue;
		}
		if (u->t.recv)
			u->t.recv(u->t.userdata, &from, ((struct ib_user_mad *)u->rbuf)->data,
				  (size_t)len);
	}
	return 0;
}

/* Names from sysfs fit their fields; a longer one is cut, never overrun. */
static void copy_name(char *dst, size_t cap, const char *src)
{
	size_t len = strnlen(src, cap - 1);

	memcpy(dst, src, len);
	dst[len] = '\0';
}

static void driver_name(const char *ca_name, char *out, size_t cap)
{
	char path[128], target[PATH_MAX];
	const char *base;
	ssize_t n;

	out[0] = '\0';
	if (snprintf(path, sizeof(path), "%s/%s/device/driver", SYS_INFINIBAND, ca_name) >=
	    (int)sizeof(path))
		return;
	n = readlink(path, target, sizeof(target) - 1);
	if (n <= 0)
		return;
	target[n] = '\0';
	base = strrchr(target, '/');
	copy_name(out, cap, base ? base + 1 : target);
}

/* Every port of every CA; *n set to how many were found (at most cap). */
static void list_ports(struct mad_umad_port_desc *ports, size_t cap, size_t *n)
{
	char names[UMAD_MAX_DEVICES][UMAD_CA_NAME_LEN];
	int ncas = umad_get_cas_names(names, UMAD_MAX_DEVICES);

	*n = 0;
	for (int c = 0; c < ncas; c++) {
		char driver[32];
		umad_ca_t ca;

		if (umad_get_ca(names[c], &ca) < 0)
			continue;
		driver_name(names[c], driver, sizeof(driver));
		for (int p = 0; p < UMAD_CA_MAX_PORTS && *n < cap; p++) {
			struct mad_umad_port_desc *d = &ports[*n];

			if (!ca.ports[p])
				continue;
			memset(d, 0, sizeof(*d));
			copy_name(d->ca_name, sizeof(d->ca_name), names[c]);
			copy_name(d->driver, sizeof(d->driver), driver);
			copy_name(d->link_layer, sizeof(d->link_layer), ca.ports[p]->link_layer);
			d->portnum = ca.ports[p]->portnum;
			d->state = ca.ports[p]->state;
			(*n)++;
		}
		umad_release_ca(&ca);
	}
}

/* The port's LID and P_Key table, as sysfs has them now. */
static int read_port(struct umad_transport *u)
{
	umad_port_t port;
	int r;

	r = umad_get_port(u->ca_name, u->portnum, &port);
	if (r < 0)
		return r;
	u->lid = port.base_lid;
	u->npkeys = port.pkeys_size;
	u->pkeys = calloc(u->npkeys ? u->npkeys : 1, sizeof(*u->pkeys));
	if (u->pkeys && u->npkeys)
		memcpy(u->pkeys, port.pkeys, u->npkeys * sizeof(*u->pkeys));
	umad_release_port(&port);
	return u->pkeys ? 0 : -ENOMEM;
}

static int open_agent(struct umad_transport *u, sd_event *event)
{
	struct umad_reg_attr attr;
	uint32_t agent_id;
	int fd, flags, r;

	u->portid = umad_open_port(u->ca_name, u->portnum);
	if (u->portid < 0)
		return u->portid;
	/* Our buffers have the P_Key index header, which an open port turns on in libibumad. */
	if (umad_size() != MAD_UMAD_HDR_SIZE)
		return -EPROTO;
	fd = umad_get_fd(u->portid);
	flags = fcntl(fd, F_GETFL);
	/* umad_recv() with no timeout reads at once: it must not block the event loop. */
	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
		return -errno;
	mad_umad_reg_attr(&attr);
	r = umad_register2(u->portid, &attr, &agent_id);
	if (r != 0)
		return r < 0 ? r : -r;
	u->agent_id = (int)agent_id;
	return sd_event_add_io(event, &u->io, fd, EPOLLIN, on_umad, u);
}

int mad_umad_open(struct mad_transport **out, sd_event *event, const char *ca_name, int port)
{
	struct mad_umad_port_desc ports[UMAD_MAX_DEVICES];
	struct umad_transport *u;
	size_t n;
	int i, r;

	if (umad_init() < 0)
		return -ENODEV;
	list_ports(ports, UMAD_MAX_DEVICES, &n);
	i = mad_umad_choose_port(ports, n, ca_name, port);
	if (i < 0)
		return i;
	u = calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	u->t.ops = &umad_ops;
	u->portid = -1;
	u->agent_id = -1;
	copy_name(u->ca_name, sizeof(u->ca_name), ports[i].ca_name);
	u->portnum = ports[i].portnum;
	u->rbuf = calloc(1, MAD_UMAD_HDR_SIZE + MAD_UMAD_MAD_MAX);
	u->sbuf = calloc(1, MAD_UMAD_HDR_SIZE + MAD_UMAD_MAD_MAX);
	r = u->rbuf && u->sbuf ? read_port(u) : -ENOMEM;
	if (r >= 0)
		r = open_agent(u, event);
	if (r < 0) {
		log_error_errno(r, "umad %s/%d: opening the VEMA agent", u->ca_name, u->portnum);
		umad_transport_free(&u->t);
		return r;
	}
	log_info("umad %s/%d: VEMA agent %d registered, LID %u", u->ca_name, u->portnum,
		 u->agent_id, u->lid);
	*out = &u->t;
	return 0;
}
