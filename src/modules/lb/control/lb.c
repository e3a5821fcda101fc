/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Load-balancer services and backends, their Maglev tables, the per-worker
 * session tables and their views.
 *
 * Services are kept by the control thread and published whole (a new
 * nfv_lb_config, RCU); a service's Maglev table is rebuilt when its
 * backends or weights change and freed after the grace period. The lb_in
 * feature is on the ip4 ingress arc of every interface while a service
 * exists. Session tables (one per worker, allocated with the first service)
 * are written only by their worker; expiry is lazy (a lookup that finds an
 * expired session forgets it, each burst sweeps four entries). Timeouts:
 * TCP established 7440 s, TCP opening or closing 240 s, UDP 300 s (VPP's
 * NAT defaults; `lb set timeout`).
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
#include "core/event.h"
#include "core/iface_event.h"
#include "core/log.h"
#include "core/module.h"
#include "core/stats.h"
#include "modules/infra/iface.h"
#include "modules/ip/ip.h"
#include "modules/ip/l4_frag.h"
#include "modules/arp_nd/arp_nd.h"
#include "modules/lb/lb.h"

struct nfv_lb_config *nfv_lb_cfg;
struct nfv_lb_table *nfv_lb_tables;
NFV_COUNTER_BLOCK(nfv_lb_counters_block, "lb", struct nfv_lb_counters);

static uint32_t lb_capacity = 65536; /* sessions per worker (--lb-sessions) */
static uint32_t lb_uid;              /* the last uid given to a service or backend */

static const char *const state_names[NFV_LB_STATES] = {
	"tcp_transitory", "tcp_established", "udp",
};
static const char *const timeout_names[NFV_LB_STATES] = {
	"tcp-transitory", "tcp-established", "udp",
};
static uint32_t timeout_s[NFV_LB_STATES] = { 240, 7440, 300 };
uint64_t nfv_lb_timeout_tsc[NFV_LB_STATES];

static void
timeouts_publish(void)
{
	for (unsigned int i = 0; i < NFV_LB_STATES; i++)
		__atomic_store_n(&nfv_lb_timeout_tsc[i], (uint64_t)timeout_s[i] * rte_get_tsc_hz(),
				 __ATOMIC_RELAXED);
}

/* ---- worker side ---- */

static void
session_forget(struct nfv_lb_table *t, uint32_t idx)
{
	struct nfv_lb_session *s = &t->s[idx];

	rte_hash_del_key(t->hash, &s->key[NFV_LB_FWD]);
	rte_hash_del_key(t->hash, &s->key[NFV_LB_REV]);
	__atomic_store_n(&s->used, 0, __ATOMIC_RELEASE);
	nfv_slots_put(&t->slots, idx);
}

void
nfv_lb_forget(struct nfv_lb_table *t, struct nfv_lb_session *s)
{
	session_forget(t, (uint32_t)(s - t->s));
}

static bool
session_expire(void *table, uint32_t idx, uint64_t now)
{
	struct nfv_lb_table *t = table;
	const struct nfv_lb_session *s = &t->s[idx];

	if (!s->used || (int64_t)(now - s->expire_tsc) < 0)
		return false;
	session_forget(t, idx);
	return true;
}

void
nfv_lb_burst_start(struct nfv_lb_table *t, struct nfv_lb_counters *c, uint64_t now)
{
	if (t->slots.count > 0)
		c->expired += nfv_slots_sweep(&t->slots, 4, now, session_expire, t);
}

struct nfv_lb_session *
nfv_lb_lookup_slow(struct nfv_lb_table *t, struct nfv_lb_counters *c, const struct nfv_lb_key *k,
		   unsigned int *dir, uint64_t now)
{
	void *data;
	uintptr_t v;
	struct nfv_lb_session *s;

	if (t->slots.count == 0 || rte_hash_lookup_data(t->hash, k, &data) < 0)
		return NULL;
	v = (uintptr_t)data;
	s = &t->s[v >> 1];
	if ((int64_t)(now - s->expire_tsc) >= 0) {
		session_forget(t, (uint32_t)(v >> 1));
		c->expired++;
		return NULL;
	}
	nfv_flow_cache_put(&t->cache[nfv_flow_cache_set(k, NFV_LB_CACHE_BITS)], (uint32_t)v);
	*dir = (unsigned int)(v & 1);
	return s;
}

