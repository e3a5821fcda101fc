/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Kernel twins (lcp.h). A twin is a net_tap port of nfvd, so workers poll
 * it and send to it like any port: its frames take the lcp_xconnect
 * feature of the l2_input arc out of the interface, and the drop node
 * punts to lcp_punt what the interface's reasons say (below).
 *
 * net_tap creates the TAP device in nfvd's own network namespace and its
 * ioctls (MTU, flags, MAC) act on the device by name there. For a twin in
 * another namespace the device is created under a temporary name, then
 * moved (and renamed) into the namespace over rtnetlink; from then on
 * every setting of the twin goes through rtnetlink in its namespace, never
 * through the driver, and the temporary name no longer exists in nfvd's
 * namespace, so a driver ioctl can never reach another device. "lcp del"
 * moves it back before the port is closed. Twins in nfvd's own namespace
 * are configured the same way, over rtnetlink.
 *
 * Neighbors: nfvd resolves its own next hops (static neighbors today; ARP
 * and ND when the arp_nd module lands) and the kernel resolves for its own
 * traffic: ARP and ND frames for the interface that nfvd does not consume
 * are punted to the twin too, so the kernel answers for its addresses
 * (the same as nfvd's, with the same MAC) and learns its peers. Kernel
 * neighbor entries are not copied into nfvd's table.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include <rte_cycles.h>
#include <rte_meter.h>

#include "core/arc.h"
#include "core/counters.h"
#include "core/iface_event.h"
#include "core/log.h"
#include "core/module.h"
#include "core/stats.h"
#include "core/worker.h"
#include "modules/bridge/bridge.h"
#include "modules/infra/iface.h"
#include "modules/infra/port.h"
#include "modules/infra/punt.h"
#include "modules/lcp/control/lcp_priv.h"

uint16_t nfv_lcp_twin_of[NFV_IFACE_MAX];
uint16_t nfv_lcp_iface_of[RTE_MAX_ETHPORTS];
struct rte_meter_srtcm_profile nfv_lcp_profile[NFV_IFACE_MAX][2];
uint32_t nfv_lcp_gen[NFV_IFACE_MAX];
uint8_t nfv_lcp_reason_slot[NFV_DROP_MAX];
struct nfv_lcp_worker nfv_lcp_workers[NFV_MAX_WORKERS];
NFV_COUNTER_BLOCK(nfv_lcp_counters_block, "lcp", struct nfv_lcp_counters);

struct lcp_twin lcp_twins[NFV_IFACE_MAX];

/*
 * What the kernel gets: the reasons nfvd drops what it does not serve
 * itself on an interface. Slot 0 of the counters is "other".
 */
static const char *const punt_reasons[][2] = {
	{ "ip4_local", "unsupported_protocol" },   /* TCP/179, OSPF, unknown UDP ports ... */
	{ "ip6_local", "unsupported_protocol" },
	{ "ip4_input", "multicast_destination" },  /* 224.0.0.5/6 (OSPF), 224.0.0.x */
	{ "ip6_input", "multicast_destination" },  /* ff02::5/6, ND to solicited-node groups */
	{ "ip4_input", "broadcast_destination" },
	{ "ip4_input", "link_local" },
	{ "ip6_input", "link_local" },             /* fe80:: of the twin, BGP over link-local */
	{ "ip6_lookup", "l2_multicast" },
};
/* ARP and ND are copied (lcp_copy), not punted: nfvd and the kernel both
 * see them. */
static const char *reason_names[NFV_LCP_REASONS] = { "other", "lcp_copy/arp", "lcp_copy/nd" };
static unsigned int n_reason_slots = 3;
static int punt_edge = -1;

/* The drop node's edge to lcp_punt, before the graphs exist. */
static int
lcp_graph_setup(void)
{
	punt_edge = nfv_punt_node_edge("nfv_lcp_punt");
	return punt_edge < 0 ? punt_edge : 0;
}
NFV_GRAPH_SETUP(lcp_graph_setup);

static struct nfv_arc_feature lcp_xconnect_feature = {
	.arc_name = "l2_input",
	.node = "nfv_lcp_xconnect",
};
NFV_ARC_FEATURE_REGISTER(lcp_xconnect_feature);

/* Publishes the punt policer of an interface: the profile not in use is
 * written, then the generation flips to it; workers configure their meter
 * again. A grace period later the other profile is free to write. */
static int
policer_set(uint16_t iface, uint32_t rate, uint32_t burst)
{
	struct rte_meter_srtcm_params prm = { .cir = rate, .cbs = burst, .ebs = 0 };
	uint32_t gen = nfv_lcp_gen[iface] + 1;
	int rc;

	rc = rte_meter_srtcm_profile_config(&nfv_lcp_profile[iface][gen & 1], &prm);
	if (rc != 0)
		return rc;
	__atomic_store_n(&nfv_lcp_gen[iface], gen, __ATOMIC_RELEASE);
	nfv_rcu_sync();
	return 0;
}

/* The same address in the kernel: nfvd's VRFs are nfvd's own. */
static bool
addr_same(const struct nfv_prefix *a, const struct nfv_prefix *b)
{
	return a->len == b->len && nfv_ip_equal(&a->ip, &b->ip);
}

/* The twin's addresses follow the interface's: missing ones added,
 * removed ones deleted. An address that only moved to another VRF stays
 * (deleting it would flush the kernel's routes through it). */
static void
addrs_sync(struct lcp_twin *t)
{
	struct nfv_prefix now[NFV_ADDR_PER_PORT_MAX];
	unsigned int n = nfv_addr_of_iface(t->iface, now);
	char err[NFV_ERR_LEN];
	bool v4_gone = false;

	if (t->ifindex <= 0)
		return;
	for (unsigned int i = 0; i < t->n_addrs; i++) {
		bool keep = false;

		for (unsigned int j = 0; j < n && !keep; j++)
			keep = addr_same(&t->addrs[i], &now[j]);
		if (keep)
			continue;
		if (lcp_nl_addr(t->ns, t->ifindex, &t->addrs[i], false, err) < 0)
			NFV_LOG(WARNING, "lcp %s: %s", nfv_iface_name_of(t->iface), err);
		else if (t->addrs[i].ip.family == AF_INET)
			v4_gone = true;
	}
	for (unsigned int j = 0; j < n; j++) {
		bool had = false;

		for (unsigned int i = 0; i < t->n_addrs && !had; i++)
			had = addr_same(&t->addrs[i], &now[j]);
		if (!had) {
			struct nfv_prefix p = now[j];

			p.vrf = 0;
			if (lcp_nl_addr(t->ns, t->ifindex, &p, true, err) < 0)
				NFV_LOG(WARNING, "lcp %s: %s", nfv_iface_name_of(t->iface), err);
		}
	}
	memcpy(t->addrs, now, n * sizeof(now[0]));
	t->n_addrs = n;
	/* When the twin's last IPv4 address goes, the kernel flushes all its
	 * IPv4 routes without a word (RTM_DELROUTE is sent for none of them;
	 * a VRF move gives the addresses back one by one, so all but the
	 * first go for a moment). After any IPv4 address removed, the
	 * namespace's routes are read again from a dump. */
	if (v4_gone)
		lcp_nl_resync(t->ns);
}

/* A link that goes down loses its IPv6 addresses (net.ipv6.conf.*.
 * keep_addr_on_down 0, the default): the twin's go, whatever that setting
 * in its namespace, and are forgotten, so that addrs_sync() gives them
 * back when it comes up. */
static void
addrs_down(struct lcp_twin *t)
{
	char err[NFV_ERR_LEN];
	unsigned int k = 0;

	if (t->ifindex <= 0)
		return;
	for (unsigned int i = 0; i < t->n_addrs; i++) {
		if (t->addrs[i].ip.family != AF_INET6) {
			t->addrs[k++] = t->addrs[i];
			continue;
		}
		if (lcp_nl_addr(t->ns, t->ifindex, &t->addrs[i], false, err) < 0)
			NFV_LOG(WARNING, "lcp %s: %s", nfv_iface_name_of(t->iface), err);
	}
	t->n_addrs = k;
}

static bool
ifname_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n >= IF_NAMESIZE)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] == '/' || s[i] == ':' || s[i] <= ' ' || s[i] == 0x7f)
			return false;
	return strcmp(s, ".") != 0 && strcmp(s, "..") != 0;
}

