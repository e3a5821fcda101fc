/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * L2 bridges: "bridge add NAME [ageing SEC]", "bridge port add NAME dev IF",
 * "fdb show [dev BRIDGE]". A bridge is an interface; its member ports (DPDK
 * ports, VXLAN interfaces) hand it every frame they receive (the
 * bridge_input feature of the l2_input arc for ports, the VXLAN node for
 * tunnels). Source MACs are learned per worker, known unicast is sent to
 * its port, the rest is flooded to every other member that is up.
 *
 * Tables: the bridges and their member lists are written by control and
 * published with RCU; each worker learns into its own FDB (an rte_hash and
 * an array of entries at the hash's positions), which only it writes;
 * control reads the entries for "fdb show" under a per-entry sequence
 * number (odd while the worker changes the entry).
 */
#ifndef NFV_BRIDGE_H
#define NFV_BRIDGE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <jansson.h>

#include <rte_byteorder.h>
#include <rte_config.h>
#include <rte_ether.h>
#include <rte_hash.h>

#include "core/common.h"
#include "core/counters.h"
#include "core/meta.h"
#include "core/worker.h"

#define NFV_BRIDGE_PORTS_MAX 64
#define NFV_BRIDGE_AGEING_DEFAULT 300
#define NFV_FDB_SIZE_DEFAULT 16384

/* The members of a bridge: immutable once published (a change publishes a
 * new list, the old one is freed after a grace period). */
struct nfv_bridge_ports {
	uint16_t n;
	uint16_t ids[NFV_BRIDGE_PORTS_MAX];
};

struct nfv_bridge {
	uint16_t iface;
	uint32_t gen;                    /* FDB entries of another generation are stale */
	uint32_t ageing_s;
	uint64_t ageing_tsc;
	bool l3;                         /* has an address: the gateway of its ports */
	struct nfv_bridge_ports *ports;  /* RCU-published */
};

/* Bridge of a bridge interface id (NULL: none); member interface id ->
 * its bridge's interface id (0: not a member; bridges never have id 0). A
 * bridge maps to itself: what it sends (routed out of it, or by nfvd's
 * control side) goes through bridge_input as from a port of its own. */
extern struct nfv_bridge *nfv_bridges[NFV_IFACE_MAX];
extern uint16_t nfv_bridge_of[NFV_IFACE_MAX];

static inline uint16_t
nfv_bridge_of_iface(uint16_t iface)
{
	return __atomic_load_n(&nfv_bridge_of[iface], __ATOMIC_ACQUIRE);
}

/*
 * Per-packet state between the nodes of the L2 path (mbuf private area):
 * the remote VTEP a frame came from (set by vxlan_input, learned with the
 * source MAC) or is for (set by bridge_input from the FDB: 0 means every
 * remote of the tunnel, head-end replication).
 */
struct nfv_bridge_meta {
	rte_be32_t remote;
};
extern struct nfv_mbuf_priv_slice nfv_bridge_meta_slice;

static inline struct nfv_bridge_meta *
nfv_bridge_meta(struct rte_mbuf *m)
{
	return nfv_mbuf_priv(m, &nfv_bridge_meta_slice);
}

/*
 * Members that are not DPDK ports (VXLAN interfaces): the module that owns
 * the kind names the node bridge_input sends their frames to (meta.tx_port
 * the member, nfv_bridge_meta.remote as above). From a constructor.
 */
#define NFV_BRIDGE_KINDS_MAX 8
void nfv_bridge_port_kind_register(uint8_t kind, const char *node);
/* bridge_input's edge for a member kind, -1 when the kind has none. */
extern int16_t nfv_bridge_kind_edge[NFV_BRIDGE_KINDS_MAX];

/*
 * Taps: how observers (capture, mirror, lcp's ARP and ND copies) see the
 * frames of the interfaces whose frames cross no port arc as theirs,
 * bridges and tunnels. Every such frame passes bridge_input, which hands
 * a tap, for each interface and direction it asked for, the frames as
 * that interface has them:
 *
 *	tunnel, in:	the inner frames it received (from vxlan_input);
 *	tunnel, out:	the frames bridged to it, before their encapsulation;
 *	bridge, in:	the frames it delivers to its own interface (eth_input);
 *	bridge, out:	the frames its interface sends into the bridge (routed
 *			out of it, or nfvd's own ARP and ND).
 *
 * A tap is called on the worker, with a run of frames of one interface and
 * direction, which it must only read; it is registered from a constructor,
 * and asks for an interface (nfv_bridge_tap_set) on the control thread. A
 * worker reads the wanted bits while it handles a burst: a tap switched
 * off may still be called until a grace period has passed. Without any
 * tap on, bridge_input pays a load and a compare at the start and at the
 * end of a burst.
 */
enum nfv_bridge_tap_dir {
	NFV_BRIDGE_TAP_IN,
	NFV_BRIDGE_TAP_OUT,
	NFV_BRIDGE_TAP_DIRS,
};
#define NFV_BRIDGE_TAPS_MAX 4

typedef void (*nfv_bridge_tap_fn)(struct nfv_worker *w, struct rte_mbuf **pkts, uint16_t n,
				  enum nfv_bridge_tap_dir dir, uint16_t iface);

/* Returns the tap's index. */
unsigned int nfv_bridge_tap_register(nfv_bridge_tap_fn fn);
/* Tap tap wants (on) or no longer wants the frames of iface in dir. */
void nfv_bridge_tap_set(unsigned int tap, enum nfv_bridge_tap_dir dir, uint16_t iface, bool on);

extern nfv_bridge_tap_fn nfv_bridge_tap_fns[NFV_BRIDGE_TAPS_MAX];
/* Per direction and interface, bit t: tap t wants its frames. */
extern uint8_t nfv_bridge_tap_wants[NFV_BRIDGE_TAP_DIRS][NFV_IFACE_MAX];
/* How many (tap, direction, interface) are wanted: 0, nothing to look at. */
extern uint32_t nfv_bridge_taps_on;

/* One worker's FDB. */
struct nfv_fdb_entry {
	uint32_t seq;        /* odd while the worker writes the entry */
	uint16_t bridge;     /* bridge interface id */
	uint16_t port;       /* member it was learned on */
	uint32_t gen;        /* the bridge's generation when learned */
	rte_be32_t remote;   /* VXLAN member: the remote VTEP */
	uint64_t seen;       /* TSC of the last frame from it */
	uint64_t key;        /* nfv_fdb_key(); 0: free */
};

/* Slots of the cache of positions in front of a worker's hash. */
#define NFV_FDB_CACHE_BITS 12

struct nfv_fdb {
	struct rte_hash *h;
	struct nfv_fdb_entry *e;  /* at the hash's positions */
	uint32_t size;
	uint32_t sweep;           /* the next position the sweep looks at */
	/*
	 * Direct-mapped cache key -> position + 1 (0: empty), the slot from a
	 * multiplicative hash of the key. A slot is right when the entry at
	 * its position has the key (entries carry their key; a freed one has
	 * key 0, which no frame has), so nothing is invalidated: a slot that
	 * names an entry since forgotten or reused simply misses.
	 */
	uint32_t cache[1u << NFV_FDB_CACHE_BITS];
} __rte_cache_aligned;

static inline uint32_t
nfv_fdb_cache_slot(uint64_t key)
{
	return (uint32_t)((key * UINT64_C(0x9e3779b97f4a7c15)) >> (64 - NFV_FDB_CACHE_BITS));
}

/* The position of key in the worker's FDB, or a negative value. */
static inline int32_t
nfv_fdb_lookup(struct nfv_fdb *f, uint64_t key)
{
	uint32_t slot = nfv_fdb_cache_slot(key), p = f->cache[slot];
	int32_t pos;

	if (likely(p != 0 && f->e[p - 1].key == key))
		return (int32_t)(p - 1);
	pos = rte_hash_lookup(f->h, &key);
	if (pos >= 0 && (uint32_t)pos < f->size)
		f->cache[slot] = (uint32_t)pos + 1;
	return pos;
}

/* Per worker index; NULL until the first bridge is added. */
extern struct nfv_fdb *nfv_fdbs[NFV_MAX_WORKERS];

/* The 6 bytes of a MAC in the low 48 bits, the bridge id above: never 0. */
static inline uint64_t
nfv_fdb_key(const uint8_t *mac, uint16_t bridge)
{
	uint64_t k = 0;

	memcpy(&k, mac, 6);
#if RTE_BYTE_ORDER == RTE_BIG_ENDIAN
	k >>= 16;
#endif
	return k | ((uint64_t)bridge << 48);
}

struct nfv_bridge_counters {
	uint64_t rx_packets[NFV_IFACE_MAX];   /* frames into the bridge, by bridge */
	uint64_t rx_bytes[NFV_IFACE_MAX];
	uint64_t tx_packets[NFV_IFACE_MAX];   /* frames out of a member (copies too) */
	uint64_t tx_bytes[NFV_IFACE_MAX];
	uint64_t learned;                      /* new FDB entries */
	uint64_t moved;                        /* a MAC seen on another port */
	uint64_t aged;                         /* entries the sweep forgot */
	uint64_t flooded;                      /* frames flooded (before the copies) */
	uint64_t fdb_full;                     /* MACs not learned: table full */
};
extern struct nfv_counter_block nfv_bridge_counters_block;

static inline struct nfv_bridge_counters *
nfv_bridge_counters(struct nfv_worker *w)
{
	return nfv_worker_counters(w, &nfv_bridge_counters_block);
}

/* mac NULL: a random locally administered one. */
int nfv_bridge_add(const char *name, uint32_t ageing_s, const struct rte_ether_addr *mac,
		   char *err);
int nfv_bridge_del(const char *name, char *err);
int nfv_bridge_port_add(const char *bridge, const char *dev, char *err);
int nfv_bridge_port_del(const char *bridge, const char *dev, char *err);
/* "fdb show [dev BRIDGE]": NULL with err when BRIDGE is not one. */
json_t *nfv_fdb_show(const char *bridge, char *err);
json_t *nfv_bridge_show(const char *name, char *err);

#endif
