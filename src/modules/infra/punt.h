/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Punting (VPP's punt infrastructure): packets nfvd would drop under some
 * reasons (a local protocol it does not serve, ARP, link-local multicast)
 * may instead go to a module's node, per receiving interface; the lcp
 * module sends them to the interface's kernel twin. The drop node tests
 * two tables for each packet it is given: the reason is punted, and the
 * interface the packet came in on (mbuf->port) has a punt edge. Nothing
 * else on the fast path changes: a node drops as it always did.
 *
 * Control writes the tables (one store per entry); the drop node reads them.
 */
#ifndef NFV_PUNT_H
#define NFV_PUNT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/common.h"
#include "core/drop_reasons.h"

/* Non-zero: packets dropped under this reason id may be punted. */
extern uint8_t nfv_punt_reason[NFV_DROP_MAX];
/* Per interface: the drop node's edge to the punt node, plus one; 0: none. */
extern uint16_t nfv_punt_edge[NFV_IFACE_MAX];

/* The drop node's edge to node (added if needed): from an NFV_GRAPH_SETUP
 * function only, before the graphs exist; -errno. */
int nfv_punt_node_edge(const char *node);
/* The id of reason "node/name", or -ENOENT. */
int nfv_drop_reason_find(const char *node, const char *name);
void nfv_punt_reason_set(uint16_t reason, bool on);
/* edge: from nfv_punt_node_edge(), or -1 for none. */
void nfv_punt_iface_set(uint16_t iface, int edge);

#endif
