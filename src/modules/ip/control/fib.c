/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * FIB pairs. rte_fib (DIR-24-8) and rte_fib6 (trie) in DPDK 22.11 have no
 * RCU hook for the tbl8 groups they recycle, so a lookup racing a delete
 * could read a group already reused for another prefix. Each family keeps
 * two identical tables instead: updates go to the standby one, the pair
 * flips, and after a grace period (every worker finished the graph walk
 * that may have used the old table) the same update goes to the other.
 *
 * The default VRF's pair is DIR-24-8 / trie, sized by --max-routes4/6. A
 * VRF made by "vrf add" gets a pair of RTE_FIB_DUMMY / RTE_FIB6_DUMMY
 * tables (the lookup walks the RIB): DIR-24-8 and the trie start with a
 * 64 MB tbl24 each, which a tenant table with a few routes cannot afford.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_ip.h>

#include "modules/ip/ip.h"
#include "modules/ip/fib6_trie.h"
#include "modules/ip/control/fib.h"
#include "core/worker.h"
#include "core/log.h"

struct nfv_fib_pair nfv_fib4, nfv_fib6;
struct nfv_fib_pair *nfv_fib_vrf[2][NFV_VRF_MAX] = { [0][0] = &nfv_fib4, [1][0] = &nfv_fib6 };

static unsigned int
fi(uint8_t family)
{
	return family == AF_INET ? 0 : 1;
}

static struct nfv_fib_pair *
pair_of(uint8_t family, uint16_t vrf)
{
	return nfv_fib_vrf[fi(family)][vrf];
}

static struct nfv_limits fib_limits;
static uint32_t tbl8_ceiling[2]; /* what the default VRF's tbl8 groups may grow to */
static void flip(struct nfv_fib_pair *pair);

void
nfv_fib_tbl8_max(uint32_t tbl8_4, uint32_t tbl8_6)
{
	tbl8_ceiling[0] = tbl8_4;
	tbl8_ceiling[1] = tbl8_6;
}
/* The standby table of a family holds a half-done rebuild. */
static bool standby_dirty[NFV_VRF_MAX][2];
static int fib_socket;
static unsigned int fib_generation;

/* Creates table `which` of a VRF's small pair, empty. */
static int
fib_create_vrf(uint8_t family, uint16_t vrf, unsigned int which)
{
	struct nfv_fib_pair *pair = pair_of(family, vrf);
	char name[32];

	snprintf(name, sizeof(name), "nfv_fib%c_%u", family == AF_INET ? '4' : '6',
		 fib_generation++);
	if (family == AF_INET) {
		struct rte_fib_conf c4 = {
			.type = RTE_FIB_DUMMY,
			.default_nh = 0,
			.max_routes = nfv_vrf_routes(),
		};

		pair->tbl[which] = rte_fib_create(name, fib_socket, &c4);
	} else {
		struct rte_fib6_conf c6 = {
			.type = RTE_FIB6_DUMMY,
			.default_nh = 0,
			.max_routes = nfv_vrf_routes(),
		};

		pair->tbl[which] = rte_fib6_create(name, fib_socket, &c6);
	}
	if (pair->tbl[which] == NULL) {
		NFV_LOG(ERR, "cannot create an IPv%c table of VRF %s: %s",
			family == AF_INET ? '4' : '6', nfv_vrf_name(vrf),
			rte_strerror(rte_errno));
		return -ENOMEM;
	}
	return 0;
}

/*
 * The DIR-24-8 arrays of a new, empty IPv4 table for ip4_fast's inline
 * read (struct nfv_dir24_8), or NULL when the table is not laid out as that
 * reader expects: its header must say 4-byte entries, the tbl8 groups asked
 * for, no default, none in use; then a few routes (one that needs a tbl8
 * group) are added, looked up both ways and removed, leaving it empty.
 */
