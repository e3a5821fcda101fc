/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Captures: the filter (libpcap's compiler, then rte_bpf_convert and
 * rte_bpf_load), the file (rte_pcapng on a descriptor opened here), the
 * ring and pool the workers fill, and the drain that writes the file on
 * the control thread's event loop. A VLAN sub-interface's capture has its
 * own interface block in the file (22.11's library writes the ports'), and
 * its blocks are written here. Also starts DPDK's packet-capture
 * framework (rte_pdump) so that dpdk-dumpcap can attach to nfvd, which
 * needs the EAL to be a primary process with shared configuration (not
 * --in-memory or --no-shconf).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <pcap/pcap.h>
#include <rte_bpf.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_pcapng.h>
#include <rte_pdump.h>
#include <rte_ring.h>

#include "api/cmd.h"
#include "core/arc.h"
#include "core/counters.h"
#include "core/event.h"
#include "core/iface_event.h"
#include "core/log.h"
#include "core/module.h"
#include "core/stats.h"
#include "modules/bridge/bridge.h"
#include "modules/capture/capture.h"
#include "modules/infra/iface.h"
#include "modules/infra/port.h"

#define CAPTURE_RING_SIZE 4096
#define CAPTURE_POOL_SIZE 4095
#define CAPTURE_POOL_CACHE 64
#define CAPTURE_DRAIN_BURST 64
#define CAPTURE_DRAIN_PERIOD 0.01 /* seconds */

struct nfv_capture_dp *nfv_capture_of[NFV_CAPTURE_DIRS][NFV_IFACE_MAX];
struct nfv_capture_classes nfv_capture_classes[NFV_MAX_WORKERS][NFV_CAPTURE_MAX];
NFV_COUNTER_BLOCK(nfv_capture_counters_block, "capture", struct nfv_capture_counters);

struct capture {
	bool used;
	bool done;            /* file closed: by count, an error or a port going */
	bool own_idb;         /* not a port (a VLAN, a bridge, a tunnel): its own
			       * interface block in the file */
	uint8_t kind;         /* the interface's (enum nfv_iface_kind) */
	uint16_t port;        /* the interface */
	uint16_t tx_port;     /* the port its frames use: port, a VLAN's parent;
			       * a bridge's or a tunnel's: port */
	int fd;               /* the file's (rte_pcapng closes it) */
	uint32_t file_iface;  /* its interface in the file, with own_idb */
	unsigned int dirs;
	uint64_t count;       /* 0: no limit */
	uint64_t written;
	uint64_t discarded;   /* copied past count, or after a write error */
	char *file;
	char *filter;
	char why[64];         /* why it ended, when done */
	rte_pcapng_t *pcapng;
	struct nfv_capture_dp *dp;
	uint64_t start_ns;
	/* Counters since start when the capture began, and their final
	 * values (since it began) once done. */
	uint64_t base[4], final[4];
};

static struct capture captures[NFV_CAPTURE_MAX];
static unsigned int pool_seq;
static uint64_t capture_gen;
static bool pdump_on;

/* The TX callbacks of the output capture of each port (datapath/capture_out.c),
 * one per TX queue. */
static const struct rte_eth_rxtx_callback *tx_cbs[RTE_MAX_ETHPORTS][NFV_MAX_WORKERS];
static uint16_t n_tx_cbs[RTE_MAX_ETHPORTS];

/* The TX callbacks of the output captures of the VLANs of each port, one
 * per TX queue while a VLAN of the port has one; to free once unlinked. */
static const struct rte_eth_rxtx_callback *vlan_tx_cbs[RTE_MAX_ETHPORTS][NFV_MAX_WORKERS];
static uint16_t n_vlan_tx_cbs[RTE_MAX_ETHPORTS];
static unsigned int vlan_tx_captures[RTE_MAX_ETHPORTS];
static bool vlan_tx_unlinked[RTE_MAX_ETHPORTS];

/* A VLAN's frames as received: a feature of the vlan_l2_input arc; as sent:
 * its port's VLAN TX callbacks, while one of its VLANs has a capture. */
static void
capture_vlan_hook(unsigned int dir, uint16_t vlan, uint16_t port, bool on)
{
	char err[NFV_ERR_LEN];

	if (dir == NFV_CAPTURE_IN) {
		(void)nfv_arc_feature_set("vlan_l2_input", "nfv_capture_vlan_in", vlan, on, err);
		return;
	}
	if (on) {
		uint16_t n = RTE_MIN(nfv_ports[port].n_txq, (uint16_t)NFV_MAX_WORKERS);

		if (vlan_tx_captures[port]++ != 0)
			return;
		for (uint16_t q = 0; q < n; q++) {
			vlan_tx_cbs[port][q] =
				rte_eth_add_tx_callback(port, q, nfv_capture_vlan_tx_cb, NULL);
			if (vlan_tx_cbs[port][q] == NULL)
				NFV_LOG(ERR, "capture: no TX callback on port %u queue %u: %s",
					port, q, rte_strerror(rte_errno));
		}
		n_vlan_tx_cbs[port] = n;
		return;
	}
	if (--vlan_tx_captures[port] != 0)
		return;
	for (uint16_t q = 0; q < n_vlan_tx_cbs[port]; q++)
		if (vlan_tx_cbs[port][q] != NULL &&
		    rte_eth_remove_tx_callback(port, q, vlan_tx_cbs[port][q]) != 0)
			vlan_tx_cbs[port][q] = NULL; /* the port is gone: ethdev's to free */
	vlan_tx_unlinked[port] = true;
}

