/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * UPF sessions (control side): the PDRs and FARs the SMF sets up over
 * PFCP, compiled into the workers' uplink (TEID) and downlink (UE address)
 * tables, N3, "upf set n3" and "upf show sessions", the module.
 *
 * A request changes a copy of the session; only when every rule of the
 * copy holds together (each PDR's FAR exists, no key of another session)
 * is it compiled and installed: new rules go in (rte_hash with lock-free
 * readers replaces a key's rule atomically), keys that went are deleted,
 * and after one RCU grace period the old rules and the deleted keys'
 * slots are freed. A refused request leaves the session as it was.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <rte_hash.h>
#include <rte_jhash.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "api/parse.h"
#include "core/arc.h"
#include "core/counters.h"
#include "core/iface_event.h"
#include "core/log.h"
#include "core/module.h"
#include "core/stats.h"
#include "core/worker.h"
#include "modules/infra/iface.h"
#include "modules/ip/ip.h"
#include "modules/upf/control/upf_ctl.h"
#include "modules/upf/upf.h"

struct nfv_upf_n3 *nfv_upf_n3;
struct rte_hash *nfv_upf_table[2];
struct nfv_upf_session_counters *nfv_upf_session_counters[NFV_MAX_WORKERS];
NFV_COUNTER_BLOCK(nfv_upf_counters_block, "upf", struct nfv_upf_counters);

struct upf_key {
	uint8_t dir;
	rte_be32_t key;
	uint16_t pdr_id;
	struct nfv_upf_rule *rule;
};

struct upf_session {
	bool used;
	uint64_t seid;
	uint64_t cp_seid;
	uint32_t cp_ipv4;
	struct pfcp_node_id node;
	unsigned int n_pdr, n_far, n_keys;
	struct pfcp_pdr pdr[PFCP_RULES_MAX];
	struct pfcp_far far[PFCP_RULES_MAX];
	struct upf_key keys[PFCP_RULES_MAX]; /* installed */
	struct nfv_upf_session_counters base; /* the counters when it was made */
};

static struct upf_session *sessions;
static unsigned int n_sessions;
static uint32_t seid_gen;
static uint32_t teid_next = 1;

static struct rte_hash *
table_create(const char *name)
{
	struct rte_hash_parameters prm = {
		.name = name,
		.entries = 2 * NFV_UPF_KEYS_MAX,
		.key_len = sizeof(rte_be32_t),
		.hash_func = rte_jhash,
		.socket_id = (int)rte_socket_id(),
		/* Lock-free readers; extendable buckets, so an insertion of
		 * at most NFV_UPF_KEYS_MAX keys never fails. */
		.extra_flag = RTE_HASH_EXTRA_FLAGS_RW_CONCURRENCY_LF |
			      RTE_HASH_EXTRA_FLAGS_EXT_TABLE,
	};

	return rte_hash_create(&prm);
}

int
upf_tables_init(char *err)
{
	if (sessions != NULL)
		return 0;
	nfv_upf_table[NFV_UPF_UL] = table_create("nfv_upf_ul");
	nfv_upf_table[NFV_UPF_DL] = table_create("nfv_upf_dl");
	sessions = calloc(NFV_UPF_SESSIONS_MAX, sizeof(*sessions));
	for (unsigned int w = 0; w < nfv_n_workers; w++) {
		int socket = (int)rte_lcore_to_socket_id(nfv_workers[w].lcore_id);

		nfv_upf_session_counters[w] = rte_zmalloc_socket("nfv_upf_counters",
			NFV_UPF_SESSIONS_MAX * sizeof(struct nfv_upf_session_counters),
			RTE_CACHE_LINE_SIZE, socket);
		if (nfv_upf_session_counters[w] == NULL)
			goto nomem;
	}
	if (nfv_upf_table[0] == NULL || nfv_upf_table[1] == NULL || sessions == NULL)
		goto nomem;
	return 0;
nomem:
	/* All or nothing: the nodes read the tables only with the counters. */
	for (unsigned int d = 0; d < 2; d++) {
		rte_hash_free(nfv_upf_table[d]);
		nfv_upf_table[d] = NULL;
	}
	for (unsigned int w = 0; w < nfv_n_workers; w++) {
		rte_free(nfv_upf_session_counters[w]);
		nfv_upf_session_counters[w] = NULL;
	}
	free(sessions);
	sessions = NULL;
	snprintf(err, NFV_ERR_LEN, "no memory for the UPF tables");
	return -ENOMEM;
}

static void
session_counters(uint32_t idx, struct nfv_upf_session_counters *out)
{
	memset(out, 0, sizeof(*out));
	for (unsigned int w = 0; w < nfv_n_workers; w++) {
		const struct nfv_upf_session_counters *c = nfv_upf_session_counters[w];

		if (c == NULL)
			continue;
		for (unsigned int d = 0; d < 2; d++) {
			out->packets[d] += __atomic_load_n(&c[idx].packets[d], __ATOMIC_RELAXED);
			out->bytes[d] += __atomic_load_n(&c[idx].bytes[d], __ATOMIC_RELAXED);
		}
	}
}

static struct upf_session *
session_of(uint64_t seid)
{
	uint32_t idx = (uint32_t)seid;

	if (sessions == NULL || idx >= NFV_UPF_SESSIONS_MAX || !sessions[idx].used ||
	    sessions[idx].seid != seid)
		return NULL;
	return &sessions[idx];
}

static struct pfcp_pdr *
pdr_of(struct upf_session *s, uint16_t id)
{
	for (unsigned int i = 0; i < s->n_pdr; i++)
		if (s->pdr[i].id == id)
			return &s->pdr[i];
	return NULL;
}

static struct pfcp_far *
far_of(struct upf_session *s, uint32_t id)
{
	for (unsigned int i = 0; i < s->n_far; i++)
		if (s->far[i].id == id)
			return &s->far[i];
	return NULL;
}

/* A TEID no uplink rule uses (CHOOSE). */
static bool
teid_choose(uint32_t *teid)
{
	for (uint32_t tries = 0; tries < 1000000; tries++) {
		uint32_t t = teid_next++;
		rte_be32_t k = rte_cpu_to_be_32(t);

		if (t == 0)
			continue;
		if (rte_hash_lookup(nfv_upf_table[NFV_UPF_UL], &k) < 0) {
			*teid = t;
			return true;
		}
	}
	return false;
}

/* The F-TEID of a PDR that asks the UPF to choose one. */
static uint8_t
fteid_fill(struct pfcp_pdr *p, struct upf_created *created, uint16_t *offending)
{
	const struct nfv_upf_n3 *n3 = nfv_upf_n3;

	if (!p->has_fteid || !p->fteid.ch)
		return PFCP_CAUSE_ACCEPTED;
	*offending = PFCP_IE_F_TEID;
	if (n3 == NULL || !teid_choose(&p->fteid.teid))
		return PFCP_CAUSE_NO_RESOURCES;
	p->fteid.ch = false;
	p->fteid.v4 = true;
	p->fteid.ipv4 = n3->addr;
	if (created->n < PFCP_RULES_MAX) {
		created->pdr_id[created->n] = p->id;
		created->fteid[created->n++] = p->fteid;
	}
	*offending = 0;
	return PFCP_CAUSE_ACCEPTED;
}

static uint8_t
rules_apply(struct upf_session *s, const struct pfcp_msg *m, struct upf_created *created,
	    uint16_t *offending)
{
	uint8_t cause;

	*offending = 0;
	for (unsigned int i = 0; i < m->n_remove_pdr; i++) {
		struct pfcp_pdr *p = pdr_of(s, m->remove_pdr[i]);

		if (p == NULL)
			goto rule_fail_pdr;
		*p = s->pdr[--s->n_pdr];
	}
	for (unsigned int i = 0; i < m->n_remove_far; i++) {
		struct pfcp_far *f = far_of(s, m->remove_far[i]);

		if (f == NULL)
			goto rule_fail_far;
		*f = s->far[--s->n_far];
	}
	for (unsigned int i = 0; i < m->n_create_far; i++) {
		if (far_of(s, m->create_far[i].id) != NULL)
			goto rule_fail_far;
		if (s->n_far == PFCP_RULES_MAX) {
			*offending = PFCP_IE_CREATE_FAR;
			return PFCP_CAUSE_NO_RESOURCES;
		}
		s->far[s->n_far++] = m->create_far[i];
	}
	for (unsigned int i = 0; i < m->n_update_far; i++) {
		const struct pfcp_far *u = &m->update_far[i];
		struct pfcp_far *f = far_of(s, u->id);

		if (f == NULL)
			goto rule_fail_far;
		if (u->has_action) {
			f->action = u->action;
			f->has_action = true;
		}
		if (u->has_fwd) {
			f->has_fwd = true;
			if (u->has_dst_iface) {
				f->dst_iface = u->dst_iface;
				f->has_dst_iface = true;
			}
			if (u->has_ohc) {
				f->has_ohc = true;
				f->ohc_desc = u->ohc_desc;
				f->ohc_teid = u->ohc_teid;
				f->ohc_ipv4 = u->ohc_ipv4;
			}
		}
	}
	for (unsigned int i = 0; i < m->n_create_pdr; i++) {
		struct pfcp_pdr p = m->create_pdr[i];

		if (pdr_of(s, p.id) != NULL)
			goto rule_fail_pdr;
		if (s->n_pdr == PFCP_RULES_MAX) {
			*offending = PFCP_IE_CREATE_PDR;
			return PFCP_CAUSE_NO_RESOURCES;
		}
		cause = fteid_fill(&p, created, offending);
		if (cause != PFCP_CAUSE_ACCEPTED)
			return cause;
		s->pdr[s->n_pdr++] = p;
	}
	for (unsigned int i = 0; i < m->n_update_pdr; i++) {
		struct pfcp_pdr u = m->update_pdr[i];
		struct pfcp_pdr *p = pdr_of(s, u.id);

		if (p == NULL)
			goto rule_fail_pdr;
		if (u.has_precedence)
			p->precedence = u.precedence;
		if (u.has_pdi) {
			cause = fteid_fill(&u, created, offending);
			if (cause != PFCP_CAUSE_ACCEPTED)
				return cause;
			p->src_iface = u.src_iface;
			p->has_fteid = u.has_fteid;
			p->fteid = u.fteid;
			p->has_ue_ip = u.has_ue_ip;
			p->ue_ip = u.ue_ip;
			p->ue_ip_dst = u.ue_ip_dst;
		}
		if (u.has_ohr) {
			p->has_ohr = true;
			p->ohr = u.ohr;
		}
		if (u.has_far_id) {
			p->has_far_id = true;
			p->far_id = u.far_id;
		}
	}
	/* Every FAR a PDR names must exist (7.5.2.2). */
	for (unsigned int i = 0; i < s->n_pdr; i++)
		if (s->pdr[i].has_far_id && far_of(s, s->pdr[i].far_id) == NULL)
			goto rule_fail_far;
	return PFCP_CAUSE_ACCEPTED;
rule_fail_pdr:
	*offending = PFCP_IE_PDR_ID;
	return PFCP_CAUSE_RULE_FAILURE;
rule_fail_far:
	*offending = PFCP_IE_FAR_ID;
	return PFCP_CAUSE_RULE_FAILURE;
}

/* The worker's view of a PDR and its FAR. */
static void
rule_of(struct upf_session *s, const struct pfcp_pdr *p, uint8_t dir, struct nfv_upf_rule *r)
{
	const struct pfcp_far *f = p->has_far_id ? far_of(s, p->far_id) : NULL;
	uint8_t act = f != NULL ? f->action : PFCP_ACTION_DROP;

	memset(r, 0, sizeof(*r));
	r->dir = dir;
	r->pdr_id = p->id;
	r->session = (uint32_t)(s - sessions);
	if (dir == NFV_UPF_UL && p->has_ue_ip)
		r->ue = p->ue_ip;
	if (act & PFCP_ACTION_DROP || !(act & (PFCP_ACTION_FORW | PFCP_ACTION_BUFF))) {
		r->action = NFV_UPF_DROP;
	} else if (act & PFCP_ACTION_FORW) {
		if (dir == NFV_UPF_UL) {
			r->action = f->has_ohc ? NFV_UPF_UNSUPPORTED : NFV_UPF_FORWARD;
		} else if (f->has_ohc && (f->ohc_desc & PFCP_OHC_GTPU_UDP_IPV4)) {
			r->action = NFV_UPF_FORWARD;
			r->teid = rte_cpu_to_be_32(f->ohc_teid);
			r->peer = f->ohc_ipv4;
		} else {
			r->action = NFV_UPF_NO_TUNNEL;
		}
	} else {
		r->action = NFV_UPF_BUFFER;
	}
}

/* The keys a session's PDRs attract: an uplink PDR (source access) by
 * its F-TEID, a downlink one (source core / N6-LAN) by the UE address;
 * where two PDRs name one key, the lower precedence value wins. */
static unsigned int
keys_of(struct upf_session *s, struct upf_key *keys, uint32_t *prec)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < s->n_pdr; i++) {
		const struct pfcp_pdr *p = &s->pdr[i];
		uint8_t dir;
		rte_be32_t key;
		unsigned int j;

		if (p->src_iface == PFCP_IF_ACCESS && p->has_fteid && !p->fteid.ch) {
			dir = NFV_UPF_UL;
			key = rte_cpu_to_be_32(p->fteid.teid);
		} else if ((p->src_iface == PFCP_IF_CORE || p->src_iface == PFCP_IF_SGI_LAN) &&
			   p->has_ue_ip) {
			dir = NFV_UPF_DL;
			key = p->ue_ip;
		} else {
			continue;
		}
		for (j = 0; j < n; j++)
			if (keys[j].dir == dir && keys[j].key == key)
				break;
		if (j < n && prec[j] <= p->precedence)
			continue;
		if (j == n)
			n++;
		keys[j].dir = dir;
		keys[j].key = key;
		keys[j].pdr_id = p->id;
		keys[j].rule = NULL;
		prec[j] = p->precedence;
	}
	return n;
}

