/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Port control: probe a device from its DPDK arguments, check what was asked
 * against what the device can do, give it an mbuf pool sized from its
 * descriptor counts, configure RSS and one TX queue per worker, start it and
 * hand its RX queues to the workers.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_bus.h>
#include <rte_dev.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mbuf_pool_ops.h>
#include <rte_memzone.h>
#include <rte_memory.h>
#include <rte_mempool.h>

#include "modules/infra/port.h"
#include "api/parse.h"
#include "core/log.h"
#include "core/meta.h"
#include "modules/infra/eth.h"
#include "core/module.h"
#include "core/common.h"
#include "core/iface_event.h"

struct nfv_port nfv_ports[RTE_MAX_ETHPORTS];

/* Pools whose port is gone but whose mbufs may still sit in TX rings. */
#define NFV_GRAVEYARD_MAX 64
static struct rte_mempool *graveyard[NFV_GRAVEYARD_MAX];
static unsigned int pool_seq;

#define NFV_POOL_CACHE 256
#define NFV_POOL_FACTOR 4

struct nfv_port *
nfv_port_by_name(const char *name)
{
	for (unsigned int i = 0; i < RTE_MAX_ETHPORTS; i++)
		if (nfv_ports[i].used && strcmp(nfv_ports[i].name, name) == 0)
			return &nfv_ports[i];
	return NULL;
}

static int
port_find_probed(const char *devargs, uint16_t *port_id)
{
	struct rte_dev_iterator it;
	uint16_t pid;
	int rc;

	rc = rte_eth_iterator_init(&it, devargs);
	if (rc < 0)
		return rc;
	pid = rte_eth_iterator_next(&it);
	if (pid == RTE_MAX_ETHPORTS)
		return -ENODEV;
	rte_eth_iterator_cleanup(&it);
	*port_id = pid;
	return 0;
}

static const char *
probe_hint(int rc)
{
	switch (-rc) {
	case EACCES:
		return "permission denied: run nfvd as root, or give the user access to "
		       "/dev/vfio and the hugepages";
	case EPERM: /* what most drivers return for any failure (-1) */
		return "the driver refused it: check the device arguments (file names, "
		       "interface names), that the device exists, and that nfvd runs as root";
	case EBUSY:
		return "device busy: another process (or the kernel driver) holds it; "
		       "stop it or bind the device with 'dpdk-devbind.py -b vfio-pci ADDR'";
	case ENODEV:
	case ENOENT:
		return "no such device: for a NIC, bind it to vfio-pci first "
		       "('dpdk-devbind.py -b vfio-pci ADDR'); for a virtual device "
		       "check the driver name (net_pcap0, net_af_xdp0, net_tap0, ...)";
	case ENOTSUP:
		return "the driver for this device is not available";
	default:
		return "check the device arguments";
	}
}

static unsigned int
pool_size_for(const struct nfv_port_conf *c, uint16_t n_txq)
{
	unsigned int need = NFV_POOL_FACTOR * ((unsigned int)c->rxd * c->n_rxq +
					       (unsigned int)c->txd * n_txq) +
			    (nfv_n_workers + 1) * (NFV_POOL_CACHE * 3 / 2 + NFV_BURST_MAX);
	unsigned int size = 1;

	while (size - 1 < need)
		size <<= 1;
	return size - 1;
}

static void
graveyard_put(struct rte_mempool *mp)
{
	if (mp == NULL)
		return;
	if (rte_mempool_in_use_count(mp) == 0) {
		rte_mempool_free(mp);
		return;
	}
	for (unsigned int i = 0; i < NFV_GRAVEYARD_MAX; i++)
		if (graveyard[i] == NULL) {
			graveyard[i] = mp;
			return;
		}
	NFV_LOG(WARNING, "pool %s still has %u mbufs out; leaving it allocated", mp->name,
		rte_mempool_in_use_count(mp));
}

void
nfv_ports_reap_pools(bool final)
{
	for (unsigned int i = 0; i < NFV_GRAVEYARD_MAX; i++) {
		struct rte_mempool *mp = graveyard[i];

		if (mp == NULL)
			continue;
		if (rte_mempool_in_use_count(mp) == 0) {
			rte_mempool_free(mp);
			graveyard[i] = NULL;
		} else if (final) {
			NFV_LOG(ERR, "pool %s: %u mbufs never returned", mp->name,
				rte_mempool_in_use_count(mp));
		}
	}
}

/*
 * Mbufs a driver keeps after close. DPDK 22.11's af_xdp driver uses the pool
 * itself as the AF_XDP umem: the buffers it lent to the kernel's fill ring
 * are never returned when the port closes, only released with the umem.
 */
static unsigned int driver_held_mbufs;

unsigned int
nfv_ports_driver_held(void)
{
	return driver_held_mbufs;
}

