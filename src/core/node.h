/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers shared by the graph nodes: moving a burst to its next nodes with
 * as few copies as possible, marking drops, RFC 1624 checksum updates.
 */
#ifndef NFV_NODE_H
#define NFV_NODE_H

#include <string.h>

#include <rte_graph.h>
#include <rte_graph_worker.h>
#include <rte_ip.h> /* rte_raw_cksum */
#include <rte_mbuf.h>

#include "core/arc.h"
#include "core/meta.h"
#include "core/worker.h"
#include "core/drop_reasons.h"

/*
 * Sends objs[i] to edge nexts[i]. When every packet takes the same edge the
 * whole stream moves without a copy (rte_node_next_stream_move); otherwise
 * runs of the same edge are enqueued together.
 */
static __rte_always_inline void
nfv_enqueue_nexts(struct rte_graph *graph, struct rte_node *node, void **objs,
		  const uint16_t *nexts, uint16_t n)
{
	uint16_t i = 0, diff = 0;

	for (uint16_t k = 1; k < n; k++)
		diff |= nexts[k] ^ nexts[0];
	if (likely(diff == 0 && n > 0)) {
		rte_node_next_stream_move(graph, node, nexts[0]);
		return;
	}

	while (i < n) {
		uint16_t start = i, next = nexts[i];

		while (i < n && nexts[i] == next)
			i++;
		if (start == 0 && i == n) {
			rte_node_next_stream_move(graph, node, next);
			return;
		}
		rte_node_enqueue(graph, node, next, &objs[start], i - start);
	}
}

/*
 * A node that decides packet by packet: one() returns each packet's edge
 * (arg: the node's state), then runs of the same edge are enqueued (the
 * whole stream moves when every packet takes one).
 */
static __rte_always_inline uint16_t
nfv_node_each(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n,
	      uint16_t (*one)(struct rte_mbuf *m, void *arg), void *arg)
{
	uint16_t nexts[RTE_GRAPH_BURST_SIZE];

	for (uint16_t i = 0; i < n; i++)
		nexts[i] = one((struct rte_mbuf *)objs[i], arg);
	nfv_enqueue_nexts(graph, node, objs, nexts, n);
	return n;
}

/*
 * The end of an arc feature that keeps every packet (an observer: mirror,
 * capture, flow statistics): each packet goes to the next feature (or the
 * arc's end) of its interface, mbuf->port on input arcs, meta.tx_port on
 * output arcs. One edge for the whole stream (the usual case) moves it.
 */
static __rte_always_inline uint16_t
nfv_arc_feature_pass(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n,
		     const struct nfv_arc_feature *f, const bool by_tx_port)
{
	struct rte_mbuf **pkts = (struct rte_mbuf **)objs;
	uint16_t i = 0;

	while (i < n) {
		uint16_t start = i, next, iface;

		iface = by_tx_port ? nfv_meta(pkts[i])->tx_port : pkts[i]->port;
		next = nfv_arc_next_edge(f, iface < NFV_ARC_IFACES ? iface : 0);
		for (i++; i < n; i++) {
			uint16_t o = by_tx_port ? nfv_meta(pkts[i])->tx_port : pkts[i]->port;

			if (o != iface)
				break;
		}
		if (start == 0 && i == n) {
			rte_node_next_stream_move(graph, node, next);
			return n;
		}
		rte_node_enqueue(graph, node, next, &objs[start], i - start);
	}
	return n;
}

/* What a fast path returns for a packet it leaves untouched for the slow one. */
#define NFV_NEXT_SLOW 0x8000

/*
 * The end of a fast-path pass: nexts[] holds each packet's edge or
 * NFV_NEXT_SLOW, any and all their OR and AND. When they are equal every
 * packet took the same edge and the whole stream moves; otherwise slow()
 * decides for each packet the fast path left alone, and runs are enqueued.
 */
static __rte_always_inline uint16_t
nfv_node_finish(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t *nexts,
		uint16_t n, uint16_t any, uint16_t all, uint16_t (*slow)(struct rte_mbuf *m))
{
	struct rte_mbuf **pkts = (struct rte_mbuf **)objs;

	if (likely(any == all && !(any & NFV_NEXT_SLOW))) {
		rte_node_next_stream_move(graph, node, any);
		return n;
	}
	if (any & NFV_NEXT_SLOW) {
		for (uint16_t i = 0; i < n; i++)
			if (nexts[i] == NFV_NEXT_SLOW)
				nexts[i] = slow(pkts[i]);
	}
	nfv_enqueue_nexts(graph, node, objs, nexts, n);
	return n;
}

/*
 * The two-pass batch loop of a node with a fast path (STYLE rule 6). fast()
 * takes the common case of one packet with few or no branches and returns
 * its edge, or NFV_NEXT_SLOW having changed nothing; slow() then handles
 * that packet in full (every check, one at a time, to name the reason).
 * Pass one keeps the OR and the AND of the edges: when they are equal,
 * every packet took the same edge and the whole stream moves without a
 * second look at the edges. prefetch: bring in the packet data four
 * packets ahead (for the first node that reads it). nfv_node_pass() is the
 * first pass alone, for a node that ends its own way (eth_input).
 */
