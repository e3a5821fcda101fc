/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Interface addresses. Like Linux, "addr add A/L dev P" installs the local
 * host route (A/32 or A/128 -> local) and the connected route (the subnet
 * -> P, next hop = the packet's destination). The first address of each
 * family on a port is where ICMP errors from that port come from.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/iface_event.h"
#include "modules/ip/ip.h"
#include "modules/ip/control/nexthop.h"
#include "modules/ip/control/route.h"
#include "core/worker.h"
#include "modules/infra/port.h"

struct port_addrs {
	unsigned int n;
	struct nfv_prefix a[NFV_ADDR_PER_PORT_MAX];
};

static struct port_addrs addrs[NFV_IFACE_MAX];
struct nfv_port_l3 *nfv_port_l3[NFV_IFACE_MAX];
/* Two per port: a publish writes the one the workers do not see (they
 * left it at the previous publish's RCU sync), so it needs no memory. */
static struct nfv_port_l3 l3_buf[NFV_IFACE_MAX][2];

static struct nfv_prefix
host_prefix(const struct nfv_ip *ip, uint16_t vrf)
{
	struct nfv_prefix h = { .ip = *ip, .len = ip->family == AF_INET ? 32 : 128, .vrf = vrf };

	return h;
}

static struct nfv_prefix
subnet_of(const struct nfv_prefix *p)
{
	struct nfv_prefix s = *p;

	nfv_prefix_mask(&s);
	return s;
}

static void
publish_l3(uint16_t port_id)
{
	struct nfv_port_l3 *l3 = nfv_port_l3[port_id] == &l3_buf[port_id][0] ?
				 &l3_buf[port_id][1] : &l3_buf[port_id][0];
	const struct port_addrs *pa = &addrs[port_id];

	memset(l3, 0, sizeof(*l3));
	for (unsigned int i = 0; i < pa->n; i++) {
		if (pa->a[i].ip.family == AF_INET && !l3->has4) {
			l3->has4 = true;
			l3->src4 = pa->a[i].ip.v4;
		} else if (pa->a[i].ip.family == AF_INET6 && !l3->has6 &&
			   !nfv_ip_is_link_local(&pa->a[i].ip)) {
			/* Errors go to global addresses: never from a link-local
			 * one (RFC 4443 2.2 c, by source address selection). */
			l3->has6 = true;
			memcpy(l3->src6, pa->a[i].ip.v6, 16);
		}
	}
	__atomic_store_n(&nfv_port_l3[port_id], l3, __ATOMIC_RELEASE);
	nfv_rcu_sync();
}

static bool
subnet_in_use(uint16_t port_id, const struct nfv_prefix *subnet, int skip)
{
	const struct port_addrs *pa = &addrs[port_id];

	for (unsigned int i = 0; i < pa->n; i++) {
		struct nfv_prefix s = subnet_of(&pa->a[i]);

		if ((int)i != skip && s.len == subnet->len && nfv_ip_equal(&s.ip, &subnet->ip))
			return true;
	}
	return false;
}

/* The address's prefix in the VRF of the interface. */
int
nfv_addr_add(const struct nfv_prefix *pfx, uint16_t port_id, char *err)
{
	struct port_addrs *pa = &addrs[port_id];
	uint16_t vrf = nfv_ifaces[port_id].vrf;
	struct nfv_prefix in_vrf = *pfx, *p = &in_vrf;
	struct nfv_prefix host = host_prefix(&p->ip, vrf), subnet;
	bool host_is_subnet = host.len == p->len;
	const char *why = nfv_ip_unusable(&p->ip);
	char buf[64];
	int rc;

	in_vrf.vrf = vrf;
	subnet = subnet_of(p);

	if (why != NULL) {
		snprintf(err, NFV_ERR_LEN, "%s is %s, not an interface address",
			 nfv_ip_str(&p->ip, buf, sizeof(buf)), why);
		return -EINVAL;
	}
	if (nfv_addr_is_local(&p->ip, vrf)) {
		if (vrf == 0)
			snprintf(err, NFV_ERR_LEN, "address %s is already configured",
				 nfv_ip_str(&p->ip, buf, sizeof(buf)));
		else
			snprintf(err, NFV_ERR_LEN, "address %s is already configured in VRF %s",
				 nfv_ip_str(&p->ip, buf, sizeof(buf)), nfv_vrf_name(vrf));
		return -EEXIST;
	}
	if ((p->ip.family == AF_INET && p->len < 31 && nfv_ip_equal(&p->ip, &subnet.ip)) ||
	    (p->ip.family == AF_INET && p->len < 31 &&
	     (rte_be_to_cpu_32(p->ip.v4) | (p->len ? ~0u << (32 - p->len) : 0)) == ~0u)) {
		snprintf(err, NFV_ERR_LEN, "%s is the network or broadcast address of its subnet",
			 nfv_prefix_str(p, buf, sizeof(buf)));
		return -EINVAL;
	}
	if (pa->n == NFV_ADDR_PER_PORT_MAX) {
		snprintf(err, NFV_ERR_LEN, "port %s already has %u addresses",
			 nfv_iface_name_of(port_id),
			 NFV_ADDR_PER_PORT_MAX);
		return -ENOSPC;
	}
	if (!host_is_subnet) {
		for (uint16_t o = 0; o < NFV_IFACE_MAX; o++) {
			if (o != port_id && nfv_ifaces[o].vrf == vrf &&
			    subnet_in_use(o, &subnet, -1)) {
				snprintf(err, NFV_ERR_LEN,
					 "subnet %s is already connected on port %s",
					 nfv_prefix_str(&subnet, buf, sizeof(buf)),
					 nfv_iface_name_of(o));
				return -EEXIST;
			}
		}
	}
	if (!nfv_route_reserve(p->ip.family, vrf,
				(nfv_route_lookup_exact(&host, &(struct nfv_route_info){ 0 }) < 0) +
				(!host_is_subnet &&
				 nfv_route_lookup_exact(&subnet,
							&(struct nfv_route_info){ 0 }) < 0))) {
		snprintf(err, NFV_ERR_LEN, "route table full");
		return -ENOSPC;
	}
	rc = nfv_route_set(&host, NFV_RT_LOCAL, nfv_nh_get_local(p->ip.family), err);
	if (rc < 0)
		return rc;
	if (!host_is_subnet && !subnet_in_use(port_id, &subnet, -1)) {
		rc = nfv_route_set(&subnet, NFV_RT_CONNECTED,
				   nfv_nh_get_connected(p->ip.family, port_id), err);
		if (rc < 0) {
			nfv_route_set(&host, NFV_RT_LOCAL, 0, err);
			return rc;
		}
	}
	pa->a[pa->n++] = *p;
	publish_l3(port_id);
	nfv_iface_event_notify(NFV_IFACE_ADDR, port_id);
	return 0;
}

static int
addr_index(uint16_t port_id, const struct nfv_prefix *p)
{
	const struct port_addrs *pa = &addrs[port_id];

	for (unsigned int i = 0; i < pa->n; i++)
		if (pa->a[i].len == p->len && nfv_ip_equal(&pa->a[i].ip, &p->ip))
			return (int)i;
	return -1;
}

static void
addr_remove_at(uint16_t port_id, int idx)
{
	struct port_addrs *pa = &addrs[port_id];
	struct nfv_prefix p = pa->a[idx];
	struct nfv_prefix host = host_prefix(&p.ip, p.vrf), subnet = subnet_of(&p);
	char err[NFV_ERR_LEN];

	nfv_route_set(&host, NFV_RT_LOCAL, 0, err);
	if (host.len != p.len && !subnet_in_use(port_id, &subnet, idx))
		nfv_route_set(&subnet, NFV_RT_CONNECTED, 0, err);
	memmove(&pa->a[idx], &pa->a[idx + 1], (pa->n - (unsigned int)idx - 1) * sizeof(pa->a[0]));
	pa->n--;
}

int
nfv_addr_del(const struct nfv_prefix *p, uint16_t port_id, char *err)
{
	char buf[64];
	int idx = addr_index(port_id, p);

	if (idx < 0) {
		snprintf(err, NFV_ERR_LEN, "address %s is not configured on port %s",
			 nfv_prefix_str(p, buf, sizeof(buf)), nfv_iface_name_of(port_id));
		return -ENOENT;
	}
	addr_remove_at(port_id, idx);
	publish_l3(port_id);
	nfv_iface_event_notify(NFV_IFACE_ADDR, port_id);
	return 0;
}

unsigned int
nfv_addr_port_removed(uint16_t port_id)
{
	unsigned int n = addrs[port_id].n;

	while (addrs[port_id].n > 0)
		addr_remove_at(port_id, (int)addrs[port_id].n - 1);
	__atomic_store_n(&nfv_port_l3[port_id], NULL, __ATOMIC_RELEASE);
	nfv_rcu_sync();
	return n;
}

int
nfv_addr_find_port(const struct nfv_ip *gw, uint16_t vrf, uint16_t *port_id)
{
	int best_len = -1;

	for (uint16_t pid = 0; pid < NFV_IFACE_MAX; pid++) {
		const struct port_addrs *pa = &addrs[pid];

		if (pa->n == 0 || nfv_ifaces[pid].vrf != vrf)
			continue;

		for (unsigned int i = 0; i < pa->n; i++) {
			if (nfv_prefix_contains(&pa->a[i], gw) && pa->a[i].len > best_len) {
				best_len = pa->a[i].len;
				*port_id = pid;
			}
		}
	}
	return best_len < 0 ? -ENOENT : 0;
}

bool
nfv_addr_is_local(const struct nfv_ip *ip, uint16_t vrf)
{
	for (uint16_t pid = 0; pid < NFV_IFACE_MAX; pid++)
		for (unsigned int i = 0; i < addrs[pid].n; i++)
			if (addrs[pid].a[i].vrf == vrf && nfv_ip_equal(&addrs[pid].a[i].ip, ip))
				return true;
	return false;
}

void
nfv_addr_walk(nfv_addr_cb cb, void *arg)
{
	for (uint16_t pid = 0; pid < NFV_IFACE_MAX; pid++)
		for (unsigned int i = 0; i < addrs[pid].n; i++)
			cb(pid, &addrs[pid].a[i], arg);
}

void
nfv_addr_fini(void)
{
	for (uint16_t pid = 0; pid < NFV_IFACE_MAX; pid++) {
		nfv_port_l3[pid] = NULL;
		addrs[pid].n = 0;
	}
}

unsigned int
nfv_addr_of_iface(uint16_t iface, struct nfv_prefix *out)
{
	memcpy(out, addrs[iface].a, addrs[iface].n * sizeof(out[0]));
	return addrs[iface].n;
}
