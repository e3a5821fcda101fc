/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ACLs: the rule lists, their compilation into rte_acl contexts, attaching
 * them to interfaces, hit counters and the views.
 *
 * rte_acl returns the match of highest priority; rules are given the
 * priority RTE_ACL_MAX_PRIORITY - prio, so the lowest prio wins, and their
 * index (plus one) as user data. A rule without addresses applies to both
 * families unless its protocol is ICMP (IPv4) or ICMPv6.
 *
 * Publication: a change to an attached ACL compiles a new version (both
 * families), stores its pointer (workers load it once per packet run) and
 * frees the old one after an RCU grace period. A detached ACL is compiled
 * when it is attached. Attaching an ACL where another is attached replaces
 * it in one store (a whole rule set swapped at once).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include <jansson.h>
#include <rte_acl.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_telemetry.h>

#include "api/cmd.h"
#include "core/arc.h"
#include "core/iface_event.h"
#include "core/log.h"
#include "core/module.h"
#include "core/stats.h"
#include "modules/acl/acl.h"
#include "modules/acl/ifattach.h"
#include "modules/acl/symhash.h"
#include "modules/infra/handoff.h"
#include "modules/infra/iface.h"

#define ACL_MAX 1024

struct acl_rule {
	struct nfv_acl_rule_spec s;
	uint32_t slot;
	uint64_t base; /* the slot's hits when it was given to this rule */
};

struct nfv_acl {
	char name[32];
	uint32_t n_rules;
	uint32_t cap;
	struct acl_rule *rules; /* sorted by prio */
	uint32_t default_slot;
	uint64_t default_base;
	struct nfv_acl_compiled *active; /* workers read it */
	bool dirty;                      /* rules changed since active was built */
	uint32_t n_attached;
};

struct nfv_acl *nfv_acl_bound[NFV_ACL_DIRS][NFV_IFACE_MAX];
uint64_t *nfv_acl_hits[NFV_MAX_WORKERS];
struct nfv_acl_cache nfv_acl_caches[NFV_MAX_WORKERS][NFV_ACL_DIRS];
bool nfv_acl_cache_on = true;
static uint64_t compiled_gen; /* the last version's gen */
NFV_COUNTER_BLOCK(nfv_acl_counters_block, "acl", struct nfv_acl_counters);

static struct nfv_acl *acls[ACL_MAX];
static uint8_t slot_used[NFV_ACL_SLOTS];
static uint32_t slot_next;
static uint32_t ctx_seq;

static const char *const features[NFV_ACL_DIRS][2][2] = {
	[NFV_ACL_IN] = { { "ip4_ingress", "nfv_acl_in4" }, { "ip6_ingress", "nfv_acl_in6" } },
	[NFV_ACL_OUT] = { { "ip4_egress", "nfv_acl_out4" }, { "ip6_egress", "nfv_acl_out6" } },
};

const struct nfv_acl_compiled *
nfv_acl_active(const struct nfv_acl *acl)
{
	return __atomic_load_n(&acl->active, __ATOMIC_ACQUIRE);
}

/* ---- counters ---- */

static uint64_t
slot_sum(uint32_t slot)
{
	uint64_t sum = 0;

	for (unsigned int w = 0; w < nfv_n_workers; w++)
		if (nfv_acl_hits[w] != NULL)
			sum += __atomic_load_n(&nfv_acl_hits[w][slot], __ATOMIC_RELAXED);
	return sum;
}

static int
slot_alloc(uint32_t *slot, uint64_t *base)
{
	for (uint32_t i = 0; i < NFV_ACL_SLOTS; i++) {
		uint32_t s = (slot_next + i) % NFV_ACL_SLOTS;

		if (!slot_used[s]) {
			slot_used[s] = 1;
			slot_next = s + 1;
			*slot = s;
			*base = slot_sum(s);
			return 0;
		}
	}
	return -ENOSPC;
}

static void
slot_free(uint32_t slot)
{
	slot_used[slot] = 0;
}

static int
acl_hits_setup(void)
{
	for (unsigned int w = 0; w < nfv_n_workers; w++) {
		nfv_acl_hits[w] = rte_zmalloc_socket("nfv_acl_hits", NFV_ACL_SLOTS * sizeof(uint64_t),
						     RTE_CACHE_LINE_SIZE,
						     (int)rte_lcore_to_socket_id(nfv_workers[w].lcore_id));
		if (nfv_acl_hits[w] == NULL)
			return -ENOMEM;
	}
	return 0;
}

