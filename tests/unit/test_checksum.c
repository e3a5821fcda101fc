/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Checksums the nodes rely on:
 * - nfv_cksum_update16 and nfv_ip4_ttl_dec_word (src/nodes/node.h), RFC 1624
 *   eqn. 3, against each other and a full
 *   recomputation with rte_ipv4_cksum: the TTL decrement of ip4_rewrite for
 *   every TTL, any 16-bit field change, the ICMP echo type change of
 *   ip4_local, and the corner cases of RFC 1624 section 3 (a result of
 *   0x0000 must stay 0x0000, never become 0xFFFF; a header carrying 0xFFFF,
 *   the other zero, must stay valid);
 * - rte_raw_cksum as ip4_input uses it (a valid header sums to 0xffff, any
 *   single-bit error does not), and rte_raw_cksum_mbuf across segments as
 *   ip4_local / ip4_icmp_error use it.
 * No EAL: mbufs for the segment tests are built on the stack.
 */
#include <netinet/in.h>
#include <rte_icmp.h>

#include "nfv_test.h"
#include "modules/ip/ip_node.h"

#define N_RANDOM_HEADERS 2000

/* Gives the header its correct checksum. */
static void
set_cksum(struct rte_ipv4_hdr *ip)
{
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
}

/* A random IPv4 header with ihl_words 32-bit words (options random too) and
 * a correct checksum. */
static void
random_header(uint8_t *buf, unsigned int ihl_words)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)buf;

	for (unsigned int i = 0; i < ihl_words * 4; i++)
		buf[i] = (uint8_t)nfv_test_rand();
	ip->version_ihl = (uint8_t)(0x40 | ihl_words);
	ip->time_to_live = (uint8_t)(1 + nfv_test_rand() % 255);
	set_cksum(ip);
}

/* The checksum a full recomputation gives, leaving the header as it was. */
static uint16_t
full_cksum(struct rte_ipv4_hdr *ip)
{
	rte_be16_t saved = ip->hdr_checksum;
	uint16_t c;

	ip->hdr_checksum = 0;
	c = rte_ipv4_cksum(ip);
	ip->hdr_checksum = saved;
	return c;
}

static bool
header_valid(const struct rte_ipv4_hdr *ip)
{
	return rte_raw_cksum(ip, rte_ipv4_hdr_len(ip)) == 0xffff;
}

/* What ip4_rewrite does to a forwarded packet: the TTL/protocol/checksum
 * word through nfv_ip4_ttl_dec_word. */
static void
ttl_decrement(struct rte_ipv4_hdr *ip)
{
	uint32_t w;

	memcpy(&w, &ip->time_to_live, sizeof(w));
	w = nfv_ip4_ttl_dec_word(w);
	memcpy(&ip->time_to_live, &w, sizeof(w));
}

/* The word update is RFC 1624 eqn. 3 on the TTL/protocol word for every
 * checksum value, TTL and protocol: bit for bit nfv_cksum_update16. */
static void
test_ttl_word_every_checksum(void **state)
{
	unsigned long checked = 0;

	for (uint32_t hc = 0; hc <= 0xffff; hc++) {
		for (uint32_t ttl = 1; ttl <= 255; ttl += (hc & 7) + 1) {
			uint8_t b[4] = { (uint8_t)ttl, (uint8_t)(hc * 7), (uint8_t)(hc >> 8),
					 (uint8_t)hc };
			uint16_t old_word = (uint16_t)(b[0] << 8 | b[1]);
			rte_be16_t cksum, want;
			uint32_t w;

			memcpy(&cksum, b + 2, 2);
			want = nfv_cksum_update16(cksum, old_word, (uint16_t)(old_word - 0x100));
			memcpy(&w, b, 4);
			w = nfv_ip4_ttl_dec_word(w);
			memcpy(b, &w, 4);
			if (b[0] != ttl - 1 || b[1] != (uint8_t)(hc * 7) ||
			    memcmp(b + 2, &want, 2) != 0)
				fail_msg("checksum 0x%04x ttl %u: word update gave ttl %u "
					 "proto %u checksum 0x%02x%02x, want 0x%04x", hc, ttl,
					 b[0], b[1], b[2], b[3], rte_be_to_cpu_16(want));
			checked++;
		}
	}
	print_message("%lu word updates checked\n", checked);
}

