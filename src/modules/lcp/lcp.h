/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lcp: the Linux control plane. An interface gets a kernel twin, a TAP
 * device (a net_tap port of nfvd) with its MAC, MTU, link state and
 * addresses. What nfvd does not answer itself on the interface (punt.h:
 * local protocols it does not serve, ARP, link-local multicast) goes to the
 * twin, policed per interface; what the kernel sends on the twin leaves by
 * the interface (the xconnect node). Routes the kernel (or FRR's zebra)
 * installs on twins enter nfvd's tables as source "kernel" (netlink.c).
 *
 * Tables read by workers, written by control (one store an entry).
 */
#ifndef NFV_LCP_H
#define NFV_LCP_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_ethdev.h>
#include <rte_meter.h>

#include "core/common.h"
#include "core/drop_reasons.h"
#include "core/worker.h"

#define NFV_LCP_NONE UINT16_MAX
#define NFV_LCP_REASONS 16  /* punted drop reasons, counted one by one */
#define NFV_LCP_SLOT_ARP_COPY 1 /* the counter slots of ARP and ND copies (lcp_copy) */
#define NFV_LCP_SLOT_ND_COPY 2

/* An interface's twin port, or NFV_LCP_NONE. */
extern uint16_t nfv_lcp_twin_of[NFV_IFACE_MAX];
/* A twin port's interface, or NFV_LCP_NONE. */
extern uint16_t nfv_lcp_iface_of[RTE_MAX_ETHPORTS];
/* The punt policer of each interface: two profiles, the one in use is
 * nfv_lcp_gen[iface] & 1; a worker configures its meter again when the
 * generation it saw changes. */
extern struct rte_meter_srtcm_profile nfv_lcp_profile[NFV_IFACE_MAX][2];
extern uint32_t nfv_lcp_gen[NFV_IFACE_MAX];
/* The counter slot of a punted drop reason (slot 0: any other). */
extern uint8_t nfv_lcp_reason_slot[NFV_DROP_MAX];

/* Per worker: the meters (one per interface) and the generation each saw. */
struct nfv_lcp_worker {
	struct rte_meter_srtcm meter[NFV_IFACE_MAX];
	uint32_t gen[NFV_IFACE_MAX];
};
extern struct nfv_lcp_worker nfv_lcp_workers[NFV_MAX_WORKERS];

struct nfv_lcp_counters {
	uint64_t punted[NFV_LCP_REASONS];       /* by reason slot */
	uint64_t policed[NFV_LCP_REASONS];      /* red: dropped, by reason slot */
	uint64_t punted_iface[NFV_IFACE_MAX];   /* to the twin, by interface */
	uint64_t from_twin_iface[NFV_IFACE_MAX]; /* from the twin out, by interface */
};
extern struct nfv_counter_block nfv_lcp_counters_block;

/* The tap of bridge_input that copies a bridge's ARP and ND to its twin
 * (datapath/lcp_copy.c). */
extern unsigned int nfv_lcp_tap;

/* An ND message (ICMPv6 133-137 right behind the IPv6 header). */
bool nfv_lcp_is_nd(const struct rte_mbuf *m);

/* Control side (lcp.c). */
struct nfv_lcp_conf {
	const char *host_if;  /* NULL: the interface's name */
	const char *netns;    /* NULL: nfvd's own namespace */
	uint32_t rate;        /* punt policer, packets/s (0: default) */
	uint32_t burst;       /* packets (0: default) */
};
#define NFV_LCP_RATE_DEFAULT 10000
#define NFV_LCP_BURST_DEFAULT 1000

int nfv_lcp_add(const char *dev, const struct nfv_lcp_conf *conf, char *err);
int nfv_lcp_del(const char *dev, char *err);
/* "lcp show" rows; dev: one interface or NULL. */
void *nfv_lcp_show_json(const char *dev);

#endif
