/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * FIB capacity (tbl8 groups) through the grammar, on fresh tables whose
 * group counts are known, so each scenario runs in a process of its own:
 *   test_fib ipv4   DIR-24-8 with 64 groups: one /24 holding prefixes longer
 *                   than /24 takes one group; the 64th refused changes
 *                   nothing; a delete gives the group back; a failed batch
 *                   is undone on the standby table only.
 *   test_fib ipv6   the trie with 26 groups: a /128 under no route reserves
 *                   13; refusal changes nothing; add/delete cycles must give
 *                   the reservation back.
 *   test_fib pair   the two tables of the IPv6 FIB pair must agree after a
 *                   batch failed on the standby table.
 * One null port with one IPv4 address gives the gateway routes a link.
 */
#include <errno.h>
#include <inttypes.h>
#include <unistd.h>

#include "nfv_test.h"
#include "nfv_test_eal.h"
#include "api/parse.h"

static const struct nfv_limits limits = {
	.max_routes4 = 256,
	.max_routes6 = 64,
	.tbl8_4 = 64,
	.tbl8_6 = 26,
};

static int
group_setup(void **state)
{
	json_t *r;

	if (nfv_test_eal_up(&limits) != 0)
		return -1;
	r = nfv_test_ok("port add p dev net_null0,no-rx=1");
	json_decref(r);
	/* 192.0.2.1/32 takes the first IPv4 group. */
	json_decref(nfv_test_ok("addr add 192.0.2.1/24 dev p"));
	json_decref(nfv_test_ok("neigh add 192.0.2.2 lladdr 02:00:00:00:00:02 dev p"));
	return 0;
}

static char *
load_file(const char *text, char **path)
{
	char *line;

	*path = nfv_test_tmpfile(text);
	assert_true(asprintf(&line, "route load %s", *path) > 0);
	return line;
}

static void
drop_file(char *path, char *line)
{
	unlink(path);
	free(path);
	free(line);
}

/*
 * IPv4: 63 more /24s with a /25 fit next to 192.0.2.0/24, the next one is
 * refused with the FIB's reason and changes nothing. The /25s are lower
 * halves: for an upper half (x.y.z.128/25) DIR-24-8 wants a second free
 * group on top of the one it uses, so the last group never takes one.
 */
static void
test_ipv4_tbl8(void **state)
{
	uint32_t gw = nfv_test_lookup("192.0.2.2"), bh;
	char text[8192], *path, *line;
	json_t *data, *before;
	size_t o = 0;

	for (unsigned int i = 0; i < 63; i++)
		o += (size_t)snprintf(text + o, sizeof(text) - o, "10.0.%u.0/25 blackhole\n", i);
	line = load_file(text, &path);
	data = nfv_test_ok("%s", line);
	assert_int_equal(json_integer_value(json_object_get(data, "routes_loaded")), 63);
	json_decref(data);
	drop_file(path, line);
	bh = nfv_test_lookup("10.0.62.1");
	assert_int_not_equal(bh, 0);
	assert_int_equal(nfv_test_lookup("10.0.0.2"), bh);
	assert_int_equal(nfv_test_lookup("10.0.0.200"), 0);

	nfv_test_fails("route add 10.1.0.0/25 blackhole", -ENOSPC, "FIB update failed");
	nfv_test_fails("route add 10.1.0.0/25 via 192.0.2.2", -ENOSPC, "FIB update failed");
	nfv_test_fails("route add 10.1.0.0/25 via 192.0.2.3", -ENOSPC, "FIB update failed");
	nfv_test_fails("neigh add 192.0.3.2 lladdr 02:00:00:00:00:03 dev p", -ENOSPC,
		       "FIB update failed");
	nfv_test_fails("addr add 10.1.0.1/24 dev p", -ENOSPC, "FIB update failed");
	assert_int_equal(nfv_test_lookup("10.1.0.1"), 0);
	/* No group needed: a /24, or a /25 in a /24 that has its group. */
	json_decref(nfv_test_ok("route add 10.1.0.0/24 via 192.0.2.2"));
	json_decref(nfv_test_ok("route add 10.0.0.128/25 via 192.0.2.2"));
	assert_int_equal(nfv_test_lookup("10.0.0.200"), gw);
	assert_int_equal(nfv_test_lookup("10.1.0.200"), gw);

	/* One batch: change a route, add one that fits, then one that does
	 * not. All undone on the standby table; the active one never saw it. */
	before = nfv_test_snapshot();
	line = load_file("10.0.1.0/25 via 192.0.2.2\n10.2.0.0/24 blackhole\n"
			 "10.3.0.0/25 blackhole\n", &path);
	nfv_test_fails(line, -ENOSPC, "FIB update failed");
	drop_file(path, line);
	assert_int_equal(nfv_test_lookup("10.0.1.1"), bh);
	assert_int_equal(nfv_test_lookup("10.2.0.1"), 0);
	nfv_test_assert_unchanged(before, "tables after the failed batch");
	json_decref(before);

	/* A delete gives its group back, to single adds and to batches. */
	json_decref(nfv_test_ok("route del 10.0.62.0/25"));
	json_decref(nfv_test_ok("route add 10.4.0.0/25 blackhole"));
	json_decref(nfv_test_ok("route del 10.4.0.0/25"));
	line = load_file("10.0.1.0/25 via 192.0.2.2\n10.3.0.0/25 blackhole\n", &path);
	json_decref(nfv_test_ok("%s", line));
	drop_file(path, line);
	assert_int_equal(nfv_test_lookup("10.0.1.1"), gw);
	assert_int_equal(nfv_test_lookup("10.3.0.1"), bh);
	/* Many add/delete cycles leave the count where it was. */
	for (unsigned int i = 0; i < 200; i++) {
		json_decref(nfv_test_ok("route del 10.3.0.0/25"));
		json_decref(nfv_test_ok("route add 10.3.0.0/25 blackhole"));
	}
	nfv_test_fails("route add 10.4.0.0/25 blackhole", -ENOSPC, "FIB update failed");
}

