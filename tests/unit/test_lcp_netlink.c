/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The lcp module's rtnetlink parser (src/modules/lcp/control/nl_parse.c):
 * messages built with libmnl as the kernel sends them (inline next hop,
 * RTA_MULTIPATH for IPv4 and IPv6, RTA_NH_ID, nexthop objects and groups)
 * and malformed ones. Pure functions: no EAL.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include <libmnl/libmnl.h>
#include <linux/nexthop.h>
#include <linux/rtnetlink.h>

#include "nfv_test.h"
#include "modules/lcp/control/nl_parse.h"

static char buf[8192];

static struct nlmsghdr *
route_msg(uint16_t type, uint8_t family, const char *dst, uint8_t len, uint8_t proto)
{
	struct nlmsghdr *nlh;
	struct rtmsg *rtm;
	uint8_t a[16];

	memset(buf, 0, sizeof(buf));
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = type;
	rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	rtm->rtm_family = family;
	rtm->rtm_dst_len = len;
	rtm->rtm_protocol = proto;
	rtm->rtm_table = RT_TABLE_MAIN;
	rtm->rtm_type = RTN_UNICAST;
	inet_pton(family, dst, a);
	mnl_attr_put(nlh, RTA_DST, family == AF_INET ? 4 : 16, a);
	return nlh;
}

static void
put_ip(struct nlmsghdr *nlh, uint16_t type, uint8_t family, const char *s)
{
	uint8_t a[16];

	inet_pton(family, s, a);
	mnl_attr_put(nlh, type, family == AF_INET ? 4 : 16, a);
}

static void
check_gw(const struct lcp_nl_hop *h, int ifindex, uint8_t family, const char *gw)
{
	uint8_t a[16];

	assert_int_equal(h->ifindex, ifindex);
	assert_true(h->has_gw);
	assert_int_equal(h->gw.family, family);
	inet_pton(family, gw, a);
	if (family == AF_INET)
		assert_memory_equal(&h->gw.v4, a, 4);
	else
		assert_memory_equal(h->gw.v6, a, 16);
}

/* A multipath attribute of (ifindex, gateway) entries. */
static void
put_multipath(struct nlmsghdr *nlh, uint8_t family, const int *ifs, const char *const *gws,
	      unsigned int n)
{
	struct nlattr *mp = mnl_attr_nest_start(nlh, RTA_MULTIPATH);

	for (unsigned int i = 0; i < n; i++) {
		struct rtnexthop *rtnh = mnl_nlmsg_get_payload_tail(nlh);

		memset(rtnh, 0, sizeof(*rtnh));
		rtnh->rtnh_ifindex = ifs[i];
		nlh->nlmsg_len += MNL_ALIGN(sizeof(*rtnh));
		put_ip(nlh, RTA_GATEWAY, family, gws[i]);
		rtnh->rtnh_len = (uint16_t)((char *)mnl_nlmsg_get_payload_tail(nlh) - (char *)rtnh);
	}
	mnl_attr_nest_end(nlh, mp);
}

static void
route_inline(void **state)
{
	struct nlmsghdr *nlh = route_msg(RTM_NEWROUTE, AF_INET, "192.0.2.0", 24, 186);
	struct lcp_nl_route r;

	(void)state;
	mnl_attr_put_u32(nlh, RTA_OIF, 7);
	put_ip(nlh, RTA_GATEWAY, AF_INET, "10.1.0.7");
	mnl_attr_put_u32(nlh, RTA_PRIORITY, 20);
	assert_int_equal(lcp_nl_parse_route(nlh, &r), 0);
	assert_int_equal(r.family, AF_INET);
	assert_int_equal(r.dst_len, 24);
	assert_int_equal(r.protocol, 186);
	assert_int_equal(r.priority, 20);
	assert_int_equal(r.table, RT_TABLE_MAIN);
	assert_int_equal(r.dst.v4, inet_addr("192.0.2.0"));
	assert_int_equal(r.n_hops, 1);
	check_gw(&r.hops[0], 7, AF_INET, "10.1.0.7");
	assert_int_equal(r.nh_id, 0);
	assert_int_equal(r.tos, 0);
	/* The same for one TOS only ("ip route add ... tos 0x10"). */
	((struct rtmsg *)mnl_nlmsg_get_payload(nlh))->rtm_tos = 0x10;
	assert_int_equal(lcp_nl_parse_route(nlh, &r), 0);
	assert_int_equal(r.tos, 0x10);
}

static void
route_connected(void **state)
{
	struct nlmsghdr *nlh = route_msg(RTM_NEWROUTE, AF_INET, "100.64.0.0", 16, 3);
	struct lcp_nl_route r;

	(void)state;
	mnl_attr_put_u32(nlh, RTA_OIF, 9);
	assert_int_equal(lcp_nl_parse_route(nlh, &r), 0);
	assert_int_equal(r.n_hops, 1);
	assert_int_equal(r.hops[0].ifindex, 9);
	assert_false(r.hops[0].has_gw);
}

