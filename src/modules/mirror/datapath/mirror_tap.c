/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The mirrors of bridges and VXLAN tunnels: a tap of bridge_input
 * (modules/bridge/bridge.h), which every frame of those interfaces passes.
 * It hands over the frames of one interface and direction as that
 * interface has them (a tunnel's inner frames, received and sent before
 * their encapsulation; a bridge's frames to and from its own interface);
 * each is copied (rte_pktmbuf_copy, the mirror pool) and the copies leave
 * the session's port in one burst on this worker's TX queue.
 * Counters: as mirror_in (per session, per worker). Reads the frames only.
 */
#include <rte_common.h>

#include "modules/bridge/bridge.h"
#include "modules/mirror/mirror.h"

unsigned int nfv_mirror_tap;

static void
mirror_tap(struct nfv_worker *w, struct rte_mbuf **pkts, uint16_t n, enum nfv_bridge_tap_dir dir,
	   uint16_t iface)
{
	struct nfv_mirror_counters *c = nfv_worker_counters(w, &nfv_mirror_counters_block);
	struct rte_mempool *pool = __atomic_load_n(&nfv_mirror_pool, __ATOMIC_ACQUIRE);
	enum nfv_mirror_dir d = dir == NFV_BRIDGE_TAP_IN ? NFV_MIRROR_IN : NFV_MIRROR_OUT;
	unsigned int s = __atomic_load_n(&nfv_mirror_of[d][iface], __ATOMIC_RELAXED);
	struct rte_mbuf *copies[64];
	uint16_t k = 0;

	if (s == 0 || pool == NULL)
		return; /* a session going away */
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *copy = rte_pktmbuf_copy(pkts[i], pool, 0, UINT32_MAX);

		if (unlikely(copy == NULL)) {
			c->copy_nombuf[s - 1]++;
			continue;
		}
		copies[k++] = copy;
		if (k == RTE_DIM(copies)) {
			nfv_mirror_send(w, c, s - 1, copies, k);
			k = 0;
		}
	}
	nfv_mirror_send(w, c, s - 1, copies, k);
}

RTE_INIT(mirror_tap_register)
{
	nfv_mirror_tap = nfv_bridge_tap_register(mirror_tap);
}
