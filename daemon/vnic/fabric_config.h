/* SPDX-License-Identifier: MIT */
/* What rdmad.conf(5) says of the software Omni-Path fabric (docs/opa-fabric.md). */
#pragma once

#include <netinet/in.h>
#include <stdint.h>

/* The software Omni-Path fabric (docs/opa-fabric.md): this node and the map of the others. */
#define RDMAD_FABRIC_NODES_MAX     1024
#define RDMAD_FABRIC_NODE_ADDRS    8          /* addresses of one (multicast) LID */
#define RDMAD_FABRIC_PORT_DEFAULT  4795
#define RDMAD_FABRIC_ADDR_TEXT     (INET6_ADDRSTRLEN + 8)

struct rdmad_fabric_node {
	uint32_t lid;
	unsigned n_addrs;
	char addrs[RDMAD_FABRIC_NODE_ADDRS][RDMAD_FABRIC_ADDR_TEXT];
};

struct rdmad_fabric_config {
	uint32_t lid;             /* 0: no fabric */
	char address[RDMAD_FABRIC_ADDR_TEXT];   /* "" until fabric_address is given */
	unsigned n_nodes;
	struct rdmad_fabric_node *nodes;        /* config_free() */
};
