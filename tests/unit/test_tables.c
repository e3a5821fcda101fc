/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The forwarding tables driven through the command grammar, on a real EAL
 * with one idle worker: ports (net_null), addresses, neighbors, routes (via,
 * ECMP, dev, blackhole), deletes, "route load", table-full behaviour with
 * tiny limits, "port del". Every step checks what the grammar shows
 * ("route show", "nexthop show", ...) and what a worker would read (both
 * tables of each FIB pair, then nfv_nh_get()).
 *
 * Each test runs on its own: its setup builds the tables it starts from
 * (empty, ports a and b, + addresses, + neighbors: the route baseline) and
 * its teardown empties them again through the grammar, checking that no
 * next hop is left behind. "test_tables NAME..." runs the tests named (or
 * matching a pattern) in that order, "--reverse" backwards, "--list" shows
 * the names; "shutdown" takes the EAL down, so it always runs last.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <unistd.h>

#include "nfv_test.h"
#include "nfv_test_eal.h"
#include "api/parse.h"
#include "modules/infra/port.h"

/* Tiny on purpose: 16 routes per family. FIB (tbl8) exhaustion is in
 * test_fib, on fresh tables whose group counts are known. */
static const struct nfv_limits limits = {
	.max_routes4 = 16,
	.max_routes6 = 16,
	.tbl8_4 = 64,
	.tbl8_6 = 4096,
};

#define MAC_NEIGH_A4 "02:00:00:00:01:02"
#define MAC_NEIGH_B4 "02:00:00:00:02:02"
#define MAC_NEIGH_A6 "02:00:00:00:01:12"
#define MAC_NEIGH_B6 "02:00:00:00:02:12"

/* The tables the tests start from, built by their setup. */
static const char *const port_lines[] = {
	"port add a dev net_null0,no-rx=1",
	"port add b dev net_null1,no-rx=1",
};

static const char *const addr_lines[] = {
	"addr add 192.168.1.1/24 dev a",
	"addr add 192.168.2.1/24 dev b",
	"addr add 2001:db8:1::1/64 dev a",
	"addr add 2001:db8:2::1/64 dev b",
};

static const char *const neigh_lines[] = {
	"neigh add 192.168.1.2 lladdr " MAC_NEIGH_A4 " dev a",
	"neigh add 192.168.2.2 lladdr " MAC_NEIGH_B4 " dev b",
	"neigh add 2001:db8:1::2 lladdr " MAC_NEIGH_A6 " dev a",
	"neigh add 2001:db8:2::2 lladdr " MAC_NEIGH_B6 " dev b",
};

/* What a route show row says, without its next-hop id. via: NULL, an
 * address, or a JSON array of addresses (ECMP). */
struct route_row {
	const char *prefix;
	const char *source;
	const char *type;
	const char *via;
	const char *dev;
};

static json_t *
str_or_null(const char *s)
{
	return s != NULL ? json_string(s) : json_null();
}

static json_t *
expected_routes(const struct route_row *rows, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++) {
		json_t *via;

		if (rows[i].via != NULL && rows[i].via[0] == '[')
			via = json_loads(rows[i].via, 0, NULL);
		else
			via = str_or_null(rows[i].via);
		assert_non_null(via);
		json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:o, s:o, s:s}",
						   "prefix", rows[i].prefix,
						   "source", rows[i].source,
						   "type", rows[i].type,
						   "via", via,
						   "dev", str_or_null(rows[i].dev),
						   "vrf", "default"));
	}
	return a;
}

/* route show [PREFIX] without the next-hop ids; every id must name a
 * published next hop. */
static json_t *
routes_without_ids(const char *line)
{
	json_t *data = nfv_test_ok("%s", line), *routes, *copy, *r;
	size_t i;

	assert_non_null(data);
	routes = json_object_get(data, "routes");
	assert_true(json_is_array(routes));
	copy = json_deep_copy(routes);
	json_array_foreach(copy, i, r) {
		json_int_t id = json_integer_value(json_object_get(r, "nexthop_id"));

		assert_true(id > 0 && id < NFV_NH_MAX);
		assert_non_null(nfv_nh_get((uint32_t)id));
		json_object_del(r, "nexthop_id");
	}
	json_decref(data);
	return copy;
}

static void
check_routes(const char *line, const struct route_row *rows, size_t n)
{
	json_t *want = expected_routes(rows, n), *got = routes_without_ids(line);

	nfv_test_assert_json_equal(want, got, line);
	json_decref(want);
	json_decref(got);
}

static int
cmp_dumps(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorts an array of objects in place by their compact JSON text: a list
 * whose order the grammar does not promise, made comparable. */
static void
sort_entries(json_t *array)
{
	size_t n = json_array_size(array);
	char **dumps = calloc(n ? n : 1, sizeof(*dumps));
	json_t *e;
	size_t i;

	assert_non_null(dumps);
	json_array_foreach(array, i, e) {
		dumps[i] = json_dumps(e, JSON_COMPACT | JSON_SORT_KEYS);
		assert_non_null(dumps[i]);
	}
	qsort(dumps, n, sizeof(*dumps), cmp_dumps);
	json_array_clear(array);
	for (i = 0; i < n; i++) {
		json_array_append_new(array, json_loads(dumps[i], 0, NULL));
		free(dumps[i]);
	}
	free(dumps);
}

/* The "nexthop show" entry of id (NULL when absent). */
static json_t *
nexthop_entry(uint32_t id)
{
	json_t *data = nfv_test_ok("nexthop show"), *nh, *found = NULL;
	size_t i;

	json_array_foreach(json_object_get(data, "nexthops"), i, nh)
		if (json_integer_value(json_object_get(nh, "id")) == id)
			found = json_incref(nh);
	json_decref(data);
	return found;
}

static json_int_t
refcnt(uint32_t id)
{
	json_t *nh = nexthop_entry(id);
	json_int_t r;

	if (nh == NULL)
		fail_msg("next hop %u not in 'nexthop show'", id);
	r = json_integer_value(json_object_get(nh, "refcnt"));
	assert_int_equal(r, nfv_nh_get(id)->refcnt);
	json_decref(nh);
	return r;
}

static uint16_t
port_id(const char *name)
{
	struct nfv_port *p = nfv_port_by_name(name);

	if (p == NULL)
		fail_msg("no port %s", name);
	return p->port_id;
}

/* Looks an address up and checks the next hop a worker would use. */
static const struct nfv_nexthop *
expect_nh(const char *addr, enum nfv_nh_type type, const char *port)
{
	uint32_t id = nfv_test_lookup(addr);
	const struct nfv_nexthop *nh;

	if (id == 0)
		fail_msg("%s: no route, expected next hop type %d", addr, type);
	nh = nfv_nh_get(id);
	if (nh->type != type)
		fail_msg("%s: next hop %u has type %u, expected %d", addr, id, nh->type, type);
	assert_int_equal(nh->id, id);
	assert_int_equal(nh->family, strchr(addr, ':') ? AF_INET6 : AF_INET);
	if (port != NULL)
		assert_int_equal(nh->port_id, port_id(port));
	return nh;
}

static void
expect_no_route(const char *addr)
{
	uint32_t id = nfv_test_lookup(addr);

	if (id != 0)
		fail_msg("%s: expected no route, FIB gives next hop %u", addr, id);
}

/* A resolved gateway's rewrite: neighbor MAC, port MAC, ethertype. */
static void
expect_l2(const struct nfv_nexthop *nh, const char *mac, const char *port, uint16_t ethertype)
{
	struct rte_ether_addr m;
	uint16_t et = rte_cpu_to_be_16(ethertype);

	assert_int_equal(nfv_parse_mac(mac, &m), 0);
	assert_true(nh->resolved);
	assert_memory_equal(nh->l2, m.addr_bytes, 6);
	assert_memory_equal(nh->l2 + 6, nfv_port_by_name(port)->mac.addr_bytes, 6);
	assert_memory_equal(nh->l2 + 12, &et, 2);
	assert_int_equal(nh->mtu, nfv_port_by_name(port)->mtu);
	assert_int_equal(nh->fwd_mtu, nh->mtu); /* the rewrite's one fast-path test */
}

static int
group_setup(void **state)
{
	return nfv_test_eal_up(&limits) == 0 ? 0 : -1;
}

static void
run_lines(const char *const *lines, size_t n)
{
	for (size_t i = 0; i < n; i++)
		json_decref(nfv_test_ok("%s", lines[i]));
}

/* The setups: from empty tables, up to a level; *state is the snapshot of
 * the tables built, which the tests that delete what they added come back
 * to (next-hop ids and reference counts included). */
enum start { START_EMPTY, START_PORTS, START_ADDRESSES, START_BASELINE };

static int
setup_at(void **state, enum start level)
{
	if (!nfv_test_eal_is_up())
		fail_msg("the EAL is down: the shutdown test can only run last");
	nfv_test_assert_empty("tables before the test's setup");
	if (level >= START_PORTS)
		run_lines(port_lines, RTE_DIM(port_lines));
	if (level >= START_ADDRESSES)
		run_lines(addr_lines, RTE_DIM(addr_lines));
	if (level >= START_BASELINE)
		run_lines(neigh_lines, RTE_DIM(neigh_lines));
	*state = nfv_test_snapshot();
	return 0;
}

static int
setup_empty(void **state)
{
	return setup_at(state, START_EMPTY);
}

static int
setup_ports(void **state)
{
	return setup_at(state, START_PORTS);
}

static int
setup_addresses(void **state)
{
	return setup_at(state, START_ADDRESSES);
}

static int
setup_baseline(void **state)
{
	return setup_at(state, START_BASELINE);
}

static int
teardown_clear(void **state)
{
	json_decref(*state);
	*state = NULL;
	nfv_test_clear_tables();
	return 0;
}

/* From empty tables: two null ports, no L3 state. */
static void
test_ports_add(void **state)
{
	json_t *data, *ports, *snap;

	run_lines(port_lines, RTE_DIM(port_lines));
	data = nfv_test_ok("port show a");
	ports = json_object_get(data, "ports");
	assert_int_equal(json_array_size(ports), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(ports, 0), "name")),
			    "a");
	assert_string_equal(json_string_value(json_object_get(json_array_get(ports, 0), "dev")),
			    "net_null0");
	assert_true(json_is_true(json_object_get(json_array_get(ports, 0), "admin_up")));
	json_decref(data);
	data = nfv_test_ok("port show");
	assert_int_equal(json_array_size(json_object_get(data, "ports")), 2);
	json_decref(data);

	snap = nfv_test_snapshot();
	assert_int_equal(json_array_size(json_object_get(json_object_get(snap, "routes"),
							 "routes")), 0);
	assert_int_equal(json_array_size(json_object_get(json_object_get(snap, "nexthops"),
							 "nexthops")), 0);
	json_decref(snap);
	assert_int_equal(nfv_nh_count(), 0);
	expect_no_route("192.168.1.1");
	expect_no_route("2001:db8:1::1");
}

