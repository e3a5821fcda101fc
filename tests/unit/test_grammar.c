/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The command grammar (src/ctl/cmd.c) line by line, on a real EAL with two
 * null ports, addresses and neighbors: one cmocka test per command line,
 * run in table order (good lines may change the tables for the next ones).
 * A line that must fail is checked for its return code, a piece of its
 * error (which names the bad token) and for leaving every table as it was
 * (routes, next hops with their reference counts, addresses, neighbors,
 * ports). A good line is checked for a piece of its JSON result.
 * The API's reply line (nfv_api_handle_line) closes the suite.
 */
#include <errno.h>
#include <limits.h>

#include "nfv_test.h"
#include "nfv_test_eal.h"
#include "api/cmd.h"
#include "api/api.h"

#define RC_ANY_ERROR INT_MIN

static const struct nfv_limits limits = {
	.max_routes4 = 1024,
	.max_routes6 = 1024,
	.tbl8_4 = 256,
	.tbl8_6 = 4096,
};

struct grammar_row {
	const char *line;
	int rc;
	const char *substr; /* in the error (rc != 0) or in the compact JSON result */
};

static const char *const setup_lines[] = {
	"port add a dev net_null0,no-rx=1",
	"port add b dev net_null1,no-rx=1",
	"addr add 192.168.1.1/24 dev a",
	"addr add 192.168.2.1/24 dev b",
	"addr add 2001:db8:1::1/64 dev a",
	"neigh add 192.168.1.2 lladdr 02:00:00:00:01:02 dev a",
	"neigh add 2001:db8:1::2 lladdr 02:00:00:00:01:12 dev a",
};

