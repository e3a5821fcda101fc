/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The kernel side of lcp, over rtnetlink (libmnl), on the control thread's
 * event loop.
 *
 * Per network namespace that holds twins: an event socket subscribed to
 * IPv4/IPv6 routes, nexthop objects and links, and a request socket for
 * dumps and for configuring the twins (move, MTU, MAC, link, addresses).
 *
 * Routes: the kernel's routes (every table but "local", unicast only,
 * not cached clones, not for one TOS only) whose next hops are on twins
 * are kept here, per prefix, as variants keyed by (namespace, table,
 * metric), their next hops either inline (RTA_OIF/RTA_GATEWAY,
 * RTA_MULTIPATH) or through a nexthop object (RTA_NH_ID: FRR 8.4's zebra;
 * single or a group). IPv4 may hold several routes under one key ("ip
 * route append"): they are kept in the kernel's order, and the first is
 * the one a lookup takes. The first variant with the lowest metric is
 * what nfvd's table holds for the prefix, as source "kernel" with the
 * kernel's protocol, in the VRF of the twin's interface; next hops on
 * interfaces without a twin are left out. Changes are
 * collected while messages are read and applied in batches (one FIB update
 * per family and VRF and batch).
 *
 * Lost events (ENOBUFS: the socket's buffer overflowed under a burst) and
 * changes the kernel does not announce (a twin's link going down, or its
 * last IPv4 address removed, flushes its routes silently; deleting a
 * nexthop object removes its routes silently) are repaired by a resync:
 * the pending events are discarded, nexthops and routes are dumped again,
 * and what the dump no longer holds is swept (mark and sweep), so nfvd
 * ends with exactly the kernel's table.
 */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <linux/if_link.h>
#include <linux/if_addr.h>
#include <linux/nexthop.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <rte_jhash.h>
#include "api/cmd.h"
#include "core/event.h"
#include "core/log.h"
#include "modules/infra/iface.h"
#include "modules/lcp/control/lcp_priv.h"
#include "modules/lcp/control/nl_parse.h"

#define NL_BUF_SIZE (64 * 1024)
#define NL_EVENT_READS 64         /* datagrams read per wake-up, then a flush */
#define APPLY_CHUNK 4096          /* routes per batch given to the ip module */
#define RESYNC_DELAY_S 0.05
#define OVERRUN_QUIET_S 0.2       /* resync once events stopped overflowing that long */
struct lcp_nl_stats lcp_nl_stats;
uint32_t lcp_nl_rcvbuf = 4u << 20;

struct lcp_ns {
	char name[LCP_NETNS_LEN];
	int refcnt;
	uint8_t index;                /* in namespaces[] */
	struct mnl_socket *ev;
	struct mnl_socket *req;
	uint32_t seq;
	uint32_t gen;                 /* the current dump's mark */
	bool dumping;                 /* route messages come from a dump, in the kernel's order */
	bool overrun;                 /* events lost: a resync is due, events wait */
	struct nfv_timer *resync_timer;
	unsigned int n_twins;
	uint16_t twins[LCP_NS_TWINS]; /* interfaces */
};

#define LCP_NS_MAX 32
static struct lcp_ns *namespaces[LCP_NS_MAX];
static int home_nsfd = -1;
static struct mnl_socket *home_req; /* requests in nfvd's own namespace */
static uint32_t home_seq;
static uint8_t nl_buf[NL_BUF_SIZE];
/* ---- The kernel's routes, as read. ---- */
struct khop {
	int ifindex;
	bool has_gw;
	struct nfv_ip gw;
};
struct kvar {
	struct kvar *next;
	uint8_t ns;
	uint8_t proto;
	uint8_t n_hops;
	uint32_t table;
	uint32_t priority;
	uint32_t nh_id;
	uint32_t mark;
	struct khop *hops;
};
struct kprefix {
	struct kprefix *next;     /* hash chain */
	struct nfv_prefix p;      /* vrf 0: the key */
	struct kvar *vars;
	bool dirty;
	bool installed;           /* nfvd holds it, in installed_vrf */
	uint16_t installed_vrf;
};

static struct kprefix **kp_buckets;
static uint32_t kp_n_buckets, kp_count, kp_installed;
static struct kprefix **dirty;
static uint32_t n_dirty, dirty_cap;
/* Nexthop objects, per namespace and id. */
struct knh {
	struct knh *next;
	uint8_t ns;
	uint32_t id;
	uint32_t mark;
	struct lcp_nl_nexthop nh;
};
#define KNH_BUCKETS 1024
static struct knh *knh_buckets[KNH_BUCKETS];

static uint32_t
kp_hash(const struct nfv_prefix *p)
{
	return rte_jhash(p, sizeof(*p), 0);
}

static struct kprefix *
kp_find(const struct nfv_prefix *p)
{
	struct kprefix *kp;
	if (kp_buckets == NULL)
		return NULL;
	for (kp = kp_buckets[kp_hash(p) & (kp_n_buckets - 1)]; kp != NULL; kp = kp->next)
		if (memcmp(&kp->p, p, sizeof(*p)) == 0)
			return kp;
	return NULL;
}
static void
kp_grow(void)
{
	uint32_t n = kp_n_buckets ? kp_n_buckets * 2 : 4096;
	struct kprefix **b = calloc(n, sizeof(*b));
	if (b == NULL)
		return; /* longer chains */
	for (uint32_t i = 0; i < kp_n_buckets; i++) {
		struct kprefix *kp = kp_buckets[i], *next;

		for (; kp != NULL; kp = next) {
			uint32_t h = kp_hash(&kp->p) & (n - 1);
			next = kp->next;
			kp->next = b[h];
			b[h] = kp;
		}
	}
	free(kp_buckets);
	kp_buckets = b;
	kp_n_buckets = n;
}
static struct kprefix *
kp_get(const struct nfv_prefix *p)
{
	struct kprefix *kp = kp_find(p);
	uint32_t h;
	if (kp != NULL)
		return kp;
	if (kp_count >= kp_n_buckets)
		kp_grow();
	if (kp_buckets == NULL)
		return NULL;
	kp = calloc(1, sizeof(*kp));
	if (kp == NULL)
		return NULL;
	kp->p = *p;
	h = kp_hash(p) & (kp_n_buckets - 1);
	kp->next = kp_buckets[h];
	kp_buckets[h] = kp;
	kp_count++;
	return kp;
}

static void
kp_free(struct kprefix *kp)
{
	struct kprefix **pp = &kp_buckets[kp_hash(&kp->p) & (kp_n_buckets - 1)];
	for (; *pp != NULL; pp = &(*pp)->next)
		if (*pp == kp) {
			*pp = kp->next;
			break;
		}
	kp_count--;
	free(kp);
}

static void
kp_dirty(struct kprefix *kp)
{
	if (kp->dirty)
		return;
	if (n_dirty == dirty_cap) {
		uint32_t cap = dirty_cap ? dirty_cap * 2 : 1024;
		struct kprefix **d = realloc(dirty, cap * sizeof(*d));
		if (d == NULL)
			return; /* the next resync repairs it */
		dirty = d;
		dirty_cap = cap;
	}
	kp->dirty = true;
	dirty[n_dirty++] = kp;
}

static void
var_free(struct kvar *v)
{
	free(v->hops);
	free(v);
}
static struct knh *
knh_find(uint8_t ns, uint32_t id)
{
	for (struct knh *k = knh_buckets[id % KNH_BUCKETS]; k != NULL; k = k->next)
		if (k->ns == ns && k->id == id)
			return k;
	return NULL;
}

static void
knh_del(struct knh *k)
{
	struct knh **pp = &knh_buckets[k->id % KNH_BUCKETS];
	for (; *pp != NULL; pp = &(*pp)->next)
		if (*pp == k) {
			*pp = k->next;
			break;
		}
	free(k);
}
/* ---- Twins of a namespace. ---- */
static int
twin_iface(const struct lcp_ns *ns, int ifindex)
{
	for (unsigned int i = 0; i < ns->n_twins; i++) {
		const struct lcp_twin *t = &lcp_twins[ns->twins[i]];
		if (t->used && t->ifindex == ifindex)
			return t->iface;
	}
	return -1;
}
void
lcp_ns_twin_set(struct lcp_ns *ns, uint16_t iface, bool on)
{
	for (unsigned int i = 0; i < ns->n_twins; i++)
		if (ns->twins[i] == iface) {
			if (!on)
				ns->twins[i] = ns->twins[--ns->n_twins];
			return;
		}
	if (on && ns->n_twins < LCP_NS_TWINS)
		ns->twins[ns->n_twins++] = iface;
}

/* ---- What nfvd's table should hold for a prefix. ---- */

/* The hops of a variant (through its nexthop object if it has one) that
 * are on twins, as a route spec; false when none is. */
static bool
var_spec(const struct kvar *v, const struct nfv_prefix *p, struct nfv_route_spec *spec)
{
	const struct lcp_ns *ns = namespaces[v->ns];
	struct khop hops[NFV_ECMP_MAX];
	unsigned int n = 0, n_gw = 0;
	int vrf = -1, conn_iface = -1;

	if (ns == NULL)
		return false;
	if (v->nh_id != 0) {
		const struct knh *k = knh_find(v->ns, v->nh_id);
		if (k == NULL || k->nh.blackhole)
			return false;
		if (k->nh.n_group == 0) {
			hops[n].ifindex = k->nh.ifindex;
			hops[n].has_gw = k->nh.has_gw;
			hops[n].gw = k->nh.gw;
			n++;
		}
		for (unsigned int i = 0; i < k->nh.n_group && n < NFV_ECMP_MAX; i++) {
			const struct knh *m = knh_find(v->ns, k->nh.group[i]);

			if (m == NULL || m->nh.blackhole || m->nh.n_group != 0)
				continue;
			hops[n].ifindex = m->nh.ifindex;
			hops[n].has_gw = m->nh.has_gw;
			hops[n].gw = m->nh.gw;
			n++;
		}
	} else {
		for (unsigned int i = 0; i < v->n_hops; i++)
			hops[n++] = v->hops[i];
	}
	memset(spec, 0, sizeof(*spec));
	spec->prefix = *p;
	for (unsigned int i = 0; i < n; i++) {
		int iface = twin_iface(ns, hops[i].ifindex);

		if (iface < 0)
			continue;
		if (vrf < 0)
			vrf = nfv_ifaces[iface].vrf;
		else if (nfv_ifaces[iface].vrf != vrf)
			continue;
		if (!hops[i].has_gw) {
			if (conn_iface < 0)
				conn_iface = iface;
			continue;
		}
		if (hops[i].gw.family != p->ip.family)
			continue;
		spec->gw[n_gw] = hops[i].gw;
		spec->gw_port[n_gw] = iface;
		n_gw++;
	}
	if (vrf < 0)
		return false;
	spec->prefix.vrf = (uint16_t)vrf;
	if (n_gw > 0) {
		spec->type = NFV_NH_GATEWAY;
		spec->n_gw = n_gw;
	} else if (conn_iface >= 0) {
		spec->type = NFV_NH_CONNECTED;
		spec->port_id = conn_iface;
	} else {
		return false;
	}
	return true;
}

/* The best variant (lowest metric; of several with it, the first) that has
 * a hop on a twin. */
static bool
kp_spec(const struct kprefix *kp, struct nfv_route_spec *spec, uint8_t *proto)
{
	const struct kvar *best = NULL;
	struct nfv_route_spec s;
	for (const struct kvar *v = kp->vars; v != NULL; v = v->next) {
		if (best != NULL && v->priority >= best->priority)
			continue;
		if (var_spec(v, &kp->p, &s)) {
			best = v;
			*spec = s;
		}
	}
	if (best != NULL)
		*proto = best->proto;
	return best != NULL;
}

struct apply_op {
	struct nfv_route_spec spec;   /* type NFV_NH_NONE: remove */
	uint8_t proto;
};
static int
op_cmp(const void *a, const void *b)
{
	const struct apply_op *x = a, *y = b;

	if (x->spec.prefix.ip.family != y->spec.prefix.ip.family)
		return x->spec.prefix.ip.family < y->spec.prefix.ip.family ? -1 : 1;
	if (x->spec.prefix.vrf != y->spec.prefix.vrf)
		return x->spec.prefix.vrf < y->spec.prefix.vrf ? -1 : 1;
	/* Removals first: a prefix moving VRF is one of each, in two runs. */
	return (x->spec.type != NFV_NH_NONE) - (y->spec.type != NFV_NH_NONE);
}

static void
apply_ops(struct apply_op *ops, unsigned int n)
{
	static struct nfv_route_spec specs[APPLY_CHUNK * 2];
	static uint8_t protos[APPLY_CHUNK * 2];
	char err[NFV_ERR_LEN] = "";
	qsort(ops, n, sizeof(*ops), op_cmp);
	for (unsigned int i = 0; i < n;) {
		unsigned int j = i, k = 0, failed = 0;
		while (j < n && ops[j].spec.prefix.ip.family == ops[i].spec.prefix.ip.family &&
		       ops[j].spec.prefix.vrf == ops[i].spec.prefix.vrf) {
			specs[k] = ops[j].spec;
			protos[k] = ops[j].proto;
			if (ops[j].spec.type == NFV_NH_NONE)
				lcp_nl_stats.routes_removed++;
			else
				lcp_nl_stats.routes_added++;
			k++;
			j++;
		}
		if (nfv_route_source_apply(NFV_RT_KERNEL, specs, protos, k, &failed, err) < 0)
			NFV_LOG(WARNING, "lcp: kernel routes: %s", err);
		if (failed > 0) {
			lcp_nl_stats.routes_failed += failed;
			NFV_LOG(DEBUG, "lcp: %u kernel routes refused, the last: %s", failed, err);
		}
		i = j;
	}
}

/* Applies the prefixes changed since the last flush to nfvd's tables. */
static void
flush_dirty(void)
{
	static struct apply_op ops[APPLY_CHUNK * 2];
	uint32_t done = 0;
	while (done < n_dirty) {
		unsigned int n_ops = 0;
		uint32_t end = RTE_MIN(n_dirty, done + APPLY_CHUNK);
		for (uint32_t i = done; i < end; i++) {
			struct kprefix *kp = dirty[i];
			struct nfv_route_spec spec;
			uint8_t proto = 0;
			bool want = kp_spec(kp, &spec, &proto);
			kp->dirty = false;
			if (kp->installed && (!want || spec.prefix.vrf != kp->installed_vrf)) {
				memset(&ops[n_ops].spec, 0, sizeof(ops[n_ops].spec));
				ops[n_ops].spec.prefix = kp->p;
				ops[n_ops].spec.prefix.vrf = kp->installed_vrf;
				ops[n_ops].spec.type = NFV_NH_NONE;
				n_ops++;
				kp->installed = false;
				kp_installed--;
			}
			if (want) {
				ops[n_ops].spec = spec;
				ops[n_ops].proto = proto;
				n_ops++;
				if (!kp->installed)
					kp_installed++;
				kp->installed = true;
				kp->installed_vrf = spec.prefix.vrf;
			}
		}
		apply_ops(ops, n_ops);
		/* Prefixes the kernel no longer has. */
		for (uint32_t i = done; i < end; i++)
			if (dirty[i]->vars == NULL && !dirty[i]->installed)
				kp_free(dirty[i]);
		done = end;
	}
	n_dirty = 0;
}
uint32_t
lcp_nl_route_count(void)
{
	return kp_installed;
}
/* ---- Messages. ---- */
static bool
hops_equal(const struct khop *a, unsigned int na, const struct lcp_nl_route *r)
{
	if (na != r->n_hops)
		return false;
	for (unsigned int i = 0; i < na; i++)
		if (a[i].ifindex != r->hops[i].ifindex || a[i].has_gw != r->hops[i].has_gw ||
		    (a[i].has_gw && !nfv_ip_equal(&a[i].gw, &r->hops[i].gw)))
			return false;
	return true;
}
static bool
hop_in(const struct lcp_nl_hop *h, const struct khop *hops, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		if (hops[i].ifindex == h->ifindex && hops[i].has_gw == h->has_gw &&
		    (!h->has_gw || nfv_ip_equal(&hops[i].gw, &h->gw)))
			return true;
	return false;
}
static bool
route_ignored(const struct lcp_nl_route *r)
{
	if (r->table == RT_TABLE_LOCAL || r->type != RTN_UNICAST || (r->rtm_flags & RTM_F_CLONED))
		return true;
	/* An IPv4 route for one TOS only ("ip route add ... tos 0x10"): the
	 * kernel takes it for packets of that TOS alone; nfvd's tables hold
	 * what plain forwarding uses. */
	if (r->tos != 0)
		return true;
	if (r->family == AF_INET6 && (r->dst.v6[0] == 0xff ||
				      (r->dst.v6[0] == 0xfe && (r->dst.v6[1] & 0xc0) == 0x80)))
		return true;
	return false;
}

/* Whether v is under r's key: namespace, table, metric. */
static bool
var_key(const struct kvar *v, uint8_t ns, const struct lcp_nl_route *r)
{
	return v->ns == ns && v->table == r->table && v->priority == r->priority;
}

/* Whether v is the route r describes: the same protocol and nexthop
 * object, or without one the same hops. */
static bool
var_is(const struct kvar *v, const struct lcp_nl_route *r)
{
	if (v->proto != r->protocol || v->nh_id != r->nh_id)
		return false;
	return r->nh_id != 0 || hops_equal(v->hops, v->n_hops, r);
}

/* v becomes the route r describes; false when out of memory. */
static bool
var_set(struct kvar *v, const struct lcp_nl_route *r)
{
	v->proto = r->protocol;
	v->nh_id = r->nh_id;
	free(v->hops);
	v->hops = NULL;
	v->n_hops = 0;
	if (r->n_hops == 0)
		return true;
	v->hops = calloc(r->n_hops, sizeof(*v->hops));
	if (v->hops == NULL)
		return false;
	for (unsigned int i = 0; i < r->n_hops; i++) {
		v->hops[i].ifindex = r->hops[i].ifindex;
		v->hops[i].has_gw = r->hops[i].has_gw;
		v->hops[i].gw = r->hops[i].gw;
	}
	v->n_hops = (uint8_t)r->n_hops;
	return true;
}

static struct kvar *
var_new(uint8_t ns, const struct lcp_nl_route *r)
{
	struct kvar *v = calloc(1, sizeof(*v));

	if (v == NULL)
		return NULL;
	v->ns = ns;
	v->table = r->table;
	v->priority = r->priority;
	return v;
}

/*
 * IPv4 keeps several routes under one key (namespace, table, metric) and a
 * lookup takes the first: "ip route append" puts one after those there,
 * "prepend" (and the "add" of a new key) before them, "replace" takes the
 * first one's place. Here they keep the kernel's order in kp->vars, so the
 * first of them is the one kp_spec() finds. A deletion describes the route
 * it removed (protocol and next hops); a dump lists them in order.
 */
static void
route4_msg(struct lcp_ns *ns, const struct nlmsghdr *nlh, const struct lcp_nl_route *r,
	   const struct nfv_prefix *p)
{
	struct kprefix *kp;
	struct kvar *v = NULL, **pv, **at = NULL;

	if (nlh->nlmsg_type == RTM_DELROUTE) {
		kp = kp_find(p);
		if (kp == NULL)
			return;
		for (pv = &kp->vars; *pv != NULL; pv = &(*pv)->next)
			if (var_key(*pv, ns->index, r) && var_is(*pv, r)) {
				v = *pv;
				*pv = v->next;
				var_free(v);
				kp_dirty(kp);
				return;
			}
		return;
	}
	kp = kp_get(p);
	if (kp == NULL)
		return;
	if (ns->dumping) {
		/* The dump's order is the kernel's: the route goes after those
		 * of its key this dump has shown, before the others (those the
		 * sweep removes unless the dump shows them further on). */
		for (pv = &kp->vars; *pv != NULL; pv = &(*pv)->next)
			if (var_key(*pv, ns->index, r) && (*pv)->mark != ns->gen &&
			    var_is(*pv, r)) {
				v = *pv;
				*pv = v->next;
				break;
			}
		for (pv = &kp->vars; *pv != NULL; pv = &(*pv)->next) {
			if (!var_key(*pv, ns->index, r))
				continue;
			if ((*pv)->mark != ns->gen) {
				if (at == NULL)
					at = pv;
				break;
			}
			at = &(*pv)->next;
		}
	} else {
		struct kvar **first = NULL, **end = NULL;

		for (pv = &kp->vars; *pv != NULL; pv = &(*pv)->next) {
			if (!var_key(*pv, ns->index, r))
				continue;
			if (var_is(*pv, r)) {
				/* Known (a nexthop object's routes are announced
				 * again when it changes). */
				(*pv)->mark = ns->gen;
				return;
			}
			first = first != NULL ? first : pv;
			end = &(*pv)->next;
		}
		if ((r->nl_flags & NLM_F_REPLACE) && first != NULL) {
			v = *first;
			v->mark = ns->gen;
			if (!var_set(v, r)) {
				*first = v->next;
				var_free(v);
			}
			kp_dirty(kp);
			return;
		}
		at = (r->nl_flags & NLM_F_APPEND) ? end : first;
	}
	if (v == NULL && (v = var_new(ns->index, r)) == NULL)
		return;
	if (at == NULL)
		at = &kp->vars;
	v->next = *at;
	*at = v;
	v->mark = ns->gen;
	if (!var_set(v, r)) {
		*at = v->next;
		var_free(v);
	}
	kp_dirty(kp);
}

/* IPv6 holds one route per key: routes of a key with gateways are the
 * paths of one multipath route. */
static void
route6_msg(struct lcp_ns *ns, const struct nlmsghdr *nlh, const struct lcp_nl_route *r,
	   const struct nfv_prefix *p)
{
	struct kprefix *kp;
	struct kvar *v, **pv;

	if (nlh->nlmsg_type == RTM_DELROUTE) {
		kp = kp_find(p);
		if (kp == NULL)
			return;
		for (pv = &kp->vars; *pv != NULL; pv = &(*pv)->next)
			if (var_key(*pv, ns->index, r))
				break;
		v = *pv;
		if (v == NULL)
			return;
		/* IPv6 announces the removal of one path of a multipath route
		 * alone: only those hops go. */
		if (r->nh_id == 0 && v->nh_id == 0 && r->n_hops > 0 && r->n_hops < v->n_hops) {
			unsigned int k = 0;
			for (unsigned int i = 0; i < v->n_hops; i++) {
				struct lcp_nl_hop h = { .ifindex = v->hops[i].ifindex,
							.has_gw = v->hops[i].has_gw,
							.gw = v->hops[i].gw };
				bool gone = false;
				for (unsigned int j = 0; j < r->n_hops && !gone; j++)
					gone = h.ifindex == r->hops[j].ifindex &&
						h.has_gw == r->hops[j].has_gw &&
						(!h.has_gw || nfv_ip_equal(&h.gw, &r->hops[j].gw));
				if (!gone)
					v->hops[k++] = v->hops[i];
			}
			if (k > 0) {
				v->n_hops = (uint8_t)k;
				kp_dirty(kp);
				return;
			}
		}
		*pv = v->next;
		var_free(v);
		kp_dirty(kp);
		return;
	}
	kp = kp_get(p);
	if (kp == NULL)
		return;
	for (v = kp->vars; v != NULL; v = v->next)
		if (var_key(v, ns->index, r))
			break;
	if (v != NULL && v->proto == r->protocol && v->nh_id == r->nh_id &&
	    hops_equal(v->hops, v->n_hops, r)) {
		v->mark = ns->gen;
		return;
	}
	if (v == NULL) {
		v = var_new(ns->index, r);
		if (v == NULL)
			return;
		v->next = kp->vars;
		kp->vars = v;
	}
	v->mark = ns->gen;
	if ((r->nl_flags & NLM_F_APPEND) && r->nh_id == 0 && v->hops != NULL) {
		/* Another path of an IPv6 multipath route. */
		struct khop *h = realloc(v->hops, (v->n_hops + r->n_hops) * sizeof(*h));

		if (h == NULL)
			return;
		v->hops = h;
		v->proto = r->protocol;
		v->nh_id = 0;
		for (unsigned int i = 0; i < r->n_hops && v->n_hops < NFV_ECMP_MAX; i++)
			if (!hop_in(&r->hops[i], v->hops, v->n_hops)) {
				h[v->n_hops].ifindex = r->hops[i].ifindex;
				h[v->n_hops].has_gw = r->hops[i].has_gw;
				h[v->n_hops].gw = r->hops[i].gw;
				v->n_hops++;
			}
	} else if (!var_set(v, r)) {
		return;
	}
	kp_dirty(kp);
}

static void
route_msg(struct lcp_ns *ns, const struct nlmsghdr *nlh)
{
	struct lcp_nl_route r;
	struct nfv_prefix p;

	if (lcp_nl_parse_route(nlh, &r) < 0) {
		lcp_nl_stats.bad_messages++;
		return;
	}
	if (route_ignored(&r))
		return;
	memset(&p, 0, sizeof(p));
	p.ip = r.dst;
	p.len = r.dst_len;
	nfv_prefix_mask(&p);
	if (r.family == AF_INET)
		route4_msg(ns, nlh, &r, &p);
	else
		route6_msg(ns, nlh, &r, &p);
}
/* Every prefix with a variant of namespace ns that uses nexthop id (directly
 * or through a group holding it) is recomputed; with drop, such variants
 * that use it directly go (the kernel removed those routes silently). */
static void
nh_users(uint8_t ns, uint32_t id, bool drop)
{
	for (uint32_t b = 0; b < kp_n_buckets; b++)
		for (struct kprefix *kp = kp_buckets[b]; kp != NULL; kp = kp->next) {
			struct kvar **pv = &kp->vars;
			while (*pv != NULL) {
				struct kvar *v = *pv;
				const struct knh *g;
				bool uses = v->ns == ns && v->nh_id == id;

				if (v->ns == ns && !uses && v->nh_id != 0 &&
				    (g = knh_find(ns, v->nh_id)) != NULL)
					for (unsigned int i = 0; i < g->nh.n_group && !uses; i++)
						uses = g->nh.group[i] == id;
				if (uses)
					kp_dirty(kp);
				if (uses && drop && v->nh_id == id) {
					*pv = v->next;
					var_free(v);
					continue;
				}
				pv = &v->next;
			}
		}
}

static void
nexthop_msg(struct lcp_ns *ns, const struct nlmsghdr *nlh)
{
	struct lcp_nl_nexthop nh;
	struct knh *k;

	if (lcp_nl_parse_nexthop(nlh, &nh) < 0) {
		lcp_nl_stats.bad_messages++;
		return;
	}
	lcp_nl_stats.nexthops++;
	k = knh_find(ns->index, nh.id);
	if (nlh->nlmsg_type == RTM_DELNEXTHOP) {
		if (k == NULL)
			return;
		nh_users(ns->index, nh.id, true);
		knh_del(k);
		/* Groups holding it lose it. */
		for (unsigned int b = 0; b < KNH_BUCKETS; b++)
			for (struct knh *g = knh_buckets[b]; g != NULL; g = g->next) {
				unsigned int j = 0;

				if (g->ns != ns->index)
					continue;
				for (unsigned int i = 0; i < g->nh.n_group; i++)
					if (g->nh.group[i] != nh.id)
						g->nh.group[j++] = g->nh.group[i];
				g->nh.n_group = j;
			}
		return;
	}
	if (k != NULL && memcmp(&k->nh, &nh, sizeof(nh)) == 0) {
		k->mark = ns->gen;
		return;
	}
	if (k == NULL) {
		k = calloc(1, sizeof(*k));
		if (k == NULL)
			return;
		k->ns = ns->index;
		k->id = nh.id;
		k->next = knh_buckets[nh.id % KNH_BUCKETS];
		knh_buckets[nh.id % KNH_BUCKETS] = k;
	}
	k->nh = nh;
	k->mark = ns->gen;
	nh_users(ns->index, nh.id, false);
}
static void schedule_resync(struct lcp_ns *ns);
static void
link_msg(struct lcp_ns *ns, const struct nlmsghdr *nlh)
{
	const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*ifi)))
		return;
	for (unsigned int i = 0; i < ns->n_twins; i++) {
		struct lcp_twin *t = &lcp_twins[ns->twins[i]];
		bool up = (ifi->ifi_flags & IFF_UP) != 0;

		if (!t->used || t->ifindex != ifi->ifi_index)
			continue;
		if (nlh->nlmsg_type == RTM_DELLINK) {
			NFV_LOG(WARNING, "lcp: twin %s of %s was deleted in the kernel; 'lcp del "
				"dev %s' cleans up", t->host_if, nfv_iface_name_of(t->iface),
				nfv_iface_name_of(t->iface));
			t->ifindex = -1;
			schedule_resync(ns);
		} else if (t->kernel_up && !up) {
			/* The kernel flushes a downed link's routes without a word. */
			schedule_resync(ns);
		}
		t->kernel_up = up;
	}
}

