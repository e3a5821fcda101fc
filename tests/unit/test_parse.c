/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Token parsers of the command grammar (src/ctl/parse.c) and the prefix
 * helpers (src/ip/prefix.c). Pure functions: no EAL. One cmocka test per
 * table row.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nfv_test.h"
#include "api/cmdfile.h"
#include "api/parse.h"
#include "modules/ip/ip.h"

#define MAX_EXPECTED_TOKENS 8

/* nfv_tokenize */

struct tokenize_row {
	const char *line;
	int max_tokens;
	int rc;
	const char *tok[MAX_EXPECTED_TOKENS];
};

static const struct tokenize_row tokenize_rows[] = {
	{ "", 64, 0, { NULL } },
	{ " \t\r\n", 64, 0, { NULL } },
	{ "# only a comment", 64, 0, { NULL } },
	{ "   # indented comment", 64, 0, { NULL } },
	{ "port add a", 64, 3, { "port", "add", "a" } },
	{ "  port\tadd \t a \r\n", 64, 3, { "port", "add", "a" } },
	{ "route add 10.0.0.0/8 blackhole # drop it", 64, 4,
	  { "route", "add", "10.0.0.0/8", "blackhole" } },
	{ "route add 10.0.0.0/8 blackhole#no space", 64, 5,
	  { "route", "add", "10.0.0.0/8", "blackhole#no", "space" } },
	{ "a#b", 64, 1, { "a#b" } },
	{ "a #b c", 64, 1, { "a" } },
	{ "port add p dev \"net_pcap0,rx_pcap=my file.pcap\"", 64, 5,
	  { "port", "add", "p", "dev", "net_pcap0,rx_pcap=my file.pcap" } },
	{ "\"\"", 64, 1, { "" } },
	{ "a \"\" b", 64, 3, { "a", "", "b" } },
	{ "\"a b\" c", 64, 2, { "a b", "c" } },
	{ "\"a b\"\tc", 64, 2, { "a b", "c" } },
	{ "\"# not a comment\" x", 64, 2, { "# not a comment", "x" } },
	{ "a\"b\"", 64, 1, { "a\"b\"" } },
	{ "\"a b\"c", 64, -EBADMSG, { NULL } },
	{ "\"abc", 64, -EINVAL, { NULL } },
	{ "a \"b", 64, -EINVAL, { NULL } },
	{ "a b \"", 64, -EINVAL, { NULL } },
	{ "a b c", 3, 3, { "a", "b", "c" } },
	{ "a b c   ", 3, 3, { "a", "b", "c" } },
	{ "a b c # d e f", 3, 3, { "a", "b", "c" } },
	{ "a b c d", 3, -E2BIG, { NULL } },
	{ "a b c \"d\"", 3, -E2BIG, { NULL } },
	{ "", 0, 0, { NULL } },
	{ "a", 0, -E2BIG, { NULL } },
};

static void
test_tokenize_row(void **state)
{
	const struct tokenize_row *row = *state;
	char *line = strdup(row->line), *tok[NFV_MAX_TOKENS + 1];
	int rc, n_expected = 0;

	assert_non_null(line);
	memset(tok, 0, sizeof(tok));
	rc = nfv_tokenize(line, tok, row->max_tokens);
	if (rc != row->rc)
		fail_msg("'%s' (max %d): rc %d, expected %d", row->line, row->max_tokens, rc,
			 row->rc);
	while (n_expected < MAX_EXPECTED_TOKENS && row->tok[n_expected] != NULL)
		n_expected++;
	if (rc > 0) {
		assert_int_equal(rc, n_expected);
		for (int i = 0; i < rc; i++)
			assert_string_equal(tok[i], row->tok[i]);
	}
	/* Never writes beyond max_tokens. */
	assert_null(tok[row->max_tokens]);
	free(line);
}

/* 64 tokens fit NFV_MAX_TOKENS, the 65th is -E2BIG; a trailing comment or
 * blank after the last allowed token is fine. */
static void
test_tokenize_limit(void **state)
{
	char line[NFV_MAX_TOKENS * 4 + 64], *tok[NFV_MAX_TOKENS];
	size_t o = 0;

	for (int i = 0; i < NFV_MAX_TOKENS; i++)
		o += (size_t)snprintf(line + o, sizeof(line) - o, "t%d ", i);
	snprintf(line + o, sizeof(line) - o, "  # trailing");
	assert_int_equal(nfv_tokenize(line, tok, NFV_MAX_TOKENS), NFV_MAX_TOKENS);
	assert_string_equal(tok[0], "t0");
	assert_string_equal(tok[NFV_MAX_TOKENS - 1], "t63");

	o = 0;
	for (int i = 0; i <= NFV_MAX_TOKENS; i++)
		o += (size_t)snprintf(line + o, sizeof(line) - o, "t%d ", i);
	assert_int_equal(nfv_tokenize(line, tok, NFV_MAX_TOKENS), -E2BIG);
}

