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
 * OR-ed. The worker itself expires its entries (flow_scan, a source node,
 * a slice of the tables every millisecond): a flow idle for the idle
 * timeout is ended, one active for longer than the active timeout is
 * reported so far; either way a record with the counts since the last one
 * goes on the worker's ring (single producer, single consumer). The control
 * thread drains the rings (IPFIX export, RFC 7011) and reads the tables
 * for "flow show": an entry's generation is odd while the worker creates
 * or deletes it, so a reader that sees it change skips the entry.
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

/*
 * A flow's entry, at its key's position in its table. Addresses and ports
 * in network order, as in the packet. The first cache line is all that a
 * frame of an IPv4 flow found in the cache reads and writes (key compare,
 * counts); the second holds the IPv6 key and what only the scan reads.
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
	uint32_t gen;          /* odd: being created or deleted */
	/* Second cache line. */
	struct nfv_flow_key6 key6; /* IPv6 flows */
	uint64_t first_tsc;
	uint64_t exp_bytes;
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
 * In front of the IPv4 table, a cache of entries: sets of four ways, the
 * set chosen by a multiplicative hash of the key. The IPv4 entries follow
 * the cache in memory, and a way holds an entry's address (a frame
 * reaches the entry with the one load of its way), no key: a frame hits when the entry there has the frame's
 * key (a freed entry's key never matches, so nothing is cleared when a
 * flow ends, and an empty way points at entry 0). A frame that misses
 * every way goes to the table's bulk lookup and takes way 0 of its set,
 * the others moving down one.
 */
#define NFV_FLOW_CACHE_BITS 13
#define NFV_FLOW_CACHE_SETS (1u << NFV_FLOW_CACHE_BITS)
#define NFV_FLOW_CACHE_WAYS 4
#define NFV_FLOW_CACHE_MUL 0x7feb352dull

/* The cache set of an IPv4 key, as two words (struct nfv_flow_key4). */
static __rte_always_inline uint32_t
nfv_flow_cache_set(uint64_t lo, uint64_t hi)
{
	/* An odd multiplier below 2^31: an immediate operand. */
	return (uint32_t)(((lo + hi) * NFV_FLOW_CACHE_MUL) >> (64 - NFV_FLOW_CACHE_BITS));
}

/* The ways: way 0 of every set in an array of its own (a frame's first
 * look is one scaled load), then the others. */
struct nfv_flow_entry;
struct nfv_flow_cache {
	struct nfv_flow_entry *way0[NFV_FLOW_CACHE_SETS];
	struct nfv_flow_entry *more[NFV_FLOW_CACHE_SETS][NFV_FLOW_CACHE_WAYS - 1];
};

static __rte_always_inline struct nfv_flow_entry **
nfv_flow_cache_way(struct nfv_flow_cache *c, uint32_t set, unsigned int way)
{
	return way == 0 ? &c->way0[set] : &c->more[set][way - 1];
}

/* Bytes of the cache, where the IPv4 entries begin. */
#define NFV_FLOW_CACHE_BYTES (sizeof(struct nfv_flow_cache))

struct nfv_flow_worker {
	struct nfv_flow_cache *cache; /* the IPv4 entries follow it */
	struct nfv_flow_entry *entries[NFV_FLOW_FAMILIES];
	struct rte_hash *hash[NFV_FLOW_FAMILIES];
	uint64_t *live[NFV_FLOW_FAMILIES]; /* a bit per entry: a flow there */
	uint32_t n_live[NFV_FLOW_FAMILIES];
	struct rte_ring *ring;
	uint32_t scan_pos[NFV_FLOW_FAMILIES]; /* in words of live[] */
	uint64_t next_scan_tsc;
	uint32_t iface_epoch; /* nfv_flow_iface_epoch when removed interfaces' flows last ended */
} __rte_cache_aligned;

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
	uint64_t pad[3];
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
