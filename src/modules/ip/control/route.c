/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The route database: one entry per prefix, holding a next hop per source
 * (local, connected, static, neighbor host route). The best source is the
 * one in the FIB. Entries live in an rte_hash; the FIB pair holds ids only.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_hash.h>
#include <rte_jhash.h>

#include "modules/ip/ip.h"
#include "modules/ip/control/fib.h"
#include "modules/ip/control/nexthop.h"
#include "modules/ip/control/route.h"
#include "core/log.h"
#include "modules/infra/port.h"

struct route_key {
	uint8_t family;
	uint8_t len;
	uint16_t vrf;
	uint8_t addr[16];
};

struct nfv_route {
	struct nfv_prefix prefix;
	uint32_t nh[NFV_RT_SOURCE_MAX];
	uint8_t kernel_proto; /* NFV_RT_KERNEL: the kernel's protocol number */
};

static struct rte_hash *route_hash;
static uint32_t n_routes[NFV_VRF_MAX][2];
static uint32_t max_routes[2]; /* the default VRF's; others nfv_vrf_routes() */
static uint32_t cap_routes[2]; /* the default VRF's tables' size now (<= max_routes) */
static uint32_t tbl8_max[2];
static int db_socket;
static unsigned int hash_generation;
static uint32_t vrf_routes = NFV_VRF_ROUTES_DEFAULT;

uint32_t
nfv_vrf_routes(void)
{
	return vrf_routes;
}

static unsigned int
fam_idx(uint8_t family)
{
	return family == AF_INET ? 0 : 1;
}

static void
key_of(struct route_key *k, const struct nfv_prefix *p)
{
	memset(k, 0, sizeof(*k));
	k->family = p->ip.family;
	k->len = p->len;
	k->vrf = p->vrf;
	if (p->ip.family == AF_INET)
		memcpy(k->addr, &p->ip.v4, 4);
	else
		memcpy(k->addr, p->ip.v6, 16);
}

static struct rte_hash *
route_hash_create(uint32_t routes4, uint32_t routes6)
{
	char name[RTE_HASH_NAMESIZE];
	struct rte_hash_parameters hp = {
		.name = name,
		/* and room for the routes of a few VRFs besides */
		.entries = routes4 + routes6 + 4 * nfv_vrf_routes(),
		.key_len = sizeof(struct route_key),
		.hash_func = rte_jhash,
		.socket_id = db_socket,
	};

	snprintf(name, sizeof(name), "nfv_routes_%u", hash_generation++);
	return rte_hash_create(&hp);
}

/* tbl8 groups for a table of `routes`: the configured count scaled down
 * with the table, at least 1024 (and never more than configured). */
static uint32_t
tbl8_for(unsigned int f, uint32_t routes)
{
	uint64_t t = (uint64_t)tbl8_max[f] * routes / max_routes[f];

	return (uint32_t)RTE_MIN(RTE_MAX(t, 1024u), (uint64_t)tbl8_max[f]);
}

int
nfv_route_db_init(const struct nfv_limits *l, int socket_id)
{
	memset(n_routes, 0, sizeof(n_routes));
	vrf_routes = l->vrf_routes ? l->vrf_routes : NFV_VRF_ROUTES_DEFAULT;
	db_socket = socket_id;
	max_routes[0] = l->max_routes4;
	max_routes[1] = l->max_routes6;
	tbl8_max[0] = l->tbl8_4;
	tbl8_max[1] = l->tbl8_6;
	cap_routes[0] = l->start_routes4 ? RTE_MIN(l->start_routes4, l->max_routes4) :
		l->max_routes4;
	cap_routes[1] = l->start_routes6 ? RTE_MIN(l->start_routes6, l->max_routes6) :
		l->max_routes6;
	route_hash = route_hash_create(cap_routes[0], cap_routes[1]);
	return route_hash == NULL ? -ENOMEM : 0;
}

/* What the FIBs are created with at start: the start sizes. */
void
nfv_route_db_start_limits(struct nfv_limits *fib)
{
	fib->max_routes4 = cap_routes[0];
	fib->max_routes6 = cap_routes[1];
	fib->tbl8_4 = tbl8_for(0, cap_routes[0]);
	fib->tbl8_6 = tbl8_for(1, cap_routes[1]);
}

/*
 * The default VRF's tables of a family, grown to hold `need` routes: four
 * times larger (at least `need`, at most the max). The route database moves
 * to a larger hash (control only), then the FIB pair is rebuilt at the new
 * size. false, with nothing changed, when memory is short.
 */
