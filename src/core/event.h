/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control thread's event loop: file descriptors (the API socket and its
 * clients, and later netlink, PFCP...) and timers (statistics sampling,
 * pool reaping, and later neighbor aging, conntrack expiry...). Modules
 * register their own; everything runs on the main lcore, never on a worker.
 * Callbacks run without the control lock: they take it (nfv_ctl_lock) when
 * they touch control state.
 */
#ifndef NFV_EVENT_H
#define NFV_EVENT_H

#include <stdbool.h>
#include <stdint.h>

typedef void (*nfv_fd_cb)(int fd, short revents, void *arg);
typedef void (*nfv_timer_cb)(void *arg);

/* Watches fd for events (POLLIN, POLLOUT); returns 0 or -ENOSPC/-EEXIST. */
int nfv_event_fd_add(int fd, short events, nfv_fd_cb cb, void *arg);
/* Changes the events watched on fd. */
int nfv_event_fd_set(int fd, short events);
/* Stops watching fd (safe from within any callback). */
void nfv_event_fd_del(int fd);

struct nfv_timer;
/* Calls cb every period_s seconds (the first time period_s from now);
 * once: only once, then the timer is freed. NULL when out of memory. */
struct nfv_timer *nfv_timer_add(const char *name, double period_s, bool once, nfv_timer_cb cb,
				void *arg);
/* Cancels a timer (safe from within any callback, its own included). */
void nfv_timer_del(struct nfv_timer *t);

/* One turn of the loop: waits up to max_wait_ms for the file descriptors
 * or the next timer, then runs what is ready and every timer due. */
void nfv_event_run_once(int max_wait_ms);
/* Frees every timer and forgets every descriptor (at exit). */
void nfv_event_fini(void);

#endif
