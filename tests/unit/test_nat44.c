/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NAT44's packet rewrite (src/modules/ip/l4_rewrite.h, as nat44 uses it): on
 * random TCP, UDP and ICMP echo packets with correct checksums, rewriting
 * the source or destination address and port (identifier) with RFC 1624
 * deltas leaves every checksum valid and equal to a full recomputation;
 * a UDP datagram without checksum keeps none, and one whose new checksum
 * computes to 0 carries 0xffff (RFC 768). Also what nat_parse takes:
 * fragments and other protocols are not translatable, ICMP only as echo.
 * ICMP errors (src/modules/ip/l4_icmp_error.h): an error quoting a random
 * TCP, UDP or echo packet, whole or cut anywhere from 8 bytes of L4 on,
 * translated either way, quotes exactly the packet as nat_rewrite
 * translates it (its checksums as a full recomputation gives them), and
 * the outer IP and ICMP checksums are right; what the quote parser takes
 * and refuses, at every length.
 * No EAL: the packets are in a buffer behind an mbuf header on the stack.
 */
#include <stdlib.h>
#include <netinet/in.h>
#include <rte_icmp.h>
#include <rte_udp.h>

#include "nfv_test.h"
#include "modules/ip/l4_icmp_error.h"
#include "modules/nat44/datapath/nat44_node.h"

#define N_RANDOM 3000
#define PKT_ROOM 256

struct pkt {
	struct rte_mbuf m;
	uint8_t room[RTE_PKTMBUF_HEADROOM + PKT_ROOM];
};

/* A frame of len bytes (Ethernet header, 20-byte IPv4 header, L4) in p. */
static struct rte_mbuf *
pkt_init(struct pkt *p, uint16_t len)
{
	memset(p, 0, sizeof(*p));
	p->m.buf_addr = p->room;
	p->m.buf_len = sizeof(p->room);
	p->m.data_off = RTE_PKTMBUF_HEADROOM;
	p->m.data_len = len;
	p->m.pkt_len = len;
	p->m.nb_segs = 1;
	return &p->m;
}

static struct rte_ipv4_hdr *
ip_of(struct rte_mbuf *m)
{
	return rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, NFV_L2_LEN);
}

/* Random addresses, ports and payload; every checksum computed in full. */
static void
random_packet(struct rte_mbuf *m, uint8_t proto, uint16_t payload, bool udp_no_cksum)
{
	struct rte_ipv4_hdr *ip = ip_of(m);
	uint8_t *l4 = (uint8_t *)(ip + 1);
	uint16_t l4len = (proto == IPPROTO_TCP ? 20 : 8) + payload;

	for (uint16_t i = 0; i < sizeof(*ip) + l4len; i++)
		((uint8_t *)ip)[i] = (uint8_t)nfv_test_rand();
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->fragment_offset = 0;
	ip->next_proto_id = proto;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(sizeof(*ip) + l4len));
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	switch (proto) {
	case IPPROTO_TCP: {
		struct rte_tcp_hdr *t = (struct rte_tcp_hdr *)l4;

		t->data_off = 5 << 4;
		t->cksum = 0;
		t->cksum = rte_ipv4_udptcp_cksum(ip, t);
		break;
	}
	case IPPROTO_UDP: {
		struct rte_udp_hdr *u = (struct rte_udp_hdr *)l4;

		u->dgram_len = rte_cpu_to_be_16(l4len);
		u->dgram_cksum = 0;
		if (!udp_no_cksum)
			u->dgram_cksum = rte_ipv4_udptcp_cksum(ip, u);
		break;
	}
	default: {
		struct rte_icmp_hdr *c = (struct rte_icmp_hdr *)l4;

		c->icmp_type = nfv_test_rand() & 1 ? RTE_IP_ICMP_ECHO_REQUEST : RTE_IP_ICMP_ECHO_REPLY;
		c->icmp_code = 0;
		c->icmp_cksum = 0;
		c->icmp_cksum = (uint16_t)~rte_raw_cksum(c, l4len);
		break;
	}
	}
}

