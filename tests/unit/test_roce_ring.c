/* SPDX-License-Identifier: MIT */
/*
 * The packet path's ring (dataplane/roce/packet_ring.c) on a loopback interface of a network
 * namespace of its own: what the kernel had no room for is counted, once, and what it had
 * room for is all taken.  Needs root (a namespace, CAP_NET_RAW); skipped otherwise.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "dataplane/roce/packet_ring.h"

#define PORT 47910

/* The namespace's lo, up: it starts down. */
static void loopback_up(void)
{
	struct ifreq ifr = { 0 };
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	assert_true(fd >= 0);
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	assert_int_equal(ioctl(fd, SIOCGIFFLAGS, &ifr), 0);
	ifr.ifr_flags |= IFF_UP;
	assert_int_equal(ioctl(fd, SIOCSIFFLAGS, &ifr), 0);
	close(fd);
}

/* n datagrams of 64 bytes from a socket of its own to 127.0.0.1:PORT. */
static void send_datagrams(unsigned n)
{
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(PORT),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	uint8_t payload[64] = { 0 };
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	assert_true(fd >= 0);
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(sendto(fd, payload, sizeof(payload), 0, (struct sockaddr *)&to, sizeof(to)),
				 (ssize_t)sizeof(payload));
	close(fd);
}

static void count_frame(void *arg, const uint8_t *frame, size_t len, const struct roce_frame_info *info)
{
	(void)frame;
	(void)len;
	(void)info;
	++*(unsigned *)arg;
}

/* Everything the ring holds, taken a batch at a time. */
static unsigned take_all(struct roce_ring *ring)
{
	unsigned seen = 0, got;

	do
		got = roce_ring_take(ring, 32, count_frame, &seen);
	while (got);
	return seen;
}

static void ring_drops_counted_once(void **state)
{
	struct roce_ring ring;
	unsigned over = 71;

	(void)state;
	if (geteuid() != 0 || unshare(CLONE_NEWNET) < 0)
		skip();
	loopback_up();
	assert_int_equal(roce_ring_open(&ring, "lo", PORT), 0);
	assert_true(ring.frames > 0);
	/* Nothing sent: nothing dropped. */
	assert_int_equal(roce_ring_drops(&ring), 0);

	/* The ring full and then some: what did not fit is dropped, said once. */
	send_datagrams(ring.frames + over);
	assert_int_equal(roce_ring_drops(&ring), over);
	assert_int_equal(roce_ring_drops(&ring), 0);
	assert_int_equal(take_all(&ring), ring.frames);

	/* Room again: all of it taken, none dropped. */
	send_datagrams(10);
	assert_int_equal(take_all(&ring), 10);
	assert_int_equal(roce_ring_drops(&ring), 0);
	roce_ring_close(&ring);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ring_drops_counted_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
