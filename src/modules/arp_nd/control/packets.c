/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The frames the control side of arp_nd sends: ARP requests and replies
 * (RFC 826), neighbor solicitations and advertisements (RFC 4861 4.3, 4.4,
 * with the link-layer address options of 4.6.1), echo replies from a
 * link-local address (RFC 4443 4.2). Every frame leaves through a worker's
 * port_tx (the inject path); on a VLAN interface the 802.1Q tag is added
 * here, as vlan_output does for routed packets; an interface kind with an
 * inject target of its own (a bridge) gets its frames there.
 */
#include <string.h>

#include <rte_arp.h>
#include <rte_ether.h>
#include <rte_icmp.h>
#include <rte_ip.h>

#include "modules/arp_nd/control/neigh.h"
#include "modules/infra/iface.h"

void
nfv_nd_link_local(uint16_t iface, uint8_t out[16])
{
	const uint8_t *mac = nfv_ifaces[iface].mac.addr_bytes;

	/* RFC 4291 2.5.1 / appendix A: modified EUI-64 from the MAC. */
	memset(out, 0, 16);
	out[0] = 0xfe;
	out[1] = 0x80;
	out[8] = mac[0] ^ 0x02;
	out[9] = mac[1];
	out[10] = mac[2];
	out[11] = 0xff;
	out[12] = 0xfe;
	out[13] = mac[3];
	out[14] = mac[4];
	out[15] = mac[5];
}

int
nfv_arp_nd_send(uint16_t iface, struct rte_mbuf *m, unsigned int worker)
{
	const struct nfv_iface *ifc = &nfv_ifaces[iface];
	const struct nfv_inject_target *t = nfv_inject_target_of_kind(ifc->kind);
	uint16_t port = iface;

	if (ifc->kind == NFV_IFACE_KIND_VLAN) {
		uint8_t *p = (uint8_t *)rte_pktmbuf_prepend(m, sizeof(struct rte_vlan_hdr));
		struct rte_vlan_hdr vh;

		if (p == NULL) {
			rte_pktmbuf_free(m);
			return -1;
		}
		memmove(p, p + sizeof(vh), 2 * RTE_ETHER_ADDR_LEN);
		vh.vlan_tci = rte_cpu_to_be_16(ifc->vlan_id);
		memcpy(&vh.eth_proto, p + 2 * RTE_ETHER_ADDR_LEN + sizeof(vh), 2);
		memcpy(p + 2 * RTE_ETHER_ADDR_LEN, &(rte_be16_t){ RTE_BE16(RTE_ETHER_TYPE_VLAN) },
		       2);
		memcpy(p + 2 * RTE_ETHER_ADDR_LEN + 2, &vh, sizeof(vh));
		port = ifc->parent;
	}
	m->port = iface;
	nfv_meta(m)->tx_port = port;
	nfv_meta(m)->flags = NFV_META_LOCAL_ORIGIN;
	return nfv_inject(worker, m, t != NULL ? t : &nfv_inject_port_tx);
}

/* The IPv4 address of iface to solicit dst from: one whose subnet holds
 * dst, else the first (RFC 826 says nothing; Linux picks so too). */
static bool
arp_source(uint16_t iface, rte_be32_t dst, rte_be32_t *src)
{
	struct nfv_prefix a[NFV_ADDR_PER_PORT_MAX];
	unsigned int n = nfv_addr_of_iface(iface, a);
	struct nfv_ip d = { .family = AF_INET, .v4 = dst };
	bool found = false;

	for (unsigned int i = 0; i < n; i++) {
		if (a[i].ip.family != AF_INET)
			continue;
		if (nfv_prefix_contains(&a[i], &d)) {
			*src = a[i].ip.v4;
			return true;
		}
		if (!found) {
			*src = a[i].ip.v4;
			found = true;
		}
	}
	return found;
}

void
nfv_arp_fill(struct rte_mbuf *m, uint16_t op, const uint8_t *eth_dst, const uint8_t *sha,
	     rte_be32_t sip, const uint8_t *tha, rte_be32_t tip)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_arp_hdr *a = (struct rte_arp_hdr *)(eth + 1);

	memcpy(eth->dst_addr.addr_bytes, eth_dst, 6);
	memcpy(eth->src_addr.addr_bytes, sha, 6);
	eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_ARP);
	a->arp_hardware = RTE_BE16(RTE_ARP_HRD_ETHER);
	a->arp_protocol = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	a->arp_hlen = 6;
	a->arp_plen = 4;
	a->arp_opcode = rte_cpu_to_be_16(op);
	memcpy(a->arp_data.arp_sha.addr_bytes, sha, 6);
	a->arp_data.arp_sip = sip;
	memcpy(a->arp_data.arp_tha.addr_bytes, tha, 6);
	a->arp_data.arp_tip = tip;
}

int
nfv_arp_send_request(uint16_t iface, rte_be32_t tip, const uint8_t *unicast_mac,
		     unsigned int worker)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	static const uint8_t zero[6];
	struct rte_mbuf *m;
	rte_be32_t sip;

	if (!arp_source(iface, tip, &sip))
		return -EADDRNOTAVAIL;
	m = nfv_punt_alloc();
	if (m == NULL)
		return -ENOBUFS;
	if (rte_pktmbuf_append(m, RTE_ETHER_HDR_LEN + sizeof(struct rte_arp_hdr)) == NULL) {
		rte_pktmbuf_free(m);
		return -ENOBUFS;
	}
	/* RFC 826: the target hardware address is what is asked: zero. */
	nfv_arp_fill(m, RTE_ARP_OP_REQUEST, unicast_mac != NULL ? unicast_mac : bcast,
		     nfv_ifaces[iface].mac.addr_bytes, sip, zero, tip);
	return nfv_arp_nd_send(iface, m, worker);
}

