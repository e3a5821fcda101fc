/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Static routes ("route add/del/load") on top of the route database, and
 * the hooks that keep the tables consistent when ports come and go.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_malloc.h>

#include "modules/ip/ip.h"
#include "modules/ip/control/fib.h"
#include "modules/ip/control/nexthop.h"
#include "modules/ip/control/route.h"
#include "api/cmdfile.h"
#include "api/parse.h"
#include "core/iface_event.h"
#include "core/log.h"
#include "modules/infra/port.h"

unsigned int nfv_addr_port_removed(uint16_t port_id);
unsigned int nfv_neigh_port_removed(uint16_t port_id);
void nfv_addr_fini(void);

struct nfv_ip_memory nfv_ip_memory;

size_t
nfv_heap_used(int socket_id)
{
	struct rte_malloc_socket_stats st;

	if (rte_malloc_get_socket_stats(socket_id, &st) != 0)
		return 0;
	return st.heap_allocsz_bytes;
}

int
nfv_ip_init(const struct nfv_limits *limits, int socket_id)
{
	size_t before = nfv_heap_used(socket_id);
	int rc;

	memset(&nfv_ip_memory, 0, sizeof(nfv_ip_memory));
	rc = nfv_nh_init(socket_id);
	if (rc < 0) {
		NFV_LOG(ERR, "cannot allocate the next-hop table");
		return rc;
	}
	nfv_ip_memory.nexthops = nfv_heap_used(socket_id) - before;
	rc = nfv_nh_use_init(socket_id);
	if (rc < 0)
		return rc;
	before = nfv_heap_used(socket_id);
	rc = nfv_route_db_init(limits, socket_id);
	nfv_ip_memory.routes = nfv_heap_used(socket_id) - before;
	if (rc < 0) {
		NFV_LOG(ERR, "cannot allocate the route database for %u routes; lower "
			"--max-routes4/--max-routes6 or give nfvd more memory",
			limits->max_routes4 + limits->max_routes6);
		return rc;
	}
	{
		struct nfv_limits fib = *limits;

		nfv_route_db_start_limits(&fib);
		nfv_fib_tbl8_max(limits->tbl8_4, limits->tbl8_6);
		return nfv_fib_init(&fib, socket_id);
	}
}

void
nfv_ip_fini(void)
{
	nfv_route_db_fini();
	nfv_fib_fini();
	nfv_addr_fini();
	nfv_nh_fini();
	nfv_nh_use_fini();
}

/* An interface named for a route of VRF vrf must be in it. */
static bool
iface_in_vrf(uint16_t iface, uint16_t vrf, char *err)
{
	if (nfv_ifaces[iface].vrf == vrf)
		return true;
	snprintf(err, NFV_ERR_LEN, "interface %s is in VRF %s, not in VRF %s",
		 nfv_iface_name_of(iface), nfv_vrf_name(nfv_ifaces[iface].vrf), nfv_vrf_name(vrf));
	return false;
}

/* Resolves one gateway to a referenced next hop, on interfaces of vrf. */
static uint32_t
gateway_nh(const struct nfv_ip *gw, int gw_port, uint16_t vrf, char *err)
{
	uint16_t port_id;
	char buf[64];
	uint32_t id;

	if (nfv_addr_is_local(gw, vrf)) {
		snprintf(err, NFV_ERR_LEN, "gateway %s is a local address",
			 nfv_ip_str(gw, buf, sizeof(buf)));
		return 0;
	}
	if (gw_port >= 0) {
		port_id = (uint16_t)gw_port;
		if (!iface_in_vrf(port_id, vrf, err))
			return 0;
	} else if (nfv_addr_find_port(gw, vrf, &port_id) < 0) {
		if (vrf == 0)
			snprintf(err, NFV_ERR_LEN, "gateway %s is not on a connected network: add "
				 "an address on its link ('addr add') or name the port ('dev NAME')",
				 nfv_ip_str(gw, buf, sizeof(buf)));
		else
			snprintf(err, NFV_ERR_LEN, "gateway %s is not on a connected network of "
				 "VRF %s", nfv_ip_str(gw, buf, sizeof(buf)), nfv_vrf_name(vrf));
		return 0;
	}
	id = nfv_nh_get_gateway(gw, port_id);
	if (id == 0)
		snprintf(err, NFV_ERR_LEN, "next-hop table full (%u)", NFV_NH_MAX - 1);
	return id;
}

