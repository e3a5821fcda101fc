/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NAT44 rules, the per-worker session tables and their views.
 *
 * Rules are kept by the control thread and published whole (a new
 * nfv_nat_config, RCU); the nat44_in / nat44_out features are enabled on
 * exactly the interfaces some rule names. The session tables (one per
 * worker, allocated with the first rule) are written only by their worker:
 * expiry is lazy (a lookup that finds an expired session forgets it, and
 * each burst sweeps four entries), "nat44 flush" bumps a generation each
 * worker compares once per burst. Timeouts are VPP's defaults: TCP
 * established 7440 s, TCP opening or closing 240 s, UDP 300 s, ICMP 60 s.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include <jansson.h>
#include <rte_cycles.h>
#include <rte_hash.h>
#include <rte_hash_crc.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "api/parse.h"
#include "core/arc.h"
#include "core/iface_event.h"
#include "core/log.h"
#include "core/module.h"
#include "core/stats.h"
#include "modules/infra/iface.h"
#include "modules/ip/ip.h"
#include "modules/ip/l4_frag.h"
#include "modules/ip/l4_rewrite.h"
#include "modules/nat44/nat44.h"

struct nfv_nat_config *nfv_nat_cfg;
struct nfv_nat_table *nfv_nat_tables;
uint32_t nfv_nat_gen;
uint32_t nfv_nat_port_span;
NFV_COUNTER_BLOCK(nfv_nat_counters_block, "nat44", struct nfv_nat_counters);

static uint32_t nat_capacity = 65536; /* sessions per worker (--nat44-sessions) */
static uint32_t nat_max;              /* "nat44 set max": all workers */
static uint32_t nat_worker_max;       /* what each worker may hold; workers read */

static const char *const state_names[NFV_NAT_STATES] = {
	"tcp_transitory", "tcp_established", "udp", "icmp",
};
static const char *const timeout_names[NFV_NAT_STATES] = {
	"tcp-transitory", "tcp-established", "udp", "icmp",
};
static uint32_t timeout_s[NFV_NAT_STATES] = { 240, 7440, 300, 60 };
uint64_t nfv_nat_timeout_tsc[NFV_NAT_STATES];

static void
timeouts_publish(void)
{
	for (unsigned int i = 0; i < NFV_NAT_STATES; i++)
		__atomic_store_n(&nfv_nat_timeout_tsc[i], (uint64_t)timeout_s[i] * rte_get_tsc_hz(),
				 __ATOMIC_RELAXED);
}

/* ---- worker side ---- */

static void
session_forget(struct nfv_nat_table *t, uint32_t idx)
{
	struct nfv_nat_session *s = &t->s[idx];

	rte_hash_del_key(t->hash, &s->key[NFV_NAT_I2O]);
	rte_hash_del_key(t->hash, &s->key[NFV_NAT_O2I]);
	__atomic_store_n(&s->used, 0, __ATOMIC_RELEASE);
	nfv_slots_put(&t->slots, idx);
}

static void
table_clear(struct nfv_nat_table *t)
{
	rte_hash_reset(t->hash);
	memset(t->cache, 0xff, sizeof(uint32_t) << NFV_NAT_CACHE_BITS);
	memset(t->frag, 0, NFV_L4_FRAG_ENTRIES * sizeof(*t->frag));
	for (uint32_t i = 0; i < nat_capacity; i++)
		__atomic_store_n(&t->s[i].used, 0, __ATOMIC_RELAXED);
	nfv_slots_reset(&t->slots);
}

static bool
session_expire(void *table, uint32_t idx, uint64_t now)
{
	struct nfv_nat_table *t = table;
	const struct nfv_nat_session *s = &t->s[idx];

	if (!s->used || (int64_t)(now - s->expire_tsc) < 0)
		return false;
	session_forget(t, idx);
	return true;
}

void
nfv_nat_burst_start(struct nfv_nat_table *t, struct nfv_nat_counters *c, uint64_t now)
{
	if (unlikely(nfv_slots_flushed(&t->slots, __atomic_load_n(&nfv_nat_gen, __ATOMIC_ACQUIRE))) &&
	    t->slots.count > 0)
		table_clear(t);
	if (t->slots.count > 0)
		c->expired += nfv_slots_sweep(&t->slots, 4, now, session_expire, t);
}

