/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nat44_out: the source half of NAT44, on the ip4 egress arc of the
 * interfaces a rule names (after acl_out4 and policer_out4: they see the inside
 * addresses, as Linux's POSTROUTING does).
 *
 * A packet of a session (its i2o key) leaves with the session's outside
 * source address and port. A packet without one whose source is in an
 * snat rule of its output interface (the longest prefix wins) makes a
 * session: the outside address is the interface's own (or one of the
 * rule's range, chosen by the inside address, so a host keeps one), the
 * outside port the inside one when it is free for that remote endpoint,
 * else the next free port of the worker's share. ICMP echo requests are
 * translated by their identifier. A DNAT session's replies (from the
 * inside server) leave with the address and port the client used.
 * Anything else passes untouched.
 *
 * An ICMP error (destination unreachable, including fragmentation needed;
 * time exceeded; parameter problem) about a packet of a session that came
 * in translated (the quoted packet reversed has the session's i2o key:
 * from an inside host, a DNAT server, a router between them and nfvd, or
 * nfvd itself) leaves with the session's outside address as source, and
 * the outside address and port (or echo identifier) in place of the
 * inside ones as the quoted destination; the quoted IP, TCP / UDP / echo
 * checksums and the error's own are updated (modules/ip/l4_icmp_error.h).
 * An error of no session, a truncated one, or one quoting what NAT never
 * translates (not TCP, UDP or ICMP echo, a non-first fragment, an ICMP
 * error) is counted (nat44 icmp_error_*) and, when an snat rule matches
 * its source, dropped as before (under its own reason, RFC 5508: the
 * inside address is not shown); else it passes untouched. An error
 * neither makes nor refreshes a session.
 *
 * With several workers, a packet that finds no session here goes to the
 * worker owning its session (nat44.h): a packet from a dnat rule's inside
 * address and port to the owner of the client's DNAT sessions, one an snat
 * rule matches to the owner of its inside address and port, which makes
 * the session with an outside port from its own share. An ICMP error goes
 * where the packet its quote reversed would.
 *
 * Edges: drop, then the arc's.
 * Reads: meta.tx_port. Writes: the IPv4 source, the L4 source port or
 * ICMP identifier, the checksums; of an ICMP error, the outer source, the
 * quoted destination address and port, the checksums.
 * Drops: nat44_out/no_address, no_port, table_full, fragment, unsupported,
 *        icmp_error_no_session, icmp_error_truncated, icmp_error_unsupported,
 *        handoff_full.
 */
#include <rte_cycles.h>
#include <rte_graph.h>
#include <rte_graph_worker.h>
#include <rte_hash_crc.h>

#include "core/arc.h"
#include "core/counters.h"
#include "core/node.h"
#include "modules/ip/ip.h"
#include "modules/ip/l4_icmp_error.h"
#include "modules/nat44/datapath/nat44_node.h"

enum nat44_out_next {
	NAT44_OUT_NEXT_DROP,
	NAT44_OUT_NEXT_MAX,
};

NFV_DROP_REASON(drop_nat_no_address, "nat44_out", "no_address",
	"an snat rule without 'to' matched but its interface has no IPv4 address");
NFV_DROP_REASON(drop_nat_no_port, "nat44_out", "no_port",
	"an snat rule matched but no outside port was free for that remote endpoint");
NFV_DROP_REASON(drop_nat_out_full, "nat44_out", "table_full",
	"an snat rule matched but the worker's session table is full (nat44 set max)");
NFV_DROP_REASON(drop_nat_fragment, "nat44_out", "fragment",
	"a later fragment whose source an snat rule matches, of a datagram whose first "
	"fragment was not translated here in the last 2 s");
NFV_DROP_REASON(drop_nat_unsupported, "nat44_out", "unsupported",
	"a packet whose source an snat rule matches that is not TCP, UDP or ICMP echo");
NFV_DROP_REASON(drop_nat_icmp_no_session, "nat44_out", "icmp_error_no_session",
	"an ICMP error whose source an snat rule matches, about a packet of no session");