static const struct nfv_dir24_8 *
fib4_dir_check(struct rte_fib *fib, uint32_t num_tbl8)
{
	static const struct {
		uint32_t ip;
		uint8_t len;
		uint32_t nh;
	} probe[] = {
		{ RTE_IPV4(10, 0, 0, 0), 16, 3 },
		{ RTE_IPV4(10, 0, 2, 128), 25, 5 },
		{ RTE_IPV4(10, 0, 2, 192), 26, 7 },
	};
	static const uint32_t addrs[] = {
		RTE_IPV4(10, 0, 0, 1),   RTE_IPV4(10, 0, 2, 1),	  RTE_IPV4(10, 0, 2, 129),
		RTE_IPV4(10, 0, 2, 200), RTE_IPV4(10, 0, 255, 255), RTE_IPV4(10, 1, 0, 1),
		RTE_IPV4(9, 255, 255, 255),
	};
	const struct nfv_dir24_8 *d = rte_fib_get_dp(fib);
	uint64_t want[RTE_DIM(addrs)];
	uint32_t ips[RTE_DIM(addrs)];
	bool ok = true;
	unsigned int i;

	if (d == NULL || d->nh_sz != RTE_FIB_DIR24_8_4B || d->number_tbl8s != num_tbl8 ||
	    d->def_nh != 0 || d->cur_tbl8s != 0 || d->tbl8 == NULL)
		return NULL;
	for (i = 0; i < RTE_DIM(probe); i++)
		if (rte_fib_add(fib, probe[i].ip, probe[i].len,
				nfv_fib_value(probe[i].nh, probe[i].len)) != 0)
			ok = false;
	memcpy(ips, addrs, sizeof(ips));
	if (ok && d->cur_tbl8s != 1)
		ok = false;
	if (ok && rte_fib_lookup_bulk(fib, ips, want, RTE_DIM(addrs)) != 0)
		ok = false;
	for (i = 0; ok && i < RTE_DIM(addrs); i++)
		ok = nfv_dir24_8_get(d, addrs[i]) == want[i] && (want[i] != 0) == (i < 5);
	for (i = RTE_DIM(probe); i-- > 0;)
		rte_fib_delete(fib, probe[i].ip, probe[i].len);
	if (d->cur_tbl8s != 0 || nfv_dir24_8_get(d, addrs[0]) != 0)
		ok = false;
	return ok ? d : NULL;
}

/*
 * The trie of a new, empty IPv6 table for the inline read (struct
 * nfv_trie6), or NULL when the table is not laid out as that reader
 * expects: its header must say 4-byte entries, the tbl8 groups asked for,
 * no default, nothing reserved, no group in use; then routes from /16 to
 * /128 (one chain of thirteen groups) are added, eight addresses looked up
 * both ways against the values they must give, and the routes removed,
 * leaving the table empty with every group back. rte_fib6 does not give
 * back the groups a deleted route reserved (DPDK 22.11): the count the
 * probe raised is put back to what it was. A table that fails keeps that
 * reservation: the caller makes a fresh one.
 */
