/* SPDX-License-Identifier: BSD-3-Clause */
#include <rte_errno.h>
#include "meta.h"

int nfv_meta_offset = -1;

int
nfv_meta_register(void)
{
	static const struct rte_mbuf_dynfield desc = {
		.name = "nfv_mbuf_meta",
		.size = sizeof(struct nfv_mbuf_meta),
		.align = __alignof__(struct nfv_mbuf_meta),
	};

	nfv_meta_offset = rte_mbuf_dynfield_register(&desc);
	return nfv_meta_offset < 0 ? -rte_errno : 0;
}
