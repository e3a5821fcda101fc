/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The neighbor table of ARP and ND, on the control thread.
 *
 * An entry is an (address, interface) pair with the state machine of
 * RFC 4861 7.3.2, which Linux also runs for ARP: INCOMPLETE (solicited by
 * broadcast / multicast, packets held), REACHABLE (confirmed by a reply;
 * for a random time between 0.5 and 1.5 times base_reachable), STALE (a
 * MAC heard unconfirmed, or reachable time over: still used), DELAY (used
 * while stale: confirmation awaited), PROBE (unicast solicitations,
 * retrans apart), FAILED (no answer: held packets get ICMP unreachable).
 * Stale and failed entries are removed after gc_stale. Defaults are
 * Linux's: base_reachable 30 s, retrans 1 s, delay_first_probe 5 s,
 * 3 unicast and 3 multicast solicitations, gc_stale 60 s.
 *
 * A resolved entry is published as the MAC of the gateway next hop of
 * its address and interface (nfv_neigh_learn, with the host route). Its
 * use is seen only in the stale state: the next hop is then published
 * with "notify", its packets take the rewrite's slow path, which reports
 * the use (nfv_nh_use_drain) and the entry goes to DELAY with the fast
 * path back. A static neighbor ("neigh add") wins: learning never
 * overwrites it and an entry that becomes static is dropped.
 *
 * Learning follows Linux with arp_accept=0 and RFC 4861 7.2.3-7.2.5: an
 * ARP request or NS for one of our addresses creates (or updates) the
 * sender's entry; other ARP (gratuitous, replies) and unsolicited NAs
 * only update existing entries; a reply or solicited NA confirms. Only a
 * sender on the link gets a new entry: within a subnet of one of the receiving
 * interface's addresses (or IPv6 link-local). An entry is published with
 * its host route, which beats any shorter route: an off-link address
 * learned on one port would take over that address's traffic from the
 * port its route names (Linux keeps neighbors out of its routing table,
 * so it does not need the test). A request from off the link is still
 * answered.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <rte_arp.h>
#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_hash.h>
#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_jhash.h>
#include <rte_malloc.h>
#include <rte_random.h>

#include "api/cmd.h"
#include "core/counters.h"
#include "core/event.h"
#include "core/iface_event.h"
#include "core/log.h"
#include "core/module.h"
#include "core/stats.h"
#include "modules/arp_nd/control/neigh.h"
#include "modules/arp_nd/control/params.h"
#include "modules/infra/iface.h"
#include "modules/ip/ip.h"

#define NEIGH_TICK_S 0.02

enum neigh_state {
	NEIGH_INCOMPLETE,
	NEIGH_REACHABLE,
	NEIGH_STALE,
	NEIGH_DELAY,
	NEIGH_PROBE,
	NEIGH_FAILED,
};

static const char *const state_names[] = {
	[NEIGH_INCOMPLETE] = "incomplete", [NEIGH_REACHABLE] = "reachable",
	[NEIGH_STALE] = "stale", [NEIGH_DELAY] = "delay", [NEIGH_PROBE] = "probe",
	[NEIGH_FAILED] = "failed",
};

struct neigh_key {
	uint8_t family;
	uint8_t pad;
	uint16_t iface;
	uint8_t addr[16];
};

struct neigh {
	bool used;
	bool has_mac;
	bool published;  /* nfv_neigh_learn done */
	uint8_t state;
	uint8_t probes;  /* solicitations sent in this state */
	uint8_t mac[6];
	uint16_t iface;
	struct nfv_ip ip;
	uint64_t changed; /* TSC: entered this state (or confirmed) */
	uint64_t next;    /* TSC: next solicitation or state change */
	uint64_t reachable; /* this entry's reachable time, TSC cycles */
	uint16_t worker;  /* the worker of its last punted packet */
	uint16_t n_held;
	/* Packets waiting, oldest first: NFV_NEIGH_HOLD_MAX slots, allocated
	 * when the first one comes (most entries never hold any). */
	struct held {
		struct rte_mbuf *m;
		uint16_t worker;
	} *held;
};

struct nfv_neigh_params nfv_neigh_params = {
	.base_reachable_ms = 30000,
	.retrans_ms = 1000,
	.delay_first_probe_ms = 5000,
	.gc_stale_ms = 60000,
	.ucast_solicit = 3,
	.mcast_solicit = 3,
	.hold = 16,
	.max_entries = NFV_NEIGH_MAX_DEFAULT,
	.resolve = true,
};
struct nfv_neigh_counters nfv_neigh_cnt;

static struct neigh *table;
static unsigned int table_size;
static struct rte_hash *hash;
static unsigned int n_entries;
static struct nfv_timer *tick_timer;
static uint64_t hz;
static unsigned int tick_count;

static struct nfv_inject_target inject_ip4_lookup = { .name = "ip4_lookup",
						      .node = "nfv_ip4_lookup" };
NFV_INJECT_TARGET_REGISTER(inject_ip4_lookup);
static struct nfv_inject_target inject_ip6_lookup = { .name = "ip6_lookup",
						      .node = "nfv_ip6_lookup" };
