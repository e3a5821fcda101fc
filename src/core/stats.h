/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reading the counters: per-worker values are summed here, on the control
 * side, never on the fast path. "stats reset" records a baseline that is
 * subtracted, so workers never see their counters written by another core.
 */
#ifndef NFV_STATS_H
#define NFV_STATS_H

#include <stdbool.h>

#include <jansson.h>
#include <rte_common.h>

json_t *nfv_stats_json(void);
json_t *nfv_stats_ports_json(const char *name);
json_t *nfv_stats_graph_json(void);
json_t *nfv_stats_workers_json(void);
json_t *nfv_stats_latency_json(void);
json_t *nfv_stats_drops_json(void);
json_t *nfv_stats_pools_json(void);
void nfv_stats_reset(void);
/* Views since start instead of since the last reset (Prometheus counters must
 * never go back); returns the previous setting. Under the control lock. */
bool nfv_stats_since_start(bool on);
/* Per-worker counters since the last reset, and their sum. */
struct nfv_worker_stats;
void nfv_stats_worker(unsigned int w, struct nfv_worker_stats *out);
void nfv_stats_sum(struct nfv_worker_stats *sum);
json_t *nfv_stats_diag_json(void);
json_t *nfv_stats_graph_dot(void);
/* Called about once a second by the control loop (rates for "show diag"). */
void nfv_stats_sample(void);
/* Serialises control-plane state between the control thread, telemetry and
 * the metrics server. */
void nfv_ctl_lock(void);
void nfv_ctl_unlock(void);
int nfv_telemetry_init(void);
int nfv_metrics_start(const char *addr_port, char *err, size_t errlen);
void nfv_metrics_stop(void);
char *nfv_metrics_text(void);
/* One line for the periodic report of "make run"; returns Mpps forwarded. */
void nfv_stats_report_line(double interval_s, char *buf, size_t len);

#endif