/* After the grace period that follows their unlinking. */
static void
capture_vlan_hooks_free(uint16_t port)
{
	if (!vlan_tx_unlinked[port])
		return;
	for (uint16_t q = 0; q < n_vlan_tx_cbs[port]; q++) {
		rte_free((void *)(uintptr_t)vlan_tx_cbs[port][q]);
		vlan_tx_cbs[port][q] = NULL;
	}
	n_vlan_tx_cbs[port] = 0;
	vlan_tx_unlinked[port] = false;
}

/* Frames as received: a feature of the l2_input arc; as sent: TX callbacks. */
static void
capture_hook(const struct capture *c, unsigned int dir, bool on)
{
	char err[NFV_ERR_LEN];
	uint16_t port = c->port;

	if (c->kind == NFV_IFACE_KIND_VLAN) {
		capture_vlan_hook(dir, c->port, c->tx_port, on);
		return;
	}
	if (c->kind != NFV_IFACE_KIND_PORT) {
		/* A bridge's or a tunnel's frames: bridge_input's tap. */
		nfv_bridge_tap_set(nfv_capture_tap, dir == NFV_CAPTURE_IN ? NFV_BRIDGE_TAP_IN :
				   NFV_BRIDGE_TAP_OUT, port, on);
		return;
	}
	if (dir == NFV_CAPTURE_IN) {
		(void)nfv_arc_feature_set("l2_input", "nfv_capture_in", port, on, err);
		return;
	}
	if (on) {
		uint16_t n = RTE_MIN(nfv_ports[port].n_txq, (uint16_t)NFV_MAX_WORKERS);

		for (uint16_t q = 0; q < n; q++) {
			tx_cbs[port][q] = rte_eth_add_tx_callback(port, q, nfv_capture_tx_cb, NULL);
			if (tx_cbs[port][q] == NULL)
				NFV_LOG(ERR, "capture: no TX callback on port %u queue %u: %s", port,
					q, rte_strerror(rte_errno));
		}
		n_tx_cbs[port] = n;
		return;
	}
	/* Unlinked now; freed once no worker can be in them (after the
	 * caller's nfv_rcu_sync: capture_hooks_free). */
	for (uint16_t q = 0; q < n_tx_cbs[port]; q++)
		if (tx_cbs[port][q] != NULL &&
		    rte_eth_remove_tx_callback(port, q, tx_cbs[port][q]) != 0)
			tx_cbs[port][q] = NULL; /* the port is gone: ethdev's to free */
}

static void
capture_hooks_free(const struct capture *c)
{
	uint16_t port = c->port;

	if (c->kind == NFV_IFACE_KIND_VLAN) {
		capture_vlan_hooks_free(c->tx_port);
		return;
	}
	if (c->kind != NFV_IFACE_KIND_PORT)
		return;
	for (uint16_t q = 0; q < n_tx_cbs[port]; q++) {
		rte_free((void *)(uintptr_t)tx_cbs[port][q]);
		tx_cbs[port][q] = NULL;
	}
	n_tx_cbs[port] = 0;
}

static const char *
dirs_name(unsigned int dirs)
{
	return dirs == 3 ? "both" : dirs == 1 ? "in" : "out";
}

static uint64_t
wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The slot's four counters since start: matched, filtered, ring drops, nombuf. */
static void
slot_counters(unsigned int slot, uint64_t out[4])
{
	struct nfv_capture_counters *c = malloc(sizeof(*c));
	bool was;

	memset(out, 0, 4 * sizeof(out[0]));
	if (c == NULL)
		return;
	was = nfv_stats_since_start(true);
	nfv_counters_sum(&nfv_capture_counters_block, c);
	nfv_stats_since_start(was);
	out[0] = c->matched[slot];
	out[1] = c->filtered[slot];
	out[2] = c->ring_drops[slot];
	out[3] = c->nombuf[slot];
	free(c);
}

static void
dp_free(struct nfv_capture_dp *dp)
{
	if (dp == NULL)
		return;
	if (dp->ring != NULL) {
		struct rte_mbuf *m;

		while (rte_ring_sc_dequeue(dp->ring, (void **)&m) == 0)
			rte_pktmbuf_free(m);
		rte_ring_free(dp->ring);
	}
	if (dp->bpf != NULL)
		rte_bpf_destroy(dp->bpf);
	free((void *)(uintptr_t)dp->prog);
	if (dp->pool != NULL) {
		nfv_pool_unwatch(dp->pool);
		rte_mempool_free(dp->pool);
	}
	rte_free(dp);
}