/* Whether every checksum of the packet is right. */
static bool
checksums_valid(struct rte_mbuf *m, uint8_t proto, uint16_t l4len)
{
	struct rte_ipv4_hdr *ip = ip_of(m);
	void *l4 = ip + 1;

	if (rte_raw_cksum(ip, sizeof(*ip)) != 0xffff)
		return false;
	if (proto == IPPROTO_ICMP)
		return rte_raw_cksum(l4, l4len) == 0xffff;
	if (proto == IPPROTO_UDP && ((struct rte_udp_hdr *)l4)->dgram_cksum == 0)
		return true;
	return rte_ipv4_udptcp_cksum_verify(ip, l4) == 0;
}

static void
one_rewrite(uint8_t proto, bool dst, bool udp_no_cksum)
{
	uint16_t payload = (uint16_t)(nfv_test_rand() % 64);
	uint16_t l4len = (proto == IPPROTO_TCP ? 20 : 8) + payload;
	struct pkt buf;
	struct rte_mbuf *m = pkt_init(&buf, (uint16_t)(NFV_L2_LEN + 20 + l4len));
	struct nat_pkt p;
	rte_be32_t addr = (rte_be32_t)nfv_test_rand();
	rte_be16_t port = (rte_be16_t)nfv_test_rand(), sum, udp_before = 0;
	struct rte_ipv4_hdr *ip;
	uint8_t *l4;

	random_packet(m, proto, payload, udp_no_cksum);
	ip = ip_of(m);
	l4 = (uint8_t *)(ip + 1);
	nat_parse(m, &p);
	assert_true(p.ok);
	if (proto == IPPROTO_UDP)
		udp_before = ((struct rte_udp_hdr *)l4)->dgram_cksum;
	nat_rewrite(&p, dst, addr, port);
	assert_true((dst ? ip->dst_addr : ip->src_addr) == addr);
	assert_memory_equal(proto == IPPROTO_ICMP ? l4 + 4 : l4 + (dst ? 2 : 0), &port, 2);
	assert_true(checksums_valid(m, proto, l4len));
	/* Equal to a full recomputation, not only valid. */
	sum = ip->hdr_checksum;
	ip->hdr_checksum = 0;
	assert_int_equal(sum, rte_ipv4_cksum(ip));
	ip->hdr_checksum = sum;
	if (proto == IPPROTO_TCP) {
		struct rte_tcp_hdr *t = (struct rte_tcp_hdr *)l4;

		sum = t->cksum;
		t->cksum = 0;
		assert_int_equal(sum, rte_ipv4_udptcp_cksum(ip, t));
	} else if (proto == IPPROTO_UDP) {
		struct rte_udp_hdr *u = (struct rte_udp_hdr *)l4;

		sum = u->dgram_cksum;
		if (udp_before == 0) {
			assert_int_equal(sum, 0);
		} else {
			u->dgram_cksum = 0;
			assert_int_equal(sum, rte_ipv4_udptcp_cksum(ip, u)); /* 0 sent as 0xffff */
		}
	}
}

static void
test_random_rewrites(void **state)
{
	(void)state;
	for (unsigned int i = 0; i < N_RANDOM; i++) {
		static const uint8_t protos[] = { IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ICMP };

		one_rewrite(protos[i % 3], (i / 3) & 1, false);
	}
}

static void
test_udp_without_checksum(void **state)
{
	(void)state;
	for (unsigned int i = 0; i < 200; i++)
		one_rewrite(IPPROTO_UDP, i & 1, true);
}

/* A rewrite whose new UDP checksum computes to 0 carries 0xffff: found by
 * trying ports until the full computation gives 0xffff (one does). */
static void
test_udp_zero_becomes_ffff(void **state)
{
	uint64_t saved = nfv_test_rng_state;
	unsigned int found = 0;

	(void)state;
	for (uint32_t port = 1; port < 65536 && found == 0; port++) {
		struct pkt buf;
		struct rte_mbuf *m = pkt_init(&buf, NFV_L2_LEN + 20 + 8 + 4);
		struct rte_ipv4_hdr *ip;
		struct rte_udp_hdr *u;
		struct nat_pkt p;
		rte_be16_t want;

		nfv_test_rng_state = 7; /* the same datagram each time */
		random_packet(m, IPPROTO_UDP, 4, false);
		ip = ip_of(m);
		u = (struct rte_udp_hdr *)(ip + 1);
		nat_parse(m, &p);
		nat_rewrite(&p, false, RTE_BE32(0xcb007101), rte_cpu_to_be_16((uint16_t)port));
		want = u->dgram_cksum;
		u->dgram_cksum = 0;
		if (rte_ipv4_udptcp_cksum(ip, u) != 0xffff)
			continue;
		assert_int_equal(want, 0xffff);
		found++;
	}
	nfv_test_rng_state = saved;
	assert_int_equal(found, 1);
}

