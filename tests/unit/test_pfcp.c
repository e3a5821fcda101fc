/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The UPF's PFCP codec (src/modules/upf/pfcp/pfcp.c) on byte strings: a
 * message scapy's contrib.pfcp built decodes to the values it was built
 * with; what the writer encodes decodes back to the same rules; every
 * truncation of a message is refused (header) or decoded without reading
 * past its end and never accepted (body); random bytes never crash the
 * decoder; mutations of valid messages (truncated, bytes and bits changed,
 * lengths set, IEs inserted and repeated), each placed against a page that
 * cannot be read, decode without a read past their end and with results
 * that hold together; a writer out of room says so.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "modules/upf/pfcp/pfcp.h"

static uint32_t
ip4(const char *s)
{
	struct in_addr a;

	inet_pton(AF_INET, s, &a);
	return a.s_addr;
}

static size_t
unhex(const char *h, uint8_t *out)
{
	size_t n = strlen(h) / 2;

	for (size_t i = 0; i < n; i++) {
		unsigned int b;

		sscanf(h + 2 * i, "%2x", &b);
		out[i] = (uint8_t)b;
	}
	return n;
}

/*
 * PFCP(version=1, S=1, seid=0, seq=5) / PFCPSessionEstablishmentRequest(IE_list=[
 *   IE_NodeId(id_type=0, ipv4='10.0.0.9'),
 *   IE_FSEID(v4=1, seid=0x1122, ipv4='10.0.0.9'),
 *   IE_CreatePDR(IE_list=[IE_PDR_Id(id=1), IE_Precedence(precedence=100),
 *     IE_PDI(IE_list=[IE_SourceInterface(interface=0),
 *                     IE_FTEID(V4=1, TEID=0x1234, ipv4='192.0.2.1'),
 *                     IE_UE_IP_Address(V4=1, SD=0, ipv4='10.45.0.2')]),
 *     IE_OuterHeaderRemoval(header=0), IE_FAR_Id(id=1)]),
 *   IE_CreateFAR(IE_list=[IE_FAR_Id(id=1), IE_ApplyAction(FORW=1),
 *     IE_ForwardingParameters(IE_list=[IE_DestinationInterface(interface=1),
 *       IE_OuterHeaderCreation(GTPUUDPIPV4=1, TEID=0x55, ipv4='192.0.2.10')])])])
 * as scapy 2.5 (python3-scapy) serialises it.
 */
static const char scapy_est[] =
	"2132008c000000000000000000000500003c0005000a0000090039000d0200000000000011220a"
	"0000090001003a003800020001001d0004000000640002001b0014000100001500090100001234"
	"c0000201005d0005020a2d0002005f000100006c00040000000100030024006c00040000000100"
	"2c00010200040013002a0001010054000a010000000055c000020a";

static struct pfcp_msg m;

static void
test_scapy_message(void **state)
{
	uint8_t buf[512];
	size_t len = unhex(scapy_est, buf);
	struct pfcp_header h;

	(void)state;
	assert_int_equal(pfcp_header_parse(buf, len, &h), 0);
	assert_true(h.has_seid);
	assert_int_equal(h.type, PFCP_SESSION_EST_REQ);
	assert_int_equal(h.seq, 5);
	assert_int_equal(h.header_len, 16);
	assert_int_equal(pfcp_decode(h.type, buf + h.header_len, len - h.header_len, &m),
			 PFCP_CAUSE_ACCEPTED);
	assert_true(m.has_node_id);
	assert_int_equal(m.node_id.type, 0);
	assert_memory_equal(m.node_id.v, &(uint32_t){ ip4("10.0.0.9") }, 4);
	assert_true(m.has_fseid);
	assert_int_equal(m.cp_seid, 0x1122);
	assert_int_equal(m.cp_ipv4, ip4("10.0.0.9"));
	assert_int_equal(m.n_create_pdr, 1);
	assert_int_equal(m.create_pdr[0].id, 1);
	assert_int_equal(m.create_pdr[0].precedence, 100);
	assert_int_equal(m.create_pdr[0].src_iface, PFCP_IF_ACCESS);
	assert_true(m.create_pdr[0].has_fteid);
	assert_int_equal(m.create_pdr[0].fteid.teid, 0x1234);
	assert_int_equal(m.create_pdr[0].fteid.ipv4, ip4("192.0.2.1"));
	assert_true(m.create_pdr[0].has_ue_ip);
	assert_false(m.create_pdr[0].ue_ip_dst);
	assert_int_equal(m.create_pdr[0].ue_ip, ip4("10.45.0.2"));
	assert_true(m.create_pdr[0].has_ohr);
	assert_int_equal(m.create_pdr[0].ohr, PFCP_OHR_GTPU_UDP_IPV4);
	assert_int_equal(m.create_pdr[0].far_id, 1);
	assert_int_equal(m.n_create_far, 1);
	assert_int_equal(m.create_far[0].id, 1);
	assert_int_equal(m.create_far[0].action, PFCP_ACTION_FORW);
	assert_int_equal(m.create_far[0].dst_iface, PFCP_IF_CORE);
	assert_true(m.create_far[0].has_ohc);
	assert_int_equal(m.create_far[0].ohc_desc, PFCP_OHC_GTPU_UDP_IPV4);
	assert_int_equal(m.create_far[0].ohc_teid, 0x55);
	assert_int_equal(m.create_far[0].ohc_ipv4, ip4("192.0.2.10"));
}

