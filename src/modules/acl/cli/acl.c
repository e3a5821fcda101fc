/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Commands of the acl module:
 *   acl add NAME | acl del NAME
 *   acl rule add NAME prio N [src PREFIX] [dst PREFIX] [proto tcp|udp|icmp|icmp6|N]
 *                [sport A[-B]] [dport A[-B]] [type A[-B]] [code A[-B]]
 *                action permit|deny|reflect
 *   acl rule del NAME prio N
 *   acl attach NAME dev IF in|out | acl detach NAME dev IF in|out
 *   acl show [NAME]
 *   acl set cache on|off
 *   conntrack show | conntrack flush | conntrack set max N
 *   conntrack set timeout NAME SECONDS
 *   conntrack set tcp-liberal on|off
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>

#include "api/cmd.h"
#include "api/parse.h"
#include "modules/acl/acl.h"

#define RULE_USAGE "acl rule add NAME prio N [src PREFIX] [dst PREFIX] " \
	"[proto tcp|udp|icmp|icmp6|N] [sport A[-B]] [dport A[-B]] [type A[-B]] [code A[-B]] " \
	"action permit|deny|reflect"

static int
parse_range(const char *s, uint16_t *lo, uint16_t *hi)
{
	char buf[16];
	const char *dash = strchr(s, '-');
	uint32_t a, b;

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	if (dash == NULL) {
		if (nfv_parse_u32(s, 0, 65535, &a) < 0)
			return -EINVAL;
		b = a;
	} else {
		memcpy(buf, s, (size_t)(dash - s));
		buf[dash - s] = '\0';
		if (nfv_parse_u32(buf, 0, 65535, &a) < 0 || nfv_parse_u32(dash + 1, 0, 65535, &b) < 0 ||
		    b < a)
			return -EINVAL;
	}
	*lo = (uint16_t)a;
	*hi = (uint16_t)b;
	return 0;
}

static int
parse_proto(const char *s, uint8_t *p)
{
	static const struct { const char *name; uint8_t proto; } names[] = {
		{ "tcp", IPPROTO_TCP }, { "udp", IPPROTO_UDP }, { "icmp", IPPROTO_ICMP },
		{ "icmp6", IPPROTO_ICMPV6 }, { "sctp", IPPROTO_SCTP },
	};
	uint32_t v;

	for (size_t i = 0; i < RTE_DIM(names); i++)
		if (strcmp(s, names[i].name) == 0) {
			*p = names[i].proto;
			return 0;
		}
	if (nfv_parse_u32(s, 0, 255, &v) < 0)
		return -EINVAL;
	*p = (uint8_t)v;
	return 0;
}

static int
set_prefix(struct nfv_acl_rule_spec *s, const char *tok, bool dst, struct nfv_reply *r)
{
	struct nfv_prefix p;
	int rc = nfv_parse_prefix(tok, false, &p);

	if (rc == -EDOM)
		NFV_FAIL(r, -EINVAL, "bad prefix '%s' (bits set beyond the length)", tok);
	if (rc < 0)
		NFV_FAIL(r, -EINVAL, "bad prefix '%s' (expected ADDR/LEN)", tok);
	if (s->family != 0 && s->family != p.ip.family)
		NFV_FAIL(r, -EINVAL, "'%s': src and dst must be of one family", tok);
	s->family = p.ip.family;
	if (dst) {
		s->has_dst = true;
		s->dst_len = p.len;
		memcpy(s->dst, p.ip.family == AF_INET ? (const void *)&p.ip.v4 : p.ip.v6,
		       p.ip.family == AF_INET ? 4 : 16);
	} else {
		s->has_src = true;
		s->src_len = p.len;
		memcpy(s->src, p.ip.family == AF_INET ? (const void *)&p.ip.v4 : p.ip.v6,
		       p.ip.family == AF_INET ? 4 : 16);
	}
	return 0;
}

