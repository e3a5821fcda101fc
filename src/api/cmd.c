/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Command grammar and actions (see docs/design.md section 3).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "api/cmd.h"
#include "api/parse.h"
#include "modules/infra/port.h"
#include "core/worker.h"
#include "core/stats.h"

static pthread_mutex_t ctl_mutex = PTHREAD_MUTEX_INITIALIZER;

void
nfv_ctl_lock(void)
{
	pthread_mutex_lock(&ctl_mutex);
}

void
nfv_ctl_unlock(void)
{
	pthread_mutex_unlock(&ctl_mutex);
}

struct cmd_def {
	const char *w1;
	const char *w2;
	int (*fn)(int argc, char **argv, struct nfv_reply *r);
	const char *usage;
};

#define FAIL(r, rc, ...) do { snprintf((r)->err, NFV_ERR_LEN, __VA_ARGS__); return (rc); } while (0)

static struct nfv_port *
need_port(const char *name, struct nfv_reply *r)
{
	struct nfv_port *p = nfv_port_by_name(name);

	if (p == NULL)
		snprintf(r->err, NFV_ERR_LEN, "unknown port '%s'", name);
	return p;
}

static int
need_args(int argc, int min, const char *usage, struct nfv_reply *r)
{
	if (argc < min) {
		snprintf(r->err, NFV_ERR_LEN, "missing arguments; usage: %s", usage);
		return -EINVAL;
	}
	return 0;
}

static int
bad_prefix(const char *tok, int rc, struct nfv_reply *r)
{
	if (rc == -EDOM)
		FAIL(r, -EINVAL, "bad prefix '%s': host bits set beyond the prefix length", tok);
	if (rc == -ERANGE)
		FAIL(r, -EINVAL, "bad prefix '%s': length out of range", tok);
	FAIL(r, -EINVAL, "bad prefix '%s' (expected ADDR/LEN, IPv4 or IPv6)", tok);
}

/* port add NAME dev DEVARGS [rxq N] [txq N] [rxd N] [txd N] [mtu N] */
static int
cmd_port_add(int argc, char **argv, struct nfv_reply *r)
{
	static const char usage[] = "port add NAME dev DEVARGS [rxq N] [txq N] [rxd N] [txd N] "
				    "[mtu N]";
	struct nfv_port_conf c = { .n_rxq = 1, .n_txq = 0, .rxd = 1024, .txd = 1024, .mtu = 0 };

	if (need_args(argc, 5, usage, r) < 0)
		return -EINVAL;
	if (!nfv_valid_name(argv[2]))
		FAIL(r, -EINVAL, "bad port name '%s' (letters, digits, '_', '-', '.'; starts with "
		     "a letter; at most 31)", argv[2]);
	if (strcmp(argv[3], "dev") != 0)
		FAIL(r, -EINVAL, "unexpected '%s' (expected 'dev'); usage: %s", argv[3], usage);
	for (int i = 5; i < argc; i += 2) {
		uint32_t v, lo = 1, hi = 4096;
		uint16_t *dst;

		if (strcmp(argv[i], "rxq") == 0) {
			dst = &c.n_rxq;
			hi = NFV_MAX_RXQ_PER_WORKER;
		} else if (strcmp(argv[i], "txq") == 0) {
			dst = &c.n_txq;
			hi = 1024;
		} else if (strcmp(argv[i], "rxd") == 0) {
			dst = &c.rxd;
			lo = 32;
			hi = 32768;
		} else if (strcmp(argv[i], "txd") == 0) {
			dst = &c.txd;
			lo = 32;
			hi = 32768;
		} else if (strcmp(argv[i], "mtu") == 0) {
			dst = &c.mtu;
			lo = 68;
			hi = 16000;
		} else {
			FAIL(r, -EINVAL, "unexpected '%s' (expected rxq, txq, rxd, txd or mtu)",
			     argv[i]);
		}
		if (i + 1 >= argc)
			FAIL(r, -EINVAL, "missing value after '%s'", argv[i]);
		if (nfv_parse_u32(argv[i + 1], lo, hi, &v) < 0)
			FAIL(r, -EINVAL, "bad %s '%s' (expected %u-%u)", argv[i], argv[i + 1],
			     lo, hi);
		*dst = (uint16_t)v;
	}
	return nfv_port_add(argv[2], argv[4], &c, r->err);
}

