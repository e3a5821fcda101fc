/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Route tables that grow: the default VRF's tables start at 64 routes per
 * family with room for 2048, and grow (route database moved to a larger
 * hash, FIB pair rebuilt at four times the size) when routes need room, by
 * "route add" one at a time and by "route load" in one batch. After every
 * growth both tables of each FIB pair give every route's next hop, and a
 * table at its max refuses the next route with the max in the error.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "nfv_test.h"
#include "nfv_test_eal.h"
#include "modules/ip/control/route.h"

static const struct nfv_limits limits = {
	.max_routes4 = 2048, .max_routes6 = 2048, .tbl8_4 = 256, .tbl8_6 = 16384,
	.start_routes4 = 64, .start_routes6 = 64,
};

static int
group_setup(void **state)
{
	if (nfv_test_eal_up(&limits) < 0)
		return -1;
	json_decref(nfv_test_ok("port add a dev net_null0,no-rx=1"));
	json_decref(nfv_test_ok("addr add 192.168.1.1/24 dev a"));
	json_decref(nfv_test_ok("addr add 2001:db8:1::1/64 dev a"));
	json_decref(nfv_test_ok("neigh add 192.168.1.2 lladdr 02:00:00:00:01:02 dev a"));
	json_decref(nfv_test_ok("neigh add 2001:db8:1::2 lladdr 02:00:00:00:01:12 dev a"));
	return 0;
}

static int
group_teardown(void **state)
{
	nfv_test_clear_tables();
	return nfv_test_group_teardown(state);
}

/* Every route 10.X.Y.0/24 (or /28: tbl8 groups) of the first n has a next hop
 * in both tables of the pair. */
static void
check_routes4(unsigned int n, const char *fmt)
{
	for (unsigned int i = 0; i < n; i++) {
		char a[32];

		snprintf(a, sizeof(a), fmt, i >> 8, i & 255);
		if (nfv_test_lookup(a) == 0)
			fail_msg("%s has no route after growing", a);
	}
}

static void
test_grow_one_route_at_a_time(void **state)
{
	assert_int_equal(nfv_route_capacity(AF_INET), 64);
	for (unsigned int i = 0; i < 300; i++)
		json_decref(nfv_test_ok("route add 10.%u.%u.0/24 via 192.168.1.2", i >> 8,
					i & 255));
	/* 64 -> 256 -> 1024, each time a route found no room. */
	assert_int_equal(nfv_route_capacity(AF_INET), 1024);
	check_routes4(300, "10.%u.%u.9");
	/* Longer prefixes take tbl8 groups, which grow with the table. */
	for (unsigned int i = 0; i < 200; i++)
		json_decref(nfv_test_ok("route add 20.%u.%u.16/28 via 192.168.1.2", i >> 8,
					i & 255));
	check_routes4(200, "20.%u.%u.17");
	check_routes4(300, "10.%u.%u.9");
	assert_int_equal(nfv_test_lookup("20.0.0.1"), 0);
}

static void
test_grow_in_one_batch_and_stop_at_the_max(void **state)
{
	char *text = malloc(2048 * 40), *path, err[NFV_ERR_LEN];
	size_t off = 0;

	assert_non_null(text);
	assert_int_equal(nfv_route_capacity(AF_INET6), 64);
	for (unsigned int i = 0; i < 1000; i++)
		off += (size_t)snprintf(text + off, 40, "2001:db8:%x::/48 via 2001:db8:1::2\n",
					0x1000 + i);
	path = nfv_test_tmpfile(text);
	json_decref(nfv_test_ok("route load %s", path));
	/* One step to what the batch needs (at least four times larger). */
	/* rte_fib6 reserves (48 - 24) / 8 = 3 tbl8 groups a /48: 3000 here, of
	 * the 8024 scaled to 1003 routes. */
	assert_int_equal(nfv_route_capacity(AF_INET6), 1003);
	assert_int_not_equal(nfv_test_lookup("2001:db8:1000::1"), 0);
	assert_int_not_equal(nfv_test_lookup("2001:db8:13e7::1"), 0);
	/* Up to the max (2048, the 3 address/neighbor routes included), then
	 * full: /64s within one /48 share their tbl8 groups. */
	for (unsigned int i = 0; i < 2048 - 1003; i++)
		json_decref(nfv_test_ok("route add 2001:db9:0:%x::/64 via 2001:db8:1::2", i));
	assert_int_equal(nfv_route_capacity(AF_INET6), 2048);
	assert_int_equal(nfv_test_exec("route add 2001:dba::/48 via 2001:db8:1::2", NULL, err),
			 -ENOSPC);
	assert_non_null(strstr(err, "route table full (2048 IPv6 routes)"));
	unlink(path);
	free(path);
	free(text);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grow_one_route_at_a_time),
		cmocka_unit_test(test_grow_in_one_batch_and_stop_at_the_max),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
