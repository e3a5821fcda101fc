/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The event loop: poll(2) over the registered descriptors, with a timeout
 * that ends at the next timer. Small tables: a few hundred descriptors and
 * timers at most, each turn walks them.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>

#include "core/event.h"
#include "core/log.h"

#define NFV_EVENT_FDS_MAX 256

struct fd_entry {
	int fd; /* -1: free */
	short events;
	nfv_fd_cb cb;
	void *arg;
};

struct nfv_timer {
	const char *name;
	uint64_t period;
	uint64_t due;
	bool once;
	bool dead;
	nfv_timer_cb cb;
	void *arg;
	struct nfv_timer *next;
};

static struct fd_entry fds[NFV_EVENT_FDS_MAX];
static unsigned int n_fds; /* high-water mark of fds[] */
static struct nfv_timer *timers;

static struct fd_entry *
fd_find(int fd)
{
	for (unsigned int i = 0; i < n_fds; i++)
		if (fds[i].fd == fd && fds[i].cb != NULL)
			return &fds[i];
	return NULL;
}

int
nfv_event_fd_add(int fd, short events, nfv_fd_cb cb, void *arg)
{
	unsigned int i;

	if (fd < 0 || cb == NULL)
		return -EINVAL;
	if (fd_find(fd) != NULL)
		return -EEXIST;
	for (i = 0; i < n_fds && fds[i].cb != NULL; i++)
		;
	if (i == NFV_EVENT_FDS_MAX)
		return -ENOSPC;
	fds[i] = (struct fd_entry){ .fd = fd, .events = events, .cb = cb, .arg = arg };
	if (i == n_fds)
		n_fds++;
	return 0;
}

int
nfv_event_fd_set(int fd, short events)
{
	struct fd_entry *e = fd_find(fd);

	if (e == NULL)
		return -ENOENT;
	e->events = events;
	return 0;
}

void
nfv_event_fd_del(int fd)
{
	struct fd_entry *e = fd_find(fd);

	if (e != NULL)
		memset(e, 0, sizeof(*e));
	while (n_fds > 0 && fds[n_fds - 1].cb == NULL)
		n_fds--;
}

struct nfv_timer *
nfv_timer_add(const char *name, double period_s, bool once, nfv_timer_cb cb, void *arg)
{
	struct nfv_timer *t = calloc(1, sizeof(*t));

	if (t == NULL)
		return NULL;
	t->name = name;
	t->period = (uint64_t)(period_s * (double)rte_get_tsc_hz());
	if (t->period == 0)
		t->period = 1;
	t->due = rte_get_tsc_cycles() + t->period;
	t->once = once;
	t->cb = cb;
	t->arg = arg;
	t->next = timers;
	timers = t;
	return t;
}

void
nfv_timer_del(struct nfv_timer *t)
{
	if (t != NULL)
		t->dead = true; /* freed by the loop, outside any callback */
}

static void
timers_reap(void)
{
	struct nfv_timer **pp = &timers;

	while (*pp != NULL) {
		struct nfv_timer *t = *pp;

		if (t->dead) {
			*pp = t->next;
			free(t);
		} else {
			pp = &t->next;
		}
	}
}

void
nfv_event_run_once(int max_wait_ms)
{
	struct pollfd pfd[NFV_EVENT_FDS_MAX];
	unsigned int map[NFV_EVENT_FDS_MAX];
	uint64_t now = rte_get_tsc_cycles(), hz = rte_get_tsc_hz();
	int wait = max_wait_ms;
	nfds_t n = 0;

	for (struct nfv_timer *t = timers; t != NULL; t = t->next) {
		if (t->dead)
			continue;
		if (t->due <= now) {
			wait = 0;
		} else {
			uint64_t ms = (t->due - now) * 1000 / hz + 1;

			if (ms < (uint64_t)wait)
				wait = (int)ms;
		}
	}
	for (unsigned int i = 0; i < n_fds; i++) {
		if (fds[i].cb == NULL)
			continue;
		pfd[n].fd = fds[i].fd;
		pfd[n].events = fds[i].events;
		pfd[n].revents = 0;
		map[n++] = i;
	}
	if (poll(pfd, n, wait) > 0) {
		for (nfds_t k = 0; k < n; k++) {
			struct fd_entry *e = &fds[map[k]];

			/* A callback may have removed or replaced this one. */
			if (pfd[k].revents == 0 || e->cb == NULL || e->fd != pfd[k].fd)
				continue;
			e->cb(e->fd, pfd[k].revents, e->arg);
		}
	}
	now = rte_get_tsc_cycles();
	for (struct nfv_timer *t = timers; t != NULL; t = t->next) {
		if (t->dead || t->due > now)
			continue;
		/* Periodic timers keep their phase; one that fell far behind
		 * runs once and starts again from now. */
		t->due += t->period;
		if (t->due <= now)
			t->due = now + t->period;
		if (t->once)
			t->dead = true;
		t->cb(t->arg);
	}
	timers_reap();
}

void
nfv_event_fini(void)
{
	for (struct nfv_timer *t = timers; t != NULL; t = t->next)
		t->dead = true;
	timers_reap();
	memset(fds, 0, sizeof(fds));
	n_fds = 0;
}