NFV_DROP_REASON(drop_nat_icmp_truncated, "nat44_out", "icmp_error_truncated",
	"an ICMP error whose source an snat rule matches, quoting less than an IPv4 header "
	"and 8 bytes (or a bad header)");
NFV_DROP_REASON(drop_nat_icmp_unsupported, "nat44_out", "icmp_error_unsupported",
	"an ICMP error whose source an snat rule matches, quoting what is never translated "
	"(not TCP, UDP or ICMP echo; a non-first fragment; an ICMP error)");

static struct nfv_arc_feature nat44_out_feature = {
	.arc_name = "ip4_egress", .node = "nfv_nat44_out", .runs_after = "nfv_policer_out4",
	.runs_before = "nfv_vlan_output4",
};
NFV_ARC_FEATURE_REGISTER(nat44_out_feature);

NFV_DROP_REASON(drop_nat_out_handoff_full, "nat44_out", "handoff_full",
	"the ring to the worker owning the packet's session was full");

NFV_HANDOFF_DEFINE(nfv_nat_out_handoff, "nfv_nat44_out", nfv_nat_counters_block,
		   struct nfv_nat_counters);

/* Whether a packet from src:sport leaving by iface is a reply of a dnat
 * rule's server (the rule's inside address and port). */
static __rte_always_inline bool
dnat_reply(const struct nfv_nat_config *cfg, uint16_t iface, const struct nat_pkt *p)
{
	for (uint32_t i = 0; i < cfg->n_dnat; i++) {
		const struct nfv_nat_dnat *r = &cfg->dnat[i];

		if (r->iface == iface && r->proto == p->proto && r->to_addr == p->src &&
		    r->to_port == p->sport)
			return true;
	}
	return false;
}

static __rte_always_inline const struct nfv_nat_snat *
snat_match(const struct nfv_nat_config *cfg, uint16_t iface, rte_be32_t src)
{
	for (uint32_t i = 0; i < cfg->n_snat; i++) {
		const struct nfv_nat_snat *r = &cfg->snat[i];

		if (r->outif == iface && (src & r->mask) == r->net)
			return r;
	}
	return NULL;
}

/* The outside address for inside address src under rule r, or 0. */
static __rte_always_inline rte_be32_t
snat_addr(const struct nfv_nat_snat *r, uint16_t iface, rte_be32_t src)
{
	const struct nfv_port_l3 *l3;

	if (!r->iface_addr)
		return rte_cpu_to_be_32(r->lo + rte_hash_crc_4byte(src, 0) % (r->hi - r->lo + 1));
	l3 = nfv_port_l3_get(iface);
	return l3 != NULL && l3->has4 ? l3->src4 : 0;
}

/*
 * A packet that is not one nat44_out translates as such (not TCP, UDP or
 * an ICMP echo request, or a fragment), out of line: an ICMP error is
 * translated to the outside endpoint when its quote is a packet that came
 * in by a session's i2o key reversed; anything else, and an error that is
 * not translated (counted), is dropped when an snat rule matches its
 * source, else passes (next: the arc's edge). With the handoff on, an
 * error of no session here goes where the packet its quote reversed would
 * (the verdict's owner).
 */