struct nfv_lb_session *
nfv_lb_create(struct nfv_lb_table *t, struct nfv_lb_counters *c, const struct nfv_lb_key *k,
	      const struct nfv_lb_service *svc, uint16_t svc_slot, uint8_t b, uint64_t now)
{
	const struct nfv_lb_backend *be = &svc->be[b];
	struct nfv_lb_session *s;
	uint32_t idx = nfv_slots_take(&t->slots);

	if (idx == UINT32_MAX)
		goto full;
	s = &t->s[idx];
	memset(s, 0, sizeof(*s));
	s->key[NFV_LB_FWD] = *k;
	s->key[NFV_LB_REV] = (struct nfv_lb_key){
		.src = be->addr, .dst = k->src, .sport = be->port, .dport = k->sport,
		.proto = k->proto,
	};
	if (rte_hash_add_key_data(t->hash, &s->key[NFV_LB_FWD],
				  (void *)(uintptr_t)(idx << 1 | NFV_LB_FWD)) < 0) {
		nfv_slots_put(&t->slots, idx);
		goto full;
	}
	if (rte_hash_add_key_data(t->hash, &s->key[NFV_LB_REV],
				  (void *)(uintptr_t)(idx << 1 | NFV_LB_REV)) < 0) {
		rte_hash_del_key(t->hash, &s->key[NFV_LB_FWD]);
		nfv_slots_put(&t->slots, idx);
		goto full;
	}
	s->vip = svc->vip;
	s->vport = svc->port;
	s->backend = be->addr;
	s->bport = be->port;
	s->svc = svc_slot;
	s->be = b;
	s->svc_uid = svc->uid;
	s->be_uid = be->uid;
	s->state = k->proto == IPPROTO_TCP ? NFV_LB_TCP_TRANSITORY : NFV_LB_UDP;
	s->expire_tsc = now;
	__atomic_store_n(&s->used, 1, __ATOMIC_RELEASE);
	c->scheduled++;
	return s;
full:
	c->table_full++;
	return NULL;
}

/* ---- control side ---- */

/* The services as control keeps them; published copies share the Maglev
 * tables of the services that did not change. */
static struct nfv_lb_config svcs;

/* The session tables, whole or as far as tables_setup() got. */
static void
tables_free(void)
{
	for (unsigned int w = 0; nfv_lb_tables != NULL && w < nfv_n_workers; w++) {
		rte_hash_free(nfv_lb_tables[w].hash);
		rte_free(nfv_lb_tables[w].s);
		nfv_slots_fini(&nfv_lb_tables[w].slots);
		rte_free(nfv_lb_tables[w].cache);
		rte_free(nfv_lb_tables[w].frag);
	}
	rte_free(nfv_lb_tables);
	nfv_lb_tables = NULL;
}

static int
tables_setup(char *err)
{
	if (nfv_lb_tables != NULL)
		return 0;
	nfv_lb_tables = rte_zmalloc("nfv_lb_tables", nfv_n_workers * sizeof(*nfv_lb_tables),
				    RTE_CACHE_LINE_SIZE);
	if (nfv_lb_tables == NULL)
		goto nomem;
	for (unsigned int w = 0; w < nfv_n_workers; w++) {
		struct nfv_lb_table *t = &nfv_lb_tables[w];
		int socket = (int)rte_lcore_to_socket_id(nfv_workers[w].lcore_id);
		char name[RTE_HASH_NAMESIZE];
		struct rte_hash_parameters prm = {
			.name = name,
			.entries = 2 * lb_capacity,
			.key_len = sizeof(struct nfv_lb_key),
			.hash_func = rte_hash_crc,
			.socket_id = socket,
		};

		snprintf(name, sizeof(name), "nfv_lb%u", w);
		t->hash = rte_hash_create(&prm);
		t->s = rte_zmalloc_socket("nfv_lb_sessions", lb_capacity * sizeof(*t->s),
					  RTE_CACHE_LINE_SIZE, socket);
		t->cache = rte_malloc_socket("nfv_lb_cache", sizeof(uint32_t) << NFV_LB_CACHE_BITS,
					     RTE_CACHE_LINE_SIZE, socket);
		t->frag = rte_zmalloc_socket("nfv_lb_frag", NFV_L4_FRAG_ENTRIES * sizeof(*t->frag),
					     RTE_CACHE_LINE_SIZE, socket);
		if (t->hash == NULL || t->s == NULL || t->cache == NULL || t->frag == NULL ||
		    nfv_slots_init(&t->slots, lb_capacity, socket) < 0)
			goto nomem;
		memset(t->cache, 0xff, sizeof(uint32_t) << NFV_LB_CACHE_BITS);
	}
	/* Packets received by another worker go to the session's owner. */
	nfv_handoff_use(true);
	timeouts_publish();
	return 0;
nomem:
	/* Nothing kept: the next service tries again (no service is on yet,
	 * so no worker has seen these tables). */
	tables_free();
	snprintf(err, NFV_ERR_LEN, "no memory for %u load-balancer sessions per worker "
		 "(--lb-sessions)", lb_capacity);
	return -ENOMEM;
}