static int
cmd_acl_rule_add(int argc, char **argv, struct nfv_reply *r)
{
	struct nfv_acl_rule_spec s;
	bool has_action = false, has_prio = false, icmp_words = false, port_words = false;
	bool has_sport = false, has_dport = false;
	int i;

	if (nfv_cmd_need_args(argc, 6, RULE_USAGE, r) < 0)
		return -EINVAL;
	memset(&s, 0, sizeof(s));
	s.sport_hi = s.dport_hi = 0xffff;
	for (i = 4; i < argc; i += 2) {
		const char *w = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (v == NULL)
			NFV_FAIL(r, -EINVAL, "'%s' needs a value; usage: %s", w, RULE_USAGE);
		if (strcmp(w, "prio") == 0 && !has_prio) {
			if (nfv_parse_u32(v, 0, RTE_ACL_MAX_PRIORITY - RTE_ACL_MIN_PRIORITY, &s.prio) < 0)
				NFV_FAIL(r, -EINVAL, "bad prio '%s' (expected 0-%u)", v,
					 RTE_ACL_MAX_PRIORITY - RTE_ACL_MIN_PRIORITY);
			has_prio = true;
		} else if (strcmp(w, "src") == 0 && !s.has_src) {
			if (set_prefix(&s, v, false, r) < 0)
				return -EINVAL;
		} else if (strcmp(w, "dst") == 0 && !s.has_dst) {
			if (set_prefix(&s, v, true, r) < 0)
				return -EINVAL;
		} else if (strcmp(w, "proto") == 0 && !s.has_proto) {
			if (parse_proto(v, &s.proto) < 0)
				NFV_FAIL(r, -EINVAL, "bad protocol '%s' (tcp, udp, icmp, icmp6, sctp "
					 "or 0-255)", v);
			s.has_proto = true;
		} else if ((strcmp(w, "sport") == 0 || strcmp(w, "type") == 0) &&
			   !has_sport) {
			if (parse_range(v, &s.sport_lo, &s.sport_hi) < 0)
				NFV_FAIL(r, -EINVAL, "bad %s '%s' (expected N or A-B, 0-65535%s)", w, v,
					 w[0] == 't' ? "; ICMP types are 0-255" : "");
			s.has_ports = true;
			has_sport = true;
			if (w[0] == 't')
				icmp_words = true;
			else
				port_words = true;
		} else if ((strcmp(w, "dport") == 0 || strcmp(w, "code") == 0) &&
			   !has_dport) {
			if (parse_range(v, &s.dport_lo, &s.dport_hi) < 0)
				NFV_FAIL(r, -EINVAL, "bad %s '%s' (expected N or A-B, 0-65535)", w, v);
			s.has_ports = true;
			has_dport = true;
			if (w[0] == 'c')
				icmp_words = true;
			else
				port_words = true;
		} else if (strcmp(w, "action") == 0 && !has_action) {
			if (strcmp(v, "permit") == 0)
				s.action = NFV_ACL_PERMIT;
			else if (strcmp(v, "deny") == 0)
				s.action = NFV_ACL_DENY;
			else if (strcmp(v, "reflect") == 0)
				s.action = NFV_ACL_REFLECT;
			else
				NFV_FAIL(r, -EINVAL, "bad action '%s' (permit, deny or reflect)", v);
			has_action = true;
		} else {
			NFV_FAIL(r, -EINVAL, "unexpected '%s'; usage: %s", w, RULE_USAGE);
		}
	}
	if (!has_prio)
		NFV_FAIL(r, -EINVAL, "missing 'prio N'; usage: %s", RULE_USAGE);
	if (!has_action)
		NFV_FAIL(r, -EINVAL, "missing 'action permit|deny|reflect'; usage: %s", RULE_USAGE);
	if (s.has_ports) {
		bool icmp = s.has_proto && (s.proto == IPPROTO_ICMP || s.proto == IPPROTO_ICMPV6);
		bool ports = s.has_proto && (s.proto == IPPROTO_TCP || s.proto == IPPROTO_UDP ||
					     s.proto == IPPROTO_SCTP);

		if (icmp_words && !icmp)
			NFV_FAIL(r, -EINVAL, "type and code need proto icmp or icmp6");
		if (port_words && !ports)
			NFV_FAIL(r, -EINVAL, "sport and dport need proto tcp, udp or sctp");
		if (icmp && ((has_sport && s.sport_hi > 255) || (has_dport && s.dport_hi > 255)))
			NFV_FAIL(r, -EINVAL, "ICMP types and codes are 0-255");
		/* A range of everything still asks for an L4 header: keep it. */
	}
	if (s.has_proto && s.family == AF_INET6 && s.proto == IPPROTO_ICMP)
		NFV_FAIL(r, -EINVAL, "proto icmp is IPv4: use icmp6 with IPv6 prefixes");
	if (s.has_proto && s.family == AF_INET && s.proto == IPPROTO_ICMPV6)
		NFV_FAIL(r, -EINVAL, "proto icmp6 is IPv6: use icmp with IPv4 prefixes");
	return nfv_acl_rule_add(argv[3], &s, r->err);
}

