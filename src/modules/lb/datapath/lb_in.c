/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lb_in: the load balancer's node, on the ip4 ingress arc of every
 * interface while a service exists (after acl_in4 and policer_in4, before
 * nat44_in), before the route lookup, so a translated packet is routed to
 * its new destination.
 *
 * A TCP or UDP packet to a service's VIP and port: its session's backend
 * becomes its destination address and port. Without a session, or with a
 * TCP SYN (a new connection, scheduled afresh), or when the session's
 * backend was deleted, the Maglev table of the service picks a backend
 * from a hash of the 5-tuple and a session is made. A packet from a
 * backend endpoint (a bitmap says maybe; the session table says surely)
 * of a session: its source becomes the VIP and port. Anything else passes
 * untouched (ICMP to a VIP that is also an interface address is answered
 * by nfvd, as without lb). A fragmented datagram's first fragment is
 * taken as any packet of its session; its later fragments get what it got
 * (modules/ip/l4_frag.h), or, before their first, pass as they came.
 *
 * With several workers, a packet of a mode nat service that finds no
 * session on its worker goes to the worker its client's address and port
 * name (lb.h): a packet to the VIP (client as source) before it is
 * scheduled, a packet from a backend endpoint (client as destination).
 * Mode dsr has no reply through nfvd: its sessions stay where RSS puts
 * the flow.
 *
 * Mode dsr: the packet is not changed; it goes straight to ip4_rewrite
 * with the next hop of the route to its backend (lb_dsr).
 *
 * A packet that would be translated (mode nat, either way) with a TTL of 1
 * or 0 is not: it gets ICMP time exceeded about itself as received
 * (nat_hop_expires), no session is made for it. (Mode dsr changes nothing
 * in the packet: ip4_rewrite answers it.)
 *
 * An ICMP error (destination unreachable, including fragmentation needed;
 * time exceeded; parameter problem) whose quoted packet reversed is a
 * packet of a session (modules/ip/l4_icmp_error.h), as IPVS does: one
 * addressed to the VIP, about a packet from the VIP (a backend's reply
 * as the client got it), goes to the backend with the outer destination
 * and the quoted source address and port the backend's (mode dsr: to the
 * backend unchanged, as its client's packets); one about a packet a
 * client sent to a backend (from a router on the way to the backend, or
 * the backend) goes on to the client with the VIP and port as the outer
 * source and the quoted destination. The quoted IP and TCP / UDP
 * checksums and the error's own are updated. An error matching no session
 * or truncated passes as it came, counted (lb icmp_error_no_session,
 * icmp_error_truncated); one quoting ICMP or another protocol is not the
 * lb's and passes. An error neither makes nor refreshes a session, and is
 * handed to the worker its quote reversed would go to.
 *
 * Edges: drop, ip4_rewrite (dsr), ip4_icmp_error, then the arc's.
 * Reads: mbuf->port. Writes: IPv4 source or destination, the L4 port, the
 * checksums (RFC 1624 updates); meta.nh (dsr); of an ICMP error, the
 * outer destination and quoted source or the outer source and quoted
 * destination, the checksums.
 * Drops: lb/no_backend, lb/table_full, lb/backend_no_route,
 * lb/backend_unresolved, lb/handoff_full.
 */
#include <rte_cycles.h>
#include <rte_graph.h>
#include <rte_graph_worker.h>

#include "core/arc.h"
#include "core/counters.h"
#include "core/node.h"
#include "modules/ip/ip.h"
#include "modules/ip/ip_node.h"
#include "modules/ip/l4_frag.h"
#include "modules/ip/l4_icmp_error.h"
#include "modules/ip/l4_rewrite.h"
#include "modules/lb/datapath/lb_node.h"
#include "modules/lb/lb.h"

enum lb_in_next {
	LB_IN_NEXT_DROP,
	LB_IN_NEXT_REWRITE, /* dsr: to the backend's next hop, the lookup done here */
	LB_IN_NEXT_ICMP_ERROR,
	LB_IN_NEXT_MAX,
};