/* Where the copies of a twin's interface's ARP and ND (lcp_copy) are
 * taken: a port's frames on the l2_input arc, a VLAN sub-interface's
 * (untagged) on vlan_l2_input; a bridge's, those it delivers to its own
 * interface, from bridge_input's tap. */
static int
copy_hook(const struct lcp_twin *t, bool on, char *err)
{
	if (t->kind == NFV_IFACE_KIND_BRIDGE) {
		nfv_bridge_tap_set(nfv_lcp_tap, NFV_BRIDGE_TAP_IN, t->iface, on);
		return 0;
	}
	return nfv_arc_feature_set(t->kind == NFV_IFACE_KIND_VLAN ? "vlan_l2_input" : "l2_input",
				   "nfv_lcp_copy", t->iface, on, err);
}

/* Stops punting to and crossing from a twin; waits until no worker does. */
static void
twin_unhook(struct lcp_twin *t)
{
	char err[NFV_ERR_LEN];

	(void)copy_hook(t, false, err);
	nfv_punt_iface_set(t->iface, -1);
	__atomic_store_n(&nfv_lcp_twin_of[t->iface], NFV_LCP_NONE, __ATOMIC_RELEASE);
	if (t->port < RTE_MAX_ETHPORTS)
		__atomic_store_n(&nfv_lcp_iface_of[t->port], NFV_LCP_NONE, __ATOMIC_RELEASE);
	nfv_rcu_sync();
}

