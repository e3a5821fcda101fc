/* SPDX-License-Identifier: BSD-3-Clause */
/* Commands of the vlan module: vlan add NAME dev PARENT id N, vlan del NAME. */
#include <errno.h>
#include <string.h>

#include "api/cmd.h"
#include "api/parse.h"
#include "modules/vlan/vlan.h"

static int
cmd_vlan_add(int argc, char **argv, struct nfv_reply *r)
{
	static const char usage[] = "vlan add NAME dev PARENT id N";
	uint32_t vid;

	if (nfv_cmd_need_args(argc, 7, usage, r) < 0)
		return -EINVAL;
	if (nfv_cmd_max_args(argc, argv, 7, r) < 0)
		return -EINVAL;
	if (!nfv_valid_name(argv[2]))
		NFV_FAIL(r, -EINVAL, "bad interface name '%s' (letters, digits, '_', '-', '.'; "
			 "starts with a letter; at most 31)", argv[2]);
	if (strcmp(argv[3], "dev") != 0)
		NFV_FAIL(r, -EINVAL, "unexpected '%s' (expected 'dev'); usage: %s", argv[3], usage);
	if (strcmp(argv[5], "id") != 0)
		NFV_FAIL(r, -EINVAL, "unexpected '%s' (expected 'id'); usage: %s", argv[5], usage);
	if (nfv_parse_u32(argv[6], 1, 4094, &vid) < 0)
		NFV_FAIL(r, -EINVAL, "bad VLAN id '%s' (expected 1-4094)", argv[6]);
	return nfv_vlan_add(argv[2], argv[4], vid, r->err);
}

static int
cmd_vlan_del(int argc, char **argv, struct nfv_reply *r)
{
	if (nfv_cmd_need_args(argc, 3, "vlan del NAME", r) < 0 ||
	    nfv_cmd_max_args(argc, argv, 3, r) < 0)
		return -EINVAL;
	return nfv_vlan_del(argv[2], r->err);
}

static const struct nfv_command vlan_commands[] = {
	{ "vlan", "add", cmd_vlan_add, "vlan add NAME dev PARENT id N" },
	{ "vlan", "del", cmd_vlan_del, "vlan del NAME" },
};
NFV_COMMANDS_REGISTER(vlan_commands);
