/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Address and port translation of IPv4 packets, shared by the modules
 * that rewrite them (nat44, lb): reading a packet's translatable fields and
 * rewriting an address and port with incremental checksum updates
 * (RFC 1624) of the IP header and of the TCP / UDP pseudo-header sum or
 * the ICMP checksum; and the TCP flag tracking their sessions share.
 */
#ifndef NFV_L4_REWRITE_H
#define NFV_L4_REWRITE_H

#include <stdbool.h>
#include <string.h>
#include <netinet/in.h>

#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>

#include "core/meta.h"

#define NAT_ICMP_ECHO_REQUEST 8
#define NAT_ICMP_ECHO_REPLY 0

struct nat_pkt {
	uint8_t *ip;
	uint8_t *l4;
	uint8_t proto;
	uint8_t tcp_flags;
	uint8_t icmp_type; /* ICMP: the type (an echo request or reply when ok) */
	uint8_t ok;        /* TCP, UDP or ICMP echo, L4 in the first segment (nat_parse*) */
	uint8_t frag;      /* a fragment, first or later */
	rte_be16_t sport;  /* ICMP echo: the identifier */
	rte_be16_t dport;
	rte_be32_t src;
	rte_be32_t dst;
};

/*
 * Whether a packet that a translation on the ingress arc would send on
 * (nat44_in: DNAT, the replies of SNAT; lb: a VIP's packet to its backend,
 * a backend's reply) has no hop left (TTL 0 or 1). Such a packet is not
 * translated: it gets ICMP time exceeded about itself as received (RFC
 * 1812 5.3.1), which is what a router that translates, then forwards
 * sends once it has put the quoted header back (Linux's conntrack does
 * so): the inside address is not shown, and no session is made for it.
 */
static __rte_always_inline bool
nat_hop_expires(const struct nat_pkt *p)
{
	return p->ip[offsetof(struct rte_ipv4_hdr, time_to_live)] <= 1;
}

/* The IPv4 header at the L3 offset was checked by ip4_input. first_frag:
 * a first fragment (offset 0, more fragments) is parsed as a whole
 * packet (ok when it is one of those), frag set. */
static __rte_always_inline void
nat_parse_x(struct rte_mbuf *m, struct nat_pkt *p, const bool first_frag)
{
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, NFV_L2_LEN);
	uint32_t l4off = NFV_L2_LEN + rte_ipv4_hdr_len(ip);
	uint32_t need;

	p->ip = (uint8_t *)ip;
	p->l4 = p->ip + rte_ipv4_hdr_len(ip);
	p->proto = ip->next_proto_id;
	p->src = ip->src_addr;
	p->dst = ip->dst_addr;
	p->ok = 0;
	p->tcp_flags = 0;
	p->icmp_type = 0xff;
	p->frag = (ip->fragment_offset &
		   RTE_BE16(RTE_IPV4_HDR_OFFSET_MASK | RTE_IPV4_HDR_MF_FLAG)) != 0;
	if (p->frag && (!first_frag || (ip->fragment_offset & RTE_BE16(RTE_IPV4_HDR_OFFSET_MASK))))
		return;
	switch (p->proto) {
	case IPPROTO_TCP:
		need = sizeof(struct rte_tcp_hdr);
		break;
	case IPPROTO_UDP:
	case IPPROTO_ICMP:
		need = 8;
		break;
	default:
		return;
	}
	if (rte_pktmbuf_data_len(m) < l4off + need)
		return;
	if (p->proto == IPPROTO_ICMP) {
		p->icmp_type = p->l4[0];
		if (p->l4[1] != 0 || (p->icmp_type != NAT_ICMP_ECHO_REQUEST &&
				      p->icmp_type != NAT_ICMP_ECHO_REPLY))
			return;
		memcpy(&p->sport, p->l4 + 4, 2);
		p->dport = 0;
	} else {
		memcpy(&p->sport, p->l4, 2);
		memcpy(&p->dport, p->l4 + 2, 2);
		if (p->proto == IPPROTO_TCP)
			p->tcp_flags = p->l4[13];
	}
	p->ok = 1;
}

/* ok: TCP, UDP or ICMP echo, not a fragment, L4 in the first segment. */
static __rte_always_inline void
nat_parse(struct rte_mbuf *m, struct nat_pkt *p)
{
	nat_parse_x(m, p, false);
}

/* As nat_parse, and a first fragment of those is ok too (frag set). */
static __rte_always_inline void
nat_parse_first_frag(struct rte_mbuf *m, struct nat_pkt *p)
{
	nat_parse_x(m, p, true);
}

/* RFC 1624 eqn. 3 with the change given as a sum: the one's complement
 * sum of the old words' complements and the new words, 32 bits unfolded. */
