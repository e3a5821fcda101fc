/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Address and prefix helpers shared by the parsers and the tables.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "modules/ip/ip.h"

void
nfv_prefix_mask(struct nfv_prefix *p)
{
	if (p->ip.family == AF_INET) {
		uint32_t mask = p->len == 0 ? 0 : ~0u << (32 - p->len);

		p->ip.v4 = rte_cpu_to_be_32(rte_be_to_cpu_32(p->ip.v4) & mask);
		return;
	}
	for (unsigned int i = 0; i < 16; i++) {
		int bits = (int)p->len - (int)i * 8;

		if (bits >= 8)
			continue;
		p->ip.v6[i] &= bits <= 0 ? 0 : (uint8_t)(0xff << (8 - bits));
	}
}

bool
nfv_prefix_contains(const struct nfv_prefix *p, const struct nfv_ip *ip)
{
	struct nfv_prefix q = { .ip = *ip, .len = p->len }, net = *p;

	if (ip->family != p->ip.family)
		return false;
	nfv_prefix_mask(&q);
	nfv_prefix_mask(&net);
	return nfv_ip_equal(&q.ip, &net.ip);
}

bool
nfv_ip_equal(const struct nfv_ip *a, const struct nfv_ip *b)
{
	if (a->family != b->family)
		return false;
	if (a->family == AF_INET)
		return a->v4 == b->v4;
	return memcmp(a->v6, b->v6, 16) == 0;
}

const char *
nfv_ip_str(const struct nfv_ip *ip, char *buf, size_t len)
{
	if (inet_ntop(ip->family, ip->family == AF_INET ? (const void *)&ip->v4 :
		      (const void *)ip->v6, buf, len) == NULL)
		snprintf(buf, len, "?");
	return buf;
}

const char *
nfv_prefix_str(const struct nfv_prefix *p, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];

	snprintf(buf, len, "%s/%u", nfv_ip_str(&p->ip, a, sizeof(a)), p->len);
	return buf;
}

bool
nfv_ip_is_link_local(const struct nfv_ip *ip)
{
	return ip->family == AF_INET6 && ip->v6[0] == 0xfe && (ip->v6[1] & 0xc0) == 0x80;
}

const char *
nfv_ip_unusable(const struct nfv_ip *ip)
{
	static const uint8_t zero[16], loopback[16] = { [15] = 1 };
	static const uint8_t v4_mapped[12] = { [10] = 0xff, [11] = 0xff };

	if (ip->family == AF_INET) {
		uint32_t a = rte_be_to_cpu_32(ip->v4);

		if (a == 0)
			return "the unspecified address";
		if (a == UINT32_MAX)
			return "the broadcast address";
		if ((a >> 24) == 127)
			return "a loopback address";
		if ((a >> 28) == 0xe)
			return "a multicast address";
		if ((a >> 24) == 0 || (a >> 28) == 0xf)
			return "a reserved address (0/8, 240/4)";
		return NULL;
	}
	if (memcmp(ip->v6, zero, 16) == 0)
		return "the unspecified address";
	if (memcmp(ip->v6, loopback, 16) == 0)
		return "the loopback address";
	if (ip->v6[0] == 0xff)
		return "a multicast address";
	if (memcmp(ip->v6, v4_mapped, sizeof(v4_mapped)) == 0)
		return "an IPv4-mapped address";
	return NULL;
}

const char *
nfv_route_proto_name(uint8_t proto, char *buf, size_t len)
{
	/* linux/rtnetlink.h and /etc/iproute2/rt_protos (FRR's daemons). */
	static const struct {
		uint8_t proto;
		const char *name;
	} names[] = {
		{ 1, "redirect" }, { 2, "kernel" }, { 3, "boot" }, { 4, "static" },
		{ 9, "ra" }, { 11, "zebra" }, { 16, "dhcp" }, { 42, "babel" },
		{ 186, "bgp" }, { 187, "isis" }, { 188, "ospf" }, { 189, "rip" },
		{ 190, "ripng" }, { 191, "nhrp" }, { 192, "eigrp" }, { 193, "ldp" },
		{ 194, "sharp" }, { 195, "pbr" }, { 196, "static" }, { 197, "openfabric" },
		{ 198, "srte" },
	};

	for (unsigned int i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].proto == proto)
			return names[i].name;
	snprintf(buf, len, "%u", proto);
	return buf;
}