/* RFC 1624 section 4's example: eqn. 3 gives 0x0000 where eqn. 2 (RFC 1141)
 * gave 0xFFFF. */
static void
test_rfc1624_example(void **state)
{
	/* Sum of the other words 0xCD7A, m = 0x5555 -> m' = 0x3285. */
	rte_be16_t hc = rte_cpu_to_be_16(0xdd2f);

	assert_int_equal(rte_be_to_cpu_16(nfv_cksum_update16(hc, 0x5555, 0x3285)), 0x0000);
	/* And back: 0x0000 -> 0xDD2F. */
	assert_int_equal(rte_be_to_cpu_16(nfv_cksum_update16(0, 0x3285, 0x5555)), 0xdd2f);
	/* A no-op change leaves a canonical checksum alone. */
	for (unsigned int w = 0; w <= 0xffff; w += 0x1111)
		assert_int_equal(rte_be_to_cpu_16(nfv_cksum_update16(hc, (uint16_t)w, (uint16_t)w)),
				 0xdd2f);
}

/* Every TTL 1..255 on many random headers, with and without options: the
 * incremental result is bit for bit the full recomputation. */
static void
test_ttl_every_value(void **state)
{
	uint8_t buf[60];
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)buf;
	unsigned long checked = 0;

	for (unsigned int h = 0; h < N_RANDOM_HEADERS; h++) {
		random_header(buf, 5 + (h % 11));
		for (unsigned int ttl = 1; ttl <= 255; ttl++) {
			uint16_t want;

			ip->time_to_live = (uint8_t)ttl;
			set_cksum(ip);
			ttl_decrement(ip);
			want = full_cksum(ip);
			if (ip->hdr_checksum != want || !header_valid(ip))
				fail_msg("header %u ttl %u -> %u: incremental 0x%04x, full 0x%04x",
					 h, ttl, ttl - 1, rte_be_to_cpu_16(ip->hdr_checksum),
					 rte_be_to_cpu_16(want));
			checked++;
		}
	}
	/* A packet walking a 255-hop path: decrement all the way down. */
	random_header(buf, 5);
	ip->time_to_live = 255;
	set_cksum(ip);
	while (ip->time_to_live > 0) {
		ttl_decrement(ip);
		assert_int_equal(ip->hdr_checksum, full_cksum(ip));
	}
	print_message("%lu TTL decrements checked\n", checked);
}

/* Sets the packet id so that the full checksum of the header is target;
 * returns false when no id gives it. */
static bool
steer_cksum(struct rte_ipv4_hdr *ip, uint16_t target)
{
	for (uint32_t id = 0; id <= 0xffff; id++) {
		ip->packet_id = rte_cpu_to_be_16((uint16_t)id);
		if (rte_be_to_cpu_16(full_cksum(ip)) == target)
			return true;
	}
	return false;
}

/*
 * RFC 1624 section 3: when the new checksum computes to 0x0000, the update
 * must give 0x0000 (eqn. 2 of RFC 1141 gave 0xFFFF). For every TTL, steer a
 * header to a checksum of 0x0000 after the decrement, and to 0x0000 before.
 */
