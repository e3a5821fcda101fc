/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Access control lists (rte_acl) and connection tracking.
 *
 * An ACL is a list of rules ordered by prio (lowest first, first match
 * wins); it is attached to interfaces, per direction ("in" runs on the
 * ip4/ip6 ingress arcs, "out" on the egress arcs). A packet that matches no
 * rule of an attached ACL is denied. Rules are compiled into one rte_acl
 * context per family; a change builds new contexts and publishes them with
 * RCU, so a worker sees either the old rule set or the new one, never a
 * mix, and never waits.
 *
 * Connection tracking: per-worker rte_hash tables keyed by the 5-tuple and
 * the interface of the ACL that created the flow, one key per direction. A
 * "reflect" rule permits and records the flow; every packet at an attached
 * ACL first looks up the tables, and a packet of a known flow (either
 * direction) is permitted without the rules.
 */
#ifndef NFV_ACL_H
#define NFV_ACL_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_acl.h>
#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_hash.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "core/common.h"
#include "core/counters.h"
#include "core/meta.h"
#include "core/slots.h"
#include "core/worker.h"

enum nfv_acl_dir {
	NFV_ACL_IN,
	NFV_ACL_OUT,
	NFV_ACL_DIRS,
};

enum nfv_acl_action {
	NFV_ACL_PERMIT,
	NFV_ACL_DENY,
	NFV_ACL_REFLECT,
};

/* Counter slots for per-rule hits (each rule and each ACL's "no match"). */
#define NFV_ACL_SLOTS 65536
#define NFV_ACL_RULES_MAX 32768 /* per ACL */

/*
 * The classifier's input, built per packet in network byte order. The
 * first field of an rte_acl layout is one byte; the others are read four
 * bytes at a time. l4 is 1 (big endian) when the packet carries its L4
 * ports (or ICMP type and code): a rule with a port range matches only
 * such packets, so a non-first fragment matches only rules without ports.
 * For ICMP and ICMPv6, sport is the type and dport the code.
 */
struct nfv_acl4_key {
	uint8_t proto;
	uint8_t pad[3];
	rte_be32_t src;
	rte_be32_t dst;
	rte_be16_t sport;
	rte_be16_t dport;
	rte_be32_t l4;
};

struct nfv_acl6_key {
	uint8_t proto;
	uint8_t pad[3];
	uint8_t src[16];
	uint8_t dst[16];
	rte_be16_t sport;
	rte_be16_t dport;
	rte_be32_t l4;
};

struct nfv_acl_compiled_rule {
	uint8_t action; /* enum nfv_acl_action */
	uint32_t slot;  /* hit counter */
};

/* One published version of an ACL; immutable. rte_acl results are the
 * index in rule[] plus one (0: no rule matched). */
struct nfv_acl_compiled {
	struct rte_acl_ctx *ctx[2]; /* [0] IPv4, [1] IPv6; NULL: no rule of that family */
	uint64_t gen;               /* unique per version (never reused); the cache's tag */
	uint32_t default_slot;
	uint32_t n_rules;
	struct nfv_acl_compiled_rule rule[];
};

struct nfv_acl;

/* What the workers read: the ACL attached to an interface in a direction
 * (NULL: none), and its published version. */
extern struct nfv_acl *nfv_acl_bound[NFV_ACL_DIRS][NFV_IFACE_MAX];
const struct nfv_acl_compiled *nfv_acl_active(const struct nfv_acl *acl);

/* Per-worker hit counters, indexed by slot; written only by the worker. */
extern uint64_t *nfv_acl_hits[NFV_MAX_WORKERS];

struct nfv_acl_counters {
	uint64_t permitted;
	uint64_t denied;       /* a deny rule */
	uint64_t no_match;     /* the default deny */
	uint64_t flow_hits;    /* permitted by a tracked flow */
	uint64_t cache_hits;   /* classification answered by the decision cache */
	uint64_t cache_misses; /* classified by rte_acl (cache on) */
	uint64_t handoff_out;  /* handed to the flow's owner worker */
	uint64_t handoff_in;   /* received from another worker */
	uint64_t handoff_full; /* dropped: the ring to the owner was full */
	uint64_t fused;        /* output ACL decided by the input node (acl_filter.c) */
};
extern struct nfv_counter_block nfv_acl_counters_block;

/*
 * Per-worker decision cache in front of rte_acl_classify, one per direction
 * and family: NFV_ACL_CACHE_WAYS-way set-associative, NFV_ACL_CACHE_SETS
 * sets, keyed by the
 * whole classifier input and the version's gen, so the result (rte_acl's
 * value: rule index + 1, 0 for no match) of a cached key is exactly what
 * rte_acl_classify would return for that version. A new version has a new
 * gen: its packets miss, no flush is needed. Entries with gen 0 are empty.
 */
