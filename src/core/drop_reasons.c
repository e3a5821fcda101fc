/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include <rte_debug.h>

#include "core/drop_reasons.h"

static struct nfv_drop_reason drop_none = {
	.node = "drop", .name = "none", .help = "no reason recorded (a bug if it ever counts)",
	.id = NFV_DROP_NONE,
};

const struct nfv_drop_reason *nfv_drop_reasons[NFV_DROP_MAX] = { [NFV_DROP_NONE] = &drop_none };
unsigned int nfv_drop_reasons_count = 1;

void
nfv_drop_reason_register(struct nfv_drop_reason *r)
{
	for (unsigned int i = 0; i < nfv_drop_reasons_count; i++)
		if (strcmp(nfv_drop_reasons[i]->node, r->node) == 0 &&
		    strcmp(nfv_drop_reasons[i]->name, r->name) == 0)
			rte_panic("drop reason %s/%s registered twice\n", r->node, r->name);
	if (nfv_drop_reasons_count == NFV_DROP_MAX)
		rte_panic("more than %u drop reasons\n", NFV_DROP_MAX);
	r->id = (uint16_t)nfv_drop_reasons_count;
	nfv_drop_reasons[nfv_drop_reasons_count++] = r;
}
