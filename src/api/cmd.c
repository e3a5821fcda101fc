/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Command grammar and actions (see docs/design.md section 3).
 */
#include <errno.h>
#include <stdbool.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_debug.h>
#include <time.h>

#include <rte_cycles.h>


#include "api/cmd.h"
#include "api/parse.h"

static pthread_mutex_t ctl_mutex = PTHREAD_MUTEX_INITIALIZER;

void
nfv_ctl_lock(void)
{
	pthread_mutex_lock(&ctl_mutex);
}

void
nfv_ctl_unlock(void)
{
	pthread_mutex_unlock(&ctl_mutex);
}

#define NFV_COMMANDS_MAX 256

static const struct nfv_command *cmds[NFV_COMMANDS_MAX];
static unsigned int n_cmds;

void
nfv_commands_register(const struct nfv_command *table, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		for (unsigned int j = 0; j < n_cmds; j++)
			if (strcmp(cmds[j]->w1, table[i].w1) == 0 &&
			    ((cmds[j]->w2 == NULL && table[i].w2 == NULL) ||
			     (cmds[j]->w2 != NULL && table[i].w2 != NULL &&
			      strcmp(cmds[j]->w2, table[i].w2) == 0)))
				rte_panic("command '%s %s' registered twice\n", table[i].w1,
					  table[i].w2 ? table[i].w2 : "");
		if (n_cmds == NFV_COMMANDS_MAX)
			rte_panic("too many commands\n");
		cmds[n_cmds++] = &table[i];
	}
}

int
nfv_cmd_need_args(int argc, int min, const char *usage, struct nfv_reply *r)
{
	if (argc < min) {
		snprintf(r->err, NFV_ERR_LEN, "missing arguments; usage: %s", usage);
		return -EINVAL;
	}
	return 0;
}

int
nfv_cmd_max_args(int argc, char **argv, int max, struct nfv_reply *r)
{
	if (argc > max)
		NFV_FAIL(r, -EINVAL, "unexpected '%s'", argv[max]);
	return 0;
}

static int
cmd_help(int argc, char **argv, struct nfv_reply *r)
{
	json_t *a;

	if (argc > 1)
		NFV_FAIL(r, -EINVAL, "unexpected '%s'", argv[1]);
	a = json_array();
	for (unsigned int i = 0; i < n_cmds; i++) {
		bool seen = false; /* "stats on|off": once */

		for (unsigned int j = 0; j < i && !seen; j++)
			seen = strcmp(cmds[i]->usage, cmds[j]->usage) == 0;
		if (!seen)
			json_array_append_new(a, json_pack("{s:s}", "command", cmds[i]->usage));
	}
	r->data = json_pack("{s:o}", "commands", a);
	return 0;
}

static const struct nfv_command help_commands[] = {
	{ "help", NULL, cmd_help, "help" },
};
NFV_COMMANDS_REGISTER(help_commands);

void
nfv_reply_clear(struct nfv_reply *r)
{
	json_decref(r->data);
	r->data = NULL;
	r->err[0] = '\0';
}

static int
cmd_exec(const char *line, struct nfv_reply *r)
{
	char *tok[NFV_MAX_TOKENS], *copy;
	const char *w1_known = NULL;
	int n, rc = -EINVAL;

	r->data = NULL;
	r->err[0] = '\0';
	copy = strdup(line);
	if (copy == NULL)
		NFV_FAIL(r, -ENOMEM, "out of memory");
	n = nfv_tokenize(copy, tok, NFV_MAX_TOKENS);
	if (n == -E2BIG) {
		free(copy);
		NFV_FAIL(r, -EINVAL, "too many tokens (at most %d)", NFV_MAX_TOKENS);
	}
	if (n == -EBADMSG) {
		free(copy);
		NFV_FAIL(r, -EINVAL, "text right after a closing quote");
	}
	if (n < 0) {
		free(copy);
		NFV_FAIL(r, -EINVAL, "unterminated quote");
	}
	if (n == 0) {
		free(copy);
		return 0;
	}
	for (size_t i = 0; i < n_cmds; i++) {
		if (strcmp(tok[0], cmds[i]->w1) != 0)
			continue;
		w1_known = cmds[i]->w1;
		if (cmds[i]->w2 != NULL && (n < 2 || strcmp(tok[1], cmds[i]->w2) != 0))
			continue;
		nfv_ctl_lock();
		rc = cmds[i]->fn(n, tok, r);
		nfv_ctl_unlock();
		if (rc < 0 && r->err[0] == '\0')
			snprintf(r->err, NFV_ERR_LEN, "%s", strerror(-rc));
		free(copy);
		return rc;
	}
	if (w1_known != NULL) {
		char words[256] = "";

		for (size_t i = 0; i < n_cmds; i++)
			if (strcmp(cmds[i]->w1, w1_known) == 0 && cmds[i]->w2 != NULL &&
			    strstr(words, cmds[i]->w2) == NULL)
				snprintf(words + strlen(words),
					 sizeof(words) - strlen(words), "%s%s",
					 words[0] ? ", " : "", cmds[i]->w2);
		if (n < 2)
			snprintf(r->err, NFV_ERR_LEN, "missing word after '%s' (expected %s)",
				 tok[0], words);
		else
			snprintf(r->err, NFV_ERR_LEN, "unknown word '%.64s' after '%s' "
				 "(expected %s)", tok[1], tok[0], words);
	} else {
		snprintf(r->err, NFV_ERR_LEN, "unknown command '%.64s'; try 'help'", tok[0]);
	}
	free(copy);
	return -EINVAL;
}

