/* SPDX-License-Identifier: BSD-3-Clause */
/* Commands of the mirror module: mirror add NAME dev IF in|out|both to IF2,
 * mirror del NAME, mirror show. */
#include <errno.h>
#include <string.h>

#include "api/cmd.h"
#include "api/parse.h"
#include "modules/mirror/mirror.h"

static int
cmd_mirror_add(int argc, char **argv, struct nfv_reply *r)
{
	static const char usage[] = "mirror add NAME dev IF in|out|both to IF2";
	unsigned int dirs;

	/* A word where 'to' belongs is named, even on a short line. */
	if (argc == 7 && strcmp(argv[6], "to") != 0)
		NFV_FAIL(r, -EINVAL, "unexpected '%s' (expected 'to'); usage: %s", argv[6], usage);
	if (nfv_cmd_need_args(argc, 8, usage, r) < 0 || nfv_cmd_max_args(argc, argv, 8, r) < 0)
		return -EINVAL;
	if (!nfv_valid_name(argv[2]))
		NFV_FAIL(r, -EINVAL, "bad mirror name '%s' (letters, digits, '_', '-', '.'; "
			 "starts with a letter; at most 31)", argv[2]);
	if (strcmp(argv[3], "dev") != 0)
		NFV_FAIL(r, -EINVAL, "unexpected '%s' (expected 'dev'); usage: %s", argv[3], usage);
	if (strcmp(argv[5], "in") == 0)
		dirs = 1u << NFV_MIRROR_IN;
	else if (strcmp(argv[5], "out") == 0)
		dirs = 1u << NFV_MIRROR_OUT;
	else if (strcmp(argv[5], "both") == 0)
		dirs = (1u << NFV_MIRROR_IN) | (1u << NFV_MIRROR_OUT);
	else
		NFV_FAIL(r, -EINVAL, "bad direction '%s' (expected in, out or both)", argv[5]);
	if (strcmp(argv[6], "to") != 0)
		NFV_FAIL(r, -EINVAL, "unexpected '%s' (expected 'to'); usage: %s", argv[6], usage);
	return nfv_mirror_add(argv[2], argv[4], dirs, argv[7], r->err);
}

static int
cmd_mirror_del(int argc, char **argv, struct nfv_reply *r)
{
	if (nfv_cmd_need_args(argc, 3, "mirror del NAME", r) < 0 ||
	    nfv_cmd_max_args(argc, argv, 3, r) < 0)
		return -EINVAL;
	return nfv_mirror_del(argv[2], r->err);
}

NFV_SHOW_COMMAND(cmd_mirror_show, nfv_mirror_show)

static const struct nfv_command mirror_commands[] = {
	{ "mirror", "add", cmd_mirror_add, "mirror add NAME dev IF in|out|both to IF2" },
	{ "mirror", "del", cmd_mirror_del, "mirror del NAME" },
	{ "mirror", "show", cmd_mirror_show, "mirror show" },
};
NFV_COMMANDS_REGISTER(mirror_commands);