static uint32_t
spec_nh(const struct nfv_route_spec *spec, char *err)
{
	uint32_t members[NFV_ECMP_MAX];
	unsigned int i;

	switch (spec->type) {
	case NFV_NH_BLACKHOLE:
		return nfv_nh_get_blackhole(spec->prefix.ip.family);
	case NFV_NH_CONNECTED:
		if (!iface_in_vrf((uint16_t)spec->port_id, spec->prefix.vrf, err))
			return 0;
		return nfv_nh_get_connected(spec->prefix.ip.family, (uint16_t)spec->port_id);
	case NFV_NH_GATEWAY:
		break;
	default:
		snprintf(err, NFV_ERR_LEN, "bad route type");
		return 0;
	}
	for (i = 0; i < spec->n_gw; i++) {
		members[i] = gateway_nh(&spec->gw[i], spec->gw_port[i], spec->prefix.vrf, err);
		if (members[i] == 0)
			goto fail;
	}
	if (spec->n_gw == 1)
		return members[0];
	{
		uint32_t id = nfv_nh_new_group(spec->prefix.ip.family, members, spec->n_gw);

		if (id != 0)
			return id;
		snprintf(err, NFV_ERR_LEN, "next-hop table full (%u)", NFV_NH_MAX - 1);
	}
fail:
	while (i-- > 0)
		nfv_nh_put(members[i]);
	return 0;
}

int
nfv_route_add(const struct nfv_route_spec *spec, char *err)
{
	uint32_t nh;

	for (unsigned int i = 0; i < spec->n_gw; i++) {
		if (spec->gw[i].family != spec->prefix.ip.family) {
			snprintf(err, NFV_ERR_LEN, "gateway and prefix are of different families");
			return -EAFNOSUPPORT;
		}
		for (unsigned int j = 0; j < i; j++)
			if (nfv_ip_equal(&spec->gw[i], &spec->gw[j]) &&
			    spec->gw_port[i] == spec->gw_port[j]) {
				char buf[64];

				snprintf(err, NFV_ERR_LEN, "gateway %s listed twice",
					 nfv_ip_str(&spec->gw[i], buf, sizeof(buf)));
				return -EINVAL;
			}
	}
	nh = spec_nh(spec, err);
	if (nh == 0)
		return -EINVAL;
	return nfv_route_set(&spec->prefix, NFV_RT_STATIC, nh, err);
}

int
nfv_route_del(const struct nfv_prefix *p, char *err)
{
	struct nfv_route_info ri;
	char buf[64];

	if (nfv_route_source_nh(p, NFV_RT_STATIC) != 0)
		return nfv_route_set(p, NFV_RT_STATIC, 0, err);
	if (nfv_route_lookup_exact(p, &ri) == 0 && ri.source == NFV_RT_KERNEL) {
		snprintf(err, NFV_ERR_LEN, "%s is a kernel route (lcp): remove it in the kernel "
			 "or its routing daemon", nfv_prefix_str(p, buf, sizeof(buf)));
		return -EPERM;
	}
	if (nfv_route_lookup_exact(p, &ri) == 0) {
		snprintf(err, NFV_ERR_LEN, "%s is a %s route: remove it with '%s'",
			 nfv_prefix_str(p, buf, sizeof(buf)),
			 ri.source == NFV_RT_NEIGH ? "neighbor" :
			 ri.source == NFV_RT_LOCAL ? "local address" : "connected",
			 ri.source == NFV_RT_NEIGH ? "neigh del" : "addr del");
		return -EPERM;
	}
	if (p->vrf != 0)
		snprintf(err, NFV_ERR_LEN, "no route %s in VRF %s",
			 nfv_prefix_str(p, buf, sizeof(buf)), nfv_vrf_name(p->vrf));
	else
		snprintf(err, NFV_ERR_LEN, "no route %s", nfv_prefix_str(p, buf, sizeof(buf)));
	return -ENOENT;
}

int
nfv_route_source_apply(enum nfv_route_source src, const struct nfv_route_spec *specs,
		       const uint8_t *protos, unsigned int n, unsigned int *n_failed, char *err)
{
	struct nfv_prefix *ps = malloc((n + 1) * sizeof(*ps));
	uint32_t *nhs = malloc((n + 1) * sizeof(*nhs));
	uint8_t *pr = malloc(n + 1);
	unsigned int k = 0;
	int rc;

	if (ps == NULL || nhs == NULL || pr == NULL) {
		free(ps);
		free(nhs);
		free(pr);
		*n_failed += n;
		snprintf(err, NFV_ERR_LEN, "out of memory for %u routes", n);
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < n; i++) {
		const struct nfv_route_spec *sp = &specs[i];
		uint32_t nh = 0;

		if (sp->type != NFV_NH_NONE) {
			nh = spec_nh(sp, err);
			if (nh == 0) {
				(*n_failed)++;
				/* What it replaces goes: the source no longer has it. */
			}
		}
		ps[k] = sp->prefix;
		nhs[k] = nh;
		pr[k] = protos != NULL ? protos[i] : 0;
		k++;
	}
	rc = nfv_route_set_many(ps, nhs, pr, k, src, n_failed, err);
	free(ps);
	free(nhs);
	free(pr);
	return rc;
}

