/* SPDX-License-Identifier: BSD-3-Clause */
/* What lcp.c (twins) and netlink.c (the kernel side) share. */
#ifndef NFV_LCP_PRIV_H
#define NFV_LCP_PRIV_H

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>

#include "modules/ip/ip.h"
#include "modules/lcp/lcp.h"

#define LCP_NETNS_LEN 64
#define LCP_NS_TWINS 64

struct lcp_ns;

struct lcp_twin {
	bool used;
	uint16_t iface;                /* nfvd's interface (a port, a VLAN, a bridge) */
	uint8_t kind;                  /* its kind (enum nfv_iface_kind) */
	uint16_t port;                 /* the twin's port id */
	int ifindex;                   /* the twin in its namespace */
	bool kernel_up;                /* its link as the kernel last said */
	char host_if[IF_NAMESIZE];
	char tmp_if[IF_NAMESIZE];      /* its name in nfvd's namespace before the move */
	char port_name[32];
	char netns[LCP_NETNS_LEN];     /* "" for nfvd's own */
	struct lcp_ns *ns;
	uint32_t rate;
	uint32_t burst;
	unsigned int n_addrs;          /* the addresses given to the kernel */
	struct nfv_prefix addrs[NFV_ADDR_PER_PORT_MAX];
};
extern struct lcp_twin lcp_twins[NFV_IFACE_MAX];

/* Control-side counters (the netlink side runs on the control thread). */
struct lcp_nl_stats {
	uint64_t messages;        /* netlink messages read (events and dumps) */
	uint64_t bad_messages;
	uint64_t routes_added;    /* kernel routes set in nfvd's tables */
	uint64_t routes_removed;
	uint64_t routes_failed;   /* refused by nfvd's tables */
	uint64_t nexthops;        /* nexthop object messages */
	uint64_t resyncs;         /* full dumps (start, lcp add, lost events...) */
	uint64_t overruns;        /* ENOBUFS: events lost, a resync follows */
};
extern struct lcp_nl_stats lcp_nl_stats;
extern uint32_t lcp_nl_rcvbuf;

int lcp_nl_init(void);
void lcp_nl_fini(void);
/* A namespace's netlink sockets, shared by its twins ("" nfvd's own). */
struct lcp_ns *lcp_ns_get(const char *name, char *err);
void lcp_ns_put(struct lcp_ns *ns);
void lcp_ns_twin_set(struct lcp_ns *ns, uint16_t iface, bool on);
/* Routes of the kernel table now: a full dump, then mark and sweep. */
void lcp_nl_resync(struct lcp_ns *ns);
/* Every namespace in use. */
void lcp_nl_resync_all(void);
/* Kernel routes in nfvd's tables (source kernel). */
uint32_t lcp_nl_route_count(void);

/* Link and address requests in a namespace; 0 or -errno with err. */
int lcp_nl_link_index(struct lcp_ns *ns, const char *ifname);
/* Moves a link of nfvd's own namespace into ns under a new name. */
int lcp_nl_link_move(int ifindex, struct lcp_ns *ns, const char *name, char *err);
/* Moves a link of ns back into nfvd's own namespace under a new name. */
int lcp_nl_link_move_home(struct lcp_ns *ns, int ifindex, const char *name, char *err);
/* up: 1, 0, or -1 to keep; mtu 0 and mac NULL keep. */
int lcp_nl_link_set(struct lcp_ns *ns, int ifindex, int up, unsigned int mtu,
		    const struct rte_ether_addr *mac, char *err);
int lcp_nl_addr(struct lcp_ns *ns, int ifindex, const struct nfv_prefix *p, bool add, char *err);

#endif