struct nfv_nat_session *
nfv_nat_lookup_slow(struct nfv_nat_table *t, struct nfv_nat_counters *c,
		    const struct nfv_nat_key *k, unsigned int *dir, uint64_t now)
{
	void *data;
	uintptr_t v;
	struct nfv_nat_session *s;

	if (t->slots.count == 0 || rte_hash_lookup_data(t->hash, k, &data) < 0)
		return NULL;
	v = (uintptr_t)data;
	s = &t->s[v >> 1];
	if ((int64_t)(now - s->expire_tsc) >= 0) {
		session_forget(t, (uint32_t)(v >> 1));
		c->expired++;
		return NULL;
	}
	nfv_flow_cache_put(&t->cache[nfv_nat_cache_slot(k)], (uint32_t)v);
	*dir = (unsigned int)(v & 1);
	return s;
}

void
nfv_nat_tcp_track(struct nfv_nat_session *s, unsigned int dir, uint8_t tcp_flags)
{
	/* NFV_NAT_I2O is direction 0 of the shared tracking, NFV_NAT_O2I 1. */
	s->state = nfv_l4_tcp_track(&s->flags, dir, tcp_flags) ? NFV_NAT_TCP_ESTABLISHED :
		   NFV_NAT_TCP_TRANSITORY;
}

/* The o2i key of a session whose i2o key is k, with outside endpoint
 * addr:port: the remote endpoint is i2o's destination. */
static void
o2i_key(struct nfv_nat_key *o, const struct nfv_nat_key *k, rte_be32_t addr, rte_be16_t port)
{
	memset(o, 0, sizeof(*o));
	o->src = k->dst;
	o->dst = addr;
	o->sport = k->dport;
	o->dport = port;
	o->proto = k->proto;
	o->iface = k->iface;
}

/* Whether port (network order) at addr is a dnat rule's on k's interface:
 * never an snat session's outside port, so that a packet to it is the
 * rule's (and its owner found by the client, nat44.h). */
static bool
dnat_port(const struct nfv_nat_key *k, rte_be32_t addr, rte_be16_t port)
{
	const struct nfv_nat_config *cfg = __atomic_load_n(&nfv_nat_cfg, __ATOMIC_ACQUIRE);
	const struct nfv_port_l3 *l3;

	for (uint32_t i = 0; i < cfg->n_dnat; i++) {
		const struct nfv_nat_dnat *r = &cfg->dnat[i];

		if (r->iface == k->iface && r->proto == k->proto && r->dport == port) {
			l3 = nfv_port_l3_get(k->iface);
			if (l3 != NULL && l3->has4 && l3->src4 == addr)
				return true;
		}
	}
	return false;
}

/* A free outside port for key k at addr: the inside port itself when it is
 * this worker's and free (port preservation), else the next free one of
 * the worker's share. 0 when none is found within 512 tries. */
static rte_be16_t
port_alloc(struct nfv_nat_table *t, const struct nfv_nat_key *k, rte_be32_t addr)
{
	struct nfv_nat_key o;
	uint32_t p = rte_be_to_cpu_16(k->sport);

	if (p >= t->port_lo && p < t->port_lo + t->port_n && !dnat_port(k, addr, k->sport)) {
		o2i_key(&o, k, addr, k->sport);
		if (rte_hash_lookup(t->hash, &o) < 0)
			return k->sport;
	}
	for (unsigned int i = 0; i < 512; i++) {
		p = t->port_lo + t->port_next;
		t->port_next = t->port_next + 1 == t->port_n ? 0 : t->port_next + 1;
		o2i_key(&o, k, addr, rte_cpu_to_be_16((uint16_t)p));
		if (rte_hash_lookup(t->hash, &o) < 0 &&
		    !dnat_port(k, addr, rte_cpu_to_be_16((uint16_t)p)))
			return rte_cpu_to_be_16((uint16_t)p);
	}
	return 0;
}

struct nfv_nat_session *
nfv_nat_create(struct nfv_nat_table *t, struct nfv_nat_counters *c, const struct nfv_nat_key *i2o,
	       rte_be32_t out_addr, rte_be16_t out_port, uint8_t kind, uint64_t now,
	       uint64_t **why)
{
	struct nfv_nat_session *s;
	uint32_t idx;

	if (t->slots.n_free == 0 ||
	    t->slots.count >= __atomic_load_n(&nat_worker_max, __ATOMIC_RELAXED)) {
		*why = &c->table_full;
		(**why)++;
		return NULL;
	}
	if (out_port == 0) {
		out_port = port_alloc(t, i2o, out_addr);
		if (out_port == 0) {
			*why = &c->no_port;
			(**why)++;
			return NULL;
		}
	}
	idx = nfv_slots_take(&t->slots);
	s = &t->s[idx];
	memset(s, 0, sizeof(*s));
	s->key[NFV_NAT_I2O] = *i2o;
	o2i_key(&s->key[NFV_NAT_O2I], i2o, out_addr, out_port);
	if (rte_hash_add_key_data(t->hash, &s->key[NFV_NAT_I2O],
				  (void *)(uintptr_t)(idx << 1 | NFV_NAT_I2O)) < 0) {
		nfv_slots_put(&t->slots, idx);
		*why = &c->table_full;
		(**why)++;
		return NULL;
	}
	if (rte_hash_add_key_data(t->hash, &s->key[NFV_NAT_O2I],
				  (void *)(uintptr_t)(idx << 1 | NFV_NAT_O2I)) < 0) {
		rte_hash_del_key(t->hash, &s->key[NFV_NAT_I2O]);
		nfv_slots_put(&t->slots, idx);
		*why = &c->table_full;
		(**why)++;
		return NULL;
	}
	s->in_addr = i2o->src;
	s->in_port = i2o->sport;
	s->out_addr = out_addr;
	s->out_port = out_port;
	s->kind = kind;
	s->state = i2o->proto == IPPROTO_TCP ? NFV_NAT_TCP_TRANSITORY :
		   i2o->proto == IPPROTO_UDP ? NFV_NAT_UDP : NFV_NAT_ICMP;
	s->expire_tsc = now;
	__atomic_store_n(&s->used, 1, __ATOMIC_RELEASE);
	c->created++;
	return s;
}

