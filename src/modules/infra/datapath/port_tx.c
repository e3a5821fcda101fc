/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * port_tx: sends the packets it is given with one rte_eth_tx_burst per
 * output port, on the TX queue this worker owns on that port (a shared
 * queue is taken under its lock). Packets for several ports interleaved in
 * one burst leave in one burst per port, each port's in the order they came
 * (DESIGN 5.1; l3fwd keeps a TX buffer per port for the same reason):
 * when each port's packets are in one run (the whole stream to one port,
 * or the fused nodes' output, which they group by port and whose runs they
 * record in worker.tx_runs) the runs are sent as they are, otherwise the
 * stream is grouped by port first (one pass per port but the last, in slices of
 * RTE_GRAPH_BURST_SIZE, with a group array on the stack). A call normally
 * holds every packet of a graph walk (ICMP errors built after port_tx ran
 * come in a second call of the same walk); nothing is held from one call to
 * the next, so the RX-to-TX latency of a packet stays within its walk.
 * Packets the queue refuses, and packets for a port that is down, are freed
 * here and counted.
 *
 * The L2 output arc (core/arc.h) starts and ends here: the packets for a
 * port with features on it (mirroring, capture: packets as sent) are marked
 * NFV_META_L2_OUTPUT_DONE and go to its first feature; the last sends them
 * to l2_output_end, which brings them back here in the same walk, where
 * they leave in one burst per port as the others do. With no feature on
 * any port the arc costs one load per call.
 *
 * Edges: the l2_output arc's features and its end, l2_output_end.
 * Reads: meta.tx_port, meta.flags; worker.walk_rx_tsc (RX-to-TX latency
 * histogram; 0: not stamped, "stats off").
 * Drops: port_tx/port_down, port_tx/queue_full.
 * Counters: TX burst sizes, TX groups (one per output port per call: the
 * fewest bursts the traffic allows, for show diag), RX-to-TX latency (per
 * worker).
 * Test hook: debug.tx_split cuts each port's packets into bursts of at most
 * that many (burst mismatch tests).
 */
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_graph.h>
#include <rte_graph_worker.h>

#include "core/arc.h"
#include "core/node.h"
#include "modules/infra/port.h"

/* Features on the frames a port sends, keyed by the output port. */
struct nfv_arc nfv_l2_output_arc = {
	.name = "l2_output",
	.start_node = "nfv_port_tx",
	.end_node = "nfv_l2_output_end",
};
NFV_ARC_REGISTER(nfv_l2_output_arc);

/* Drop reasons counted by this node (show drops: node/name). */
NFV_DROP_REASON(drop_tx_port_down, "port_tx", "port_down",
	"output port is down or being removed");
NFV_DROP_REASON(drop_tx_queue_full, "port_tx", "queue_full",
	"output TX queue full");

/* The packets grouped at once; a larger stream is grouped slice by slice. */
#define PORT_TX_SLICE RTE_GRAPH_BURST_SIZE

/* One rte_eth_tx_burst on the worker's queue q of port p; frees what the
 * queue refuses. */
static __rte_always_inline uint16_t
port_tx_burst(struct nfv_worker *w, struct nfv_port *p, uint16_t q, struct rte_mbuf **pkts,
	      uint16_t n)
{
	uint16_t sent;

	if (likely(!w->stats_off)) {
		w->stats.tx_burst_hist[nfv_burst_bucket(n)]++;
		w->stats.tx_bursts++;
		w->stats.tx_burst_packets += n;
	}
	sent = nfv_port_tx_queue(p, q, pkts, n);
	if (unlikely(sent < n)) {
		w->stats.drops[drop_tx_queue_full.id] += (uint64_t)(n - sent);
		rte_pktmbuf_free_bulk(pkts + sent, n - sent);
	}
	return sent;
}

/* Every packet of pkts[] goes to port_id: one burst, or chunks of
 * debug.tx_split. Returns the packets sent. */
/*
 * The packets of pkts[] (all for port_id, which has l2_output features) that
 * have not been through them yet go to the first, marked; those back from
 * the features stay, packed at the front. Returns how many stay.
 */