/*
 * The decision caches are allocated at the first attach (nfvd without ACLs
 * does not pay for them). A worker without its cache (no memory) classifies
 * every packet.
 */
static void
acl_cache_setup(void)
{
	static bool done;

	if (done)
		return;
	done = true;
	for (unsigned int w = 0; w < nfv_n_workers; w++) {
		int sock = (int)rte_lcore_to_socket_id(nfv_workers[w].lcore_id);

		for (unsigned int d = 0; d < NFV_ACL_DIRS; d++) {
			struct nfv_acl_cache *c = &nfv_acl_caches[w][d];
			void *v4, *v6;

			v4 = rte_zmalloc_socket("nfv_acl_cache4", NFV_ACL_CACHE_WAYS *
						NFV_ACL_CACHE_SETS * sizeof(*c->v4),
						RTE_CACHE_LINE_SIZE, sock);
			v6 = rte_zmalloc_socket("nfv_acl_cache6", NFV_ACL_CACHE_WAYS *
						NFV_ACL_CACHE_SETS * sizeof(*c->v6),
						RTE_CACHE_LINE_SIZE, sock);
			if (v4 == NULL || v6 == NULL) {
				rte_free(v4);
				rte_free(v6);
				NFV_LOG(WARNING, "acl: no memory for worker %u's decision cache; "
					"it classifies every packet", w);
				continue;
			}
			if (d == NFV_ACL_IN) {
				c->pair = rte_zmalloc_socket("nfv_acl_pair", NFV_ACL_CACHE_WAYS *
							     NFV_ACL_CACHE_SETS *
							     sizeof(*c->pair),
							     RTE_CACHE_LINE_SIZE, sock);
				c->pair6 = rte_zmalloc_socket("nfv_acl_pair6", NFV_ACL_CACHE_WAYS *
							      NFV_ACL_CACHE_SETS *
							      sizeof(*c->pair6),
							      RTE_CACHE_LINE_SIZE, sock);
				if (c->pair == NULL || c->pair6 == NULL)
					NFV_LOG(WARNING, "acl: no memory for worker %u's pair "
						"caches; its output ACLs run on their own", w);
			}
			c->v4 = v4;
			c->v6 = v6;
		}
	}
}

int
nfv_acl_set_cache(bool on)
{
	__atomic_store_n(&nfv_acl_cache_on, on, __ATOMIC_RELAXED);
	return 0;
}
NFV_GRAPH_SETUP(acl_hits_setup);

/* ---- compilation ---- */

RTE_ACL_RULE_DEF(acl4_rule, 6);
RTE_ACL_RULE_DEF(acl6_rule, 12);

#define KEY4(f) offsetof(struct nfv_acl4_key, f)
#define KEY6(f) offsetof(struct nfv_acl6_key, f)

static const struct rte_acl_field_def acl4_defs[6] = {
	{ .type = RTE_ACL_FIELD_TYPE_BITMASK, .size = 1, .field_index = 0, .input_index = 0,
	  .offset = KEY4(proto) },
	{ .type = RTE_ACL_FIELD_TYPE_MASK, .size = 4, .field_index = 1, .input_index = 1,
	  .offset = KEY4(src) },
	{ .type = RTE_ACL_FIELD_TYPE_MASK, .size = 4, .field_index = 2, .input_index = 2,
	  .offset = KEY4(dst) },
	{ .type = RTE_ACL_FIELD_TYPE_RANGE, .size = 2, .field_index = 3, .input_index = 3,
	  .offset = KEY4(sport) },
	{ .type = RTE_ACL_FIELD_TYPE_RANGE, .size = 2, .field_index = 4, .input_index = 3,
	  .offset = KEY4(dport) },
	{ .type = RTE_ACL_FIELD_TYPE_BITMASK, .size = 4, .field_index = 5, .input_index = 4,
	  .offset = KEY4(l4) },
};

#define ADDR6(idx, in, off) \
	{ .type = RTE_ACL_FIELD_TYPE_MASK, .size = 4, .field_index = (idx), \
	  .input_index = (in), .offset = (off) }