NFV_DROP_REASON(drop_lb_ttl, "lb", "ttl_expired",
	"mode nat: TTL 1 or 0 on a packet to translate: ICMP time exceeded about it as received");
NFV_DROP_REASON(drop_lb_no_backend, "lb", "no_backend",
	"a new connection to a service none of whose backends has a weight above 0");
NFV_DROP_REASON(drop_lb_full, "lb", "table_full",
	"a new connection to a service but the worker's session table is full");
NFV_DROP_REASON(drop_lb_no_route, "lb", "backend_no_route",
	"mode dsr: no route to the backend's address (or not one that forwards)");
NFV_DROP_REASON(drop_lb_unresolved, "lb", "backend_unresolved",
	"mode dsr: the backend is on a link of nfvd's and its MAC is not known yet "
	"(asked for each second)");

NFV_DROP_REASON(drop_lb_handoff_full, "lb", "handoff_full",
	"the ring to the worker owning the packet's session was full");

NFV_HANDOFF_DEFINE(nfv_lb_handoff, "nfv_lb_in", nfv_lb_counters_block,
		   struct nfv_lb_counters);

static struct nfv_arc_feature lb_in_feature = {
	.arc_name = "ip4_ingress", .node = "nfv_lb_in", .runs_after = "nfv_policer_in4",
	.runs_before = "nfv_nat44_in",
};
NFV_ARC_FEATURE_REGISTER(lb_in_feature);

static __rte_always_inline void
lb_touch(struct nfv_lb_session *s, unsigned int dir, const struct nat_pkt *p,
	 const struct rte_mbuf *m, uint64_t now)
{
	s->packets[dir]++;
	s->bytes[dir] += rte_pktmbuf_pkt_len(m) - NFV_L2_LEN;
	if (s->state != NFV_LB_UDP)
		s->state = nfv_l4_tcp_track(&s->flags, dir, p->tcp_flags) ?
			   NFV_LB_TCP_ESTABLISHED : NFV_LB_TCP_TRANSITORY;
	s->expire_tsc = now + __atomic_load_n(&nfv_lb_timeout_tsc[s->state], __ATOMIC_RELAXED);
}

/*
 * Direct server return: the packet, unchanged, to the next hop of the
 * route to the backend (ip4_rewrite decrements the TTL and writes the
 * MAC). A next hop on the link without a host route is unresolved: the
 * control side asks for it; until then the packet is dropped, as the
 * rewrite node would ask for the VIP instead.
 */
static __rte_always_inline uint16_t
lb_dsr(struct rte_mbuf *m, struct rte_fib *fib, rte_be32_t backend)
{
	uint32_t a = rte_be_to_cpu_32(backend);
	const struct nfv_nexthop *nh;
	uint64_t v = 0;

	rte_fib_lookup_bulk(fib, &a, &v, 1);
	nh = nfv_fib_nh_id(v) != 0 ? nfv_nh_get(nfv_fib_nh_id(v)) : NULL;
	if (unlikely(nh == NULL || !nfv_nh_forwards(nh)))
		return nfv_mark_drop(m, drop_lb_no_route.id, LB_IN_NEXT_DROP);
	if (unlikely(nh->type == NFV_NH_CONNECTED))
		return nfv_mark_drop(m, drop_lb_unresolved.id, LB_IN_NEXT_DROP);
	nfv_meta(m)->nh = nh;
	return LB_IN_NEXT_REWRITE;
}

/*
 * An ICMP error m (nat_is_icmp_error), out of line (it is parsed again
 * here, so the loop's packet stays its own), about a packet of a session:
 * to the VIP about a backend's reply, it goes to the backend (mode dsr:
 * as it is); about a client's packet to a backend, on to the client from
 * the VIP. The verdict: next (the arc's edge) or the dsr edge; with the
 * handoff on, an error of no session here goes where the packet its quote
 * reversed would (the verdict's owner).
 */