static bool feature_on[NFV_IFACE_MAX];

static void
features_apply(void)
{
	char err[NFV_ERR_LEN];

	for (uint16_t i = 0; i < NFV_IFACE_MAX; i++) {
		bool want = nfv_ifaces[i].used && svcs.n_services > 0;

		if (want == feature_on[i])
			continue;
		/* lb_in translates; lb_own_icmp_error puts back in nfvd's own
		 * errors what lb_in changed in the packets they quote. */
		if (nfv_arc_feature_set("ip4_ingress", "nfv_lb_in", i, want, err) < 0 ||
		    nfv_arc_feature_set("ip4_icmp_error", "nfv_lb_own_icmp_error", i, want,
					err) < 0)
			NFV_LOG(ERR, "lb: %s", err);
		else
			feature_on[i] = want;
	}
}

/* The lookup structures of the published copy: service buckets and the
 * bitmap of backend endpoints. */
static void
index_build(struct nfv_lb_config *n)
{
	memset(n->svc_bucket, 0, sizeof(n->svc_bucket));
	memset(n->be_bits, 0, sizeof(n->be_bits));
	for (uint32_t i = 0; i < n->n_services; i++) {
		const struct nfv_lb_service *s = &n->svc[i];
		uint32_t h = nfv_lb_svc_hash(s->vip, s->port, s->proto);

		if (s->uid == 0)
			continue;
		while (n->svc_bucket[h & (NFV_LB_SVC_BUCKETS - 1)] != 0)
			h++;
		n->svc_bucket[h & (NFV_LB_SVC_BUCKETS - 1)] = (uint8_t)(i + 1);
		for (uint32_t b = 0; b < s->n_backends && s->mode == NFV_LB_NAT; b++) {
			uint32_t bit;

			if (s->be[b].uid == 0)
				continue;
			bit = nfv_lb_be_bit(s->be[b].addr, s->be[b].port, s->proto);
			n->be_bits[bit >> 6] |= 1ull << (bit & 63);
		}
	}
}

/*
 * Publishes the services; old_table (a Maglev table no service uses any
 * more) is freed after the grace period. The feature goes on before the
 * first service is published and off after the last is gone.
 */
static void
svcs_publish(uint8_t *old_table)
{
	struct nfv_lb_config *n = rte_malloc("nfv_lb_cfg", sizeof(*n), 0), *old;

	if (n == NULL)
		rte_panic("lb: no memory for the services\n");
	*n = svcs;
	index_build(n);
	if (svcs.n_services > 0)
		features_apply();
	old = __atomic_exchange_n(&nfv_lb_cfg, n, __ATOMIC_ACQ_REL);
	if (svcs.n_services == 0)
		features_apply();
	nfv_rcu_sync();
	rte_free(old);
	rte_free(old_table);
}

static int
maglev_rebuild(struct nfv_lb_service *s, uint8_t **old_table, char *err)
{
	struct nfv_maglev_backend mb[NFV_LB_BACKENDS_MAX];
	uint8_t *t = rte_malloc("nfv_lb_maglev", NFV_MAGLEV_SIZE, RTE_CACHE_LINE_SIZE);

	if (t == NULL) {
		snprintf(err, NFV_ERR_LEN, "no memory for a Maglev table");
		return -ENOMEM;
	}
	for (uint32_t b = 0; b < s->n_backends; b++)
		mb[b] = (struct nfv_maglev_backend){
			.addr = s->be[b].addr, .port = s->be[b].port,
			.weight = s->be[b].uid != 0 ? s->be[b].weight : 0,
		};
	nfv_maglev_build(mb, s->n_backends, t, NFV_MAGLEV_SIZE);
	*old_table = s->maglev;
	s->maglev = t;
	return 0;
}

