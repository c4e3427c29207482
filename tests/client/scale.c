/* SPDX-License-Identifier: MIT */
/*
 * rdmad-scale KIND N [hold]: a program that creates up to N objects of KIND
 * (qp, cq, mr, mkey, ah) through librdmad, one call each, on one PD (QPs on
 * one CQ, with 16-entry queues), then destroys them all, and says how fast:
 *
 *     created C in S s: R/s
 *     refused after C: WHAT rdmad said      (only when one was refused)
 *     destroyed C in S s: R/s
 *
 * With hold it prints "ready" once it has created them and waits for a line
 * (or the end) on its standard input before it destroys them: what the
 * scale bench and limits-scale.bats measure rdmad's memory against.
 */
#include <rdmad/rdmad.h>

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static struct rdmad_context *ctx;
static struct rdmad_pd *pd;
static struct rdmad_cq *cq;
static void *buf;

static void die(const char *what)
{
	fprintf(stderr, "rdmad-scale: %s: %s (%s)\n", what, strerror(errno), rdmad_last_error());
	exit(1);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One kind: make one object (NULL with errno), destroy one (negative errno). */
struct kind {
	const char *name;
	void *(*create)(void);
	int (*destroy)(void *obj);
};

static void *qp_create(void)
{
	struct rdmad_qp_init_attr init = {
		.send_cq = cq, .recv_cq = cq, .qp_type = RDMAD_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 1, .max_recv_sge = 1 },
	};

	return rdmad_create_qp(pd, &init);
}

static void *cq_create(void)
{
	return rdmad_create_cq(ctx, 1);
}

static void *mr_create(void)
{
	return rdmad_reg_mr(pd, buf, 4096, RDMAD_ACCESS_LOCAL_WRITE);
}

static void *mkey_create(void)
{
	return rdmad_create_mkey(pd, 0, 4);
}

static void *ah_create(void)
{
	struct rdmad_ah_attr av = { 0 };

	inet_pton(AF_INET6, "fe80::2", av.dgid);
	return rdmad_create_ah(pd, &av);
}

static int qp_destroy(void *o) { return rdmad_destroy_qp(o); }
static int cq_destroy(void *o) { return rdmad_destroy_cq(o); }
static int mr_destroy(void *o) { return rdmad_dereg_mr(o); }
static int mkey_destroy(void *o) { return rdmad_destroy_mkey(o); }
static int ah_destroy(void *o) { return rdmad_destroy_ah(o); }

static const struct kind kinds[] = {
	{ "qp", qp_create, qp_destroy },
	{ "cq", cq_create, cq_destroy },
	{ "mr", mr_create, mr_destroy },
	{ "mkey", mkey_create, mkey_destroy },
	{ "ah", ah_create, ah_destroy },
};

static void rate(const char *what, unsigned n, double seconds)
{
	printf("%s %u in %.3f s: %.0f/s\n", what, n, seconds, seconds > 0 ? n / seconds : 0);
}

int main(int argc, char **argv)
{
	const struct kind *k = NULL;
	unsigned long n;
	unsigned made = 0;
	char *end, line[16];
	void **objs;
	double t;

	for (size_t i = 0; argc >= 3 && i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(argv[1], kinds[i].name))
			k = &kinds[i];
	n = argc >= 3 ? strtoul(argv[2], &end, 10) : 0;
	if (!k || !n || *end || n > (1ul << 24) || (argc == 4 && strcmp(argv[3], "hold")) || argc > 4) {
		fprintf(stderr, "usage: rdmad-scale qp|cq|mr|mkey|ah N [hold]\n");
		return 2;
	}
	if (!(objs = calloc(n, sizeof(*objs))))
		die("memory");
	if (!(ctx = rdmad_open(NULL, NULL)))
		die("rdmad_open");
	if (!(pd = rdmad_alloc_pd(ctx)))
		die("rdmad_alloc_pd");
	if (!(cq = rdmad_create_cq(ctx, 16)))
		die("rdmad_create_cq");
	if (!(buf = rdmad_alloc_buf(ctx, 4096)))
		die("rdmad_alloc_buf");
	t = now();
	while (made < n && (objs[made] = k->create()))
		made++;
	rate("created", made, now() - t);
	if (made < n)
		printf("refused after %u: %s\n", made, rdmad_last_error());
	if (argc == 4) {
		printf("ready\n");
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin) && ferror(stdin))
			die("stdin");
	}
	t = now();
	for (unsigned i = 0; i < made; i++) {
		errno = -k->destroy(objs[i]);
		if (errno)
			die("destroy");
	}
	rate("destroyed", made, now() - t);
	free(objs);
	if (rdmad_close(ctx) < 0)
		die("rdmad_close");
	return 0;
}
