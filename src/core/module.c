/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Module registry: modules register from constructors in any order; init
 * runs them in depends-on order (a depth-first walk that refuses cycles
 * and unknown names), fini in the reverse order.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_debug.h>

#include "module.h"
#include "log.h"

#define NFV_MODULES_MAX 64

static struct nfv_module *registered[NFV_MODULES_MAX];
static unsigned int n_registered;
static struct nfv_module *order[NFV_MODULES_MAX];
static unsigned int n_ordered;

void
nfv_module_register(struct nfv_module *m)
{
	if (n_registered == NFV_MODULES_MAX || nfv_module_by_name(m->name) != NULL)
		rte_panic("module %s: registered twice or too many modules\n", m->name);
	registered[n_registered++] = m;
}

struct nfv_module *
nfv_module_by_name(const char *name)
{
	for (unsigned int i = 0; i < n_registered; i++)
		if (strcmp(registered[i]->name, name) == 0)
			return registered[i];
	return NULL;
}

enum { UNSEEN, VISITING, DONE };

static int
visit(struct nfv_module *m, uint8_t *state, char *err, size_t len)
{
	unsigned int idx = 0;
	const char *p;

	while (registered[idx] != m)
		idx++;
	if (state[idx] == DONE)
		return 0;
	if (state[idx] == VISITING) {
		snprintf(err, len, "module %s depends on itself (a dependency cycle)", m->name);
		return -ELOOP;
	}
	state[idx] = VISITING;
	for (p = m->depends_on; p != NULL && *p != '\0';) {
		char dep[64];
		size_t n = strcspn(p, " ");
		struct nfv_module *d;
		int rc;

		if (n > 0) {
			snprintf(dep, sizeof(dep), "%.*s", (int)n, p);
			d = nfv_module_by_name(dep);
			if (d == NULL) {
				snprintf(err, len, "module %s depends on unknown module %s",
					 m->name, dep);
				return -ENOENT;
			}
			rc = visit(d, state, err, len);
			if (rc < 0)
				return rc;
		}
		p += n;
		p += strspn(p, " ");
	}
	state[idx] = DONE;
	order[n_ordered++] = m;
	return 0;
}

bool nfv_eal_secondary_ok;

int
nfv_modules_init(char *err, size_t len)
{
	uint8_t state[NFV_MODULES_MAX] = { 0 };
	int rc;

	n_ordered = 0;
	for (unsigned int i = 0; i < n_registered; i++) {
		rc = visit(registered[i], state, err, len);
		if (rc < 0)
			return rc;
	}
	for (unsigned int i = 0; i < n_ordered; i++) {
		struct nfv_module *m = order[i];

		if (m->init != NULL) {
			rc = m->init();
			if (rc < 0) {
				snprintf(err, len, "module %s: initialisation failed: %s", m->name,
					 strerror(-rc));
				nfv_modules_fini();
				return rc;
			}
		}
		m->initialised = true;
		NFV_LOG(DEBUG, "module %s initialised", m->name);
	}
	return 0;
}

void
nfv_modules_stop(void)
{
	for (unsigned int i = n_ordered; i-- > 0;) {
		struct nfv_module *m = order[i];

		if (m->initialised && m->stop != NULL)
			m->stop();
	}
}

void
nfv_modules_fini(void)
{
	for (unsigned int i = n_ordered; i-- > 0;) {
		struct nfv_module *m = order[i];

		if (!m->initialised)
			continue;
		if (m->fini != NULL)
			m->fini();
		m->initialised = false;
	}
}

void
nfv_modules_walk(nfv_module_cb cb, void *arg)
{
	if (n_ordered == n_registered) {
		for (unsigned int i = 0; i < n_ordered; i++)
			cb(order[i], arg);
		return;
	}
	for (unsigned int i = 0; i < n_registered; i++)
		cb(registered[i], arg);
}

int
nfv_module_option_u32(const char *name, const char *value, uint32_t min, uint32_t max,
		      uint32_t *out, char *err, size_t len)
{
	char *end = NULL;
	unsigned long long v = value != NULL ? strtoull(value, &end, 10) : 0;

	if (value == NULL || *value == '\0' || *value == '-' || *end != '\0' || v < min ||
	    v > max) {
		RTE_SET_USED(name);
		snprintf(err, len, "expected %u-%u, not '%s'", min, max,
			 value != NULL ? value : "");
		return -EINVAL;
	}
	*out = (uint32_t)v;
	return 0;
}
