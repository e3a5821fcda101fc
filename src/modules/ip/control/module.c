/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ip module: its options (route capacities) and its place in the
 * start-up order. Route capacities not given on the command line shrink
 * until the tables fit the memory EAL was given and leave enough to the
 * mbuf pools (a million IPv4 routes take about 850 MB).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_lcore.h>
#include <rte_malloc.h>

#include "core/log.h"
#include "core/module.h"
#include "modules/ip/ip.h"

static struct nfv_limits limits = {
	.max_routes4 = 1u << 20,
	.max_routes6 = 65536,
	.tbl8_4 = 1 << 15,
	.tbl8_6 = 1 << 15,
};
static bool max_routes4_set, max_routes6_set;

/* Memory the tables must leave to the rest (mbuf pools of a few ports,
 * rings, the graph): a quarter of what EAL has, at least 96 MB. */
#define IP_MIN_LEFT (96u << 20)

static size_t
heap_bytes(int socket, bool free_only)
{
	struct rte_malloc_socket_stats st;

	if (rte_malloc_get_socket_stats(socket, &st) != 0)
		return 0;
	return free_only ? st.heap_freesz_bytes : st.heap_totalsz_bytes;
}

static const struct nfv_module_option ip_options[] = {
	{ "max-routes4", "N", "IPv4 route capacity (default 1048576; ~850 MB per million)" },
	{ "max-routes6", "N", "IPv6 route capacity (default 65536)" },
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
		max_routes4_set = true;
	} else {
		limits.max_routes6 = (uint32_t)v;
		max_routes6_set = true;
	}
	return 0;
}

/*
 * The tables at their default size when they leave enough memory to the
 * rest; else, unless the user chose the capacities, smaller ones: each step
 * halves what was not given on the command line (routes and tbl8 groups),
 * down to 64k IPv4 and 16k IPv6 routes.
 */
static int
ip_module_init(void)
{
	int socket = (int)rte_socket_id();
	size_t total = heap_bytes(socket, false);
	size_t want_left = RTE_MAX((size_t)IP_MIN_LEFT, total / 4);

	for (;;) {
		bool fits = nfv_ip_init(&limits, socket) == 0;
		bool can_shrink = (!max_routes4_set && limits.max_routes4 > 65536) ||
				  (!max_routes6_set && limits.max_routes6 > 16384);

		if (fits && (heap_bytes(socket, true) >= want_left || !can_shrink)) {
			if (heap_bytes(socket, true) < want_left)
				NFV_LOG(WARNING, "route tables leave %zu MB of memory for mbuf "
					"pools; give nfvd more memory or lower --max-routes4 / "
					"--max-routes6", heap_bytes(socket, true) >> 20);
			return 0;
		}
		nfv_ip_fini();
		if (!can_shrink) {
			fprintf(stderr, "nfvd: not enough memory for %u IPv4 and %u IPv6 routes: "
				"give nfvd more memory (hugepages, or -m with --no-huge) or lower "
				"--max-routes4 / --max-routes6\n", limits.max_routes4,
				limits.max_routes6);
			return -ENOMEM;
		}
		if (!max_routes4_set && limits.max_routes4 > 65536) {
			limits.max_routes4 /= 2;
			limits.tbl8_4 = RTE_MAX(limits.tbl8_4 / 2, 2048u);
		}
		if (!max_routes6_set && limits.max_routes6 > 16384) {
			limits.max_routes6 /= 2;
			limits.tbl8_6 = RTE_MAX(limits.tbl8_6 / 2, 2048u);
		}
		NFV_LOG(NOTICE, "memory: %zu MB in all; route tables sized down to %u IPv4 and "
			"%u IPv6 routes (--max-routes4 / --max-routes6 to choose)", total >> 20,
			limits.max_routes4, limits.max_routes6);
	}
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