int
nfv_cmd_exec(const char *line, struct nfv_reply *r)
{
	int rc = cmd_exec(line, r);

	/* Errors quote user tokens: keep them printable ASCII, so that they
	 * always encode as JSON and print as text, whatever bytes the line held. */
	for (char *c = r->err; *c != '\0'; c++)
		if ((unsigned char)*c < 0x20 || (unsigned char)*c > 0x7e)
			*c = '?';
	return rc;
}

static void
render_value(FILE *f, const json_t *v)
{
	if (v == NULL) { /* a row without this column (rows of several kinds) */
		fputs("-", f);
		return;
	}
	switch (json_typeof(v)) {
	case JSON_STRING:
		fputs(json_string_value(v), f);
		break;
	case JSON_INTEGER:
		fprintf(f, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		break;
	case JSON_REAL:
		fprintf(f, "%.2f", json_real_value(v));
		break;
	case JSON_TRUE:
		fputs("yes", f);
		break;
	case JSON_FALSE:
		fputs("no", f);
		break;
	case JSON_NULL:
		fputs("-", f);
		break;
	default: {
		char *s = json_dumps(v, JSON_COMPACT);

		fputs(s ? s : "?", f);
		free(s);
	}
	}
}

static char *
value_str(const json_t *v)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (f == NULL)
		return NULL;
	render_value(f, v);
	fclose(f);
	return buf;
}

/* The columns of a table: every key of its rows, in the order they first
 * appear (rows of several kinds have keys of their own: a row without a
 * column, or with an empty string in it, shows "-"). NULL when out of
 * memory. */
static const char **
table_columns(const json_t *rows, size_t *ncol)
{
	const char **keys = NULL, *key;
	size_t n = 0, cap = 0, i, c;
	json_t *row, *val;

	json_array_foreach((json_t *)rows, i, row) {
		json_object_foreach(row, key, val) {
			for (c = 0; c < n && strcmp(keys[c], key) != 0; c++)
				;
			if (c < n)
				continue;
			if (n == cap) {
				const char **grown = realloc(keys, (cap ? 2 * cap : 16) * sizeof(*keys));

				if (grown == NULL) {
					free(keys);
					return NULL;
				}
				keys = grown;
				cap = cap ? 2 * cap : 16;
			}
			keys[n++] = key;
		}
	}
	*ncol = n;
	return keys;
}

static void
render_table(FILE *f, const json_t *rows)
{
	size_t ncol = 0, nrow = json_array_size(rows), c, i;
	const char **keys = table_columns(rows, &ncol);
	size_t *width;

	if (keys == NULL || ncol == 0) {
		free(keys);
		return;
	}
	width = calloc(ncol, sizeof(*width));
	if (width == NULL) {
		free(keys);
		return;
	}
	for (c = 0; c < ncol; c++)
		width[c] = strlen(keys[c]);
	for (i = 0; i < nrow; i++)
		for (c = 0; c < ncol; c++) {
			char *s = value_str(json_object_get(json_array_get(rows, i), keys[c]));

			if (s != NULL && strlen(s) > width[c])
				width[c] = strlen(s);
			free(s);
		}
	for (c = 0; c < ncol; c++)
		fprintf(f, "%-*s%s", (int)width[c], keys[c], c + 1 < ncol ? "  " : "\n");
	for (i = 0; i < nrow; i++)
		for (c = 0; c < ncol; c++) {
			char *s = value_str(json_object_get(json_array_get(rows, i), keys[c]));

			/* An empty cell would shift the row's later columns left
			 * for whoever splits it on blanks: "-", as for no value. */
			fprintf(f, "%-*s%s", (int)width[c], s && *s ? s : "-",
				c + 1 < ncol ? "  " : "\n");
			free(s);
		}
	free(keys);
	free(width);
}

static void
render_object(FILE *f, const json_t *obj, int indent)
{
	const char *key;
	json_t *val;

	json_object_foreach((json_t *)obj, key, val) {
		if (json_is_array(val) && json_array_size(val) > 0 &&
		    json_is_object(json_array_get(val, 0))) {
			fprintf(f, "%*s%s:\n", indent, "", key);
			render_table(f, val);
		} else if (json_is_array(val) && json_array_size(val) == 0) {
			fprintf(f, "%*s%s: (none)\n", indent, "", key);
		} else if (json_is_object(val)) {
			fprintf(f, "%*s%s:\n", indent, "", key);
			render_object(f, val, indent + 2);
		} else {
			fprintf(f, "%*s%s: ", indent, "", key);
			render_value(f, val);
			fputc('\n', f);
		}
	}
}

char *
nfv_render_text(const json_t *data)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (data == NULL)
		return strdup("");
	f = open_memstream(&buf, &len);
	if (f == NULL)
		return NULL;
	if (json_is_object(data) && json_object_size(data) == 1 &&
	    json_is_string(json_object_iter_value(json_object_iter((json_t *)data))) &&
	    strchr(json_string_value(json_object_iter_value(json_object_iter((json_t *)data))),
		   '\n') != NULL)
		fputs(json_string_value(json_object_iter_value(json_object_iter((json_t *)data))),
		      f);
	else if (json_is_object(data))
		render_object(f, data, 0);
	else
		render_value(f, data);
	fclose(f);
	return buf;
}
