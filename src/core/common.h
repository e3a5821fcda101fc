/* SPDX-License-Identifier: BSD-3-Clause */
/* Definitions every layer shares. */
#ifndef NFV_COMMON_H
#define NFV_COMMON_H

/* Control-side functions return 0 or a negative errno and fill err
 * (NFV_ERR_LEN bytes) with a sentence naming the bad input. */
#define NFV_ERR_LEN 256

/* Interfaces (ports, VLANs, later bridges and tunnels) have ids below this;
 * a port's id is its DPDK port id, so ids below RTE_MAX_ETHPORTS are ports.
 * A packet's interface travels in mbuf->port. */
#define NFV_IFACE_MAX 256

#endif
