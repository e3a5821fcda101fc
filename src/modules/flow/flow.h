/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Flow statistics (seed 002: per-core flow counters, flushed
 * asynchronously, never a shared counter per packet).
 *
 * Each worker keeps its own flow tables (rte_hash, one for IPv4 and one
 * for IPv6, written only by that worker) of the IP frames its ports
 * receive (a feature of the l2_input arc): the 5-tuple and the receiving
 * port are the key; the entry (at the key's position in the hash) holds
 * packets, bytes (of the IP packet), first and last seen and the TCP flags
 * OR-ed (an IPv4 flow's latest frames counted in its slot of the worker's
 * flow cache, below, until they are folded in). The worker itself expires
 * its entries (flow_scan, a source node, a slice of the tables every
 * millisecond): a flow idle for the idle
 * timeout is ended, one active for longer than the active timeout is
 * reported so far; either way a record with the counts since the last one
 * goes on the worker's ring (single producer, single consumer). The control
 * thread drains the rings (IPFIX export, RFC 7011) and reads the tables
 * for "flow show": an entry's generation is odd while the worker creates,
 * deletes or folds into it, so a reader that sees it change reads again.
 */
#ifndef NFV_FLOW_H
#define NFV_FLOW_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <jansson.h>
#include <rte_common.h>
#include <rte_hash.h>
#include <rte_hash_crc.h>
#include <rte_ring.h>

#include "core/common.h"
#include "core/counters.h"
#include "core/worker.h"

enum nfv_flow_family {
	NFV_FLOW_V4,
	NFV_FLOW_V6,
	NFV_FLOW_FAMILIES,
};

/* Laid out as the packet's bytes fall in two 64-bit words (flow_in's fast
 * path): the source (a 32-bit load, zero-extended), then the protocol and
 * the port (a per-burst constant OR-ed over it); the destination and the
 * ports (one 64-bit load). */
struct nfv_flow_key4 {
	uint32_t src;
	uint8_t pad;
	uint8_t proto;
	uint16_t iface;
	uint32_t dst;
	uint16_t sport;
	uint16_t dport;
};

struct nfv_flow_key6 {
	uint8_t src[16];
	uint8_t dst[16];
	uint16_t sport;
	uint16_t dport;
	uint8_t proto;
	uint8_t pad;
	uint16_t iface;
};

/* In an entry, key4.pad is this when the entry holds no IPv4 flow: a frame's
 * key (pad 0) never equals it. */
#define NFV_FLOW_KEY4_NONE 0xff

/* An entry's slot when the flow cache holds none of its counts. */
#define NFV_FLOW_SLOT_NONE UINT32_MAX

/*
 * A flow's entry, at its key's position in its table. Addresses and ports
 * in network order, as in the packet. The frames of an IPv4 flow count in
 * the flow's slot of the cache (below), folded into the entry when the
 * worker's scan visits it or the flow leaves the cache; the frames of an
 * IPv6 flow count here.
 */
struct nfv_flow_entry {
	struct nfv_flow_key4 key4; /* IPv4 flows; pad NFV_FLOW_KEY4_NONE otherwise */
	/* The fields a frame writes are not next to each other (the
	 * compiler would combine their updates in vector registers). */
	uint64_t packets;
	/* Start of what the next record counts: the flow's first frame, then
	 * the previous record (the scan moves it up to its visit while no
	 * frame came since: within a scan round of the next frame). The
	 * frames do not write it. */
	uint64_t exp_tsc;
	uint64_t bytes;
	uint64_t exp_packets;  /* counted in records already */
	uint64_t last_tsc;
	union {
		struct {
			uint8_t tcp_flags;  /* OR of every frame's */
			uint8_t exp_flags;  /* OR since the last record */
		};
		uint16_t both_flags;        /* the two, OR-ed at once */
	};
	uint8_t used;
	uint8_t pad;
	uint32_t gen;          /* odd: being created, deleted or folded into */
	/* Second cache line. */
	struct nfv_flow_key6 key6; /* IPv6 flows */
	uint64_t first_tsc;
	uint64_t exp_bytes;
	uint32_t slot;         /* IPv4: its slot in the cache, or NFV_FLOW_SLOT_NONE */
} __rte_aligned(64);

/* What a worker hands to control: counts since the previous record. */
struct nfv_flow_record {
	uint8_t family;
	uint8_t proto;
	uint8_t tcp_flags;
	uint8_t end;           /* the flow ended (idle); else an active report */
	uint16_t iface;
	uint16_t sport;
	uint16_t dport;
	uint16_t pad[3];
	uint8_t src[16];
	uint8_t dst[16];
	uint64_t packets;
	uint64_t bytes;
	uint64_t start_tsc;
	uint64_t end_tsc;
};

/* A record with entry e's key (of family fam), its counts zero. */
static inline void
nfv_flow_record_key(int fam, const struct nfv_flow_entry *e, struct nfv_flow_record *r)
{
	memset(r, 0, sizeof(*r));
	r->family = (uint8_t)fam;
	if (fam == NFV_FLOW_V4) {
		memcpy(r->src, &e->key4.src, 4);
		memcpy(r->dst, &e->key4.dst, 4);
		r->proto = e->key4.proto;
		r->iface = e->key4.iface;
		r->sport = e->key4.sport;
		r->dport = e->key4.dport;
	} else {
		memcpy(r->src, e->key6.src, 16);
		memcpy(r->dst, e->key6.dst, 16);
		r->proto = e->key6.proto;
		r->iface = e->key6.iface;
		r->sport = e->key6.sport;
		r->dport = e->key6.dport;
	}
}

/* The record of what entry e (of family fam) counted since its last one;
 * false when that is nothing. */
static inline bool
nfv_flow_record_make(int fam, const struct nfv_flow_entry *e, bool end,
		     struct nfv_flow_record *r)
{
	if (e->packets == e->exp_packets)
		return false;
	nfv_flow_record_key(fam, e, r);
	r->tcp_flags = e->exp_flags;
	r->end = end;
	r->packets = e->packets - e->exp_packets;
	r->bytes = e->bytes - e->exp_bytes;
	/* (A scan that ran between a walk's RX and its frames' count
	 * moved the start past them.) */
	r->start_tsc = RTE_MIN(e->exp_tsc, e->last_tsc);
	r->end_tsc = e->last_tsc;
	return true;
}

/*
 * In front of the IPv4 table, a cache of the flows' counters: sets of two
 * ways, the set chosen by a multiplicative hash of the key, a way one
 * cache line (struct nfv_flow_slot): the key and what its frames counted
 * since the last fold into the flow's entry. A frame whose flow has a slot
 * reads and writes that line alone: no load of a pointer first, no line
 * of the entry. A frame that misses both ways goes to the table's bulk
 * lookup and takes a way of its set: an empty one, else the one whose
 * frame came last longer ago, whose counts are folded into its own entry
 * first. The worker's scan folds a flow's slot into its entry before it
 * looks at the entry; "flow show" adds what the slot holds to what the
 * entry holds.
 */
#define NFV_FLOW_CACHE_BITS 13
#define NFV_FLOW_CACHE_SETS (1u << NFV_FLOW_CACHE_BITS)
#define NFV_FLOW_CACHE_WAYS 2
#define NFV_FLOW_CACHE_MUL 0x7feb352dull

/* The cache set of an IPv4 key, as two words (struct nfv_flow_key4). */
static __rte_always_inline uint32_t
nfv_flow_cache_set(uint64_t lo, uint64_t hi)
{
	/* An odd multiplier below 2^31: an immediate operand. */
	return (uint32_t)(((lo + hi) * NFV_FLOW_CACHE_MUL) >> (64 - NFV_FLOW_CACHE_BITS));
}

/* The first word of an empty slot's key: pad NFV_FLOW_KEY4_NONE, which no
 * frame's key has. */
#define NFV_FLOW_SLOT_EMPTY ((uint64_t)NFV_FLOW_KEY4_NONE << 32)

/* A way of the cache: written by its worker only. */
struct nfv_flow_slot {
	uint64_t lo, hi;       /* the key, as two words; lo NFV_FLOW_SLOT_EMPTY: free */
	uint64_t packets;      /* counted since the last fold */
	uint64_t bytes;
	uint64_t last_tsc;     /* of the last frame counted here */
	uint16_t flags;        /* TCP flags OR-ed since the last fold, twice (both_flags) */
	uint16_t pad;
	uint32_t pos;          /* the flow's entry */
	uint64_t pad2[2];
} __rte_aligned(64);

struct nfv_flow_cache {
	struct nfv_flow_slot set[NFV_FLOW_CACHE_SETS][NFV_FLOW_CACHE_WAYS];
};

struct nfv_flow_worker {
	struct nfv_flow_cache *cache;
	struct nfv_flow_entry *entries[NFV_FLOW_FAMILIES];
	struct rte_hash *hash[NFV_FLOW_FAMILIES];
	uint64_t *live[NFV_FLOW_FAMILIES]; /* a bit per entry: a flow there */
	uint32_t n_live[NFV_FLOW_FAMILIES];
	struct rte_ring *ring;
	uint32_t scan_pos[NFV_FLOW_FAMILIES]; /* in words of live[] */
	uint64_t next_scan_tsc;
	uint32_t iface_epoch; /* nfv_flow_iface_epoch when removed interfaces' flows last ended */
} __rte_cache_aligned;

/* The slot at index i (set * NFV_FLOW_CACHE_WAYS + way). */
static __rte_always_inline struct nfv_flow_slot *
nfv_flow_slot_at(struct nfv_flow_cache *c, uint32_t i)
{
	return &c->set[i / NFV_FLOW_CACHE_WAYS][i % NFV_FLOW_CACHE_WAYS];
}

/*
 * Moves what IPv4 entry e's slot in cache c counted into e; with
 * leave, the flow leaves the cache too (the slot is free). By the worker,
 * or by control once the workers have stopped. The entry's gen is odd
 * meanwhile, so that "flow show" does not count a frame in both or in
 * neither.
 */
static inline void
nfv_flow_slot_fold(struct nfv_flow_cache *c, struct nfv_flow_entry *e, bool leave)
{
	struct nfv_flow_slot *s = nfv_flow_slot_at(c, e->slot);

	if (s->packets == 0 && !leave)
		return;
	__atomic_store_n(&e->gen, e->gen + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	if (s->packets != 0) {
		e->packets += s->packets;
		e->bytes += s->bytes;
		e->last_tsc = s->last_tsc;
		e->both_flags |= s->flags;
		s->packets = 0;
		s->bytes = 0;
		s->flags = 0;
	}
	if (leave) {
		s->lo = NFV_FLOW_SLOT_EMPTY;
		e->slot = NFV_FLOW_SLOT_NONE;
	}
	__atomic_store_n(&e->gen, e->gen + 1, __ATOMIC_RELEASE);
}

/* Interfaces removed: the epoch counts removals, removed_at[] is the epoch
 * of an interface's last one. A worker's scan ends (reports and deletes)
 * the flows of the interfaces removed since its own epoch, so that an
 * interface that gets a removed one's id does not add to its flows. */
extern uint32_t nfv_flow_iface_epoch;
extern uint32_t nfv_flow_iface_removed_at[NFV_IFACE_MAX];

/* The CRC32-C of an IPv4 key, as rte_hash_crc computes it (the table's
 * hash function), with the instruction itself where the CPU has it. */
static __rte_always_inline uint32_t
nfv_flow_key4_sig(const struct nfv_flow_key4 *k)
{
	uint64_t a, b;

	memcpy(&a, k, 8);
	memcpy(&b, (const uint8_t *)k + 8, 8);
#if defined(RTE_ARCH_X86_64) && defined(__SSE4_2__)
	return (uint32_t)__builtin_ia32_crc32di(__builtin_ia32_crc32di(0, a), b);
#else
	return rte_hash_crc_8byte(b, rte_hash_crc_8byte(a, 0));
#endif
}

/* Read by the workers; written by control while no port has the feature
 * or with single stores. */
struct nfv_flow_conf {
	bool on;
	uint32_t capacity;     /* entries per table */
	uint64_t active_tsc;   /* active timeout */
	uint64_t idle_tsc;     /* idle timeout */
	uint64_t scan_tsc;     /* between scan slices */
};
extern struct nfv_flow_conf nfv_flow_conf;
/* Per worker, NULL until flow statistics are first turned on. */
extern struct nfv_flow_worker *nfv_flow_workers[NFV_MAX_WORKERS];

struct nfv_flow_counters {
	uint64_t created;      /* flows */
	uint64_t expired;      /* flows ended (idle) */
	uint64_t table_full;   /* packets of flows with no room in the table */
	uint64_t records;      /* records put on the ring */
	uint64_t ring_full;    /* records that waited for room on the ring */
	uint64_t evicted;      /* flows whose slot in the cache another flow took */
	uint64_t pad[2];
};
extern struct nfv_counter_block nfv_flow_counters_block;

/* Scan slice: entries looked at per table every scan_tsc (a multiple of 64,
 * dividing the capacity). */
#define NFV_FLOW_SCAN_SLICE 256

/* Control. */
int nfv_flow_enable(bool on, char *err);
int nfv_flow_export_set(const char *addr, uint32_t active_s, uint32_t idle_s, char *err);
int nfv_flow_export_del(char *err);
json_t *nfv_flow_show(uint32_t top);

/* IPFIX (control/ipfix.c): the exporter's socket and message builder. */
struct nfv_ipfix;
struct nfv_ipfix *nfv_ipfix_open(const char *addr, char *err);
void nfv_ipfix_close(struct nfv_ipfix *x);
/* Adds a record (times in ms since the epoch); sends when the message is full. */
void nfv_ipfix_add(struct nfv_ipfix *x, const struct nfv_flow_record *r, uint64_t start_ms,
		   uint64_t end_ms);
/* Sends what is pending (and the templates when they are due). */
void nfv_ipfix_flush(struct nfv_ipfix *x);
json_t *nfv_ipfix_stats(const struct nfv_ipfix *x);
const char *nfv_ipfix_collector(const struct nfv_ipfix *x);

#endif
