/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reading the counters: per-worker values are summed here, on the control
 * side, never on the fast path. "stats reset" records a baseline that is
 * subtracted, so workers never see their counters written by another core.
 */
#ifndef NFV_STATS_H
#define NFV_STATS_H

#include <jansson.h>
#include "../ip/ip.h"

json_t *nfv_stats_json(void);
json_t *nfv_stats_ports_json(const char *name);
json_t *nfv_stats_graph_json(void);
json_t *nfv_stats_workers_json(void);
json_t *nfv_stats_latency_json(void);
json_t *nfv_stats_drops_json(void);
json_t *nfv_stats_pools_json(void);
json_t *nfv_stats_routes_json(const struct nfv_prefix *exact);
json_t *nfv_stats_addrs_json(void);
json_t *nfv_stats_neighs_json(void);
json_t *nfv_stats_nexthops_json(void);
void nfv_stats_reset(void);
/* One line for the periodic report of "make run"; returns Mpps forwarded. */
void nfv_stats_report_line(double interval_s, char *buf, size_t len);

#endif