/*
 * Direct-return backends on a link of nfvd's must have their MAC before the
 * first packet: lb_in sends to the backend's next hop without holding the
 * packet (ip4_rewrite's resolution would ask for the VIP, the packet's
 * destination). Each second, and when a backend is added, those whose
 * route is the connected network's (no host route yet: unresolved) are
 * asked for; lb_in drops (lb/backend_unresolved) until they answer.
 */
static struct nfv_timer *dsr_timer;

static void
dsr_resolve(void *arg)
{
	struct rte_fib *fib = nfv_fib4_active();

	RTE_SET_USED(arg);
	for (uint32_t i = 0; i < svcs.n_services; i++) {
		const struct nfv_lb_service *s = &svcs.svc[i];

		if (s->uid == 0 || s->mode != NFV_LB_DSR)
			continue;
		for (uint32_t b = 0; b < s->n_backends; b++) {
			struct nfv_ip ip = { .family = AF_INET, .v4 = s->be[b].addr };
			uint32_t a = rte_be_to_cpu_32(s->be[b].addr);
			const struct nfv_nexthop *nh;
			uint64_t v = 0;

			if (s->be[b].uid == 0)
				continue;
			rte_fib_lookup_bulk(fib, &a, &v, 1);
			nh = nfv_fib_nh_id(v) != 0 ? nfv_nh_get(nfv_fib_nh_id(v)) : NULL;
			if (nh != NULL && nh->type == NFV_NH_CONNECTED)
				nfv_neigh_resolve(&ip, nh->port_id);
		}
	}
}

static const char *
proto_name(uint8_t p)
{
	return p == IPPROTO_TCP ? "tcp" : "udp";
}

/* "ADDR:PORT" (port required when need_port) into network order. */
static int
parse_endpoint(const char *s, bool need_port, rte_be32_t *addr, rte_be16_t *port, char *err)
{
	char buf[64];
	const char *colon = strchr(s, ':'), *why;
	struct nfv_ip ip;
	uint32_t p = 0;

	if (strlen(s) >= sizeof(buf))
		goto bad;
	strcpy(buf, s);
	if (colon != NULL) {
		buf[colon - s] = '\0';
		if (nfv_parse_u32(colon + 1, 1, 65535, &p) < 0) {
			snprintf(err, NFV_ERR_LEN, "bad port in '%s' (1-65535)", s);
			return -EINVAL;
		}
	} else if (need_port) {
		goto bad;
	}
	if (nfv_parse_ip_family(buf, AF_INET, &ip) < 0)
		goto bad;
	/* A VIP or a backend is a host's address. */
	why = nfv_ip_unusable(&ip);
	if (why != NULL) {
		snprintf(err, NFV_ERR_LEN, "bad %s '%s': %s", need_port ? "service" : "backend", s,
			 why);
		return -EINVAL;
	}
	*addr = ip.v4;
	*port = rte_cpu_to_be_16((uint16_t)p);
	return 0;
bad:
	snprintf(err, NFV_ERR_LEN, "bad %s '%s' (IPv4%s)", need_port ? "service" : "backend", s,
		 need_port ? ":PORT" : "[:PORT]");
	return -EINVAL;
}

static struct nfv_lb_service *
svc_get(const char *vip_port, uint8_t proto, char *err)
{
	rte_be32_t vip;
	rte_be16_t port;

	if (parse_endpoint(vip_port, true, &vip, &port, err) < 0)
		return NULL;
	for (uint32_t i = 0; i < svcs.n_services; i++)
		if (svcs.svc[i].uid != 0 && svcs.svc[i].vip == vip && svcs.svc[i].port == port &&
		    svcs.svc[i].proto == proto)
			return &svcs.svc[i];
	snprintf(err, NFV_ERR_LEN, "no service %s %s", vip_port, proto_name(proto));
	return NULL;
}

