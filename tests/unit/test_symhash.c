/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The symmetric flow hash the ACL's worker handoff uses (src/modules/acl/
 * symhash.h): for random IPv4 and IPv6 addresses and ports, with and
 * without the ports, it equals rte_softrss() (DPDK's bit-by-bit Toeplitz)
 * with the 0x6d5a key that nfvd gives ports with RSS, and it is the same
 * for a tuple and its reverse. A key that is not symmetric (the common
 * Microsoft one) is checked to give different values both ways, so that
 * the symmetry check can fail. No EAL.
 */
#include <rte_thash.h>

#include "nfv_test.h"
#include "modules/acl/symhash.h"

#define N_RANDOM 20000

static uint8_t key[40];

static void
rand_bytes(uint8_t *b, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		b[i] = (uint8_t)nfv_test_rand();
}

/* rte_softrss's input: the tuple's 32-bit words in host order. */
static uint32_t
softrss(const uint8_t *src, const uint8_t *dst, unsigned int alen, rte_be16_t sport,
	rte_be16_t dport, bool ports, const uint8_t *k)
{
	uint32_t t[10];
	unsigned int n = 0;
	rte_be32_t w;

	for (unsigned int i = 0; i < alen; i += 4) {
		memcpy(&w, src + i, 4);
		t[n++] = rte_be_to_cpu_32(w);
	}
	for (unsigned int i = 0; i < alen; i += 4) {
		memcpy(&w, dst + i, 4);
		t[n++] = rte_be_to_cpu_32(w);
	}
	if (ports)
		t[n++] = (uint32_t)rte_be_to_cpu_16(sport) << 16 | rte_be_to_cpu_16(dport);
	return rte_softrss(t, n, k);
}

static void
test_ipv4(void **state)
{
	(void)state;
	for (unsigned int i = 0; i < N_RANDOM; i++) {
		rte_be32_t s, d;
		rte_be16_t sp, dp;
		bool ports = i & 1;

		rand_bytes((uint8_t *)&s, 4);
		rand_bytes((uint8_t *)&d, 4);
		rand_bytes((uint8_t *)&sp, 2);
		rand_bytes((uint8_t *)&dp, 2);
		uint32_t h = nfv_symhash4(s, d, sp, dp, ports);

		assert_int_equal(h, softrss((uint8_t *)&s, (uint8_t *)&d, 4, sp, dp, ports, key));
		assert_int_equal(h, softrss((uint8_t *)&d, (uint8_t *)&s, 4, dp, sp, ports, key));
		assert_int_equal(h, nfv_symhash4(d, s, dp, sp, ports));
	}
}

static void
test_ipv6(void **state)
{
	(void)state;
	for (unsigned int i = 0; i < N_RANDOM; i++) {
		uint8_t s[16], d[16];
		rte_be16_t sp, dp;
		bool ports = i & 1;

		rand_bytes(s, 16);
		rand_bytes(d, 16);
		rand_bytes((uint8_t *)&sp, 2);
		rand_bytes((uint8_t *)&dp, 2);
		uint32_t h = nfv_symhash6(s, d, sp, dp, ports);

		assert_int_equal(h, softrss(s, d, 16, sp, dp, ports, key));
		assert_int_equal(h, softrss(d, s, 16, dp, sp, ports, key));
		assert_int_equal(h, nfv_symhash6(d, s, dp, sp, ports));
	}
}

/* The check above can fail: with the usual (asymmetric) key, most tuples
 * hash differently both ways. */
static void
test_asymmetric_key_differs(void **state)
{
	static const uint8_t ms_key[40] = {
		0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67,
		0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb,
		0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30,
		0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
	};
	unsigned int differ = 0;

	(void)state;
	for (unsigned int i = 0; i < 1000; i++) {
		rte_be32_t s, d;
		rte_be16_t sp, dp;

		rand_bytes((uint8_t *)&s, 4);
		rand_bytes((uint8_t *)&d, 4);
		rand_bytes((uint8_t *)&sp, 2);
		rand_bytes((uint8_t *)&dp, 2);
		differ += softrss((uint8_t *)&s, (uint8_t *)&d, 4, sp, dp, true, ms_key) !=
			  softrss((uint8_t *)&d, (uint8_t *)&s, 4, dp, sp, true, ms_key);
	}
	assert_true(differ > 900);
}

/* A known value: rte_softrss of a fixed tuple with the symmetric key. */
static void
test_known_tuple(void **state)
{
	rte_be32_t s = RTE_BE32(0x0a000001), d = RTE_BE32(0xc612000a);
	rte_be16_t sp = RTE_BE16(40000), dp = RTE_BE16(80);
	uint32_t t[3] = { 0x0a000001, 0xc612000a, 40000u << 16 | 80 };

	(void)state;
	assert_int_equal(nfv_symhash4(s, d, sp, dp, true), rte_softrss(t, 3, key));
	assert_int_equal(nfv_symhash4(s, d, sp, dp, false), rte_softrss(t, 2, key));
}

int
main(void)
{
	struct nfv_test_list l = { 0 };

	nfv_test_seed();
	nfv_symrss_key(key, sizeof(key));
	nfv_symhash_init();
	nfv_test_add(&l, "ipv4: equals rte_softrss with the symmetric key, both ways", test_ipv4,
		     NULL);
	nfv_test_add(&l, "ipv6: equals rte_softrss with the symmetric key, both ways", test_ipv6,
		     NULL);
	nfv_test_add(&l, "the usual asymmetric key differs both ways",
		     test_asymmetric_key_differs, NULL);
	nfv_test_add(&l, "a known tuple", test_known_tuple, NULL);
	return nfv_test_run("symhash", &l, NULL, NULL);
}
