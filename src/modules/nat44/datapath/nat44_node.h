/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the two NAT44 nodes share: reading a packet's translatable fields
 * and rewriting an address and port with incremental checksum updates
 * (RFC 1624) of the IP header and of the TCP / UDP pseudo-header sum or
 * the ICMP checksum.
 */
#ifndef NFV_NAT44_NODE_H
#define NFV_NAT44_NODE_H

#include <netinet/in.h>

#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>

#include "core/meta.h"
#include "core/node.h"
#include "modules/ip/l4_frag.h"
#include "modules/ip/l4_rewrite.h"
#include "modules/nat44/nat44.h"

/* A packet of session s in direction dir: translated (the source of what
 * leaves, the destination of what arrives) and counted in the session. */
static __rte_always_inline void
nat_apply(struct nfv_nat_session *s, struct nat_pkt *p, const struct rte_mbuf *m,
	  unsigned int dir, uint64_t now)
{
	if (dir == NFV_NAT_I2O)
		nat_rewrite(p, false, s->out_addr, s->out_port);
	else
		nat_rewrite(p, true, s->in_addr, s->in_port);
	nfv_nat_touch(s, dir, p->tcp_flags, rte_pktmbuf_pkt_len(m) - NFV_L2_LEN, now);
}

static __rte_always_inline void
nat_key(struct nfv_nat_key *k, const struct nat_pkt *p, uint16_t iface)
{
	k->src = p->src;
	k->dst = p->dst;
	k->sport = p->sport;
	k->dport = p->dport;
	k->proto = p->proto;
	k->pad = 0;
	k->iface = iface;
}

/* What nat_frag_translate found: no note of the datagram. */
#define NAT_FRAG_UNKNOWN (-1)

/* A later fragment p (parsed: not ok, frag) in direction dir by iface:
 * when its datagram is noted as translated here, its source (i2o) or
 * destination (o2i) rewritten (modules/ip/l4_frag.h) and
 * NFV_HANDOFF_KEEP returned; as handed to another worker, that worker
 * (nothing rewritten); else NAT_FRAG_UNKNOWN. */
static __rte_noinline __rte_unused int
nat_frag_translate(struct nfv_nat_table *t, struct nat_pkt *p, unsigned int dir, uint16_t iface,
		   uint64_t now)
{
	const struct nfv_l4_frag *f = nfv_l4_frag_find(t->frag, p, dir, iface, now);

	if (f == NULL)
		return NAT_FRAG_UNKNOWN;
	if (f->owner != NFV_L4_FRAG_HERE)
		return f->owner;
	nfv_l4_frag_rewrite(p, dir == NFV_NAT_O2I, f->addr);
	return NFV_HANDOFF_KEEP;
}

#endif