static int
msg_cb(const struct nlmsghdr *nlh, void *data)
{
	struct lcp_ns *ns = data;
	lcp_nl_stats.messages++;
	switch (nlh->nlmsg_type) {
	case RTM_NEWROUTE:
	case RTM_DELROUTE:
		route_msg(ns, nlh);
		break;
	case RTM_NEWNEXTHOP:
	case RTM_DELNEXTHOP:
		nexthop_msg(ns, nlh);
		break;
	case RTM_NEWLINK:
	case RTM_DELLINK:
		link_msg(ns, nlh);
		break;
	default:
		break;
	}
	return MNL_CB_OK;
}
/* ---- Sockets and namespaces. ---- */
/* Runs in namespace ns (a descriptor) just long enough to open a socket. */
static struct mnl_socket *
socket_in(int nsfd)
{
	struct mnl_socket *s;
	if (nsfd >= 0 && setns(nsfd, CLONE_NEWNET) < 0)
		return NULL;
	s = mnl_socket_open(NETLINK_ROUTE);
	if (nsfd >= 0 && setns(home_nsfd, CLONE_NEWNET) < 0)
		NFV_LOG(ERR, "lcp: cannot return to nfvd's network namespace: %s",
			strerror(errno));
	if (s != NULL && mnl_socket_bind(s, 0, MNL_SOCKET_AUTOPID) < 0) {
		mnl_socket_close(s);
		return NULL;
	}
	return s;
}

