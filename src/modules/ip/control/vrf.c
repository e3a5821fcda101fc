/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * VRFs: routing tables of their own, one per tenant. Every interface is in
 * one VRF (nfv_ifaces[].vrf, 0 = "default"); its addresses, connected and
 * local routes, neighbors and their host routes are in that VRF's table,
 * and the packets it receives are looked up there. A VRF other than the
 * default one has a small pair of RIB-based tables (control/fib.c).
 *
 * "port set NAME vrf VRF" (an interface attribute infra hands over) moves
 * an interface: what goes through it in the old VRF is removed, its
 * addresses and static neighbors are added again in the new one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_lcore.h>
#include <rte_malloc.h>

#include "modules/ip/ip.h"
#include "modules/ip/control/fib.h"
#include "modules/ip/control/nexthop.h"
#include "modules/ip/control/route.h"
#include "core/iface_event.h"
#include "core/log.h"
#include "modules/infra/iface.h"


struct vrf {
	bool used;
	char name[NFV_VRF_NAME_LEN];
	size_t table_bytes; /* what its tables took from the DPDK heap */
};

static struct vrf vrfs[NFV_VRF_MAX] = { [0] = { .used = true, .name = "default" } };

bool
nfv_vrf_used(uint16_t vrf)
{
	return vrf < NFV_VRF_MAX && vrfs[vrf].used;
}

const char *
nfv_vrf_name(uint16_t vrf)
{
	return nfv_vrf_used(vrf) ? vrfs[vrf].name : "?";
}

int
nfv_vrf_id(const char *name)
{
	for (uint16_t i = 0; i < NFV_VRF_MAX; i++)
		if (vrfs[i].used && strcmp(vrfs[i].name, name) == 0)
			return i;
	return -ENOENT;
}

size_t
nfv_vrf_table_bytes(uint16_t vrf)
{
	return nfv_vrf_used(vrf) ? vrfs[vrf].table_bytes : 0;
}

static size_t
heap_allocated(void)
{
	struct rte_malloc_socket_stats st;
	size_t n = 0;

	for (unsigned int s = 0; s < rte_socket_count(); s++)
		if (rte_malloc_get_socket_stats(rte_socket_id_by_idx(s), &st) == 0)
			n += st.heap_allocsz_bytes;
	return n;
}

static bool
valid_name(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n >= NFV_VRF_NAME_LEN ||
	    !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')))
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '-' || c == '.'))
			return false;
	}
	return true;
}

int
nfv_vrf_add(const char *name, char *err)
{
	size_t before;
	uint16_t id;

	if (!valid_name(name)) {
		snprintf(err, NFV_ERR_LEN, "bad VRF name '%s' (letters, digits, '_', '-', '.'; "
			 "starts with a letter; at most %u)", name, NFV_VRF_NAME_LEN - 1);
		return -EINVAL;
	}
	if (nfv_vrf_id(name) >= 0) {
		snprintf(err, NFV_ERR_LEN, "VRF %s already exists", name);
		return -EEXIST;
	}
	for (id = 1; id < NFV_VRF_MAX && vrfs[id].used; id++)
		;
	if (id == NFV_VRF_MAX) {
		snprintf(err, NFV_ERR_LEN, "no VRF id left (at most %u VRFs)", NFV_VRF_MAX);
		return -ENOSPC;
	}
	snprintf(vrfs[id].name, sizeof(vrfs[id].name), "%s", name);
	vrfs[id].used = true;
	before = heap_allocated();
	if (nfv_fib_vrf_create(id) < 0) {
		vrfs[id].used = false;
		snprintf(err, NFV_ERR_LEN, "out of memory for the tables of VRF %s", name);
		return -ENOMEM;
	}
	vrfs[id].table_bytes = heap_allocated() - before;
	NFV_LOG(INFO, "vrf %s: id %u, tables %zu KB", name, id, vrfs[id].table_bytes >> 10);
	return 0;
}

