/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Commands of the lb module:
 *   lb service add VIP:PORT proto tcp|udp [mode nat|dsr]
 *   lb service del VIP:PORT proto tcp|udp
 *   lb backend add VIP:PORT proto tcp|udp IP[:PORT] [weight W]
 *   lb backend del VIP:PORT proto tcp|udp IP[:PORT]
 *   lb show [sessions]
 *   lb set timeout tcp-established|tcp-transitory|udp SEC
 */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#include "api/cmd.h"
#include "api/parse.h"
#include "modules/lb/lb.h"

#define SVC_ADD "lb service add VIP:PORT proto tcp|udp [mode nat|dsr]"
#define SVC_DEL "lb service del VIP:PORT proto tcp|udp"
#define BE_ADD "lb backend add VIP:PORT proto tcp|udp IP[:PORT] [weight W]"
#define BE_DEL "lb backend del VIP:PORT proto tcp|udp IP[:PORT]"
#define SET_USAGE "lb set timeout tcp-established|tcp-transitory|udp SEC"

/* argv[3] VIP:PORT, argv[4] "proto", argv[5] tcp|udp. */
static int
svc_args(int argc, char **argv, const char *usage, uint8_t *proto, struct nfv_reply *r)
{
	if (nfv_cmd_need_args(argc, 6, usage, r) < 0)
		return -EINVAL;
	if (strcmp(argv[4], "proto") != 0)
		NFV_FAIL(r, -EINVAL, "unexpected '%s' (expected 'proto'); usage: %s", argv[4],
			 usage);
	if (strcmp(argv[5], "tcp") == 0)
		*proto = IPPROTO_TCP;
	else if (strcmp(argv[5], "udp") == 0)
		*proto = IPPROTO_UDP;
	else
		NFV_FAIL(r, -EINVAL, "bad protocol '%s' (tcp or udp)", argv[5]);
	return 0;
}

static int
cmd_service(int argc, char **argv, struct nfv_reply *r)
{
	enum nfv_lb_mode mode = NFV_LB_NAT;
	bool add;
	uint8_t proto;

	if (argc < 3 || (strcmp(argv[2], "add") != 0 && strcmp(argv[2], "del") != 0))
		NFV_FAIL(r, -EINVAL, "usage: %s | %s", SVC_ADD, SVC_DEL);
	add = strcmp(argv[2], "add") == 0;
	if (svc_args(argc, argv, add ? SVC_ADD : SVC_DEL, &proto, r) < 0 ||
	    nfv_cmd_max_args(argc, argv, add ? 8 : 6, r) < 0)
		return -EINVAL;
	if (argc == 7)
		NFV_FAIL(r, -EINVAL, "usage: %s", SVC_ADD);
	if (argc == 8) {
		if (strcmp(argv[6], "mode") != 0)
			NFV_FAIL(r, -EINVAL, "unexpected '%s' (expected 'mode'); usage: %s",
				 argv[6], SVC_ADD);
		if (strcmp(argv[7], "dsr") == 0)
			mode = NFV_LB_DSR;
		else if (strcmp(argv[7], "nat") != 0)
			NFV_FAIL(r, -EINVAL, "bad mode '%s' (nat or dsr)", argv[7]);
	}
	return nfv_lb_service_add(argv[3], proto, add, mode, r->err);
}

static int
cmd_backend(int argc, char **argv, struct nfv_reply *r)
{
	bool add;
	uint8_t proto;
	uint32_t weight = 0;
	const char *usage;

	if (argc < 3 || (strcmp(argv[2], "add") != 0 && strcmp(argv[2], "del") != 0))
		NFV_FAIL(r, -EINVAL, "usage: %s | %s", BE_ADD, BE_DEL);
	add = strcmp(argv[2], "add") == 0;
	usage = add ? BE_ADD : BE_DEL;
	if (svc_args(argc, argv, usage, &proto, r) < 0 ||
	    nfv_cmd_need_args(argc, 7, usage, r) < 0 ||
	    nfv_cmd_max_args(argc, argv, add ? 9 : 7, r) < 0)
		return -EINVAL;
	if (argc == 8)
		NFV_FAIL(r, -EINVAL, "usage: %s", usage);
	if (argc == 9) {
		if (strcmp(argv[7], "weight") != 0)
			NFV_FAIL(r, -EINVAL, "unexpected '%s' (expected 'weight'); usage: %s",
				 argv[7], usage);
		if (nfv_parse_u32(argv[8], 0, 10000, &weight) < 0)
			NFV_FAIL(r, -EINVAL, "bad weight '%s' (0-10000; 0 drains)", argv[8]);
	}
	return nfv_lb_backend_add(argv[3], proto, argv[6], add, argc == 9 ? (int)weight : -1,
				  r->err);
}

static int
cmd_show(int argc, char **argv, struct nfv_reply *r)
{
	if (nfv_cmd_max_args(argc, argv, 3, r) < 0)
		return -EINVAL;
	if (argc == 3 && strcmp(argv[2], "sessions") != 0)
		NFV_FAIL(r, -EINVAL, "unexpected '%s'; usage: lb show [sessions]", argv[2]);
	r->data = nfv_lb_show(argc == 3);
	return 0;
}

static int
cmd_set(int argc, char **argv, struct nfv_reply *r)
{
	uint32_t v;

	if (argc < 3 || strcmp(argv[2], "timeout") != 0)
		NFV_FAIL(r, -EINVAL, "usage: %s", SET_USAGE);
	if (nfv_cmd_need_args(argc, 5, SET_USAGE, r) < 0 ||
	    nfv_cmd_max_args(argc, argv, 5, r) < 0)
		return -EINVAL;
	if (nfv_parse_u32(argv[4], 1, 86400 * 7, &v) < 0)
		NFV_FAIL(r, -EINVAL, "bad timeout '%s' (seconds, 1-604800)", argv[4]);
	return nfv_lb_set_timeout(argv[3], v, r->err);
}

static const struct nfv_command lb_commands[] = {
	{ "lb", "service", cmd_service, SVC_ADD " | " SVC_DEL },
	{ "lb", "backend", cmd_backend, BE_ADD " | " BE_DEL },
	{ "lb", "show", cmd_show, "lb show [sessions]" },
	{ "lb", "set", cmd_set, SET_USAGE },
};
NFV_COMMANDS_REGISTER(lb_commands);
