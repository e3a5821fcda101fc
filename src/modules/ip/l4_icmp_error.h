/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ICMP errors about translated packets, shared by the modules that
 * translate (nat44, lb). An ICMP error (destination unreachable, with
 * "fragmentation needed" and its MTU; time exceeded; parameter problem)
 * quotes the IP header and at least the first 8 bytes of the packet it is
 * about (RFC 792, RFC 1812 4.3.2.3), which carry the ports (or the ICMP
 * echo identifier) of the connection. A translator finds the connection's
 * session from the quoted packet reversed (nat_quote_reversed: a packet
 * the other way), and puts back in the quote, and in the outer header,
 * the address and port the error's receiver knows (RFC 5508; Linux's
 * conntrack NAT and IPVS do the same):
 *
 *   toward the side that sent the quoted packet: the outer destination and
 *   the quoted source;
 *   toward the side it was sent to: the outer source and the quoted
 *   destination.
 *
 * The quoted IP header checksum is updated, so is the quoted TCP / UDP
 * checksum when the quote holds it (a TCP quote of 8 bytes does not; a UDP
 * checksum of 0 stays 0) and the echo checksum, and the error's own ICMP
 * checksum by the sum of the changes of every word of the quote (RFC
 * 1624). No checksum is verified first (the receiver does that): a wrong
 * one stays exactly as wrong. An error about an ICMP error is never translated (RFC 1122
 * 3.2.2: none is sent about one, so none can be about a translated one).
 *
 * Nothing is read or written outside the first segment and the IP
 * datagram (ip4_input trims link padding).
 */
#ifndef NFV_L4_ICMP_ERROR_H
#define NFV_L4_ICMP_ERROR_H

#include <stdbool.h>
#include <string.h>
#include <netinet/in.h>

#include <rte_ip.h>
#include <rte_mbuf.h>

#include "modules/ip/l4_rewrite.h"

#define NAT_ICMP_DEST_UNREACH 3
#define NAT_ICMP_TIME_EXCEEDED 11
#define NAT_ICMP_PARAM_PROBLEM 12
#define NAT_ICMP_HDR_LEN 8

/* Whether an ICMP type is an error that quotes a packet about a
 * connection. (Source quench is obsolete, RFC 6633; a redirect is about a
 * route, not a connection.) */
static __rte_always_inline bool
nat_icmp_is_error(uint8_t type)
{
	return type == NAT_ICMP_DEST_UNREACH || type == NAT_ICMP_TIME_EXCEEDED ||
	       type == NAT_ICMP_PARAM_PROBLEM;
}

/* Whether a parsed packet (nat_parse) is an unfragmented ICMP error. */
static __rte_always_inline bool
nat_is_icmp_error(const struct nat_pkt *p)
{
	return p->proto == IPPROTO_ICMP && !p->frag && nat_icmp_is_error(p->icmp_type);
}

enum nat_quote_status {
	NAT_QUOTE_OK,
	NAT_QUOTE_TRUNCATED,   /* no room for an IPv4 header and 8 bytes, or a bad header */
	NAT_QUOTE_UNSUPPORTED, /* not TCP, UDP or ICMP echo; a non-first fragment */
};

/* What a node's out-of-line ICMP error path decides: the packet's next
 * edge, and the worker to hand it to (else NFV_HANDOFF_KEEP,
 * infra/handoff.h). Returned in a register: with the burst's handoff
 * marks and the parsed packet passed by address instead, the node's loop
 * took about ten more instructions for each plain packet (callgrind). */
struct nat_icmp_verdict {
	uint16_t next;
	uint16_t owner;
};

/* The packet an ICMP error quotes. */
struct nat_quote {
	struct nat_pkt pkt; /* as nat_parse reads a packet: ports, or the echo identifier
			     * as sport (dport 0) with icmp_type */
	uint32_t l4_len;    /* bytes of its L4 header and data in the quote (8 or more) */
};

/*
 * Reads the packet quoted by the ICMP error p (nat_is_icmp_error, p->l4 at
 * its ICMP header) of mbuf m.
 */