static void
port_teardown(uint16_t pid, bool remove_dev)
{
	struct nfv_port *p = &nfv_ports[pid];
	struct rte_eth_dev_info info;
	struct rte_device *dev = NULL;
	bool umem_pool = strcmp(p->driver, "net_af_xdp") == 0;
	int rc;

	if (rte_eth_dev_info_get(pid, &info) == 0)
		dev = info.device;
	rc = rte_eth_dev_stop(pid);
	if (rc < 0 && rc != -ENODEV)
		NFV_LOG(WARNING, "port %s: stop: %s", p->name, rte_strerror(-rc));
	rte_eth_dev_close(pid);
	if (remove_dev && dev != NULL) {
		rc = rte_dev_remove(dev);
		if (rc < 0)
			NFV_LOG(WARNING, "port %s: device remove: %s", p->name, rte_strerror(-rc));
	}
	if (umem_pool && p->pool != NULL) {
		unsigned int held = rte_mempool_in_use_count(p->pool);

		if (held != 0)
			NFV_LOG(INFO, "port %s: %u mbufs stay with the af_xdp driver's umem (freed "
				"with the pool)", p->name, held);
		driver_held_mbufs += held;
		rte_mempool_free(p->pool);
		p->pool = NULL;
	}
	graveyard_put(p->pool);
	memset(p, 0, sizeof(*p));
}

/*
 * The af_xdp driver registers the memory of the pool it is given as one
 * AF_XDP umem: from the first memory chunk's address, populated_size
 * objects long. The pool must therefore be one virtual span of objects with
 * no gap. rte_pktmbuf_pool_create() cuts it into chunks wherever the IOVA
 * of its pages breaks (hugepages not physically contiguous, IOVA as PA),
 * and leaves gaps where it keeps objects from crossing a page. Here the
 * objects are AF_XDP_OBJ bytes (header, mbuf, private area and data room),
 * which divides every page size, in one virtually contiguous memzone
 * aligned to it: the chunks rte_mempool_populate_virt() cuts at IOVA breaks
 * follow each other with no gap, no object crosses a page, and every mbuf
 * has its real IOVA.
 */
#define AF_XDP_OBJ 4096u

static void
af_xdp_pool_mz_free(struct rte_mempool_memhdr *memhdr, void *opaque)
{
	RTE_SET_USED(memhdr);
	rte_memzone_free(opaque);
}

static void
af_xdp_pool_span(struct rte_mempool *mp, void *opaque, struct rte_mempool_memhdr *memhdr,
		 unsigned int idx)
{
	uintptr_t *end = opaque; /* [0] the next chunk's start, [1] 0 while no gap */

	RTE_SET_USED(mp);
	if (idx != 0 && (uintptr_t)memhdr->addr != end[0])
		end[1] = 1;
	end[0] = (uintptr_t)memhdr->addr + memhdr->len;
}

/* True when the pool's objects are one virtual span with no gap. */
static bool
pool_is_one_span(struct rte_mempool *mp)
{
	struct rte_mempool_memhdr *first = STAILQ_FIRST(&mp->mem_list);
	uintptr_t end[2] = { 0, 0 };
	size_t obj = mp->header_size + mp->elt_size + mp->trailer_size;

	if (first == NULL)
		return false;
	rte_mempool_mem_iter(mp, af_xdp_pool_span, end);
	return end[1] == 0 && end[0] - (uintptr_t)first->addr == (size_t)mp->populated_size * obj;
}

static struct rte_mempool *
af_xdp_pool_create(const char *name, unsigned int n, uint32_t data_room, int socket,
		   char *err, const char *port)
{
	struct rte_pktmbuf_pool_private priv = {
		.mbuf_priv_size = nfv_mbuf_priv_size(),
	};
	uint32_t head = RTE_ALIGN_CEIL(sizeof(struct rte_mempool_objhdr), RTE_MEMPOOL_ALIGN);
	uint32_t elt = AF_XDP_OBJ - head;
	char mz_name[RTE_MEMZONE_NAMESIZE];
	const struct rte_memzone *mz;
	struct rte_mempool *mp;
	int rc;

	if (sizeof(struct rte_mbuf) + priv.mbuf_priv_size + data_room > elt) {
		snprintf(err, NFV_ERR_LEN, "port %s: af_xdp mbufs hold at most %zu bytes of data "
			 "room here, the MTU needs %u", port,
			 (size_t)elt - sizeof(struct rte_mbuf) - priv.mbuf_priv_size, data_room);
		return NULL;
	}
	priv.mbuf_data_room_size = (uint16_t)(elt - sizeof(struct rte_mbuf) - priv.mbuf_priv_size);
	mp = rte_mempool_create_empty(name, n, elt, NFV_POOL_CACHE, sizeof(priv), socket,
				      RTE_MEMPOOL_F_NO_SPREAD);
	if (mp == NULL)
		goto fail;
	if (mp->header_size + mp->elt_size + mp->trailer_size != AF_XDP_OBJ) {
		snprintf(err, NFV_ERR_LEN, "port %s: af_xdp pool objects of %u bytes, not %u",
			 port, mp->header_size + mp->elt_size + mp->trailer_size, AF_XDP_OBJ);
		rte_mempool_free(mp);
		return NULL;
	}
	rc = rte_mempool_set_ops_byname(mp, rte_mbuf_best_mempool_ops(), NULL);
	if (rc < 0) {
		rte_errno = -rc;
		goto fail_free;
	}
	rte_pktmbuf_pool_init(mp, &priv);
	snprintf(mz_name, sizeof(mz_name), "%s_umem", name);
	mz = rte_memzone_reserve_aligned(mz_name, (size_t)n * AF_XDP_OBJ, socket, 0, AF_XDP_OBJ);
	if (mz == NULL)
		goto fail_free;
	rc = rte_mempool_populate_virt(mp, mz->addr, mz->len, mz->hugepage_sz,
				       af_xdp_pool_mz_free, (void *)(uintptr_t)mz);
	if (rc < 0 || mp->populated_size != n) {
		if (rc <= 0) /* the memzone is the pool's once a chunk holds it */
			rte_memzone_free(mz);
		rte_errno = rc < 0 ? -rc : ENOMEM;
		goto fail_free;
	}
	rte_mempool_obj_iter(mp, rte_pktmbuf_init, NULL);
	return mp;

fail_free:
	rte_mempool_free(mp);
fail:
	snprintf(err, NFV_ERR_LEN, "port %s: cannot allocate its mbuf pool (%s): reserve more "
		 "hugepages or lower rxd/txd", port, rte_strerror(rte_errno));
	return NULL;
}

