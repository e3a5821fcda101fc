/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Commands of the ip module: addr, neigh, route and nexthop (add, del,
 * load, show), for IPv4 and IPv6.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>

#include "api/cmd.h"
#include "api/parse.h"
#include "modules/infra/cli.h"
#include "modules/infra/port.h"
#include "modules/ip/ip.h"
#include "modules/ip/control/nexthop.h"

static int
bad_prefix(const char *tok, int rc, struct nfv_reply *r)
{
	if (rc == -EDOM)
		NFV_FAIL(r, -EINVAL, "bad prefix '%s': host bits set beyond the prefix length", tok);
	if (rc == -ERANGE)
		NFV_FAIL(r, -EINVAL, "bad prefix '%s': length out of range", tok);
	NFV_FAIL(r, -EINVAL, "bad prefix '%s' (expected ADDR/LEN, IPv4 or IPv6)", tok);
}

/* A trailing "vrf VRF" (after the command's own words): its id in *vrf,
 * and argc without it; the default VRF without one. */
static int
take_vrf(int *argc, char **argv, uint16_t *vrf, struct nfv_reply *r)
{
	int id;

	*vrf = 0;
	if (*argc >= 4 && strcmp(argv[*argc - 2], "vrf") == 0) {
		id = nfv_vrf_id(argv[*argc - 1]);
		if (id < 0)
			NFV_FAIL(r, -ENOENT, "unknown VRF '%s'", argv[*argc - 1]);
		*vrf = (uint16_t)id;
		*argc -= 2;
	} else if (*argc >= 4 && strcmp(argv[*argc - 1], "vrf") == 0) {
		NFV_FAIL(r, -EINVAL, "missing VRF name after 'vrf'");
	}
	return 0;
}

/* The error for words after COMMAND X that take_vrf() left: those after
 * "vrf NAME" when it is not at the end, else the first. */
static int
extra_args(char **argv, int argc, struct nfv_reply *r)
{
	if (argc > 5 && strcmp(argv[3], "vrf") == 0)
		NFV_FAIL(r, -EINVAL, "unexpected '%s' after 'vrf %s'", argv[5], argv[4]);
	NFV_FAIL(r, -EINVAL, "unexpected '%s'", argv[3]);
}

static const char *
source_name(enum nfv_route_source s)
{
	static const char *n[] = { "local", "connected", "static", "kernel", "neighbor" };

	RTE_BUILD_BUG_ON(RTE_DIM(n) != NFV_RT_SOURCE_MAX);

	return s < NFV_RT_SOURCE_MAX ? n[s] : "?";
}

static json_t *
nh_json(uint32_t id)
{
	const struct nfv_nexthop *nh = nfv_nh_table[id];
	char buf[64];
	json_t *o, *via;

	if (nh == NULL)
		return json_pack("{s:s}", "type", "none");
	switch (nh->type) {
	case NFV_NH_LOCAL:
		return json_pack("{s:s}", "type", "local");
	case NFV_NH_BLACKHOLE:
		return json_pack("{s:s}", "type", "blackhole");
	case NFV_NH_CONNECTED:
		return json_pack("{s:s, s:s}", "type", "connected", "dev",
				 nfv_iface_name_of(nh->port_id));
	case NFV_NH_GATEWAY:
		return json_pack("{s:s, s:s, s:s, s:b}", "type", "gateway", "via",
				 nfv_ip_str(&nh->gw, buf, sizeof(buf)), "dev",
				 nfv_iface_name_of(nh->port_id), "resolved", nh->resolved);
	case NFV_NH_GROUP:
		via = json_array();
		for (unsigned int i = 0; i < nh->n_members; i++) {
			const struct nfv_nexthop *m = nfv_nh_table[nh->members[i]];

			if (m != NULL)
				json_array_append_new(via, json_string(nfv_ip_str(&m->gw, buf,
										  sizeof(buf))));
		}
		o = json_pack("{s:s, s:o}", "type", "ecmp", "via", via);
		return o;
	default:
		return json_pack("{s:s}", "type", "?");
	}
}