static bool
route_grow(unsigned int f, uint32_t need)
{
	uint32_t cap = RTE_MIN(RTE_MAX((uint64_t)cap_routes[f] * 4, (uint64_t)need),
			       (uint64_t)max_routes[f]);
	uint32_t caps[2] = { cap_routes[0], cap_routes[1] };
	size_t before = nfv_heap_used(db_socket), h_bytes;
	struct rte_hash *h;
	const void *key;
	void *data;
	uint32_t it = 0;

	caps[f] = cap;
	h = route_hash_create(caps[0], caps[1]);
	if (h == NULL) {
		NFV_LOG(WARNING, "route table: no memory to grow to %u IPv%c routes", cap,
			f == 0 ? '4' : '6');
		return false;
	}
	h_bytes = nfv_heap_used(db_socket) - before;
	while (rte_hash_iterate(route_hash, &key, &data, &it) >= 0)
		if (rte_hash_add_key_data(h, key, data) < 0) {
			rte_hash_free(h);
			return false;
		}
	if (nfv_fib_grow(f == 0 ? AF_INET : AF_INET6, cap, tbl8_for(f, cap)) < 0) {
		NFV_LOG(WARNING, "route table: no memory to grow the IPv%c FIB to %u routes",
			f == 0 ? '4' : '6', cap);
		rte_hash_free(h);
		return false;
	}
	rte_hash_free(route_hash);
	route_hash = h;
	nfv_ip_memory.routes = h_bytes;
	NFV_LOG(INFO, "route table: IPv%c grown from %u to %u routes", f == 0 ? '4' : '6',
		cap_routes[f], cap);
	cap_routes[f] = cap;
	return true;
}

void
nfv_route_db_fini(void)
{
	const void *key;
	void *data;
	uint32_t it = 0;

	if (route_hash == NULL)
		return;
	while (rte_hash_iterate(route_hash, &key, &data, &it) >= 0)
		free(data);
	rte_hash_free(route_hash);
	route_hash = NULL;
}

static uint32_t
best_nh(const struct nfv_route *r)
{
	for (unsigned int s = 0; s < NFV_RT_SOURCE_MAX; s++)
		if (r->nh[s] != 0)
			return r->nh[s];
	return 0;
}

static struct nfv_route *
route_find(const struct nfv_prefix *p)
{
	struct route_key k;
	void *data;

	key_of(&k, p);
	if (rte_hash_lookup_data(route_hash, &k, &data) < 0)
		return NULL;
	return data;
}

uint32_t
nfv_route_count_vrf(uint8_t family, uint16_t vrf)
{
	return n_routes[vrf][fam_idx(family)];
}

uint32_t
nfv_route_count(uint8_t family)
{
	uint32_t n = 0;

	for (uint16_t vrf = 0; vrf < NFV_VRF_MAX; vrf++)
		n += n_routes[vrf][fam_idx(family)];
	return n;
}

/* Prefixes of ps[] not in the database yet, by family ([0] IPv4, [1] IPv6). */
void
nfv_route_count_new(const struct nfv_prefix *ps, unsigned int n, uint32_t *n_new)
{
	for (unsigned int i = 0; i < n; i++)
		if (route_find(&ps[i]) == NULL)
			n_new[fam_idx(ps[i].ip.family)]++;
}

static int
key_cmp(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(struct route_key));
}

/* As nfv_route_count_new, each prefix counted once however often it
 * repeats (a sort of the keys: only when the quick upper bound is too much). */
int
nfv_route_count_new_unique(const struct nfv_prefix *ps, unsigned int n, uint32_t *n_new)
{
	struct route_key *k = malloc((size_t)n * sizeof(*k) + 1);

	if (k == NULL)
		return -ENOMEM;
	for (unsigned int i = 0; i < n; i++)
		key_of(&k[i], &ps[i]);
	qsort(k, n, sizeof(*k), key_cmp);
	for (unsigned int i = 0; i < n; i++) {
		void *data;

		if (i > 0 && key_cmp(&k[i - 1], &k[i]) == 0)
			continue;
		if (rte_hash_lookup_data(route_hash, &k[i], &data) < 0)
			n_new[k[i].family == AF_INET ? 0 : 1]++;
	}
	free(k);
	return 0;
}

uint32_t
nfv_route_max(uint8_t family, uint16_t vrf)
{
	return vrf == 0 ? max_routes[fam_idx(family)] : nfv_vrf_routes();
}

bool
nfv_route_has_room(uint8_t family, uint16_t vrf, uint32_t n_new)
{
	uint32_t room = vrf == 0 ? cap_routes[fam_idx(family)] : nfv_vrf_routes();

	return n_routes[vrf][fam_idx(family)] + n_new <= room;
}

