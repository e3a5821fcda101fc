/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ip module: its options (route capacities) and its place in the
 * start-up order. The route tables start small and grow on demand up to
 * the capacities given (a million IPv4 routes take about 850 MB).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_random.h>

#include "core/log.h"
#include "core/module.h"
#include "modules/ip/ip.h"
#include "modules/ip/ip_node.h"

static struct nfv_limits limits = {
	.max_routes4 = 1u << 20,
	.max_routes6 = 65536,
	.tbl8_4 = 1 << 15,
	.tbl8_6 = 1 << 15,
};

static size_t
heap_bytes(int socket, bool free_only)
{
	struct rte_malloc_socket_stats st;

	if (rte_malloc_get_socket_stats(socket, &st) != 0)
		return 0;
	return free_only ? st.heap_freesz_bytes : st.heap_totalsz_bytes;
}

static const struct nfv_module_option ip_options[] = {
	{ "max-routes4", "N", "most IPv4 routes (default 1048576, ~850 MB per million; "
	  "the tables start at 65536 and grow)" },
	{ "max-routes6", "N", "most IPv6 routes (default 65536; the tables start at 16384 "
	  "and grow)" },
	{ "vrf-routes", "N", "route capacity per family of each VRF made by 'vrf add' "
	  "(default 4096; about 1.6 KB per route and family)" },
	{ NULL, NULL, NULL },
};

static int
ip_parse_option(const char *name, const char *value, char *err, size_t len)
{
	char *end;
	unsigned long v = strtoul(value, &end, 10);

	if (*end != '\0' || v < 16 || v > (1ul << 26)) {
		snprintf(err, len, "bad route capacity '%s'", value);
		return -EINVAL;
	}
	if (strcmp(name, "vrf-routes") == 0) {
		limits.vrf_routes = (uint32_t)v;
	} else if (strcmp(name, "max-routes4") == 0) {
		limits.max_routes4 = (uint32_t)v;
	} else {
		limits.max_routes6 = (uint32_t)v;
	}
	return 0;
}

/*
 * The tables start small (64k IPv4 and 16k IPv6 routes, or less when the
 * max is lower) and grow by rebuild, four times larger a step, up to the max
 * (--max-routes4 / --max-routes6) when routes need the room: start-up does
 * not pay for a million routes nobody added, and a table that cannot grow
 * for want of memory says so when the route is added.
 */
static int
ip_module_init(void)
{
	int socket = (int)rte_socket_id();

	/* Each worker's IPv4 identifications from a random start. */
	for (unsigned int i = 0; i < NFV_MAX_WORKERS; i++)
		nfv_ip4_idents[i].next = (uint16_t)rte_rand();
	limits.start_routes4 = RTE_MIN(limits.max_routes4, 65536u);
	limits.start_routes6 = RTE_MIN(limits.max_routes6, 16384u);
	if (nfv_ip_init(&limits, socket) == 0)
		return 0;
	nfv_ip_fini();
	fprintf(stderr, "nfvd: not enough memory for the route tables (%zu MB free): give nfvd "
		"more memory (hugepages, or -m with --no-huge)\n",
		heap_bytes(socket, true) >> 20);
	return -ENOMEM;
}

static struct nfv_module ip_module = {
	.name = "ip",
	.depends_on = "infra",
	.init = ip_module_init,
	.fini = nfv_ip_fini,
	.options = ip_options,
	.parse_option = ip_parse_option,
};
NFV_MODULE_REGISTER(ip_module);