static void
route_multipath4(void **state)
{
	static const int ifs[] = { 7, 8, 7 };
	static const char *const gws[] = { "10.1.0.8", "10.2.0.9", "10.1.0.10" };
	struct nlmsghdr *nlh = route_msg(RTM_NEWROUTE, AF_INET, "198.51.100.0", 24, 3);
	struct lcp_nl_route r;

	(void)state;
	put_multipath(nlh, AF_INET, ifs, gws, 3);
	mnl_attr_put_u32(nlh, RTA_TABLE, 1000);
	assert_int_equal(lcp_nl_parse_route(nlh, &r), 0);
	assert_int_equal(r.table, 1000);
	assert_int_equal(r.n_hops, 3);
	for (unsigned int i = 0; i < 3; i++)
		check_gw(&r.hops[i], ifs[i], AF_INET, gws[i]);
}

static void
route_multipath6(void **state)
{
	static const int ifs[] = { 7, 7 };
	static const char *const gws[] = { "2001:db8:1::8", "fe80::1" };
	struct nlmsghdr *nlh = route_msg(RTM_DELROUTE, AF_INET6, "2001:db8:98::", 48, 186);
	struct lcp_nl_route r;

	(void)state;
	nlh->nlmsg_flags = NLM_F_APPEND;
	put_multipath(nlh, AF_INET6, ifs, gws, 2);
	assert_int_equal(lcp_nl_parse_route(nlh, &r), 0);
	assert_int_equal(r.family, AF_INET6);
	assert_int_equal(r.dst_len, 48);
	assert_int_equal(r.nl_flags & NLM_F_APPEND, NLM_F_APPEND);
	assert_int_equal(r.n_hops, 2);
	check_gw(&r.hops[0], 7, AF_INET6, gws[0]);
	check_gw(&r.hops[1], 7, AF_INET6, gws[1]);
}

static void
route_nh_id(void **state)
{
	struct nlmsghdr *nlh = route_msg(RTM_NEWROUTE, AF_INET, "203.0.113.0", 24, 186);
	struct lcp_nl_route r;

	(void)state;
	mnl_attr_put_u32(nlh, RTA_NH_ID, 13);
	assert_int_equal(lcp_nl_parse_route(nlh, &r), 0);
	assert_int_equal(r.nh_id, 13);
	assert_int_equal(r.n_hops, 0);
}

static void
route_default(void **state)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(memset(buf, 0, sizeof(buf)));
	struct rtmsg *rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	struct lcp_nl_route r;

	(void)state;
	nlh->nlmsg_type = RTM_NEWROUTE;
	rtm->rtm_family = AF_INET;
	rtm->rtm_type = RTN_UNICAST;
	put_ip(nlh, RTA_GATEWAY, AF_INET, "10.1.0.1");
	mnl_attr_put_u32(nlh, RTA_OIF, 3);
	assert_int_equal(lcp_nl_parse_route(nlh, &r), 0);
	assert_int_equal(r.dst_len, 0);
	assert_int_equal(r.dst.v4, 0);
	assert_int_equal(r.n_hops, 1);
}

static void
route_malformed(void **state)
{
	struct nlmsghdr *nlh;
	struct lcp_nl_route r;
	struct rtnexthop *rtnh;
	struct nlattr *mp;

	(void)state;
	/* Too short for a struct rtmsg. */
	nlh = mnl_nlmsg_put_header(memset(buf, 0, sizeof(buf)));
	nlh->nlmsg_type = RTM_NEWROUTE;
	nlh->nlmsg_len = mnl_nlmsg_size(2);
	assert_int_equal(lcp_nl_parse_route(nlh, &r), -EINVAL);
	/* A gateway of the wrong size. */
	nlh = route_msg(RTM_NEWROUTE, AF_INET, "192.0.2.0", 24, 3);
	mnl_attr_put(nlh, RTA_GATEWAY, 16, "0123456789abcdef");
	assert_int_equal(lcp_nl_parse_route(nlh, &r), -EINVAL);
	/* A prefix length past the family's. */
	nlh = route_msg(RTM_NEWROUTE, AF_INET, "192.0.2.0", 33, 3);
	assert_int_equal(lcp_nl_parse_route(nlh, &r), -EINVAL);
	/* A length without a destination. */
	nlh = mnl_nlmsg_put_header(memset(buf, 0, sizeof(buf)));
	nlh->nlmsg_type = RTM_NEWROUTE;
	((struct rtmsg *)mnl_nlmsg_put_extra_header(nlh, sizeof(struct rtmsg)))->rtm_family =
		AF_INET;
	((struct rtmsg *)mnl_nlmsg_get_payload(nlh))->rtm_dst_len = 8;
	assert_int_equal(lcp_nl_parse_route(nlh, &r), -EINVAL);
	/* Another family. */
	nlh = route_msg(RTM_NEWROUTE, AF_INET, "192.0.2.0", 24, 3);
	((struct rtmsg *)mnl_nlmsg_get_payload(nlh))->rtm_family = AF_BRIDGE;
	assert_int_equal(lcp_nl_parse_route(nlh, &r), -EINVAL);
	/* A multipath entry longer than its attribute. */
	nlh = route_msg(RTM_NEWROUTE, AF_INET, "192.0.2.0", 24, 3);
	mp = mnl_attr_nest_start(nlh, RTA_MULTIPATH);
	rtnh = mnl_nlmsg_get_payload_tail(nlh);
	memset(rtnh, 0, sizeof(*rtnh));
	rtnh->rtnh_len = 200;
	nlh->nlmsg_len += MNL_ALIGN(sizeof(*rtnh));
	mnl_attr_nest_end(nlh, mp);
	assert_int_equal(lcp_nl_parse_route(nlh, &r), -EINVAL);
	/* An RTA_OIF that is not 32 bits. */
	nlh = route_msg(RTM_NEWROUTE, AF_INET, "192.0.2.0", 24, 3);
	mnl_attr_put_u16(nlh, RTA_OIF, 3);
	assert_int_equal(lcp_nl_parse_route(nlh, &r), -EINVAL);
}