static const struct grammar_row rows[] = {
	/* Nothing to do. */
	{ "", 0, NULL },
	{ " \t \r\n", 0, NULL },
	{ "# a comment", 0, NULL },
	{ "   # an indented comment with \"quotes", 0, NULL },

	/* Show commands. */
	{ "help", 0, "route add PREFIX" },
	{ "port show", 0, "\"name\":\"b\"" },
	{ "port show a", 0, "\"dev\":\"net_null0\"" },
	{ "addr show", 0, "\"address\":\"192.168.1.1/24\"" },
	{ "neigh show", 0, "\"lladdr\":\"02:00:00:00:01:02\"" },
	{ "route show", 0, "\"prefix\":\"192.168.1.0/24\"" },
	{ "route show 192.168.1.0/24", 0, "\"source\":\"connected\"" },
	{ "route show 192.168.1.77/24", 0, "\"prefix\":\"192.168.1.0/24\"" },
	{ "route show 2001:db8:1::/64", 0, "\"dev\":\"a\"" },
	/* An address: the longest prefix holding it. */
	{ "route show 192.168.1.77", 0, "\"prefix\":\"192.168.1.0/24\"" },
	{ "route show 192.168.1.1", 0, "\"prefix\":\"192.168.1.1/32\"" },
	{ "route show 2001:db8:1::77", 0, "\"prefix\":\"2001:db8:1::/64\"" },
	{ "nexthop show", 0, "\"type\":\"local\"" },
	{ "show stats", 0, NULL },
	{ "show graph", 0, NULL },
	{ "show workers", 0, NULL },
	{ "show latency", 0, NULL },
	{ "show drops", 0, NULL },
	{ "show pools", 0, NULL },
	{ "stats reset", 0, NULL },

	/* Good changes, undone right after. */
	{ "route add 10.0.0.0/8 blackhole # trailing comment", 0, NULL },
	{ "route show 10.0.0.0/8", 0, "\"type\":\"blackhole\"" },
	{ "route del 10.0.0.0/8", 0, NULL },
	{ "route\tadd\t10.0.0.0/8\tblackhole\r\n", 0, NULL },
	{ "route del \"10.0.0.0/8\"", 0, NULL },
	{ "route add 10.1.0.0/16 via 192.168.1.2 dev a", 0, NULL },
	{ "route show 10.1.0.0/16", 0, "\"via\":\"192.168.1.2\"" },
	{ "route show 10.1.2.3", 0, "\"prefix\":\"10.1.0.0/16\"" },
	{ "route del 10.1.0.0/16", 0, NULL },
	{ "route add 10.1.0.0/16 via 192.168.1.2 via 192.168.1.3 dev b via 192.168.2.9", 0, NULL },
	{ "route show 10.1.0.0/16", 0, "\"type\":\"ecmp\"" },
	{ "route del 10.1.0.0/16", 0, NULL },
	{ "route add 2001:db8:9::/48 via 2001:db8:1::2", 0, NULL },
	{ "route del 2001:db8:9::/48", 0, NULL },
	{ "addr add 10.9.9.1/24 dev b", 0, NULL },
	{ "addr del 10.9.9.1/24 dev b", 0, NULL },
	{ "neigh add 192.168.1.9 lladdr 02:00:00:00:01:09 dev a", 0, NULL },
	{ "neigh del 192.168.1.9 dev a", 0, NULL },
	{ "port set a down", 0, NULL },
	{ "port show a", 0, "\"admin_up\":false" },
	{ "port set a down", 0, NULL },
	{ "port set a up", 0, NULL },
	{ "port show a", 0, "\"admin_up\":true" },
	{ "worker set 1 rxq a:0", 0, NULL },
	{ "worker set 1 rxq a:0,b:0", 0, NULL },
	{ "port add c dev net_null2,no-rx=1 rxq 1 txq 1 rxd 512 txd 512", 0, NULL },
	{ "port show c", 0, "\"rxd\":512" },
	{ "port del c", 0, NULL },
	{ "port add c dev net_null2,no-rx=1", 0, NULL },
	{ "port del c", 0, NULL },
	{ "port add c dev net_null2,no-rx=1 rxq 0", 0, NULL },
	{ "port show c", 0, "\"rxq\":0," },
	{ "worker set 1 rxq c:0", -EINVAL, "port c has no RX queue 0 (it has 0)" },
	{ "port del c", 0, NULL },

	/* Unknown words. */
	{ "frobnicate", -EINVAL, "unknown command 'frobnicate'; try 'help'" },
	{ "ROUTE show", -EINVAL, "unknown command 'ROUTE'" },
	{ "route", -EINVAL, "missing word after 'route' (expected add, del, load, show)" },
	{ "route frob", -EINVAL,
	  "unknown word 'frob' after 'route' (expected add, del, load, show)" },
	{ "route SHOW", -EINVAL, "unknown word 'SHOW' after 'route'" },
	{ "show", -EINVAL, "missing word after 'show' (expected stats, graph, workers, latency, "
	  "drops, pools" },
	{ "show frob", -EINVAL, "unknown word 'frob' after 'show'" },
	{ "port", -EINVAL, "after 'port' (expected add, del, set, show)" },
	{ "addr frob", -EINVAL, "unknown word 'frob' after 'addr' (expected add, del, show)" },
	{ "neigh", -EINVAL, "after 'neigh' (expected set, params, flush, add, del, show)" },
	{ "nexthop", -EINVAL, "after 'nexthop' (expected show)" },
	{ "worker get", -EINVAL, "unknown word 'get' after 'worker' (expected set)" },
	{ "stats", -EINVAL, "after 'stats' (expected reset, on, off)" },

	/* port add */
	{ "port add", -EINVAL, "missing arguments; usage: port add NAME dev DEVARGS" },
	{ "port add x", -EINVAL, "missing arguments" },
	{ "port add x dev", -EINVAL, "missing arguments" },
	{ "port add 1x dev net_null7", -EINVAL, "bad port name '1x'" },
	{ "port add abcdefghijklmnopqrstuvwxyz0123456 dev net_null7", -EINVAL,
	  "bad port name 'abcdefghijklmnopqrstuvwxyz0123456'" },
	{ "port add \"a b\" dev net_null7", -EINVAL, "bad port name 'a b'" },
	{ "port add x:0 dev net_null7", -EINVAL, "bad port name 'x:0'" },
	{ "port add x device net_null7", -EINVAL, "unexpected 'device' (expected 'dev')" },
	{ "port add x dev net_null7 rxq", -EINVAL, "missing value after 'rxq'" },
	{ "port add x dev net_null7 rxq 1 txq", -EINVAL, "missing value after 'txq'" },
	{ "port add x dev net_null7 rxq 200", -EINVAL, "bad rxq '200' (expected 0-128)" },
	{ "port add x dev net_pcap7,rx_pcap=/nonexistent/in.pcap,tx_pcap=/nonexistent/out.pcap rxq 0",
	  -EINVAL, "port x: rxq 0 sends only; name only tx_pcap or tx_iface" },
	{ "port add x dev net_pcap7,rx_iface=lo,tx_iface=lo rxq 0", -EINVAL,
	  "port x: rxq 0 sends only" },
	{ "port add x dev net_null7 rxq -1", -EINVAL, "bad rxq '-1'" },
	{ "port add x dev net_null7 rxq +2", -EINVAL, "bad rxq '+2'" },
	{ "port add x dev net_null7 rxq 0x2", -EINVAL, "bad rxq '0x2'" },
	{ "port add x dev net_null7 rxq 99999999999999999999999", -EINVAL,
	  "bad rxq '99999999999999999999999'" },
	{ "port add x dev net_null7 txq 2000", -EINVAL, "bad txq '2000' (expected 1-1024)" },
	{ "port add x dev net_null7 rxd 16", -EINVAL, "bad rxd '16' (expected 32-32768)" },
	{ "port add x dev net_null7 txd 65536", -EINVAL, "bad txd '65536' (expected 32-32768)" },
	{ "port add x dev net_null7 mtu 67", -EINVAL, "bad mtu '67' (expected 68-16000)" },
	{ "port add x dev net_null7 mtu 16001", -EINVAL, "bad mtu '16001'" },
	{ "port add x dev net_null7 speed 10", -EINVAL,
	  "unexpected 'speed' (expected rxq, txq, rxd, txd or mtu)" },
	{ "port add a dev net_null7", -EEXIST, "port a already exists" },
	{ "port add x dev net_null0,no-rx=1", -EBUSY, "is already port a" },
	{ "port add x dev no_such_driver0", RC_ANY_ERROR, "no_such_driver0" },
	{ "port add x dev 0000:ff:1f.7", RC_ANY_ERROR, "0000:ff:1f.7" },
	/* ... and the device those did not take is still there to take. */
	{ "port add x dev net_null7,no-rx=1", 0, NULL },
	{ "port del x", 0, NULL },
	{ "vrf add red", 0, NULL },
	{ "vrf show red", 0, "\"name\":\"red\"" },
	{ "route add 10.0.0.0/8 blackhole vrf red", 0, NULL },
	{ "route show 10.0.0.0/8 vrf red", 0, "\"vrf\":\"red\"" },
	{ "route del 10.0.0.0/8 vrf red", 0, NULL },
	{ "port set b vrf red", 0, NULL },
	{ "port show b", 0, "\"vrf\":\"red\"" },
	{ "route show vrf red", 0, "\"prefix\":\"192.168.2.0/24\"" },
	{ "port set b vrf default", 0, NULL },
	{ "vrf del red", 0, NULL },
	{ "vrf add blue", 0, NULL },

	/* port del / set / show */
	{ "port del", -EINVAL, "missing arguments; usage: port del NAME" },
	{ "port del nope", -ENOENT, "unknown port 'nope'" },
	{ "port del a b", -EINVAL, "unexpected 'b'" },
	{ "port set a", -EINVAL, "missing arguments; usage: port set NAME up|down" },
	{ "port set a sideways", -EINVAL, "unexpected 'sideways' (expected up, down or vrf)" },
	{ "port set nope up", -ENOENT, "unknown port 'nope'" },
	{ "port set a up now", -EINVAL, "unexpected 'now'" },
	{ "port show nope", -ENOENT, "unknown port 'nope'" },
	{ "port show a b", -EINVAL, "unexpected 'b'" },

	/* vrf, and vrf on other commands (VRF blue exists, without interfaces) */
	{ "vrf add", -EINVAL, "missing arguments; usage: vrf add NAME" },
	{ "vrf add blue", -EEXIST, "VRF blue already exists" },
	{ "vrf add default", -EEXIST, "VRF default already exists" },
	{ "vrf add 1x", -EINVAL, "bad VRF name '1x'" },
	{ "vrf add c d", -EINVAL, "unexpected 'd'" },
	{ "vrf del nope", -ENOENT, "unknown VRF 'nope'" },
	{ "vrf del default", -EPERM, "VRF default always exists and cannot be deleted" },
	{ "vrf show nope", -ENOENT, "unknown VRF 'nope'" },
	{ "port set a vrf nope", -ENOENT, "unknown VRF 'nope'" },
	{ "port set a vrf", -EINVAL, "missing value after 'vrf'" },
	{ "port set nope vrf blue", -ENOENT, "unknown port 'nope'" },
	{ "port set a vrf blue now", -EINVAL, "unexpected 'now'" },
	{ "route add 10.0.0.0/8 blackhole vrf nope", -ENOENT, "unknown VRF 'nope'" },
	{ "route add 10.0.0.0/8 via 192.168.1.2 vrf blue", -EINVAL,
	  "gateway 192.168.1.2 is not on a connected network of VRF blue" },
	{ "route add 10.0.0.0/8 via 192.168.1.2 dev a vrf blue", -EINVAL,
	  "interface a is in VRF default, not in VRF blue" },
	{ "route add 10.0.0.0/8 dev a vrf blue", -EINVAL, "interface a is in VRF default" },
	{ "route add 10.0.0.0/8 vrf blue", -EINVAL, "missing arguments" },
	{ "route del 10.0.0.0/8 vrf blue", -ENOENT, "no route 10.0.0.0/8" },
	{ "route del 10.0.0.0/8 vrf", -EINVAL, "missing VRF name after 'vrf'" },
	{ "route show vrf nope", -ENOENT, "unknown VRF 'nope'" },
	{ "route show 192.168.1.0/24 vrf blue", -ENOENT, "no route 192.168.1.0/24 in VRF blue" },
	{ "route load /nonexistent vrf nope", -ENOENT, "unknown VRF 'nope'" },
	{ "neigh show vrf nope", -ENOENT, "unknown VRF 'nope'" },
	{ "neigh show vrf", -EINVAL, "missing VRF name after 'vrf'" },
	{ "neigh show dev nope", -ENOENT, "unknown interface 'nope'" },

	/* worker set */
	{ "worker set", -EINVAL, "missing arguments; usage: worker set LCORE rxq" },
	{ "worker set 1 rxq", -EINVAL, "missing arguments" },
	{ "worker set 4294967296 rxq a:0", -EINVAL, "bad lcore '4294967296'" },
	{ "worker set x rxq a:0", -EINVAL, "bad lcore 'x'" },
	{ "worker set 0 rxq a:0", -EINVAL, "lcore 0 is not a worker" },
	{ "worker set 1 queues a:0", -EINVAL, "unexpected 'queues' (expected 'rxq')" },
	{ "worker set 1 rxq a", -EINVAL, "bad queue 'a' (expected NAME:Q)" },
	{ "worker set 1 rxq nope:0", -EINVAL, "unknown port 'nope'" },
	{ "worker set 1 rxq a:x", -EINVAL, "bad queue number 'x'" },
	{ "worker set 1 rxq a:0,a:99999999999", -EINVAL, "bad queue number '99999999999'" },
	{ "worker set 1 rxq a:5", -EINVAL, "port a has no RX queue 5 (it has 1)" },
	{ "worker set 1 rxq a:0 extra", -EINVAL, "unexpected 'extra'" },
	{ "worker set 1 rxq ,", -EINVAL, "empty queue in ',' (expected NAME:Q[,NAME:Q...])" },
	{ "worker set 1 rxq a:0,", -EINVAL, "empty queue in 'a:0,' (expected NAME:Q[,NAME:Q...])" },
	{ "worker set 1 rxq a:0,a:0", -EINVAL, "queue a:0 given twice" },

	/* addr */
	{ "addr add", -EINVAL, "missing arguments; usage: addr add|del ADDR/LEN dev NAME" },
	{ "addr add 10.0.0.1/24 dev", -EINVAL, "missing arguments" },
	{ "addr add 10.0.0.1 dev a", -EINVAL,
	  "bad prefix '10.0.0.1' (expected ADDR/LEN, IPv4 or IPv6)" },
	{ "addr add 10.0.0.1/33 dev a", -EINVAL, "bad prefix '10.0.0.1/33': length out of range" },
	{ "addr add 10.0.0.1/4294967296 dev a", -EINVAL, "length out of range" },
	{ "addr add 10.0.0.1/24 dev nope", -ENOENT, "unknown interface 'nope'" },
	{ "addr add 10.0.0.1/24 on a", -EINVAL, "unexpected 'on' (expected 'dev NAME')" },
	{ "addr add 10.0.0.1/24 dev a extra", -EINVAL, "unexpected 'extra'" },
	{ "addr add 192.168.1.1/24 dev a", -EEXIST, "address 192.168.1.1 is already configured" },
	{ "addr del 10.0.0.1/24 dev a", -ENOENT,
	  "address 10.0.0.1/24 is not configured on port a" },
	{ "addr del 192.168.1.1/24 dev nope", -ENOENT, "unknown interface 'nope'" },

	/* neigh */
	{ "neigh add 192.168.1.9 lladdr 02:00:00:00:01:09", -EINVAL,
	  "missing arguments; usage: neigh add IP lladdr MAC dev NAME" },
	{ "neigh add bad lladdr 02:00:00:00:01:09 dev a", -EINVAL, "bad address 'bad'" },
	{ "neigh add 192.168.1.9/32 lladdr 02:00:00:00:01:09 dev a", -EINVAL,
	  "bad address '192.168.1.9/32'" },
	{ "neigh add 192.168.1.9 mac 02:00:00:00:01:09 dev a", -EINVAL,
	  "unexpected 'mac' (expected 'lladdr')" },
	{ "neigh add 192.168.1.9 lladdr 02:00:00:00:01 dev a", -EINVAL,
	  "bad MAC address '02:00:00:00:01' (expected xx:xx:xx:xx:xx:xx)" },
	{ "neigh add 192.168.1.9 lladdr 02-00-00-00-01-09 dev a", -EINVAL,
	  "bad MAC address '02-00-00-00-01-09'" },
	{ "neigh add 192.168.1.9 lladdr 02:00:00:00:01:09 dev nope", -ENOENT,
	  "unknown interface 'nope'" },
	{ "neigh add 192.168.1.9 lladdr 02:00:00:00:01:09 dev a extra", -EINVAL,
	  "unexpected 'extra'" },
	{ "neigh del 192.168.1.9", -EINVAL, "missing arguments; usage: neigh del IP dev NAME" },
	{ "neigh del x dev a", -EINVAL, "bad address 'x'" },
	{ "neigh del 192.168.1.99 dev a", -ENOENT, "no neighbor 192.168.1.99 on port a" },
	{ "neigh del 192.168.1.2 dev a extra", -EINVAL, "unexpected 'extra'" },

	/* route add */
	{ "route add 10.0.0.0/8", -EINVAL, "missing arguments; usage: route add PREFIX via IP" },
	{ "route add 10.0.0.1/8 blackhole", -EINVAL,
	  "bad prefix '10.0.0.1/8': host bits set beyond the prefix length" },
	{ "route add 10.0.0.0/33 blackhole", -EINVAL,
	  "bad prefix '10.0.0.0/33': length out of range" },
	{ "route add 10.0.0.0/99999999999999999999999999 blackhole", -EINVAL,
	  "bad prefix '10.0.0.0/99999999999999999999999999': length out of range" },
	{ "route add 10.0.0.0/08 blackhole", -EINVAL, "bad prefix '10.0.0.0/08'" },
	{ "route add 10.0.0.0/8x blackhole", -EINVAL, "bad prefix '10.0.0.0/8x'" },
	{ "route add 10.0.0.0 blackhole", -EINVAL, "bad prefix '10.0.0.0'" },
	{ "route add 2001:db8::1/32 blackhole", -EINVAL, "host bits set" },
	{ "route add 10.0.0.0/8 via", -EINVAL, "missing gateway after 'via'" },
	{ "route add 10.0.0.0/8 via x", -EINVAL, "bad gateway 'x'" },
	{ "route add 10.0.0.0/8 via 192.168.1.2/32", -EINVAL, "bad gateway '192.168.1.2/32'" },
	{ "route add 10.0.0.0/8 via 2001:db8:1::2", -EINVAL,
	  "gateway '2001:db8:1::2' is not of the family of prefix '10.0.0.0/8'" },
	{ "route add 2001:db8:9::/48 via 192.168.1.2", -EINVAL, "is not of the family" },
	{ "route add 10.0.0.0/8 via 192.168.1.2 dev", -EINVAL, "missing port name after 'dev'" },
	{ "route add 10.0.0.0/8 via 192.168.1.2 dev nope", -ENOENT, "unknown interface 'nope'" },
	{ "route add 10.0.0.0/8 via 192.168.1.2 foo", -EINVAL,
	  "unexpected 'foo' (expected 'via', 'dev' or 'blackhole')" },
	{ "route add 10.0.0.0/8 via 192.168.1.2 via 192.168.1.2", -EINVAL,
	  "gateway 192.168.1.2 listed twice" },
	{ "route add 10.0.0.0/8 via 10.77.0.1", -EINVAL,
	  "gateway 10.77.0.1 is not on a connected network" },
	{ "route add 10.0.0.0/8 via 192.168.1.1", -EINVAL,
	  "gateway 192.168.1.1 is a local address" },
	{ "route add 10.0.0.0/8 blackhole extra", -EINVAL, "unexpected 'extra'" },
	{ "route add 10.0.0.0/8 dev a extra", -EINVAL, "unexpected 'extra'" },
	{ "route add 10.0.0.0/8 dev nope", -ENOENT, "unknown interface 'nope'" },
	{ "route add 10.0.0.0/8 dev", -EINVAL, "'dev'" },
	{ "route add 10.0.0.0/8 nexthop 192.168.1.2", -EINVAL, "unexpected 'nexthop'" },

	/* route del / load / show */
	{ "route del", -EINVAL, "missing arguments; usage: route del PREFIX" },
	{ "route del 10.0.0.0/8 x", -EINVAL, "unexpected 'x'" },
	{ "route del 10.0.0.1/8", -EINVAL, "host bits set" },
	{ "route del 10.77.0.0/16", -ENOENT, "no route 10.77.0.0/16" },
	{ "route del 192.168.1.0/24", -EPERM,
	  "192.168.1.0/24 is a connected route: remove it with 'addr del'" },
	{ "route del 192.168.1.1/32", -EPERM,
	  "is a local address route: remove it with 'addr del'" },
	{ "route del 192.168.1.2/32", -EPERM, "is a neighbor route: remove it with 'neigh del'" },
	{ "route load", -EINVAL, "missing arguments; usage: route load FILE" },
	{ "route load /nonexistent/routes.txt", -ENOENT, "cannot open /nonexistent/routes.txt" },
	{ "route load a b", -EINVAL, "unexpected 'b'" },
	{ "route show nope", -EINVAL, "bad prefix 'nope'" },
	{ "route show 10.77.0.0/16", -ENOENT, "no route 10.77.0.0/16" },
	{ "route show 10.77.0.1", -ENOENT, "no route to 10.77.0.1" },
	{ "route show 192.168.1.77 vrf blue", -ENOENT, "no route to 192.168.1.77 in VRF blue" },
	{ "route show 10.0.0.0/8 b", -EINVAL, "unexpected 'b'" },

	/* Extra tokens after commands without arguments. */
	{ "show stats extra", -EINVAL, "unexpected 'extra'" },
	{ "show drops -v", -EINVAL, "unexpected '-v'" },
	{ "stats reset now", -EINVAL, "unexpected 'now'" },
	{ "nexthop show x", -EINVAL, "unexpected 'x'" },
	{ "addr show x", -EINVAL, "unexpected 'x'" },
	{ "neigh show x", -EINVAL, "unexpected 'x'" },
	{ "help me", -EINVAL, "unexpected 'me'" },

	/* Quotes. */
	{ "route add \"10.0.0.0/8 blackhole", -EINVAL, "unterminated quote" },
	{ "route add 10.0.0.0/8 \"blackhole", -EINVAL, "unterminated quote" },
	{ "\"route add\" 10.0.0.0/8 blackhole", -EINVAL, "unknown command 'route add'" },

	/* Binary junk: the error quotes it as '?' (printable ASCII only). */
	{ "\x01\x02\x03", -EINVAL, "unknown command '?" "?" "?'" },
	{ "\x1b[2J\x1b[H", -EINVAL, "unknown command" },
	{ "\xff\xfe\xfd", -EINVAL, "unknown command '?" "?" "?'" },
	{ "route add \xff/8 blackhole", -EINVAL, "bad prefix '?/8'" },
	{ "route \x7f", -EINVAL, "unknown word '?' after 'route'" },
	{ "port add \x07 dev net_null7", -EINVAL, "bad port name '?'" },
	{ "neigh add 192.168.1.9 lladdr \xc3\xa9:00:00:00:00:09 dev a", -EINVAL,
	  "bad MAC address" },
};

