/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The inline read of the IPv6 FIB's trie (modules/ip/fib6_trie.h) against
 * rte_fib6_lookup_bulk on the same table: nfvd's own tables pass the layout
 * check, other layouts are refused, the check leaves a table as it found
 * it (capacity included), and on tables of thousands of random nested
 * routes (every length 0 to 128) the single read, the burst read with its
 * /64 cache and nfv_fib6_lookup give exactly what rte_fib6 gives, for
 * random addresses, before and after deletes and re-adds. NFV_TEST_SEED=N
 * replays a run.
 */
#include <inttypes.h>

#include <rte_errno.h>
#include <rte_fib6.h>
#include <rte_lcore.h>

#include "nfv_test.h"
#include "nfv_test_eal.h"
#include "modules/ip/fib6_trie.h"
#include "modules/ip/control/fib.h"

static const struct nfv_limits limits = {
	.max_routes4 = 256,
	.max_routes6 = 4096,
	.tbl8_4 = 64,
	.tbl8_6 = 4096,
};

static unsigned int table_seq;

/* A TRIE table of its own (not nfvd's), or a failed test. */
static struct rte_fib6 *
table_new(enum rte_fib_trie_nh_sz nh_sz, uint32_t num_tbl8, uint64_t def_nh, int max_routes)
{
	struct rte_fib6_conf c = {
		.type = RTE_FIB6_TRIE,
		.default_nh = def_nh,
		.max_routes = max_routes,
		.trie = { .nh_sz = nh_sz, .num_tbl8 = num_tbl8 },
	};
	char name[32];
	struct rte_fib6 *fib;

	snprintf(name, sizeof(name), "trie_test_%u", table_seq++);
	fib = rte_fib6_create(name, (int)rte_socket_id(), &c);
	if (fib == NULL)
		fail_msg("rte_fib6_create(%s): %s", name, rte_strerror(rte_errno));
	return fib;
}

static void
addr_str(const uint8_t *a, char *buf, size_t len)
{
	size_t o = 0;

	for (unsigned int i = 0; i < 16 && o < len; i += 2)
		o += (size_t)snprintf(buf + o, len - o, "%s%02x%02x", i ? ":" : "", a[i], a[i + 1]);
}

/* Tbl8 levels the walk of a takes (0: tbl24 alone). */
static unsigned int
walk_levels(const struct nfv_trie6 *t, const uint8_t *a)
{
	uint32_t w, e;
	unsigned int j = 3;

	memcpy(&w, a, sizeof(w));
	e = t->tbl24[rte_be_to_cpu_32(w) >> 8];
	while (e & 1)
		e = t->tbl8[(size_t)(e >> 1) * 256 + a[j++]];
	return j - 3;
}

static int
group_setup(void **state)
{
	(void)state;
	return nfv_test_eal_up(&limits) == 0 ? 0 : -1;
}

/* nfvd's IPv6 tables pass the check: the inline read is what ip6_fast
 * runs on this DPDK, and the probe left nothing behind. */
static void
test_nfvd_tables(void **state)
{
	(void)state;
	for (unsigned int i = 0; i < 2; i++) {
		const struct nfv_trie6 *t = nfv_fib6.trie[i];

		if (t == NULL)
			fail_msg("IPv6 table %u failed the layout check: ip6_fast uses the bulk "
				 "lookup", i);
		assert_ptr_equal(t, rte_fib6_get_dp(nfv_fib6.tbl[i]));
		assert_int_equal(t->rsvd_tbl8s, 0);
		assert_int_equal(t->tbl8_pool_pos, 0);
		assert_int_equal(t->number_tbl8s, limits.tbl8_6);
	}
}

/* Layouts the read does not know are refused. */
static void
test_refused(void **state)
{
	struct rte_fib6 *fib;

	(void)state;
	fib = table_new(RTE_FIB6_TRIE_2B, 64, 0, 64);
	assert_null(nfv_fib6_trie_check(fib, 64));
	rte_fib6_free(fib);
	fib = table_new(RTE_FIB6_TRIE_8B, 64, 0, 64);
	assert_null(nfv_fib6_trie_check(fib, 64));
	rte_fib6_free(fib);
	/* Not the group count asked for; a default next hop. */
	fib = table_new(RTE_FIB6_TRIE_4B, 64, 0, 64);
	assert_null(nfv_fib6_trie_check(fib, 65));
	assert_non_null(nfv_fib6_trie_check(fib, 64));
	rte_fib6_free(fib);
	fib = table_new(RTE_FIB6_TRIE_4B, 64, 5, 64);
	assert_null(nfv_fib6_trie_check(fib, 64));
	rte_fib6_free(fib);
}

