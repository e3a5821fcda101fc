/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The command grammar: one action function per command, shared by the
 * startup file, nfvctl (one-shot, -f FILE, interactive) and the API socket.
 * A command either succeeds or changes nothing and says which token was bad.
 */
#ifndef NFV_CMD_H
#define NFV_CMD_H

#include <jansson.h>

#include "modules/ip/ip.h"

struct nfv_reply {
	json_t *data;            /* result object (may stay NULL) */
	char err[NFV_ERR_LEN];   /* set when the command fails */
};

/* Runs one line (comments and blank lines are no-ops). Returns 0 or -errno. */
int nfv_cmd_exec(const char *line, struct nfv_reply *r);
void nfv_reply_clear(struct nfv_reply *r);
/* Human-readable rendering of a result object; malloc'ed. */
char *nfv_render_text(const json_t *data);

#endif