static json_t *
route_json(const struct nfv_route_info *ri)
{
	char buf[64];
	json_t *nh = nh_json(ri->nh_id), *o;
	const json_t *via = json_object_get(nh, "via"), *dev = json_object_get(nh, "dev");

	o = json_pack("{s:s, s:s, s:s, s:O, s:O, s:s, s:i}", "prefix",
		      nfv_prefix_str(&ri->prefix, buf, sizeof(buf)), "source",
		      source_name(ri->source), "type",
		      json_string_value(json_object_get(nh, "type")),
		      "via", via ? via : json_null(), "dev", dev ? dev : json_null(),
		      "vrf", nfv_vrf_name(ri->prefix.vrf), "nexthop_id", ri->nh_id);
	json_decref(nh);
	if (ri->source == NFV_RT_KERNEL)
		json_object_set_new(o, "proto", json_string(nfv_route_proto_name(ri->proto, buf,
										 sizeof(buf))));
	return o;
}

struct route_vec {
	struct nfv_route_info *v;
	size_t n, cap;
	uint16_t vrf;
};

static void
route_cb(const struct nfv_route_info *ri, void *arg)
{
	struct route_vec *rv = arg;

	if (ri->prefix.vrf != rv->vrf)
		return;
	if (rv->n == rv->cap) {
		size_t cap = rv->cap ? rv->cap * 2 : 1024;
		struct nfv_route_info *v = realloc(rv->v, cap * sizeof(*v));

		if (v == NULL)
			return;
		rv->v = v;
		rv->cap = cap;
	}
	rv->v[rv->n++] = *ri;
}

/* IPv4 before IPv6, then by address, then by prefix length. */
static int
route_cmp(const void *a, const void *b)
{
	const struct nfv_prefix *p = &((const struct nfv_route_info *)a)->prefix;
	const struct nfv_prefix *q = &((const struct nfv_route_info *)b)->prefix;
	int c;

	if (p->ip.family != q->ip.family)
		return p->ip.family == AF_INET ? -1 : 1;
	if (p->ip.family == AF_INET) {
		uint32_t u = rte_be_to_cpu_32(p->ip.v4), v = rte_be_to_cpu_32(q->ip.v4);

		if (u != v)
			return u < v ? -1 : 1;
	} else {
		c = memcmp(p->ip.v6, q->ip.v6, 16);
		if (c != 0)
			return c;
	}
	return (int)p->len - (int)q->len;
}

static json_t *
ip_routes_json(const struct nfv_prefix *exact, uint16_t vrf)
{
	struct route_vec rv = { .vrf = vrf };
	json_t *a = json_array();

	if (exact != NULL) {
		struct nfv_route_info ri;

		if (nfv_route_lookup_exact(exact, &ri) < 0) {
			json_decref(a);
			return NULL;
		}
		json_array_append_new(a, route_json(&ri));
		return json_pack("{s:o}", "routes", a);
	}
	nfv_route_walk(route_cb, &rv);
	if (rv.n > 1)
		qsort(rv.v, rv.n, sizeof(*rv.v), route_cmp);
	for (size_t k = 0; k < rv.n; k++)
		json_array_append_new(a, route_json(&rv.v[k]));
	free(rv.v);
	return json_pack("{s:o}", "routes", a);
}

static void
addr_cb(uint16_t port_id, const struct nfv_prefix *p, void *arg)
{
	char buf[64];

	json_array_append_new(arg, json_pack("{s:s, s:s, s:s}", "address",
					     nfv_prefix_str(p, buf, sizeof(buf)), "dev",
					     nfv_iface_name_of(port_id), "vrf",
					     nfv_vrf_name(nfv_ifaces[port_id].vrf)));
}

static json_t *
nfv_ip_addrs_json(void)
{
	json_t *a = json_array();

	nfv_addr_walk(addr_cb, a);
	return json_pack("{s:o}", "addresses", a);
}

struct neigh_filter {
	json_t *a;
	int dev; /* -1: any */
	int vrf; /* -1: any */
};

static void
neigh_cb(const struct nfv_nexthop *nh, void *arg)
{
	const struct neigh_filter *f = arg;
	char buf[64], mac[RTE_ETHER_ADDR_FMT_SIZE];
	uint16_t vrf = nfv_ifaces[nh->port_id].vrf;

	if (nh->type != NFV_NH_GATEWAY || !nh->has_neigh ||
	    (f->dev >= 0 && nh->port_id != f->dev) || (f->vrf >= 0 && vrf != f->vrf))
		return;
	nfv_format_mac(mac, sizeof(mac), nh->neigh_mac);
	json_array_append_new(f->a, json_pack("{s:s, s:s, s:s, s:s, s:s}", "address",
					      nfv_ip_str(&nh->gw, buf, sizeof(buf)), "lladdr", mac,
					      "dev", nfv_iface_name_of(nh->port_id),
					      "state", "static", "vrf", nfv_vrf_name(vrf)));
}

