/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Commands of the nat44 module:
 *   nat44 snat add src PREFIX dev OUTIF [to ADDR[-ADDR]]
 *   nat44 snat del src PREFIX dev OUTIF
 *   nat44 dnat add dev IF proto tcp|udp dport P to IP[:PORT]
 *   nat44 dnat del dev IF proto tcp|udp dport P
 *   nat44 show [sessions]
 *   nat44 set timeout tcp-established|tcp-transitory|udp|icmp SEC
 *   nat44 set max N
 *   nat44 flush
 */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#include "api/cmd.h"
#include "api/parse.h"
#include "modules/nat44/nat44.h"

#define SNAT_ADD "nat44 snat add src PREFIX dev OUTIF [to ADDR[-ADDR]]"
#define SNAT_DEL "nat44 snat del src PREFIX dev OUTIF"
#define DNAT_ADD "nat44 dnat add dev IF proto tcp|udp dport P to IP[:PORT]"
#define DNAT_DEL "nat44 dnat del dev IF proto tcp|udp dport P"
#define SET_USAGE "nat44 set timeout tcp-established|tcp-transitory|udp|icmp SEC | nat44 set max N"

/* argv[i] must be word; fails naming it otherwise. */
static int
expect(char **argv, int i, const char *word, const char *usage, struct nfv_reply *r)
{
	if (strcmp(argv[i], word) != 0)
		NFV_FAIL(r, -EINVAL, "unexpected '%s' (expected '%s'); usage: %s", argv[i], word,
			 usage);
	return 0;
}

static int
cmd_snat(int argc, char **argv, struct nfv_reply *r)
{
	bool add;
	const char *usage;

	if (argc < 3 || (strcmp(argv[2], "add") != 0 && strcmp(argv[2], "del") != 0))
		NFV_FAIL(r, -EINVAL, "usage: %s | %s", SNAT_ADD, SNAT_DEL);
	add = strcmp(argv[2], "add") == 0;
	usage = add ? SNAT_ADD : SNAT_DEL;
	if (nfv_cmd_need_args(argc, 7, usage, r) < 0 ||
	    nfv_cmd_max_args(argc, argv, add ? 9 : 7, r) < 0)
		return -EINVAL;
	if (expect(argv, 3, "src", usage, r) < 0 || expect(argv, 5, "dev", usage, r) < 0)
		return -EINVAL;
	if (argc == 8)
		NFV_FAIL(r, -EINVAL, "usage: %s", usage);
	if (argc == 9 && expect(argv, 7, "to", usage, r) < 0)
		return -EINVAL;
	return nfv_nat_snat_add(argv[4], argv[6], argc == 9 ? argv[8] : NULL, add, r->err);
}

static int
cmd_dnat(int argc, char **argv, struct nfv_reply *r)
{
	bool add;
	const char *usage;
	uint8_t proto;
	uint32_t port;

	if (argc < 3 || (strcmp(argv[2], "add") != 0 && strcmp(argv[2], "del") != 0))
		NFV_FAIL(r, -EINVAL, "usage: %s | %s", DNAT_ADD, DNAT_DEL);
	add = strcmp(argv[2], "add") == 0;
	usage = add ? DNAT_ADD : DNAT_DEL;
	if (nfv_cmd_need_args(argc, add ? 11 : 9, usage, r) < 0 ||
	    nfv_cmd_max_args(argc, argv, add ? 11 : 9, r) < 0)
		return -EINVAL;
	if (expect(argv, 3, "dev", usage, r) < 0 || expect(argv, 5, "proto", usage, r) < 0 ||
	    expect(argv, 7, "dport", usage, r) < 0 || (add && expect(argv, 9, "to", usage, r) < 0))
		return -EINVAL;
	if (strcmp(argv[6], "tcp") == 0)
		proto = IPPROTO_TCP;
	else if (strcmp(argv[6], "udp") == 0)
		proto = IPPROTO_UDP;
	else
		NFV_FAIL(r, -EINVAL, "bad protocol '%s' (tcp or udp)", argv[6]);
	if (nfv_parse_u32(argv[8], 1, 65535, &port) < 0)
		NFV_FAIL(r, -EINVAL, "bad port '%s' (1-65535)", argv[8]);
	return nfv_nat_dnat_add(argv[4], proto, (uint16_t)port, add ? argv[10] : NULL, add,
				r->err);
}

static int
cmd_show(int argc, char **argv, struct nfv_reply *r)
{
	if (nfv_cmd_max_args(argc, argv, 3, r) < 0)
		return -EINVAL;
	if (argc == 3 && strcmp(argv[2], "sessions") != 0)
		NFV_FAIL(r, -EINVAL, "unexpected '%s'; usage: nat44 show [sessions]", argv[2]);
	r->data = nfv_nat_show(argc == 3);
	return 0;
}

static int
cmd_set(int argc, char **argv, struct nfv_reply *r)
{
	uint32_t v;

	if (argc >= 3 && strcmp(argv[2], "max") == 0) {
		if (nfv_cmd_need_args(argc, 4, SET_USAGE, r) < 0 ||
		    nfv_cmd_max_args(argc, argv, 4, r) < 0)
			return -EINVAL;
		if (nfv_parse_u32(argv[3], 1, UINT32_MAX, &v) < 0)
			NFV_FAIL(r, -EINVAL, "bad number '%s'", argv[3]);
		return nfv_nat_set_max(v, r->err);
	}
	if (argc >= 3 && strcmp(argv[2], "timeout") == 0) {
		if (nfv_cmd_need_args(argc, 5, SET_USAGE, r) < 0 ||
		    nfv_cmd_max_args(argc, argv, 5, r) < 0)
			return -EINVAL;
		if (nfv_parse_u32(argv[4], 1, 86400 * 7, &v) < 0)
			NFV_FAIL(r, -EINVAL, "bad timeout '%s' (seconds, 1-604800)", argv[4]);
		return nfv_nat_set_timeout(argv[3], v, r->err);
	}
	NFV_FAIL(r, -EINVAL, "usage: %s", SET_USAGE);
}

static int
cmd_flush(int argc, char **argv, struct nfv_reply *r)
{
	if (nfv_cmd_max_args(argc, argv, 2, r) < 0)
		return -EINVAL;
	nfv_nat_flush();
	return 0;
}

static const struct nfv_command nat44_commands[] = {
	{ "nat44", "snat", cmd_snat, SNAT_ADD " | " SNAT_DEL },
	{ "nat44", "dnat", cmd_dnat, DNAT_ADD " | " DNAT_DEL },
	{ "nat44", "show", cmd_show, "nat44 show [sessions]" },
	{ "nat44", "set", cmd_set, SET_USAGE },
	{ "nat44", "flush", cmd_flush, "nat44 flush" },
};
NFV_COMMANDS_REGISTER(nat44_commands);
