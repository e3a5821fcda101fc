/* SPDX-License-Identifier: BSD-3-Clause */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_log.h>

#include "nfv_test.h"
#include "nfv_test_eal.h"
#include "api/cmd.h"
#include "api/parse.h"
#include "core/worker.h"
#include "core/meta.h"
#include "modules/infra/port.h"
#include "modules/ip/fib6_trie.h"

/* nfvd defines its log type in daemon/main.c, outside the core library;
 * a weak copy here gives way to a strong one if it ever moves in. */
__attribute__((weak)) int nfv_logtype = RTE_LOGTYPE_USER1;

static bool eal_up;
static bool tables_up;
static bool workers_up;

bool
nfv_test_eal_is_up(void)
{
	return eal_up;
}

int
nfv_test_eal_up(const struct nfv_limits *limits)
{
	char prefix[64];
	/* --in-memory is refused with --no-huge in DPDK 22.11 ("--legacy-mem is
	 * not compatible with --in-memory"): --no-shconf keeps the run free of
	 * shared files instead, --no-telemetry of a socket. */
	char *argv[] = {
		"nfvd-unit", "-l", "0,1", "--no-huge", "-m", "1024", "--no-shconf", "--no-pci",
		"--no-telemetry", "--file-prefix", prefix, NULL,
	};
	int argc = (int)RTE_DIM(argv) - 1, rc;

	snprintf(prefix, sizeof(prefix), "nfvd-unit-%d", (int)getpid());
	if (geteuid() != 0)
		print_message("warning: not root; the EAL may refuse to start\n");
	rc = rte_eal_init(argc, argv);
	if (rc < 0) {
		print_message("rte_eal_init: %s\n", rte_strerror(rte_errno));
		return -rte_errno;
	}
	eal_up = true;
	rc = rte_log_register_type_and_pick_level("nfvd", RTE_LOG_WARNING);
	if (rc >= 0)
		nfv_logtype = rc;
	rc = nfv_meta_register();
	if (rc < 0) {
		print_message("nfv_meta_register: %d\n", rc);
		return rc;
	}
	rc = nfv_ip_init(limits, (int)rte_socket_id());
	if (rc < 0) {
		print_message("nfv_ip_init: %d\n", rc);
		return rc;
	}
	tables_up = true;
	rc = nfv_workers_init(NFV_BURST_DEFAULT, NFV_BURST_DEFAULT);
	if (rc < 0) {
		print_message("nfv_workers_init: %d\n", rc);
		return rc;
	}
	rc = nfv_workers_start();
	if (rc < 0) {
		print_message("nfv_workers_start: %d\n", rc);
		return rc;
	}
	workers_up = true;
	return nfv_workers_enable_polling();
}

void
nfv_test_eal_down(void)
{
	char dir[PATH_MAX];
	unsigned int lost;
	int rc;

	if (!eal_up)
		return;
	snprintf(dir, sizeof(dir), "%s", rte_eal_get_runtime_dir());
	if (workers_up)
		nfv_workers_stop();
	workers_up = false;
	lost = nfv_ports_close_all();
	if (tables_up)
		nfv_ip_fini();
	tables_up = false;
	rc = rte_eal_cleanup();
	eal_up = false;
	(void)rmdir(dir); /* empty with --no-shconf: leave nothing behind */
	assert_int_equal(lost, 0);
	assert_int_equal(rc, 0);
}

int
nfv_test_exec(const char *line, json_t **data, char *err)
{
	struct nfv_reply r;
	int rc;

	bool has_err;

	memset(&r, 0, sizeof(r));
	rc = nfv_cmd_exec(line, &r);
	has_err = r.err[0] != '\0';
	if (err != NULL)
		snprintf(err, NFV_ERR_LEN, "%s", r.err);
	if (data != NULL) {
		*data = r.data;
		r.data = NULL;
	}
	nfv_reply_clear(&r);
	/* Every failure says why. */
	if (rc < 0 && !has_err)
		fail_msg("'%s' failed (%d) without an error message", line, rc);
	return rc;
}