/* ---- control side ---- */

/* The rules as control keeps them (published copies go to the workers). */
static struct nfv_nat_config rules;

/* The session tables, whole or as far as tables_setup() got. */
static void
tables_free(void)
{
	for (unsigned int w = 0; nfv_nat_tables != NULL && w < nfv_n_workers; w++) {
		rte_hash_free(nfv_nat_tables[w].hash);
		rte_free(nfv_nat_tables[w].s);
		nfv_slots_fini(&nfv_nat_tables[w].slots);
		rte_free(nfv_nat_tables[w].cache);
		rte_free(nfv_nat_tables[w].frag);
	}
	rte_free(nfv_nat_tables);
	nfv_nat_tables = NULL;
}

static int
tables_setup(char *err)
{
	uint32_t span;

	if (nfv_nat_tables != NULL)
		return 0;
	nfv_nat_tables = rte_zmalloc("nfv_nat_tables", nfv_n_workers * sizeof(*nfv_nat_tables),
				     RTE_CACHE_LINE_SIZE);
	if (nfv_nat_tables == NULL)
		goto nomem;
	if (nat_max == 0)
		nat_max = nat_capacity * nfv_n_workers;
	nat_worker_max = (nat_max + nfv_n_workers - 1) / nfv_n_workers;
	span = (65536 - 1024) / RTE_MAX(nfv_n_workers, 1u);
	for (unsigned int w = 0; w < nfv_n_workers; w++) {
		struct nfv_nat_table *t = &nfv_nat_tables[w];
		int socket = (int)rte_lcore_to_socket_id(nfv_workers[w].lcore_id);
		char name[RTE_HASH_NAMESIZE];
		struct rte_hash_parameters prm = {
			.name = name,
			.entries = 2 * nat_capacity,
			.key_len = sizeof(struct nfv_nat_key),
			.hash_func = rte_hash_crc,
			.socket_id = socket,
		};

		snprintf(name, sizeof(name), "nfv_nat%u", w);
		t->hash = rte_hash_create(&prm);
		t->s = rte_zmalloc_socket("nfv_nat_sessions", nat_capacity * sizeof(*t->s),
					  RTE_CACHE_LINE_SIZE, socket);
		t->cache = rte_malloc_socket("nfv_nat_cache",
					     sizeof(uint32_t) << NFV_NAT_CACHE_BITS,
					     RTE_CACHE_LINE_SIZE, socket);
		t->frag = rte_malloc_socket("nfv_nat_frag", NFV_L4_FRAG_ENTRIES * sizeof(*t->frag),
					    RTE_CACHE_LINE_SIZE, socket);
		if (t->hash == NULL || t->s == NULL || t->cache == NULL || t->frag == NULL ||
		    nfv_slots_init(&t->slots, nat_capacity, socket) < 0)
			goto nomem;
		t->port_lo = 1024 + w * span;
		t->port_n = span;
		t->slots.gen = nfv_nat_gen;
		table_clear(t);
	}
	__atomic_store_n(&nfv_nat_port_span, span, __ATOMIC_RELEASE);
	/* Replies received by another worker go to the session's owner. */
	nfv_handoff_use(true);
	timeouts_publish();
	return 0;
nomem:
	/* Nothing kept: the next rule tries again (no feature is on yet, so
	 * no worker has seen these tables). */
	tables_free();
	snprintf(err, NFV_ERR_LEN, "no memory for %u NAT sessions per worker (--nat44-sessions)",
		 nat_capacity);
	return -ENOMEM;
}