static const struct route_row addr_routes[] = {
	{ "192.168.1.0/24", "connected", "connected", NULL, "a" },
	{ "192.168.1.1/32", "local", "local", NULL, NULL },
	{ "192.168.2.0/24", "connected", "connected", NULL, "b" },
	{ "192.168.2.1/32", "local", "local", NULL, NULL },
	{ "2001:db8:1::/64", "connected", "connected", NULL, "a" },
	{ "2001:db8:1::1/128", "local", "local", NULL, NULL },
	{ "2001:db8:2::/64", "connected", "connected", NULL, "b" },
	{ "2001:db8:2::1/128", "local", "local", NULL, NULL },
};

/* From ports a and b: one IPv4 and one IPv6 address on each port. */
static void
test_addresses(void **state)
{
	const struct nfv_port_l3 *l3;
	struct nfv_ip ip;
	json_t *data, *want;
	uint32_t local4;

	run_lines(addr_lines, RTE_DIM(addr_lines));
	check_routes("route show", addr_routes, RTE_DIM(addr_routes));
	assert_int_equal(nfv_route_count(AF_INET), 4);
	assert_int_equal(nfv_route_count(AF_INET6), 4);

	local4 = expect_nh("192.168.1.1", NFV_NH_LOCAL, NULL)->id;
	assert_int_equal(expect_nh("192.168.2.1", NFV_NH_LOCAL, NULL)->id, local4);
	assert_int_equal(refcnt(local4), 2);
	assert_int_equal(refcnt(expect_nh("192.168.1.77", NFV_NH_CONNECTED, "a")->id), 1);
	assert_int_equal(refcnt(expect_nh("192.168.2.254", NFV_NH_CONNECTED, "b")->id), 1);
	assert_int_not_equal(expect_nh("2001:db8:1::1", NFV_NH_LOCAL, NULL)->id, local4);
	expect_nh("2001:db8:1::abcd", NFV_NH_CONNECTED, "a");
	expect_nh("2001:db8:2:0:ffff:ffff:ffff:ffff", NFV_NH_CONNECTED, "b");
	expect_no_route("192.168.3.1");
	expect_no_route("2001:db8:3::1");
	/* Local, two connected per family: 2 + 4. */
	assert_int_equal(nfv_nh_count(), 6);

	data = nfv_test_ok("addr show");
	want = json_loads("{\"addresses\": ["
			  "{\"address\": \"192.168.1.1/24\", \"dev\": \"a\", \"vrf\": \"default\"},"
			  "{\"address\": \"2001:db8:1::1/64\", \"dev\": \"a\", \"vrf\": \"default\"},"
			  "{\"address\": \"192.168.2.1/24\", \"dev\": \"b\", \"vrf\": \"default\"},"
			  "{\"address\": \"2001:db8:2::1/64\", \"dev\": \"b\", \"vrf\": \"default\"}]}",
			  0, NULL);
	nfv_test_assert_json_equal(want, data, "addr show");
	json_decref(want);
	json_decref(data);

	/* ICMP errors leave from the port's first address. */
	l3 = nfv_port_l3_get(port_id("a"));
	assert_non_null(l3);
	assert_true(l3->has4 && l3->has6);
	assert_int_equal(nfv_parse_ip("192.168.1.1", &ip), 0);
	assert_int_equal(l3->src4, ip.v4);
	assert_int_equal(nfv_parse_ip("2001:db8:1::1", &ip), 0);
	assert_memory_equal(l3->src6, ip.v6, 16);

	/* A second address in the same subnet shares the connected route;
	 * removing either keeps it. */
	json_decref(nfv_test_ok("addr add 192.168.1.100/24 dev a"));
	assert_int_equal(nfv_route_count(AF_INET), 5);
	json_decref(nfv_test_ok("addr del 192.168.1.1/24 dev a"));
	expect_nh("192.168.1.77", NFV_NH_CONNECTED, "a");
	expect_nh("192.168.1.100", NFV_NH_LOCAL, NULL);
	/* No longer local: on the link like any other host. */
	expect_nh("192.168.1.1", NFV_NH_CONNECTED, "a");
	json_decref(nfv_test_ok("addr add 192.168.1.1/24 dev a"));
	json_decref(nfv_test_ok("addr del 192.168.1.100/24 dev a"));
	check_routes("route show", addr_routes, RTE_DIM(addr_routes));
	/* The first address is 192.168.1.1 again. */
	assert_int_equal(nfv_parse_ip("192.168.1.1", &ip), 0);
	assert_int_equal(nfv_port_l3_get(port_id("a"))->src4, ip.v4);
	/* A /32 address has no connected route. */
	json_decref(nfv_test_ok("addr add 10.255.0.1/32 dev b"));
	assert_int_equal(nfv_route_count(AF_INET), 5);
	json_decref(nfv_test_ok("addr del 10.255.0.1/32 dev b"));
	assert_int_equal(nfv_route_count(AF_INET), 4);
	check_routes("route show", addr_routes, RTE_DIM(addr_routes));
	assert_int_equal(nfv_nh_count(), 6);
}

