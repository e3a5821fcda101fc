/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lb: an L4 load balancer (NAT mode), as VPP's lb plugin, Katran and DPVS's
 * full-NAT do it: a service is a virtual address, port and protocol (VIP);
 * its backends are real servers. The first packet of a connection to a VIP
 * picks a backend by Maglev consistent hashing of its 5-tuple (weighted);
 * the connection's packets go to that backend with the destination
 * rewritten, and the backend's replies come back with the source rewritten
 * to the VIP, so clients see the VIP only.
 *
 * A session has two keys in its worker's table: fwd (client -> VIP, the
 * packets the lb_in node gives a backend as destination) and rev
 * (backend -> client, given the VIP as source). Both are translated on the
 * ip4 ingress arc, before the route lookup, on every interface.
 *
 * Direct server return (mode dsr, IPVS's and DPVS's DR mode): the packet
 * keeps the VIP as destination and goes to the backend's next hop (the
 * route to the backend's address: on the link, its own MAC); the backend
 * holds the VIP itself (on its loopback, not answering ARP for it) and
 * answers the client directly, so replies do not need nfvd.
 *
 * Sessions are per worker, written only by their worker: both directions of
 * a connection must reach the same worker (one worker, or the client and
 * backend sides polled by one worker), as for nat44. A session whose
 * backend or service was deleted is forgotten when it is next seen (the
 * client's next packet is scheduled afresh); a backend of weight 0 keeps
 * its sessions and gets no new ones (draining); a TCP SYN is always
 * scheduled afresh.
 *
 * ICMP errors about a session's packets are translated as IPVS does in
 * NAT mode: one about a packet a backend sent a client (from the VIP),
 * addressed to the VIP, goes to the backend (the outer destination and
 * the quoted source become the backend's address and port); one about a
 * packet a client sent to a backend (from a router between nfvd and the
 * backend, or the backend itself) goes to the client from the VIP (the
 * outer source and the quoted destination become the VIP and port). In
 * mode dsr the first kind goes, unchanged, to the backend (its replies do
 * not pass nfvd, so nothing is to be put back). Errors make no session.
 * nfvd's own errors about the packets lb_in translated (fragmentation
 * needed on the way out...) are put back the same way by
 * lb_own_icmp_error, on the ip4_icmp_error arc: a client sees the packet
 * it sent quoted, a backend its own.
 */
#ifndef NFV_LB_H
#define NFV_LB_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <jansson.h>
#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_hash.h>
#include <rte_hash_crc.h>

#include "core/common.h"
#include "core/counters.h"
#include "core/slots.h"
#include "modules/infra/handoff.h"
#include "modules/ip/flow_cache.h"
#include "modules/lb/maglev.h"

#define NFV_LB_SERVICES_MAX 64
#define NFV_LB_BACKENDS_MAX 64  /* per service */
#define NFV_LB_SVC_BUCKETS 256  /* open addressing, (VIP, port, proto) -> service + 1 */
#define NFV_LB_BE_BITS 16       /* a bitmap of backend endpoints' hashes (the rev test) */

enum nfv_lb_mode {
	NFV_LB_NAT, /* destination rewritten; the backend's replies come back through nfvd */
	NFV_LB_DSR, /* direct server return: the packet unchanged to the backend's MAC */
};

struct nfv_lb_backend {
	rte_be32_t addr;
	rte_be16_t port;
	uint16_t weight;
	uint32_t uid;   /* 0: a free slot (deleted); slots do not move */
};

struct nfv_lb_service {
	rte_be32_t vip;
	rte_be16_t port;
	uint8_t proto;
	uint8_t mode;   /* enum nfv_lb_mode */
	uint32_t uid;
	uint32_t n_backends;   /* slots in use or free below this */
	struct nfv_lb_backend be[NFV_LB_BACKENDS_MAX];
	uint8_t *maglev;       /* NFV_MAGLEV_SIZE entries: a backend slot */
};

/* The services, published whole (RCU); workers read. */
struct nfv_lb_config {
	uint32_t n_services;
	uint8_t svc_bucket[NFV_LB_SVC_BUCKETS];
	uint64_t be_bits[(1u << NFV_LB_BE_BITS) / 64];
	struct nfv_lb_service svc[NFV_LB_SERVICES_MAX];
};
extern struct nfv_lb_config *nfv_lb_cfg;

struct nfv_lb_key {
	rte_be32_t src;
	rte_be32_t dst;
	rte_be16_t sport;
	rte_be16_t dport;
	uint8_t proto;
	uint8_t pad[3];
};

enum nfv_lb_dir { NFV_LB_FWD, NFV_LB_REV };
enum nfv_lb_state {
	NFV_LB_TCP_TRANSITORY,
	NFV_LB_TCP_ESTABLISHED,
	NFV_LB_UDP,
	NFV_LB_STATES,
};

struct nfv_lb_session {
	struct nfv_lb_key key[2]; /* [NFV_LB_FWD], [NFV_LB_REV] */
	rte_be32_t vip;
	rte_be32_t backend;
	rte_be16_t vport;
	rte_be16_t bport;
	uint16_t svc;     /* the service's slot, checked against svc_uid */
	uint8_t be;       /* the backend's slot, checked against be_uid */
	uint8_t state;    /* enum nfv_lb_state */
	uint32_t svc_uid;
	uint32_t be_uid;
	uint8_t used;
	uint8_t flags;    /* NFV_L4_* (modules/ip/l4_rewrite.h; direction 0 is fwd) */
	uint8_t pad[6];
	uint64_t expire_tsc;
	uint64_t packets[2];
	uint64_t bytes[2];
};

_Static_assert(sizeof(struct nfv_lb_key) == 16, "flow_cache.h takes 16-byte keys");

#define NFV_LB_CACHE_BITS 12

struct nfv_l4_frag;

struct nfv_lb_table {
	struct rte_hash *hash;  /* key -> session index << 1 | direction */
	struct nfv_l4_frag *frag; /* notes of fragmented datagrams (modules/ip/l4_frag.h) */
	uint32_t *cache;        /* 1 << NFV_LB_CACHE_BITS slots in front of hash (flow_cache.h) */
	struct nfv_lb_session *s;
	struct nfv_slots slots;
} __rte_cache_aligned;

extern struct nfv_lb_table *nfv_lb_tables; /* one per worker; NULL before the first service */
extern uint32_t nfv_lb_gen;

struct nfv_lb_counters {
	uint64_t fwd;         /* packets to a VIP given to a backend */
	uint64_t rev;         /* packets of a backend given the VIP as source */
	uint64_t scheduled;   /* sessions created */
	uint64_t rescheduled; /* a SYN, or a deleted backend's session, scheduled afresh */
	uint64_t expired;
	uint64_t no_backend;
	uint64_t table_full;
	/* ICMP errors about a session's packets (modules/ip/l4_icmp_error.h): */
	uint64_t icmp_error_fwd;        /* to a VIP about a reply: given to the backend */
	uint64_t icmp_error_rev;        /* about a packet to a backend: given the VIP */
	uint64_t icmp_error_no_session; /* quoting a service's or backend's endpoint, no session */
	uint64_t icmp_error_truncated;  /* quoting less than an IPv4 header and 8 bytes */
	/* Later fragments (not the first) of datagrams (modules/ip/l4_frag.h): */
	uint64_t frag_fwd;     /* to a VIP, after their first: to its backend */
	uint64_t frag_rev;     /* from a backend, after their first: from the VIP */
	uint64_t frag_unknown; /* to a VIP, of no datagram noted: left as they came */
	uint64_t handoff_out;  /* packets handed to the worker owning their session */
	uint64_t handoff_in;   /* packets other workers handed to this one */
	uint64_t handoff_full; /* refused by a full handoff ring (dropped) */
};
extern struct nfv_counter_block nfv_lb_counters_block;
/* With several workers, a mode nat session lives on the worker its
 * client's address and port name (nfv_handoff_endpoint_owner): the
 * client's packets carry them as source, the backend's replies as
 * destination. */
extern struct nfv_handoff nfv_lb_handoff;
extern uint64_t nfv_lb_timeout_tsc[NFV_LB_STATES];

static __rte_always_inline uint32_t
nfv_lb_svc_hash(rte_be32_t vip, rte_be16_t port, uint8_t proto)
{
	return rte_hash_crc_4byte(vip, (uint32_t)port << 8 | proto);
}

/* The service of (dst, dport, proto), or NULL. */
static __rte_always_inline const struct nfv_lb_service *
nfv_lb_svc_find(const struct nfv_lb_config *cfg, rte_be32_t vip, rte_be16_t port, uint8_t proto)
{
	uint32_t h = nfv_lb_svc_hash(vip, port, proto);

	for (uint32_t i = 0; i < NFV_LB_SVC_BUCKETS; i++) {
		uint8_t v = cfg->svc_bucket[(h + i) & (NFV_LB_SVC_BUCKETS - 1)];
		const struct nfv_lb_service *s;

		if (v == 0)
			return NULL;
		s = &cfg->svc[v - 1];
		if (s->vip == vip && s->port == port && s->proto == proto)
			return s;
	}
	return NULL;
}

/* The bit of a backend endpoint in be_bits (set: maybe a backend). */
static __rte_always_inline uint32_t
nfv_lb_be_bit(rte_be32_t addr, rte_be16_t port, uint8_t proto)
{
	return rte_hash_crc_4byte(addr, (uint32_t)port << 8 | proto) >> (32 - NFV_LB_BE_BITS);
}

/* Worker side (control/lb.c). */
void nfv_lb_burst_start(struct nfv_lb_table *t, struct nfv_lb_counters *c, uint64_t now);
struct nfv_lb_session *nfv_lb_lookup_slow(struct nfv_lb_table *t, struct nfv_lb_counters *c,
					  const struct nfv_lb_key *k, unsigned int *dir,
					  uint64_t now);
void nfv_lb_forget(struct nfv_lb_table *t, struct nfv_lb_session *s);
/* A new session of fwd key k to backend slot b of svc; NULL when the table
 * is full (counted). */
struct nfv_lb_session *nfv_lb_create(struct nfv_lb_table *t, struct nfv_lb_counters *c,
				     const struct nfv_lb_key *k, const struct nfv_lb_service *svc,
				     uint16_t svc_slot, uint8_t b, uint64_t now);

/* Whether cache value v names key k, live. */
static __rte_always_inline bool
nfv_lb_cache_hit(const struct nfv_lb_table *t, uint32_t v, const struct nfv_lb_key *k,
		 uint64_t now)
{
	const struct nfv_lb_session *s = &t->s[v >> 1];

	return nfv_key16_eq(k, &s->key[v & 1]) && s->used && (int64_t)(now - s->expire_tsc) < 0;
}

/* The session of key k (its direction in *dir), or NULL; the cache
 * answers most packets, the table the rest. */
static __rte_always_inline struct nfv_lb_session *
nfv_lb_lookup(struct nfv_lb_table *t, struct nfv_lb_counters *c, const struct nfv_lb_key *k,
	      unsigned int *dir, uint64_t now)
{
	const uint32_t *set = &t->cache[nfv_flow_cache_set(k, NFV_LB_CACHE_BITS)];
	uint32_t v = set[0];

	if (likely(v != NFV_FLOW_CACHE_EMPTY && nfv_lb_cache_hit(t, v, k, now)) ||
	    ((v = set[1]) != NFV_FLOW_CACHE_EMPTY && nfv_lb_cache_hit(t, v, k, now))) {
		*dir = v & 1;
		return &t->s[v >> 1];
	}
	return nfv_lb_lookup_slow(t, c, k, dir, now);
}

/* Control side. */
int nfv_lb_service_add(const char *vip_port, uint8_t proto, bool add, enum nfv_lb_mode mode,
		       char *err);
int nfv_lb_backend_add(const char *vip_port, uint8_t proto, const char *backend, bool add,
		       int weight, char *err);
int nfv_lb_set_timeout(const char *name, uint32_t seconds, char *err);
json_t *nfv_lb_show(bool sessions);

#endif