static __rte_noinline struct nat_icmp_verdict
lb_icmp_error(const struct nfv_worker *w, struct nfv_lb_table *t, struct nfv_lb_counters *c,
	      const struct nfv_lb_config *cfg, struct rte_mbuf *m, bool handoff, uint16_t next,
	      uint64_t now)
{
	struct nat_icmp_verdict v = { .next = next, .owner = NFV_HANDOFF_KEEP };
	struct lb_icmp_error e;

	if (!lb_icmp_error_find(w, t, c, cfg, m, handoff, now, &e)) {
		v.owner = e.owner;
		return v;
	}
	if (e.dir == NFV_LB_FWD) {
		c->icmp_error_fwd++;
		if (cfg->svc[e.s->svc].mode == NFV_LB_DSR)
			v.next = lb_dsr(m, nfv_fib4_active(), e.s->backend);
		else
			nat_icmp_error_rewrite(&e.p, &e.q, true, e.s->backend, e.s->bport);
		return v;
	}
	nat_icmp_error_rewrite(&e.p, &e.q, false, e.s->vip, e.s->vport);
	c->icmp_error_rev++;
	return v;
}

/* What a note of lb tells a datagram's later fragments (l4_frag.h):
 * to a VIP, their destination becomes the backend's (mode nat) or they go
 * to the backend as they are (mode dsr); from a backend, their source
 * becomes the VIP. The notes' direction: NFV_LB_FWD or NFV_LB_REV. */
enum lb_frag_action { LB_FRAG_NAT, LB_FRAG_DSR };

/*
 * Packet i (m, parsed in p: TCP or UDP) arriving on its interface: to a
 * service's VIP and port, given to its session's backend (the session
 * made first when there is none); from a backend endpoint of a session,
 * given the VIP as source; or handed to the worker owning its session.
 * frag: p is a first fragment, whose datagram is noted for its later
 * fragments (l4_frag.h); a constant, so that the copy in the loop has no
 * fragment code.
 */