/* Sends a request and waits for its acknowledgement (or its one reply,
 * given to cb). 0 or -errno. */
static int
request(struct mnl_socket *s, uint32_t *seq, struct nlmsghdr *nlh, mnl_cb_t cb, void *arg)
{
	uint32_t portid = mnl_socket_get_portid(s);
	int rc;

	nlh->nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = ++*seq;
	if (mnl_socket_sendto(s, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	for (;;) {
		ssize_t n = mnl_socket_recvfrom(s, nl_buf, sizeof(nl_buf));
		if (n < 0)
			return -errno;
		rc = mnl_cb_run(nl_buf, (size_t)n, nlh->nlmsg_seq, portid, cb, arg);
		if (rc == MNL_CB_ERROR)
			return errno != 0 ? -errno : -EIO;
		if (rc == MNL_CB_STOP)
			return 0;
	}
}
static int
link_index_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);

	if (nlh->nlmsg_type == RTM_NEWLINK)
		*(int *)data = ifi->ifi_index;
	return MNL_CB_OK;
}
int
lcp_nl_link_index(struct lcp_ns *ns, const char *ifname)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifi;
	int index = -1, rc;
	nlh->nlmsg_type = RTM_GETLINK;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, ifname);
	rc = request(ns->req, &ns->seq, nlh, link_index_cb, &index);
	if (rc < 0)
		return rc;
	return index > 0 ? index : -ENODEV;
}
static struct nlmsghdr *
link_msg_start(char *buf, int ifindex)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifi;
	nlh->nlmsg_type = RTM_NEWLINK;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = ifindex;
	return nlh;
}

