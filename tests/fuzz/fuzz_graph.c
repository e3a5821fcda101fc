/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: every input is a frame received on port "in" of a test
 * instance (net_null ports, addresses, neighbors, IPv4/IPv6 routes,
 * ECMP, a blackhole, a small MTU, NAT44, a bridge with a VLAN and a VXLAN
 * port and mirrors of both, a UPF with three sessions) and walks the whole
 * graph in this thread.
 * Inputs longer than 600 bytes arrive as two chained segments. After each
 * input every mbuf must be back in its pool but the fragments the
 * reassembly table holds (one mbuf each; then released, so that each
 * input starts from an empty table), and the UPF must still hold its
 * sessions' keys.
 *
 *   build-fuzz/tests/fuzz/fuzz_graph -max_total_time=600 tests/fuzz/corpus
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_graph.h>
#include <rte_malloc.h>
#include <rte_graph_worker.h>
#include <rte_mbuf.h>

#include "api/cmd.h"
#include "core/arc.h"
#include "core/counters.h"
#include "core/worker.h"
#include "modules/ip/ip.h"
#include "modules/ip/reasm.h"
#include "core/meta.h"
#include "modules/infra/port.h"
#include "modules/mirror/mirror.h"
#include "modules/upf/control/upf_ctl.h"
#include "modules/upf/upf.h"

#define FUZZ_SEG_SPLIT 600

static struct rte_graph *graph;
static struct rte_mempool *pool;
static uint16_t in_port;
static struct rte_mbuf *pending;

static uint16_t
fuzz_rx_process(struct rte_graph *g, struct rte_node *node, void **objs, uint16_t count)
{
	void **to;

	(void)objs;
	(void)count;
	if (pending == NULL)
		return 0;
	to = rte_node_next_stream_get(g, node, 0, 1);
	to[0] = pending;
	pending = NULL;
	rte_node_next_stream_put(g, node, 0, 1);
	return 1;
}

static struct rte_node_register fuzz_rx_node = {
	.name = "fuzz_rx",
	.flags = RTE_NODE_SOURCE_F,
	.process = fuzz_rx_process,
	.nb_edges = 1,
	.next_nodes = { "nfv_eth_input" },
};
RTE_NODE_REGISTER(fuzz_rx_node);

static const char *setup_cmds[] = {
	"port add in dev net_null0,no-rx=1",
	"port add out dev net_null1,no-rx=1 mtu 600",
	"port add brp dev net_null2,no-rx=1",
	"addr add 10.0.0.1/24 dev in",
	"addr add 10.1.0.1/24 dev out",
	"addr add 2001:db8:a::1/64 dev in",
	"addr add 2001:db8:b::1/64 dev out",
	"neigh add 10.0.0.2 lladdr 02:00:00:00:00:02 dev in",
	"neigh add 10.1.0.2 lladdr 02:00:00:00:01:02 dev out",
	"neigh add 10.1.0.3 lladdr 02:00:00:00:01:03 dev out",
	"neigh add 2001:db8:a::2 lladdr 02:00:00:00:00:02 dev in",
	"neigh add 2001:db8:b::2 lladdr 02:00:00:00:01:02 dev out",
	"route add 198.18.0.0/15 via 10.1.0.2",
	"route add 198.51.100.0/24 via 10.1.0.2 via 10.1.0.3",
	"route add 203.0.113.0/24 blackhole",
	"route add 192.0.2.0/24 dev out",
	"route add 2001:db8:100::/48 via 2001:db8:b::2",
	"route add ::/0 via 2001:db8:b::2",
};

/* NAT44: what "in" routes out of "out" from 10.0.0.0/24 is translated,
 * and TCP to in's address, port 8080, goes to 10.0.0.2:80. The load
 * balancer: TCP and UDP to 198.18.0.100 port 80 go to two backends, TCP
 * port 443 to two direct-return backends (one never resolved). A bridge
 * of VLAN 5 on "in", port "brp" and a VXLAN tunnel (VNI 42 to in's
 * address, two remotes behind "out"), with an address (the gateway);
 * mirrors of the tunnel and of the bridge's interface (bridge_input's
 * taps) to "out". */
static const char *feature_cmds[] = {
	"nat44 snat add src 10.0.0.0/24 dev out",
	"nat44 dnat add dev in proto tcp dport 8080 to 10.0.0.2:80",
	"lb service add 198.18.0.100:80 proto tcp",
	"lb backend add 198.18.0.100:80 proto tcp 10.1.0.2:8080",
	"lb backend add 198.18.0.100:80 proto tcp 10.0.0.2 weight 3",
	"lb service add 198.18.0.100:80 proto udp",
	"lb backend add 198.18.0.100:80 proto udp 10.1.0.3",
	"lb service add 198.18.0.100:443 proto tcp mode dsr",
	"lb backend add 198.18.0.100:443 proto tcp 10.1.0.2",
	"lb backend add 198.18.0.100:443 proto tcp 10.1.0.99",
	"vlan add v5 dev in id 5",
	"vxlan add vx0 vni 42 local 10.0.0.1 remote 10.1.0.2 remote 10.1.0.3",
	"bridge add b0",
	"bridge port add b0 dev v5",
	"bridge port add b0 dev brp",
	"bridge port add b0 dev vx0",
	"addr add 10.9.0.1/24 dev b0",
	"mirror add fvx dev vx0 both to out",
	"mirror add fb0 dev b0 both to out",
	"upf set n3 10.1.0.1 dev out",
};