int
nfv_lb_service_add(const char *vip_port, uint8_t proto, bool add, enum nfv_lb_mode mode,
		   char *err)
{
	struct nfv_lb_service *s;
	rte_be32_t vip;
	rte_be16_t port;
	uint32_t slot;
	int rc;

	if (parse_endpoint(vip_port, true, &vip, &port, err) < 0)
		return -EINVAL;
	s = svc_get(vip_port, proto, err);
	if (!add) {
		uint8_t *table;

		if (s == NULL)
			return -ENOENT;
		/* Slots do not move: the other services' sessions name theirs. */
		table = s->maglev;
		memset(s, 0, sizeof(*s));
		while (svcs.n_services > 0 && svcs.svc[svcs.n_services - 1].uid == 0)
			svcs.n_services--;
		svcs_publish(table);
		return 0;
	}
	if (s != NULL) {
		snprintf(err, NFV_ERR_LEN, "service %s %s exists", vip_port, proto_name(proto));
		return -EEXIST;
	}
	for (slot = 0; slot < svcs.n_services && svcs.svc[slot].uid != 0; slot++)
		;
	if (slot == NFV_LB_SERVICES_MAX) {
		snprintf(err, NFV_ERR_LEN, "at most %u services", NFV_LB_SERVICES_MAX);
		return -ENOSPC;
	}
	rc = tables_setup(err);
	if (rc < 0)
		return rc;
	s = &svcs.svc[slot];
	memset(s, 0, sizeof(*s));
	s->vip = vip;
	s->port = port;
	s->proto = proto;
	s->mode = (uint8_t)mode;
	{
		uint8_t *none;

		rc = maglev_rebuild(s, &none, err);
		if (rc < 0)
			return rc;
	}
	s->uid = ++lb_uid;
	if (slot == svcs.n_services)
		svcs.n_services++;
	svcs_publish(NULL);
	return 0;
}

int
nfv_lb_backend_add(const char *vip_port, uint8_t proto, const char *backend, bool add,
		   int weight, char *err)
{
	struct nfv_lb_service *s = svc_get(vip_port, proto, err), before;
	uint8_t *old_table = NULL;
	rte_be32_t addr;
	rte_be16_t port;
	uint32_t b, hole = UINT32_MAX;
	int rc;

	if (s == NULL)
		return -ENOENT;
	if (parse_endpoint(backend, false, &addr, &port, err) < 0)
		return -EINVAL;
	if (port == 0)
		port = s->port; /* no port: the service's */
	if (s->mode == NFV_LB_DSR && port != s->port) {
		snprintf(err, NFV_ERR_LEN, "mode dsr: a backend gets the packet unchanged, so it "
			 "takes the service's port (%u)", rte_be_to_cpu_16(s->port));
		return -EINVAL;
	}
	before = *s;
	for (b = 0; b < s->n_backends; b++) {
		if (s->be[b].uid != 0 && s->be[b].addr == addr && s->be[b].port == port)
			break;
		if (s->be[b].uid == 0 && hole == UINT32_MAX)
			hole = b;
	}
	if (!add) {
		if (b == s->n_backends) {
			snprintf(err, NFV_ERR_LEN, "no backend %s in service %s %s", backend,
				 vip_port, proto_name(proto));
			return -ENOENT;
		}
		s->be[b].uid = 0;
		s->be[b].weight = 0;
		while (s->n_backends > 0 && s->be[s->n_backends - 1].uid == 0)
			s->n_backends--;
	} else if (b < s->n_backends) {
		/* Added again: its weight set, to the default (1) when none is
		 * given (a drained backend back in service). */
		s->be[b].weight = (uint16_t)(weight < 0 ? 1 : weight);
	} else {
		if (hole == UINT32_MAX) {
			if (s->n_backends == NFV_LB_BACKENDS_MAX) {
				snprintf(err, NFV_ERR_LEN, "at most %u backends a service",
					 NFV_LB_BACKENDS_MAX);
				return -ENOSPC;
			}
			hole = s->n_backends++;
		}
		s->be[hole] = (struct nfv_lb_backend){
			.addr = addr, .port = port, .weight = (uint16_t)(weight < 0 ? 1 : weight),
			.uid = ++lb_uid,
		};
	}
	rc = maglev_rebuild(s, &old_table, err);
	if (rc < 0) {
		*s = before; /* the service as it was: nothing changed */
		return rc;
	}
	svcs_publish(old_table);
	if (s->mode == NFV_LB_DSR)
		dsr_resolve(NULL);
	return 0;
}