/* Lines built at run time: token counts, sizes. */
static struct grammar_row *gen_rows;
static size_t n_gen_rows;

static void
add_gen_row(char *line, int rc, const char *substr)
{
	gen_rows = realloc(gen_rows, (n_gen_rows + 1) * sizeof(*gen_rows));
	if (gen_rows == NULL)
		abort();
	gen_rows[n_gen_rows++] = (struct grammar_row){ line, rc, substr };
}

static char *
repeat(const char *head, const char *unit, unsigned int n, const char *tail)
{
	size_t len = strlen(head) + n * strlen(unit) + strlen(tail) + 1, o;
	char *s = malloc(len);

	if (s == NULL)
		abort();
	o = (size_t)snprintf(s, len, "%s", head);
	for (unsigned int i = 0; i < n; i++)
		o += (size_t)snprintf(s + o, len - o, "%s", unit);
	snprintf(s + o, len - o, "%s", tail);
	return s;
}

static void
build_gen_rows(void)
{
	char *s;
	size_t o;

	/* 65 tokens: refused before any word is looked at. */
	add_gen_row(repeat("route show", " x", 63, ""), -EINVAL, "too many tokens (at most 64)");
	add_gen_row(repeat("frob", " x", 200, ""), -EINVAL, "too many tokens (at most 64)");
	/* 64 tokens fit; then 17 or more gateways are too many. */
	s = malloc(2048);
	o = (size_t)snprintf(s, 2048, "route add 10.0.0.0/8");
	for (unsigned int i = 0; i < 30; i++)
		o += (size_t)snprintf(s + o, 2048 - o, " via 192.168.1.%u", 10 + i);
	snprintf(s + o, 2048 - o, " via");
	add_gen_row(s, -EINVAL, "too many gateways (at most 16)");
	/* 17 gateways. */
	s = malloc(2048);
	o = (size_t)snprintf(s, 2048, "route add 10.0.0.0/8");
	for (unsigned int i = 0; i < 17; i++)
		o += (size_t)snprintf(s + o, 2048 - o, " via 192.168.1.%u", 10 + i);
	add_gen_row(s, -EINVAL, "too many gateways (at most 16)");
	/* A 10000-byte word: named, cut to fit the message. */
	add_gen_row(repeat("", "A", 10000, ""), -EINVAL, "unknown command 'AAAAAAAA");
	add_gen_row(repeat("route ", "B", 10000, ""), -EINVAL, "unknown word 'BBBBBBBB");
	add_gen_row(repeat("route add ", "1", 5000, "/8 blackhole"), -EINVAL, "bad prefix '1111");
	add_gen_row(repeat("port add x dev net_null7,", "k", 1100, ""), -E2BIG,
		    "device arguments too long");
	/* Lots of blanks around a good command. */
	add_gen_row(repeat("", " ", 5000, "route add 10.0.0.0/8 blackhole"), 0, NULL);
	add_gen_row(repeat("route del 10.0.0.0/8", "\t", 5000, ""), 0, NULL);
}

