/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfvd: EAL set-up with sane defaults, tables, workers, the startup file,
 * then the control loop (API socket, periodic report) until SIGINT/SIGTERM
 * or --duration; then a clean shutdown that checks every mbuf came home.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <rte_cpuflags.h>
#include <rte_cycles.h>
#include <rte_vect.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_log.h>

#include "api/api.h"
#include "core/event.h"
#include "core/module.h"
#include "core/log.h"
#include "core/worker.h"
#include "api/cmd.h"
#include "api/cmdfile.h"
#include "core/meta.h"
#include "modules/infra/port.h"
#include "core/stats.h"

#define HUGETLBFS_MAGIC 0x958458f6
#define NFV_DEFAULT_SOCKET "/run/nfvd.sock"
#define NFV_MIN_FREE_HUGEPAGES 768 /* 1.5 GiB of 2 MiB pages */


static volatile sig_atomic_t quit;

struct app_opts {
	const char *startup;
	const char *socket;
	double duration;
	double report;
	const char *metrics;
	unsigned int burst;
	unsigned int walk_max;
};

static volatile sig_atomic_t ignored_signal[NSIG]; /* one flag a signal: no read-modify-write */

/* Seconds nfvd has to stop after SIGINT or SIGTERM before it ends itself
 * (a command blocked in a driver, a device handshake that never answers);
 * 0: no limit. --stop-grace. */
#define NFV_STOP_GRACE_DEFAULT 10
static unsigned int stop_grace = NFV_STOP_GRACE_DEFAULT;

static void
say_forced(const char *why)
{
	/* (write(2): async-signal-safe; nothing to do if it fails.) */
	ssize_t rc = write(STDERR_FILENO, why, strlen(why));

	(void)rc;
}

/* The first SIGINT / SIGTERM asks for the orderly stop (drain, close,
 * count the mbufs) and arms the grace timer; a second one, or the timer,
 * ends the process at once by the signal's default action: a supervisor
 * sees it killed by that signal, and no clean-up runs. */
/* Set by the first SIGINT / SIGTERM (quit is also set by --duration). */
static volatile sig_atomic_t signalled;

static void
on_signal(int sig)
{
	if (signalled) {
		say_forced("nfvd: second signal: stopping now, without clean-up\n");
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	signalled = 1;
	quit = sig;
	alarm(stop_grace);
}

static void
on_stop_timeout(int sig)
{
	RTE_SET_USED(sig);
	say_forced("nfvd: not stopped within --stop-grace after the signal: "
		   "stopping now, without clean-up\n");
	signal(SIGTERM, SIG_DFL);
	raise(SIGTERM);
}

/* SIGHUP (a closed terminal, a log-rotation hook) and SIGUSR1/2 would end
 * the process by default, with no drain and no clean-up: a router stays up
 * and says so. */
static void
on_ignored_signal(int sig)
{
	ignored_signal[sig] = 1;
}

static void
usage_module(const struct nfv_module *m, void *arg)
{
	for (const struct nfv_module_option *o = m->options; o != NULL && o->name != NULL; o++) {
		char head[64];

		snprintf(head, sizeof(head), "--%s%s%s", o->name, o->arg ? " " : "",
			 o->arg ? o->arg : "");
		/* (A head longer than its column goes on a line of its own.) */
		if (strlen(head) > 18)
			fprintf(arg, "      %s\n      %-19s%s\n", head, "", o->help);
		else
			fprintf(arg, "      %-19s%s\n", head, o->help);
	}
}

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: nfvd [EAL options] -- [-c STARTUP_FILE] [-s SOCKET] [options]\n"
		"  -c, --config FILE      run the commands of FILE at start (one per line)\n"
		"  -s, --socket PATH      API socket (default " NFV_DEFAULT_SOCKET ")\n"
		"  -t, --duration SEC     exit cleanly after SEC seconds\n"
		"  -r, --report SEC       print a traffic line every SEC seconds\n"
		"  -b, --burst N          RX burst size (default %u, max %u)\n"
		"      --walk-max N       packets one graph walk may poll (default: the burst);\n"
		"                         full queues are polled again up to N\n"
		"  -m, --metrics ADDR:PORT  serve Prometheus metrics at http://ADDR:PORT/metrics\n"
		"      --stop-grace SEC   after SIGINT/SIGTERM, stop without clean-up if the\n"
		"                         orderly stop takes longer (default %u; 0: wait)\n"
		"  -h, --help             this text\n",
		NFV_BURST_DEFAULT, NFV_BURST_MAX, NFV_STOP_GRACE_DEFAULT);
	nfv_modules_walk(usage_module, f);
	fprintf(f, "Without EAL options nfvd runs control on the first core and a worker on\n"
		"each other core, on hugepages when enough are free, else --no-huge.\n");
}

