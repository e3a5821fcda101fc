/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv4/IPv6 forwarding state: addresses, next hops, routes.
 *
 * Control (the main lcore) writes every table; workers only read them.
 * Next hops are immutable once published: a change publishes a new copy
 * and frees the old one after an RCU grace period. The FIBs are kept in
 * pairs: an update goes to the standby table, the pair flips, and once every
 * worker has passed a quiescent state the same update goes to the other
 * table, so a lookup never sees a table being modified.
 */
#ifndef NFV_IP_H
#define NFV_IP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <rte_branch_prediction.h>
#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_fib.h>
#include <rte_fib6.h>
#include <jansson.h>

#include "core/common.h"

#define NFV_NH_MAX (1u << 18)       /* next-hop ids; 0 means "no route" */
#define NFV_ECMP_MAX 16
#define NFV_ADDR_PER_PORT_MAX 16
#define NFV_VRF_MAX 64              /* VRF ids; 0 is "default" */
#define NFV_VRF_NAME_LEN 32

struct nfv_ip {
	uint8_t family; /* AF_INET or AF_INET6 */
	uint8_t pad[3];
	union {
		rte_be32_t v4;
		uint8_t v6[16];
	};
};

struct nfv_prefix {
	struct nfv_ip ip;
	uint8_t len;
	uint8_t pad;
	uint16_t vrf;      /* the routing table: 0 = default */
};

enum nfv_nh_type {
	NFV_NH_NONE = 0,   /* unused slot */
	NFV_NH_GATEWAY,    /* via a neighbor; l2 valid once resolved */
	NFV_NH_CONNECTED,  /* destination is on the link; resolved per host route */
	NFV_NH_LOCAL,      /* an address of ours */
	NFV_NH_BLACKHOLE,  /* silently discard */
	NFV_NH_GROUP,      /* ECMP group of gateway next hops */
};

/*
 * What a worker reads. 64 bytes: one cache line for a plain next hop.
 */
struct nfv_nexthop {
	uint8_t type;      /* enum nfv_nh_type */
	uint8_t family;
	uint8_t resolved;  /* l2 holds the neighbor's MAC */
	uint8_t n_members; /* NFV_NH_GROUP */
	uint16_t port_id;
	uint16_t mtu;      /* L3 MTU of port_id */
	uint32_t id;
	uint16_t fwd_mtu;  /* mtu when a single resolved next hop, else 0: one test */
	uint8_t notify;    /* tell the control side when used (a stale neighbor):
			    * fwd_mtu is 0, so only the slow paths see it */
	uint8_t pad;
	uint8_t l2[16];    /* rewrite: dst MAC, src MAC, ethertype */
	uint32_t members[NFV_ECMP_MAX]; /* NFV_NH_GROUP: member ids */
	/* Control only below. */
	struct nfv_ip gw;
	uint32_t refcnt;
	uint8_t has_neigh; /* a "neigh add" entry exists for gw on port_id */
	uint8_t neigh_mac[6];
	uint8_t learned;   /* a learned (ARP/ND) MAC; a static one wins */
	uint8_t learned_mac[6];
} __rte_cache_aligned;

extern struct nfv_nexthop *nfv_nh_table[NFV_NH_MAX];

static inline const struct nfv_nexthop *
nfv_nh_get(uint32_t id)
{
	return __atomic_load_n(&nfv_nh_table[id], __ATOMIC_ACQUIRE);
}

/* A next hop that sends packets on to a neighbor (single or ECMP group). */
static inline bool
nfv_nh_forwards(const struct nfv_nexthop *nh)
{
	return ((1u << nh->type) & ((1u << NFV_NH_GATEWAY) | (1u << NFV_NH_CONNECTED) |
				    (1u << NFV_NH_GROUP))) != 0;
}

/*
 * FIB values: the next-hop id in the low 18 bits and the prefix length
 * above, so that a route's value never equals that of the route covering it:
 * DPDK 22.11's DIR-24-8 miscounts its tbl8 groups when they are equal.
 */