static const struct route_row neigh_routes[] = {
	{ "192.168.1.0/24", "connected", "connected", NULL, "a" },
	{ "192.168.1.1/32", "local", "local", NULL, NULL },
	{ "192.168.1.2/32", "neighbor", "gateway", "192.168.1.2", "a" },
	{ "192.168.2.0/24", "connected", "connected", NULL, "b" },
	{ "192.168.2.1/32", "local", "local", NULL, NULL },
	{ "192.168.2.2/32", "neighbor", "gateway", "192.168.2.2", "b" },
	{ "2001:db8:1::/64", "connected", "connected", NULL, "a" },
	{ "2001:db8:1::1/128", "local", "local", NULL, NULL },
	{ "2001:db8:1::2/128", "neighbor", "gateway", "2001:db8:1::2", "a" },
	{ "2001:db8:2::/64", "connected", "connected", NULL, "b" },
	{ "2001:db8:2::1/128", "local", "local", NULL, NULL },
	{ "2001:db8:2::2/128", "neighbor", "gateway", "2001:db8:2::2", "b" },
};

/* From ports with addresses: one static neighbor per port and family. */
static void
test_neighbors(void **state)
{
	const struct nfv_nexthop *nh;
	json_t *data, *want;
	uint32_t id;

	run_lines(neigh_lines, RTE_DIM(neigh_lines));
	check_routes("route show", neigh_routes, RTE_DIM(neigh_routes));

	nh = expect_nh("192.168.1.2", NFV_NH_GATEWAY, "a");
	expect_l2(nh, MAC_NEIGH_A4, "a", RTE_ETHER_TYPE_IPV4);
	/* The neighbor's own reference and its host route's. */
	assert_int_equal(refcnt(nh->id), 2);
	expect_l2(expect_nh("192.168.2.2", NFV_NH_GATEWAY, "b"), MAC_NEIGH_B4, "b",
		  RTE_ETHER_TYPE_IPV4);
	expect_l2(expect_nh("2001:db8:1::2", NFV_NH_GATEWAY, "a"), MAC_NEIGH_A6, "a",
		  RTE_ETHER_TYPE_IPV6);
	expect_l2(expect_nh("2001:db8:2::2", NFV_NH_GATEWAY, "b"), MAC_NEIGH_B6, "b",
		  RTE_ETHER_TYPE_IPV6);

	data = nfv_test_ok("neigh show");
	want = json_loads("{\"neighbors\": ["
			  "{\"address\": \"192.168.1.2\", \"lladdr\": \"" MAC_NEIGH_A4 "\", "
			  "\"dev\": \"a\", \"state\": \"static\", \"vrf\": \"default\"},"
			  "{\"address\": \"192.168.2.2\", \"lladdr\": \"" MAC_NEIGH_B4 "\", "
			  "\"dev\": \"b\", \"state\": \"static\", \"vrf\": \"default\"},"
			  "{\"address\": \"2001:db8:1::2\", \"lladdr\": \"" MAC_NEIGH_A6 "\", "
			  "\"dev\": \"a\", \"state\": \"static\", \"vrf\": \"default\"},"
			  "{\"address\": \"2001:db8:2::2\", \"lladdr\": \"" MAC_NEIGH_B6 "\", "
			  "\"dev\": \"b\", \"state\": \"static\", \"vrf\": \"default\"}]}", 0, NULL);
	/* In next-hop id order, which depends on the ids freed before. */
	sort_entries(json_object_get(data, "neighbors"));
	nfv_test_assert_json_equal(want, data, "neigh show");
	json_decref(want);
	json_decref(data);

	/* "neigh add" again replaces the MAC in place: same id, new rewrite,
	 * same references. */
	id = nfv_test_lookup("192.168.1.2");
	json_decref(nfv_test_ok("neigh add 192.168.1.2 lladdr 02:00:00:00:01:99 dev a"));
	nh = expect_nh("192.168.1.2", NFV_NH_GATEWAY, "a");
	assert_int_equal(nh->id, id);
	expect_l2(nh, "02:00:00:00:01:99", "a", RTE_ETHER_TYPE_IPV4);
	assert_int_equal(refcnt(id), 2);
	json_decref(nfv_test_ok("neigh add 192.168.1.2 lladdr " MAC_NEIGH_A4 " dev a"));

	/* Delete and add back: nothing left behind. */
	json_decref(nfv_test_ok("neigh del 2001:db8:2::2 dev b"));
	expect_nh("2001:db8:2::2", NFV_NH_CONNECTED, "b");
	assert_int_equal(nfv_route_count(AF_INET6), 5);
	json_decref(nfv_test_ok("neigh add 2001:db8:2::2 lladdr " MAC_NEIGH_B6 " dev b"));

	check_routes("route show", neigh_routes, RTE_DIM(neigh_routes));
	assert_int_equal(nfv_route_count(AF_INET), 6);
	assert_int_equal(nfv_route_count(AF_INET6), 6);
	assert_int_equal(nfv_nh_count(), 10);
}

/* From the baseline (ports, addresses, neighbors): gateway routes, longest
 * prefix wins, next hops shared by gateway and port. */
static void
test_routes_via(void **state)
{
	uint32_t gw_a = nfv_test_lookup("192.168.1.2"), gw_b = nfv_test_lookup("192.168.2.2");
	uint32_t gw6_a = nfv_test_lookup("2001:db8:1::2"), gw6_b = nfv_test_lookup("2001:db8:2::2");
	uint64_t grace = nfv_rcu_grace_periods();
	const struct nfv_nexthop *nh;
	json_t *data, *want;
	char text[512];

	json_decref(nfv_test_ok("route add 10.0.0.0/8 via 192.168.1.2"));
	/* Publishing waited for the worker at least once. */
	assert_true(nfv_rcu_grace_periods() > grace);
	assert_int_equal(nfv_test_lookup("10.200.0.1"), gw_a);
	assert_int_equal(refcnt(gw_a), 3);

	json_decref(nfv_test_ok("route add 10.1.0.0/16 via 192.168.2.2"));
	assert_int_equal(nfv_test_lookup("10.1.2.3"), gw_b);
	assert_int_equal(nfv_test_lookup("10.2.0.1"), gw_a);

	/* A gateway without a neighbor: a next hop of its own, unresolved. */
	json_decref(nfv_test_ok("route add 10.1.2.0/24 via 192.168.1.3"));
	nh = expect_nh("10.1.2.3", NFV_NH_GATEWAY, "a");
	assert_false(nh->resolved);
	assert_int_equal(nh->fwd_mtu, 0); /* every packet to the slow path */
	assert_int_equal(refcnt(nh->id), 1);
	assert_int_equal(nfv_test_lookup("10.1.3.1"), gw_b);

	/* "dev" pins the port even where the gateway's subnet is elsewhere:
	 * a different next hop from the neighbor's on a. */
	json_decref(nfv_test_ok("route add 172.16.0.0/12 via 192.168.1.2 dev b"));
	nh = expect_nh("172.31.255.255", NFV_NH_GATEWAY, "b");
	assert_int_not_equal(nh->id, gw_a);
	assert_false(nh->resolved);
	expect_no_route("172.32.0.0");

	json_decref(nfv_test_ok("route add 2001:db8:100::/48 via 2001:db8:1::2"));
	json_decref(nfv_test_ok("route add 2001:db8:100:1::/64 via 2001:db8:2::2"));
	assert_int_equal(nfv_test_lookup("2001:db8:100::5"), gw6_a);
	assert_int_equal(nfv_test_lookup("2001:db8:100:1::5"), gw6_b);
	assert_int_equal(nfv_test_lookup("2001:db8:100:2::5"), gw6_a);
	expect_no_route("2001:db8:101::1");

	/* Default routes catch the rest, and only the rest. */
	json_decref(nfv_test_ok("route add 0.0.0.0/0 via 192.168.2.2"));
	json_decref(nfv_test_ok("route add ::/0 via 2001:db8:2::2"));
	assert_int_equal(nfv_test_lookup("172.32.0.0"), gw_b);
	assert_int_equal(nfv_test_lookup("255.255.255.255"), gw_b);
	assert_int_equal(nfv_test_lookup("10.200.0.1"), gw_a);
	assert_int_equal(nfv_test_lookup("2001:db8:101::1"), gw6_b);
	assert_int_equal(nfv_test_lookup("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"), gw6_b);
	assert_int_equal(nfv_test_lookup("2001:db8:100::5"), gw6_a);
	json_decref(nfv_test_ok("route del 0.0.0.0/0"));
	json_decref(nfv_test_ok("route del ::/0"));
	expect_no_route("172.32.0.0");
	expect_no_route("2001:db8:101::1");

	data = nfv_test_ok("route show 10.0.0.0/8");
	snprintf(text, sizeof(text), "{\"routes\": [{\"prefix\": \"10.0.0.0/8\", \"source\": "
		 "\"static\", \"type\": \"gateway\", \"via\": \"192.168.1.2\", \"dev\": \"a\", "
		 "\"vrf\": \"default\", \"nexthop_id\": %u}]}", gw_a);
	want = json_loads(text, 0, NULL);
	nfv_test_assert_json_equal(want, data, "route show 10.0.0.0/8");
	json_decref(want);
	json_decref(data);
	/* An address inside the prefix is looked up as its network. */
	data = nfv_test_ok("route show 10.1.2.99/24");
	assert_string_equal(json_string_value(json_object_get(json_array_get(
		json_object_get(data, "routes"), 0), "via")), "192.168.1.3");
	json_decref(data);
}

