/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lb_own_icmp_error: nfvd's own ICMP errors about the packets lb_in
 * translated, on the ip4_icmp_error arc (every error nfvd builds, before
 * it is routed) of every interface while a service exists. lb_in gave a
 * client's packet the backend as destination, or a backend's reply the
 * VIP as source, before the route lookup; what nfvd then finds wrong with
 * it (fragmentation needed on the way out, no route, a next hop that does
 * not answer) is quoted as translated. As IPVS, whose director sends
 * fragmentation needed about the packet before it rewrites it, the error
 * reaches the sender with the packet it sent:
 *
 *   about a client's packet to a backend (the quote reversed has the
 *   session's rev key): the quoted destination becomes the VIP and port
 *   again (and the outer source the VIP, which ip4_rewrite replaces by the
 *   output port's address, as for every error nfvd sends);
 *   about a backend's reply to a client (the quote is from the VIP, the
 *   error to it): to the backend, its address and port as the outer
 *   destination and the quoted source.
 *
 * The checksums by RFC 1624 deltas (modules/ip/l4_icmp_error.h), counted
 * with the errors lb_in translates (lb icmp_error_rev, icmp_error_fwd).
 * Nothing is handed to another worker: the packet was translated on this
 * one, whose table has its session. Mode dsr changes nothing in a packet;
 * an error about a reply a dsr backend sent through nfvd goes, as before,
 * to the VIP. Anything else passes untouched.
 *
 * Edges: the arc's.
 * Reads: mbuf->port. Writes: of an error about a translated packet, the
 * quoted address and port, the outer source or destination, the
 * checksums.
 */
#include <rte_cycles.h>
#include <rte_graph.h>
#include <rte_graph_worker.h>

#include "core/arc.h"
#include "core/counters.h"
#include "core/node.h"
#include "modules/ip/l4_icmp_error.h"
#include "modules/lb/datapath/lb_node.h"
#include "modules/lb/lb.h"

static struct nfv_arc_feature lb_own_icmp_error_feature = {
	.arc_name = "ip4_icmp_error", .node = "nfv_lb_own_icmp_error",
};
NFV_ARC_FEATURE_REGISTER(lb_own_icmp_error_feature);

static uint16_t
lb_own_icmp_error_process(struct rte_graph *graph, struct rte_node *node, void **objs,
			  uint16_t n)
{
	struct nfv_worker *w = nfv_node_worker(node);
	struct nfv_lb_counters *c = nfv_worker_counters(w, &nfv_lb_counters_block);
	const struct nfv_lb_config *cfg = __atomic_load_n(&nfv_lb_cfg, __ATOMIC_ACQUIRE);
	struct nfv_lb_table *t = &nfv_lb_tables[w->index];
	struct nfv_arc_burst_edge ec = { .iface = UINT16_MAX };
	uint64_t now = rte_get_tsc_cycles();

	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = objs[i];
		struct lb_icmp_error e;

		if (lb_icmp_error_find(w, t, c, cfg, m, false, now, &e)) {
			if (e.dir == NFV_LB_REV) {
				nat_icmp_error_rewrite(&e.p, &e.q, false, e.s->vip, e.s->vport);
				c->icmp_error_rev++;
			} else if (cfg->svc[e.s->svc].mode != NFV_LB_DSR) {
				nat_icmp_error_rewrite(&e.p, &e.q, true, e.s->backend, e.s->bport);
				c->icmp_error_fwd++;
			}
		}
		rte_node_enqueue_x1(graph, node,
				    nfv_arc_burst_next_edge(&lb_own_icmp_error_feature, &ec, m->port),
				    m);
	}
	return n;
}

static struct rte_node_register lb_own_icmp_error_node = {
	.name = "nfv_lb_own_icmp_error",
	.process = lb_own_icmp_error_process,
	.init = nfv_node_ctx_init,
	.nb_edges = 0,
};

RTE_NODE_REGISTER(lb_own_icmp_error_node);
