/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfvctl: the client of nfvd's API socket.
 *   nfvctl [-s SOCK] [--json] COMMAND...     one command
 *   nfvctl [-s SOCK] [--json] -f FILE        a file of commands ('-' = stdin)
 *   nfvctl [-s SOCK]                         interactive shell with history
 * Exit status: 0 all commands succeeded, 1 a command failed, 2 no daemon.
 */
#include <errno.h>
#include <getopt.h>
#include <histedit.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <jansson.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "api/cmdfile.h"

#define NFV_DEFAULT_SOCKET "/run/nfvd.sock"
#define MAX_LINE (64 * 1024)

static int sock = -1;
static bool json_out;
static FILE *rx;

static int
connect_daemon(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "nfvctl: socket path too long: %s\n", path);
		return -1;
	}
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	sock = socket(AF_UNIX, SOCK_STREAM, 0);
	if (sock < 0 || connect(sock, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		fprintf(stderr, "nfvctl: cannot connect to nfvd at %s: %s (is nfvd running? "
			"use -s PATH for another socket)\n", path, strerror(errno));
		return -1;
	}
	rx = fdopen(dup(sock), "r");
	return rx == NULL ? -1 : 0;
}

/* Sends one command; returns the reply object, or NULL (message printed). */
static json_t *
request(const char *cmd, int *io_rc)
{
	json_t *req = json_pack("{s:s}", "cmd", cmd), *reply = NULL;
	char *s = json_dumps(req, JSON_COMPACT), *line = NULL;
	size_t cap = 0, len, off = 0;
	json_error_t e;

	json_decref(req);
	*io_rc = 0;
	if (s == NULL) {
		fprintf(stderr, "nfvctl: command is not valid UTF-8\n");
		*io_rc = 1;
		return NULL;
	}
	len = strlen(s);
	s[len++] = '\n'; /* replaces the terminator: sent with its length */
	while (off < len) {
		ssize_t w = send(sock, s + off, len - off, MSG_NOSIGNAL);

		if (w < 0) {
			/* nfvd may have refused the connection and said why. */
			int e = errno;

			free(s);
			if (getline(&line, &cap, rx) >= 0 &&
			    (reply = json_loads(line, 0, NULL)) != NULL &&
			    json_is_true(json_object_get(reply, "busy"))) {
				free(line);
				return reply;
			}
			json_decref(reply);
			free(line);
			fprintf(stderr, "nfvctl: lost the connection to nfvd: %s\n", strerror(e));
			*io_rc = 2;
			return NULL;
		}
		off += (size_t)w;
	}
	free(s);
	if (getline(&line, &cap, rx) < 0) {
		fprintf(stderr, "nfvctl: nfvd closed the connection\n");
		free(line);
		*io_rc = 2;
		return NULL;
	}
	reply = json_loads(line, 0, &e);
	free(line);
	if (reply == NULL) {
		fprintf(stderr, "nfvctl: unreadable reply from nfvd: %s\n", e.text);
		*io_rc = 2;
	}
	return reply;
}

static int top(int argc, char **argv);

/* Sends one command and prints its reply. Returns 0, 1 (failed) or 2 (I/O). */
static int
run_command(const char *cmd)
{
	char abs_cmd[MAX_LINE + PATH_MAX];
	json_t *reply;
	int rc;

	/* "route load FILE [vrf VRF]" is read by nfvd: give it the path from
	 * here (a quoted FILE as it is). */
	if (strncmp(cmd, "route load ", 11) == 0 && cmd[11] != '/' && cmd[11] != '"' &&
	    cmd[11] != '\'' && cmd[11] != ' ' && cmd[11] != '\0') {
		char cwd[PATH_MAX];

		if (getcwd(cwd, sizeof(cwd)) != NULL) {
			snprintf(abs_cmd, sizeof(abs_cmd), "route load %s/%s", cwd, cmd + 11);
			cmd = abs_cmd;
		}
	}
	reply = request(cmd, &rc);
	if (reply == NULL)
		return rc;
	if (json_is_true(json_object_get(reply, "busy"))) {
		fprintf(stderr, "nfvctl: nfvd refused the connection: %s; try again\n",
			json_string_value(json_object_get(reply, "error")));
		json_decref(reply);
		return 2;
	}
	if (!json_is_true(json_object_get(reply, "ok"))) {
		const char *err = json_string_value(json_object_get(reply, "error"));

		if (json_out) {
			json_t *e = json_pack("{s:s}", "error", err ? err : "?");

			json_dumpf(e, stdout, JSON_INDENT(2));
			putchar('\n');
			json_decref(e);
		}
		fprintf(stderr, "error: %s\n", err ? err : "(no message)");
		rc = 1;
	} else if (json_out) {
		json_t *data = json_object_get(reply, "data");

		if (data != NULL && !json_is_null(data)) {
			json_dumpf(data, stdout, JSON_INDENT(2));
			putchar('\n');
		} else {
			printf("{}\n");
		}
		rc = 0;
	} else {
		const char *text = json_string_value(json_object_get(reply, "text"));

		if (text != NULL)
			fputs(text, stdout);
		rc = 0;
	}
	fflush(stdout);
	json_decref(reply);
	return rc;
}

