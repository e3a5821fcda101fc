/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Port mirroring (SPAN): "mirror add NAME dev IF in|out|both to IF2". A copy
 * (rte_pktmbuf_copy: its own data, never a clone sharing the original's) of
 * every frame IF receives (as received, before anything reads it: the
 * l2_input arc) and/or sends (as sent: the l2_output arc) leaves IF2 on the
 * worker's own TX queue. A copy IF2 does not take, or that finds no mbuf,
 * is freed and counted; the original goes on untouched whatever happens to
 * its copy.
 *
 * IF may be a VLAN sub-interface: its frames are copied as the
 * sub-interface has them, untagged (as "tcpdump -i eth0.10" shows them):
 * in, on the vlan_l2_input arc (vlan_input has removed the tag); out, on
 * the l2_output arc of its port, the frames that leave the port with its
 * VLAN id (routed, answered by nfvd, bridged), their copies untagged.
 *
 * IF may be a bridge or a VXLAN tunnel: bridge_input, which all their
 * frames pass, hands them over (a tap, modules/bridge/bridge.h): a
 * tunnel's inner frames in and out (before their encapsulation), a
 * bridge's frames to and from its own interface.
 *
 * IF2 is a port, or a VLAN sub-interface (remote SPAN): the copies leave
 * its port with its 802.1Q tag (inserted into each copy: nfv_vlan_tag_insert).
 */
#ifndef NFV_MIRROR_H
#define NFV_MIRROR_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_config.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "core/counters.h"
#include "core/meta.h"
#include "modules/infra/port.h"
#include "modules/vlan/vlan.h"

#define NFV_MIRROR_MAX 16
#define NFV_MIRROR_NAME_LEN 32

enum nfv_mirror_dir {
	NFV_MIRROR_IN,
	NFV_MIRROR_OUT,
	NFV_MIRROR_DIRS,
};

/* Session index + 1 mirroring (direction, interface);
 * 0: none. Workers read. */
extern uint8_t nfv_mirror_of[NFV_MIRROR_DIRS][NFV_IFACE_MAX];
/* Each session's destination port (a VLAN sub-interface's: its parent).
 * Workers read. */
extern uint16_t nfv_mirror_dst[NFV_MIRROR_MAX];
/* A destination that is a VLAN sub-interface (remote SPAN): the
 * sub-interface, whose 802.1Q tag the copies get; 0 for a port. */
extern uint16_t nfv_mirror_dst_vlan[NFV_MIRROR_MAX];
/* The pool copies come from (made by the first "mirror add"). */
extern struct rte_mempool *nfv_mirror_pool;

/* The mirrors' tap of bridge_input (datapath/mirror_tap.c). */
extern unsigned int nfv_mirror_tap;

/* Per worker, per session. */
struct nfv_mirror_counters {
	uint64_t copies[NFV_MIRROR_MAX];       /* taken by the mirror port */
	uint64_t copy_drops[NFV_MIRROR_MAX];   /* refused by it (queue full) or it is down */
	uint64_t copy_nombuf[NFV_MIRROR_MAX];  /* no mbuf for the copy */
};
extern struct nfv_counter_block nfv_mirror_counters_block;

int nfv_mirror_add(const char *name, const char *dev, unsigned int dirs, const char *to,
		   char *err);
int nfv_mirror_del(const char *name, char *err);
json_t *nfv_mirror_show(void);

/* Tags copies[] (this worker's own) with VLAN sub-interface vlan's 802.1Q
 * header; returns those left, in order: one whose tag does not fit (no
 * headroom) is freed and counted dropped. */
static __rte_noinline __rte_unused uint16_t
nfv_mirror_tag(struct nfv_mirror_counters *c, unsigned int s, uint16_t vlan,
	       struct rte_mbuf **copies, uint16_t n)
{
	uint16_t vid = nfv_ifaces[vlan].vlan_id, k = 0;

	for (uint16_t i = 0; i < n; i++) {
		if (unlikely(!nfv_vlan_tag_insert(copies[i], vid))) {
			c->copy_drops[s]++;
			rte_pktmbuf_free(copies[i]);
			continue;
		}
		copies[k++] = copies[i];
	}
	return k;
}

/* Sends n copies of session s out of its port (tagged, for a VLAN
 * sub-interface); frees and counts what it refuses. */
static inline void
nfv_mirror_send(struct nfv_worker *w, struct nfv_mirror_counters *c, unsigned int s,
		struct rte_mbuf **copies, uint16_t n)
{
	uint16_t dst = __atomic_load_n(&nfv_mirror_dst[s], __ATOMIC_RELAXED), sent = 0;
	uint16_t vlan = __atomic_load_n(&nfv_mirror_dst_vlan[s], __ATOMIC_RELAXED);
	struct nfv_port *p = &nfv_ports[dst];

	if (n == 0)
		return;
	if (unlikely(vlan != 0)) {
		if (vlan >= NFV_IFACE_MAX ||
		    !__atomic_load_n(&nfv_ifaces[vlan].admin_up, __ATOMIC_RELAXED)) {
			c->copy_drops[s] += n;
			rte_pktmbuf_free_bulk(copies, n);
			return;
		}
		n = nfv_mirror_tag(c, s, vlan, copies, n);
	}
	if (likely(dst < RTE_MAX_ETHPORTS && __atomic_load_n(&p->admin_up, __ATOMIC_RELAXED)))
		sent = nfv_port_tx_queue(p, p->txq_of_worker[w->index], copies, n);
	c->copies[s] += sent;
	if (unlikely(sent < n)) {
		c->copy_drops[s] += (uint64_t)(n - sent);
		rte_pktmbuf_free_bulk(copies + sent, n - sent);
	}
}

/*
 * Copies the frames of pkts[] whose interface (receiving, or output port)
 * has a session in direction dir and sends them, one burst per run of one
 * session. With vlan_out, the frames are leaving their port and the
 * interface is the sub-interface of their tag, the copies untagged. The
 * originals are only read.
 */
static __rte_always_inline void
nfv_mirror_burst(struct nfv_worker *w, struct rte_mbuf **pkts, uint16_t n,
		 enum nfv_mirror_dir dir, const bool vlan_out)
{
	struct nfv_mirror_counters *c = nfv_worker_counters(w, &nfv_mirror_counters_block);
	struct rte_mempool *pool = __atomic_load_n(&nfv_mirror_pool, __ATOMIC_ACQUIRE);
	struct rte_mbuf *copies[64];
	unsigned int cur = 0;
	uint16_t k = 0;

	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint16_t iface = dir == NFV_MIRROR_IN ? m->port : nfv_meta(m)->tx_port;
		unsigned int s;
		struct rte_mbuf *copy;

		if (vlan_out) {
			iface = nfv_vlan_iface_of_frame(m, iface);
			if (iface == NFV_VLAN_NONE)
				continue; /* untagged, or another VLAN */
		}
		s = iface < NFV_IFACE_MAX ?
			__atomic_load_n(&nfv_mirror_of[dir][iface], __ATOMIC_RELAXED) : 0;

		if (s == 0 || pool == NULL)
			continue; /* a session going away */
		if (s != cur || k == RTE_DIM(copies)) {
			if (k != 0)
				nfv_mirror_send(w, c, cur - 1, copies, k);
			k = 0;
			cur = s;
		}
		copy = rte_pktmbuf_copy(m, pool, 0, UINT32_MAX);
		if (unlikely(copy == NULL)) {
			c->copy_nombuf[s - 1]++;
			continue;
		}
		if (vlan_out)
			nfv_vlan_untag(copy);
		copies[k++] = copy;
	}
	if (k != 0)
		nfv_mirror_send(w, c, cur - 1, copies, k);
}

#endif
