/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Policers: creation, attachment to interfaces, the per-worker shares of
 * the rates (policer.h says how), the views.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_malloc.h>

#include "api/cmd.h"
#include "core/arc.h"
#include "core/counters.h"
#include "core/event.h"
#include "core/iface_event.h"
#include "core/log.h"
#include "core/module.h"
#include "modules/infra/iface.h"
#include "modules/acl/ifattach.h"
#include "modules/policer/policer.h"

#define POLICER_MAX 1024
#define SHARE_MIN (1.0 / 16)
#define SHARE_PERIOD_S 0.1

struct nfv_policer *nfv_policer_bound[NFV_POLICER_DIRS][NFV_IFACE_MAX];
static struct nfv_policer *policers[POLICER_MAX];
static struct nfv_timer *share_timer;

static const char *const features[NFV_POLICER_DIRS][2][2] = {
	[NFV_POLICER_IN] = { { "ip4_ingress", "nfv_policer_in4" },
			     { "ip6_ingress", "nfv_policer_in6" } },
	[NFV_POLICER_OUT] = { { "ip4_egress", "nfv_policer_out4" },
			      { "ip6_egress", "nfv_policer_out6" } },
};

static struct nfv_policer *
policer_find(const char *name)
{
	for (unsigned int i = 0; i < POLICER_MAX; i++)
		if (policers[i] != NULL && strcmp(policers[i]->name, name) == 0)
			return policers[i];
	return NULL;
}

/* A worker's profile for its share of the rates; the bucket sizes shrink
 * with the share but always hold a full-size packet. */
static int
profile_config(const struct nfv_policer *p, double share, struct nfv_policer_worker *pw,
	       unsigned int slot)
{
	uint64_t cir = RTE_MAX((uint64_t)(p->cir * share), 1ull);
	uint64_t cbs = RTE_MAX((uint64_t)(p->cbs * share), RTE_MIN(p->cbs, 9216ull));

	if (p->trtcm) {
		struct rte_meter_trtcm_params prm = {
			.cir = cir, .cbs = cbs,
			.pir = RTE_MAX((uint64_t)(p->pir * share), cir),
			.pbs = RTE_MAX((uint64_t)(p->pbs * share), RTE_MIN(p->pbs, 9216ull)),
		};

		return rte_meter_trtcm_profile_config(&pw->prof[slot].tr, &prm);
	} else {
		struct rte_meter_srtcm_params prm = { .cir = cir, .cbs = cbs, .ebs = 0 };

		return rte_meter_srtcm_profile_config(&pw->prof[slot].sr, &prm);
	}
}

static uint64_t
offered(const struct nfv_policer_worker *pw)
{
	return __atomic_load_n(&pw->bytes[0], __ATOMIC_RELAXED) +
	       __atomic_load_n(&pw->bytes[1], __ATOMIC_RELAXED) +
	       __atomic_load_n(&pw->bytes[2], __ATOMIC_RELAXED);
}

/* Every SHARE_PERIOD_S: each worker's share follows what it was offered. */
static void
shares_update(void *arg)
{
	bool flipped = false;

	if (nfv_n_workers < 2)
		return; /* one worker meters the whole rate */
	nfv_ctl_lock();
	for (unsigned int i = 0; i < POLICER_MAX; i++) {
		struct nfv_policer *p = policers[i];
		uint64_t delta[NFV_MAX_WORKERS], total = 0;

		if (p == NULL || p->n_attached == 0)
			continue;
		for (unsigned int w = 0; w < nfv_n_workers; w++) {
			uint64_t now = offered(&p->w[w]);

			delta[w] = now - p->w[w].offered_last;
			p->w[w].offered_last = now;
			total += delta[w];
		}
		if (total == 0)
			continue;
		for (unsigned int w = 0; w < nfv_n_workers; w++) {
			struct nfv_policer_worker *pw = &p->w[w];
			double share = RTE_MAX((double)delta[w] / (double)total, SHARE_MIN);
			unsigned int next = pw->cur ^ 1;

			if (share > pw->share * 0.98 && share < pw->share * 1.02)
				continue;
			if (profile_config(p, share, pw, next) == 0) {
				pw->share = share;
				__atomic_store_n(&pw->cur, next, __ATOMIC_RELEASE);
				flipped = true;
			}
		}
	}
	/* No worker reads a profile written next time. */
	if (flipped)
		nfv_rcu_sync();
	nfv_ctl_unlock();
}