static const struct rte_acl_field_def acl6_defs[12] = {
	{ .type = RTE_ACL_FIELD_TYPE_BITMASK, .size = 1, .field_index = 0, .input_index = 0,
	  .offset = KEY6(proto) },
	ADDR6(1, 1, KEY6(src)), ADDR6(2, 2, KEY6(src) + 4), ADDR6(3, 3, KEY6(src) + 8),
	ADDR6(4, 4, KEY6(src) + 12),
	ADDR6(5, 5, KEY6(dst)), ADDR6(6, 6, KEY6(dst) + 4), ADDR6(7, 7, KEY6(dst) + 8),
	ADDR6(8, 8, KEY6(dst) + 12),
	{ .type = RTE_ACL_FIELD_TYPE_RANGE, .size = 2, .field_index = 9, .input_index = 9,
	  .offset = KEY6(sport) },
	{ .type = RTE_ACL_FIELD_TYPE_RANGE, .size = 2, .field_index = 10, .input_index = 9,
	  .offset = KEY6(dport) },
	{ .type = RTE_ACL_FIELD_TYPE_BITMASK, .size = 4, .field_index = 11, .input_index = 10,
	  .offset = KEY6(l4) },
};

/* Whether a rule applies to a family (index 0 IPv4, 1 IPv6). */
static bool
rule_in_family(const struct nfv_acl_rule_spec *s, unsigned int f)
{
	if (s->family != 0)
		return s->family == (f == 0 ? AF_INET : AF_INET6);
	if (s->has_proto && s->proto == IPPROTO_ICMP)
		return f == 0;
	if (s->has_proto && s->proto == IPPROTO_ICMPV6)
		return f == 1;
	return true;
}

static void
rule_common(struct rte_acl_field *fld, const struct nfv_acl_rule_spec *s, unsigned int n,
	    unsigned int ports)
{
	fld[0].value.u8 = s->has_proto ? s->proto : 0;
	fld[0].mask_range.u8 = s->has_proto ? 0xff : 0;
	fld[ports].value.u16 = s->sport_lo;
	fld[ports].mask_range.u16 = s->sport_hi;
	fld[ports + 1].value.u16 = s->dport_lo;
	fld[ports + 1].mask_range.u16 = s->dport_hi;
	fld[n - 1].value.u32 = s->has_ports ? 1 : 0;
	fld[n - 1].mask_range.u32 = s->has_ports ? 1 : 0;
}

static void
addr6_fields(struct rte_acl_field *fld, const uint8_t *a, unsigned int len, bool has)
{
	for (unsigned int i = 0; i < 4; i++) {
		uint32_t w;
		int bits = has ? (int)len - 32 * (int)i : 0;

		memcpy(&w, a + 4 * i, 4);
		bits = RTE_MAX(0, RTE_MIN(32, bits));
		fld[i].value.u32 = bits ? rte_be_to_cpu_32(w) : 0;
		fld[i].mask_range.u32 = (uint32_t)bits;
	}
}

