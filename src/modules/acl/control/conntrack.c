/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Connection tracking: one table per worker, written only by that worker.
 *
 * A flow is two rte_hash keys (its two directions, each naming the
 * interface of the ACL that recorded it) pointing at one entry of the
 * worker's flow array. The TCP state machine follows the flags (RFC 793
 * states, as Linux's conntrack names them): SYN -> syn_sent, SYN+ACK back
 * -> syn_recv, ACK -> established, a FIN -> fin_wait, FINs both ways ->
 * time_wait, RST -> close; a SYN on a flow in time_wait or close starts it
 * again. TCP segments are checked against the windows as Linux's
 * nf_conntrack_proto_tcp does (tcp_in_window, after "Real Stateful TCP
 * Packet Filtering in IP Filter", G. van Rooij): per direction the highest
 * sequence number sent (td_end), the highest the receiver allows
 * (td_maxend: its acknowledgment plus its window, scaled as RFC 7323 says
 * when both SYNs carried the option) and the largest window (td_maxwin).
 * A segment passes when its sequence number is at most td_maxend (I), its
 * end is past td_end less the receiver's largest window (II: not older
 * than a window), and its acknowledgment is at most what the other side
 * sent (III) and not older than the larger of its largest window and
 * 66,000 bytes (IV). Others are dropped (conntrack/out_of_window) and
 * leave the flow as it was, unless the flow was picked up in the middle
 * (no SYN seen: the scales are unknown) or "conntrack set tcp-liberal on"
 * (Linux's nf_conntrack_tcp_be_liberal). Not done: SACK blocks (the
 * acknowledgment number stands for the highest SACKed byte, which only
 * makes III easier to meet). Resets have their own check
 * (rst_in_window). UDP flows are udp until replied,
 * then udp_stream; ICMP echo flows are keyed by the identifier, and carry
 * the first packet's kind (request) one way and the other (reply) back. Each
 * state has a timeout (Linux's defaults, "conntrack set timeout").
 *
 * Expiry is lazy: a worker finds an expired flow when a packet looks it up
 * (and forgets it), and sweeps a few entries of its table per burst; views
 * skip expired and flushed flows. "conntrack flush" bumps a generation the
 * workers compare once per burst (a worker clears its own table). The
 * removal of an interface bumps that interface's generation and an epoch
 * the workers compare once per burst too: a worker then forgets the flows
 * recorded under an older generation of their interface, before any
 * lookup, so a new interface that gets the removed one's id never finds
 * them (its own ACLs decide its traffic).
 *
 * Both directions of a flow must reach the same worker: with one worker
 * trivially; with several, the interfaces a flow crosses are polled by one
 * worker (e.g. "worker set"), or the ports spread flows with a symmetric
 * RSS key and queue i of every port is polled by the same worker. A reply
 * that reaches another worker finds no flow and meets that interface's ACL.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include <jansson.h>
#include <rte_cycles.h>
#include <rte_hash.h>
#include <rte_hash_crc.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_tcp.h>

#include "core/drop_reasons.h"
#include "core/iface_event.h"
#include "core/log.h"
#include "core/module.h"
#include "core/stats.h"
#include "modules/acl/acl.h"
#include "modules/infra/iface.h"

struct nfv_ct_table *nfv_ct_tables;
uint32_t nfv_ct_gen;
uint32_t nfv_ct_iface_gen[NFV_IFACE_MAX];
uint32_t nfv_ct_iface_epoch;
NFV_COUNTER_BLOCK(nfv_ct_counters_block, "conntrack", struct nfv_ct_counters);

static uint32_t ct_capacity = 65536; /* flows per worker */
static uint32_t ct_max;              /* "conntrack set max": all workers */
static uint32_t ct_worker_max;       /* what each worker may hold; workers read */

/* A reason nfv_ct_hit gives (minus its id) for the packets it drops. */
NFV_DROP_REASON(drop_ct_invalid_rst, "conntrack", "invalid_rst",
	"a TCP reset of a tracked flow outside the window the receiver advertised");
NFV_DROP_REASON(drop_ct_out_of_window, "conntrack", "out_of_window",
	"a TCP segment of a tracked flow outside the windows of its connection "
	"(conntrack set tcp-liberal)");

bool nfv_ct_tcp_liberal; /* "conntrack set tcp-liberal": workers read */

static const char *const state_names[NFV_CT_STATES] = {
	"syn_sent", "syn_recv", "established", "fin_wait", "time_wait", "close",
	"udp", "udp_stream", "icmp", "other",
};
static const char *const timeout_names[NFV_CT_STATES] = {
	"tcp-syn-sent", "tcp-syn-recv", "tcp-established", "tcp-fin-wait", "tcp-time-wait",
	"tcp-close", "udp", "udp-stream", "icmp", "other",
};
/* Linux's defaults (nf_conntrack_proto_*.c), in seconds. */
static uint32_t timeout_s[NFV_CT_STATES] = {
	120, 60, 432000, 120, 120, 10, 30, 120, 30, 600,
};
uint64_t nfv_ct_timeout_tsc[NFV_CT_STATES]; /* workers read */

static void
timeouts_publish(void)
{
	for (unsigned int i = 0; i < NFV_CT_STATES; i++)
		__atomic_store_n(&nfv_ct_timeout_tsc[i], (uint64_t)timeout_s[i] * rte_get_tsc_hz(),
				 __ATOMIC_RELAXED);
}

/* ---- worker side ---- */

static void
key_reverse(struct nfv_ct_key *r, const struct nfv_ct_key *k)
{
	r->iface = k->iface;
	r->family = k->family;
	r->proto = k->proto;
	r->sport = k->dport;
	r->dport = k->sport;
	memcpy(r->src, k->dst, sizeof(r->src));
	memcpy(r->dst, k->src, sizeof(r->dst));
}

static void
flow_forget(struct nfv_ct_table *t, uint32_t idx)
{
	struct nfv_ct_flow *f = &t->flows[idx];

	struct nfv_ct_key r;

	key_reverse(&r, &f->key);
	rte_hash_del_key(t->hash, &f->key);
	rte_hash_del_key(t->hash, &r); /* -ENOENT when it is the same key */
	f->serial = 0; /* the flow cache's entries for it are stale now */
	__atomic_store_n(&f->used, 0, __ATOMIC_RELEASE);
	nfv_slots_put(&t->slots, idx);
}

static void
table_clear(struct nfv_ct_table *t)
{
	rte_hash_reset(t->hash);
	for (uint32_t i = 0; i < ct_capacity; i++) {
		t->flows[i].serial = 0;
		__atomic_store_n(&t->flows[i].used, 0, __ATOMIC_RELAXED);
	}
	nfv_slots_reset(&t->slots);
}

static bool
flow_expire(void *table, uint32_t idx, uint64_t now)
{
	struct nfv_ct_table *t = table;
	const struct nfv_ct_flow *f = &t->flows[idx];

	if (!f->used || (int64_t)(now - f->expire_tsc) < 0)
		return false;
	flow_forget(t, idx);
	return true;
}

/* Forgets the expired flows among the next n entries. */
static void
sweep(struct nfv_ct_table *t, struct nfv_ct_counters *c, uint32_t n, uint64_t now)
{
	uint32_t forgot = nfv_slots_sweep(&t->slots, n, now, flow_expire, t);

	if (c != NULL)
		c->expired += forgot;
}

/* Whether a flow's interface was removed since it was recorded. */
static __rte_always_inline bool
flow_iface_gone(const struct nfv_ct_flow *f)
{
	return f->iface_gen != __atomic_load_n(&nfv_ct_iface_gen[f->key.iface], __ATOMIC_ACQUIRE);
}

/* After an interface's removal: its flows forgotten. */
static __rte_noinline void
forget_removed_ifaces(struct nfv_ct_table *t, struct nfv_ct_counters *c, uint32_t epoch)
{
	t->iface_epoch = epoch;
	for (uint32_t i = 0; i < ct_capacity && t->slots.count > 0; i++)
		if (t->flows[i].used && flow_iface_gone(&t->flows[i])) {
			flow_forget(t, i);
			if (c != NULL)
				c->expired++;
		}
}

bool
nfv_ct_burst_start(struct nfv_ct_table *t, struct nfv_ct_counters *c, uint64_t now)
{
	uint32_t epoch = __atomic_load_n(&nfv_ct_iface_epoch, __ATOMIC_ACQUIRE);

	if (unlikely(nfv_slots_flushed(&t->slots, __atomic_load_n(&nfv_ct_gen, __ATOMIC_ACQUIRE))) &&
	    t->slots.count > 0)
		table_clear(t);
	if (unlikely(t->iface_epoch != epoch))
		forget_removed_ifaces(t, c, epoch);
	if (t->slots.count > 0)
		sweep(t, c, 4, now);
	return t->slots.count > 0;
}

static void
flow_touch(struct nfv_ct_flow *f, uint64_t now)
{
	f->expire_tsc = now + __atomic_load_n(&nfv_ct_timeout_tsc[f->state], __ATOMIC_RELAXED);
}

/* RFC 793 through the flags: the state after a packet in direction d. */
static uint8_t
tcp_next(const struct nfv_ct_flow *f, unsigned int d, uint8_t flags, uint8_t *fin_seen)
{
	uint8_t s = f->state;

	if (flags & RTE_TCP_RST_FLAG)
		return NFV_CT_TCP_CLOSE;
	if (flags & RTE_TCP_FIN_FLAG) {
		*fin_seen |= (uint8_t)(1u << d);
		return *fin_seen == 3 ? NFV_CT_TCP_TIME_WAIT : NFV_CT_TCP_FIN_WAIT;
	}
	switch (s) {
	case NFV_CT_TCP_SYN_SENT:
		if (d == 1 && (flags & (RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG)) ==
		    (RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG))
			return NFV_CT_TCP_SYN_RECV;
		return s;
	case NFV_CT_TCP_SYN_RECV:
		if (d == 0 && (flags & (RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG)) == RTE_TCP_ACK_FLAG)
			return NFV_CT_TCP_ESTABLISHED;
		return s;
	default:
		return s;
	}
}

static uint8_t
new_state(const struct nfv_ct_key *k, const struct nfv_ct_pkt *p)
{
	switch (k->proto) {
	case IPPROTO_TCP:
		if ((p->tcp_flags & (RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG)) == RTE_TCP_SYN_FLAG)
			return NFV_CT_TCP_SYN_SENT;
		/* Picked up in the middle (as Linux's nf_conntrack_tcp_loose). */
		return NFV_CT_TCP_ESTABLISHED;
	case IPPROTO_UDP:
		return NFV_CT_UDP;
	case IPPROTO_ICMP:
	case IPPROTO_ICMPV6:
		return NFV_CT_ICMP;
	default:
		return NFV_CT_OTHER;
	}
}

/* What a TCP segment in direction d tells of its sender: the window scale
 * of a SYN, the last acknowledgment and the largest window. */
static void
tcp_track(struct nfv_ct_flow *f, unsigned int d, const struct nfv_ct_pkt *p)
{
	uint32_t win;

	if (p->tcp_flags & RTE_TCP_SYN_FLAG) {
		f->wscale[d] = p->wscale;
		f->ack_seen |= (uint8_t)(4u << d); /* this side's SYN seen */
	}
	if (!(p->tcp_flags & RTE_TCP_ACK_FLAG))
		return;
	win = p->win;
	/* RFC 7323: a SYN's window is not scaled; scaling holds when both
	 * SYNs carried the option. */
	if (!(p->tcp_flags & RTE_TCP_SYN_FLAG) && f->wscale[0] != 0xff && f->wscale[1] != 0xff)
		win <<= RTE_MIN(f->wscale[d], 14);
	if (!(f->ack_seen & (1u << d)) || (int32_t)(p->ack - f->ack[d]) > 0)
		f->ack[d] = p->ack;
	if (win > f->maxwin[d])
		f->maxwin[d] = win;
	f->ack_seen |= (uint8_t)(1u << d);
}

/* Sequence number order (RFC 793: modulo 2^32). */
static __rte_always_inline bool
seq_after(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) > 0;
}