static __rte_noinline struct nat_icmp_verdict
nat44_out_other(const struct nfv_worker *w, struct nfv_nat_table *t, struct nfv_nat_counters *c,
		const struct nfv_nat_config *cfg, struct rte_mbuf *m, uint16_t iface, bool handoff,
		uint16_t next, uint64_t now)
{
	struct nat_icmp_verdict v = { .next = next, .owner = NFV_HANDOFF_KEEP };
	struct nfv_nat_session *s;
	struct nfv_nat_key k;
	struct nat_quote q;
	struct nat_pkt p, r;
	unsigned int dir;
	uint16_t reason;

	nat_parse(m, &p);
	if (!nat_is_icmp_error(&p)) {
		if (p.frag && !nfv_l4_first_frag(&p)) {
			int o = nat_frag_translate(t, &p, NFV_NAT_I2O, iface, now);

			if (o != NAT_FRAG_UNKNOWN) {
				/* Translated, or after its first fragment. */
				if (o == NFV_HANDOFF_KEEP)
					c->frag_in2out++;
				v.owner = (uint16_t)o;
				return v;
			}
			if (snat_match(cfg, iface, p.src) != NULL)
				c->frag_unknown++;
		}
		if (snat_match(cfg, iface, p.src) != NULL) {
			bool later = p.frag && !nfv_l4_first_frag(&p);

			v.next = nfv_mark_drop(m, later ? drop_nat_fragment.id :
					       drop_nat_unsupported.id, NAT44_OUT_NEXT_DROP);
			c->unsupported++;
		}
		return v;
	}
	switch (nat_quote_parse(m, &p, &q)) {
	case NAT_QUOTE_OK:
		break;
	case NAT_QUOTE_TRUNCATED:
		c->icmp_error_truncated++;
		reason = drop_nat_icmp_truncated.id;
		goto untranslated;
	default:
		c->icmp_error_unsupported++;
		reason = drop_nat_icmp_unsupported.id;
		goto untranslated;
	}
	reason = drop_nat_icmp_no_session.id;
	nat_quote_reversed(&q, &r);
	if (r.proto == IPPROTO_ICMP && r.icmp_type != NAT_ICMP_ECHO_REQUEST) {
		/* About an echo request: nat44_in translates none. */
		c->icmp_error_no_session++;
		goto untranslated;
	}
	nat_key(&k, &r, iface);
	s = nfv_nat_lookup(t, c, &k, &dir, now);
	if (s == NULL || dir != NFV_NAT_I2O) {
		if (s == NULL && handoff) {
			v.owner = dnat_reply(cfg, iface, &r) ?
				  nfv_handoff_endpoint_owner(r.dst, r.dport) :
				  snat_match(cfg, iface, r.src) != NULL ?
				  nfv_handoff_endpoint_owner(r.src, r.sport) : NFV_HANDOFF_KEEP;
			if (v.owner != NFV_HANDOFF_KEEP && v.owner != w->index)
				return v;
			v.owner = NFV_HANDOFF_KEEP;
		}
		c->icmp_error_no_session++;
		goto untranslated;
	}
	nat_icmp_error_rewrite(&p, &q, false, s->out_addr, s->out_port);
	c->icmp_error_in2out++;
	return v;
untranslated:
	if (snat_match(cfg, iface, p.src) != NULL)
		v.next = nfv_mark_drop(m, reason, NAT44_OUT_NEXT_DROP);
	return v;
}

/*
 * Packet i (m, parsed in p: TCP, UDP or an ICMP echo request) on its way
 * out of iface: translated by its session, or the session made (or the
 * packet handed to the session's owner, or dropped). frag: p is a first
 * fragment, whose datagram is noted (modules/ip/l4_frag.h); a constant,
 * so that the copy in the loop has no fragment code.
 */
