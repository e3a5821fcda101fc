/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Commands of arp_nd (learned entries are listed by "neigh show"):
 *   neigh set [reachable MS] [retrans MS] [delay MS] [gc MS] [probes N]
 *             [solicits N] [hold N] [max N]     parameters (Linux's defaults)
 *             [resolve on|off]                  off: no solicitation, packets to a
 *                                               next hop without neighbor dropped
 *   neigh params                                 the parameters
 *   neigh flush [dev NAME]                       forgets learned entries
 * and the "neigh" part of show stats, telemetry and Prometheus.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "api/cmd.h"
#include "core/counters.h"
#include "modules/arp_nd/control/params.h"
#include "modules/infra/cli.h"
#include "modules/infra/iface.h"
#include "modules/ip/ip.h"

static json_t *
params_json(void)
{
	const struct nfv_neigh_params *p = &nfv_neigh_params;

	return json_pack("{s:b, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "resolve", p->resolve,
			 "reachable_ms", (json_int_t)p->base_reachable_ms,
			 "retrans_ms", (json_int_t)p->retrans_ms,
			 "delay_ms", (json_int_t)p->delay_first_probe_ms,
			 "gc_ms", (json_int_t)p->gc_stale_ms,
			 "probes", (json_int_t)p->ucast_solicit,
			 "solicits", (json_int_t)p->mcast_solicit,
			 "hold", (json_int_t)p->hold, "max", (json_int_t)p->max_entries);
}

NFV_SHOW_COMMAND(cmd_neigh_params, params_json)

static const struct {
	const char *word;
	size_t off;
	uint32_t min, max;
} param_words[] = {
	{ "reachable", offsetof(struct nfv_neigh_params, base_reachable_ms), 10, 3600000 },
	{ "retrans", offsetof(struct nfv_neigh_params, retrans_ms), 10, 3600000 },
	{ "delay", offsetof(struct nfv_neigh_params, delay_first_probe_ms), 10, 3600000 },
	{ "gc", offsetof(struct nfv_neigh_params, gc_stale_ms), 10, 86400000 },
	{ "probes", offsetof(struct nfv_neigh_params, ucast_solicit), 1, 32 },
	{ "solicits", offsetof(struct nfv_neigh_params, mcast_solicit), 1, 32 },
	{ "hold", offsetof(struct nfv_neigh_params, hold), 0, NFV_NEIGH_HOLD_MAX },
	{ "max", offsetof(struct nfv_neigh_params, max_entries), 1, NFV_NEIGH_MAX_CAP },
};

static int
cmd_neigh_set(int argc, char **argv, struct nfv_reply *r)
{
	struct nfv_neigh_params p = nfv_neigh_params;

	if (argc < 3)
		NFV_FAIL(r, -EINVAL, "missing arguments; usage: neigh set [reachable MS] "
			 "[retrans MS] [delay MS] [gc MS] [probes N] [solicits N] [hold N] [max N] "
			 "[resolve on|off]");
	for (int i = 2; i < argc; i += 2) {
		unsigned int k;
		unsigned long v;
		char *end;

		/* A word without its value is named (after an unknown word is). */
		if (i + 1 >= argc) {
			for (k = 0; k < RTE_DIM(param_words); k++)
				if (strcmp(argv[i], param_words[k].word) == 0)
					break;
			if (k == RTE_DIM(param_words) && strcmp(argv[i], "resolve") != 0)
				NFV_FAIL(r, -EINVAL, "unknown parameter '%s'", argv[i]);
			NFV_FAIL(r, -EINVAL, "missing value after '%s'", argv[i]);
		}

		if (strcmp(argv[i], "resolve") == 0) {
			if (strcmp(argv[i + 1], "on") != 0 && strcmp(argv[i + 1], "off") != 0)
				NFV_FAIL(r, -EINVAL, "bad resolve '%s' (on or off)", argv[i + 1]);
			p.resolve = strcmp(argv[i + 1], "on") == 0;
			continue;
		}
		for (k = 0; k < RTE_DIM(param_words); k++)
			if (strcmp(argv[i], param_words[k].word) == 0)
				break;
		if (k == RTE_DIM(param_words))
			NFV_FAIL(r, -EINVAL, "unknown parameter '%s'", argv[i]);
		errno = 0;
		v = strtoul(argv[i + 1], &end, 10);
		if (!isdigit((unsigned char)argv[i + 1][0]) || *end != '\0' || errno != 0 ||
		    v < param_words[k].min || v > param_words[k].max)
			NFV_FAIL(r, -EINVAL, "bad %s '%s' (%u to %u)", argv[i], argv[i + 1],
				 param_words[k].min, param_words[k].max);
		*(uint32_t *)((uint8_t *)&p + param_words[k].off) = (uint32_t)v;
	}
	nfv_neigh_params = p;
	nfv_ip_unresolved_enable(p.resolve);
	return 0;
}

/* neigh flush [dev NAME] [vrf VRF] (every neigh command takes [vrf VRF]) */
static int
cmd_neigh_flush(int argc, char **argv, struct nfv_reply *r)
{
	struct nfv_iface *ifc = NULL;
	unsigned int n = 0;
	int vrf = -1;

	for (int i = 2; i < argc; i += 2) {
		bool dev = strcmp(argv[i], "dev") == 0;

		if ((!dev && strcmp(argv[i], "vrf") != 0) || (dev && ifc != NULL) ||
		    (!dev && vrf >= 0))
			NFV_FAIL(r, -EINVAL, "unexpected '%s'; usage: neigh flush [dev NAME] "
				 "[vrf VRF]", argv[i]);
		if (i + 1 >= argc)
			NFV_FAIL(r, -EINVAL, "missing %s after '%s'",
				 dev ? "interface name" : "VRF name", argv[i]);
		if (dev) {
			ifc = nfv_iface_need(argv[i + 1], r);
			if (ifc == NULL)
				return -ENOENT;
		} else {
			vrf = nfv_vrf_id(argv[i + 1]);
			if (vrf < 0)
				NFV_FAIL(r, -ENOENT, "unknown VRF '%s'", argv[i + 1]);
		}
	}
	if (ifc != NULL && vrf >= 0 && ifc->vrf != vrf)
		NFV_FAIL(r, -EINVAL, "interface %s is in VRF %s, not in VRF %s", ifc->name,
			 nfv_vrf_name(ifc->vrf), nfv_vrf_name((uint16_t)vrf));
	if (ifc != NULL)
		n = nfv_neigh_flush(ifc->id);
	else if (vrf < 0)
		n = nfv_neigh_flush(-1);
	else
		for (unsigned int i = 0; i < NFV_IFACE_MAX; i++)
			if (nfv_ifaces[i].used && nfv_ifaces[i].vrf == vrf)
				n += nfv_neigh_flush((int)i);
	r->data = json_pack("{s:i}", "flushed", n);
	return 0;
}

static const struct nfv_command arp_nd_commands[] = {
	{ "neigh", "set", cmd_neigh_set,
	  "neigh set [reachable MS] [retrans MS] [delay MS] [gc MS] [probes N] [solicits N] "
	  "[hold N] [max N] [resolve on|off]" },
	{ "neigh", "params", cmd_neigh_params, "neigh params" },
	{ "neigh", "flush", cmd_neigh_flush, "neigh flush [dev NAME] [vrf VRF]" },
};
NFV_COMMANDS_REGISTER(arp_nd_commands);

static void
neigh_show_stats(json_t *stats)
{
	json_object_set_new(stats, "neigh", nfv_neigh_stats_json());
}

static void
neigh_metrics(FILE *f)
{
	json_t *o = nfv_neigh_stats_json();
	json_t *ev = json_object_get(o, "events"), *st = json_object_get(o, "states"), *v;
	const char *k;

	nfv_metrics_help(f, "nfvd_neigh_events_total", "counter",
			 "ARP/ND messages and neighbor table events, by event.");
	json_object_foreach(ev, k, v)
		fprintf(f, "nfvd_neigh_events_total{event=\"%s\"} %" JSON_INTEGER_FORMAT "\n", k,
			json_integer_value(v));
	nfv_metrics_help(f, "nfvd_neigh_entries", "gauge", "Learned neighbor entries, by state.");
	json_object_foreach(st, k, v)
		fprintf(f, "nfvd_neigh_entries{state=\"%s\"} %" JSON_INTEGER_FORMAT "\n", k,
			json_integer_value(v));
	json_decref(o);
}

static const struct nfv_collector neigh_collector = {
	.name = "neigh",
	.show_stats = neigh_show_stats,
	.metrics = neigh_metrics,
};
NFV_COLLECTOR_REGISTER(neigh_collector);