#define NFV_ACL_CACHE_SETS 1024
#define NFV_ACL_CACHE_WAYS 4 /* 4,096 entries */

/* IPv4 entries hold the key in two words (a: the addresses; b: protocol,
 * has-L4 and the ports), compared with two loads. */
struct nfv_acl_cache4_entry {
	uint64_t a;
	uint64_t b;
	uint64_t gen;
	uint32_t res;
	uint32_t pad;
};

struct nfv_acl_cache6_entry {
	struct nfv_acl6_key key;
	uint32_t res;
	uint64_t gen;
	uint64_t pad;
};

/*
 * The input direction's IPv4 cache has a second one, of pairs: a key, the
 * gen of the input ACL and that of the output ACL of the packet's output
 * interface, and the two results, each a permit rule's. The input node
 * decides both ACLs with one probe of it when the packet was routed before
 * the ingress features and the two ACLs are the only features between
 * ip4_fast and port_tx (acl_filter.c). One entry a cache line. IPv6 has
 * its own (struct nfv_acl_pair6_entry), between ip6_fast and port_tx.
 */
struct nfv_acl_pair_entry {
	uint64_t a;
	uint64_t b;
	uint64_t gen_in;
	uint64_t gen_out;
	uint64_t res; /* input result | output result << 32 */
	uint64_t pad[3];
};

/* The same for IPv6: the addresses as in the packet, then the ports and
 * the protocol in one word (the only protocols with a pair: TCP, UDP and
 * SCTP, their ports in place). */
struct nfv_acl_pair6_entry {
	uint8_t src[16];
	uint8_t dst[16];
	uint64_t gen_in;
	uint64_t gen_out;
	uint64_t tail; /* ports as in the packet | protocol << 32 */
	uint64_t res; /* input result | output result << 32 */
};

struct nfv_acl_cache {
	struct nfv_acl_cache4_entry *v4; /* WAYS * SETS entries, set s at WAYS * s */
	struct nfv_acl_cache6_entry *v6;
	struct nfv_acl_pair_entry *pair; /* input direction only */
	struct nfv_acl_pair6_entry *pair6; /* input direction only */
};

extern struct nfv_acl_cache nfv_acl_caches[NFV_MAX_WORKERS][NFV_ACL_DIRS];
extern bool nfv_acl_cache_on; /* "acl set cache on|off" */

/* Actions (control side). */
int nfv_acl_set_cache(bool on);
int nfv_acl_add(const char *name, char *err);
int nfv_acl_del(const char *name, char *err);
struct nfv_acl_rule_spec {
	uint32_t prio;
	uint8_t family;     /* 0: both (no address given), AF_INET or AF_INET6 */
	bool has_src, has_dst, has_proto, has_ports;
	uint8_t src[16], dst[16];
	uint8_t src_len, dst_len;
	uint8_t proto;
	uint16_t sport_lo, sport_hi, dport_lo, dport_hi;
	uint8_t action;
};
int nfv_acl_rule_add(const char *name, const struct nfv_acl_rule_spec *s, char *err);
int nfv_acl_rule_del(const char *name, uint32_t prio, char *err);
int nfv_acl_attach(const char *name, const char *dev, enum nfv_acl_dir dir, bool on,
		   char *err);
int nfv_acl_show(const char *name, json_t **out, char *err);
/* "tcp", "udp", "icmp", "icmp6" or the number (in buf). */
const char *nfv_acl_proto_name(uint8_t p, char *buf, size_t len);

/* ---- worker handoff ----
 *
 * With several workers, a flow's state lives on one worker: its owner,
 * the symmetric hash of its addresses (and TCP/UDP ports; see symhash.h)
 * modulo the workers, the same for both directions. On an interface where
 * an attached ACL (in or out) has a reflect rule, the ACL node hands a
 * packet owned by another worker to it (the generic handoff,
 * modules/infra/handoff.h), which puts it back into the same ACL node.
 */
extern uint8_t nfv_acl_handoff_on[NFV_IFACE_MAX]; /* per interface; workers read */
extern uint8_t nfv_acl_handoff_any;              /* set once any interface needs it */

/* ---- connection tracking ---- */

enum nfv_ct_state {
	NFV_CT_TCP_SYN_SENT,
	NFV_CT_TCP_SYN_RECV,
	NFV_CT_TCP_ESTABLISHED,
	NFV_CT_TCP_FIN_WAIT,   /* a FIN seen in one direction */
	NFV_CT_TCP_TIME_WAIT,  /* FINs seen in both */
	NFV_CT_TCP_CLOSE,      /* reset */
	NFV_CT_UDP,            /* one way so far */
	NFV_CT_UDP_STREAM,     /* replied */
	NFV_CT_ICMP,
	NFV_CT_OTHER,
	NFV_CT_STATES,
};