static bool
iface_named(uint16_t iface)
{
	for (uint32_t i = 0; i < rules.n_snat; i++)
		if (rules.snat[i].outif == iface)
			return true;
	for (uint32_t i = 0; i < rules.n_dnat; i++)
		if (rules.dnat[i].iface == iface)
			return true;
	return false;
}

static bool feature_on[NFV_IFACE_MAX];

/* Publishes the rules, then turns the features on where a rule names the
 * interface and off where none does any more. */
static void
rules_publish(void)
{
	struct nfv_nat_config *n = rte_malloc("nfv_nat_cfg", sizeof(*n), 0), *old;
	char err[NFV_ERR_LEN];

	if (n == NULL)
		rte_panic("nat44: no memory for the rules\n");
	*n = rules;
	for (uint16_t i = 0; i < NFV_IFACE_MAX; i++) {
		bool want = nfv_ifaces[i].used && iface_named(i);

		if (want && !feature_on[i]) {
			/* Sessions of an interface must not outlive it: set up
			 * before the workers can reach the node. */
			if (nfv_arc_feature_set("ip4_ingress", "nfv_nat44_in", i, true, err) < 0 ||
			    nfv_arc_feature_set("ip4_egress", "nfv_nat44_out", i, true, err) < 0)
				NFV_LOG(ERR, "nat44: %s", err);
			feature_on[i] = true;
		}
	}
	old = __atomic_exchange_n(&nfv_nat_cfg, n, __ATOMIC_ACQ_REL);
	for (uint16_t i = 0; i < NFV_IFACE_MAX; i++) {
		if (feature_on[i] && !(nfv_ifaces[i].used && iface_named(i))) {
			nfv_arc_feature_set("ip4_ingress", "nfv_nat44_in", i, false, err);
			nfv_arc_feature_set("ip4_egress", "nfv_nat44_out", i, false, err);
			feature_on[i] = false;
		}
	}
	nfv_rcu_sync();
	rte_free(old);
}

static int
iface_of(const char *dev, uint16_t *iface, char *err)
{
	struct nfv_iface *ifc = nfv_iface_by_name(dev);

	if (ifc == NULL) {
		snprintf(err, NFV_ERR_LEN, "unknown interface '%s'", dev);
		return -ENODEV;
	}
	*iface = ifc->id;
	return 0;
}

static int
parse_v4(const char *s, uint32_t *host, char *err)
{
	struct nfv_ip ip;
	const char *why;

	if (nfv_parse_ip_family(s, AF_INET, &ip) < 0) {
		snprintf(err, NFV_ERR_LEN, "bad IPv4 address '%s'", s);
		return -EINVAL;
	}
	/* A translated address is a host's: no broadcast, multicast,
	 * loopback or unspecified one. */
	why = nfv_ip_unusable(&ip);
	if (why != NULL) {
		snprintf(err, NFV_ERR_LEN, "bad IPv4 address '%s': %s", s, why);
		return -EINVAL;
	}
	*host = rte_be_to_cpu_32(ip.v4);
	return 0;
}

int
nfv_nat_snat_add(const char *prefix, const char *dev, const char *range, bool add, char *err)
{
	struct nfv_nat_snat r = { 0 };
	struct nfv_prefix p;
	uint32_t i;
	int rc;

	if (nfv_parse_prefix(prefix, false, &p) < 0 || p.ip.family != AF_INET) {
		snprintf(err, NFV_ERR_LEN, "bad IPv4 prefix '%s' (e.g. 10.0.0.0/8, no host bits)",
			 prefix);
		return -EINVAL;
	}
	rc = iface_of(dev, &r.outif, err);
	if (rc < 0)
		return rc;
	r.len = p.len;
	r.mask = p.len == 0 ? 0 : rte_cpu_to_be_32(~0u << (32 - p.len));
	r.net = p.ip.v4;
	if (range == NULL) {
		r.iface_addr = 1;
	} else {
		char buf[64];
		const char *dash = strchr(range, '-');

		if (strlen(range) >= sizeof(buf)) {
			snprintf(err, NFV_ERR_LEN, "bad address range '%s'", range);
			return -EINVAL;
		}
		strcpy(buf, range);
		if (dash != NULL)
			buf[dash - range] = '\0';
		if (parse_v4(buf, &r.lo, err) < 0 ||
		    parse_v4(dash != NULL ? dash + 1 : buf, &r.hi, err) < 0)
			return -EINVAL;
		if (r.hi < r.lo || r.hi - r.lo >= 65536) {
			snprintf(err, NFV_ERR_LEN, "bad address range '%s' (low-high, at most 65536 "
				 "addresses)", range);
			return -EINVAL;
		}
	}
	for (i = 0; i < rules.n_snat; i++)
		if (rules.snat[i].net == r.net && rules.snat[i].len == r.len &&
		    rules.snat[i].outif == r.outif)
			break;
	if (!add) {
		if (i == rules.n_snat) {
			snprintf(err, NFV_ERR_LEN, "no snat rule for %s dev %s", prefix, dev);
			return -ENOENT;
		}
		/* Shifted, not swapped: the rules stay longest prefix first. */
		memmove(&rules.snat[i], &rules.snat[i + 1],
			(rules.n_snat - i - 1) * sizeof(rules.snat[0]));
		rules.n_snat--;
		rules_publish();
		return 0;
	}
	if (i < rules.n_snat) {
		snprintf(err, NFV_ERR_LEN, "an snat rule for %s dev %s exists", prefix, dev);
		return -EEXIST;
	}
	if (rules.n_snat == NFV_NAT_RULES_MAX) {
		snprintf(err, NFV_ERR_LEN, "at most %u snat rules", NFV_NAT_RULES_MAX);
		return -ENOSPC;
	}
	rc = tables_setup(err);
	if (rc < 0)
		return rc;
	/* The longest prefix first: a packet takes the most specific rule. */
	for (i = rules.n_snat; i > 0 && rules.snat[i - 1].len < r.len; i--)
		rules.snat[i] = rules.snat[i - 1];
	rules.snat[i] = r;
	rules.n_snat++;
	rules_publish();
	return 0;
}

