/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Commands of the vxlan module: vxlan add NAME vni N local IP [remote IP]...
 * [dstport P], vxlan del NAME, vxlan show [NAME].
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "api/cmd.h"
#include "api/parse.h"
#include "modules/ip/ip.h"
#include "modules/vxlan/vxlan.h"

static int
cmd_vxlan_add(int argc, char **argv, struct nfv_reply *r)
{
	static const char usage[] = "vxlan add NAME vni N local IP [remote IP]... [dstport 4789]";
	struct nfv_vxlan_conf c = { .dstport = NFV_VXLAN_PORT };
	bool have_vni = false, have_local = false, have_port = false;

	if (nfv_cmd_need_args(argc, 7, usage, r) < 0)
		return -EINVAL;
	if (!nfv_valid_name(argv[2]))
		NFV_FAIL(r, -EINVAL, "bad interface name '%s' (letters, digits, '_', '-', '.'; "
			 "starts with a letter; at most 31)", argv[2]);
	for (int i = 3; i < argc; i += 2) {
		const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		struct nfv_ip ip;
		uint32_t n;

		if (strcmp(k, "vni") != 0 && strcmp(k, "local") != 0 && strcmp(k, "remote") != 0 &&
		    strcmp(k, "dstport") != 0)
			NFV_FAIL(r, -EINVAL, "unexpected '%s' (expected vni, local, remote or "
				 "dstport); usage: %s", k, usage);
		if (v == NULL)
			NFV_FAIL(r, -EINVAL, "missing value after '%s'", k);
		if (strcmp(k, "vni") == 0) {
			if (have_vni)
				NFV_FAIL(r, -EINVAL, "'vni' given twice");
			if (nfv_parse_u32(v, 0, 0xffffff, &n) < 0)
				NFV_FAIL(r, -EINVAL, "bad VNI '%s' (expected 0-16777215)", v);
			c.vni = n;
			have_vni = true;
		} else if (strcmp(k, "dstport") == 0) {
			if (have_port)
				NFV_FAIL(r, -EINVAL, "'dstport' given twice");
			if (nfv_parse_u32(v, 1, 65535, &n) < 0)
				NFV_FAIL(r, -EINVAL, "bad dstport '%s' (expected 1-65535)", v);
			c.dstport = (uint16_t)n;
			have_port = true;
		} else {
			if (nfv_parse_ip(v, &ip) < 0)
				NFV_FAIL(r, -EINVAL, "bad %s address '%s'", k, v);
			if (ip.family != AF_INET)
				NFV_FAIL(r, -EINVAL, "%s '%s': IPv6 VTEPs are not supported (IPv4 "
					 "only)", k, v);
			if (strcmp(k, "local") == 0) {
				if (have_local)
					NFV_FAIL(r, -EINVAL, "'local' given twice");
				c.local = ip.v4;
				have_local = true;
				continue;
			}
			if (ip.v4 == 0 || (rte_be_to_cpu_32(ip.v4) >> 28) == 0xe ||
			    ip.v4 == RTE_BE32(0xffffffff))
				NFV_FAIL(r, -EINVAL, "bad remote '%s' (a unicast address)", v);
			for (unsigned int j = 0; j < c.n_remotes; j++)
				if (c.remotes[j] == ip.v4)
					NFV_FAIL(r, -EINVAL, "remote %s given twice", v);
			if (c.n_remotes == NFV_VXLAN_REMOTES_MAX)
				NFV_FAIL(r, -EINVAL, "at most %u remotes", NFV_VXLAN_REMOTES_MAX);
			c.remotes[c.n_remotes++] = ip.v4;
		}
	}
	if (!have_vni)
		NFV_FAIL(r, -EINVAL, "missing 'vni N'; usage: %s", usage);
	if (!have_local)
		NFV_FAIL(r, -EINVAL, "missing 'local IP'; usage: %s", usage);
	if (c.local == 0 || (rte_be_to_cpu_32(c.local) >> 28) == 0xe)
		NFV_FAIL(r, -EINVAL, "bad local address (a unicast address)");
	for (unsigned int j = 0; j < c.n_remotes; j++)
		if (c.remotes[j] == c.local)
			NFV_FAIL(r, -EINVAL, "a remote is the local address");
	return nfv_vxlan_add(argv[2], &c, r->err);
}

static int
cmd_vxlan_del(int argc, char **argv, struct nfv_reply *r)
{
	if (nfv_cmd_need_args(argc, 3, "vxlan del NAME", r) < 0 ||
	    nfv_cmd_max_args(argc, argv, 3, r) < 0)
		return -EINVAL;
	return nfv_vxlan_del(argv[2], r->err);
}

static int
cmd_vxlan_show(int argc, char **argv, struct nfv_reply *r)
{
	if (nfv_cmd_max_args(argc, argv, 3, r) < 0)
		return -EINVAL;
	r->data = nfv_vxlan_show(argc == 3 ? argv[2] : NULL, r->err);
	return r->data == NULL ? -ENOENT : 0;
}

static const struct nfv_command vxlan_commands[] = {
	{ "vxlan", "add", cmd_vxlan_add,
	  "vxlan add NAME vni N local IP [remote IP]... [dstport 4789]" },
	{ "vxlan", "del", cmd_vxlan_del, "vxlan del NAME" },
	{ "vxlan", "show", cmd_vxlan_show, "vxlan show [NAME]" },
};
NFV_COMMANDS_REGISTER(vxlan_commands);