int
nfv_lb_set_timeout(const char *name, uint32_t seconds, char *err)
{
	for (unsigned int i = 0; i < NFV_LB_STATES; i++)
		if (strcmp(name, timeout_names[i]) == 0) {
			timeout_s[i] = seconds;
			if (nfv_lb_tables != NULL)
				timeouts_publish();
			return 0;
		}
	snprintf(err, NFV_ERR_LEN, "unknown timeout '%s' (tcp-established, tcp-transitory, udp)",
		 name);
	return -EINVAL;
}

static const char *
v4_str(rte_be32_t a, char *buf)
{
	return inet_ntop(AF_INET, &a, buf, INET_ADDRSTRLEN);
}

/* Live sessions per service slot and backend slot, and by state. */
struct lb_census {
	uint32_t per_be[NFV_LB_SERVICES_MAX][NFV_LB_BACKENDS_MAX];
	uint64_t by_state[NFV_LB_STATES];
	uint32_t total;
};

static json_t *
session_json(const struct nfv_lb_session *s, unsigned int w, uint64_t now)
{
	char cl[INET_ADDRSTRLEN], vip[INET_ADDRSTRLEN], be[INET_ADDRSTRLEN];
	const struct nfv_lb_key *k = &s->key[NFV_LB_FWD];
	int64_t left = (int64_t)(s->expire_tsc - now);

	return json_pack("{s:s, s:s, s:i, s:s, s:i, s:s, s:i, s:s, s:i, s:I, s:I, s:I}",
			 "proto", proto_name(k->proto),
			 "client", v4_str(k->src, cl), "client_port", rte_be_to_cpu_16(k->sport),
			 "vip", v4_str(s->vip, vip), "vip_port", rte_be_to_cpu_16(s->vport),
			 "backend", v4_str(s->backend, be), "backend_port",
			 rte_be_to_cpu_16(s->bport), "state", state_names[s->state], "worker",
			 (int)w, "expires_ms",
			 (json_int_t)(left > 0 ? left * 1000 / (int64_t)rte_get_tsc_hz() : 0),
			 "packets_fwd", (json_int_t)s->packets[NFV_LB_FWD],
			 "packets_rev", (json_int_t)s->packets[NFV_LB_REV]);
}