static __rte_always_inline void
nat44_out_one(const struct nfv_worker *w, struct nfv_nat_table *t, struct nfv_nat_counters *c,
	      const struct nfv_nat_config *cfg, struct rte_mbuf *m, uint16_t i, struct nat_pkt *p,
	      uint16_t iface, uint16_t *nexts, struct nfv_handoff_burst *ho, uint64_t now,
	      const bool frag)
{
	const struct nfv_nat_snat *r;
	struct nfv_nat_session *s;
	struct nfv_nat_key k;
	unsigned int dir;
	uint64_t *why;
	rte_be32_t out;
	uint16_t o;

	nat_key(&k, p, iface);
	s = nfv_nat_lookup(t, c, &k, &dir, now);
	if (s == NULL || dir != NFV_NAT_I2O) {
		if (ho->on && dnat_reply(cfg, iface, p) &&
		    nfv_handoff_mark(ho, w, i, o = nfv_handoff_endpoint_owner(p->dst, p->dport)))
			goto handed;
		r = snat_match(cfg, iface, p->src);
		if (r == NULL)
			return;
		if (ho->on &&
		    nfv_handoff_mark(ho, w, i, o = nfv_handoff_endpoint_owner(p->src, p->sport)))
			goto handed;
		out = snat_addr(r, iface, p->src);
		if (out == 0) {
			nexts[i] = nfv_mark_drop(m, drop_nat_no_address.id, NAT44_OUT_NEXT_DROP);
			return;
		}
		s = nfv_nat_create(t, c, &k, out, 0, NFV_NAT_SNAT, now, &why);
		if (s == NULL) {
			nexts[i] = nfv_mark_drop(m, why == &c->no_port ? drop_nat_no_port.id :
						 drop_nat_out_full.id, NAT44_OUT_NEXT_DROP);
			return;
		}
	}
	nat_apply(s, p, m, NFV_NAT_I2O, now);
	c->in2out++;
	if (frag)
		nfv_l4_frag_note(t->frag, k.src, k.dst, p->ip, p->proto, NFV_NAT_I2O, iface,
				 p->src, NFV_L4_FRAG_HERE, now);
	return;
handed:
	/* A first fragment handed to its owner: the later ones follow. */
	if (frag)
		nfv_l4_frag_note(t->frag, p->src, p->dst, p->ip, p->proto, NFV_NAT_I2O, iface, 0,
				 o, now);
}

/* Packet i, a fragment nat_parse did not take: when it is a first
 * fragment of what nat44_out translates, it is taken as a packet of its
 * session (true). */
static __rte_noinline bool
nat44_out_first_frag(const struct nfv_worker *w, struct nfv_nat_table *t,
		     struct nfv_nat_counters *c, const struct nfv_nat_config *cfg,
		     struct rte_mbuf *m, uint16_t i, uint16_t iface, uint16_t *nexts,
		     struct nfv_handoff_burst *ho, uint64_t now)
{
	struct nat_pkt p;

	nat_parse_first_frag(m, &p);
	if (!p.ok || (p.proto == IPPROTO_ICMP && p.icmp_type != NAT_ICMP_ECHO_REQUEST))
		return false;
	nat44_out_one(w, t, c, cfg, m, i, &p, iface, nexts, ho, now, true);
	return true;
}

static uint16_t
nat44_out_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
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
		uint16_t iface = nfv_meta(m)->tx_port;
		struct nat_pkt p;

		nexts[i] = nfv_arc_burst_next_edge(&nat44_out_feature, &ec, iface);
		nat_parse(m, &p);
		if (unlikely(!p.ok || (p.proto == IPPROTO_ICMP &&
				       p.icmp_type != NAT_ICMP_ECHO_REQUEST))) {
			struct nat_icmp_verdict v;

			if (p.frag && nat44_out_first_frag(w, t, c, cfg, m, i, iface, nexts, &ho,
							   now))
				continue;
			v = nat44_out_other(w, t, c, cfg, m, iface, ho.on, nexts[i], now);
			nexts[i] = v.next;
			nfv_handoff_mark(&ho, w, i, v.owner);
			continue;
		}
		nat44_out_one(w, t, c, cfg, m, i, &p, iface, nexts, &ho, now, false);
	}
	nfv_handoff_enqueue(graph, node, w, &nfv_nat_out_handoff, &ho, objs, nexts, n,
			    NAT44_OUT_NEXT_DROP, drop_nat_out_handoff_full.id);
	return n;
}

static struct rte_node_register nat44_out_node = {
	.name = "nfv_nat44_out",
	.process = nat44_out_process,
	.init = nfv_node_ctx_init,
	.nb_edges = NAT44_OUT_NEXT_MAX,
	.next_nodes = {
		[NAT44_OUT_NEXT_DROP] = "nfv_drop",
	},
};

RTE_NODE_REGISTER(nat44_out_node);