static void
nh_cb(const struct nfv_nexthop *nh, void *arg)
{
	json_t *o = nh_json(nh->id);

	json_object_set_new(o, "id", json_integer(nh->id));
	json_object_set_new(o, "refcnt", json_integer(nh->refcnt));
	json_array_append_new(arg, o);
}

static json_t *
nfv_ip_nexthops_json(void)
{
	json_t *a = json_array();

	nfv_nh_walk(nh_cb, a);
	return json_pack("{s:o}", "nexthops", a);
}

static int
port_arg(int argc, char **argv, int i, struct nfv_iface **p, struct nfv_reply *r)
{
	if (i + 1 >= argc || strcmp(argv[i], "dev") != 0)
		NFV_FAIL(r, -EINVAL, "%s '%s' (expected 'dev NAME')",
		     i < argc ? "unexpected" : "missing",
		     i < argc ? argv[i] : "dev");
	*p = nfv_iface_need(argv[i + 1], r);
	if (*p == NULL)
		return -ENOENT;
	if (i + 2 < argc)
		NFV_FAIL(r, -EINVAL, "unexpected '%s'", argv[i + 2]);
	return 0;
}

/*
 * "dev NAME [vrf VRF]" from argv[i] (neigh add, neigh del: every neigh
 * command takes [vrf VRF]): a neighbor is in its interface's VRF, so a VRF
 * given must be NAME's.
 */
static int
port_vrf_arg(int argc, char **argv, int i, struct nfv_iface **p, struct nfv_reply *r)
{
	int rc, vrf;

	if (argc <= i + 2 || strcmp(argv[i + 2], "vrf") != 0)
		return port_arg(argc, argv, i, p, r);
	rc = port_arg(i + 2, argv, i, p, r);
	if (rc < 0)
		return rc;
	if (argc == i + 3)
		NFV_FAIL(r, -EINVAL, "missing VRF name after 'vrf'");
	vrf = nfv_vrf_id(argv[i + 3]);
	if (vrf < 0)
		NFV_FAIL(r, -ENOENT, "unknown VRF '%s'", argv[i + 3]);
	if (argc > i + 4)
		NFV_FAIL(r, -EINVAL, "unexpected '%s' after 'vrf %s'", argv[i + 4], argv[i + 3]);
	if ((*p)->vrf != vrf)
		NFV_FAIL(r, -EINVAL, "interface %s is in VRF %s, not in VRF %s", (*p)->name,
			 nfv_vrf_name((*p)->vrf), argv[i + 3]);
	return 0;
}

/* addr add|del ADDR/LEN dev NAME */
static int
cmd_addr(int argc, char **argv, struct nfv_reply *r)
{
	struct nfv_prefix p;
	struct nfv_iface *port;
	int rc;

	if (nfv_cmd_need_args(argc, 5, "addr add|del ADDR/LEN dev NAME", r) < 0)
		return -EINVAL;
	rc = nfv_parse_prefix(argv[2], true, &p);
	if (rc < 0)
		return bad_prefix(argv[2], rc, r);
	rc = port_arg(argc, argv, 3, &port, r);
	if (rc < 0)
		return rc;
	if (strcmp(argv[1], "add") == 0)
		return nfv_addr_add(&p, port->id, r->err);
	return nfv_addr_del(&p, port->id, r->err);
}

/* neigh add IP lladdr MAC dev NAME | neigh del IP dev NAME */
static int
cmd_neigh_add(int argc, char **argv, struct nfv_reply *r)
{
	struct rte_ether_addr mac;
	struct nfv_iface *port;
	struct nfv_ip ip;
	int rc;

	if (nfv_cmd_need_args(argc, 7, "neigh add IP lladdr MAC dev NAME", r) < 0)
		return -EINVAL;
	if (nfv_parse_ip(argv[2], &ip) < 0)
		NFV_FAIL(r, -EINVAL, "bad address '%s'", argv[2]);
	if (strcmp(argv[3], "lladdr") != 0)
		NFV_FAIL(r, -EINVAL, "unexpected '%s' (expected 'lladdr')", argv[3]);
	if (nfv_parse_mac(argv[4], &mac) < 0)
		NFV_FAIL(r, -EINVAL, "bad MAC address '%s' (expected xx:xx:xx:xx:xx:xx)", argv[4]);
	rc = port_vrf_arg(argc, argv, 5, &port, r);
	if (rc < 0)
		return rc;
	return nfv_neigh_add(&ip, &mac, port->id, r->err);
}