static inline enum nat_quote_status
nat_quote_parse(const struct rte_mbuf *m, const struct nat_pkt *p, struct nat_quote *q)
{
	const uint8_t *start = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t seen = rte_pktmbuf_data_len(m), all = rte_pktmbuf_pkt_len(m);
	uint32_t off = (uint32_t)(p->l4 - start) + NAT_ICMP_HDR_LEN, ihl, total, quoted;
	struct nat_pkt *in = &q->pkt;
	uint8_t *ip = p->l4 + NAT_ICMP_HDR_LEN;
	rte_be16_t frag, len;

	if (seen < off || seen - off < sizeof(struct rte_ipv4_hdr) || (ip[0] >> 4) != 4)
		return NAT_QUOTE_TRUNCATED;
	ihl = (uint32_t)(ip[0] & 0xf) * 4;
	memcpy(&len, ip + offsetof(struct rte_ipv4_hdr, total_length), 2);
	total = rte_be_to_cpu_16(len);
	if (ihl < sizeof(struct rte_ipv4_hdr) || total < ihl + 8 || seen - off < ihl + 8)
		return NAT_QUOTE_TRUNCATED;
	/* What the quote holds of the quoted packet's L4 part: not beyond the
	 * error, nor beyond the quoted packet (a router may quote less). */
	quoted = RTE_MIN(all - off - ihl, total - ihl);
	memcpy(&frag, ip + offsetof(struct rte_ipv4_hdr, fragment_offset), 2);
	in->ip = ip;
	in->l4 = ip + ihl;
	in->proto = ip[offsetof(struct rte_ipv4_hdr, next_proto_id)];
	in->tcp_flags = 0;
	in->icmp_type = 0xff;
	in->frag = (frag & RTE_BE16(RTE_IPV4_HDR_OFFSET_MASK | RTE_IPV4_HDR_MF_FLAG)) != 0;
	in->ok = 0;
	memcpy(&in->src, ip + offsetof(struct rte_ipv4_hdr, src_addr), 4);
	memcpy(&in->dst, ip + offsetof(struct rte_ipv4_hdr, dst_addr), 4);
	/* A non-first fragment quotes no L4 header; a first one does (a
	 * router beyond the translator may have fragmented the packet). */
	if (frag & RTE_BE16(RTE_IPV4_HDR_OFFSET_MASK))
		return NAT_QUOTE_UNSUPPORTED;
	switch (in->proto) {
	case IPPROTO_TCP:
		/* The TCP checksum (bytes 16-17) is updated when quoted: it
		 * must then be in the first segment. */
		if (quoted >= 18 && seen - off - ihl < 18)
			return NAT_QUOTE_TRUNCATED;
		/* fall through */
	case IPPROTO_UDP:
		memcpy(&in->sport, in->l4, 2);
		memcpy(&in->dport, in->l4 + 2, 2);
		break;
	case IPPROTO_ICMP:
		in->icmp_type = in->l4[0];
		if (in->l4[1] != 0 || (in->icmp_type != NAT_ICMP_ECHO_REQUEST &&
				       in->icmp_type != NAT_ICMP_ECHO_REPLY))
			return NAT_QUOTE_UNSUPPORTED; /* an error about an error, or else */
		memcpy(&in->sport, in->l4 + 4, 2);
		in->dport = 0;
		break;
	default:
		return NAT_QUOTE_UNSUPPORTED;
	}
	in->ok = 1;
	q->l4_len = quoted;
	return NAT_QUOTE_OK;
}

/*
 * The packet of the quoted one's connection going the other way, as
 * nat_parse would read it: addresses and ports swapped, an echo request's
 * identifier as an echo reply's (and the other way round). A translator
 * finds the session of the error by it as it would find this packet's.
 */