static __rte_always_inline bool
seq_before(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) < 0;
}

/* The window scale of direction d's windows (RFC 7323 2.2: only when both
 * SYNs carried the option). */
static __rte_always_inline unsigned int
tcp_scale(const struct nfv_ct_flow *f, unsigned int d)
{
	if (f->wscale[0] == 0xff || f->wscale[1] == 0xff)
		return 0;
	return RTE_MIN(f->wscale[d], 14);
}

/* A segment's sequence space: its data, a SYN and a FIN one each. */
static __rte_always_inline uint32_t
tcp_end(const struct nfv_ct_pkt *p)
{
	return p->seq + p->seglen + !!(p->tcp_flags & RTE_TCP_SYN_FLAG) +
	       !!(p->tcp_flags & RTE_TCP_FIN_FLAG);
}

/* The window state of a flow's first segment (direction 0). A SYN
 * without ACK opens it; anything else (a flow picked up in the middle)
 * sets it as Linux does and marks the flow liberal. */
static void
tcp_window_init(struct nfv_ct_flow *f, const struct nfv_ct_pkt *p)
{
	uint32_t end = tcp_end(p);

	f->td_end[1] = f->td_maxend[1] = f->td_maxwin[1] = 0;
	f->td_end[0] = end;
	f->td_maxwin[0] = RTE_MAX((uint32_t)p->win, 1u);
	if ((p->tcp_flags & (RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG)) == RTE_TCP_SYN_FLAG) {
		f->td_maxend[0] = end;
		f->liberal = 0;
	} else {
		f->td_maxend[0] = end + f->td_maxwin[0];
		f->liberal = 1;
	}
}