/* nfv_parse_u32 */

struct u32_row {
	const char *s;
	uint32_t min;
	uint32_t max;
	int rc;
	uint32_t value;
};

static const struct u32_row u32_rows[] = {
	{ "0", 0, 10, 0, 0 },
	{ "10", 0, 10, 0, 10 },
	{ "11", 0, 10, -ERANGE, 0 },
	{ "0", 1, 10, -ERANGE, 0 },
	{ "1", 1, 1, 0, 1 },
	{ "010", 0, 100, 0, 10 },        /* decimal, not octal */
	{ "0008", 0, 100, 0, 8 },        /* "08" would be bad octal */
	{ "00000000000000000000000042", 0, 100, 0, 42 },
	{ "4294967295", 0, UINT32_MAX, 0, UINT32_MAX },
	{ "4294967296", 0, UINT32_MAX, -ERANGE, 0 },
	{ "18446744073709551615", 0, UINT32_MAX, -ERANGE, 0 },
	{ "18446744073709551616", 0, UINT32_MAX, -ERANGE, 0 },
	{ "99999999999999999999999999999", 0, UINT32_MAX, -ERANGE, 0 },
	{ "", 0, 10, -EINVAL, 0 },
	{ "+5", 0, 10, -EINVAL, 0 },
	{ "-1", 0, 10, -EINVAL, 0 },
	{ "-0", 0, 10, -EINVAL, 0 },
	{ " 5", 0, 10, -EINVAL, 0 },
	{ "5 ", 0, 10, -EINVAL, 0 },
	{ "5x", 0, 10, -EINVAL, 0 },
	{ "0x10", 0, 100, -EINVAL, 0 },
	{ "1e3", 0, 10000, -EINVAL, 0 },
	{ "1.0", 0, 10, -EINVAL, 0 },
	{ "x", 0, 10, -EINVAL, 0 },
	{ "\xd9\xa1", 0, 10, -EINVAL, 0 }, /* ARABIC-INDIC DIGIT ONE */
	{ NULL, 0, 10, -EINVAL, 0 },
};

static void
test_u32_row(void **state)
{
	const struct u32_row *row = *state;
	uint32_t v = 0xdeadbeef;
	int rc = nfv_parse_u32(row->s, row->min, row->max, &v);

	if (rc != row->rc)
		fail_msg("'%s' [%u, %u]: rc %d, expected %d", row->s ? row->s : "(null)", row->min,
			 row->max, rc, row->rc);
	if (rc == 0)
		assert_int_equal(v, row->value);
	else
		assert_int_equal(v, 0xdeadbeef); /* untouched on error */
}

/* nfv_parse_ip, nfv_parse_ip_family */

struct ip_row {
	const char *s;
	uint8_t family;     /* for nfv_parse_ip_family; 0: nfv_parse_ip */
	int rc;
	uint8_t expect_family;
	const char *canonical;
};

static const struct ip_row ip_rows[] = {
	{ "192.0.2.1", 0, 0, AF_INET, "192.0.2.1" },
	{ "0.0.0.0", 0, 0, AF_INET, "0.0.0.0" },
	{ "255.255.255.255", 0, 0, AF_INET, "255.255.255.255" },
	{ "256.0.0.1", 0, -EINVAL, 0, NULL },
	{ "1.2.3", 0, -EINVAL, 0, NULL },
	{ "1.2.3.4.5", 0, -EINVAL, 0, NULL },
	{ "01.2.3.4", 0, -EINVAL, 0, NULL },     /* no octal-looking octets */
	{ "1.2.3.4 ", 0, -EINVAL, 0, NULL },
	{ " 1.2.3.4", 0, -EINVAL, 0, NULL },
	{ "1.2.3.4/32", 0, -EINVAL, 0, NULL },
	{ "0x01020304", 0, -EINVAL, 0, NULL },
	{ "16909060", 0, -EINVAL, 0, NULL },
	{ "", 0, -EINVAL, 0, NULL },
	{ NULL, 0, -EINVAL, 0, NULL },
	{ "::", 0, 0, AF_INET6, "::" },
	{ "::1", 0, 0, AF_INET6, "::1" },
	{ "2001:db8::1", 0, 0, AF_INET6, "2001:db8::1" },
	{ "2001:DB8::A", 0, 0, AF_INET6, "2001:db8::a" },
	{ "2001:db8:0:0:0:0:0:1", 0, 0, AF_INET6, "2001:db8::1" },
	{ "2001:0db8:0000:0000:0000:ff00:0042:8329", 0, 0, AF_INET6, "2001:db8::ff00:42:8329" },
	{ "::ffff:192.0.2.1", 0, 0, AF_INET6, "::ffff:192.0.2.1" },
	{ "1:2:3:4:5:6:7:8", 0, 0, AF_INET6, "1:2:3:4:5:6:7:8" },
	{ "1:2:3:4:5:6:7::", 0, 0, AF_INET6, "1:2:3:4:5:6:7:0" },
	{ "1:2:3:4:5:6:7:8:9", 0, -EINVAL, 0, NULL },
	{ "2001:db8::1::2", 0, -EINVAL, 0, NULL },
	{ "2001:db8:::1", 0, -EINVAL, 0, NULL },
	{ "12345::", 0, -EINVAL, 0, NULL },
	{ "gggg::", 0, -EINVAL, 0, NULL },
	{ "fe80::1%eth0", 0, -EINVAL, 0, NULL },
	{ "[::1]", 0, -EINVAL, 0, NULL },
	{ "10.0.0.1", AF_INET, 0, AF_INET, "10.0.0.1" },
	{ "2001:db8::1", AF_INET6, 0, AF_INET6, "2001:db8::1" },
	{ "10.0.0.1", AF_INET6, -EAFNOSUPPORT, 0, NULL },
	{ "::ffff:10.0.0.1", AF_INET, -EAFNOSUPPORT, 0, NULL },
	{ "2001:db8::1", AF_INET, -EAFNOSUPPORT, 0, NULL },
	{ "nope", AF_INET, -EINVAL, 0, NULL },
};

