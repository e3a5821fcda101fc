/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ip4_lookup: longest-prefix match of the destination of the whole burst
 * in one rte_fib_lookup_bulk (DIR-24-8) on the active FIB, then dispatch
 * on the next hop: forward, local delivery, blackhole, or an ICMP
 * "destination unreachable" (RFC 1812 5.2.7.1) when there is no route.
 * Link-layer broadcasts are only accepted for local addresses
 * (RFC 1812 5.3.4).
 *
 * The FIB is the VRF of the receiving interface (mbuf->port). When every
 * packet is in the default VRF (the OR of their VRF ids is 0) the burst is
 * looked up on the default table (its DIR-24-8 arrays read inline, as
 * ip4_fast reads them, else one bulk lookup); otherwise one bulk lookup per
 * run of packets of one VRF. A VRF whose tables are going has none: no
 * route.
 *
 * Plain transit packets (meta.flags 0) are forwarded here in one pass, as
 * ip4_fast forwards them: rewritten, then to port_tx, or to the output
 * interface's first egress feature (this node's entry of the egress arc);
 * ip4_rewrite sees only what it must decide.
 *
 * Edges: ip4_rewrite, ip4_local, ip4_icmp_error, drop, port_tx, then the
 * egress arc's features.
 * Writes: meta.nh, meta.icmp_type/code, meta.drop_reason.
 * Drops: no_route (ICMP net unreachable), blackhole, l2_broadcast.
 */
#include <rte_fib.h>
#include <rte_graph.h>
#include <rte_graph_worker.h>
#include <rte_icmp.h>
#include <rte_ip.h>

#include "modules/ip/ip_counters.h"
#include "modules/ip/ip_fast.h"
#include "modules/ip/ip_node.h"
#include "modules/ip/ip_routed.h"
#include "modules/infra/iface.h"

extern struct nfv_arc nfv_ip4_egress_arc; /* ip4_rewrite.c */

enum ip4_lookup_next {
	IP4_LOOKUP_NEXT_REWRITE,
	IP4_LOOKUP_NEXT_LOCAL,
	IP4_LOOKUP_NEXT_ICMP_ERROR,
	IP4_LOOKUP_NEXT_DROP,
	IP4_LOOKUP_NEXT_TX,
	IP4_LOOKUP_NEXT_MAX,
};

/* Drop reasons counted by this node (show drops: node/name). */
NFV_DROP_REASON(drop_ip4_l2_broadcast, "ip4_lookup", "l2_broadcast",
	"link-layer broadcast/multicast not for a local address (RFC 1812 5.3.4)");
NFV_DROP_REASON(drop_ip4_no_route, "ip4_lookup", "no_route",
	"no route to the destination");
NFV_DROP_REASON(drop_ip4_blackhole, "ip4_lookup", "blackhole",
	"route is a blackhole");

extern struct nfv_arc nfv_ip4_ingress_arc; /* ip4_input.c */

/* Every case: names the reason, or prepares the ICMP error. */
static __rte_noinline uint16_t
ip4_lookup_slow(struct rte_mbuf *m)
{
	struct nfv_mbuf_meta *meta = nfv_meta(m);
	const struct nfv_nexthop *nh = meta->nh;

	/* Link-layer broadcast/multicast is only for local addresses. */
	if (unlikely(meta->flags & NFV_META_L2_MCAST) && (nh == NULL || nh->type != NFV_NH_LOCAL))
		return nfv_mark_drop(m, drop_ip4_l2_broadcast.id, IP4_LOOKUP_NEXT_DROP);
	if (unlikely(nh == NULL)) {
		return nfv_mark_icmp(m, NFV_ICMP_DEST_UNREACH, 0 /* network unreachable */, 0,
				     drop_ip4_no_route.id, IP4_LOOKUP_NEXT_ICMP_ERROR);
	}
	switch (nh->type) {
	case NFV_NH_LOCAL:
		return IP4_LOOKUP_NEXT_LOCAL;
	case NFV_NH_BLACKHOLE:
		return nfv_mark_drop(m, drop_ip4_blackhole.id, IP4_LOOKUP_NEXT_DROP);
	default:
		return IP4_LOOKUP_NEXT_REWRITE;
	}
}

/* Packets of several VRFs: one bulk lookup per run of one VRF. */
static __rte_noinline void
ip4_lookup_vrfs(uint32_t *ips, const uint16_t *vrfs, uint64_t *nhs, uint16_t n)
{
	for (uint16_t i = 0, j; i < n; i = j) {
		struct rte_fib *fib = nfv_fib_vrf_active(0, vrfs[i]);

		for (j = i + 1; j < n && vrfs[j] == vrfs[i]; j++)
			;
		if (likely(fib != NULL))
			rte_fib_lookup_bulk(fib, ips + i, nhs + i, j - i);
		else
			memset(nhs + i, 0, (size_t)(j - i) * sizeof(nhs[0]));
	}
}

/*
 * A packet ip4_fast forwarded before the ingress features (NFV_META_ROUTED,
 * ip_fast.h) whose interface's features changed on the way (its stamp is
 * not the interface's route gen, core/arc.h; it may have met a feature that
 * changes the route): routed again, as if it had not been, its TTL back as
 * it came (the lookup rewrites the rest). Any other packet of the burst
 * that is not routed: looked up, with its own interface's VRF. Returns
 * the packet's edge.
 */
