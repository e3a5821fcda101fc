/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Punt and inject: how packets cross between the workers and the control
 * thread, for any module (ARP/ND resolution, kernel twins...).
 *
 * Punt (worker -> control): a node sends a packet to the "nfv_punt" node
 * after naming its queue (nfv_punt_set_queue). Each queue has a packet-rate
 * policer per worker (rte_meter srTCM, colour blind, one "byte" a packet):
 * what is not green is dropped as punt/policed, what finds the worker's ring
 * full as punt/queue_full, and both are counted per queue. The control
 * thread drains every worker's ring from its event loop (a budget per turn,
 * so a flood cannot hold it either) and hands each packet to its queue's
 * handler, which owns it from then on.
 *
 * Inject (control -> worker): nfv_inject() puts a packet on a worker's
 * inject ring; the worker's "nfv_inject" source node sends it to the node
 * of its target (nfv_inject_target_register) on its next graph walk, with
 * the metadata the control side wrote (mbuf->port, nfv_meta).
 *
 * Control-built packets come from a pool of the module (nfv_punt_alloc).
 */
#ifndef NFV_PUNT_H
#define NFV_PUNT_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_mbuf.h>

#include "core/meta.h"

#define NFV_PUNT_QUEUES_MAX 16
#define NFV_INJECT_TARGETS_MAX 16

struct nfv_punt_queue {
	const char *name;
	uint32_t rate;  /* packets per second, per worker (the policer's CIR) */
	uint32_t burst; /* packets (its CBS) */
	/* Control thread, control lock held; owns m (frees or injects it).
	 * worker: the index of the worker that punted it. */
	void (*handler)(struct rte_mbuf *m, unsigned int worker);
	uint16_t id;    /* set at registration */
};

void nfv_punt_queue_register(struct nfv_punt_queue *q);

#define NFV_PUNT_QUEUE_REGISTER(q) \
	RTE_INIT(nfv_punt_queue_register_##q) \
	{ \
		nfv_punt_queue_register(&(q)); \
	}

/* The punt module's slice of the mbuf private area. */
struct nfv_punt_meta {
	uint16_t queue;  /* punt queue, or inject target */
	uint16_t worker; /* the worker that punted the packet */
};
extern struct nfv_mbuf_priv_slice nfv_punt_slice;

static inline struct nfv_punt_meta *
nfv_punt_meta(struct rte_mbuf *m)
{
	return nfv_mbuf_priv(m, &nfv_punt_slice);
}

/* Datapath: names the queue of a packet about to go to "nfv_punt". */
static inline void
nfv_punt_set_queue(struct rte_mbuf *m, const struct nfv_punt_queue *q)
{
	nfv_punt_meta(m)->queue = q->id;
}

struct nfv_inject_target {
	const char *name;
	const char *node; /* the registered node injected packets go to */
	uint16_t id;      /* set at registration */
};

void nfv_inject_target_register(struct nfv_inject_target *t);

#define NFV_INJECT_TARGET_REGISTER(t) \
	RTE_INIT(nfv_inject_target_register_##t) \
	{ \
		nfv_inject_target_register(&(t)); \
	}

/* Targets of the punt module itself: port_tx (the caller sets
 * nfv_meta(m)->tx_port: a frame ready to leave) and eth_input (a frame as
 * if received on interface mbuf->port). */
extern struct nfv_inject_target nfv_inject_port_tx;
extern struct nfv_inject_target nfv_inject_eth_input;

/*
 * Interfaces that are not ports and send frames through a node of their
 * own (a bridge floods them to its ports): the module that owns the kind
 * names the target the control side injects the frames it sends out of
 * such an interface to (with mbuf->port and meta.tx_port the interface).
 * nfv_inject_target_of_kind() is NULL for the other kinds (port_tx, or
 * what the sender does for them).
 */
void nfv_inject_kind_register(uint8_t iface_kind, const struct nfv_inject_target *t);
const struct nfv_inject_target *nfv_inject_target_of_kind(uint8_t iface_kind);

/* Control side. Sends m to target t on worker (an index; any value is
 * taken modulo the number of workers). Takes m in every case: 0, or
 * -ENOBUFS when the ring is full (m freed, counted). */
int nfv_inject(unsigned int worker, struct rte_mbuf *m, const struct nfv_inject_target *t);
/* A packet from the module's pool, data at the start of the headroom as
 * any received packet, metadata cleared; NULL when the pool is empty. */
struct rte_mbuf *nfv_punt_alloc(void);
/* The number of workers packets can be injected to. */
unsigned int nfv_punt_workers(void);
/* Changes a queue's policer (rate 0: the queue drops everything). */
int nfv_punt_queue_set(const char *name, uint32_t rate, uint32_t burst, char *err);
/* Drains the punt rings now (handlers run); the control lock held. */
void nfv_punt_drain(void);

#endif
