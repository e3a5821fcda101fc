/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NAT44: source NAT (many inside hosts behind the addresses of an outside
 * interface, ports translated) and destination NAT (a port of an
 * interface's address forwarded to an inside server), with
 * endpoint-dependent sessions, as VPP's nat44-ed and Linux's masquerade
 * and DNAT targets do.
 *
 * A session has three endpoints: inside (the host behind the NAT), outside
 * (the translated address and port the remote side sees) and remote. It is
 * two keys of the worker's rte_hash, both naming the session's interface
 * (the SNAT rule's output interface, the DNAT rule's input interface):
 *   i2o  src inside,  dst remote  (a packet leaving by the interface: its
 *        source becomes the outside endpoint, on the ip4 egress arc);
 *   o2i  src remote,  dst outside (a packet arriving on the interface: its
 *        destination becomes the inside endpoint, on the ip4 ingress arc,
 *        before the route lookup).
 * SNAT sessions are made by the first packet out (nat44_out), DNAT
 * sessions by the first packet in (nat44_in). ICMP echo is translated by
 * its identifier, which stands for the inside and outside port (the remote
 * port is 0). An ICMP error about a packet of a session (the quoted
 * packet reversed is a packet of the session, modules/ip/l4_icmp_error.h)
 * is translated by both nodes: what arrives gets the inside endpoint as
 * outer destination and quoted source, what leaves the outside endpoint
 * as outer source and quoted destination. An error never makes a session,
 * nor refreshes one (RFC 5508).
 *
 * Sessions are per worker, written only by their worker; both directions
 * of a session must reach the same worker (as for conntrack: one worker,
 * or the interfaces polled by one worker). Each worker allocates outside
 * ports from its own share of 1024-65535, so two workers never hand out
 * the same outside endpoint.
 */
#ifndef NFV_NAT44_H
#define NFV_NAT44_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <jansson.h>
#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_hash.h>

#include "core/common.h"
#include "core/counters.h"
#include "core/slots.h"
#include "modules/infra/handoff.h"
#include "modules/ip/flow_cache.h"

#define NFV_NAT_RULES_MAX 64

struct nfv_nat_snat {
	rte_be32_t net;     /* inside source prefix */
	rte_be32_t mask;
	uint16_t outif;
	uint8_t iface_addr; /* 1: the outside address is outif's own (no "to") */
	uint8_t len;
	uint32_t lo, hi;    /* "to ADDR[-ADDR]", host order */
};

struct nfv_nat_dnat {
	uint16_t iface;
	uint8_t proto;
	uint8_t pad;
	rte_be16_t dport;
	rte_be16_t to_port;
	rte_be32_t to_addr;
};

/* The rules, published whole (RCU); workers read. */
struct nfv_nat_config {
	uint32_t n_snat;
	uint32_t n_dnat;
	struct nfv_nat_snat snat[NFV_NAT_RULES_MAX];
	struct nfv_nat_dnat dnat[NFV_NAT_RULES_MAX];
};
extern struct nfv_nat_config *nfv_nat_cfg;

struct nfv_nat_key {
	rte_be32_t src;
	rte_be32_t dst;
	rte_be16_t sport;
	rte_be16_t dport;
	uint8_t proto;
	uint8_t pad;
	uint16_t iface;
};

_Static_assert(sizeof(struct nfv_nat_key) == 16, "flow_cache.h takes 16-byte keys");

enum nfv_nat_kind { NFV_NAT_SNAT, NFV_NAT_DNAT };
enum nfv_nat_state {
	NFV_NAT_TCP_TRANSITORY, /* opening (one direction seen) or closing */
	NFV_NAT_TCP_ESTABLISHED,
	NFV_NAT_UDP,
	NFV_NAT_ICMP,
	NFV_NAT_STATES,
};
enum nfv_nat_dir { NFV_NAT_I2O, NFV_NAT_O2I };

struct nfv_nat_session {
	struct nfv_nat_key key[2]; /* [NFV_NAT_I2O], [NFV_NAT_O2I] */
	rte_be32_t in_addr;
	rte_be32_t out_addr;
	rte_be16_t in_port;
	rte_be16_t out_port;
	uint8_t kind;   /* enum nfv_nat_kind */
	uint8_t state;  /* enum nfv_nat_state */
	uint8_t used;
	uint8_t flags;  /* NFV_L4_* (modules/ip/l4_rewrite.h; direction 0 is i2o) */
	uint64_t expire_tsc;
	uint64_t packets[2];
	uint64_t bytes[2];
};

/* Slots of a worker's session cache: two-way sets, each slot the value of
 * a key recently found (session index << 1 | direction, or empty). */
#define NFV_NAT_CACHE_BITS 12
#define NFV_NAT_CACHE_EMPTY NFV_FLOW_CACHE_EMPTY

struct nfv_l4_frag;

struct nfv_nat_table {
	struct rte_hash *hash;  /* key -> session index << 1 | direction */
	struct nfv_l4_frag *frag; /* notes of fragmented datagrams (modules/ip/l4_frag.h) */
	uint32_t *cache;        /* NFV_NAT_CACHE_BITS slots in front of hash */
	struct nfv_nat_session *s;
	struct nfv_slots slots; /* free sessions, count, sweep, flush generation */
	uint32_t port_lo;       /* this worker's outside ports: [port_lo, port_lo + port_n) */
	uint32_t port_n;
	uint32_t port_next;     /* where the next search for a free port starts */
} __rte_cache_aligned;

/* One per worker; NULL until the first rule is added. */
extern struct nfv_nat_table *nfv_nat_tables;
extern uint32_t nfv_nat_gen; /* "nat44 flush" bumps it */

struct nfv_nat_counters {
	uint64_t in2out;      /* packets translated leaving (source) */
	uint64_t out2in;      /* packets translated arriving (destination) */
	uint64_t created;
	uint64_t expired;
	uint64_t no_port;
	uint64_t table_full;
	uint64_t unsupported;
	/* ICMP errors about a session's packets (l4_icmp_error.h): */
	uint64_t icmp_error_in2out;      /* translated leaving (from the inside) */
	uint64_t icmp_error_out2in;      /* translated arriving (to the inside) */
	uint64_t icmp_error_no_session;  /* quoting TCP, UDP or echo of no session */
	uint64_t icmp_error_truncated;   /* quoting less than an IPv4 header and 8 bytes */
	uint64_t icmp_error_unsupported; /* quoting what is never translated */
	/* Later fragments (not the first) of datagrams: */
	uint64_t frag_in2out;   /* translated leaving (their first fragment was) */
	uint64_t frag_out2in;   /* translated arriving */
	uint64_t frag_unknown;  /* of no datagram noted (first fragment not seen, or
				 * not translated, in the last NFV_L4_FRAG_TIMEOUT_S) */
	uint64_t handoff_out;  /* packets handed to the worker owning their session */
	uint64_t handoff_in;   /* packets other workers handed to this one */
	uint64_t handoff_full; /* refused by a full handoff ring (dropped) */
};
extern struct nfv_counter_block nfv_nat_counters_block;

/*
 * Which worker a packet's session lives on, when the two directions of a
 * flow reach different workers (RSS hashes them apart: NAT changes the
 * tuple). An SNAT session lives on the worker its inside address and port
 * name (nfv_handoff_endpoint_owner), whichever queue or worker its packets
 * come in by (RSS, the kernel's packet fanout rolling over, a queue moved
 * to another worker), and takes its outside port from that worker's share
 * (nfv_nat_port_span ports a worker, from 1024), so the port of a reply
 * names its owner. A DNAT session lives on the worker its client's address
 * and port name, which both directions carry. A packet that finds no
 * session on its worker goes to the owner (the nodes' handoffs,
 * infra/handoff.h).
 */
extern uint32_t nfv_nat_port_span;
extern struct nfv_handoff nfv_nat_in_handoff, nfv_nat_out_handoff;

/* The worker whose share holds outside port port, or NFV_HANDOFF_KEEP
 * for a port no worker gives out. */
static __rte_always_inline uint16_t
nfv_nat_port_owner(rte_be16_t port)
{
	uint32_t p = rte_be_to_cpu_16(port), span = nfv_nat_port_span, w;

	if (p < 1024 || span == 0)
		return NFV_HANDOFF_KEEP;
	w = (p - 1024) / span;
	return w < nfv_n_workers ? (uint16_t)w : NFV_HANDOFF_KEEP;
}

/* The cache set (two slots) of a key. */
static __rte_always_inline uint32_t
nfv_nat_cache_slot(const struct nfv_nat_key *k)
{
	return nfv_flow_cache_set(k, NFV_NAT_CACHE_BITS);
}

/* Worker side (control/nat44.c). A flush (nat44 flush) and a few expired
 * sessions are dealt with at the start of a burst. */
void nfv_nat_burst_start(struct nfv_nat_table *t, struct nfv_nat_counters *c, uint64_t now);
struct nfv_nat_session *nfv_nat_lookup_slow(struct nfv_nat_table *t, struct nfv_nat_counters *c,
					    const struct nfv_nat_key *k, unsigned int *dir,
					    uint64_t now);

/* Whether cache value v names key k, live. */
static __rte_always_inline bool
nfv_nat_cache_hit(struct nfv_nat_table *t, uint32_t v, const struct nfv_nat_key *k, uint64_t now)
{
	const struct nfv_nat_session *s = &t->s[v >> 1];

	return nfv_key16_eq(k, &s->key[v & 1]) && s->used && (int64_t)(now - s->expire_tsc) < 0;
}

/*
 * The session of key k (the direction found in *dir), or NULL; an expired
 * one is forgotten and not returned. The cache answers most packets: a
 * slot names a session and direction whose key is compared whole, so a
 * stale slot (its session forgotten, or reused by another) is a miss, and
 * the table answers (and the key takes the set's first slot, its former
 * value the second).
 */
static __rte_always_inline struct nfv_nat_session *
nfv_nat_lookup(struct nfv_nat_table *t, struct nfv_nat_counters *c, const struct nfv_nat_key *k,
	       unsigned int *dir, uint64_t now)
{
	const uint32_t *set = &t->cache[nfv_nat_cache_slot(k)];
	uint32_t v = set[0];

	if (likely(v != NFV_NAT_CACHE_EMPTY && nfv_nat_cache_hit(t, v, k, now)) ||
	    ((v = set[1]) != NFV_NAT_CACHE_EMPTY && nfv_nat_cache_hit(t, v, k, now))) {
		*dir = v & 1;
		return &t->s[v >> 1];
	}
	return nfv_nat_lookup_slow(t, c, k, dir, now);
}

/* A new session: i2o is the key of the inside -> remote direction with
 * the outside endpoint not yet known for SNAT (out_addr given, out_port 0:
 * one is allocated) or known for DNAT. NULL when no port or no room is
 * left: the counter saying which (no_port, table_full) is counted, and
 * *why is its address. */
struct nfv_nat_session *nfv_nat_create(struct nfv_nat_table *t, struct nfv_nat_counters *c,
				       const struct nfv_nat_key *i2o, rte_be32_t out_addr,
				       rte_be16_t out_port, uint8_t kind, uint64_t now,
				       uint64_t **why);
/* TSC ticks of each state's timeout; control writes, workers read. */
extern uint64_t nfv_nat_timeout_tsc[NFV_NAT_STATES];
/* A TCP packet's effect on its session's state. */
void nfv_nat_tcp_track(struct nfv_nat_session *s, unsigned int dir, uint8_t tcp_flags);

/* The packet's effect on the session's counters, state and timer. */
static __rte_always_inline void
nfv_nat_touch(struct nfv_nat_session *s, unsigned int dir, uint8_t tcp_flags, uint32_t bytes,
	      uint64_t now)
{
	s->packets[dir]++;
	s->bytes[dir] += bytes;
	if (s->state <= NFV_NAT_TCP_ESTABLISHED)
		nfv_nat_tcp_track(s, dir, tcp_flags);
	s->expire_tsc = now + __atomic_load_n(&nfv_nat_timeout_tsc[s->state], __ATOMIC_RELAXED);
}

/* Control side. */
int nfv_nat_snat_add(const char *prefix, const char *dev, const char *range, bool add,
		     char *err);
int nfv_nat_dnat_add(const char *dev, uint8_t proto, uint16_t dport, const char *to, bool add,
		     char *err);
int nfv_nat_set_timeout(const char *name, uint32_t seconds, char *err);
int nfv_nat_set_max(uint32_t max, char *err);
void nfv_nat_flush(void);
json_t *nfv_nat_show(bool sessions);

#endif