static void
test_ip_row(void **state)
{
	const struct ip_row *row = *state;
	struct nfv_ip ip;
	char buf[INET6_ADDRSTRLEN];
	int rc;

	memset(&ip, 0xa5, sizeof(ip));
	if (row->family != 0)
		rc = nfv_parse_ip_family(row->s, row->family, &ip);
	else
		rc = nfv_parse_ip(row->s, &ip);
	if (rc != row->rc)
		fail_msg("'%s' (family %u): rc %d, expected %d", row->s ? row->s : "(null)",
			 row->family, rc, row->rc);
	if (rc != 0)
		return;
	assert_int_equal(ip.family, row->expect_family);
	assert_string_equal(nfv_ip_str(&ip, buf, sizeof(buf)), row->canonical);
	if (ip.family == AF_INET) {
		struct nfv_ip back;

		/* The bytes beyond the IPv4 address do not matter for equality. */
		memset(&back, 0, sizeof(back));
		back.family = AF_INET;
		back.v4 = ip.v4;
		assert_true(nfv_ip_equal(&ip, &back));
	}
}

/* nfv_parse_prefix */

struct prefix_row {
	const char *s;
	bool host_bits_ok;
	int rc;
	const char *canonical; /* nfv_prefix_str of the result */
};

static const struct prefix_row prefix_rows[] = {
	{ "10.0.0.0/8", false, 0, "10.0.0.0/8" },
	{ "10.1.0.0/8", false, -EDOM, NULL },
	{ "10.1.0.0/8", true, 0, "10.1.0.0/8" }, /* an interface address keeps its bits */
	{ "0.0.0.0/0", false, 0, "0.0.0.0/0" },
	{ "1.2.3.4/0", false, -EDOM, NULL },
	{ "1.2.3.4/0", true, 0, "1.2.3.4/0" },
	{ "1.2.3.4/32", false, 0, "1.2.3.4/32" },
	{ "1.2.3.4/31", false, 0, "1.2.3.4/31" },
	{ "1.2.3.5/31", false, -EDOM, NULL },
	{ "1.2.3.4/30", false, 0, "1.2.3.4/30" },
	{ "255.255.255.255/32", false, 0, "255.255.255.255/32" },
	{ "128.0.0.0/1", false, 0, "128.0.0.0/1" },
	{ "192.0.2.128/25", false, 0, "192.0.2.128/25" },
	{ "192.0.2.129/25", false, -EDOM, NULL },
	{ "1.2.3.4/33", false, -ERANGE, NULL },
	{ "1.2.3.4/33", true, -ERANGE, NULL },
	{ "1.2.3.4/128", true, -ERANGE, NULL },
	{ "1.2.3.4/4294967296", true, -ERANGE, NULL },
	{ "1.2.3.4/99999999999999999999999", true, -ERANGE, NULL },
	{ "1.2.3.4/032", false, -EINVAL, NULL },
	{ "10.0.0.0/08", false, -EINVAL, NULL },
	{ "0.0.0.0/00", false, -EINVAL, NULL },
	{ "1.2.3.4", false, -EINVAL, NULL },
	{ "1.2.3.4/", true, -EINVAL, NULL },
	{ "1.2.3.4/x", true, -EINVAL, NULL },
	{ "1.2.3.4/+8", true, -EINVAL, NULL },
	{ "1.2.3.4/-8", true, -EINVAL, NULL },
	{ "1.2.3.4/0x10", true, -EINVAL, NULL },
	{ "1.2.3.4/8/8", true, -EINVAL, NULL },
	{ "1.2.3.4//8", true, -EINVAL, NULL },
	{ "1.2.3.4/8 ", true, -EINVAL, NULL },
	{ "/8", true, -EINVAL, NULL },
	{ "/", true, -EINVAL, NULL },
	{ "", true, -EINVAL, NULL },
	{ "foo/8", true, -EINVAL, NULL },
	{ "1.2.3/8", true, -EINVAL, NULL },
	{ "01.2.3.4/8", true, -EINVAL, NULL },
	{ "1.2.3.4 /8", true, -EINVAL, NULL },
	{ NULL, true, -EINVAL, NULL },
	{ "2001:db8::/32", false, 0, "2001:db8::/32" },
	{ "2001:DB8:0:0::/64", false, 0, "2001:db8::/64" },
	{ "2001:db8::1/32", false, -EDOM, NULL },
	{ "2001:db8::1/32", true, 0, "2001:db8::1/32" },
	{ "2001:db8::/33", false, 0, "2001:db8::/33" },
	{ "2001:db8:8000::/33", false, 0, "2001:db8:8000::/33" },
	{ "2001:db8:8000::/32", false, -EDOM, NULL },
	{ "2001:db8::1/127", false, -EDOM, NULL },
	{ "2001:db8::2/127", false, 0, "2001:db8::2/127" },
	{ "fe80::/10", false, 0, "fe80::/10" },
	{ "fe80::/9", false, 0, "fe80::/9" },
	{ "fe80::/8", false, -EDOM, NULL },
	{ "::/0", false, 0, "::/0" },
	{ "::1/0", false, -EDOM, NULL },
	{ "::1/128", false, 0, "::1/128" },
	{ "::1/129", true, -ERANGE, NULL },
	{ "::/0128", true, -EINVAL, NULL },
	{ "::/064", true, -EINVAL, NULL },
	{ "::ffff:10.0.0.0/104", false, 0, "::ffff:10.0.0.0/104" },
	{ "2001:db8::1::/64", true, -EINVAL, NULL },
	{ "2001:db8:/32", true, -EINVAL, NULL },
	{ "2001:db8::/", true, -EINVAL, NULL },
	/* The longest valid text (49 characters), then over-long junk. */
	{ "0000:0000:0000:0000:0000:ffff:255.255.255.255/128", false, 0,
	  "::ffff:255.255.255.255/128" },
	{ "0000:0000:0000:0000:0000:0000:0000:0000/0000000000000000000000128", true, -EINVAL,
	  NULL },
	{ "1111:2222:3333:4444:5555:6666:7777:8888:9999:aaaa:bbbb:cccc:dddd:eeee:ffff/128",
	  true, -EINVAL, NULL },
	{ "1111:2222:3333:4444:5555:6666:7777:8888/128", false, 0,
	  "1111:2222:3333:4444:5555:6666:7777:8888/128" },
};