/* The error for an MTU the device refused (rc): the range it takes, as
 * ethdev reckons it (its frame limit less its header overhead). */
static void
mtu_refused(char *err, uint32_t mtu, const char *dev, int rc, const struct rte_eth_dev_info *info)
{
	uint32_t over = info->max_mtu != UINT16_MAX && info->max_rx_pktlen > info->max_mtu ?
			info->max_rx_pktlen - info->max_mtu : RTE_ETHER_HDR_LEN + RTE_ETHER_CRC_LEN;
	uint32_t hi = RTE_MIN((uint32_t)info->max_mtu,
			      info->max_rx_pktlen > over ? info->max_rx_pktlen - over : 0);

	snprintf(err, NFV_ERR_LEN, "mtu %u: device %s refused it (%s); range %u-%u", mtu, dev,
		 rte_strerror(-rc), info->min_mtu, hi);
}

static int
port_configure(struct nfv_port *p, const struct nfv_port_conf *c, char *err)
{
	uint16_t pid = p->port_id;
	struct rte_eth_dev_info info;
	struct rte_eth_conf conf;
	struct rte_eth_rxconf rxconf;
	struct rte_eth_txconf txconf;
	uint16_t n_txq, rxd = c->rxd, txd = c->txd;
	char pool_name[RTE_MEMPOOL_NAMESIZE];
	uint32_t data_room;
	unsigned int pool_n;
	int socket, rc;

	rc = rte_eth_dev_info_get(pid, &info);
	if (rc < 0) {
		snprintf(err, NFV_ERR_LEN, "port %s: cannot read device info: %s", p->name,
			 rte_strerror(-rc));
		return rc;
	}
	snprintf(p->driver, sizeof(p->driver), "%s", info.driver_name);
	p->rx_port_unset = strcmp(info.driver_name, "net_ring") == 0;
	if (c->n_rxq > info.max_rx_queues) {
		snprintf(err, NFV_ERR_LEN, "rxq %u: device %s (%s) has at most %u RX queues",
			 c->n_rxq, p->dev_name, info.driver_name, info.max_rx_queues);
		return -EINVAL;
	}
	n_txq = c->n_txq != 0 ? c->n_txq : (uint16_t)nfv_n_workers;
	if (c->n_txq != 0 && c->n_txq > info.max_tx_queues) {
		snprintf(err, NFV_ERR_LEN, "txq %u: device %s (%s) has at most %u TX queues",
			 c->n_txq, p->dev_name, info.driver_name, info.max_tx_queues);
		return -EINVAL;
	}
	if (n_txq > info.max_tx_queues)
		n_txq = info.max_tx_queues;
	if (n_txq == 0)
		n_txq = 1;
	p->tx_shared = n_txq < nfv_n_workers;
	if (p->tx_shared)
		NFV_LOG(WARNING, "port %s: %u TX queues for %u workers: queues are shared "
			"under a lock", p->name, n_txq, nfv_n_workers);

	memset(&conf, 0, sizeof(conf));
	p->rss_hf = 0;
	p->rss_key_len = 0;
	if (c->n_rxq > 1 && strcmp(info.driver_name, "net_af_packet") == 0) {
		/* Each queue is a packet socket in one fanout group of the
		 * kernel's, which spreads the flows over them by the skb's flow
		 * hash (the same for both directions of a flow); a queue whose
		 * ring is full rolls over to another. No RSS to configure. */
		NFV_LOG(INFO, "port %s: %u RX queues, spread by the kernel's packet fanout "
			"(flow hash)", p->name, c->n_rxq);
	} else if (c->n_rxq > 1) {
		uint64_t want = RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP | RTE_ETH_RSS_UDP;

		if ((info.flow_type_rss_offloads & want) == 0) {
			snprintf(err, NFV_ERR_LEN, "rxq %u: device %s (%s) has no RSS to spread "
				 "packets over several RX queues; use rxq 1", c->n_rxq,
				 p->dev_name, info.driver_name);
			return -ENOTSUP;
		}
		conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		conf.rx_adv_conf.rss_conf.rss_hf = want & info.flow_type_rss_offloads;
		p->rss_hf = conf.rx_adv_conf.rss_conf.rss_hf;
		/* A symmetric Toeplitz key (0x6d5a repeated, the device's key
		 * size): both directions of a flow hash alike, so they reach
		 * the same queue (see the acl module's worker handoff). */
		p->rss_key_len = info.hash_key_size != 0 ? info.hash_key_size : 40;
		if (p->rss_key_len > sizeof(p->rss_key))
			p->rss_key_len = sizeof(p->rss_key);
		for (unsigned int i = 0; i < p->rss_key_len; i++)
			p->rss_key[i] = i & 1 ? 0x5a : 0x6d;
		conf.rx_adv_conf.rss_conf.rss_key = p->rss_key;
		conf.rx_adv_conf.rss_conf.rss_key_len = p->rss_key_len;
	}
	if (info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_IPV4_CKSUM)
		conf.rxmode.offloads |= RTE_ETH_RX_OFFLOAD_IPV4_CKSUM;
	if (info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_RSS_HASH && c->n_rxq > 1)
		conf.rxmode.offloads |= RTE_ETH_RX_OFFLOAD_RSS_HASH;

	rc = rte_eth_dev_configure(pid, c->n_rxq, n_txq, &conf);
	if (rc < 0 && c->n_txq == 0 && n_txq < c->n_rxq && c->n_rxq <= info.max_tx_queues) {
		/* Some drivers (net_tap) want as many TX queues as RX queues: the
		 * extra ones are set up and left unused. */
		rc = rte_eth_dev_configure(pid, c->n_rxq, c->n_rxq, &conf);
		if (rc == 0) {
			n_txq = c->n_rxq;
			p->tx_shared = false;
		}
	}
	if (rc < 0) {
		snprintf(err, NFV_ERR_LEN, "port %s: configure %u rxq / %u txq failed: %s",
			 p->name, c->n_rxq, n_txq, rte_strerror(-rc));
		return rc;
	}
	rc = rte_eth_dev_adjust_nb_rx_tx_desc(pid, &rxd, &txd);
	if (rc < 0) {
		snprintf(err, NFV_ERR_LEN, "port %s: descriptor counts rxd %u / txd %u refused: %s",
			 p->name, c->rxd, c->txd, rte_strerror(-rc));
		return rc;
	}
	rte_eth_dev_get_mtu(pid, &p->mtu);
	if (p->mtu == 0)
		p->mtu = RTE_ETHER_MTU;
	if (c->mtu != 0) {
		rc = rte_eth_dev_set_mtu(pid, c->mtu);
		if (rc == -ENOTSUP && c->mtu <= info.max_mtu) {
			/* Virtual devices without an MTU setting: enforced in software
			 * (ip4_rewrite / ip6_rewrite check the output MTU anyway), up
			 * to the largest the device says it takes, as port set does. */
			NFV_LOG(INFO, "port %s: device has no MTU setting; MTU %u enforced by nfvd",
				p->name, c->mtu);
			rc = 0;
		}
		if (rc < 0) {
			mtu_refused(err, c->mtu, p->dev_name, rc, &info);
			return rc;
		}
		p->mtu = c->mtu;
	}
	socket = rte_eth_dev_socket_id(pid);
	if (socket < 0)
		socket = (int)rte_socket_id();
	data_room = RTE_MBUF_DEFAULT_BUF_SIZE;
	if ((uint32_t)p->mtu + RTE_ETHER_HDR_LEN + 8 + RTE_PKTMBUF_HEADROOM > data_room)
		data_room = (uint32_t)p->mtu + RTE_ETHER_HDR_LEN + 8 + RTE_PKTMBUF_HEADROOM;
	snprintf(pool_name, sizeof(pool_name), "nfv_pool_%u", pool_seq++);
	pool_n = pool_size_for(&(struct nfv_port_conf){ .n_rxq = c->n_rxq, .rxd = rxd, .txd = txd },
			       n_txq);
	if (strcmp(info.driver_name, "net_af_xdp") == 0) {
		p->pool = af_xdp_pool_create(pool_name, pool_n, data_room, socket, err, p->name);
		if (p->pool == NULL)
			return -ENOMEM;
		NFV_LOG(INFO, "port %s: af_xdp umem of %u mbufs in %u IOVA-contiguous chunk(s), "
			"one virtual span", p->name, pool_n, p->pool->nb_mem_chunks);
	} else {
		p->pool = rte_pktmbuf_pool_create(pool_name, pool_n, NFV_POOL_CACHE,
						  nfv_mbuf_priv_size(), (uint16_t)data_room,
						  socket);
		if (p->pool == NULL) {
			snprintf(err, NFV_ERR_LEN, "port %s: cannot allocate its mbuf pool (%s): "
				 "reserve more hugepages or lower rxd/txd", p->name,
				 rte_strerror(rte_errno));
			return -ENOMEM;
		}
	}
	/* The af_xdp driver registers the pool's memory as one AF_XDP umem. */
	if (strcmp(info.driver_name, "net_af_xdp") == 0 && !pool_is_one_span(p->pool)) {
		snprintf(err, NFV_ERR_LEN, "port %s: af_xdp needs its mbuf pool in one span of "
			 "memory but it is in %u chunks with gaps", p->name,
			 p->pool->nb_mem_chunks);
		return -ENOMEM;
	}
	rxconf = info.default_rxconf;
	rxconf.offloads = conf.rxmode.offloads;
	for (uint16_t q = 0; q < c->n_rxq; q++) {
		rc = rte_eth_rx_queue_setup(pid, q, rxd, (unsigned int)socket, &rxconf, p->pool);
		if (rc < 0) {
			snprintf(err, NFV_ERR_LEN, "port %s: RX queue %u setup failed: %s", p->name,
				 q, rte_strerror(-rc));
			return rc;
		}
	}
	txconf = info.default_txconf;
	txconf.offloads = conf.txmode.offloads;
	for (uint16_t q = 0; q < n_txq; q++) {
		rc = rte_eth_tx_queue_setup(pid, q, txd, (unsigned int)socket, &txconf);
		if (rc < 0) {
			snprintf(err, NFV_ERR_LEN, "port %s: TX queue %u setup failed: %s", p->name,
				 q, rte_strerror(-rc));
			return rc;
		}
	}
	for (unsigned int w = 0; w < NFV_MAX_WORKERS; w++) {
		p->txq_of_worker[w] = (uint16_t)(w % n_txq);
		rte_spinlock_init(&p->tx_lock[w]);
	}
	p->n_rxq = c->n_rxq;
	p->n_txq = n_txq;
	p->rxd = rxd;
	p->txd = txd;

	rc = rte_eth_dev_start(pid);
	if (rc < 0) {
		snprintf(err, NFV_ERR_LEN, "port %s: start failed: %s", p->name, rte_strerror(-rc));
		return rc;
	}
	rc = rte_eth_promiscuous_enable(pid);
	if (rc < 0 && rc != -ENOTSUP)
		NFV_LOG(WARNING, "port %s: promiscuous mode: %s", p->name, rte_strerror(-rc));
	rte_eth_macaddr_get(pid, &p->mac);
	return 0;
}

