/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Output captures: an ethdev TX callback (rte_eth_add_tx_callback) on every
 * TX queue of a port that a capture watches "out" (or "both"), installed
 * by control while the capture runs. rte_eth_tx_burst calls it with the
 * frames port_tx hands to the driver: those that match the capture's
 * filter are copied (rte_pcapng_copy: this worker's index as the queue,
 * direction out) and put on the capture's ring for the control thread to
 * write; the originals go on untouched. Compared with a feature of the
 * l2_output arc, the frames take no detour through the graph (port_tx
 * would make a second pass over them): a port without an output capture
 * costs nothing, and one with a capture costs the filter loop.
 *
 * A port that has a VLAN sub-interface with an output capture has a second
 * callback (nfv_capture_vlan_tx_cb), installed while there is one: it
 * takes the frames tagged with such a sub-interface's VLAN id, and copies
 * and filters them untagged (nfv_capture_vlan_frames).
 *
 * Frames sent by a thread that is not a worker are not copied (only the
 * workers send). Frames the TX queue then refuses were copied all the same
 * (dpdk-dumpcap's callbacks see them so too).
 * Counters: captured, filtered out, ring full, no mbuf; per capture, per
 * worker.
 */
#include <rte_lcore.h>
#include <rte_per_lcore.h>

#include "modules/capture/capture.h"

/* This thread's worker: looked up at its first callback. */
static RTE_DEFINE_PER_LCORE(struct nfv_worker *, capture_worker);
static RTE_DEFINE_PER_LCORE(bool, capture_worker_known);

/* The worker this thread is, NULL when it is none. */
static __rte_always_inline struct nfv_worker *
capture_worker(void)
{
	struct nfv_worker *w = RTE_PER_LCORE(capture_worker);

	if (unlikely(w == NULL)) {
		if (RTE_PER_LCORE(capture_worker_known))
			return NULL;
		w = nfv_worker_by_lcore(rte_lcore_id());
		RTE_PER_LCORE(capture_worker) = w;
		RTE_PER_LCORE(capture_worker_known) = true;
	}
	return w;
}

uint16_t
nfv_capture_tx_cb(uint16_t port, uint16_t queue, struct rte_mbuf **pkts, uint16_t n, void *arg)
{
	struct nfv_worker *w = capture_worker();

	RTE_SET_USED(queue);
	RTE_SET_USED(arg);
	if (w == NULL)
		return n;
	(void)nfv_capture_frames(w, pkts, n, NFV_CAPTURE_OUT, &port, true);
	return n;
}

uint16_t
nfv_capture_vlan_tx_cb(uint16_t port, uint16_t queue, struct rte_mbuf **pkts, uint16_t n,
		       void *arg)
{
	struct nfv_worker *w = capture_worker();

	RTE_SET_USED(queue);
	RTE_SET_USED(arg);
	if (w != NULL)
		nfv_capture_vlan_frames(w, pkts, n, NFV_CAPTURE_OUT, port);
	return n;
}