int
nfv_policer_add(const char *name, uint64_t cir_bps, uint64_t cbs, uint64_t pir_bps, uint64_t pbs,
		char *err)
{
	struct nfv_policer *p;
	unsigned int i;
	double share;

	if (policer_find(name) != NULL) {
		snprintf(err, NFV_ERR_LEN, "policer %s already exists", name);
		return -EEXIST;
	}
	if (pir_bps != 0 && pir_bps < cir_bps) {
		snprintf(err, NFV_ERR_LEN, "pir must not be below cir");
		return -EINVAL;
	}
	for (i = 0; i < POLICER_MAX && policers[i] != NULL; i++)
		;
	if (i == POLICER_MAX) {
		snprintf(err, NFV_ERR_LEN, "too many policers (at most %u)", POLICER_MAX);
		return -ENOSPC;
	}
	p = calloc(1, sizeof(*p));
	if (p == NULL)
		goto nomem;
	p->w = rte_zmalloc("nfv_policer", RTE_MAX(nfv_n_workers, 1u) * sizeof(*p->w),
			   RTE_CACHE_LINE_SIZE);
	if (p->w == NULL)
		goto nomem;
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->trtcm = pir_bps != 0;
	p->cir = cir_bps / 8;
	p->cbs = cbs;
	p->pir = pir_bps / 8;
	p->pbs = pbs;
	/* Until the traffic says otherwise, equal shares. */
	share = 1.0 / RTE_MAX(nfv_n_workers, 1u);
	for (unsigned int w = 0; w < RTE_MAX(nfv_n_workers, 1u); w++) {
		struct nfv_policer_worker *pw = &p->w[w];
		int rc = profile_config(p, share, pw, 0);

		if (rc == 0)
			rc = p->trtcm ? rte_meter_trtcm_config(&pw->m.tr, &pw->prof[0].tr) :
					rte_meter_srtcm_config(&pw->m.sr, &pw->prof[0].sr);
		if (rc != 0) {
			snprintf(err, NFV_ERR_LEN, "rte_meter refuses these parameters (%s)",
				 strerror(-rc));
			rte_free(p->w);
			free(p);
			return -EINVAL;
		}
		pw->share = share;
	}
	policers[i] = p;
	return 0;
nomem:
	if (p != NULL)
		rte_free(p->w);
	free(p);
	snprintf(err, NFV_ERR_LEN, "out of memory");
	return -ENOMEM;
}

int
nfv_policer_del(const char *name, char *err)
{
	struct nfv_policer *p = policer_find(name);

	if (p == NULL) {
		snprintf(err, NFV_ERR_LEN, "no policer named '%s'", name);
		return -ENOENT;
	}
	if (p->n_attached > 0) {
		snprintf(err, NFV_ERR_LEN, "policer %s is attached: detach it first", name);
		return -EBUSY;
	}
	for (unsigned int i = 0; i < POLICER_MAX; i++)
		if (policers[i] == p)
			policers[i] = NULL;
	rte_free(p->w);
	free(p);
	return 0;
}

static const struct nfv_ifattach policer_attach_kind = {
	.what = "policer",
	.bound = (void **)nfv_policer_bound,
	.features = features,
	.n_attached_off = offsetof(struct nfv_policer, n_attached),
};

int
nfv_policer_attach(const char *name, const char *dev, enum nfv_policer_dir dir, bool on,
		   char *err)
{
	struct nfv_policer *p = policer_find(name);

	if (p == NULL) {
		snprintf(err, NFV_ERR_LEN, "no policer named '%s'", name);
		return -ENOENT;
	}
	return nfv_ifattach_set(&policer_attach_kind, p, name, dev, dir, on, err);
}

static void
policer_iface_event(enum nfv_iface_event ev, uint16_t iface, void *arg)
{
	if (ev == NFV_IFACE_REMOVED)
		nfv_ifattach_iface_removed(&policer_attach_kind, iface);
}
NFV_IFACE_EVENT_HANDLER(policer_iface_event);