NFV_INJECT_TARGET_REGISTER(inject_ip6_lookup);
static struct nfv_inject_target inject_ip4_icmp = { .name = "ip4_icmp_error",
						    .node = "nfv_ip4_icmp_error" };
NFV_INJECT_TARGET_REGISTER(inject_ip4_icmp);
static struct nfv_inject_target inject_ip6_icmp = { .name = "ip6_icmp_error",
						    .node = "nfv_ip6_icmp_error" };
NFV_INJECT_TARGET_REGISTER(inject_ip6_icmp);
static struct nfv_inject_target inject_drop = { .name = "drop", .node = "nfv_drop" };
NFV_INJECT_TARGET_REGISTER(inject_drop);

static uint64_t
ms(uint32_t v)
{
	return (uint64_t)v * hz / 1000;
}

static void
key_of(struct neigh_key *k, const struct nfv_ip *ip, uint16_t iface)
{
	memset(k, 0, sizeof(*k));
	k->family = ip->family;
	k->iface = iface;
	if (ip->family == AF_INET)
		memcpy(k->addr, &ip->v4, 4);
	else
		memcpy(k->addr, ip->v6, 16);
}

static struct neigh *
neigh_find(const struct nfv_ip *ip, uint16_t iface)
{
	struct neigh_key k;
	void *data;

	key_of(&k, ip, iface);
	if (hash == NULL || rte_hash_lookup_data(hash, &k, &data) < 0)
		return NULL;
	return &table[(uintptr_t)data];
}

/* A packet the control side will not keep: counted under reason by the
 * drop node of a worker. */
static void
drop_pkt(struct rte_mbuf *m, const struct nfv_drop_reason *reason, unsigned int worker)
{
	nfv_meta(m)->drop_reason = reason->id;
	nfv_inject(worker, m, &inject_drop);
}

static void
neigh_delete(struct neigh *e, const struct nfv_drop_reason *why)
{
	struct neigh_key k;

	if (e->published)
		nfv_neigh_forget(&e->ip, e->iface);
	for (unsigned int i = 0; i < e->n_held; i++) {
		if (why != NULL)
			drop_pkt(e->held[i].m, why, e->held[i].worker);
		else
			rte_pktmbuf_free(e->held[i].m);
	}
	free(e->held);
	key_of(&k, &e->ip, e->iface);
	rte_hash_del_key(hash, &k);
	memset(e, 0, sizeof(*e));
	n_entries--;
}

/* A free slot; when the table is full a failed entry, then the stalest
 * stale one, makes room (as the kernel's forced garbage collection). */
static struct neigh *
neigh_create(const struct nfv_ip *ip, uint16_t iface, uint64_t now)
{
	struct neigh_key k;
	struct neigh *e = NULL, *victim = NULL;
	uint32_t idx = 0;

	if (n_entries >= nfv_neigh_params.max_entries) {
		for (uint32_t i = 0; i < table_size && victim == NULL; i++)
			if (table[i].used && table[i].state == NEIGH_FAILED && table[i].n_held == 0)
				victim = &table[i];
		for (uint32_t i = 0; i < table_size && victim == NULL; i++)
			if (table[i].used && table[i].state == NEIGH_STALE &&
			    (victim == NULL || table[i].changed < victim->changed))
				victim = &table[i];
		if (victim == NULL) {
			nfv_neigh_cnt.table_full++;
			return NULL;
		}
		nfv_neigh_cnt.evicted++;
		neigh_delete(victim, &drop_neigh_removed);
	}
	for (idx = 0; idx < table_size; idx++)
		if (!table[idx].used) {
			e = &table[idx];
			break;
		}
	if (e == NULL) {
		nfv_neigh_cnt.table_full++;
		return NULL;
	}
	key_of(&k, ip, iface);
	if (rte_hash_add_key_data(hash, &k, (void *)(uintptr_t)idx) < 0) {
		nfv_neigh_cnt.table_full++;
		return NULL;
	}
	memset(e, 0, sizeof(*e));
	e->used = true;
	e->ip = *ip;
	e->iface = iface;
	e->state = NEIGH_INCOMPLETE;
	e->changed = now;
	n_entries++;
	nfv_neigh_cnt.created++;
	return e;
}

static uint64_t
random_reachable(void)
{
	uint64_t base = ms(nfv_neigh_params.base_reachable_ms);

	/* RFC 4861 6.3.2: uniformly between 0.5 and 1.5 times the base. */
	return base / 2 + (base > 0 ? rte_rand_max(base) : 0);
}

static int
solicit(struct neigh *e, bool unicast)
{
	int rc;

	if (e->ip.family == AF_INET) {
		rc = nfv_arp_send_request(e->iface, e->ip.v4, unicast ? e->mac : NULL, e->worker);
		if (rc == 0)
			nfv_neigh_cnt.arp_requests_sent++;
	} else {
		rc = nfv_nd_send_ns(e->iface, e->ip.v6, unicast ? e->mac : NULL, e->worker);
		if (rc == 0)
			nfv_neigh_cnt.ns_sent++;
	}
	return rc;
}