/*
 * Whether a segment (not a reset) in direction d falls in the windows
 * (Linux's tcp_in_window, without SACK); when it does, the windows learn
 * from it. The checks, for sender d and receiver r:
 *   I   seq <= td_maxend[d]                  (not beyond what r allows)
 *   II  end > td_end[d] - td_maxwin[r]       (not older than r's window)
 *   III ack <= td_end[r]                     (nothing r has not sent)
 *   IV  ack >= td_end[r] - max(td_maxwin[d], 66000)  (not too old)
 */
static bool
tcp_in_window(struct nfv_ct_flow *f, unsigned int d, const struct nfv_ct_pkt *p)
{
	unsigned int r = d ^ 1;
	uint32_t seq = p->seq, ack = p->ack, win = p->win, end = tcp_end(p), maxack;
	uint8_t fl = p->tcp_flags;

	if (f->td_maxwin[d] == 0) {
		/* The first segment of this direction. */
		f->td_end[d] = end;
		if (fl & RTE_TCP_SYN_FLAG) {
			f->td_maxend[d] = end;
			f->td_maxwin[d] = RTE_MAX(win, 1u);
			if (!(fl & RTE_TCP_ACK_FLAG))
				return true; /* simultaneous open */
		} else {
			win <<= tcp_scale(f, d);
			f->td_maxwin[d] = RTE_MAX(win, 1u);
			f->td_maxend[d] = end + f->td_maxwin[d];
			if (f->td_maxwin[r] == 0)
				f->td_end[r] = f->td_maxend[r] = ack;
			else if (ack == f->td_end[r] + 1)
				f->td_end[r]++; /* a keepalive's answer */
		}
	} else if (((f->state == NFV_CT_TCP_SYN_SENT && d == 0) ||
		    (f->state == NFV_CT_TCP_SYN_RECV && d == 1)) && seq_after(end, f->td_end[d])) {
		/* A SYN again, with a later sequence number (RFC 793: a TCP
		 * that restarts uses numbers larger than those recently used). */
		f->td_end[d] = f->td_maxend[d] = end;
		f->td_maxwin[d] = RTE_MAX(win, 1u);
	}
	if (!(fl & RTE_TCP_ACK_FLAG))
		ack = f->td_end[r]; /* no acknowledgment: as if it were right */
	maxack = RTE_MAX(f->td_maxwin[d], 66000u);
	if (!(seq_before(seq, f->td_maxend[d] + 1) &&
	      (f->td_maxwin[r] == 0 || seq_after(end, f->td_end[d] - f->td_maxwin[r] - 1)) &&
	      seq_before(ack, f->td_end[r] + 1) &&
	      seq_after(ack, f->td_end[r] - maxack - 1)))
		return false;
	if (!(fl & RTE_TCP_SYN_FLAG))
		win <<= tcp_scale(f, d);
	if (f->td_maxwin[d] < win)
		f->td_maxwin[d] = win;
	if (seq_after(end, f->td_end[d]))
		f->td_end[d] = end;
	if (f->td_maxwin[r] != 0 && seq_after(end, f->td_maxend[d]))
		f->td_maxwin[r] += end - f->td_maxend[d];
	if (seq_after(ack + win, f->td_maxend[r] - 1)) {
		f->td_maxend[r] = ack + win;
		if (win == 0)
			f->td_maxend[r]++;
	}
	return true;
}

