/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The captures of bridges and VXLAN tunnels: a tap of bridge_input
 * (modules/bridge/bridge.h), which every frame of those interfaces passes.
 * It hands over the frames of one interface and direction as that
 * interface has them: a tunnel's inner frames as received and as sent
 * (before their encapsulation), as "tcpdump -i vxlan0" shows them; a
 * bridge's frames to and from its own interface, as "tcpdump -i br0" does.
 * Those that match the capture's filter are copied (rte_pcapng_copy: this
 * worker's index as the queue) and put on the capture's ring, by the path
 * a port's frames take (its cache of frame classes the filter rejects
 * spares them the filter); the control thread writes them under the
 * interface's own block in the file.
 * Counters: as capture_in (per capture, per worker). Reads the frames only.
 */
#include <rte_common.h>

#include "modules/bridge/bridge.h"
#include "modules/capture/capture.h"

unsigned int nfv_capture_tap;

/* The frames of one interface: the ports' one-port path, class cache
 * included (capture.h). */
static void
capture_tap(struct nfv_worker *w, struct rte_mbuf **pkts, uint16_t n,
	    enum nfv_bridge_tap_dir dir, uint16_t iface)
{
	(void)nfv_capture_frames(w, pkts, n,
				 dir == NFV_BRIDGE_TAP_IN ? NFV_CAPTURE_IN : NFV_CAPTURE_OUT,
				 &iface, true);
}

RTE_INIT(capture_tap_register)
{
	nfv_capture_tap = nfv_bridge_tap_register(capture_tap);
}
