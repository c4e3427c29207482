/* SPDX-License-Identifier: MIT */
/*
 * The VNIC port's TAP interface, for real: in a network namespace of its
 * own (and a mount namespace, so that /sys/class/net shows that network
 * namespace), created, configured and checked through sysfs; the host's
 * actions (`ip link set ...`, `ip maddr add`) seen through the callbacks
 * while the event loop runs; frames both ways between the TAP descriptor
 * and an AF_PACKET socket.  Needs root and /dev/net/tun: without them only
 * the parser test runs.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <poll.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "daemon/vnic/netdev_linux.h"
#include "daemon/vnic/netdev_priv.h"	/* vnic_mcast_parse() */

/* IEEE 802 "local experimental" EtherType: nothing else on the link sends it. */
#define TEST_ETHERTYPE 0x88b5

struct seen {
	unsigned admin_calls, mac_calls, mtu_calls, mc_calls;
	bool admin_up;
	uint8_t mac[6];
	unsigned mtu;
	struct vnic_mac_list mc;
};

struct fixture {
	sd_event *event;
	struct vnic_netdev_watch *watch;
	struct vnic_netdev *nd;
	struct seen seen;
};

static void on_admin(void *userdata, bool up)
{
	struct seen *s = userdata;

	s->admin_calls++;
	s->admin_up = up;
}

static void on_mac(void *userdata, const uint8_t mac[6])
{
	struct seen *s = userdata;

	s->mac_calls++;
	memcpy(s->mac, mac, 6);
}

static void on_mtu(void *userdata, unsigned mtu)
{
	struct seen *s = userdata;

	s->mtu_calls++;
	s->mtu = mtu;
}

static void on_mc_list(void *userdata, const struct vnic_mac_list *list)
{
	struct seen *s = userdata;

	s->mc_calls++;
	memcpy(&s->mc, list, sizeof(*list));
}

static const struct vnic_netdev_events events = {
	.on_admin = on_admin,
	.on_mac = on_mac,
	.on_mtu = on_mtu,
	.on_mc_list = on_mc_list,
};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Runs the event loop for ms milliseconds. */
static void pump(struct fixture *f, unsigned ms)
{
	uint64_t end = now_ms() + ms;

	while (now_ms() < end)
		assert_true(sd_event_run(f->event, 10000) >= 0);
}

/* Runs the event loop until *counter passes `than` or 3 s go by; true if it did. */
static bool pump_until(struct fixture *f, const unsigned *counter, unsigned than)
{
	uint64_t end = now_ms() + 3000;

	while (*counter <= than && now_ms() < end)
		assert_true(sd_event_run(f->event, 10000) >= 0);
	return *counter > than;
}

static void read_sys(const char *ifname, const char *attr, char *out, size_t cap)
{
	char path[128];
	FILE *fp;

	snprintf(path, sizeof(path), "/sys/class/net/%s/%s", ifname, attr);
	fp = fopen(path, "r");
	assert_non_null(fp);
	if (!fgets(out, (int)cap, fp))
		out[0] = '\0';
	fclose(fp);
	out[strcspn(out, "\n")] = '\0';
}

/* The kernel's linkwatch changes operstate a little later: poll sysfs (and the loop). */
static bool wait_sys(struct fixture *f, const char *ifname, const char *attr, const char *want)
{
	char got[64] = "";

	for (int i = 0; i < 300; i++) {
		read_sys(ifname, attr, got, sizeof(got));
		if (strcmp(got, want) == 0)
			return true;
		pump(f, 10);
	}
	fprintf(stderr, "%s/%s: %s, wanted %s\n", ifname, attr, got, want);
	return false;
}