static void
test_prefix_row(void **state)
{
	const struct prefix_row *row = *state;
	struct nfv_prefix p;
	char buf[80], why[256];
	int rc;

	memset(&p, 0x5a, sizeof(p));
	rc = nfv_parse_prefix(row->s, row->host_bits_ok, &p);
	if (rc != row->rc) {
		snprintf(why, sizeof(why), "'%s' (host bits %s): rc %d, expected %d",
			 row->s ? row->s : "(null)", row->host_bits_ok ? "ok" : "refused", rc,
			 row->rc);
		nfv_test_verdict(0, why);
		return;
	}
	if (rc == 0) {
		assert_string_equal(nfv_prefix_str(&p, buf, sizeof(buf)), row->canonical);
		assert_in_range(p.len, 0, p.ip.family == AF_INET ? 32 : 128);
	}
}

/* nfv_parse_mac */

struct mac_row {
	const char *s;
	int rc;
	uint8_t bytes[6];
};

static const struct mac_row mac_rows[] = {
	{ "00:11:22:33:44:55", 0, { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55 } },
	{ "AA:bb:Cc:dD:ee:FF", 0, { 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff } },
	{ "02:00:00:00:00:01", 0, { 0x02, 0, 0, 0, 0, 0x01 } },
	{ "ff:ff:ff:ff:ff:ff", 0, { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff } },
	{ "aa:bb:cc:dd:ee:f", -EINVAL, { 0 } },
	{ "aa:bb:cc:dd:ee:fff", -EINVAL, { 0 } },
	{ "aa:bb:cc:dd:ee:ff:", -EINVAL, { 0 } },
	{ "aa:bb:cc:dd:ee", -EINVAL, { 0 } },
	{ "aa-bb-cc-dd-ee-ff", -EINVAL, { 0 } },
	{ "aabb.ccdd.eeff", -EINVAL, { 0 } },
	{ "aabbccddeeff", -EINVAL, { 0 } },
	{ "aa:bb:cc:dd:ee:gg", -EINVAL, { 0 } },
	{ "aa:bb:cc:dd:eeXff", -EINVAL, { 0 } },
	{ "0:1:2:3:4:5", -EINVAL, { 0 } },
	{ "0:01:02:03:04:05", -EINVAL, { 0 } },
	{ " a:bb:cc:dd:ee:ff", -EINVAL, { 0 } },
	{ "aa:bb:cc:dd:ee:f ", -EINVAL, { 0 } },
	{ "+a:bb:cc:dd:ee:ff", -EINVAL, { 0 } },
	{ "", -EINVAL, { 0 } },
	{ NULL, -EINVAL, { 0 } },
};

