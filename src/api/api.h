/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The API socket: a Unix stream socket, one request per line (a command of
 * the grammar, or {"cmd": "..."}), one JSON reply per line:
 * {"ok": true|false, "error": "...", "data": {...}, "text": "..."}.
 */
#ifndef NFV_API_H
#define NFV_API_H

int nfv_api_open(const char *path);
/* Serves clients for up to timeout_ms. */
void nfv_api_poll(int timeout_ms);
void nfv_api_close(void);
/* Runs one command and builds its reply line (malloc'ed, ends in '\n'). */
char *nfv_api_handle_line(const char *line, int *rc);

#endif
