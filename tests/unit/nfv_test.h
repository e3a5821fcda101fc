/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers shared by the cmocka suites: one cmocka test per table row (so a
 * failing row is named in the report), printable names for rows holding
 * binary junk, and a seeded random generator. A row whose expectation the
 * code does not meet fails; nothing is skipped.
 */
#ifndef NFV_TEST_H
#define NFV_TEST_H

#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

struct nfv_test_list {
	struct CMUnitTest *tests;
	size_t n;
	size_t cap;
};

/* A test name from a prefix and a row's text, with bytes that a terminal
 * would not print shown as \xNN and long text cut; malloc'ed. */
static inline char *
nfv_test_name(const char *prefix, const char *text)
{
	size_t cap = strlen(prefix) + 3 + 4 * 72 + 4;
	char *name = malloc(cap);
	size_t o;

	if (name == NULL)
		abort();
	o = (size_t)snprintf(name, cap, "%s: ", prefix);
	for (size_t i = 0; text != NULL && text[i] != '\0'; i++) {
		unsigned char c = (unsigned char)text[i];

		if (i == 72) {
			o += (size_t)snprintf(name + o, cap - o, "...");
			break;
		}
		if (c >= 0x20 && c < 0x7f)
			name[o++] = (char)c;
		else
			o += (size_t)snprintf(name + o, cap - o, "\\x%02x", c);
	}
	name[o] = '\0';
	return name;
}

/* Adds a test; the list keeps a copy of name. */
static inline void
nfv_test_add(struct nfv_test_list *l, const char *name, CMUnitTestFunction fn, void *state)
{
	char *copy = strdup(name);

	if (copy == NULL)
		abort();
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 64;
		l->tests = realloc(l->tests, l->cap * sizeof(*l->tests));
		if (l->tests == NULL)
			abort();
	}
	l->tests[l->n++] = (struct CMUnitTest){
		.name = copy,
		.test_func = fn,
		.initial_state = state,
	};
}

/* Adds a test named after a row's text. */
static inline void
nfv_test_add_row(struct nfv_test_list *l, const char *prefix, const char *text,
		 CMUnitTestFunction fn, void *state)
{
	char *name = nfv_test_name(prefix, text);

	nfv_test_add(l, name, fn, state);
	free(name);
}

/* Adds one test per row of a table: state points at the row. */
#define NFV_TEST_ROWS(list, prefix, fn, rows, text_field) \
	do { \
		for (size_t _i = 0; _i < sizeof(rows) / sizeof((rows)[0]); _i++) \
			nfv_test_add_row((list), (prefix), (rows)[_i].text_field, (fn), \
					 (void *)&(rows)[_i]); \
	} while (0)

static inline int
nfv_test_run(const char *group, struct nfv_test_list *l, CMFixtureFunction setup,
	     CMFixtureFunction teardown)
{
	int failed = _cmocka_run_group_tests(group, l->tests, l->n, setup, teardown);

	for (size_t i = 0; i < l->n; i++)
		free((char *)(uintptr_t)l->tests[i].name);
	free(l->tests);
	l->tests = NULL;
	l->n = l->cap = 0;
	return failed == 0 ? 0 : 1;
}

/* Ends a row check. ok: the row met its expectation; why: what differed,
 * the failure message when not ok. */
static inline void
nfv_test_verdict(int ok, const char *why)
{
	if (!ok)
		fail_msg("%s", why);
}

/* xorshift64*: reproducible from the seed printed at start
 * (NFV_TEST_SEED=N to replay). */
static uint64_t nfv_test_rng_state = 0x9e3779b97f4a7c15ull;

static inline void
nfv_test_seed(void)
{
	const char *s = getenv("NFV_TEST_SEED");

	if (s != NULL)
		nfv_test_rng_state = strtoull(s, NULL, 0);
	if (nfv_test_rng_state == 0)
		nfv_test_rng_state = 1;
	print_message("random seed %llu (NFV_TEST_SEED to replay)\n",
		      (unsigned long long)nfv_test_rng_state);
}

static inline uint64_t
nfv_test_rand(void)
{
	uint64_t x = nfv_test_rng_state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	nfv_test_rng_state = x;
	return x * 0x2545f4914f6cdd1dull;
}

#endif