const struct nfv_trie6 *
nfv_fib6_trie_check(struct rte_fib6 *fib, uint32_t num_tbl8)
{
	static const struct {
		uint8_t ip[16];
		uint8_t len;
		uint32_t nh;
	} probe[] = {
		{ { 0x24 }, 16, 11 },
		{ { 0x20, 0x01, 0x0d, 0xb8 }, 32, 3 },
		{ { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 1 }, 64, 5 },
		{ { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 1, 0x80 }, 66, 7 },
		{ { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 1, 0x80, [15] = 1 }, 128, 9 },
	};
	static const struct {
		uint8_t ip[16];
		int8_t route; /* the probe route that covers it, -1: none */
	} addrs[] = {
		{ { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 }, 1 },
		{ { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 1, [15] = 1 }, 2 },
		{ { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 1, 0x80, [15] = 1 }, 4 },
		{ { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 1, 0x80, [15] = 2 }, 3 },
		{ { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 1, 0xc0, [15] = 1 }, 2 },
		{ { 0x20, 0x01, 0x0d, 0xb9, [15] = 1 }, -1 },
		{ { 0x24, 0x00, 0xff, 0xff, [15] = 1 }, 0 },
		{ { [15] = 1 }, -1 },
	};
	struct nfv_trie6 *t = rte_fib6_get_dp(fib);
	uint8_t ips[RTE_DIM(addrs)][RTE_FIB6_IPV6_ADDR_SIZE];
	uint64_t want[RTE_DIM(addrs)], got[RTE_DIM(addrs)];
	bool ok = true;
	unsigned int i;

	if (t == NULL || t->nh_sz != RTE_FIB6_TRIE_4B || t->number_tbl8s != num_tbl8 ||
	    num_tbl8 < 16 || t->def_nh != 0 || t->rsvd_tbl8s != 0 || t->cur_tbl8s != 0 ||
	    t->tbl8 == NULL || t->tbl8_pool == NULL || t->tbl8_pool_pos != 0)
		return NULL;
	for (i = 0; i < RTE_DIM(probe); i++)
		if (rte_fib6_add(fib, probe[i].ip, probe[i].len,
				 nfv_fib_value(probe[i].nh, probe[i].len)) != 0)
			ok = false;
	if (ok && t->tbl8_pool_pos != 13)
		ok = false;
	for (i = 0; i < RTE_DIM(addrs); i++)
		memcpy(ips[i], addrs[i].ip, sizeof(ips[i]));
	if (ok && rte_fib6_lookup_bulk(fib, ips, want, RTE_DIM(addrs)) != 0)
		ok = false;
	if (ok)
		nfv_trie6_lookup_burst(t, ips, got, RTE_DIM(addrs));
	for (i = 0; ok && i < RTE_DIM(addrs); i++) {
		int r = addrs[i].route;
		uint64_t v = r < 0 ? 0 : nfv_fib_value(probe[r].nh, probe[r].len);

		ok = want[i] == v && nfv_trie6_get(t, ips[i]) == v && got[i] == v;
	}
	for (i = RTE_DIM(probe); i-- > 0;)
		rte_fib6_delete(fib, probe[i].ip, probe[i].len);
	for (i = 0; ok && i < RTE_DIM(addrs); i++)
		ok = nfv_trie6_get(t, ips[i]) == 0;
	if (!ok || t->tbl8_pool_pos != 0)
		return NULL;
	t->rsvd_tbl8s = 0;
	return t;
}

/* Creates table `which` of a family, empty. */
static int
fib_create(uint8_t family, uint16_t vrf, unsigned int which)
{
	char name[32];

	if (vrf != 0)
		return fib_create_vrf(family, vrf, which);
	snprintf(name, sizeof(name), "nfv_fib%c_%u", family == AF_INET ? '4' : '6',
		 fib_generation++);
	if (family == AF_INET) {
		struct rte_fib_conf c4 = {
			.type = RTE_FIB_DIR24_8,
			.default_nh = 0,
			.max_routes = (int)fib_limits.max_routes4,
			.dir24_8 = { .nh_sz = RTE_FIB_DIR24_8_4B, .num_tbl8 = fib_limits.tbl8_4 },
		};

		nfv_fib4.tbl[which] = rte_fib_create(name, fib_socket, &c4);
		if (nfv_fib4.tbl[which] == NULL) {
			NFV_LOG(ERR, "cannot create the IPv4 FIB for %u routes: %s; reserve more "
				"hugepages (or -m with --no-huge) or lower --max-routes4",
				fib_limits.max_routes4, rte_strerror(rte_errno));
			return -ENOMEM;
		}
		/* The AVX-512 bulk lookup when the CPU and the DPDK build have it. */
		if (rte_fib_select_lookup(nfv_fib4.tbl[which],
					  RTE_FIB_LOOKUP_DIR24_8_VECTOR_AVX512) != 0)
			rte_fib_select_lookup(nfv_fib4.tbl[which], RTE_FIB_LOOKUP_DEFAULT);
		nfv_fib4.dir[which] = fib4_dir_check(nfv_fib4.tbl[which], fib_limits.tbl8_4);
		if (nfv_fib4.dir[which] == NULL) {
			static bool said;

			if (!said)
				NFV_LOG(WARNING, "the IPv4 FIB's DIR-24-8 layout is not the one "
					"ip4_fast reads inline: it uses rte_fib's bulk lookup");
			said = true;
		}
		return 0;
	}
	{
		struct rte_fib6_conf c6 = {
			.type = RTE_FIB6_TRIE,
			.default_nh = 0,
			.max_routes = (int)fib_limits.max_routes6,
			.trie = { .nh_sz = RTE_FIB6_TRIE_4B, .num_tbl8 = fib_limits.tbl8_6 },
		};

		nfv_fib6.tbl[which] = rte_fib6_create(name, fib_socket, &c6);
		if (nfv_fib6.tbl[which] == NULL) {
			NFV_LOG(ERR, "cannot create the IPv6 FIB for %u routes: %s; reserve more "
				"hugepages (or -m with --no-huge) or lower --max-routes6",
				fib_limits.max_routes6, rte_strerror(rte_errno));
			return -ENOMEM;
		}
		if (rte_fib6_select_lookup(nfv_fib6.tbl[which],
					   RTE_FIB6_LOOKUP_TRIE_VECTOR_AVX512) != 0)
			rte_fib6_select_lookup(nfv_fib6.tbl[which], RTE_FIB6_LOOKUP_DEFAULT);
		nfv_fib6.trie[which] = nfv_fib6_trie_check(nfv_fib6.tbl[which],
							    fib_limits.tbl8_6);
		if (nfv_fib6.trie[which] == NULL) {
			static bool said;

			if (!said)
				NFV_LOG(WARNING, "the IPv6 FIB's trie layout is not the one "
					"ip6_fast reads inline: it uses rte_fib6's bulk lookup");
			said = true;
			/* A fresh table: the check may have left groups reserved. */
			rte_fib6_free(nfv_fib6.tbl[which]);
			snprintf(name, sizeof(name), "nfv_fib6_%u", fib_generation++);
			nfv_fib6.tbl[which] = rte_fib6_create(name, fib_socket, &c6);
			if (nfv_fib6.tbl[which] == NULL) {
				NFV_LOG(ERR, "cannot create the IPv6 FIB for %u routes: %s",
					fib_limits.max_routes6, rte_strerror(rte_errno));
				return -ENOMEM;
			}
			if (rte_fib6_select_lookup(nfv_fib6.tbl[which],
						   RTE_FIB6_LOOKUP_TRIE_VECTOR_AVX512) != 0)
				rte_fib6_select_lookup(nfv_fib6.tbl[which],
						       RTE_FIB6_LOOKUP_DEFAULT);
		}
		return 0;
	}
}