static void
test_mac_row(void **state)
{
	const struct mac_row *row = *state;
	struct rte_ether_addr mac;
	int rc;

	memset(&mac, 0x77, sizeof(mac));
	rc = nfv_parse_mac(row->s, &mac);
	if (rc != row->rc)
		fail_msg("'%s': rc %d, expected %d", row->s ? row->s : "(null)", rc, row->rc);
	if (rc == 0)
		assert_memory_equal(mac.addr_bytes, row->bytes, 6);
}

/* nfv_valid_name */

struct name_row {
	const char *s;
	bool valid;
};

static const struct name_row name_rows[] = {
	{ "a", true },
	{ "eth0", true },
	{ "A_b-c.d", true },
	{ "wan.100", true },
	{ "abcdefghijklmnopqrstuvwxyz01234", true },   /* 31 */
	{ "abcdefghijklmnopqrstuvwxyz012345", false }, /* 32 */
	{ "", false },
	{ "1eth", false },
	{ "_a", false },
	{ "-a", false },
	{ ".a", false },
	{ "a b", false },
	{ "a/b", false },
	{ "a:b", false }, /* ':' separates NAME:Q in "worker set" */
	{ "a,b", false }, /* ',' separates queues in "worker set" */
	{ "a\"b", false },
	{ "a#b", false },
	{ "\xc3\xa9t\xc3\xa9", false },
	{ "a\tb", false },
};

static void
test_name_row(void **state)
{
	const struct name_row *row = *state;

	if (nfv_valid_name(row->s) != row->valid)
		fail_msg("'%s': expected %s", row->s, row->valid ? "valid" : "invalid");
}

/* nfv_prefix_mask */

struct mask_row {
	const char *in;   /* parsed with host bits allowed */
	const char *out;  /* after nfv_prefix_mask */
};

static const struct mask_row mask_rows[] = {
	{ "10.1.2.3/8", "10.0.0.0/8" },
	{ "10.1.2.3/0", "0.0.0.0/0" },
	{ "10.1.2.3/32", "10.1.2.3/32" },
	{ "10.1.2.255/31", "10.1.2.254/31" },
	{ "255.255.255.255/1", "128.0.0.0/1" },
	{ "192.0.2.200/25", "192.0.2.128/25" },
	{ "172.31.255.255/12", "172.16.0.0/12" },
	{ "2001:db8:ffff:ffff::1/32", "2001:db8::/32" },
	{ "2001:db8::1/64", "2001:db8::/64" },
	{ "2001:db8::1/128", "2001:db8::1/128" },
	{ "2001:db8::ffff/127", "2001:db8::fffe/127" },
	{ "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/0", "::/0" },
	{ "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/1", "8000::/1" },
	{ "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/9", "ff80::/9" },
	{ "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/65", "ffff:ffff:ffff:ffff:8000::/65" },
	{ "fe80::1:2:3:4/10", "fe80::/10" },
};

static void
test_mask_row(void **state)
{
	const struct mask_row *row = *state;
	struct nfv_prefix p;
	char buf[80];

	assert_int_equal(nfv_parse_prefix(row->in, true, &p), 0);
	nfv_prefix_mask(&p);
	assert_string_equal(nfv_prefix_str(&p, buf, sizeof(buf)), row->out);
	/* Masking is idempotent and the result parses as a route. */
	nfv_prefix_mask(&p);
	assert_string_equal(nfv_prefix_str(&p, buf, sizeof(buf)), row->out);
	assert_int_equal(nfv_parse_prefix(row->out, false, &p), 0);
}

