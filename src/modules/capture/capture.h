/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Packet capture to pcapng files:
 *
 *	capture start dev IF [in|out|both] file FILE.pcapng [filter "EXPR"] [count N]
 *	capture stop [dev IF]
 *
 * The frames a port receives (as received: the l2_input arc) and/or sends
 * (as sent: the l2_output arc) that match the filter (tcpdump syntax,
 * compiled by libpcap for Ethernet, converted to eBPF by rte_bpf_convert
 * and run by rte_bpf, JIT-compiled where the CPU allows) are copied by the
 * worker with rte_pcapng_copy (timestamp, direction, queue) into the
 * capture's own pool and put on its ring; the control thread drains the
 * ring on its event loop and writes the file (rte_pcapng). A worker never
 * waits for the file: a full ring or an empty pool costs the copy, counted.
 * "count N" ends the capture after N frames written; "capture stop" returns
 * once the file is complete and closed.
 */
#ifndef NFV_CAPTURE_H
#define NFV_CAPTURE_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>
#include <rte_bpf.h>
#include <rte_config.h>
#include <rte_cycles.h>
#include <rte_mbuf.h>
#include <rte_pcapng.h>
#include <rte_ring.h>

#include "core/counters.h"
#include "core/meta.h"

#define NFV_CAPTURE_MAX 8

enum nfv_capture_dir {
	NFV_CAPTURE_IN,
	NFV_CAPTURE_OUT,
	NFV_CAPTURE_DIRS,
};

/* What the workers read of a capture (immutable while published). */
struct nfv_capture_dp {
	struct rte_ring *ring;         /* multi-producer, single consumer */
	struct rte_mempool *pool;      /* the copies */
	struct rte_bpf *bpf;           /* NULL: every frame */
	uint64_t (*jit)(void *);       /* the filter's native code, NULL: interpreted */
	uint32_t snaplen;
	uint16_t slot;                 /* its counters */
};

/* The capture of (direction, port), NULL: none. RCU: workers read it once
 * per frame within a walk; control frees it after a grace period. */
extern struct nfv_capture_dp *nfv_capture_of[NFV_CAPTURE_DIRS][RTE_MAX_ETHPORTS];

/* Per worker, per capture slot. */
struct nfv_capture_counters {
	uint64_t matched[NFV_CAPTURE_MAX];      /* copied to the ring */
	uint64_t filtered[NFV_CAPTURE_MAX];     /* did not match the filter */
	uint64_t ring_drops[NFV_CAPTURE_MAX];   /* ring full */
	uint64_t nombuf[NFV_CAPTURE_MAX];       /* no mbuf for the copy */
};
extern struct nfv_counter_block nfv_capture_counters_block;

/* Wall time of a TSC reading: a reference taken at start (read only). */
struct nfv_capture_clock {
	uint64_t tsc;
	uint64_t ns;
	uint64_t hz;
};
extern struct nfv_capture_clock nfv_capture_clock;

static inline uint64_t
nfv_capture_ns(uint64_t tsc)
{
	const struct nfv_capture_clock *k = &nfv_capture_clock;
	uint64_t d = tsc - k->tsc, secs = d / k->hz;

	return k->ns + secs * NS_PER_S + (d - secs * k->hz) * NS_PER_S / k->hz;
}

/* The pcapng enhanced packet block that starts a copy (RFC draft
 * "PCAP Next Generation", 4.3): its timestamp is set again from our clock. */
struct nfv_pcapng_epb {
	uint32_t block_type;
	uint32_t block_length;
	uint32_t interface_id;
	uint32_t timestamp_hi;
	uint32_t timestamp_lo;
};

struct nfv_capture_args {
	const char *dev;
	unsigned int dirs;   /* bits of enum nfv_capture_dir */
	const char *file;
	const char *filter;  /* NULL: none */
	uint64_t count;      /* 0: no limit */
};

int nfv_capture_start(const struct nfv_capture_args *a, json_t **out, char *err);
int nfv_capture_stop(const char *dev, json_t **out, char *err);
json_t *nfv_capture_show(void);

/* A run of frames of one capture: the copies go on its ring, the counts
 * into its counters, once per run. */
struct nfv_capture_run {
	const struct nfv_capture_dp *s;
	unsigned int k;        /* copies */
	uint32_t filtered;
	uint32_t nombuf;
	struct rte_mbuf *copies[64];
};

static __rte_always_inline void
nfv_capture_flush(struct nfv_capture_counters *c, struct nfv_capture_run *r)
{
	const struct nfv_capture_dp *s = r->s;
	unsigned int done;

	if (s == NULL)
		return;
	c->filtered[s->slot] += r->filtered;
	c->nombuf[s->slot] += r->nombuf;
	r->filtered = r->nombuf = 0;
	if (r->k == 0)
		return;
	done = rte_ring_mp_enqueue_burst(s->ring, (void **)r->copies, r->k, NULL);
	c->matched[s->slot] += done;
	if (unlikely(done < r->k)) {
		c->ring_drops[s->slot] += r->k - done;
		rte_pktmbuf_free_bulk(r->copies + done, r->k - done);
	}
	r->k = 0;
}

/*
 * The frames of pkts[] that the capture of their port (receiving or
 * output) wants: filter, copy, ring. The capture is looked up again only
 * when the port changes; counters are added once per run of one capture.
 * The originals are only read.
 */
static __rte_always_inline void
nfv_capture_burst(struct nfv_worker *w, struct rte_mbuf **pkts, uint16_t n,
		  enum nfv_capture_dir dir)
{
	struct nfv_capture_counters *c = nfv_worker_counters(w, &nfv_capture_counters_block);
	struct nfv_capture_run run;
	const struct nfv_capture_dp *s = NULL;
	uint32_t last_port = UINT32_MAX;
	uint64_t now = 0, ns = 0;

	run.s = NULL;
	run.k = run.filtered = run.nombuf = 0;
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i], *copy;
		uint16_t port = dir == NFV_CAPTURE_IN ? m->port : nfv_meta(m)->tx_port;

		if (unlikely(port != last_port)) {
			last_port = port;
			s = port < RTE_MAX_ETHPORTS ?
				__atomic_load_n(&nfv_capture_of[dir][port], __ATOMIC_ACQUIRE) : NULL;
		}
		if (s == NULL)
			continue; /* a capture ending */
		if (unlikely(s != run.s || run.k == RTE_DIM(run.copies))) {
			nfv_capture_flush(c, &run);
			run.s = s;
		}
		if (s->bpf != NULL &&
		    (s->jit != NULL ? s->jit(m) : rte_bpf_exec(s->bpf, m)) == 0) {
			run.filtered++;
			continue;
		}
		if (now == 0) {
			now = rte_rdtsc();
			ns = nfv_capture_ns(now);
		}
		copy = rte_pcapng_copy(port, w->index, m, s->pool, s->snaplen, now,
				       dir == NFV_CAPTURE_IN ? RTE_PCAPNG_DIRECTION_IN :
				       RTE_PCAPNG_DIRECTION_OUT);
		if (unlikely(copy == NULL)) {
			run.nombuf++;
			continue;
		}
		{
			struct nfv_pcapng_epb *epb = rte_pktmbuf_mtod(copy, struct nfv_pcapng_epb *);

			epb->timestamp_hi = (uint32_t)(ns >> 32);
			epb->timestamp_lo = (uint32_t)ns;
		}
		run.copies[run.k++] = copy;
	}
	nfv_capture_flush(c, &run);
}

#endif