json_t *
nfv_lb_show(bool sessions)
{
	struct lb_census *cs = calloc(1, sizeof(*cs));
	struct nfv_lb_counters c;
	uint64_t now = rte_get_tsc_cycles();
	json_t *o = json_object(), *list = json_array(), *services = json_array(), *st;

	if (cs == NULL)
		return o;
	for (unsigned int w = 0; nfv_lb_tables != NULL && w < nfv_n_workers; w++) {
		const struct nfv_lb_table *t = &nfv_lb_tables[w];

		for (uint32_t i = 0; i < lb_capacity; i++) {
			const struct nfv_lb_session *s = &t->s[i];

			if (!__atomic_load_n(&s->used, __ATOMIC_ACQUIRE) ||
			    (int64_t)(now - s->expire_tsc) >= 0 || s->state >= NFV_LB_STATES ||
			    s->svc >= svcs.n_services || svcs.svc[s->svc].uid != s->svc_uid)
				continue;
			cs->total++;
			cs->by_state[s->state]++;
			if (s->be < NFV_LB_BACKENDS_MAX && svcs.svc[s->svc].be[s->be].uid == s->be_uid)
				cs->per_be[s->svc][s->be]++;
			if (sessions)
				json_array_append_new(list, session_json(s, w, now));
		}
	}
	for (uint32_t i = 0; i < svcs.n_services; i++) {
		const struct nfv_lb_service *s = &svcs.svc[i];
		json_t *bes = json_array();
		char a[INET_ADDRSTRLEN];
		uint32_t n_sess = 0, entries[NFV_LB_BACKENDS_MAX] = { 0 };

		if (s->uid == 0)
			continue;
		for (uint32_t e = 0; e < NFV_MAGLEV_SIZE; e++)
			if (s->maglev[e] != NFV_MAGLEV_NONE)
				entries[s->maglev[e]]++;
		for (uint32_t b = 0; b < s->n_backends; b++) {
			if (s->be[b].uid == 0)
				continue;
			n_sess += cs->per_be[i][b];
			json_array_append_new(bes, json_pack("{s:s, s:i, s:i, s:i, s:i}",
				"addr", v4_str(s->be[b].addr, a),
				"port", rte_be_to_cpu_16(s->be[b].port),
				"weight", s->be[b].weight, "sessions", cs->per_be[i][b],
				"maglev_entries", entries[b]));
		}
		json_array_append_new(services, json_pack("{s:s, s:i, s:s, s:s, s:i, s:o}",
			"vip", v4_str(s->vip, a), "port", rte_be_to_cpu_16(s->port),
			"proto", proto_name(s->proto), "mode", s->mode == NFV_LB_DSR ? "dsr" : "nat",
			"sessions", n_sess,
			"backends", bes));
	}
	nfv_counters_sum(&nfv_lb_counters_block, &c);
	json_object_set_new(o, "services", services);
	json_object_set_new(o, "sessions", json_integer(cs->total));
	json_object_set_new(o, "max_sessions", json_integer((json_int_t)lb_capacity *
							   nfv_n_workers));
	st = json_object();
	for (unsigned int i = 0; i < NFV_LB_STATES; i++)
		json_object_set_new(st, state_names[i], json_integer((json_int_t)cs->by_state[i]));
	json_object_set_new(o, "by_state", st);
	json_object_set_new(o, "fwd", json_integer((json_int_t)c.fwd));
	json_object_set_new(o, "rev", json_integer((json_int_t)c.rev));
	json_object_set_new(o, "scheduled", json_integer((json_int_t)c.scheduled));
	json_object_set_new(o, "rescheduled", json_integer((json_int_t)c.rescheduled));
	json_object_set_new(o, "expired", json_integer((json_int_t)c.expired));
	json_object_set_new(o, "no_backend", json_integer((json_int_t)c.no_backend));
	json_object_set_new(o, "table_full", json_integer((json_int_t)c.table_full));
	json_object_set_new(o, "icmp_error_fwd", json_integer((json_int_t)c.icmp_error_fwd));
	json_object_set_new(o, "icmp_error_rev", json_integer((json_int_t)c.icmp_error_rev));
	json_object_set_new(o, "icmp_error_no_session",
			    json_integer((json_int_t)c.icmp_error_no_session));
	json_object_set_new(o, "icmp_error_truncated",
			    json_integer((json_int_t)c.icmp_error_truncated));
	json_object_set_new(o, "frag_fwd", json_integer((json_int_t)c.frag_fwd));
	json_object_set_new(o, "frag_rev", json_integer((json_int_t)c.frag_rev));
	json_object_set_new(o, "frag_unknown", json_integer((json_int_t)c.frag_unknown));
	st = json_object();
	for (unsigned int i = 0; i < NFV_LB_STATES; i++)
		json_object_set_new(st, timeout_names[i], json_integer(timeout_s[i]));
	json_object_set_new(o, "timeouts", st);
	if (sessions)
		json_object_set_new(o, "session_list", list);
	else
		json_decref(list);
	free(cs);
	return o;
}

static void
lb_show_stats(json_t *stats)
{
	struct nfv_lb_counters c;

	nfv_counters_sum(&nfv_lb_counters_block, &c);
	json_object_set_new(stats, "lb",
			    json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, "
				      "s:I, s:I, s:I, s:I, s:I}",
				      "fwd", (json_int_t)c.fwd, "rev", (json_int_t)c.rev,
				      "scheduled", (json_int_t)c.scheduled,
				      "rescheduled", (json_int_t)c.rescheduled,
				      "expired", (json_int_t)c.expired,
				      "no_backend", (json_int_t)c.no_backend,
				      "table_full", (json_int_t)c.table_full,
				      "icmp_error_fwd", (json_int_t)c.icmp_error_fwd,
				      "icmp_error_rev", (json_int_t)c.icmp_error_rev,
				      "icmp_error_no_session", (json_int_t)c.icmp_error_no_session,
				      "icmp_error_truncated", (json_int_t)c.icmp_error_truncated,
				      "frag_fwd", (json_int_t)c.frag_fwd,
				      "frag_rev", (json_int_t)c.frag_rev,
				      "frag_unknown", (json_int_t)c.frag_unknown,
				      "handoff_out", (json_int_t)c.handoff_out,
				      "handoff_in", (json_int_t)c.handoff_in,
				      "handoff_full", (json_int_t)c.handoff_full));
}