/* A modification the writer encodes: every kind of rule change. */
static size_t
encode_mod(uint8_t *buf, size_t cap)
{
	struct pfcp_writer w;
	struct pfcp_pdr p = {
		.id = 7, .has_precedence = true, .precedence = 255, .has_pdi = true,
		.has_src_iface = true, .src_iface = PFCP_IF_CORE, .has_ue_ip = true,
		.ue_ip_dst = true, .ue_ip = ip4("10.45.0.9"), .has_far_id = true, .far_id = 70,
	};
	struct pfcp_pdr u = {
		.id = 8, .has_pdi = true, .has_src_iface = true, .src_iface = PFCP_IF_ACCESS,
		.has_fteid = true, .fteid = { .ch = true, .v4 = true },
	};
	struct pfcp_far f = {
		.id = 70, .has_action = true, .action = PFCP_ACTION_BUFF,
	};
	struct pfcp_far uf = {
		.id = 71, .has_action = true, .action = PFCP_ACTION_FORW, .has_fwd = true,
		.has_dst_iface = true, .dst_iface = PFCP_IF_ACCESS, .has_ohc = true,
		.ohc_desc = PFCP_OHC_GTPU_UDP_IPV4, .ohc_teid = 0xdeadbeef,
		.ohc_ipv4 = ip4("192.0.2.10"),
	};
	size_t g;

	pfcp_w_init(&w, buf, cap);
	pfcp_w_header(&w, PFCP_SESSION_MOD_REQ, true, 0x0102030405060708ull, 0xabcdef);
	pfcp_w_pdr(&w, PFCP_IE_CREATE_PDR, &p);
	pfcp_w_pdr(&w, PFCP_IE_UPDATE_PDR, &u);
	pfcp_w_far(&w, PFCP_IE_CREATE_FAR, &f);
	pfcp_w_far(&w, PFCP_IE_UPDATE_FAR, &uf);
	g = pfcp_w_group_begin(&w, PFCP_IE_REMOVE_PDR);
	pfcp_w_u16(&w, PFCP_IE_PDR_ID, 3);
	pfcp_w_group_end(&w, g);
	g = pfcp_w_group_begin(&w, PFCP_IE_REMOVE_FAR);
	pfcp_w_u32(&w, PFCP_IE_FAR_ID, 30);
	pfcp_w_group_end(&w, g);
	/* An IE the decoder does not know is skipped (7.6.2). */
	pfcp_w_u32(&w, 999, 1);
	return pfcp_w_finish(&w);
}

