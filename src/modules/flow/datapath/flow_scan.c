/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * flow_scan: a source node (it receives nothing, it runs every walk) that
 * ends and reports this worker's flows. Every scan period (1 ms) it looks
 * at the next NFV_FLOW_SCAN_SLICE entries of each table that has flows,
 * through the table's bitmap of live entries (an empty stretch costs one
 * load per 64 entries): a flow idle for longer than the idle timeout (or
 * every flow, once flow statistics are off) is ended: its last record goes
 * on the worker's ring and its entry is deleted; a flow whose current
 * record has run for longer than the active timeout is reported so far (a
 * record with the counts since the last one). When the ring is full the entry stays as it is and
 * is tried again at the next pass (counted).
 *
 * Edges: drop (never taken: a source node needs one).
 * Counters: flows ended, records, ring full.
 */
#include <rte_cycles.h>
#include <rte_graph.h>
#include <rte_graph_worker.h>
#include <rte_hash.h>
#include <rte_hash_crc.h>

#include "core/node.h"
#include "modules/flow/flow.h"

/* Puts the counts since the last record on the ring; false when it is full. */
static bool
flow_report(struct nfv_flow_worker *fw, int fam, struct nfv_flow_entry *e, bool end,
	    uint64_t now, struct nfv_flow_counters *c)
{
	struct nfv_flow_record r;

	if (!nfv_flow_record_make(fam, e, end, &r))
		return true; /* nothing new */
	if (rte_ring_sp_enqueue_elem(fw->ring, &r, sizeof(r)) != 0) {
		c->ring_full++;
		return false;
	}
	c->records++;
	e->exp_packets = e->packets;
	e->exp_bytes = e->bytes;
	e->exp_flags = 0;
	e->exp_tsc = now; /* the next record starts here */
	return true;
}

/* Ends the flow at position pos: its key leaves the table, its entry is
 * free (an IPv4 key no frame has: the cache's ways that point here miss). */
static void
flow_delete(struct nfv_flow_worker *fw, int fam, uint32_t pos)
{
	struct nfv_flow_entry *e = &fw->entries[fam][pos];

	__atomic_store_n(&e->gen, e->gen + 1, __ATOMIC_RELEASE); /* odd: going */
	if (fam == NFV_FLOW_V4) {
		rte_hash_del_key(fw->hash[fam], &e->key4);
		e->key4.pad = NFV_FLOW_KEY4_NONE;
	} else {
		rte_hash_del_key(fw->hash[fam], &e->key6);
	}
	e->used = 0;
	fw->live[fam][pos / 64] &= ~(UINT64_C(1) << (pos % 64));
	fw->n_live[fam]--;
	__atomic_store_n(&e->gen, e->gen + 1, __ATOMIC_RELEASE);
}

/* The next slice of a table: the flows there that are idle (or all of them,
 * all) end; the active ones whose record has run for too long report. */
static void
flow_scan_slice(struct nfv_flow_worker *fw, int fam, uint64_t now, bool all,
		const struct nfv_flow_conf *conf, struct nfv_flow_counters *c)
{
	uint32_t words = conf->capacity / 64, wpos = fw->scan_pos[fam];

	for (unsigned int k = 0; k < NFV_FLOW_SCAN_SLICE / 64; k++) {
		uint64_t bits = fw->live[fam][wpos];

		while (bits != 0) {
			uint32_t pos = wpos * 64 + (uint32_t)__builtin_ctzll(bits);
			struct nfv_flow_entry *e = &fw->entries[fam][pos];

			bits &= bits - 1;
			if (all || (int64_t)(now - e->last_tsc) > (int64_t)conf->idle_tsc) {
				if (flow_report(fw, fam, e, true, now, c)) {
					flow_delete(fw, fam, pos);
					c->expired++;
				}
			} else if (e->packets == e->exp_packets) {
				/* Nothing since the last record: the next one
				 * starts no earlier than this visit. */
				e->exp_tsc = now;
			} else if ((int64_t)(now - e->exp_tsc) > (int64_t)conf->active_tsc) {
				(void)flow_report(fw, fam, e, false, now, c);
			}
		}
		if (++wpos == words)
			wpos = 0;
	}
	fw->scan_pos[fam] = wpos;
}