static void
release_held(struct neigh *e)
{
	for (unsigned int i = 0; i < e->n_held; i++) {
		nfv_inject(e->held[i].worker, e->held[i].m,
			   e->ip.family == AF_INET ? &inject_ip4_lookup : &inject_ip6_lookup);
		nfv_neigh_cnt.released++;
	}
	e->n_held = 0;
}

/* RFC 1812 4.3.3.1 / RFC 4443 3.1: host unreachable (code 1), address
 * unreachable (code 3); the ICMP error nodes rate-limit them. */
static void
fail_held(struct neigh *e)
{
	for (unsigned int i = 0; i < e->n_held; i++) {
		struct rte_mbuf *m = e->held[i].m;
		struct nfv_mbuf_meta *meta = nfv_meta(m);
		bool v4 = e->ip.family == AF_INET;

		meta->icmp_info = 0;
		meta->icmp_type = v4 ? 3 : 1;
		meta->icmp_code = v4 ? 1 : 3;
		meta->drop_reason = drop_neigh_resolution_failed.id;
		nfv_inject(e->held[i].worker, m, v4 ? &inject_ip4_icmp : &inject_ip6_icmp);
		nfv_neigh_cnt.failed_packets++;
	}
	e->n_held = 0;
}

static void
publish(struct neigh *e)
{
	char err[NFV_ERR_LEN];
	bool notify = e->state == NEIGH_STALE;

	if (nfv_neigh_learn(&e->ip, e->iface, e->mac, notify, err) < 0) {
		nfv_neigh_cnt.table_full++;
		return;
	}
	e->published = true;
}

static void
enter(struct neigh *e, enum neigh_state st, uint64_t now)
{
	e->state = st;
	e->changed = now;
	e->probes = 0;
	switch (st) {
	case NEIGH_REACHABLE:
		e->reachable = random_reachable();
		e->next = now + e->reachable;
		break;
	case NEIGH_STALE:
		e->next = now + ms(nfv_neigh_params.gc_stale_ms);
		break;
	case NEIGH_DELAY:
		e->next = now + ms(nfv_neigh_params.delay_first_probe_ms);
		break;
	case NEIGH_FAILED:
		e->next = now + ms(nfv_neigh_params.gc_stale_ms);
		break;
	default:
		e->next = now + ms(nfv_neigh_params.retrans_ms);
		break;
	}
}

/*
 * What a received ARP or ND message says about e: its MAC (NULL: none
 * given), whether it confirms reachability (a reply, a solicited NA) and
 * whether it may override a MAC we have (RFC 4861 7.2.5).
 */
static void
neigh_update(struct neigh *e, const uint8_t *mac, bool confirm, bool override, uint64_t now)
{
	bool changed;

	if (mac == NULL) {
		if (!e->has_mac)
			return;
		mac = e->mac;
	}
	changed = !e->has_mac || memcmp(e->mac, mac, 6) != 0;
	if (changed && e->has_mac && !override) {
		/* 7.2.5: a different MAC without the override flag does not
		 * replace ours; a reachable entry becomes stale. */
		if (e->state == NEIGH_REACHABLE) {
			enter(e, NEIGH_STALE, now);
			publish(e);
		}
		return;
	}
	if (changed) {
		if (e->has_mac)
			nfv_neigh_cnt.mac_changed++;
		else
			nfv_neigh_cnt.resolved++;
		memcpy(e->mac, mac, 6);
		e->has_mac = true;
	}
	if (confirm) {
		nfv_neigh_cnt.confirmed++;
		enter(e, NEIGH_REACHABLE, now);
	} else if (changed || e->state == NEIGH_INCOMPLETE || e->state == NEIGH_FAILED) {
		enter(e, NEIGH_STALE, now);
	} else {
		return; /* same MAC, unconfirmed: the state stays */
	}
	/* A stale entry nobody has used yet (learned from the neighbor's own
	 * request or solicitation) is published when a packet first needs it
	 * (hold_handler): a flood of requests from new senders costs table
	 * entries, not next hops, routes and grace periods. */
	if (!e->published && e->state == NEIGH_STALE && e->n_held == 0)
		return;
	publish(e);
	if (e->published)
		release_held(e);
}

/* A packet waits for its neighbor (the "hold" punt queue). */
/* Sets an entry that has no usable MAC on the way to one: a failed or
 * unpublished one starts over as incomplete, an incomplete one not asked
 * yet is asked (the timer asks again, then fails it). -EADDRNOTAVAIL when
 * the interface has no address to ask from. */
static int
resolve_start(struct neigh *e, uint64_t now)
{
	if (e->state == NEIGH_FAILED || (e->state != NEIGH_INCOMPLETE && !e->published)) {
		if (e->published)
			nfv_neigh_forget(&e->ip, e->iface);
		e->published = false;
		e->has_mac = false;
		enter(e, NEIGH_INCOMPLETE, now);
	}
	if (e->state == NEIGH_INCOMPLETE && e->probes == 0) {
		if (solicit(e, false) == -EADDRNOTAVAIL)
			return -EADDRNOTAVAIL;
		e->probes = 1;
		e->next = now + ms(nfv_neigh_params.retrans_ms);
	}
	return 0;
}