/* /128 routes under no route (13 groups reserved each) until refused. */
static unsigned int
fill128(struct rte_fib6 *fib)
{
	for (unsigned int n = 0; n < 64; n++) {
		uint8_t ip[16] = { 0x20, 0x01, 0x0d, 0xb8, 0x0f, (uint8_t)n, [15] = 1 };
		int rc = rte_fib6_add(fib, ip, 128, n + 1);

		if (rc != 0) {
			assert_int_equal(rc, -ENOSPC);
			return n;
		}
	}
	fail_msg("64 /128 routes fit in 40 groups");
	return 0;
}

/* A checked table holds as many routes as one never checked (the probe's
 * reservation is given back), and is empty. */
static void
test_check_leaves_capacity(void **state)
{
	struct rte_fib6 *a = table_new(RTE_FIB6_TRIE_4B, 40, 0, 256);
	struct rte_fib6 *b;
	uint8_t ips[1][16] = { { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 } };
	uint64_t nh = 1;
	unsigned int na, nb;

	(void)state;
	assert_non_null(nfv_fib6_trie_check(a, 40));
	assert_int_equal(rte_fib6_lookup_bulk(a, ips, &nh, 1), 0);
	assert_int_equal(nh, 0);
	na = fill128(a);
	rte_fib6_free(a);
	b = table_new(RTE_FIB6_TRIE_4B, 40, 0, 256);
	nb = fill128(b);
	rte_fib6_free(b);
	print_message("/128 routes that fit in 40 groups: %u checked, %u not\n", na, nb);
	assert_true(nb >= 1);
	assert_int_equal(na, nb);
}

/* The routes of a random table, nested around a few roots. */
#define N_ROOTS 6
#define N_ROUTES 3000

struct route {
	uint8_t ip[16];
	uint8_t len;
	bool in;
};

static uint8_t roots[N_ROOTS][16];
static struct route routes[N_ROUTES];
static unsigned int n_routes; /* made so far: addresses are drawn from them */

static void
rand_bytes(uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)nfv_test_rand();
}

/* a with the bits from position `from` on replaced by random ones. */
static void
rand_tail(uint8_t *a, unsigned int from)
{
	uint8_t r[16];

	rand_bytes(r, sizeof(r));
	for (unsigned int bit = from; bit < 128; bit++) {
		uint8_t m = (uint8_t)(0x80 >> (bit % 8));

		a[bit / 8] = (uint8_t)((a[bit / 8] & ~m) | (r[bit / 8] & m));
	}
}

static void
mask_to(uint8_t *a, unsigned int len)
{
	for (unsigned int bit = len; bit < 128; bit++)
		a[bit / 8] &= (uint8_t)~(0x80 >> (bit % 8));
}

/* A prefix length: every one from 0 to 128, most above 24 and 48, /0
 * rarely (each /0 change rewrites all of tbl24). */
static unsigned int
rand_len(void)
{
	uint64_t r = nfv_test_rand() % 1000;

	if (r == 0)
		return 0;
	if (r < 100)
		return 1 + (unsigned int)(nfv_test_rand() % 24);
	if (r < 250)
		return 25 + (unsigned int)(nfv_test_rand() % 24);
	if (r < 400)
		return 64;
	return 49 + (unsigned int)(nfv_test_rand() % 80);
}

static void
route_make(struct route *r)
{
	memcpy(r->ip, roots[nfv_test_rand() % N_ROOTS], 16);
	rand_tail(r->ip, (unsigned int)(nfv_test_rand() % 129));
	r->len = (uint8_t)rand_len();
	mask_to(r->ip, r->len);
}

/* A route none of the first n has. */
static void
route_make_new(struct route *r, unsigned int n)
{
	bool dup;

	do {
		route_make(r);
		dup = false;
		for (unsigned int j = 0; j < n && !dup; j++)
			dup = routes[j].len == r->len && memcmp(routes[j].ip, r->ip, 16) == 0;
	} while (dup);
}

/* Values: random (31 bits, the most a 4-byte entry holds), or one of a few
 * shared ones so that routes and the routes covering them often agree. */
static uint64_t
rand_value(void)
{
	if (nfv_test_rand() % 3 == 0)
		return 1 + nfv_test_rand() % 4;
	return nfv_test_rand() & 0x7fffffff;
}