static void
fib_free(uint8_t family, uint16_t vrf, unsigned int which)
{
	struct nfv_fib_pair *pair = pair_of(family, vrf);

	if (family == AF_INET) {
		pair->dir[which] = NULL;
		rte_fib_free(pair->tbl[which]);
	} else {
		pair->trie[which] = NULL;
		rte_fib6_free(pair->tbl[which]);
	}
	pair->tbl[which] = NULL;
}

int
nfv_fib_init(const struct nfv_limits *l, int socket_id)
{
	size_t before;

	fib_limits = *l;
	fib_socket = socket_id;
	before = nfv_heap_used(socket_id);
	if (fib_create(AF_INET, 0, 0) < 0 || fib_create(AF_INET, 0, 1) < 0)
		return -ENOMEM;
	nfv_ip_memory.fib4 = nfv_heap_used(socket_id) - before;
	before = nfv_heap_used(socket_id);
	if (fib_create(AF_INET6, 0, 0) < 0 || fib_create(AF_INET6, 0, 1) < 0)
		return -ENOMEM;
	nfv_ip_memory.fib6 = nfv_heap_used(socket_id) - before;
	return 0;
}

void
nfv_fib_fini(void)
{
	for (uint16_t vrf = 1; vrf < NFV_VRF_MAX; vrf++)
		if (nfv_fib_vrf[0][vrf] != NULL)
			nfv_fib_vrf_destroy(vrf);
	for (unsigned int i = 0; i < 2; i++) {
		fib_free(AF_INET, 0, i);
		fib_free(AF_INET6, 0, i);
	}
}

int
nfv_fib_vrf_create(uint16_t vrf)
{
	for (unsigned int f = 0; f < 2; f++) {
		uint8_t family = f == 0 ? AF_INET : AF_INET6;
		struct nfv_fib_pair *pair = calloc(1, sizeof(*pair));

		if (pair == NULL)
			goto fail;
		nfv_fib_vrf[f][vrf] = pair;
		if (fib_create(family, vrf, 0) < 0 || fib_create(family, vrf, 1) < 0)
			goto fail;
		standby_dirty[vrf][f] = false;
	}
	return 0;
fail:
	nfv_fib_vrf_destroy(vrf);
	return -ENOMEM;
}