/* A reset in direction d is believed when its sequence number falls in the
 * window the receiver advertised from its last acknowledgment (RFC 5961's
 * spirit: a blind reset must guess it). Only once both SYNs were seen (the
 * window scales are known; a flow picked up in the middle is followed
 * liberally, as Linux does) and the receiver sent an ACK (not a reset
 * answering a SYN). */
static bool
rst_in_window(const struct nfv_ct_flow *f, unsigned int d, const struct nfv_ct_pkt *p)
{
	unsigned int r = d ^ 1;

	if ((f->ack_seen & 0xc) != 0xc || !(f->ack_seen & (1u << r)))
		return true;
	return p->seq - f->ack[r] < RTE_MAX(f->maxwin[r], 1u);
}

int
nfv_ct_hit(struct nfv_ct_table *t, struct nfv_ct_counters *c, const void *data, uint8_t proto,
	   const struct nfv_ct_pkt *p, uint64_t now)
{
	uint32_t idx = (uint32_t)((uintptr_t)data >> 1), d = (uint32_t)((uintptr_t)data & 1);
	struct nfv_ct_flow *f = &t->flows[idx];

	if (!f->used)
		return 0; /* forgotten by an earlier packet of the burst */
	if ((int64_t)(now - f->expire_tsc) >= 0) {
		flow_forget(t, idx);
		c->expired++;
		return 0;
	}
	if (proto == IPPROTO_TCP) {
		uint8_t syn = p->tcp_flags & (RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG | RTE_TCP_RST_FLAG);
		uint8_t fin = f->fin_seen;

		if (syn == RTE_TCP_SYN_FLAG &&
		    (f->state == NFV_CT_TCP_TIME_WAIT || f->state == NFV_CT_TCP_CLOSE)) {
			/* A new connection on the same ports: the rules decide again. */
			flow_forget(t, idx);
			return 0;
		}
		if (p->tcp_flags & RTE_TCP_RST_FLAG) {
			if (!rst_in_window(f, d, p)) {
				c->invalid_rst++;
				return -(int)drop_ct_invalid_rst.id;
			}
		} else if (!tcp_in_window(f, d, p) && !f->liberal &&
			   !__atomic_load_n(&nfv_ct_tcp_liberal, __ATOMIC_RELAXED)) {
			c->out_of_window++;
			return -(int)drop_ct_out_of_window.id;
		}
		tcp_track(f, d, p);
		f->state = tcp_next(f, d, p->tcp_flags, &fin);
		f->fin_seen = fin;
	} else if (p->icmp_echo != 0 && (p->icmp_echo == f->echo0) != (d == 0)) {
		/* An echo flow is the first packet's kind (a request) one way
		 * and the other (replies) back, as Linux keys the ICMP type: an
		 * echo request the other way is no packet of it, and the rules
		 * decide for it (the flow stays: a spoofed request does not end
		 * it; nfv_ct_create records none over it). */
		return 0;
	} else if (f->state == NFV_CT_UDP && d == 1) {
		f->state = NFV_CT_UDP_STREAM;
	}
	f->packets[d]++;
	flow_touch(f, now);
	c->hits++;
	return 1;
}

