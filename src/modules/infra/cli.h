/* SPDX-License-Identifier: BSD-3-Clause */
/* Helpers the infra module offers to other modules' commands. */
#ifndef NFV_INFRA_CLI_H
#define NFV_INFRA_CLI_H

#include "api/cmd.h"

struct nfv_port;
struct nfv_iface;

/* The port named, or NULL with "unknown port" in r->err. */
struct nfv_port *nfv_port_need(const char *name, struct nfv_reply *r);
/* The interface named (a port, a VLAN...), or NULL with "unknown interface"
 * in r->err. */
struct nfv_iface *nfv_iface_need(const char *name, struct nfv_reply *r);

#endif
