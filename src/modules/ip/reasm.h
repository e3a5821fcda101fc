/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reassembly of the IPv4 and IPv6 datagrams addressed to nfvd itself
 * (RFC 791 3.2, RFC 8200 4.5; a node must reassemble what is sent to it:
 * RFC 1122 3.3.2), with DPDK's
 * rte_ip_frag: one table per worker, both families, held fragments
 * timed out after --reassembly-timeout seconds (30 by default, Linux's
 * ipfrag_time).
 *
 * ip4_local and ip6_local hand their fragments of ICMP and UDP datagrams
 * (the protocols nfvd answers or serves; the others go on as fragments:
 * with a kernel twin, the kernel reassembles them itself) to
 * nfv_reasm4 / nfv_reasm6, which return the whole datagram (an mbuf
 * chain, one segment a fragment, its header rewritten as a datagram's)
 * when its last missing fragment came, else NULL (held, or dropped).
 * The fragments the table gives up are dropped through the node's drop
 * edge under a named reason:
 *   ip4_local|ip6_local/reassembly_failed: inconsistent or overlapping
 *     fragments, more than RTE_LIBRTE_IP_FRAG_MAX_FRAG (8) of a datagram,
 *     a datagram over 65,535 bytes, a fragment of more than one mbuf, no
 *     room in the table (--reassembly-max datagrams a worker);
 *   ip4_local|ip6_local/reassembly_timeout: its datagram not complete in
 *     time.
 * A worker's table expires entries when a fragment comes, and when the
 * control thread, seeing the worker hold fragments, injects a tick to the
 * nfv_ip_reasm_sweep node (so nothing is held forever on an idle
 * worker; a walk without fragments pays nothing).
 *
 * Fragments of one datagram must reach one worker: true with one worker,
 * and with RSS, which hashes IP fragments by their addresses.
 *
 * Counted: ipX "reassembled" (datagrams), "reassembled_fragments" (the
 * fragments they were made of), "reassembly_held" (fragments held now):
 * received = forwarded + dropped + reassembled_fragments - reassembled +
 * reassembly_held, for the local traffic.
 */
#ifndef NFV_IP_REASM_H
#define NFV_IP_REASM_H

#include <stdint.h>

#include <rte_graph.h>
#include <rte_graph_worker.h>
#include <rte_ip.h>
#include <rte_ip_frag.h>
#include <rte_mbuf.h>

#include "core/node.h"
#include "core/worker.h"

struct nfv_reasm_worker {
	struct rte_ip_frag_tbl *tbl;       /* NULL: not created (no reassembly) */
	uint64_t held;                     /* fragments in tbl: written by the worker */
	struct rte_ip_frag_death_row dr;
} __rte_cache_aligned;

extern struct nfv_reasm_worker nfv_reasm_workers[NFV_MAX_WORKERS];

/* Whether ip4_local / ip6_local give this fragment to reassembly (its
 * protocol is one nfvd serves: ICMP, ICMPv6, UDP). */
static __rte_always_inline bool
nfv_reasm_proto(uint8_t proto)
{
	return proto == IPPROTO_ICMP || proto == IPPROTO_ICMPV6 || proto == IPPROTO_UDP;
}

/* An IPv4 fragment for one of our addresses (m's data at its Ethernet
 * header, the IPv4 header checked by ip4_input): the datagram when m
 * completes it, else NULL (m held, or dropped through drop_edge). */
struct rte_mbuf *nfv_reasm4(struct rte_graph *graph, struct rte_node *node, struct nfv_worker *w,
			    struct rte_mbuf *m, uint16_t drop_edge);
/* The same for an IPv6 packet whose fixed header is followed by a
 * fragment header. */
struct rte_mbuf *nfv_reasm6(struct rte_graph *graph, struct rte_node *node, struct nfv_worker *w,
			    struct rte_mbuf *m, uint16_t drop_edge);

/*
 * ipX_local's stream: when a packet is a fragment reassembly takes
 * (is_frag), each fragment goes to reasm and each datagram it completes is
 * taken by one, as the other packets; else the stream as usual
 * (nfv_node_each: no fragment, no extra cost but the test).
 */
static __rte_always_inline uint16_t
nfv_reasm_local(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n,
		bool (*is_frag)(const struct rte_mbuf *m),
		struct rte_mbuf *(*reasm)(struct rte_graph *graph, struct rte_node *node,
					  struct nfv_worker *w, struct rte_mbuf *m,
					  uint16_t drop_edge),
		uint16_t (*one)(struct rte_mbuf *m, void *arg), uint16_t drop_edge)
{
	struct nfv_worker *w = nfv_node_worker(node);
	uint16_t i;

	for (i = 0; i < n; i++)
		if (unlikely(is_frag(objs[i])))
			break;
	if (likely(i == n))
		return nfv_node_each(graph, node, objs, n, one, w);
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = objs[i];

		if (is_frag(m)) {
			m = reasm(graph, node, w, m, drop_edge);
			if (m == NULL)
				continue; /* held, or dropped */
		}
		rte_node_enqueue_x1(graph, node, one(m, w), m);
	}
	return n;
}

/* Frees every fragment worker's table holds (not counted as drops): on
 * the worker's own thread, or once it has stopped (tests, exit). */
void nfv_reasm_release(unsigned int worker);

/* The inject target of the control thread's ticks (control/reasm.c). */
struct nfv_inject_target;
extern struct nfv_inject_target nfv_reasm_sweep_target;

#endif