int
nfv_ct_lookup(struct nfv_ct_table *t, struct nfv_ct_counters *c, const struct nfv_ct_key *k,
	      const struct nfv_ct_pkt *p, uint64_t now)
{
	void *data;

	if (!p->trackable || rte_hash_lookup_data(t->hash, k, &data) < 0)
		return 0;
	return nfv_ct_hit(t, c, data, k->proto, p, now);
}

bool
nfv_ct_related(struct nfv_ct_table *t, struct nfv_ct_counters *c, const void *data,
	       uint64_t now)
{
	const struct nfv_ct_flow *f = &t->flows[(uint32_t)((uintptr_t)data >> 1)];

	if (!f->used || (int64_t)(now - f->expire_tsc) >= 0)
		return false;
	c->related++;
	return true;
}


int
nfv_ct_create(struct nfv_ct_table *t, struct nfv_ct_counters *c, const struct nfv_ct_key *k,
	      const struct nfv_ct_pkt *p, uint64_t now)
{
	struct nfv_ct_key r;
	struct nfv_ct_flow *f;
	uint32_t idx;

	if (!p->trackable || (k->proto == IPPROTO_TCP && (p->tcp_flags & RTE_TCP_RST_FLAG)))
		return 0; /* nothing to follow: permitted, not recorded */
	if (t->slots.count >= __atomic_load_n(&ct_worker_max, __ATOMIC_RELAXED) ||
	    t->slots.n_free == 0) {
		sweep(t, c, 256, now);
		if (t->slots.count >= __atomic_load_n(&ct_worker_max, __ATOMIC_RELAXED) ||
		    t->slots.n_free == 0) {
			c->table_full++;
			return -ENOSPC;
		}
	}
	key_reverse(&r, k);
	/* An echo request against an echo flow of the other way (nfv_ct_hit):
	 * its keys are that flow's; permitted, not recorded. */
	if (unlikely(p->icmp_echo != 0) &&
	    (rte_hash_lookup(t->hash, k) >= 0 || rte_hash_lookup(t->hash, &r) >= 0))
		return 0;
	idx = nfv_slots_take(&t->slots);
	f = &t->flows[idx];
	f->key = *k;
	if (rte_hash_add_key_data(t->hash, &f->key, (void *)(uintptr_t)(idx << 1)) < 0) {
		nfv_slots_put(&t->slots, idx);
		c->table_full++;
		return -ENOSPC;
	}
	/* An echo request to oneself is its own reply key: one key then. */
	if (memcmp(&f->key, &r, sizeof(r)) != 0 &&
	    rte_hash_add_key_data(t->hash, &r, (void *)(uintptr_t)(idx << 1 | 1)) < 0) {
		rte_hash_del_key(t->hash, &f->key);
		nfv_slots_put(&t->slots, idx);
		c->table_full++;
		return -ENOSPC;
	}
	f->state = new_state(k, p);
	f->fin_seen = 0;
	f->ack_seen = 0;
	f->maxwin[0] = f->maxwin[1] = 0;
	f->wscale[0] = f->wscale[1] = 0xff;
	if (k->proto == IPPROTO_TCP) {
		tcp_track(f, 0, p);
		tcp_window_init(f, p);
	}
	f->packets[0] = 1;
	f->packets[1] = 0;
	f->echo0 = p->icmp_echo;
	f->gen = t->slots.gen;
	f->iface_gen = __atomic_load_n(&nfv_ct_iface_gen[k->iface], __ATOMIC_ACQUIRE);
	f->serial = ++t->serial; /* from 1: 0 marks an empty cache entry */
	flow_touch(f, now);
	__atomic_store_n(&f->used, 1, __ATOMIC_RELEASE);
	c->created++;
	return 0;
}

