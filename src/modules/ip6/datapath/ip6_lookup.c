/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ip6_lookup: longest-prefix match of the destination of the whole burst
 * in one read of the active FIB's trie (inline for the default VRF,
 * modules/ip/fib6_trie.h; else rte_fib6_lookup_bulk), then dispatch on
 * the next hop; no route gets ICMPv6 destination unreachable, code 0
 * (RFC 4443 3.1).
 *
 * The FIB is the VRF of the receiving interface, as in ip4_lookup: one bulk
 * lookup when the whole burst is in the default VRF, else one per run.
 *
 * Plain transit packets (meta.flags 0) are forwarded here in one pass, as
 * ip6_fast forwards them: to port_tx, or to the output interface's first
 * egress feature (this node's entry of the egress arc). Packets ip6_fast
 * forwarded before the ingress features (NFV_META_ROUTED) go on by their
 * output port without a second lookup (ip_routed.h).
 *
 * Edges: ip6_rewrite, ip6_local, ip6_icmp_error, drop, port_tx, then the
 * egress arc's features.
 * Writes: meta.nh, meta.icmp_type/code, meta.drop_reason.
 * Drops: no_route, blackhole, l2_multicast.
 */
#include <rte_fib6.h>
#include <rte_graph.h>
#include <rte_graph_worker.h>
#include <rte_ip.h>

#include "modules/ip/fib6_trie.h"
#include "modules/ip/ip_counters.h"
#include "modules/ip/ip_fast.h"
#include "modules/ip/ip_node.h"
#include "modules/ip/ip_routed.h"
#include "modules/infra/iface.h"

extern struct nfv_arc nfv_ip6_egress_arc;  /* ip6_rewrite.c */
extern struct nfv_arc nfv_ip6_ingress_arc; /* ip6_input.c */

enum ip6_lookup_next {
	IP6_LOOKUP_NEXT_REWRITE,
	IP6_LOOKUP_NEXT_LOCAL,
	IP6_LOOKUP_NEXT_ICMP_ERROR,
	IP6_LOOKUP_NEXT_DROP,
	IP6_LOOKUP_NEXT_TX,
	IP6_LOOKUP_NEXT_MAX,
};

/* Drop reasons counted by this node (show drops: node/name). */
NFV_DROP_REASON(drop_ip6_l2_multicast, "ip6_lookup", "l2_multicast",
	"link-layer multicast not for a local address");
NFV_DROP_REASON(drop_ip6_no_route, "ip6_lookup", "no_route",
	"no route to the destination");
NFV_DROP_REASON(drop_ip6_blackhole, "ip6_lookup", "blackhole",
	"route is a blackhole");

/* Every case: names the reason, or prepares the ICMPv6 error. */
static __rte_noinline uint16_t
ip6_lookup_slow(struct rte_mbuf *m)
{
	struct nfv_mbuf_meta *meta = nfv_meta(m);
	const struct nfv_nexthop *nh = meta->nh;

	/* Link-layer broadcast/multicast is only for local addresses. */
	if (unlikely(meta->flags & NFV_META_L2_MCAST) && (nh == NULL || nh->type != NFV_NH_LOCAL))
		return nfv_mark_drop(m, drop_ip6_l2_multicast.id, IP6_LOOKUP_NEXT_DROP);
	if (unlikely(nh == NULL)) {
		return nfv_mark_icmp(m, 1 /* destination unreachable */,
				     0 /* no route to destination */, 0, drop_ip6_no_route.id,
				     IP6_LOOKUP_NEXT_ICMP_ERROR);
	}
	switch (nh->type) {
	case NFV_NH_LOCAL:
		return IP6_LOOKUP_NEXT_LOCAL;
	case NFV_NH_BLACKHOLE:
		return nfv_mark_drop(m, drop_ip6_blackhole.id, IP6_LOOKUP_NEXT_DROP);
	default:
		return IP6_LOOKUP_NEXT_REWRITE;
	}
}

/* Packets of several VRFs: one bulk lookup per run of one VRF. */
static __rte_noinline void
ip6_lookup_vrfs(uint8_t ips[][RTE_FIB6_IPV6_ADDR_SIZE], const uint16_t *vrfs, uint64_t *nhs,
		uint16_t n)
{
	for (uint16_t i = 0, j; i < n; i = j) {
		struct rte_fib6 *fib = nfv_fib_vrf_active(1, vrfs[i]);

		for (j = i + 1; j < n && vrfs[j] == vrfs[i]; j++)
			;
		if (likely(fib != NULL))
			rte_fib6_lookup_bulk(fib, ips + i, nhs + i, j - i);
		else
			memset(nhs + i, 0, (size_t)(j - i) * sizeof(nhs[0]));
	}
}

/*
 * A packet ip6_fast forwarded before the ingress features whose interface's
 * features changed on the way (as in ip4_lookup): routed again, as if it had
 * not been, its hop limit back as it came; any other packet of such a burst
 * that is not routed: looked up, with its interface's VRF. Returns its edge.
 */
static __rte_noinline uint16_t
ip6_lookup_one(struct rte_mbuf *m, struct nfv_worker *w)
{
	struct nfv_mbuf_meta *meta = nfv_meta(m);
	struct rte_ipv6_hdr *h = rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *, NFV_L2_LEN);
	struct rte_fib6 *fib = nfv_fib_vrf_active(1, nfv_ifaces[m->port].vrf);
	uint8_t a[1][RTE_FIB6_IPV6_ADDR_SIZE];
	uint64_t v = 0;

	if (meta->flags & NFV_META_ROUTED) {
		nfv_ip_counters(w)->routed_again[1]++;
		h->hop_limits++;
		meta->flags = 0;
	}
	memcpy(a[0], h->dst_addr, sizeof(a[0]));
	if (fib != NULL)
		rte_fib6_lookup_bulk(fib, a, &v, 1);
	meta->nh = nfv_nh_get(nfv_fib_nh_id(v));
	return meta->nh != NULL && nfv_nh_forwards(meta->nh) && meta->flags == 0 ?
	       IP6_LOOKUP_NEXT_REWRITE : ip6_lookup_slow(m);
}