/* The interfaces in a VRF, as "a, b, c" (at most len bytes). */
static unsigned int
vrf_ifaces(uint16_t vrf, char *buf, size_t len)
{
	unsigned int n = 0;
	size_t off = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < NFV_IFACE_MAX; i++) {
		if (!nfv_ifaces[i].used || nfv_ifaces[i].vrf != vrf)
			continue;
		if (off < len)
			off += (size_t)snprintf(buf + off, len - off, "%s%s", n ? ", " : "",
						nfv_ifaces[i].name);
		n++;
	}
	return n;
}

int
nfv_vrf_del(const char *name, char *err)
{
	int id = nfv_vrf_id(name);
	char list[160];
	unsigned int n;

	if (id < 0) {
		snprintf(err, NFV_ERR_LEN, "unknown VRF '%s'", name);
		return -ENOENT;
	}
	if (id == 0) {
		snprintf(err, NFV_ERR_LEN, "VRF default always exists and cannot be deleted");
		return -EPERM;
	}
	n = vrf_ifaces((uint16_t)id, list, sizeof(list));
	if (n > 0) {
		snprintf(err, NFV_ERR_LEN, "VRF %s is in use by interface%s %s (move %s to another "
			 "VRF first)", name, n > 1 ? "s" : "", list, n > 1 ? "them" : "it");
		return -EBUSY;
	}
	/* Its static routes (blackholes: nothing else is left without
	 * interfaces) go; then the tables, once no worker reads them. */
	nfv_route_flush_vrf((uint16_t)id);
	nfv_fib_vrf_destroy((uint16_t)id);
	memset(&vrfs[id], 0, sizeof(vrfs[id]));
	NFV_LOG(INFO, "vrf %s deleted", name);
	return 0;
}

struct saved_neigh {
	struct nfv_ip ip;
	struct rte_ether_addr mac;
};

/*
 * Moves iface to vrf. Checked first, so that a refusal changes nothing:
 * its addresses must be free in the new VRF (the address itself and, for
 * a subnet, its connected network), and so must its neighbors' addresses.
 */