/* From the baseline: ECMP groups hold a reference on each member. */
static void
test_routes_ecmp(void **state)
{
	uint32_t gw_a = nfv_test_lookup("192.168.1.2"), gw_b = nfv_test_lookup("192.168.2.2");
	json_int_t ref_a = refcnt(gw_a), ref_b = refcnt(gw_b);
	const struct nfv_nexthop *nh;
	uint32_t n_nh;
	char line[1024];
	size_t o;
	static const struct route_row ecmp_rows[] = {
		{ "10.3.0.0/16", "static", "ecmp", "[\"192.168.1.2\", \"192.168.2.2\"]", NULL },
	};

	json_decref(nfv_test_ok("route add 10.3.0.0/16 via 192.168.1.2 via 192.168.2.2"));
	nh = expect_nh("10.3.255.1", NFV_NH_GROUP, NULL);
	assert_int_equal(nh->fwd_mtu, 0); /* a group takes the rewrite's slow path */
	assert_int_equal(nh->n_members, 2);
	assert_int_equal(nh->members[0], gw_a);
	assert_int_equal(nh->members[1], gw_b);
	assert_int_equal(refcnt(nh->id), 1);
	assert_int_equal(refcnt(gw_a), ref_a + 1);
	assert_int_equal(refcnt(gw_b), ref_b + 1);
	check_routes("route show 10.3.0.0/16", ecmp_rows, RTE_DIM(ecmp_rows));

	/* The same command again: a new group replaces the old one, the
	 * members' references do not grow. */
	n_nh = nfv_nh_count();
	json_decref(nfv_test_ok("route add 10.3.0.0/16 via 192.168.1.2 via 192.168.2.2"));
	assert_int_equal(nfv_nh_count(), n_nh);
	assert_int_equal(refcnt(gw_a), ref_a + 1);
	assert_int_equal(refcnt(gw_b), ref_b + 1);

	/* Mixed: resolved and unresolved members, one pinned to a port. */
	json_decref(nfv_test_ok("route add 2001:db8:200::/48 via 2001:db8:1::2 via 2001:db8:2::99 "
				"via 2001:db8:1::2 dev b"));
	nh = expect_nh("2001:db8:200::1", NFV_NH_GROUP, NULL);
	assert_int_equal(nh->n_members, 3);
	assert_true(nfv_nh_get(nh->members[0])->resolved);
	assert_false(nfv_nh_get(nh->members[1])->resolved);
	assert_int_equal(nfv_nh_get(nh->members[2])->port_id, port_id("b"));

	/* The widest group: NFV_ECMP_MAX gateways. */
	o = (size_t)snprintf(line, sizeof(line), "route add 10.6.0.0/16");
	for (unsigned int i = 0; i < NFV_ECMP_MAX; i++)
		o += (size_t)snprintf(line + o, sizeof(line) - o, " via 192.168.1.%u", 10 + i);
	n_nh = nfv_nh_count();
	json_decref(nfv_test_ok("%s", line));
	nh = expect_nh("10.6.0.1", NFV_NH_GROUP, NULL);
	assert_int_equal(nh->n_members, NFV_ECMP_MAX);
	assert_int_equal(nfv_nh_count(), n_nh + NFV_ECMP_MAX + 1);
	/* One more is refused, and nothing changes. */
	snprintf(line + o, sizeof(line) - o, " via 192.168.1.99");
	nfv_test_fails(line, -EINVAL, "too many gateways (at most 16)");
	json_decref(nfv_test_ok("route del 10.6.0.0/16"));
	assert_int_equal(nfv_nh_count(), n_nh);
}

/* From the baseline: "dev" and "blackhole" routes, replacing a route's
 * next hop, and how sources rank. */
static void
test_routes_dev_blackhole(void **state)
{
	uint32_t conn_b = nfv_test_lookup("192.168.2.77"), gw_a = nfv_test_lookup("192.168.1.2");
	json_int_t ref_a = refcnt(gw_a);
	uint32_t bh;

	json_decref(nfv_test_ok("route add 10.4.0.0/16 dev b"));
	assert_int_equal(nfv_test_lookup("10.4.0.1"), conn_b);
	assert_int_equal(refcnt(conn_b), 2);

	json_decref(nfv_test_ok("route add 10.5.0.0/16 blackhole"));
	bh = expect_nh("10.5.0.1", NFV_NH_BLACKHOLE, NULL)->id;
	json_decref(nfv_test_ok("route add 10.5.1.0/24 blackhole"));
	assert_int_equal(nfv_test_lookup("10.5.1.1"), bh);
	assert_int_equal(refcnt(bh), 2);
	json_decref(nfv_test_ok("route add 2001:db8:dead::/48 blackhole"));
	assert_int_not_equal(expect_nh("2001:db8:dead::1", NFV_NH_BLACKHOLE, NULL)->id, bh);
	json_decref(nfv_test_ok("route add 2001:db8:4::/64 dev a"));
	assert_int_equal(nfv_test_lookup("2001:db8:4::1"), nfv_test_lookup("2001:db8:1::99"));

	/* Adding an existing route again changes no count. */
	json_decref(nfv_test_ok("route add 10.5.0.0/16 blackhole"));
	assert_int_equal(refcnt(bh), 2);
	json_decref(nfv_test_ok("route add 10.0.0.0/8 via 192.168.1.2"));
	assert_int_equal(refcnt(gw_a), ref_a + 1);
	json_decref(nfv_test_ok("route add 10.0.0.0/8 via 192.168.1.2"));
	assert_int_equal(refcnt(gw_a), ref_a + 1);

	/* Replacing the next hop moves the references. */
	json_decref(nfv_test_ok("route add 10.4.0.0/16 blackhole"));
	assert_int_equal(nfv_test_lookup("10.4.0.1"), bh);
	assert_int_equal(refcnt(bh), 3);
	assert_int_equal(refcnt(conn_b), 1);
	json_decref(nfv_test_ok("route add 10.4.0.0/16 dev b"));
	assert_int_equal(refcnt(bh), 2);
	assert_int_equal(refcnt(conn_b), 2);

	/* A static route on a connected subnet stays behind it, and goes
	 * with "route del" while the connected one stays. */
	json_decref(nfv_test_ok("route add 192.168.1.0/24 via 192.168.2.2"));
	expect_nh("192.168.1.77", NFV_NH_CONNECTED, "a");
	{
		static const struct route_row rows[] = {
			{ "192.168.1.0/24", "connected", "connected", NULL, "a" },
		};

		check_routes("route show 192.168.1.0/24", rows, 1);
	}
	json_decref(nfv_test_ok("route del 192.168.1.0/24"));
	expect_nh("192.168.1.77", NFV_NH_CONNECTED, "a");
	nfv_test_fails("route del 192.168.1.0/24", -EPERM,
		       "192.168.1.0/24 is a connected route: remove it with 'addr del'");

	/* A static host route beats the neighbor's; deleting it brings the
	 * neighbor's back. */
	json_decref(nfv_test_ok("route add 192.168.1.2/32 blackhole"));
	assert_int_equal(nfv_test_lookup("192.168.1.2"), bh);
	json_decref(nfv_test_ok("route del 192.168.1.2/32"));
	assert_int_equal(nfv_test_lookup("192.168.1.2"), gw_a);
}