static __rte_always_inline void
nat_quote_reversed(const struct nat_quote *q, struct nat_pkt *r)
{
	const struct nat_pkt *in = &q->pkt;

	memset(r, 0, sizeof(*r));
	r->proto = in->proto;
	r->src = in->dst;
	r->dst = in->src;
	r->ok = 1;
	r->icmp_type = 0xff;
	if (in->proto == IPPROTO_ICMP) {
		r->icmp_type = in->icmp_type == NAT_ICMP_ECHO_REQUEST ? NAT_ICMP_ECHO_REPLY :
			       NAT_ICMP_ECHO_REQUEST;
		r->sport = in->sport;
		r->dport = 0;
	} else {
		r->sport = in->dport;
		r->dport = in->sport;
	}
}

/* Replaces the 16-bit word at p by v; returns the change for
 * nat_cksum_apply. */
static __rte_always_inline uint32_t
nat_put16(uint8_t *p, rte_be16_t v)
{
	rte_be16_t o;

	memcpy(&o, p, 2);
	memcpy(p, &v, 2);
	return nat_delta16(o, v);
}

/*
 * Translates the ICMP error p about quoted packet q: toward the quoted
 * packet's sender (to_sender: the outer destination and the quoted source
 * become addr, the quoted source port port) or toward its receiver (the
 * outer source and the quoted destination address and port). For an ICMP
 * echo quote, port is the identifier.
 */
static inline void
nat_icmp_error_rewrite(struct nat_pkt *p, struct nat_quote *q, bool to_sender, rte_be32_t addr,
		       rte_be16_t port)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)p->ip;
	uint8_t *qsum = q->pkt.ip + offsetof(struct rte_ipv4_hdr, hdr_checksum);
	uint8_t *l4 = q->pkt.l4;
	uint8_t *oaddr = p->ip + (to_sender ? offsetof(struct rte_ipv4_hdr, dst_addr) :
				  offsetof(struct rte_ipv4_hdr, src_addr));
	uint8_t *qaddr = q->pkt.ip + (to_sender ? offsetof(struct rte_ipv4_hdr, src_addr) :
				      offsetof(struct rte_ipv4_hdr, dst_addr));
	uint8_t *qport = q->pkt.proto == IPPROTO_ICMP ? l4 + 4 : l4 + (to_sender ? 0 : 2);
	uint32_t da, dp, icmp = 0;
	rte_be32_t old;
	rte_be16_t sum;

	/* The outer header: its checksum only (ICMP has no pseudo-header). */
	memcpy(&old, oaddr, 4);
	ip->hdr_checksum = nat_cksum_apply(ip->hdr_checksum, nat_delta32(old, addr));
	memcpy(oaddr, &addr, 4);
	if (to_sender)
		p->dst = addr;
	else
		p->src = addr;

	/* The quote: address, header checksum, port, L4 checksum; each
	 * change is a change of the error's ICMP message too. */
	memcpy(&old, qaddr, 4);
	da = nat_delta32(old, addr);
	memcpy(qaddr, &addr, 4);
	icmp += da;
	memcpy(&sum, qsum, 2);
	icmp += nat_put16(qsum, nat_cksum_apply(sum, da));
	dp = nat_put16(qport, port);
	icmp += dp;
	switch (q->pkt.proto) {
	case IPPROTO_TCP:
		if (q->l4_len < 18)
			break; /* not quoted */
		memcpy(&sum, l4 + 16, 2);
		icmp += nat_put16(l4 + 16, nat_cksum_apply(sum, da + dp));
		break;
	case IPPROTO_UDP:
		memcpy(&sum, l4 + 6, 2);
		if (sum == 0)
			break; /* no checksum: none to keep */
		sum = nat_cksum_apply(sum, da + dp);
		if (sum == 0)
			sum = RTE_BE16(0xffff);
		icmp += nat_put16(l4 + 6, sum);
		break;
	default: /* ICMP echo: the identifier is in its checksum, no pseudo-header */
		memcpy(&sum, l4 + 2, 2);
		icmp += nat_put16(l4 + 2, nat_cksum_apply(sum, dp));
		break;
	}
	memcpy(&sum, p->l4 + 2, 2);
	sum = nat_cksum_apply(sum, icmp);
	memcpy(p->l4 + 2, &sum, 2);
}

#endif