/*
 * The blocks of a VLAN's capture that nfvd writes itself (pcapng, IETF
 * draft-ietf-opsawg-pcapng: 4.2 interface description, 4.3 enhanced
 * packet, 4.6 interface statistics): options are a code, a length and
 * the value padded to 4 bytes; a block ends with its length again.
 */
#define PCAPNG_IDB 0x00000001
#define PCAPNG_ISB 0x00000005
#define PCAPNG_BLOCK_MAX 512

struct pcapng_block {
	uint8_t b[PCAPNG_BLOCK_MAX];
	uint32_t len;
};

static void
block_u32(struct pcapng_block *k, uint32_t v)
{
	memcpy(k->b + k->len, &v, sizeof(v));
	k->len += sizeof(v);
}

static void
block_option(struct pcapng_block *k, uint16_t code, const void *v, uint16_t len)
{
	uint16_t h[2] = { code, len };

	memcpy(k->b + k->len, h, sizeof(h));
	memset(k->b + k->len + sizeof(h), 0, RTE_ALIGN(len, 4));
	if (len != 0)
		memcpy(k->b + k->len + sizeof(h), v, len);
	k->len += sizeof(h) + RTE_ALIGN(len, 4);
}

/* Ends the options and the block, whose length goes in both places. */
static int
block_write(int fd, struct pcapng_block *k)
{
	block_option(k, 0, NULL, 0);
	k->len += sizeof(uint32_t);
	memcpy(k->b + 4, &k->len, sizeof(k->len));
	memcpy(k->b + k->len - 4, &k->len, sizeof(k->len));
	return write(fd, k->b, k->len) == (ssize_t)k->len ? 0 : -1;
}

/* What an interface that is not a port is, for the file. */
static void
iface_what(const struct nfv_iface *v, char *buf, size_t len)
{
	if (v->kind == NFV_IFACE_KIND_VLAN)
		snprintf(buf, len, "VLAN %u of %s", v->vlan_id, nfv_iface_name_of(v->parent));
	else if (v->kind == NFV_IFACE_KIND_BRIDGE)
		snprintf(buf, len, "bridge");
	else if (v->kind == NFV_IFACE_KIND_VXLAN)
		snprintf(buf, len, "VXLAN tunnel, inner frames");
	else
		snprintf(buf, len, "interface");
}

/* The interface block of an interface that is not a port (a VLAN, a
 * bridge, a tunnel): its name, what it is, its MAC. */
static int
iface_idb_write(int fd, const struct nfv_iface *v)
{
	struct pcapng_block k = { .len = 0 };
	char desc[96], what[64];
	uint8_t tsresol = 9; /* nanoseconds */

	block_u32(&k, PCAPNG_IDB);
	block_u32(&k, 0);              /* length, at the end */
	block_u32(&k, 1);              /* LINKTYPE_ETHERNET, reserved 0 */
	block_u32(&k, 0);              /* no snap length */
	iface_what(v, what, sizeof(what));
	snprintf(desc, sizeof(desc), "nfvd %s", what);
	block_option(&k, 2, v->name, (uint16_t)strlen(v->name));     /* if_name */
	block_option(&k, 3, desc, (uint16_t)strlen(desc));           /* if_description */
	block_option(&k, 6, v->mac.addr_bytes, RTE_ETHER_ADDR_LEN);  /* if_MACaddr */
	block_option(&k, 9, &tsresol, 1);                            /* if_tsresol */
	return block_write(fd, &k);
}

/* The statistics block of an own_idb capture at its end: frames seen
 * (captured and filtered), lost (ring full, no mbuf). */
static int
own_isb_write(const struct capture *c, uint64_t start, uint64_t end, uint64_t recv,
	       uint64_t drop)
{
	struct pcapng_block k = { .len = 0 };
	uint32_t t[2];

	block_u32(&k, PCAPNG_ISB);
	block_u32(&k, 0);
	block_u32(&k, c->file_iface);
	block_u32(&k, (uint32_t)(end >> 32));
	block_u32(&k, (uint32_t)end);
	t[0] = (uint32_t)(start >> 32);
	t[1] = (uint32_t)start;
	block_option(&k, 2, t, sizeof(t));          /* isb_starttime */
	t[0] = (uint32_t)(end >> 32);
	t[1] = (uint32_t)end;
	block_option(&k, 3, t, sizeof(t));          /* isb_endtime */
	block_option(&k, 4, &recv, sizeof(recv));   /* isb_ifrecv */
	block_option(&k, 5, &drop, sizeof(drop));   /* isb_ifdrop */
	return block_write(c->fd, &k);
}

/* Writes the enhanced packet blocks of an own_idb capture (as
 * rte_pcapng_write_packets does a port's), its interface in each; -1 with
 * rte_errno on an error. */