static void
test_round_trip(void **state)
{
	uint8_t buf[512];
	size_t len = encode_mod(buf, sizeof(buf));
	struct pfcp_header h;

	(void)state;
	assert_true(len > 16);
	assert_int_equal(pfcp_header_parse(buf, len, &h), 0);
	assert_int_equal(h.type, PFCP_SESSION_MOD_REQ);
	assert_int_equal(h.seid, 0x0102030405060708ull);
	assert_int_equal(h.seq, 0xabcdef);
	assert_int_equal(pfcp_decode(h.type, buf + 16, len - 16, &m), PFCP_CAUSE_ACCEPTED);
	assert_int_equal(m.n_create_pdr, 1);
	assert_int_equal(m.create_pdr[0].id, 7);
	assert_int_equal(m.create_pdr[0].precedence, 255);
	assert_int_equal(m.create_pdr[0].src_iface, PFCP_IF_CORE);
	assert_true(m.create_pdr[0].ue_ip_dst);
	assert_int_equal(m.create_pdr[0].ue_ip, ip4("10.45.0.9"));
	assert_int_equal(m.create_pdr[0].far_id, 70);
	assert_false(m.create_pdr[0].has_fteid);
	assert_int_equal(m.n_update_pdr, 1);
	assert_int_equal(m.update_pdr[0].id, 8);
	assert_true(m.update_pdr[0].has_fteid && m.update_pdr[0].fteid.ch);
	assert_false(m.update_pdr[0].has_precedence);
	assert_int_equal(m.n_create_far, 1);
	assert_int_equal(m.create_far[0].action, PFCP_ACTION_BUFF);
	assert_false(m.create_far[0].has_fwd);
	assert_int_equal(m.n_update_far, 1);
	assert_int_equal(m.update_far[0].id, 71);
	assert_true(m.update_far[0].has_fwd && m.update_far[0].has_ohc);
	assert_int_equal(m.update_far[0].ohc_teid, 0xdeadbeef);
	assert_int_equal(m.update_far[0].ohc_ipv4, ip4("192.0.2.10"));
	assert_int_equal(m.update_far[0].dst_iface, PFCP_IF_ACCESS);
	assert_int_equal(m.n_remove_pdr, 1);
	assert_int_equal(m.remove_pdr[0], 3);
	assert_int_equal(m.n_remove_far, 1);
	assert_int_equal(m.remove_far[0], 30);
}

static void
test_truncated(void **state)
{
	uint8_t buf[512], *copy;
	size_t len = unhex(scapy_est, buf);
	struct pfcp_header h;

	(void)state;
	for (size_t n = 0; n < len; n++) {
		/* The datagram cut short: its header's length no longer matches. */
		copy = malloc(n > 0 ? n : 1);
		memcpy(copy, buf, n);
		assert_int_equal(pfcp_header_parse(copy, n, &h), -1);
		free(copy);
	}
	for (size_t n = 0; n < len - 16; n++) {
		/* The body cut short (exactly sized, so a read past its end is
		 * one past the allocation): refused, whatever the cause. */
		copy = malloc(n > 0 ? n : 1);
		memcpy(copy, buf + 16, n);
		assert_int_not_equal(pfcp_decode(PFCP_SESSION_EST_REQ, copy, n, &m),
				     PFCP_CAUSE_ACCEPTED);
		free(copy);
	}
	/* An IE whose length runs past its group: Invalid Length. */
	buf[len - 14 + 2] = 0x00; /* the last IE (OHC, 14 bytes): 255 long */
	buf[len - 14 + 3] = 0xff;
	assert_int_equal(pfcp_decode(PFCP_SESSION_EST_REQ, buf + 16, len - 16, &m),
			 PFCP_CAUSE_INVALID_LENGTH);
	/* Version 2: "version not supported". */
	unhex(scapy_est, buf);
	buf[0] = (uint8_t)(2 << 5 | 1);
	assert_int_equal(pfcp_header_parse(buf, len, &h), -2);
}

