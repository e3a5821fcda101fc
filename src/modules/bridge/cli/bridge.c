/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Commands of the bridge module: bridge add NAME [ageing SEC], bridge del
 * NAME, bridge port add|del NAME dev IF, bridge show [NAME],
 * fdb show [dev BRIDGE].
 */
#include <errno.h>
#include <string.h>

#include "api/cmd.h"
#include "api/parse.h"
#include "modules/bridge/bridge.h"

static int
cmd_bridge_add(int argc, char **argv, struct nfv_reply *r)
{
	static const char usage[] = "bridge add NAME [ageing SEC]";
	uint32_t ageing = NFV_BRIDGE_AGEING_DEFAULT;

	if (nfv_cmd_need_args(argc, 3, usage, r) < 0)
		return -EINVAL;
	if (!nfv_valid_name(argv[2]))
		NFV_FAIL(r, -EINVAL, "bad interface name '%s' (letters, digits, '_', '-', '.'; "
			 "starts with a letter; at most 31)", argv[2]);
	if (argc > 3) {
		if (strcmp(argv[3], "ageing") != 0)
			NFV_FAIL(r, -EINVAL, "unexpected '%s' (expected 'ageing'); usage: %s",
				 argv[3], usage);
		if (argc == 4)
			NFV_FAIL(r, -EINVAL, "missing value after 'ageing'");
		if (nfv_parse_u32(argv[4], 1, 1000000, &ageing) < 0)
			NFV_FAIL(r, -EINVAL, "bad ageing '%s' (expected 1-1000000 seconds)", argv[4]);
		if (nfv_cmd_max_args(argc, argv, 5, r) < 0)
			return -EINVAL;
	}
	return nfv_bridge_add(argv[2], ageing, r->err);
}

static int
cmd_bridge_del(int argc, char **argv, struct nfv_reply *r)
{
	if (nfv_cmd_need_args(argc, 3, "bridge del NAME", r) < 0 ||
	    nfv_cmd_max_args(argc, argv, 3, r) < 0)
		return -EINVAL;
	return nfv_bridge_del(argv[2], r->err);
}

/* bridge port add|del NAME dev IF */
static int
cmd_bridge_port(int argc, char **argv, struct nfv_reply *r)
{
	static const char usage[] = "bridge port add|del NAME dev IF";

	if (nfv_cmd_need_args(argc, 6, usage, r) < 0 || nfv_cmd_max_args(argc, argv, 6, r) < 0)
		return -EINVAL;
	if (strcmp(argv[2], "add") != 0 && strcmp(argv[2], "del") != 0)
		NFV_FAIL(r, -EINVAL, "unexpected '%s' (expected add or del); usage: %s", argv[2],
			 usage);
	if (strcmp(argv[4], "dev") != 0)
		NFV_FAIL(r, -EINVAL, "unexpected '%s' (expected 'dev'); usage: %s", argv[4], usage);
	if (strcmp(argv[2], "add") == 0)
		return nfv_bridge_port_add(argv[3], argv[5], r->err);
	return nfv_bridge_port_del(argv[3], argv[5], r->err);
}

static int
cmd_bridge_show(int argc, char **argv, struct nfv_reply *r)
{
	if (nfv_cmd_max_args(argc, argv, 3, r) < 0)
		return -EINVAL;
	r->data = nfv_bridge_show(argc == 3 ? argv[2] : NULL, r->err);
	return r->data == NULL ? -ENOENT : 0;
}

static int
cmd_fdb_show(int argc, char **argv, struct nfv_reply *r)
{
	if (nfv_cmd_max_args(argc, argv, 4, r) < 0)
		return -EINVAL;
	if (argc == 3)
		NFV_FAIL(r, -EINVAL, "unexpected '%s'; usage: fdb show [dev BRIDGE]", argv[2]);
	if (argc == 4 && strcmp(argv[2], "dev") != 0)
		NFV_FAIL(r, -EINVAL, "unexpected '%s' (expected 'dev'); usage: fdb show [dev BRIDGE]",
			 argv[2]);
	r->data = nfv_fdb_show(argc == 4 ? argv[3] : NULL, r->err);
	return r->data == NULL ? -ENOENT : 0;
}

static const struct nfv_command bridge_commands[] = {
	{ "bridge", "add", cmd_bridge_add, "bridge add NAME [ageing SEC]" },
	{ "bridge", "del", cmd_bridge_del, "bridge del NAME" },
	{ "bridge", "port", cmd_bridge_port, "bridge port add|del NAME dev IF" },
	{ "bridge", "show", cmd_bridge_show, "bridge show [NAME]" },
	{ "fdb", "show", cmd_fdb_show, "fdb show [dev BRIDGE]" },
};
NFV_COMMANDS_REGISTER(bridge_commands);