/* Installs s's rules in place of old (n_old keys). The new keys are
 * checked free of other sessions first; cause 73 when one is not. */
static uint8_t
session_install(struct upf_session *s, const struct upf_key *old, unsigned int n_old,
		uint16_t *offending)
{
	struct upf_key keys[PFCP_RULES_MAX];
	uint32_t prec[PFCP_RULES_MAX];
	struct nfv_upf_rule *garbage[2 * PFCP_RULES_MAX];
	int32_t freed[PFCP_RULES_MAX];
	unsigned int n = keys_of(s, keys, prec), n_garbage = 0, n_freed = 0;
	uint32_t idx = (uint32_t)(s - sessions);

	for (unsigned int i = 0; i < n; i++) {
		void *d;

		if (rte_hash_lookup_data(nfv_upf_table[keys[i].dir], &keys[i].key, &d) >= 0 &&
		    ((struct nfv_upf_rule *)d)->session != idx) {
			*offending = keys[i].dir == NFV_UPF_UL ? PFCP_IE_F_TEID :
				     PFCP_IE_UE_IP_ADDRESS;
			return PFCP_CAUSE_RULE_FAILURE;
		}
	}
	for (unsigned int i = 0; i < n; i++) {
		struct nfv_upf_rule *r = rte_zmalloc("nfv_upf_rule", sizeof(*r), 0);

		if (r == NULL) {
			/* Keep what is installed: the rules already made are
			 * freed, the session keeps its old keys. */
			for (unsigned int j = 0; j < i; j++)
				rte_free(keys[j].rule);
			*offending = 0;
			return PFCP_CAUSE_NO_RESOURCES;
		}
		rule_of(s, pdr_of(s, keys[i].pdr_id), keys[i].dir, r);
		keys[i].rule = r;
	}
	for (unsigned int i = 0; i < n; i++)
		rte_hash_add_key_data(nfv_upf_table[keys[i].dir], &keys[i].key, keys[i].rule);
	for (unsigned int i = 0; i < n_old; i++) {
		bool kept = false;

		for (unsigned int j = 0; j < n && !kept; j++)
			kept = keys[j].dir == old[i].dir && keys[j].key == old[i].key;
		if (!kept) {
			int32_t pos = rte_hash_del_key(nfv_upf_table[old[i].dir], &old[i].key);

			if (pos >= 0)
				freed[n_freed++] = pos | (int32_t)old[i].dir << 30;
		}
		garbage[n_garbage++] = old[i].rule;
	}
	memcpy(s->keys, keys, sizeof(keys[0]) * n);
	s->n_keys = n;
	nfv_rcu_sync();
	for (unsigned int i = 0; i < n_garbage; i++)
		rte_free(garbage[i]);
	for (unsigned int i = 0; i < n_freed; i++)
		rte_hash_free_key_with_position(nfv_upf_table[freed[i] >> 30],
						freed[i] & ((1 << 30) - 1));
	return PFCP_CAUSE_ACCEPTED;
}