static void
test_ttl_zero_checksum_corner(void **state)
{
	uint8_t buf[20];
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)buf;

	for (unsigned int ttl = 1; ttl <= 255; ttl++) {
		random_header(buf, 5);
		/* After the decrement the full checksum is 0x0000. */
		ip->time_to_live = (uint8_t)(ttl - 1);
		assert_true(steer_cksum(ip, 0x0000));
		ip->time_to_live = (uint8_t)ttl;
		set_cksum(ip);
		ttl_decrement(ip);
		if (ip->hdr_checksum != 0)
			fail_msg("ttl %u: update gave 0x%04x where the checksum is 0x0000", ttl,
				 rte_be_to_cpu_16(ip->hdr_checksum));
		assert_true(header_valid(ip));

		/* Before the decrement the checksum is 0x0000. */
		ip->time_to_live = (uint8_t)ttl;
		assert_true(steer_cksum(ip, 0x0000));
		set_cksum(ip);
		assert_int_equal(ip->hdr_checksum, 0);
		ttl_decrement(ip);
		assert_int_equal(ip->hdr_checksum, full_cksum(ip));
		assert_true(header_valid(ip));

		/* A full computation never gives 0xFFFF (that needs every word
		 * zero), whatever the packet id. */
		if ((ttl & 15) == 0)
			assert_false(steer_cksum(ip, 0xffff));
	}
}

/*
 * A sender may put 0xFFFF (the other one's-complement zero) where the
 * computation gives 0x0000: the header is still valid (RFC 1624 section 3).
 * After the decrement the header must stay valid and carry the canonical
 * checksum.
 */
static void
test_ttl_negative_zero_input(void **state)
{
	uint8_t buf[20];
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)buf;

	for (unsigned int ttl = 1; ttl <= 255; ttl++) {
		random_header(buf, 5);
		ip->time_to_live = (uint8_t)ttl;
		assert_true(steer_cksum(ip, 0x0000));
		ip->hdr_checksum = RTE_BE16(0xffff);
		assert_true(header_valid(ip));
		ttl_decrement(ip);
		if (!header_valid(ip))
			fail_msg("ttl %u: header with checksum 0xFFFF invalid after the decrement "
				 "(0x%04x)", ttl, rte_be_to_cpu_16(ip->hdr_checksum));
		assert_int_equal(ip->hdr_checksum, full_cksum(ip));
	}
}

/* Any 16-bit word of the header changed to any value, including the
 * 0x0000 / 0xFFFF extremes on both sides. */
static void
test_any_word_change(void **state)
{
	static const uint16_t extremes[] = { 0x0000, 0xffff, 0x0001, 0xfffe, 0x8000, 0x7fff };
	uint8_t buf[60];
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)buf;

	for (unsigned int h = 0; h < 20 * N_RANDOM_HEADERS; h++) {
		unsigned int ihl = 5 + (h % 11), word;
		uint16_t old_word, new_word;
		uint16_t *w16 = (uint16_t *)buf;

		random_header(buf, ihl);
		do
			word = (unsigned int)(nfv_test_rand() % (ihl * 2));
		while (word == 5 || word == 0); /* the checksum itself; keep version/IHL */
		if (h % 4 == 0)
			w16[word] = rte_cpu_to_be_16(extremes[nfv_test_rand() % RTE_DIM(extremes)]);
		set_cksum(ip);
		old_word = rte_be_to_cpu_16(w16[word]);
		new_word = h % 3 == 0 ? extremes[nfv_test_rand() % RTE_DIM(extremes)] :
			   (uint16_t)nfv_test_rand();
		w16[word] = rte_cpu_to_be_16(new_word);
		ip->hdr_checksum = nfv_cksum_update16(ip->hdr_checksum, old_word, new_word);
		if (ip->hdr_checksum != full_cksum(ip) || !header_valid(ip))
			fail_msg("word %u 0x%04x -> 0x%04x: incremental 0x%04x, full 0x%04x", word,
				 old_word, new_word, rte_be_to_cpu_16(ip->hdr_checksum),
				 rte_be_to_cpu_16(full_cksum(ip)));
	}
}

/* ip4_local turns an echo request into a reply by changing the type byte
 * (the high byte of the first ICMP word) and updating the checksum. */