static struct nlmsghdr *
nh_msg(uint16_t type, uint32_t id)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(memset(buf, 0, sizeof(buf)));
	struct nhmsg *nhm = mnl_nlmsg_put_extra_header(nlh, sizeof(*nhm));

	nlh->nlmsg_type = type;
	nhm->nh_family = AF_INET;
	if (id != 0)
		mnl_attr_put_u32(nlh, NHA_ID, id);
	return nlh;
}

static void
nexthop_objects(void **state)
{
	struct lcp_nl_nexthop nh;
	struct nlmsghdr *nlh;
	struct nexthop_grp g[3] = { { .id = 11 }, { .id = 12, .weight = 1 }, { .id = 14 } };

	(void)state;
	nlh = nh_msg(RTM_NEWNEXTHOP, 11);
	mnl_attr_put_u32(nlh, NHA_OIF, 7);
	put_ip(nlh, NHA_GATEWAY, AF_INET, "10.1.0.11");
	assert_int_equal(lcp_nl_parse_nexthop(nlh, &nh), 0);
	assert_int_equal(nh.id, 11);
	assert_int_equal(nh.ifindex, 7);
	assert_true(nh.has_gw);
	assert_int_equal(nh.gw.v4, inet_addr("10.1.0.11"));
	assert_int_equal(nh.n_group, 0);
	/* An IPv6 gateway on an AF_INET6 object. */
	nlh = nh_msg(RTM_NEWNEXTHOP, 21);
	put_ip(nlh, NHA_GATEWAY, AF_INET6, "fe80::21");
	assert_int_equal(lcp_nl_parse_nexthop(nlh, &nh), 0);
	assert_int_equal(nh.gw.family, AF_INET6);
	/* A group. */
	nlh = nh_msg(RTM_NEWNEXTHOP, 13);
	mnl_attr_put(nlh, NHA_GROUP, sizeof(g), g);
	assert_int_equal(lcp_nl_parse_nexthop(nlh, &nh), 0);
	assert_int_equal(nh.n_group, 3);
	assert_int_equal(nh.group[0], 11);
	assert_int_equal(nh.group[1], 12);
	assert_int_equal(nh.group[2], 14);
	/* A blackhole. */
	nlh = nh_msg(RTM_NEWNEXTHOP, 15);
	mnl_attr_put(nlh, NHA_BLACKHOLE, 0, NULL);
	assert_int_equal(lcp_nl_parse_nexthop(nlh, &nh), 0);
	assert_true(nh.blackhole);
	/* Without an id, with a group of a bad size. */
	nlh = nh_msg(RTM_DELNEXTHOP, 0);
	assert_int_equal(lcp_nl_parse_nexthop(nlh, &nh), -EINVAL);
	nlh = nh_msg(RTM_NEWNEXTHOP, 16);
	mnl_attr_put(nlh, NHA_GROUP, 5, g);
	assert_int_equal(lcp_nl_parse_nexthop(nlh, &nh), -EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(route_inline),
		cmocka_unit_test(route_connected),
		cmocka_unit_test(route_multipath4),
		cmocka_unit_test(route_multipath6),
		cmocka_unit_test(route_nh_id),
		cmocka_unit_test(route_default),
		cmocka_unit_test(route_malformed),
		cmocka_unit_test(nexthop_objects),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