static __rte_always_inline void
lb_in_one(const struct nfv_worker *w, struct nfv_lb_table *t, struct nfv_lb_counters *c,
	  const struct nfv_lb_config *cfg, struct rte_mbuf *m, uint16_t i, struct nat_pkt *p,
	  uint16_t *nexts, struct nfv_handoff_burst *ho, uint64_t now, const bool frag)
{
	const struct nfv_lb_service *svc;
	struct nfv_lb_session *s;
	struct nfv_lb_key k;
	unsigned int dir;
	rte_be32_t orig_src = p->src, orig_dst = p->dst;
	uint16_t o;

	svc = nfv_lb_svc_find(cfg, p->dst, p->dport, p->proto);
	if (svc == NULL) {
		uint32_t bit = nfv_lb_be_bit(p->src, p->sport, p->proto);

		if (!(cfg->be_bits[bit >> 6] & (1ull << (bit & 63))))
			return;
		lb_key(&k, p);
		s = nfv_lb_lookup(t, c, &k, &dir, now);
		if (s == NULL && ho->on) {
			if (nfv_handoff_mark(ho, w, i, o = nfv_handoff_endpoint_owner(p->dst,
										 p->dport)) &&
			    frag)
				nfv_l4_frag_note(t->frag, orig_src, orig_dst, p->ip, p->proto,
						 NFV_LB_REV, m->port, 0, o, now);
			return;
		}
		if (s == NULL || dir != NFV_LB_REV)
			return;
		if (!lb_live(cfg, s)) {
			nfv_lb_forget(t, s);
			return;
		}
		if (unlikely(nat_hop_expires(p))) {
			nexts[i] = nfv_mark_icmp(m, NFV_ICMP_TIME_EXCEEDED, 0, 0, drop_lb_ttl.id,
						 LB_IN_NEXT_ICMP_ERROR);
			return;
		}
		nat_rewrite(p, false, s->vip, s->vport);
		lb_touch(s, NFV_LB_REV, p, m, now);
		c->rev++;
		if (frag)
			nfv_l4_frag_note(t->frag, orig_src, orig_dst, p->ip, p->proto, NFV_LB_REV,
					 m->port, s->vip, NFV_L4_FRAG_HERE, now);
		return;
	}
	lb_key(&k, p);
	s = nfv_lb_lookup(t, c, &k, &dir, now);
	if (s != NULL && (dir != NFV_LB_FWD || !lb_live(cfg, s) ||
			  (p->tcp_flags & (RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG)) ==
				  RTE_TCP_SYN_FLAG)) {
		/* Not ours to keep: a backend talking to a VIP, a deleted
		 * backend, or a new connection. */
		if (dir != NFV_LB_FWD)
			return;
		nfv_lb_forget(t, s);
		c->rescheduled++;
		s = NULL;
	}
	if (s == NULL) {
		uint8_t b;

		if (ho->on && svc->mode != NFV_LB_DSR &&
		    nfv_handoff_mark(ho, w, i, o = nfv_handoff_endpoint_owner(p->src, p->sport))) {
			if (frag)
				nfv_l4_frag_note(t->frag, orig_src, orig_dst, p->ip, p->proto,
						 NFV_LB_FWD, m->port, 0, o, now);
			return;
		}
		b = svc->maglev[rte_hash_crc(&k, sizeof(k), 0) % NFV_MAGLEV_SIZE];

		if (unlikely(svc->mode != NFV_LB_DSR && nat_hop_expires(p))) {
			nexts[i] = nfv_mark_icmp(m, NFV_ICMP_TIME_EXCEEDED, 0, 0, drop_lb_ttl.id,
						 LB_IN_NEXT_ICMP_ERROR);
			return;
		}
		if (unlikely(b == NFV_MAGLEV_NONE)) {
			nexts[i] = nfv_mark_drop(m, drop_lb_no_backend.id, LB_IN_NEXT_DROP);
			c->no_backend++;
			return;
		}
		s = nfv_lb_create(t, c, &k, svc, (uint16_t)(svc - cfg->svc), b, now);
		if (s == NULL) {
			nexts[i] = nfv_mark_drop(m, drop_lb_full.id, LB_IN_NEXT_DROP);
			return;
		}
	} else if (unlikely(svc->mode != NFV_LB_DSR && nat_hop_expires(p))) {
		nexts[i] = nfv_mark_icmp(m, NFV_ICMP_TIME_EXCEEDED, 0, 0, drop_lb_ttl.id,
					 LB_IN_NEXT_ICMP_ERROR);
		return;
	}
	lb_touch(s, NFV_LB_FWD, p, m, now);
	c->fwd++;
	if (svc->mode == NFV_LB_DSR)
		nexts[i] = lb_dsr(m, nfv_fib4_active(), s->backend);
	else
		nat_rewrite(p, true, s->backend, s->bport);
	if (frag)
		nfv_l4_frag_note_as(t->frag, orig_src, orig_dst, p->ip, p->proto, NFV_LB_FWD,
				    m->port, s->backend,
				    svc->mode == NFV_LB_DSR ? LB_FRAG_DSR : LB_FRAG_NAT,
				    NFV_L4_FRAG_HERE, now);
}

/* Whether addr is a service's VIP. */
static bool
lb_is_vip(const struct nfv_lb_config *cfg, rte_be32_t addr)
{
	for (uint32_t i = 0; i < cfg->n_services; i++)
		if (cfg->svc[i].uid != 0 && cfg->svc[i].vip == addr)
			return true;
	return false;
}

/*
 * Packet i, a fragment nat_parse did not take: a first fragment of TCP or
 * UDP is taken as a packet of its session; a later one of a noted
 * datagram gets what its first did (or goes to the worker its first went
 * to); any other is left as it came (counted when to a VIP).
 */