static int
group_setup(void **state)
{
	if (nfv_test_eal_up(&limits) != 0)
		return -1;
	for (size_t i = 0; i < RTE_DIM(setup_lines); i++) {
		char err[NFV_ERR_LEN];

		if (nfv_test_exec(setup_lines[i], NULL, err) != 0) {
			print_message("setup '%s': %s\n", setup_lines[i], err);
			return -1;
		}
	}
	return 0;
}

static void
test_row(void **state)
{
	const struct grammar_row *row = *state;
	json_t *before = nfv_test_snapshot(), *data = NULL;
	char err[NFV_ERR_LEN], why[3 * NFV_ERR_LEN], *dump = NULL;
	bool ok;
	int rc;

	rc = nfv_test_exec(row->line, &data, err);
	/* The error always fits its buffer, terminated. */
	assert_true(strlen(err) < NFV_ERR_LEN);
	if (row->rc == 0) {
		if (data != NULL)
			dump = json_dumps(data, JSON_COMPACT | JSON_SORT_KEYS);
		ok = rc == 0 &&
		     (row->substr == NULL || (dump != NULL && strstr(dump, row->substr) != NULL));
		snprintf(why, sizeof(why), "rc %d '%s', result %.300s; expected 0 and '%s'", rc,
			 err, dump ? dump : "(none)", row->substr ? row->substr : "");
		free(dump);
		json_decref(data);
		json_decref(before);
		nfv_test_verdict(ok, why);
		return;
	}
	ok = (row->rc == RC_ANY_ERROR ? rc < 0 : rc == row->rc) && strstr(err, row->substr) != NULL;
	snprintf(why, sizeof(why), "rc %d '%s'; expected %d and '%s'", rc, err, row->rc,
		 row->substr);
	if (rc == 0) {
		/* Wrongly accepted: the row fails; the state may have changed,
		 * which is the finding. */
		json_decref(data);
		json_decref(before);
		nfv_test_verdict(0, why);
		return;
	}
	assert_null(data);
	nfv_test_assert_unchanged(before, "tables after the failed command");
	json_decref(before);
	nfv_test_verdict(ok, why);
}

