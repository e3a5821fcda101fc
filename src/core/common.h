/* SPDX-License-Identifier: BSD-3-Clause */
/* Definitions every layer shares. */
#ifndef NFV_COMMON_H
#define NFV_COMMON_H

/* Control-side functions return 0 or a negative errno and fill err
 * (NFV_ERR_LEN bytes) with a sentence naming the bad input. */
#define NFV_ERR_LEN 256

#endif