/*
 * A send-only pcap port that names an input: DPDK 22.11's net_pcap opens
 * rx_pcap (or rx_iface) when the device is probed and closes it only with
 * the RX queues, so with none it would stay open until exit. Refused
 * before the probe, with what to write instead.
 */
static bool
pcap_send_only_with_input(const char *devargs, const struct nfv_port_conf *c)
{
	return c->n_rxq == 0 && strncmp(devargs, "net_pcap", strlen("net_pcap")) == 0 &&
	       (strstr(devargs, "rx_pcap=") != NULL || strstr(devargs, "rx_iface") != NULL);
}

/* Copies into v (size vlen) the value of key (as "key=") in devargs, the
 * driver's name and its arguments separated by commas; false when the key
 * is not there. */
static bool
devargs_value(const char *devargs, const char *key, char *v, size_t vlen)
{
	size_t klen = strlen(key);

	for (const char *a = strchr(devargs, ','); a != NULL; a = strchr(a + 1, ',')) {
		if (strncmp(a + 1, key, klen) == 0 && a[1 + klen] == '=') {
			const char *b = a + 2 + klen;

			snprintf(v, vlen, "%.*s", (int)strcspn(b, ","), b);
			return true;
		}
	}
	return false;
}

static void
mem_event_probe_cb(enum rte_mem_event type, const void *addr, size_t len, void *arg)
{
	RTE_SET_USED(type);
	RTE_SET_USED(addr);
	RTE_SET_USED(len);
	RTE_SET_USED(arg);
}

