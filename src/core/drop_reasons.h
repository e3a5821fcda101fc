/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Every reason a packet can be dropped, in one list (VPP's error counters,
 * the kernel's drop reasons). Each entry: symbol, node that drops, short
 * name shown by "show drops", and a sentence for operators.
 */
#ifndef NFV_DROP_REASONS_H
#define NFV_DROP_REASONS_H

#define NFV_FOREACH_DROP_REASON(X) \
	X(NONE, "drop", "none", "no reason recorded (a bug if it ever counts)") \
	X(ETH_TOO_SHORT, "eth_input", "too_short", "frame shorter than an Ethernet header") \
	X(ETH_OTHER_HOST, "eth_input", "other_host", "unicast frame for another MAC address") \
	X(ETH_UNKNOWN_TYPE, "eth_input", "unknown_ethertype", "ethertype not handled") \
	X(ETH_ARP, "eth_input", "arp", "ARP (static neighbors only; not answered)") \
	X(ETH_VLAN, "eth_input", "vlan", "802.1Q/802.1ad tagged frame (no VLAN sub-ports)") \
	X(ETH_MULTISEG, "eth_input", "headers_not_contiguous", \
		"headers split across mbuf segments") \
	X(IP4_TOO_SHORT, "ip4_input", "too_short", "shorter than an IPv4 header") \
	X(IP4_HEADERS_SPLIT, "ip4_input", "headers_not_contiguous", \
		"IPv4 header split across mbuf segments") \
	X(IP4_BAD_VERSION, "ip4_input", "bad_version", "IP version is not 4") \
	X(IP4_BAD_IHL, "ip4_input", "bad_ihl", "header length below 5 words or beyond the packet") \
	X(IP4_BAD_CHECKSUM, "ip4_input", "bad_checksum", "header checksum wrong (RFC 1812 5.2.2)") \
	X(IP4_BAD_LENGTH, "ip4_input", "bad_total_length", \
		"total length below the header or beyond the frame") \
	X(IP4_MARTIAN_SOURCE, "ip4_input", "martian_source", \
		"source is 0/8, 127/8, multicast, class E or broadcast (RFC 1812 5.3.7)") \
	X(IP4_MARTIAN_DEST, "ip4_input", "martian_destination", \
		"destination is 0/8, 127/8 or class E (RFC 1812 5.3.7)") \
	X(IP4_LINK_LOCAL, "ip4_input", "link_local", \
		"link-local (169.254/16) source or destination is not forwarded (RFC 3927 7)") \
	X(IP4_L2_BROADCAST, "ip4_lookup", "l2_broadcast", \
		"link-layer broadcast/multicast not for a local address (RFC 1812 5.3.4)") \
	X(IP4_MULTICAST, "ip4_input", "multicast_destination", "IPv4 multicast is not routed") \
	X(IP4_BROADCAST, "ip4_input", "broadcast_destination", \
		"limited broadcast is not forwarded") \
	X(IP4_NO_ROUTE, "ip4_lookup", "no_route", "no route to the destination") \
	X(IP4_BLACKHOLE, "ip4_lookup", "blackhole", "route is a blackhole") \
	X(IP4_TTL_EXPIRED, "ip4_rewrite", "ttl_expired", "TTL would reach 0 (RFC 1812 5.3.1)") \
	X(IP4_NEIGH_UNRESOLVED, "ip4_rewrite", "neigh_unresolved", \
		"next hop has no neighbor entry") \
	X(IP4_FRAG_NEEDED, "ip4_rewrite", "frag_needed", \
		"larger than the output MTU with DF set (ICMP sent)") \
	X(IP4_FRAG_UNSUPPORTED, "ip4_rewrite", "fragmentation_unsupported", \
		"larger than the output MTU without DF: fragmentation is not implemented") \
	X(IP4_LOCAL_UNSUPPORTED, "ip4_local", "unsupported_protocol", \
		"for a local address, not an ICMP echo request") \
	X(IP4_LOCAL_BAD_ICMP, "ip4_local", "bad_icmp", \
		"ICMP to a local address: short or bad checksum") \
	X(IP6_TOO_SHORT, "ip6_input", "too_short", "shorter than an IPv6 header") \
	X(IP6_BAD_VERSION, "ip6_input", "bad_version", "IP version is not 6") \
	X(IP6_BAD_LENGTH, "ip6_input", "bad_payload_length", "payload length beyond the frame") \
	X(IP6_MARTIAN_SOURCE, "ip6_input", "martian_source", \
		"source is unspecified, multicast, loopback or IPv4-mapped") \
	X(IP6_MARTIAN_DEST, "ip6_input", "martian_destination", \
		"destination is unspecified, loopback or IPv4-mapped") \
	X(IP6_HEADERS_SPLIT, "ip6_input", "headers_not_contiguous", \
		"IPv6 header split across mbuf segments") \
	X(IP6_LINK_LOCAL, "ip6_input", "link_local", \
		"link-local source or destination is not forwarded") \
	X(IP6_MULTICAST, "ip6_input", "multicast_destination", "IPv6 multicast is not routed") \
	X(IP6_L2_MULTICAST, "ip6_lookup", "l2_multicast", \
		"link-layer multicast not for a local address") \
	X(IP6_NO_ROUTE, "ip6_lookup", "no_route", "no route to the destination") \
	X(IP6_BLACKHOLE, "ip6_lookup", "blackhole", "route is a blackhole") \
	X(IP6_HOP_LIMIT_EXPIRED, "ip6_rewrite", "hop_limit_expired", "hop limit would reach 0") \
	X(IP6_NEIGH_UNRESOLVED, "ip6_rewrite", "neigh_unresolved", \
		"next hop has no neighbor entry") \
	X(IP6_TOO_BIG, "ip6_rewrite", "packet_too_big", \
		"larger than the output MTU (ICMPv6 sent)") \
	X(IP6_LOCAL_UNSUPPORTED, "ip6_local", "unsupported_protocol", \
		"for a local address, not an ICMPv6 echo request") \
	X(IP6_LOCAL_BAD_ICMP, "ip6_local", "bad_icmp", \
		"ICMPv6 to a local address: short or bad checksum") \
	X(TX_PORT_DOWN, "port_tx", "port_down", "output port is down or being removed") \
	X(TX_QUEUE_FULL, "port_tx", "queue_full", "output TX queue full")

enum nfv_drop_reason {
#define NFV_DROP_ENUM(sym, node, name, help) NFV_DROP_##sym,
	NFV_FOREACH_DROP_REASON(NFV_DROP_ENUM)
#undef NFV_DROP_ENUM
	NFV_DROP_MAX
};

struct nfv_drop_reason_info {
	const char *node;
	const char *name;
	const char *help;
};

extern const struct nfv_drop_reason_info nfv_drop_reason_info[NFV_DROP_MAX];

#endif