/* Everything of a twin but its port (already gone, or closed by the caller). */
static void
twin_forget(struct lcp_twin *t)
{
	struct lcp_ns *ns = t->ns;

	twin_unhook(t);
	t->used = false;
	if (ns != NULL) {
		lcp_ns_twin_set(ns, t->iface, false);
		/* Its routes leave nfvd's tables. */
		lcp_nl_resync(ns);
		lcp_ns_put(ns);
	}
	memset(t, 0, sizeof(*t));
}

int
nfv_lcp_add(const char *dev, const struct nfv_lcp_conf *conf, char *err)
{
	struct nfv_iface *ifc = nfv_iface_by_name(dev);
	const char *host_if = conf->host_if != NULL ? conf->host_if : dev;
	const char *netns = conf->netns != NULL ? conf->netns : "";
	struct nfv_port_conf pc = { .n_rxq = 1, .rxd = 1024, .txd = 1024 };
	char devargs[256], mac[RTE_ETHER_ADDR_FMT_SIZE];
	struct lcp_twin *t;
	struct nfv_port *port;
	int rc, idx;

	if (ifc == NULL) {
		snprintf(err, NFV_ERR_LEN, "unknown interface '%s'", dev);
		return -ENOENT;
	}
	if (ifc->kind != NFV_IFACE_KIND_PORT && ifc->kind != NFV_IFACE_KIND_VLAN &&
	    ifc->kind != NFV_IFACE_KIND_BRIDGE) {
		snprintf(err, NFV_ERR_LEN, "%s is a %s interface: twins are for ports, VLAN "
			 "sub-interfaces and bridges", dev,
			 ifc->kind == NFV_IFACE_KIND_VXLAN ? "vxlan" : "other");
		return -EINVAL;
	}
	if (ifc->id < RTE_MAX_ETHPORTS && nfv_lcp_iface_of[ifc->id] != NFV_LCP_NONE) {
		snprintf(err, NFV_ERR_LEN, "%s is the kernel twin of %s", dev,
			 nfv_iface_name_of(nfv_lcp_iface_of[ifc->id]));
		return -EINVAL;
	}
	t = &lcp_twins[ifc->id];
	if (t->used) {
		snprintf(err, NFV_ERR_LEN, "%s already has a kernel twin (%s)", dev, t->host_if);
		return -EEXIST;
	}
	if (!ifname_ok(host_if)) {
		snprintf(err, NFV_ERR_LEN, "bad host-if name '%s' (1 to %u characters, no '/', "
			 "':' or spaces)", host_if, IF_NAMESIZE - 1);
		return -EINVAL;
	}
	if (strlen(netns) >= LCP_NETNS_LEN) {
		snprintf(err, NFV_ERR_LEN, "netns name too long (%zu characters, max %u)",
			 strlen(netns), LCP_NETNS_LEN - 1);
		return -EINVAL;
	}
	for (unsigned int i = 0; i < NFV_IFACE_MAX; i++)
		if (lcp_twins[i].used && strcmp(lcp_twins[i].host_if, host_if) == 0 &&
		    strcmp(lcp_twins[i].netns, netns) == 0) {
			snprintf(err, NFV_ERR_LEN, "host-if %s is already the twin of %s", host_if,
				 nfv_iface_name_of(lcp_twins[i].iface));
			return -EEXIST;
		}
	memset(t, 0, sizeof(*t));
	t->iface = ifc->id;
	t->kind = ifc->kind;
	t->port = NFV_LCP_NONE;
	t->rate = conf->rate ? conf->rate : NFV_LCP_RATE_DEFAULT;
	t->burst = conf->burst ? conf->burst : NFV_LCP_BURST_DEFAULT;
	snprintf(t->host_if, sizeof(t->host_if), "%s", host_if);
	snprintf(t->netns, sizeof(t->netns), "%s", netns);
	/* The twin port's name in nfvd. */
	rc = snprintf(t->port_name, sizeof(t->port_name), "lcp-%s", dev);
	if (rc < 0 || (size_t)rc >= sizeof(t->port_name)) {
		snprintf(err, NFV_ERR_LEN, "interface name %s too long for its twin port's name "
			 "(lcp-%s)", dev, dev);
		return -ENAMETOOLONG;
	}
	t->ns = lcp_ns_get(netns, err);
	if (t->ns == NULL)
		return -ENOENT;
	idx = lcp_nl_link_index(t->ns, host_if);
	if (idx > 0) {
		snprintf(err, NFV_ERR_LEN, "an interface named %s already exists in %s%s", host_if,
			 netns[0] ? "netns " : "nfvd's network namespace", netns);
		lcp_ns_put(t->ns);
		t->ns = NULL;
		return -EEXIST;
	}
	/* Created under its final name at home, under a temporary one that
	 * nothing else uses when it moves to another namespace: the process
	 * id in it, so that two nfvd sharing a namespace do not collide (at
	 * most 15 characters: "lcp", 6 hex digits, ".", 4). */
	if (netns[0] != '\0')
		snprintf(t->tmp_if, sizeof(t->tmp_if), "lcp%x.%x", (unsigned int)getpid() & 0xffffff,
			 ifc->id & 0xffffu);
	else
		snprintf(t->tmp_if, sizeof(t->tmp_if), "%s", host_if);
	if (netns[0] != '\0' && if_nametoindex(t->tmp_if) != 0) {
		snprintf(err, NFV_ERR_LEN, "temporary name %s is in use in nfvd's namespace",
			 t->tmp_if);
		lcp_ns_put(t->ns);
		t->ns = NULL;
		return -EEXIST;
	}
	nfv_format_mac(mac, sizeof(mac), &ifc->mac);
	snprintf(devargs, sizeof(devargs), "net_tap_lcp%u,iface=%s,mac=%s", ifc->id, t->tmp_if,
		 mac);
	pc.mtu = ifc->mtu;
	rc = nfv_port_add(t->port_name, devargs, &pc, err);
	if (rc < 0) {
		lcp_ns_put(t->ns);
		t->ns = NULL;
		return rc;
	}
	port = nfv_port_by_name(t->port_name);
	t->port = port->port_id;
	t->used = true;
	__atomic_store_n(&nfv_lcp_iface_of[t->port], t->iface, __ATOMIC_RELEASE);
	rc = nfv_arc_feature_set("l2_input", "nfv_lcp_xconnect", t->port, true, err);
	if (rc < 0)
		goto fail;
	rc = copy_hook(t, true, err);
	if (rc < 0)
		goto fail;
	idx = (int)if_nametoindex(t->tmp_if);
	if (idx <= 0) {
		snprintf(err, NFV_ERR_LEN, "twin %s: not found after creation", t->tmp_if);
		rc = -ENODEV;
		goto fail;
	}
	if (netns[0] != '\0') {
		rc = lcp_nl_link_move(idx, t->ns, host_if, err);
		if (rc < 0)
			goto fail;
		idx = lcp_nl_link_index(t->ns, host_if);
		if (idx <= 0) {
			snprintf(err, NFV_ERR_LEN, "twin %s: not found in netns %s", host_if,
				 netns);
			rc = -ENODEV;
			goto fail;
		}
	}
	t->ifindex = idx;
	lcp_ns_twin_set(t->ns, t->iface, true);
	rc = lcp_nl_link_set(t->ns, idx, -1, ifc->mtu, &ifc->mac, err);
	if (rc < 0)
		goto fail;
	addrs_sync(t);
	rc = lcp_nl_link_set(t->ns, idx, ifc->admin_up ? 1 : 0, 0, NULL, err);
	if (rc < 0)
		goto fail;
	t->kernel_up = ifc->admin_up;
	rc = policer_set(t->iface, t->rate, t->burst);
	if (rc != 0) {
		snprintf(err, NFV_ERR_LEN, "punt policer rate %u burst %u refused", t->rate,
			 t->burst);
		rc = -EINVAL;
		goto fail;
	}
	__atomic_store_n(&nfv_lcp_twin_of[t->iface], t->port, __ATOMIC_RELEASE);
	nfv_punt_iface_set(t->iface, punt_edge);
	/* Routes the kernel already has on it. */
	lcp_nl_resync(t->ns);
	NFV_LOG(INFO, "lcp %s: twin %s%s%s (port %s, ifindex %d), punt rate %u/s burst %u", dev,
		host_if, netns[0] ? " in netns " : "", netns, t->port_name, t->ifindex, t->rate,
		t->burst);
	return 0;

fail:
	{
		char err2[NFV_ERR_LEN];
		char name[32];

		snprintf(name, sizeof(name), "%s", t->port_name);
		twin_unhook(t);
		if (netns[0] != '\0' && t->ifindex > 0)
			lcp_nl_link_move_home(t->ns, t->ifindex, t->tmp_if, err2);
		lcp_ns_twin_set(t->ns, t->iface, false);
		lcp_ns_put(t->ns);
		memset(t, 0, sizeof(*t));
		nfv_port_del(name, err2);
	}
	return rc;
}

