/* SPDX-License-Identifier: BSD-3-Clause */
/* Commands of the capture module:
 *	capture start dev IF [in|out|both] file FILE [filter "EXPR"] [count N]
 *	capture stop [dev IF]
 *	capture show */
#include <errno.h>
#include <string.h>

#include "api/cmd.h"
#include "api/parse.h"
#include "modules/capture/capture.h"

static int
cmd_capture_start(int argc, char **argv, struct nfv_reply *r)
{
	static const char usage[] =
		"capture start dev IF [in|out|both] file FILE.pcapng [filter \"EXPR\"] [count N]";
	struct nfv_capture_args a = { .dirs = 3 };
	int i = 2;

	if (nfv_cmd_need_args(argc, 6, usage, r) < 0)
		return -EINVAL;
	if (strcmp(argv[i], "dev") != 0)
		NFV_FAIL(r, -EINVAL, "unexpected '%s' (expected 'dev'); usage: %s", argv[i], usage);
	a.dev = argv[i + 1];
	i += 2;
	if (strcmp(argv[i], "in") == 0 || strcmp(argv[i], "out") == 0 ||
	    strcmp(argv[i], "both") == 0) {
		a.dirs = argv[i][0] == 'i' ? 1u << NFV_CAPTURE_IN :
			 argv[i][0] == 'o' ? 1u << NFV_CAPTURE_OUT : 3;
		i++;
	}
	if (i >= argc || strcmp(argv[i], "file") != 0)
		NFV_FAIL(r, -EINVAL, "%s%s%s (expected 'file'); usage: %s",
			 i < argc ? "unexpected '" : "missing 'file'", i < argc ? argv[i] : "",
			 i < argc ? "'" : "", usage);
	if (i + 1 >= argc)
		NFV_FAIL(r, -EINVAL, "missing value after 'file'");
	a.file = argv[i + 1];
	if (a.file[0] == '\0')
		NFV_FAIL(r, -EINVAL, "empty file name");
	for (i += 2; i < argc; i += 2) {
		if (i + 1 >= argc)
			NFV_FAIL(r, -EINVAL, "missing value after '%s'", argv[i]);
		if (strcmp(argv[i], "filter") == 0 && a.filter == NULL) {
			a.filter = argv[i + 1];
		} else if (strcmp(argv[i], "count") == 0 && a.count == 0) {
			uint32_t n;

			if (nfv_parse_u32(argv[i + 1], 1, UINT32_MAX, &n) < 0)
				NFV_FAIL(r, -EINVAL, "bad count '%s' (expected 1 or more)",
					 argv[i + 1]);
			a.count = n;
		} else {
			NFV_FAIL(r, -EINVAL, "unexpected '%s'; usage: %s", argv[i], usage);
		}
	}
	return nfv_capture_start(&a, &r->data, r->err);
}

static int
cmd_capture_stop(int argc, char **argv, struct nfv_reply *r)
{
	static const char usage[] = "capture stop [dev IF]";

	if (argc == 2)
		return nfv_capture_stop(NULL, &r->data, r->err);
	if (nfv_cmd_need_args(argc, 4, usage, r) < 0 || nfv_cmd_max_args(argc, argv, 4, r) < 0)
		return -EINVAL;
	if (strcmp(argv[2], "dev") != 0)
		NFV_FAIL(r, -EINVAL, "unexpected '%s' (expected 'dev'); usage: %s", argv[2], usage);
	return nfv_capture_stop(argv[3], &r->data, r->err);
}

NFV_SHOW_COMMAND(cmd_capture_show, nfv_capture_show)

static const struct nfv_command capture_commands[] = {
	{ "capture", "start", cmd_capture_start,
	  "capture start dev IF [in|out|both] file FILE.pcapng [filter \"EXPR\"] [count N]" },
	{ "capture", "stop", cmd_capture_stop, "capture stop [dev IF]" },
	{ "capture", "show", cmd_capture_show, "capture show" },
};
NFV_COMMANDS_REGISTER(capture_commands);