static json_t *
policer_json(const struct nfv_policer *p)
{
	static const char *const colors[3] = { "green", "yellow", "red" };
	json_t *o = json_pack("{s:s, s:s, s:I, s:I}", "name", p->name,
			      "type", p->trtcm ? "trtcm" : "srtcm",
			      "cir", (json_int_t)p->cir * 8, "cbs", (json_int_t)p->cbs);
	json_t *shares = json_array();

	if (p->trtcm) {
		json_object_set_new(o, "pir", json_integer((json_int_t)p->pir * 8));
		json_object_set_new(o, "pbs", json_integer((json_int_t)p->pbs));
	}
	/* When the counters below were read, on the clock the meters use (the
	 * TSC), in ns: rates from two readings do not depend on how long the
	 * replies took to reach the reader. */
	json_object_set_new(o, "time_ns", json_integer((json_int_t)((double)rte_get_tsc_cycles() /
		(double)rte_get_tsc_hz() * 1e9)));
	for (unsigned int c = 0; c < 3; c++) {
		uint64_t pk = 0, by = 0;
		char k[32];

		for (unsigned int w = 0; w < nfv_n_workers; w++) {
			pk += __atomic_load_n(&p->w[w].packets[c], __ATOMIC_RELAXED);
			by += __atomic_load_n(&p->w[w].bytes[c], __ATOMIC_RELAXED);
		}
		snprintf(k, sizeof(k), "%s_packets", colors[c]);
		json_object_set_new(o, k, json_integer((json_int_t)pk));
		snprintf(k, sizeof(k), "%s_bytes", colors[c]);
		json_object_set_new(o, k, json_integer((json_int_t)by));
	}
	for (unsigned int w = 0; w < nfv_n_workers; w++)
		json_array_append_new(shares, json_real(p->w[w].share));
	json_object_set_new(o, "worker_shares", shares);
	json_object_set_new(o, "attached", nfv_ifattach_json(&policer_attach_kind, p));
	return o;
}

json_t *
nfv_policer_show(const char *name, char *err)
{
	json_t *list = json_array();

	for (unsigned int i = 0; i < POLICER_MAX; i++)
		if (policers[i] != NULL && (name == NULL || strcmp(name, policers[i]->name) == 0))
			json_array_append_new(list, policer_json(policers[i]));
	if (name != NULL && json_array_size(list) == 0) {
		json_decref(list);
		snprintf(err, NFV_ERR_LEN, "no policer named '%s'", name);
		return NULL;
	}
	return json_pack("{s:o}", "policers", list);
}

static void
policer_show_stats(json_t *stats)
{
	uint64_t c[3] = { 0, 0, 0 };

	for (unsigned int i = 0; i < POLICER_MAX; i++)
		for (unsigned int w = 0; policers[i] != NULL && w < nfv_n_workers; w++)
			for (unsigned int k = 0; k < 3; k++)
				c[k] += policers[i]->w[w].packets[k];
	json_object_set_new(stats, "policer", json_pack("{s:I, s:I, s:I}",
		"green", (json_int_t)c[0], "yellow", (json_int_t)c[1], "red", (json_int_t)c[2]));
}

static void
policer_metrics(FILE *f)
{
	static const char *const colors[3] = { "green", "yellow", "red" };

	nfv_metrics_help(f, "nfvd_policer_packets_total", "counter",
			 "Packets metered by each policer, by colour (red ones are dropped).");
	for (unsigned int i = 0; i < POLICER_MAX; i++) {
		const struct nfv_policer *p = policers[i];

		for (unsigned int k = 0; p != NULL && k < 3; k++) {
			uint64_t n = 0;

			for (unsigned int w = 0; w < nfv_n_workers; w++)
				n += p->w[w].packets[k];
			fprintf(f, "nfvd_policer_packets_total{policer=\"%s\",color=\"%s\"} %" PRIu64
				"\n", p->name, colors[k], n);
		}
	}
}

static const struct nfv_collector policer_collector = {
	.name = "policer",
	.show_stats = policer_show_stats,
	.metrics = policer_metrics,
};
NFV_COLLECTOR_REGISTER(policer_collector);

static int
policer_init(void)
{
	share_timer = nfv_timer_add("policer_shares", SHARE_PERIOD_S, false, shares_update, NULL);
	return share_timer == NULL ? -ENOMEM : 0;
}

static void
policer_fini(void)
{
	for (unsigned int i = 0; i < POLICER_MAX; i++) {
		if (policers[i] == NULL)
			continue;
		rte_free(policers[i]->w);
		free(policers[i]);
		policers[i] = NULL;
	}
}

static struct nfv_module policer_module = {
	.name = "policer",
	.depends_on = "infra ip",
	.init = policer_init,
	.fini = policer_fini,
};
NFV_MODULE_REGISTER(policer_module);