int
nfv_neigh_resolve(const struct nfv_ip *ip, uint16_t iface)
{
	uint64_t now = rte_get_tsc_cycles();
	struct neigh *e;
	int rc;

	if (iface >= NFV_IFACE_MAX || !nfv_ifaces[iface].used ||
	    (ip->family != AF_INET && ip->family != AF_INET6))
		return -ENODEV;
	e = neigh_find(ip, iface);
	if (e == NULL && (e = neigh_create(ip, iface, now)) == NULL)
		return -ENOSPC;
	if (!e->published && e->has_mac && e->state == NEIGH_STALE) {
		enter(e, NEIGH_DELAY, now);
		publish(e);
		return e->published ? 0 : -ENOSPC;
	}
	if (e->published && e->state != NEIGH_FAILED && e->state != NEIGH_INCOMPLETE)
		return 0;
	rc = resolve_start(e, now);
	if (rc < 0) {
		nfv_neigh_cnt.no_source++;
		neigh_delete(e, &drop_neigh_no_source);
	}
	return rc;
}

static void
hold_handler(struct rte_mbuf *m, unsigned int worker)
{
	const struct nfv_neigh_hold_meta *h = nfv_neigh_hold_meta(m);
	struct nfv_ip ip = { .family = h->family };
	uint64_t now = rte_get_tsc_cycles();
	struct neigh *e;

	if (h->iface >= NFV_IFACE_MAX || !nfv_ifaces[h->iface].used ||
	    (h->family != AF_INET && h->family != AF_INET6)) {
		drop_pkt(m, &drop_neigh_table_full, worker);
		return;
	}
	if (h->family == AF_INET)
		memcpy(&ip.v4, h->addr, 4);
	else
		memcpy(ip.v6, h->addr, 16);
	e = neigh_find(&ip, h->iface);
	if (e == NULL) {
		e = neigh_create(&ip, h->iface, now);
		if (e == NULL) {
			drop_pkt(m, &drop_neigh_table_full, worker);
			return;
		}
	}
	e->worker = (uint16_t)worker;
	if (!e->published && e->has_mac && e->state == NEIGH_STALE) {
		/* Learned, first used now: delay (RFC 4861 7.3.3), published. */
		enter(e, NEIGH_DELAY, now);
		publish(e);
		if (!e->published) {
			drop_pkt(m, &drop_neigh_table_full, worker);
			return;
		}
	}
	if (e->published && e->state != NEIGH_FAILED && e->state != NEIGH_INCOMPLETE) {
		/* Resolved since the packet left (or its host route went with a
		 * static neighbor deleted over it): route it again. A destination
		 * on the link that still has no host route to the entry (the route
		 * table is full, or the address is another interface's neighbor)
		 * would come back for ever: dropped. */
		if (!nfv_neigh_learned_route(&ip, h->iface) && h->connected) {
			drop_pkt(m, &drop_neigh_table_full, worker);
			return;
		}
		nfv_neigh_cnt.released++;
		nfv_inject(worker, m, h->family == AF_INET ? &inject_ip4_lookup :
			   &inject_ip6_lookup);
		return;
	}
	if (resolve_start(e, now) == -EADDRNOTAVAIL) {
		nfv_neigh_cnt.no_source++;
		drop_pkt(m, &drop_neigh_no_source, worker);
		neigh_delete(e, &drop_neigh_no_source);
		return;
	}
	if (e->n_held >= nfv_neigh_params.hold) {
		/* Full: the oldest goes, as the kernel's unresolved queue does. */
		nfv_neigh_cnt.hold_overflow++;
		if (e->n_held > 0) {
			drop_pkt(e->held[0].m, &drop_neigh_hold_overflow, e->held[0].worker);
			memmove(e->held, e->held + 1, (e->n_held - 1) * sizeof(e->held[0]));
			e->n_held--;
		}
		if (nfv_neigh_params.hold == 0) {
			drop_pkt(m, &drop_neigh_hold_overflow, worker);
			return;
		}
	}
	if (e->held == NULL) {
		e->held = malloc(NFV_NEIGH_HOLD_MAX * sizeof(e->held[0]));
		if (e->held == NULL) {
			drop_pkt(m, &drop_neigh_table_full, worker);
			return;
		}
	}
	e->held[e->n_held].m = m;
	e->held[e->n_held].worker = (uint16_t)worker;
	e->n_held++;
	nfv_neigh_cnt.held++;
}

struct nfv_punt_queue nfv_hold_queue = {
	.name = "hold", .rate = 10000, .burst = 1000, .handler = hold_handler,
};
NFV_PUNT_QUEUE_REGISTER(nfv_hold_queue);

static bool
iface_has_addr(uint16_t iface, const struct nfv_ip *ip)
{
	struct nfv_prefix a[NFV_ADDR_PER_PORT_MAX];
	unsigned int n = nfv_addr_of_iface(iface, a);

	for (unsigned int i = 0; i < n; i++)
		if (nfv_ip_equal(&a[i].ip, ip))
			return true;
	return false;
}

/* Whether ip is on iface's link: in the subnet of one of its addresses,
 * or IPv6 link-local. */
