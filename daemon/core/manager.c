/* SPDX-License-Identifier: MIT */
#include "daemon/soft/datapath.h"
#include "daemon/soft/gid_default.h"
#include "daemon/soft/gid_netlink.h"
#include "daemon/soft/soft_device.h"
#include "daemon/core/commit.h"
#include "daemon/core/helper.h"
#include "daemon/core/manager.h"
#include "daemon/core/lend_state.h"
#include "daemon/verbs/secret.h"
#include "daemon/core/state.h"
#include "daemon/soft/workers.h"
#include "daemon/vdev/vdev.h"
#include "lib/event_loop.h"
#include "lib/log.h"
#include "lib/varlink/varlink.h"

#include <errno.h>
#include <fcntl.h>
#include <gcrypt.h>
#include <grp.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <systemd/sd-daemon.h>
#include <time.h>
#include <unistd.h>

/*
 * What the state directory keeps, in restore order: settings first, so that
 * the log level is right for what follows.
 */
static const struct state_kind *const state_kinds[] = {
	&state_settings,
	&state_deks,
	&state_pools,
	&state_vnic,
	&state_vdevs,
};

static uint64_t now_usec(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

void manager_apply_log_level(struct manager *m)
{
	log_set_max_level(m->log_level_override >= 0 ? m->log_level_override : m->config.log_level);
}

/* *gid of group name, if it exists; a negative errno when the lookup failed. */
static int lookup_group(const char *name, bool *exists, gid_t *gid)
{
	/* Room for the group's member list: doubled while too small, up to 1 MiB. */
	for (size_t size = 16384;; size *= 2) {
		struct group grp, *g = NULL;
		char *buf = malloc(size);
		int r;

		if (!buf)
			return -ENOMEM;
		r = getgrnam_r(name, &grp, buf, size, &g);
		*exists = r == 0 && g;
		if (*exists)
			*gid = g->gr_gid;
		free(buf);
		if (r != ERANGE || size >= (1u << 20))
			return -r;
	}
}

/*
 * Looks RDMAD_READ_GROUP up again.  A lookup that fails keeps what was known;
 * a change is logged, and so is a group that does not exist at start.
 */
static void resolve_read_group(struct manager *m)
{
	bool exists;
	gid_t gid = 0;
	int r = lookup_group(RDMAD_READ_GROUP, &exists, &gid);

	if (r < 0) {
		log_warning_errno(r, "cannot look up group %s; %s", RDMAD_READ_GROUP,
				  m->read_group.looked_up ? "its members stay who they were" :
				  "only root may call methods until a reload finds it");
		return;
	}
	if (!exists && (m->read_group.exists || !m->read_group.looked_up))
		log_notice("group %s does not exist: only root may call methods other than "
			   "introspection until a reload finds it", RDMAD_READ_GROUP);
	else if (exists && (!m->read_group.exists || m->read_group.gid != gid))
		log_info("group %s is gid %u: its members may call the methods that only read",
			 RDMAD_READ_GROUP, (unsigned)gid);
	m->read_group.looked_up = true;
	m->read_group.exists = exists;
	m->read_group.gid = gid;
}

static void apply_config(struct manager *m)
{
	manager_apply_log_level(m);
	resolve_read_group(m);
	if (m->varlink)
		varlink_server_set_limits(m->varlink, &m->config.limits);
	/* For QPs created from now on. */
	for (unsigned i = 0; i < m->n_devices; i++)
		m->devices[i]->default_recovery = m->config.recovery;
}

/* The workers' CPUs: those of --cpus, each one this process may run on; else all of those. */
static int choose_cpus(struct manager *m, const char *list)
{
	int allowed[CPULIST_MAX], n_allowed, n;
	char err[128], text[128];

	n_allowed = cpulist_allowed(allowed, CPULIST_MAX);
	if (n_allowed < 0)
		return log_error_errno(n_allowed, "cannot read the CPUs this process may use");
	if (!list) {
		memcpy(m->cpus, allowed, (size_t)n_allowed * sizeof(int));
		m->n_cpus = (unsigned)n_allowed;
		return 0;
	}
	n = cpulist_parse(list, m->cpus, CPULIST_MAX, err, sizeof(err));
	if (n < 0) {
		log_error("--cpus: %s", err);
		return n;
	}
	for (int i = 0; i < n; i++) {
		bool ok = false;

		for (int j = 0; j < n_allowed && !ok; j++)
			ok = allowed[j] == m->cpus[i];
		if (!ok) {
			cpulist_format(allowed, (size_t)n_allowed, text, sizeof(text));
			log_error("--cpus: CPU %d is not one this process may run on (allowed: %s)",
				  m->cpus[i], text);
			return -EINVAL;
		}
	}
	m->n_cpus = (unsigned)n;
	return 0;
}

int manager_new(struct manager **out, const struct manager_options *opts)
{
	struct manager *m = calloc(1, sizeof(*m));
	char err[1024];
	int r;

	if (!m)
		return -ENOMEM;
	m->state_lock_fd = -1;
	m->ready_fd = -1;
	m->log_level_override = opts->log_level;
	m->log_level_cmdline = opts->log_level;
	m->log_level_set = -1;
	m->log_level_saved = -1;
	m->socket_path = strdup(opts->socket_path ? opts->socket_path : RDMAD_SOCKET_PATH);
	m->state_dir = strdup(opts->state_dir ? opts->state_dir : RDMAD_STATE_DIR);
	m->config_path = strdup(opts->config_path ? opts->config_path : RDMAD_CONFIG_PATH);
	if (!m->socket_path || !m->state_dir || !m->config_path) {
		manager_free(m);
		return -ENOMEM;
	}
	r = choose_cpus(m, opts->cpus);
	if (r < 0) {
		manager_free(m);
		return r;
	}
	config_defaults(&m->config);
	r = config_load(m->config_path, &m->config, err, sizeof(err));
	if (r < 0) {
		log_error("%s", err);
		manager_free(m);
		return r;
	}
	m->config_read = r > 0;
	apply_config(m);
	r = sd_event_default(&m->event);
	if (r < 0) {
		manager_free(m);
		return r;
	}
	m->trim.event = m->event;
	*out = m;
	return 0;
}

struct manager *manager_free(struct manager *m)
{
	if (!m)
		return NULL;
	m->commit = commit_free(m->commit);
	/* Its jobs' done hooks may still touch a device. */
	m->helper = helper_free(m->helper);
	gid_netlink_free(m->roce_gids);
	m->roce_gids = NULL;
	/* The OPA port and the vdevs' sessions leave the workers before they stop. */
	vnic_stop(m);
	m->vdevs = (vdev_set_free(m->vdevs), NULL);
	m->workers = worker_set_free(m->workers);
	/* What the workers owned is the main thread's to free now. */
	for (unsigned i = 0; i < m->n_devices; i++)
		rdma_device_workers_stopped(m->devices[i]);
	memory_trim_release(&m->trim);
	for (unsigned i = 0; i < m->n_devices; i++) {
		memory_trim_unwatch(&m->trim, m->devices[i]);
		rdma_device_free(m->devices[i]);
	}
	if (m->state_lock_fd >= 0)
		close(m->state_lock_fd);
	if (m->ready_fd >= 0)
		close(m->ready_fd);
	sd_event_unref(m->event);
	free(m->socket_path);
	free(m->state_dir);
	free(m->config_path);
	config_free(&m->config);
	free(m);
	return NULL;
}

void manager_set_ready_fd(struct manager *m, int fd)
{
	m->ready_fd = fd;
}

struct rdma_device *manager_find_device(struct manager *m, const char *name)
{
	return rdma_device_find(m->devices, m->n_devices, name);
}

uint64_t manager_uptime_usec(const struct manager *m)
{
	return now_usec(CLOCK_MONOTONIC) - m->start_usec;
}

/* The per-uid limits of c within every device's caps (config_fit_tenant); -EINVAL with err. */
static int fit_tenant(struct manager *m, struct rdmad_config *c, char *err, size_t err_size)
{
	for (unsigned i = 0; i < m->n_devices; i++) {
		unsigned cap[RDMAD_TENANT_KINDS];

		for (int kind = 0; kind < RDMAD_TENANT_KINDS; kind++)
			cap[kind] = rdma_device_limit(m->devices[i], kind);
		if (config_fit_tenant(c, cap, m->config_path, m->devices[i]->name, err, err_size) < 0)
			return -EINVAL;
	}
	return 0;
}

static int reload_config(struct manager *m, char *err, size_t err_size)
{
	struct rdmad_config c;
	bool read;
	int r;

	config_defaults(&c);
	r = config_load(m->config_path, &c, err, err_size);
	if (r < 0)
		return r;
	read = r > 0;
	/* The devices' caps size their tables: kept as in force until rdmad restarts. */
	if (memcmp(c.device_max_objects, m->config.device_max_objects, sizeof(c.device_max_objects)))
		log_notice("max_pds, max_mrs, max_cqs, max_qps, max_ahs and max_mkeys changed: they take "
			   "effect when rdmad restarts");
	memcpy(c.device_max_objects, m->config.device_max_objects, sizeof(c.device_max_objects));
	r = fit_tenant(m, &c, err, err_size);
	if (r == 0)
		r = vnic_reload(m, &c.fabric, err, err_size);
	if (r < 0) {
		config_free(&c);
		return r;
	}
	if (strcmp(c.roce_netdev, m->config.roce_netdev) != 0 || c.roce_port != m->config.roce_port ||
	    memcmp(&c.roce_faults, &m->config.roce_faults, sizeof(c.roce_faults)) != 0 ||
	    c.roce_receive != m->config.roce_receive)
		log_notice("roce_netdev, roce_port, roce_receive and roce_fault_* changed: they take effect "
			   "when rdmad restarts");
	/* Kept as in force until then, so that the next reload compares with it. */
	memcpy(c.roce_netdev, m->config.roce_netdev, sizeof(c.roce_netdev));
	c.roce_port = m->config.roce_port;
	c.roce_receive = m->config.roce_receive;
	c.roce_faults = m->config.roce_faults;
	config_free(&m->config);
	m->config = c;
	m->config_read = read;
	apply_config(m);
	/* Users and groups DEKs and pools are lent to, as the read group: looked up here, not per call. */
	for (unsigned i = 0; i < m->n_devices; i++)
		lend_state_resolve(m->devices[i]);
	log_info("configuration reloaded from %s", m->config_path);
	return 0;
}

/*
 * The service manager is told of a reload however it came (SIGHUP, or
 * Daemon.Reload, which rdmad.service's ExecReload= calls so that
 * "systemctl reload" returns once the file is in force, or fails).
 */
int manager_reload(struct manager *m, char *err, size_t err_size)
{
	int r;

	sd_notify(0, "RELOADING=1\nSTATUS=Reloading configuration");
	r = reload_config(m, err, err_size);
	if (r < 0)
		log_error("reload failed, keeping the old configuration: %s", err);
	sd_notifyf(0, "READY=1\nSTATUS=Serving %u device(s)", m->n_devices);
	return r;
}

/* One daemon per state directory: a second one would overwrite the first's state. */
static int open_state_dir(struct manager *m)
{
	char path[4096];
	int fd;

	if (mkdir(m->state_dir, 0700) < 0 && errno != EEXIST)
		return log_error_errno(-errno, "cannot create state directory %s", m->state_dir);
	snprintf(path, sizeof(path), "%s/.lock", m->state_dir);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return log_error_errno(-errno, "cannot open %s", path);
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		int r = -errno;

		close(fd);
		if (r == -EWOULDBLOCK)
			log_error("state directory %s is in use by another rdmad", m->state_dir);
		return r == -EWOULDBLOCK ? -EBUSY : r;
	}
	m->state_lock_fd = fd;
	return 0;
}