/* The flows of the interfaces removed after epoch seen ended (a final
 * record that finds the ring full is lost, counted as ring_full). */
static __rte_noinline void
flow_end_removed(struct nfv_flow_worker *fw, uint32_t seen, uint64_t now,
		 const struct nfv_flow_conf *conf, struct nfv_flow_counters *c)
{
	for (int fam = 0; fam < NFV_FLOW_FAMILIES; fam++) {
		uint32_t words = conf->capacity / 64;

		for (uint32_t wpos = 0; wpos < words && fw->n_live[fam] != 0; wpos++) {
			uint64_t bits = fw->live[fam][wpos];

			while (bits != 0) {
				uint32_t pos = wpos * 64 + (uint32_t)__builtin_ctzll(bits);
				struct nfv_flow_entry *e = &fw->entries[fam][pos];
				uint16_t iface = fam == NFV_FLOW_V4 ? e->key4.iface : e->key6.iface;

				bits &= bits - 1;
				if (iface >= NFV_IFACE_MAX ||
				    (int32_t)(__atomic_load_n(&nfv_flow_iface_removed_at[iface],
							      __ATOMIC_ACQUIRE) - seen) <= 0)
					continue;
				(void)flow_report(fw, fam, e, true, now, c);
				flow_delete(fw, fam, pos);
				c->expired++;
			}
		}
	}
}

/* A scan slice of worker w's tables, due at now. */
static __rte_noinline void
flow_scan_due(struct nfv_worker *w, struct nfv_flow_worker *fw, uint64_t now)
{
	const struct nfv_flow_conf *conf = &nfv_flow_conf;
	struct nfv_flow_counters *c;
	uint32_t epoch;
	bool all;

	fw->next_scan_tsc = now + conf->scan_tsc;
	all = !__atomic_load_n(&conf->on, __ATOMIC_ACQUIRE);
	c = nfv_worker_counters(w, &nfv_flow_counters_block);
	epoch = __atomic_load_n(&nfv_flow_iface_epoch, __ATOMIC_ACQUIRE);
	if (unlikely(epoch != fw->iface_epoch)) {
		flow_end_removed(fw, fw->iface_epoch, now, conf, c);
		fw->iface_epoch = epoch;
	}
	for (int fam = 0; fam < NFV_FLOW_FAMILIES; fam++)
		if (fw->n_live[fam] != 0)
			flow_scan_slice(fw, fam, now, all, conf, c);
}

/* Flow statistics never turned on, or no slice due (the usual walk): a few
 * loads and a branch, no frame set up for the scan. */
static uint16_t
flow_scan_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	struct nfv_worker *w = nfv_node_worker(node);
	struct nfv_flow_worker *fw = __atomic_load_n(&nfv_flow_workers[w->index],
						     __ATOMIC_ACQUIRE);
	uint64_t now;

	RTE_SET_USED(graph);
	RTE_SET_USED(objs);
	RTE_SET_USED(n);
	if (fw == NULL)
		return 0;
	now = nfv_walk_tsc(w); /* a busy walk's RX time: no TSC read a walk */
	if (now < fw->next_scan_tsc)
		return 0;
	flow_scan_due(w, fw, now);
	return 0;
}

static struct rte_node_register flow_scan_node = {
	.name = "nfv_flow_scan",
	.flags = RTE_NODE_SOURCE_F,
	.process = flow_scan_process,
	.init = nfv_node_ctx_init,
	.nb_edges = 1,
	.next_nodes = { "nfv_drop" },
};

RTE_NODE_REGISTER(flow_scan_node);
