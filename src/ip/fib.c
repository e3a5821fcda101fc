/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * FIB pairs. rte_fib (DIR-24-8) and rte_fib6 (trie) in DPDK 22.11 have no
 * RCU hook for the tbl8 groups they recycle, so a lookup racing a delete
 * could read a group already reused for another prefix. Each family keeps
 * two identical tables instead: updates go to the standby one, the pair
 * flips, and after a grace period (every worker finished the graph walk
 * that may have used the old table) the same update goes to the other.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>

#include "ip.h"
#include "fib.h"
#include "../daemon/worker.h"
#include "../daemon/log.h"

struct nfv_fib_pair nfv_fib4, nfv_fib6;

static struct nfv_fib_pair *
pair_of(uint8_t family)
{
	return family == AF_INET ? &nfv_fib4 : &nfv_fib6;
}

int
nfv_fib_init(const struct nfv_limits *l, int socket_id)
{
	for (unsigned int i = 0; i < 2; i++) {
		struct rte_fib_conf c4 = {
			.type = RTE_FIB_DIR24_8,
			.default_nh = 0,
			.max_routes = (int)l->max_routes4,
			.dir24_8 = { .nh_sz = RTE_FIB_DIR24_8_4B, .num_tbl8 = l->tbl8_4 },
		};
		struct rte_fib6_conf c6 = {
			.type = RTE_FIB6_TRIE,
			.default_nh = 0,
			.max_routes = (int)l->max_routes6,
			.trie = { .nh_sz = RTE_FIB6_TRIE_4B, .num_tbl8 = l->tbl8_6 },
		};
		char name[32];

		snprintf(name, sizeof(name), "nfv_fib4_%u", i);
		nfv_fib4.tbl[i] = rte_fib_create(name, socket_id, &c4);
		if (nfv_fib4.tbl[i] == NULL) {
			NFV_LOG(ERR, "cannot create the IPv4 FIB for %u routes: %s; reserve more "
				"hugepages (or -m with --no-huge) or lower --max-routes4",
				l->max_routes4, rte_strerror(rte_errno));
			return -ENOMEM;
		}
		/* The AVX-512 bulk lookup when the CPU and the DPDK build have it. */
		if (rte_fib_select_lookup(nfv_fib4.tbl[i], RTE_FIB_LOOKUP_DIR24_8_VECTOR_AVX512) != 0)
			rte_fib_select_lookup(nfv_fib4.tbl[i], RTE_FIB_LOOKUP_DEFAULT);
		snprintf(name, sizeof(name), "nfv_fib6_%u", i);
		nfv_fib6.tbl[i] = rte_fib6_create(name, socket_id, &c6);
		if (nfv_fib6.tbl[i] != NULL &&
		    rte_fib6_select_lookup(nfv_fib6.tbl[i], RTE_FIB6_LOOKUP_TRIE_VECTOR_AVX512) != 0)
			rte_fib6_select_lookup(nfv_fib6.tbl[i], RTE_FIB6_LOOKUP_DEFAULT);
		if (nfv_fib6.tbl[i] == NULL) {
			NFV_LOG(ERR, "cannot create the IPv6 FIB for %u routes: %s; reserve more "
				"hugepages (or -m with --no-huge) or lower --max-routes6",
				l->max_routes6, rte_strerror(rte_errno));
			return -ENOMEM;
		}
	}
	return 0;
}

void
nfv_fib_fini(void)
{
	for (unsigned int i = 0; i < 2; i++) {
		rte_fib_free(nfv_fib4.tbl[i]);
		rte_fib6_free(nfv_fib6.tbl[i]);
		nfv_fib4.tbl[i] = NULL;
		nfv_fib6.tbl[i] = NULL;
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
		return rte_fib_add(pair->tbl[which], ip, p->len, op->nh_id);
	}
	if (op->nh_id == 0)
		return rte_fib6_delete(pair->tbl[which], p->ip.v6, p->len);
	return rte_fib6_add(pair->tbl[which], p->ip.v6, p->len, op->nh_id);
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
	int rc = 0;

	if (n == 0)
		return 0;
	pair = pair_of(ops[0].prefix.ip.family);
	standby = 1 - pair->active;
	for (i = 0; i < n; i++) {
		rc = fib_apply(pair, standby, &ops[i]);
		if (rc < 0)
			break;
	}
	if (rc < 0) {
		/* Undo on the standby table, which no worker reads. */
		while (i-- > 0) {
			struct nfv_fib_op undo = ops[i];

			undo.nh_id = ops[i].old_nh_id;
			fib_apply(pair, standby, &undo);
		}
		return rc;
	}
	flip(pair);
	for (i = 0; i < n; i++) {
		int rc2 = fib_apply(pair, 1 - pair->active, &ops[i]);

		if (rc2 < 0)
			NFV_LOG(ERR, "FIB pair diverged on the second table: %s", rte_strerror(-rc2));
	}
	return 0;
}

int
nfv_fib_apply(const struct nfv_prefix *p, uint32_t nh_id, uint32_t old_nh_id)
{
	struct nfv_fib_op op = { .prefix = *p, .nh_id = nh_id, .old_nh_id = old_nh_id };

	return nfv_fib_apply_batch(&op, 1);
}