json_t *
nfv_test_ok(const char *fmt, ...)
{
	char line[4096], err[NFV_ERR_LEN];
	json_t *data = NULL;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	rc = nfv_test_exec(line, &data, err);
	if (rc != 0)
		fail_msg("'%s' failed (%d): %s", line, rc, err);
	return data;
}

static json_t *
show(const char *line)
{
	json_t *data = nfv_test_ok("%s", line);

	assert_non_null(data);
	return data;
}

json_t *
nfv_test_snapshot(void)
{
	json_t *ports = json_array();

	for (unsigned int i = 0; i < RTE_MAX_ETHPORTS; i++)
		if (nfv_ports[i].used)
			json_array_append_new(ports, json_string(nfv_ports[i].name));
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:i, s:i, s:i}",
			 "routes", show("route show"),
			 "nexthops", show("nexthop show"),
			 "addrs", show("addr show"),
			 "neighs", show("neigh show"),
			 "ports", ports,
			 "n_routes4", (json_int_t)nfv_route_count(AF_INET),
			 "n_routes6", (json_int_t)nfv_route_count(AF_INET6),
			 "n_nexthops", (json_int_t)nfv_nh_count());
}

void
nfv_test_assert_json_equal(const json_t *a, const json_t *b, const char *what)
{
	char *sa, *sb;

	if (json_equal(a, b))
		return;
	sa = json_dumps(a, JSON_SORT_KEYS | JSON_INDENT(1));
	sb = json_dumps(b, JSON_SORT_KEYS | JSON_INDENT(1));
	/* Not print_message: cmocka cuts its messages at a few hundred bytes. */
	fflush(stdout);
	fprintf(stderr, "%s: expected\n%s\ngot\n%s\n", what, sa ? sa : "?", sb ? sb : "?");
	fflush(stderr);
	free(sa);
	free(sb);
	fail_msg("%s: JSON differs", what);
}

void
nfv_test_assert_unchanged(const json_t *before, const char *what)
{
	json_t *now = nfv_test_snapshot();

	nfv_test_assert_json_equal(before, now, what);
	json_decref(now);
}

void
nfv_test_fails(const char *line, int rc_expected, const char *err_substr)
{
	json_t *before = nfv_test_snapshot(), *data = NULL;
	char err[NFV_ERR_LEN], what[NFV_ERR_LEN + 64];
	int rc;

	rc = nfv_test_exec(line, &data, err);
	if (rc != rc_expected)
		fail_msg("'%s': rc %d (%s), expected %d", line, rc, err, rc_expected);
	if (strstr(err, err_substr) == NULL)
		fail_msg("'%s': error '%s' does not contain '%s'", line, err, err_substr);
	assert_null(data);
	snprintf(what, sizeof(what), "tables after failed '%s'", line);
	nfv_test_assert_unchanged(before, what);
	json_decref(before);
}

void
nfv_test_assert_empty(const char *what)
{
	json_t *want = json_pack("{s:{s:[]}, s:{s:[]}, s:{s:[]}, s:{s:[]}, s:[], s:i, s:i, s:i}",
				 "routes", "routes", "nexthops", "nexthops",
				 "addrs", "addresses", "neighs", "neighbors", "ports",
				 "n_routes4", (json_int_t)0, "n_routes6", (json_int_t)0,
				 "n_nexthops", (json_int_t)0);

	assert_non_null(want);
	nfv_test_assert_unchanged(want, what);
	json_decref(want);
}

/* Runs "VERB ARGS" for each entry of the list "show" gives under key: args
 * builds the arguments from an entry (false: skip it). */
static void
for_each_shown(const char *show_line, const char *key, const char *verb,
	       bool (*args)(const json_t *entry, char *buf, size_t len))
{
	json_t *data = nfv_test_ok("%s", show_line), *e;
	char buf[256];
	size_t i;

	assert_non_null(data);
	json_array_foreach(json_object_get(data, key), i, e)
		if (args(e, buf, sizeof(buf)))
			json_decref(nfv_test_ok("%s %s", verb, buf));
	json_decref(data);
}