static int
own_write_packets(const struct capture *c, struct rte_mbuf **pkts, uint16_t n)
{
	struct iovec iov[CAPTURE_DRAIN_BURST * 4];
	unsigned int k = 0;
	ssize_t want = 0, done;

	for (uint16_t i = 0; i < n; i++) {
		struct nfv_pcapng_epb *epb = rte_pktmbuf_mtod(pkts[i], struct nfv_pcapng_epb *);

		epb->interface_id = c->file_iface;
		for (struct rte_mbuf *m = pkts[i]; m != NULL; m = m->next) {
			if (k == RTE_DIM(iov)) {
				done = writev(c->fd, iov, (int)k);
				if (done != want)
					goto fail;
				k = 0;
				want = 0;
			}
			iov[k].iov_base = rte_pktmbuf_mtod(m, void *);
			iov[k].iov_len = rte_pktmbuf_data_len(m);
			want += (ssize_t)iov[k++].iov_len;
		}
	}
	if (k == 0)
		return 0;
	done = writev(c->fd, iov, (int)k);
	if (done == want)
		return 0;
fail:
	rte_errno = done < 0 ? errno : EIO;
	return -1;
}

/* Writes what the ring holds, up to the count; returns false when the
 * capture should end (count reached, write error). */
static bool
capture_drain(struct capture *c)
{
	struct rte_mbuf *pkts[CAPTURE_DRAIN_BURST];
	unsigned int n;

	while ((n = rte_ring_sc_dequeue_burst(c->dp->ring, (void **)pkts, RTE_DIM(pkts),
					      NULL)) != 0) {
		unsigned int take = n;

		if (c->pcapng == NULL)
			take = 0;
		else if (c->count != 0 && c->written + take > c->count)
			take = (unsigned int)(c->count - c->written);
		if (take != 0 && (c->own_idb ? own_write_packets(c, pkts, (uint16_t)take) :
				  rte_pcapng_write_packets(c->pcapng, pkts, (uint16_t)take)) < 0) {
			NFV_LOG(ERR, "capture %s: writing %s: %s", nfv_iface_name_of(c->port),
				c->file, strerror(rte_errno));
			snprintf(c->why, sizeof(c->why), "write error: %s", strerror(rte_errno));
			c->discarded += take;
			take = 0;
			rte_pcapng_close(c->pcapng);
			c->pcapng = NULL;
		}
		c->written += take;
		c->discarded += n - take;
		rte_pktmbuf_free_bulk(pkts, n);
		if (c->count != 0 && c->written >= c->count) {
			snprintf(c->why, sizeof(c->why), "count reached");
			return false;
		}
		if (c->pcapng == NULL)
			return false;
	}
	return true;
}

/* Stops the workers' copies, writes what is left, closes the file. */
static void
capture_finish(struct capture *c, const char *why)
{
	uint64_t now[4];

	if (c->done)
		return;
	for (unsigned int d = 0; d < NFV_CAPTURE_DIRS; d++) {
		if (!(c->dirs & (1u << d)))
			continue;
		capture_hook(c, d, false);
		__atomic_store_n(&nfv_capture_of[d][c->port], NULL, __ATOMIC_RELEASE);
	}
	/* No worker touches the ring, the pool or the TX callbacks after this. */
	nfv_rcu_sync();
	if (c->dirs & (1u << NFV_CAPTURE_OUT))
		capture_hooks_free(c);
	(void)capture_drain(c);
	if (c->why[0] == '\0')
		snprintf(c->why, sizeof(c->why), "%s", why);
	slot_counters(c->dp->slot, now);
	for (unsigned int i = 0; i < 4; i++)
		c->final[i] = now[i] - c->base[i];
	if (c->pcapng != NULL && c->own_idb) {
		(void)own_isb_write(c, c->start_ns, wall_ns(), c->final[0] + c->final[1],
				     c->final[2] + c->final[3]);
		rte_pcapng_close(c->pcapng); /* closes the descriptor */
		c->pcapng = NULL;
	} else if (c->pcapng != NULL) {
		(void)rte_pcapng_write_stats(c->pcapng, c->port, NULL, c->start_ns, wall_ns(),
					     c->final[0] + c->final[1],
					     c->final[2] + c->final[3]);
		rte_pcapng_close(c->pcapng); /* closes the descriptor */
		c->pcapng = NULL;
	}
	dp_free(c->dp);
	c->dp = NULL;
	c->done = true;
	NFV_LOG(INFO, "capture on %s ended (%s): %" PRIu64 " frames written to %s",
		nfv_iface_name_of(c->port), c->why, c->written, c->file);
}

