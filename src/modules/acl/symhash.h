/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The symmetric Toeplitz hash: what a NIC computes with RSS when its key
 * is 0x6d5a repeated (Woo and Park's symmetric key), in a few instructions.
 *
 * Toeplitz XORs, for each set bit at position i of the input, the 32 key
 * bits from position i. The key 0x6d5a... repeats every 16 bits, so that
 * window depends only on i mod 16: the hash is a linear function of the
 * XOR of the input's 16-bit words. Folding the words first (source and
 * destination fold alike, so the result is the same both ways) and then
 * looking the fold up in two 256-entry tables gives exactly rte_softrss()
 * with that key, for any input of whole 16-bit words.
 *
 * The input is what RSS hashes: addresses, plus the ports for TCP and UDP
 * when the packet is not a fragment (a NIC hashes fragments, and other
 * protocols, by addresses only).
 */
#ifndef NFV_ACL_SYMHASH_H
#define NFV_ACL_SYMHASH_H

#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>

#define NFV_SYMRSS_KEY_MAX 64

/* [0]: the fold's high byte, [1]: its low byte. */
extern uint32_t nfv_symhash_tab[2][256];

/* Fills key with 0x6d5a repeated (len bytes). */
void nfv_symrss_key(uint8_t *key, unsigned int len);
/* Builds the tables (once, before the workers run). */
void nfv_symhash_init(void);

/* w: the XOR of the input's 16-bit words, as they sit in memory. */
static inline uint32_t
nfv_symhash_fold(uint16_t w)
{
	uint16_t h = rte_be_to_cpu_16(w);

	return nfv_symhash_tab[0][h >> 8] ^ nfv_symhash_tab[1][h & 0xff];
}

/* IPv4: addresses, and ports when ports is true (all in network order). */
static inline uint32_t
nfv_symhash4(rte_be32_t src, rte_be32_t dst, rte_be16_t sport, rte_be16_t dport, bool ports)
{
	uint32_t x = src ^ dst;
	uint16_t w = (uint16_t)(x ^ (x >> 16));

	if (ports)
		w ^= sport ^ dport;
	return nfv_symhash_fold(w);
}

static inline uint32_t
nfv_symhash6(const uint8_t *src, const uint8_t *dst, rte_be16_t sport, rte_be16_t dport,
	     bool ports)
{
	uint64_t a[4];
	uint32_t x;
	uint16_t w;

	memcpy(a, src, 16);
	memcpy(&a[2], dst, 16);
	a[0] ^= a[1] ^ a[2] ^ a[3];
	x = (uint32_t)a[0] ^ (uint32_t)(a[0] >> 32);
	w = (uint16_t)(x ^ (x >> 16));
	if (ports)
		w ^= sport ^ dport;
	return nfv_symhash_fold(w);
}

#endif
