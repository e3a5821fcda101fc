/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The UPF's PFCP codec (src/modules/upf/pfcp/pfcp.c) on byte strings: a
 * message scapy's contrib.pfcp built decodes to the values it was built
 * with; what the writer encodes decodes back to the same rules; every
 * truncation of a message is refused (header) or decoded without reading
 * past its end and never accepted (body); random bytes never crash the
 * decoder; a writer out of room says so.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>
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
		cmocka_unit_test(test_writer_overflow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
