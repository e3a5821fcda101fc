/* SPDX-License-Identifier: BSD-3-Clause */
/* arp_nd's parameters ("neigh set") and control-side counters. */
#ifndef NFV_ARP_ND_PARAMS_H
#define NFV_ARP_ND_PARAMS_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#define NFV_NEIGH_HOLD_MAX 64        /* packets held per neighbor, at most */
#define NFV_NEIGH_MAX_CAP 8192       /* entries the table is made for */
#define NFV_NEIGH_MAX_DEFAULT 4096   /* entries allowed (gc_thresh3 of Linux: 1024) */

/* Linux's names (net.ipv4.neigh.*) and defaults. */
struct nfv_neigh_params {
	uint32_t base_reachable_ms;
	uint32_t retrans_ms;
	uint32_t delay_first_probe_ms;
	uint32_t gc_stale_ms;
	uint32_t ucast_solicit;
	uint32_t mcast_solicit;
	uint32_t hold;
	uint32_t max_entries;
	bool resolve; /* solicit for unresolved next hops (else they drop) */
};
extern struct nfv_neigh_params nfv_neigh_params;

struct nfv_neigh_counters {
	uint64_t arp_requests_received;
	uint64_t arp_replies_received;
	uint64_t arp_replies_sent;
	uint64_t arp_requests_sent;
	uint64_t ns_received;
	uint64_t na_received;
	uint64_t ns_sent;
	uint64_t na_sent;
	uint64_t echo_replies_link_local;
	uint64_t not_ours;
	uint64_t nd_invalid;
	uint64_t created;
	uint64_t resolved;
	uint64_t confirmed;
	uint64_t mac_changed;
	uint64_t static_kept;
	uint64_t off_link;     /* senders not learned: not on the receiving link */
	uint64_t used_stale;
	uint64_t held;
	uint64_t released;
	uint64_t hold_overflow;
	uint64_t failed;
	uint64_t failed_packets;
	uint64_t table_full;
	uint64_t evicted;
	uint64_t gc;
	uint64_t no_source;
};
extern struct nfv_neigh_counters nfv_neigh_cnt;

json_t *nfv_neigh_stats_json(void);
unsigned int nfv_neigh_flush(int iface);

#endif