static int
cmd_acl_rule_del(int argc, char **argv, struct nfv_reply *r)
{
	static const char usage[] = "acl rule del NAME prio N";
	uint32_t prio;

	if (nfv_cmd_need_args(argc, 6, usage, r) < 0 || nfv_cmd_max_args(argc, argv, 6, r) < 0)
		return -EINVAL;
	if (strcmp(argv[4], "prio") != 0)
		NFV_FAIL(r, -EINVAL, "unexpected '%s' (expected 'prio'); usage: %s", argv[4], usage);
	if (nfv_parse_u32(argv[5], 0, UINT32_MAX, &prio) < 0)
		NFV_FAIL(r, -EINVAL, "bad prio '%s'", argv[5]);
	return nfv_acl_rule_del(argv[3], prio, r->err);
}

static int
cmd_acl_rule(int argc, char **argv, struct nfv_reply *r)
{
	if (argc >= 3 && strcmp(argv[2], "add") == 0)
		return cmd_acl_rule_add(argc, argv, r);
	if (argc >= 3 && strcmp(argv[2], "del") == 0)
		return cmd_acl_rule_del(argc, argv, r);
	NFV_FAIL(r, -EINVAL, "usage: %s | acl rule del NAME prio N", RULE_USAGE);
}

static int
cmd_acl_add(int argc, char **argv, struct nfv_reply *r)
{
	if (nfv_cmd_need_args(argc, 3, "acl add NAME", r) < 0 ||
	    nfv_cmd_max_args(argc, argv, 3, r) < 0)
		return -EINVAL;
	if (!nfv_valid_name(argv[2]))
		NFV_FAIL(r, -EINVAL, "bad ACL name '%s' (letters, digits, '_', '-', '.'; starts "
			 "with a letter; at most 31)", argv[2]);
	return nfv_acl_add(argv[2], r->err);
}

static int
cmd_acl_del(int argc, char **argv, struct nfv_reply *r)
{
	if (nfv_cmd_need_args(argc, 3, "acl del NAME", r) < 0 ||
	    nfv_cmd_max_args(argc, argv, 3, r) < 0)
		return -EINVAL;
	return nfv_acl_del(argv[2], r->err);
}

static int
cmd_acl_attach(int argc, char **argv, struct nfv_reply *r)
{
	bool on = strcmp(argv[1], "attach") == 0;
	const char *usage = on ? "acl attach NAME dev IF in|out" : "acl detach NAME dev IF in|out";
	enum nfv_acl_dir dir;

	if (nfv_cmd_need_args(argc, 6, usage, r) < 0 || nfv_cmd_max_args(argc, argv, 6, r) < 0)
		return -EINVAL;
	if (strcmp(argv[3], "dev") != 0)
		NFV_FAIL(r, -EINVAL, "unexpected '%s' (expected 'dev'); usage: %s", argv[3], usage);
	if (strcmp(argv[5], "in") == 0)
		dir = NFV_ACL_IN;
	else if (strcmp(argv[5], "out") == 0)
		dir = NFV_ACL_OUT;
	else
		NFV_FAIL(r, -EINVAL, "bad direction '%s' (in or out)", argv[5]);
	return nfv_acl_attach(argv[2], argv[4], dir, on, r->err);
}

static int
cmd_acl_show(int argc, char **argv, struct nfv_reply *r)
{
	if (nfv_cmd_max_args(argc, argv, 3, r) < 0)
		return -EINVAL;
	return nfv_acl_show(argc == 3 ? argv[2] : NULL, &r->data, r->err);
}