/*
 * UPF sessions, as the PFCP server would install them: N3 is out's
 * address, but GTP-U to it is taken whatever port it comes in on, and the
 * downlink node is on every other interface ("in" included). Session i
 * (0-2): uplink TEID 0x100 + i, UE 10.45.0.2 + i. Session 0 forwards both
 * ways (downlink TEID 0x200 to 10.1.0.2), session 1 drops its uplink and
 * buffers its downlink, session 2 has an uplink FAR with outer header
 * creation (N9, not built) and a downlink FAR without one.
 */
static void
fuzz_upf_sessions(void)
{
	static struct pfcp_msg m;
	static const uint8_t ul_action[] = { PFCP_ACTION_FORW, PFCP_ACTION_DROP, PFCP_ACTION_FORW };
	static const uint8_t dl_action[] = { PFCP_ACTION_FORW, PFCP_ACTION_BUFF, PFCP_ACTION_FORW };

	for (unsigned int i = 0; i < 3; i++) {
		struct upf_created created;
		uint64_t seid;
		uint16_t off;

		memset(&m, 0, sizeof(m));
		m.has_node_id = true;
		m.node_id.type = 2;
		m.node_id.len = 4;
		memcpy(m.node_id.v, "\x03smf", 4);
		m.has_fseid = true;
		m.cp_seid = 100 + i;
		m.n_create_pdr = 2;
		m.n_create_far = 2;
		m.create_pdr[0] = (struct pfcp_pdr){
			.id = 1, .has_precedence = true, .precedence = 10, .has_pdi = true,
			.has_src_iface = true, .src_iface = PFCP_IF_ACCESS, .has_fteid = true,
			.fteid = { .v4 = true, .teid = 0x100 + i, .ipv4 = RTE_BE32(0x0a010001) },
			.has_ohr = true, .has_far_id = true, .far_id = 1,
		};
		m.create_pdr[1] = (struct pfcp_pdr){
			.id = 2, .has_precedence = true, .precedence = 10, .has_pdi = true,
			.has_src_iface = true, .src_iface = PFCP_IF_CORE, .has_ue_ip = true,
			.ue_ip_dst = true, .ue_ip = rte_cpu_to_be_32(0x0a2d0002 + i),
			.has_far_id = true, .far_id = 2,
		};
		m.create_far[0] = (struct pfcp_far){
			.id = 1, .has_action = true, .action = ul_action[i], .has_fwd = true,
			.has_dst_iface = true, .dst_iface = PFCP_IF_CORE, .has_ohc = i == 2,
			.ohc_desc = PFCP_OHC_GTPU_UDP_IPV4, .ohc_teid = 0x300,
			.ohc_ipv4 = RTE_BE32(0x0a010002),
		};
		m.create_far[1] = (struct pfcp_far){
			.id = 2, .has_action = true, .action = dl_action[i], .has_fwd = true,
			.has_dst_iface = true, .dst_iface = PFCP_IF_ACCESS, .has_ohc = i == 0,
			.ohc_desc = PFCP_OHC_GTPU_UDP_IPV4, .ohc_teid = 0x200,
			.ohc_ipv4 = RTE_BE32(0x0a010002),
		};
		if (upf_session_establish(&m, &seid, &created, &off) != PFCP_CAUSE_ACCEPTED) {
			fprintf(stderr, "fuzz setup: UPF session %u refused (IE %u)\n", i, off);
			abort();
		}
	}
}