static void run(const char *cmd)
{
	assert_int_equal(system(cmd), 0);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	assert_int_equal(sd_event_new(&f->event), 0);
	/* Fast multicast polling: the tests wait for it. */
	assert_int_equal(vnic_netdev_watch_new(&f->watch, f->event, 50000), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	vnic_netdev_destroy(f->nd);
	vnic_netdev_watch_free(f->watch);
	sd_event_unref(f->event);
	free(f);
	return 0;
}

static void create(struct fixture *f, const char *name)
{
	assert_int_equal(vnic_netdev_create(&f->nd, f->watch, name, &events, &f->seen), 0);
}

static void test_create_and_configure(void **state)
{
	struct fixture *f = *state;
	const uint8_t mac[6] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };
	struct vnic_netdev *again;
	char buf[64];

	create(f, "vnic0");
	assert_string_equal(vnic_netdev_name(f->nd), "vnic0");
	assert_true(vnic_netdev_ifindex(f->nd) > 0);
	assert_true(fcntl(vnic_netdev_fd(f->nd), F_GETFL) & O_NONBLOCK);
	assert_int_equal(vnic_netdev_create(&again, f->watch, "vnic0", &events, NULL), -EBUSY);
	assert_int_equal(vnic_netdev_create(&again, f->watch, "much-too-long-name", &events, NULL),
			 -EINVAL);
	read_sys("vnic0", "link_mode", buf, sizeof(buf));
	assert_string_equal(buf, "1");	/* IF_LINK_MODE_DORMANT */
	read_sys("vnic0", "mtu", buf, sizeof(buf));
	assert_string_equal(buf, "1500");

	assert_int_equal(vnic_netdev_set_mac(f->nd, mac), 0);
	read_sys("vnic0", "address", buf, sizeof(buf));
	assert_string_equal(buf, "02:11:22:33:44:55");
	assert_int_equal(vnic_netdev_set_mtu(f->nd, 1400), 0);
	read_sys("vnic0", "mtu", buf, sizeof(buf));
	assert_string_equal(buf, "1400");
	assert_int_equal(vnic_netdev_mtu(f->nd), 1400);
	assert_int_equal(vnic_netdev_set_mtu(f->nd, 1501), -ERANGE);	/* above the POD ceiling */
	assert_int_equal(vnic_netdev_set_mtu(f->nd, 67), -ERANGE);

	/* Up with no carrier: down; the carrier makes a dormant-mode link dormant. */
	assert_int_equal(vnic_netdev_set_up(f->nd, true), 0);
	assert_true(pump_until(f, &f->seen.admin_calls, 0));
	assert_true(f->seen.admin_up);
	read_sys("vnic0", "carrier", buf, sizeof(buf));
	assert_string_equal(buf, "0");
	assert_true(wait_sys(f, "vnic0", "operstate", "down"));
	assert_int_equal(vnic_netdev_set_carrier(f->nd, true), 0);
	read_sys("vnic0", "carrier", buf, sizeof(buf));
	assert_string_equal(buf, "1");
	assert_true(wait_sys(f, "vnic0", "operstate", "dormant"));
	assert_int_equal(vnic_netdev_set_dormant(f->nd, false), 0);
	assert_true(wait_sys(f, "vnic0", "operstate", "up"));
	assert_int_equal(vnic_netdev_set_dormant(f->nd, true), 0);
	assert_true(wait_sys(f, "vnic0", "operstate", "dormant"));

	/* Carrier lost and back while not dormant: the kernel says DORMANT, the watch says UP. */
	assert_int_equal(vnic_netdev_set_dormant(f->nd, false), 0);
	assert_true(wait_sys(f, "vnic0", "operstate", "up"));
	assert_int_equal(vnic_netdev_set_carrier(f->nd, false), 0);
	assert_true(wait_sys(f, "vnic0", "operstate", "down"));
	run("ip link set vnic0 carrier on");
	assert_true(wait_sys(f, "vnic0", "operstate", "up"));

	/* None of the driver's own changes called back. */
	assert_int_equal(f->seen.mac_calls, 0);
	assert_int_equal(f->seen.mtu_calls, 0);
	assert_int_equal(vnic_netdev_set_up(f->nd, false), 0);
	assert_true(pump_until(f, &f->seen.admin_calls, 1));
	assert_false(f->seen.admin_up);
}

