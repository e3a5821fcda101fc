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
#include <fnmatch.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
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
	/* A test that ends what the others need (the EAL: it cannot come back
	 * up in the same process): when selected, it runs last. */
	const char *last;
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

/* Adds a test with its own setup and teardown (either may be NULL): cmocka
 * runs the teardown even when the test fails. The list keeps a copy of
 * name. */
static inline void
nfv_test_add_fixture(struct nfv_test_list *l, const char *name, CMUnitTestFunction fn,
		     CMFixtureFunction setup, CMFixtureFunction teardown)
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
		.setup_func = setup,
		.teardown_func = teardown,
	};
}

/* Adds a test; state is its initial state (a table row). */
static inline void
nfv_test_add(struct nfv_test_list *l, const char *name, CMUnitTestFunction fn, void *state)
{
	nfv_test_add_fixture(l, name, fn, NULL, NULL);
	l->tests[l->n - 1].initial_state = state;
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

/*
 * The tests named on the command line (argv[0] is the program), in the order
 * named: each argument is a test name or a pattern (fnmatch: *, ?, [...])
 * and brings the tests it matches, in list order, that no earlier argument
 * brought. No argument: every test. --reverse runs the selection backwards;
 * --list prints the names. l->last, when selected, stays last. Returns 0 to
 * run, 1 when there is nothing to run (--list), 2 on a usage error.
 */
static inline int
nfv_test_select(struct nfv_test_list *l, int argc, char **argv)
{
	struct CMUnitTest *sel = calloc(l->n ? l->n : 1, sizeof(*sel));
	bool *taken = calloc(l->n ? l->n : 1, sizeof(*taken));
	bool reverse = false, named = false;
	size_t n = 0;

	if (sel == NULL || taken == NULL)
		abort();
	for (int a = 1; a < argc; a++) {
		size_t matched = 0;

		if (strcmp(argv[a], "--reverse") == 0) {
			reverse = true;
			continue;
		}
		if (strcmp(argv[a], "--list") == 0) {
			for (size_t i = 0; i < l->n; i++)
				printf("%s\n", l->tests[i].name);
			free(sel);
			free(taken);
			return 1;
		}
		if (argv[a][0] == '-') {
			fprintf(stderr, "usage: %s [--reverse] [--list] [TEST|PATTERN]...\n",
				argv[0]);
			free(sel);
			free(taken);
			return 2;
		}
		named = true;
		for (size_t i = 0; i < l->n; i++) {
			if (fnmatch(argv[a], l->tests[i].name, 0) != 0)
				continue;
			matched++;
			if (!taken[i]) {
				taken[i] = true;
				sel[n++] = l->tests[i];
			}
		}
		if (matched == 0) {
			fprintf(stderr, "%s: no test matches '%s' (--list shows them)\n", argv[0],
				argv[a]);
			free(sel);
			free(taken);
			return 2;
		}
	}
	if (!named) {
		memcpy(sel, l->tests, l->n * sizeof(*sel));
		memset(taken, 1, l->n * sizeof(*taken));
		n = l->n;
	}
	for (size_t i = 0; reverse && i < n / 2; i++) {
		struct CMUnitTest t = sel[i];

		sel[i] = sel[n - 1 - i];
		sel[n - 1 - i] = t;
	}
	for (size_t i = 0; l->last != NULL && i + 1 < n; i++) {
		if (strcmp(sel[i].name, l->last) == 0) {
			struct CMUnitTest t = sel[i];

			memmove(&sel[i], &sel[i + 1], (n - 1 - i) * sizeof(*sel));
			sel[n - 1] = t;
			break;
		}
	}
	/* The list keeps the names it owns: the ones left out are freed. */
	for (size_t i = 0; i < l->n; i++)
		if (!taken[i])
			free((char *)(uintptr_t)l->tests[i].name);
	free(l->tests);
	free(taken);
	l->tests = sel;
	l->n = l->cap = n;
	return 0;
}

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