static struct rte_acl_ctx *
compile_family(const struct nfv_acl *a, unsigned int f, char *err)
{
	struct rte_acl_param prm = {
		.socket_id = SOCKET_ID_ANY,
		.rule_size = f == 0 ? RTE_ACL_RULE_SZ(6) : RTE_ACL_RULE_SZ(12),
	};
	struct rte_acl_config cfg = { .num_categories = 1 };
	struct rte_acl_ctx *ctx;
	char name[RTE_ACL_NAMESIZE];
	uint32_t n = 0;
	int rc;

	for (uint32_t i = 0; i < a->n_rules; i++)
		n += rule_in_family(&a->rules[i].s, f);
	if (n == 0)
		return NULL;
	snprintf(name, sizeof(name), "nfvacl%u", ctx_seq++);
	prm.name = name;
	prm.max_rule_num = n;
	ctx = rte_acl_create(&prm);
	if (ctx == NULL) {
		snprintf(err, NFV_ERR_LEN, "ACL %s: cannot create a classifier: %s", a->name,
			 rte_strerror(rte_errno));
		return NULL;
	}
	for (uint32_t i = 0; i < a->n_rules; i++) {
		const struct nfv_acl_rule_spec *s = &a->rules[i].s;
		union {
			struct acl4_rule r4;
			struct acl6_rule r6;
		} r;

		if (!rule_in_family(s, f))
			continue;
		memset(&r, 0, sizeof(r));
		r.r4.data.category_mask = 1;
		r.r4.data.priority = (int32_t)(RTE_ACL_MAX_PRIORITY - s->prio);
		r.r4.data.userdata = i + 1;
		if (f == 0) {
			uint32_t src, dst;

			memcpy(&src, s->src, 4);
			memcpy(&dst, s->dst, 4);
			rule_common(r.r4.field, s, 6, 3);
			r.r4.field[1].value.u32 = s->has_src ? rte_be_to_cpu_32(src) : 0;
			r.r4.field[1].mask_range.u32 = s->has_src ? s->src_len : 0;
			r.r4.field[2].value.u32 = s->has_dst ? rte_be_to_cpu_32(dst) : 0;
			r.r4.field[2].mask_range.u32 = s->has_dst ? s->dst_len : 0;
			rc = rte_acl_add_rules(ctx, (const struct rte_acl_rule *)&r.r4, 1);
		} else {
			rule_common(r.r6.field, s, 12, 9);
			addr6_fields(&r.r6.field[1], s->src, s->src_len, s->has_src);
			addr6_fields(&r.r6.field[5], s->dst, s->dst_len, s->has_dst);
			rc = rte_acl_add_rules(ctx, (const struct rte_acl_rule *)&r.r6, 1);
		}
		if (rc != 0)
			goto fail;
	}
	cfg.num_fields = f == 0 ? RTE_DIM(acl4_defs) : RTE_DIM(acl6_defs);
	memcpy(cfg.defs, f == 0 ? acl4_defs : acl6_defs,
	       cfg.num_fields * sizeof(struct rte_acl_field_def));
	rc = rte_acl_build(ctx, &cfg);
	if (rc == 0)
		return ctx;
fail:
	snprintf(err, NFV_ERR_LEN, "ACL %s: cannot build the %s classifier: %s", a->name,
		 f == 0 ? "IPv4" : "IPv6", strerror(-rc));
	rte_acl_free(ctx);
	return NULL;
}

static void
compiled_free(struct nfv_acl_compiled *c)
{
	if (c == NULL)
		return;
	rte_acl_free(c->ctx[0]);
	rte_acl_free(c->ctx[1]);
	free(c);
}

static int
acl_compile(struct nfv_acl *a, char *err)
{
	struct nfv_acl_compiled *c, *old;

	c = calloc(1, sizeof(*c) + a->n_rules * sizeof(c->rule[0]));
	if (c == NULL) {
		snprintf(err, NFV_ERR_LEN, "out of memory");
		return -ENOMEM;
	}
	c->n_rules = a->n_rules;
	c->default_slot = a->default_slot;
	c->gen = ++compiled_gen;
	for (uint32_t i = 0; i < a->n_rules; i++) {
		c->rule[i].action = a->rules[i].s.action;
		c->rule[i].slot = a->rules[i].slot;
	}
	for (unsigned int f = 0; f < 2; f++) {
		err[0] = '\0';
		c->ctx[f] = compile_family(a, f, err);
		if (c->ctx[f] == NULL && err[0] != '\0') {
			compiled_free(c);
			return -ENOMEM;
		}
	}
	old = a->active;
	__atomic_store_n(&a->active, c, __ATOMIC_RELEASE);
	a->dirty = false;
	if (old != NULL) {
		nfv_rcu_sync();
		compiled_free(old);
	}
	return 0;
}

static bool
acl_has_reflect(const struct nfv_acl *a)
{
	for (uint32_t i = 0; a != NULL && i < a->n_rules; i++)
		if (a->rules[i].s.action == NFV_ACL_REFLECT)
			return true;
	return false;
}

/* With several workers, an interface where an attached ACL (either
 * direction) records flows hands each packet to its flow's owner. The flag
 * is set before a reflect rule is published (set_only: the rules as they
 * will be) and cleared after one is gone, so that no worker records a flow
 * it does not own. */
static void
handoff_set(uint16_t iface, bool on)
{
	__atomic_store_n(&nfv_acl_handoff_on[iface], on, __ATOMIC_RELEASE);
	if (on && !nfv_acl_handoff_any) {
		nfv_handoff_use(true);
		__atomic_store_n(&nfv_acl_handoff_any, 1, __ATOMIC_RELEASE);
	}
}

static void
handoff_update(bool set_only)
{
	for (unsigned int i = 0; i < NFV_IFACE_MAX; i++) {
		bool on = nfv_n_workers > 1 && (acl_has_reflect(nfv_acl_bound[NFV_ACL_IN][i]) ||
						acl_has_reflect(nfv_acl_bound[NFV_ACL_OUT][i]));

		if (on || !set_only)
			handoff_set((uint16_t)i, on);
	}
}

