/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ports: probed at run time from DPDK device arguments, one mbuf pool each
 * (sized from its descriptor counts), RSS over its RX queues, one TX queue
 * per worker.
 */
#ifndef NFV_PORT_H
#define NFV_PORT_H

#include <stdbool.h>
#include <stdint.h>
#include <rte_ethdev.h>
#include <rte_spinlock.h>

#include "core/worker.h"
#include "modules/infra/iface.h"

#define NFV_PORT_NAME_LEN 32
#define NFV_DEVARGS_LEN 1024

struct nfv_port_conf {
	uint16_t n_rxq;
	uint16_t n_txq; /* 0: one per worker */
	uint16_t rxd;
	uint16_t txd;
	uint16_t mtu;   /* 0: device default (1500) */
};

struct nfv_port {
	bool used;
	bool admin_up;   /* read by workers: port_tx drops while down */
	bool removing;
	bool tx_shared;  /* fewer TX queues than workers: queue taken under a lock */
	/* The driver leaves mbuf->port as it was (net_ring: a frame looped
	 * back keeps the port it first came in by): port_rx writes it. */
	bool rx_port_unset;
	uint16_t port_id;
	uint16_t mtu;
	uint16_t n_rxq;
	uint16_t n_txq;
	uint16_t rxd;
	uint16_t txd;
	struct rte_ether_addr mac;
	char name[NFV_PORT_NAME_LEN];
	char devargs[NFV_DEVARGS_LEN];
	char dev_name[RTE_ETH_NAME_MAX_LEN];
	char driver[64];
	struct rte_mempool *pool;
	uint64_t rss_hf;      /* RSS hash functions (0: no RSS) */
	uint8_t rss_key[64];  /* the symmetric key given to the device */
	uint8_t rss_key_len;
	uint16_t txq_of_worker[NFV_MAX_WORKERS];
	rte_spinlock_t tx_lock[NFV_MAX_WORKERS];
} __rte_cache_aligned;

extern struct nfv_port nfv_ports[RTE_MAX_ETHPORTS];

/* rte_eth_tx_burst of n packets on queue q of port p (the calling
 * worker's), under the queue's lock when workers share it. Returns how
 * many the queue took; the rest are the caller's. */
static __rte_always_inline uint16_t
nfv_port_tx_queue(struct nfv_port *p, uint16_t q, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t sent;

	if (likely(!p->tx_shared))
		return rte_eth_tx_burst(p->port_id, q, pkts, n);
	rte_spinlock_lock(&p->tx_lock[q]);
	sent = rte_eth_tx_burst(p->port_id, q, pkts, n);
	rte_spinlock_unlock(&p->tx_lock[q]);
	return sent;
}

/* True when the first 6 of the 8 bytes loaded from a frame are not key's. */
static inline bool
nfv_mac_key_differs(uint64_t frame8, uint64_t key)
{
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
	return ((frame8 ^ key) << 16) != 0;
#else
	return ((frame8 ^ key) >> 16) != 0;
#endif
}

int nfv_port_add(const char *name, const char *devargs, const struct nfv_port_conf *conf,
		 char *err);
int nfv_port_del(const char *name, char *err);
int nfv_port_set_admin(const char *name, bool up, char *err);
struct nfv_port *nfv_port_by_name(const char *name);
/* Stops and closes every port; returns the mbufs that never came back. */
unsigned int nfv_ports_close_all(void);
/* Mbufs kept by drivers that own their pool's memory (af_xdp umem) at close. */
unsigned int nfv_ports_driver_held(void);
/* Pools of removed ports wait here until their mbufs come home. */
void nfv_ports_reap_pools(bool final);

struct nfv_pool_usage {
	const char *name;
	unsigned int size;
	unsigned int in_use;
};
typedef void (*nfv_pool_cb)(const struct nfv_pool_usage *u, void *arg);
void nfv_pools_walk(nfv_pool_cb cb, void *arg);
/* A module's own pool, walked and counted with the ports' (until unwatched):
 * 0 or -ENOSPC. */
int nfv_pool_watch(struct rte_mempool *mp);
void nfv_pool_unwatch(struct rte_mempool *mp);
/* Sum of mbufs not in their pool (0 at a clean exit). */
unsigned int nfv_pools_in_use(void);

#endif
