/* SPDX-License-Identifier: BSD-3-Clause */
/* Attaching ACLs and policers to interfaces (see ifattach.h). */
#include <errno.h>
#include <stdio.h>

#include "core/arc.h"
#include "core/worker.h"
#include "modules/acl/ifattach.h"
#include "modules/infra/iface.h"

static const char *const dir_names[2] = { "in", "out" };

static void **
slot(const struct nfv_ifattach *k, unsigned int dir, uint16_t iface)
{
	return &k->bound[dir * NFV_IFACE_MAX + iface];
}

static uint32_t *
count(const struct nfv_ifattach *k, void *obj)
{
	return (uint32_t *)((char *)obj + k->n_attached_off);
}

static int
features_set(const struct nfv_ifattach *k, uint16_t iface, unsigned int dir, bool on,
	     char *err)
{
	for (unsigned int f = 0; f < 2; f++) {
		int rc = nfv_arc_feature_set(k->features[dir][f][0], k->features[dir][f][1], iface,
					     on, err);

		if (rc < 0)
			return rc;
	}
	return 0;
}

int
nfv_ifattach_set(const struct nfv_ifattach *k, void *obj, const char *name, const char *dev,
		 unsigned int dir, bool on, char *err)
{
	struct nfv_iface *ifc = nfv_iface_by_name(dev);
	void *prev;
	int rc;

	if (ifc == NULL) {
		snprintf(err, NFV_ERR_LEN, "unknown interface '%s'", dev);
		return -ENOENT;
	}
	prev = *slot(k, dir, ifc->id);
	if (!on) {
		if (prev != obj) {
			snprintf(err, NFV_ERR_LEN, "%s %s is not attached to %s %s", k->what, name,
				 dev, dir_names[dir]);
			return -ENOENT;
		}
		features_set(k, ifc->id, dir, false, err);
		__atomic_store_n(slot(k, dir, ifc->id), NULL, __ATOMIC_RELEASE);
		(*count(k, obj))--;
		nfv_rcu_sync();
		return 0;
	}
	if (prev == obj) {
		snprintf(err, NFV_ERR_LEN, "%s %s is already attached to %s %s", k->what, name, dev,
			 dir_names[dir]);
		return -EEXIST;
	}
	if (k->prepare != NULL) {
		rc = k->prepare(obj, ifc->id, err);
		if (rc < 0)
			return rc;
	}
	/* The object first, then the feature: a packet that reaches the node
	 * finds it. */
	__atomic_store_n(slot(k, dir, ifc->id), obj, __ATOMIC_RELEASE);
	(*count(k, obj))++;
	if (prev != NULL) {
		(*count(k, prev))--;
		nfv_rcu_sync();
		return 0;
	}
	rc = features_set(k, ifc->id, dir, true, err);
	if (rc < 0) {
		features_set(k, ifc->id, dir, false, err);
		__atomic_store_n(slot(k, dir, ifc->id), NULL, __ATOMIC_RELEASE);
		(*count(k, obj))--;
		nfv_rcu_sync();
	}
	return rc;
}

json_t *
nfv_ifattach_json(const struct nfv_ifattach *k, const void *obj)
{
	json_t *att = json_array();

	for (unsigned int d = 0; d < 2; d++)
		for (unsigned int i = 0; i < NFV_IFACE_MAX; i++)
			if (*slot(k, d, (uint16_t)i) == obj)
				json_array_append_new(att, json_pack("{s:s, s:s}", "dev",
					nfv_iface_name_of((uint16_t)i), "dir", dir_names[d]));
	return att;
}

bool
nfv_ifattach_iface_removed(const struct nfv_ifattach *k, uint16_t iface)
{
	char err[NFV_ERR_LEN];
	bool any = false;

	for (unsigned int d = 0; d < 2; d++) {
		void *obj = *slot(k, d, iface);

		if (obj == NULL)
			continue;
		features_set(k, iface, d, false, err);
		__atomic_store_n(slot(k, d, iface), NULL, __ATOMIC_RELEASE);
		(*count(k, obj))--;
		any = true;
	}
	if (any)
		nfv_rcu_sync();
	return any;
}