/* After a change of the rules: attached ACLs are compiled now. */
static int
acl_changed(struct nfv_acl *a, char *err)
{
	int rc;

	a->dirty = true;
	if (a->n_attached == 0)
		return 0;
	if (acl_has_reflect(a) && nfv_ct_reserve(err) < 0)
		return -ENOMEM;
	handoff_update(true);
	rc = acl_compile(a, err);
	handoff_update(false);
	return rc;
}

/* ---- actions ---- */

static struct nfv_acl *
acl_find(const char *name)
{
	for (unsigned int i = 0; i < ACL_MAX; i++)
		if (acls[i] != NULL && strcmp(acls[i]->name, name) == 0)
			return acls[i];
	return NULL;
}

static struct nfv_acl *
acl_get(const char *name, char *err)
{
	struct nfv_acl *a = acl_find(name);

	if (a == NULL)
		snprintf(err, NFV_ERR_LEN, "no ACL named '%s'", name);
	return a;
}

int
nfv_acl_add(const char *name, char *err)
{
	struct nfv_acl *a;
	unsigned int i;

	if (acl_find(name) != NULL) {
		snprintf(err, NFV_ERR_LEN, "ACL %s already exists", name);
		return -EEXIST;
	}
	for (i = 0; i < ACL_MAX && acls[i] != NULL; i++)
		;
	if (i == ACL_MAX) {
		snprintf(err, NFV_ERR_LEN, "too many ACLs (at most %u)", ACL_MAX);
		return -ENOSPC;
	}
	a = calloc(1, sizeof(*a));
	if (a == NULL) {
		snprintf(err, NFV_ERR_LEN, "out of memory");
		return -ENOMEM;
	}
	if (slot_alloc(&a->default_slot, &a->default_base) < 0) {
		free(a);
		snprintf(err, NFV_ERR_LEN, "no counter left for a new ACL (at most %u rules in all)",
			 NFV_ACL_SLOTS);
		return -ENOSPC;
	}
	snprintf(a->name, sizeof(a->name), "%s", name);
	a->dirty = true;
	acls[i] = a;
	return 0;
}

int
nfv_acl_del(const char *name, char *err)
{
	struct nfv_acl *a = acl_get(name, err);

	if (a == NULL)
		return -ENOENT;
	if (a->n_attached > 0) {
		snprintf(err, NFV_ERR_LEN, "ACL %s is attached to %u interface direction(s): "
			 "detach it first", name, a->n_attached);
		return -EBUSY;
	}
	for (unsigned int i = 0; i < ACL_MAX; i++)
		if (acls[i] == a)
			acls[i] = NULL;
	for (uint32_t i = 0; i < a->n_rules; i++)
		slot_free(a->rules[i].slot);
	slot_free(a->default_slot);
	/* Not attached: no worker reads it since the detach's grace period. */
	compiled_free(a->active);
	free(a->rules);
	free(a);
	return 0;
}

int
nfv_acl_rule_add(const char *name, const struct nfv_acl_rule_spec *s, char *err)
{
	struct nfv_acl *a = acl_get(name, err);
	uint32_t pos;
	int rc;

	if (a == NULL)
		return -ENOENT;
	for (pos = 0; pos < a->n_rules && a->rules[pos].s.prio < s->prio; pos++)
		;
	if (pos < a->n_rules && a->rules[pos].s.prio == s->prio) {
		snprintf(err, NFV_ERR_LEN, "ACL %s already has a rule of prio %u", name, s->prio);
		return -EEXIST;
	}
	if (a->n_rules == NFV_ACL_RULES_MAX) {
		snprintf(err, NFV_ERR_LEN, "ACL %s is full (%u rules)", name, NFV_ACL_RULES_MAX);
		return -ENOSPC;
	}
	if (a->n_rules == a->cap) {
		uint32_t cap = a->cap ? a->cap * 2 : 16;
		struct acl_rule *r = realloc(a->rules, cap * sizeof(*r));

		if (r == NULL) {
			snprintf(err, NFV_ERR_LEN, "out of memory");
			return -ENOMEM;
		}
		a->rules = r;
		a->cap = cap;
	}
	memmove(&a->rules[pos + 1], &a->rules[pos], (a->n_rules - pos) * sizeof(a->rules[0]));
	a->rules[pos].s = *s;
	if (slot_alloc(&a->rules[pos].slot, &a->rules[pos].base) < 0) {
		memmove(&a->rules[pos], &a->rules[pos + 1],
			(a->n_rules - pos) * sizeof(a->rules[0]));
		snprintf(err, NFV_ERR_LEN, "no counter left for a new rule (at most %u rules in all)",
			 NFV_ACL_SLOTS);
		return -ENOSPC;
	}
	a->n_rules++;
	rc = acl_changed(a, err);
	if (rc < 0) {
		/* Nothing published: take the rule back out. */
		slot_free(a->rules[pos].slot);
		memmove(&a->rules[pos], &a->rules[pos + 1],
			(a->n_rules - pos - 1) * sizeof(a->rules[0]));
		a->n_rules--;
	}
	return rc;
}