static void
lb_metrics(FILE *f)
{
	struct nfv_lb_counters c;
	bool was = nfv_stats_since_start(true);

	nfv_counters_sum(&nfv_lb_counters_block, &c);
	nfv_stats_since_start(was);
	nfv_metrics_help(f, "nfvd_lb_packets_total", "counter",
			 "packets translated by the load balancer");
	fprintf(f, "nfvd_lb_packets_total{direction=\"fwd\"} %" PRIu64 "\n", c.fwd);
	fprintf(f, "nfvd_lb_packets_total{direction=\"rev\"} %" PRIu64 "\n", c.rev);
	nfv_metrics_help(f, "nfvd_lb_icmp_errors_total", "counter",
			 "ICMP errors about load-balancer sessions' packets, by what was done");
	fprintf(f, "nfvd_lb_icmp_errors_total{result=\"fwd\"} %" PRIu64 "\n", c.icmp_error_fwd);
	fprintf(f, "nfvd_lb_icmp_errors_total{result=\"rev\"} %" PRIu64 "\n", c.icmp_error_rev);
	fprintf(f, "nfvd_lb_icmp_errors_total{result=\"no_session\"} %" PRIu64 "\n",
		c.icmp_error_no_session);
	fprintf(f, "nfvd_lb_icmp_errors_total{result=\"truncated\"} %" PRIu64 "\n",
		c.icmp_error_truncated);
	nfv_metrics_help(f, "nfvd_lb_fragments_total", "counter",
			 "later fragments (not the first) of datagrams through the load balancer, "
			 "by what was done");
	fprintf(f, "nfvd_lb_fragments_total{result=\"fwd\"} %" PRIu64 "\n", c.frag_fwd);
	fprintf(f, "nfvd_lb_fragments_total{result=\"rev\"} %" PRIu64 "\n", c.frag_rev);
	fprintf(f, "nfvd_lb_fragments_total{result=\"unknown\"} %" PRIu64 "\n", c.frag_unknown);
	nfv_metrics_help(f, "nfvd_lb_sessions_scheduled_total", "counter",
			 "load-balancer sessions created");
	fprintf(f, "nfvd_lb_sessions_scheduled_total %" PRIu64 "\n", c.scheduled);
	nfv_handoff_metrics(f, "lb", c.handoff_out, c.handoff_in, c.handoff_full);
}

static const struct nfv_collector lb_collector = {
	.name = "lb",
	.show_stats = lb_show_stats,
	.metrics = lb_metrics,
};
NFV_COLLECTOR_REGISTER(lb_collector);

/* New interfaces get the feature while services exist; a removed one
 * loses its features with it. */
static void
lb_iface_event(enum nfv_iface_event ev, uint16_t iface, void *arg)
{
	RTE_SET_USED(arg);
	if (ev == NFV_IFACE_REMOVED)
		feature_on[iface] = false;
	else if (ev == NFV_IFACE_ADDED && svcs.n_services > 0)
		features_apply();
}
NFV_IFACE_EVENT_HANDLER(lb_iface_event);

static const struct nfv_module_option lb_options[] = {
	{ "lb-sessions", "N", "sessions each worker's load-balancer table holds (65536)" },
	{ NULL, NULL, NULL },
};

static int
lb_parse_option(const char *name, const char *value, char *err, size_t len)
{
	return nfv_module_option_u32(name, value, 64, 1u << 24, &lb_capacity, err, len);
}

static int
lb_init(void)
{
	nfv_lb_cfg = rte_zmalloc("nfv_lb_cfg", sizeof(*nfv_lb_cfg), 0);
	if (nfv_lb_cfg == NULL)
		return -ENOMEM;
	dsr_timer = nfv_timer_add("lb-dsr", 1.0, false, dsr_resolve, NULL);
	return dsr_timer == NULL ? -ENOMEM : 0;
}

static void
lb_fini(void)
{
	if (dsr_timer != NULL)
		nfv_timer_del(dsr_timer);
	dsr_timer = NULL;
	tables_free();
	for (uint32_t i = 0; i < svcs.n_services; i++)
		rte_free(svcs.svc[i].maglev);
	svcs.n_services = 0;
	rte_free(nfv_lb_cfg);
	nfv_lb_cfg = NULL;
}

static struct nfv_module lb_module = {
	.name = "lb",
	.depends_on = "ip arp_nd",
	.init = lb_init,
	.fini = lb_fini,
	.options = lb_options,
	.parse_option = lb_parse_option,
};
NFV_MODULE_REGISTER(lb_module);