static bool
on_link(uint16_t iface, const struct nfv_ip *ip)
{
	struct nfv_prefix a[NFV_ADDR_PER_PORT_MAX];
	unsigned int n;

	if (ip->family == AF_INET6 && nfv_ip_is_link_local(ip))
		return true;
	n = nfv_addr_of_iface(iface, a);
	for (unsigned int i = 0; i < n; i++)
		if (a[i].ip.family == ip->family && nfv_prefix_contains(&a[i], ip))
			return true;
	return false;
}

/* What may be learned: a unicast MAC, an address that could be a neighbor. */
static bool
learnable(const struct nfv_ip *ip, const uint8_t *mac, uint16_t iface)
{
	if (mac != NULL && (rte_is_multicast_ether_addr((const struct rte_ether_addr *)mac) ||
			    rte_is_zero_ether_addr((const struct rte_ether_addr *)mac)))
		return false;
	if (nfv_ip_unusable(ip) != NULL && !nfv_ip_is_link_local(ip))
		return false;
	if (iface_has_addr(iface, ip))
		return false;
	if (nfv_neigh_is_static(ip, iface)) {
		nfv_neigh_cnt.static_kept++;
		return false;
	}
	return true;
}

/* Whether a sender may get an entry it does not have (a request or NS for
 * our address): on the link. Replies confirm the entries nfvd made to
 * resolve a next hop, a gateway off the port's subnets included ("via GW
 * dev NAME", onlink kernel routes). */
static bool
creatable(const struct nfv_ip *ip, uint16_t iface)
{
	if (on_link(iface, ip))
		return true;
	nfv_neigh_cnt.off_link++;
	return false;
}

/* ARP (RFC 826, the "merge" of the packet reception algorithm). */
static void
arp_handler(struct rte_mbuf *m, unsigned int worker)
{
	struct rte_arp_hdr *a = rte_pktmbuf_mtod_offset(m, struct rte_arp_hdr *,
						       RTE_ETHER_HDR_LEN);
	uint16_t iface = m->port;
	uint16_t op = rte_be_to_cpu_16(a->arp_opcode);
	struct nfv_ip sip = { .family = AF_INET, .v4 = a->arp_data.arp_sip };
	struct nfv_ip tip = { .family = AF_INET, .v4 = a->arp_data.arp_tip };
	uint8_t sha[6];
	uint64_t now = rte_get_tsc_cycles();
	bool ours;
	struct neigh *e;

	if (iface >= NFV_IFACE_MAX || !nfv_ifaces[iface].used) {
		drop_pkt(m, &drop_arp_not_ours, worker);
		return;
	}
	memcpy(sha, a->arp_data.arp_sha.addr_bytes, 6);
	if (op == RTE_ARP_OP_REQUEST)
		nfv_neigh_cnt.arp_requests_received++;
	else
		nfv_neigh_cnt.arp_replies_received++;
	ours = iface_has_addr(iface, &tip);
	if (sip.v4 != 0 && learnable(&sip, sha, iface)) {
		e = neigh_find(&sip, iface);
		if (e == NULL && op == RTE_ARP_OP_REQUEST && ours && creatable(&sip, iface)) {
			e = neigh_create(&sip, iface, now);
			if (e != NULL)
				e->worker = (uint16_t)worker;
		}
		if (e != NULL)
			neigh_update(e, sha, op == RTE_ARP_OP_REPLY && ours, true, now);
	}
	/* A gratuitous request (sender and target the same address, not
	 * ours) announces, as a reply does: nothing to answer. */
	if (op != RTE_ARP_OP_REQUEST || (!ours && sip.v4 == tip.v4)) {
		drop_pkt(m, &drop_arp_reply_received, worker);
		return;
	}
	if (!ours) {
		nfv_neigh_cnt.not_ours++;
		drop_pkt(m, &drop_arp_not_ours, worker);
		return;
	}
	/* The reply, in the request's buffer: 42 bytes, as Linux sends it. */
	rte_pktmbuf_trim(m, (uint16_t)(rte_pktmbuf_pkt_len(m) - RTE_ETHER_HDR_LEN -
				       sizeof(struct rte_arp_hdr)));
	nfv_arp_fill(m, RTE_ARP_OP_REPLY, sha, nfv_ifaces[iface].mac.addr_bytes, tip.v4, sha,
		     sip.v4);
	if (nfv_arp_nd_send(iface, m, worker) == 0)
		nfv_neigh_cnt.arp_replies_sent++;
}

struct nfv_punt_queue nfv_arp_queue = {
	.name = "arp", .rate = 10000, .burst = 1000, .handler = arp_handler,
};
NFV_PUNT_QUEUE_REGISTER(nfv_arp_queue);

/* The link-layer address option of type want (1 source, 2 target) in the
 * options of an ND message; -1 when an option is malformed (RFC 4861 7.1). */
static int
nd_option(const uint8_t *opt, unsigned int len, uint8_t want, const uint8_t **mac)
{
	*mac = NULL;
	while (len >= 2) {
		unsigned int olen = opt[1] * 8u;

		if (olen == 0 || olen > len)
			return -1;
		if (opt[0] == want && olen >= 8)
			*mac = opt + 2;
		opt += olen;
		len -= olen;
	}
	return 0;
}