static void
twin_remove(struct lcp_twin *t, bool close_port)
{
	char err[NFV_ERR_LEN], name[32];

	snprintf(name, sizeof(name), "%s", t->port_name);
	twin_unhook(t);
	/* Home again under its temporary name, where the driver closes it. */
	if (close_port && t->netns[0] != '\0' && t->ifindex > 0 &&
	    lcp_nl_link_move_home(t->ns, t->ifindex, t->tmp_if, err) < 0)
		NFV_LOG(WARNING, "lcp %s: %s", nfv_iface_name_of(t->iface), err);
	NFV_LOG(INFO, "lcp %s: twin %s removed", nfv_iface_name_of(t->iface), t->host_if);
	twin_forget(t);
	if (close_port && nfv_port_del(name, err) < 0)
		NFV_LOG(WARNING, "lcp: twin port %s: %s", name, err);
}

int
nfv_lcp_del(const char *dev, char *err)
{
	struct nfv_iface *ifc = nfv_iface_by_name(dev);

	if (ifc == NULL) {
		snprintf(err, NFV_ERR_LEN, "unknown interface '%s'", dev);
		return -ENOENT;
	}
	if (!lcp_twins[ifc->id].used) {
		snprintf(err, NFV_ERR_LEN, "%s has no kernel twin", dev);
		return -ENOENT;
	}
	twin_remove(&lcp_twins[ifc->id], true);
	return 0;
}