static int
cmd_neigh_del(int argc, char **argv, struct nfv_reply *r)
{
	struct nfv_iface *port;
	struct nfv_ip ip;
	int rc;

	if (nfv_cmd_need_args(argc, 5, "neigh del IP dev NAME", r) < 0)
		return -EINVAL;
	if (nfv_parse_ip(argv[2], &ip) < 0)
		NFV_FAIL(r, -EINVAL, "bad address '%s'", argv[2]);
	rc = port_vrf_arg(argc, argv, 3, &port, r);
	if (rc < 0)
		return rc;
	return nfv_neigh_del(&ip, port->id, r->err);
}

/*
 * route add PREFIX via IP [dev NAME] [via IP [dev NAME]]...
 * route add PREFIX dev NAME
 * route add PREFIX blackhole
 */
static int
cmd_route_add(int argc, char **argv, struct nfv_reply *r)
{
	static const char usage[] = "route add PREFIX via IP [dev NAME] [via IP ...] | "
				    "route add PREFIX dev NAME | route add PREFIX blackhole";
	struct nfv_route_spec spec;
	int rc, i;

	if (nfv_cmd_need_args(argc, 4, usage, r) < 0)
		return -EINVAL;
	memset(&spec, 0, sizeof(spec));
	rc = nfv_parse_prefix(argv[2], false, &spec.prefix);
	if (rc < 0)
		return bad_prefix(argv[2], rc, r);
	rc = take_vrf(&argc, argv, &spec.prefix.vrf, r);
	if (rc < 0)
		return rc;
	if (argc < 4)
		NFV_FAIL(r, -EINVAL, "missing arguments; usage: %s", usage);
	if (strcmp(argv[3], "blackhole") == 0) {
		if (argc > 4)
			NFV_FAIL(r, -EINVAL, "unexpected '%s'", argv[4]);
		spec.type = NFV_NH_BLACKHOLE;
		return nfv_route_add(&spec, r->err);
	}
	if (strcmp(argv[3], "dev") == 0) {
		struct nfv_iface *port;

		rc = port_arg(argc, argv, 3, &port, r);
		if (rc < 0)
			return rc;
		spec.type = NFV_NH_CONNECTED;
		spec.port_id = port->id;
		return nfv_route_add(&spec, r->err);
	}
	spec.type = NFV_NH_GATEWAY;
	for (i = 3; i < argc;) {
		if (strcmp(argv[i], "via") != 0)
			NFV_FAIL(r, -EINVAL, "unexpected '%s' (expected 'via', 'dev' or 'blackhole')",
			     argv[i]);
		if (i + 1 >= argc)
			NFV_FAIL(r, -EINVAL, "missing gateway after 'via'");
		if (spec.n_gw == NFV_ECMP_MAX)
			NFV_FAIL(r, -EINVAL, "too many gateways (at most %u)", NFV_ECMP_MAX);
		rc = nfv_parse_ip(argv[i + 1], &spec.gw[spec.n_gw]);
		if (rc < 0)
			NFV_FAIL(r, -EINVAL, "bad gateway '%s'", argv[i + 1]);
		if (spec.gw[spec.n_gw].family != spec.prefix.ip.family)
			NFV_FAIL(r, -EINVAL, "gateway '%s' is not of the family of prefix '%s'",
			     argv[i + 1], argv[2]);
		spec.gw_port[spec.n_gw] = -1;
		i += 2;
		if (i < argc && strcmp(argv[i], "dev") == 0) {
			struct nfv_iface *port;

			if (i + 1 >= argc)
				NFV_FAIL(r, -EINVAL, "missing port name after 'dev'");
			port = nfv_iface_need(argv[i + 1], r);
			if (port == NULL)
				return -ENOENT;
			spec.gw_port[spec.n_gw] = port->id;
			i += 2;
		}
		spec.n_gw++;
	}
	return nfv_route_add(&spec, r->err);
}

static int
cmd_route_del(int argc, char **argv, struct nfv_reply *r)
{
	struct nfv_prefix p;
	int rc;

	uint16_t vrf;

	if (nfv_cmd_need_args(argc, 3, "route del PREFIX [vrf VRF]", r) < 0)
		return -EINVAL;
	rc = take_vrf(&argc, argv, &vrf, r);
	if (rc < 0)
		return rc;
	if (argc > 3)
		return extra_args(argv, argc, r);
	rc = nfv_parse_prefix(argv[2], false, &p);
	if (rc < 0)
		return bad_prefix(argv[2], rc, r);
	p.vrf = vrf;
	return nfv_route_del(&p, r->err);
}