int
nfv_nat_dnat_add(const char *dev, uint8_t proto, uint16_t dport, const char *to, bool add,
		 char *err)
{
	struct nfv_nat_dnat r = { .proto = proto, .dport = rte_cpu_to_be_16(dport) };
	uint32_t i, addr, port = dport;
	int rc;

	rc = iface_of(dev, &r.iface, err);
	if (rc < 0)
		return rc;
	for (i = 0; i < rules.n_dnat; i++)
		if (rules.dnat[i].iface == r.iface && rules.dnat[i].proto == proto &&
		    rules.dnat[i].dport == r.dport)
			break;
	if (!add) {
		if (i == rules.n_dnat) {
			snprintf(err, NFV_ERR_LEN, "no dnat rule on %s for %s port %u", dev,
				 proto == IPPROTO_TCP ? "tcp" : "udp", dport);
			return -ENOENT;
		}
		rules.dnat[i] = rules.dnat[--rules.n_dnat];
		rules_publish();
		return 0;
	}
	if (i < rules.n_dnat) {
		snprintf(err, NFV_ERR_LEN, "a dnat rule on %s for %s port %u exists", dev,
			 proto == IPPROTO_TCP ? "tcp" : "udp", dport);
		return -EEXIST;
	}
	if (rules.n_dnat == NFV_NAT_RULES_MAX) {
		snprintf(err, NFV_ERR_LEN, "at most %u dnat rules", NFV_NAT_RULES_MAX);
		return -ENOSPC;
	}
	{
		char buf[64];
		const char *colon = strchr(to, ':');

		if (strlen(to) >= sizeof(buf)) {
			snprintf(err, NFV_ERR_LEN, "bad destination '%s' (IP[:PORT])", to);
			return -EINVAL;
		}
		strcpy(buf, to);
		if (colon != NULL) {
			buf[colon - to] = '\0';
			if (nfv_parse_u32(colon + 1, 1, 65535, &port) < 0) {
				snprintf(err, NFV_ERR_LEN, "bad port '%s' (1-65535)", colon + 1);
				return -EINVAL;
			}
		}
		if (parse_v4(buf, &addr, err) < 0)
			return -EINVAL;
	}
	rc = tables_setup(err);
	if (rc < 0)
		return rc;
	r.to_addr = rte_cpu_to_be_32(addr);
	r.to_port = rte_cpu_to_be_16((uint16_t)port);
	rules.dnat[rules.n_dnat++] = r;
	rules_publish();
	return 0;
}

int
nfv_nat_set_timeout(const char *name, uint32_t seconds, char *err)
{
	for (unsigned int i = 0; i < NFV_NAT_STATES; i++)
		if (strcmp(name, timeout_names[i]) == 0) {
			timeout_s[i] = seconds;
			timeouts_publish();
			return 0;
		}
	snprintf(err, NFV_ERR_LEN, "unknown timeout '%s' (tcp-established, tcp-transitory, udp, "
		 "icmp)", name);
	return -EINVAL;
}

int
nfv_nat_set_max(uint32_t max, char *err)
{
	uint32_t cap = nat_capacity * RTE_MAX(nfv_n_workers, 1u);

	if (max > cap) {
		snprintf(err, NFV_ERR_LEN, "max %u is above the tables' capacity %u (%u sessions "
			 "per worker, --nat44-sessions)", max, cap, nat_capacity);
		return -ERANGE;
	}
	nat_max = max;
	__atomic_store_n(&nat_worker_max, (max + RTE_MAX(nfv_n_workers, 1u) - 1) /
			 RTE_MAX(nfv_n_workers, 1u), __ATOMIC_RELAXED);
	return 0;
}