/* Static routes of every kind: gateways resolved or not, pinned to a port,
 * ECMP groups (one with an unresolved member and a pinned one), "dev",
 * blackholes, both families. */
static const struct {
	const char *prefix;
	const char *next_hop;
} static_routes[] = {
	{ "10.0.0.0/8", "via 192.168.1.2" },
	{ "10.1.0.0/16", "via 192.168.2.2" },
	{ "10.1.2.0/24", "via 192.168.1.3" },
	{ "172.16.0.0/12", "via 192.168.1.2 dev b" },
	{ "2001:db8:100::/48", "via 2001:db8:1::2" },
	{ "2001:db8:100:1::/64", "via 2001:db8:2::2" },
	{ "10.3.0.0/16", "via 192.168.1.2 via 192.168.2.2" },
	{ "2001:db8:200::/48", "via 2001:db8:1::2 via 2001:db8:2::99 via 2001:db8:1::2 dev b" },
	{ "10.4.0.0/16", "dev b" },
	{ "10.5.0.0/16", "blackhole" },
	{ "10.5.1.0/24", "blackhole" },
	{ "2001:db8:dead::/48", "blackhole" },
	{ "2001:db8:4::/64", "dev a" },
};

static void
add_static_routes(void)
{
	for (size_t i = 0; i < RTE_DIM(static_routes); i++)
		json_decref(nfv_test_ok("route add %s %s", static_routes[i].prefix,
					static_routes[i].next_hop));
	assert_int_equal(nfv_route_count(AF_INET) + nfv_route_count(AF_INET6),
			 12 + RTE_DIM(static_routes));
}

/* From the baseline: deleting every static route added gives back exactly
 * the baseline tables (ids and reference counts too). */
static void
test_routes_delete(void **state)
{
	const json_t *baseline = *state;

	add_static_routes();
	for (size_t i = 0; i < RTE_DIM(static_routes); i++)
		json_decref(nfv_test_ok("route del %s", static_routes[i].prefix));
	nfv_test_assert_unchanged(baseline, "tables after deleting every static route");
	for (size_t i = 0; i < RTE_DIM(static_routes); i++) {
		struct nfv_prefix p;
		char addr[64];

		assert_int_equal(nfv_parse_prefix(static_routes[i].prefix, false, &p), 0);
		nfv_ip_str(&p.ip, addr, sizeof(addr));
		expect_no_route(addr);
	}
	nfv_test_fails("route del 10.0.0.0/8", -ENOENT, "no route 10.0.0.0/8");
}

/* From the baseline: commands that must fail, name the bad input and
 * change nothing (nfv_test_fails compares the tables). */
static void
test_errors_change_nothing(void **state)
{
	static const struct {
		const char *line;
		int rc;
		const char *err;
	} rows[] = {
		{ "route del 10.9.0.0/16", -ENOENT, "no route 10.9.0.0/16" },
		{ "route del 192.168.1.0/24", -EPERM, "remove it with 'addr del'" },
		{ "route del 192.168.1.1/32", -EPERM, "192.168.1.1/32 is a local address route" },
		{ "route del 192.168.1.2/32", -EPERM,
		  "is a neighbor route: remove it with 'neigh del'" },
		{ "route del 2001:db8:1::/64", -EPERM, "connected route" },
		{ "route add 10.9.0.0/16 via 10.77.0.1", -EINVAL,
		  "gateway 10.77.0.1 is not on a connected network" },
		{ "route add 10.9.0.0/16 via 192.168.1.1", -EINVAL,
		  "gateway 192.168.1.1 is a local address" },
		{ "route add 10.9.0.0/16 via 192.168.1.2 via 192.168.1.2", -EINVAL,
		  "gateway 192.168.1.2 listed twice" },
		/* The second gateway fails after the first took a reference. */
		{ "route add 10.9.0.0/16 via 192.168.1.2 via 10.77.0.1", -EINVAL, "10.77.0.1" },
		/* ... or after the first created a next hop. */
		{ "route add 10.9.0.0/16 via 192.168.1.50 via 192.168.1.51 via 10.77.0.1", -EINVAL,
		  "10.77.0.1" },
		{ "route add 10.9.0.0/16 via 2001:db8:1::2", -EINVAL,
		  "gateway '2001:db8:1::2' is not of the family of prefix '10.9.0.0/16'" },
		{ "route add 10.9.0.1/16 blackhole", -EINVAL,
		  "bad prefix '10.9.0.1/16': host bits" },
		{ "route add 2001:db8:9::/48 via 2001:db8:1::1", -EINVAL, "is a local address" },
		{ "route add 2001:db8:9::/48 via 2001:db8:77::1", -EINVAL,
		  "not on a connected network" },
		{ "neigh add 192.168.1.1 lladdr 02:00:00:00:00:01 dev a", -EINVAL,
		  "192.168.1.1 is a local address" },
		{ "neigh add 192.168.1.9 lladdr 01:00:5e:00:00:01 dev a", -EINVAL,
		  "lladdr 01:00:5E:00:00:01 is not a unicast MAC" },
		{ "neigh add 192.168.1.9 lladdr 00:00:00:00:00:00 dev a", -EINVAL,
		  "is not a unicast MAC" },
		{ "neigh del 192.168.1.9 dev a", -ENOENT, "no neighbor 192.168.1.9 on port a" },
		{ "neigh del 192.168.1.2 dev b", -ENOENT, "no neighbor 192.168.1.2 on port b" },
		{ "addr add 192.168.1.1/24 dev b", -EEXIST,
		  "address 192.168.1.1 is already configured" },
		{ "addr add 192.168.1.50/24 dev b", -EEXIST,
		  "subnet 192.168.1.0/24 is already connected on port a" },
		{ "addr add 10.8.0.0/16 dev a", -EINVAL, "network or broadcast address" },
		{ "addr add 10.8.255.255/16 dev a", -EINVAL, "network or broadcast address" },
		{ "addr del 192.168.1.1/25 dev a", -ENOENT,
		  "address 192.168.1.1/25 is not configured on port a" },
		{ "addr del 192.168.1.1/24 dev b", -ENOENT, "is not configured on port b" },
		{ "port add a dev net_null5", -EEXIST, "port a already exists" },
		{ "port add c dev net_null0,no-rx=1", -EBUSY, "is already port a" },
		{ "port del c", -ENOENT, "unknown port 'c'" },
	};

	for (size_t i = 0; i < RTE_DIM(rows); i++)
		nfv_test_fails(rows[i].line, rows[i].rc, rows[i].err);
	nfv_test_assert_unchanged(*state, "tables after the failed commands");
}