#define NFV_FIB_NH_MASK (NFV_NH_MAX - 1)

static inline uint32_t
nfv_fib_nh_id(uint64_t value)
{
	return (uint32_t)(value & NFV_FIB_NH_MASK);
}

static inline uint64_t
nfv_fib_value(uint32_t nh_id, uint8_t depth)
{
	return nh_id == 0 ? 0 : ((uint64_t)depth << 18) | nh_id;
}

struct nfv_trie6;

/* The active FIB of each family and VRF; workers read it once per burst
 * (per run of packets of one VRF). nfv_fib4/6 are the default VRF's. */
struct nfv_fib_pair {
	void *tbl[2];
	unsigned int active;
	/* The default VRF's IPv4 pair: each table's DIR-24-8 arrays, read inline
	 * by ip4_fast (nfv_dir24_8_get), or NULL when the table's layout did not
	 * pass the check made when it was created (then the bulk lookup). */
	const struct nfv_dir24_8 *dir[2];
	/* The default VRF's IPv6 pair: each table's trie for an inline read
	 * (modules/ip/fib6_trie.h), or NULL (then the bulk lookup). */
	const struct nfv_trie6 *trie[2];
};
extern struct nfv_fib_pair nfv_fib4, nfv_fib6;
/* [0] IPv4, [1] IPv6; [x][0] is &nfv_fib4 / &nfv_fib6; NULL: no such VRF. */
extern struct nfv_fib_pair *nfv_fib_vrf[2][NFV_VRF_MAX];

static inline struct rte_fib *
nfv_fib4_active(void)
{
	unsigned int a = __atomic_load_n(&nfv_fib4.active, __ATOMIC_ACQUIRE);
	return nfv_fib4.tbl[a];
}

/*
 * DPDK 22.11's DIR-24-8 table (lib/fib/dir24_8.h, what rte_fib_get_dp()
 * returns) as nfv creates it: 4-byte entries, each the value shifted left
 * by one with the low bit set when the entry is the index of a group of
 * 256 tbl8 entries for the address's last byte. The layout is DPDK's own,
 * not part of its API: fib.c checks it on every table it creates (header
 * fields, then routes looked up both ways) and leaves dir NULL for a table
 * that does not match, so a different DPDK costs speed, not correctness.
 */
struct nfv_dir24_8 {
	uint32_t number_tbl8s;
	uint32_t rsvd_tbl8s;
	uint32_t cur_tbl8s;
	uint32_t nh_sz;
	uint64_t def_nh;
	uint32_t *tbl8;
	uint64_t *tbl8_idxes;
	uint32_t tbl24[] __rte_cache_aligned;
};

/* The FIB value of IPv4 address ip (host order), as rte_fib_lookup_bulk(). */
static __rte_always_inline uint64_t
nfv_dir24_8_get(const struct nfv_dir24_8 *d, uint32_t ip)
{
	uint32_t e = d->tbl24[ip >> 8];

	if (unlikely(e & 1))
		e = d->tbl8[(e >> 1) * 256 + (ip & 0xff)];
	return e >> 1;
}

/* The active IPv4 table of the default VRF for an inline read, or NULL. */
static inline const struct nfv_dir24_8 *
nfv_fib4_dir_active(void)
{
	unsigned int a = __atomic_load_n(&nfv_fib4.active, __ATOMIC_ACQUIRE);
	return nfv_fib4.dir[a];
}

static inline struct rte_fib6 *
nfv_fib6_active(void)
{
	unsigned int a = __atomic_load_n(&nfv_fib6.active, __ATOMIC_ACQUIRE);
	return nfv_fib6.tbl[a];
}

/* The active table of a VRF, or NULL while it has none (being deleted). */
static inline void *
nfv_fib_vrf_active(unsigned int fam, uint16_t vrf)
{
	const struct nfv_fib_pair *p;

	if (unlikely(vrf >= NFV_VRF_MAX))
		return NULL;
	p = __atomic_load_n(&nfv_fib_vrf[fam][vrf], __ATOMIC_ACQUIRE);
	if (p == NULL)
		return NULL;
	return p->tbl[__atomic_load_n(&p->active, __ATOMIC_ACQUIRE)];
}