static void
test_missing_and_incorrect(void **state)
{
	uint8_t buf[64] = { 0 };
	struct pfcp_writer w;
	size_t g, pdi;

	(void)state;
	/* A heartbeat without its recovery time stamp. */
	assert_int_equal(pfcp_decode(PFCP_HEARTBEAT_REQ, buf, 0, &m),
			 PFCP_CAUSE_MANDATORY_IE_MISSING);
	assert_int_equal(m.offending_ie, PFCP_IE_RECOVERY_TIME_STAMP);
	/* A Create PDR without precedence. */
	pfcp_w_init(&w, buf, sizeof(buf));
	g = pfcp_w_group_begin(&w, PFCP_IE_CREATE_PDR);
	pfcp_w_u16(&w, PFCP_IE_PDR_ID, 1);
	pdi = pfcp_w_group_begin(&w, PFCP_IE_PDI);
	pfcp_w_u8(&w, PFCP_IE_SOURCE_INTERFACE, 0);
	pfcp_w_group_end(&w, pdi);
	pfcp_w_group_end(&w, g);
	assert_false(w.overflow);
	assert_int_equal(pfcp_decode(PFCP_SESSION_MOD_REQ, buf, w.len, &m),
			 PFCP_CAUSE_MANDATORY_IE_MISSING);
	assert_int_equal(m.offending_ie, PFCP_IE_PRECEDENCE);
	/* A PDR ID one byte long: incorrect. */
	pfcp_w_init(&w, buf, sizeof(buf));
	g = pfcp_w_group_begin(&w, PFCP_IE_REMOVE_PDR);
	pfcp_w_u8(&w, PFCP_IE_PDR_ID, 1);
	pfcp_w_group_end(&w, g);
	assert_int_equal(pfcp_decode(PFCP_SESSION_MOD_REQ, buf, w.len, &m),
			 PFCP_CAUSE_MANDATORY_IE_INCORRECT);
	assert_int_equal(m.offending_ie, PFCP_IE_PDR_ID);
	/* More Remove PDRs than a message may carry. */
	{
		uint8_t big[1024];

		pfcp_w_init(&w, big, sizeof(big));
		for (unsigned int i = 0; i <= PFCP_RULES_MAX; i++) {
			g = pfcp_w_group_begin(&w, PFCP_IE_REMOVE_PDR);
			pfcp_w_u16(&w, PFCP_IE_PDR_ID, (uint16_t)i);
			pfcp_w_group_end(&w, g);
		}
		assert_int_equal(pfcp_decode(PFCP_SESSION_MOD_REQ, big, w.len, &m),
				 PFCP_CAUSE_NO_RESOURCES);
	}
}

static void
test_random_bytes(void **state)
{
	uint8_t *buf;
	struct pfcp_header h;
	unsigned int seed = getenv("NFV_TEST_SEED") ? (unsigned int)atoi(getenv("NFV_TEST_SEED")) :
			    12345;

	(void)state;
	srand(seed);
	for (unsigned int i = 0; i < 20000; i++) {
		size_t n = (size_t)(rand() % 200);

		buf = malloc(n > 0 ? n : 1);
		for (size_t k = 0; k < n; k++)
			buf[k] = (uint8_t)rand();
		/* Mostly small type / length values, so that IEs nest. */
		for (size_t k = 0; k + 4 <= n && (rand() & 1); k += 4) {
			buf[k] = 0;
			buf[k + 1] = (uint8_t)(rand() % 110);
			buf[k + 2] = 0;
			buf[k + 3] = (uint8_t)(rand() % 40);
		}
		(void)pfcp_header_parse(buf, n, &h);
		(void)pfcp_decode((uint8_t)(50 + rand() % 6), buf, n, &m);
		free(buf);
	}
}

/* A Forwarding Parameters with two Outer Header Creations, the second
 * not GTP-U/UDP/IPv4: it replaces the first whole (no TEID or address
 * of the first one left behind). */