uint8_t
upf_session_establish(const struct pfcp_msg *req, uint64_t *up_seid,
		      struct upf_created *created, uint16_t *offending)
{
	struct upf_session *s = NULL;
	uint8_t cause;

	*offending = 0;
	created->n = 0;
	for (uint32_t i = 0; sessions != NULL && i < NFV_UPF_SESSIONS_MAX; i++)
		if (!sessions[i].used) {
			s = &sessions[i];
			break;
		}
	if (s == NULL)
		return PFCP_CAUSE_NO_RESOURCES;
	memset(s, 0, sizeof(*s));
	cause = rules_apply(s, req, created, offending);
	if (cause == PFCP_CAUSE_ACCEPTED)
		cause = session_install(s, NULL, 0, offending);
	if (cause != PFCP_CAUSE_ACCEPTED) {
		memset(s, 0, sizeof(*s));
		return cause;
	}
	s->used = true;
	s->seid = (uint64_t)++seid_gen << 32 | (uint32_t)(s - sessions);
	s->cp_seid = req->cp_seid;
	s->cp_ipv4 = req->cp_ipv4;
	s->node = req->node_id;
	session_counters((uint32_t)(s - sessions), &s->base);
	n_sessions++;
	*up_seid = s->seid;
	return PFCP_CAUSE_ACCEPTED;
}