static void test_mtu_ceiling(void **state)
{
	struct fixture *f = *state;
	char buf[64];

	create(f, "vnic1");
	assert_int_equal(vnic_netdev_set_mtu_ceiling(f->nd, 9000), 0);
	assert_int_equal(vnic_netdev_set_mtu(f->nd, 9000), 0);
	/* The ceiling drops below the MTU: the MTU follows it down. */
	assert_int_equal(vnic_netdev_set_mtu_ceiling(f->nd, 2000), 0);
	assert_int_equal(vnic_netdev_mtu(f->nd), 2000);
	read_sys("vnic1", "mtu", buf, sizeof(buf));
	assert_string_equal(buf, "2000");
	/* eth_mtu below the minimum MTU: the ceiling is 68. */
	assert_int_equal(vnic_netdev_set_mtu_ceiling(f->nd, 10), 0);
	read_sys("vnic1", "mtu", buf, sizeof(buf));
	assert_string_equal(buf, "68");
	assert_int_equal(vnic_netdev_set_mtu_ceiling(f->nd, 1500), 0);
	pump(f, 50);
	assert_int_equal(f->seen.mtu_calls, 0);

	/* The host lowers the MTU: reported. */
	run("ip link set vnic1 mtu 1400");
	assert_true(pump_until(f, &f->seen.mtu_calls, 0));
	assert_int_equal(f->seen.mtu, 1400);
	/* The host raises it above the ceiling: lowered back to the ceiling, which is reported. */
	run("ip link set vnic1 mtu 1600");
	assert_true(pump_until(f, &f->seen.mtu_calls, 1));
	assert_int_equal(f->seen.mtu, 1500);
	assert_true(wait_sys(f, "vnic1", "mtu", "1500"));
	/* Again from the ceiling itself: it stays 1500, nothing to report. */
	run("ip link set vnic1 mtu 1700");
	pump(f, 200);
	assert_true(wait_sys(f, "vnic1", "mtu", "1500"));
	assert_int_equal(f->seen.mtu_calls, 2);
}

static bool list_has(const struct vnic_mac_list *l, const uint8_t mac[6])
{
	for (unsigned i = 0; i < l->n; i++)
		if (memcmp(l->mac[i], mac, 6) == 0)
			return true;
	return false;
}

static void test_host_actions(void **state)
{
	struct fixture *f = *state;
	const uint8_t host_mac[6] = { 0x02, 0xaa, 0xbb, 0xcc, 0xdd, 0xee };
	const uint8_t em_mac[6] = { 0x06, 0x2c, 0x00, 0x05, 0x00, 0x00 };
	const uint8_t group[6] = { 0x01, 0x00, 0x5e, 0x01, 0x02, 0x03 };
	struct vnic_mac_list *list = malloc(sizeof(*list));
	unsigned mc_calls;

	assert_non_null(list);
	create(f, "vnic2");
	run("ip link set vnic2 up");
	assert_true(pump_until(f, &f->seen.admin_calls, 0));
	assert_true(f->seen.admin_up);

	run("ip link set vnic2 address 02:aa:bb:cc:dd:ee");
	assert_true(pump_until(f, &f->seen.mac_calls, 0));
	assert_memory_equal(f->seen.mac, host_mac, 6);
	/* The EM's base MAC, set by the driver: no callback. */
	assert_int_equal(vnic_netdev_set_mac(f->nd, em_mac), 0);
	pump(f, 100);
	assert_int_equal(f->seen.mac_calls, 1);

	/* The unicast list is the device address, less the EM's base MAC. */
	assert_int_equal(vnic_netdev_read_unicast(f->nd, NULL, list), 0);
	assert_int_equal(list->n, 1);
	assert_memory_equal(list->mac[0], em_mac, 6);
	assert_int_equal(vnic_netdev_read_unicast(f->nd, em_mac, list), 0);
	assert_int_equal(list->n, 0);
	assert_int_equal(vnic_netdev_read_unicast(f->nd, host_mac, list), 0);
	assert_int_equal(list->n, 1);

	/* A multicast join makes no link notification: the timer finds it. */
	pump(f, 200);
	mc_calls = f->seen.mc_calls;
	run("ip maddr add 01:00:5e:01:02:03 dev vnic2");
	assert_true(pump_until(f, &f->seen.mc_calls, mc_calls));
	assert_true(list_has(&f->seen.mc, group));
	assert_int_equal(vnic_netdev_read_multicast(f->nd, list), 0);
	assert_true(list_has(list, group));
	mc_calls = f->seen.mc_calls;
	run("ip maddr del 01:00:5e:01:02:03 dev vnic2");
	assert_true(pump_until(f, &f->seen.mc_calls, mc_calls));
	assert_false(list_has(&f->seen.mc, group));
	/* Nothing changes, nothing is reported. */
	pump(f, 200);
	mc_calls = f->seen.mc_calls;
	pump(f, 200);
	assert_int_equal(f->seen.mc_calls, mc_calls);

	run("ip link set vnic2 down");
	assert_true(pump_until(f, &f->seen.admin_calls, 1));
	assert_false(f->seen.admin_up);
	free(list);
}