/* The twin follows its interface: link state, MTU and MAC, addresses, VRF
 * (its kernel routes move to the new VRF's table). An interface that goes
 * takes its twin; a twin port removed by hand leaves its interface without. */
static void
lcp_iface_event(enum nfv_iface_event ev, uint16_t iface, void *arg)
{
	struct lcp_twin *t = &lcp_twins[iface];
	char err[NFV_ERR_LEN];

	RTE_SET_USED(arg);
	if (iface < RTE_MAX_ETHPORTS && nfv_lcp_iface_of[iface] != NFV_LCP_NONE &&
	    ev == NFV_IFACE_REMOVED) {
		struct lcp_twin *owner = &lcp_twins[nfv_lcp_iface_of[iface]];

		if (owner->used && owner->port == iface) {
			NFV_LOG(WARNING, "lcp %s: its twin port was removed",
				nfv_iface_name_of(owner->iface));
			twin_remove(owner, false);
		}
		return;
	}
	if (!t->used)
		return;
	switch (ev) {
	case NFV_IFACE_REMOVED:
		twin_remove(t, true);
		return;
	case NFV_IFACE_UP:
	case NFV_IFACE_DOWN:
		if (t->ifindex > 0 &&
		    lcp_nl_link_set(t->ns, t->ifindex, ev == NFV_IFACE_UP, 0, NULL, err) < 0)
			NFV_LOG(WARNING, "lcp %s: %s", nfv_iface_name_of(iface), err);
		if (ev == NFV_IFACE_UP)
			addrs_sync(t);
		else
			addrs_down(t);
		break;
	case NFV_IFACE_CHANGED:
		if (t->ifindex > 0 &&
		    lcp_nl_link_set(t->ns, t->ifindex, -1, nfv_ifaces[iface].mtu,
				    &nfv_ifaces[iface].mac, err) < 0)
			NFV_LOG(WARNING, "lcp %s: %s", nfv_iface_name_of(iface), err);
		break;
	case NFV_IFACE_ADDR:
		addrs_sync(t);
		break;
	case NFV_IFACE_VRF:
		lcp_nl_resync(t->ns);
		break;
	default:
		break;
	}
}
NFV_IFACE_EVENT_HANDLER(lcp_iface_event);