static void
test_parse_what_is_translatable(void **state)
{
	struct pkt buf;
	struct rte_mbuf *m = pkt_init(&buf, NFV_L2_LEN + 20 + 20);
	struct rte_ipv4_hdr *ip;
	struct nat_pkt p;

	(void)state;
	random_packet(m, IPPROTO_TCP, 0, false);
	ip = ip_of(m);
	nat_parse(m, &p);
	assert_true(p.ok && !p.frag);
	ip->fragment_offset = RTE_BE16(RTE_IPV4_HDR_MF_FLAG);
	nat_parse(m, &p);
	assert_true(!p.ok && p.frag);
	ip->fragment_offset = RTE_BE16(185);
	nat_parse(m, &p);
	assert_true(!p.ok && p.frag);
	ip->fragment_offset = RTE_BE16(RTE_IPV4_HDR_DF_FLAG);
	nat_parse(m, &p);
	assert_true(p.ok);
	ip->next_proto_id = 47; /* GRE */
	nat_parse(m, &p);
	assert_false(p.ok);
	ip->next_proto_id = IPPROTO_TCP;
	m->data_len = NFV_L2_LEN + 20 + 19; /* TCP header cut short */
	nat_parse(m, &p);
	assert_false(p.ok);
	random_packet(m, IPPROTO_ICMP, 0, false);
	m->data_len = NFV_L2_LEN + 20 + 8;
	((uint8_t *)(ip + 1))[0] = 3; /* destination unreachable */
	nat_parse(m, &p);
	assert_false(p.ok);
	((uint8_t *)(ip + 1))[0] = 8;
	((uint8_t *)(ip + 1))[1] = 1; /* echo with a code: not echo */
	nat_parse(m, &p);
	assert_false(p.ok);
	((uint8_t *)(ip + 1))[1] = 0;
	nat_parse(m, &p);
	assert_true(p.ok);
	assert_memory_equal(&p.sport, (uint8_t *)(ip + 1) + 4, 2);
	assert_int_equal(p.dport, 0);
}

/* In e: an ICMP error of type (3: code 4, fragmentation needed) about the
 * first qlen bytes of m's IPv4 datagram, its checksums computed. */
static void
error_about(struct rte_mbuf *e, struct rte_mbuf *m, uint16_t qlen, uint8_t type)
{
	struct rte_ipv4_hdr *ip = ip_of(e);
	uint8_t *icmp = (uint8_t *)(ip + 1);
	uint16_t sum;

	e->data_len = e->pkt_len = (uint16_t)(NFV_L2_LEN + 20 + 8 + qlen);
	memset(ip, 0, sizeof(*ip));
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_ICMP;
	ip->src_addr = (rte_be32_t)nfv_test_rand();
	ip->dst_addr = (rte_be32_t)nfv_test_rand();
	ip->total_length = rte_cpu_to_be_16((uint16_t)(20 + 8 + qlen));
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	memset(icmp, 0, 8);
	icmp[0] = type;
	if (type == NAT_ICMP_DEST_UNREACH) {
		icmp[1] = 4;
		icmp[6] = 1400 >> 8;
		icmp[7] = 1400 & 0xff;
	}
	memcpy(icmp + 8, ip_of(m), qlen);
	sum = (uint16_t)~rte_raw_cksum(icmp, 8u + qlen);
	memcpy(icmp + 2, &sum, 2);
}