static void
test_icmp_echo_type_change(void **state)
{
	uint8_t msg[1500 + 1];
	struct rte_icmp_hdr *icmp = (struct rte_icmp_hdr *)msg;

	for (unsigned int i = 0; i < N_RANDOM_HEADERS; i++) {
		size_t len = sizeof(*icmp) + nfv_test_rand() % (sizeof(msg) - sizeof(*icmp));
		uint16_t sum;

		if (i % 64 == 0)
			len = sizeof(*icmp) + (i / 64) % 57; /* short: steered below */

		for (size_t b = 0; b < len; b++)
			msg[b] = (uint8_t)nfv_test_rand();
		icmp->icmp_type = RTE_IP_ICMP_ECHO_REQUEST;
		icmp->icmp_code = 0;
		if (i % 64 == 0) {
			/* Steer the reply's checksum to the 0x0000 corner. */
			for (uint32_t v = 0; v <= 0xffff; v++) {
				icmp->icmp_ident = rte_cpu_to_be_16((uint16_t)v);
				icmp->icmp_type = RTE_IP_ICMP_ECHO_REPLY;
				icmp->icmp_cksum = 0;
				if (rte_raw_cksum(msg, len) == 0xffff)
					break;
			}
			icmp->icmp_type = RTE_IP_ICMP_ECHO_REQUEST;
		}
		icmp->icmp_cksum = 0;
		icmp->icmp_cksum = (uint16_t)~rte_raw_cksum(msg, len);
		assert_int_equal(rte_raw_cksum(msg, len), 0xffff);

		icmp->icmp_type = RTE_IP_ICMP_ECHO_REPLY;
		icmp->icmp_cksum = nfv_cksum_update16(icmp->icmp_cksum,
						      RTE_IP_ICMP_ECHO_REQUEST << 8,
						      RTE_IP_ICMP_ECHO_REPLY << 8);
		sum = rte_raw_cksum(msg, len);
		if (sum != 0xffff)
			fail_msg("message %u (%zu bytes): reply sums to 0x%04x", i, len, sum);
	}
}

/* ip4_input accepts a header when rte_raw_cksum over IHL words is 0xffff:
 * true for every correct header, false after any single-bit error. */
static void
test_raw_cksum_validates_header(void **state)
{
	uint8_t buf[60];
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)buf;

	for (unsigned int h = 0; h < N_RANDOM_HEADERS; h++) {
		unsigned int ihl = 5 + (h % 11);

		random_header(buf, ihl);
		assert_int_equal(rte_raw_cksum(ip, ihl * 4), 0xffff);
		for (unsigned int bit = 0; bit < ihl * 32; bit++) {
			buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
			if (rte_raw_cksum(ip, ihl * 4) == 0xffff)
				fail_msg("header %u: error in bit %u not detected", h, bit);
			buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		}
	}
	/* A checksum computed over a non-zero header is never 0xFFFF. */
	memset(buf, 0, sizeof(buf));
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	assert_int_not_equal(rte_ipv4_cksum(ip), 0xffff);
}

/* ip4_input's fast check of a 20-byte header (32-bit adds) agrees with
 * rte_raw_cksum on valid headers, any single-bit error, the checksum
 * corners, and unaligned headers. */
