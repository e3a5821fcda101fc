/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ip4_fast: plain IPv4 unicast forwarding in one node, for the common case
 * only: ip4_input's checks, ip4_lookup's bulk FIB lookup and ip4_rewrite's
 * TTL and Ethernet rewrite fused in one node (a pass that validates and
 * gathers the destinations, the lookup, a pass that decides and rewrites:
 * modules/ip/ip_fast.h, shared with ip6_fast), straight to port_tx.
 * port_rx sends it every walk whose first frame is IPv4, and eth_input the
 * IPv4 frames of the bursts its fast path takes whole as IP for the port's
 * own MAC (neither unless "debug fastpath off"). Its first pass does
 * eth_input's fast step too (the port's MAC, the ethertype): a burst that
 * is not all IPv4 for the port's MAC goes to eth_input whole, uncounted
 * here, and eth_input then decides as without this node. What eth_input
 * sends here passes that step (it is its own), so no burst goes round.
 *
 * A packet is forwarded here when all of these hold: a 20-byte header
 * whole in the first segment, version 4, a total length within the frame
 * (link padding beyond it is trimmed here, as ip4_input does), a header
 * checksum computed right here and not flagged BAD by the device (a burst
 * with a frame that fails this goes to ip4_input, which also takes the
 * device's GOOD for a frame whose sum is wrong), no special source
 * or destination (ip4_input's table), the receiving interface in the
 * default VRF with no feature on its IPv4 ingress arc, a route to a
 * resolved next hop (a single one whose fwd_mtu the packet fits, or the
 * member of an ECMP group ip4_rewrite would pick) and a TTL above 1. One
 * whose output interface has a feature on the IPv4 egress arc goes to that
 * feature, rewritten (this node's entry of the arc). Any other packet goes
 * to ip4_input as it came (nothing but the padding trim is written to a
 * packet before every test has passed): the node chain, the reference,
 * decides for it and names its drop. This node drops nothing. A burst
 * that passed the checks but came in by an interface with an ingress
 * feature (or in a VRF) goes from here to that feature (or ip4_lookup),
 * as ip4_input would send it.
 *
 * So that the packets the chain forwards are never reordered with those
 * forwarded here (a flow's packets, and the one TX burst per output port
 * of a walk), the whole burst goes to the chain when one of its packets
 * fails the header checks.
 *
 * Forwarded packets are grouped by output port (ip_fast.h), and the runs
 * recorded for port_tx (worker.tx_runs): one TX burst per port with no
 * pass of port_tx's own.
 *
 * Edges: port_tx, ip4_input, eth_input, then those of its entries of the
 * IPv4 arcs (ip4_lookup, the features).
 * Writes: meta.tx_port and meta.flags (0: a unicast frame to the port's
 * MAC, as eth_input writes them) of the packets it forwards or gives to
 * ip4_input.
 */
#include <rte_fib.h>
#include <rte_graph.h>
#include <rte_graph_worker.h>
#include <rte_ip.h>

#include "core/arc.h"
#include "modules/infra/iface.h"
#include "modules/ip/ip.h"
#include "modules/ip/ip_fast.h"
#include "modules/ip/ip_node.h"

struct nfv_ip_fast_note nfv_ip_fast_notes[NFV_MAX_WORKERS][2];
struct nfv_ip4_ident nfv_ip4_idents[NFV_MAX_WORKERS];

extern struct nfv_arc nfv_ip4_ingress_arc; /* ip4_input.c */
extern struct nfv_arc nfv_ip4_egress_arc;  /* ip4_rewrite.c */

/* First octets never forwarded, from or to: the same set as ip4_input's
 * fast path (0/8, 127/8, 169.254/16, 224/4, 240/4 and broadcast). */
static const uint64_t ip4_fast_special[256] = {
	[0] = NFV_IP_FAST_FAIL, [127] = NFV_IP_FAST_FAIL, [169] = NFV_IP_FAST_FAIL,
	[224 ... 255] = NFV_IP_FAST_FAIL,
};

/*
 * ip4_input_fast's test but for version, IHL and total length, whose word
 * (the header's first but for its TOS byte) is returned in *mismatch as
 * its difference from that of a 20-byte header filling the frame: zero in
 * the common case. Its checksum test is the software one, returned in
 * *sum_key (nfv_ip4_hdr20_sum_key; nfv_ip_fast_pass1 weighs it against the
 * device's flags once per burst). Returns NFV_IP_FAST_FAIL when a test fails, else 0. len_checked: the
 * frame is known to hold the header. Header loads before the length test,
 * as there: within the mbuf's data room, and the result thrown away when
 * short.
 */
static __rte_always_inline uint64_t
ip4_fast_valid(const struct rte_mbuf *m, const uint8_t *ip, uint64_t *mismatch, uint64_t *sum_key,
	       const bool len_checked)
{
	uint32_t w0, head;

	memcpy(&w0, ip, sizeof(w0));
	head = rte_cpu_to_be_32(RTE_IPV4_VHL_DEF << 24 | (rte_pktmbuf_pkt_len(m) - NFV_L2_LEN));
	*mismatch = (w0 & RTE_BE32(0xff00ffff)) ^ head;
	*sum_key = nfv_ip4_hdr20_sum_key(ip);
	return ip4_fast_special[ip[12]] | ip4_fast_special[ip[16]] |
	       (uint64_t)(!len_checked && rte_pktmbuf_data_len(m) <
			  NFV_L2_LEN + sizeof(struct rte_ipv4_hdr)) << 32;
}

/*
 * For the padding trim: the total length of a 20-byte header (which makes
 * the checksum test of ip4_fast_valid sound: a non-zero sum), else
 * UINT32_MAX.
 */
static __rte_always_inline uint32_t
ip4_fast_total(const uint8_t *hdr)
{
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)hdr;
	uint32_t total = rte_be_to_cpu_16(ip->total_length);

	return ip->version_ihl == RTE_IPV4_VHL_DEF && total >= sizeof(*ip) ? total : UINT32_MAX;
}

static __rte_always_inline void
ip4_fast_lookup(union nfv_ip_fast_dsts *dsts, uint64_t *nhs, uint16_t n)
{
	rte_fib_lookup_bulk(nfv_fib4_active(), dsts->v4, nhs, n);
}

static uint16_t
ip4_fast_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	return nfv_ip_fast_run(graph, node, objs, n, false, &nfv_ip4_ingress_arc,
			       &nfv_ip4_egress_arc, ip4_fast_valid, ip4_fast_total,
			       ip4_fast_lookup);
}

static struct rte_node_register ip4_fast_node = {
	.name = "nfv_ip4_fast",
	.process = ip4_fast_process,
	.init = nfv_node_ctx_init,
	.nb_edges = NFV_IP_FAST_NEXT_MAX,
	.next_nodes = {
		[NFV_IP_FAST_NEXT_TX] = "nfv_port_tx",
		[NFV_IP_FAST_NEXT_CHAIN] = "nfv_ip4_input",
		[NFV_IP_FAST_NEXT_ETH] = "nfv_eth_input",
	},
};

RTE_NODE_REGISTER(ip4_fast_node);
