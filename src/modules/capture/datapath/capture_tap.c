/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The captures of bridges and VXLAN tunnels: a tap of bridge_input
 * (modules/bridge/bridge.h), which every frame of those interfaces passes.
 * It hands over the frames of one interface and direction as that
 * interface has them: a tunnel's inner frames as received and as sent
 * (before their encapsulation), as "tcpdump -i vxlan0" shows them; a
 * bridge's frames to and from its own interface, as "tcpdump -i br0" does.
 * Those that match the capture's filter are copied (rte_pcapng_copy: this
 * worker's index as the queue) and put on the capture's ring; the control
 * thread writes them under the interface's own block in the file.
 * Counters: as capture_in (per capture, per worker). Reads the frames only.
 */
#include <rte_common.h>

#include "modules/bridge/bridge.h"
#include "modules/capture/capture.h"

unsigned int nfv_capture_tap;

static void
capture_tap(struct nfv_worker *w, struct rte_mbuf **pkts, uint16_t n,
	    enum nfv_bridge_tap_dir dir, uint16_t iface)
{
	struct nfv_capture_counters *c = nfv_worker_counters(w, &nfv_capture_counters_block);
	enum nfv_capture_dir d = dir == NFV_BRIDGE_TAP_IN ? NFV_CAPTURE_IN : NFV_CAPTURE_OUT;
	struct nfv_capture_run run;

	run.s = __atomic_load_n(&nfv_capture_of[d][iface], __ATOMIC_ACQUIRE);
	if (run.s == NULL)
		return; /* a capture ending */
	run.k = run.filtered = run.nombuf = 0;
	run.tsc = 0;
	for (uint16_t i = 0; i < n; i++) {
		if (nfv_capture_match(run.s, pkts[i]))
			nfv_capture_copy(w, c, &run, pkts[i], run.s->port, d);
		else
			run.filtered++;
	}
	nfv_capture_flush(c, &run);
}

RTE_INIT(capture_tap_register)
{
	nfv_capture_tap = nfv_bridge_tap_register(capture_tap);
}
