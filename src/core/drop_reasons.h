/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Drop reasons (VPP's error counters, the kernel's drop reasons). Each node
 * file registers the reasons it counts, with the node's name, a short name
 * shown by "show drops" and a sentence for operators:
 *
 *	NFV_DROP_REASON(drop_too_short, "eth_input", "too_short",
 *		"frame shorter than an Ethernet header");
 *	...
 *	return nfv_mark_drop(m, drop_too_short.id, EDGE_DROP);
 *
 * Ids are given at registration (constructors), so a module adds reasons
 * without touching a core list; per-worker counters are indexed by id.
 */
#ifndef NFV_DROP_REASONS_H
#define NFV_DROP_REASONS_H

#include <stdint.h>

#include <rte_common.h>

#define NFV_DROP_MAX 512   /* reason ids, "none" (0) included */
#define NFV_DROP_NONE 0    /* no reason recorded: a bug if it ever counts */

struct nfv_drop_reason {
	const char *node;
	const char *name;
	const char *help;
	uint16_t id;      /* set at registration */
};

void nfv_drop_reason_register(struct nfv_drop_reason *r);

#define NFV_DROP_REASON(var, node_, name_, help_) \
	static struct nfv_drop_reason var = { .node = node_, .name = name_, .help = help_ }; \
	RTE_INIT(nfv_drop_reason_register_##var) \
	{ \
		nfv_drop_reason_register(&var); \
	}

/* Every registered reason by id; ids below nfv_drop_reasons_count. */
extern const struct nfv_drop_reason *nfv_drop_reasons[NFV_DROP_MAX];
extern unsigned int nfv_drop_reasons_count;

#endif
