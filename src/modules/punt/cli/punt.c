/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Commands of the punt module:
 *   punt show                              queues (policer, counts), inject targets
 *   punt set QUEUE rate PPS [burst N]      a queue's policer, per worker
 *   punt inject dev NAME hex HEX           a frame as if received on NAME (tests)
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>

#include "api/cmd.h"
#include "api/parse.h"
#include "modules/infra/cli.h"
#include "modules/infra/iface.h"
#include "modules/punt/punt.h"
#include "modules/punt/punt_private.h"

NFV_SHOW_COMMAND(cmd_punt_show, nfv_punt_json)

static int
parse_u32(const char *s, uint32_t *v)
{
	char *end;
	unsigned long x;

	if (!isdigit((unsigned char)s[0]))
		return -1;
	errno = 0;
	x = strtoul(s, &end, 10);
	if (errno != 0 || *end != '\0' || x > UINT32_MAX)
		return -1;
	*v = (uint32_t)x;
	return 0;
}

static int
cmd_punt_set(int argc, char **argv, struct nfv_reply *r)
{
	uint32_t rate = 0, burst = 0;

	if (nfv_cmd_need_args(argc, 5, "punt set QUEUE rate PPS [burst N]", r) < 0)
		return -EINVAL;
	if (strcmp(argv[3], "rate") != 0)
		NFV_FAIL(r, -EINVAL, "unexpected '%s' (expected 'rate')", argv[3]);
	if (parse_u32(argv[4], &rate) < 0)
		NFV_FAIL(r, -EINVAL, "bad rate '%s' (packets per second)", argv[4]);
	if (argc > 5) {
		if (strcmp(argv[5], "burst") != 0)
			NFV_FAIL(r, -EINVAL, "unexpected '%s' (expected 'burst')", argv[5]);
		if (argc < 7)
			NFV_FAIL(r, -EINVAL, "missing value after 'burst' (packets, at least 1)");
		if (parse_u32(argv[6], &burst) < 0 || burst == 0)
			NFV_FAIL(r, -EINVAL, "bad burst '%s' (packets, at least 1)", argv[6]);
		if (nfv_cmd_max_args(argc, argv, 7, r) < 0)
			return -EINVAL;
	}
	return nfv_punt_queue_set(argv[2], rate, burst, r->err);
}

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static int
cmd_punt_inject(int argc, char **argv, struct nfv_reply *r)
{
	struct nfv_iface *ifc;
	struct rte_mbuf *m;
	size_t len;
	uint8_t *p;

	if (nfv_cmd_need_args(argc, 6, "punt inject dev NAME hex HEX", r) < 0 ||
	    nfv_cmd_max_args(argc, argv, 6, r) < 0)
		return -EINVAL;
	if (strcmp(argv[2], "dev") != 0)
		NFV_FAIL(r, -EINVAL, "unexpected '%s' (expected 'dev')", argv[2]);
	if (strcmp(argv[4], "hex") != 0)
		NFV_FAIL(r, -EINVAL, "unexpected '%s' (expected 'hex')", argv[4]);
	ifc = nfv_iface_need(argv[3], r);
	if (ifc == NULL)
		return -ENOENT;
	len = strlen(argv[5]);
	if (len % 2 != 0 || len / 2 < 14 || len / 2 > 1514)
		NFV_FAIL(r, -EINVAL, "bad frame '%.16s...': an even number of hex digits, "
			 "14 to 1514 bytes", argv[5]);
	m = nfv_punt_alloc();
	if (m == NULL)
		NFV_FAIL(r, -ENOBUFS, "no packet buffer left");
	p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(len / 2));
	if (p == NULL) {
		rte_pktmbuf_free(m);
		NFV_FAIL(r, -ENOBUFS, "frame too long for a packet buffer");
	}
	for (size_t i = 0; i < len / 2; i++) {
		int hi = hexval(argv[5][2 * i]), lo = hexval(argv[5][2 * i + 1]);

		if (hi < 0 || lo < 0) {
			rte_pktmbuf_free(m);
			NFV_FAIL(r, -EINVAL, "bad hex digit at %zu", 2 * i);
		}
		p[i] = (uint8_t)(hi << 4 | lo);
	}
	m->port = ifc->id;
	if (nfv_inject(0, m, &nfv_inject_eth_input) < 0)
		NFV_FAIL(r, -ENOBUFS, "inject ring full");
	return 0;
}

static const struct nfv_command punt_commands[] = {
	{ "punt", "show", cmd_punt_show, "punt show" },
	{ "punt", "set", cmd_punt_set, "punt set QUEUE rate PPS [burst N]" },
	{ "punt", "inject", cmd_punt_inject, "punt inject dev NAME hex HEX" },
};
NFV_COMMANDS_REGISTER(punt_commands);
