/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The API socket: a Unix stream socket, one request per line (a command of
 * the grammar, or {"cmd": "..."}), one JSON reply per line:
 * {"ok": true|false, "error": "...", "data": {...}, "text": "..."}.
 */
#ifndef NFV_API_H
#define NFV_API_H

/* Listens on path; the socket and its clients are served by the control
 * thread's event loop (core/event.h). */
int nfv_api_open(const char *path);
void nfv_api_close(void);
/* Runs one command and builds its reply line (malloc'ed, ends in '\n'). */
char *nfv_api_handle_line(const char *line, int *rc);

#endif
