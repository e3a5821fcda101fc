/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <jansson.h>
#include <rte_common.h>

#include "api/api.h"
#include "core/event.h"
#include "core/log.h"
#include "api/cmd.h"

#define API_MAX_CLIENTS 64
#define API_MAX_LINE (64 * 1024)

struct api_client {
	int fd;
	bool discarding; /* skipping the rest of an over-long line */
	size_t in_len;
	char in[API_MAX_LINE];
	char *out;
	size_t out_len;
	size_t out_off;
};

static int listen_fd = -1;
static char sock_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
static struct api_client *clients[API_MAX_CLIENTS];

static void client_event(int fd, short revents, void *arg);
static void client_watch(unsigned int i);
static void listen_event(int fd, short revents, void *arg);

int
nfv_api_open(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	mode_t old;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		NFV_LOG(ERR, "socket path %s is too long (max %zu)", path, sizeof(sa.sun_path) - 1);
		return -ENAMETOOLONG;
	}
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (listen_fd < 0)
		return -errno;
	/* A socket left by a dead nfvd is removed; a live one is not. */
	if (connect(listen_fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
		NFV_LOG(ERR, "another nfvd is serving %s; stop it or use -s PATH", path);
		close(listen_fd);
		listen_fd = -1;
		return -EADDRINUSE;
	}
	close(listen_fd);
	listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	unlink(path);
	old = umask(0077); /* owner-only socket */
	if (bind(listen_fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(listen_fd, SOMAXCONN) < 0) {
		int rc = -errno;

		umask(old);
		NFV_LOG(ERR, "cannot listen on %s: %s", path, strerror(-rc));
		close(listen_fd);
		listen_fd = -1;
		return rc;
	}
	umask(old);
	chmod(path, 0600);
	snprintf(sock_path, sizeof(sock_path), "%s", path);
	return nfv_event_fd_add(listen_fd, POLLIN, listen_event, NULL);
}

static void
client_close(unsigned int i)
{
	nfv_event_fd_del(clients[i]->fd);
	close(clients[i]->fd);
	free(clients[i]->out);
	free(clients[i]);
	clients[i] = NULL;
}

void
nfv_api_close(void)
{
	for (unsigned int i = 0; i < API_MAX_CLIENTS; i++)
		if (clients[i] != NULL)
			client_close(i);
	if (listen_fd >= 0) {
		nfv_event_fd_del(listen_fd);
		close(listen_fd);
		unlink(sock_path);
	}
	listen_fd = -1;
}

char *
nfv_api_handle_line(const char *line, int *rc_out)
{
	struct nfv_reply r;
	json_t *reply, *req = NULL;
	const char *cmd = line;
	char *text, *out;
	int rc;

	if (line[0] == '{') {
		json_error_t e;

		req = json_loads(line, 0, &e);
		cmd = req != NULL ? json_string_value(json_object_get(req, "cmd")) : NULL;
		if (cmd == NULL) {
			json_decref(req);
			*rc_out = -EINVAL;
			return strdup("{\"ok\": false, \"error\": \"bad request: expected "
				      "{\\\"cmd\\\": \\\"COMMAND\\\"}\"}\n");
		}
	}
	rc = nfv_cmd_exec(cmd, &r);
	json_decref(req);
	*rc_out = rc;
	if (rc < 0) {
		reply = json_pack("{s:b, s:s}", "ok", 0, "error", r.err);
	} else {
		text = nfv_render_text(r.data);
		reply = json_pack("{s:b, s:O, s:s}", "ok", 1, "data",
				  r.data != NULL ? r.data : json_null(), "text", text ? text : "");
		free(text);
	}
	nfv_reply_clear(&r);
	out = reply != NULL ? json_dumps(reply, JSON_COMPACT | JSON_ENSURE_ASCII) : NULL;
	json_decref(reply);
	if (out == NULL)
		return strdup("{\"ok\": false, \"error\": \"cannot encode the reply\"}\n");
	text = realloc(out, strlen(out) + 2);
	if (text == NULL) {
		free(out);
		return NULL;
	}
	strcat(text, "\n");
	return text;
}

static void
client_queue(struct api_client *c, const char *s)
{
	size_t n = strlen(s);
	char *o;

	if (c->out_off == c->out_len) {
		c->out_off = 0;
		c->out_len = 0;
	}
	o = realloc(c->out, c->out_len + n);
	if (o == NULL)
		return;
	c->out = o;
	memcpy(c->out + c->out_len, s, n);
	c->out_len += n;
}

static void
client_flush(unsigned int i)
{
	struct api_client *c = clients[i];

	while (c->out_off < c->out_len) {
		ssize_t w = send(c->fd, c->out + c->out_off, c->out_len - c->out_off, MSG_NOSIGNAL);

		if (w < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return;
			client_close(i);
			return;
		}
		c->out_off += (size_t)w;
	}
}

/* Replies waiting for a client that does not read them: past this, its
 * further requests wait (and other clients are served meanwhile). */
#define API_MAX_PENDING_OUT (1u << 20)

static bool
client_backlogged(const struct api_client *c)
{
	return c->out_len - c->out_off > API_MAX_PENDING_OUT;
}

/* Runs the complete request lines received, while the client keeps up with
 * the replies. */
static void
client_serve(struct api_client *c)
{
	char *nl;

	while (!client_backlogged(c) && (nl = memchr(c->in, '\n', c->in_len)) != NULL) {
		size_t len = (size_t)(nl - c->in);

		*nl = '\0';
		if (c->discarding) {
			c->discarding = false;
		} else if (memchr(c->in, '\0', len) != NULL) {
			client_queue(c, "{\"ok\": false, \"error\": "
				     "\"request contains a NUL byte\"}\n");
		} else {
			int rc;
			char *reply = nfv_api_handle_line(c->in, &rc);

			if (reply != NULL)
				client_queue(c, reply);
			free(reply);
		}
		memmove(c->in, nl + 1, c->in_len - len - 1);
		c->in_len -= len + 1;
	}
	if (c->in_len == sizeof(c->in) && memchr(c->in, '\n', c->in_len) == NULL) {
		if (!c->discarding)
			client_queue(c, "{\"ok\": false, \"error\": "
				     "\"request line longer than 65536 "
				     "bytes\"}\n");
		c->discarding = true;
		c->in_len = 0;
	}
}

/* Reads what the client sent and serves it; returns true if it read
 * something (its end of file may be next). */
static bool
client_read(unsigned int i)
{
	struct api_client *c = clients[i];
	ssize_t n;

	if (c->in_len == sizeof(c->in))
		return false; /* full of requests waiting for the replies to drain */
	n = recv(c->fd, c->in + c->in_len, sizeof(c->in) - c->in_len, 0);
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		client_close(i);
		return false;
	}
	if (n < 0)
		return false;
	c->in_len += (size_t)n;
	client_serve(c);
	client_flush(i);
	return true;
}