static uint16_t
port_tx_divert(struct rte_graph *graph, struct rte_node *node, uint16_t port_id,
	       struct rte_mbuf **pkts, uint16_t n)
{
	struct rte_mbuf *out[PORT_TX_SLICE];
	uint16_t keep = 0, d = 0;

	for (uint16_t i = 0; i < n; i++) {
		struct nfv_mbuf_meta *meta = nfv_meta(pkts[i]);

		if (meta->flags & NFV_META_L2_OUTPUT_DONE) {
			pkts[keep++] = pkts[i];
		} else {
			meta->flags |= NFV_META_L2_OUTPUT_DONE;
			out[d++] = pkts[i];
		}
	}
	if (d != 0)
		rte_node_enqueue(graph, node, nfv_arc_start_edge(&nfv_l2_output_arc, port_id),
				 (void **)out, d);
	return keep;
}

static uint16_t
port_tx_port(struct rte_graph *graph, struct rte_node *node, struct nfv_worker *w,
	     uint16_t port_id, struct rte_mbuf **pkts, uint16_t n)
{
	struct nfv_port *p = &nfv_ports[port_id < RTE_MAX_ETHPORTS ? port_id : 0];
	uint16_t q, split, sent = 0;

	/* Not a port: an interface removed while its packets were in flight
	 * past the feature that maps it to its port (vlan_output). */
	if (unlikely(port_id >= RTE_MAX_ETHPORTS ||
		     !__atomic_load_n(&p->admin_up, __ATOMIC_RELAXED))) {
		w->stats.drops[drop_tx_port_down.id] += n;
		rte_pktmbuf_free_bulk(pkts, n);
		return 0;
	}
	if (unlikely(__atomic_load_n(&nfv_l2_output_arc.n_ifaces_on, __ATOMIC_RELAXED) != 0) &&
	    nfv_arc_start_edge(&nfv_l2_output_arc, port_id) != nfv_l2_output_arc.end_edge) {
		n = port_tx_divert(graph, node, port_id, pkts, n);
		if (n == 0)
			return 0;
	}
	q = p->txq_of_worker[w->index];
	if (likely(!w->stats_off))
		w->stats.tx_groups++;
	split = w->debug.tx_split;
	if (likely(split == 0 || split >= n))
		return port_tx_burst(w, p, q, pkts, n);
	for (uint16_t i = 0; i < n; i += split)
		sent += port_tx_burst(w, p, q, pkts + i, RTE_MIN(split, (uint16_t)(n - i)));
	return sent;
}

/*
 * pkts[] for more than one port, the first `same` of which go to the same
 * port. Each pass takes the packets of one port (that of the first packet
 * left) into a group of their own and packs the others, in order, at the
 * front of pkts[]; when those left go to a single port (the OR and the AND
 * of their ports are equal) they are sent as they are. Traffic to two ports
 * takes one pass; the loop has no branch that depends on the packet.
 */
static uint64_t
port_tx_grouped(struct rte_graph *graph, struct rte_node *node, struct nfv_worker *w,
		struct rte_mbuf **pkts, uint16_t n, uint16_t same)
{
	struct rte_mbuf *group[PORT_TX_SLICE];
	uint64_t sent = 0;

	for (;;) {
		uint16_t port_id = nfv_meta(pkts[0])->tx_port;
		uint16_t any = 0, all = UINT16_MAX, k = same, left = 0;

		memcpy(group, pkts, same * sizeof(pkts[0]));
		for (uint16_t i = same; i < n; i++) {
			struct rte_mbuf *m = pkts[i];
			uint16_t p = nfv_meta(m)->tx_port;
			uint16_t other = p != port_id, mask = (uint16_t)-other;

			group[k] = m;
			pkts[left] = m; /* left <= i - same: never ahead of the read */
			k += 1 - other;
			left += other;
			any |= p & mask;
			all &= p | (uint16_t)~mask;
		}
		sent += port_tx_port(graph, node, w, port_id, group, k);
		if (left == 0)
			return sent;
		if (any == all)
			return sent + port_tx_port(graph, node, w, any, pkts, left);
		n = left;
		same = 1;
	}
}

/*
 * The runs of a slice (packets in a row for one port), when each output
 * port has one run (the stream of a fused node, which groups by port, or
 * of a burst to one port): their count, their ports and ends in port[] and
 * end[]. 0 when a port comes back after another (interleaved packets, to
 * be grouped) or there are more than NFV_TX_RUNS runs. A port id is
 * remembered by its low 6 bits: two ports that share them are taken for
 * the same one (grouped: right, if slower).
 */