static int
cmd_route_load(int argc, char **argv, struct nfv_reply *r)
{
	uint64_t start = rte_get_tsc_cycles();
	uint32_t n = 0;
	uint16_t vrf;
	int rc;

	if (nfv_cmd_need_args(argc, 3, "route load FILE [vrf VRF]", r) < 0)
		return -EINVAL;
	rc = take_vrf(&argc, argv, &vrf, r);
	if (rc < 0)
		return rc;
	if (argc > 3)
		return extra_args(argv, argc, r);
	rc = nfv_route_load(argv[2], vrf, &n, r->err);
	if (rc < 0)
		return rc;
	r->data = json_pack("{s:i, s:f}", "routes_loaded", (json_int_t)n, "seconds",
			    (double)(rte_get_tsc_cycles() - start) / (double)rte_get_tsc_hz());
	return 0;
}

static int
cmd_route_show(int argc, char **argv, struct nfv_reply *r)
{
	struct nfv_prefix p;
	uint16_t vrf = 0;
	int rc;

	if (argc == 4 && strcmp(argv[2], "vrf") == 0) {
		rc = nfv_vrf_id(argv[3]);
		if (rc < 0)
			NFV_FAIL(r, -ENOENT, "unknown VRF '%s'", argv[3]);
		vrf = (uint16_t)rc;
		argc = 2;
	} else {
		rc = take_vrf(&argc, argv, &vrf, r);
		if (rc < 0)
			return rc;
	}
	if (argc > 3)
		return extra_args(argv, argc, r);
	if (argc == 3) {
		if (strcmp(argv[2], "vrf") == 0)
			NFV_FAIL(r, -EINVAL, "missing VRF name after 'vrf'");
		if (strchr(argv[2], '/') == NULL && nfv_parse_ip(argv[2], &p.ip) == 0) {
			/* An address: the route it takes, the longest prefix
			 * holding it (as VPP's "show ip fib ADDR"). */
			for (int len = p.ip.family == AF_INET ? 32 : 128; len >= 0; len--) {
				struct nfv_prefix q = p;

				q.len = (uint8_t)len;
				q.pad = 0;
				q.vrf = vrf;
				nfv_prefix_mask(&q);
				r->data = ip_routes_json(&q, vrf);
				if (r->data != NULL)
					return 0;
			}
			if (vrf != 0)
				NFV_FAIL(r, -ENOENT, "no route to %s in VRF %s", argv[2],
					 nfv_vrf_name(vrf));
			NFV_FAIL(r, -ENOENT, "no route to %s", argv[2]);
		}
		rc = nfv_parse_prefix(argv[2], true, &p);
		if (rc < 0)
			return bad_prefix(argv[2], rc, r);
		nfv_prefix_mask(&p);
		p.vrf = vrf;
		r->data = ip_routes_json(&p, vrf);
		if (r->data == NULL) {
			if (vrf != 0)
				NFV_FAIL(r, -ENOENT, "no route %s in VRF %s", argv[2],
					 nfv_vrf_name(vrf));
			NFV_FAIL(r, -ENOENT, "no route %s", argv[2]);
		}
		return 0;
	}
	r->data = ip_routes_json(NULL, vrf);
	return 0;
}

/* neigh show [dev NAME] [vrf VRF] */
static int
cmd_neigh_show(int argc, char **argv, struct nfv_reply *r)
{
	struct neigh_filter f = { .a = NULL, .dev = -1, .vrf = -1 };

	for (int i = 2; i < argc; i += 2) {
		if (strcmp(argv[i], "dev") != 0 && strcmp(argv[i], "vrf") != 0)
			NFV_FAIL(r, -EINVAL, "unexpected '%s' (expected 'dev' or 'vrf')", argv[i]);
		if (i + 1 >= argc)
			NFV_FAIL(r, -EINVAL, "missing %s after '%s'",
				 argv[i][0] == 'd' ? "interface name" : "VRF name", argv[i]);
		if (argv[i][0] == 'd') {
			struct nfv_iface *ifc = nfv_iface_need(argv[i + 1], r);

			if (ifc == NULL)
				return -ENOENT;
			f.dev = ifc->id;
		} else {
			f.vrf = nfv_vrf_id(argv[i + 1]);
			if (f.vrf < 0)
				NFV_FAIL(r, -ENOENT, "unknown VRF '%s'", argv[i + 1]);
		}
	}
	/* Without vrf the default VRF (DESIGN 3); dev alone: that interface's
	 * neighbors, in whichever VRF it is. */
	if (f.vrf < 0 && f.dev < 0)
		f.vrf = 0;
	f.a = json_array();
	nfv_nh_walk(neigh_cb, &f);
	nfv_neigh_rows(f.a, f.dev, f.vrf);
	r->data = json_pack("{s:o}", "neighbors", f.a);
	return 0;
}