void *
nfv_lcp_show_json(const char *dev)
{
	struct nfv_lcp_counters *c = malloc(sizeof(*c));
	json_t *a = json_array();

	if (c == NULL)
		return a;
	nfv_counters_sum(&nfv_lcp_counters_block, c);
	for (unsigned int i = 0; i < NFV_IFACE_MAX; i++) {
		const struct lcp_twin *t = &lcp_twins[i];
		char mac[RTE_ETHER_ADDR_FMT_SIZE];

		if (!t->used || (dev != NULL && strcmp(dev, nfv_iface_name_of(i)) != 0))
			continue;
		nfv_format_mac(mac, sizeof(mac), &nfv_ifaces[i].mac);
		json_array_append_new(a, json_pack(
			"{s:s, s:s, s:s, s:s, s:i, s:s, s:i, s:b, s:I, s:I, s:I, s:I}",
			"dev", nfv_iface_name_of(i), "host_if", t->host_if,
			"netns", t->netns[0] ? t->netns : "", "port", t->port_name,
			"ifindex", t->ifindex, "mac", mac, "mtu", nfv_ifaces[i].mtu,
			"up", nfv_ifaces[i].admin_up,
			"punt_rate", (json_int_t)t->rate, "punt_burst", (json_int_t)t->burst,
			"punted", (json_int_t)c->punted_iface[i],
			"from_twin", (json_int_t)c->from_twin_iface[i]));
	}
	free(c);
	return a;
}

/* ---- show stats, telemetry, Prometheus. ---- */