static json_t *
capture_json(const struct capture *c)
{
	uint64_t v[4];

	if (c->done) {
		memcpy(v, c->final, sizeof(v));
	} else {
		slot_counters(c->dp->slot, v);
		for (unsigned int i = 0; i < 4; i++)
			v[i] -= c->base[i];
	}
	return json_pack("{s:s, s:s, s:s, s:s?, s:I, s:s, s:I, s:I, s:I, s:I, s:I, s:I}",
		"dev", nfv_iface_name_of(c->port), "direction", dirs_name(c->dirs),
		"file", c->file, "filter", c->filter,
		"count", (json_int_t)c->count, "state", c->done ? c->why : "running",
		"written", (json_int_t)c->written, "captured", (json_int_t)v[0],
		"filtered", (json_int_t)v[1], "ring_drops", (json_int_t)v[2],
		"nombuf", (json_int_t)v[3], "discarded", (json_int_t)c->discarded);
}

static void
capture_release(struct capture *c)
{
	free(c->file);
	free(c->filter);
	memset(c, 0, sizeof(*c));
}

/* Compiles a tcpdump expression for Ethernet frames into an rte_bpf. */
static struct rte_bpf *
filter_load(const char *expr, uint32_t snaplen, struct nfv_capture_dp *dp, char *err)
{
	struct bpf_program prog;
	struct rte_bpf_prm *prm;
	struct rte_bpf *bpf;
	pcap_t *pc = pcap_open_dead(DLT_EN10MB, (int)snaplen);

	if (pc == NULL) {
		snprintf(err, NFV_ERR_LEN, "capture: libpcap: out of memory");
		return NULL;
	}
	if (pcap_compile(pc, &prog, expr, 1, PCAP_NETMASK_UNKNOWN) != 0) {
		snprintf(err, NFV_ERR_LEN, "bad filter '%s': %s", expr, pcap_geterr(pc));
		pcap_close(pc);
		return NULL;
	}
	pcap_close(pc);
	/* The classic program, for the workers' class caches. */
	dp->prog = malloc(prog.bf_len * sizeof(prog.bf_insns[0]));
	if (dp->prog == NULL) {
		pcap_freecode(&prog);
		snprintf(err, NFV_ERR_LEN, "capture: out of memory");
		return NULL;
	}
	memcpy((void *)(uintptr_t)dp->prog, prog.bf_insns, prog.bf_len * sizeof(prog.bf_insns[0]));
	dp->prog_len = prog.bf_len;
	prm = rte_bpf_convert(&prog);
	pcap_freecode(&prog);
	if (prm == NULL) {
		snprintf(err, NFV_ERR_LEN, "filter '%s': cannot convert to eBPF: %s", expr,
			 rte_strerror(rte_errno));
		return NULL;
	}
	bpf = rte_bpf_load(prm);
	rte_free(prm);
	if (bpf == NULL)
		snprintf(err, NFV_ERR_LEN, "filter '%s': eBPF load failed: %s", expr,
			 rte_strerror(rte_errno));
	return bpf;
}

/* Opens (creates, truncates) a regular file for writing, never blocking
 * (a FIFO without a reader is refused, not waited for). */
static int
file_open(const char *path, char *err)
{
	struct stat st;
	int fd = open(path, O_WRONLY | O_CREAT | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0644);

	if (fd < 0) {
		snprintf(err, NFV_ERR_LEN, "cannot open '%s': %s", path, strerror(errno));
		return -errno;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		snprintf(err, NFV_ERR_LEN, "'%s' is not a regular file", path);
		return -EINVAL;
	}
	if (ftruncate(fd, 0) < 0 || fcntl(fd, F_SETFL, 0) < 0) {
		snprintf(err, NFV_ERR_LEN, "cannot write '%s': %s", path, strerror(errno));
		close(fd);
		return -errno;
	}
	return fd;
}

/*
 * DPDK 22.11's pcapng library converts a frame's TSC timestamp to wall
 * time in rte_pcapng_copy, against a reference (TSC, wall clock) it takes
 * lazily at its first conversion; when that first timestamp is older than
 * the reference, the reference moves 2^64 cycles' worth of seconds ahead
 * for the rest of the process (every frame dated centuries ahead, those of
 * dpdk-dumpcap too). So convert one timestamp slightly in the future at
 * start, which sets the reference right. nfvd's own captures then write
 * their own wall time in each block (nfv_capture_clock), which does not
 * depend on the library's reference, shared by the workers unguarded.
 */
struct nfv_capture_clock nfv_capture_clock;