static unsigned int
routes_add(struct rte_fib6 *fib, unsigned int from, unsigned int to)
{
	unsigned int refused = 0;

	for (unsigned int i = from; i < to; i++) {
		int rc;

		route_make_new(&routes[i], i);
		rc = rte_fib6_add(fib, routes[i].ip, routes[i].len, rand_value());
		routes[i].in = rc == 0;
		if (rc != 0) {
			assert_int_equal(rc, -ENOSPC);
			refused++;
		}
	}
	return refused;
}

/* An address for a lookup: in a route (first, last or any address of it),
 * near a root, or anywhere. */
static void
rand_addr(uint8_t *a)
{
	uint64_t r = nfv_test_rand() % 10;
	const struct route *rt = &routes[nfv_test_rand() % n_routes];

	if (r < 5) {
		memcpy(a, rt->ip, 16);
		rand_tail(a, rt->len);
	} else if (r == 5) {
		memcpy(a, rt->ip, 16);
	} else if (r == 6) {
		memcpy(a, rt->ip, 16);
		for (unsigned int bit = rt->len; bit < 128; bit++)
			a[bit / 8] |= (uint8_t)(0x80 >> (bit % 8));
	} else if (r < 9) {
		memcpy(a, roots[nfv_test_rand() % N_ROOTS], 16);
		rand_tail(a, (unsigned int)(nfv_test_rand() % 129));
	} else {
		rand_bytes(a, 16);
	}
}

struct coverage {
	unsigned long n;
	unsigned long levels[14];
};

/*
 * Bursts of 1 to 32 random addresses, some sharing a /64 with others (a
 * few keys per burst, so the burst read's cache both hits and misses): the
 * single read, the burst read and (on nfvd's table) nfv_fib6_lookup
 * against rte_fib6_lookup_bulk.
 */
static void
compare(struct rte_fib6 *fib, const struct nfv_trie6 *t, unsigned int bursts, bool nfvd,
	struct coverage *cov)
{
	for (unsigned int b = 0; b < bursts; b++) {
		uint8_t ips[32][RTE_FIB6_IPV6_ADDR_SIZE], keys[4][16];
		uint64_t want[32], got[32], got2[32];
		unsigned int n = 1 + (unsigned int)(nfv_test_rand() % 32), n_keys;

		n_keys = 1 + (unsigned int)(nfv_test_rand() % 4);
		for (unsigned int k = 0; k < n_keys; k++)
			rand_addr(keys[k]);
		for (unsigned int i = 0; i < n; i++) {
			if (nfv_test_rand() % 4 == 0) {
				rand_addr(ips[i]);
			} else {
				memcpy(ips[i], keys[nfv_test_rand() % n_keys], 16);
				rand_tail(ips[i], 64 + (unsigned int)(nfv_test_rand() % 65));
			}
		}
		assert_int_equal(rte_fib6_lookup_bulk(fib, ips, want, (int)n), 0);
		memset(got, 0xa5, sizeof(got));
		nfv_trie6_lookup_burst(t, ips, got, n);
		if (nfvd) {
			memset(got2, 0xa5, sizeof(got2));
			nfv_fib6_lookup(ips, got2, n);
		}
		for (unsigned int i = 0; i < n; i++) {
			uint64_t one = nfv_trie6_get(t, ips[i]);
			unsigned int lv = walk_levels(t, ips[i]);
			char s[48];

			addr_str(ips[i], s, sizeof(s));
			if (one != want[i] || got[i] != want[i] || (nfvd && got2[i] != want[i]))
				fail_msg("%s (burst %u, packet %u of %u): rte_fib6 %#" PRIx64
					 ", inline %#" PRIx64 ", burst read %#" PRIx64
					 ", nfv_fib6_lookup %#" PRIx64, s, b, i, n, want[i], one,
					 got[i], nfvd ? got2[i] : want[i]);
			assert_true(lv < 14);
			cov->levels[lv]++;
			cov->n++;
		}
	}
}

/* Tbl8 walks of every depth were compared, or the test proves little. */
static void
coverage_check(const struct coverage *cov, const char *what)
{
	unsigned long deep = 0, deeper = 0;

	for (unsigned int l = 0; l < 14; l++) {
		if (l >= 4) /* past the sixth byte: longer than /48 */
			deep += cov->levels[l];
		if (l >= 10) /* past the twelfth: longer than /96 */
			deeper += cov->levels[l];
	}
	print_message("%s: %lu addresses; tbl24 only %lu, 1-3 tbl8 levels %lu, "
		      "4-9 %lu, 10-13 %lu\n", what, cov->n, cov->levels[0],
		      cov->levels[1] + cov->levels[2] + cov->levels[3], deep - deeper, deeper);
	assert_true(cov->levels[0] > 0);
	assert_true(cov->levels[1] + cov->levels[2] + cov->levels[3] > 0);
	assert_true(deep > cov->n / 10);
	assert_true(deeper > 0 && cov->levels[13] > 0);
}

