/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reassembly of the datagrams addressed to nfvd (reasm.h): what ip4_local
 * and ip6_local call for a fragment, and nfv_ip_reasm_sweep, the node the
 * control thread's ticks are injected to (a worker that holds fragments
 * expires them even when no other fragment comes).
 *
 * The table's death row is emptied after every call: its fragments go to
 * the caller's drop edge, under reassembly_timeout when the expiry put
 * them there, else reassembly_failed (of the family of their IP header,
 * which the table leaves at the Ethernet header's end until a datagram
 * is complete; a call for one family fails only fragments of that family,
 * since the expiry runs first and nothing stale is left to evict).
 *
 * Edges (nfv_ip_reasm_sweep): drop. Drops: ip4_local and ip6_local
 * reassembly_failed, reassembly_timeout. Counters: ip reassembled,
 * reassembled fragments (per family); held (per worker, reasm.h).
 */
#include <rte_cycles.h>
#include <rte_graph.h>
#include <rte_graph_worker.h>
#include <rte_ip_frag.h>

#include "core/node.h"
#include "modules/ip/ip_counters.h"
#include "modules/ip/ip_node.h"
#include "modules/ip/reasm.h"
#include "modules/punt/punt.h"

struct nfv_reasm_worker nfv_reasm_workers[NFV_MAX_WORKERS];

NFV_DROP_REASON(drop_reasm4_failed, "ip4_local", "reassembly_failed",
	"IPv4 fragment for a local address that cannot be reassembled: inconsistent or "
	"overlapping, more than 8 of a datagram, over 65535 bytes, or no room in the table");
NFV_DROP_REASON(drop_reasm4_timeout, "ip4_local", "reassembly_timeout",
	"IPv4 fragment for a local address whose datagram was not complete in time");
NFV_DROP_REASON(drop_reasm6_failed, "ip6_local", "reassembly_failed",
	"IPv6 fragment for a local address that cannot be reassembled: inconsistent or "
	"overlapping, more than 8 of a datagram, over 65535 bytes, or no room in the table");
NFV_DROP_REASON(drop_reasm6_timeout, "ip6_local", "reassembly_timeout",
	"IPv6 fragment for a local address whose datagram was not complete in time");

/* The death row's fragments to the drop edge; returns how many. */
static uint32_t
reasm_flush(struct rte_graph *graph, struct rte_node *node, struct nfv_reasm_worker *r,
	    uint16_t drop_edge, bool timeout)
{
	uint32_t n = r->dr.cnt;

	for (uint32_t i = 0; i < n; i++) {
		struct rte_mbuf *m = r->dr.row[i];
		const uint8_t *l3 = rte_pktmbuf_mtod_offset(m, const uint8_t *, NFV_L2_LEN);
		bool v6 = rte_pktmbuf_data_len(m) > NFV_L2_LEN && (l3[0] >> 4) == 6;
		uint16_t reason = timeout ? (v6 ? drop_reasm6_timeout.id : drop_reasm4_timeout.id) :
				  (v6 ? drop_reasm6_failed.id : drop_reasm4_failed.id);

		nfv_mark_drop(m, reason, drop_edge);
		rte_node_enqueue_x1(graph, node, drop_edge, m);
	}
	r->dr.cnt = 0;
	return n;
}

/* The fragments whose datagram timed out by now, dropped (the death row
 * takes a few datagrams a call: called until it takes none). */
static void
reasm_expire(struct rte_graph *graph, struct rte_node *node, struct nfv_reasm_worker *r,
	     uint16_t drop_edge, uint64_t now)
{
	uint32_t n;

	do {
		rte_ip_frag_table_del_expired_entries(r->tbl, &r->dr, now);
		n = reasm_flush(graph, node, r, drop_edge, true);
		r->held -= n;
	} while (n != 0);
}

/* m dropped as a fragment that cannot be reassembled. */
static struct rte_mbuf *
reasm_refuse(struct rte_graph *graph, struct rte_node *node, struct rte_mbuf *m, bool v6,
	     uint16_t drop_edge)
{
	nfv_mark_drop(m, v6 ? drop_reasm6_failed.id : drop_reasm4_failed.id, drop_edge);
	rte_node_enqueue_x1(graph, node, drop_edge, m);
	return NULL;
}