/* Module options take long option values from here on. */
#define OPT_MODULE_BASE 1000
#define OPTS_MAX 64

struct module_opt {
	struct nfv_module *module;
	const char *name;
};

struct opt_table {
	struct option longopts[OPTS_MAX + 1];
	struct module_opt mod[OPTS_MAX];
	unsigned int n;
	unsigned int n_mod;
};

static void
collect_module_opts(const struct nfv_module *m, void *arg)
{
	struct opt_table *t = arg;

	for (const struct nfv_module_option *o = m->options; o != NULL && o->name != NULL; o++) {
		if (t->n == OPTS_MAX)
			return;
		t->mod[t->n_mod] = (struct module_opt){ (struct nfv_module *)m, o->name };
		t->longopts[t->n++] = (struct option){ o->name,
			o->arg != NULL ? required_argument : no_argument, NULL,
			OPT_MODULE_BASE + (int)t->n_mod };
		t->n_mod++;
	}
}

static int
parse_app_opts(int argc, char **argv, struct app_opts *o)
{
	static const struct option core_opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "socket", required_argument, NULL, 's' },
		{ "duration", required_argument, NULL, 't' },
		{ "report", required_argument, NULL, 'r' },
		{ "burst", required_argument, NULL, 'b' },
		{ "metrics", required_argument, NULL, 'm' },
		{ "walk-max", required_argument, NULL, 3 },
		{ "stop-grace", required_argument, NULL, 4 },
		{ "help", no_argument, NULL, 'h' },
	};
	struct opt_table t = { .n = 0 };
	int c;
	char *end;

	for (size_t i = 0; i < RTE_DIM(core_opts); i++)
		t.longopts[t.n++] = core_opts[i];
	nfv_modules_walk(collect_module_opts, &t);
	memset(&t.longopts[t.n], 0, sizeof(t.longopts[t.n]));
	optind = 1;
	while ((c = getopt_long(argc, argv, "c:s:t:r:b:m:h", t.longopts, NULL)) != -1) {
		if (c >= OPT_MODULE_BASE && c < OPT_MODULE_BASE + (int)t.n_mod) {
			const struct module_opt *mo = &t.mod[c - OPT_MODULE_BASE];
			char err[NFV_ERR_LEN];

			if (mo->module->parse_option(mo->name, optarg, err, sizeof(err)) < 0) {
				fprintf(stderr, "nfvd: --%s: %s\n", mo->name, err);
				return -1;
			}
			continue;
		}
		switch (c) {
		case 'c':
			o->startup = optarg;
			break;
		case 's':
			o->socket = optarg;
			break;
		case 't':
			o->duration = strtod(optarg, &end);
			if (*end != '\0' || o->duration <= 0) {
				fprintf(stderr, "nfvd: bad --duration '%s'\n", optarg);
				return -1;
			}
			break;
		case 'r':
			o->report = strtod(optarg, &end);
			if (*end != '\0' || o->report <= 0) {
				fprintf(stderr, "nfvd: bad --report '%s'\n", optarg);
				return -1;
			}
			break;
		case 'm':
			o->metrics = optarg;
			break;
		case 'b':
			o->burst = (unsigned int)strtoul(optarg, &end, 10);
			if (*end != '\0' || o->burst == 0 || o->burst > NFV_BURST_MAX) {
				fprintf(stderr, "nfvd: bad --burst '%s' (1-%u)\n", optarg,
					NFV_BURST_MAX);
				return -1;
			}
			break;
		case 3:
			o->walk_max = (unsigned int)strtoul(optarg, &end, 10);
			if (*end != '\0' || o->walk_max == 0 || o->walk_max > NFV_BURST_MAX) {
				fprintf(stderr, "nfvd: bad --walk-max '%s' (1-%u)\n", optarg,
					NFV_BURST_MAX);
				return -1;
			}
			break;
		case 4: {
			unsigned long v = strtoul(optarg, &end, 10);

			if (*end != '\0' || optarg[0] == '-' || v > 86400) {
				fprintf(stderr, "nfvd: bad --stop-grace '%s' (0-86400 seconds)\n",
					optarg);
				return -1;
			}
			stop_grace = (unsigned int)v;
			break;
		}
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "nfvd: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	return 0;
}

static long
free_hugepages_2m(void)
{
	FILE *f = fopen("/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages", "r");
	long n = 0;

	if (f == NULL)
		return 0;
	if (fscanf(f, "%ld", &n) != 1)
		n = 0;
	fclose(f);
	return n;
}

static bool
hugetlbfs_mounted(void)
{
	FILE *f = fopen("/proc/mounts", "r");
	char line[512];
	bool found = false;

	if (f == NULL)
		return false;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strstr(line, " hugetlbfs ") != NULL)
			found = true;
	fclose(f);
	return found;
}

