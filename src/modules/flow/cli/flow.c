/* SPDX-License-Identifier: BSD-3-Clause */
/* Commands of the flow module:
 *	flow export ipfix IP:PORT [active SEC] [idle SEC]
 *	flow export del
 *	flow show [top N]
 *	flow enable | flow disable */
#include <errno.h>
#include <string.h>

#include "api/cmd.h"
#include "api/parse.h"
#include "modules/flow/flow.h"

static int
cmd_flow_export(int argc, char **argv, struct nfv_reply *r)
{
	static const char usage[] = "flow export ipfix IP:PORT [active SEC] [idle SEC]";
	uint32_t active = 60, idle = 15;
	bool seen_active = false, seen_idle = false;

	if (argc == 3 && strcmp(argv[2], "del") == 0)
		return nfv_flow_export_del(r->err);
	/* A wrong word is named before a short line is called short. */
	if (argc >= 3 && strcmp(argv[2], "ipfix") != 0)
		NFV_FAIL(r, -EINVAL, "unexpected '%s' (expected 'ipfix' or 'del'); usage: %s",
			 argv[2], usage);
	if (nfv_cmd_need_args(argc, 4, usage, r) < 0)
		return -EINVAL;
	for (int i = 4; i < argc; i += 2) {
		uint32_t v;
		bool is_active = strcmp(argv[i], "active") == 0;

		if ((!is_active && strcmp(argv[i], "idle") != 0) ||
		    (is_active ? seen_active : seen_idle))
			NFV_FAIL(r, -EINVAL, "unexpected '%s'; usage: %s", argv[i], usage);
		if (i + 1 >= argc)
			NFV_FAIL(r, -EINVAL, "missing value after '%s'", argv[i]);
		if (nfv_parse_u32(argv[i + 1], 1, 86400, &v) < 0)
			NFV_FAIL(r, -EINVAL, "bad %s timeout '%s' (expected 1-86400 seconds)",
				 argv[i], argv[i + 1]);
		if (is_active) {
			active = v;
			seen_active = true;
		} else {
			idle = v;
			seen_idle = true;
		}
	}
	return nfv_flow_export_set(argv[3], active, idle, r->err);
}

static int
cmd_flow_show(int argc, char **argv, struct nfv_reply *r)
{
	uint32_t top = 0;

	if (nfv_cmd_max_args(argc, argv, 4, r) < 0)
		return -EINVAL;
	if (argc >= 3) {
		if (strcmp(argv[2], "top") != 0)
			NFV_FAIL(r, -EINVAL, "unexpected '%s' (expected 'top'); usage: flow show "
				 "[top N]", argv[2]);
		if (argc < 4)
			NFV_FAIL(r, -EINVAL, "missing value after 'top'");
		if (nfv_parse_u32(argv[3], 1, 1000000, &top) < 0)
			NFV_FAIL(r, -EINVAL, "bad count '%s' (expected 1-1000000)", argv[3]);
	}
	r->data = nfv_flow_show(top);
	return 0;
}

static int
cmd_flow_enable(int argc, char **argv, struct nfv_reply *r)
{
	if (nfv_cmd_max_args(argc, argv, 2, r) < 0)
		return -EINVAL;
	return nfv_flow_enable(true, r->err);
}

static int
cmd_flow_disable(int argc, char **argv, struct nfv_reply *r)
{
	if (nfv_cmd_max_args(argc, argv, 2, r) < 0)
		return -EINVAL;
	return nfv_flow_enable(false, r->err);
}

static const struct nfv_command flow_commands[] = {
	{ "flow", "export", cmd_flow_export,
	  "flow export ipfix IP:PORT [active SEC] [idle SEC] | flow export del" },
	{ "flow", "show", cmd_flow_show, "flow show [top N]" },
	{ "flow", "enable", cmd_flow_enable, "flow enable" },
	{ "flow", "disable", cmd_flow_disable, "flow disable" },
};
NFV_COMMANDS_REGISTER(flow_commands);
