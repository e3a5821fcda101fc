/* SPDX-License-Identifier: BSD-3-Clause */
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