/* rte_hash's hash of a key: an IPv4 key is 16 bytes that matter (the rest
 * is zero), hashed as two words instead of the whole 40 bytes. */
static uint32_t
ct_key_hash(const void *key, uint32_t len, uint32_t init)
{
	const struct nfv_ct_key *k = key;
	uint64_t w0;
	uint32_t s, d;

	if (k->family != AF_INET)
		return rte_hash_crc(key, len, init);
	memcpy(&w0, k, 8);
	memcpy(&s, k->src, 4);
	memcpy(&d, k->dst, 4);
	return rte_hash_crc_8byte((uint64_t)s | (uint64_t)d << 32, rte_hash_crc_8byte(w0, init));
}

/* ---- control side ---- */

/* The flow tables take memory (--conntrack-size flows per worker, tens of
 * MB) only once a reflect rule is about to be published (nfv_ct_reserve):
 * until then the per-worker structs are empty, their counts 0, and
 * nfv_ct_burst_start keeps the workers away from them. */
static bool ct_reserved;

static void
tables_free(void)
{
	for (unsigned int w = 0; nfv_ct_tables != NULL && w < nfv_n_workers; w++) {
		struct nfv_ct_table *t = &nfv_ct_tables[w];

		rte_hash_free(t->hash);
		rte_free(t->flows);
		rte_free(t->cache);
		nfv_slots_fini(&t->slots);
		t->hash = NULL;
		t->flows = NULL;
		t->cache = NULL;
	}
}

int
nfv_ct_reserve(char *err)
{
	if (ct_reserved)
		return 0;
	for (unsigned int w = 0; w < nfv_n_workers; w++) {
		struct nfv_ct_table *t = &nfv_ct_tables[w];
		int socket = (int)rte_lcore_to_socket_id(nfv_workers[w].lcore_id);
		char name[RTE_HASH_NAMESIZE];
		struct rte_hash_parameters prm = {
			.name = name,
			.entries = 2 * ct_capacity,
			.key_len = sizeof(struct nfv_ct_key),
			.hash_func = ct_key_hash,
			.socket_id = socket,
		};

		snprintf(name, sizeof(name), "nfv_ct%u", w);
		t->hash = rte_hash_create(&prm);
		t->flows = rte_zmalloc_socket("nfv_ct_flows", ct_capacity * sizeof(*t->flows),
					      RTE_CACHE_LINE_SIZE, socket);
		t->cache = rte_zmalloc_socket("nfv_ct_cache", NFV_CT_CACHE_SETS *
					      NFV_CT_CACHE_WAYS * sizeof(*t->cache),
					      RTE_CACHE_LINE_SIZE, socket);
		if (t->hash == NULL || t->flows == NULL || t->cache == NULL ||
		    nfv_slots_init(&t->slots, ct_capacity, socket) < 0) {
			tables_free();
			snprintf(err, NFV_ERR_LEN, "conntrack: no memory for %u flows per worker "
				 "(--conntrack-size; reserve more hugepages or lower it)", ct_capacity);
			return -ENOMEM;
		}
		table_clear(t);
	}
	ct_reserved = true;
	return 0;
}

