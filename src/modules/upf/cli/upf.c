/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Commands of the upf module:
 *   upf pfcp listen IP[:PORT] [node-id ID]
 *   upf set n3 ADDR dev IF
 *   upf show sessions [seid N]
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "api/cmd.h"
#include "modules/upf/upf.h"

static int
cmd_upf_pfcp(int argc, char **argv, struct nfv_reply *r)
{
	static const char usage[] = "upf pfcp listen IP[:PORT] [node-id ID]";

	if (nfv_cmd_need_args(argc, 4, usage, r) < 0)
		return -EINVAL;
	if (strcmp(argv[2], "listen") != 0)
		NFV_FAIL(r, -EINVAL, "unexpected '%s' (expected 'listen'); usage: %s", argv[2],
			 usage);
	if (argc == 4)
		return nfv_upf_pfcp_listen(argv[3], NULL, r->err);
	if (strcmp(argv[4], "node-id") != 0)
		NFV_FAIL(r, -EINVAL, "unexpected '%s'; usage: %s", argv[4], usage);
	if (argc == 5)
		NFV_FAIL(r, -EINVAL, "missing value after 'node-id'; usage: %s", usage);
	if (argc > 6)
		NFV_FAIL(r, -EINVAL, "unexpected '%s'; usage: %s", argv[6], usage);
	return nfv_upf_pfcp_listen(argv[3], argv[5], r->err);
}

static int
cmd_upf_set(int argc, char **argv, struct nfv_reply *r)
{
	static const char usage[] = "upf set n3 ADDR dev IF";

	if (nfv_cmd_need_args(argc, 6, usage, r) < 0 || nfv_cmd_max_args(argc, argv, 6, r) < 0)
		return -EINVAL;
	if (strcmp(argv[2], "n3") != 0)
		NFV_FAIL(r, -EINVAL, "unexpected '%s' (expected 'n3'); usage: %s", argv[2], usage);
	if (strcmp(argv[4], "dev") != 0)
		NFV_FAIL(r, -EINVAL, "unexpected '%s' (expected 'dev'); usage: %s", argv[4], usage);
	return nfv_upf_set_n3(argv[3], argv[5], r->err);
}

static int
cmd_upf_show(int argc, char **argv, struct nfv_reply *r)
{
	static const char usage[] = "upf show sessions [seid N]";
	uint64_t seid = 0;

	if (nfv_cmd_need_args(argc, 3, usage, r) < 0)
		return -EINVAL;
	if (strcmp(argv[2], "sessions") != 0)
		NFV_FAIL(r, -EINVAL, "unexpected '%s' (expected 'sessions'); usage: %s", argv[2],
			 usage);
	if (argc > 3) {
		char *end;

		if (strcmp(argv[3], "seid") != 0)
			NFV_FAIL(r, -EINVAL, "unexpected '%s'; usage: %s", argv[3], usage);
		if (argc == 4)
			NFV_FAIL(r, -EINVAL, "missing value after 'seid'; usage: %s", usage);
		if (argc > 5)
			NFV_FAIL(r, -EINVAL, "unexpected '%s'; usage: %s", argv[5], usage);
		errno = 0;
		seid = strtoull(argv[4], &end, 0);
		if (errno != 0 || *end != '\0' || argv[4][0] == '-' || seid == 0)
			NFV_FAIL(r, -EINVAL, "bad SEID '%s'", argv[4]);
	}
	return nfv_upf_show(seid, &r->data, r->err);
}

static const struct nfv_command upf_commands[] = {
	{ "upf", "pfcp", cmd_upf_pfcp, "upf pfcp listen IP[:PORT] [node-id ID]" },
	{ "upf", "set", cmd_upf_set, "upf set n3 ADDR dev IF" },
	{ "upf", "show", cmd_upf_show, "upf show sessions [seid N]" },
};
NFV_COMMANDS_REGISTER(upf_commands);