static bool
has_arg(int argc, char **argv, const char *a)
{
	for (int i = 0; i < argc; i++)
		if (strncmp(argv[i], a, strlen(a)) == 0)
			return true;
	return false;
}

/* Builds the EAL argument vector: the user's, or our defaults. */
static int
eal_args(int argc, char **argv, char **out, int max, int *app_start)
{
	static char lcores[32], mem[16];
	int n = 0, sep = -1;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			sep = i;
			break;
		}
	out[n++] = argv[0];
	if (sep > 1) {
		/* The user's EAL options; check the classic failures first. */
		for (int i = 1; i < sep && n < max - 1; i++)
			out[n++] = argv[i];
		if (!has_arg(sep, argv, "--no-huge")) {
			if (!hugetlbfs_mounted()) {
				fprintf(stderr, "nfvd: no hugetlbfs mounted: run 'mkdir -p "
					"/dev/hugepages && mount -t hugetlbfs nodev "
					"/dev/hugepages', "
					"or add --no-huge to the EAL options\n");
				return -1;
			}
			if (free_hugepages_2m() == 0 &&
			    access("/sys/kernel/mm/hugepages/hugepages-1048576kB", F_OK) != 0) {
				fprintf(stderr, "nfvd: no free hugepages: run 'echo 1024 > "
					"/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages', "
					"or add --no-huge to the EAL options\n");
				return -1;
			}
		}
		*app_start = sep;
		return n;
	}
	if (ncpu < 2)
		ncpu = 2;
	snprintf(lcores, sizeof(lcores), "0-%ld", ncpu - 1);
	out[n++] = "-l";
	out[n++] = lcores;
	if (!hugetlbfs_mounted() || free_hugepages_2m() < NFV_MIN_FREE_HUGEPAGES) {
		fprintf(stderr, "nfvd: warning: %s; running with --no-huge (slower; fine for "
			"virtual ports)\n",
			hugetlbfs_mounted() ? "fewer than 768 free 2 MB hugepages" :
			"no hugetlbfs mounted");
		snprintf(mem, sizeof(mem), "%d", 2048);
		out[n++] = "--no-huge";
		out[n++] = "-m";
		out[n++] = mem;
		out[n++] = "--no-shconf"; /* --in-memory is refused with --no-huge */
	} else {
		out[n++] = "--in-memory"; /* no hugepage files left behind */
	}
	*app_start = sep < 0 ? argc : sep;
	return n;
}

/*
 * The EAL's runtime directory goes at exit when the run left it empty
 * (--in-memory / --no-shconf keep nothing there). Registered before
 * rte_eal_init() so that it runs after the telemetry library's own exit
 * handler has removed its socket.
 */
static char runtime_dir[PATH_MAX];

static void
remove_runtime_dir(void)
{
	if (runtime_dir[0] != '\0')
		(void)rmdir(runtime_dir);
}

static int
run_startup(const char *path)
{
	struct nfv_cmdfile cf;
	char err[256], *line;
	int rc, n;

	rc = nfv_cmdfile_open(&cf, path, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "nfvd: startup file: %s\n", err);
		return rc;
	}
	while ((n = nfv_cmdfile_next(&cf, &line, err, sizeof(err))) > 0) {
		struct nfv_reply r;

		if (quit) {
			/* Stopped while starting: the rest is not applied. */
			NFV_LOG(NOTICE, "%s: stopped by signal %s before line %u", path,
				strsignal(quit), cf.lineno);
			break;
		}

		rc = nfv_cmd_exec(line, &r);
		if (rc < 0) {
			fprintf(stderr, "nfvd: %s:%u: %s\n", path, cf.lineno, r.err);
			nfv_reply_clear(&r);
			break;
		}
		nfv_reply_clear(&r);
	}
	if (n < 0) {
		fprintf(stderr, "nfvd: %s: %s\n", path, err);
		rc = n;
	}
	nfv_cmdfile_close(&cf);
	return rc;
}