static __rte_always_inline void
nfv_node_pass(struct rte_mbuf **pkts, uint16_t n, uint16_t *nexts, uint16_t *any_out,
	      uint16_t *all_out, uint16_t (*fast)(struct rte_mbuf *m), const bool prefetch)
{
	uint16_t any = 0, all = UINT16_MAX;
	uint16_t i;

	for (i = 0; i + 4 <= n; i += 4) {
		uint16_t r0, r1, r2, r3;

		if (prefetch && i + 8 <= n) {
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + 4], void *));
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + 5], void *));
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + 6], void *));
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + 7], void *));
		}
		r0 = fast(pkts[i]);
		r1 = fast(pkts[i + 1]);
		r2 = fast(pkts[i + 2]);
		r3 = fast(pkts[i + 3]);
		nexts[i] = r0;
		nexts[i + 1] = r1;
		nexts[i + 2] = r2;
		nexts[i + 3] = r3;
		any |= r0 | r1 | r2 | r3;
		all &= r0 & r1 & r2 & r3;
	}
	for (; i < n; i++) {
		nexts[i] = fast(pkts[i]);
		any |= nexts[i];
		all &= nexts[i];
	}
	*any_out = any;
	*all_out = all;
}

static __rte_always_inline uint16_t
nfv_node_run(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n,
	     uint16_t (*fast)(struct rte_mbuf *m), uint16_t (*slow)(struct rte_mbuf *m),
	     const bool prefetch)
{
	uint16_t nexts[RTE_GRAPH_BURST_SIZE];
	uint16_t any, all;

	nfv_node_pass((struct rte_mbuf **)objs, n, nexts, &any, &all, fast, prefetch);
	return nfv_node_finish(graph, node, objs, nexts, n, any, all, slow);
}

/* A 32-bit finaliser (MurmurHash3's fmix32): CRC is linear in its seed, so
 * scores taken straight from it would rank members by a few bits only. */
static __rte_always_inline uint32_t
nfv_mix32(uint32_t h)
{
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h;
}

static __rte_always_inline uint16_t
nfv_mark_drop(struct rte_mbuf *m, uint16_t reason, uint16_t drop_edge)
{
	nfv_meta(m)->drop_reason = (uint16_t)reason;
	return drop_edge;
}

/* RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m'), 16-bit words in host order. */
static __rte_always_inline rte_be16_t
nfv_cksum_update16(rte_be16_t cksum, uint16_t old_word, uint16_t new_word)
{
	uint32_t sum = (uint16_t)~rte_be_to_cpu_16(cksum);

	sum += (uint16_t)~old_word;
	sum += new_word;
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return rte_cpu_to_be_16((uint16_t)~sum);
}

/*
 * One's-complement sum of len bytes from offset off, across segments, folded
 * to 16 bits (not complemented). DPDK 22.11's rte_raw_cksum_mbuf() loses
 * carries when a segment starts at an odd distance from off; this folds each
 * segment's sum before byte-swapping it.
 */
static inline uint16_t
nfv_cksum_mbuf(const struct rte_mbuf *m, uint32_t off, uint32_t len)
{
	uint32_t sum = 0, done = 0;

	while (m != NULL && off >= m->data_len) {
		off -= m->data_len;
		m = m->next;
	}
	for (; m != NULL && done < len; m = m->next, off = 0) {
		uint32_t n = RTE_MIN((uint32_t)m->data_len - off, len - done);
		uint32_t part = rte_raw_cksum(rte_pktmbuf_mtod_offset(m, const void *, off), n);

		if (done & 1)
			part = ((part & 0xff) << 8) | (part >> 8);
		sum += part;
		done += n;
	}
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/*
 * Removes len bytes from the end of a packet (link-layer padding) across
 * segments: rte_pktmbuf_trim() only trims within the last one. Segments
 * left with nothing are freed. Returns 0, or -1 when len is beyond the
 * packet (nothing changed).
 */
static inline int
nfv_pktmbuf_trim(struct rte_mbuf *m, uint32_t len)
{
	uint32_t keep, off = 0;
	struct rte_mbuf *seg = m, *tail;
	uint16_t n_segs = 1;

	if (len > rte_pktmbuf_pkt_len(m))
		return -1;
	if (len <= UINT16_MAX && rte_pktmbuf_trim(m, (uint16_t)len) == 0)
		return 0;
	keep = rte_pktmbuf_pkt_len(m) - len;
	while (seg->next != NULL && off + seg->data_len < keep) {
		off += seg->data_len;
		seg = seg->next;
		n_segs++;
	}
	seg->data_len = (uint16_t)(keep - off);
	tail = seg->next;
	seg->next = NULL;
	m->nb_segs = n_segs;
	m->pkt_len = keep;
	if (tail != NULL)
		rte_pktmbuf_free(tail);
	return 0;
}

#endif