static int
cmd_port_del(int argc, char **argv, struct nfv_reply *r)
{
	if (need_args(argc, 3, "port del NAME", r) < 0)
		return -EINVAL;
	if (argc > 3)
		FAIL(r, -EINVAL, "unexpected '%s'", argv[3]);
	return nfv_port_del(argv[2], r->err);
}

static int
cmd_port_set(int argc, char **argv, struct nfv_reply *r)
{
	if (need_args(argc, 4, "port set NAME up|down", r) < 0)
		return -EINVAL;
	if (argc > 4)
		FAIL(r, -EINVAL, "unexpected '%s'", argv[4]);
	if (strcmp(argv[3], "up") != 0 && strcmp(argv[3], "down") != 0)
		FAIL(r, -EINVAL, "unexpected '%s' (expected up or down)", argv[3]);
	if (need_port(argv[2], r) == NULL)
		return -ENOENT;
	return nfv_port_set_admin(argv[2], strcmp(argv[3], "up") == 0, r->err);
}

static int
cmd_port_show(int argc, char **argv, struct nfv_reply *r)
{
	if (argc > 3)
		FAIL(r, -EINVAL, "unexpected '%s'", argv[3]);
	if (argc == 3 && need_port(argv[2], r) == NULL)
		return -ENOENT;
	r->data = nfv_stats_ports_json(argc == 3 ? argv[2] : NULL);
	return 0;
}

/* worker set LCORE rxq NAME:Q[,NAME:Q...] */
static int
cmd_worker_set(int argc, char **argv, struct nfv_reply *r)
{
	struct nfv_rxq rxqs[NFV_MAX_RXQ_PER_WORKER];
	unsigned int n = 0;
	uint32_t lcore;
	char *list, *save = NULL, *item;

	if (need_args(argc, 5, "worker set LCORE rxq NAME:Q[,NAME:Q...]", r) < 0)
		return -EINVAL;
	if (nfv_parse_u32(argv[2], 0, RTE_MAX_LCORE - 1, &lcore) < 0)
		FAIL(r, -EINVAL, "bad lcore '%s'", argv[2]);
	if (strcmp(argv[3], "rxq") != 0)
		FAIL(r, -EINVAL, "unexpected '%s' (expected 'rxq')", argv[3]);
	if (argc > 5)
		FAIL(r, -EINVAL, "unexpected '%s'", argv[5]);
	list = strdup(argv[4]);
	if (list == NULL)
		return -ENOMEM;
	for (item = strtok_r(list, ",", &save); item != NULL; item = strtok_r(NULL, ",", &save)) {
		char *colon = strrchr(item, ':');
		struct nfv_port *p;
		uint32_t q;

		if (colon == NULL || n == NFV_MAX_RXQ_PER_WORKER) {
			snprintf(r->err, NFV_ERR_LEN, "bad queue '%s' (expected NAME:Q)", item);
			free(list);
			return -EINVAL;
		}
		*colon = '\0';
		p = need_port(item, r);
		if (p == NULL || nfv_parse_u32(colon + 1, 0, 65535, &q) < 0) {
			if (p != NULL)
				snprintf(r->err, NFV_ERR_LEN, "bad queue number '%s'", colon + 1);
			free(list);
			return -EINVAL;
		}
		rxqs[n].port_id = p->port_id;
		rxqs[n++].queue_id = (uint16_t)q;
	}
	free(list);
	if (n == 0)
		FAIL(r, -EINVAL, "no queue given");
	return nfv_worker_set_rxqs(lcore, rxqs, n, r->err);
}