int
lcp_nl_link_move(int ifindex, struct lcp_ns *ns, const char *name, char *err)
{
	char buf[MNL_SOCKET_BUFFER_SIZE], path[128];
	struct nlmsghdr *nlh = link_msg_start(buf, ifindex);
	int fd, rc;
	snprintf(path, sizeof(path), "/run/netns/%s", ns->name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, NFV_ERR_LEN, "netns %s: %s", ns->name, strerror(errno));
		return -errno;
	}
	mnl_attr_put_u32(nlh, IFLA_NET_NS_FD, (uint32_t)fd);
	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	rc = request(home_req, &home_seq, nlh, NULL, NULL);
	close(fd);
	if (rc < 0)
		snprintf(err, NFV_ERR_LEN, "cannot move the twin into netns %s as %s: %s",
			 ns->name, name, strerror(-rc));
	return rc;
}
int
lcp_nl_link_move_home(struct lcp_ns *ns, int ifindex, const char *name, char *err)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = link_msg_start(buf, ifindex);
	int rc;

	mnl_attr_put_u32(nlh, IFLA_NET_NS_FD, (uint32_t)home_nsfd);
	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	rc = request(ns->req, &ns->seq, nlh, NULL, NULL);
	if (rc < 0)
		snprintf(err, NFV_ERR_LEN, "cannot move the twin back from netns %s: %s",
			 ns->name, strerror(-rc));
	return rc;
}
int
lcp_nl_link_set(struct lcp_ns *ns, int ifindex, int up, unsigned int mtu,
		const struct rte_ether_addr *mac, char *err)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = link_msg_start(buf, ifindex);
	struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);
	int rc;

	if (up >= 0) {
		ifi->ifi_change = IFF_UP;
		ifi->ifi_flags = up ? IFF_UP : 0;
	}
	if (mtu != 0)
		mnl_attr_put_u32(nlh, IFLA_MTU, mtu);
	if (mac != NULL)
		mnl_attr_put(nlh, IFLA_ADDRESS, RTE_ETHER_ADDR_LEN, mac->addr_bytes);
	rc = request(ns->req, &ns->seq, nlh, NULL, NULL);
	if (rc < 0)
		snprintf(err, NFV_ERR_LEN, "twin link %d: %s", ifindex, strerror(-rc));
	return rc;
}