static void
test_second_ohc(void **state)
{
	uint8_t buf[128];
	const uint8_t gtpu[10] = { 0x01, 0x00, 0, 0, 0, 5, 192, 0, 2, 10 };
	const uint8_t other[2] = { 0x04, 0x00 }; /* UDP/IPv4 */
	struct pfcp_writer w;
	size_t g, fp;

	(void)state;
	pfcp_w_init(&w, buf, sizeof(buf));
	g = pfcp_w_group_begin(&w, PFCP_IE_CREATE_FAR);
	pfcp_w_u32(&w, PFCP_IE_FAR_ID, 1);
	pfcp_w_u8(&w, PFCP_IE_APPLY_ACTION, PFCP_ACTION_FORW);
	fp = pfcp_w_group_begin(&w, PFCP_IE_FORWARDING_PARAMETERS);
	pfcp_w_u8(&w, PFCP_IE_DESTINATION_INTERFACE, PFCP_IF_ACCESS);
	pfcp_w_ie(&w, PFCP_IE_OUTER_HEADER_CREATION, gtpu, sizeof(gtpu));
	pfcp_w_ie(&w, PFCP_IE_OUTER_HEADER_CREATION, other, sizeof(other));
	pfcp_w_group_end(&w, fp);
	pfcp_w_group_end(&w, g);
	assert_false(w.overflow);
	assert_int_equal(pfcp_decode(PFCP_SESSION_MOD_REQ, buf, w.len, &m), PFCP_CAUSE_ACCEPTED);
	assert_int_equal(m.n_create_far, 1);
	assert_int_equal(m.create_far[0].ohc_desc, 0x0400);
	assert_int_equal(m.create_far[0].ohc_teid, 0);
	assert_int_equal(m.create_far[0].ohc_ipv4, 0);
}

/* ---- mutations ------------------------------------------------------------------------- */

/* A message the writer encodes: an association setup (FQDN node id). */
static size_t
encode_assoc(uint8_t *buf, size_t cap)
{
	struct pfcp_writer w;
	struct pfcp_node_id id = { .type = 2, .len = 12, .v = "\x03smf\x07example" };

	pfcp_w_init(&w, buf, cap);
	pfcp_w_header(&w, PFCP_ASSOC_SETUP_REQ, false, 0, 9);
	pfcp_w_node_id(&w, &id);
	pfcp_w_u32(&w, PFCP_IE_RECOVERY_TIME_STAMP, 3900000000u);
	return pfcp_w_finish(&w);
}

/* An establishment with as many rules as a message may carry. */
static size_t
encode_full(uint8_t *buf, size_t cap)
{
	struct pfcp_writer w;
	struct pfcp_node_id id = { .type = 0, .len = 4, .v = { 10, 0, 0, 9 } };

	pfcp_w_init(&w, buf, cap);
	pfcp_w_header(&w, PFCP_SESSION_EST_REQ, true, 0, 10);
	pfcp_w_node_id(&w, &id);
	pfcp_w_fseid(&w, 0x77, ip4("10.0.0.9"));
	for (uint16_t i = 1; i <= PFCP_RULES_MAX; i++) {
		struct pfcp_pdr p = {
			.id = i, .has_precedence = true, .precedence = i, .has_pdi = true,
			.has_src_iface = true, .src_iface = i % 2 ? PFCP_IF_ACCESS : PFCP_IF_CORE,
			.has_fteid = i % 2, .fteid = { .v4 = true, .teid = i, .ipv4 = ip4("192.0.2.1") },
			.has_ue_ip = true, .ue_ip = ip4("10.45.0.2"), .ue_ip_dst = !(i % 2),
			.has_ohr = i % 2, .has_far_id = true, .far_id = i,
		};
		struct pfcp_far f = {
			.id = i, .has_action = true, .action = PFCP_ACTION_FORW, .has_fwd = true,
			.has_dst_iface = true, .dst_iface = i % 2 ? PFCP_IF_CORE : PFCP_IF_ACCESS,
			.has_ohc = !(i % 2), .ohc_desc = PFCP_OHC_GTPU_UDP_IPV4, .ohc_teid = i,
			.ohc_ipv4 = ip4("192.0.2.10"),
		};

		pfcp_w_pdr(&w, PFCP_IE_CREATE_PDR, &p);
		pfcp_w_far(&w, PFCP_IE_CREATE_FAR, &f);
	}
	return pfcp_w_finish(&w);
}

#define MUT_MAX 8192

static uint32_t mut_state;

static uint32_t
mut_rand(void)
{
	/* xorshift32: the same sequence everywhere for one seed. */
	mut_state ^= mut_state << 13;
	mut_state ^= mut_state >> 17;
	mut_state ^= mut_state << 5;
	return mut_state;
}