static char *
load_line(const char *path)
{
	char *line;

	assert_true(asprintf(&line, "route load %s", path) > 0);
	return line;
}

/* From the baseline: "route load", all or nothing. */
static void
test_route_load(void **state)
{
	uint32_t gw_a = nfv_test_lookup("192.168.1.2"), gw_b = nfv_test_lookup("192.168.2.2");
	json_int_t ref_a = refcnt(gw_a);
	char *path, *line;
	json_t *data;
	static const struct {
		const char *text;
		int rc;
		const char *err;      /* after "PATH:" */
	} bad[] = {
		{ "10.20.0.0/16 via 192.168.1.2\n10.21.0.0/16 blackhole\n"
		  "10.22.0.1/16 via 192.168.1.2\n",
		  -EINVAL, ":3: bad prefix '10.22.0.1/16'" },
		{ "10.20.0.0/16 via 2001:db8:1::2\n", -EINVAL,
		  ":1: gateway not of the prefix's family: '2001:db8:1::2'" },
		{ "10.20.0.0/16 via 192.168.1.2 dev nope\n", -EINVAL, ":1: unknown interface 'nope'" },
		{ "10.20.0.0/16 through 192.168.1.2\n", -EINVAL,
		  ":1: expected 'PREFIX via IP [dev NAME]' or 'PREFIX blackhole', got 'through'" },
		{ "10.20.0.0/16\n", -EINVAL, ":1: expected" },
		{ "10.20.0.0/16 via 10.77.0.1\n", -EINVAL,
		  ":1: gateway 10.77.0.1 is not on a connected network" },
		{ "10.20.0.0/16 via 192.168.1.1\n", -EINVAL,
		  ":1: gateway 192.168.1.1 is a local address" },
		{ "\"10.20.0.0/16 via 192.168.1.2\n", -EINVAL, ":1: unterminated quote" },
		/* Good lines with new next hops, then a bad one: all released. */
		{ "10.20.0.0/16 via 192.168.1.60\n10.21.0.0/16 via 192.168.1.61 dev b\n"
		  "2001:db8:20::/48 via 2001:db8:1::60\n10.22.0.0/16 blackhole\n"
		  "2001:db8:21::/48 blackhole\n10.23.0.0/16 through 192.168.2.2\n",
		  -EINVAL, ":6: expected" },
	};

	path = nfv_test_tmpfile("# static routes\n"
				"\n"
				"10.10.0.0/16 via 192.168.1.2\n"
				"   10.11.0.0/16   via 192.168.1.2   # the same gateway\n"
				"10.12.0.0/16 via 192.168.2.2 dev b\r\n"
				"10.13.0.0/16 blackhole\n"
				"2001:db8:300::/48 via 2001:db8:1::2\n"
				"2001:db8:301::/48 blackhole");
	line = load_line(path);
	data = nfv_test_ok("%s", line);
	assert_int_equal(json_integer_value(json_object_get(data, "routes_loaded")), 6);
	assert_true(json_is_real(json_object_get(data, "seconds")));
	json_decref(data);
	assert_int_equal(nfv_test_lookup("10.10.0.1"), gw_a);
	assert_int_equal(nfv_test_lookup("10.11.0.1"), gw_a);
	assert_int_equal(nfv_test_lookup("10.12.0.1"), gw_b);
	expect_nh("10.13.0.1", NFV_NH_BLACKHOLE, NULL);
	assert_int_equal(nfv_test_lookup("2001:db8:300::1"), nfv_test_lookup("2001:db8:1::2"));
	expect_nh("2001:db8:301::1", NFV_NH_BLACKHOLE, NULL);
	assert_int_equal(refcnt(gw_a), ref_a + 2);
	/* Loading it again replaces, nothing grows. */
	data = nfv_test_ok("%s", line);
	json_decref(data);
	assert_int_equal(refcnt(gw_a), ref_a + 2);
	assert_int_equal(nfv_route_count(AF_INET), 6 + 4);
	assert_int_equal(nfv_route_count(AF_INET6), 6 + 2);
	json_decref(nfv_test_ok("route del 10.10.0.0/16"));
	json_decref(nfv_test_ok("route del 10.11.0.0/16"));
	json_decref(nfv_test_ok("route del 10.12.0.0/16"));
	json_decref(nfv_test_ok("route del 10.13.0.0/16"));
	json_decref(nfv_test_ok("route del 2001:db8:300::/48"));
	json_decref(nfv_test_ok("route del 2001:db8:301::/48"));
	nfv_test_assert_unchanged(*state, "tables after loading and deleting");
	unlink(path);
	free(path);
	free(line);

	/* An empty file loads nothing. */
	path = nfv_test_tmpfile("# nothing\n\n");
	line = load_line(path);
	data = nfv_test_ok("%s", line);
	assert_int_equal(json_integer_value(json_object_get(data, "routes_loaded")), 0);
	json_decref(data);
	unlink(path);
	free(path);
	free(line);

	for (size_t i = 0; i < RTE_DIM(bad); i++) {
		json_t *before = nfv_test_snapshot();
		char err[NFV_ERR_LEN], want[NFV_ERR_LEN + 64], why[3 * NFV_ERR_LEN];
		int rc;

		path = nfv_test_tmpfile(bad[i].text);
		line = load_line(path);
		snprintf(want, sizeof(want), "%s%s", path, bad[i].err);
		rc = nfv_test_exec(line, NULL, err);
		snprintf(why, sizeof(why), "file %zu: rc %d '%s', expected %d '...%s'", i, rc, err,
			 bad[i].rc, want);
		nfv_test_assert_unchanged(before, line);
		json_decref(before);
		unlink(path);
		free(path);
		free(line);
		if (rc != bad[i].rc || strstr(err, want) == NULL)
			fail_msg("%s", why);
	}
	nfv_test_fails("route load /nonexistent/routes.txt", -ENOENT,
		       "cannot open /nonexistent/routes.txt");
}

/* From the baseline: a bad word in a load file is the word named. */
static void
test_route_load_names_word(void **state)
{
	static const struct {
		const char *text;
		const char *word;
	} rows[] = {
		{ "10.20.0.0/16 via 192.168.1.2 foo a\n", "'foo'" },
		/* ECMP is not in the load format. */
		{ "10.20.0.0/16 via 192.168.1.2 via 192.168.2.2\n", "'via'" },
	};
	char why[2 * NFV_ERR_LEN] = "";

	for (size_t i = 0; i < RTE_DIM(rows); i++) {
		char *path = nfv_test_tmpfile(rows[i].text), *line = load_line(path);
		json_t *before = nfv_test_snapshot();
		char err[NFV_ERR_LEN];
		int rc = nfv_test_exec(line, NULL, err);

		nfv_test_assert_unchanged(before, line);
		json_decref(before);
		assert_int_equal(rc, -EINVAL);
		if (strstr(err, rows[i].word) == NULL && why[0] == '\0')
			snprintf(why, sizeof(why), "'%.*s' -> '%s'",
				 (int)strcspn(rows[i].text, "\n"), rows[i].text, err);
		unlink(path);
		free(path);
		free(line);
	}
	nfv_test_verdict(why[0] == '\0', why);
}

/* From the baseline: 16 IPv4 routes fit, the 17th does not, whatever
 * brings it, and nothing changes when it is refused. */