/* Every length: the all-ones address masked has exactly len leading ones. */
static void
test_mask_every_length(void **state)
{
	for (unsigned int len = 0; len <= 32; len++) {
		struct nfv_prefix p = { .ip = { .family = AF_INET, .v4 = 0xffffffffu },
					.len = (uint8_t)len };
		uint32_t h;

		nfv_prefix_mask(&p);
		h = rte_be_to_cpu_32(p.ip.v4);
		assert_int_equal(__builtin_popcount(h), len);
		assert_true(len == 0 || (h >> (32 - len)) == (uint32_t)((1ull << len) - 1));
	}
	for (unsigned int len = 0; len <= 128; len++) {
		struct nfv_prefix p = { .ip = { .family = AF_INET6 }, .len = (uint8_t)len };
		unsigned int ones = 0;

		memset(p.ip.v6, 0xff, 16);
		nfv_prefix_mask(&p);
		for (unsigned int b = 0; b < 128; b++) {
			bool set = p.ip.v6[b / 8] & (0x80 >> (b % 8));

			assert_int_equal(set, b < len);
			ones += set;
		}
		assert_int_equal(ones, len);
	}
}

/* nfv_prefix_contains */

struct contains_row {
	const char *prefix; /* parsed with host bits allowed */
	const char *ip;
	bool contains;
};

static const struct contains_row contains_rows[] = {
	{ "10.0.0.0/8", "10.255.1.1", true },
	{ "10.0.0.0/8", "10.0.0.0", true },
	{ "10.0.0.0/8", "11.0.0.0", false },
	{ "10.0.0.0/8", "9.255.255.255", false },
	{ "10.9.9.9/8", "10.1.1.1", true }, /* host bits of the prefix are ignored */
	{ "192.0.2.1/32", "192.0.2.1", true },
	{ "192.0.2.1/32", "192.0.2.2", false },
	{ "192.0.2.0/31", "192.0.2.1", true },
	{ "192.0.2.0/31", "192.0.2.2", false },
	{ "0.0.0.0/0", "255.255.255.255", true },
	{ "0.0.0.0/0", "::", false },       /* never across families */
	{ "::/0", "0.0.0.0", false },
	{ "::/0", "2001:db8::1", true },
	{ "2001:db8::/32", "2001:db8:ffff::1", true },
	{ "2001:db8::/32", "2001:db9::", false },
	{ "2001:db8::/33", "2001:db8:7fff::1", true },
	{ "2001:db8::/33", "2001:db8:8000::", false },
	{ "2001:db8::1/128", "2001:db8::1", true },
	{ "2001:db8::1/128", "2001:db8::", false },
	{ "::ffff:10.0.0.0/104", "10.0.0.1", false },
	{ "::ffff:10.0.0.0/104", "::ffff:10.1.2.3", true },
};

static void
test_contains_row(void **state)
{
	const struct contains_row *row = *state;
	struct nfv_prefix p, before;
	struct nfv_ip ip;

	assert_int_equal(nfv_parse_prefix(row->prefix, true, &p), 0);
	assert_int_equal(nfv_parse_ip(row->ip, &ip), 0);
	before = p;
	if (nfv_prefix_contains(&p, &ip) != row->contains)
		fail_msg("%s contains %s: expected %s", row->prefix, row->ip,
			 row->contains ? "yes" : "no");
	assert_memory_equal(&p, &before, sizeof(p)); /* const really is const */
}

/* nfv_prefix_str round trips: random prefixes of every family and length. */
static void
test_prefix_round_trip_random(void **state)
{
	for (unsigned int i = 0; i < 20000; i++) {
		struct nfv_prefix p, q;
		char buf[80], buf2[80];

		memset(&p, 0, sizeof(p));
		if (i & 1) {
			p.ip.family = AF_INET;
			p.ip.v4 = (rte_be32_t)nfv_test_rand();
			p.len = (uint8_t)(nfv_test_rand() % 33);
		} else {
			uint64_t a = nfv_test_rand(), b = nfv_test_rand();

			p.ip.family = AF_INET6;
			/* Zero runs now and then, to get "::" forms. */
			if (i % 6 == 0)
				a &= 0xffff00000000ffffull;
			if (i % 10 == 0)
				b = 0;
			memcpy(p.ip.v6, &a, 8);
			memcpy(p.ip.v6 + 8, &b, 8);
			p.len = (uint8_t)(nfv_test_rand() % 129);
		}
		/* With host bits: an interface address survives the trip. */
		nfv_prefix_str(&p, buf, sizeof(buf));
		assert_int_equal(nfv_parse_prefix(buf, true, &q), 0);
		assert_true(nfv_ip_equal(&p.ip, &q.ip));
		assert_int_equal(p.len, q.len);
		/* Masked: a route survives it and is canonical. */
		nfv_prefix_mask(&p);
		nfv_prefix_str(&p, buf, sizeof(buf));
		if (nfv_parse_prefix(buf, false, &q) != 0)
			fail_msg("masked prefix %s refused as a route", buf);
		assert_true(nfv_ip_equal(&p.ip, &q.ip));
		assert_int_equal(p.len, q.len);
		assert_string_equal(nfv_prefix_str(&q, buf2, sizeof(buf2)), buf);
		assert_true(nfv_prefix_contains(&p, &q.ip));
	}
}