/*
 * m (l2_len and l3_len set, checked) to the table: the datagram it
 * completes, whose fragments are counted, or NULL (held, or dropped with
 * the others the table gave up).
 */
static struct rte_mbuf *
reasm_add(struct rte_graph *graph, struct rte_node *node, struct nfv_worker *w,
	  struct rte_mbuf *m, uint16_t drop_edge, unsigned int fam)
{
	struct nfv_reasm_worker *r = &nfv_reasm_workers[w->index];
	uint64_t now = rte_rdtsc();
	struct rte_mbuf *d;
	uint8_t *l3;

	reasm_expire(graph, node, r, drop_edge, now);
	l3 = rte_pktmbuf_mtod_offset(m, uint8_t *, NFV_L2_LEN);
	if (fam == 0)
		d = rte_ipv4_frag_reassemble_packet(r->tbl, &r->dr, m, now,
						    (struct rte_ipv4_hdr *)l3);
	else
		d = rte_ipv6_frag_reassemble_packet(r->tbl, &r->dr, m, now,
			(struct rte_ipv6_hdr *)l3,
			(struct rte_ipv6_fragment_ext *)(l3 + sizeof(struct rte_ipv6_hdr)));
	if (d == NULL) {
		/* m held, unless it is on the death row (with what it
		 * failed). */
		r->held += 1;
		r->held -= reasm_flush(graph, node, r, drop_edge, false);
		return NULL;
	}
	/* Every fragment was one segment: the datagram's segments are its
	 * fragments, m and those that were held. */
	r->held -= (uint64_t)(d->nb_segs - 1);
	nfv_ip_counters(w)->reassembled[fam]++;
	nfv_ip_counters(w)->reassembled_fragments[fam] += d->nb_segs;
	d->l2_len = 0;
	d->l3_len = 0;
	return d;
}

/* Whether m is one segment (made so when its first has room for it):
 * reasm_add counts a datagram's fragments by its segments. */
static bool
reasm_one_segment(struct rte_mbuf *m)
{
	return m->nb_segs == 1 || rte_pktmbuf_linearize(m) == 0;
}

struct rte_mbuf *
nfv_reasm4(struct rte_graph *graph, struct rte_node *node, struct nfv_worker *w,
	   struct rte_mbuf *m, uint16_t drop_edge)
{
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, NFV_L2_LEN);
	uint32_t ihl = rte_ipv4_hdr_len(ip), total = rte_be_to_cpu_16(ip->total_length);
	uint16_t frag = rte_be_to_cpu_16(ip->fragment_offset);
	uint32_t ofs = (uint32_t)(frag & RTE_IPV4_HDR_OFFSET_MASK) * RTE_IPV4_HDR_OFFSET_UNITS;
	struct rte_mbuf *d;

	/* No data, data past 65,535 bytes, or a fragment with more to come
	 * whose data is not a multiple of 8 bytes (RFC 791). */
	if (nfv_reasm_workers[w->index].tbl == NULL || total <= ihl ||
	    ofs + total > UINT16_MAX ||
	    ((frag & RTE_IPV4_HDR_MF_FLAG) && ((total - ihl) & 7) != 0) ||
	    !reasm_one_segment(m))
		return reasm_refuse(graph, node, m, false, drop_edge);
	m->l2_len = NFV_L2_LEN;
	m->l3_len = ihl;
	d = reasm_add(graph, node, w, m, drop_edge, 0);
	if (d != NULL) {
		ip = rte_pktmbuf_mtod_offset(d, struct rte_ipv4_hdr *, NFV_L2_LEN);
		ip->hdr_checksum = 0; /* the table leaves it 0 */
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	}
	return d;
}