static void
pcapng_clock_init(void)
{
	struct rte_mempool *mp;
	struct rte_mbuf *m, *copy;
	struct timespec ts;
	uint64_t t0, t1;

	t0 = rte_get_tsc_cycles();
	clock_gettime(CLOCK_REALTIME, &ts);
	t1 = rte_get_tsc_cycles();
	nfv_capture_clock.tsc = t0 + (t1 - t0) / 2;
	nfv_capture_clock.ns = (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
	nfv_capture_clock.hz = rte_get_tsc_hz();
	mp = rte_pktmbuf_pool_create("nfv_cap_clock", 7, 0, 0,
				     (uint16_t)rte_pcapng_mbuf_size(RTE_ETHER_MIN_LEN),
				     (int)rte_socket_id());
	if (mp == NULL)
		return;
	m = rte_pktmbuf_alloc(mp);
	if (m != NULL && rte_pktmbuf_append(m, RTE_ETHER_MIN_LEN) != NULL) {
		memset(rte_pktmbuf_mtod(m, void *), 0, RTE_ETHER_MIN_LEN);
		copy = rte_pcapng_copy(0, 0, m, mp, UINT32_MAX,
				       rte_get_tsc_cycles() + rte_get_tsc_hz() / 100,
				       RTE_PCAPNG_DIRECTION_UNKNOWN);
		rte_pktmbuf_free(copy);
	}
	rte_pktmbuf_free(m);
	rte_mempool_free(mp);
}

/* The longest frame any port takes, at least a full 1500-byte frame with a tag. */
static uint32_t
capture_snaplen(void)
{
	uint32_t mtu = 1500;

	for (uint16_t pid = 0; pid < RTE_MAX_ETHPORTS; pid++)
		if (nfv_ports[pid].used && nfv_ports[pid].mtu > mtu)
			mtu = nfv_ports[pid].mtu;
	return mtu + RTE_ETHER_HDR_LEN + 8;
}

int
nfv_capture_start(const struct nfv_capture_args *a, json_t **out, char *err)
{
	struct nfv_iface *ifc = nfv_iface_by_name(a->dev);
	struct capture *c = NULL;
	struct nfv_capture_dp *dp;
	char name[RTE_MEMZONE_NAMESIZE], comment[512];
	unsigned int slot;
	bool vlan, own_idb;
	int fd, rc;

	if (ifc == NULL) {
		snprintf(err, NFV_ERR_LEN, "unknown interface '%s'", a->dev);
		return -ENOENT;
	}
	vlan = ifc->kind == NFV_IFACE_KIND_VLAN && ifc->parent < RTE_MAX_ETHPORTS;
	/* A bridge's and a tunnel's frames come from bridge_input's tap. */
	own_idb = vlan || ifc->kind == NFV_IFACE_KIND_BRIDGE || ifc->kind == NFV_IFACE_KIND_VXLAN;
	if (!own_idb && (ifc->kind != NFV_IFACE_KIND_PORT || ifc->id >= RTE_MAX_ETHPORTS)) {
		snprintf(err, NFV_ERR_LEN, "%s is not a port: captures are on ports, VLAN "
			 "sub-interfaces, bridges and VXLAN tunnels", a->dev);
		return -EINVAL;
	}
	for (slot = 0; slot < NFV_CAPTURE_MAX; slot++)
		if (captures[slot].used && captures[slot].port == ifc->id) {
			snprintf(err, NFV_ERR_LEN, "%s already has a capture%s (capture stop dev %s)",
				 a->dev, captures[slot].done ? ", ended" : "", a->dev);
			return -EEXIST;
		}
	for (slot = 0; slot < NFV_CAPTURE_MAX; slot++)
		if (!captures[slot].used) {
			c = &captures[slot];
			break;
		}
	if (c == NULL) {
		snprintf(err, NFV_ERR_LEN, "at most %u captures at a time", NFV_CAPTURE_MAX);
		return -ENOSPC;
	}
	dp = rte_zmalloc("nfv_capture", sizeof(*dp), RTE_CACHE_LINE_SIZE);
	if (dp == NULL) {
		snprintf(err, NFV_ERR_LEN, "out of memory");
		return -ENOMEM;
	}
	dp->slot = (uint16_t)slot;
	/* The port in the copies (the file's interface is set again for an
	 * own_idb capture): a bridge or a tunnel has none, 0 stands in. */
	dp->port = vlan ? ifc->parent : own_idb ? 0 : ifc->id;
	dp->gen = ++capture_gen;
	dp->snaplen = capture_snaplen();
	if (a->filter != NULL) {
		struct rte_bpf_jit jit;

		dp->bpf = filter_load(a->filter, dp->snaplen, dp, err);
		if (dp->bpf == NULL) {
			rc = -EINVAL;
			goto fail;
		}
		if (rte_bpf_get_jit(dp->bpf, &jit) == 0)
			dp->jit = jit.func;
	}
	snprintf(name, sizeof(name), "nfv_cap%u", pool_seq++);
	dp->pool = rte_pktmbuf_pool_create(name, CAPTURE_POOL_SIZE, CAPTURE_POOL_CACHE, 0,
					   (uint16_t)rte_pcapng_mbuf_size(dp->snaplen),
					   (int)rte_socket_id());
	if (dp->pool == NULL || nfv_pool_watch(dp->pool) < 0) {
		if (dp->pool != NULL) {
			rte_mempool_free(dp->pool);
			dp->pool = NULL;
		}
		snprintf(err, NFV_ERR_LEN, "capture: no memory for %u copies of %u bytes",
			 CAPTURE_POOL_SIZE, dp->snaplen);
		rc = -ENOMEM;
		goto fail;
	}
	dp->ring = rte_ring_create(name, CAPTURE_RING_SIZE, (int)rte_socket_id(), RING_F_SC_DEQ);
	if (dp->ring == NULL) {
		snprintf(err, NFV_ERR_LEN, "capture: no memory for the ring: %s",
			 rte_strerror(rte_errno));
		rc = -ENOMEM;
		goto fail;
	}
	fd = file_open(a->file, err);
	if (fd < 0) {
		rc = fd;
		goto fail;
	}
	memset(c, 0, sizeof(*c));
	/* 22.11 names the file's interfaces dpdk:PORT; the comment says which
	 * port of nfvd the capture is of. Any other interface (a VLAN, a
	 * bridge, a tunnel) has its own, named so. */
	if (own_idb) {
		char what[64];

		iface_what(ifc, what, sizeof(what));
		snprintf(comment, sizeof(comment), "nfvd capture of %s (%s), %s%s%s",
			 a->dev, what, dirs_name(a->dirs), a->filter ? ", filter " : "",
			 a->filter ? a->filter : "");
	} else {
		snprintf(comment, sizeof(comment), "nfvd capture of %s (dpdk:%u, %s), %s%s%s",
			 a->dev, ifc->id, nfv_ports[ifc->id].dev_name, dirs_name(a->dirs),
			 a->filter ? ", filter " : "", a->filter ? a->filter : "");
	}
	/* (It fails with errno from the write of the header, or with none when
	 * it has no memory: rte_errno is not set.) */
	errno = 0;
	c->pcapng = rte_pcapng_fdopen(fd, NULL, NULL, "nfvd", comment);
	if (c->pcapng == NULL) {
		snprintf(err, NFV_ERR_LEN, "cannot write the pcapng header to '%s': %s", a->file,
			 errno != 0 ? strerror(errno) : "out of memory");
		close(fd);
		rc = -EIO;
		goto fail;
	}
	if (own_idb) {
		uint16_t pid;

		/* After the library's blocks, one for each port in its order. */
		c->file_iface = 0;
		RTE_ETH_FOREACH_DEV(pid)
			c->file_iface++;
		errno = 0;
		if (iface_idb_write(fd, ifc) < 0) {
			snprintf(err, NFV_ERR_LEN, "cannot write to '%s': %s", a->file,
				 errno != 0 ? strerror(errno) : "short write");
			rte_pcapng_close(c->pcapng);
			c->pcapng = NULL;
			rc = -EIO;
			goto fail;
		}
	}
	c->fd = fd;
	c->own_idb = own_idb;
	c->kind = ifc->kind;
	c->tx_port = vlan ? ifc->parent : ifc->id;
	c->file = strdup(a->file);
	c->filter = a->filter != NULL ? strdup(a->filter) : NULL;
	c->used = true;
	c->port = ifc->id;
	c->dirs = a->dirs;
	c->count = a->count;
	c->dp = dp;
	c->start_ns = wall_ns();
	slot_counters(slot, c->base);
	for (unsigned int d = 0; d < NFV_CAPTURE_DIRS; d++) {
		if (!(a->dirs & (1u << d)))
			continue;
		__atomic_store_n(&nfv_capture_of[d][c->port], dp, __ATOMIC_RELEASE);
		capture_hook(c, d, true);
	}
	NFV_LOG(INFO, "capture on %s %s to %s%s%s (filter %s)", a->dev, dirs_name(a->dirs),
		a->file, a->filter ? ", filter " : "", a->filter ? a->filter : "",
		dp->bpf == NULL ? "none" : dp->jit != NULL ? "JIT" : "interpreted");
	*out = capture_json(c);
	return 0;
fail:
	dp_free(dp);
	return rc;
}

int
nfv_capture_stop(const char *dev, json_t **out, char *err)
{
	struct nfv_iface *ifc = NULL;
	json_t *a;

	if (dev != NULL) {
		ifc = nfv_iface_by_name(dev);
		if (ifc == NULL) {
			snprintf(err, NFV_ERR_LEN, "unknown interface '%s'", dev);
			return -ENOENT;
		}
	}
	a = json_array();
	for (unsigned int i = 0; i < NFV_CAPTURE_MAX; i++) {
		struct capture *c = &captures[i];

		if (!c->used || (ifc != NULL && c->port != ifc->id))
			continue;
		capture_finish(c, "stopped");
		json_array_append_new(a, capture_json(c));
		capture_release(c);
	}
	if (json_array_size(a) == 0) {
		json_decref(a);
		snprintf(err, NFV_ERR_LEN, "no capture%s%s", dev ? " on " : "", dev ? dev : "");
		return -ENOENT;
	}
	*out = json_pack("{s:o}", "captures", a);
	return 0;
}

json_t *
nfv_capture_show(void)
{
	json_t *a = json_array();

	for (unsigned int i = 0; i < NFV_CAPTURE_MAX; i++)
		if (captures[i].used)
			json_array_append_new(a, capture_json(&captures[i]));
	return json_pack("{s:o, s:b}", "captures", a, "dpdk_dumpcap", pdump_on);
}

static void
capture_timer(void *arg)
{
	nfv_ctl_lock();
	for (unsigned int i = 0; i < NFV_CAPTURE_MAX; i++) {
		struct capture *c = &captures[i];

		if (c->used && !c->done && !capture_drain(c))
			capture_finish(c, c->why);
	}
	nfv_ctl_unlock();
}

/* An interface that goes (a port: its VLANs' too) ends its capture: the
 * file is completed and closed, and the capture released (it is no longer
 * in "capture show"; "capture stop" has nothing left to stop). */
static void
capture_iface_event(enum nfv_iface_event ev, uint16_t iface, void *arg)
{
	if (ev != NFV_IFACE_REMOVED)
		return;
	for (unsigned int i = 0; i < NFV_CAPTURE_MAX; i++)
		if (captures[i].used &&
		    (captures[i].port == iface || captures[i].tx_port == iface)) {
			capture_finish(&captures[i], captures[i].own_idb ? "interface removed" :
				       "port removed");
			capture_release(&captures[i]);
		}
}
NFV_IFACE_EVENT_HANDLER(capture_iface_event);

static void
capture_totals(uint64_t v[4])
{
	struct nfv_capture_counters c;

	nfv_counters_sum(&nfv_capture_counters_block, &c);
	memset(v, 0, 4 * sizeof(v[0]));
	for (unsigned int i = 0; i < NFV_CAPTURE_MAX; i++) {
		v[0] += c.matched[i];
		v[1] += c.filtered[i];
		v[2] += c.ring_drops[i];
		v[3] += c.nombuf[i];
	}
}

static void
capture_show_stats(json_t *stats)
{
	uint64_t v[4];

	capture_totals(v);
	json_object_set_new(stats, "capture", json_pack("{s:I, s:I, s:I, s:I}",
		"captured", (json_int_t)v[0], "filtered", (json_int_t)v[1],
		"ring_drops", (json_int_t)v[2], "nombuf", (json_int_t)v[3]));
}

static void
capture_metrics(FILE *f)
{
	uint64_t v[4];

	capture_totals(v);
	nfv_metrics_help(f, "nfvd_capture_packets_total", "counter",
			 "Frames seen by captures: captured (copied to the ring), filtered "
			 "(did not match), ring_drops (ring full), nombuf (no mbuf)");
	fprintf(f, "nfvd_capture_packets_total{result=\"captured\"} %" PRIu64 "\n", v[0]);
	fprintf(f, "nfvd_capture_packets_total{result=\"filtered\"} %" PRIu64 "\n", v[1]);
	fprintf(f, "nfvd_capture_packets_total{result=\"ring_drops\"} %" PRIu64 "\n", v[2]);
	fprintf(f, "nfvd_capture_packets_total{result=\"nombuf\"} %" PRIu64 "\n", v[3]);
}

static const struct nfv_collector capture_collector = {
	.name = "capture",
	.show_stats = capture_show_stats,
	.metrics = capture_metrics,
};
NFV_COLLECTOR_REGISTER(capture_collector);

static struct nfv_timer *drain_timer;

static int
capture_init(void)
{
	pcapng_clock_init();
	drain_timer = nfv_timer_add("capture-drain", CAPTURE_DRAIN_PERIOD, false, capture_timer,
				    NULL);
	if (drain_timer == NULL)
		return -ENOMEM;
	/* dpdk-dumpcap is a secondary process: it maps the primary's
	 * hugepage memory through its shared configuration (the runtime
	 * directory's "config" file), which --no-huge, --in-memory and
	 * --no-shconf do without (a "config" file there may be another run's:
	 * it says nothing); then pdump's memory (about 2 MB of statistics) is
	 * not taken either. */
	if (nfv_eal_secondary_ok && rte_pdump_init() == 0) {
		pdump_on = true;
		NFV_LOG(INFO, "dpdk-dumpcap can attach (--file-prefix %s)",
			strrchr(rte_eal_get_runtime_dir(), '/') + 1);
	} else {
		NFV_LOG(INFO, "dpdk-dumpcap cannot attach: run nfvd with its own EAL options, "
			"on hugepages, without --no-huge, --in-memory or --no-shconf (see README)");
	}
	return 0;
}

/* At exit, before the ports close: every file complete, every copy back. */
static void
capture_stop_all(void)
{
	for (unsigned int i = 0; i < NFV_CAPTURE_MAX; i++)
		if (captures[i].used) {
			capture_finish(&captures[i], "nfvd exiting");
			capture_release(&captures[i]);
		}
}

static void
capture_fini(void)
{
	if (drain_timer != NULL)
		nfv_timer_del(drain_timer);
	if (pdump_on)
		rte_pdump_uninit();
}

static struct nfv_module capture_module = {
	.name = "capture",
	.depends_on = "infra bridge",
	.init = capture_init,
	.stop = capture_stop_all,
	.fini = capture_fini,
};
NFV_MODULE_REGISTER(capture_module);