/* Per-port L3 state read by workers (ICMP error source addresses). */
struct nfv_port_l3 {
	bool has4;
	bool has6;
	rte_be32_t src4;
	uint8_t src6[16];
};
extern struct nfv_port_l3 *nfv_port_l3[NFV_IFACE_MAX];

static inline const struct nfv_port_l3 *
nfv_port_l3_get(uint16_t port_id)
{
	return __atomic_load_n(&nfv_port_l3[port_id], __ATOMIC_ACQUIRE);
}

/* The ip module's per-worker counters (core/counters.h). ICMP errors,
 * [0] IPv4 and [1] IPv6: the packet that caused one is already counted
 * under its drop reason. */
struct nfv_ip_counters {
	uint64_t icmp_sent[2];
	uint64_t icmp_rate_limited[2];
	uint64_t icmp_no_source[2];
	uint64_t icmp_not_allowed[2];
	uint64_t echo_replies[2];
	/* Packets the fused nodes forwarded before the ingress features that
	 * the lookup routed again (the interface's features changed on the
	 * way, core/arc.h): [0] IPv4, [1] IPv6 */
	uint64_t routed_again[2];
	/* IPv4 packets ip4_frag cut, and the fragments it made of them (each
	 * sent as a packet: received + fragments - fragmented adds up). */
	uint64_t fragmented;
	uint64_t fragments;
	/* nfvd's own IPv6 packets ip6_frag cut, and the fragments made. */
	uint64_t fragmented6;
	uint64_t fragments6;
	/* Datagrams for our addresses reassembled, and the fragments they
	 * were made of (reasm.h): [0] IPv4, [1] IPv6. */
	uint64_t reassembled[2];
	uint64_t reassembled_fragments[2];
};

/* "debug reroute on" (a test hook): the lookup nodes route again every
 * packet the fused nodes forwarded before the ingress features, as after a
 * feature change on the way. Written by control, read once per burst. */
extern bool nfv_ip_reroute_all;

/* Route sources, highest priority first. */
enum nfv_route_source {
	NFV_RT_LOCAL,     /* addr add: the address itself */
	NFV_RT_CONNECTED, /* addr add: the subnet */
	NFV_RT_STATIC,    /* route add */
	NFV_RT_KERNEL,    /* learned from the kernel (lcp: routes on kernel twins) */
	NFV_RT_NEIGH,     /* neigh add: host route to the neighbor */
	NFV_RT_SOURCE_MAX
};

/* Control-side API. Every function returns 0 or a negative errno and fills
 * err (NFV_ERR_LEN bytes) with a sentence naming the bad input. */

struct nfv_limits {
	uint32_t max_routes4;   /* the most the default VRF's tables grow to */
	uint32_t max_routes6;
	uint32_t tbl8_4;        /* tbl8 groups at max_routes4 (fewer while smaller) */
	uint32_t tbl8_6;
	/* What the tables start with (0: the max). They grow by rebuild, four
	 * times larger each step, when routes need the room. */
	uint32_t start_routes4;
	uint32_t start_routes6;
	uint32_t vrf_routes; /* per family in each VRF but the default; 0: 4096 */
};
#define NFV_VRF_ROUTES_DEFAULT 4096
/* Per family in each VRF but the default (--vrf-routes). */
uint32_t nfv_vrf_routes(void);

int nfv_ip_init(const struct nfv_limits *limits, int socket_id);

/* What the tables took from EAL's memory when they were created, in bytes
 * (measured, not computed): both FIBs of each pair, the route database,
 * the next-hop table and its gateway index. */
struct nfv_ip_memory {
	size_t fib4;
	size_t fib6;
	size_t routes;
	size_t nexthops;
};
extern struct nfv_ip_memory nfv_ip_memory;
/* Bytes of EAL's heap in use on a socket. */
size_t nfv_heap_used(int socket_id);
void nfv_ip_fini(void);