/* Whether the EAL may map more hugepage memory while nfvd runs (dynamic
 * memory: hugepages without --legacy-mem), which is when it calls the
 * memory event callbacks a virtio-user port registers. */
static bool
memory_grows(void)
{
	static const char probe[] = "nfvd-mem-event-probe";

	if (!rte_eal_has_hugepages() || rte_mem_event_callback_register(probe,
			mem_event_probe_cb, NULL) < 0)
		return false;
	rte_mem_event_callback_unregister(probe, NULL);
	return true;
}

/* A virtio-user port in server mode (server=N, N read as DPDK reads it,
 * not 0): DPDK 22.11 accepts the vhost-user client's connection in the
 * probe itself, blocking. */
static bool
virtio_user_server(const char *devargs)
{
	char v[16];

	return strncmp(devargs, "net_virtio_user", strlen("net_virtio_user")) == 0 &&
	       devargs_value(devargs, "server", v, sizeof(v)) && strtoull(v, NULL, 0) != 0;
}

/* A vhost-user peer maps at most this many memory regions (the vhost-user
 * protocol's VHOST_MEMORY_MAX_NREGIONS); virtio-user gives it one per file
 * that holds DPDK's memory. */
#define VHOST_USER_MAX_REGIONS 8

struct memseg_files {
	int fd[VHOST_USER_MAX_REGIONS + 1];
	unsigned int n;
};

static int
memseg_file_cb(const struct rte_memseg_list *msl, const struct rte_memseg *ms, void *arg)
{
	struct memseg_files *f = arg;
	int fd = rte_memseg_get_fd_thread_unsafe(ms);

	RTE_SET_USED(msl);
	if (fd < 0)
		return 0;
	for (unsigned int i = 0; i < f->n; i++)
		if (f->fd[i] == fd)
			return 0;
	f->fd[f->n++] = fd;
	return f->n > VHOST_USER_MAX_REGIONS; /* enough: stop */
}

/* How many files hold DPDK's memory, counting up to one past the most a
 * vhost-user peer takes. */
