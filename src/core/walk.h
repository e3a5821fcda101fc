/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The worker's graph walk: rte_graph_walk() with cheaper per-node stats.
 * Calls and packets are counted on every walk; cycles are measured (one
 * TSC read per node) on one walk in NFV_WALK_SAMPLE and scaled, so
 * "cycles per packet" stays right on average while the fast path pays a
 * sixteenth of the TSC reads (a TSC read costs about 30 cycles, a walk of
 * 32 packets about 2,500). Without count ("stats off") nothing is counted.
 *
 * The source nodes run first. The poller (port_rx) runs every walk; the
 * other sources, services that are idle almost always (control's
 * injections, the handoff rings, flow scans), run one walk in
 * NFV_WALK_SERVICES, and every walk while one of them returned packets
 * in the last walk that ran them: an idle service costs a walk that
 * skips it nothing (the worker puts the poller last among the sources, so
 * such a walk starts at it), and what a service finds waits at most
 * NFV_WALK_SERVICES - 1 walks (a few microseconds under load). A measured
 * walk runs the services, whose cycles are scaled by how often they ran.
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
#define NFV_WALK_SERVICES 4

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

/* Runs node; counts it, and (measure) adds its cycles since *last, times
 * scale. Returns the packets it processed. */
static __rte_always_inline uint16_t
nfv_walk_visit(struct rte_graph *graph, struct rte_node *node, const bool measure,
	       const bool count, uint64_t *last, uint64_t scale)
{
	void **objs = node->objs;
	uint16_t rc;

	rte_prefetch0(objs);
	rc = nfv_walk_node(graph, node, objs);
	if (measure) {
		/* One TSC read per node: its end is the next one's start (the
		 * few instructions between them go to the next node). */
		uint64_t now = rte_rdtsc();

		node->total_cycles += (now - *last) * scale;
		*last = now;
	}
	if (count) {
		node->total_calls++;
		node->total_objs += rc;
	}
	node->idx = 0;
	return rc;
}

/*
 * One walk: with services, every source node, else only the poller (the
 * last source) on. Returns whether a service returned packets. busy: the
 * services ran every walk since the last that ran them (the scale of
 * their measured cycles).
 */
static __rte_always_inline bool
nfv_graph_walk(struct rte_graph *graph, const bool services, bool busy, const bool measure,
	       const bool count)
{
	const rte_graph_off_t *cir_start = graph->cir_start;
	const rte_node_t mask = graph->cir_mask;
	uint32_t head = graph->head;
	uint64_t last = measure ? rte_rdtsc() : 0;
	uint16_t found = 0;

	if (services) {
		const uint64_t scale = busy ? NFV_WALK_SAMPLE : NFV_WALK_SAMPLE / NFV_WALK_SERVICES;

		for (; (int32_t)head < -1; head++)
			found |= nfv_walk_visit(graph, (struct rte_node *)RTE_PTR_ADD(graph,
						cir_start[(int32_t)head]), measure, count, &last,
						scale);
	} else {
		head = (uint32_t)-1;
	}
	while (likely(head != graph->tail)) {
		struct rte_node *node = (struct rte_node *)RTE_PTR_ADD(graph,
								       cir_start[(int32_t)head++]);

		nfv_walk_visit(graph, node, measure, count, &last, NFV_WALK_SAMPLE);
		head = likely((int32_t)head > 0) ? head & mask : head;
	}
	graph->tail = 0;
	return found != 0;
}

#endif