void
nfv_nat_flush(void)
{
	__atomic_add_fetch(&nfv_nat_gen, 1, __ATOMIC_RELEASE);
}

static const char *
v4_str(rte_be32_t a, char *buf)
{
	return inet_ntop(AF_INET, &a, buf, INET_ADDRSTRLEN);
}

static const char *
proto_name(uint8_t p)
{
	return p == IPPROTO_TCP ? "tcp" : p == IPPROTO_UDP ? "udp" : "icmp";
}

static json_t *
rules_json(void)
{
	json_t *snat = json_array(), *dnat = json_array();
	char a[INET_ADDRSTRLEN], b[INET_ADDRSTRLEN];

	for (uint32_t i = 0; i < rules.n_snat; i++) {
		const struct nfv_nat_snat *r = &rules.snat[i];
		char src[64], to[64];

		snprintf(src, sizeof(src), "%s/%u", v4_str(r->net, a), r->len);
		if (r->iface_addr) {
			const struct nfv_port_l3 *l3 = nfv_port_l3_get(r->outif);

			snprintf(to, sizeof(to), "%s", l3 != NULL && l3->has4 ?
				 v4_str(l3->src4, a) : "none");
		} else if (r->lo == r->hi) {
			/* "to A", or a range of one address: as "to A" reads. */
			snprintf(to, sizeof(to), "%s", v4_str(rte_cpu_to_be_32(r->lo), a));
		} else {
			snprintf(to, sizeof(to), "%s-%s", v4_str(rte_cpu_to_be_32(r->lo), a),
				 v4_str(rte_cpu_to_be_32(r->hi), b));
		}
		json_array_append_new(snat, json_pack("{s:s, s:s, s:s, s:b}", "src", src, "dev",
						      nfv_iface_name_of(r->outif), "to", to,
						      "iface_address", r->iface_addr));
	}
	for (uint32_t i = 0; i < rules.n_dnat; i++) {
		const struct nfv_nat_dnat *r = &rules.dnat[i];

		json_array_append_new(dnat, json_pack("{s:s, s:s, s:i, s:s, s:i}", "dev",
						      nfv_iface_name_of(r->iface), "proto",
						      proto_name(r->proto), "dport",
						      rte_be_to_cpu_16(r->dport), "to",
						      v4_str(r->to_addr, a), "to_port",
						      rte_be_to_cpu_16(r->to_port)));
	}
	return json_pack("{s:o, s:o}", "snat", snat, "dnat", dnat);
}

static json_t *
session_json(const struct nfv_nat_session *s, unsigned int w, uint64_t now)
{
	char in[INET_ADDRSTRLEN], out[INET_ADDRSTRLEN], rem[INET_ADDRSTRLEN];
	const struct nfv_nat_key *k = &s->key[NFV_NAT_I2O];
	int64_t left = (int64_t)(s->expire_tsc - now);

	return json_pack("{s:s, s:s, s:s, s:i, s:s, s:i, s:s, s:i, s:s, s:s, s:i, s:I, s:I, "
			 "s:I}",
			 "kind", s->kind == NFV_NAT_SNAT ? "snat" : "dnat",
			 "proto", proto_name(k->proto),
			 "inside", v4_str(s->in_addr, in), "inside_port",
			 rte_be_to_cpu_16(s->in_port),
			 "outside", v4_str(s->out_addr, out), "outside_port",
			 rte_be_to_cpu_16(s->out_port),
			 "remote", v4_str(k->dst, rem), "remote_port", rte_be_to_cpu_16(k->dport),
			 "dev", nfv_iface_name_of(k->iface),
			 "state", state_names[s->state], "worker", (int)w,
			 "expires_ms", (json_int_t)(left > 0 ? left * 1000 / (int64_t)rte_get_tsc_hz() : 0),
			 "packets_in2out", (json_int_t)s->packets[NFV_NAT_I2O],
			 "packets_out2in", (json_int_t)s->packets[NFV_NAT_O2I]);
}

