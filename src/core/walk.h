/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The worker's graph walk: rte_graph_walk() with cheaper per-node stats.
 * Calls and packets are counted on every walk; cycles are measured (one
 * TSC read per node) on one walk in NFV_WALK_SAMPLE and scaled, so
 * "cycles per packet" stays right on average while the fast path pays a
 * sixteenth of the TSC reads (a TSC read costs about 30 cycles, a walk of
 * 32 packets about 2,500). Without count ("stats off") nothing is counted.
 *
 * A node's stream can hold more than RTE_GRAPH_BURST_SIZE packets: several
 * nodes (sources: port_rx, handoff, inject; copies: floods, mirrors) may
 * enqueue to it before it runs, and the graph grows the stream. Nodes keep
 * per-packet state in arrays of RTE_GRAPH_BURST_SIZE, so such a stream is
 * given to its node in slices of at most that many (nfv_walk_slices);
 * a walk pays one compare per node for it.
 */
#ifndef NFV_WALK_H
#define NFV_WALK_H

#include <rte_cycles.h>
#include <rte_graph.h>
#include <rte_graph_worker.h>

#define NFV_WALK_SAMPLE 16

/* Runs node over its stream of more than RTE_GRAPH_BURST_SIZE packets, a
 * slice at a time (the rest kept aside meanwhile: the node may hand its
 * stream's buffer to the next node); returns the packets processed. */
uint32_t nfv_walk_slices(struct rte_graph *graph, struct rte_node *node);

static __rte_always_inline uint16_t
nfv_walk_node(struct rte_graph *graph, struct rte_node *node, void **objs)
{
	if (unlikely(node->idx > RTE_GRAPH_BURST_SIZE))
		return (uint16_t)nfv_walk_slices(graph, node);
	return node->process(graph, node, objs, node->idx);
}

static __rte_always_inline void
nfv_graph_walk(struct rte_graph *graph, const bool measure, const bool count)
{
	const rte_graph_off_t *cir_start = graph->cir_start;
	const rte_node_t mask = graph->cir_mask;
	uint32_t head = graph->head;
	struct rte_node *node;
	uint64_t last = measure ? rte_rdtsc() : 0, now;
	uint16_t rc;
	void **objs;

	while (likely(head != graph->tail)) {
		node = (struct rte_node *)RTE_PTR_ADD(graph, cir_start[(int32_t)head++]);
		objs = node->objs;
		rte_prefetch0(objs);
		if (measure) {
			/* One TSC read per node: its end is the next one's start
			 * (the few instructions between them go to the next node). */
			rc = nfv_walk_node(graph, node, objs);
			now = rte_rdtsc();
			node->total_cycles += (now - last) * NFV_WALK_SAMPLE;
			last = now;
		} else {
			rc = nfv_walk_node(graph, node, objs);
		}
		if (count) {
			node->total_calls++;
			node->total_objs += rc;
		}
		node->idx = 0;
		head = likely((int32_t)head > 0) ? head & mask : head;
	}
	graph->tail = 0;
}

#endif
