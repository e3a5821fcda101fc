/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * UPF: the user plane of a 5G core (3GPP TS 23.501 / 29.244 / 29.281).
 *
 * The SMF sets up sessions over PFCP (N4, control/pfcp_server.c, codec in
 * pfcp/); each session's packet detection rules (PDRs) and forwarding
 * actions (FARs) are compiled into two tables the workers read:
 *   uplink    TEID of a local F-TEID  -> rule: the GTP-U packet that
 *             arrives for the N3 address on UDP 2152 (upf_gtpu) loses its
 *             outer IPv4/UDP/GTP-U headers and the inner IPv4 packet is
 *             routed (a router hop: TTL decremented) toward the N6 side;
 *   downlink  UE IPv4 address        -> rule: an IPv4 packet for the UE
 *             arriving on any interface but N3's (upf_downlink, on the ip4
 *             ingress arc, before the route lookup: the session alone
 *             attracts the traffic, no route is needed) gets its TTL
 *             decremented and an outer IPv4/UDP/GTP-U header from the N3
 *             address to the gNB with the FAR's TEID, and is routed.
 *
 * Rules are immutable once published; the tables are rte_hash with
 * lock-free readers; a change installs new rules, waits for a grace period
 * (RCU), then frees the old ones. Counters are per worker (per session too)
 * and summed when read.
 */
#ifndef NFV_UPF_H
#define NFV_UPF_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_hash.h>

#include "core/counters.h"

#define NFV_UPF_GTPU_PORT 2152
#define NFV_UPF_SESSIONS_MAX 4096
#define NFV_UPF_KEYS_MAX 65536 /* entries of each table */

enum nfv_upf_dir { NFV_UPF_UL, NFV_UPF_DL };

enum nfv_upf_action {
	NFV_UPF_FORWARD,     /* uplink: route the inner packet; downlink: encapsulate */
	NFV_UPF_DROP,        /* FAR: DROP (or no action) */
	NFV_UPF_BUFFER,      /* FAR: BUFF (buffering is not built: dropped, counted) */
	NFV_UPF_NO_TUNNEL,   /* downlink FORW without a GTP-U/UDP/IPv4 outer header */
	NFV_UPF_UNSUPPORTED, /* uplink FORW with an outer header (N9): not built */
};

/* What a worker reads for a matched packet. Immutable once published. */
struct nfv_upf_rule {
	uint8_t action;  /* enum nfv_upf_action */
	uint8_t dir;     /* enum nfv_upf_dir */
	uint16_t pdr_id;
	uint32_t session; /* index of the per-session counters */
	rte_be32_t teid; /* downlink: the gNB's TEID */
	rte_be32_t peer; /* downlink: the gNB's address */
	rte_be32_t ue;   /* uplink: the inner source the PDR's PDI names (0: any) */
};

/* N3 (published whole; NULL until "upf set n3"). */
struct nfv_upf_n3 {
	rte_be32_t addr;
	uint16_t iface;
};
extern struct nfv_upf_n3 *nfv_upf_n3;

/* Keys are rte_be32_t: the TEID (uplink), the UE address (downlink). */
extern struct rte_hash *nfv_upf_table[2];

struct nfv_upf_session_counters {
	uint64_t packets[2]; /* [enum nfv_upf_dir] */
	uint64_t bytes[2];   /* of the inner IP packet */
};
/* [worker][session]; NULL until the tables exist. */
extern struct nfv_upf_session_counters *nfv_upf_session_counters[];

struct nfv_upf_counters {
	uint64_t uplink_packets;   /* decapsulated and routed */
	uint64_t downlink_packets; /* encapsulated and routed */
	uint64_t echo_replies;     /* GTP-U echo responses sent */
};
extern struct nfv_counter_block nfv_upf_counters_block;

static __rte_always_inline void
nfv_upf_count(struct nfv_upf_session_counters *c, const struct nfv_upf_rule *r, uint32_t bytes)
{
	c[r->session].packets[r->dir]++;
	c[r->session].bytes[r->dir] += bytes;
}

/* Control side (control/upf.c). Every function returns 0 or a negative
 * errno with a sentence in err (NFV_ERR_LEN). */
int nfv_upf_set_n3(const char *addr, const char *dev, char *err);
int nfv_upf_pfcp_listen(const char *addr_port, const char *node_id, char *err);
/* "upf show sessions [seid N]": all of them when seid is 0. */
int nfv_upf_show(uint64_t seid, json_t **out, char *err);

#endif