json_t *
nfv_nat_show(bool sessions)
{
	struct nfv_nat_counters c;
	uint64_t by_state[NFV_NAT_STATES] = { 0 }, now = rte_get_tsc_cycles();
	uint32_t count = 0;
	json_t *o = rules_json(), *states = json_object(), *list = json_array();
	uint32_t gen = __atomic_load_n(&nfv_nat_gen, __ATOMIC_ACQUIRE);

	for (unsigned int w = 0; nfv_nat_tables != NULL && w < nfv_n_workers; w++) {
		const struct nfv_nat_table *t = &nfv_nat_tables[w];

		if (__atomic_load_n(&t->slots.gen, __ATOMIC_ACQUIRE) != gen)
			continue; /* flushed: the worker clears it at its next burst */
		for (uint32_t i = 0; i < nat_capacity; i++) {
			const struct nfv_nat_session *s = &t->s[i];

			if (!__atomic_load_n(&s->used, __ATOMIC_ACQUIRE) ||
			    (int64_t)(now - s->expire_tsc) >= 0 || s->state >= NFV_NAT_STATES)
				continue;
			count++;
			by_state[s->state]++;
			if (sessions)
				json_array_append_new(list, session_json(s, w, now));
		}
	}
	for (unsigned int i = 0; i < NFV_NAT_STATES; i++)
		json_object_set_new(states, state_names[i], json_integer((json_int_t)by_state[i]));
	nfv_counters_sum(&nfv_nat_counters_block, &c);
	json_object_set_new(o, "sessions", json_integer(count));
	json_object_set_new(o, "max_sessions", json_integer(nat_max != 0 ? nat_max :
							       nat_capacity * nfv_n_workers));
	json_object_set_new(o, "by_state", states);
	json_object_set_new(o, "in2out", json_integer((json_int_t)c.in2out));
	json_object_set_new(o, "out2in", json_integer((json_int_t)c.out2in));
	json_object_set_new(o, "created", json_integer((json_int_t)c.created));
	json_object_set_new(o, "expired", json_integer((json_int_t)c.expired));
	json_object_set_new(o, "no_port", json_integer((json_int_t)c.no_port));
	json_object_set_new(o, "table_full", json_integer((json_int_t)c.table_full));
	json_object_set_new(o, "unsupported", json_integer((json_int_t)c.unsupported));
	json_object_set_new(o, "icmp_error_in2out", json_integer((json_int_t)c.icmp_error_in2out));
	json_object_set_new(o, "icmp_error_out2in", json_integer((json_int_t)c.icmp_error_out2in));
	json_object_set_new(o, "icmp_error_no_session",
			    json_integer((json_int_t)c.icmp_error_no_session));
	json_object_set_new(o, "icmp_error_truncated",
			    json_integer((json_int_t)c.icmp_error_truncated));
	json_object_set_new(o, "icmp_error_unsupported",
			    json_integer((json_int_t)c.icmp_error_unsupported));
	json_object_set_new(o, "frag_in2out", json_integer((json_int_t)c.frag_in2out));
	json_object_set_new(o, "frag_out2in", json_integer((json_int_t)c.frag_out2in));
	json_object_set_new(o, "frag_unknown", json_integer((json_int_t)c.frag_unknown));
	{
		json_t *t = json_object();

		for (unsigned int i = 0; i < NFV_NAT_STATES; i++)
			json_object_set_new(t, timeout_names[i], json_integer(timeout_s[i]));
		json_object_set_new(o, "timeouts", t);
	}
	if (sessions)
		json_object_set_new(o, "session_list", list);
	else
		json_decref(list);
	return o;
}

static void
nat_show_stats(json_t *stats)
{
	struct nfv_nat_counters c;

	nfv_counters_sum(&nfv_nat_counters_block, &c);
	json_object_set_new(stats, "nat44",
			    json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, "
				      "s:I, s:I, s:I, s:I, s:I, s:I}",
				      "in2out", (json_int_t)c.in2out,
				      "out2in", (json_int_t)c.out2in,
				      "created", (json_int_t)c.created,
				      "expired", (json_int_t)c.expired,
				      "no_port", (json_int_t)c.no_port,
				      "table_full", (json_int_t)c.table_full,
				      "unsupported", (json_int_t)c.unsupported,
				      "icmp_error_in2out", (json_int_t)c.icmp_error_in2out,
				      "icmp_error_out2in", (json_int_t)c.icmp_error_out2in,
				      "icmp_error_no_session", (json_int_t)c.icmp_error_no_session,
				      "icmp_error_truncated", (json_int_t)c.icmp_error_truncated,
				      "icmp_error_unsupported", (json_int_t)c.icmp_error_unsupported,
				      "frag_in2out", (json_int_t)c.frag_in2out,
				      "frag_out2in", (json_int_t)c.frag_out2in,
				      "frag_unknown", (json_int_t)c.frag_unknown,
				      "handoff_out", (json_int_t)c.handoff_out,
				      "handoff_in", (json_int_t)c.handoff_in,
				      "handoff_full", (json_int_t)c.handoff_full));
}