/* The API socket's reply line: JSON, ok/error/data/text, for both request
 * forms, and for requests that are not UTF-8 (the error still names the
 * token, its bytes made printable). */
static void
test_api_reply(void **state)
{
	static const struct {
		const char *line;
		bool ok;
		const char *substr; /* in "error" (not ok) or "text" (ok) */
	} reqs[] = {
		{ "route show 192.168.1.0/24", true, "connected" },
		{ "{\"cmd\": \"route show 192.168.1.0/24\"}", true, "connected" },
		{ "{\"cmd\": \"frob\"}", false, "unknown command 'frob'" },
		{ "{\"cmd\": 5}", false, "bad request" },
		{ "{\"command\": \"route show\"}", false, "bad request" },
		{ "{not json", false, "bad request" },
		{ "frob", false, "unknown command 'frob'" },
		{ "stats reset", true, "" },
		{ "\x01\x02", false, "unknown command '?" "?'" },
		{ "\xff\xfe", false, "unknown command '?" "?'" },
		{ "route add \xc3\x28/8 blackhole", false, "bad prefix '?(/8'" },
		{ "{\"cmd\": \"route show \\u00e9\"}", false, "bad prefix '?" "?'" },
	};

	for (size_t i = 0; i < RTE_DIM(reqs); i++) {
		int rc = 1;
		char *out = nfv_api_handle_line(reqs[i].line, &rc);
		json_error_t e;
		json_t *reply;
		const char *field;

		assert_non_null(out);
		assert_true(strlen(out) > 0 && out[strlen(out) - 1] == '\n');
		assert_ptr_equal(strchr(out, '\n'), out + strlen(out) - 1); /* one line */
		reply = json_loads(out, 0, &e);
		if (reply == NULL)
			fail_msg("reply to request %zu is not JSON: %s (%s)", i, out, e.text);
		assert_int_equal(json_is_true(json_object_get(reply, "ok")), reqs[i].ok);
		assert_true(reqs[i].ok ? rc == 0 : rc < 0);
		field = json_string_value(json_object_get(reply, reqs[i].ok ? "text" : "error"));
		assert_non_null(field);
		if (reqs[i].ok)
			assert_non_null(json_object_get(reply, "data"));
		if (strstr(field, reqs[i].substr) == NULL)
			fail_msg("request %zu: '%s' does not contain '%s'", i, field,
				 reqs[i].substr);
		json_decref(reply);
		free(out);
	}
}

static void
test_shutdown(void **state)
{
	nfv_test_eal_down();
}

int
main(void)
{
	struct nfv_test_list l = { 0 };
	int rc;

	build_gen_rows();
	for (size_t i = 0; i < RTE_DIM(rows); i++)
		nfv_test_add_row(&l, "line", rows[i].line, test_row, (void *)&rows[i]);
	for (size_t i = 0; i < n_gen_rows; i++)
		nfv_test_add_row(&l, "line", gen_rows[i].line, test_row,
			     (void *)&gen_rows[i]);
	nfv_test_add(&l, "API reply lines", test_api_reply, NULL);
	nfv_test_add(&l, "shutdown: workers, ports, tables, EAL", test_shutdown, NULL);
	rc = nfv_test_run("grammar", &l, group_setup, nfv_test_group_teardown);
	for (size_t i = 0; i < n_gen_rows; i++)
		free((char *)(uintptr_t)gen_rows[i].line);
	free(gen_rows);
	return rc;
}
