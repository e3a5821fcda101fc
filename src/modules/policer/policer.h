/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Policers (rte_meter): srTCM (RFC 2697) with "cir RATE cbs BYTES", trTCM
 * (RFC 2698) with "pir RATE pbs BYTES" as well, attached per interface and
 * direction. Colour-blind; green and yellow pass, red is dropped. Rates are
 * bit/s of IP packets (from the IP header on).
 *
 * Several workers: each has its own meter per policer (no shared state on
 * the fast path), metering a share of the rates. A control timer sets the
 * shares every 100 ms in proportion to the bytes each worker offered the
 * policer in the last period (at least 1/16 each), so the workers together
 * let through the configured rate whether the traffic comes on one worker
 * or is spread over several. Profiles are double-buffered: control writes
 * the one the workers do not read, flips, and waits a grace period.
 */
#ifndef NFV_POLICER_H
#define NFV_POLICER_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>
#include <rte_meter.h>

#include "core/common.h"
#include "core/worker.h"

enum nfv_policer_dir {
	NFV_POLICER_IN,
	NFV_POLICER_OUT,
	NFV_POLICER_DIRS,
};

/* One worker's meter of one policer: the meter and counters written by
 * the worker, the profiles by control. */
struct nfv_policer_worker {
	union {
		struct rte_meter_srtcm sr;
		struct rte_meter_trtcm tr;
	} m;
	uint64_t packets[3]; /* RTE_COLOR_GREEN, YELLOW, RED */
	uint64_t bytes[3];
	union {
		struct rte_meter_srtcm_profile sr;
		struct rte_meter_trtcm_profile tr;
	} prof[2];
	uint32_t cur;           /* the profile workers use */
	/* Control only. */
	uint64_t offered_last;  /* bytes at the last share update */
	double share;
} __rte_cache_aligned;

struct nfv_policer {
	char name[32];
	bool trtcm;
	uint64_t cir, cbs, pir, pbs; /* bytes/s and bytes, as configured (rates /8) */
	uint32_t n_attached;
	struct nfv_policer_worker *w; /* nfv_n_workers of them */
};

/* What the workers read: the policer attached to an interface, per direction. */
extern struct nfv_policer *nfv_policer_bound[NFV_POLICER_DIRS][NFV_IFACE_MAX];

int nfv_policer_add(const char *name, uint64_t cir_bps, uint64_t cbs, uint64_t pir_bps,
		    uint64_t pbs, char *err);
int nfv_policer_del(const char *name, char *err);
int nfv_policer_attach(const char *name, const char *dev, enum nfv_policer_dir dir, bool on,
		       char *err);
json_t *nfv_policer_show(const char *name, char *err);

#endif