static void
test_table_full_ipv4(void **state)
{
	json_t *full;
	char *path, *line;
	const char *msg = "route table full (16 IPv4 routes); start nfvd with a larger "
			  "--max-routes4";

	assert_int_equal(nfv_route_count(AF_INET), 6);
	for (unsigned int i = 0; i < 10; i++)
		json_decref(nfv_test_ok("route add 10.40.%u.0/24 via 192.168.1.2", i));
	assert_int_equal(nfv_route_count(AF_INET), 16);
	full = nfv_test_snapshot();

	nfv_test_fails("route add 10.99.0.0/16 via 192.168.2.2", -ENOSPC, msg);
	nfv_test_fails("route add 10.99.0.0/16 via 192.168.1.77", -ENOSPC, msg);
	nfv_test_fails("route add 10.99.0.0/16 via 192.168.1.2 via 192.168.2.2", -ENOSPC, msg);
	nfv_test_fails("route add 10.99.0.0/16 via 192.168.1.78 via 192.168.1.79", -ENOSPC, msg);
	nfv_test_fails("route add 10.99.0.0/16 blackhole", -ENOSPC, msg);
	nfv_test_fails("route add 10.99.0.0/16 dev a", -ENOSPC, msg);
	nfv_test_fails("addr add 192.168.3.1/24 dev a", -ENOSPC, "route table full");
	nfv_test_fails("addr add 192.168.3.1/32 dev a", -ENOSPC, "route table full");
	nfv_test_fails("neigh add 192.168.1.5 lladdr 02:00:00:00:01:05 dev a", -ENOSPC,
		       "route table full: no room for the neighbor host route");
	expect_no_route("10.99.0.1");
	/* IPv6 is not affected. */
	json_decref(nfv_test_ok("route add 2001:db8:99::/48 blackhole"));
	json_decref(nfv_test_ok("route del 2001:db8:99::/48"));

	path = nfv_test_tmpfile("10.40.0.0/24 blackhole\n10.99.0.0/16 via 192.168.1.2\n");
	line = load_line(path);
	nfv_test_fails(line, -ENOSPC, "1 new IPv4 routes do not fit (16 of 16 in use)");
	unlink(path);
	free(path);
	free(line);

	/* Replacing routes that exist needs no room. */
	json_decref(nfv_test_ok("route add 10.40.0.0/24 blackhole"));
	expect_nh("10.40.0.1", NFV_NH_BLACKHOLE, NULL);
	path = nfv_test_tmpfile("10.40.0.0/24 via 192.168.1.2\n10.40.1.0/24 via 192.168.1.2\n");
	line = load_line(path);
	json_decref(nfv_test_ok("%s", line));
	unlink(path);
	free(path);
	free(line);
	nfv_test_assert_unchanged(full, "full table after replacing routes");
	/* A neighbor whose host route exists already (replacing its MAC). */
	json_decref(nfv_test_ok("neigh add 192.168.1.2 lladdr " MAC_NEIGH_A4 " dev a"));

	/* Room again after a delete. */
	json_decref(nfv_test_ok("route del 10.40.9.0/24"));
	json_decref(nfv_test_ok("route add 10.99.0.0/16 via 192.168.2.2"));
	assert_int_equal(nfv_route_count(AF_INET), 16);
	json_decref(nfv_test_ok("route del 10.99.0.0/16"));
	for (unsigned int i = 0; i < 9; i++)
		json_decref(nfv_test_ok("route del 10.40.%u.0/24", i));
	json_decref(full);
	nfv_test_assert_unchanged(*state, "tables after the IPv4 table-full test");
}

/* From the baseline: with one slot left, an address that needs only its
 * host route takes it. */
static void
test_table_full_one_slot(void **state)
{
	char err[NFV_ERR_LEN], why[2 * NFV_ERR_LEN] = "";
	static const char *const lines[] = {
		"addr add 192.168.1.100/24 dev a", /* 192.168.1.0/24 is connected already */
		"addr add 10.255.0.1/32 dev b",
	};

	for (unsigned int i = 0; i < 9; i++)
		json_decref(nfv_test_ok("route add 10.40.%u.0/24 via 192.168.1.2", i));
	assert_int_equal(nfv_route_count(AF_INET), 15);
	for (size_t i = 0; i < RTE_DIM(lines); i++) {
		char del[64];
		int rc = nfv_test_exec(lines[i], NULL, err);

		if (rc != 0) {
			if (why[0] == '\0')
				snprintf(why, sizeof(why), "'%s' with one route slot left: %d '%s'",
					 lines[i], rc, err);
			continue;
		}
		assert_int_equal(nfv_route_count(AF_INET), 16);
		snprintf(del, sizeof(del), "addr del %s", lines[i] + strlen("addr add "));
		json_decref(nfv_test_ok("%s", del));
	}
	for (unsigned int i = 0; i < 9; i++)
		json_decref(nfv_test_ok("route del 10.40.%u.0/24", i));
	nfv_test_assert_unchanged(*state, "tables after the one-slot test");
	nfv_test_verdict(why[0] == '\0', why);
}

/* From the baseline (6 IPv6 routes): 10 more fill the IPv6 table. /24s
 * take no tbl8 group, so the route limit is what is hit. */
static void
fill_ipv6(void)
{
	assert_int_equal(nfv_route_count(AF_INET6), 6);
	for (unsigned int i = 0; i < 10; i++)
		json_decref(nfv_test_ok("route add 2400:%x00::/24 via 2001:db8:2::2", i + 1));
	assert_int_equal(nfv_route_count(AF_INET6), 16);
}

/* From the baseline: the same for IPv6. */
static void
test_table_full_ipv6(void **state)
{
	const char *msg = "route table full (16 IPv6 routes); start nfvd with a larger "
			  "--max-routes6";

	fill_ipv6();
	nfv_test_fails("route add 2001:db8:99::/48 via 2001:db8:2::2", -ENOSPC, msg);
	nfv_test_fails("route add 2001:db8:99::/48 blackhole", -ENOSPC, msg);
	nfv_test_fails("neigh add 2001:db8:1::5 lladdr 02:00:00:00:01:05 dev a", -ENOSPC,
		       "no room for the neighbor host route");
	nfv_test_fails("addr add 2001:db8:3::1/64 dev a", -ENOSPC, "route table full");
}

/* From the baseline with the IPv6 table full (IPv4 not): a file of IPv4
 * routes that fit and IPv6 routes that do not fails whole and changes
 * nothing. */
static void
test_route_load_mixed_families(void **state)
{
	json_t *before;
	char *path, *line, err[NFV_ERR_LEN], why[2 * NFV_ERR_LEN];
	int rc;

	fill_ipv6();
	path = nfv_test_tmpfile("10.50.0.0/16 via 192.168.1.2\n10.51.0.0/16 blackhole\n"
				"2001:db8:f00::/48 via 2001:db8:1::2\n");
	line = load_line(path);
	before = nfv_test_snapshot();
	rc = nfv_test_exec(line, NULL, err);
	snprintf(why, sizeof(why), "rc %d '%s'", rc, err);
	assert_int_equal(rc, -ENOSPC);
	assert_non_null(strstr(err, "new IPv6 routes do not fit"));
	{
		json_t *now = nfv_test_snapshot();

		if (!json_equal(before, now)) {
			snprintf(why, sizeof(why), "after the failed load, 10.50.0.0/16 -> %u and "
				 "10.51.0.0/16 -> %u (0: no route); %u IPv4 routes instead of %u",
				 nfv_test_lookup("10.50.0.1"), nfv_test_lookup("10.51.0.1"),
				 nfv_route_count(AF_INET), 6);
			/* Put the tables back before deciding. */
			nfv_test_exec("route del 10.50.0.0/16", NULL, err);
			nfv_test_exec("route del 10.51.0.0/16", NULL, err);
			nfv_test_assert_unchanged(before, "tables after undoing the partial load");
			json_decref(now);
			json_decref(before);
			unlink(path);
			free(path);
			free(line);
			nfv_test_verdict(0, why);
			return;
		}
		json_decref(now);
	}
	json_decref(before);
	unlink(path);
	free(path);
	free(line);
}

/* From the baseline with the IPv6 table full: IPv4 full too, so the route
 * database holds max_routes4 + max_routes6 entries. */