static void
print_summary(void)
{
	json_t *s = nfv_stats_json();
	json_t *pk = json_object_get(s, "packets");
	json_t *ports = json_object_get(s, "ports"), *p;
	size_t i;

	printf("summary: received %" JSON_INTEGER_FORMAT " forwarded %" JSON_INTEGER_FORMAT
	       " dropped %" JSON_INTEGER_FORMAT "\n",
	       json_integer_value(json_object_get(pk, "received")),
	       json_integer_value(json_object_get(pk, "forwarded")),
	       json_integer_value(json_object_get(pk, "dropped")));
	json_array_foreach(ports, i, p)
		printf("  port %-10s rx %" JSON_INTEGER_FORMAT " tx %" JSON_INTEGER_FORMAT
		       " missed %" JSON_INTEGER_FORMAT "\n",
		       json_string_value(json_object_get(p, "name")),
		       json_integer_value(json_object_get(p, "rx_packets")),
		       json_integer_value(json_object_get(p, "tx_packets")),
		       json_integer_value(json_object_get(p, "rx_missed")));
	json_array_foreach(json_object_get(s, "drops"), i, p)
		printf("  drop %s/%s: %" JSON_INTEGER_FORMAT "\n",
		       json_string_value(json_object_get(p, "node")),
		       json_string_value(json_object_get(p, "reason")),
		       json_integer_value(json_object_get(p, "packets")));
	json_decref(s);
	fflush(stdout);
}

/* The control loop's timers. */
static uint64_t report_start;

static void
stats_sample(void *arg)
{
	nfv_ctl_lock();
	nfv_stats_sample();
	nfv_ctl_unlock();
}

static void
pools_reap(void *arg)
{
	nfv_ctl_lock();
	nfv_ports_reap_pools(false);
	nfv_ctl_unlock();
}

static void
report_line(void *arg)
{
	double interval = *(const double *)arg;
	char line[1024];

	nfv_ctl_lock();
	nfv_stats_report_line(interval, line, sizeof(line));
	nfv_ctl_unlock();
	printf("%6.1fs  %s\n", (double)(rte_get_tsc_cycles() - report_start) /
	       (double)rte_get_tsc_hz(), line);
	fflush(stdout);
}

static void
duration_over(void *arg)
{
	quit = SIGTERM;
}