static int
free_slot(void)
{
	for (unsigned int i = 0; i < API_MAX_CLIENTS; i++)
		if (clients[i] == NULL)
			return (int)i;
	return -1;
}

static void
accept_clients(void)
{
	for (;;) {
		int fd = accept4(listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		int i;

		if (fd < 0)
			return;
		i = free_slot();
		if (i < 0) {
			/* Clients that have sent their last request and hung up
			 * still hold a slot until read: serve them now, up to
			 * their end of file (a few reads at most each). */
			for (unsigned int k = 0; k < API_MAX_CLIENTS; k++)
				for (int r = 0; r < 4 && clients[k] != NULL; r++)
					if (!client_read(k))
						break;
			for (unsigned int k = 0; k < API_MAX_CLIENTS; k++)
				client_watch(k);
			i = free_slot();
		}
		if (i < 0) {
			static const char busy[] = "{\"ok\": false, \"busy\": true, \"error\": "
						   "\"too many clients (" RTE_STR(API_MAX_CLIENTS)
						   " connected)\"}\n";

			if (send(fd, busy, sizeof(busy) - 1, MSG_NOSIGNAL) < 0)
				NFV_LOG(DEBUG, "client refused");
			close(fd);
			continue;
		}
		clients[i] = calloc(1, sizeof(*clients[i]));
		if (clients[i] == NULL) {
			close(fd);
			continue;
		}
		clients[i]->fd = fd;
		if (nfv_event_fd_add(fd, POLLIN, client_event, (void *)(uintptr_t)i) < 0) {
			client_close((unsigned int)i);
			continue;
		}
	}
}

/* What a client's descriptor waits for: requests while it keeps up with its
 * replies and has room for them, and room to send while replies wait. */
static void
client_watch(unsigned int i)
{
	const struct api_client *c = clients[i];
	short events;

	if (c == NULL)
		return;
	events = client_backlogged(c) || c->in_len == sizeof(c->in) ? 0 : POLLIN;
	if (c->out_off < c->out_len)
		events |= POLLOUT;
	nfv_event_fd_set(c->fd, events);
}

static void
client_event(int fd, short revents, void *arg)
{
	unsigned int i = (unsigned int)(uintptr_t)arg;

	if (clients[i] == NULL || clients[i]->fd != fd)
		return;
	if (revents & POLLOUT) {
		client_flush(i);
		if (clients[i] != NULL && !client_backlogged(clients[i])) {
			client_serve(clients[i]);
			client_flush(i);
		}
	}
	if (clients[i] != NULL && (revents & (POLLIN | POLLHUP | POLLERR)))
		client_read(i);
	client_watch(i);
}

static void
listen_event(int fd, short revents, void *arg)
{
	if (revents & POLLIN)
		accept_clients();
}
