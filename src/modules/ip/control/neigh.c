/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Static neighbors. A neighbor resolves the gateway next hop for its
 * address on its port (every route via it starts forwarding) and installs
 * a host route so that packets to the neighbor itself reach it, as the
 * adjacency routes of VPP do. An address is a neighbor on one port only,
 * but for IPv6 link-local ones (the same fe80::1 may sit on every link):
 * those get no host route, as nothing is forwarded to them.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "modules/ip/ip.h"
#include "modules/ip/control/nexthop.h"
#include "modules/ip/control/route.h"
#include "modules/infra/port.h"

int
nfv_neigh_add(const struct nfv_ip *ip, const struct rte_ether_addr *mac, uint16_t port_id,
	      char *err)
{
	uint16_t vrf = nfv_ifaces[port_id].vrf;
	struct nfv_prefix host = { .ip = *ip, .len = ip->family == AF_INET ? 32 : 128,
				   .vrf = vrf };
	uint32_t id = nfv_nh_find_gateway(ip, port_id);
	const char *why = nfv_ip_unusable(ip);
	bool link_local;
	uint32_t other;
	char buf[64];
	int rc;

	if (why != NULL) {
		snprintf(err, NFV_ERR_LEN, "%s is %s, not a neighbor",
			 nfv_ip_str(ip, buf, sizeof(buf)), why);
		return -EINVAL;
	}
	if (nfv_addr_is_local(ip, vrf)) {
		snprintf(err, NFV_ERR_LEN, "%s is a local address",
			 nfv_ip_str(ip, buf, sizeof(buf)));
		return -EINVAL;
	}
	if (rte_is_multicast_ether_addr(mac) || rte_is_zero_ether_addr(mac)) {
		snprintf(err, NFV_ERR_LEN, "lladdr " RTE_ETHER_ADDR_PRT_FMT " is not a unicast MAC",
			 RTE_ETHER_ADDR_BYTES(mac));
		return -EINVAL;
	}
	if (id != 0 && nfv_nh_ctl(id)->has_neigh) {
		/* Replace the MAC, like "ip neigh replace". */
		return nfv_nh_set_neigh(id, true, mac->addr_bytes);
	}
	/* One host route per address, so a neighbor lives on one port; but an
	 * IPv6 link-local address (fe80::/10) is one per link, never forwarded
	 * to, and gets no host route. */
	link_local = nfv_ip_is_link_local(ip);
	other = link_local ? 0 : nfv_route_source_nh(&host, NFV_RT_NEIGH);
	if (other != 0 && nfv_nh_ctl(other)->port_id != port_id) {
		snprintf(err, NFV_ERR_LEN, "neighbor %s is already on port %s (delete it first)",
			 nfv_ip_str(ip, buf, sizeof(buf)),
			 nfv_iface_name_of(nfv_nh_ctl(other)->port_id));
		return -EEXIST;
	}
	if (!link_local && !nfv_route_reserve(ip->family, vrf, 1) &&
	    nfv_route_source_nh(&host, NFV_RT_NEIGH) == 0) {
		snprintf(err, NFV_ERR_LEN, "route table full: no room for the neighbor host route");
		return -ENOSPC;
	}
	id = nfv_nh_get_gateway(ip, port_id); /* the neighbor's own reference */
	if (id == 0) {
		snprintf(err, NFV_ERR_LEN, "next-hop table full (%u)", NFV_NH_MAX - 1);
		return -ENOSPC;
	}
	rc = nfv_nh_set_neigh(id, true, mac->addr_bytes);
	if (rc < 0) {
		nfv_nh_put(id);
		snprintf(err, NFV_ERR_LEN, "out of memory");
		return rc;
	}
	if (link_local)
		return 0;
	nfv_nh_ref(id);
	rc = nfv_route_set(&host, NFV_RT_NEIGH, id, err);
	if (rc < 0) {
		nfv_nh_set_neigh(id, false, NULL);
		nfv_nh_put(id);
		return rc;
	}
	return 0;
}

