/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A real nfvd core for the suites that drive the command grammar: an EAL
 * without hugepages or shared files (--no-huge --no-shconf) on lcores 0
 * (control, this thread) and 1 (one worker, idle while no port has
 * packets), the mbuf metadata, the IP tables with chosen limits, the worker
 * started and polling enabled, as nfvd's main() does. Needs root.
 */
#ifndef NFV_TEST_EAL_H
#define NFV_TEST_EAL_H

#include <jansson.h>

#include "modules/ip/ip.h"

/* 0, or a negative errno after printing what failed. */
int nfv_test_eal_up(const struct nfv_limits *limits);
/* nfvd's exit sequence; fails the running test when a step does (mbufs not
 * back in their pools, EAL cleanup error). */
void nfv_test_eal_down(void);
bool nfv_test_eal_is_up(void);
/* cmocka group teardown: the EAL down, if the last test did not take it down. */
int nfv_test_group_teardown(void **state);

/* Runs one command line. data (may be NULL) receives the result object, to
 * json_decref; err (NFV_ERR_LEN bytes, may be NULL) the error text. */
int nfv_test_exec(const char *line, json_t **data, char *err);
/* Runs a printf-formatted command line that must succeed; returns its
 * result object (to json_decref, may be NULL). */
json_t *nfv_test_ok(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Runs a command line that must fail with rc and an error containing
 * err_substr, and checks that the tables did not change. */
void nfv_test_fails(const char *line, int rc, const char *err_substr);

/* Everything a command may change that the grammar can show: routes, next
 * hops (ids, reference counts), addresses, neighbors, port names. */
json_t *nfv_test_snapshot(void);
/* Fails with both dumps when a and b differ. */
void nfv_test_assert_json_equal(const json_t *a, const json_t *b, const char *what);
void nfv_test_assert_unchanged(const json_t *before, const char *what);

/* Fails unless the tables are empty: no route, next hop, address, neighbor
 * or port (what a fresh nfvd has before its startup file). */
void nfv_test_assert_empty(const char *what);
/* Empties the tables through the command grammar (static routes, neighbors,
 * addresses, the static routes an address hid, ports), then checks that
 * nothing is left, next hops included: a reference a command leaked fails
 * here. */
void nfv_test_clear_tables(void);

/* The next-hop id the active FIB gives for an address (0: no route),
 * after checking that both tables of the FIB pair agree. */
uint32_t nfv_test_lookup(const char *ip);

/* Writes text to a new temporary file; returns its path (to free and
 * unlink). */
char *nfv_test_tmpfile(const char *text);

#endif