static bool
is_ours6(uint16_t iface, const uint8_t *a)
{
	uint8_t ll[16];
	struct nfv_ip ip = { .family = AF_INET6 };

	nfv_nd_link_local(iface, ll);
	if (memcmp(ll, a, 16) == 0)
		return true;
	memcpy(ip.v6, a, 16);
	return iface_has_addr(iface, &ip);
}

static void
echo_reply_link_local(struct rte_mbuf *m, struct rte_ipv6_hdr *ip, uint8_t *icmp,
		      uint16_t iface, unsigned int worker)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	uint8_t tmp[16];
	uint16_t ck;

	memcpy(tmp, ip->src_addr, 16);
	memcpy(ip->src_addr, ip->dst_addr, 16);
	memcpy(ip->dst_addr, tmp, 16);
	ip->hop_limits = 64;
	icmp[0] = 129;
	icmp[2] = 0;
	icmp[3] = 0;
	ck = rte_ipv6_udptcp_cksum(ip, icmp);
	memcpy(icmp + 2, &ck, 2);
	eth->dst_addr = eth->src_addr;
	eth->src_addr = nfv_ifaces[iface].mac;
	if (nfv_arp_nd_send(iface, m, worker) == 0)
		nfv_neigh_cnt.echo_replies_link_local++;
}

/* Neighbor solicitations and advertisements (RFC 4861 7.1, 7.2), echo
 * requests to the link-local address. */
static void
nd_handler(struct rte_mbuf *m, unsigned int worker)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(eth + 1);
	uint8_t *icmp = (uint8_t *)(ip + 1);
	uint16_t iface = m->port, plen = rte_be_to_cpu_16(ip->payload_len);
	uint64_t now = rte_get_tsc_cycles();
	static const uint8_t unspec[16];
	const uint8_t *ll;
	struct nfv_ip peer = { .family = AF_INET6 };
	struct neigh *e;

	if (iface >= NFV_IFACE_MAX || !nfv_ifaces[iface].used ||
	    rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN + sizeof(*ip) + plen ||
	    rte_ipv6_udptcp_cksum_verify(ip, icmp) != 0) {
		nfv_neigh_cnt.nd_invalid++;
		drop_pkt(m, &drop_nd_bad, worker);
		return;
	}
	if (icmp[0] == 128) {
		uint8_t mine[16];

		nfv_nd_link_local(iface, mine);
		if (memcmp(mine, ip->dst_addr, 16) == 0) {
			echo_reply_link_local(m, ip, icmp, iface, worker);
			return;
		}
		nfv_neigh_cnt.not_ours++;
		drop_pkt(m, &drop_nd_not_ours, worker);
		return;
	}
	if (icmp[0] == 135) {
		const uint8_t *target = icmp + 8;
		bool dad = memcmp(ip->src_addr, unspec, 16) == 0;

		nfv_neigh_cnt.ns_received++;
		if (target[0] == 0xff || nd_option(icmp + 24, plen - 24u, 1, &ll) < 0 ||
		    (dad && ll != NULL)) {
			nfv_neigh_cnt.nd_invalid++;
			drop_pkt(m, &drop_nd_bad, worker);
			return;
		}
		if (!is_ours6(iface, target)) {
			nfv_neigh_cnt.not_ours++;
			drop_pkt(m, &drop_nd_not_ours, worker);
			return;
		}
		if (dad) {
			/* RFC 4862 5.4.3: someone wants our address; tell all nodes. */
			static const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 1 };
			static const uint8_t all_nodes_mac[6] = { 0x33, 0x33, 0, 0, 0, 1 };

			if (nfv_nd_send_na(m, iface, all_nodes_mac, all_nodes, target,
					   ND_NA_ROUTER | ND_NA_OVERRIDE, worker) == 0)
				nfv_neigh_cnt.na_sent++;
			return;
		}
		memcpy(peer.v6, ip->src_addr, 16);
		/* 7.2.3: the sender's link-layer address creates or updates its
		 * entry, stale. */
		if (ll != NULL && learnable(&peer, ll, iface)) {
			e = neigh_find(&peer, iface);
			if (e == NULL && creatable(&peer, iface)) {
				e = neigh_create(&peer, iface, now);
				if (e != NULL)
					e->worker = (uint16_t)worker;
			}
			if (e != NULL)
				neigh_update(e, ll, false, true, now);
		}
		/* 7.2.4: solicited, override, and router (nfvd routes). */
		if (nfv_nd_send_na(m, iface, ll != NULL ? ll : eth->src_addr.addr_bytes,
				   ip->src_addr, target,
				   ND_NA_ROUTER | ND_NA_SOLICITED | ND_NA_OVERRIDE, worker) == 0)
			nfv_neigh_cnt.na_sent++;
		return;
	}
	if (icmp[0] == 136) {
		const uint8_t *target = icmp + 8;
		uint8_t flags = icmp[4];
		bool solicited = (flags & ND_NA_SOLICITED) != 0;

		nfv_neigh_cnt.na_received++;
		if (target[0] == 0xff || (ip->dst_addr[0] == 0xff && solicited) ||
		    nd_option(icmp + 24, plen - 24u, 2, &ll) < 0) {
			nfv_neigh_cnt.nd_invalid++;
			drop_pkt(m, &drop_nd_bad, worker);
			return;
		}
		memcpy(peer.v6, target, 16);
		e = neigh_find(&peer, iface);
		/* 7.2.5: no entry, nothing to do (unsolicited NAs do not create). */
		if (e != NULL && learnable(&peer, ll, iface)) {
			if (e->state == NEIGH_INCOMPLETE && ll == NULL) {
				/* nothing to learn from */
			} else {
				neigh_update(e, ll, solicited,
					     (flags & ND_NA_OVERRIDE) != 0 || !e->has_mac, now);
			}
		}
		drop_pkt(m, &drop_nd_advert_received, worker);
		return;
	}
	nfv_neigh_cnt.nd_invalid++;
	drop_pkt(m, &drop_nd_bad, worker);
}