static unsigned int
memseg_files(void)
{
	struct memseg_files f = { .n = 0 };

	rte_memseg_walk(memseg_file_cb, &f);
	return f.n;
}

/*
 * A virtio-user port whose vhost-user peer is a port of this same nfvd (a
 * loop, for tests): the name of that port, else NULL. On dynamic hugepage
 * memory such a pair deadlocks DPDK 22.11: when the heap grows (the next
 * port's mbuf pool, for one), the EAL calls virtio-user's memory event
 * callback with the memory lock held, and the callback waits for the
 * vhost-user side to take the new memory table, which this process's
 * vhost thread cannot do without that lock. Either side may come first.
 */
static const char *
virtio_user_loop(const char *devargs)
{
	bool virtio = strncmp(devargs, "net_virtio_user", strlen("net_virtio_user")) == 0;
	bool vhost = strncmp(devargs, "net_vhost", strlen("net_vhost")) == 0;
	char path[NFV_DEVARGS_LEN], other[NFV_DEVARGS_LEN];

	if ((!virtio && !vhost) || !devargs_value(devargs, virtio ? "path" : "iface", path,
						  sizeof(path)))
		return NULL;
	for (uint16_t pid = 0; pid < RTE_MAX_ETHPORTS; pid++) {
		const struct nfv_port *q = &nfv_ports[pid];
		const char *drv = virtio ? "net_vhost" : "net_virtio_user";

		if (q->used && strncmp(q->devargs, drv, strlen(drv)) == 0 &&
		    devargs_value(q->devargs, virtio ? "iface" : "path", other, sizeof(other)) &&
		    strcmp(path, other) == 0)
			return q->name;
	}
	return NULL;
}

int
nfv_port_add(const char *name, const char *devargs, const struct nfv_port_conf *c, char *err)
{
	struct nfv_port *p;
	const char *loop;
	uint16_t pid;
	bool probed_here = false;
	size_t n;
	int rc;

	if (nfv_port_by_name(name) != NULL) {
		snprintf(err, NFV_ERR_LEN, "port %s already exists", name);
		return -EEXIST;
	}
	if (nfv_iface_by_name(name) != NULL) {
		snprintf(err, NFV_ERR_LEN, "interface %s already exists", name);
		return -EEXIST;
	}
	if (strlen(devargs) >= NFV_DEVARGS_LEN) {
		snprintf(err, NFV_ERR_LEN, "device arguments too long (%zu bytes, max %u)",
			 strlen(devargs), NFV_DEVARGS_LEN - 1);
		return -E2BIG;
	}
	if (pcap_send_only_with_input(devargs, c)) {
		snprintf(err, NFV_ERR_LEN, "port %s: rxq 0 sends only; name only tx_pcap or "
			 "tx_iface (net_pcap would keep its input open with no RX queue)", name);
		return -EINVAL;
	}
	if (virtio_user_server(devargs)) {
		snprintf(err, NFV_ERR_LEN, "port %s: a virtio-user port in server mode waits in "
			 "its probe, and nfvd's control with it, until a vhost-user client "
			 "connects; make the peer the vhost-user server and this port its "
			 "client (server=0, the default)", name);
		return -EINVAL;
	}
	loop = virtio_user_loop(devargs);
	if (loop != NULL && memory_grows()) {
		snprintf(err, NFV_ERR_LEN, "port %s: its vhost-user peer is port %s of this nfvd; "
			 "on dynamic hugepage memory the pair deadlocks DPDK's memory lock when "
			 "the heap grows: run such a loop with --no-huge, or the virtio-user "
			 "side in another process", name, loop);
		return -EDEADLK;
	}
	if (strncmp(devargs, "net_virtio_user", strlen("net_virtio_user")) == 0 &&
	    memseg_files() > VHOST_USER_MAX_REGIONS) {
		snprintf(err, NFV_ERR_LEN, "port %s: DPDK's memory is in more than %u files "
			 "(a hugepage each), and a vhost-user peer maps at most %u: start nfvd "
			 "with --single-file-segments for virtio-user ports", name,
			 VHOST_USER_MAX_REGIONS, VHOST_USER_MAX_REGIONS);
		return -E2BIG;
	}
	if (port_find_probed(devargs, &pid) == 0) {
		if (nfv_ports[pid].used) {
			snprintf(err, NFV_ERR_LEN, "device %s is already port %s", devargs,
				 nfv_ports[pid].name);
			return -EBUSY;
		}
	} else {
		rc = rte_dev_probe(devargs);
		if (rc < 0 && rc != -EEXIST) {
			snprintf(err, NFV_ERR_LEN, "dev %s: probe failed (%s): %s", devargs,
				 rte_strerror(-rc), probe_hint(rc));
			return rc;
		}
		rc = port_find_probed(devargs, &pid);
		if (rc < 0) {
			snprintf(err, NFV_ERR_LEN, "dev %s: probed, but it is not an Ethernet "
				 "device", devargs);
			return -ENODEV;
		}
		probed_here = true;
	}

	p = &nfv_ports[pid];
	memset(p, 0, sizeof(*p));
	p->port_id = pid;
	snprintf(p->name, sizeof(p->name), "%s", name);
	snprintf(p->devargs, sizeof(p->devargs), "%s", devargs);
	n = strcspn(devargs, ",");
	if (n >= sizeof(p->dev_name))
		n = sizeof(p->dev_name) - 1;
	memcpy(p->dev_name, devargs, n);
	p->dev_name[n] = '\0';

	rc = port_configure(p, c, err);
	if (rc < 0) {
		port_teardown(pid, probed_here);
		return rc;
	}
	p->used = true;
	p->admin_up = true;
	{
		struct nfv_iface ifc = {
			.kind = NFV_IFACE_KIND_PORT, .id = pid, .parent = pid,
			.mtu = p->mtu, .admin_up = true, .mac = p->mac,
		};

		snprintf(ifc.name, sizeof(ifc.name), "%s", name);
		nfv_iface_publish(&ifc);
	}
	rc = nfv_workers_publish();
	if (rc < 0) {
		snprintf(err, NFV_ERR_LEN, "port %s: cannot give its queues to workers", name);
		nfv_iface_remove(pid);
		p->used = false;
		port_teardown(pid, true);
		return rc;
	}
	NFV_LOG(INFO, "port %s: %s (%s) id %u mac " RTE_ETHER_ADDR_PRT_FMT " rxq %u txq %u "
		"rxd %u txd %u mtu %u pool %u mbufs", name, p->dev_name, p->driver, pid,
		RTE_ETHER_ADDR_BYTES(&p->mac), p->n_rxq, p->n_txq, p->rxd, p->txd, p->mtu,
		p->pool->size);
	return 0;
}

