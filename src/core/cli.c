/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The core's own commands: the counter views (show stats, graph, workers,
 * latency, drops, pools, diag), stats reset / on / off and the test hooks.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>

#include "api/cmd.h"
#include "api/parse.h"
#include "core/arc.h"
#include "core/iface_event.h"
#include "core/stats.h"
#include "core/worker.h"

NFV_SHOW_COMMAND(cmd_show_stats, nfv_stats_json)
NFV_SHOW_COMMAND(cmd_show_graph, nfv_stats_graph_json)
NFV_SHOW_COMMAND(cmd_show_workers, nfv_stats_workers_json)
NFV_SHOW_COMMAND(cmd_show_latency, nfv_stats_latency_json)
NFV_SHOW_COMMAND(cmd_show_drops, nfv_stats_drops_json)
NFV_SHOW_COMMAND(cmd_show_pools, nfv_stats_pools_json)
NFV_SHOW_COMMAND(cmd_show_diag, nfv_stats_diag_json)
NFV_SHOW_COMMAND(cmd_graph_dot, nfv_stats_graph_dot)

/*
 * Test hooks (off by default):
 *   debug tx-split N        TX bursts cut into chunks of at most N (0 = off)
 *   debug rx-delay-us N     each received burst held N microseconds (0 = off)
 *   debug fastpath on|off   off: IPv4 and IPv6 take the node chain, never the
 *                           fused ip4_fast / ip6_fast nodes (the reference
 *                           path, for tests)
 */
static int
cmd_debug(int argc, char **argv, struct nfv_reply *r)
{
	uint32_t v;

	if (nfv_cmd_need_args(argc, 3,
			      "debug tx-split N | debug rx-delay-us N | debug fastpath on|off",
			      r) < 0)
		return -EINVAL;
	if (argc > 3)
		NFV_FAIL(r, -EINVAL, "unexpected '%s'", argv[3]);
	if (strcmp(argv[1], "fastpath") == 0) {
		bool off;

		if (strcmp(argv[2], "on") != 0 && strcmp(argv[2], "off") != 0)
			NFV_FAIL(r, -EINVAL, "expected on or off, not '%s'", argv[2]);
		off = strcmp(argv[2], "off") == 0;
		for (unsigned int w = 0; w < nfv_n_workers; w++)
			__atomic_store_n(&nfv_workers[w].debug.fastpath_off, off, __ATOMIC_RELAXED);
		return 0;
	}
	if (strcmp(argv[1], "tx-split") == 0) {
		if (nfv_parse_u32(argv[2], 0, NFV_BURST_MAX, &v) < 0)
			NFV_FAIL(r, -EINVAL, "bad burst size '%s' (0-%u)", argv[2], NFV_BURST_MAX);
		for (unsigned int w = 0; w < nfv_n_workers; w++)
			__atomic_store_n(&nfv_workers[w].debug.tx_split, (uint16_t)v,
					 __ATOMIC_RELAXED);
		return 0;
	}
	if (nfv_parse_u32(argv[2], 0, 1000000, &v) < 0)
		NFV_FAIL(r, -EINVAL, "bad delay '%s' (0-1000000 us)", argv[2]);
	for (unsigned int w = 0; w < nfv_n_workers; w++)
		__atomic_store_n(&nfv_workers[w].debug.delay_cycles,
				 (uint32_t)((uint64_t)v * rte_get_tsc_hz() / 1000000),
				 __ATOMIC_RELAXED);
	return 0;
}

static int
cmd_stats_reset(int argc, char **argv, struct nfv_reply *r)
{
	int rc = nfv_cmd_max_args(argc, argv, 2, r);

	if (rc == 0)
		nfv_stats_reset();
	return rc;
}

/* stats on|off: node, burst-size and latency counting (to measure its cost). */
static int
cmd_stats_switch(int argc, char **argv, struct nfv_reply *r)
{
	int rc = nfv_cmd_max_args(argc, argv, 2, r);

	if (rc < 0)
		return rc;
	for (unsigned int w = 0; w < nfv_n_workers; w++)
		nfv_workers[w].stats_off = strcmp(argv[1], "off") == 0;
	return 0;
}


/* show arcs: every arc, its features in run order, and the interfaces each
 * feature is enabled on. */
static int
cmd_show_arcs(int argc, char **argv, struct nfv_reply *r)
{
	json_t *a;
	int rc = nfv_cmd_max_args(argc, argv, 2, r);

	if (rc < 0)
		return rc;
	a = json_array();
	for (unsigned int k = 0; k < nfv_arcs_count(); k++) {
		const struct nfv_arc *arc = nfv_arc_at(k);
		json_t *feats = json_array();

		for (unsigned int i = 0; i < arc->n_features; i++) {
			json_t *on = json_array();

			for (uint16_t iface = 0; iface < NFV_ARC_IFACES; iface++)
				if (arc->enabled[iface] & (1u << i))
					json_array_append_new(on, json_string(nfv_iface_name(iface)));
			json_array_append_new(feats, json_pack(
				"{s:s, s:o}", "feature",
				nfv_node_display_name(arc->features[i]->node), "ifaces", on));
		}
		json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:o}", "arc", arc->name,
						   "from", nfv_node_display_name(arc->start_node),
						   "to", nfv_node_display_name(arc->end_node),
						   "features", feats));
	}
	r->data = json_pack("{s:o}", "arcs", a);
	return 0;
}

static const struct nfv_command core_commands[] = {
	{ "show", "stats", cmd_show_stats, "show stats" },
	{ "show", "graph", cmd_show_graph, "show graph" },
	{ "show", "workers", cmd_show_workers, "show workers" },
	{ "show", "latency", cmd_show_latency, "show latency" },
	{ "show", "drops", cmd_show_drops, "show drops" },
	{ "show", "pools", cmd_show_pools, "show pools" },
	{ "show", "diag", cmd_show_diag, "show diag" },
	{ "show", "arcs", cmd_show_arcs, "show arcs" },
	{ "graph", "dot", cmd_graph_dot, "graph dot" },
	{ "debug", "tx-split", cmd_debug, "debug tx-split N" },
	{ "debug", "rx-delay-us", cmd_debug, "debug rx-delay-us N" },
	{ "debug", "fastpath", cmd_debug, "debug fastpath on|off" },
	{ "stats", "reset", cmd_stats_reset, "stats reset" },
	{ "stats", "on", cmd_stats_switch, "stats on|off (node, burst and latency counters)" },
	{ "stats", "off", cmd_stats_switch, "stats on|off (node, burst and latency counters)" },
};
NFV_COMMANDS_REGISTER(core_commands);
