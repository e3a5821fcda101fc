/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Commands of VRFs: vrf add NAME, vrf del NAME, vrf show [NAME].
 * ("port set NAME vrf VRF" is infra's command; control/vrf.c handles it.)
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "api/cmd.h"
#include "modules/infra/iface.h"
#include "modules/ip/ip.h"

static int
cmd_vrf_add_del(int argc, char **argv, struct nfv_reply *r)
{
	bool add = strcmp(argv[1], "add") == 0;

	if (nfv_cmd_need_args(argc, 3, add ? "vrf add NAME" : "vrf del NAME", r) < 0)
		return -EINVAL;
	if (argc > 3)
		NFV_FAIL(r, -EINVAL, "unexpected '%s'", argv[3]);
	return add ? nfv_vrf_add(argv[2], r->err) : nfv_vrf_del(argv[2], r->err);
}

static json_t *
vrf_json(uint16_t vrf)
{
	json_t *ifs = json_array();

	for (unsigned int i = 0; i < NFV_IFACE_MAX; i++)
		if (nfv_ifaces[i].used && nfv_ifaces[i].vrf == vrf)
			json_array_append_new(ifs, json_string(nfv_ifaces[i].name));
	return json_pack("{s:s, s:i, s:o, s:I, s:I, s:I}", "name", nfv_vrf_name(vrf), "id",
			 (int)vrf, "interfaces", ifs,
			 "routes4", (json_int_t)nfv_route_count_vrf(AF_INET, vrf),
			 "routes6", (json_int_t)nfv_route_count_vrf(AF_INET6, vrf),
			 "table_bytes", (json_int_t)nfv_vrf_table_bytes(vrf));
}

/* vrf show [NAME] */
static int
cmd_vrf_show(int argc, char **argv, struct nfv_reply *r)
{
	json_t *a;

	if (argc > 3)
		NFV_FAIL(r, -EINVAL, "unexpected '%s'", argv[3]);
	if (argc == 3 && nfv_vrf_id(argv[2]) < 0)
		NFV_FAIL(r, -ENOENT, "unknown VRF '%s'", argv[2]);
	a = json_array();
	for (uint16_t vrf = 0; vrf < NFV_VRF_MAX; vrf++)
		if (nfv_vrf_used(vrf) && (argc < 3 || strcmp(argv[2], nfv_vrf_name(vrf)) == 0))
			json_array_append_new(a, vrf_json(vrf));
	r->data = json_pack("{s:o}", "vrfs", a);
	return 0;
}

static const struct nfv_command vrf_commands[] = {
	{ "vrf", "add", cmd_vrf_add_del, "vrf add NAME" },
	{ "vrf", "del", cmd_vrf_add_del, "vrf del NAME" },
	{ "vrf", "show", cmd_vrf_show, "vrf show [NAME]" },
};
NFV_COMMANDS_REGISTER(vrf_commands);
