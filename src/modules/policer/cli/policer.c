/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Commands of the policer module:
 *   policer add NAME cir RATE cbs BYTES [pir RATE pbs BYTES]   (RATE in bit/s: 10M, 1G)
 *   policer attach NAME dev IF in|out | policer detach NAME dev IF in|out
 *   policer del NAME | policer show [NAME]
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "api/cmd.h"
#include "api/parse.h"
#include "modules/policer/policer.h"

#define ADD_USAGE "policer add NAME cir RATE cbs BYTES [pir RATE pbs BYTES]"

/* A number with an optional K, M or G (powers of 1000). */
static int
parse_scaled(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	uint64_t mult = 1;
	char *end;

	if (s == NULL || s[0] < '0' || s[0] > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0)
		return -EINVAL;
	if (*end == 'k' || *end == 'K')
		mult = 1000;
	else if (*end == 'm' || *end == 'M')
		mult = 1000000;
	else if (*end == 'g' || *end == 'G')
		mult = 1000000000;
	if (mult != 1)
		end++;
	if (*end != '\0' || v > max / mult || v * mult < min)
		return -EINVAL;
	*out = v * mult;
	return 0;
}

static int
cmd_policer_add(int argc, char **argv, struct nfv_reply *r)
{
	uint64_t cir, cbs, pir = 0, pbs = 0;

	if (nfv_cmd_need_args(argc, 7, ADD_USAGE, r) < 0 || nfv_cmd_max_args(argc, argv, 11, r) < 0)
		return -EINVAL;
	if (!nfv_valid_name(argv[2]))
		NFV_FAIL(r, -EINVAL, "bad policer name '%s' (letters, digits, '_', '-', '.'; "
			 "starts with a letter; at most 31)", argv[2]);
	if (strcmp(argv[3], "cir") != 0)
		NFV_FAIL(r, -EINVAL, "unexpected '%s' (expected 'cir'); usage: %s", argv[3],
			 ADD_USAGE);
	if (parse_scaled(argv[4], 8, 400000000000ull, &cir) < 0)
		NFV_FAIL(r, -EINVAL, "bad rate '%s' (bit/s, 8 to 400G, e.g. 10M)", argv[4]);
	if (strcmp(argv[5], "cbs") != 0)
		NFV_FAIL(r, -EINVAL, "unexpected '%s' (expected 'cbs'); usage: %s", argv[5],
			 ADD_USAGE);
	if (parse_scaled(argv[6], 64, 1000000000ull, &cbs) < 0)
		NFV_FAIL(r, -EINVAL, "bad burst size '%s' (bytes, 64 to 1G)", argv[6]);
	/* The optional trTCM pair: each missing or extra word is named. */
	if (argc > 7) {
		if (strcmp(argv[7], "pir") != 0)
			NFV_FAIL(r, -EINVAL, "unexpected '%s' (expected 'pir'); usage: %s", argv[7],
				 ADD_USAGE);
		if (argc < 9)
			NFV_FAIL(r, -EINVAL, "missing value after 'pir'; usage: %s", ADD_USAGE);
		if (parse_scaled(argv[8], 8, 400000000000ull, &pir) < 0)
			NFV_FAIL(r, -EINVAL, "bad rate '%s' (bit/s, 8 to 400G, e.g. 10M)", argv[8]);
		if (argc < 10)
			NFV_FAIL(r, -EINVAL, "missing 'pbs BYTES' after 'pir %s'; usage: %s",
				 argv[8], ADD_USAGE);
		if (strcmp(argv[9], "pbs") != 0)
			NFV_FAIL(r, -EINVAL, "unexpected '%s' (expected 'pbs'); usage: %s", argv[9],
				 ADD_USAGE);
		if (argc < 11)
			NFV_FAIL(r, -EINVAL, "missing value after 'pbs'; usage: %s", ADD_USAGE);
		if (parse_scaled(argv[10], 64, 1000000000ull, &pbs) < 0)
			NFV_FAIL(r, -EINVAL, "bad burst size '%s' (bytes, 64 to 1G)", argv[10]);
	}
	return nfv_policer_add(argv[2], cir, cbs, pir, pbs, r->err);
}

static int
cmd_policer_attach(int argc, char **argv, struct nfv_reply *r)
{
	bool on = strcmp(argv[1], "attach") == 0;
	const char *usage = on ? "policer attach NAME dev IF in|out" :
				 "policer detach NAME dev IF in|out";
	enum nfv_policer_dir dir;

	if (nfv_cmd_need_args(argc, 6, usage, r) < 0 || nfv_cmd_max_args(argc, argv, 6, r) < 0)
		return -EINVAL;
	if (strcmp(argv[3], "dev") != 0)
		NFV_FAIL(r, -EINVAL, "unexpected '%s' (expected 'dev'); usage: %s", argv[3], usage);
	if (strcmp(argv[5], "in") == 0)
		dir = NFV_POLICER_IN;
	else if (strcmp(argv[5], "out") == 0)
		dir = NFV_POLICER_OUT;
	else
		NFV_FAIL(r, -EINVAL, "bad direction '%s' (in or out)", argv[5]);
	return nfv_policer_attach(argv[2], argv[4], dir, on, r->err);
}

static int
cmd_policer_del(int argc, char **argv, struct nfv_reply *r)
{
	if (nfv_cmd_need_args(argc, 3, "policer del NAME", r) < 0 ||
	    nfv_cmd_max_args(argc, argv, 3, r) < 0)
		return -EINVAL;
	return nfv_policer_del(argv[2], r->err);
}

static int
cmd_policer_show(int argc, char **argv, struct nfv_reply *r)
{
	if (nfv_cmd_max_args(argc, argv, 3, r) < 0)
		return -EINVAL;
	r->data = nfv_policer_show(argc == 3 ? argv[2] : NULL, r->err);
	return r->data == NULL ? -ENOENT : 0;
}

static const struct nfv_command policer_commands[] = {
	{ "policer", "add", cmd_policer_add, ADD_USAGE },
	{ "policer", "del", cmd_policer_del, "policer del NAME" },
	{ "policer", "attach", cmd_policer_attach, "policer attach NAME dev IF in|out" },
	{ "policer", "detach", cmd_policer_attach, "policer detach NAME dev IF in|out" },
	{ "policer", "show", cmd_policer_show, "policer show [NAME]" },
};
NFV_COMMANDS_REGISTER(policer_commands);