int nfv_addr_add(const struct nfv_prefix *p, uint16_t port_id, char *err);
int nfv_addr_del(const struct nfv_prefix *p, uint16_t port_id, char *err);
/* Interfaces of VRF vrf only. */
int nfv_addr_find_port(const struct nfv_ip *gw, uint16_t vrf, uint16_t *port_id);
bool nfv_addr_is_local(const struct nfv_ip *ip, uint16_t vrf);
/* The addresses of an interface (at most NFV_ADDR_PER_PORT_MAX); their count. */
unsigned int nfv_addr_of_iface(uint16_t iface, struct nfv_prefix *out);

int nfv_neigh_add(const struct nfv_ip *ip, const struct rte_ether_addr *mac, uint16_t port_id,
		  char *err);
int nfv_neigh_del(const struct nfv_ip *ip, uint16_t port_id, char *err);

/*
 * Learned neighbors (a resolution module: ARP/ND, the kernel): the MAC of
 * ip on an interface. The first learn takes a reference on the gateway
 * next hop for (ip, iface) and installs the host route (not for IPv6
 * link-local addresses, nor where one exists on another interface); later
 * ones change the MAC. A static neighbor ("neigh add") always wins: its
 * MAC is the one used while it exists. notify: workers report uses of the
 * next hop (nfv_nh_use_drain), at the cost of the slow path (a stale
 * entry). Returns 0, -ENOSPC (next-hop or route table full) or -ENOMEM.
 */
int nfv_neigh_learn(const struct nfv_ip *ip, uint16_t iface, const uint8_t mac[6], bool notify,
		    char *err);
/* Forgets a learned MAC: the next hop is unresolved again (unless static). */
void nfv_neigh_forget(const struct nfv_ip *ip, uint16_t iface);
/* True when "neigh add" made ip a static neighbor on iface. */
bool nfv_neigh_is_static(const struct nfv_ip *ip, uint16_t iface);
/* The host route of a learned neighbor again, if it went (a static
 * neighbor deleted over it). True when packets to ip itself reach the
 * neighbor's next hop (its host route, or link-local). */
bool nfv_neigh_learned_route(const struct nfv_ip *ip, uint16_t iface);

/* Calls cb with the id of every next hop with notify set that a worker
 * used since the last call (a next hop may come more than once). */
void nfv_nh_use_drain(void (*cb)(uint32_t nh_id, void *arg), void *arg);

/*
 * Where packets go that ipX_rewrite cannot send because their next hop is
 * not resolved (family AF_INET or AF_INET6): a node registered by a
 * resolution module, which finds meta.nh set to the (ECMP member) next
 * hop. Without one they are dropped as neigh_unresolved.
 */
void nfv_ip_unresolved_register(uint8_t family, const char *node);
/* Off: unresolved packets are dropped as if no node had registered. */
void nfv_ip_unresolved_enable(bool on);
/* ip6_input's and ip6_local's edge to the node of the module that handles
 * the link (ND, link-local addresses): ip6_input sends it ICMPv6 echo
 * requests and neighbor discovery messages (types 133 to 137) for a
 * link-local unicast or link-scope multicast destination, ip6_local the
 * neighbor discovery messages to our addresses. Without one those are
 * dropped as before; so is every other link-scope packet. */
void nfv_ip6_link_register(const char *node);

/* More rows for "neigh show" (learned entries): a module appends objects
 * with address, lladdr, dev, state, vrf to rows; dev and vrf: -1 for any. */
typedef void (*nfv_neigh_rows_fn)(json_t *rows, int dev, int vrf);
void nfv_neigh_rows_register(nfv_neigh_rows_fn fn);

struct nfv_route_spec {
	struct nfv_prefix prefix;
	enum nfv_nh_type type;    /* GATEWAY (with gws), CONNECTED (port), BLACKHOLE */
	unsigned int n_gw;
	struct nfv_ip gw[NFV_ECMP_MAX];
	int gw_port[NFV_ECMP_MAX]; /* -1: find the connected network */
	int port_id;               /* CONNECTED */
};