bool nfv_ip_reroute_all;

/* debug reroute on|off: the path of packets routed again at the ingress
 * arc's end (nfv_ip_reroute_all), for tests. */
static int
cmd_debug_reroute(int argc, char **argv, struct nfv_reply *r)
{
	if (nfv_cmd_need_args(argc, 3, "debug reroute on|off", r) < 0)
		return -EINVAL;
	if (argc > 3)
		NFV_FAIL(r, -EINVAL, "unexpected '%s'", argv[3]);
	if (strcmp(argv[2], "on") != 0 && strcmp(argv[2], "off") != 0)
		NFV_FAIL(r, -EINVAL, "expected on or off, not '%s'", argv[2]);
	__atomic_store_n(&nfv_ip_reroute_all, strcmp(argv[2], "on") == 0, __ATOMIC_RELAXED);
	return 0;
}

/* addr show [vrf VRF]: the addresses of the interfaces of one VRF. */
static int
cmd_addr_show(int argc, char **argv, struct nfv_reply *r)
{
	json_t *a, *e;
	size_t i;
	int vrf;

	if (argc > 2 && strcmp(argv[2], "vrf") != 0)
		NFV_FAIL(r, -EINVAL, "unexpected '%s' (expected 'vrf')", argv[2]);
	if (argc == 3)
		NFV_FAIL(r, -EINVAL, "missing VRF name after 'vrf'");
	if (argc > 4)
		NFV_FAIL(r, -EINVAL, "unexpected '%s' after 'vrf %s'", argv[4], argv[3]);
	r->data = nfv_ip_addrs_json();
	if (argc < 4)
		return 0;
	vrf = nfv_vrf_id(argv[3]);
	if (vrf < 0) {
		json_decref(r->data);
		r->data = NULL;
		NFV_FAIL(r, -ENOENT, "unknown VRF '%s'", argv[3]);
	}
	a = json_object_get(r->data, "addresses");
	for (i = json_array_size(a); i-- > 0;) {
		e = json_array_get(a, i);
		if (strcmp(json_string_value(json_object_get(e, "vrf")), nfv_vrf_name(vrf)) != 0)
			json_array_remove(a, i);
	}
	return 0;
}
NFV_SHOW_COMMAND(cmd_nexthop_show, nfv_ip_nexthops_json)

static const struct nfv_command ip_commands[] = {
	{ "addr", "add", cmd_addr, "addr add ADDR/LEN dev NAME" },
	{ "addr", "del", cmd_addr, "addr del ADDR/LEN dev NAME" },
	{ "addr", "show", cmd_addr_show, "addr show [vrf VRF]" },
	{ "neigh", "add", cmd_neigh_add, "neigh add IP lladdr MAC dev NAME [vrf VRF]" },
	{ "neigh", "del", cmd_neigh_del, "neigh del IP dev NAME [vrf VRF]" },
	{ "neigh", "show", cmd_neigh_show, "neigh show [dev NAME] [vrf VRF]" },
	{ "route", "add", cmd_route_add,
	  "route add PREFIX via IP [dev NAME] [via IP ...] | PREFIX dev NAME | "
	  "PREFIX blackhole; then [vrf VRF]" },
	{ "route", "del", cmd_route_del, "route del PREFIX [vrf VRF]" },
	{ "route", "load", cmd_route_load, "route load FILE [vrf VRF]" },
	{ "route", "show", cmd_route_show, "route show [PREFIX|ADDR] [vrf VRF]" },
	{ "nexthop", "show", cmd_nexthop_show, "nexthop show" },
	{ "debug", "reroute", cmd_debug_reroute, "debug reroute on|off" },
};
NFV_COMMANDS_REGISTER(ip_commands);
