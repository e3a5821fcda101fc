/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Commands of the infra module: port add / del / set / show, worker set.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/cmd.h"
#include "api/parse.h"
#include "core/stats.h"
#include "core/worker.h"
#include "modules/infra/cli.h"
#include "modules/infra/port.h"

struct nfv_port *
nfv_port_need(const char *name, struct nfv_reply *r)
{
	struct nfv_port *p = nfv_port_by_name(name);

	if (p == NULL)
		snprintf(r->err, NFV_ERR_LEN, "unknown port '%s'", name);
	return p;
}

struct nfv_iface *
nfv_iface_need(const char *name, struct nfv_reply *r)
{
	struct nfv_iface *i = nfv_iface_by_name(name);

	if (i == NULL)
		snprintf(r->err, NFV_ERR_LEN, "unknown interface '%s'", name);
	return i;
}

/* port add NAME dev DEVARGS [rxq N] [txq N] [rxd N] [txd N] [mtu N] */
static int
cmd_port_add(int argc, char **argv, struct nfv_reply *r)
{
	static const char usage[] = "port add NAME dev DEVARGS [rxq N] [txq N] [rxd N] [txd N] "
				    "[mtu N]";
	struct nfv_port_conf c = { .n_rxq = 1, .n_txq = 0, .rxd = 1024, .txd = 1024, .mtu = 0 };

	if (nfv_cmd_need_args(argc, 5, usage, r) < 0)
		return -EINVAL;
	if (!nfv_valid_name(argv[2]))
		NFV_FAIL(r, -EINVAL, "bad port name '%s' (letters, digits, '_', '-', '.'; starts with "
		     "a letter; at most 31)", argv[2]);
	if (strcmp(argv[3], "dev") != 0)
		NFV_FAIL(r, -EINVAL, "unexpected '%s' (expected 'dev'); usage: %s", argv[3], usage);
	for (int i = 5; i < argc; i += 2) {
		uint32_t v, lo = 1, hi = 4096;
		uint16_t *dst;

		if (strcmp(argv[i], "rxq") == 0) {
			/* rxq 0: a port that only sends (nfv_port_add). */
			dst = &c.n_rxq;
			lo = 0;
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
			NFV_FAIL(r, -EINVAL, "unexpected '%s' (expected rxq, txq, rxd, txd or mtu)",
			     argv[i]);
		}
		if (i + 1 >= argc)
			NFV_FAIL(r, -EINVAL, "missing value after '%s'", argv[i]);
		if (nfv_parse_u32(argv[i + 1], lo, hi, &v) < 0)
			NFV_FAIL(r, -EINVAL, "bad %s '%s' (expected %u-%u)", argv[i], argv[i + 1],
			     lo, hi);
		*dst = (uint16_t)v;
	}
	return nfv_port_add(argv[2], argv[4], &c, r->err);
}

static int
cmd_port_del(int argc, char **argv, struct nfv_reply *r)
{
	if (nfv_cmd_need_args(argc, 3, "port del NAME", r) < 0)
		return -EINVAL;
	if (argc > 3)
		NFV_FAIL(r, -EINVAL, "unexpected '%s'", argv[3]);
	return nfv_port_del(argv[2], r->err);
}

/* What port set takes after NAME, for errors: "up, down, K1 or K2". */
static const char *
port_set_words(void)
{
	static char buf[256];
	char keys[256], *save = NULL;

	snprintf(keys, sizeof(keys), "%s", nfv_iface_attr_keys());
	snprintf(buf, sizeof(buf), "up");
	/* Commas between the words, "or" before the last. */
	for (const char *k = strtok_r(keys, "|", &save), *next = "down"; next != NULL;
	     k = k != NULL ? strtok_r(NULL, "|", &save) : NULL) {
		size_t len = strlen(buf);

		snprintf(buf + len, sizeof(buf) - len, "%s%s", k != NULL ? ", " : " or ", next);
		next = k;
	}
	return buf;
}

/* port set NAME up|down | port set NAME KEY VALUE (an attribute another
 * module owns, e.g. vrf; infra's mtu) */