static void
one_error_rewrite(uint8_t proto, bool to_sender)
{
	static const uint8_t types[] = { NAT_ICMP_DEST_UNREACH, NAT_ICMP_TIME_EXCEEDED,
					 NAT_ICMP_PARAM_PROBLEM };
	uint16_t payload = (uint16_t)(nfv_test_rand() % 64);
	uint16_t l3len = (uint16_t)(20 + (proto == IPPROTO_TCP ? 20 : 8) + payload);
	uint16_t qlen = (uint16_t)(28 + nfv_test_rand() % (l3len - 28 + 1)), cmp = qlen;
	struct pkt mbuf, ebuf;
	struct rte_mbuf *m = pkt_init(&mbuf, (uint16_t)(NFV_L2_LEN + l3len));
	struct rte_mbuf *e = pkt_init(&ebuf, 0);
	rte_be32_t addr = (rte_be32_t)nfv_test_rand();
	rte_be16_t port = (rte_be16_t)nfv_test_rand(), sum;
	struct rte_ipv4_hdr *eip;
	struct nat_quote q = { 0 }; /* (nat_quote_parse fills it: asserted below) */
	struct nat_pkt p, mp;

	random_packet(m, proto, payload, proto == IPPROTO_UDP && nfv_test_rand() % 4 == 0);
	error_about(e, m, qlen, types[nfv_test_rand() % 3]);
	nat_parse(e, &p);
	assert_true(!p.ok && nat_is_icmp_error(&p));
	assert_int_equal(nat_quote_parse(e, &p, &q), NAT_QUOTE_OK);
	assert_int_equal(q.l4_len, qlen - 20);
	/* The packet as the translation of its own direction makes it: the
	 * error toward its sender changes its source. */
	nat_parse(m, &mp);
	nat_rewrite(&mp, !to_sender, addr, port);
	nat_icmp_error_rewrite(&p, &q, to_sender, addr, port);
	/* A quote ending inside the TCP checksum cannot update its half. */
	if (proto == IPPROTO_TCP && qlen < 20 + 18)
		cmp = RTE_MIN(qlen, 20 + 16);
	assert_memory_equal((uint8_t *)(ip_of(e) + 1) + 8, ip_of(m), cmp);
	eip = ip_of(e);
	assert_true((to_sender ? eip->dst_addr : eip->src_addr) == addr);
	sum = eip->hdr_checksum;
	eip->hdr_checksum = 0;
	assert_int_equal(sum, rte_ipv4_cksum(eip));
	eip->hdr_checksum = sum;
	assert_int_equal(rte_raw_cksum(eip + 1, 8u + qlen), 0xffff);
}

static void
test_random_icmp_error_rewrites(void **state)
{
	(void)state;
	for (unsigned int i = 0; i < N_RANDOM; i++) {
		static const uint8_t protos[] = { IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ICMP };

		one_error_rewrite(protos[i % 3], (i / 3) & 1);
	}
}

/* Status of the quote of error e, cut to len bytes (pkt_len), of which
 * seg are in the first segment (data_len). The segment is copied to a
 * buffer of exactly seg bytes, so that a build with AddressSanitizer sees
 * any read beyond it. */
static enum nat_quote_status
quote_status(struct rte_mbuf *e, uint16_t len, uint16_t seg)
{
	uint8_t *exact = malloc(seg);
	struct rte_mbuf m = *e;
	enum nat_quote_status st;
	struct nat_quote q;
	struct nat_pkt p;

	assert_non_null(exact);
	memcpy(exact, rte_pktmbuf_mtod(e, uint8_t *), seg);
	m.buf_addr = exact;
	m.data_off = 0;
	m.buf_len = seg;
	m.pkt_len = len;
	m.data_len = seg;
	nat_parse(&m, &p);
	assert_true(nat_is_icmp_error(&p));
	st = nat_quote_parse(&m, &p, &q);
	free(exact);
	return st;
}

