/* SPDX-License-Identifier: BSD-3-Clause */
/* The punt tables the drop node reads (punt.h). */
#include <errno.h>
#include <string.h>

#include "core/arc.h"
#include "modules/infra/punt.h"

uint8_t nfv_punt_reason[NFV_DROP_MAX];
uint16_t nfv_punt_edge[NFV_IFACE_MAX];

int
nfv_punt_node_edge(const char *node)
{
	return nfv_node_edge_index("nfv_drop", node);
}

int
nfv_drop_reason_find(const char *node, const char *name)
{
	for (unsigned int i = 0; i < nfv_drop_reasons_count; i++) {
		const struct nfv_drop_reason *r = nfv_drop_reasons[i];

		if (r != NULL && strcmp(r->node, node) == 0 && strcmp(r->name, name) == 0)
			return (int)i;
	}
	return -ENOENT;
}

void
nfv_punt_reason_set(uint16_t reason, bool on)
{
	if (reason < NFV_DROP_MAX)
		__atomic_store_n(&nfv_punt_reason[reason], on ? 1 : 0, __ATOMIC_RELEASE);
}

void
nfv_punt_iface_set(uint16_t iface, int edge)
{
	if (iface < NFV_IFACE_MAX)
		__atomic_store_n(&nfv_punt_edge[iface], edge < 0 ? 0 : (uint16_t)(edge + 1),
				 __ATOMIC_RELEASE);
}