static int
cmd_port_set(int argc, char **argv, struct nfv_reply *r)
{
	struct nfv_iface *i;

	if (nfv_cmd_need_args(argc, 4, "port set NAME up|down|vrf VRF|mtu N", r) < 0)
		return -EINVAL;
	if (strcmp(argv[3], "up") != 0 && strcmp(argv[3], "down") != 0) {
		if (nfv_iface_attr_known(argv[3]) && argc == 4)
			NFV_FAIL(r, -EINVAL, "missing value after '%s'", argv[3]);
		if (!nfv_iface_attr_known(argv[3]))
			NFV_FAIL(r, -EINVAL, "unexpected '%s' (expected %s)", argv[3],
				 port_set_words());
		if (argc > 5)
			NFV_FAIL(r, -EINVAL, "unexpected '%s'", argv[5]);
		i = nfv_iface_by_name(argv[2]);
		if (i == NULL)
			NFV_FAIL(r, -ENOENT, "unknown port '%s'", argv[2]);
		return nfv_iface_attr_set(i->id, argv[3], argv[4], r->err);
	}
	if (argc > 4)
		NFV_FAIL(r, -EINVAL, "unexpected '%s'", argv[4]);
	if (nfv_port_by_name(argv[2]) == NULL) {
		/* Any other kind of interface: its admin state. */
		i = nfv_iface_by_name(argv[2]);
		if (i == NULL)
			NFV_FAIL(r, -ENOENT, "unknown port '%s'", argv[2]);
		nfv_iface_set_admin(i->id, strcmp(argv[3], "up") == 0);
		return 0;
	}
	return nfv_port_set_admin(argv[2], strcmp(argv[3], "up") == 0, r->err);
}

static int
cmd_port_show(int argc, char **argv, struct nfv_reply *r)
{
	if (argc > 3)
		NFV_FAIL(r, -EINVAL, "unexpected '%s'", argv[3]);
	if (argc == 3 && nfv_iface_by_name(argv[2]) == NULL)
		NFV_FAIL(r, -ENOENT, "unknown port '%s'", argv[2]);
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
	char *list, *item;

	if (nfv_cmd_need_args(argc, 5, "worker set LCORE rxq NAME:Q[,NAME:Q...]", r) < 0)
		return -EINVAL;
	if (nfv_parse_u32(argv[2], 0, RTE_MAX_LCORE - 1, &lcore) < 0)
		NFV_FAIL(r, -EINVAL, "bad lcore '%s'", argv[2]);
	if (strcmp(argv[3], "rxq") != 0)
		NFV_FAIL(r, -EINVAL, "unexpected '%s' (expected 'rxq')", argv[3]);
	if (argc > 5)
		NFV_FAIL(r, -EINVAL, "unexpected '%s'", argv[5]);
	list = strdup(argv[4]);
	if (list == NULL)
		return -ENOMEM;
	/* Items between commas; none empty, none twice. */
	for (item = list;;) {
		char *comma = strchr(item, ',');
		char *colon;
		struct nfv_port *p;
		uint32_t q;

		if (comma != NULL)
			*comma = '\0';
		if (*item == '\0') {
			snprintf(r->err, NFV_ERR_LEN, "empty queue in '%s' (expected NAME:Q[,NAME:Q...])",
				 argv[4]);
			goto bad;
		}
		colon = strrchr(item, ':');
		if (colon == NULL) {
			snprintf(r->err, NFV_ERR_LEN, "bad queue '%s' (expected NAME:Q)", item);
			goto bad;
		}
		if (n == NFV_MAX_RXQ_PER_WORKER) {
			snprintf(r->err, NFV_ERR_LEN, "at most %u queues per worker",
				 NFV_MAX_RXQ_PER_WORKER);
			goto bad;
		}
		*colon = '\0';
		p = nfv_port_need(item, r);
		if (p == NULL)
			goto bad;
		if (nfv_parse_u32(colon + 1, 0, 65535, &q) < 0) {
			snprintf(r->err, NFV_ERR_LEN, "bad queue number '%s'", colon + 1);
			goto bad;
		}
		for (unsigned int k = 0; k < n; k++) {
			if (rxqs[k].port_id == p->port_id && rxqs[k].queue_id == q) {
				snprintf(r->err, NFV_ERR_LEN, "queue %s:%u given twice", item, q);
				goto bad;
			}
		}
		rxqs[n].port_id = p->port_id;
		rxqs[n++].queue_id = (uint16_t)q;
		if (comma == NULL)
			break;
		item = comma + 1;
	}
	free(list);
	return nfv_worker_set_rxqs(lcore, rxqs, n, r->err);
bad:
	free(list);
	return -EINVAL;
}


static const struct nfv_command port_commands[] = {
	{ "port", "add", cmd_port_add,
	  "port add NAME dev DEVARGS [rxq N] [txq N] [rxd N] [txd N] [mtu N]" },
	{ "port", "del", cmd_port_del, "port del NAME" },
	{ "port", "set", cmd_port_set, "port set NAME up|down | port set NAME vrf VRF | port set NAME mtu N" },
	{ "port", "show", cmd_port_show, "port show [NAME]" },
	{ "worker", "set", cmd_worker_set, "worker set LCORE rxq NAME:Q[,NAME:Q...]" },
};
NFV_COMMANDS_REGISTER(port_commands);