bool
nfv_route_reserve(uint8_t family, uint16_t vrf, uint32_t n_new)
{
	unsigned int f = fam_idx(family);

	if (nfv_route_has_room(family, vrf, n_new))
		return true;
	if (vrf != 0 || n_routes[0][f] + n_new > max_routes[f])
		return false;
	return route_grow(f, n_routes[0][f] + n_new);
}

uint32_t
nfv_route_capacity(uint8_t family)
{
	return cap_routes[fam_idx(family)];
}

/* "route table full" naming the table and what to do. */
static void
full_err(char *err, const struct nfv_prefix *p, const char *at)
{
	char f = p->ip.family == AF_INET ? '4' : '6';

	if (p->vrf == 0)
		snprintf(err, NFV_ERR_LEN, "route table full%s (%u IPv%c routes); start nfvd "
			 "with a larger --max-routes%c", at, nfv_route_max(p->ip.family, 0), f, f);
	else
		snprintf(err, NFV_ERR_LEN, "route table of VRF %s full%s (%u IPv%c routes)",
			 nfv_vrf_name(p->vrf), at, nfv_vrf_routes(), f);
}

uint32_t
nfv_route_source_nh(const struct nfv_prefix *p, enum nfv_route_source src)
{
	struct nfv_route *r = route_find(p);

	return r == NULL ? 0 : r->nh[src];
}

/*
 * Sets (nh != 0, its reference is consumed, even on failure) or clears (nh == 0) one source of a
 * prefix and updates the FIB when the best next hop changes.
 */
int
nfv_route_set(const struct nfv_prefix *p, enum nfv_route_source src, uint32_t nh, char *err)
{
	struct nfv_route *r = route_find(p);
	uint32_t old_best, new_best, old_src;
	bool created = false;
	struct route_key k;
	int rc;

	if (r == NULL) {
		if (nh == 0)
			return -ENOENT;
		if (!nfv_route_reserve(p->ip.family, p->vrf, 1)) {
			full_err(err, p, "");
			nfv_nh_put(nh);
			return -ENOSPC;
		}
		r = calloc(1, sizeof(*r));
		if (r == NULL) {
			nfv_nh_put(nh);
			return -ENOMEM;
		}
		r->prefix = *p;
		key_of(&k, p);
		rc = rte_hash_add_key_data(route_hash, &k, r);
		if (rc < 0) {
			free(r);
			snprintf(err, NFV_ERR_LEN, "route database full");
			nfv_nh_put(nh);
			return -ENOSPC;
		}
		n_routes[p->vrf][fam_idx(p->ip.family)]++;
		created = true;
	}
	old_best = best_nh(r);
	old_src = r->nh[src];
	r->nh[src] = nh;
	new_best = best_nh(r);
	if (new_best != old_best) {
		rc = nfv_fib_apply(p, new_best, old_best);
		if (rc < 0) {
			r->nh[src] = old_src;
			nfv_fib_resync_standby(p->ip.family, p->vrf);
			snprintf(err, NFV_ERR_LEN, "FIB update failed (%s): the table has no room "
				 "left for this prefix length", strerror(-rc));
			if (created)
				nfv_route_set(p, src, 0, err);
			nfv_nh_put(nh);
			return rc;
		}
	}
	if (new_best == 0) {
		key_of(&k, p);
		rte_hash_del_key(route_hash, &k);
		n_routes[p->vrf][fam_idx(p->ip.family)]--;
		free(r);
	}
	nfv_nh_put(old_src);
	return 0;
}

/* Bulk static routes of one family: all or nothing. nhs[] references are
 * taken over. */