void
nfv_fib_vrf_destroy(uint16_t vrf)
{
	struct nfv_fib_pair *pairs[2] = { nfv_fib_vrf[0][vrf], nfv_fib_vrf[1][vrf] };

	__atomic_store_n(&nfv_fib_vrf[0][vrf], NULL, __ATOMIC_RELEASE);
	__atomic_store_n(&nfv_fib_vrf[1][vrf], NULL, __ATOMIC_RELEASE);
	nfv_rcu_sync();
	for (unsigned int f = 0; f < 2; f++) {
		if (pairs[f] == NULL)
			continue;
		for (unsigned int i = 0; i < 2; i++) {
			if (f == 0)
				rte_fib_free(pairs[f]->tbl[i]);
			else
				rte_fib6_free(pairs[f]->tbl[i]);
		}
		free(pairs[f]);
	}
}

static int
fib_apply(struct nfv_fib_pair *pair, unsigned int which, const struct nfv_fib_op *op)
{
	const struct nfv_prefix *p = &op->prefix;

	if (p->ip.family == AF_INET) {
		uint32_t ip = rte_be_to_cpu_32(p->ip.v4);

		if (op->nh_id == 0)
			return rte_fib_delete(pair->tbl[which], ip, p->len);
		return rte_fib_add(pair->tbl[which], ip, p->len, nfv_fib_value(op->nh_id, p->len));
	}
	if (op->nh_id == 0)
		return rte_fib6_delete(pair->tbl[which], p->ip.v6, p->len);
	return rte_fib6_add(pair->tbl[which], p->ip.v6, p->len, nfv_fib_value(op->nh_id, p->len));
}

struct rebuild_ctx {
	struct nfv_fib_pair *pair;
	unsigned int which;
	uint8_t family;
	uint16_t vrf;
	int rc;
};

static void
rebuild_one(const struct nfv_route_info *ri, void *arg)
{
	struct rebuild_ctx *c = arg;
	struct nfv_fib_op op = { .prefix = ri->prefix, .nh_id = ri->nh_id };

	if (c->rc == 0 && ri->prefix.ip.family == c->family && ri->prefix.vrf == c->vrf)
		c->rc = fib_apply(c->pair, c->which, &op);
}

/*
 * Replaces table `which` (never the active one) by a fresh table filled from
 * the route database. A fresh table has every tbl8 group free: this is how
 * space lost by rte_fib6's delete path in DPDK 22.11 is won back, and how a
 * table that failed an update is brought back in step.
 */
static int
fib_rebuild(uint8_t family, uint16_t vrf, unsigned int which)
{
	struct rebuild_ctx c = { .pair = pair_of(family, vrf), .which = which, .family = family,
				 .vrf = vrf };
	int rc;

	fib_free(family, vrf, which);
	rc = fib_create(family, vrf, which);
	if (rc < 0)
		return rc;
	nfv_route_walk(rebuild_one, &c);
	if (c.rc < 0)
		NFV_LOG(ERR, "IPv%c FIB rebuild from %u routes failed: %s",
			family == AF_INET ? '4' : '6', nfv_route_count_vrf(family, vrf),
			rte_strerror(-c.rc));
	return c.rc;
}

/*
 * The default VRF's pair of a family at a new size: the standby table is
 * rebuilt at that size from the route database, the pair flips, then the
 * other one is. On failure (memory) the standby is rebuilt at the old size
 * and nothing changed; if only the second rebuild fails, the active table
 * has the new size and the standby is rebuilt before its next use.
 */
int
nfv_fib_grow(uint8_t family, uint32_t routes, uint32_t tbl8)
{
	struct nfv_fib_pair *pair = pair_of(family, 0);
	struct nfv_limits old = fib_limits;
	size_t before = nfv_heap_used(fib_socket);
	int rc;

	if (family == AF_INET) {
		fib_limits.max_routes4 = routes;
		fib_limits.tbl8_4 = tbl8;
	} else {
		fib_limits.max_routes6 = routes;
		fib_limits.tbl8_6 = tbl8;
	}
	rc = fib_rebuild(family, 0, 1 - pair->active);
	if (rc < 0) {
		fib_limits = old;
		if (fib_rebuild(family, 0, 1 - pair->active) < 0)
			standby_dirty[0][fi(family)] = true;
		return rc;
	}
	/* One table's growth, twice: the pair's. */
	if (family == AF_INET)
		nfv_ip_memory.fib4 += 2 * (nfv_heap_used(fib_socket) - before);
	else
		nfv_ip_memory.fib6 += 2 * (nfv_heap_used(fib_socket) - before);
	flip(pair);
	if (fib_rebuild(family, 0, 1 - pair->active) < 0)
		standby_dirty[0][fi(family)] = true;
	return 0;
}

