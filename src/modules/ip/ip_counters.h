/* SPDX-License-Identifier: BSD-3-Clause */
/* The ip module's per-worker counter block, for its nodes. */
#ifndef NFV_IP_COUNTERS_H
#define NFV_IP_COUNTERS_H

#include "core/counters.h"
#include "modules/ip/ip.h"

extern struct nfv_counter_block nfv_ip_counters_block;

static inline struct nfv_ip_counters *
nfv_ip_counters(struct nfv_worker *w)
{
	return nfv_worker_counters(w, &nfv_ip_counters_block);
}

#endif