int
nfv_ip_iface_set_vrf(uint16_t iface, uint16_t vrf, char *err)
{
	struct nfv_prefix as[NFV_ADDR_PER_PORT_MAX];
	struct saved_neigh *ns = NULL;
	unsigned int n_a = 0, n_n = 0, cap = 0;
	char buf[64], e[NFV_ERR_LEN];
	int rc = 0;

	if (nfv_ifaces[iface].vrf == vrf)
		return 0;
	/* Its addresses. */
	n_a = nfv_addr_of_iface(iface, as);
	for (unsigned int i = 0; i < n_a; i++) {
		struct nfv_prefix subnet = as[i];

		if (nfv_addr_is_local(&as[i].ip, vrf)) {
			snprintf(err, NFV_ERR_LEN, "address %s of %s is already configured in VRF %s",
				 nfv_ip_str(&as[i].ip, buf, sizeof(buf)), nfv_ifaces[iface].name,
				 nfv_vrf_name(vrf));
			return -EEXIST;
		}
		nfv_prefix_mask(&subnet);
		if (subnet.len == (subnet.ip.family == AF_INET ? 32 : 128))
			continue;
		for (uint16_t other = 0; other < NFV_IFACE_MAX; other++) {
			/* The same subnet connected elsewhere in the VRF. */
			struct nfv_prefix o[NFV_ADDR_PER_PORT_MAX];
			unsigned int n_o;

			if (!nfv_ifaces[other].used || nfv_ifaces[other].vrf != vrf)
				continue;
			n_o = nfv_addr_of_iface(other, o);
			for (unsigned int k = 0; k < n_o; k++) {
				struct nfv_prefix s = o[k];

				nfv_prefix_mask(&s);
				if (s.len == subnet.len && nfv_ip_equal(&s.ip, &subnet.ip)) {
					snprintf(err, NFV_ERR_LEN, "subnet %s of %s is already "
						 "connected on %s in VRF %s",
						 nfv_prefix_str(&subnet, buf, sizeof(buf)),
						 nfv_ifaces[iface].name, nfv_iface_name_of(other),
						 nfv_vrf_name(vrf));
					return -EEXIST;
				}
			}
		}
	}
	/* Its static neighbors. */
	for (uint32_t id = 1; id < NFV_NH_MAX; id++) {
		const struct nfv_nexthop *nh = nfv_nh_ctl(id);

		if (nh == NULL || nh->type != NFV_NH_GATEWAY || nh->port_id != iface ||
		    !nh->has_neigh)
			continue;
		if (!nfv_ip_is_link_local(&nh->gw)) {
			struct nfv_prefix host = { .ip = nh->gw,
						   .len = nh->gw.family == AF_INET ? 32 : 128,
						   .vrf = vrf };

			if (nfv_route_source_nh(&host, NFV_RT_NEIGH) != 0 ||
			    nfv_addr_is_local(&nh->gw, vrf)) {
				snprintf(err, NFV_ERR_LEN, "neighbor %s of %s already exists in "
					 "VRF %s", nfv_ip_str(&nh->gw, buf, sizeof(buf)),
					 nfv_ifaces[iface].name, nfv_vrf_name(vrf));
				free(ns);
				return -EEXIST;
			}
		}
		if (n_n == cap) {
			struct saved_neigh *x;

			cap = cap ? cap * 2 : 16;
			x = realloc(ns, cap * sizeof(*ns));
			if (x == NULL) {
				free(ns);
				snprintf(err, NFV_ERR_LEN, "out of memory");
				return -ENOMEM;
			}
			ns = x;
		}
		ns[n_n].ip = nh->gw;
		memcpy(ns[n_n].mac.addr_bytes, nh->neigh_mac, 6);
		n_n++;
	}
	/* Out of the old VRF: routes through it, its neighbors, its addresses. */
	nfv_ip_port_removed(iface);
	nfv_iface_set_vrf(iface, vrf);
	/* Into the new one. */
	for (unsigned int i = 0; i < n_a; i++)
		if (nfv_addr_add(&as[i], iface, e) < 0) {
			NFV_LOG(WARNING, "%s: address %s not moved to VRF %s: %s",
				nfv_ifaces[iface].name, nfv_prefix_str(&as[i], buf, sizeof(buf)),
				nfv_vrf_name(vrf), e);
			rc = rc ? rc : -ENOSPC;
		}
	for (unsigned int i = 0; i < n_n; i++)
		if (nfv_neigh_add(&ns[i].ip, &ns[i].mac, iface, e) < 0) {
			NFV_LOG(WARNING, "%s: neighbor %s not moved to VRF %s: %s",
				nfv_ifaces[iface].name, nfv_ip_str(&ns[i].ip, buf, sizeof(buf)),
				nfv_vrf_name(vrf), e);
			rc = rc ? rc : -ENOSPC;
		}
	free(ns);
	if (rc < 0)
		snprintf(err, NFV_ERR_LEN, "%s moved to VRF %s, but not all its addresses and "
			 "neighbors fit its table (see the log)", nfv_ifaces[iface].name,
			 nfv_vrf_name(vrf));
	NFV_LOG(INFO, "%s: moved to VRF %s with %u addresses and %u neighbors",
		nfv_ifaces[iface].name, nfv_vrf_name(vrf), n_a, n_n);
	return rc;
}

/* "port set NAME vrf VRF". */
static int
vrf_attr(uint16_t iface, const char *value, char *err)
{
	int id = nfv_vrf_id(value);

	if (id < 0) {
		snprintf(err, NFV_ERR_LEN, "unknown VRF '%s'", value);
		return -ENOENT;
	}
	return nfv_ip_iface_set_vrf(iface, (uint16_t)id, err);
}

static const char *
vrf_name_of_iface(uint16_t iface)
{
	return iface < NFV_IFACE_MAX ? nfv_vrf_name(nfv_ifaces[iface].vrf) : NULL;
}

RTE_INIT(nfv_vrf_register)
{
	nfv_iface_attr_register("vrf", vrf_attr);
	nfv_iface_vrf_namer_register(vrf_name_of_iface);
}