/* Adds "2001:db8:fNN::1/128 blackhole" until the FIB refuses one; checks
 * the refusal changed nothing and returns how many fit. */
static unsigned int
fill6(void)
{
	for (unsigned int n = 0; n < 32; n++) {
		char line[96], err[NFV_ERR_LEN];
		json_t *before = nfv_test_snapshot();
		int rc;

		snprintf(line, sizeof(line), "route add 2001:db8:f%02x::1/128 blackhole", n);
		rc = nfv_test_exec(line, NULL, err);
		if (rc == 0) {
			json_decref(before);
			continue;
		}
		if (rc != -ENOSPC || strstr(err, "FIB update failed") == NULL)
			fail_msg("'%s': rc %d '%s', expected -ENOSPC 'FIB update failed'", line, rc,
				 err);
		nfv_test_assert_unchanged(before, "tables after the refused /128");
		json_decref(before);
		return n;
	}
	fail_msg("the IPv6 FIB took 32 /128 routes with 26 tbl8 groups");
	return 0;
}

static void
unfill6(unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		json_decref(nfv_test_ok("route del 2001:db8:f%02x::1/128", i));
}

/* IPv6: what does not fit is refused and changes nothing. */
static void
test_ipv6_tbl8(void **state)
{
	unsigned int fit = fill6();

	print_message("%u /128 routes fit\n", fit);
	assert_true(fit >= 1);
	nfv_test_fails("route add 2001:db8:fff::1/128 blackhole", -ENOSPC, "FIB update failed");
	/* A prefix no longer than /24 needs no group. */
	json_decref(nfv_test_ok("route add 2400:100::/24 blackhole"));
	json_decref(nfv_test_ok("route del 2400:100::/24"));
	unfill6(fit);
}

/* From test_ipv6_tbl8 (which deleted what it added): add/delete cycles
 * keep the IPv6 FIB's capacity. DPDK 22.11's rte_fib6 (trie) does not give
 * back the tbl8 groups a route longer than /24 reserved when that route is
 * deleted (trie_modify computes depth_diff with rte_rib6_get_nxt(COVER),
 * which finds the route itself), so without nfvd rebuilding the table, churn
 * would exhaust the FIB for good while it is nearly empty. */
