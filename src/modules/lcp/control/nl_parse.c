/* SPDX-License-Identifier: BSD-3-Clause */
/* rtnetlink route and nexthop messages into plain structures (nl_parse.h). */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include <libmnl/libmnl.h>
#include <linux/nexthop.h>
#include <linux/rtnetlink.h>

#include "modules/lcp/control/nl_parse.h"

/* An address attribute of the family's size into ip; false when it is not. */
static bool
attr_ip(const struct nlattr *a, uint8_t family, struct nfv_ip *ip)
{
	uint16_t len = mnl_attr_get_payload_len(a);

	memset(ip, 0, sizeof(*ip));
	ip->family = family;
	if (family == AF_INET && len == 4) {
		memcpy(&ip->v4, mnl_attr_get_payload(a), 4);
		return true;
	}
	if (family == AF_INET6 && len == 16) {
		memcpy(ip->v6, mnl_attr_get_payload(a), 16);
		return true;
	}
	return false;
}

static bool
attr_u32(const struct nlattr *a, uint32_t *v)
{
	if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
		return false;
	*v = mnl_attr_get_u32(a);
	return true;
}

static int
hop_add(struct lcp_nl_route *r, int ifindex, const struct nlattr *gw)
{
	struct lcp_nl_hop *h;

	if (r->n_hops == NFV_ECMP_MAX) {
		r->hops_truncated = true;
		return 0;
	}
	h = &r->hops[r->n_hops];
	memset(h, 0, sizeof(*h));
	h->ifindex = ifindex;
	if (gw != NULL) {
		if (!attr_ip(gw, r->family, &h->gw))
			return -EINVAL;
		h->has_gw = true;
	}
	r->n_hops++;
	return 0;
}

/* RTA_MULTIPATH: struct rtnexthop entries, each with its own attributes. */
static int
parse_multipath(const struct nlattr *mp, struct lcp_nl_route *r)
{
	const uint8_t *p = mnl_attr_get_payload(mp);
	size_t left = mnl_attr_get_payload_len(mp);

	while (left >= sizeof(struct rtnexthop)) {
		const struct rtnexthop *nh = (const struct rtnexthop *)p;
		const struct nlattr *gw = NULL, *a;
		size_t len = nh->rtnh_len;

		if (len < sizeof(*nh) || len > left)
			return -EINVAL;
		for (a = (const struct nlattr *)(p + RTNH_ALIGN(sizeof(*nh)));
		     mnl_attr_ok(a, (int)((const uint8_t *)nh + len - (const uint8_t *)a));
		     a = mnl_attr_next(a))
			if (mnl_attr_get_type(a) == RTA_GATEWAY)
				gw = a;
		if (hop_add(r, nh->rtnh_ifindex, gw) < 0)
			return -EINVAL;
		len = RTNH_ALIGN(len);
		if (len >= left)
			break;
		p += len;
		left -= len;
	}
	return 0;
}

int
lcp_nl_parse_route(const struct nlmsghdr *nlh, struct lcp_nl_route *r)
{
	const struct rtmsg *rtm;
	const struct nlattr *a, *gw = NULL, *mp = NULL;
	uint32_t oif = 0;
	bool has_oif = false, has_dst = false;

	memset(r, 0, sizeof(*r));
	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*rtm)))
		return -EINVAL;
	rtm = mnl_nlmsg_get_payload(nlh);
	if (rtm->rtm_family != AF_INET && rtm->rtm_family != AF_INET6)
		return -EINVAL;
	r->family = rtm->rtm_family;
	r->dst_len = rtm->rtm_dst_len;
	if (r->dst_len > (r->family == AF_INET ? 32 : 128))
		return -EINVAL;
	r->protocol = rtm->rtm_protocol;
	r->type = rtm->rtm_type;
	r->scope = rtm->rtm_scope;
	r->tos = rtm->rtm_tos;
	r->rtm_flags = rtm->rtm_flags;
	r->table = rtm->rtm_table;
	r->nl_flags = nlh->nlmsg_flags;
	memset(&r->dst, 0, sizeof(r->dst));
	r->dst.family = r->family;
	mnl_attr_for_each(a, nlh, sizeof(*rtm)) {
		switch (mnl_attr_get_type(a)) {
		case RTA_DST:
			if (!attr_ip(a, r->family, &r->dst))
				return -EINVAL;
			has_dst = true;
			break;
		case RTA_OIF:
			if (!attr_u32(a, &oif))
				return -EINVAL;
			has_oif = true;
			break;
		case RTA_GATEWAY:
			gw = a;
			break;
		case RTA_PRIORITY:
			if (!attr_u32(a, &r->priority))
				return -EINVAL;
			break;
		case RTA_TABLE:
			if (!attr_u32(a, &r->table))
				return -EINVAL;
			break;
		case RTA_MULTIPATH:
			mp = a;
			break;
		case RTA_NH_ID:
			if (!attr_u32(a, &r->nh_id))
				return -EINVAL;
			break;
		default:
			break;
		}
	}
	if (!has_dst && r->dst_len != 0)
		return -EINVAL;
	if (mp != NULL)
		return parse_multipath(mp, r);
	if (has_oif || gw != NULL)
		return hop_add(r, (int)oif, gw);
	return 0;
}

int
lcp_nl_parse_nexthop(const struct nlmsghdr *nlh, struct lcp_nl_nexthop *nh)
{
	const struct nhmsg *nhm;
	const struct nlattr *a;
	uint32_t v;

	memset(nh, 0, sizeof(*nh));
	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*nhm)))
		return -EINVAL;
	nhm = mnl_nlmsg_get_payload(nlh);
	nh->family = nhm->nh_family;
	mnl_attr_for_each(a, nlh, sizeof(*nhm)) {
		switch (mnl_attr_get_type(a)) {
		case NHA_ID:
			if (!attr_u32(a, &nh->id))
				return -EINVAL;
			break;
		case NHA_OIF:
			if (!attr_u32(a, &v))
				return -EINVAL;
			nh->ifindex = (int)v;
			break;
		case NHA_GATEWAY:
			if (!attr_ip(a, mnl_attr_get_payload_len(a) == 4 ? AF_INET : AF_INET6,
				     &nh->gw))
				return -EINVAL;
			nh->has_gw = true;
			break;
		case NHA_BLACKHOLE:
			nh->blackhole = true;
			break;
		case NHA_FDB:
			nh->fdb = true;
			break;
		case NHA_GROUP: {
			const struct nexthop_grp *g = mnl_attr_get_payload(a);
			size_t n = mnl_attr_get_payload_len(a) / sizeof(*g);

			if (mnl_attr_get_payload_len(a) % sizeof(*g) != 0)
				return -EINVAL;
			for (size_t i = 0; i < n && nh->n_group < NFV_ECMP_MAX; i++)
				nh->group[nh->n_group++] = g[i].id;
			break;
		}
		default:
			break;
		}
	}
	if (nh->id == 0)
		return -EINVAL;
	return 0;
}