static void
test_ip_equal(void **state)
{
	struct nfv_ip a, b;

	assert_int_equal(nfv_parse_ip("10.0.0.1", &a), 0);
	assert_int_equal(nfv_parse_ip("10.0.0.1", &b), 0);
	assert_true(nfv_ip_equal(&a, &b));
	b.v4 = RTE_BE32(0x0a000002);
	assert_false(nfv_ip_equal(&a, &b));
	assert_int_equal(nfv_parse_ip("::a00:1", &b), 0); /* same low bytes, other family */
	assert_false(nfv_ip_equal(&a, &b));
	assert_int_equal(nfv_parse_ip("2001:db8::1", &a), 0);
	assert_int_equal(nfv_parse_ip("2001:db8:0::1", &b), 0);
	assert_true(nfv_ip_equal(&a, &b));
	b.v6[15] ^= 1;
	assert_false(nfv_ip_equal(&a, &b));
}

/* nfv_ip_unusable: what can be neither an interface address nor a neighbor. */

struct unusable_row {
	const char *ip;
	const char *why; /* a word of the reason, or NULL: usable */
};

static const struct unusable_row unusable_rows[] = {
	{ "10.0.0.1", NULL },
	{ "1.0.0.0", NULL },
	{ "126.255.255.255", NULL },
	{ "128.0.0.1", NULL },
	{ "223.255.255.254", NULL },
	{ "0.0.0.0", "unspecified" },
	{ "0.1.2.3", "reserved" },
	{ "127.0.0.1", "loopback" },
	{ "127.255.255.255", "loopback" },
	{ "224.0.0.1", "multicast" },
	{ "239.255.255.255", "multicast" },
	{ "240.0.0.1", "reserved" },
	{ "255.255.255.254", "reserved" },
	{ "255.255.255.255", "broadcast" },
	{ "2001:db8::1", NULL },
	{ "fe80::1", NULL },
	{ "::2", NULL },
	{ "::", "unspecified" },
	{ "::1", "loopback" },
	{ "ff02::1", "multicast" },
	{ "ff00::", "multicast" },
	{ "::ffff:10.0.0.1", "IPv4-mapped" },
};

static void
test_unusable_row(void **state)
{
	const struct unusable_row *row = *state;
	struct nfv_ip ip;
	const char *why;

	assert_int_equal(nfv_parse_ip(row->ip, &ip), 0);
	why = nfv_ip_unusable(&ip);
	if (row->why == NULL) {
		assert_null(why);
	} else {
		assert_non_null(why);
		assert_non_null(strstr(why, row->why));
	}
}

/* nfv_cmdfile: lines of a file written here, read back one at a time. */

struct cmdfile_row {
	const char *name;
	const char *text;   /* NULL: a generated line (see len) */
	size_t text_len;    /* bytes of text (it may hold NULs) */
	size_t len;         /* generated: one line of len 'x' and a newline */
	bool newline;       /* generated: end it with a newline */
	int lines;          /* lines read before the result */
	int rc;             /* 0: end of file; else the error */
	const char *err;    /* a word of the error */
};

#define TEXT(s) s, sizeof(s) - 1

static const struct cmdfile_row cmdfile_rows[] = {
	{ "empty file", TEXT(""), 0, false, 0, 0, NULL },
	{ "two lines", TEXT("a\nb\n"), 0, false, 2, 0, NULL },
	{ "no final newline", TEXT("a\nb"), 0, false, 2, 0, NULL },
	{ "CRLF kept for the tokenizer", TEXT("a\r\n"), 0, false, 1, 0, NULL },
	{ "NUL in line 2", TEXT("a\nb\0c\n"), 0, false, 1, -EINVAL, "line 2 contains a NUL" },
	{ "a line of the limit", NULL, 0, NFV_CMDFILE_LINE_MAX, true, 1, 0, NULL },
	{ "the limit, no newline", NULL, 0, NFV_CMDFILE_LINE_MAX, false, 1, 0, NULL },
	{ "a byte over", NULL, 0, NFV_CMDFILE_LINE_MAX + 1, true, 0, -E2BIG,
	  "line 1 is longer than 65536" },
	{ "a byte over, no newline", NULL, 0, NFV_CMDFILE_LINE_MAX + 1, false, 0, -E2BIG,
	  "longer" },
	{ "a megabyte line", NULL, 0, 1 << 20, true, 0, -E2BIG, "longer" },
};