#define NFV_TX_RUNS 8

static __rte_always_inline unsigned int
port_tx_runs(struct rte_mbuf **pkts, uint16_t n, uint16_t *port, uint16_t *end)
{
	uint64_t seen = 0;
	unsigned int r = 0;
	uint16_t i = 0;

	while (i < n) {
		uint16_t p = nfv_meta(pkts[i])->tx_port;
		uint64_t bit = UINT64_C(1) << (p & 63);

		if (unlikely((seen & bit) != 0 || r == NFV_TX_RUNS))
			return 0;
		seen |= bit;
		for (i++; i < n && nfv_meta(pkts[i])->tx_port == p; i++)
			;
		port[r] = p;
		end[r++] = i;
	}
	return r;
}

/*
 * The runs the nodes before recorded (worker.tx_runs), when they cover the
 * whole stream, each for one port, no port twice: true, and sent. Cleared
 * in any case.
 */
static __rte_always_inline bool
port_tx_recorded(struct rte_graph *graph, struct rte_node *node, struct nfv_worker *w,
		 struct rte_mbuf **pkts, uint16_t n, uint64_t *sent)
{
	struct nfv_tx_runs *r = &w->tx_runs;
	unsigned int k, runs = r->n;
	uint64_t seen = 0;
	uint32_t at = 0;

	r->n = 0;
	if (likely(runs == 0) || runs > NFV_TX_RUNS_MAX)
		return false;
	for (k = 0; k < runs; k++) {
		uint64_t bit = UINT64_C(1) << (r->port[k] & 63);

		if (r->start[k] != at || r->port[k] == NFV_TX_RUN_MIXED || (seen & bit) != 0)
			return false;
		seen |= bit;
		at += r->len[k];
	}
	if (at != n)
		return false;
	for (k = 0; k < runs; k++)
		*sent += port_tx_port(graph, node, w, r->port[k], pkts + r->start[k], r->len[k]);
	return true;
}

static uint16_t
port_tx_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	struct nfv_worker *w = nfv_node_worker(node);
	struct rte_mbuf **pkts = (struct rte_mbuf **)objs;
	uint64_t sent = 0;

	if (likely(port_tx_recorded(graph, node, w, pkts, n, &sent)))
		goto sent;
	for (uint32_t start = 0; start < n; start += PORT_TX_SLICE) {
		struct rte_mbuf **slice = pkts + start;
		uint16_t len = RTE_MIN((uint16_t)(n - start), (uint16_t)PORT_TX_SLICE);
		uint16_t port[NFV_TX_RUNS], end[NFV_TX_RUNS], i = 1;
		unsigned int runs = port_tx_runs(slice, len, port, end);

		/* The common cases: one run per port (often one port). */
		if (likely(runs != 0)) {
			for (unsigned int r = 0, from = 0; r < runs; from = end[r++])
				sent += port_tx_port(graph, node, w, port[r], slice + from,
						     (uint16_t)(end[r] - from));
			continue;
		}
		while (i < len && nfv_meta(slice[i])->tx_port == nfv_meta(slice[0])->tx_port)
			i++;
		sent += port_tx_grouped(graph, node, w, slice, len, i);
	}
sent:
	w->stats.tx_packets += sent;
	/* Every packet sent was received at walk_rx_tsc: one bucket for all
	 * (those refused or for a port that is down are not forwarded). */
	if (likely(!w->stats_off && w->walk_rx_tsc != 0)) {
		uint64_t now = rte_rdtsc(), d = now - w->walk_rx_tsc;

		w->stats.lat_hist[nfv_lat_bucket(d)] += sent;
		w->stats.lat_sum += d * sent;
		/* The next walk's RX time (port_rx). */
		w->last_tx_tsc = now;
		w->tx_tsc_fresh = true;
	}
	return n;
}

static struct rte_node_register port_tx_node = {
	.name = "nfv_port_tx",
	.process = port_tx_process,
	.init = nfv_node_ctx_init,
	.nb_edges = 0,
};

RTE_NODE_REGISTER(port_tx_node);