static void
test_quote_parse_bounds(void **state)
{
	const uint16_t hdrs = NFV_L2_LEN + 20 + 8;
	struct pkt mbuf, ebuf;
	struct rte_mbuf *m = pkt_init(&mbuf, NFV_L2_LEN + 20 + 20 + 8);
	struct rte_mbuf *e = pkt_init(&ebuf, 0);
	uint8_t *quote;

	(void)state;
	random_packet(m, IPPROTO_UDP, 4, false);
	error_about(e, m, 32, NAT_ICMP_TIME_EXCEEDED);
	quote = (uint8_t *)(ip_of(e) + 1) + 8;
	/* Cut anywhere short of an IPv4 header and 8 bytes: truncated. */
	for (uint16_t len = hdrs; len < hdrs + 28; len++)
		assert_int_equal(quote_status(e, len, len), NAT_QUOTE_TRUNCATED);
	for (uint16_t len = hdrs + 28; len <= hdrs + 32; len++)
		assert_int_equal(quote_status(e, len, len), NAT_QUOTE_OK);
	quote[0] = 0x65; /* not IPv4 */
	assert_int_equal(quote_status(e, hdrs + 32, hdrs + 32), NAT_QUOTE_TRUNCATED);
	quote[0] = 0x44; /* a header of 16 bytes */
	assert_int_equal(quote_status(e, hdrs + 32, hdrs + 32), NAT_QUOTE_TRUNCATED);
	quote[0] = 0x47; /* 28 bytes of header: 4 left for the L4 header */
	assert_int_equal(quote_status(e, hdrs + 32, hdrs + 32), NAT_QUOTE_TRUNCATED);
	quote[0] = 0x45;
	quote[2] = 0;
	quote[3] = 27; /* its total length below a header and 8 bytes */
	assert_int_equal(quote_status(e, hdrs + 32, hdrs + 32), NAT_QUOTE_TRUNCATED);
	quote[3] = 32;
	quote[6] = 0x20; /* MF: a first fragment quotes the ports */
	assert_int_equal(quote_status(e, hdrs + 32, hdrs + 32), NAT_QUOTE_OK);
	quote[7] = 1; /* offset 8: no L4 header */
	assert_int_equal(quote_status(e, hdrs + 32, hdrs + 32), NAT_QUOTE_UNSUPPORTED);
	quote[6] = quote[7] = 0;
	quote[9] = 47;
	assert_int_equal(quote_status(e, hdrs + 32, hdrs + 32), NAT_QUOTE_UNSUPPORTED);
	quote[9] = IPPROTO_ICMP;
	quote[20] = NAT_ICMP_DEST_UNREACH; /* about an error */
	quote[21] = 3;
	assert_int_equal(quote_status(e, hdrs + 32, hdrs + 32), NAT_QUOTE_UNSUPPORTED);
	quote[20] = NAT_ICMP_ECHO_REQUEST;
	quote[21] = 0;
	assert_int_equal(quote_status(e, hdrs + 32, hdrs + 32), NAT_QUOTE_OK);
	/* TCP whose checksum is quoted but not in the first segment. */
	quote[9] = IPPROTO_TCP;
	assert_int_equal(quote_status(e, hdrs + 32, hdrs + 32), NAT_QUOTE_OK);
	quote[3] = 40;
	assert_int_equal(quote_status(e, hdrs + 40, hdrs + 40), NAT_QUOTE_OK);
	assert_int_equal(quote_status(e, hdrs + 40, hdrs + 37), NAT_QUOTE_TRUNCATED);
	assert_int_equal(quote_status(e, hdrs + 40, hdrs + 38), NAT_QUOTE_OK);
}

int
main(void)
{
	struct nfv_test_list l = { 0 };

	nfv_test_seed();
	nfv_test_add(&l, "rewrite: random TCP, UDP, ICMP echo, source and destination",
		     test_random_rewrites, NULL);
	nfv_test_add(&l, "rewrite: UDP without checksum keeps none", test_udp_without_checksum,
		     NULL);
	nfv_test_add(&l, "rewrite: a UDP checksum computing to 0 is sent as 0xffff",
		     test_udp_zero_becomes_ffff, NULL);
	nfv_test_add(&l, "parse: fragments, other protocols, short headers, ICMP echo only",
		     test_parse_what_is_translatable, NULL);
	nfv_test_add(&l, "icmp error: random quotes of TCP, UDP, echo, either way",
		     test_random_icmp_error_rewrites, NULL);
	nfv_test_add(&l, "icmp error: what the quote parser takes, at every length",
		     test_quote_parse_bounds, NULL);
	return nfv_test_run("nat44", &l, NULL, NULL);
}
