/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Interface events: the module that owns an interface (infra for ports)
 * announces it coming, going and changing; other modules react from their
 * own handlers instead of being called across layers. Handlers run on the
 * control thread under the control lock, in registration order for
 * NFV_IFACE_ADDED and the reverse order for NFV_IFACE_REMOVED (a module
 * tears down after those that built on it).
 */
#ifndef NFV_IFACE_EVENT_H
#define NFV_IFACE_EVENT_H

#include <stdint.h>

#include <rte_common.h>

enum nfv_iface_event {
	NFV_IFACE_ADDED,    /* configured, not yet polled */
	NFV_IFACE_REMOVED,  /* set down, about to go: its state goes with it */
	NFV_IFACE_UP,
	NFV_IFACE_DOWN,
	NFV_IFACE_CHANGED,  /* MAC or MTU */
	NFV_IFACE_ADDR,     /* an address added or removed (the ip module) */
	NFV_IFACE_VRF,      /* moved to another VRF */
};

typedef void (*nfv_iface_event_cb)(enum nfv_iface_event ev, uint16_t iface, void *arg);

void nfv_iface_event_subscribe(const char *who, nfv_iface_event_cb cb, void *arg);
void nfv_iface_event_notify(enum nfv_iface_event ev, uint16_t iface);
const char *nfv_iface_event_name(enum nfv_iface_event ev);

/* The name of an interface, from the module that owns interfaces (infra),
 * for the core's views; "?" when unknown. */
typedef const char *(*nfv_iface_name_fn)(uint16_t iface);
void nfv_iface_namer_register(nfv_iface_name_fn fn);
const char *nfv_iface_name(uint16_t iface);

/* The name of the VRF an interface is in, from the module that keeps VRFs,
 * for the core's views; "default" when no module does. */
typedef const char *(*nfv_iface_vrf_name_fn)(uint16_t iface);
void nfv_iface_vrf_namer_register(nfv_iface_vrf_name_fn fn);
const char *nfv_iface_vrf_name(uint16_t iface);

/* Rows of "port show" (and show stats' "ports") for interfaces that are not
 * ports, added by the modules that own them; name: one interface, or NULL. */
typedef void (*nfv_iface_rows_fn)(void *rows_json_array, const char *name);
void nfv_iface_rows_register(nfv_iface_rows_fn fn);
void nfv_iface_rows(void *rows_json_array, const char *name);

#define NFV_IFACE_EVENT_HANDLER(fn) \
	RTE_INIT(nfv_iface_event_subscribe_##fn) \
	{ \
		nfv_iface_event_subscribe(RTE_STR(fn), fn, NULL); \
	}

#endif