struct nfv_punt_queue nfv_nd_queue = {
	.name = "nd", .rate = 10000, .burst = 1000, .handler = nd_handler,
};
NFV_PUNT_QUEUE_REGISTER(nfv_nd_queue);

/* A worker used a stale entry's next hop: delay, then probe (7.3.3). */
static void
on_use(uint32_t nh_id, void *arg)
{
	const struct nfv_nexthop *nh = nfv_nh_get(nh_id);
	uint64_t now = *(const uint64_t *)arg;
	struct neigh *e;

	if (nh == NULL || nh->type != NFV_NH_GATEWAY)
		return;
	e = neigh_find(&nh->gw, nh->port_id);
	if (e == NULL || e->state != NEIGH_STALE)
		return;
	nfv_neigh_cnt.used_stale++;
	enter(e, NEIGH_DELAY, now);
	publish(e);
}

static void
neigh_timer(struct neigh *e, uint64_t now)
{
	if (now < e->next)
		return;
	switch (e->state) {
	case NEIGH_INCOMPLETE:
		if (e->probes < nfv_neigh_params.mcast_solicit) {
			solicit(e, false);
			e->probes++;
			e->next = now + ms(nfv_neigh_params.retrans_ms);
			break;
		}
		nfv_neigh_cnt.failed++;
		fail_held(e);
		enter(e, NEIGH_FAILED, now);
		break;
	case NEIGH_REACHABLE:
		enter(e, NEIGH_STALE, now);
		publish(e);
		break;
	case NEIGH_STALE:
		nfv_neigh_cnt.gc++;
		neigh_delete(e, &drop_neigh_removed);
		break;
	case NEIGH_DELAY:
		enter(e, NEIGH_PROBE, now);
		solicit(e, true);
		e->probes = 1;
		break;
	case NEIGH_PROBE:
		if (e->probes < nfv_neigh_params.ucast_solicit) {
			solicit(e, true);
			e->probes++;
			e->next = now + ms(nfv_neigh_params.retrans_ms);
			break;
		}
		/* No answer to the probes: forgotten; new packets solicit anew. */
		nfv_neigh_cnt.failed++;
		if (e->published)
			nfv_neigh_forget(&e->ip, e->iface);
		e->published = false;
		e->has_mac = false;
		fail_held(e);
		enter(e, NEIGH_FAILED, now);
		break;
	case NEIGH_FAILED:
		nfv_neigh_cnt.gc++;
		neigh_delete(e, &drop_neigh_resolution_failed);
		break;
	default:
		break;
	}
}

static void
tick(void *arg)
{
	uint64_t now = rte_get_tsc_cycles();
	bool check_static;

	RTE_SET_USED(arg);
	nfv_ctl_lock();
	/* Punted packets first: a reply waiting there beats a timeout. */
	nfv_punt_drain();
	nfv_nh_use_drain(on_use, &now);
	check_static = ++tick_count % 50 == 0;
	for (unsigned int i = 0; i < table_size && n_entries > 0; i++) {
		struct neigh *e = &table[i];

		if (!e->used)
			continue;
		if (check_static && nfv_neigh_is_static(&e->ip, e->iface)) {
			/* "neigh add" over a learned entry: the static one rules. */
			release_held(e);
			neigh_delete(e, NULL);
			continue;
		}
		neigh_timer(e, now);
	}
	nfv_ctl_unlock();
}

/* "neigh flush": every learned entry (of one interface) goes. */
unsigned int
nfv_neigh_flush(int iface)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < table_size; i++)
		if (table[i].used && (iface < 0 || table[i].iface == iface)) {
			neigh_delete(&table[i], &drop_neigh_removed);
			n++;
		}
	return n;
}

static void
iface_event(enum nfv_iface_event ev, uint16_t iface, void *arg)
{
	RTE_SET_USED(arg);
	if (table == NULL)
		return;
	if (ev == NFV_IFACE_REMOVED || ev == NFV_IFACE_VRF) {
		for (unsigned int i = 0; i < table_size; i++)
			if (table[i].used && table[i].iface == iface)
				neigh_delete(&table[i], &drop_neigh_removed);
	}
}
NFV_IFACE_EVENT_HANDLER(iface_event);

/* Seconds in the state, to the millisecond. */
static double
age_s(const struct neigh *e, uint64_t now)
{
	return (double)((now - e->changed) * 1000 / hz) / 1000.0;
}