static bool
static_route_args(const json_t *r, char *buf, size_t len)
{
	if (strcmp(json_string_value(json_object_get(r, "source")), "static") != 0)
		return false;
	snprintf(buf, len, "%s", json_string_value(json_object_get(r, "prefix")));
	return true;
}

static bool
addr_args(const json_t *a, char *buf, size_t len)
{
	snprintf(buf, len, "%s dev %s", json_string_value(json_object_get(a, "address")),
		 json_string_value(json_object_get(a, "dev")));
	return true;
}

static bool
port_args(const json_t *p, char *buf, size_t len)
{
	snprintf(buf, len, "%s", json_string_value(json_object_get(p, "name")));
	return true;
}

void
nfv_test_clear_tables(void)
{
	for_each_shown("route show", "routes", "route del", static_route_args);
	/* A neighbor is deleted by address and port, as an address is. */
	for_each_shown("neigh show", "neighbors", "neigh del", addr_args);
	for_each_shown("addr show", "addresses", "addr del", addr_args);
	/* Static routes behind a connected or local one show once it is gone. */
	for_each_shown("route show", "routes", "route del", static_route_args);
	for_each_shown("port show", "ports", "port del", port_args);
	nfv_test_assert_empty("tables after deleting every route, neighbor, address and port");
}

uint32_t
nfv_test_lookup(const char *text)
{
	struct nfv_ip ip;
	uint64_t nh[2];

	if (nfv_parse_ip(text, &ip) != 0)
		fail_msg("bad address in test: %s", text);
	if (ip.family == AF_INET) {
		uint32_t a = rte_be_to_cpu_32(ip.v4);

		for (unsigned int t = 0; t < 2; t++)
			assert_int_equal(rte_fib_lookup_bulk(nfv_fib4.tbl[t], &a, &nh[t], 1), 0);
		if (nh[0] != nh[1])
			fail_msg("%s: the FIB pair disagrees (%" PRIu64 " / %" PRIu64 ")", text,
				 nh[0], nh[1]);
		assert_int_equal(rte_fib_lookup_bulk(nfv_fib4_active(), &a, &nh[0], 1), 0);
	} else {
		uint8_t a[1][RTE_FIB6_IPV6_ADDR_SIZE];

		memcpy(a[0], ip.v6, 16);
		for (unsigned int t = 0; t < 2; t++) {
			assert_int_equal(rte_fib6_lookup_bulk(nfv_fib6.tbl[t], a, &nh[t], 1), 0);
			/* ip6_fast's inline read of the table gives the same. */
			if (nfv_fib6.trie[t] != NULL && nfv_trie6_get(nfv_fib6.trie[t], a[0]) != nh[t])
				fail_msg("%s: table %u gives %" PRIu64 ", its inline read %" PRIu64,
					 text, t, nh[t], nfv_trie6_get(nfv_fib6.trie[t], a[0]));
		}
		if (nh[0] != nh[1])
			fail_msg("%s: the FIB pair disagrees (%" PRIu64 " / %" PRIu64 ")", text,
				 nh[0], nh[1]);
		assert_int_equal(rte_fib6_lookup_bulk(nfv_fib6_active(), a, &nh[0], 1), 0);
	}
	nh[0] = nfv_fib_nh_id(nh[0]);
	assert_true(nh[0] < NFV_NH_MAX);
	/* A FIB result always names a published next hop. */
	if (nh[0] != 0 && nfv_nh_get((uint32_t)nh[0]) == NULL)
		fail_msg("%s: FIB gives next hop %" PRIu64 ", which is not published", text, nh[0]);
	return (uint32_t)nh[0];
}

char *
nfv_test_tmpfile(const char *text)
{
	char *path = strdup("/tmp/nfvd-unit-XXXXXX");
	int fd;
	size_t len = strlen(text);

	assert_non_null(path);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
	return path;
}

int
nfv_test_group_teardown(void **state)
{
	(void)state;
	if (nfv_test_eal_is_up())
		nfv_test_eal_down();
	return 0;
}
