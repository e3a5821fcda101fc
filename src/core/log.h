/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef NFV_LOG_H
#define NFV_LOG_H

#include <rte_log.h>

extern int nfv_logtype;

#define NFV_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_##level, nfv_logtype, "nfvd: " fmt "\n", ##__VA_ARGS__)

#endif
