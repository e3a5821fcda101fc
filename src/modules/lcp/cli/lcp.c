/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Commands of the lcp module:
 *   lcp add dev NAME [host-if IFNAME] [netns NS] [punt-rate PPS] [punt-burst N]
 *   lcp del dev NAME
 *   lcp show [dev NAME]
 */
#include <errno.h>
#include <string.h>

#include <jansson.h>

#include "api/cmd.h"
#include "api/parse.h"
#include "modules/infra/cli.h"
#include "modules/lcp/lcp.h"

static const char add_usage[] =
	"lcp add dev NAME [host-if IFNAME] [netns NS] [punt-rate PPS] [punt-burst N]";

static int
cmd_lcp_add(int argc, char **argv, struct nfv_reply *r)
{
	struct nfv_lcp_conf c = { 0 };

	if (nfv_cmd_need_args(argc, 4, add_usage, r) < 0)
		return -EINVAL;
	if (strcmp(argv[2], "dev") != 0)
		NFV_FAIL(r, -EINVAL, "unexpected '%s' (expected 'dev'); usage: %s", argv[2],
			 add_usage);
	for (int i = 4; i < argc; i += 2) {
		if (i + 1 >= argc)
			NFV_FAIL(r, -EINVAL, "missing value after '%s'; usage: %s", argv[i],
				 add_usage);
		if (strcmp(argv[i], "host-if") == 0 && c.host_if == NULL) {
			c.host_if = argv[i + 1];
		} else if (strcmp(argv[i], "netns") == 0 && c.netns == NULL) {
			c.netns = argv[i + 1];
		} else if (strcmp(argv[i], "punt-rate") == 0 && c.rate == 0) {
			if (nfv_parse_u32(argv[i + 1], 1, 100000000, &c.rate) < 0)
				NFV_FAIL(r, -EINVAL, "bad punt-rate '%s' (packets/s, 1-100000000)",
					 argv[i + 1]);
		} else if (strcmp(argv[i], "punt-burst") == 0 && c.burst == 0) {
			if (nfv_parse_u32(argv[i + 1], 1, 10000000, &c.burst) < 0)
				NFV_FAIL(r, -EINVAL, "bad punt-burst '%s' (packets, 1-10000000)",
					 argv[i + 1]);
		} else {
			NFV_FAIL(r, -EINVAL, "unexpected '%s'; usage: %s", argv[i], add_usage);
		}
	}
	return nfv_lcp_add(argv[3], &c, r->err);
}

static int
cmd_lcp_del(int argc, char **argv, struct nfv_reply *r)
{
	static const char usage[] = "lcp del dev NAME";

	if (nfv_cmd_need_args(argc, 4, usage, r) < 0 || nfv_cmd_max_args(argc, argv, 4, r) < 0)
		return -EINVAL;
	if (strcmp(argv[2], "dev") != 0)
		NFV_FAIL(r, -EINVAL, "unexpected '%s' (expected 'dev'); usage: %s", argv[2], usage);
	return nfv_lcp_del(argv[3], r->err);
}

static int
cmd_lcp_show(int argc, char **argv, struct nfv_reply *r)
{
	const char *dev = NULL;

	if (nfv_cmd_max_args(argc, argv, 4, r) < 0)
		return -EINVAL;
	if (argc >= 3 && strcmp(argv[2], "dev") != 0)
		NFV_FAIL(r, -EINVAL, "unexpected '%s'; usage: lcp show [dev NAME]", argv[2]);
	if (argc == 3)
		NFV_FAIL(r, -EINVAL, "missing interface name after 'dev'; usage: lcp show [dev NAME]");
	if (argc == 4) {
		/* An unknown interface is an error, not an empty list. */
		if (nfv_iface_need(argv[3], r) == NULL)
			return -ENOENT;
		dev = argv[3];
	}
	r->data = json_pack("{s:o}", "lcp", (json_t *)nfv_lcp_show_json(dev));
	return 0;
}

static const struct nfv_command lcp_commands[] = {
	{ "lcp", "add", cmd_lcp_add, add_usage },
	{ "lcp", "del", cmd_lcp_del, "lcp del dev NAME" },
	{ "lcp", "show", cmd_lcp_show, "lcp show [dev NAME]" },
};
NFV_COMMANDS_REGISTER(lcp_commands);
