/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The flow module's IPFIX encoder (src/modules/flow/control/ipfix.c): the
 * messages it sends to a collector (a UDP socket of this test on the
 * loopback) read back byte for byte against RFC 7011's layout: message
 * header (3.1), template set and template records (3.3.1, 3.4.1), data
 * sets (3.3.2, no padding needed: every record is a whole number of bytes
 * and sets end where the next begins), sequence numbers (the data records
 * sent before the message), and messages kept within the MTU. No EAL.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "nfv_test.h"
#include "modules/flow/flow.h"

#define MTU 1400
#define REC4 (4 + 4 + 2 + 2 + 1 + 2 + 4 + 8 + 8 + 8 + 8)
#define REC6 (16 + 16 + 2 + 2 + 1 + 2 + 4 + 8 + 8 + 8 + 8)

static int collector = -1;
static struct nfv_ipfix *x;

static uint32_t
get16(const uint8_t *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

static uint32_t
get32(const uint8_t *p)
{
	return get16(p) << 16 | get16(p + 2);
}

static uint64_t
get64(const uint8_t *p)
{
	return (uint64_t)get32(p) << 32 | get32(p + 4);
}

/* The next message the collector got; its length, 0 when none came. */
static size_t
recv_msg(uint8_t *buf, size_t cap)
{
	ssize_t n = recv(collector, buf, cap, MSG_DONTWAIT);

	return n < 0 ? 0 : (size_t)n;
}

static int
setup(void **state)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	char addr[64], err[256];

	(void)state;
	inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
	collector = socket(AF_INET, SOCK_DGRAM, 0);
	if (collector < 0 || bind(collector, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    getsockname(collector, (struct sockaddr *)&sa, &sl) < 0)
		return -1;
	snprintf(addr, sizeof(addr), "127.0.0.1:%u", ntohs(sa.sin_port));
	x = nfv_ipfix_open(addr, err);
	return x == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
	(void)state;
	nfv_ipfix_close(x);
	close(collector);
	return 0;
}

/* RFC 7011 3.1: version 10, length, export time, sequence number, domain. */
static void
check_header(const uint8_t *m, size_t len, uint32_t seq)
{
	uint32_t now = (uint32_t)time(NULL);

	assert_int_equal(get16(m), 10);
	assert_int_equal(get16(m + 2), len);
	assert_true(get32(m + 4) <= now && get32(m + 4) + 5 >= now);
	assert_int_equal(get32(m + 8), seq);
	assert_int_equal(get32(m + 12), 1);
	assert_true(len <= MTU);
}

/* A template record (3.4.1): id, field count, then (IE, length) pairs. */
static size_t
check_template(const uint8_t *p, uint16_t id, uint16_t src_ie, uint16_t dst_ie, uint16_t alen)
{
	static const uint16_t rest[][2] = {
		{ 7, 2 }, { 11, 2 }, { 4, 1 }, { 6, 2 }, { 10, 4 }, { 2, 8 }, { 1, 8 },
		{ 152, 8 }, { 153, 8 },
	};

	assert_int_equal(get16(p), id);
	assert_int_equal(get16(p + 2), 11);
	assert_int_equal(get16(p + 4), src_ie);
	assert_int_equal(get16(p + 6), alen);
	assert_int_equal(get16(p + 8), dst_ie);
	assert_int_equal(get16(p + 10), alen);
	for (unsigned int i = 0; i < 9; i++) {
		assert_int_equal(get16(p + 12 + 4 * i), rest[i][0]);
		assert_int_equal(get16(p + 14 + 4 * i), rest[i][1]);
	}
	return 4 + 4 * 11;
}

static struct nfv_flow_record
record(int family, uint32_t k)
{
	struct nfv_flow_record r;

	memset(&r, 0, sizeof(r));
	r.family = (uint8_t)family;
	r.proto = family == NFV_FLOW_V4 ? 6 : 17;
	r.tcp_flags = 0x12;
	r.iface = (uint16_t)(3 + k);
	r.sport = htons((uint16_t)(1000 + k));
	r.dport = htons(53);
	for (unsigned int i = 0; i < 16; i++) {
		r.src[i] = (uint8_t)(0x10 + i + k);
		r.dst[i] = (uint8_t)(0x80 + i);
	}
	r.packets = 1000000000000ull + k;
	r.bytes = 0x0102030405060708ull + k;
	return r;
}

/* A data record (3.3.2) against the record it came from. */
static size_t
check_data(const uint8_t *p, const struct nfv_flow_record *r, uint64_t start, uint64_t end)
{
	size_t alen = r->family == NFV_FLOW_V4 ? 4 : 16;

	assert_memory_equal(p, r->src, alen);
	assert_memory_equal(p + alen, r->dst, alen);
	p += 2 * alen;
	assert_int_equal(get16(p), ntohs(r->sport));
	assert_int_equal(get16(p + 2), ntohs(r->dport));
	assert_int_equal(p[4], r->proto);
	assert_int_equal(get16(p + 5), r->tcp_flags);
	assert_int_equal(get32(p + 7), r->iface);
	assert_int_equal(get64(p + 11), r->packets);
	assert_int_equal(get64(p + 19), r->bytes);
	assert_int_equal(get64(p + 27), start);
	assert_int_equal(get64(p + 35), end);
	return 2 * alen + 43;
}

/* The first message carries the templates (set 2), before any data. */
static void
test_templates(void **state)
{
	uint8_t m[2048];
	size_t len, off = 16;

	(void)state;
	nfv_ipfix_flush(x);
	len = recv_msg(m, sizeof(m));
	assert_int_equal(len, 16 + 4 + 2 * 48);
	check_header(m, len, 0);
	assert_int_equal(get16(m + off), 2);
	assert_int_equal(get16(m + off + 2), 4 + 2 * 48);
	off += 4;
	off += check_template(m + off, 256, 8, 12, 4);
	off += check_template(m + off, 257, 27, 28, 16);
	assert_int_equal(off, len);
	/* Nothing more to send: no empty message. */
	nfv_ipfix_flush(x);
	assert_int_equal(recv_msg(m, sizeof(m)), 0);
}

/* Records of both families: one data set each, in order, set ids the
 * template ids; no templates again within their period. */
static void
test_data_sets(void **state)
{
	struct nfv_flow_record a = record(NFV_FLOW_V4, 1), b = record(NFV_FLOW_V4, 2);
	struct nfv_flow_record c = record(NFV_FLOW_V6, 3);
	uint8_t m[2048];
	size_t len, off = 16;

	(void)state;
	nfv_ipfix_add(x, &a, 1700000000001ull, 1700000000002ull);
	nfv_ipfix_add(x, &b, 1700000000003ull, 1700000000004ull);
	nfv_ipfix_add(x, &c, 1700000000005ull, 1700000000006ull);
	assert_int_equal(recv_msg(m, sizeof(m)), 0); /* not sent until flushed */
	nfv_ipfix_flush(x);
	len = recv_msg(m, sizeof(m));
	assert_int_equal(len, 16 + 4 + 2 * REC4 + 4 + REC6);
	check_header(m, len, 0);
	assert_int_equal(get16(m + off), 256);
	assert_int_equal(get16(m + off + 2), 4 + 2 * REC4);
	off += 4;
	off += check_data(m + off, &a, 1700000000001ull, 1700000000002ull);
	off += check_data(m + off, &b, 1700000000003ull, 1700000000004ull);
	assert_int_equal(get16(m + off), 257);
	assert_int_equal(get16(m + off + 2), 4 + REC6);
	off += 4;
	off += check_data(m + off, &c, 1700000000005ull, 1700000000006ull);
	assert_int_equal(off, len);
}

/* More records than a message holds: split at the MTU, each message's
 * sequence number the data records sent before it (3 so far). */
static void
test_mtu_split(void **state)
{
	const unsigned int n = 70, per = (MTU - 16 - 4) / REC4;
	uint8_t m[2048];
	unsigned int got = 0, seq = 3, msgs = 0;
	size_t len;

	(void)state;
	for (unsigned int k = 0; k < n; k++) {
		struct nfv_flow_record r = record(NFV_FLOW_V4, k);

		nfv_ipfix_add(x, &r, k, k + 1);
	}
	nfv_ipfix_flush(x);
	while ((len = recv_msg(m, sizeof(m))) != 0) {
		unsigned int in = (unsigned int)(len - 16 - 4) / REC4;

		check_header(m, len, seq);
		assert_int_equal(get16(m + 16), 256);
		assert_int_equal(get16(m + 18), len - 16);
		assert_int_equal(len, 16 + 4 + in * REC4);
		assert_true(in == per || got + in == n);
		for (unsigned int i = 0; i < in; i++) {
			struct nfv_flow_record r = record(NFV_FLOW_V4, got + i);

			check_data(m + 20 + i * REC4, &r, got + i, got + i + 1);
		}
		got += in;
		seq += in;
		msgs++;
	}
	assert_int_equal(got, n);
	assert_int_equal(msgs, (n + per - 1) / per);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_templates),
		cmocka_unit_test(test_data_sets),
		cmocka_unit_test(test_mtu_split),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
