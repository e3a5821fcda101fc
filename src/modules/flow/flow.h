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

#include "core/counters.h"
#include "core/worker.h"

enum nfv_flow_family {
	NFV_FLOW_V4,
	NFV_FLOW_V6,
	NFV_FLOW_FAMILIES,
};

struct nfv_flow_key4 {
	uint32_t src;
	uint32_t dst;
	uint16_t sport;
	uint16_t dport;
	uint8_t proto;
	uint8_t pad;
	uint16_t iface;
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

/* Addresses and ports in network order, as in the packet. */
struct nfv_flow_entry {
	uint32_t gen;          /* odd: being created or deleted */
	uint8_t used;
	uint8_t proto;
	uint8_t tcp_flags;     /* OR of every packet's */
	uint8_t exp_flags;     /* OR since the last record */
	uint16_t iface;
	uint16_t sport;
	uint16_t dport;
	uint8_t src[16];
	uint8_t dst[16];
	uint64_t packets;
	uint64_t bytes;
	uint64_t first_tsc;
	uint64_t last_tsc;
	uint64_t exp_packets;  /* counted in records already */
	uint64_t exp_bytes;
	uint64_t exp_tsc;      /* start of what the next record counts */
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

/*
 * In front of the IPv4 table, a two-way set-associative cache of (key,
 * position), the set chosen by the key's CRC hash: a frame of a flow seen
 * lately costs the hash of its key, a compare or two and the entry
 * update; the others go to the table's bulk lookup (with the hash already
 * computed) and take a way of their set. A flow's deletion clears its way.
 */
#define NFV_FLOW_CACHE_SIZE 16384 /* slots, in sets of two */

struct nfv_flow_cache_slot {
	struct nfv_flow_key4 key;
	int32_t pos;               /* -1: empty */
	uint32_t pad[3];
};

struct nfv_flow_worker {
	struct nfv_flow_cache_slot *cache;
	struct rte_hash *hash[NFV_FLOW_FAMILIES];
	struct nfv_flow_entry *entries[NFV_FLOW_FAMILIES];
	struct rte_ring *ring;
	uint32_t scan_pos[NFV_FLOW_FAMILIES];
	uint64_t next_scan_tsc;
} __rte_cache_aligned;

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

static __rte_always_inline struct nfv_flow_cache_slot *
nfv_flow_cache_set(struct nfv_flow_cache_slot *cache, uint32_t sig)
{
	return &cache[sig & (NFV_FLOW_CACHE_SIZE - 2)];
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

/* Scan slice: entries looked at per table every scan_tsc. */
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
