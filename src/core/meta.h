/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Per-packet metadata carried between graph nodes in an mbuf dynamic field.
 * The mbuf data always starts at the Ethernet header while a packet walks
 * the graph; l3 headers sit at NFV_L2_LEN.
 */
#ifndef NFV_META_H
#define NFV_META_H

#include <stddef.h>
#include <stdint.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>

#define NFV_L2_LEN 14

struct nfv_nexthop;

enum nfv_meta_flag {
	NFV_META_LOCAL_ORIGIN = 1 << 0, /* built by nfvd: no TTL decrement */
	NFV_META_L2_MCAST = 1 << 1,     /* received as link-layer broadcast/multicast */
	NFV_META_ICMP_ERROR = 1 << 2,   /* an ICMP error: from its output port's address */
	NFV_META_L2_OUTPUT_DONE = 1 << 3, /* been through the l2_output arc (port_tx) */
	/* Forwarded before the ingress features (core/arc.h keeps_route):
	 * rewritten, tx_port and routed_gen set. */
	NFV_META_ROUTED = 1 << 4,
};

/*
 * 16 bytes: the mbuf's dynamic field area is small and PMDs need some of it.
 * nh is a pointer the RCU tables keep valid for the rest of the graph walk
 * (a worker reports a quiescent state only between walks); the ICMP error
 * nodes' MTU shares its place, once the next hop has been read. Packed: the
 * area starts 4-byte aligned, so the pointer may not be 8-byte aligned.
 */
struct nfv_mbuf_meta {
	union {
		const struct nfv_nexthop *nh; /* set by ipX_lookup (NULL: no route) */
		uint32_t icmp_info;   /* MTU for "fragmentation needed" / "packet too big" */
		uint32_t routed_gen;  /* NFV_META_ROUTED: the arc's route gen then (core/arc.h) */
	};
	uint16_t tx_port;             /* set by ipX_rewrite */
	uint16_t drop_reason;         /* a drop reason id, set before the drop edge */
	uint8_t flags;                /* enum nfv_meta_flag, set by eth_input */
	uint8_t icmp_type;            /* for the ICMP error nodes */
	uint8_t icmp_code;
	uint8_t pad;
} __attribute__((packed, aligned(4))); /* the dynamic area is 4-byte aligned */

extern int nfv_meta_offset;

/* The field is registered at a fixed place, the start of the dynamic area,
 * so that every access is a constant offset (no load of the offset). */
#define NFV_META_OFFSET offsetof(struct rte_mbuf, dynfield1)

static inline struct nfv_mbuf_meta *
nfv_meta(struct rte_mbuf *m)
{
	return RTE_MBUF_DYNFIELD(m, NFV_META_OFFSET, struct nfv_mbuf_meta *);
}

int nfv_meta_register(void);

/*
 * Module metadata in the mbuf private area (after struct rte_mbuf, before
 * the headroom): a module that needs more per-packet state than the core's
 * 16 bytes registers a slice from its own files,
 *
 *	NFV_MBUF_PRIV(acl_meta_slice, "acl", struct acl_meta);
 *	struct acl_meta *am = nfv_mbuf_priv(m, &acl_meta_slice);
 *
 * Slices are placed at registration (constructors), so the offsets are
 * fixed before any pool exists; every pool is created with priv_size
 * nfv_mbuf_priv_size() (a multiple of the cache line, so that the
 * packet data stays line-aligned). The area is
 * not cleared on RX: a module writes its slice before it reads it.
 */
struct nfv_mbuf_priv_slice {
	const char *name;
	uint16_t size;
	uint16_t align;
	uint16_t offset; /* set at registration */
};

void nfv_mbuf_priv_register(struct nfv_mbuf_priv_slice *s);
/* Bytes of private area every pool must have (0 with no slice). */
uint16_t nfv_mbuf_priv_size(void);

#define NFV_MBUF_PRIV(var, name_, type) \
	struct nfv_mbuf_priv_slice var = { .name = name_, .size = sizeof(type), \
					   .align = __alignof__(type) }; \
	RTE_INIT(nfv_mbuf_priv_register_##var) \
	{ \
		nfv_mbuf_priv_register(&var); \
	}

static inline void *
nfv_mbuf_priv(struct rte_mbuf *m, const struct nfv_mbuf_priv_slice *s)
{
	return RTE_PTR_ADD(m, sizeof(struct rte_mbuf) + s->offset);
}

#endif