static __rte_always_inline rte_be16_t
nat_cksum_apply(rte_be16_t cksum, uint32_t delta)
{
	uint32_t sum = (uint16_t)~rte_be_to_cpu_16(cksum) + delta;

	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return rte_cpu_to_be_16((uint16_t)~sum);
}

/* The change of a 32-bit word from o to n, for nat_cksum_apply. */
static __rte_always_inline uint32_t
nat_delta32(rte_be32_t o, rte_be32_t n)
{
	uint32_t ho = ~rte_be_to_cpu_32(o), hn = rte_be_to_cpu_32(n);

	return (ho >> 16) + (ho & 0xffff) + (hn >> 16) + (hn & 0xffff);
}

static __rte_always_inline uint32_t
nat_delta16(rte_be16_t o, rte_be16_t n)
{
	return (uint16_t)~rte_be_to_cpu_16(o) + (uint32_t)rte_be_to_cpu_16(n);
}

/*
 * Rewrites the source (dst false) or destination address and port of a
 * parsed packet; for ICMP echo the identifier stands for the port. The
 * address's change is computed once for the IP header and the TCP / UDP
 * pseudo-header.
 */
static __rte_always_inline void
nat_rewrite(struct nat_pkt *p, bool dst, rte_be32_t addr, rte_be16_t port)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)p->ip;
	uint8_t *addrp = p->ip + (dst ? offsetof(struct rte_ipv4_hdr, dst_addr) :
				  offsetof(struct rte_ipv4_hdr, src_addr));
	uint8_t *portp = p->proto == IPPROTO_ICMP ? p->l4 + 4 : p->l4 + (dst ? 2 : 0);
	rte_be32_t old_addr;
	rte_be16_t old_port, sum;
	uint32_t da, dp;

	memcpy(&old_addr, addrp, 4);
	memcpy(&old_port, portp, 2);
	da = nat_delta32(old_addr, addr);
	dp = nat_delta16(old_port, port);
	ip->hdr_checksum = nat_cksum_apply(ip->hdr_checksum, da);
	memcpy(addrp, &addr, 4);
	memcpy(portp, &port, 2);
	switch (p->proto) {
	case IPPROTO_TCP:
		memcpy(&sum, p->l4 + 16, 2);
		sum = nat_cksum_apply(sum, da + dp);
		memcpy(p->l4 + 16, &sum, 2);
		break;
	case IPPROTO_UDP:
		memcpy(&sum, p->l4 + 6, 2);
		if (sum == 0)
			break; /* no checksum: none to keep */
		sum = nat_cksum_apply(sum, da + dp);
		if (sum == 0)
			sum = RTE_BE16(0xffff); /* RFC 768: a computed 0 is sent as all ones */
		memcpy(p->l4 + 6, &sum, 2);
		break;
	default: /* ICMP: no pseudo-header, the identifier only */
		memcpy(&sum, p->l4 + 2, 2);
		sum = nat_cksum_apply(sum, dp);
		memcpy(p->l4 + 2, &sum, 2);
		break;
	}
	if (dst)
		p->dst = addr;
	else
		p->src = addr;
}

/*
 * TCP flags of a two-direction session (dir 0 or 1): which directions were
 * seen, FIN per direction, RST. A SYN after a close starts the connection
 * again. True when the connection is established (both directions seen,
 * neither closed nor reset).
 */
#define NFV_L4_SEEN0 0x01
#define NFV_L4_SEEN1 0x02
#define NFV_L4_FIN0 0x04
#define NFV_L4_FIN1 0x08
#define NFV_L4_RST 0x10

static inline bool
nfv_l4_tcp_track(uint8_t *flags, unsigned int dir, uint8_t tcp_flags)
{
	uint8_t f = *flags;

	f |= dir == 0 ? NFV_L4_SEEN0 : NFV_L4_SEEN1;
	if (tcp_flags & RTE_TCP_RST_FLAG)
		f |= NFV_L4_RST;
	if (tcp_flags & RTE_TCP_FIN_FLAG)
		f |= dir == 0 ? NFV_L4_FIN0 : NFV_L4_FIN1;
	if ((tcp_flags & (RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG)) == RTE_TCP_SYN_FLAG &&
	    (f & (NFV_L4_RST | NFV_L4_FIN0 | NFV_L4_FIN1)))
		f = dir == 0 ? NFV_L4_SEEN0 : NFV_L4_SEEN1;
	*flags = f;
	return (f & (NFV_L4_SEEN0 | NFV_L4_SEEN1 | NFV_L4_RST | NFV_L4_FIN0 | NFV_L4_FIN1)) ==
	       (NFV_L4_SEEN0 | NFV_L4_SEEN1);
}

#endif