/* Reads from a nonblocking fd until a frame of TEST_ETHERTYPE arrives (1 s at most), behind
 * a header of skip bytes (dropped: the frame is moved to buf[0]). */
static ssize_t read_test_frame(int fd, uint8_t *buf, size_t cap, size_t skip)
{
	uint64_t end = now_ms() + 1000;

	while (now_ms() < end) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, 100) <= 0)
			continue;
		n = read(fd, buf, cap);
		if (n < (ssize_t)skip + 14)
			continue;
		n -= skip;
		memmove(buf, buf + skip, n);
		if (buf[12] == (TEST_ETHERTYPE >> 8) && buf[13] == (TEST_ETHERTYPE & 0xff))
			return n;
	}
	return -1;
}

static void test_frames(void **state)
{
	struct fixture *f = *state;
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL) };
	uint8_t frame[100], got[2048], out[128] = { 0 };
	size_t hl;
	int ps, tap;

	create(f, "vnic3");
	tap = vnic_netdev_fd(f->nd);
	/* Frames come and go behind a virtio_net_hdr (IFF_VNET_HDR). */
	hl = vnic_netdev_vnet_hdr_len(f->nd);
	assert_true(hl == 10 || hl == 12);
	assert_int_equal(vnic_netdev_set_carrier(f->nd, true), 0);
	assert_int_equal(vnic_netdev_set_dormant(f->nd, false), 0);
	assert_int_equal(vnic_netdev_set_up(f->nd, true), 0);
	assert_true(wait_sys(f, "vnic3", "operstate", "up"));

	ps = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, htons(ETH_P_ALL));
	assert_true(ps >= 0);
	sll.sll_ifindex = vnic_netdev_ifindex(f->nd);
	assert_int_equal(bind(ps, (struct sockaddr *)&sll, sizeof(sll)), 0);

	memset(frame, 0x5a, sizeof(frame));
	memcpy(frame, "\xff\xff\xff\xff\xff\xff\x02\x01\x02\x03\x04\x05\x88\xb5", 14);
	/* The data path writes a frame: the host receives it on vnic3. */
	memcpy(out + hl, frame, sizeof(frame));
	assert_int_equal(write(tap, out, hl + sizeof(frame)), (ssize_t)(hl + sizeof(frame)));
	assert_int_equal(read_test_frame(ps, got, sizeof(got), 0), (ssize_t)sizeof(frame));
	assert_memory_equal(got, frame, sizeof(frame));

	/* The host sends a frame on vnic3: the data path reads it. */
	frame[20] = 0xa5;
	assert_int_equal(send(ps, frame, sizeof(frame), 0), (ssize_t)sizeof(frame));
	assert_int_equal(read_test_frame(tap, got, sizeof(got), hl), (ssize_t)sizeof(frame));
	assert_memory_equal(got, frame, sizeof(frame));
	close(ps);
}