static __rte_noinline void
lb_in_frag(const struct nfv_worker *w, struct nfv_lb_table *t, struct nfv_lb_counters *c,
	   const struct nfv_lb_config *cfg, struct rte_mbuf *m, uint16_t i, uint16_t *nexts,
	   struct nfv_handoff_burst *ho, uint64_t now)
{
	const struct nfv_l4_frag *f;
	struct nat_pkt p;

	nat_parse_first_frag(m, &p);
	if (p.ok) {
		if (p.proto != IPPROTO_ICMP)
			lb_in_one(w, t, c, cfg, m, i, &p, nexts, ho, now, true);
		return;
	}
	if (nfv_l4_first_frag(&p))
		return;
	f = nfv_l4_frag_find(t->frag, &p, NFV_LB_FWD, m->port, now);
	if (f == NULL)
		f = nfv_l4_frag_find(t->frag, &p, NFV_LB_REV, m->port, now);
	if (f == NULL) {
		if (lb_is_vip(cfg, p.dst))
			c->frag_unknown++;
		return;
	}
	if (f->owner != NFV_L4_FRAG_HERE) {
		nfv_handoff_mark(ho, w, i, f->owner);
		return;
	}
	if (f->dir == NFV_LB_REV) {
		nfv_l4_frag_rewrite(&p, false, f->addr);
		c->frag_rev++;
		return;
	}
	if (f->action == LB_FRAG_DSR)
		nexts[i] = lb_dsr(m, nfv_fib4_active(), f->addr);
	else
		nfv_l4_frag_rewrite(&p, true, f->addr);
	c->frag_fwd++;
}

static uint16_t
lb_in_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	struct nfv_worker *w = nfv_node_worker(node);
	struct nfv_lb_counters *c = nfv_worker_counters(w, &nfv_lb_counters_block);
	const struct nfv_lb_config *cfg = __atomic_load_n(&nfv_lb_cfg, __ATOMIC_ACQUIRE);
	struct nfv_lb_table *t = &nfv_lb_tables[w->index];
	uint16_t nexts[RTE_GRAPH_BURST_SIZE];
	struct nfv_handoff_burst ho;
	struct nfv_arc_burst_edge ec = { .iface = UINT16_MAX };
	uint64_t now = rte_get_tsc_cycles();

	nfv_handoff_burst_init(&ho);
	nfv_lb_burst_start(t, c, now);
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = objs[i];
		struct nat_pkt p;

		nexts[i] = nfv_arc_burst_next_edge(&lb_in_feature, &ec, m->port);
		nat_parse(m, &p);
		if (!p.ok || p.proto == IPPROTO_ICMP) {
			/* unlikely: without it, the plain packets' path took one
			 * instruction more a packet (callgrind, ipv4-lb). */
			if (unlikely(nat_is_icmp_error(&p))) {
				struct nat_icmp_verdict v = lb_icmp_error(w, t, c, cfg, m, ho.on,
									  nexts[i], now);

				nexts[i] = v.next;
				nfv_handoff_mark(&ho, w, i, v.owner);
			} else if (unlikely(p.frag)) {
				lb_in_frag(w, t, c, cfg, m, i, nexts, &ho, now);
			}
			continue;
		}
		lb_in_one(w, t, c, cfg, m, i, &p, nexts, &ho, now, false);
	}
	nfv_handoff_enqueue(graph, node, w, &nfv_lb_handoff, &ho, objs, nexts, n, LB_IN_NEXT_DROP,
			    drop_lb_handoff_full.id);
	return n;
}

static struct rte_node_register lb_in_node = {
	.name = "nfv_lb_in",
	.process = lb_in_process,
	.init = nfv_node_ctx_init,
	.nb_edges = LB_IN_NEXT_MAX,
	.next_nodes = {
		[LB_IN_NEXT_DROP] = "nfv_drop",
		[LB_IN_NEXT_REWRITE] = "nfv_ip4_rewrite",
		[LB_IN_NEXT_ICMP_ERROR] = "nfv_ip4_icmp_error",
	},
};

RTE_NODE_REGISTER(lb_in_node);