/* Builds the IPv6 + ICMPv6 ND message in m (empty), with a link-layer
 * address option of type opt (1 source, 2 target) carrying our MAC. */
static void
nd_fill(struct rte_mbuf *m, uint16_t iface, const uint8_t *eth_dst, const uint8_t *src,
	const uint8_t *dst, uint8_t type, uint8_t flags, const uint8_t *target, uint8_t opt)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(eth + 1);
	uint8_t *icmp = (uint8_t *)(ip + 1);
	uint16_t ck;

	memcpy(eth->dst_addr.addr_bytes, eth_dst, 6);
	memcpy(eth->src_addr.addr_bytes, nfv_ifaces[iface].mac.addr_bytes, 6);
	eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV6);
	ip->vtc_flow = RTE_BE32(0x60000000);
	ip->payload_len = RTE_BE16(32);
	ip->proto = IPPROTO_ICMPV6;
	ip->hop_limits = 255;
	memcpy(ip->src_addr, src, 16);
	memcpy(ip->dst_addr, dst, 16);
	memset(icmp, 0, 32);
	icmp[0] = type;
	icmp[4] = flags;
	memcpy(icmp + 8, target, 16);
	icmp[24] = opt;
	icmp[25] = 1; /* units of 8 bytes */
	memcpy(icmp + 26, nfv_ifaces[iface].mac.addr_bytes, 6);
	ck = rte_ipv6_udptcp_cksum(ip, icmp);
	memcpy(icmp + 2, &ck, 2);
}

static bool
nd_source(uint16_t iface, const uint8_t target[16], uint8_t out[16])
{
	struct nfv_prefix a[NFV_ADDR_PER_PORT_MAX];
	unsigned int n = nfv_addr_of_iface(iface, a);
	struct nfv_ip t = { .family = AF_INET6 };

	memcpy(t.v6, target, 16);
	for (unsigned int i = 0; i < n; i++)
		if (a[i].ip.family == AF_INET6 && nfv_prefix_contains(&a[i], &t)) {
			memcpy(out, a[i].ip.v6, 16);
			return true;
		}
	return false;
}

int
nfv_nd_send_ns(uint16_t iface, const uint8_t target[16], const uint8_t *unicast_mac,
	       unsigned int worker)
{
	uint8_t src[16], dst[16], mac[6];
	struct rte_mbuf *m = nfv_punt_alloc();

	if (m == NULL)
		return -ENOBUFS;
	if (rte_pktmbuf_append(m, RTE_ETHER_HDR_LEN + 40 + 32) == NULL) {
		rte_pktmbuf_free(m);
		return -ENOBUFS;
	}
	/* RFC 4861 7.2.2: any address of the interface. One on the target's
	 * own prefix when there is one: a host without a link-local address
	 * (addrgenmode none) could not answer to ours; else the link-local. */
	if (!nd_source(iface, target, src))
		nfv_nd_link_local(iface, src);
	if (unicast_mac != NULL) {
		memcpy(dst, target, 16);
		memcpy(mac, unicast_mac, 6);
	} else {
		/* RFC 4291 2.7.1: the solicited-node address ff02::1:ffXX:XXXX and
		 * its MAC 33:33:ff:XX:XX:XX (RFC 2464 7). */
		static const uint8_t sn[13] = { 0xff, 0x02, [11] = 0x01, [12] = 0xff };

		memcpy(dst, sn, 13);
		memcpy(dst + 13, target + 13, 3);
		mac[0] = 0x33;
		mac[1] = 0x33;
		memcpy(mac + 2, dst + 12, 4);
	}
	nd_fill(m, iface, mac, src, dst, 135, 0, target, 1);
	return nfv_arp_nd_send(iface, m, worker);
}

int
nfv_nd_send_na(struct rte_mbuf *m, uint16_t iface, const uint8_t *eth_dst, const uint8_t *dst,
	       const uint8_t *target, uint8_t flags, unsigned int worker)
{
	const uint32_t len = RTE_ETHER_HDR_LEN + 40 + 32;
	uint8_t mac[6], d[16], t[16];

	/* The arguments may point into m, which is rewritten. */
	memcpy(mac, eth_dst, 6);
	memcpy(d, dst, 16);
	memcpy(t, target, 16);
	if (m == NULL) {
		m = nfv_punt_alloc();
		if (m == NULL)
			return -ENOBUFS;
	}
	if (rte_pktmbuf_pkt_len(m) > len)
		rte_pktmbuf_trim(m, (uint16_t)(rte_pktmbuf_pkt_len(m) - len));
	if (rte_pktmbuf_pkt_len(m) < len &&
	    rte_pktmbuf_append(m, (uint16_t)(len - rte_pktmbuf_pkt_len(m))) == NULL) {
		rte_pktmbuf_free(m);
		return -ENOBUFS;
	}
	if (!rte_pktmbuf_is_contiguous(m)) {
		rte_pktmbuf_free(m);
		return -ENOBUFS;
	}
	/* From the target address (ours) to the solicitation's source. */
	nd_fill(m, iface, mac, t, d, 136, flags, t, 2);
	return nfv_arp_nd_send(iface, m, worker);
}