struct nfv_ct_key {
	uint16_t iface;
	uint8_t family;
	uint8_t proto;
	rte_be16_t sport; /* ICMP echo: the identifier in both */
	rte_be16_t dport;
	uint8_t src[16];
	uint8_t dst[16];
};

struct nfv_ct_flow {
	struct nfv_ct_key key;    /* as first seen (the reply's is its reverse) */
	uint64_t expire_tsc;
	uint64_t packets[2];
	uint32_t gen;     /* flush generation it was created in */
	uint32_t iface_gen; /* nfv_ct_iface_gen[key.iface] when it was created */
	uint8_t state;    /* enum nfv_ct_state */
	uint8_t used;
	uint8_t fin_seen; /* bit d: FIN seen in direction d */
	uint8_t ack_seen; /* TCP: bit d an ACK, bit 2 + d a SYN seen in direction d */
	/* TCP, per direction: the last acknowledgment number sent, the
	 * largest window advertised (scaled once both SYNs gave a scale) and
	 * the window scale of its SYN (0xff: none seen). */
	uint32_t ack[2];
	uint32_t maxwin[2];
	uint8_t wscale[2];
	uint8_t liberal;  /* TCP: picked up in the middle, windows not enforced */
	uint8_t echo0;    /* ICMP echo: the first packet's kind (nfv_ct_pkt.icmp_echo) */
	uint64_t serial;  /* the table's count of flows created when this one was */
	/* TCP window tracking (Linux's nf_conntrack_proto_tcp), per direction
	 * d as sender: the highest sequence number it sent plus the
	 * segment's length (td_end), the highest it may send (the other
	 * side's acknowledgment plus window: td_maxend) and the largest
	 * window it advertised, scaled (td_maxwin; 0 until a segment of d
	 * was seen). */
	uint32_t td_end[2];
	uint32_t td_maxend[2];
	uint32_t td_maxwin[2];
};

/*
 * The flow cache: a per-worker exact-match front for the table's IPv4
 * TCP/UDP keys, NFV_CT_CACHE_WAYS-way set-associative, so that a packet of
 * an established flow is found with two crc32 instructions and a compare
 * instead of an rte_hash lookup of the 40-byte key. An entry holds the key
 * as two words (a: the addresses; b: protocol, interface and ports, as
 * nfv_ct_cache_b builds it), the rte_hash value (flow index << 1 |
 * direction) and the flow's serial. It is filled when rte_hash finds a
 * flow, and never cleaned: an entry is good only while its flow is in use
 * with the same serial (a forgotten or flushed flow's slot, reused, gets a
 * new serial), so a miss or a stale entry just takes the rte_hash path.
 */
#define NFV_CT_CACHE_SETS 2048
#define NFV_CT_CACHE_WAYS 4 /* 8,192 entries */

struct nfv_ct_cache_entry {
	uint64_t a;
	uint64_t b;
	uint64_t serial; /* 0: empty */
	uint32_t val;
	uint32_t pad;
};

static __rte_always_inline uint64_t
nfv_ct_cache_b(uint8_t proto, uint16_t iface, uint32_t ports)
{
	return (uint64_t)proto | (uint64_t)iface << 16 | (uint64_t)ports << 32;
}

struct nfv_ct_table {
	struct rte_hash *hash;    /* key -> (flow index << 1 | direction) */
	struct nfv_ct_flow *flows;
	struct nfv_ct_cache_entry *cache; /* NFV_CT_CACHE_SETS * WAYS, set s at WAYS * s */
	uint64_t serial;          /* flows created (never reset, never wraps) */
	/* The flow cache steps aside while it mostly misses (more active
	 * flows than it holds): hits and misses of the current window of
	 * packets, and the bursts left to go without it. */
	uint32_t cache_win_hits;
	uint32_t cache_win_misses;
	uint32_t cache_skip;
	uint32_t iface_epoch;     /* nfv_ct_iface_epoch when the table was last checked */
	struct nfv_slots slots;   /* free flows, count, sweep, flush generation */
} __rte_cache_aligned;

/* Per-state timeouts in TSC cycles (control side writes, workers read). */
extern uint64_t nfv_ct_timeout_tsc[NFV_CT_STATES];

extern struct nfv_ct_table *nfv_ct_tables; /* one per worker */
extern uint32_t nfv_ct_gen;                /* "conntrack flush" bumps it */
/* An interface's removal bumps its entry and the epoch: its flows are
 * forgotten (a new interface may get its id). */