int
nfv_route_set_static_bulk(const struct nfv_prefix *ps, const uint32_t *nhs, unsigned int n,
			  char *err)
{
	struct nfv_fib_op *ops = NULL;
	struct nfv_route **routes = NULL;
	uint32_t *old_static = NULL;
	bool *created = NULL;
	unsigned int n_ops = 0, i;
	int rc = 0;

	ops = calloc(n, sizeof(*ops));
	routes = calloc(n, sizeof(*routes));
	old_static = calloc(n, sizeof(*old_static));
	created = calloc(n, sizeof(*created));
	if (ops == NULL || routes == NULL || old_static == NULL || created == NULL) {
		snprintf(err, NFV_ERR_LEN, "out of memory for %u routes", n);
		rc = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		struct nfv_route *r = route_find(&ps[i]);
		uint32_t old_best;
		struct route_key k;

		if (r == NULL) {
			if (!nfv_route_has_room(ps[i].ip.family, ps[i].vrf, 1)) {
				char at[32];

				snprintf(at, sizeof(at), " at route %u", i + 1);
				full_err(err, &ps[i], at);
				rc = -ENOSPC;
				goto rollback;
			}
			r = calloc(1, sizeof(*r));
			if (r == NULL) {
				rc = -ENOMEM;
				snprintf(err, NFV_ERR_LEN, "out of memory at route %u", i + 1);
				goto rollback;
			}
			r->prefix = ps[i];
			key_of(&k, &ps[i]);
			if (rte_hash_add_key_data(route_hash, &k, r) < 0) {
				free(r);
				rc = -ENOSPC;
				snprintf(err, NFV_ERR_LEN, "route database full at route %u",
					 i + 1);
				goto rollback;
			}
			n_routes[ps[i].vrf][fam_idx(ps[i].ip.family)]++;
			created[i] = true;
		}
		routes[i] = r;
		old_best = best_nh(r);
		old_static[i] = r->nh[NFV_RT_STATIC];
		r->nh[NFV_RT_STATIC] = nhs[i];
		if (best_nh(r) != old_best) {
			ops[n_ops].prefix = ps[i];
			ops[n_ops].nh_id = best_nh(r);
			ops[n_ops].old_nh_id = old_best;
			n_ops++;
		}
	}
	rc = nfv_fib_apply_batch(ops, n_ops);
	if (rc < 0) {
		snprintf(err, NFV_ERR_LEN, "FIB update failed (%s): not enough tbl8 groups for "
			 "this many long prefixes", strerror(-rc));
		goto rollback;
	}
	for (i = 0; i < n; i++)
		nfv_nh_put(old_static[i]);
	goto out;

rollback:
	while (i-- > 0) {
		struct nfv_route *r = routes[i];

		r->nh[NFV_RT_STATIC] = old_static[i];
		if (created[i]) {
			struct route_key k;

			key_of(&k, &r->prefix);
			rte_hash_del_key(route_hash, &k);
			n_routes[r->prefix.vrf][fam_idx(r->prefix.ip.family)]--;
			free(r);
		}
	}
	for (i = 0; i < n; i++)
		nfv_nh_put(nhs[i]);
	if (n > 0)
		nfv_fib_resync_standby(ps[0].ip.family, ps[0].vrf);
out:
	free(ops);
	free(routes);
	free(old_static);
	free(created);
	return rc;
}

int
nfv_route_set_many(const struct nfv_prefix *ps, const uint32_t *nhs, const uint8_t *protos,
		   unsigned int n, enum nfv_route_source src, unsigned int *n_failed, char *err)
{
	struct nfv_fib_op *ops = calloc(n + 1, sizeof(*ops));
	uint32_t *old = calloc(n + 1, sizeof(*old));
	struct nfv_prefix *gone = calloc(n + 1, sizeof(*gone));
	unsigned int n_ops = 0, n_gone = 0, i;
	uint32_t n_new[2] = { 0, 0 };
	int rc = 0;

	if (ops == NULL || old == NULL || gone == NULL) {
		for (i = 0; i < n; i++)
			nfv_nh_put(nhs[i]);
		*n_failed += n;
		snprintf(err, NFV_ERR_LEN, "out of memory for %u routes", n);
		rc = -ENOMEM;
		goto out;
	}
	if (n > 0) {
		for (i = 0; i < n; i++)
			if (nhs[i] != 0 && route_find(&ps[i]) == NULL)
				n_new[fam_idx(ps[i].ip.family)]++;
		/* Grow first when the batch needs room (never in the middle). */
		nfv_route_reserve(ps[0].ip.family, ps[0].vrf, n_new[fam_idx(ps[0].ip.family)]);
	}
	for (i = 0; i < n; i++) {
		struct nfv_route *r = route_find(&ps[i]);
		uint32_t old_best;
		struct route_key k;

		if (r == NULL) {
			if (nhs[i] == 0)
				continue;
			if (!nfv_route_has_room(ps[i].ip.family, ps[i].vrf, 1)) {
				full_err(err, &ps[i], "");
				nfv_nh_put(nhs[i]);
				(*n_failed)++;
				continue;
			}
			r = calloc(1, sizeof(*r));
			key_of(&k, &ps[i]);
			if (r == NULL || rte_hash_add_key_data(route_hash, &k, r) < 0) {
				free(r);
				snprintf(err, NFV_ERR_LEN, "route database full");
				nfv_nh_put(nhs[i]);
				(*n_failed)++;
				continue;
			}
			r->prefix = ps[i];
			n_routes[ps[i].vrf][fam_idx(ps[i].ip.family)]++;
		}
		old_best = best_nh(r);
		old[i] = r->nh[src];
		r->nh[src] = nhs[i];
		if (src == NFV_RT_KERNEL && protos != NULL)
			r->kernel_proto = protos[i];
		if (best_nh(r) != old_best) {
			/* A prefix twice in one batch: its last op wins in the FIB. */
			ops[n_ops].prefix = ps[i];
			ops[n_ops].nh_id = best_nh(r);
			ops[n_ops].old_nh_id = old_best;
			n_ops++;
		}
		if (best_nh(r) == 0 && old_best != 0)
			gone[n_gone++] = ps[i];
	}
	rc = nfv_fib_apply_batch(ops, n_ops);
	if (rc < 0) {
		snprintf(err, NFV_ERR_LEN, "FIB update failed (%s): the table has no room left",
			 strerror(-rc));
		nfv_fib_resync_standby(ps[0].ip.family, ps[0].vrf);
	}
	for (i = 0; i < n_gone; i++) {
		struct nfv_route *r = route_find(&gone[i]);
		struct route_key k;

		/* Set again later in the batch: still in use. */
		if (r == NULL || best_nh(r) != 0)
			continue;
		key_of(&k, &gone[i]);
		rte_hash_del_key(route_hash, &k);
		n_routes[gone[i].vrf][fam_idx(gone[i].ip.family)]--;
		free(r);
	}
	for (i = 0; i < n; i++)
		nfv_nh_put(old[i]);
out:
	free(ops);
	free(old);
	free(gone);
	return rc;
}