uint8_t
upf_session_modify(uint64_t seid, const struct pfcp_msg *req, uint64_t *cp_seid,
		   struct upf_created *created, uint16_t *offending)
{
	struct upf_session *s = session_of(seid), copy;
	uint8_t cause;

	*offending = 0;
	created->n = 0;
	if (s == NULL)
		return PFCP_CAUSE_SESSION_NOT_FOUND;
	*cp_seid = s->cp_seid;
	copy = *s;
	cause = rules_apply(&copy, req, created, offending);
	if (cause != PFCP_CAUSE_ACCEPTED)
		return cause;
	/* Installed from the copy: it is the session once accepted. */
	{
		struct upf_key old[PFCP_RULES_MAX];
		unsigned int n_old = s->n_keys;
		struct upf_session saved = *s;

		memcpy(old, s->keys, sizeof(old[0]) * n_old);
		*s = copy;
		cause = session_install(s, old, n_old, offending);
		if (cause != PFCP_CAUSE_ACCEPTED)
			*s = saved;
	}
	return cause;
}

static void
session_remove(struct upf_session *s)
{
	struct upf_key old[PFCP_RULES_MAX];
	unsigned int n_old = s->n_keys;
	uint16_t off;

	memcpy(old, s->keys, sizeof(old[0]) * n_old);
	s->n_pdr = 0;
	s->n_far = 0;
	session_install(s, old, n_old, &off);
	memset(s, 0, sizeof(*s));
	n_sessions--;
}