static __rte_noinline uint16_t
ip6_lookup_routed(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	return nfv_ip_lookup_routed(graph, node, objs, n, &nfv_ip6_ingress_arc,
				    &nfv_ip6_lookup_egress_entry, IP6_LOOKUP_NEXT_TX, ip6_lookup_one);
}

static uint16_t
ip6_lookup_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	struct rte_mbuf **pkts = (struct rte_mbuf **)objs;
	uint8_t ips[RTE_GRAPH_BURST_SIZE][RTE_FIB6_IPV6_ADDR_SIZE];
	uint64_t nhs[RTE_GRAPH_BURST_SIZE];
	uint16_t vrfs[RTE_GRAPH_BURST_SIZE];
	uint8_t *hdrs[RTE_GRAPH_BURST_SIZE];
	uint16_t i, any_vrf = 0;
	uint8_t flags = 0;

	if (unlikely(n == 0))
		return 0;
	if (nfv_meta(pkts[0])->flags & NFV_META_ROUTED)
		return ip6_lookup_routed(graph, node, objs, n);
	for (i = 0; i < n; i++) {
		vrfs[i] = nfv_ifaces[pkts[i]->port].vrf;
		any_vrf |= vrfs[i];
		flags |= nfv_meta(pkts[i])->flags;
		hdrs[i] = rte_pktmbuf_mtod_offset(pkts[i], uint8_t *, NFV_L2_LEN);
		memcpy(ips[i], hdrs[i] + offsetof(struct rte_ipv6_hdr, dst_addr), 16);
	}
	if (unlikely(flags & NFV_META_ROUTED))
		return ip6_lookup_routed(graph, node, objs, n);
	if (likely(any_vrf == 0))
		nfv_fib6_lookup(ips, nhs, n);
	else
		ip6_lookup_vrfs(ips, vrfs, nhs, n);
	/* As in ip4_lookup: plain transit packets forwarded here, to port_tx
	 * or to the output interface's egress features. */
	if (likely(flags == 0)) {
		if (likely(__atomic_load_n(&nfv_ip6_egress_arc.n_ifaces_on,
					   __ATOMIC_ACQUIRE) == 0))
			return nfv_ip_fast_forward(graph, node, objs, n, nhs, hdrs,
						   &nfv_ip6_egress_arc, true, true,
						   IP6_LOOKUP_NEXT_TX, ip6_lookup_slow,
						   IP6_LOOKUP_NEXT_REWRITE);
		return nfv_ip_fast_forward_arc(graph, node, objs, n, nhs, hdrs,
					       &nfv_ip6_lookup_egress_entry, true,
					       IP6_LOOKUP_NEXT_TX, ip6_lookup_slow,
					       IP6_LOOKUP_NEXT_REWRITE);
	}
	return nfv_lookup_dispatch(graph, node, objs, nhs, n, IP6_LOOKUP_NEXT_REWRITE,
				   ip6_lookup_slow);
}

static struct rte_node_register ip6_lookup_node = {
	.name = "nfv_ip6_lookup",
	.process = ip6_lookup_process,
	.init = nfv_node_ctx_init,
	.nb_edges = IP6_LOOKUP_NEXT_MAX,
	.next_nodes = {
		[IP6_LOOKUP_NEXT_REWRITE] = "nfv_ip6_rewrite",
		[IP6_LOOKUP_NEXT_LOCAL] = "nfv_ip6_local",
		[IP6_LOOKUP_NEXT_ICMP_ERROR] = "nfv_ip6_icmp_error",
		[IP6_LOOKUP_NEXT_DROP] = "nfv_drop",
		[IP6_LOOKUP_NEXT_TX] = "nfv_port_tx",
	},
};

RTE_NODE_REGISTER(ip6_lookup_node);