/* One to four changes to buf (n bytes, room for MUT_MAX); its new length. */
static size_t
mutate(uint8_t *buf, size_t n)
{
	static const uint16_t lens[] = { 0, 1, 2, 3, 4, 0xffff, 0x8000 };
	unsigned int k = 1 + mut_rand() % 4;

	while (k-- > 0) {
		size_t i = n > 0 ? mut_rand() % n : 0;

		switch (mut_rand() % 8) {
		case 0: /* truncated */
			n = n > 0 ? mut_rand() % n : 0;
			break;
		case 1: /* a byte changed */
			if (n > 0)
				buf[i] = (uint8_t)mut_rand();
			break;
		case 2: /* a bit flipped */
			if (n > 0)
				buf[i] ^= (uint8_t)(1u << (mut_rand() % 8));
			break;
		case 3: { /* 16 bits (a length, a type) set */
			uint16_t v = mut_rand() % 2 ? lens[mut_rand() % 7] : (uint16_t)mut_rand();

			if (n >= 2 && i + 1 < n) {
				buf[i] = (uint8_t)(v >> 8);
				buf[i + 1] = (uint8_t)v;
			}
			break;
		}
		case 4: { /* an IE inserted: unknown, vendor, or a known type with any length */
			uint8_t ie[4 + 16];
			uint16_t type = (uint16_t)(mut_rand() % 3 == 0 ? 0x8000 | mut_rand() :
						   mut_rand() % 120);
			size_t vl = mut_rand() % 17;

			ie[0] = (uint8_t)(type >> 8);
			ie[1] = (uint8_t)type;
			ie[2] = 0;
			ie[3] = (uint8_t)vl;
			for (size_t b = 0; b < vl; b++)
				ie[4 + b] = (uint8_t)mut_rand();
			if (n + 4 + vl <= MUT_MAX) {
				memmove(buf + i + 4 + vl, buf + i, n - i);
				memcpy(buf + i, ie, 4 + vl);
				n += 4 + vl;
			}
			break;
		}
		case 5: { /* a run repeated: many IEs of one kind */
			size_t len = 1 + mut_rand() % 64, times = 2 + mut_rand() % 30;

			if (i + len > n)
				len = n - i;
			while (len > 0 && times-- > 0 && n + len <= MUT_MAX) {
				memmove(buf + i + len, buf + i, n - i);
				n += len;
			}
			break;
		}
		case 6: /* random bytes */
			n = mut_rand() % 64;
			for (size_t b = 0; b < n; b++)
				buf[b] = (uint8_t)mut_rand();
			break;
		default: /* the header's length made to match again */
			if (n >= 4) {
				buf[2] = (uint8_t)((n - 4) >> 8);
				buf[3] = (uint8_t)(n - 4);
			}
			break;
		}
	}
	return n;
}

static bool
known_cause(uint8_t c)
{
	return c == PFCP_CAUSE_ACCEPTED || c == PFCP_CAUSE_INVALID_LENGTH ||
	       c == PFCP_CAUSE_MANDATORY_IE_MISSING || c == PFCP_CAUSE_MANDATORY_IE_INCORRECT ||
	       c == PFCP_CAUSE_NO_RESOURCES;
}

/* Decodes p (n bytes, the last of them the last readable one) as a body of
 * every request type and checks what comes out. */
static void
decode_checked(const uint8_t *p, size_t n)
{
	static const uint8_t types[] = {
		PFCP_HEARTBEAT_REQ, PFCP_ASSOC_SETUP_REQ, PFCP_ASSOC_RELEASE_REQ,
		PFCP_SESSION_EST_REQ, PFCP_SESSION_MOD_REQ, PFCP_SESSION_DEL_REQ,
	};

	for (size_t t = 0; t < sizeof(types); t++) {
		uint8_t c = pfcp_decode(types[t], p, n, &m);

		assert_true(known_cause(c));
		if (c == PFCP_CAUSE_ACCEPTED)
			assert_int_equal(m.offending_ie, 0);
		assert_true(m.n_create_pdr <= PFCP_RULES_MAX && m.n_create_far <= PFCP_RULES_MAX &&
			    m.n_update_pdr <= PFCP_RULES_MAX && m.n_update_far <= PFCP_RULES_MAX &&
			    m.n_remove_pdr <= PFCP_RULES_MAX && m.n_remove_far <= PFCP_RULES_MAX);
		assert_true(!m.has_node_id || m.node_id.type <= 2);
		/* Nothing can be accepted from fewer bytes than its IEs take. */
		if (c == PFCP_CAUSE_ACCEPTED)
			assert_true(n >= 4u * (m.has_node_id + m.has_fseid + m.has_recovery +
					       m.n_create_pdr + m.n_create_far));
	}
}

