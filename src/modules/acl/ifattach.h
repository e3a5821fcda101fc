/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Attaching a named object (an ACL, a policer) to an interface in a
 * direction, shared by the firewall's modules (acl, policer): the pointer
 * the workers read in bound[dir][iface], the features of the ip4 and ip6
 * arcs of that direction, the object's count of attachments, the errors.
 * Attaching where another object of the kind is attached swaps them in one
 * store; detaching waits a grace period, so that no worker still uses it.
 */
#ifndef NFV_IFATTACH_H
#define NFV_IFATTACH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "core/common.h"

struct nfv_ifattach {
	const char *what;                    /* "ACL", "policer" */
	void **bound;                        /* [2][NFV_IFACE_MAX]: in, out */
	const char *const (*features)[2][2]; /* [dir][family] = { arc, node } */
	size_t n_attached_off;               /* offsetof the object's uint32_t count */
	/* Before the object is published on iface (NULL: nothing to do). */
	int (*prepare)(void *obj, uint16_t iface, char *err);
};

/* "attach" (on) or "detach" obj, named name, on the interface named dev. */
int nfv_ifattach_set(const struct nfv_ifattach *k, void *obj, const char *name,
		     const char *dev, unsigned int dir, bool on, char *err);
/* Where obj is attached: [{"dev", "dir"}...]. */
json_t *nfv_ifattach_json(const struct nfv_ifattach *k, const void *obj);
/* The interface went: its attachments go (returns true if it had any). */
bool nfv_ifattach_iface_removed(const struct nfv_ifattach *k, uint16_t iface);

#endif