static void
test_cmdfile_row(void **state)
{
	const struct cmdfile_row *row = *state;
	char path[] = "/tmp/nfv-cmdfile-XXXXXX", err[256] = "", *line;
	struct nfv_cmdfile cf;
	int fd = mkstemp(path), lines = 0, rc;
	FILE *f;

	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	if (row->text != NULL) {
		assert_int_equal(fwrite(row->text, 1, row->text_len, f), row->text_len);
	} else {
		for (size_t i = 0; i < row->len; i++)
			fputc('x', f);
		if (row->newline)
			fputc('\n', f);
	}
	fclose(f);
	assert_int_equal(nfv_cmdfile_open(&cf, path, err, sizeof(err)), 0);
	while ((rc = nfv_cmdfile_next(&cf, &line, err, sizeof(err))) > 0) {
		lines++;
		if (row->text == NULL)
			assert_int_equal(strlen(line), row->len + row->newline);
	}
	nfv_cmdfile_close(&cf);
	unlink(path);
	assert_int_equal(lines, row->lines);
	assert_int_equal(rc, row->rc);
	if (row->err != NULL)
		assert_non_null(strstr(err, row->err));
}

/* Only regular files are opened: a directory or a FIFO (which could block)
 * or a device (which could never end) is refused at once. */
static void
test_cmdfile_not_regular(void **state)
{
	char dir[] = "/tmp/nfv-cmdfile-dir-XXXXXX", fifo[64], err[256];
	struct nfv_cmdfile cf;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(nfv_cmdfile_open(&cf, dir, err, sizeof(err)), -EISDIR);
	assert_non_null(strstr(err, "is a directory"));
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(nfv_cmdfile_open(&cf, fifo, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not a regular file"));
	assert_int_equal(nfv_cmdfile_open(&cf, "/dev/zero", err, sizeof(err)), -EINVAL);
	assert_int_equal(nfv_cmdfile_open(&cf, "/nonexistent/x", err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "/nonexistent/x"));
	unlink(fifo);
	rmdir(dir);
}

int
main(void)
{
	struct nfv_test_list l = { 0 };

	nfv_test_seed();
	for (size_t i = 0; i < RTE_DIM(tokenize_rows); i++) {
		char name[160];

		snprintf(name, sizeof(name), "[%s] max %d", tokenize_rows[i].line,
			 tokenize_rows[i].max_tokens);
		nfv_test_add_row(&l, "tokenize", name, test_tokenize_row,
			     (void *)&tokenize_rows[i]);
	}
	nfv_test_add(&l, "tokenize: 64 tokens fit, 65 do not", test_tokenize_limit, NULL);
	for (size_t i = 0; i < RTE_DIM(u32_rows); i++) {
		char name[160];

		snprintf(name, sizeof(name), "%s in [%u, %u]",
			 u32_rows[i].s ? u32_rows[i].s : "(null)", u32_rows[i].min,
			 u32_rows[i].max);
		nfv_test_add_row(&l, "u32", name, test_u32_row, (void *)&u32_rows[i]);
	}
	for (size_t i = 0; i < RTE_DIM(ip_rows); i++) {
		char name[160];

		snprintf(name, sizeof(name), "%s%s", ip_rows[i].s ? ip_rows[i].s : "(null)",
			 ip_rows[i].family == AF_INET ? " (IPv4 only)" :
			 ip_rows[i].family == AF_INET6 ? " (IPv6 only)" : "");
		nfv_test_add_row(&l, "ip", name, test_ip_row, (void *)&ip_rows[i]);
	}
	for (size_t i = 0; i < RTE_DIM(prefix_rows); i++) {
		char name[160];

		snprintf(name, sizeof(name), "%s%s", prefix_rows[i].s ? prefix_rows[i].s : "(null)",
			 prefix_rows[i].host_bits_ok ? " (address)" : " (route)");
		nfv_test_add_row(&l, "prefix", name, test_prefix_row,
			     (void *)&prefix_rows[i]);
	}
	NFV_TEST_ROWS(&l, "mac", test_mac_row, mac_rows, s);
	NFV_TEST_ROWS(&l, "name", test_name_row, name_rows, s);
	NFV_TEST_ROWS(&l, "mask", test_mask_row, mask_rows, in);
	nfv_test_add(&l, "mask: every length, both families", test_mask_every_length, NULL);
	for (size_t i = 0; i < RTE_DIM(contains_rows); i++) {
		char name[160];

		snprintf(name, sizeof(name), "%s %s %s", contains_rows[i].prefix,
			 contains_rows[i].contains ? "has" : "lacks", contains_rows[i].ip);
		nfv_test_add_row(&l, "contains", name, test_contains_row,
			     (void *)&contains_rows[i]);
	}
	nfv_test_add(&l, "prefix_str: random round trips", test_prefix_round_trip_random, NULL);
	nfv_test_add(&l, "ip_equal", test_ip_equal, NULL);
	NFV_TEST_ROWS(&l, "unusable", test_unusable_row, unusable_rows, ip);
	NFV_TEST_ROWS(&l, "cmdfile", test_cmdfile_row, cmdfile_rows, name);
	nfv_test_add(&l, "cmdfile: only regular files", test_cmdfile_not_regular, NULL);
	return nfv_test_run("parse", &l, NULL, NULL);
}