int
nfv_neigh_del(const struct nfv_ip *ip, uint16_t port_id, char *err)
{
	struct nfv_prefix host = { .ip = *ip, .len = ip->family == AF_INET ? 32 : 128,
				   .vrf = nfv_ifaces[port_id].vrf };
	uint32_t id = nfv_nh_find_gateway(ip, port_id);
	char buf[64];

	if (id == 0 || !nfv_nh_ctl(id)->has_neigh) {
		snprintf(err, NFV_ERR_LEN, "no neighbor %s on port %s",
			 nfv_ip_str(ip, buf, sizeof(buf)), nfv_iface_name_of(port_id));
		return -ENOENT;
	}
	if (nfv_route_source_nh(&host, NFV_RT_NEIGH) == id)
		nfv_route_set(&host, NFV_RT_NEIGH, 0, err);
	nfv_nh_set_neigh(id, false, NULL);
	nfv_nh_put(id);
	return 0;
}

unsigned int
nfv_neigh_port_removed(uint16_t port_id)
{
	unsigned int n = 0;

	for (uint32_t id = 1; id < NFV_NH_MAX; id++) {
		struct nfv_nexthop *nh = nfv_nh_ctl(id);
		char err[NFV_ERR_LEN];

		if (nh != NULL && nh->type == NFV_NH_GATEWAY && nh->port_id == port_id &&
		    nh->has_neigh) {
			struct nfv_ip gw = nh->gw;

			if (nfv_neigh_del(&gw, port_id, err) == 0)
				n++;
		}
	}
	return n;
}

/* Learned neighbors (ip.h): the MAC a resolution module found. */

static struct nfv_prefix
host_prefix(const struct nfv_ip *ip, uint16_t iface)
{
	struct nfv_prefix host = { .ip = *ip, .len = ip->family == AF_INET ? 32 : 128,
				   .vrf = nfv_ifaces[iface].vrf };

	return host;
}

bool
nfv_neigh_learned_route(const struct nfv_ip *ip, uint16_t iface)
{
	struct nfv_prefix host = host_prefix(ip, iface);
	uint32_t id = nfv_nh_find_gateway(ip, iface);
	char err[NFV_ERR_LEN];
	uint32_t have;

	if (id == 0 || !(nfv_nh_ctl(id)->learned || nfv_nh_ctl(id)->has_neigh))
		return false;
	if (nfv_ip_is_link_local(ip))
		return true;
	/* One host route per address: the first interface keeps it. */
	have = nfv_route_source_nh(&host, NFV_RT_NEIGH);
	if (have != 0)
		return have == id;
	nfv_nh_ref(id);
	return nfv_route_set(&host, NFV_RT_NEIGH, id, err) == 0; /* consumes the reference */
}

int
nfv_neigh_learn(const struct nfv_ip *ip, uint16_t iface, const uint8_t mac[6], bool notify,
		char *err)
{
	uint32_t id = nfv_nh_find_gateway(ip, iface);
	int rc;

	if (id != 0 && nfv_nh_ctl(id)->learned) {
		rc = nfv_nh_set_learned(id, true, mac, notify);
		if (rc < 0)
			snprintf(err, NFV_ERR_LEN, "out of memory");
		return rc;
	}
	id = nfv_nh_get_gateway(ip, iface); /* the learned entry's own reference */
	if (id == 0) {
		snprintf(err, NFV_ERR_LEN, "next-hop table full (%u)", NFV_NH_MAX - 1);
		return -ENOSPC;
	}
	rc = nfv_nh_set_learned(id, true, mac, notify);
	if (rc < 0) {
		nfv_nh_put(id);
		snprintf(err, NFV_ERR_LEN, "out of memory");
		return rc;
	}
	nfv_neigh_learned_route(ip, iface);
	return 0;
}

void
nfv_neigh_forget(const struct nfv_ip *ip, uint16_t iface)
{
	struct nfv_prefix host = host_prefix(ip, iface);
	uint32_t id = nfv_nh_find_gateway(ip, iface);
	char err[NFV_ERR_LEN];

	if (id == 0 || !nfv_nh_ctl(id)->learned)
		return;
	nfv_nh_set_learned(id, false, NULL, false);
	if (!nfv_nh_ctl(id)->has_neigh && nfv_route_source_nh(&host, NFV_RT_NEIGH) == id)
		nfv_route_set(&host, NFV_RT_NEIGH, 0, err);
	nfv_nh_put(id);
}

bool
nfv_neigh_is_static(const struct nfv_ip *ip, uint16_t iface)
{
	uint32_t id = nfv_nh_find_gateway(ip, iface);

	return id != 0 && nfv_nh_ctl(id)->has_neigh;
}