/* The VRF is spec->prefix.vrf / p->vrf. */
int nfv_route_add(const struct nfv_route_spec *spec, char *err);
int nfv_route_del(const struct nfv_prefix *p, char *err);
int nfv_route_load(const char *path, uint16_t vrf, uint32_t *n_loaded, char *err);

/*
 * Routes of another source than "route add" (the lcp module's kernel
 * routes): specs[i] sets source src of its prefix, or clears it when its
 * type is NFV_NH_NONE; protos[i] is kept with it (route show's "proto").
 * Every spec of one call is of one family and VRF; the FIB is updated
 * once for all of them. Not all or nothing: a spec that cannot be applied
 * (a gateway on no interface of the VRF, a full table) is left out and
 * counted in *n_failed, err naming the last such. 0 or -errno when the FIB
 * update itself failed.
 */
int nfv_route_source_apply(enum nfv_route_source src, const struct nfv_route_spec *specs,
			   const uint8_t *protos, unsigned int n, unsigned int *n_failed,
			   char *err);

/* Called when a port is removed or its MAC/MTU changes. */
unsigned int nfv_ip_port_removed(uint16_t port_id);
void nfv_ip_port_changed(uint16_t port_id);

/* Iteration for show commands. */
struct nfv_route_info {
	struct nfv_prefix prefix;
	enum nfv_route_source source;
	uint32_t nh_id;
	uint8_t proto;     /* NFV_RT_KERNEL: the kernel's rtm_protocol */
};
typedef void (*nfv_route_cb)(const struct nfv_route_info *ri, void *arg);
void nfv_route_walk(nfv_route_cb cb, void *arg);
int nfv_route_lookup_exact(const struct nfv_prefix *p, struct nfv_route_info *ri);
uint32_t nfv_route_count(uint8_t family); /* every VRF */
uint32_t nfv_route_count_vrf(uint8_t family, uint16_t vrf);
uint32_t nfv_nh_count(void);

typedef void (*nfv_addr_cb)(uint16_t port_id, const struct nfv_prefix *p, void *arg);
void nfv_addr_walk(nfv_addr_cb cb, void *arg);
typedef void (*nfv_nh_cb)(const struct nfv_nexthop *nh, void *arg);
void nfv_nh_walk(nfv_nh_cb cb, void *arg);

/* Address helpers shared by parsers and tables. */
void nfv_prefix_mask(struct nfv_prefix *p);
bool nfv_prefix_contains(const struct nfv_prefix *p, const struct nfv_ip *ip);
bool nfv_ip_equal(const struct nfv_ip *a, const struct nfv_ip *b);
const char *nfv_ip_str(const struct nfv_ip *ip, char *buf, size_t len);
const char *nfv_prefix_str(const struct nfv_prefix *p, char *buf, size_t len);
/* Why ip can be neither an interface address nor a neighbor (unspecified,
 * loopback, multicast, broadcast, reserved), or NULL when it can. */
const char *nfv_ip_unusable(const struct nfv_ip *ip);
/* The name of a kernel route protocol (rtm_protocol: "kernel", "boot",
 * "static", "bgp", "ospf"...), or its number. */
const char *nfv_route_proto_name(uint8_t proto, char *buf, size_t len);
/* fe80::/10: one per link, never forwarded. */
bool nfv_ip_is_link_local(const struct nfv_ip *ip);

/* VRFs (control/vrf.c). */
int nfv_vrf_add(const char *name, char *err);
int nfv_vrf_del(const char *name, char *err);
/* The id of a VRF, or -ENOENT. */
int nfv_vrf_id(const char *name);
/* "?" for an id not in use. */
const char *nfv_vrf_name(uint16_t vrf);
bool nfv_vrf_used(uint16_t vrf);
/* What its tables took from the DPDK heap when it was made. */
size_t nfv_vrf_table_bytes(uint16_t vrf);
/* Moves an interface and its addresses and static neighbors to a VRF. */
int nfv_ip_iface_set_vrf(uint16_t iface, uint16_t vrf, char *err);

#endif