bool
upf_session_cp_seid(uint64_t seid, uint64_t *cp_seid)
{
	struct upf_session *s = session_of(seid);

	if (s != NULL)
		*cp_seid = s->cp_seid;
	return s != NULL;
}

uint8_t
upf_session_delete(uint64_t seid, uint64_t *cp_seid)
{
	struct upf_session *s = session_of(seid);

	if (s == NULL)
		return PFCP_CAUSE_SESSION_NOT_FOUND;
	*cp_seid = s->cp_seid;
	session_remove(s);
	return PFCP_CAUSE_ACCEPTED;
}

unsigned int
upf_sessions_delete_node(const struct pfcp_node_id *node)
{
	unsigned int n = 0;

	for (uint32_t i = 0; sessions != NULL && i < NFV_UPF_SESSIONS_MAX; i++) {
		struct upf_session *s = &sessions[i];

		if (s->used && s->node.type == node->type && s->node.len == node->len &&
		    memcmp(s->node.v, node->v, node->len) == 0) {
			session_remove(s);
			n++;
		}
	}
	return n;
}

/* ---- N3 and the downlink feature ------------------------------------------------ */

static bool feature_on[NFV_IFACE_MAX];

/* The downlink node on every interface but N3's. */
static void
features_sync(void)
{
	const struct nfv_upf_n3 *n3 = nfv_upf_n3;
	char err[NFV_ERR_LEN];

	for (uint16_t i = 0; i < NFV_IFACE_MAX; i++) {
		bool want = n3 != NULL && nfv_ifaces[i].used && i != n3->iface;

		if (want == feature_on[i])
			continue;
		if (nfv_arc_feature_set("ip4_ingress", "nfv_upf_downlink", i, want, err) < 0)
			NFV_LOG(ERR, "upf: %s", err);
		else
			feature_on[i] = want;
	}
}