int
nfv_acl_rule_del(const char *name, uint32_t prio, char *err)
{
	struct nfv_acl *a = acl_get(name, err);
	struct acl_rule gone;
	uint32_t pos;
	int rc;

	if (a == NULL)
		return -ENOENT;
	for (pos = 0; pos < a->n_rules && a->rules[pos].s.prio != prio; pos++)
		;
	if (pos == a->n_rules) {
		snprintf(err, NFV_ERR_LEN, "ACL %s has no rule of prio %u", name, prio);
		return -ENOENT;
	}
	gone = a->rules[pos];
	memmove(&a->rules[pos], &a->rules[pos + 1], (a->n_rules - pos - 1) * sizeof(a->rules[0]));
	a->n_rules--;
	rc = acl_changed(a, err);
	if (rc < 0) {
		memmove(&a->rules[pos + 1], &a->rules[pos], (a->n_rules - pos) * sizeof(a->rules[0]));
		a->rules[pos] = gone;
		a->n_rules++;
		return rc;
	}
	/* The published version no longer counts into the slot. */
	slot_free(gone.slot);
	return 0;
}

/* Before an ACL is published on an interface: built if it changed, the
 * caches allocated, the handoff set when it records flows. */
static int
acl_prepare(void *obj, uint16_t iface, char *err)
{
	struct nfv_acl *a = obj;

	if (acl_has_reflect(a) && nfv_ct_reserve(err) < 0)
		return -ENOMEM;
	if (a->dirty || a->active == NULL) {
		int rc = acl_compile(a, err);

		if (rc < 0)
			return rc;
	}
	acl_cache_setup();
	if (nfv_n_workers > 1 && acl_has_reflect(a))
		handoff_set(iface, true);
	return 0;
}

static const struct nfv_ifattach acl_attach_kind = {
	.what = "ACL",
	.bound = (void **)nfv_acl_bound,
	.features = features,
	.n_attached_off = offsetof(struct nfv_acl, n_attached),
	.prepare = acl_prepare,
};

int
nfv_acl_attach(const char *name, const char *dev, enum nfv_acl_dir dir, bool on, char *err)
{
	struct nfv_acl *a = acl_get(name, err);
	int rc;

	if (a == NULL)
		return -ENOENT;
	rc = nfv_ifattach_set(&acl_attach_kind, a, name, dev, dir, on, err);
	handoff_update(false);
	return rc;
}

/* An interface that goes takes its attachments with it. */
static void
acl_iface_event(enum nfv_iface_event ev, uint16_t iface, void *arg)
{
	if (ev == NFV_IFACE_REMOVED && nfv_ifattach_iface_removed(&acl_attach_kind, iface))
		handoff_update(false);
}
NFV_IFACE_EVENT_HANDLER(acl_iface_event);

/* ---- views ---- */

const char *
nfv_acl_proto_name(uint8_t p, char *buf, size_t len)
{
	switch (p) {
	case IPPROTO_TCP:
		return "tcp";
	case IPPROTO_UDP:
		return "udp";
	case IPPROTO_ICMP:
		return "icmp";
	case IPPROTO_ICMPV6:
		return "icmp6";
	case IPPROTO_SCTP:
		return "sctp";
	default:
		snprintf(buf, len, "%u", p);
		return buf;
	}
}

static const char *const action_names[] = { "permit", "deny", "reflect" };

