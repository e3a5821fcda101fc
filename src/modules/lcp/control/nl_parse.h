/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rtnetlink messages (RTM_NEWROUTE / RTM_DELROUTE, RTM_NEWNEXTHOP /
 * RTM_DELNEXTHOP) read with libmnl into plain structures. Pure functions:
 * the unit tests feed them messages built with libmnl.
 */
#ifndef NFV_LCP_NL_PARSE_H
#define NFV_LCP_NL_PARSE_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/netlink.h>

#include "modules/ip/ip.h"

struct lcp_nl_hop {
	int ifindex;
	bool has_gw;
	struct nfv_ip gw;
};

struct lcp_nl_route {
	uint8_t family;     /* AF_INET or AF_INET6 */
	uint8_t dst_len;
	uint8_t protocol;   /* rtm_protocol */
	uint8_t type;       /* rtm_type */
	uint8_t scope;
	uint8_t tos;        /* rtm_tos: IPv4 routes for one TOS only (0: any) */
	uint16_t nl_flags;  /* nlmsg_flags: NLM_F_APPEND, NLM_F_REPLACE */
	uint32_t rtm_flags;
	uint32_t table;
	uint32_t priority;  /* the metric */
	uint32_t nh_id;     /* RTA_NH_ID: a nexthop object (0: hops below) */
	struct nfv_ip dst;
	unsigned int n_hops;
	struct lcp_nl_hop hops[NFV_ECMP_MAX];
	bool hops_truncated; /* more than NFV_ECMP_MAX */
};

struct lcp_nl_nexthop {
	uint32_t id;
	uint8_t family;
	bool blackhole;
	bool fdb;
	int ifindex;
	bool has_gw;
	struct nfv_ip gw;
	unsigned int n_group;  /* a group: its member ids */
	uint32_t group[NFV_ECMP_MAX];
};

/* 0, or -EINVAL when the message is malformed (short, bad attribute). */
int lcp_nl_parse_route(const struct nlmsghdr *nlh, struct lcp_nl_route *r);
int lcp_nl_parse_nexthop(const struct nlmsghdr *nlh, struct lcp_nl_nexthop *nh);

#endif
