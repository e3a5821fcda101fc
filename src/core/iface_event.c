/* SPDX-License-Identifier: BSD-3-Clause */
#include <rte_debug.h>

#include "core/iface_event.h"
#include "core/log.h"

#define NFV_IFACE_HANDLERS_MAX 64

static struct {
	const char *who;
	nfv_iface_event_cb cb;
	void *arg;
} handlers[NFV_IFACE_HANDLERS_MAX];
static unsigned int n_handlers;

void
nfv_iface_event_subscribe(const char *who, nfv_iface_event_cb cb, void *arg)
{
	if (n_handlers == NFV_IFACE_HANDLERS_MAX)
		rte_panic("too many interface event handlers (%s)\n", who);
	handlers[n_handlers].who = who;
	handlers[n_handlers].cb = cb;
	handlers[n_handlers].arg = arg;
	n_handlers++;
}

const char *
nfv_iface_event_name(enum nfv_iface_event ev)
{
	static const char *const names[] = {
		[NFV_IFACE_ADDED] = "added", [NFV_IFACE_REMOVED] = "removed",
		[NFV_IFACE_UP] = "up", [NFV_IFACE_DOWN] = "down",
		[NFV_IFACE_CHANGED] = "changed", [NFV_IFACE_ADDR] = "address",
		[NFV_IFACE_VRF] = "vrf",
	};

	return (unsigned int)ev < RTE_DIM(names) ? names[ev] : "?";
}

void
nfv_iface_event_notify(enum nfv_iface_event ev, uint16_t iface)
{
	NFV_LOG(DEBUG, "interface %u %s", iface, nfv_iface_event_name(ev));
	if (ev == NFV_IFACE_REMOVED) {
		for (unsigned int i = n_handlers; i-- > 0;)
			handlers[i].cb(ev, iface, handlers[i].arg);
		return;
	}
	for (unsigned int i = 0; i < n_handlers; i++)
		handlers[i].cb(ev, iface, handlers[i].arg);
}

static nfv_iface_name_fn namer;

void
nfv_iface_namer_register(nfv_iface_name_fn fn)
{
	namer = fn;
}

const char *
nfv_iface_name(uint16_t iface)
{
	const char *n = namer != NULL ? namer(iface) : NULL;

	return n != NULL ? n : "?";
}

static nfv_iface_vrf_name_fn vrf_namer;

void
nfv_iface_vrf_namer_register(nfv_iface_vrf_name_fn fn)
{
	vrf_namer = fn;
}

const char *
nfv_iface_vrf_name(uint16_t iface)
{
	const char *n = vrf_namer != NULL ? vrf_namer(iface) : NULL;

	return n != NULL ? n : "default";
}

#define NFV_IFACE_ROWS_MAX 16
static nfv_iface_rows_fn row_fns[NFV_IFACE_ROWS_MAX];
static unsigned int n_row_fns;

void
nfv_iface_rows_register(nfv_iface_rows_fn fn)
{
	if (n_row_fns == NFV_IFACE_ROWS_MAX)
		rte_panic("too many interface row writers\n");
	row_fns[n_row_fns++] = fn;
}

void
nfv_iface_rows(void *rows, const char *name)
{
	for (unsigned int i = 0; i < n_row_fns; i++)
		row_fns[i](rows, name);
}