static void
n3_publish(struct nfv_upf_n3 *n)
{
	struct nfv_upf_n3 *old = __atomic_exchange_n(&nfv_upf_n3, n, __ATOMIC_ACQ_REL);

	features_sync();
	nfv_rcu_sync();
	rte_free(old);
}

int
nfv_upf_set_n3(const char *addr, const char *dev, char *err)
{
	struct nfv_prefix pfx[NFV_ADDR_PER_PORT_MAX];
	struct nfv_iface *ifc = nfv_iface_by_name(dev);
	struct nfv_upf_n3 *n;
	struct nfv_ip ip;
	unsigned int n_addr;
	bool found = false;
	int rc;

	if (nfv_parse_ip_family(addr, AF_INET, &ip) < 0) {
		snprintf(err, NFV_ERR_LEN, "bad N3 address '%s' (expected an IPv4 address)", addr);
		return -EINVAL;
	}
	if (ifc == NULL) {
		snprintf(err, NFV_ERR_LEN, "unknown interface '%s'", dev);
		return -ENODEV;
	}
	n_addr = nfv_addr_of_iface(ifc->id, pfx);
	for (unsigned int i = 0; i < n_addr; i++)
		found |= pfx[i].ip.family == AF_INET && pfx[i].ip.v4 == ip.v4;
	if (!found) {
		snprintf(err, NFV_ERR_LEN, "%s is not an address of %s (addr add %s/LEN dev %s)",
			 addr, dev, addr, dev);
		return -EINVAL;
	}
	rc = upf_tables_init(err);
	if (rc < 0)
		return rc;
	n = rte_zmalloc("nfv_upf_n3", sizeof(*n), 0);
	if (n == NULL) {
		snprintf(err, NFV_ERR_LEN, "no memory");
		return -ENOMEM;
	}
	n->addr = ip.v4;
	n->iface = ifc->id;
	n3_publish(n);
	return 0;
}

static void
upf_iface_event(enum nfv_iface_event ev, uint16_t iface, void *arg)
{
	RTE_SET_USED(arg);
	if (ev == NFV_IFACE_REMOVED) {
		feature_on[iface] = false; /* the arcs clear the interface's features */
		if (nfv_upf_n3 != NULL && nfv_upf_n3->iface == iface) {
			NFV_LOG(WARNING, "upf: N3 interface removed: no N3 until 'upf set n3'");
			n3_publish(NULL);
		}
	} else if (ev == NFV_IFACE_ADDED) {
		features_sync();
	} else if (ev == NFV_IFACE_ADDR && nfv_upf_n3 != NULL &&
		   nfv_upf_n3->iface == iface) {
		struct nfv_prefix pfx[NFV_ADDR_PER_PORT_MAX];
		unsigned int n = nfv_addr_of_iface(iface, pfx);
		bool found = false;

		for (unsigned int i = 0; i < n; i++)
			found |= pfx[i].ip.family == AF_INET && pfx[i].ip.v4 == nfv_upf_n3->addr;
		if (!found) {
			NFV_LOG(WARNING, "upf: N3 address removed: no N3 until 'upf set n3'");
			n3_publish(NULL);
		}
	}
}
NFV_IFACE_EVENT_HANDLER(upf_iface_event);

/* ---- show --------------------------------------------------------------------- */

static const char *
iface_name(uint8_t v)
{
	static const char *const names[] = { "access", "core", "n6-lan", "cp-function" };

	return v < RTE_DIM(names) ? names[v] : "other";
}

static json_t *
ip_json(uint32_t be)
{
	char buf[64];
	struct nfv_ip ip = { .family = AF_INET, .v4 = be };

	return json_string(nfv_ip_str(&ip, buf, sizeof(buf)));
}