static void
lcp_show_stats(json_t *stats)
{
	struct nfv_lcp_counters *c = malloc(sizeof(*c));
	json_t *punted = json_object(), *policed = json_object();
	uint64_t tp = 0, tx = 0, tr = 0;

	if (c == NULL)
		return;
	nfv_counters_sum(&nfv_lcp_counters_block, c);
	for (unsigned int s = 0; s < n_reason_slots; s++) {
		json_object_set_new(punted, reason_names[s], json_integer((json_int_t)c->punted[s]));
		json_object_set_new(policed, reason_names[s],
				    json_integer((json_int_t)c->policed[s]));
		tp += c->punted[s];
		tr += c->policed[s];
	}
	for (unsigned int i = 0; i < NFV_IFACE_MAX; i++)
		tx += c->from_twin_iface[i];
	json_object_set_new(stats, "lcp", json_pack(
		"{s:I, s:I, s:I, s:o, s:o, s:{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}}",
		"punted", (json_int_t)tp, "policed", (json_int_t)tr, "from_twin", (json_int_t)tx,
		"punted_by_reason", punted, "policed_by_reason", policed, "netlink",
		"messages", (json_int_t)lcp_nl_stats.messages,
		"bad_messages", (json_int_t)lcp_nl_stats.bad_messages,
		"nexthop_messages", (json_int_t)lcp_nl_stats.nexthops,
		"routes_added", (json_int_t)lcp_nl_stats.routes_added,
		"routes_removed", (json_int_t)lcp_nl_stats.routes_removed,
		"routes_failed", (json_int_t)lcp_nl_stats.routes_failed,
		"routes", (json_int_t)lcp_nl_route_count(),
		"resyncs", (json_int_t)lcp_nl_stats.resyncs,
		"overruns", (json_int_t)lcp_nl_stats.overruns));
	free(c);
}

static void
lcp_metrics(FILE *f)
{
	struct nfv_lcp_counters *c;
	bool was = nfv_stats_since_start(true);

	c = malloc(sizeof(*c));
	if (c == NULL) {
		nfv_stats_since_start(was);
		return;
	}
	nfv_counters_sum(&nfv_lcp_counters_block, c);
	nfv_stats_since_start(was);
	nfv_metrics_help(f, "nfvd_lcp_punted_packets_total", "counter",
			 "Packets punted to kernel twins, by the reason nfvd would drop them");
	for (unsigned int s = 0; s < n_reason_slots; s++)
		fprintf(f, "nfvd_lcp_punted_packets_total{reason=\"%s\"} %lu\n", reason_names[s],
			(unsigned long)c->punted[s]);
	nfv_metrics_help(f, "nfvd_lcp_policed_packets_total", "counter",
			 "Punted packets dropped by the punt policer");
	for (unsigned int s = 0; s < n_reason_slots; s++)
		fprintf(f, "nfvd_lcp_policed_packets_total{reason=\"%s\"} %lu\n", reason_names[s],
			(unsigned long)c->policed[s]);
	nfv_metrics_help(f, "nfvd_lcp_twin_packets_total", "counter",
			 "Packets to (punted) and from kernel twins, by interface");
	for (unsigned int i = 0; i < NFV_IFACE_MAX; i++)
		if (lcp_twins[i].used)
			fprintf(f, "nfvd_lcp_twin_packets_total{dev=\"%s\",dir=\"to_twin\"} %lu\n"
				"nfvd_lcp_twin_packets_total{dev=\"%s\",dir=\"from_twin\"} %lu\n",
				nfv_iface_name_of(i), (unsigned long)c->punted_iface[i],
				nfv_iface_name_of(i), (unsigned long)c->from_twin_iface[i]);
	free(c);
	nfv_metrics_help(f, "nfvd_lcp_netlink_messages_total", "counter",
			 "rtnetlink messages read from the kernel");
	fprintf(f, "nfvd_lcp_netlink_messages_total %lu\n", (unsigned long)lcp_nl_stats.messages);
	nfv_metrics_help(f, "nfvd_lcp_routes_total", "counter",
			 "Kernel routes set in or removed from nfvd's tables");
	fprintf(f, "nfvd_lcp_routes_total{op=\"added\"} %lu\nnfvd_lcp_routes_total{op=\"removed\"} "
		"%lu\nnfvd_lcp_routes_total{op=\"failed\"} %lu\n",
		(unsigned long)lcp_nl_stats.routes_added, (unsigned long)lcp_nl_stats.routes_removed,
		(unsigned long)lcp_nl_stats.routes_failed);
	nfv_metrics_help(f, "nfvd_lcp_kernel_routes", "gauge", "Kernel routes in nfvd's tables");
	fprintf(f, "nfvd_lcp_kernel_routes %u\n", lcp_nl_route_count());
	nfv_metrics_help(f, "nfvd_lcp_resyncs_total", "counter",
			 "Full dumps of the kernel's routes (start, lcp add, lost events)");
	fprintf(f, "nfvd_lcp_resyncs_total %lu\n", (unsigned long)lcp_nl_stats.resyncs);
	nfv_metrics_help(f, "nfvd_lcp_netlink_overruns_total", "counter",
			 "Netlink event overruns (ENOBUFS): events lost, repaired by a resync");
	fprintf(f, "nfvd_lcp_netlink_overruns_total %lu\n", (unsigned long)lcp_nl_stats.overruns);
}