static json_t *
prefix_json(uint8_t family, const uint8_t *a, uint8_t len)
{
	char buf[INET6_ADDRSTRLEN + 8], addr[INET6_ADDRSTRLEN];

	inet_ntop(family, a, addr, sizeof(addr));
	snprintf(buf, sizeof(buf), "%s/%u", addr, len);
	return json_string(buf);
}

static json_t *
range_json(uint16_t lo, uint16_t hi)
{
	char buf[16];

	if (lo == hi)
		snprintf(buf, sizeof(buf), "%u", lo);
	else
		snprintf(buf, sizeof(buf), "%u-%u", lo, hi);
	return json_string(buf);
}

static json_t *
acl_json(const struct nfv_acl *a)
{
	json_t *rules = json_array();
	char buf[8];

	for (uint32_t i = 0; i < a->n_rules; i++) {
		const struct acl_rule *r = &a->rules[i];
		const struct nfv_acl_rule_spec *s = &r->s;
		bool icmp = s->has_proto && (s->proto == IPPROTO_ICMP ||
					     s->proto == IPPROTO_ICMPV6);
		json_t *o = json_pack("{s:i, s:s, s:I}", "prio", (int)s->prio,
				      "action", action_names[s->action],
				      "hits", (json_int_t)(slot_sum(r->slot) - r->base));

		if (s->has_src)
			json_object_set_new(o, "src", prefix_json(s->family, s->src, s->src_len));
		if (s->has_dst)
			json_object_set_new(o, "dst", prefix_json(s->family, s->dst, s->dst_len));
		if (s->has_proto)
			json_object_set_new(o, "proto",
					    json_string(nfv_acl_proto_name(s->proto, buf, sizeof(buf))));
		if (s->has_ports && !(s->sport_lo == 0 && s->sport_hi == 0xffff))
			json_object_set_new(o, icmp ? "type" : "sport",
					    range_json(s->sport_lo, s->sport_hi));
		if (s->has_ports && !(s->dport_lo == 0 && s->dport_hi == 0xffff))
			json_object_set_new(o, icmp ? "code" : "dport",
					    range_json(s->dport_lo, s->dport_hi));
		json_array_append_new(rules, o);
	}
	return json_pack("{s:s, s:s, s:I, s:o, s:o}", "name", a->name, "default_action", "deny",
			 "no_match_hits", (json_int_t)(slot_sum(a->default_slot) - a->default_base),
			 "attached", nfv_ifattach_json(&acl_attach_kind, a), "rules", rules);
}

int
nfv_acl_show(const char *name, json_t **out, char *err)
{
	json_t *list = json_array();

	if (name != NULL) {
		struct nfv_acl *a = acl_get(name, err);

		if (a == NULL) {
			json_decref(list);
			return -ENOENT;
		}
		json_array_append_new(list, acl_json(a));
	} else {
		for (unsigned int i = 0; i < ACL_MAX; i++)
			if (acls[i] != NULL)
				json_array_append_new(list, acl_json(acls[i]));
	}
	*out = json_pack("{s:o}", "acls", list);
	return 0;
}

static void
acl_show_stats(json_t *stats)
{
	struct nfv_acl_counters c;

	nfv_counters_sum(&nfv_acl_counters_block, &c);
	json_object_set_new(stats, "acl", json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:b, s:I, s:I, s:I, s:I}",
		"permitted", (json_int_t)c.permitted, "denied", (json_int_t)c.denied,
		"no_match", (json_int_t)c.no_match, "flow_hits", (json_int_t)c.flow_hits,
		"cache_hits", (json_int_t)c.cache_hits, "cache_misses", (json_int_t)c.cache_misses,
		"cache", __atomic_load_n(&nfv_acl_cache_on, __ATOMIC_RELAXED),
		"handoff_out", (json_int_t)c.handoff_out, "handoff_in", (json_int_t)c.handoff_in,
		"handoff_full", (json_int_t)c.handoff_full, "fused", (json_int_t)c.fused));
}

