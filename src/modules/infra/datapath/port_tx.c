/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * port_tx: sends each run of packets for the same port with one
 * rte_eth_tx_burst on the TX queue this worker owns on that port (a shared
 * queue is taken under its lock). Packets the queue refuses, and packets
 * for a port that is down, are freed here and counted.
 *
 * Edges: none (terminal).
 * Reads: meta.tx_port; worker.walk_rx_tsc (RX-to-TX latency histogram).
 * Drops: port_tx/port_down, port_tx/queue_full.
 * Counters: TX burst sizes, RX-to-TX latency (per worker).
 * Test hook: debug.tx_split cuts runs into small bursts (burst mismatch tests).
 */
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_graph.h>
#include <rte_graph_worker.h>

#include "core/node.h"
#include "modules/infra/port.h"

/* Drop reasons counted by this node (show drops: node/name). */
NFV_DROP_REASON(drop_tx_port_down, "port_tx", "port_down",
	"output port is down or being removed");
NFV_DROP_REASON(drop_tx_queue_full, "port_tx", "queue_full",
	"output TX queue full");

static uint16_t
port_tx_send(struct nfv_worker *w, uint16_t port_id, struct rte_mbuf **pkts, uint16_t n)
{
	const struct nfv_port *p = &nfv_ports[port_id];
	uint16_t q, sent;

	if (unlikely(!__atomic_load_n(&p->admin_up, __ATOMIC_RELAXED))) {
		w->stats.drops[drop_tx_port_down.id] += n;
		rte_pktmbuf_free_bulk(pkts, n);
		return 0;
	}
	q = p->txq_of_worker[w->index];
	if (likely(!w->stats_off)) {
		w->stats.tx_burst_hist[nfv_burst_bucket(n)]++;
		w->stats.tx_bursts++;
		w->stats.tx_burst_packets += n;
	}
	if (unlikely(p->tx_shared)) {
		rte_spinlock_lock(&nfv_ports[port_id].tx_lock[q]);
		sent = rte_eth_tx_burst(port_id, q, pkts, n);
		rte_spinlock_unlock(&nfv_ports[port_id].tx_lock[q]);
	} else {
		sent = rte_eth_tx_burst(port_id, q, pkts, n);
	}
	if (unlikely(sent < n)) {
		w->stats.drops[drop_tx_queue_full.id] += (uint64_t)(n - sent);
		rte_pktmbuf_free_bulk(pkts + sent, n - sent);
	}
	return sent;
}

static uint16_t
port_tx_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	struct nfv_worker *w = nfv_node_worker(node);
	struct rte_mbuf **pkts = (struct rte_mbuf **)objs;
	uint64_t sent = 0;
	uint16_t i = 0;

	while (i < n) {
		uint16_t start = i, port_id = nfv_meta(pkts[i])->tx_port;

		uint16_t split = w->debug.tx_split;

		i++;
		while (i < n && nfv_meta(pkts[i])->tx_port == port_id &&
		       (split == 0 || i - start < split))
			i++;
		sent += port_tx_send(w, port_id, pkts + start, i - start);
	}
	w->stats.tx_packets += sent;
	/* Every packet sent was received at walk_rx_tsc: one bucket for all
	 * (those refused or for a port that is down are not forwarded). */
	if (likely(!w->stats_off)) {
		uint64_t d = rte_rdtsc() - w->walk_rx_tsc;

		w->stats.lat_hist[nfv_lat_bucket(d)] += sent;
		w->stats.lat_sum += d * sent;
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