static int
run_file(const char *path)
{
	struct nfv_cmdfile cf;
	char err[256], *line;
	int rc = 0, n;

	n = strcmp(path, "-") == 0 ? nfv_cmdfile_from_stream(&cf, stdin) :
	    nfv_cmdfile_open(&cf, path, err, sizeof(err));
	if (n < 0) {
		fprintf(stderr, "nfvctl: %s\n", n == -ENOMEM ? "out of memory" : err);
		nfv_cmdfile_close(&cf);
		return 1;
	}
	while ((n = nfv_cmdfile_next(&cf, &line, err, sizeof(err))) > 0) {
		char *p = line;

		p[strcspn(p, "\r\n")] = '\0';
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\0' || *p == '#')
			continue;
		rc = run_command(p);
		if (rc != 0) {
			fprintf(stderr, "nfvctl: %s:%u: stopped at: %s\n", path, cf.lineno, p);
			break;
		}
	}
	if (n < 0) {
		fprintf(stderr, "nfvctl: %s: %s\n", path, err);
		rc = 1;
	}
	nfv_cmdfile_close(&cf);
	return rc;
}

static const char *
prompt(EditLine *el)
{
	(void)el;
	return "nfvd> ";
}

static int
shell(void)
{
	EditLine *el = el_init("nfvctl", stdin, stdout, stderr);
	History *hist = history_init();
	HistEvent ev;
	char hist_path[1024] = "";
	const char *home = getenv("HOME");
	int count, rc = 0;

	if (el == NULL || hist == NULL)
		return 1;
	history(hist, &ev, H_SETSIZE, 1000);
	if (home != NULL) {
		snprintf(hist_path, sizeof(hist_path), "%s/.nfvctl_history", home);
		history(hist, &ev, H_LOAD, hist_path);
	}
	el_set(el, EL_PROMPT, prompt);
	el_set(el, EL_EDITOR, "emacs");
	el_set(el, EL_HIST, history, hist);
	el_source(el, NULL);
	for (;;) {
		const char *in = el_gets(el, &count);
		char *line;

		if (in == NULL)
			break;
		line = strdup(in);
		if (line == NULL)
			break;
		line[strcspn(line, "\r\n")] = '\0';
		if (strcmp(line, "quit") == 0 || strcmp(line, "exit") == 0) {
			free(line);
			break;
		}
		if (line[0] != '\0') {
			history(hist, &ev, H_ENTER, line);
			rc = run_command(line);
			if (rc == 2) {
				free(line);
				break;
			}
		}
		free(line);
	}
	if (hist_path[0] != '\0')
		history(hist, &ev, H_SAVE, hist_path);
	history_end(hist);
	el_end(el);
	return rc == 2 ? 2 : 0;
}