static int
ct_setup(void)
{
	nfv_ct_tables = rte_zmalloc("nfv_ct_tables", nfv_n_workers * sizeof(*nfv_ct_tables),
				    RTE_CACHE_LINE_SIZE);
	if (nfv_ct_tables == NULL)
		return -ENOMEM;
	if (ct_max == 0)
		ct_max = ct_capacity * nfv_n_workers;
	ct_worker_max = (ct_max + nfv_n_workers - 1) / nfv_n_workers;
	timeouts_publish();
	return 0;
}
NFV_GRAPH_SETUP(ct_setup);

int
nfv_ct_set_max(uint32_t max, char *err)
{
	uint32_t cap = ct_capacity * RTE_MAX(nfv_n_workers, 1u);

	if (max > cap) {
		snprintf(err, NFV_ERR_LEN, "max %u is above the tables' capacity %u (%u flows per "
			 "worker, --conntrack-size)", max, cap, ct_capacity);
		return -ERANGE;
	}
	ct_max = max;
	__atomic_store_n(&ct_worker_max, (max + RTE_MAX(nfv_n_workers, 1u) - 1) /
			 RTE_MAX(nfv_n_workers, 1u), __ATOMIC_RELAXED);
	return 0;
}

int
nfv_ct_set_timeout(const char *name, uint32_t seconds, char *err)
{
	for (unsigned int i = 0; i < NFV_CT_STATES; i++)
		if (strcmp(name, timeout_names[i]) == 0) {
			timeout_s[i] = seconds;
			timeouts_publish();
			return 0;
		}
	snprintf(err, NFV_ERR_LEN, "unknown timeout '%s' (tcp-syn-sent, tcp-syn-recv, "
		 "tcp-established, tcp-fin-wait, tcp-time-wait, tcp-close, udp, udp-stream, "
		 "icmp, other)", name);
	return -EINVAL;
}

void
nfv_ct_set_tcp_liberal(bool on)
{
	__atomic_store_n(&nfv_ct_tcp_liberal, on, __ATOMIC_RELAXED);
}

void
nfv_ct_flush(void)
{
	__atomic_fetch_add(&nfv_ct_gen, 1, __ATOMIC_RELEASE);
}

static void
ct_iface_event(enum nfv_iface_event ev, uint16_t iface, void *arg)
{
	RTE_SET_USED(arg);
	if (ev != NFV_IFACE_REMOVED || iface >= NFV_IFACE_MAX)
		return;
	__atomic_fetch_add(&nfv_ct_iface_gen[iface], 1, __ATOMIC_RELEASE);
	__atomic_fetch_add(&nfv_ct_iface_epoch, 1, __ATOMIC_RELEASE);
}
NFV_IFACE_EVENT_HANDLER(ct_iface_event);

#define CT_SHOW_ENTRIES_MAX 10000

/* The flows now (read while the workers write: a flow that changes as it is
 * read may show a mix, never memory that is not a flow). */
json_t *
nfv_ct_show(void)
{
	uint64_t by_state[NFV_CT_STATES] = { 0 }, now = rte_get_tsc_cycles(), count = 0;
	uint32_t gen = __atomic_load_n(&nfv_ct_gen, __ATOMIC_RELAXED);
	json_t *entries = json_array(), *states = json_object(), *tmo = json_object(), *o;
	struct nfv_ct_counters c;
	bool truncated = false;

	for (unsigned int w = 0; nfv_ct_tables != NULL && w < nfv_n_workers; w++) {
		const struct nfv_ct_table *t = &nfv_ct_tables[w];

		for (uint32_t i = 0; t->flows != NULL && i < ct_capacity; i++) {
			struct nfv_ct_flow f;
			char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN], pb[8];

			if (!__atomic_load_n(&t->flows[i].used, __ATOMIC_ACQUIRE))
				continue;
			memcpy(&f, &t->flows[i], sizeof(f));
			if (f.gen != gen || (int64_t)(now - f.expire_tsc) >= 0 ||
			    f.state >= NFV_CT_STATES || flow_iface_gone(&f))
				continue;
			count++;
			by_state[f.state]++;
			if (json_array_size(entries) >= CT_SHOW_ENTRIES_MAX) {
				truncated = true;
				continue;
			}
			inet_ntop(f.key.family, f.key.src, src, sizeof(src));
			inet_ntop(f.key.family, f.key.dst, dst, sizeof(dst));
			json_array_append_new(entries, json_pack(
				"{s:s, s:s, s:s, s:s, s:i, s:i, s:s, s:i, s:I, s:I, s:I}",
				"dev", nfv_iface_name_of(f.key.iface),
				"proto", nfv_acl_proto_name(f.key.proto, pb, sizeof(pb)),
				"src", src, "dst", dst,
				"sport", rte_be_to_cpu_16(f.key.sport),
				"dport", rte_be_to_cpu_16(f.key.dport),
				"state", state_names[f.state], "worker", (int)w,
				"expires_in_ms", (json_int_t)((f.expire_tsc - now) * 1000 /
							      rte_get_tsc_hz()),
				"packets_orig", (json_int_t)f.packets[0],
				"packets_reply", (json_int_t)f.packets[1]));
		}
	}
	for (unsigned int i = 0; i < NFV_CT_STATES; i++) {
		json_object_set_new(states, state_names[i], json_integer((json_int_t)by_state[i]));
		json_object_set_new(tmo, timeout_names[i], json_integer(timeout_s[i]));
	}
	nfv_counters_sum(&nfv_ct_counters_block, &c);
	o = json_pack("{s:I, s:I, s:I, s:o, s:o, s:I, s:I, s:I, s:b, s:b, s:o}",
		      "count", (json_int_t)count, "max", (json_int_t)ct_max,
		      "capacity", (json_int_t)ct_capacity * RTE_MAX(nfv_n_workers, 1u),
		      "by_state", states, "timeouts", tmo,
		      "created", (json_int_t)c.created, "expired", (json_int_t)c.expired,
		      "table_full", (json_int_t)c.table_full, "truncated", truncated,
		      "tcp_liberal", nfv_ct_tcp_liberal,
		      "entries", entries);
	return o;
}