static void
nat_metrics(FILE *f)
{
	struct nfv_nat_counters c;

	bool was = nfv_stats_since_start(true);

	nfv_counters_sum(&nfv_nat_counters_block, &c);
	nfv_stats_since_start(was);
	nfv_metrics_help(f, "nfvd_nat44_packets_total", "counter", "packets translated by NAT44");
	fprintf(f, "nfvd_nat44_packets_total{direction=\"in2out\"} %" PRIu64 "\n", c.in2out);
	fprintf(f, "nfvd_nat44_packets_total{direction=\"out2in\"} %" PRIu64 "\n", c.out2in);
	nfv_metrics_help(f, "nfvd_nat44_icmp_errors_total", "counter",
			 "ICMP errors about NAT44 sessions' packets, by what was done");
	fprintf(f, "nfvd_nat44_icmp_errors_total{result=\"in2out\"} %" PRIu64 "\n",
		c.icmp_error_in2out);
	fprintf(f, "nfvd_nat44_icmp_errors_total{result=\"out2in\"} %" PRIu64 "\n",
		c.icmp_error_out2in);
	fprintf(f, "nfvd_nat44_icmp_errors_total{result=\"no_session\"} %" PRIu64 "\n",
		c.icmp_error_no_session);
	fprintf(f, "nfvd_nat44_icmp_errors_total{result=\"truncated\"} %" PRIu64 "\n",
		c.icmp_error_truncated);
	fprintf(f, "nfvd_nat44_icmp_errors_total{result=\"unsupported\"} %" PRIu64 "\n",
		c.icmp_error_unsupported);
	nfv_metrics_help(f, "nfvd_nat44_fragments_total", "counter",
			 "later fragments (not the first) of datagrams NAT44 translates, by what "
			 "was done");
	fprintf(f, "nfvd_nat44_fragments_total{result=\"in2out\"} %" PRIu64 "\n", c.frag_in2out);
	fprintf(f, "nfvd_nat44_fragments_total{result=\"out2in\"} %" PRIu64 "\n", c.frag_out2in);
	fprintf(f, "nfvd_nat44_fragments_total{result=\"unknown\"} %" PRIu64 "\n",
		c.frag_unknown);
	nfv_metrics_help(f, "nfvd_nat44_sessions_created_total", "counter",
			 "NAT44 sessions created");
	fprintf(f, "nfvd_nat44_sessions_created_total %" PRIu64 "\n", c.created);
	nfv_handoff_metrics(f, "nat44", c.handoff_out, c.handoff_in, c.handoff_full);
}

static const struct nfv_collector nat_collector = {
	.name = "nat44",
	.show_stats = nat_show_stats,
	.metrics = nat_metrics,
};
NFV_COLLECTOR_REGISTER(nat_collector);

/* An interface going away takes its rules with it. */
static void
nat_iface_event(enum nfv_iface_event ev, uint16_t iface, void *arg)
{
	bool changed = false;

	RTE_SET_USED(arg);
	if (ev != NFV_IFACE_REMOVED)
		return;
	for (uint32_t i = 0; i < rules.n_snat;)
		if (rules.snat[i].outif == iface) {
			rules.snat[i] = rules.snat[--rules.n_snat];
			changed = true;
		} else {
			i++;
		}
	for (uint32_t i = 0; i < rules.n_dnat;)
		if (rules.dnat[i].iface == iface) {
			rules.dnat[i] = rules.dnat[--rules.n_dnat];
			changed = true;
		} else {
			i++;
		}
	feature_on[iface] = false; /* the arcs clear the interface's features */
	if (changed) {
		rules_publish();
		nfv_nat_flush();
	}
}
NFV_IFACE_EVENT_HANDLER(nat_iface_event);

static const struct nfv_module_option nat_options[] = {
	{ "nat44-sessions", "N", "sessions each worker's NAT44 table holds (65536)" },
	{ NULL, NULL, NULL },
};

static int
nat_parse_option(const char *name, const char *value, char *err, size_t len)
{
	return nfv_module_option_u32(name, value, 64, 1u << 24, &nat_capacity, err, len);
}

static int
nat_init(void)
{
	nfv_nat_cfg = rte_zmalloc("nfv_nat_cfg", sizeof(*nfv_nat_cfg), 0);
	return nfv_nat_cfg == NULL ? -ENOMEM : 0;
}

static void
nat_fini(void)
{
	tables_free();
	rte_free(nfv_nat_cfg);
	nfv_nat_cfg = NULL;
}

static struct nfv_module nat_module = {
	.name = "nat44",
	.depends_on = "ip",
	.init = nat_init,
	.fini = nat_fini,
	.options = nat_options,
	.parse_option = nat_parse_option,
};
NFV_MODULE_REGISTER(nat_module);
