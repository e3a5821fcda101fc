/* SPDX-License-Identifier: BSD-3-Clause */
#include "core/drop_reasons.h"

const struct nfv_drop_reason_info nfv_drop_reason_info[NFV_DROP_MAX] = {
#define NFV_DROP_INFO(sym, n, nm, h) [NFV_DROP_##sym] = { .node = n, .name = nm, .help = h },
	NFV_FOREACH_DROP_REASON(NFV_DROP_INFO)
#undef NFV_DROP_INFO
};
