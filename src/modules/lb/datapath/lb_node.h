/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the two lb nodes share: a packet's session key, whether a session
 * is still of a live service and backend, and finding the session of an
 * ICMP error about a translated packet (modules/ip/l4_icmp_error.h):
 * lb_in for the errors that arrive, lb_own_icmp_error for nfvd's own.
 */
#ifndef NFV_LB_NODE_H
#define NFV_LB_NODE_H

#include <stdbool.h>
#include <netinet/in.h>

#include <rte_mbuf.h>

#include "core/worker.h"
#include "modules/infra/handoff.h"
#include "modules/ip/l4_icmp_error.h"
#include "modules/ip/l4_rewrite.h"
#include "modules/lb/lb.h"

static __rte_always_inline void
lb_key(struct nfv_lb_key *k, const struct nat_pkt *p)
{
	k->src = p->src;
	k->dst = p->dst;
	k->sport = p->sport;
	k->dport = p->dport;
	k->proto = p->proto;
	k->pad[0] = k->pad[1] = k->pad[2] = 0;
}

/* Whether session s still belongs to a live service and backend of cfg. */
static __rte_always_inline bool
lb_live(const struct nfv_lb_config *cfg, const struct nfv_lb_session *s)
{
	const struct nfv_lb_service *svc = &cfg->svc[s->svc];

	return s->svc < cfg->n_services && svc->uid == s->svc_uid && s->be < svc->n_backends &&
	       svc->be[s->be].uid == s->be_uid;
}

/* An ICMP error and the session it is about. */
struct lb_icmp_error {
	struct nat_pkt p;          /* the error (nat_parse) */
	struct nat_quote q;        /* the packet it quotes */
	struct nfv_lb_session *s;  /* NULL: of no session here */
	unsigned int dir;          /* NFV_LB_FWD: to the VIP about a backend's reply as the
				    * client got it; NFV_LB_REV: about a client's packet
				    * as the backend got it */
	uint16_t owner;            /* with the handoff on and no session here: the worker
				    * the quote reversed would go to, else NFV_HANDOFF_KEEP */
};

/*
 * Finds the session of the ICMP error m (nat_is_icmp_error): the one whose
 * fwd key its quote reversed has, when the quote is from a VIP and the
 * error is to it, or whose rev key, when the quote is to a backend
 * endpoint. Counts what is truncated and what quotes a service's or a
 * backend's endpoint without a session (not what is found: the caller
 * counts what it translates). With handoff, an error of no session here
 * names in e->owner the worker where the session would be.
 */
static __rte_always_inline bool
lb_icmp_error_find(const struct nfv_worker *w, struct nfv_lb_table *t, struct nfv_lb_counters *c,
		   const struct nfv_lb_config *cfg, struct rte_mbuf *m, bool handoff, uint64_t now,
		   struct lb_icmp_error *e)
{
	const struct nfv_lb_service *svc;
	struct nfv_lb_session *s;
	struct nfv_lb_key k;
	struct nat_pkt r;
	unsigned int dir;
	uint32_t bit;

	e->s = NULL;
	e->owner = NFV_HANDOFF_KEEP;
	nat_parse(m, &e->p);
	if (!nat_is_icmp_error(&e->p))
		return false;
	switch (nat_quote_parse(m, &e->p, &e->q)) {
	case NAT_QUOTE_OK:
		break;
	case NAT_QUOTE_TRUNCATED:
		c->icmp_error_truncated++;
		return false;
	default:
		return false; /* nothing the lb translates */
	}
	if (e->q.pkt.proto == IPPROTO_ICMP)
		return false;
	nat_quote_reversed(&e->q, &r);
	lb_key(&k, &r);
	svc = nfv_lb_svc_find(cfg, r.dst, r.dport, r.proto);
	if (svc != NULL) {
		/* The quote is from the VIP: r is a client's packet to it. */
		s = nfv_lb_lookup(t, c, &k, &dir, now);
		if (s == NULL && handoff && svc->mode != NFV_LB_DSR) {
			uint16_t owner = nfv_handoff_endpoint_owner(r.src, r.sport);

			if (owner != w->index) {
				e->owner = owner;
				return false;
			}
		}
		if (s == NULL || dir != NFV_LB_FWD || !lb_live(cfg, s) || e->p.dst != s->vip) {
			c->icmp_error_no_session++;
			return false;
		}
		e->s = s;
		e->dir = NFV_LB_FWD;
		return true;
	}
	bit = nfv_lb_be_bit(r.src, r.sport, r.proto);
	if (!(cfg->be_bits[bit >> 6] & (1ull << (bit & 63))))
		return false;
	/* The quote is to a backend endpoint: r is maybe its reply. */
	s = nfv_lb_lookup(t, c, &k, &dir, now);
	if (s == NULL && handoff) {
		uint16_t owner = nfv_handoff_endpoint_owner(r.dst, r.dport);

		if (owner != w->index) {
			e->owner = owner;
			return false;
		}
	}
	if (s == NULL || dir != NFV_LB_REV || !lb_live(cfg, s) ||
	    cfg->svc[s->svc].mode == NFV_LB_DSR) {
		c->icmp_error_no_session++;
		return false;
	}
	e->s = s;
	e->dir = NFV_LB_REV;
	return true;
}

#endif
