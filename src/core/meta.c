/* SPDX-License-Identifier: BSD-3-Clause */
#include <rte_debug.h>
#include <rte_errno.h>
#include "core/meta.h"
#include "core/log.h"

int nfv_meta_offset = -1;

int
nfv_meta_register(void)
{
	static const struct rte_mbuf_dynfield desc = {
		.name = "nfv_mbuf_meta",
		.size = sizeof(struct nfv_mbuf_meta),
		.align = __alignof__(struct nfv_mbuf_meta),
	};

	nfv_meta_offset = rte_mbuf_dynfield_register_offset(&desc, NFV_META_OFFSET);
	if (nfv_meta_offset < 0) {
		NFV_LOG(ERR, "cannot place the packet metadata at the start of the mbuf's "
			"dynamic area (%s): a driver probed at start-up took it",
			rte_strerror(rte_errno));
		return -rte_errno;
	}
	return 0;
}

static uint16_t priv_used;

void
nfv_mbuf_priv_register(struct nfv_mbuf_priv_slice *s)
{
	uint32_t off = RTE_ALIGN_CEIL((uint32_t)priv_used, s->align ? s->align : 1);

	if (off + s->size > UINT16_MAX / 2)
		rte_panic("mbuf private area: slice %s does not fit\n", s->name);
	s->offset = (uint16_t)off;
	priv_used = (uint16_t)(off + s->size);
}

/* Rounded up to a cache line: the headroom and the packet data after the
 * area then start on a line of their own, as with no area at all. With
 * 8-byte rounding (the least DPDK asks) the slices' 28 bytes put an
 * Ethernet + IPv4 header across two lines: every packet touched one line
 * more, in the driver's copy or a NIC's DMA and in each node that reads
 * the header. */
uint16_t
nfv_mbuf_priv_size(void)
{
	if (priv_used == 0)
		return 0;
	return (uint16_t)RTE_ALIGN_CEIL(priv_used, RTE_CACHE_LINE_SIZE);
}