struct load_vec {
	struct nfv_prefix *p;
	uint32_t *nh;
	unsigned int n;
	unsigned int cap;
};

static int
load_push(struct load_vec *v, const struct nfv_prefix *p, uint32_t nh)
{
	if (v->n == v->cap) {
		unsigned int cap = v->cap ? v->cap * 2 : 4096;
		struct nfv_prefix *np = realloc(v->p, cap * sizeof(*np));
		uint32_t *nn;

		if (np == NULL)
			return -ENOMEM;
		v->p = np;
		nn = realloc(v->nh, cap * sizeof(*nn));
		if (nn == NULL)
			return -ENOMEM;
		v->nh = nn;
		v->cap = cap;
	}
	v->p[v->n] = *p;
	v->nh[v->n++] = nh;
	return 0;
}

static void
load_release(struct load_vec *v)
{
	for (unsigned int i = 0; i < v->n; i++)
		nfv_nh_put(v->nh[i]);
	free(v->p);
	free(v->nh);
	memset(v, 0, sizeof(*v));
}

/*
 * "route load FILE": lines of "PREFIX via IP [dev NAME]" or "PREFIX blackhole",
 * '#' comments. The whole file is checked before anything changes.
 */
int
nfv_route_load(const char *path, uint16_t vrf, uint32_t *n_loaded, char *err)
{
	struct load_vec v[2] = { 0 };
	char *line, *tok[NFV_MAX_TOKENS];
	unsigned int lineno = 0;
	struct nfv_ip last_gw = { 0 };
	struct nfv_cmdfile cf;
	uint32_t last_nh = 0;
	int rc, n;

	*n_loaded = 0;
	rc = nfv_cmdfile_open(&cf, path, err, NFV_ERR_LEN);
	if (rc < 0)
		return rc;
	while (rc == 0) {
		struct nfv_prefix p;
		struct nfv_ip gw;
		int gw_port = -1;
		uint32_t nh;
		char e[NFV_ERR_LEN];

		n = nfv_cmdfile_next(&cf, &line, e, sizeof(e));
		if (n <= 0) {
			if (n < 0)
				snprintf(err, NFV_ERR_LEN, "%s: %.160s", path, e);
			rc = n;
			break;
		}
		lineno = cf.lineno;
		n = nfv_tokenize(line, tok, NFV_MAX_TOKENS);
		if (n == 0)
			continue;
		if (n < 0) {
			snprintf(err, NFV_ERR_LEN, "%s:%u: %s", path, lineno,
				 n == -E2BIG ? "too many words" : n == -EBADMSG ?
				 "text right after a closing quote" : "unterminated quote");
			rc = -EINVAL;
			break;
		}
		if (nfv_parse_prefix(tok[0], false, &p) < 0) {
			snprintf(err, NFV_ERR_LEN, "%s:%u: bad prefix '%.64s'", path, lineno,
				 tok[0]);
			rc = -EINVAL;
			break;
		}
		p.vrf = vrf;
		if (n == 2 && strcmp(tok[1], "blackhole") == 0) {
			nh = nfv_nh_get_blackhole(p.ip.family);
		} else if ((n == 3 || n == 5) && strcmp(tok[1], "via") == 0) {
			if (nfv_parse_ip_family(tok[2], p.ip.family, &gw) < 0) {
				snprintf(err, NFV_ERR_LEN, "%s:%u: %s '%.64s'", path, lineno,
					 nfv_parse_ip(tok[2], &gw) == 0 ?
					 "gateway not of the prefix's family:" : "bad gateway",
					 tok[2]);
				rc = -EINVAL;
				break;
			}
			if (n == 5) {
				struct nfv_iface *port;

				if (strcmp(tok[3], "dev") != 0) {
					snprintf(err, NFV_ERR_LEN, "%s:%u: unexpected '%s' "
						 "(expected 'dev'; route load takes one gateway "
						 "a line)", path,
						 lineno, tok[3]);
					rc = -EINVAL;
					break;
				}
				port = nfv_iface_by_name(tok[4]);
				if (port == NULL) {
					snprintf(err, NFV_ERR_LEN, "%s:%u: unknown interface '%s'", path,
						 lineno, tok[4]);
					rc = -EINVAL;
					break;
				}
				gw_port = port->id;
			}
			if (gw_port < 0 && last_nh != 0 && nfv_ip_equal(&gw, &last_gw)) {
				nh = last_nh;
				nfv_nh_ref(nh);
			} else {
				nh = gateway_nh(&gw, gw_port, vrf, e);
				if (nh == 0) {
					snprintf(err, NFV_ERR_LEN, "%s:%u: %.160s",
						 path, lineno, e);
					rc = -EINVAL;
					break;
				}
				if (gw_port < 0) {
					last_gw = gw;
					last_nh = nh;
				}
			}
		} else {
			snprintf(err, NFV_ERR_LEN, "%s:%u: expected 'PREFIX via IP [dev NAME]' or "
				 "'PREFIX blackhole', got %s%.64s%s", path, lineno,
				 n > 1 ? "'" : "", n > 1 ? tok[1] : "nothing after the prefix",
				 n > 1 ? "'" : "");
			rc = -EINVAL;
			break;
		}
		if (load_push(&v[p.ip.family == AF_INET ? 0 : 1], &p, nh) < 0) {
			nfv_nh_put(nh);
			snprintf(err, NFV_ERR_LEN, "out of memory at %s:%u", path, lineno);
			rc = -ENOMEM;
			break;
		}
	}
	nfv_cmdfile_close(&cf);
	if (rc < 0) {
		load_release(&v[0]);
		load_release(&v[1]);
		return rc;
	}
	{
		/* Room for both families first, so a file is applied whole or not at
		 * all. Counting each line is quick and an upper bound; when that
		 * does not fit, a prefix repeated in the file is counted once. */
		uint32_t n_new[2] = { 0, 0 };

		nfv_route_count_new(v[0].p, v[0].n, n_new);
		nfv_route_count_new(v[1].p, v[1].n, n_new);
		if ((n_new[0] > 0 && !nfv_route_reserve(AF_INET, vrf, n_new[0])) ||
		    (n_new[1] > 0 && !nfv_route_reserve(AF_INET6, vrf, n_new[1]))) {
			n_new[0] = n_new[1] = 0;
			if (nfv_route_count_new_unique(v[0].p, v[0].n, n_new) < 0 ||
			    nfv_route_count_new_unique(v[1].p, v[1].n, n_new) < 0) {
				snprintf(err, NFV_ERR_LEN, "%s: out of memory", path);
				load_release(&v[0]);
				load_release(&v[1]);
				return -ENOMEM;
			}
		}
		for (unsigned int fam = 0; fam < 2; fam++) {
			uint8_t family = fam == 0 ? AF_INET : AF_INET6;

			if (n_new[fam] > 0 && !nfv_route_reserve(family, vrf, n_new[fam])) {
				snprintf(err, NFV_ERR_LEN, "%s: %u new IPv%c routes do not "
					 "fit (%u of %u in use); start nfvd with a larger "
					 "--max-routes%c", path,
					 n_new[fam], fam == 0 ? '4' : '6',
					 nfv_route_count_vrf(family, vrf), nfv_route_max(family, vrf),
					 fam == 0 ? '4' : '6');
				load_release(&v[0]);
				load_release(&v[1]);
				return -ENOSPC;
			}
		}
	}
	for (unsigned int fam = 0; fam < 2 && rc == 0; fam++) {
		rc = nfv_route_set_static_bulk(v[fam].p, v[fam].nh, v[fam].n, err);
		if (rc == 0)
			*n_loaded += v[fam].n;
		free(v[fam].p);
		free(v[fam].nh);
		v[fam].p = NULL;
		v[fam].nh = NULL;
		v[fam].n = 0;
	}
	load_release(&v[1]);
	return rc;
}

unsigned int
nfv_ip_port_removed(uint16_t port_id)
{
	unsigned int n = nfv_route_flush_port(port_id);

	nfv_neigh_port_removed(port_id);
	nfv_addr_port_removed(port_id);
	return n;
}

void
nfv_ip_port_changed(uint16_t port_id)
{
	nfv_nh_port_changed(port_id);
}

/* Ports coming, going and changing: next hops follow their MAC and MTU;
 * routes, neighbors and addresses on a port leave with it. */
static void
ip_iface_event(enum nfv_iface_event ev, uint16_t iface, void *arg)
{
	switch (ev) {
	case NFV_IFACE_ADDED:
	case NFV_IFACE_CHANGED:
		nfv_ip_port_changed(iface);
		break;
	case NFV_IFACE_REMOVED: {
		unsigned int n = nfv_ip_port_removed(iface);

		NFV_LOG(INFO, "port %s: %u routes through it removed", nfv_iface_name_of(iface), n);
		break;
	}
	default:
		break;
	}
}
NFV_IFACE_EVENT_HANDLER(ip_iface_event);