static int on_sighup(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
	struct manager *m = userdata;
	char err[1024];

	(void)manager_reload(m, err, sizeof(err));
	return 0;
}

/* rdmad.conf's max_qps, ... on a host's device, before it has objects. */
static int lower_limits(struct manager *m, struct rdma_device *dev)
{
	for (int kind = 0; kind < RDMAD_TENANT_KINDS; kind++) {
		unsigned limit = m->config.device_max_objects[kind];
		int r = limit ? rdma_device_lower_limit(dev, kind, limit) : 0;

		if (r == -ERANGE)
			return log_error_errno(-EINVAL, "%s: %s (%u) is above %s's cap of %ss (%u)",
					       m->config_path, config_device_setting(kind), limit, dev->name,
					       rdma_object_kind_name(kind), rdma_device_limit(dev, kind));
		if (r < 0)
			return log_error_errno(r, "%s: cannot apply %s", dev->name, config_device_setting(kind));
	}
	return 0;
}

static int add_devices(struct manager *m)
{
	struct rdma_device *dev;
	char err[512];
	int r;

	/* No RDMA hardware backend yet: the software device is the device. */
	r = soft_device_create(&dev, "soft0", 0);
	if (r < 0)
		return log_error_errno(r, "cannot create the software device");
	m->devices[m->n_devices++] = dev;
	r = lower_limits(m, dev);
	if (r < 0)
		return r;
	r = memory_trim_watch(&m->trim, dev);
	if (r < 0)
		return log_error_errno(r, "%s: cannot watch its objects go", dev->name);
	if (fit_tenant(m, &m->config, err, sizeof(err)) < 0) {
		log_error("%s", err);
		return -EINVAL;
	}
	log_info("device %s (%s) ready", dev->name, dev->ops->backend);
	return 0;
}