static void
usage(FILE *f)
{
	fprintf(f, "usage: nfvctl [-s SOCKET] [--json] COMMAND...\n"
		   "       nfvctl [-s SOCKET] [--json] -f FILE\n"
		   "       nfvctl [-s SOCKET]            (interactive shell)\n"
		   "Commands: run 'nfvctl help'. Default socket: " NFV_DEFAULT_SOCKET "\n");
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "file", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *path = getenv("NFVD_SOCKET"), *file = NULL;
	int c, rc;

	if (path == NULL)
		path = NFV_DEFAULT_SOCKET;
	/* '+': stop at the first command word so its own options pass through. */
	while ((c = getopt_long(argc, argv, "+s:jf:h", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			path = optarg;
			break;
		case 'j':
			json_out = true;
			break;
		case 'f':
			file = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	signal(SIGPIPE, SIG_IGN);
	if (connect_daemon(path) < 0)
		return 2;
	if (file != NULL) {
		rc = run_file(file);
	} else if (optind < argc && strcmp(argv[optind], "top") == 0) {
		if (json_out) {
			fprintf(stderr, "nfvctl: top is a text view; for JSON use the show "
				"commands (show stats, show workers, show graph, show latency)\n");
			return 1;
		}
		rc = top(argc - optind, argv + optind);
	} else if (optind < argc) {
		char line[MAX_LINE];
		size_t off = 0;

		line[0] = '\0';
		for (int i = optind; i < argc; i++) {
			int n;
			bool quote = strpbrk(argv[i], " \t") != NULL;

			n = snprintf(line + off, sizeof(line) - off, quote ? "%s\"%s\"" : "%s%s",
				     i > optind ? " " : "", argv[i]);
			if (n < 0 || (size_t)n >= sizeof(line) - off) {
				fprintf(stderr, "nfvctl: command too long\n");
				return 1;
			}
			off += (size_t)n;
		}
		rc = run_command(line);
	} else if (isatty(STDIN_FILENO)) {
		rc = shell();
	} else {
		rc = run_file("-");
	}
	close(sock);
	return rc;
}

static json_t *
query(const char *cmd)
{
	int rc;
	json_t *r = request(cmd, &rc), *d;

	if (r == NULL)
		return NULL;
	d = json_incref(json_object_get(r, "data"));
	json_decref(r);
	return d;
}

static int64_t
jint(const json_t *o, const char *k)
{
	return (int64_t)json_integer_value(json_object_get(o, k));
}

/* A counter's growth between two views; when it went back ("stats reset"
 * in between), what it counted since. */
static int64_t
growth(int64_t now, int64_t before)
{
	return now >= before ? now - before : now;
}

static int64_t
since(const json_t *x, const json_t *p, const char *k)
{
	return growth(jint(x, k), jint(p, k));
}

/*
 * nfvctl top [-n ITERATIONS] [-d SECONDS]: a live view refreshed every
 * second: Mpps per port and worker, cycles per packet per node, drops, P99.
 */
static int
top(int argc, char **argv)
{
	json_t *prev_stats = NULL, *prev_graph = NULL, *prev_workers = NULL;
	long iterations = -1;
	double delay = 1.0;
	bool tty = isatty(STDOUT_FILENO);

	for (int i = 1; i < argc; i++) {
		char *end = NULL;

		if (strcmp(argv[i], "-n") == 0 && i + 1 < argc) {
			iterations = strtol(argv[++i], &end, 10);
			if (*end != '\0' || iterations < 1) {
				fprintf(stderr, "nfvctl: top -n: bad count '%s' (at least 1)\n",
					argv[i]);
				return 1;
			}
		} else if (strcmp(argv[i], "-d") == 0 && i + 1 < argc) {
			delay = strtod(argv[++i], &end);
			if (*end != '\0' || !(delay > 0)) {
				fprintf(stderr, "nfvctl: top -d: bad interval '%s'\n", argv[i]);
				return 1;
			}
			if (delay < 0.1)
				delay = 0.1;
		} else {
			fprintf(stderr, "usage: nfvctl top [-n ITERATIONS] [-d SECONDS]\n");
			return 1;
		}
	}
	for (long it = 0; iterations < 0 || it <= iterations; it++) {
		json_t *stats = query("show stats"), *graph = query("show graph");
		json_t *workers = query("show workers"), *lat = query("show latency"), *x;
		size_t i;

		if (stats == NULL || graph == NULL || workers == NULL || lat == NULL)
			return 2;
		if (prev_stats != NULL) {
			if (tty)
				printf("\033[H\033[2J");
			printf("nfvd top   (every %.1fs; q or Ctrl-C to quit)\n\n", delay);
			printf("%-12s %10s %10s %10s %10s %10s\n", "PORT", "RX Mpps", "TX Mpps",
			       "missed/s", "nombuf/s", "errors/s");
			json_array_foreach(json_object_get(stats, "ports"), i, x) {
				json_t *p = json_array_get(json_object_get(prev_stats, "ports"), i);

				if (p == NULL || !json_equal(json_object_get(p, "name"),
							    json_object_get(x, "name")))
					continue;
				printf("%-12s %10.3f %10.3f %10.0f %10.0f %10.0f\n",
				       json_string_value(json_object_get(x, "name")),
				       (double)since(x, p, "rx_packets") / delay / 1e6,
				       (double)since(x, p, "tx_packets") / delay / 1e6,
				       (double)since(x, p, "rx_missed") / delay,
				       (double)since(x, p, "rx_nombuf") / delay,
				       (double)since(x, p, "rx_errors") / delay);
			}
			printf("\n%-8s %6s %10s %10s %8s %8s %8s\n", "WORKER", "LCORE", "RX Mpps",
			       "TX Mpps", "empty%", "rxburst", "txburst");
			json_array_foreach(json_object_get(workers, "workers"), i, x) {
				json_t *p = json_array_get(json_object_get(prev_workers, "workers"),
							   i);
				double polls = p ? (double)since(x, p, "polls") : 0;
				double empty = p ? (double)since(x, p, "empty_polls") : 0;

				if (p == NULL)
					continue;
				printf("%-8zu %6" PRId64 " %10.3f %10.3f %7.1f%% %8.1f %8.1f\n", i,
				       jint(x, "lcore"),
				       (double)since(x, p, "rx_packets") / delay / 1e6,
				       (double)since(x, p, "tx_packets") / delay / 1e6,
				       polls > 0 ? 100.0 * empty / polls : 0.0,
				       json_real_value(json_object_get(x, "rx_burst_avg")),
				       json_real_value(json_object_get(x, "tx_burst_avg")));
			}
			printf("\n%-16s %12s %12s %10s\n", "NODE", "Mpps", "pkts/call", "cyc/pkt");
			json_array_foreach(json_object_get(graph, "nodes"), i, x) {
				json_t *p = json_array_get(json_object_get(prev_graph, "nodes"), i);
				int64_t dp, dc, dcy;

				if (p == NULL)
					continue;
				dp = since(x, p, "packets");
				dc = since(x, p, "calls");
				dcy = since(x, p, "cycles");
				if (dp == 0)
					continue;
				printf("%-16s %12.3f %12.1f %10.1f\n",
				       json_string_value(json_object_get(x, "node")),
				       (double)dp / delay / 1e6, dc ? (double)dp / (double)dc : 0.0,
				       (double)dcy / (double)dp);
			}
			printf("\n%-36s %12s\n", "DROP", "per second");
			json_array_foreach(json_object_get(stats, "drops"), i, x) {
				int64_t before = 0;
				size_t j;
				json_t *p;

				json_array_foreach(json_object_get(prev_stats, "drops"), j, p)
					if (json_equal(json_object_get(p, "node"),
						       json_object_get(x, "node")) &&
					    json_equal(json_object_get(p, "reason"),
						       json_object_get(x, "reason")))
						before = jint(p, "packets");
				printf("%-16s %-19s %12.0f\n",
				       json_string_value(json_object_get(x, "node")),
				       json_string_value(json_object_get(x, "reason")),
				       (double)growth(jint(x, "packets"), before) / delay);
			}
			printf("\nlatency (since the last stats reset): P50 %.0f ns  P99 %.0f ns  "
			       "P99.9 %.0f ns  max %.0f ns\n",
			       json_real_value(json_object_get(lat, "p50_ns")),
			       json_real_value(json_object_get(lat, "p99_ns")),
			       json_real_value(json_object_get(lat, "p999_ns")),
			       json_real_value(json_object_get(lat, "max_ns")));
			fflush(stdout);
		}
		json_decref(prev_stats);
		json_decref(prev_graph);
		json_decref(prev_workers);
		json_decref(lat);
		prev_stats = stats;
		prev_graph = graph;
		prev_workers = workers;
		if (iterations >= 0 && it == iterations)
			break;
		if (tty) {
			struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };

			if (poll(&pfd, 1, (int)(delay * 1000)) > 0) {
				char c;

				if (read(STDIN_FILENO, &c, 1) == 1 && (c == 'q' || c == 'Q'))
					break;
			}
		} else {
			usleep((useconds_t)(delay * 1e6));
		}
	}
	json_decref(prev_stats);
	json_decref(prev_graph);
	json_decref(prev_workers);
	return 0;
}