int
main(int argc, char **argv)
{
	struct app_opts o = {
		.socket = NFV_DEFAULT_SOCKET,
		.burst = NFV_BURST_DEFAULT,
	};
	char err[NFV_ERR_LEN];
	char *eal_argv[128];
	int eal_argc, app_start = argc, rc, exit_code = 0;
	unsigned int lost;
	bool summary = false;

	if (argc > 1 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
		usage(stdout);
		return 0;
	}
	eal_argc = eal_args(argc, argv, eal_argv, RTE_DIM(eal_argv) - 1, &app_start);
	if (eal_argc < 0)
		return 1;
	eal_argv[eal_argc] = NULL;
	nfv_eal_secondary_ok = !has_arg(eal_argc, eal_argv, "--no-huge") &&
			       !has_arg(eal_argc, eal_argv, "--in-memory") &&
			       !has_arg(eal_argc, eal_argv, "--no-shconf");
	{
		/* Application options come after "--" (or alone). */
		int app_argc = 1;
		char *app_argv[64] = { argv[0] };

		for (int i = app_start + (app_start < argc && strcmp(argv[app_start], "--") == 0);
		     i < argc && app_argc < 63; i++)
			app_argv[app_argc++] = argv[i];
		if (app_start == argc)
			for (int i = 1; i < argc && app_argc < 63; i++)
				app_argv[app_argc++] = argv[i];
		if (parse_app_opts(app_argc, app_argv, &o) < 0)
			return 1;
	}

	atexit(remove_runtime_dir);
	rc = rte_eal_init(eal_argc, eal_argv);
	if (rc < 0) {
		fprintf(stderr, "nfvd: EAL initialisation failed: %s. Check hugepages (grep Huge "
			"/proc/meminfo; mount -t hugetlbfs nodev /dev/hugepages), that no other "
			"DPDK process uses the same --file-prefix, and run as root\n",
			rte_strerror(rte_errno));
		return 1;
	}
	snprintf(runtime_dir, sizeof(runtime_dir), "%s", rte_eal_get_runtime_dir());
	/* Let the FIB use AVX-512 where the CPU has it (DPDK caps SIMD at 256
	 * bits unless told otherwise; --force-max-simd-bitwidth still wins). */
	if (rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX512F) == 1)
		rte_vect_set_max_simd_bitwidth(RTE_VECT_SIMD_512);
	nfv_logtype = rte_log_register_type_and_pick_level("nfvd", RTE_LOG_INFO);
	if (nfv_logtype < 0)
		nfv_logtype = RTE_LOGTYPE_USER1;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGALRM, on_stop_timeout);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGHUP, on_ignored_signal);
	signal(SIGUSR1, on_ignored_signal);
	signal(SIGUSR2, on_ignored_signal);

	if (nfv_meta_register() < 0)
		goto init_failed;
	if (nfv_modules_init(err, sizeof(err)) < 0) {
		fprintf(stderr, "nfvd: %s\n", err);
		goto init_failed;
	}
	if (nfv_workers_init(o.burst, o.walk_max) < 0 || nfv_workers_start() < 0) {
init_failed:
		fprintf(stderr, "nfvd: initialisation failed (see above)\n");
		exit_code = 1;
		goto out_workers;
	}
	NFV_LOG(INFO, "%u worker(s), burst %u, main lcore %u", nfv_n_workers, o.burst,
		rte_get_main_lcore());
	if (o.startup != NULL && run_startup(o.startup) < 0) {
		exit_code = 1;
		goto out_ports;
	}
	if (quit)
		goto out_ports; /* a signal while starting: stop as from the loop */
	nfv_workers_enable_polling();
	if (nfv_api_open(o.socket) < 0) {
		exit_code = 1;
		goto out_ports;
	}
	if (nfv_telemetry_init() != 0)
		NFV_LOG(WARNING, "telemetry commands /nfvd/* not registered");
	if (o.metrics != NULL) {
		char err[256];

		if (nfv_metrics_start(o.metrics, err, sizeof(err)) < 0) {
			fprintf(stderr, "nfvd: %s\n", err);
			exit_code = 1;
			nfv_api_close();
			goto out_ports;
		}
		NFV_LOG(INFO, "metrics at http://%s/metrics", o.metrics);
	}
	NFV_LOG(INFO, "ready; API socket %s", o.socket);
	{
		bool any_port = false;

		for (uint16_t pid = 0; pid < RTE_MAX_ETHPORTS; pid++)
			any_port |= nfv_ports[pid].used;
		if (!any_port)
			NFV_LOG(WARNING, "no ports yet: add one with 'nfvctl -s %s port add NAME dev "
				"DEVARGS' (a PCI address bound to vfio-pci, or a virtual device)",
				o.socket);
	}
	fflush(stdout);

	if (nfv_timer_add("stats-sample", 1.0, false, stats_sample, NULL) == NULL ||
	    nfv_timer_add("pool-reap", 0.05, false, pools_reap, NULL) == NULL ||
	    (o.report > 0 &&
	     nfv_timer_add("report", o.report, false, report_line, &o.report) == NULL) ||
	    (o.duration > 0 &&
	     nfv_timer_add("duration", o.duration, true, duration_over, NULL) == NULL)) {
		fprintf(stderr, "nfvd: out of memory\n");
		quit = SIGTERM;
	}
	report_start = rte_get_tsc_cycles();
	while (!quit) {
		nfv_event_run_once(50);
		for (int sig = 1; sig < NSIG; sig++) {
			if (!ignored_signal[sig])
				continue;
			ignored_signal[sig] = 0;
			NFV_LOG(NOTICE, "signal %s ignored: nfvd stops on SIGINT or SIGTERM",
				strsignal(sig));
		}
	}
	nfv_metrics_stop();
	nfv_api_close();
	summary = o.report > 0 || o.duration > 0;
out_ports:
	nfv_workers_stop();
	nfv_modules_stop();
	/* After the workers stopped, before the ports close: the counters of
	 * one still moment, which add up. */
	if (summary)
		print_summary();
	lost = nfv_ports_close_all();
	if (lost != 0) {
		NFV_LOG(ERR, "exit: %u mbufs not returned to their pools", lost);
		exit_code = exit_code ? exit_code : 3;
	} else if (nfv_ports_driver_held() != 0) {
		NFV_LOG(INFO, "exit: all mbufs returned to their pools (%u were lent to the "
			"af_xdp kernel fill rings and went with the umem)",
			nfv_ports_driver_held());
	} else {
		NFV_LOG(INFO, "exit: all mbufs returned to their pools");
	}
	nfv_modules_fini();
	nfv_event_fini();
	rte_eal_cleanup();
	return exit_code;
out_workers:
	nfv_modules_fini();
	nfv_event_fini();
	rte_eal_cleanup();
	return exit_code;
}