static void
acl_metrics(FILE *f)
{
	struct nfv_acl_counters c;
	bool was = nfv_stats_since_start(true);

	nfv_counters_sum(&nfv_acl_counters_block, &c);
	nfv_stats_since_start(was);
	nfv_metrics_help(f, "nfvd_acl_packets_total", "counter",
			 "Packets through attached ACLs by verdict.");
	fprintf(f, "nfvd_acl_packets_total{verdict=\"permitted\"} %" PRIu64 "\n", c.permitted);
	fprintf(f, "nfvd_acl_packets_total{verdict=\"denied\"} %" PRIu64 "\n", c.denied);
	fprintf(f, "nfvd_acl_packets_total{verdict=\"no_match\"} %" PRIu64 "\n", c.no_match);
	fprintf(f, "nfvd_acl_packets_total{verdict=\"flow\"} %" PRIu64 "\n", c.flow_hits);
	nfv_metrics_help(f, "nfvd_acl_cache_lookups_total", "counter",
			 "ACL classifications by the decision cache's answer (hit, or miss: rte_acl).");
	fprintf(f, "nfvd_acl_cache_lookups_total{result=\"hit\"} %" PRIu64 "\n", c.cache_hits);
	fprintf(f, "nfvd_acl_cache_lookups_total{result=\"miss\"} %" PRIu64 "\n", c.cache_misses);
	nfv_handoff_metrics(f, "acl", c.handoff_out, c.handoff_in, c.handoff_full);
	nfv_metrics_help(f, "nfvd_acl_fused_packets_total", "counter",
			 "Packets whose output ACL the input ACL's node decided, both in one pass.");
	fprintf(f, "nfvd_acl_fused_packets_total %" PRIu64 "\n", c.fused);
	nfv_metrics_help(f, "nfvd_acl_rule_hits_total", "counter",
			 "Packets that matched each ACL rule (prio \"default\": no rule).");
	for (unsigned int i = 0; i < ACL_MAX; i++) {
		const struct nfv_acl *a = acls[i];

		if (a == NULL)
			continue;
		for (uint32_t k = 0; k < a->n_rules; k++)
			fprintf(f, "nfvd_acl_rule_hits_total{acl=\"%s\",prio=\"%u\",action=\"%s\"} "
				"%" PRIu64 "\n", a->name, a->rules[k].s.prio,
				action_names[a->rules[k].s.action],
				slot_sum(a->rules[k].slot) - a->rules[k].base);
		fprintf(f, "nfvd_acl_rule_hits_total{acl=\"%s\",prio=\"default\",action=\"deny\"} "
			"%" PRIu64 "\n", a->name, slot_sum(a->default_slot) - a->default_base);
	}
}

static const struct nfv_collector acl_collector = {
	.name = "acl",
	.show_stats = acl_show_stats,
	.metrics = acl_metrics,
};
NFV_COLLECTOR_REGISTER(acl_collector);

/* /nfvd/acl: "ACL/PRIO" -> hits, "ACL/default" -> packets no rule matched. */
static int
acl_telemetry(const char *cmd, const char *params, struct rte_tel_data *d)
{
	unsigned int n = 0;
	char key[RTE_TEL_MAX_STRING_LEN];

	rte_tel_data_start_dict(d);
	nfv_ctl_lock();
	for (unsigned int i = 0; i < ACL_MAX; i++) {
		const struct nfv_acl *a = acls[i];

		if (a == NULL || (params != NULL && params[0] != '\0' &&
				  strcmp(params, a->name) != 0))
			continue;
		for (uint32_t k = 0; k <= a->n_rules && n < RTE_TEL_MAX_DICT_ENTRIES; k++, n++) {
			if (k < a->n_rules) {
				snprintf(key, sizeof(key), "%s/%u", a->name, a->rules[k].s.prio);
				rte_tel_data_add_dict_u64(d, key,
					slot_sum(a->rules[k].slot) - a->rules[k].base);
			} else {
				snprintf(key, sizeof(key), "%s/default", a->name);
				rte_tel_data_add_dict_u64(d, key,
					slot_sum(a->default_slot) - a->default_base);
			}
		}
	}
	nfv_ctl_unlock();
	return 0;
}

static int
acl_init(void)
{
	nfv_symhash_init();
	return rte_telemetry_register_cmd("/nfvd/acl", acl_telemetry,
		"Per-rule ACL hits (\"ACL/PRIO\"), the first 256. Parameters: an ACL name");
}

static void
acl_fini(void)
{
	for (unsigned int i = 0; i < ACL_MAX; i++) {
		struct nfv_acl *a = acls[i];

		if (a == NULL)
			continue;
		compiled_free(a->active);
		free(a->rules);
		free(a);
		acls[i] = NULL;
	}
}

static struct nfv_module acl_module = {
	.name = "acl",
	.depends_on = "infra ip",
	.init = acl_init,
	.fini = acl_fini,
};
NFV_MODULE_REGISTER(acl_module);