static void
test_random_routes(void **state)
{
	struct rte_fib6 *fib = table_new(RTE_FIB6_TRIE_4B, 1 << 15, 0, 2 * N_ROUTES);
	const struct nfv_trie6 *t;
	struct coverage cov = { 0 };
	unsigned int refused;

	(void)state;
	t = nfv_fib6_trie_check(fib, 1 << 15);
	assert_non_null(t);
	for (unsigned int r = 0; r < N_ROOTS; r++)
		rand_bytes(roots[r], 16);
	refused = routes_add(fib, 0, N_ROUTES);
	n_routes = N_ROUTES;
	print_message("%u routes added, %u refused (no group left)\n", N_ROUTES - refused,
		      refused);
	compare(fib, t, 2000, false, &cov);
	/* Half deleted (tbl8 groups recycled), then new ones in their place. */
	for (unsigned int i = 0; i < N_ROUTES; i += 2)
		if (routes[i].in) {
			assert_int_equal(rte_fib6_delete(fib, routes[i].ip, routes[i].len), 0);
			routes[i].in = false;
		}
	compare(fib, t, 1000, false, &cov);
	for (unsigned int i = 0; i < N_ROUTES; i += 2) {
		refused = routes_add(fib, i, i + 1);
		(void)refused;
	}
	compare(fib, t, 1000, false, &cov);
	coverage_check(&cov, "own table");
	rte_fib6_free(fib);
}

/* nfvd's table through the grammar: routes of every length, the pair
 * flipped by every change, and nfv_fib6_lookup on the active table. */
static void
test_nfvd_routes(void **state)
{
	struct coverage cov = { 0 };
	unsigned int a;

	(void)state;
	for (unsigned int r = 0; r < N_ROOTS; r++)
		rand_bytes(roots[r], 16);
	/* Global unicast roots: 2000::/3 with no special first byte. */
	for (unsigned int r = 0; r < N_ROOTS; r++)
		roots[r][0] = (uint8_t)(0x20 | (roots[r][0] & 0x1f));
	for (unsigned int i = 0; i < 300; i++) {
		char s[48], line[96], err[NFV_ERR_LEN];

		route_make_new(&routes[i], i);
		addr_str(routes[i].ip, s, sizeof(s));
		snprintf(line, sizeof(line), "route add %s/%u blackhole", s, routes[i].len);
		routes[i].in = nfv_test_exec(line, NULL, err) == 0;
	}
	n_routes = 300;
	a = __atomic_load_n(&nfv_fib6.active, __ATOMIC_ACQUIRE);
	assert_non_null(nfv_fib6.trie[a]);
	assert_ptr_equal(nfv_fib6_trie_active(), rte_fib6_get_dp(nfv_fib6_active()));
	compare(nfv_fib6_active(), nfv_fib6_trie_active(), 500, true, &cov);
	print_message("nfvd's table: %lu addresses, %lu past the sixth byte\n", cov.n,
		      cov.n - cov.levels[0] - cov.levels[1] - cov.levels[2] - cov.levels[3]);
	assert_true(cov.levels[0] > 0 && cov.levels[4] + cov.levels[5] > 0);
	for (unsigned int i = 0; i < 300; i++) {
		char s[48];

		if (!routes[i].in)
			continue;
		addr_str(routes[i].ip, s, sizeof(s));
		json_decref(nfv_test_ok("route del %s/%u", s, routes[i].len));
	}
	nfv_test_assert_empty("tables after the random routes");
}

int
main(int argc, char **argv)
{
	struct nfv_test_list l = { 0 };
	int rc;

	nfv_test_seed();
	nfv_test_add(&l, "nfvd's IPv6 tables pass the layout check", test_nfvd_tables, NULL);
	nfv_test_add(&l, "other layouts are refused", test_refused, NULL);
	nfv_test_add(&l, "the check leaves the capacity", test_check_leaves_capacity, NULL);
	nfv_test_add(&l, "random routes 0-128: inline read = rte_fib6_lookup_bulk",
		     test_random_routes, NULL);
	nfv_test_add(&l, "nfvd's table: nfv_fib6_lookup = rte_fib6_lookup_bulk",
		     test_nfvd_routes, NULL);
	rc = nfv_test_select(&l, argc, argv);
	if (rc != 0)
		return rc == 1 ? 0 : rc;
	return nfv_test_run("fib6-trie", &l, group_setup, nfv_test_group_teardown);
}