static int
port_arg(int argc, char **argv, int i, struct nfv_port **p, struct nfv_reply *r)
{
	if (i + 1 >= argc || strcmp(argv[i], "dev") != 0)
		FAIL(r, -EINVAL, "%s '%s' (expected 'dev NAME')",
		     i < argc ? "unexpected" : "missing",
		     i < argc ? argv[i] : "dev");
	*p = need_port(argv[i + 1], r);
	if (*p == NULL)
		return -ENOENT;
	if (i + 2 < argc)
		FAIL(r, -EINVAL, "unexpected '%s'", argv[i + 2]);
	return 0;
}

/* addr add|del ADDR/LEN dev NAME */
static int
cmd_addr(int argc, char **argv, struct nfv_reply *r)
{
	struct nfv_prefix p;
	struct nfv_port *port;
	int rc;

	if (need_args(argc, 5, "addr add|del ADDR/LEN dev NAME", r) < 0)
		return -EINVAL;
	rc = nfv_parse_prefix(argv[2], true, &p);
	if (rc < 0)
		return bad_prefix(argv[2], rc, r);
	rc = port_arg(argc, argv, 3, &port, r);
	if (rc < 0)
		return rc;
	if (strcmp(argv[1], "add") == 0)
		return nfv_addr_add(&p, port->port_id, r->err);
	return nfv_addr_del(&p, port->port_id, r->err);
}

/* neigh add IP lladdr MAC dev NAME | neigh del IP dev NAME */
static int
cmd_neigh_add(int argc, char **argv, struct nfv_reply *r)
{
	struct rte_ether_addr mac;
	struct nfv_port *port;
	struct nfv_ip ip;
	int rc;

	if (need_args(argc, 7, "neigh add IP lladdr MAC dev NAME", r) < 0)
		return -EINVAL;
	if (nfv_parse_ip(argv[2], &ip) < 0)
		FAIL(r, -EINVAL, "bad address '%s'", argv[2]);
	if (strcmp(argv[3], "lladdr") != 0)
		FAIL(r, -EINVAL, "unexpected '%s' (expected 'lladdr')", argv[3]);
	if (nfv_parse_mac(argv[4], &mac) < 0)
		FAIL(r, -EINVAL, "bad MAC address '%s' (expected xx:xx:xx:xx:xx:xx)", argv[4]);
	rc = port_arg(argc, argv, 5, &port, r);
	if (rc < 0)
		return rc;
	return nfv_neigh_add(&ip, &mac, port->port_id, r->err);
}

