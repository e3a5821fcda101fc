/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * port_rx: source node. Polls the RX queues the control thread gave this
 * worker (rte_eth_rx_burst) straight into the stream of eth_input and stamps
 * the walk's RX time (worker.walk_rx_tsc), from which port_tx measures the
 * latency of every packet it sends.
 *
 * How much one walk polls (--walk-max, default: the burst): a queue is
 * polled only while the stream has room for a full burst, so a walk takes at
 * most walk_max packets. Queues are polled in round robin; one that returns
 * a full burst is polled again, after the others, while there is room. The
 * next walk starts at the queue after the last one polled, so every queue a
 * worker owns is served under load: with walk_max equal to the burst and
 * every queue busy, each walk takes one burst from the next queue in turn.
 * That case (the default) has a loop of its own: the first queue with
 * packets, one burst, nothing diverted; when it fills a fused node's empty
 * stream, the node is told the frames are all of one port
 * (worker.rx_one_port).
 *
 * The L2 input arc (core/arc.h) starts here: a burst from a port with
 * features on it goes to its first feature instead of eth_input (one table
 * load per burst; a port without features costs nothing more). The walk's
 * stream holds the bursts bound where its first one is (a port's first
 * feature, or the fast path's choice below) and is handed on whole; a
 * burst bound elsewhere is copied out to its own node (or, when that node
 * is the one whose buffer the stream is, the stream's packets go out to
 * theirs and the burst takes their place). Polling goes into
 * the stream of the last walk's destination, so a walk like the last one
 * (the usual case under load) copies nothing, with or without features.
 *
 * The walk's packets go to ip4_fast or ip6_fast when the first and last
 * frames are IPv4 or IPv6 (port_rx_edge): the fused nodes do eth_input's fast step
 * with their own and give eth_input any burst that is not all theirs.
 *
 * Edges: eth_input, ip4_fast, ip6_fast, then the l2_input arc's features.
 * Counters: polls, empty polls, packets received, RX burst sizes (per worker).
 * Test hook: debug.delay_cycles holds each non-empty burst back (latency tests).
 */
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_graph.h>
#include <rte_graph_worker.h>

#include <rte_ether.h>

#include "core/arc.h"
#include "core/node.h"
#include "modules/infra/eth.h"
#include "modules/infra/port.h"

enum port_rx_next {
	PORT_RX_NEXT_ETH_INPUT,
	PORT_RX_NEXT_IP4_FAST,
	PORT_RX_NEXT_IP6_FAST,
	PORT_RX_NEXT_MAX,
};

/* Features on a port's frames before the ethertype dispatch (bridging,
 * L2 ACLs, mirroring...), keyed by the receiving port. */
struct nfv_arc nfv_l2_input_arc = {
	.name = "l2_input",
	.start_node = "nfv_port_rx",
	.end_node = "nfv_eth_input",
};
NFV_ARC_REGISTER(nfv_l2_input_arc);

struct port_rx_ctx {
	struct nfv_worker *worker;
	uint16_t next_queue; /* where the next walk starts: after the last queue polled */
	uint16_t edge;       /* where the last walk's packets went */
};

/*
 * Where a walk's packets go: IPv4 to ip4_fast and IPv6 to ip6_fast when the
 * first and the last frame are of that family (the fused nodes do
 * eth_input's fast step themselves and give eth_input a burst that is not
 * all theirs; the last frame keeps alternating families off that detour);
 * anything else, and everything under "debug fastpath off", to eth_input.
 */
static __rte_always_inline uint16_t
port_rx_edge(const struct rte_mbuf *first, const struct rte_mbuf *last, bool fastpath_off)
{
	uint16_t type, type_last;

	if (unlikely(fastpath_off))
		return PORT_RX_NEXT_ETH_INPUT;
	memcpy(&type, rte_pktmbuf_mtod_offset(first, const uint8_t *, 2 * RTE_ETHER_ADDR_LEN),
	       sizeof(type));
	memcpy(&type_last, rte_pktmbuf_mtod_offset(last, const uint8_t *, 2 * RTE_ETHER_ADDR_LEN),
	       sizeof(type_last));
	if (unlikely(type != type_last))
		return PORT_RX_NEXT_ETH_INPUT;
	if (likely(type == RTE_BE16(RTE_ETHER_TYPE_IPV4)))
		return PORT_RX_NEXT_IP4_FAST;
	if (type == RTE_BE16(RTE_ETHER_TYPE_IPV6))
		return PORT_RX_NEXT_IP6_FAST;
	return PORT_RX_NEXT_ETH_INPUT;
}

/* An RX burst of got packets (not 0) from port: in the worker's burst
 * statistics, and the port written in each frame when its driver does not
 * (nfv_port.rx_port_unset). */
static __rte_always_inline void
port_rx_got(struct nfv_worker *w, struct rte_mbuf **pkts, uint16_t got, uint16_t port)
{
	if (unlikely(nfv_ports[port].rx_port_unset))
		for (uint16_t i = 0; i < got; i++)
			pkts[i]->port = port;
	if (likely(!w->stats_off)) {
		w->stats.rx_burst_hist[nfv_burst_bucket(got)]++;
		w->stats.rx_bursts++;
		w->stats.rx_burst_packets += got;
	}
}

/* One RX burst of total frames (all of one port) put in edge's stream: when
 * that is a fused node's and held nothing before, the node is told
 * (worker.rx_one_port), and does not compare the frames' ports. */
static __rte_always_inline void
port_rx_one_port(struct nfv_worker *w, struct rte_node *node, uint16_t edge, uint16_t total)
{
	if ((edge == PORT_RX_NEXT_IP4_FAST || edge == PORT_RX_NEXT_IP6_FAST) &&
	    __rte_node_next_node_get(node, edge)->idx == total)
		w->rx_one_port[edge - PORT_RX_NEXT_IP4_FAST] = total;
}

static int
port_rx_init(const struct rte_graph *graph, struct rte_node *node)
{
	RTE_BUILD_BUG_ON(sizeof(struct port_rx_ctx) > RTE_NODE_CTX_SZ);
	return nfv_node_ctx_init(graph, node);
}

static uint16_t
port_rx_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t count)
{
	struct port_rx_ctx *ctx = (struct port_rx_ctx *)node->ctx;
	struct nfv_worker *w = ctx->worker;
	const struct nfv_worker_conf *conf = __atomic_load_n(&w->conf, __ATOMIC_ACQUIRE);
	uint16_t n_rxq = conf->n_rxq, burst = conf->burst, total = 0, q = 0, diverted = 0, start;
	uint16_t edge = ctx->edge, stream_to = PORT_RX_NEXT_ETH_INPUT;
	const bool one_burst = conf->walk_max == burst;
	struct rte_mbuf **pkts;

	w->stats.polls++;
	if (n_rxq == 0) {
		w->stats.empty_polls++;
		w->walk_rx_tsc = 0;
		return 0;
	}
	/* Into the stream of the last walk's next node: usually this one's. */
	pkts = (struct rte_mbuf **)rte_node_next_stream_get(graph, node, edge,
							     RTE_GRAPH_BURST_SIZE);
	/*
	 * One burst per queue, round robin from where the last walk stopped;
	 * queues that return a full burst are polled again while the stream has
	 * room, so a busy worker moves up to conf->walk_max packets per walk
	 * (--walk-max) and pays the per-node costs once for all of them. (A
	 * configuration with fewer queues may have come since the last walk:
	 * then the round starts at queue 0.)
	 */
	start = ctx->next_queue < n_rxq ? ctx->next_queue : 0;
	if (likely(one_burst)) {
		/* One burst a walk (the default): the first queue from start
		 * that has packets, nothing to divert. */
		uint16_t got = 0;

		for (uint16_t i = 0; i < n_rxq; i++) {
			q = (uint16_t)(start + i);
			if (q >= n_rxq)
				q = (uint16_t)(q - n_rxq);
			got = rte_eth_rx_burst(conf->rxq[q].port_id, conf->rxq[q].queue_id, pkts,
					       burst);
			if (got != 0)
				break;
		}
		if (got != 0) {
			port_rx_got(w, pkts, got, conf->rxq[q].port_id);
			stream_to = nfv_arc_start_edge(&nfv_l2_input_arc, conf->rxq[q].port_id);
			total = got;
		}
	}
	for (uint16_t i = 0, full = 0; !one_burst && total + diverted + burst <= conf->walk_max;
	     i++) {
		uint16_t got;

		if (i == n_rxq) {
			if (full == 0)
				break;
			i = 0;
			full = 0;
		}
		/* (start and i are below n_rxq: one subtraction wraps the
		 * sum, no division.) */
		q = (uint16_t)(start + i);
		if (q >= n_rxq)
			q = (uint16_t)(q - n_rxq);
		got = rte_eth_rx_burst(conf->rxq[q].port_id, conf->rxq[q].queue_id, pkts + total,
				       burst);
		if (got != 0) {
			port_rx_got(w, pkts + total, got, conf->rxq[q].port_id);
			uint16_t to = nfv_arc_start_edge(&nfv_l2_input_arc, conf->rxq[q].port_id);

			full += got == burst;
			/* to: the port's first L2 feature, or eth_input for
			 * a port without (where the walk's end decides). The
			 * stream keeps the packets of one destination, that of
			 * its first burst; a burst for another is copied out to
			 * its own (its slots in the stream are reused). */
			if (total == 0)
				stream_to = to;
			if (likely(to == stream_to)) {
				total += got;
			} else {
				uint16_t dest = to != PORT_RX_NEXT_ETH_INPUT ? to :
					port_rx_edge(pkts[total], pkts[total + got - 1],
						     w->debug.fastpath_off);

				if (unlikely(dest == edge)) {
					/* The stream's buffer is edge's own, so
					 * what it holds (bound elsewhere) goes out
					 * to its node, and this burst takes its
					 * place. */
					uint16_t held = stream_to != PORT_RX_NEXT_ETH_INPUT ?
						stream_to : port_rx_edge(pkts[0], pkts[total - 1],
									 w->debug.fastpath_off);

					rte_node_enqueue(graph, node, held, (void **)pkts, total);
					diverted += total;
					memmove(pkts, pkts + total, got * sizeof(pkts[0]));
					total = got;
					stream_to = to;
				} else {
					rte_node_enqueue(graph, node, dest, (void **)(pkts + total),
							 got);
					diverted += got;
				}
			}
		}
	}
	ctx->next_queue = q + 1 == n_rxq ? 0 : (uint16_t)(q + 1);
	if (total + diverted == 0) {
		w->stats.empty_polls++;
		w->tx_tsc_fresh = false;
		w->walk_rx_tsc = 0; /* no RX time this walk (nfv_walk_tsc) */
		return 0;
	}
	/* The RX time of the walk, for port_tx's latency histogram; 0 (no
	 * TSC read) under "stats off". Under load, when port_tx ended the
	 * previous walk, that time: the packets arrived before this poll
	 * started, which is about when it was (the rest of that walk and this
	 * poll count in their latency), and no TSC is read here. */
	if (unlikely(w->stats_off))
		w->walk_rx_tsc = 0;
	else if (likely(w->tx_tsc_fresh))
		w->walk_rx_tsc = w->last_tx_tsc;
	else
		w->walk_rx_tsc = rte_rdtsc();
	w->tx_tsc_fresh = false;
	if (unlikely(w->debug.delay_cycles != 0)) {
		uint64_t until = rte_rdtsc() + w->debug.delay_cycles;

		while (rte_rdtsc() < until)
			rte_pause();
	}
	w->stats.rx_packets += total + diverted;
	if (total != 0) {
		uint16_t to = stream_to != PORT_RX_NEXT_ETH_INPUT ? stream_to :
			      port_rx_edge(pkts[0], pkts[total - 1], w->debug.fastpath_off);

		if (likely(to == edge)) {
			rte_node_next_stream_put(graph, node, edge, total);
			if (one_burst)
				port_rx_one_port(w, node, edge, total);
		} else {
			/* Copied out: the slots in the other stream are unused. */
			rte_node_enqueue(graph, node, to, (void **)pkts, total);
			ctx->edge = to;
		}
	}
	return total + diverted;
}

static struct rte_node_register port_rx_node = {
	.name = "nfv_port_rx",
	.flags = RTE_NODE_SOURCE_F,
	.process = port_rx_process,
	.init = port_rx_init,
	.nb_edges = PORT_RX_NEXT_MAX,
	.next_nodes = {
		[PORT_RX_NEXT_ETH_INPUT] = "nfv_eth_input",
		[PORT_RX_NEXT_IP4_FAST] = "nfv_ip4_fast",
		[PORT_RX_NEXT_IP6_FAST] = "nfv_ip6_fast",
	},
};

RTE_NODE_REGISTER(port_rx_node);

/* The source every walk runs (the others are services: core/walk.h). */
RTE_INIT(port_rx_poller)
{
	nfv_walk_poller_register(port_rx_node.name);
}