/* Which way RoCE v2 packets come in, and why not the packet path where it was tried. */
static void roce_log_receive(struct rdma_device *dev, const char *netdev)
{
	int why = 0;

	if (rdma_datapath_roce_receive(dev, &why) == DP_ROCE_RECEIVE_PACKET)
		log_info("RoCE v2 receive path: packet (AF_PACKET ring on %s; every ICRC checked "
			 "against the IP header)", netdev);
	else if (why == -EPROTONOSUPPORT)
		log_notice("RoCE v2 receive path: socket (this kernel, before 6.2, drops a sender's "
			   "segmentation runs before a packet ring; each IPv4 ID is found from the ICRC)");
	else if (why)
		log_full_errno(LOG_NOTICE, why, "RoCE v2 receive path: socket (the packet path on %s "
			       "could not be had; each IPv4 ID is found from the ICRC)", netdev);
	else
		log_info("RoCE v2 receive path: socket (roce_receive = socket; each IPv4 ID is found "
			 "from the ICRC)");
}

/* RoCE v2 on the port whose GIDs roce_netdev gives: the software device's endpoint. */
static int roce_start(struct manager *m)
{
	const struct dp_roce_faults *f = &m->config.roce_faults;
	struct dp_roce_config cfg = {
		.port = (uint16_t)m->config.roce_port,
		.segmentation = m->config.roce_segmentation_offload,
		.faults = *f,
		.receive = m->config.roce_receive,
	};
	int r;

	if (!m->config.roce_netdev[0])
		return 0;
	memcpy(cfg.netdev, m->config.roce_netdev, sizeof(cfg.netdev));
	if (f->drop + f->duplicate + f->reorder > 1000000)
		return log_error_errno(-EINVAL, "roce_fault_drop_ppm + roce_fault_duplicate_ppm + "
				       "roce_fault_reorder_ppm exceed 1000000");
	r = rdma_datapath_roce_start(m->devices[0], &cfg);
	if (r < 0 && cfg.receive == DP_ROCE_RECEIVE_PACKET)
		return log_error_errno(r, "roce_receive = packet: cannot open the packet path on %s "
				       "(it needs CAP_NET_RAW)", cfg.netdev);
	if (r < 0)
		return log_error_errno(r, "cannot serve RoCE v2 on UDP port %u", m->config.roce_port);
	roce_log_receive(m->devices[0], cfg.netdev);
	if (f->drop || f->duplicate || f->reorder)
		log_warning("RoCE v2: for tests, %u, %u and %u of every million packets sent are dropped, "
			    "doubled and reordered", f->drop, f->duplicate, f->reorder);
	log_info("RoCE v2 on UDP port %u (GIDs of %s)", m->config.roce_port, m->config.roce_netdev);
	return 0;
}