int
lcp_nl_addr(struct lcp_ns *ns, int ifindex, const struct nfv_prefix *p, bool add, char *err)
{
	char buf[MNL_SOCKET_BUFFER_SIZE], a[64];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifaddrmsg *ifa;
	size_t len = p->ip.family == AF_INET ? 4 : 16;
	const void *addr = p->ip.family == AF_INET ? (const void *)&p->ip.v4 : p->ip.v6;
	int rc;

	nlh->nlmsg_type = add ? RTM_NEWADDR : RTM_DELADDR;
	if (add)
		nlh->nlmsg_flags = NLM_F_CREATE | NLM_F_REPLACE;
	ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	ifa->ifa_family = p->ip.family;
	ifa->ifa_prefixlen = p->len;
	ifa->ifa_index = (uint32_t)ifindex;
	/* The address is nfvd's already: no duplicate detection. */
	ifa->ifa_flags = p->ip.family == AF_INET6 ? IFA_F_NODAD : 0;
	mnl_attr_put(nlh, IFA_LOCAL, len, addr);
	mnl_attr_put(nlh, IFA_ADDRESS, len, addr);
	rc = request(ns->req, &ns->seq, nlh, NULL, NULL);
	if (rc == -EEXIST || (!add && rc == -EADDRNOTAVAIL))
		rc = 0;
	if (rc < 0)
		snprintf(err, NFV_ERR_LEN, "twin address %s/%u: %s",
			 nfv_ip_str(&p->ip, a, sizeof(a)), p->len, strerror(-rc));
	return rc;
}