static json_t *
node_id_json(const struct pfcp_node_id *id)
{
	char buf[256];

	if (id->type == 0) {
		uint32_t a;

		memcpy(&a, id->v, sizeof(a));
		return ip_json(a);
	}
	if (id->type == 2) {
		/* Labels, each with its length (TS 29.244 8.2.38, RFC 1035). */
		size_t o = 0;

		for (unsigned int i = 0; i < id->len && o + 1 < sizeof(buf);) {
			unsigned int l = id->v[i++];

			if (o != 0)
				buf[o++] = '.';
			for (unsigned int k = 0; k < l && i < id->len && o + 1 < sizeof(buf); k++)
				buf[o++] = (char)id->v[i++];
		}
		buf[o] = '\0';
		return json_string(buf);
	}
	return json_string("ipv6");
}

static json_t *
action_json(uint8_t a)
{
	json_t *l = json_array();

	if (a & PFCP_ACTION_DROP)
		json_array_append_new(l, json_string("drop"));
	if (a & PFCP_ACTION_FORW)
		json_array_append_new(l, json_string("forward"));
	if (a & PFCP_ACTION_BUFF)
		json_array_append_new(l, json_string("buffer"));
	if (a & PFCP_ACTION_NOCP)
		json_array_append_new(l, json_string("notify_cp"));
	if (a & PFCP_ACTION_DUPL)
		json_array_append_new(l, json_string("duplicate"));
	return l;
}

static json_t *
session_json(struct upf_session *s)
{
	struct nfv_upf_session_counters c;
	json_t *o = json_object(), *pdrs = json_array(), *fars = json_array();
	uint32_t idx = (uint32_t)(s - sessions);

	for (unsigned int i = 0; i < s->n_pdr; i++) {
		const struct pfcp_pdr *p = &s->pdr[i];
		json_t *j = json_pack("{s:i, s:I, s:s}", "id", p->id,
				      "precedence", (json_int_t)p->precedence,
				      "source_interface", iface_name(p->src_iface));

		if (p->has_fteid) {
			json_object_set_new(j, "teid", json_integer(p->fteid.teid));
			json_object_set_new(j, "teid_address", ip_json(p->fteid.ipv4));
		}
		if (p->has_ue_ip)
			json_object_set_new(j, "ue_address", ip_json(p->ue_ip));
		json_object_set_new(j, "outer_header_removal", json_boolean(p->has_ohr));
		if (p->has_far_id)
			json_object_set_new(j, "far_id", json_integer(p->far_id));
		json_array_append_new(pdrs, j);
	}
	for (unsigned int i = 0; i < s->n_far; i++) {
		const struct pfcp_far *f = &s->far[i];
		json_t *j = json_pack("{s:I, s:o}", "id", (json_int_t)f->id,
				      "action", action_json(f->action));

		if (f->has_dst_iface)
			json_object_set_new(j, "destination_interface",
					    json_string(iface_name(f->dst_iface)));
		if (f->has_ohc && (f->ohc_desc & PFCP_OHC_GTPU_UDP_IPV4)) {
			json_object_set_new(j, "teid", json_integer(f->ohc_teid));
			json_object_set_new(j, "peer", ip_json(f->ohc_ipv4));
		}
		json_array_append_new(fars, j);
	}
	session_counters(idx, &c);
	json_object_set_new(o, "seid", json_integer((json_int_t)s->seid));
	json_object_set_new(o, "cp_seid", json_integer((json_int_t)s->cp_seid));
	json_object_set_new(o, "cp_address", ip_json(s->cp_ipv4));
	json_object_set_new(o, "node_id", node_id_json(&s->node));
	json_object_set_new(o, "pdrs", pdrs);
	json_object_set_new(o, "fars", fars);
	json_object_set_new(o, "uplink_packets",
			    json_integer((json_int_t)(c.packets[0] - s->base.packets[0])));
	json_object_set_new(o, "uplink_bytes",
			    json_integer((json_int_t)(c.bytes[0] - s->base.bytes[0])));
	json_object_set_new(o, "downlink_packets",
			    json_integer((json_int_t)(c.packets[1] - s->base.packets[1])));
	json_object_set_new(o, "downlink_bytes",
			    json_integer((json_int_t)(c.bytes[1] - s->base.bytes[1])));
	return o;
}