/*
 * Without roce_netdev, port 1 of each device gets a default GID at index 0,
 * so that programs find one on a fresh daemon.  Not having one is no reason
 * not to serve: said, and users add GIDs as before.
 */
static void install_default_gids(struct manager *m)
{
	for (unsigned i = 0; i < m->n_devices; i++) {
		int r = gid_default_install(m->devices[i], 1);

		if (r < 0 && r != -EEXIST)
			log_warning_errno(r, "%s: no default GID (it comes from the machine ID)",
					  m->devices[i]->name);
	}
}

int manager_start(struct manager *m)
{
	struct secret_memory secrets;
	int r;

	m->start_usec = now_usec(CLOCK_MONOTONIC);
	m->start_realtime_usec = now_usec(CLOCK_REALTIME);

	r = open_state_dir(m);
	if (r < 0)
		return r;
	r = secret_init(&secrets);
	if (r == -ENOTSUP)
		return log_error_errno(r, "libgcrypt %s or newer is needed", GCRYPT_VERSION);
	if (r < 0)
		return log_error_errno(r, "cannot map memory for key material");
	if (!secrets.locked)
		log_warning("secure memory cannot be locked (no CAP_IPC_LOCK and RLIMIT_MEMLOCK below "
			    "256 KiB): DEK key material may be swapped out");
	if (!secrets.undumped)
		log_warning("libgcrypt is in FIPS mode and keeps its own secure memory: a core file of "
			    "rdmad holds the DEKs' key material");
	r = add_devices(m);
	if (r < 0)
		return r;
	r = vdev_set_new(&m->vdevs, m->event, m->socket_path);
	if (r < 0)
		return log_error_errno(r, "cannot make the vdevs' set");
	/* What users configured comes back before anyone can ask for it. */
	m->state = (struct state_env){
		.m = m, .dir = m->state_dir, .devices = m->devices, .n_devices = m->n_devices,
	};
	r = state_restore(&m->state, state_kinds, sizeof(state_kinds) / sizeof(state_kinds[0]));
	if (r < 0)
		return r;
	/* After what users configured: the host's addresses take the indexes left free. */
	if (m->config.roce_netdev[0]) {
		r = gid_netlink_new(&m->roce_gids, m->event, m->devices[0], 1, m->config.roce_netdev);
		if (r < 0)
			return log_error_errno(r, "cannot follow the addresses of roce_netdev %s",
					       m->config.roce_netdev);
	} else {
		install_default_gids(m);
	}
	r = commit_new(&m->commit, m->event, &m->state, NULL);
	if (r < 0)
		return log_error_errno(r, "cannot start the state committer");
	r = helper_new(&m->helper, m->event);
	if (r < 0)
		return log_error_errno(r, "cannot start the helper thread");
	r = worker_set_start(&m->workers, m->event, m->cpus, m->n_cpus);
	if (r < 0)
		return log_error_errno(r, "cannot start the dataplane workers");
	/* The VMs' devices start on them when their front ends come. */
	m->vdevs->workers = m->workers;
	for (unsigned i = 0; i < m->n_devices; i++) {
		r = rdma_device_start(m->devices[i], m->workers);
		if (r < 0)
			return log_error_errno(r, "cannot start the data path of %s", m->devices[i]->name);
	}
	r = roce_start(m);
	if (r < 0)
		return r;
	r = vnic_start(m);
	if (r < 0)
		return r;
	apply_config(m);

	r = sd_event_add_signal(m->event, NULL, SIGTERM | SD_EVENT_SIGNAL_PROCMASK, NULL, NULL);
	if (r >= 0)
		r = sd_event_add_signal(m->event, NULL, SIGINT | SD_EVENT_SIGNAL_PROCMASK, NULL, NULL);
	if (r >= 0)
		r = sd_event_add_signal(m->event, NULL, SIGHUP | SD_EVENT_SIGNAL_PROCMASK, on_sighup, m);
	if (r < 0)
		return log_error_errno(r, "cannot watch signals");
	signal(SIGPIPE, SIG_IGN);
	r = sd_event_set_watchdog(m->event, 1);
	if (r < 0)
		return log_error_errno(r, "cannot enable the watchdog");
	return 0;
}

int manager_loop(struct manager *m)
{
	int r;

	sd_notifyf(0, "READY=1\nSTATUS=Serving %u device(s)", m->n_devices);
	log_info("rdmad %s ready", RDMAD_VERSION);
	if (m->ready_fd >= 0) {
		char ok = 0;

		if (write(m->ready_fd, &ok, 1) != 1)
			log_warning_errno(-errno, "cannot tell the starting process we are ready");
		close(m->ready_fd);
		m->ready_fd = -1;
	}
	r = event_loop_run(m->event, &m->config.busy_poll_usec);
	sd_notify(0, "STOPPING=1\nSTATUS=Shutting down");
	log_info("rdmad stopping");
	/* Changes already made are written and answered: clients are still connected. */
	commit_flush(m->commit);
	return r < 0 ? log_error_errno(r, "event loop failed") : 0;
}