/* Reads the replies of one dump; false when it failed or was interrupted. */
static bool
dump(struct lcp_ns *ns, uint16_t type, uint8_t family)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	uint32_t portid = mnl_socket_get_portid(ns->req);
	bool ok = true;
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = ++ns->seq;
	if (type == RTM_GETNEXTHOP) {
		struct nhmsg *nhm = mnl_nlmsg_put_extra_header(nlh, sizeof(*nhm));
		nhm->nh_family = family;
	} else {
		struct rtmsg *rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
		rtm->rtm_family = family;
	}
	if (mnl_socket_sendto(ns->req, nlh, nlh->nlmsg_len) < 0)
		return false;
	for (;;) {
		ssize_t n = mnl_socket_recvfrom(ns->req, nl_buf, sizeof(nl_buf));
		int rc;
		if (n < 0) {
			NFV_LOG(WARNING, "lcp: netns %s: dump: %s", ns->name[0] ? ns->name : "(own)",
				strerror(errno));
			return false;
		}
		{
			int left = (int)n;
			for (const struct nlmsghdr *h = (const struct nlmsghdr *)nl_buf;
			     mnl_nlmsg_ok(h, left); h = mnl_nlmsg_next(h, &left))
				if (h->nlmsg_flags & NLM_F_DUMP_INTR)
					ok = false;
		}
		rc = mnl_cb_run(nl_buf, (size_t)n, nlh->nlmsg_seq, portid, msg_cb, ns);
		if (rc == MNL_CB_STOP)
			return ok;
		if (rc == MNL_CB_ERROR)
			/* No nexthop objects in this kernel: not a failure. */
			return type == RTM_GETNEXTHOP && (errno == EINVAL || errno == EOPNOTSUPP) ?
				ok : false;
	}
}