static void test_destroy_removes(void **state)
{
	struct fixture *f = *state;

	create(f, "vnic4");
	assert_int_equal(access("/sys/class/net/vnic4", F_OK), 0);
	vnic_netdev_destroy(f->nd);
	f->nd = NULL;
	assert_int_not_equal(access("/sys/class/net/vnic4", F_OK), 0);
	/* The name is free again. */
	create(f, "vnic4");
}

/* /proc/net/dev_mcast text, as the kernel writes it, and worse. */
static void test_mcast_parse(void **state)
{
	const char *text =
		"1    lo              1     0     01005e000001\n"
		"7    vnic0           1     0     333300000001\n"
		"7    vnic0           2     1     01005e010203\n"
		"8    vnic1           1     0     333300000002\n"
		"7    vnic0           1     0     01005e0102\n"		/* short: skipped */
		"7    vnic0           1     0     01005e01020304\n"	/* long: skipped */
		"x    vnic0           1     0     333300000003\n"		/* no index */
		"7    vnic0           1     0     zz3300000004\n"		/* not hex */
		"7 vnic0 1 0 333300000005";				/* no newline */
	const uint8_t a[6] = { 0x33, 0x33, 0, 0, 0, 1 }, b[6] = { 1, 0, 0x5e, 1, 2, 3 },
		      c[6] = { 0x33, 0x33, 0, 0, 0, 5 };
	struct vnic_mac_list *l = malloc(sizeof(*l));
	char *many;

	assert_non_null(l);
	vnic_mcast_parse(text, 7, l);
	assert_int_equal(l->n, 3);
	assert_false(l->truncated);
	assert_memory_equal(l->mac[0], a, 6);
	assert_memory_equal(l->mac[1], b, 6);
	assert_memory_equal(l->mac[2], c, 6);
	vnic_mcast_parse(text, 9, l);
	assert_int_equal(l->n, 0);
	vnic_mcast_parse("", 7, l);
	assert_int_equal(l->n, 0);

	/* More than the list holds: truncated, never overrun. */
	many = malloc((VNIC_MAC_LIST_MAX + 5) * 50);
	assert_non_null(many);
	many[0] = '\0';
	for (unsigned i = 0, off = 0; i < VNIC_MAC_LIST_MAX + 5; i++)
		off += (unsigned)sprintf(many + off, "3 vnic0 1 0 0100%08x\n", i);
	vnic_mcast_parse(many, 3, l);
	assert_int_equal(l->n, VNIC_MAC_LIST_MAX);
	assert_true(l->truncated);
	free(many);
	free(l);
}

/* A network namespace of our own, and sysfs mounted for it. */
static const char *enter_namespace(void)
{
	if (geteuid() != 0)
		return "needs root";
	if (access("/dev/net/tun", R_OK | W_OK) != 0)
		return "no /dev/net/tun";
	if (unshare(CLONE_NEWNET | CLONE_NEWNS) != 0)
		return "unshare(CLONE_NEWNET | CLONE_NEWNS) failed";
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
	    mount("sysfs", "/sys", "sysfs", 0, NULL) != 0)
		return "cannot mount sysfs for the new namespace";
	return NULL;
}

int main(void)
{
	const struct CMUnitTest parse_tests[] = {
		cmocka_unit_test(test_mcast_parse),
	};
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mcast_parse),
		cmocka_unit_test_setup_teardown(test_create_and_configure, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mtu_ceiling, setup, teardown),
		cmocka_unit_test_setup_teardown(test_host_actions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_frames, setup, teardown),
		cmocka_unit_test_setup_teardown(test_destroy_removes, setup, teardown),
	};

	/* Why the interface tests cannot run here (not root, no TUN), or NULL. */
	const char *skip_reason = enter_namespace();
	/* Not cmocka's skip(): its TAP output is "not ok ... # SKIP", which tests/run.sh counts. */
	if (skip_reason) {
		fprintf(stderr, "test_netdev: interface tests skipped: %s\n", skip_reason);
		return cmocka_run_group_tests(parse_tests, NULL, NULL);
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