struct rte_mbuf *
nfv_reasm6(struct rte_graph *graph, struct rte_node *node, struct nfv_worker *w,
	   struct rte_mbuf *m, uint16_t drop_edge)
{
	const uint32_t hdrs = sizeof(struct rte_ipv6_hdr) + sizeof(struct rte_ipv6_fragment_ext);
	struct rte_ipv6_hdr *ip;
	const struct rte_ipv6_fragment_ext *fh;
	uint32_t plen, ofs;

	if (nfv_reasm_workers[w->index].tbl == NULL || !reasm_one_segment(m) ||
	    rte_pktmbuf_data_len(m) < NFV_L2_LEN + hdrs)
		return reasm_refuse(graph, node, m, true, drop_edge);
	ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *, NFV_L2_LEN);
	fh = (const struct rte_ipv6_fragment_ext *)(ip + 1);
	plen = rte_be_to_cpu_16(ip->payload_len);
	ofs = (uint32_t)RTE_IPV6_GET_FO(rte_be_to_cpu_16(fh->frag_data)) * 8;
	/* No data, data past 65,535 bytes, or more to come and not a
	 * multiple of 8 bytes (RFC 8200 4.5). */
	if (plen <= sizeof(*fh) || ofs + plen - sizeof(*fh) > UINT16_MAX ||
	    (RTE_IPV6_GET_MF(rte_be_to_cpu_16(fh->frag_data)) && ((plen - sizeof(*fh)) & 7) != 0))
		return reasm_refuse(graph, node, m, true, drop_edge);
	if (ofs == 0 && !RTE_IPV6_GET_MF(rte_be_to_cpu_16(fh->frag_data))) {
		/* An atomic fragment: a datagram of its own, whatever else is
		 * held (RFC 6946 4): its fragment header taken out. */
		uint8_t next = fh->next_header;

		ip->proto = next;
		ip->payload_len = rte_cpu_to_be_16((uint16_t)(plen - sizeof(*fh)));
		memmove(rte_pktmbuf_mtod_offset(m, uint8_t *, sizeof(*fh)),
			rte_pktmbuf_mtod(m, uint8_t *), NFV_L2_LEN + sizeof(*ip));
		rte_pktmbuf_adj(m, sizeof(*fh));
		nfv_ip_counters(w)->reassembled[1]++;
		nfv_ip_counters(w)->reassembled_fragments[1]++;
		return m;
	}
	m->l2_len = NFV_L2_LEN;
	m->l3_len = hdrs;
	return reasm_add(graph, node, w, m, drop_edge, 1);
}

void
nfv_reasm_release(unsigned int worker)
{
	struct nfv_reasm_worker *r = &nfv_reasm_workers[worker];

	if (r->tbl != NULL)
		rte_ip_frag_table_del_expired_entries(r->tbl, &r->dr, UINT64_MAX);
	rte_ip_frag_free_death_row(&r->dr, 0);
	r->held = 0;
}

enum reasm_sweep_next {
	REASM_SWEEP_NEXT_DROP,
	REASM_SWEEP_NEXT_MAX,
};

struct nfv_inject_target nfv_reasm_sweep_target = {
	.name = "reasm_sweep",
	.node = "nfv_ip_reasm_sweep",
};
NFV_INJECT_TARGET_REGISTER(nfv_reasm_sweep_target);

/* The control thread's ticks (packets of no meaning, freed): this worker's
 * timed-out fragments dropped. */
static uint16_t
reasm_sweep_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	struct nfv_worker *w = nfv_node_worker(node);
	struct nfv_reasm_worker *r = &nfv_reasm_workers[w->index];

	if (r->tbl != NULL)
		reasm_expire(graph, node, r, REASM_SWEEP_NEXT_DROP, rte_rdtsc());
	rte_pktmbuf_free_bulk((struct rte_mbuf **)objs, n);
	return n;
}

static struct rte_node_register reasm_sweep_node = {
	.name = "nfv_ip_reasm_sweep",
	.process = reasm_sweep_process,
	.init = nfv_node_ctx_init,
	.nb_edges = REASM_SWEEP_NEXT_MAX,
	.next_nodes = {
		[REASM_SWEEP_NEXT_DROP] = "nfv_drop",
	},
};

RTE_NODE_REGISTER(reasm_sweep_node);