static void
test_ipv6_tbl8_cycles(void **state)
{
	unsigned int first = fill6(), again;
	char why[2 * NFV_ERR_LEN];

	unfill6(first);
	for (unsigned int i = 0; i < 20; i++) {
		char line[96], err[NFV_ERR_LEN];

		snprintf(line, sizeof(line), "route add 2001:db8:e00::/64 blackhole");
		if (nfv_test_exec(line, NULL, err) != 0) {
			snprintf(why, sizeof(why), "add/delete cycle %u of a /64 refused: %s",
				 i + 1, err);
			nfv_test_verdict(0, why);
		}
		json_decref(nfv_test_ok("route del 2001:db8:e00::/64"));
	}
	again = fill6();
	unfill6(again);
	snprintf(why, sizeof(why), "%u /128 routes fit at first, %u after deleting them and 20 "
		 "add/delete cycles", first, again);
	nfv_test_verdict(again == first, why);
}

/*
 * IPv6 pair, fresh trie with 26 groups (two /128 under no route fit, a
 * third does not). A batch of /128s fails on the standby table after two
 * went in and is undone there (which does not restore rte_fib6's
 * reservations). Then a /24 (no group) flips the pair, and a /128 is
 * accepted: it must be in both tables, not in "route show" and one table
 * only (workers would see it every other flip, and "route del" would fail).
 */
static void
test_ipv6_pair(void **state)
{
	char *path, *line, err[NFV_ERR_LEN], why[2 * NFV_ERR_LEN];
	json_t *before = nfv_test_snapshot();
	struct nfv_prefix p;
	uint64_t nh[2];
	int rc;

	line = load_file("2001:db8:a::1/128 blackhole\n2001:db8:b::1/128 blackhole\n"
			 "2001:db8:c::1/128 blackhole\n2001:db8:d::1/128 blackhole\n", &path);
	nfv_test_fails(line, -ENOSPC, "FIB update failed");
	drop_file(path, line);
	nfv_test_assert_unchanged(before, "tables after the failed batch");
	json_decref(before);

	json_decref(nfv_test_ok("route add 2400:100::/24 blackhole"));
	nfv_test_lookup("2400:100::1");
	rc = nfv_test_exec("route add 2001:db8:e::1/128 blackhole", NULL, err);
	if (rc != 0) {
		/* Refused as a whole is a correct answer too. */
		assert_int_equal(rc, -ENOSPC);
		nfv_test_lookup("2001:db8:e::1");
		return;
	}
	/* Accepted: then both tables must have it. */
	assert_int_equal(nfv_parse_prefix("2001:db8:e::1/128", false, &p), 0);
	for (unsigned int t = 0; t < 2; t++) {
		uint8_t a[1][RTE_FIB6_IPV6_ADDR_SIZE];

		memcpy(a[0], p.ip.v6, 16);
		assert_int_equal(rte_fib6_lookup_bulk(nfv_fib6.tbl[t], a, &nh[t], 1), 0);
	}
	if (nh[0] == nh[1])
		return;
	rc = nfv_test_exec("route del 2001:db8:e::1/128", NULL, err);
	snprintf(why, sizeof(why), "'route add 2001:db8:e::1/128' succeeded with the FIB pair "
		 "disagreeing (table 0 -> %" PRIu64 ", table 1 -> %" PRIu64 "); 'route del' "
		 "of it then gives %d '%s'", nh[0], nh[1], rc, err);
	nfv_test_verdict(0, why);
}

int
main(int argc, char **argv)
{
	struct nfv_test_list l = { 0 };
	const char *which = argc > 1 ? argv[1] : "";

	if (strcmp(which, "ipv4") == 0) {
		nfv_test_add(&l, "IPv4 tbl8: exhaustion, refusal, release, batch undo",
			     test_ipv4_tbl8, NULL);
	} else if (strcmp(which, "ipv6") == 0) {
		nfv_test_add(&l, "IPv6 tbl8: exhaustion and refusal", test_ipv6_tbl8, NULL);
		nfv_test_add(&l, "IPv6 tbl8: add/delete cycles keep the capacity",
			     test_ipv6_tbl8_cycles, NULL);
	} else if (strcmp(which, "pair") == 0) {
		nfv_test_add(&l, "IPv6 FIB pair: both tables agree after a failed batch",
			     test_ipv6_pair, NULL);
	} else {
		fprintf(stderr, "usage: %s ipv4|ipv6|pair (each needs a fresh process)\n", argv[0]);
		return 2;
	}
	return nfv_test_run(which, &l, group_setup, nfv_test_group_teardown);
}