/* Discards the events waiting on the event socket (a dump follows). */
static void
drain_events(struct lcp_ns *ns)
{
	for (;;) {
		ssize_t n = recv(mnl_socket_get_fd(ns->ev), nl_buf, sizeof(nl_buf), MSG_DONTWAIT);
		if (n < 0 && errno == ENOBUFS)
			continue;
		if (n <= 0)
			break;
	}
}

void
lcp_nl_resync(struct lcp_ns *ns)
{
	bool ok;
	lcp_nl_stats.resyncs++;
	drain_events(ns);
	ns->gen++;
	ns->dumping = true;
	ok = dump(ns, RTM_GETNEXTHOP, AF_UNSPEC) && dump(ns, RTM_GETROUTE, AF_INET) &&
		dump(ns, RTM_GETROUTE, AF_INET6);
	ns->dumping = false;
	if (!ok) {
		/* Not swept: an interrupted dump may have missed entries. */
		flush_dirty();
		schedule_resync(ns);
		return;
	}
	/* Sweep: what this namespace had and the dump did not show. */
	for (uint32_t b = 0; b < kp_n_buckets; b++)
		for (struct kprefix *kp = kp_buckets[b]; kp != NULL; kp = kp->next) {
			struct kvar **pv = &kp->vars;
			while (*pv != NULL) {
				struct kvar *v = *pv;

				if (v->ns == ns->index && v->mark != ns->gen) {
					*pv = v->next;
					var_free(v);
					kp_dirty(kp);
					continue;
				}
				pv = &v->next;
			}
			/* Twins come and go: every prefix of the namespace again. */
			for (struct kvar *v = kp->vars; v != NULL; v = v->next)
				if (v->ns == ns->index)
					kp_dirty(kp);
			if (kp->installed && kp->vars == NULL)
				kp_dirty(kp);
		}
	for (unsigned int b = 0; b < KNH_BUCKETS; b++) {
		struct knh *k = knh_buckets[b], *next;

		for (; k != NULL; k = next) {
			next = k->next;
			if (k->ns == ns->index && k->mark != ns->gen)
				knh_del(k);
		}
	}
	flush_dirty();
}
static void
resync_timer_cb(void *arg)
{
	struct lcp_ns *ns = arg;

	nfv_ctl_lock();
	ns->resync_timer = NULL;
	ns->overrun = false;
	lcp_nl_resync(ns);
	nfv_ctl_unlock();
}

static void
schedule_resync(struct lcp_ns *ns)
{
	if (ns->resync_timer == NULL)
		ns->resync_timer = nfv_timer_add("lcp_resync", RESYNC_DELAY_S, true,
						 resync_timer_cb, ns);
}

/*
 * Events were lost. Those that follow are read and discarded (a dump will
 * say where the kernel ended), and the resync waits until the socket has
 * not overflowed for OVERRUN_QUIET_S: one dump after a burst, not one per
 * overflow during it.
 */
static void
overrun(struct lcp_ns *ns)
{
	lcp_nl_stats.overruns++;
	ns->overrun = true;
	if (ns->resync_timer != NULL)
		nfv_timer_del(ns->resync_timer);
	ns->resync_timer = nfv_timer_add("lcp_resync", OVERRUN_QUIET_S, true, resync_timer_cb,
					 ns);
}

static void
events_cb(int fd, short revents, void *arg)
{
	struct lcp_ns *ns = arg;

	RTE_SET_USED(revents);
	nfv_ctl_lock();
	for (unsigned int i = 0; i < NL_EVENT_READS; i++) {
		ssize_t n = recv(fd, nl_buf, sizeof(nl_buf), MSG_DONTWAIT);

		if (n < 0) {
			if (errno == ENOBUFS) {
				overrun(ns);
				continue;
			}
			break;
		}
		if (!ns->overrun)
			mnl_cb_run(nl_buf, (size_t)n, 0, 0, msg_cb, ns);
	}
	flush_dirty();
	nfv_ctl_unlock();
}

