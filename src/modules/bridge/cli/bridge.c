/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Commands of the bridge module: bridge add NAME [ageing SEC] [mac MAC],
 * bridge del
 * NAME, bridge port add|del NAME dev IF, bridge show [NAME],
 * fdb show [dev BRIDGE].
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include <rte_ether.h>

#include "api/cmd.h"
#include "api/parse.h"
#include "modules/bridge/bridge.h"

static int
cmd_bridge_add(int argc, char **argv, struct nfv_reply *r)
{
	static const char usage[] = "bridge add NAME [ageing SEC] [mac MAC]";
	uint32_t ageing = NFV_BRIDGE_AGEING_DEFAULT;
	struct rte_ether_addr mac;
	bool have_mac = false;

	if (nfv_cmd_need_args(argc, 3, usage, r) < 0)
		return -EINVAL;
	if (!nfv_valid_name(argv[2]))
		NFV_FAIL(r, -EINVAL, "bad interface name '%s' (letters, digits, '_', '-', '.'; "
			 "starts with a letter; at most 31)", argv[2]);
	for (int i = 3; i < argc; i += 2) {
		if (strcmp(argv[i], "ageing") != 0 && strcmp(argv[i], "mac") != 0)
			NFV_FAIL(r, -EINVAL, "unexpected '%s' (expected 'ageing' or 'mac'); "
				 "usage: %s", argv[i], usage);
		if (i + 1 == argc)
			NFV_FAIL(r, -EINVAL, "missing value after '%s'", argv[i]);
		if (strcmp(argv[i], "ageing") == 0) {
			if (nfv_parse_u32(argv[i + 1], 1, 1000000, &ageing) < 0)
				NFV_FAIL(r, -EINVAL, "bad ageing '%s' (expected 1-1000000 seconds)",
					 argv[i + 1]);
		} else {
			if (nfv_parse_mac(argv[i + 1], &mac) < 0 ||
			    !rte_is_unicast_ether_addr(&mac) || rte_is_zero_ether_addr(&mac))
				NFV_FAIL(r, -EINVAL, "bad mac '%s' (a unicast MAC address)",
					 argv[i + 1]);
			have_mac = true;
		}
	}
	return nfv_bridge_add(argv[2], ageing, have_mac ? &mac : NULL, r->err);
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
	if (argc == 3 && strcmp(argv[2], "dev") == 0)
		NFV_FAIL(r, -EINVAL, "missing bridge name after 'dev'; usage: fdb show [dev BRIDGE]");
	if (argc == 3)
		NFV_FAIL(r, -EINVAL, "unexpected '%s'; usage: fdb show [dev BRIDGE]", argv[2]);
	if (argc == 4 && strcmp(argv[2], "dev") != 0)
		NFV_FAIL(r, -EINVAL, "unexpected '%s' (expected 'dev'); "
			 "usage: fdb show [dev BRIDGE]", argv[2]);
	r->data = nfv_fdb_show(argc == 4 ? argv[3] : NULL, r->err);
	return r->data == NULL ? -ENOENT : 0;
}

static const struct nfv_command bridge_commands[] = {
	{ "bridge", "add", cmd_bridge_add, "bridge add NAME [ageing SEC] [mac MAC]" },
	{ "bridge", "del", cmd_bridge_del, "bridge del NAME" },
	{ "bridge", "port", cmd_bridge_port, "bridge port add|del NAME dev IF" },
	{ "bridge", "show", cmd_bridge_show, "bridge show [NAME]" },
	{ "fdb", "show", cmd_fdb_show, "fdb show [dev BRIDGE]" },
};
NFV_COMMANDS_REGISTER(bridge_commands);