static void
neigh_rows(json_t *rows, int dev, int vrf)
{
	uint64_t now = rte_get_tsc_cycles();

	for (unsigned int i = 0; i < table_size; i++) {
		const struct neigh *e = &table[i];
		char buf[64], mac[RTE_ETHER_ADDR_FMT_SIZE] = "";
		uint16_t v;

		if (!e->used || (dev >= 0 && e->iface != dev))
			continue;
		v = nfv_ifaces[e->iface].vrf;
		if (vrf >= 0 && v != vrf)
			continue;
		if (e->has_mac)
			nfv_format_mac(mac, sizeof(mac), e->mac);
		json_array_append_new(rows, json_pack("{s:s, s:s?, s:s, s:s, s:s, s:f, s:i, s:i}",
			"address", nfv_ip_str(&e->ip, buf, sizeof(buf)),
			"lladdr", e->has_mac ? mac : NULL, "dev", nfv_iface_name_of(e->iface),
			"state", state_names[e->state], "vrf", nfv_vrf_name(v),
			"age", age_s(e, now), "probes", e->probes, "held", e->n_held));
	}
}

json_t *
nfv_neigh_stats_json(void)
{
	const struct nfv_neigh_counters *c = &nfv_neigh_cnt;
	unsigned int by_state[6] = { 0 };
	json_t *states = json_object();

	for (unsigned int i = 0; i < table_size; i++)
		if (table[i].used)
			by_state[table[i].state]++;
	for (unsigned int s = 0; s < RTE_DIM(state_names); s++)
		json_object_set_new(states, state_names[s], json_integer(by_state[s]));
	return json_pack("{s:i, s:i, s:o, s:{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, "
			 "s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, "
			 "s:I, s:I, s:I}}",
		"entries", n_entries, "max_entries", nfv_neigh_params.max_entries,
		"states", states, "events",
		"arp_requests_received", (json_int_t)c->arp_requests_received,
		"arp_replies_received", (json_int_t)c->arp_replies_received,
		"arp_replies_sent", (json_int_t)c->arp_replies_sent,
		"arp_requests_sent", (json_int_t)c->arp_requests_sent,
		"ns_received", (json_int_t)c->ns_received,
		"na_received", (json_int_t)c->na_received,
		"ns_sent", (json_int_t)c->ns_sent, "na_sent", (json_int_t)c->na_sent,
		"echo_replies_link_local", (json_int_t)c->echo_replies_link_local,
		"not_ours", (json_int_t)c->not_ours, "nd_invalid", (json_int_t)c->nd_invalid,
		"created", (json_int_t)c->created, "resolved", (json_int_t)c->resolved,
		"confirmed", (json_int_t)c->confirmed, "mac_changed", (json_int_t)c->mac_changed,
		"static_kept", (json_int_t)c->static_kept, "off_link", (json_int_t)c->off_link,
		"used_stale", (json_int_t)c->used_stale,
		"held", (json_int_t)c->held, "released", (json_int_t)c->released,
		"hold_overflow", (json_int_t)c->hold_overflow, "failed", (json_int_t)c->failed,
		"failed_packets", (json_int_t)c->failed_packets,
		"table_full", (json_int_t)c->table_full, "evicted", (json_int_t)c->evicted,
		"gc", (json_int_t)c->gc);
}

static int
arp_nd_init(void)
{
	struct rte_hash_parameters hp = {
		.name = "nfv_neigh",
		.entries = NFV_NEIGH_MAX_CAP,
		.key_len = sizeof(struct neigh_key),
		.hash_func = rte_jhash,
		.socket_id = (int)rte_socket_id(),
	};

	hz = rte_get_tsc_hz();
	table_size = NFV_NEIGH_MAX_CAP;
	table = rte_zmalloc("nfv_neigh", table_size * sizeof(*table), RTE_CACHE_LINE_SIZE);
	hash = rte_hash_create(&hp);
	if (table == NULL || hash == NULL)
		return -ENOMEM;
	nfv_neigh_rows_register(neigh_rows);
	tick_timer = nfv_timer_add("neigh", NEIGH_TICK_S, false, tick, NULL);
	return tick_timer == NULL ? -ENOMEM : 0;
}

/* The workers have stopped: held packets go back to their pools. */
static void
arp_nd_stop(void)
{
	nfv_ctl_lock();
	for (unsigned int i = 0; i < table_size; i++) {
		struct neigh *e = &table[i];

		for (unsigned int k = 0; k < e->n_held; k++)
			rte_pktmbuf_free(e->held[k].m);
		e->n_held = 0;
	}
	nfv_ctl_unlock();
}

static void
arp_nd_fini(void)
{
	for (unsigned int i = 0; table != NULL && i < table_size; i++)
		free(table[i].held);
	if (tick_timer != NULL)
		nfv_timer_del(tick_timer);
	tick_timer = NULL;
	rte_hash_free(hash);
	hash = NULL;
	rte_free(table);
	table = NULL;
}

static struct nfv_module arp_nd_module = {
	.name = "arp_nd",
	.depends_on = "ip punt",
	.init = arp_nd_init,
	.stop = arp_nd_stop,
	.fini = arp_nd_fini,
};
NFV_MODULE_REGISTER(arp_nd_module);