static __rte_noinline uint16_t
ip4_lookup_one(struct rte_mbuf *m, struct nfv_worker *w)
{
	struct nfv_mbuf_meta *meta = nfv_meta(m);
	struct rte_ipv4_hdr *h = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, NFV_L2_LEN);
	struct rte_fib *fib = nfv_fib_vrf_active(0, nfv_ifaces[m->port].vrf);
	uint32_t a = rte_be_to_cpu_32(h->dst_addr);
	uint64_t v = 0;

	if (meta->flags & NFV_META_ROUTED) {
		nfv_ip_counters(w)->routed_again[0]++;
		h->time_to_live++;
		h->hdr_checksum = 0;
		h->hdr_checksum = rte_ipv4_cksum(h);
		meta->flags = 0;
	}
	if (fib != NULL)
		rte_fib_lookup_bulk(fib, &a, &v, 1);
	meta->nh = nfv_nh_get(nfv_fib_nh_id(v));
	return meta->nh != NULL && nfv_nh_forwards(meta->nh) && meta->flags == 0 ?
	       IP4_LOOKUP_NEXT_REWRITE : ip4_lookup_slow(m);
}

static __rte_noinline uint16_t
ip4_lookup_routed(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	return nfv_ip_lookup_routed(graph, node, objs, n, &nfv_ip4_ingress_arc,
				    &nfv_ip4_lookup_egress_entry, IP4_LOOKUP_NEXT_TX, ip4_lookup_one);
}

static uint16_t
ip4_lookup_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	struct rte_mbuf **pkts = (struct rte_mbuf **)objs;
	uint32_t ips[RTE_GRAPH_BURST_SIZE];
	uint64_t nhs[RTE_GRAPH_BURST_SIZE];
	uint16_t vrfs[RTE_GRAPH_BURST_SIZE];
	uint8_t *hdrs[RTE_GRAPH_BURST_SIZE];
	uint16_t i, any_vrf = 0;
	uint8_t flags = 0;
	/* The default VRF's table read inline, as ip4_fast reads it, when its
	 * layout allows; the bulk lookup otherwise (and for other VRFs). */
	const struct nfv_dir24_8 *dir = nfv_fib4_dir_active();

	if (unlikely(n == 0))
		return 0;
	if (nfv_meta(pkts[0])->flags & NFV_META_ROUTED)
		return ip4_lookup_routed(graph, node, objs, n);
	for (i = 0; i < n; i++) {
		rte_be32_t dst;

		vrfs[i] = nfv_ifaces[pkts[i]->port].vrf;
		any_vrf |= vrfs[i];
		flags |= nfv_meta(pkts[i])->flags;
		hdrs[i] = rte_pktmbuf_mtod_offset(pkts[i], uint8_t *, NFV_L2_LEN);
		memcpy(&dst, hdrs[i] + offsetof(struct rte_ipv4_hdr, dst_addr), sizeof(dst));
		ips[i] = rte_be_to_cpu_32(dst);
		if (likely(dir != NULL))
			nhs[i] = nfv_dir24_8_get(dir, ips[i]);
	}
	if (unlikely(flags & NFV_META_ROUTED))
		return ip4_lookup_routed(graph, node, objs, n);
	if (unlikely(any_vrf != 0))
		ip4_lookup_vrfs(ips, vrfs, nhs, n);
	else if (unlikely(dir == NULL))
		rte_fib_lookup_bulk(nfv_fib4_active(), ips, nhs, n);
	/* Plain transit packets: forwarded and rewritten here as ip4_fast
	 * does, grouped for port_tx, or handed to the output interface's
	 * egress features when it has some (this node's entry of the egress
	 * arc); the others go on to ip4_rewrite or the slow path as below. */
	if (likely(flags == 0)) {
		if (likely(__atomic_load_n(&nfv_ip4_egress_arc.n_ifaces_on,
					   __ATOMIC_ACQUIRE) == 0))
			return nfv_ip_fast_forward(graph, node, objs, n, nhs, hdrs,
						   &nfv_ip4_egress_arc, false, true,
						   IP4_LOOKUP_NEXT_TX, ip4_lookup_slow,
						   IP4_LOOKUP_NEXT_REWRITE);
		return nfv_ip_fast_forward_arc(graph, node, objs, n, nhs, hdrs,
					       &nfv_ip4_lookup_egress_entry, false,
					       IP4_LOOKUP_NEXT_TX, ip4_lookup_slow,
					       IP4_LOOKUP_NEXT_REWRITE);
	}
	return nfv_lookup_dispatch(graph, node, objs, nhs, n, IP4_LOOKUP_NEXT_REWRITE,
				   ip4_lookup_slow);
}

static struct rte_node_register ip4_lookup_node = {
	.name = "nfv_ip4_lookup",
	.process = ip4_lookup_process,
	.init = nfv_node_ctx_init,
	.nb_edges = IP4_LOOKUP_NEXT_MAX,
	.next_nodes = {
		[IP4_LOOKUP_NEXT_REWRITE] = "nfv_ip4_rewrite",
		[IP4_LOOKUP_NEXT_LOCAL] = "nfv_ip4_local",
		[IP4_LOOKUP_NEXT_ICMP_ERROR] = "nfv_ip4_icmp_error",
		[IP4_LOOKUP_NEXT_DROP] = "nfv_drop",
		[IP4_LOOKUP_NEXT_TX] = "nfv_port_tx",
	},
};

RTE_NODE_REGISTER(ip4_lookup_node);