int
nfv_fib_resync_standby(uint8_t family, uint16_t vrf)
{
	struct nfv_fib_pair *pair = pair_of(family, vrf);
	int rc;

	if (!standby_dirty[vrf][fi(family)])
		return 0;
	rc = fib_rebuild(family, vrf, 1 - pair->active);
	if (rc == 0)
		standby_dirty[vrf][fi(family)] = false;
	return rc;
}

static void
flip(struct nfv_fib_pair *pair)
{
	__atomic_store_n(&pair->active, 1 - pair->active, __ATOMIC_RELEASE);
	nfv_rcu_sync();
}

int
nfv_fib_apply_batch(const struct nfv_fib_op *ops, unsigned int n)
{
	struct nfv_fib_pair *pair;
	unsigned int standby, i;
	uint8_t family;
	uint16_t vrf;
	int rc = 0;

	if (n == 0)
		return 0;
	family = ops[0].prefix.ip.family;
	vrf = ops[0].prefix.vrf;
	pair = pair_of(family, vrf);
	standby = 1 - pair->active;
	for (i = 0; i < n; i++) {
		rc = fib_apply(pair, standby, &ops[i]);
		if (rc < 0)
			break;
	}
	if (rc < 0) {
		/*
		 * No room: rebuild the standby table from the route database, which
		 * already holds the new state, to win back leaked tbl8 groups. If
		 * even that fails the caller restores the database and calls
		 * nfv_fib_resync_standby().
		 */
		uint32_t *tbl8 = family == AF_INET ? &fib_limits.tbl8_4 : &fib_limits.tbl8_6;
		uint32_t tbl8_was = *tbl8;

		if (rc != -ENOSPC) {
			/* ops[0..i) are in the standby table: it no longer
			 * matches the database the caller restores, so the
			 * caller's resync rebuilds it. */
			standby_dirty[vrf][fi(family)] = true;
			return rc;
		}
		/* Tables that started small: more tbl8 groups, up to the max. */
		if (vrf == 0 && *tbl8 < tbl8_ceiling[fi(family)])
			*tbl8 = RTE_MIN(*tbl8 * 4, tbl8_ceiling[fi(family)]);
		if (fib_rebuild(family, vrf, standby) < 0) {
			*tbl8 = tbl8_was;
			standby_dirty[vrf][fi(family)] = true;
			return rc;
		}
		if (*tbl8 != tbl8_was)
			NFV_LOG(INFO, "IPv%c FIB: tbl8 groups grown from %u to %u",
				family == AF_INET ? '4' : '6', tbl8_was, *tbl8);
		NFV_LOG(INFO, "IPv%c FIB: standby table rebuilt to win back space",
			family == AF_INET ? '4' : '6');
		flip(pair);
		if (fib_rebuild(family, vrf, 1 - pair->active) < 0)
			NFV_LOG(ERR, "IPv%c FIB: the second table could not be rebuilt",
				family == AF_INET ? '4' : '6');
		return 0;
	}
	flip(pair);
	for (i = 0; i < n; i++) {
		int rc2 = fib_apply(pair, 1 - pair->active, &ops[i]);

		if (rc2 < 0 && !(rc2 == -ENOENT && ops[i].nh_id == 0)) {
			/* The tables must agree: rebuild this one from the database. */
			NFV_LOG(WARNING, "FIB pair: second table refused an update (%s); "
				"rebuilding it",
				rte_strerror(-rc2));
			fib_rebuild(family, vrf, 1 - pair->active);
			break;
		}
	}
	return 0;
}

int
nfv_fib_apply(const struct nfv_prefix *p, uint32_t nh_id, uint32_t old_nh_id)
{
	struct nfv_fib_op op = { .prefix = *p, .nh_id = nh_id, .old_nh_id = old_nh_id };

	return nfv_fib_apply_batch(&op, 1);
}