static void
test_hdr20_fast_check(void **state)
{
	uint8_t raw[20 + 3];

	for (unsigned int h = 0; h < 20 * N_RANDOM_HEADERS; h++) {
		uint8_t *buf = raw + h % 4; /* every alignment */
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)buf;
		bool want;

		random_header(buf, 5);
		if (h % 97 == 0)
			steer_cksum(ip, 0x0000);
		set_cksum(ip);
		if (h % 5 == 1) /* a random header, valid or not */
			buf[nfv_test_rand() % 20] ^= (uint8_t)nfv_test_rand();
		if (h % 193 == 0 && ip->hdr_checksum == 0)
			ip->hdr_checksum = 0xffff; /* the other zero: still valid */
		want = rte_raw_cksum(buf, 20) == 0xffff;
		if (nfv_ip4_hdr20_cksum_ok(buf) != want)
			fail_msg("header %u: fast check says %s, rte_raw_cksum says %s", h,
				 want ? "bad" : "good", want ? "good" : "bad");
		/* (A random header is not all zeros: its sum is not 0.) */
		if ((nfv_ip4_hdr20_sum_key(buf) <= NFV_IP4_SUM_KEY_MAX) != want)
			fail_msg("header %u: the sum key says %s, rte_raw_cksum says %s", h,
				 want ? "bad" : "good", want ? "good" : "bad");
		if (h % 50 == 0) {
			for (unsigned int bit = 0; bit < 160; bit++) {
				buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
				assert_int_equal(nfv_ip4_hdr20_cksum_ok(buf),
						 rte_raw_cksum(buf, 20) == 0xffff);
				assert_int_equal(nfv_ip4_hdr20_sum_key(buf) <= NFV_IP4_SUM_KEY_MAX,
						 rte_raw_cksum(buf, 20) == 0xffff);
				buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
			}
		}
	}
	/* All zero: sums to 0, not 0xffff. */
	memset(raw, 0, sizeof(raw));
	assert_false(nfv_ip4_hdr20_cksum_ok(raw));
	memset(raw, 0xff, sizeof(raw));
	assert_true(nfv_ip4_hdr20_cksum_ok(raw));
}

/* Two fake segments over one flat buffer, split at split. */
static void
make_segments(struct rte_mbuf *m0, struct rte_mbuf *m1, uint8_t *seg0, uint8_t *seg1,
	      const uint8_t *flat, size_t len, size_t split)
{
	memset(m0, 0, sizeof(*m0));
	memset(m1, 0, sizeof(*m1));
	memcpy(seg0 + RTE_PKTMBUF_HEADROOM, flat, split);
	memcpy(seg1 + RTE_PKTMBUF_HEADROOM, flat + split, len - split);
	m0->buf_addr = seg0;
	m0->data_off = RTE_PKTMBUF_HEADROOM;
	m0->data_len = (uint16_t)split;
	m0->pkt_len = (uint32_t)len;
	m0->nb_segs = 2;
	m0->next = m1;
	m1->buf_addr = seg1;
	m1->data_off = RTE_PKTMBUF_HEADROOM;
	m1->data_len = (uint16_t)(len - split);
	m1->nb_segs = 1;
}

/*
 * nfv_cksum_mbuf (nfvd's replacement for DPDK 22.11's rte_raw_cksum_mbuf,
 * which truncates a segment's unreduced 32-bit partial sum to 16 bits before
 * byte-swapping it when the bytes before that segment are odd in number, so
 * multi-segment packets split at an odd distance from the checksum start got
 * a wrong sum) over random offsets and lengths, with the data split in two
 * segments at every point, against the flat sum. odd: whether the checksummed
 * bytes in the first segment are odd in number (the partial sum of the second
 * segment is then byte-swapped).
 */
static void
raw_cksum_mbuf_splits(bool odd)
{
	static uint8_t flat[300], seg0[RTE_PKTMBUF_HEADROOM + 300];
	static uint8_t seg1[RTE_PKTMBUF_HEADROOM + 300];
	struct rte_mbuf m0, m1;
	char why[160] = "";
	unsigned long checked = 0;

	for (size_t i = 0; i < sizeof(flat); i++)
		flat[i] = (uint8_t)nfv_test_rand();
	for (size_t split = 1; split < sizeof(flat); split++) {
		uint16_t sum;

		make_segments(&m0, &m1, seg0, seg1, flat, sizeof(flat), split);
		for (unsigned int k = 0; k < 40; k++) {
			uint32_t off = (uint32_t)(nfv_test_rand() % sizeof(flat));
			uint32_t len = (uint32_t)(nfv_test_rand() % (sizeof(flat) - off + 1));

			/* Only ranges that cross the split, of the parity asked. */
			if (off >= split || off + len <= split || ((split - off) & 1) != odd)
				continue;
			sum = nfv_cksum_mbuf(&m0, off, len);
			checked++;
			if (sum != rte_raw_cksum(flat + off, len) && why[0] == '\0')
				snprintf(why, sizeof(why), "split %zu off %u len %u: 0x%04x, flat "
					 "0x%04x", split, off, len, sum,
					 rte_raw_cksum(flat + off, len));
		}
	}
	assert_true(checked > 100);
	nfv_test_verdict(why[0] == '\0', why);
}