static void
ns_close(struct lcp_ns *ns)
{
	if (ns->resync_timer != NULL)
		nfv_timer_del(ns->resync_timer);
	if (ns->ev != NULL) {
		nfv_event_fd_del(mnl_socket_get_fd(ns->ev));
		mnl_socket_close(ns->ev);
	}
	if (ns->req != NULL)
		mnl_socket_close(ns->req);
	namespaces[ns->index] = NULL;
	free(ns);
}
struct lcp_ns *
lcp_ns_get(const char *name, char *err)
{
	static const unsigned int groups[] = {
		RTNLGRP_IPV4_ROUTE, RTNLGRP_IPV6_ROUTE, RTNLGRP_NEXTHOP, RTNLGRP_LINK,
	};
	struct lcp_ns *ns;
	int nsfd = -1, slot = -1, fd;
	char path[128];
	for (int i = 0; i < LCP_NS_MAX; i++) {
		if (namespaces[i] != NULL && strcmp(namespaces[i]->name, name) == 0) {
			namespaces[i]->refcnt++;
			return namespaces[i];
		}
		if (namespaces[i] == NULL && slot < 0)
			slot = i;
	}
	if (slot < 0) {
		snprintf(err, NFV_ERR_LEN, "too many network namespaces with twins (%u)",
			 LCP_NS_MAX);
		return NULL;
	}
	if (name[0] != '\0') {
		if (strchr(name, '/') != NULL || strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
			snprintf(err, NFV_ERR_LEN, "bad netns name '%s'", name);
			return NULL;
		}
		snprintf(path, sizeof(path), "/run/netns/%s", name);
		nsfd = open(path, O_RDONLY | O_CLOEXEC);
		if (nsfd < 0) {
			snprintf(err, NFV_ERR_LEN, "netns %s does not exist (%s: %s); create it "
				 "with 'ip netns add %s'", name, path, strerror(errno), name);
			return NULL;
		}
	}
	ns = calloc(1, sizeof(*ns));
	if (ns == NULL) {
		if (nsfd >= 0)
			close(nsfd);
		snprintf(err, NFV_ERR_LEN, "out of memory");
		return NULL;
	}
	snprintf(ns->name, sizeof(ns->name), "%s", name);
	ns->index = (uint8_t)slot;
	ns->refcnt = 1;
	namespaces[slot] = ns;
	ns->ev = socket_in(nsfd);
	ns->req = socket_in(nsfd);
	if (nsfd >= 0)
		close(nsfd);
	if (ns->ev == NULL || ns->req == NULL) {
		snprintf(err, NFV_ERR_LEN, "netns %s: cannot open a netlink socket in it: %s",
			 name, strerror(errno));
		ns_close(ns);
		return NULL;
	}
	fd = mnl_socket_get_fd(ns->ev);
	for (unsigned int i = 0; i < RTE_DIM(groups); i++)
		if (setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &groups[i],
			       sizeof(groups[i])) < 0 && groups[i] != RTNLGRP_NEXTHOP)
			NFV_LOG(WARNING, "lcp: netlink group %u: %s", groups[i], strerror(errno));
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &lcp_nl_rcvbuf, sizeof(lcp_nl_rcvbuf)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &lcp_nl_rcvbuf, sizeof(lcp_nl_rcvbuf));
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	{
		/* Dumps of 100k routes: room for them. */
		int big = 8 << 20, rfd = mnl_socket_get_fd(ns->req);

		if (setsockopt(rfd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big)) < 0)
			setsockopt(rfd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	}
	if (nfv_event_fd_add(fd, POLLIN, events_cb, ns) < 0) {
		snprintf(err, NFV_ERR_LEN, "netns %s: no room in the event loop", name);
		ns_close(ns);
		return NULL;
	}
	NFV_LOG(INFO, "lcp: netlink in netns %s", name[0] ? name : "(nfvd's own)");
	return ns;
}

void
lcp_ns_put(struct lcp_ns *ns)
{
	if (ns == NULL || --ns->refcnt > 0)
		return;
	/* Its routes leave nfvd's tables. */
	for (uint32_t b = 0; b < kp_n_buckets; b++)
		for (struct kprefix *kp = kp_buckets[b]; kp != NULL; kp = kp->next) {
			struct kvar **pv = &kp->vars;

			while (*pv != NULL) {
				struct kvar *v = *pv;
				if (v->ns == ns->index) {
					*pv = v->next;
					var_free(v);
					kp_dirty(kp);
					continue;
				}
				pv = &v->next;
			}
		}
	for (unsigned int b = 0; b < KNH_BUCKETS; b++) {
		struct knh *k = knh_buckets[b], *next;
		for (; k != NULL; k = next) {
			next = k->next;
			if (k->ns == ns->index)
				knh_del(k);
		}
	}
	flush_dirty();
	ns_close(ns);
}
void
lcp_nl_resync_all(void)
{
	for (int i = 0; i < LCP_NS_MAX; i++)
		if (namespaces[i] != NULL)
			lcp_nl_resync(namespaces[i]);
}
int
lcp_nl_init(void)
{
	home_nsfd = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	if (home_nsfd < 0) {
		NFV_LOG(ERR, "lcp: cannot open nfvd's network namespace: %s", strerror(errno));
		return -errno;
	}
	home_req = socket_in(-1);
	if (home_req == NULL) {
		NFV_LOG(ERR, "lcp: cannot open a netlink socket: %s", strerror(errno));
		return -errno;
	}
	return 0;
}
void
lcp_nl_fini(void)
{
	for (int i = 0; i < LCP_NS_MAX; i++)
		if (namespaces[i] != NULL)
			ns_close(namespaces[i]);
	for (uint32_t b = 0; b < kp_n_buckets; b++) {
		struct kprefix *kp = kp_buckets[b], *next;

		for (; kp != NULL; kp = next) {
			next = kp->next;
			while (kp->vars != NULL) {
				struct kvar *v = kp->vars;
				kp->vars = v->next;
				var_free(v);
			}
			free(kp);
		}
	}
	free(kp_buckets);
	kp_buckets = NULL;
	kp_n_buckets = kp_count = kp_installed = 0;
	for (unsigned int b = 0; b < KNH_BUCKETS; b++)
		while (knh_buckets[b] != NULL)
			knh_del(knh_buckets[b]);
	free(dirty);
	dirty = NULL;
	n_dirty = dirty_cap = 0;
	if (home_req != NULL)
		mnl_socket_close(home_req);
	home_req = NULL;
	if (home_nsfd >= 0)
		close(home_nsfd);
	home_nsfd = -1;
}
