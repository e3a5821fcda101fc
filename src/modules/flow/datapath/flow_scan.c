/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * flow_scan: a source node (it receives nothing, it runs every walk) that
 * ends and reports this worker's flows. Every scan period (1 ms) it looks
 * at the next NFV_FLOW_SCAN_SLICE entries of each of its tables: a flow
 * idle for longer than the idle timeout (or every flow, once flow
 * statistics are off) is ended: its last record goes on the worker's ring
 * and its entry is deleted; a flow whose current record has run for longer
 * than the active timeout is reported so far (a record with the counts
 * since the last one). When the ring is full the entry stays as it is and
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
	    struct nfv_flow_counters *c)
{
	struct nfv_flow_record r;

	if (e->packets == e->exp_packets)
		return true; /* nothing new */
	memset(&r, 0, sizeof(r));
	r.family = (uint8_t)fam;
	r.proto = e->proto;
	r.tcp_flags = e->exp_flags;
	r.end = end;
	r.iface = e->iface;
	r.sport = e->sport;
	r.dport = e->dport;
	memcpy(r.src, e->src, sizeof(r.src));
	memcpy(r.dst, e->dst, sizeof(r.dst));
	r.packets = e->packets - e->exp_packets;
	r.bytes = e->bytes - e->exp_bytes;
	r.start_tsc = e->exp_tsc;
	r.end_tsc = e->last_tsc;
	if (rte_ring_sp_enqueue_elem(fw->ring, &r, sizeof(r)) != 0) {
		c->ring_full++;
		return false;
	}
	c->records++;
	e->exp_packets = e->packets;
	e->exp_bytes = e->bytes;
	e->exp_flags = 0;
	return true;
}

static void
flow_delete(struct nfv_flow_worker *fw, int fam, struct nfv_flow_entry *e)
{
	__atomic_store_n(&e->gen, e->gen + 1, __ATOMIC_RELEASE); /* odd: going */
	if (fam == NFV_FLOW_V4) {
		struct nfv_flow_key4 k = { .sport = e->sport, .dport = e->dport,
					   .proto = e->proto, .iface = e->iface };

		struct nfv_flow_cache_slot *s;

		memcpy(&k.src, e->src, 4);
		memcpy(&k.dst, e->dst, 4);
		s = nfv_flow_cache_set(fw->cache, nfv_flow_key4_sig(&k));
		for (unsigned int way = 0; way < 2; way++)
			if (s[way].pos == (int32_t)(e - fw->entries[fam]))
				s[way].pos = -1;
		rte_hash_del_key(fw->hash[fam], &k);
	} else {
		struct nfv_flow_key6 k = { .sport = e->sport, .dport = e->dport,
					   .proto = e->proto, .iface = e->iface };

		memcpy(k.src, e->src, 16);
		memcpy(k.dst, e->dst, 16);
		rte_hash_del_key(fw->hash[fam], &k);
	}
	e->used = 0;
	__atomic_store_n(&e->gen, e->gen + 1, __ATOMIC_RELEASE);
}

static uint16_t
flow_scan_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	struct nfv_worker *w = nfv_node_worker(node);
	struct nfv_flow_worker *fw = __atomic_load_n(&nfv_flow_workers[w->index],
						     __ATOMIC_ACQUIRE);
	const struct nfv_flow_conf *conf = &nfv_flow_conf;
	struct nfv_flow_counters *c;
	uint64_t now;
	bool all;

	RTE_SET_USED(graph);
	RTE_SET_USED(objs);
	RTE_SET_USED(n);
	if (fw == NULL)
		return 0;
	now = rte_rdtsc();
	if (now < fw->next_scan_tsc)
		return 0;
	fw->next_scan_tsc = now + conf->scan_tsc;
	all = !__atomic_load_n(&conf->on, __ATOMIC_ACQUIRE);
	c = nfv_worker_counters(w, &nfv_flow_counters_block);
	for (int fam = 0; fam < NFV_FLOW_FAMILIES; fam++) {
		uint32_t pos = fw->scan_pos[fam];

		for (unsigned int k = 0; k < NFV_FLOW_SCAN_SLICE; k++) {
			struct nfv_flow_entry *e = &fw->entries[fam][pos];

			if (++pos == conf->capacity)
				pos = 0;
			if (!e->used)
				continue;
			if (all || (int64_t)(now - e->last_tsc) > (int64_t)conf->idle_tsc) {
				if (flow_report(fw, fam, e, true, c)) {
					flow_delete(fw, fam, e);
					c->expired++;
				}
			} else if ((int64_t)(now - e->exp_tsc) > (int64_t)conf->active_tsc) {
				if (flow_report(fw, fam, e, false, c))
					e->exp_tsc = e->last_tsc;
			}
		}
		fw->scan_pos[fam] = pos;
	}
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