static void
test_raw_cksum_mbuf_even_split(void **state)
{
	raw_cksum_mbuf_splits(false);
}

static void
test_raw_cksum_mbuf_odd_split(void **state)
{
	raw_cksum_mbuf_splits(true);
}

/* nfv_ip4_is_martian_src (RFC 1812 5.3.7) on host-order addresses. */
static void
test_martian_source(void **state)
{
	static const struct {
		uint32_t addr;
		int martian;
	} rows[] = {
		{ RTE_IPV4(0, 0, 0, 0), 1 },
		{ RTE_IPV4(0, 1, 2, 3), 1 },
		{ RTE_IPV4(1, 0, 0, 0), 0 },
		{ RTE_IPV4(10, 0, 0, 1), 0 },
		{ RTE_IPV4(126, 255, 255, 255), 0 },
		{ RTE_IPV4(127, 0, 0, 1), 1 },
		{ RTE_IPV4(128, 0, 0, 0), 0 },
		{ RTE_IPV4(223, 255, 255, 255), 0 },
		{ RTE_IPV4(224, 0, 0, 1), 1 },
		{ RTE_IPV4(239, 255, 255, 255), 1 },
		{ RTE_IPV4(240, 0, 0, 1), 1 },
		{ RTE_IPV4(255, 255, 255, 255), 1 },
	};

	for (size_t i = 0; i < RTE_DIM(rows); i++)
		if (!nfv_ip4_is_martian_src(rows[i].addr) != !rows[i].martian)
			fail_msg("%u.%u.%u.%u: expected %smartian", rows[i].addr >> 24,
				 (rows[i].addr >> 16) & 0xff, (rows[i].addr >> 8) & 0xff,
				 rows[i].addr & 0xff, rows[i].martian ? "" : "not ");
}

int
main(void)
{
	struct nfv_test_list l = { 0 };

	nfv_test_seed();
	nfv_test_add(&l, "rfc1624: section 4 example", test_rfc1624_example, NULL);
	nfv_test_add(&l, "ttl: every TTL 1..255 on random headers", test_ttl_every_value, NULL);
	nfv_test_add(&l, "ttl: the one-word update for every checksum",
		     test_ttl_word_every_checksum, NULL);
	nfv_test_add(&l, "ttl: checksum 0x0000 before/after (RFC 1624 s3)",
		     test_ttl_zero_checksum_corner, NULL);
	nfv_test_add(&l, "ttl: incoming checksum 0xFFFF (RFC 1624 s3)",
		     test_ttl_negative_zero_input, NULL);
	nfv_test_add(&l, "update16: any word, any value", test_any_word_change, NULL);
	nfv_test_add(&l, "update16: ICMP echo request -> reply", test_icmp_echo_type_change, NULL);
	nfv_test_add(&l, "raw_cksum: valid header sums to 0xffff, bit errors caught",
		     test_raw_cksum_validates_header, NULL);
	nfv_test_add(&l, "hdr20: fast header check agrees with rte_raw_cksum",
		     test_hdr20_fast_check, NULL);
	nfv_test_add(&l, "raw_cksum_mbuf: two segments, even split",
		     test_raw_cksum_mbuf_even_split, NULL);
	nfv_test_add(&l, "raw_cksum_mbuf: two segments, odd split",
		     test_raw_cksum_mbuf_odd_split, NULL);
	nfv_test_add(&l, "martian sources", test_martian_source, NULL);
	return nfv_test_run("checksum", &l, NULL, NULL);
}
