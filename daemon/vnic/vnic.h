/* SPDX-License-Identifier: MIT */
/*
 * The OPA port of a device, driver side: the MAD transport (umad on an
 * Omni-Path HFI, else the software fabric of rdmad.conf), the VEMA agent
 * (daemon/vnic/vema.h) and, for each VNIC port the Ethernet Manager creates,
 * its TAP interface (netdev_linux.h) and its data path on a worker
 * (dataplane/opa/vnic_port.h).  The agent decides; this file carries its
 * decisions to the interface and the NIC, the host's actions on the
 * interface back to the agent, and events to the device's monitor.  No JSON
 * but for what it saves (vnic_state.c).  Main thread only.
 */
#pragma once

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>

#include <systemd/sd-event.h>

#include "daemon/vnic/fabric_config.h"
#include "daemon/vnic/vema.h"
#include "daemon/vnic/vnic_save.h"
#include "dataplane/opa/fabric.h"
#include "dataplane/opa/vnic_counters.h"

struct rdma_device;
struct worker_set;
struct vnic_mac_list;

/* One VNIC port as the driver holds it. */
struct vnic_port {
	struct vnic_service *svc;
	unsigned index;
	char ifname[IFNAMSIZ];
	struct vnic_netdev *netdev;
	struct opa_vport *dp;        /* NULL without the software fabric (umad: no data path here) */
	struct dp_worker *worker;    /* that sends its frames */
	unsigned worker_index;
	/* What the monitor was last told (vnic_state events on change only). */
	uint8_t told_oper_state;
	bool told_passing;
};

/* What the service runs on and whom it tells that saved state changed. */
struct vnic_env {
	sd_event *event;
	struct worker_set *workers;
	struct rdma_device *dev;
	/*
	 * Sets of the manager's changed what is saved: save it, and call
	 * vnic_service_saved() once the file is durable or could not be written; their
	 * replies wait until then.  NULL: nothing is saved, Sets are answered at once.
	 */
	void (*changed)(void *userdata);
	void *userdata;
};

struct vnic_service {
	struct vnic_env env;
	struct mad_transport *mad;
	struct opa_fabric *fabric;       /* NULL with umad */
	struct dp_worker *fabric_worker;
	struct vnic_netdev_watch *watch;
	struct vema vema;
	struct vnic_port *ports[VNIC_MAX_VPORTS];
	unsigned n_ports;
	/* Putting saved ports back (vema_restore_vport): nothing to save, nothing to tell. */
	bool restoring;
	bool dirty;                      /* the Set being run changed what is saved */
	struct vnic_save save;           /* Sets waiting for the disk (vnic_save.h) */
	struct vnic_mac_list *macs;      /* scratch for the interface's address lists */
};

/*
 * The OPA port of env->dev, on env's workers: the umad transport on a host
 * with an Omni-Path HFI, else the software fabric of fc; -ENODEV when there is
 * neither (no fabric_lid), which is no error.  The OPA link is up.
 */
int vnic_service_new(struct vnic_service **out, const struct vnic_env *env,
		     const struct rdmad_fabric_config *fc);
/* Before the workers stop: the ports and the fabric leave them. */
void vnic_service_free(struct vnic_service *s);
/*
 * What env->changed() asked to save is durable (r == 0): the Sets' replies leave.  Or
 * it could not be written (r < 0): the Sets are undone, memory agrees with the file
 * again, and they get no reply (the manager sends them again).  Then the Sets held
 * meanwhile run.
 */
void vnic_service_saved(struct vnic_service *s, int r);
/* The fabric map again, from fc (reload); on error the old map stays and err says why. */
int vnic_service_reload(struct vnic_service *s, const struct rdmad_fabric_config *fc, char *err,
			size_t err_size);

struct vnic_port *vnic_service_port(const struct vnic_service *s, unsigned index);
/* This node's LID. */
uint32_t vnic_service_lid(const struct vnic_service *s);
void vnic_port_counters(const struct vnic_port *p, struct opa_vnic_counters *out);
bool vnic_port_passing(const struct vnic_port *p);
/* oper_state is FORWARDING (reference §5.1). */
bool vnic_port_forwarding(const struct vnic_port *p);
bool vnic_port_admin_up(const struct vnic_port *p);
unsigned vnic_port_mtu(const struct vnic_port *p);