/* The error for a name that is no port: another kind of interface is
 * named as such (it has its own del command). */
static int
port_unknown(const char *name, char *err)
{
	static const char *const kinds[] = {
		[NFV_IFACE_KIND_VLAN] = "vlan",
		[NFV_IFACE_KIND_BRIDGE] = "bridge",
		[NFV_IFACE_KIND_VXLAN] = "vxlan",
	};
	const struct nfv_iface *i = nfv_iface_by_name(name);

	if (i != NULL && i->kind < RTE_DIM(kinds) && kinds[i->kind] != NULL)
		snprintf(err, NFV_ERR_LEN, "'%s' is a %s interface, not a port", name,
			 kinds[i->kind]);
	else
		snprintf(err, NFV_ERR_LEN, "unknown port '%s'", name);
	return -ENOENT;
}

int
nfv_port_del(const char *name, char *err)
{
	struct nfv_port *p = nfv_port_by_name(name);
	uint16_t pid;

	if (p == NULL)
		return port_unknown(name, err);
	pid = p->port_id;
	p->removing = true;
	__atomic_store_n(&p->admin_up, false, __ATOMIC_RELEASE);
	nfv_iface_remove(pid);
	nfv_workers_port_removed(pid);
	nfv_workers_publish(); /* waits until no worker polls or sends on it */
	p->used = false;
	port_teardown(pid, true);
	NFV_LOG(INFO, "port %s removed", name);
	return 0;
}

int
nfv_port_set_admin(const char *name, bool up, char *err)
{
	struct nfv_port *p = nfv_port_by_name(name);
	int rc;

	if (p == NULL)
		return port_unknown(name, err);
	if (p->admin_up == up)
		return 0;
	rc = up ? rte_eth_dev_set_link_up(p->port_id) : rte_eth_dev_set_link_down(p->port_id);
	if (rc < 0 && rc != -ENOTSUP) {
		snprintf(err, NFV_ERR_LEN, "port %s: set link %s failed: %s", name,
			 up ? "up" : "down", rte_strerror(-rc));
		return rc;
	}
	__atomic_store_n(&p->admin_up, up, __ATOMIC_RELEASE);
	nfv_ifaces[p->port_id].admin_up = up;
	nfv_iface_event_notify(up ? NFV_IFACE_UP : NFV_IFACE_DOWN, p->port_id);
	return nfv_workers_publish();
}

unsigned int
nfv_ports_close_all(void)
{
	unsigned int in_use;

	for (uint16_t pid = 0; pid < RTE_MAX_ETHPORTS; pid++) {
		if (!nfv_ports[pid].used)
			continue;
		nfv_ports[pid].used = false;
		port_teardown(pid, true);
	}
	in_use = nfv_pools_in_use();
	nfv_ports_reap_pools(true);
	return in_use;
}

/* Pools other modules make (mirror copies, capture copies), counted with
 * the ports' own in "mbufs in use" and at exit. */
#define NFV_WATCHED_POOLS_MAX 16
static struct rte_mempool *watched[NFV_WATCHED_POOLS_MAX];

int
nfv_pool_watch(struct rte_mempool *mp)
{
	for (unsigned int i = 0; i < NFV_WATCHED_POOLS_MAX; i++)
		if (watched[i] == NULL) {
			watched[i] = mp;
			return 0;
		}
	return -ENOSPC;
}

void
nfv_pool_unwatch(struct rte_mempool *mp)
{
	for (unsigned int i = 0; i < NFV_WATCHED_POOLS_MAX; i++)
		if (watched[i] == mp)
			watched[i] = NULL;
}

