/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * flow_in: a feature of the l2_input arc, enabled on every port while flow
 * statistics are on. Counts the IPv4 and IPv6 frames (untagged or with one
 * 802.1Q tag) of a burst in this worker's flow tables: the key is the
 * 5-tuple (ports for TCP, UDP and SCTP when the packet is not a later
 * fragment, else 0) and the receiving port; IPv4 keys first in the
 * worker's flow cache (flow.h), then one bulk lookup per table per 64
 * frames, a new entry for a key not found (the flow's first packet),
 * then packets, bytes (the IP packet's length), last seen and the TCP
 * flags OR-ed. Only this worker writes its tables; nothing is shared per
 * packet. Frames that are not IP, or too short for their headers, are not
 * counted. The frames go on untouched.
 *
 * Edges: the l2_input arc's next features and eth_input.
 * Reads: mbuf->port, the frame's headers.
 * Counters: flows created, packets of flows with no room (table full).
 * Drops nothing.
 */
#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_graph.h>
#include <rte_graph_worker.h>
#include <rte_hash.h>
#include <rte_ip.h>

#include "core/arc.h"
#include "core/node.h"
#include "modules/flow/flow.h"

#define FLOW_CHUNK 64

/* The protocols whose first 4 bytes are the source and destination ports. */
static const uint8_t has_ports[256] = {
	[IPPROTO_TCP] = 1, [IPPROTO_UDP] = 1, [IPPROTO_SCTP] = 1,
};

struct nfv_arc_feature nfv_flow_in_feature = {
	.arc_name = "l2_input",
	.node = "nfv_flow_in",
	.runs_after = "nfv_capture_in",
};
NFV_ARC_FEATURE_REGISTER(nfv_flow_in_feature);

/* The family of an IP frame (its key and length filled in), or -1. */
static __rte_always_inline int
flow_parse(struct rte_mbuf *m, struct nfv_flow_key4 *k4, struct nfv_flow_key6 *k6,
	   uint32_t *len, uint8_t *flags)
{
	const uint8_t *b = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t dl = rte_pktmbuf_data_len(m), off = RTE_ETHER_HDR_LEN, l4;
	uint16_t type, sport = 0, dport = 0;
	uint8_t proto, f = 0;
	uint8_t ports;

	if (unlikely(dl < RTE_ETHER_HDR_LEN + 20))
		return -1;
	type = (uint16_t)(b[12] << 8 | b[13]);
	if (unlikely(type == RTE_ETHER_TYPE_VLAN)) {
		type = (uint16_t)(b[16] << 8 | b[17]);
		off += 4;
	}
	if (likely(type == RTE_ETHER_TYPE_IPV4)) {
		const uint8_t *ip = b + off;
		uint32_t ihl;

		if (unlikely(dl < off + 20 || (ip[0] >> 4) != 4))
			return -1;
		ihl = (uint32_t)(ip[0] & 0xf) * 4;
		proto = ip[9];
		l4 = off + ihl;
		/* Ports only in a first fragment (offset 0). */
		ports = ((ip[6] & 0x1f) | ip[7]) == 0 && ihl >= 20;
		*len = (uint32_t)(ip[2] << 8 | ip[3]);
		memcpy(&k4->src, ip + 12, 4);
		memcpy(&k4->dst, ip + 16, 4);
	} else if (type == RTE_ETHER_TYPE_IPV6) {
		const uint8_t *ip = b + off;

		if (unlikely(dl < off + 40 || (ip[0] >> 4) != 6))
			return -1;
		proto = ip[6];
		l4 = off + 40;
		ports = true;
		*len = 40u + (uint32_t)(ip[4] << 8 | ip[5]);
		memcpy(k6->src, ip + 8, 16);
		memcpy(k6->dst, ip + 24, 16);
	} else {
		return -1;
	}
	if ((ports & has_ports[proto]) && dl >= l4 + 4) {
		memcpy(&sport, b + l4, 2);
		memcpy(&dport, b + l4 + 2, 2);
		if (proto == IPPROTO_TCP && dl >= l4 + 14)
			f = b[l4 + 13];
	}
	*flags = f;
	if (type == RTE_ETHER_TYPE_IPV4) {
		k4->sport = sport;
		k4->dport = dport;
		k4->proto = proto;
		k4->pad = 0;
		k4->iface = m->port;
		return NFV_FLOW_V4;
	}
	k6->sport = sport;
	k6->dport = dport;
	k6->proto = proto;
	k6->pad = 0;
	k6->iface = m->port;
	return NFV_FLOW_V6;
}

/* The entry of a key the lookup did not find: added (a flow's first
 * packet), or found when an earlier frame of the chunk added it. */
static int32_t
flow_create(struct nfv_flow_worker *fw, int fam, const void *key, uint64_t now,
	    struct nfv_flow_counters *c)
{
	int32_t pos = rte_hash_add_key(fw->hash[fam], key);
	struct nfv_flow_entry *e;

	if (unlikely(pos < 0))
		return -1;
	e = &fw->entries[fam][pos];
	if (e->used)
		return pos;
	__atomic_store_n(&e->gen, e->gen + 1, __ATOMIC_RELEASE); /* odd: being written */
	if (fam == NFV_FLOW_V4) {
		const struct nfv_flow_key4 *k = key;

		memset(e->src, 0, sizeof(e->src));
		memset(e->dst, 0, sizeof(e->dst));
		memcpy(e->src, &k->src, 4);
		memcpy(e->dst, &k->dst, 4);
		e->sport = k->sport;
		e->dport = k->dport;
		e->proto = k->proto;
		e->iface = k->iface;
	} else {
		const struct nfv_flow_key6 *k = key;

		memcpy(e->src, k->src, 16);
		memcpy(e->dst, k->dst, 16);
		e->sport = k->sport;
		e->dport = k->dport;
		e->proto = k->proto;
		e->iface = k->iface;
	}
	e->packets = e->bytes = e->exp_packets = e->exp_bytes = 0;
	e->tcp_flags = e->exp_flags = 0;
	e->first_tsc = e->last_tsc = e->exp_tsc = now;
	e->used = 1;
	__atomic_store_n(&e->gen, e->gen + 1, __ATOMIC_RELEASE);
	c->created++;
	return pos;
}

/* Counts one frame in entry p. */
static __rte_always_inline void
flow_update(struct nfv_flow_entry *e, uint32_t len, uint8_t flags, uint64_t now)
{
	/* The first packet since the last record starts the next one. */
	if (e->packets == e->exp_packets)
		e->exp_tsc = now;
	e->packets++;
	e->bytes += len;
	e->last_tsc = now;
	e->tcp_flags |= flags;
	e->exp_flags |= flags;
}

static __rte_always_inline bool
key4_equal(const struct nfv_flow_key4 *a, const struct nfv_flow_key4 *b)
{
	uint64_t a0, a1, b0, b1;

	memcpy(&a0, a, 8);
	memcpy(&a1, (const uint8_t *)a + 8, 8);
	memcpy(&b0, b, 8);
	memcpy(&b1, (const uint8_t *)b + 8, 8);
	return ((a0 ^ b0) | (a1 ^ b1)) == 0;
}

/* The IPv4 frames the cache missed: one bulk lookup with their hashes,
 * new flows added; each takes a way of its set (an empty one, else the
 * one the hash picks). */
static void
flow_count4_missed(struct nfv_flow_worker *fw, const struct nfv_flow_key4 *keys,
		   const uint32_t *sig, unsigned int m, const uint32_t *len,
		   const uint8_t *flags, uint64_t now, struct nfv_flow_counters *c)
{
	struct nfv_flow_entry *entries = fw->entries[NFV_FLOW_V4];
	const void *kp[FLOW_CHUNK];
	int32_t pos[FLOW_CHUNK];

	for (unsigned int k = 0; k < m; k++)
		kp[k] = &keys[k];
	rte_hash_lookup_with_hash_bulk(fw->hash[NFV_FLOW_V4], kp, (hash_sig_t *)(uintptr_t)sig,
				       m, pos);
	for (unsigned int k = 0; k < m; k++) {
		struct nfv_flow_cache_slot *set = nfv_flow_cache_set(fw->cache, sig[k]);
		unsigned int way = set[0].pos < 0 ? 0 : set[1].pos < 0 ? 1 : (sig[k] >> 16) & 1;
		int32_t p = pos[k];

		if (unlikely(p < 0)) {
			p = flow_create(fw, NFV_FLOW_V4, &keys[k], now, c);
			if (p < 0) {
				c->table_full++;
				continue;
			}
		}
		set[way].key = keys[k];
		set[way].pos = p;
		flow_update(&entries[p], len[k], flags[k], now);
	}
}

static __rte_always_inline void
flow_count6(struct nfv_flow_worker *fw, const void *const *keys, unsigned int n,
	    const uint32_t *len, const uint8_t *flags, uint64_t now, struct nfv_flow_counters *c)
{
	int32_t pos[FLOW_CHUNK];

	if (n == 0)
		return;
	rte_hash_lookup_bulk(fw->hash[NFV_FLOW_V6], (const void **)(uintptr_t)keys, n, pos);
	for (unsigned int i = 0; i < n; i++) {
		int32_t p = pos[i];

		if (unlikely(p < 0)) {
			p = flow_create(fw, NFV_FLOW_V6, keys[i], now, c);
			if (p < 0) {
				c->table_full++;
				continue;
			}
		}
		flow_update(&fw->entries[NFV_FLOW_V6][p], len[i], flags[i], now);
	}
}

/*
 * One pass over the frames: parse; an IPv4 key found in the cache is
 * counted at once, the others are kept for the bulk lookups.
 */
static void
flow_account(struct nfv_flow_worker *fw, struct rte_mbuf **pkts, unsigned int n, uint64_t now,
	     struct nfv_flow_counters *c)
{
	struct nfv_flow_entry *entries = fw->entries[NFV_FLOW_V4];
	struct nfv_flow_key4 k4[FLOW_CHUNK];
	struct nfv_flow_key6 k6[FLOW_CHUNK];
	const void *kp6[FLOW_CHUNK];
	uint32_t len4[FLOW_CHUNK], len6[FLOW_CHUNK], sig4[FLOW_CHUNK];
	uint8_t fl4[FLOW_CHUNK], fl6[FLOW_CHUNK];
	unsigned int n4 = 0, n6 = 0;

	for (unsigned int i = 0; i < n; i++) {
		uint32_t len;
		uint8_t f;
		int fam = flow_parse(pkts[i], &k4[n4], &k6[n6], &len, &f);

		if (likely(fam == NFV_FLOW_V4)) {
			uint32_t sig = nfv_flow_key4_sig(&k4[n4]);
			const struct nfv_flow_cache_slot *set = nfv_flow_cache_set(fw->cache, sig);

			if (likely(set[0].pos >= 0 && key4_equal(&set[0].key, &k4[n4]))) {
				flow_update(&entries[set[0].pos], len, f, now);
			} else if (set[1].pos >= 0 && key4_equal(&set[1].key, &k4[n4])) {
				flow_update(&entries[set[1].pos], len, f, now);
			} else {
				sig4[n4] = sig;
				len4[n4] = len;
				fl4[n4++] = f;
			}
		} else if (fam == NFV_FLOW_V6) {
			kp6[n6] = &k6[n6];
			len6[n6] = len;
			fl6[n6++] = f;
		}
	}
	if (n4 != 0)
		flow_count4_missed(fw, k4, sig4, n4, len4, fl4, now, c);
	flow_count6(fw, kp6, n6, len6, fl6, now, c);
}

static uint16_t
flow_in_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	struct nfv_worker *w = nfv_node_worker(node);
	struct nfv_flow_worker *fw = __atomic_load_n(&nfv_flow_workers[w->index],
						     __ATOMIC_ACQUIRE);

	if (likely(fw != NULL)) {
		struct nfv_flow_counters *c = nfv_worker_counters(w, &nfv_flow_counters_block);
		uint64_t now = w->walk_rx_tsc;

		for (uint16_t i = 0; i < n; i += FLOW_CHUNK)
			flow_account(fw, (struct rte_mbuf **)objs + i,
				     RTE_MIN((unsigned int)FLOW_CHUNK, (unsigned int)(n - i)), now, c);
	}
	return nfv_arc_feature_pass(graph, node, objs, n, &nfv_flow_in_feature, false);
}

static struct rte_node_register flow_in_node = {
	.name = "nfv_flow_in",
	.process = flow_in_process,
	.init = nfv_node_ctx_init,
};

RTE_NODE_REGISTER(flow_in_node);