static int
cmd_neigh_del(int argc, char **argv, struct nfv_reply *r)
{
	struct nfv_port *port;
	struct nfv_ip ip;
	int rc;

	if (need_args(argc, 5, "neigh del IP dev NAME", r) < 0)
		return -EINVAL;
	if (nfv_parse_ip(argv[2], &ip) < 0)
		FAIL(r, -EINVAL, "bad address '%s'", argv[2]);
	rc = port_arg(argc, argv, 3, &port, r);
	if (rc < 0)
		return rc;
	return nfv_neigh_del(&ip, port->port_id, r->err);
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

	if (need_args(argc, 4, usage, r) < 0)
		return -EINVAL;
	memset(&spec, 0, sizeof(spec));
	rc = nfv_parse_prefix(argv[2], false, &spec.prefix);
	if (rc < 0)
		return bad_prefix(argv[2], rc, r);
	if (strcmp(argv[3], "blackhole") == 0) {
		if (argc > 4)
			FAIL(r, -EINVAL, "unexpected '%s'", argv[4]);
		spec.type = NFV_NH_BLACKHOLE;
		return nfv_route_add(&spec, r->err);
	}
	if (strcmp(argv[3], "dev") == 0) {
		struct nfv_port *port;

		rc = port_arg(argc, argv, 3, &port, r);
		if (rc < 0)
			return rc;
		spec.type = NFV_NH_CONNECTED;
		spec.port_id = port->port_id;
		return nfv_route_add(&spec, r->err);
	}
	spec.type = NFV_NH_GATEWAY;
	for (i = 3; i < argc;) {
		if (strcmp(argv[i], "via") != 0)
			FAIL(r, -EINVAL, "unexpected '%s' (expected 'via', 'dev' or 'blackhole')",
			     argv[i]);
		if (i + 1 >= argc)
			FAIL(r, -EINVAL, "missing gateway after 'via'");
		if (spec.n_gw == NFV_ECMP_MAX)
			FAIL(r, -EINVAL, "too many gateways (at most %u)", NFV_ECMP_MAX);
		rc = nfv_parse_ip(argv[i + 1], &spec.gw[spec.n_gw]);
		if (rc < 0)
			FAIL(r, -EINVAL, "bad gateway '%s'", argv[i + 1]);
		if (spec.gw[spec.n_gw].family != spec.prefix.ip.family)
			FAIL(r, -EINVAL, "gateway '%s' is not of the family of prefix '%s'",
			     argv[i + 1], argv[2]);
		spec.gw_port[spec.n_gw] = -1;
		i += 2;
		if (i < argc && strcmp(argv[i], "dev") == 0) {
			struct nfv_port *port;

			if (i + 1 >= argc)
				FAIL(r, -EINVAL, "missing port name after 'dev'");
			port = need_port(argv[i + 1], r);
			if (port == NULL)
				return -ENOENT;
			spec.gw_port[spec.n_gw] = port->port_id;
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

	if (need_args(argc, 3, "route del PREFIX", r) < 0)
		return -EINVAL;
	if (argc > 3)
		FAIL(r, -EINVAL, "unexpected '%s'", argv[3]);
	rc = nfv_parse_prefix(argv[2], false, &p);
	if (rc < 0)
		return bad_prefix(argv[2], rc, r);
	return nfv_route_del(&p, r->err);
}

static int
cmd_route_load(int argc, char **argv, struct nfv_reply *r)
{
	uint64_t start = rte_get_tsc_cycles();
	uint32_t n = 0;
	int rc;

	if (need_args(argc, 3, "route load FILE", r) < 0)
		return -EINVAL;
	if (argc > 3)
		FAIL(r, -EINVAL, "unexpected '%s'", argv[3]);
	rc = nfv_route_load(argv[2], &n, r->err);
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
	int rc;

	if (argc > 3)
		FAIL(r, -EINVAL, "unexpected '%s'", argv[3]);
	if (argc == 3) {
		rc = nfv_parse_prefix(argv[2], true, &p);
		if (rc < 0)
			return bad_prefix(argv[2], rc, r);
		nfv_prefix_mask(&p);
		r->data = nfv_stats_routes_json(&p);
		if (r->data == NULL)
			FAIL(r, -ENOENT, "no route %s", argv[2]);
		return 0;
	}
	r->data = nfv_stats_routes_json(NULL);
	return 0;
}

static int
no_args(int argc, char **argv, struct nfv_reply *r)
{
	if (argc > 2)
		FAIL(r, -EINVAL, "unexpected '%s'", argv[2]);
	return 0;
}

#define SHOW_CMD(fname, builder) \
	static int fname(int argc, char **argv, struct nfv_reply *r) \
	{ \
		int rc = no_args(argc, argv, r); \
		if (rc == 0) \
			r->data = builder(); \
		return rc; \
	}

SHOW_CMD(cmd_show_stats, nfv_stats_json)
SHOW_CMD(cmd_show_graph, nfv_stats_graph_json)
SHOW_CMD(cmd_show_workers, nfv_stats_workers_json)
SHOW_CMD(cmd_show_latency, nfv_stats_latency_json)
SHOW_CMD(cmd_show_drops, nfv_stats_drops_json)
SHOW_CMD(cmd_show_pools, nfv_stats_pools_json)
SHOW_CMD(cmd_addr_show, nfv_stats_addrs_json)
SHOW_CMD(cmd_neigh_show, nfv_stats_neighs_json)
SHOW_CMD(cmd_nexthop_show, nfv_stats_nexthops_json)
SHOW_CMD(cmd_show_diag, nfv_stats_diag_json)
SHOW_CMD(cmd_graph_dot, nfv_stats_graph_dot)

/*
 * Test hooks (off by default):
 *   debug tx-split N        TX bursts cut into chunks of at most N (0 = off)
 *   debug rx-delay-us N     each received burst held N microseconds (0 = off)
 */
static int
cmd_debug(int argc, char **argv, struct nfv_reply *r)
{
	uint32_t v;

	if (need_args(argc, 3, "debug tx-split N | debug rx-delay-us N", r) < 0)
		return -EINVAL;
	if (argc > 3)
		FAIL(r, -EINVAL, "unexpected '%s'", argv[3]);
	if (strcmp(argv[1], "tx-split") == 0) {
		if (nfv_parse_u32(argv[2], 0, NFV_BURST_MAX, &v) < 0)
			FAIL(r, -EINVAL, "bad burst size '%s' (0-%u)", argv[2], NFV_BURST_MAX);
		for (unsigned int w = 0; w < nfv_n_workers; w++)
			__atomic_store_n(&nfv_workers[w].debug.tx_split, (uint16_t)v,
					 __ATOMIC_RELAXED);
		return 0;
	}
	if (nfv_parse_u32(argv[2], 0, 1000000, &v) < 0)
		FAIL(r, -EINVAL, "bad delay '%s' (0-1000000 us)", argv[2]);
	for (unsigned int w = 0; w < nfv_n_workers; w++)
		__atomic_store_n(&nfv_workers[w].debug.delay_cycles,
				 (uint32_t)((uint64_t)v * rte_get_tsc_hz() / 1000000),
				 __ATOMIC_RELAXED);
	return 0;
}

static int
cmd_stats_reset(int argc, char **argv, struct nfv_reply *r)
{
	int rc = no_args(argc, argv, r);

	if (rc == 0)
		nfv_stats_reset();
	return rc;
}

/* stats on|off: node, burst-size and latency counting (to measure its cost). */
static int
cmd_stats_switch(int argc, char **argv, struct nfv_reply *r)
{
	int rc = no_args(argc, argv, r);

	if (rc < 0)
		return rc;
	for (unsigned int w = 0; w < nfv_n_workers; w++)
		nfv_workers[w].stats_off = strcmp(argv[1], "off") == 0;
	return 0;
}

static int cmd_help(int argc, char **argv, struct nfv_reply *r);

static const struct cmd_def cmds[] = {
	{ "port", "add", cmd_port_add,
	  "port add NAME dev DEVARGS [rxq N] [txq N] [rxd N] [txd N] [mtu N]" },
	{ "port", "del", cmd_port_del, "port del NAME" },
	{ "port", "set", cmd_port_set, "port set NAME up|down" },
	{ "port", "show", cmd_port_show, "port show [NAME]" },
	{ "worker", "set", cmd_worker_set, "worker set LCORE rxq NAME:Q[,NAME:Q...]" },
	{ "addr", "add", cmd_addr, "addr add ADDR/LEN dev NAME" },
	{ "addr", "del", cmd_addr, "addr del ADDR/LEN dev NAME" },
	{ "addr", "show", cmd_addr_show, "addr show" },
	{ "neigh", "add", cmd_neigh_add, "neigh add IP lladdr MAC dev NAME" },
	{ "neigh", "del", cmd_neigh_del, "neigh del IP dev NAME" },
	{ "neigh", "show", cmd_neigh_show, "neigh show" },
	{ "route", "add", cmd_route_add,
	  "route add PREFIX via IP [dev NAME] [via IP ...] | PREFIX dev NAME | "
	  "PREFIX blackhole" },
	{ "route", "del", cmd_route_del, "route del PREFIX" },
	{ "route", "load", cmd_route_load, "route load FILE" },
	{ "route", "show", cmd_route_show, "route show [PREFIX]" },
	{ "nexthop", "show", cmd_nexthop_show, "nexthop show" },
	{ "show", "stats", cmd_show_stats, "show stats" },
	{ "show", "graph", cmd_show_graph, "show graph" },
	{ "show", "workers", cmd_show_workers, "show workers" },
	{ "show", "latency", cmd_show_latency, "show latency" },
	{ "show", "drops", cmd_show_drops, "show drops" },
	{ "show", "pools", cmd_show_pools, "show pools" },
	{ "show", "diag", cmd_show_diag, "show diag" },
	{ "graph", "dot", cmd_graph_dot, "graph dot" },
	{ "debug", "tx-split", cmd_debug, "debug tx-split N" },
	{ "debug", "rx-delay-us", cmd_debug, "debug rx-delay-us N" },
	{ "stats", "reset", cmd_stats_reset, "stats reset" },
	{ "stats", "on", cmd_stats_switch, "stats on|off (node, burst and latency counters)" },
	{ "stats", "off", cmd_stats_switch, "stats on|off (node, burst and latency counters)" },
	{ "help", NULL, cmd_help, "help" },
};

static int
cmd_help(int argc, char **argv, struct nfv_reply *r)
{
	json_t *a;

	if (argc > 1)
		FAIL(r, -EINVAL, "unexpected '%s'", argv[1]);
	a = json_array();
	for (size_t i = 0; i < RTE_DIM(cmds); i++)
		if (i == 0 || strcmp(cmds[i].usage, cmds[i - 1].usage) != 0) /* on|off: once */
			json_array_append_new(a, json_pack("{s:s}", "command", cmds[i].usage));
	r->data = json_pack("{s:o}", "commands", a);
	return 0;
}

void
nfv_reply_clear(struct nfv_reply *r)
{
	json_decref(r->data);
	r->data = NULL;
	r->err[0] = '\0';
}

static int
cmd_exec(const char *line, struct nfv_reply *r)
{
	char *tok[NFV_MAX_TOKENS], *copy;
	const char *w1_known = NULL;
	int n, rc = -EINVAL;

	r->data = NULL;
	r->err[0] = '\0';
	copy = strdup(line);
	if (copy == NULL)
		FAIL(r, -ENOMEM, "out of memory");
	n = nfv_tokenize(copy, tok, NFV_MAX_TOKENS);
	if (n == -E2BIG) {
		free(copy);
		FAIL(r, -EINVAL, "too many tokens (at most %d)", NFV_MAX_TOKENS);
	}
	if (n == -EBADMSG) {
		free(copy);
		FAIL(r, -EINVAL, "text right after a closing quote");
	}
	if (n < 0) {
		free(copy);
		FAIL(r, -EINVAL, "unterminated quote");
	}
	if (n == 0) {
		free(copy);
		return 0;
	}
	for (size_t i = 0; i < RTE_DIM(cmds); i++) {
		if (strcmp(tok[0], cmds[i].w1) != 0)
			continue;
		w1_known = cmds[i].w1;
		if (cmds[i].w2 != NULL && (n < 2 || strcmp(tok[1], cmds[i].w2) != 0))
			continue;
		nfv_ctl_lock();
		rc = cmds[i].fn(n, tok, r);
		nfv_ctl_unlock();
		if (rc < 0 && r->err[0] == '\0')
			snprintf(r->err, NFV_ERR_LEN, "%s", strerror(-rc));
		free(copy);
		return rc;
	}
	if (w1_known != NULL) {
		char words[128] = "";

		for (size_t i = 0; i < RTE_DIM(cmds); i++)
			if (strcmp(cmds[i].w1, w1_known) == 0 && cmds[i].w2 != NULL &&
			    strstr(words, cmds[i].w2) == NULL)
				snprintf(words + strlen(words),
					 sizeof(words) - strlen(words), "%s%s",
					 words[0] ? ", " : "", cmds[i].w2);
		if (n < 2)
			snprintf(r->err, NFV_ERR_LEN, "missing word after '%s' (expected %s)",
				 tok[0], words);
		else
			snprintf(r->err, NFV_ERR_LEN, "unknown word '%.64s' after '%s' "
				 "(expected %s)", tok[1], tok[0], words);
	} else {
		snprintf(r->err, NFV_ERR_LEN, "unknown command '%.64s'; try 'help'", tok[0]);
	}
	free(copy);
	return -EINVAL;
}

int
nfv_cmd_exec(const char *line, struct nfv_reply *r)
{
	int rc = cmd_exec(line, r);

	/* Errors quote user tokens: keep them printable ASCII, so that they
	 * always encode as JSON and print as text, whatever bytes the line held. */
	for (char *c = r->err; *c != '\0'; c++)
		if ((unsigned char)*c < 0x20 || (unsigned char)*c > 0x7e)
			*c = '?';
	return rc;
}

static void
render_value(FILE *f, const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_STRING:
		fputs(json_string_value(v), f);
		break;
	case JSON_INTEGER:
		fprintf(f, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		break;
	case JSON_REAL:
		fprintf(f, "%.2f", json_real_value(v));
		break;
	case JSON_TRUE:
		fputs("yes", f);
		break;
	case JSON_FALSE:
		fputs("no", f);
		break;
	case JSON_NULL:
		fputs("-", f);
		break;
	default: {
		char *s = json_dumps(v, JSON_COMPACT);

		fputs(s ? s : "?", f);
		free(s);
	}
	}
}

static char *
value_str(const json_t *v)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (f == NULL)
		return NULL;
	render_value(f, v);
	fclose(f);
	return buf;
}

static void
render_table(FILE *f, const json_t *rows)
{
	const json_t *first = json_array_get(rows, 0);
	size_t ncol = json_object_size(first), nrow = json_array_size(rows), c, i;
	const char **keys;
	size_t *width;
	const char *key;
	json_t *val;

	if (ncol == 0)
		return;
	keys = calloc(ncol, sizeof(*keys));
	width = calloc(ncol, sizeof(*width));
	c = 0;
	json_object_foreach((json_t *)first, key, val) {
		keys[c] = key;
		width[c] = strlen(key);
		c++;
	}
	for (i = 0; i < nrow; i++)
		for (c = 0; c < ncol; c++) {
			char *s = value_str(json_object_get(json_array_get(rows, i), keys[c]));

			if (s != NULL && strlen(s) > width[c])
				width[c] = strlen(s);
			free(s);
		}
	for (c = 0; c < ncol; c++)
		fprintf(f, "%-*s%s", (int)width[c], keys[c], c + 1 < ncol ? "  " : "\n");
	for (i = 0; i < nrow; i++)
		for (c = 0; c < ncol; c++) {
			char *s = value_str(json_object_get(json_array_get(rows, i), keys[c]));

			fprintf(f, "%-*s%s", (int)width[c], s ? s : "", c + 1 < ncol ? "  " : "\n");
			free(s);
		}
	free(keys);
	free(width);
}

static void
render_object(FILE *f, const json_t *obj, int indent)
{
	const char *key;
	json_t *val;

	json_object_foreach((json_t *)obj, key, val) {
		if (json_is_array(val) && json_array_size(val) > 0 &&
		    json_is_object(json_array_get(val, 0))) {
			fprintf(f, "%*s%s:\n", indent, "", key);
			render_table(f, val);
		} else if (json_is_array(val) && json_array_size(val) == 0) {
			fprintf(f, "%*s%s: (none)\n", indent, "", key);
		} else if (json_is_object(val)) {
			fprintf(f, "%*s%s:\n", indent, "", key);
			render_object(f, val, indent + 2);
		} else {
			fprintf(f, "%*s%s: ", indent, "", key);
			render_value(f, val);
			fputc('\n', f);
		}
	}
}

char *
nfv_render_text(const json_t *data)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (data == NULL)
		return strdup("");
	f = open_memstream(&buf, &len);
	if (f == NULL)
		return NULL;
	if (json_is_object(data) && json_object_size(data) == 1 &&
	    json_is_string(json_object_iter_value(json_object_iter((json_t *)data))) &&
	    strchr(json_string_value(json_object_iter_value(json_object_iter((json_t *)data))),
		   '\n') != NULL)
		fputs(json_string_value(json_object_iter_value(json_object_iter((json_t *)data))),
		      f);
	else if (json_is_object(data))
		render_object(f, data, 0);
	else
		render_value(f, data);
	fclose(f);
	return buf;
}