void
nfv_pools_walk(nfv_pool_cb cb, void *arg)
{
	struct nfv_pool_usage u;

	for (unsigned int i = 0; i < NFV_WATCHED_POOLS_MAX; i++) {
		if (watched[i] == NULL)
			continue;
		u.name = watched[i]->name;
		u.size = watched[i]->size;
		u.in_use = rte_mempool_in_use_count(watched[i]);
		cb(&u, arg);
	}
	for (uint16_t pid = 0; pid < RTE_MAX_ETHPORTS; pid++) {
		if (!nfv_ports[pid].used || nfv_ports[pid].pool == NULL)
			continue;
		u.name = nfv_ports[pid].pool->name;
		u.size = nfv_ports[pid].pool->size;
		u.in_use = rte_mempool_in_use_count(nfv_ports[pid].pool);
		cb(&u, arg);
	}
	for (unsigned int i = 0; i < NFV_GRAVEYARD_MAX; i++) {
		if (graveyard[i] == NULL)
			continue;
		u.name = graveyard[i]->name;
		u.size = graveyard[i]->size;
		u.in_use = rte_mempool_in_use_count(graveyard[i]);
		cb(&u, arg);
	}
}

static void
sum_in_use(const struct nfv_pool_usage *u, void *arg)
{
	*(unsigned int *)arg += u->in_use;
}

unsigned int
nfv_pools_in_use(void)
{
	unsigned int n = 0;

	nfv_pools_walk(sum_in_use, &n);
	return n;
}

static const char *
iface_name(uint16_t iface)
{
	return iface < NFV_IFACE_MAX && nfv_ifaces[iface].used ? nfv_ifaces[iface].name : NULL;
}

/*
 * port set NAME mtu N (ip link set dev NAME mtu N): a port's MTU (the
 * device's, or enforced by nfvd for a device without the setting), within
 * what its pool's buffers hold; its VLAN sub-interfaces above it come
 * down to it, as Linux lowers them. A VLAN's, up to its parent's; a VXLAN
 * interface's (the inner frames it takes from a bridge), up to 65485 (the
 * largest IP packet less VXLAN's 50 bytes). A bridge's is its members'
 * smallest. The interface-changed event carries it to the next hops, the
 * bridge a member is in and a kernel twin.
 */
static int
iface_mtu_attr(uint16_t id, const char *value, char *err)
{
	const struct nfv_iface *ifc = &nfv_ifaces[id];
	uint32_t mtu, max = ifc->kind == NFV_IFACE_KIND_VXLAN ? 65535 - 50 : 16000;

	if (ifc->kind == NFV_IFACE_KIND_BRIDGE) {
		snprintf(err, NFV_ERR_LEN, "%s is a bridge: its MTU is its members' smallest",
			 ifc->name);
		return -EINVAL;
	}
	if (nfv_parse_u32(value, 68, max, &mtu) < 0) {
		snprintf(err, NFV_ERR_LEN, "bad mtu '%s' (expected 68-%u)", value, max);
		return -EINVAL;
	}
	if (ifc->kind == NFV_IFACE_KIND_VLAN && mtu > nfv_ifaces[ifc->parent].mtu) {
		snprintf(err, NFV_ERR_LEN, "mtu %u exceeds %s's (%u)", mtu,
			 nfv_ifaces[ifc->parent].name, nfv_ifaces[ifc->parent].mtu);
		return -EINVAL;
	}
	if (ifc->kind == NFV_IFACE_KIND_PORT) {
		struct nfv_port *p = &nfv_ports[id];
		uint32_t room = rte_pktmbuf_data_room_size(p->pool) - RTE_PKTMBUF_HEADROOM;
		struct rte_eth_dev_info info;
		int rc;

		if (mtu + RTE_ETHER_HDR_LEN + 8 > room) {
			snprintf(err, NFV_ERR_LEN, "mtu %u: port %s's buffers hold frames of %u bytes "
				 "(MTU %u at most): give it at port add", mtu, p->name, room,
				 room - RTE_ETHER_HDR_LEN - 8);
			return -EINVAL;
		}
		memset(&info, 0, sizeof(info));
		rc = rte_eth_dev_info_get(p->port_id, &info);
		if (rc == 0)
			rc = rte_eth_dev_set_mtu(p->port_id, (uint16_t)mtu);
		if (rc == -ENOTSUP && mtu <= info.max_mtu)
			rc = 0; /* no setting in the device: enforced by nfvd, as at port add */
		if (rc < 0) {
			mtu_refused(err, mtu, p->dev_name, rc, &info);
			return rc;
		}
		p->mtu = (uint16_t)mtu;
	}
	nfv_iface_set_mtu(id, (uint16_t)mtu);
	/* A port's VLANs follow it down (a VLAN's parent is always a port). */
	for (uint16_t v = 0; v < NFV_IFACE_MAX; v++)
		if (nfv_ifaces[v].used && nfv_ifaces[v].kind == NFV_IFACE_KIND_VLAN &&
		    nfv_ifaces[v].parent == id && nfv_ifaces[v].mtu > mtu)
			nfv_iface_set_mtu(v, (uint16_t)mtu);
	NFV_LOG(INFO, "%s: mtu %u", ifc->name, mtu);
	return 0;
}

static int
infra_init(void)
{
	nfv_iface_namer_register(iface_name);
	nfv_iface_attr_register("mtu", iface_mtu_attr);
	return 0;
}

static struct nfv_module infra_module = {
	.name = "infra",
	.init = infra_init,
};
NFV_MODULE_REGISTER(infra_module);