extern uint32_t nfv_ct_iface_gen[NFV_IFACE_MAX];
extern uint32_t nfv_ct_iface_epoch;

struct nfv_ct_counters {
	uint64_t created;
	uint64_t expired;
	uint64_t table_full;
	uint64_t hits;
	uint64_t related;     /* ICMP errors about a tracked flow, permitted */
	uint64_t invalid_rst; /* TCP resets outside the receiver's window, dropped */
	uint64_t out_of_window; /* other TCP segments outside the windows, dropped */
};
extern struct nfv_counter_block nfv_ct_counters_block;

/* Worker side. The per-packet facts connection tracking needs. */
struct nfv_ct_pkt {
	uint8_t tcp_flags;
	uint8_t trackable;  /* has ports (TCP/UDP/SCTP), ICMP echo, or another protocol */
	uint8_t icmp_echo;  /* 1: request, 2: reply */
	uint8_t related;    /* an ICMP error: looked up by the header it carries */
	rte_be16_t icmp_id;
	uint16_t l4_off;    /* related: where the ICMP header starts */
	/* TCP, host order; wscale 0xff when the SYN gave none. */
	uint32_t seq;
	uint32_t ack;
	uint16_t win;
	uint8_t wscale;
	uint8_t pad;
	uint16_t seglen;    /* TCP: the segment's data bytes (nfv_ct_tcp_seglen) */
};

/* The data bytes of the TCP segment whose header starts at off (data
 * offset byte doff) in m, whose IP header is at NFV_L2_LEN in the first
 * segment: the IP packet's end less the TCP header's. */
static __rte_always_inline uint16_t
nfv_ct_tcp_seglen(const struct rte_mbuf *m, uint32_t off, uint8_t doff)
{
	const uint8_t *ip = rte_pktmbuf_mtod_offset(m, const uint8_t *, NFV_L2_LEN);
	uint32_t end = NFV_L2_LEN + ((ip[0] >> 4) == 4 ? (uint32_t)(ip[2] << 8 | ip[3]) :
				     40u + (uint32_t)(ip[4] << 8 | ip[5]));
	uint32_t hdr = off + (uint32_t)(doff >> 4) * 4;

	return end > hdr ? (uint16_t)(end - hdr) : 0;
}

/* Prepares the worker's table for a burst (a flush clears it); returns
 * true when it has flows. */
bool nfv_ct_burst_start(struct nfv_ct_table *t, struct nfv_ct_counters *c, uint64_t now);
/* A packet of the flow whose key rte_hash_lookup_bulk_data found (data:
 * its value): updates the flow and returns 1; 0 when the flow expired or
 * the packet starts a new connection (the rules decide); minus the id of
 * a drop reason when the packet is to be dropped, the flow unchanged (a
 * TCP reset outside the receiver's window: conntrack/invalid_rst; another
 * TCP segment outside the windows: conntrack/out_of_window). */
int nfv_ct_hit(struct nfv_ct_table *t, struct nfv_ct_counters *c, const void *data,
	       uint8_t proto, const struct nfv_ct_pkt *p, uint64_t now);
/* The same with a key to look up. */
int nfv_ct_lookup(struct nfv_ct_table *t, struct nfv_ct_counters *c,
		  const struct nfv_ct_key *k, const struct nfv_ct_pkt *p, uint64_t now);
/* An ICMP error whose embedded header's key found data: true when that
 * flow is alive (the error passes; the flow is not changed). */
bool nfv_ct_related(struct nfv_ct_table *t, struct nfv_ct_counters *c, const void *data,
		    uint64_t now);
/* Records a new flow (the packet matched a reflect rule); -ENOSPC when the
 * table is full. */
int nfv_ct_create(struct nfv_ct_table *t, struct nfv_ct_counters *c,
		  const struct nfv_ct_key *k, const struct nfv_ct_pkt *p, uint64_t now);

/* Control side. */
/* The flow tables allocated, before the first reflect rule is published;
 * -ENOMEM with err set when there is no memory for them. */
int nfv_ct_reserve(char *err);
int nfv_ct_set_max(uint32_t max, char *err);
int nfv_ct_set_timeout(const char *name, uint32_t seconds, char *err);
/* "conntrack set tcp-liberal on|off": out-of-window segments pass (off:
 * dropped, the default, as Linux's nf_conntrack_tcp_be_liberal 0). */
void nfv_ct_set_tcp_liberal(bool on);
extern bool nfv_ct_tcp_liberal; /* workers read */
void nfv_ct_flush(void);
json_t *nfv_ct_show(void);

#endif