static void
test_mutations(void **state)
{
	long pg = sysconf(_SC_PAGESIZE);
	size_t room = ((MUT_MAX + (size_t)pg - 1) / (size_t)pg) * (size_t)pg;
	uint8_t *region, *tmpl[4], buf[MUT_MAX];
	size_t tlen[4];
	unsigned int seed = getenv("NFV_TEST_SEED") ? (unsigned int)atoi(getenv("NFV_TEST_SEED")) :
			    4242;
	unsigned int accepted = 0, headers_ok = 0, rounds = 60000;

	(void)state;
	/* The readable room, then a page that cannot be read: a message is
	 * placed so that its last byte is the last readable one, and a read
	 * past it faults with or without a sanitizer. */
	region = mmap(NULL, room + (size_t)pg, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(region != MAP_FAILED);
	assert_int_equal(mprotect(region + room, (size_t)pg, PROT_NONE), 0);
	for (int i = 0; i < 4; i++) {
		tmpl[i] = malloc(MUT_MAX);
		assert_non_null(tmpl[i]);
	}
	tlen[0] = unhex(scapy_est, tmpl[0]);
	tlen[1] = encode_mod(tmpl[1], MUT_MAX);
	tlen[2] = encode_assoc(tmpl[2], MUT_MAX);
	tlen[3] = encode_full(tmpl[3], MUT_MAX);
	for (int i = 0; i < 4; i++)
		assert_true(tlen[i] > 8);
	mut_state = seed != 0 ? seed : 1;
	for (unsigned int r = 0; r < rounds; r++) {
		unsigned int t = mut_rand() % 4;
		size_t n;
		uint8_t *p;
		struct pfcp_header h;

		memcpy(buf, tmpl[t], tlen[t]);
		n = mutate(buf, tlen[t]);
		p = region + room - n;
		memcpy(p, buf, n);
		if (pfcp_header_parse(p, n, &h) == 0) {
			headers_ok++;
			assert_int_equal((size_t)h.length + 4, n);
			assert_true(h.header_len <= n);
			assert_true(h.version == PFCP_VERSION);
			decode_checked(p + h.header_len, n - h.header_len);
			accepted += pfcp_decode(h.type, p + h.header_len, n - h.header_len, &m) ==
				    PFCP_CAUSE_ACCEPTED;
		}
		decode_checked(p, n);
	}
	/* The mutations reach the decoder's paths: some headers hold, some
	 * messages are still accepted, most are not. */
	print_message("pfcp mutations: %u rounds (seed %u), %u headers parsed, %u accepted\n",
		      rounds, seed, headers_ok, accepted);
	assert_true(headers_ok > rounds / 10 && accepted > rounds / 100 && accepted < headers_ok);
	for (int i = 0; i < 4; i++)
		free(tmpl[i]);
	munmap(region, room + (size_t)pg);
}

static void
test_writer_overflow(void **state)
{
	uint8_t buf[20];
	struct pfcp_writer w;
	struct pfcp_node_id id = { .type = 2, .len = 30 };

	(void)state;
	pfcp_w_init(&w, buf, sizeof(buf));
	pfcp_w_header(&w, PFCP_HEARTBEAT_RESP, false, 0, 1);
	pfcp_w_u32(&w, PFCP_IE_RECOVERY_TIME_STAMP, 1);
	assert_int_equal(pfcp_w_finish(&w), 16);
	pfcp_w_node_id(&w, &id);
	assert_true(w.overflow);
	assert_int_equal(pfcp_w_finish(&w), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scapy_message),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_missing_and_incorrect),
		cmocka_unit_test(test_random_bytes),
		cmocka_unit_test(test_second_ohc),
		cmocka_unit_test(test_mutations),
		cmocka_unit_test(test_writer_overflow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
