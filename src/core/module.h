/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The module registry. A feature is a folder under src/modules/ whose files
 * register, from constructors, everything the core needs to know about it:
 * the module itself (name, depends-on, init/fini, command-line options),
 * its commands (api/command.h), its nodes and where they attach
 * (core/arc.h), its drop reasons (core/drop_reasons.h), its per-worker
 * counters and collectors (core/counters.h), its slice of the mbuf private
 * area (core/meta.h), its timers and file descriptors (core/event.h) and
 * its reactions to interface events (core/iface_event.h). The core walks
 * these registries and names no feature.
 */
#ifndef NFV_MODULE_H
#define NFV_MODULE_H

#include <stdbool.h>
#include <sys/queue.h>

#include <rte_common.h>

/* A command-line option of a module: "--NAME VALUE" after EAL's "--". */
struct nfv_module_option {
	const char *name;
	const char *arg;  /* placeholder in the usage text, e.g. "N" */
	const char *help;
};

struct nfv_module {
	const char *name;
	/* Names of the modules whose init must run first, space-separated. */
	const char *depends_on;
	/* Runs on the main lcore after EAL, before the workers start and the
	 * startup file runs; returns 0 or a negative errno (nfvd does not start). */
	int (*init)(void);
	/* At exit, after the workers stopped and before the ports close, in
	 * the reverse order of init: gives back the mbufs the module holds
	 * (queued, held for later), so that every pool is full when checked. */
	void (*stop)(void);
	/* At exit, after the workers stopped and the ports closed, in the
	 * reverse order of init. */
	void (*fini)(void);
	/* Optional: its command-line options, NULL-terminated by name, and the
	 * function that takes one (value is NULL for options without one);
	 * returns 0 or -EINVAL with a sentence in err. */
	const struct nfv_module_option *options;
	int (*parse_option)(const char *name, const char *value, char *err, size_t len);
	/* Set by the registry. */
	bool initialised;
	STAILQ_ENTRY(nfv_module) next;
};

void nfv_module_register(struct nfv_module *m);

/* For a parse_option: an option's value as a whole number in [min, max]
 * into *out; -EINVAL with "expected MIN-MAX, not 'VALUE'" in err
 * otherwise (value NULL or empty included; nfvd names the option). */
int nfv_module_option_u32(const char *name, const char *value, uint32_t min, uint32_t max,
			  uint32_t *out, char *err, size_t len);

#define NFV_MODULE_REGISTER(m) \
	RTE_INIT(nfv_module_register_##m) \
	{ \
		nfv_module_register(&(m)); \
	}

/* Whether a DPDK secondary process (dpdk-dumpcap, dpdk-proc-info) can
 * attach to this one: EAL on hugepages with a shared configuration (none
 * of --no-huge, --in-memory, --no-shconf). Set by main before the
 * modules' init; false where no main sets it (tests, fuzzing). */
extern bool nfv_eal_secondary_ok;

/* Runs every module's init in depends-on order. On failure, what was
 * initialised is undone and err names the module. */
int nfv_modules_init(char *err, size_t len);
/* Runs the stop of every initialised module, in reverse order. */
void nfv_modules_stop(void);
/* Runs the fini of every initialised module, in reverse order. */
void nfv_modules_fini(void);
/* Iteration, in init order once nfv_modules_init() ran. */
typedef void (*nfv_module_cb)(const struct nfv_module *m, void *arg);
void nfv_modules_walk(nfv_module_cb cb, void *arg);
struct nfv_module *nfv_module_by_name(const char *name);

#endif