static void
fuzz_init(void)
{
	static char *eal[] = { "fuzz", "-l", "0", "--no-huge", "-m", "1024", "--no-pci",
			       "--no-telemetry", "--log-level", "error", "--file-prefix", "nfvfuzz",
			       NULL };
	struct nfv_limits limits = { .max_routes4 = 1024, .max_routes6 = 1024, .tbl8_4 = 256,
				     .tbl8_6 = 256 };
	static const char *nodes[] = {
		"fuzz_rx", "nfv_eth_input", "nfv_ip4_input", "nfv_ip4_lookup",
		"nfv_ip4_rewrite", "nfv_ip4_local", "nfv_ip4_icmp_error", "nfv_ip6_input",
		"nfv_ip6_lookup", "nfv_ip6_rewrite", "nfv_ip6_local", "nfv_ip6_icmp_error",
		"nfv_port_tx", "nfv_drop",
	};
	struct rte_graph_param prm = {
		.socket_id = 0,
		.nb_node_patterns = RTE_DIM(nodes),
		.node_patterns = nodes,
	};
	struct rte_meter_srtcm_params icmp = { .cir = 1000000, .cbs = 1000000, .ebs = 0 };
	rte_graph_t id;

	if (rte_eal_init(RTE_DIM(eal) - 1, eal) < 0 || nfv_meta_register() < 0 ||
	    nfv_ip_init(&limits, 0) < 0)
		abort();
	nfv_n_workers = 1;
	nfv_workers[0].index = 0;
	/* The modules' counter blocks, as nfv_workers_init() gives every worker. */
	nfv_workers[0].counters = rte_zmalloc("fuzz_counters", nfv_counters_area_size() + 8,
					      RTE_CACHE_LINE_SIZE);
	nfv_workers[0].counters_base = rte_zmalloc("fuzz_counters",
						   nfv_counters_area_size() + 8, 0);
	if (nfv_workers[0].counters == NULL || nfv_workers[0].counters_base == NULL)
		abort();
	rte_meter_srtcm_profile_config(&nfv_icmp_meter_profile, &icmp);
	rte_meter_srtcm_config(&nfv_workers[0].icmp_meter[0], &nfv_icmp_meter_profile);
	rte_meter_srtcm_config(&nfv_workers[0].icmp_meter[1], &nfv_icmp_meter_profile);
	for (size_t i = 0; i < RTE_DIM(setup_cmds); i++) {
		struct nfv_reply r;

		if (nfv_cmd_exec(setup_cmds[i], &r) < 0) {
			fprintf(stderr, "fuzz setup: %s: %s\n", setup_cmds[i], r.err);
			abort();
		}
		nfv_reply_clear(&r);
	}
	in_port = nfv_port_by_name("in")->port_id;
	pool = nfv_port_by_name("in")->pool;
	if (nfv_graph_setup() < 0)
		abort();
	/* Features on the arcs, enabled once the arcs exist. */
	for (size_t i = 0; i < RTE_DIM(feature_cmds); i++) {
		struct nfv_reply r;

		if (nfv_cmd_exec(feature_cmds[i], &r) < 0) {
			fprintf(stderr, "fuzz setup: %s: %s\n", feature_cmds[i], r.err);
			abort();
		}
		nfv_reply_clear(&r);
	}
	fuzz_upf_sessions();
	nfv_worker_being_built = &nfv_workers[0];
	id = rte_graph_create("fuzz", &prm);
	nfv_worker_being_built = NULL;
	if (id == RTE_GRAPH_ID_INVALID)
		abort();
	graph = rte_graph_lookup("fuzz");
}

static struct rte_mbuf *
frame_from(const uint8_t *data, size_t size)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool), *tail;
	size_t first = size > FUZZ_SEG_SPLIT ? FUZZ_SEG_SPLIT : size;

	if (m == NULL)
		abort();
	memcpy(rte_pktmbuf_append(m, (uint16_t)first), data, first);
	if (size > first) {
		tail = rte_pktmbuf_alloc(pool);
		if (tail == NULL)
			abort();
		memcpy(rte_pktmbuf_append(tail, (uint16_t)(size - first)), data + first,
		       size - first);
		if (rte_pktmbuf_chain(m, tail) != 0)
			abort();
	}
	m->port = in_port;
	nfv_meta(m)->flags = 0;
	nfv_workers[0].walk_rx_tsc = rte_rdtsc();
	return m;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (graph == NULL)
		fuzz_init();
	if (size > 2 * FUZZ_SEG_SPLIT + 1000)
		return 0;
	pending = frame_from(data, size);
	/* Most interesting frames are for us: aim the first bytes at our MAC. */
	if (size >= 6 && (data[0] & 1) == 0 && size % 3 != 0)
		memcpy(rte_pktmbuf_mtod(pending, uint8_t *), nfv_ports[in_port].mac.addr_bytes, 6);
	rte_graph_walk(graph);
	if (rte_mempool_in_use_count(pool) != nfv_reasm_workers[0].held) {
		fprintf(stderr, "fuzz: %u mbufs in use, %" PRIu64 " fragments held\n",
			rte_mempool_in_use_count(pool), nfv_reasm_workers[0].held);
		abort();
	}
	nfv_reasm_release(0);
	if (rte_mempool_in_use_count(pool) != 0 ||
	    rte_mempool_in_use_count(nfv_port_by_name("out")->pool) != 0 ||
	    rte_mempool_in_use_count(nfv_mirror_pool) != 0) {
		fprintf(stderr, "fuzz: mbuf leak: %u + %u + %u (mirror) mbufs not returned\n",
			rte_mempool_in_use_count(pool),
			rte_mempool_in_use_count(nfv_port_by_name("out")->pool),
			rte_mempool_in_use_count(nfv_mirror_pool));
		abort();
	}
	if (rte_hash_count(nfv_upf_table[NFV_UPF_UL]) != 3 ||
	    rte_hash_count(nfv_upf_table[NFV_UPF_DL]) != 3) {
		fprintf(stderr, "fuzz: the UPF lost session keys\n");
		abort();
	}
	return 0;
}