json_t *upf_pfcp_json(void); /* pfcp_server.c */

int
nfv_upf_show(uint64_t seid, json_t **out, char *err)
{
	json_t *o = json_object(), *list = json_array();
	const struct nfv_upf_n3 *n3 = nfv_upf_n3;
	struct nfv_upf_counters c;

	if (seid != 0 && session_of(seid) == NULL) {
		json_decref(o);
		json_decref(list);
		snprintf(err, NFV_ERR_LEN, "no session with SEID %" PRIu64, seid);
		return -ENOENT;
	}
	for (uint32_t i = 0; sessions != NULL && i < NFV_UPF_SESSIONS_MAX; i++)
		if (sessions[i].used && (seid == 0 || sessions[i].seid == seid))
			json_array_append_new(list, session_json(&sessions[i]));
	nfv_counters_sum(&nfv_upf_counters_block, &c);
	json_object_set_new(o, "count", json_integer(n_sessions));
	if (n3 != NULL)
		json_object_set_new(o, "n3", json_pack("{s:o, s:s}", "address", ip_json(n3->addr),
						       "dev", nfv_iface_name_of(n3->iface)));
	json_object_set_new(o, "uplink_packets", json_integer((json_int_t)c.uplink_packets));
	json_object_set_new(o, "downlink_packets", json_integer((json_int_t)c.downlink_packets));
	json_object_set_new(o, "echo_replies", json_integer((json_int_t)c.echo_replies));
	json_object_set_new(o, "pfcp", upf_pfcp_json());
	json_object_set_new(o, "sessions", list);
	*out = o;
	return 0;
}

static void
upf_show_stats(json_t *stats)
{
	struct nfv_upf_counters c;

	nfv_counters_sum(&nfv_upf_counters_block, &c);
	json_object_set_new(stats, "upf",
			    json_pack("{s:I, s:I, s:I, s:I}",
				      "sessions", (json_int_t)n_sessions,
				      "uplink_packets", (json_int_t)c.uplink_packets,
				      "downlink_packets", (json_int_t)c.downlink_packets,
				      "echo_replies", (json_int_t)c.echo_replies));
}

static void
upf_metrics(FILE *f)
{
	struct nfv_upf_counters c;
	bool was = nfv_stats_since_start(true);

	nfv_counters_sum(&nfv_upf_counters_block, &c);
	nfv_stats_since_start(was);
	nfv_metrics_help(f, "nfvd_upf_packets_total", "counter",
			 "packets the UPF decapsulated (uplink) and encapsulated (downlink)");
	fprintf(f, "nfvd_upf_packets_total{direction=\"uplink\"} %" PRIu64 "\n",
		c.uplink_packets);
	fprintf(f, "nfvd_upf_packets_total{direction=\"downlink\"} %" PRIu64 "\n",
		c.downlink_packets);
	nfv_metrics_help(f, "nfvd_upf_sessions", "gauge", "PFCP sessions established");
	fprintf(f, "nfvd_upf_sessions %u\n", n_sessions);
}

static const struct nfv_collector upf_collector = {
	.name = "upf",
	.show_stats = upf_show_stats,
	.metrics = upf_metrics,
};
NFV_COLLECTOR_REGISTER(upf_collector);

void upf_pfcp_close(void); /* pfcp_server.c */

static void
upf_fini(void)
{
	upf_pfcp_close();
	rte_free(nfv_upf_n3);
	nfv_upf_n3 = NULL;
	for (uint32_t i = 0; sessions != NULL && i < NFV_UPF_SESSIONS_MAX; i++)
		for (unsigned int k = 0; k < sessions[i].n_keys; k++)
			rte_free(sessions[i].keys[k].rule);
	free(sessions);
	sessions = NULL;
	for (unsigned int d = 0; d < 2; d++) {
		rte_hash_free(nfv_upf_table[d]);
		nfv_upf_table[d] = NULL;
	}
	for (unsigned int w = 0; w < NFV_MAX_WORKERS; w++) {
		rte_free(nfv_upf_session_counters[w]);
		nfv_upf_session_counters[w] = NULL;
	}
}

static struct nfv_module upf_module = {
	.name = "upf",
	.depends_on = "ip",
	.fini = upf_fini,
};
NFV_MODULE_REGISTER(upf_module);