static void
test_table_full_both(void **state)
{
	char err[NFV_ERR_LEN];
	int rc;

	fill_ipv6();
	for (unsigned int i = 0; i < 10; i++) {
		char line[64];

		snprintf(line, sizeof(line), "route add 10.40.%u.0/24 via 192.168.1.2", i);
		rc = nfv_test_exec(line, NULL, err);
		if (rc != 0)
			fail_msg("IPv4 route %u of 10 with IPv6 full (%u + %u routes in the "
				 "database): %d %s", i + 1, nfv_route_count(AF_INET),
				 nfv_route_count(AF_INET6), rc, err);
	}
	assert_int_equal(nfv_route_count(AF_INET), 16);
	nfv_test_fails("route add 10.99.0.0/16 blackhole", -ENOSPC, "route table full (16 IPv4");
	nfv_test_fails("route add 2001:db8:99::/48 blackhole", -ENOSPC,
		       "route table full (16 IPv6");
	for (unsigned int i = 0; i < 10; i++) {
		json_decref(nfv_test_ok("route del 10.40.%u.0/24", i));
		json_decref(nfv_test_ok("route del 2400:%x00::/24", i + 1));
	}
	nfv_test_assert_unchanged(*state, "tables after the table-full tests");
}

static const struct route_row after_del_b[] = {
	{ "10.73.0.0/16", "static", "gateway", "192.168.1.2", "a" },
	{ "10.74.0.0/16", "static", "blackhole", NULL, NULL },
	{ "192.168.1.0/24", "connected", "connected", NULL, "a" },
	{ "192.168.1.1/32", "local", "local", NULL, NULL },
	{ "192.168.1.2/32", "neighbor", "gateway", "192.168.1.2", "a" },
	{ "2001:db8:1::/64", "connected", "connected", NULL, "a" },
	{ "2001:db8:1::1/128", "local", "local", NULL, NULL },
	{ "2001:db8:1::2/128", "neighbor", "gateway", "2001:db8:1::2", "a" },
	{ "2001:db8:501::/48", "static", "gateway", "2001:db8:1::2", "a" },
};

/* From the baseline: "port del b" takes every route, neighbor,
 * address and next hop that goes out of b, ECMP groups with a member on b
 * included, and leaves the rest. */
static void
test_port_del(void **state)
{
	uint16_t b = port_id("b");
	json_t *data, *nh;
	size_t i;

	json_decref(nfv_test_ok("route add 10.70.0.0/16 via 192.168.2.2"));
	json_decref(nfv_test_ok("route add 10.71.0.0/16 dev b"));
	json_decref(nfv_test_ok("route add 10.72.0.0/16 via 192.168.1.2 via 192.168.2.2"));
	json_decref(nfv_test_ok("route add 10.73.0.0/16 via 192.168.1.2"));
	json_decref(nfv_test_ok("route add 10.74.0.0/16 blackhole"));
	json_decref(nfv_test_ok("route add 10.75.0.0/16 via 192.168.1.2 dev b"));
	json_decref(nfv_test_ok("route add 2001:db8:500::/48 via 2001:db8:2::2"));
	json_decref(nfv_test_ok("route add 2001:db8:501::/48 via 2001:db8:1::2"));
	json_decref(nfv_test_ok("port del b"));

	check_routes("route show", after_del_b, RTE_DIM(after_del_b));
	data = nfv_test_ok("nexthop show");
	json_array_foreach(json_object_get(data, "nexthops"), i, nh) {
		const char *dev = json_string_value(json_object_get(nh, "dev"));

		if (dev != NULL && strcmp(dev, "b") == 0)
			fail_msg("next hop %" JSON_INTEGER_FORMAT " still on port b",
				 json_integer_value(json_object_get(nh, "id")));
	}
	json_decref(data);
	for (uint32_t id = 1; id < 64; id++) {
		const struct nfv_nexthop *n = nfv_nh_get(id);

		if (n != NULL && n->type != NFV_NH_LOCAL && n->type != NFV_NH_BLACKHOLE)
			assert_int_not_equal(n->port_id, b);
	}
	expect_no_route("10.70.0.1");
	expect_no_route("10.71.0.1");
	expect_no_route("10.72.0.1");
	expect_no_route("10.75.0.1");
	expect_no_route("192.168.2.1");
	expect_no_route("192.168.2.2");
	expect_no_route("2001:db8:500::1");
	expect_no_route("2001:db8:2::1");
	assert_int_equal(nfv_test_lookup("10.73.0.1"), nfv_test_lookup("192.168.1.2"));
	expect_nh("10.74.0.1", NFV_NH_BLACKHOLE, NULL);
	assert_int_equal(refcnt(nfv_test_lookup("192.168.1.2")), 3);
	assert_null(nfv_port_l3_get(b));
	assert_null(nfv_port_by_name("b"));

	data = nfv_test_ok("addr show");
	assert_int_equal(json_array_size(json_object_get(data, "addresses")), 2);
	json_decref(data);
	data = nfv_test_ok("neigh show");
	assert_int_equal(json_array_size(json_object_get(data, "neighbors")), 2);
	json_decref(data);
	nfv_test_fails("route add 10.76.0.0/16 dev b", -ENOENT, "unknown interface 'b'");
	nfv_test_fails("port del b", -ENOENT, "unknown port 'b'");

	/* The device can come back under the same name. */
	json_decref(nfv_test_ok("port add b dev net_null1,no-rx=1"));
	json_decref(nfv_test_ok("addr add 192.168.2.1/24 dev b"));
	json_decref(nfv_test_ok("neigh add 192.168.2.2 lladdr " MAC_NEIGH_B4 " dev b"));
	json_decref(nfv_test_ok("route add 10.70.0.0/16 via 192.168.2.2"));
	expect_l2(expect_nh("10.70.0.1", NFV_NH_GATEWAY, "b"), MAC_NEIGH_B4, "b",
		  RTE_ETHER_TYPE_IPV4);
}

/* From the baseline: nfvd's exit sequence with both ports up and tables
 * full of state; every mbuf is back in its pool. */
static void
test_shutdown(void **state)
{
	json_decref(*state);
	*state = NULL;
	add_static_routes();
	nfv_test_eal_down();
}

int
main(int argc, char **argv)
{
	static const struct {
		const char *name;
		CMUnitTestFunction fn;
		CMFixtureFunction setup;
	} tests[] = {
		{ "ports_add", test_ports_add, setup_empty },
		{ "addresses", test_addresses, setup_ports },
		{ "neighbors", test_neighbors, setup_addresses },
		{ "routes_via", test_routes_via, setup_baseline },
		{ "routes_ecmp", test_routes_ecmp, setup_baseline },
		{ "routes_dev_blackhole", test_routes_dev_blackhole, setup_baseline },
		{ "routes_delete", test_routes_delete, setup_baseline },
		{ "errors_change_nothing", test_errors_change_nothing, setup_baseline },
		{ "route_load", test_route_load, setup_baseline },
		{ "route_load_names_word", test_route_load_names_word, setup_baseline },
		{ "table_full_ipv4", test_table_full_ipv4, setup_baseline },
		{ "table_full_one_slot", test_table_full_one_slot, setup_baseline },
		{ "table_full_ipv6", test_table_full_ipv6, setup_baseline },
		{ "route_load_mixed_families", test_route_load_mixed_families, setup_baseline },
		{ "table_full_both", test_table_full_both, setup_baseline },
		{ "port_del", test_port_del, setup_baseline },
	};
	struct nfv_test_list l = { .last = "shutdown" };
	int rc;

	for (size_t i = 0; i < RTE_DIM(tests); i++)
		nfv_test_add_fixture(&l, tests[i].name, tests[i].fn, tests[i].setup,
				     teardown_clear);
	/* The EAL does not come back up in a process: nothing to empty after. */
	nfv_test_add_fixture(&l, "shutdown", test_shutdown, setup_baseline, NULL);
	rc = nfv_test_select(&l, argc, argv);
	if (rc != 0)
		return rc == 1 ? 0 : rc;
	return nfv_test_run("tables", &l, group_setup, nfv_test_group_teardown);
}