int
nfv_route_lookup_exact(const struct nfv_prefix *p, struct nfv_route_info *ri)
{
	struct nfv_route *r = route_find(p);

	if (r == NULL)
		return -ENOENT;
	ri->prefix = r->prefix;
	for (unsigned int s = 0; s < NFV_RT_SOURCE_MAX; s++)
		if (r->nh[s] != 0) {
			ri->source = s;
			ri->nh_id = r->nh[s];
			ri->proto = s == NFV_RT_KERNEL ? r->kernel_proto : 0;
			return 0;
		}
	return -ENOENT;
}

void
nfv_route_walk(nfv_route_cb cb, void *arg)
{
	const void *key;
	void *data;
	uint32_t it = 0;

	while (rte_hash_iterate(route_hash, &key, &data, &it) >= 0) {
		struct nfv_route_info ri;
		struct nfv_route *r = data;

		if (nfv_route_lookup_exact(&r->prefix, &ri) == 0)
			cb(&ri, arg);
	}
}

/* Clears every source of every route of a VRF. */
unsigned int
nfv_route_flush_vrf(uint16_t vrf)
{
	const void *key;
	void *data;
	uint32_t it = 0;
	struct nfv_prefix *victims = NULL;
	unsigned int n = 0, cap = 0, removed = 0;
	char err[NFV_ERR_LEN];

	while (rte_hash_iterate(route_hash, &key, &data, &it) >= 0) {
		struct nfv_route *r = data;

		if (r->prefix.vrf != vrf)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			victims = realloc(victims, cap * sizeof(*victims));
			if (victims == NULL)
				abort();
		}
		victims[n++] = r->prefix;
	}
	for (unsigned int i = 0; i < n; i++) {
		for (unsigned int s = 0; s < NFV_RT_SOURCE_MAX; s++)
			nfv_route_set(&victims[i], s, 0, err);
		removed++;
	}
	free(victims);
	return removed;
}

/* Clears every source whose next hop goes out of port_id. */
unsigned int
nfv_route_flush_port(uint16_t port_id)
{
	const void *key;
	void *data;
	uint32_t it = 0;
	struct nfv_prefix *victims = NULL;
	uint8_t *srcs = NULL;
	unsigned int n = 0, cap = 0, removed = 0;
	char err[NFV_ERR_LEN];

	while (rte_hash_iterate(route_hash, &key, &data, &it) >= 0) {
		struct nfv_route *r = data;

		for (unsigned int s = 0; s < NFV_RT_SOURCE_MAX; s++) {
			if (r->nh[s] == 0 || !nfv_nh_uses_port(r->nh[s], port_id))
				continue;
			if (n == cap) {
				cap = cap ? cap * 2 : 64;
				victims = realloc(victims, cap * sizeof(*victims));
				srcs = realloc(srcs, cap);
				if (victims == NULL || srcs == NULL)
					abort();
			}
			victims[n] = r->prefix;
			srcs[n++] = (uint8_t)s;
		}
	}
	for (unsigned int i = 0; i < n; i++)
		if (nfv_route_set(&victims[i], srcs[i], 0, err) == 0)
			removed++;
	free(victims);
	free(srcs);
	return removed;
}