static int
cmd_acl_set(int argc, char **argv, struct nfv_reply *r)
{
	/* Each error names its word, and keeps the usage. */
	if (argc < 3)
		NFV_FAIL(r, -EINVAL, "missing arguments; usage: acl set cache on|off");
	if (strcmp(argv[2], "cache") != 0)
		NFV_FAIL(r, -EINVAL, "unexpected '%s' (expected 'cache'); usage: acl set cache on|off",
			 argv[2]);
	if (argc < 4)
		NFV_FAIL(r, -EINVAL, "missing value after 'cache'; usage: acl set cache on|off");
	if (strcmp(argv[3], "on") != 0 && strcmp(argv[3], "off") != 0)
		NFV_FAIL(r, -EINVAL, "bad cache '%s' (on or off); usage: acl set cache on|off",
			 argv[3]);
	if (argc > 4)
		NFV_FAIL(r, -EINVAL, "unexpected '%s'; usage: acl set cache on|off", argv[4]);
	return nfv_acl_set_cache(strcmp(argv[3], "on") == 0);
}

static int
cmd_conntrack_show(int argc, char **argv, struct nfv_reply *r)
{
	if (nfv_cmd_max_args(argc, argv, 2, r) < 0)
		return -EINVAL;
	r->data = nfv_ct_show();
	return 0;
}

static int
cmd_conntrack_flush(int argc, char **argv, struct nfv_reply *r)
{
	if (nfv_cmd_max_args(argc, argv, 2, r) < 0)
		return -EINVAL;
	nfv_ct_flush();
	return 0;
}

static int
cmd_conntrack_set(int argc, char **argv, struct nfv_reply *r)
{
	static const char usage[] = "conntrack set max N | conntrack set timeout NAME SECONDS | "
				    "conntrack set tcp-liberal on|off";
	uint32_t v;

	if (argc >= 3 && strcmp(argv[2], "max") == 0) {
		if (nfv_cmd_need_args(argc, 4, usage, r) < 0 ||
		    nfv_cmd_max_args(argc, argv, 4, r) < 0)
			return -EINVAL;
		if (nfv_parse_u32(argv[3], 0, UINT32_MAX, &v) < 0)
			NFV_FAIL(r, -EINVAL, "bad max '%s' (a number of flows)", argv[3]);
		return nfv_ct_set_max(v, r->err);
	}
	if (argc >= 3 && strcmp(argv[2], "timeout") == 0) {
		if (nfv_cmd_need_args(argc, 5, usage, r) < 0 ||
		    nfv_cmd_max_args(argc, argv, 5, r) < 0)
			return -EINVAL;
		if (nfv_parse_u32(argv[4], 1, 10 * 365 * 86400, &v) < 0)
			NFV_FAIL(r, -EINVAL, "bad timeout '%s' (seconds, 1 or more)", argv[4]);
		return nfv_ct_set_timeout(argv[3], v, r->err);
	}
	if (argc >= 3 && strcmp(argv[2], "tcp-liberal") == 0) {
		if (nfv_cmd_need_args(argc, 4, usage, r) < 0 ||
		    nfv_cmd_max_args(argc, argv, 4, r) < 0)
			return -EINVAL;
		if (strcmp(argv[3], "on") != 0 && strcmp(argv[3], "off") != 0)
			NFV_FAIL(r, -EINVAL, "bad tcp-liberal '%s' (on or off)", argv[3]);
		nfv_ct_set_tcp_liberal(strcmp(argv[3], "on") == 0);
		return 0;
	}
	if (argc >= 3)
		NFV_FAIL(r, -EINVAL, "unexpected '%s' (expected max, timeout or tcp-liberal); "
			 "usage: %s", argv[2], usage);
	NFV_FAIL(r, -EINVAL, "missing arguments; usage: %s", usage);
}

static const struct nfv_command acl_commands[] = {
	{ "acl", "add", cmd_acl_add, "acl add NAME" },
	{ "acl", "del", cmd_acl_del, "acl del NAME" },
	{ "acl", "rule", cmd_acl_rule, RULE_USAGE " | acl rule del NAME prio N" },
	{ "acl", "attach", cmd_acl_attach, "acl attach NAME dev IF in|out" },
	{ "acl", "detach", cmd_acl_attach, "acl detach NAME dev IF in|out" },
	{ "acl", "show", cmd_acl_show, "acl show [NAME]" },
	{ "acl", "set", cmd_acl_set, "acl set cache on|off" },
	{ "conntrack", "show", cmd_conntrack_show, "conntrack show" },
	{ "conntrack", "flush", cmd_conntrack_flush, "conntrack flush" },
	{ "conntrack", "set", cmd_conntrack_set,
	  "conntrack set max N | conntrack set timeout NAME SECONDS | "
	  "conntrack set tcp-liberal on|off" },
};
NFV_COMMANDS_REGISTER(acl_commands);