static void
ct_show_stats(json_t *stats)
{
	struct nfv_ct_counters c;

	nfv_counters_sum(&nfv_ct_counters_block, &c);
	json_object_set_new(stats, "conntrack", json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
		"created", (json_int_t)c.created, "expired", (json_int_t)c.expired,
		"table_full", (json_int_t)c.table_full, "hits", (json_int_t)c.hits,
		"related", (json_int_t)c.related, "invalid_rst", (json_int_t)c.invalid_rst,
		"out_of_window", (json_int_t)c.out_of_window));
}

static void
ct_metrics(FILE *f)
{
	struct nfv_ct_counters c;
	bool was = nfv_stats_since_start(true);

	nfv_counters_sum(&nfv_ct_counters_block, &c);
	nfv_stats_since_start(was);
	nfv_metrics_help(f, "nfvd_conntrack_flows_created_total", "counter",
			 "Flows recorded by reflect rules.");
	fprintf(f, "nfvd_conntrack_flows_created_total %" PRIu64 "\n", c.created);
	nfv_metrics_help(f, "nfvd_conntrack_table_full_total", "counter",
			 "New flows refused: the table was full.");
	fprintf(f, "nfvd_conntrack_table_full_total %" PRIu64 "\n", c.table_full);
	nfv_metrics_help(f, "nfvd_conntrack_related_total", "counter",
			 "ICMP errors about a tracked flow, permitted.");
	fprintf(f, "nfvd_conntrack_related_total %" PRIu64 "\n", c.related);
	nfv_metrics_help(f, "nfvd_conntrack_invalid_rst_total", "counter",
			 "TCP resets outside the receiver's window, dropped.");
	fprintf(f, "nfvd_conntrack_invalid_rst_total %" PRIu64 "\n", c.invalid_rst);
	nfv_metrics_help(f, "nfvd_conntrack_out_of_window_total", "counter",
			 "TCP segments outside the windows of their connection, dropped.");
	fprintf(f, "nfvd_conntrack_out_of_window_total %" PRIu64 "\n", c.out_of_window);
}

static const struct nfv_collector ct_collector = {
	.name = "conntrack",
	.show_stats = ct_show_stats,
	.metrics = ct_metrics,
};
NFV_COLLECTOR_REGISTER(ct_collector);

static const struct nfv_module_option ct_options[] = {
	{ "conntrack-size", "N",
	  "flows each worker's connection table holds, taken at the first reflect rule (65536)" },
	{ NULL, NULL, NULL },
};

static int
ct_parse_option(const char *name, const char *value, char *err, size_t len)
{
	return nfv_module_option_u32(name, value, 64, 1u << 24, &ct_capacity, err, len);
}

static void
ct_fini(void)
{
	tables_free();
	ct_reserved = false;
	rte_free(nfv_ct_tables);
	nfv_ct_tables = NULL;
}

static struct nfv_module ct_module = {
	.name = "conntrack",
	.depends_on = "acl",
	.fini = ct_fini,
	.options = ct_options,
	.parse_option = ct_parse_option,
};
NFV_MODULE_REGISTER(ct_module);
