/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The command grammar: one action function per command, shared by the
 * startup file, nfvctl (one-shot, -f FILE, interactive) and the API socket.
 * A command either succeeds or changes nothing and says which token was bad.
 *
 * Commands are registered by their module's cli/ files
 * (NFV_COMMANDS_REGISTER); this layer tokenizes, finds the command by its
 * first one or two words, runs it under the control lock and renders the
 * result as text or JSON.
 */
#ifndef NFV_CMD_H
#define NFV_CMD_H

#include <errno.h>
#include <stdio.h>

#include <jansson.h>
#include <rte_common.h>

#include "core/common.h"

struct nfv_reply {
	json_t *data;            /* result object (may stay NULL) */
	char err[NFV_ERR_LEN];   /* set when the command fails */
};

/* An action: argv[0..] are all the line's tokens, the command's words
 * included. Returns 0, or a negative errno with a sentence in r->err. */
typedef int (*nfv_command_fn)(int argc, char **argv, struct nfv_reply *r);

struct nfv_command {
	const char *w1;
	const char *w2;          /* NULL: a one-word command */
	nfv_command_fn fn;
	const char *usage;       /* listed by "help" */
};

void nfv_commands_register(const struct nfv_command *cmds, unsigned int n);

#define NFV_COMMANDS_REGISTER(table) \
	RTE_INIT(nfv_commands_register_##table) \
	{ \
		nfv_commands_register(table, RTE_DIM(table)); \
	}

/* Runs one line (comments and blank lines are no-ops). Returns 0 or -errno. */
int nfv_cmd_exec(const char *line, struct nfv_reply *r);
void nfv_reply_clear(struct nfv_reply *r);
/* Human-readable rendering of a result object; malloc'ed. */
char *nfv_render_text(const json_t *data);

/* Serialises control-plane state between the control thread, telemetry and
 * the metrics server. Actions run with it held. */
void nfv_ctl_lock(void);
void nfv_ctl_unlock(void);

/* Helpers for actions. */
#define NFV_FAIL(r, rc, ...) \
	do { \
		snprintf((r)->err, NFV_ERR_LEN, __VA_ARGS__); \
		return (rc); \
	} while (0)

/* -EINVAL with the usage line when fewer than min tokens. */
int nfv_cmd_need_args(int argc, int min, const char *usage, struct nfv_reply *r);
/* -EINVAL naming the first token past max. */
int nfv_cmd_max_args(int argc, char **argv, int max, struct nfv_reply *r);

/* A two-word command without arguments whose result builder() makes. */
#define NFV_SHOW_COMMAND(fname, builder) \
	static int fname(int argc, char **argv, struct nfv_reply *r) \
	{ \
		int rc = nfv_cmd_max_args(argc, argv, 2, r); \
		if (rc == 0) \
			r->data = builder(); \
		return rc; \
	}

#endif