static const struct nfv_collector lcp_collector = {
	.name = "lcp",
	.show_stats = lcp_show_stats,
	.metrics = lcp_metrics,
};
NFV_COLLECTOR_REGISTER(lcp_collector);

/* ---- The module. ---- */

static int
lcp_init(void)
{
	for (unsigned int i = 0; i < NFV_IFACE_MAX; i++)
		nfv_lcp_twin_of[i] = NFV_LCP_NONE;
	for (unsigned int i = 0; i < RTE_MAX_ETHPORTS; i++)
		nfv_lcp_iface_of[i] = NFV_LCP_NONE;
	for (unsigned int i = 0; i < RTE_DIM(punt_reasons); i++) {
		int id = nfv_drop_reason_find(punt_reasons[i][0], punt_reasons[i][1]);

		if (id < 0 || n_reason_slots >= NFV_LCP_REASONS)
			continue;
		reason_names[n_reason_slots] = punt_reasons[i][1];
		/* "node/name" would be clearer; names repeat across nodes. */
		{
			static char full[NFV_LCP_REASONS][64];

			snprintf(full[n_reason_slots], sizeof(full[0]), "%s/%s", punt_reasons[i][0],
				 punt_reasons[i][1]);
			reason_names[n_reason_slots] = full[n_reason_slots];
		}
		nfv_lcp_reason_slot[id] = (uint8_t)n_reason_slots++;
		nfv_punt_reason_set((uint16_t)id, true);
	}
	return lcp_nl_init();
}

static void
lcp_fini(void)
{
	lcp_nl_fini();
}

static const struct nfv_module_option lcp_options[] = {
	{ "lcp-netlink-rcvbuf", "BYTES",
	  "receive buffer of lcp's netlink event sockets (default 4194304)" },
	{ NULL, NULL, NULL },
};

static int
lcp_parse_option(const char *name, const char *value, char *err, size_t len)
{
	char *end;
	unsigned long v = strtoul(value, &end, 10);

	RTE_SET_USED(name);
	if (*end != '\0' || v < 4096 || v > (1ul << 30)) {
		snprintf(err, len, "bad netlink buffer size '%s' (4096 to 1073741824 bytes)",
			 value);
		return -EINVAL;
	}
	lcp_nl_rcvbuf = (uint32_t)v;
	return 0;
}

static struct nfv_module lcp_module = {
	.name = "lcp",
	.depends_on = "infra ip vlan bridge",
	.init = lcp_init,
	.fini = lcp_fini,
	.options = lcp_options,
	.parse_option = lcp_parse_option,
};
NFV_MODULE_REGISTER(lcp_module);
