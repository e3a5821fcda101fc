/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nat44_in: the destination half of NAT44, on the ip4 ingress arc of the
 * interfaces a rule names (after acl_in4 and policer_in4), before the
 * route lookup, so the translated packet is routed to the inside host.
 *
 * A packet of a session (its o2i key: from the remote endpoint to the
 * outside one) gets the session's inside address and port as destination;
 * for ICMP, echo replies are translated by their identifier. A packet
 * without one, for the interface's address, whose protocol and
 * destination port a dnat rule of the interface names, makes a DNAT
 * session and goes to the rule's address and port. Anything else passes
 * untouched (to nfvd's own address it is delivered locally, as without
 * NAT).
 *
 * A packet that would be translated with a TTL of 1 or 0 is not: it gets
 * ICMP time exceeded about itself as received (nat_hop_expires), no
 * session is made for it.
 *
 * An ICMP error (destination unreachable, including fragmentation needed;
 * time exceeded; parameter problem) to a session's outside address about
 * a packet of the session that left translated (the quoted packet
 * reversed has the session's o2i key) goes to the inside endpoint: the
 * outer destination and the quoted source address and port (or echo
 * identifier) become the inside ones, the quoted IP, TCP / UDP / echo
 * checksums and the error's own are updated (modules/ip/l4_icmp_error.h).
 * An error of no session, a truncated one, or one quoting what NAT never
 * translates (not TCP, UDP or ICMP echo, a non-first fragment, an ICMP
 * error) passes as it came, counted (nat44 icmp_error_no_session,
 * icmp_error_truncated, icmp_error_unsupported). An error neither makes
 * nor refreshes a session; it is not checked for its TTL here (no error is
 * sent about an error: ip4_rewrite drops it).
 *
 * With several workers, a packet that finds no session here goes to the
 * worker that owns it (nat44.h): to the client's hash owner when a dnat
 * rule names it, else to the owner of its destination port when that is
 * an outside address of an snat rule of the interface; an ICMP error goes
 * where the packet its quote reversed would.
 *
 * Edges: drop, ip4_icmp_error, then the arc's.
 * Reads: mbuf->port. Writes: the IPv4 destination, the L4 destination
 * port or ICMP identifier, the checksums; of an ICMP error, the outer
 * destination, the quoted source address and port, the checksums.
 * Drops: nat44_in/table_full, handoff_full, ttl_expired.
 */
#include <rte_cycles.h>
#include <rte_graph.h>
#include <rte_graph_worker.h>

#include "core/arc.h"
#include "core/counters.h"
#include "core/node.h"
#include "modules/ip/ip.h"
#include "modules/ip/ip_node.h"
#include "modules/ip/l4_icmp_error.h"
#include "modules/nat44/datapath/nat44_node.h"

enum nat44_in_next {
	NAT44_IN_NEXT_DROP,
	NAT44_IN_NEXT_ICMP_ERROR,
	NAT44_IN_NEXT_MAX,
};

NFV_DROP_REASON(drop_nat_in_ttl, "nat44_in", "ttl_expired",
	"TTL 1 or 0 on a packet to translate: ICMP time exceeded about it as received");
NFV_DROP_REASON(drop_nat_in_full, "nat44_in", "table_full",
	"a dnat rule matched but the worker's session table is full (nat44 set max)");

static struct nfv_arc_feature nat44_in_feature = {
	.arc_name = "ip4_ingress", .node = "nfv_nat44_in", .runs_after = "nfv_policer_in4",
};
NFV_ARC_FEATURE_REGISTER(nat44_in_feature);

NFV_DROP_REASON(drop_nat_in_handoff_full, "nat44_in", "handoff_full",
	"the ring to the worker owning the packet's session was full");

NFV_HANDOFF_DEFINE(nfv_nat_in_handoff, "nfv_nat44_in", nfv_nat_counters_block,
		   struct nfv_nat_counters);

/* Whether dst is an outside address of an snat rule of iface. */
static __rte_always_inline bool
snat_outside(const struct nfv_nat_config *cfg, uint16_t iface, rte_be32_t dst)
{
	for (uint32_t i = 0; i < cfg->n_snat; i++) {
		const struct nfv_nat_snat *r = &cfg->snat[i];
		const struct nfv_port_l3 *l3;
		uint32_t d = rte_be_to_cpu_32(dst);

		if (r->outif != iface)
			continue;
		if (!r->iface_addr) {
			if (d >= r->lo && d <= r->hi)
				return true;
			continue;
		}
		l3 = nfv_port_l3_get(iface);
		if (l3 != NULL && l3->has4 && l3->src4 == dst)
			return true;
	}
	return false;
}

static __rte_always_inline const struct nfv_nat_dnat *
dnat_match(const struct nfv_nat_config *cfg, uint16_t iface, const struct nat_pkt *p)
{
	const struct nfv_port_l3 *l3;

	for (uint32_t i = 0; i < cfg->n_dnat; i++) {
		const struct nfv_nat_dnat *r = &cfg->dnat[i];

		if (r->iface == iface && r->proto == p->proto && r->dport == p->dport) {
			l3 = nfv_port_l3_get(iface);
			return l3 != NULL && l3->has4 && l3->src4 == p->dst ? r : NULL;
		}
	}
	return NULL;
}

/*
 * An ICMP error m arriving on iface (nat_is_icmp_error), out of line (it
 * is parsed again here, so the loop's packet stays its own): translated
 * to the inside endpoint when its quote is a packet that left by a
 * session's o2i key reversed and it is addressed to the session's outside
 * address, else left as it came (counted). Returns the worker to hand it
 * to (handoff on: an error of no session here goes where the packet its
 * quote reversed would), else NFV_HANDOFF_KEEP.
 */
static __rte_noinline uint16_t
nat44_in_icmp_error(const struct nfv_worker *w, struct nfv_nat_table *t,
		    struct nfv_nat_counters *c, const struct nfv_nat_config *cfg,
		    struct rte_mbuf *m, uint16_t iface, bool handoff, uint64_t now)
{
	struct nfv_nat_session *s;
	struct nfv_nat_key k;
	struct nat_quote q;
	struct nat_pkt r;
	unsigned int dir;
	struct nat_pkt p;
	uint16_t owner;

	nat_parse(m, &p);
	switch (nat_quote_parse(m, &p, &q)) {
	case NAT_QUOTE_OK:
		break;
	case NAT_QUOTE_TRUNCATED:
		c->icmp_error_truncated++;
		return NFV_HANDOFF_KEEP;
	default:
		c->icmp_error_unsupported++;
		return NFV_HANDOFF_KEEP;
	}
	nat_quote_reversed(&q, &r);
	if (r.proto == IPPROTO_ICMP) {
		if (r.icmp_type != NAT_ICMP_ECHO_REPLY) {
			/* About an echo reply: nat44_out translates none. */
			c->icmp_error_no_session++;
			return NFV_HANDOFF_KEEP;
		}
		r.dport = r.sport;
		r.sport = 0;
	}
	nat_key(&k, &r, iface);
	s = nfv_nat_lookup(t, c, &k, &dir, now);
	if (s == NULL || dir != NFV_NAT_O2I || p.dst != s->out_addr) {
		if (s == NULL && handoff) {
			owner = dnat_match(cfg, iface, &r) != NULL ?
				nfv_handoff_endpoint_owner(r.src, r.sport) :
				snat_outside(cfg, iface, r.dst) ? nfv_nat_port_owner(r.dport) :
				NFV_HANDOFF_KEEP;
			if (owner != NFV_HANDOFF_KEEP && owner != w->index)
				return owner;
		}
		c->icmp_error_no_session++;
		return NFV_HANDOFF_KEEP;
	}
	nat_icmp_error_rewrite(&p, &q, true, s->in_addr, s->in_port);
	c->icmp_error_out2in++;
	return NFV_HANDOFF_KEEP;
}

/*
 * Packet i (m, parsed in p: TCP, UDP or ICMP) arriving on iface: an echo
 * reply or TCP / UDP packet of a session translated, or a DNAT session
 * made (or the packet handed to the session's owner). frag: p is a first
 * fragment, whose datagram is noted (modules/ip/l4_frag.h); a constant,
 * so that the copy in the loop has no fragment code.
 */
static __rte_always_inline void
nat44_in_one(const struct nfv_worker *w, struct nfv_nat_table *t, struct nfv_nat_counters *c,
	     const struct nfv_nat_config *cfg, struct rte_mbuf *m, uint16_t i, struct nat_pkt *p,
	     uint16_t iface, uint16_t *nexts, struct nfv_handoff_burst *ho, uint64_t now,
	     const bool frag)
{
	const struct nfv_nat_dnat *r;
	struct nfv_nat_session *s;
	struct nfv_nat_key k;
	unsigned int dir;
	uint64_t *why;

	if (p->proto == IPPROTO_ICMP) {
		if (p->icmp_type != NAT_ICMP_ECHO_REPLY)
			return;
		/* The identifier stands for the outside (destination) port. */
		p->dport = p->sport;
		p->sport = 0;
	}
	nat_key(&k, p, iface);
	s = nfv_nat_lookup(t, c, &k, &dir, now);
	if (s == NULL || dir != NFV_NAT_O2I) {
		struct nfv_nat_key i2o;
		uint16_t o;

		r = p->proto == IPPROTO_ICMP ? NULL : dnat_match(cfg, iface, p);
		if (ho->on && nfv_handoff_mark(ho, w, i, o = r != NULL ?
				nfv_handoff_endpoint_owner(p->src, p->sport) :
				snat_outside(cfg, iface, p->dst) ? nfv_nat_port_owner(p->dport) :
				NFV_HANDOFF_KEEP)) {
			/* A first fragment handed to its owner: the later ones
			 * follow. */
			if (frag)
				nfv_l4_frag_note(t->frag, p->src, p->dst, p->ip, p->proto,
						 NFV_NAT_O2I, iface, 0, o, now);
			return;
		}
		if (r == NULL)
			return;
		if (unlikely(nat_hop_expires(p))) {
			nexts[i] = nfv_mark_icmp(m, NFV_ICMP_TIME_EXCEEDED, 0, 0,
						 drop_nat_in_ttl.id, NAT44_IN_NEXT_ICMP_ERROR);
			return;
		}
		i2o.src = r->to_addr;
		i2o.dst = p->src;
		i2o.sport = r->to_port;
		i2o.dport = p->sport;
		i2o.proto = p->proto;
		i2o.pad = 0;
		i2o.iface = iface;
		s = nfv_nat_create(t, c, &i2o, p->dst, p->dport, NFV_NAT_DNAT, now, &why);
		if (s == NULL) {
			nexts[i] = nfv_mark_drop(m, drop_nat_in_full.id, NAT44_IN_NEXT_DROP);
			return;
		}
	} else if (unlikely(nat_hop_expires(p))) {
		nexts[i] = nfv_mark_icmp(m, NFV_ICMP_TIME_EXCEEDED, 0, 0, drop_nat_in_ttl.id,
					 NAT44_IN_NEXT_ICMP_ERROR);
		return;
	}
	nat_apply(s, p, m, NFV_NAT_O2I, now);
	c->out2in++;
	if (frag)
		nfv_l4_frag_note(t->frag, k.src, k.dst, p->ip, p->proto, NFV_NAT_O2I, iface,
				 p->dst, NFV_L4_FRAG_HERE, now);
}

/* Packet i, a fragment nat_parse did not take: a first fragment of TCP,
 * UDP or ICMP is taken as a packet of its session; a later one is
 * translated after its first (or handed where its first went). */
static __rte_noinline void
nat44_in_frag(const struct nfv_worker *w, struct nfv_nat_table *t, struct nfv_nat_counters *c,
	      const struct nfv_nat_config *cfg, struct rte_mbuf *m, uint16_t i, uint16_t iface,
	      uint16_t *nexts, struct nfv_handoff_burst *ho, uint64_t now)
{
	const struct nfv_port_l3 *l3;
	struct nat_pkt p;
	int o;

	nat_parse_first_frag(m, &p);
	if (p.ok) {
		nat44_in_one(w, t, c, cfg, m, i, &p, iface, nexts, ho, now, true);
		return;
	}
	if (nfv_l4_first_frag(&p))
		return;
	o = nat_frag_translate(t, &p, NFV_NAT_O2I, iface, now);
	if (o != NAT_FRAG_UNKNOWN) {
		if (o == NFV_HANDOFF_KEEP)
			c->frag_out2in++;
		nfv_handoff_mark(ho, w, i, (uint16_t)o);
		return;
	}
	/* Left as it came; counted when to an address NAT answers for. */
	l3 = nfv_port_l3_get(iface);
	if (snat_outside(cfg, iface, p.dst) ||
	    (cfg->n_dnat != 0 && l3 != NULL && l3->has4 && l3->src4 == p.dst))
		c->frag_unknown++;
}

static uint16_t
nat44_in_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	struct nfv_worker *w = nfv_node_worker(node);
	struct nfv_nat_counters *c = nfv_worker_counters(w, &nfv_nat_counters_block);
	const struct nfv_nat_config *cfg = __atomic_load_n(&nfv_nat_cfg, __ATOMIC_ACQUIRE);
	struct nfv_nat_table *t = &nfv_nat_tables[w->index];
	uint16_t nexts[RTE_GRAPH_BURST_SIZE];
	struct nfv_handoff_burst ho;
	struct nfv_arc_burst_edge ec = { .iface = UINT16_MAX };
	uint64_t now = rte_get_tsc_cycles();

	nfv_handoff_burst_init(&ho);
	nfv_nat_burst_start(t, c, now);
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = objs[i];
		uint16_t iface = m->port;
		struct nat_pkt p;

		nexts[i] = nfv_arc_burst_next_edge(&nat44_in_feature, &ec, iface);
		nat_parse(m, &p);
		if (!p.ok) {
			if (nat_is_icmp_error(&p))
				nfv_handoff_mark(&ho, w, i, nat44_in_icmp_error(w, t, c, cfg, m, iface,
									       ho.on, now));
			else if (unlikely(p.frag))
				nat44_in_frag(w, t, c, cfg, m, i, iface, nexts, &ho, now);
			continue;
		}
		nat44_in_one(w, t, c, cfg, m, i, &p, iface, nexts, &ho, now, false);
	}
	nfv_handoff_enqueue(graph, node, w, &nfv_nat_in_handoff, &ho, objs, nexts, n,
			    NAT44_IN_NEXT_DROP, drop_nat_in_handoff_full.id);
	return n;
}

static struct rte_node_register nat44_in_node = {
	.name = "nfv_nat44_in",
	.process = nat44_in_process,
	.init = nfv_node_ctx_init,
	.nb_edges = NAT44_IN_NEXT_MAX,
	.next_nodes = {
		[NAT44_IN_NEXT_DROP] = "nfv_drop",
		[NAT44_IN_NEXT_ICMP_ERROR] = "nfv_ip4_icmp_error",
	},
};

RTE_NODE_REGISTER(nat44_in_node);
