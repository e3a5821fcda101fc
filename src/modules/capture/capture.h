/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Packet capture to pcapng files:
 *
 *	capture start dev IF [in|out|both] file FILE.pcapng [filter "EXPR"] [count N]
 *	capture stop [dev IF]
 *
 * The frames a port receives (as received: the l2_input arc) and/or sends
 * (as sent: the l2_output arc) that match the filter (tcpdump syntax,
 * compiled by libpcap for Ethernet, converted to eBPF by rte_bpf_convert
 * and run by rte_bpf, JIT-compiled where the CPU allows) are copied by the
 * worker with rte_pcapng_copy (timestamp, direction, queue) into the
 * capture's own pool and put on its ring; the control thread drains the
 * ring on its event loop and writes the file (rte_pcapng). A worker never
 * waits for the file: a full ring or an empty pool costs the copy, counted.
 * "count N" ends the capture after N frames written; "capture stop" returns
 * once the file is complete and closed.
 *
 * IF may be a VLAN sub-interface: its frames as the sub-interface has them,
 * untagged (as "tcpdump -i eth0.10" shows them), the filter run on them so:
 * in, on the vlan_l2_input arc (vlan_input has removed the tag); out, a TX
 * callback on its port that takes the frames tagged with its VLAN id and
 * filters and copies them untagged. The file names the sub-interface.
 *
 * IF may be a bridge or a VXLAN tunnel: bridge_input, which all their
 * frames pass, hands them over (a tap, modules/bridge/bridge.h): a
 * tunnel's inner frames in and out, a bridge's frames to and from its own
 * interface. The file names the interface.
 */
#ifndef NFV_CAPTURE_H
#define NFV_CAPTURE_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>
#include <rte_bpf.h>
#include <rte_config.h>
#include <rte_cycles.h>
#include <rte_mbuf.h>
#include <rte_pcapng.h>
#include <rte_ring.h>

#include "core/counters.h"
#include "core/meta.h"
#include "core/worker.h"
#include "modules/vlan/vlan.h"

#define NFV_CAPTURE_MAX 8

struct bpf_insn;

enum nfv_capture_dir {
	NFV_CAPTURE_IN,
	NFV_CAPTURE_OUT,
	NFV_CAPTURE_DIRS,
};

/* What the workers read of a capture (immutable while published). */
struct nfv_capture_dp {
	struct rte_ring *ring;         /* multi-producer, single consumer */
	struct rte_mempool *pool;      /* the copies */
	struct rte_bpf *bpf;           /* NULL: every frame */
	uint64_t (*jit)(void *);       /* the filter's native code, NULL: interpreted */
	uint32_t snaplen;
	uint16_t slot;                 /* its counters */
	uint16_t port;                 /* the port its frames use (a VLAN's parent) */
	uint64_t gen;                  /* unique to this capture (class caches) */
	const struct bpf_insn *prog;   /* the filter as libpcap compiled it (classic BPF) */
	uint32_t prog_len;
};

/*
 * A per-worker cache of frame classes in front of a capture's filter. A
 * frame's class is its bytes 12-14 and 20 and 23 (ethertype, IPv4 version
 * and header length, IPv6 next header or the IPv4 fragment bits, IPv4
 * protocol): the bytes libpcap's programs test first. When the filter
 * rejects a frame having read nothing else (nfv_capture_class_rejects), the
 * class is cached as rejected and the next frames of that class cost a
 * load, a hash and a compare; a class whose frames the filter must read
 * further is cached as such, so that the check is not made again.
 */
#define NFV_CAPTURE_CLASSES 16
#define NFV_CAPTURE_CLASS_REJECT (UINT64_C(1) << 63)
#define NFV_CAPTURE_CLASS_FILTER (UINT64_C(1) << 62)

struct nfv_capture_classes {
	uint64_t gen;                          /* the capture whose classes these are */
	uint64_t key[NFV_CAPTURE_CLASSES];     /* class | REJECT or FILTER; 0: empty */
	/* Bytes 8-23 of the last frame found of a rejected class (has_last):
	 * the next burst starts with its tight loop. */
	uint8_t last[16] __rte_aligned(16);
	uint8_t has_last;
} __rte_cache_aligned;

extern struct nfv_capture_classes nfv_capture_classes[NFV_MAX_WORKERS][NFV_CAPTURE_MAX];

bool nfv_capture_class_rejects(const struct bpf_insn *prog, uint32_t n, const uint8_t *p,
			       uint32_t len);

/* A frame's class (bytes 12-14, 20 and 23; the frame has 24 bytes at least). */
static __rte_always_inline uint64_t
nfv_capture_class(struct rte_mbuf *m)
{
	const uint8_t *b = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t head;

	memcpy(&head, b + 12, 4);
	return (uint64_t)(head & 0xffffff) | (uint64_t)b[20] << 24 | (uint64_t)b[23] << 32;
}

/* In front of the class cache, the class of the last frame rejected by it,
 * compared in one SSE4.1 test (the usual burst: frames of one class). */
#if defined(RTE_ARCH_X86) && defined(__SSE4_1__)
#include <smmintrin.h>
#define NFV_CAPTURE_LAST_CLASS 1
#else
#define NFV_CAPTURE_LAST_CLASS 0
#endif

static __rte_always_inline uint32_t
nfv_capture_class_slot(uint64_t cls)
{
	return (uint32_t)((cls * 0x5bd1e995u) >> 28) & (NFV_CAPTURE_CLASSES - 1);
}

/* The capture of (direction, interface: a port or a VLAN), NULL: none.
 * RCU: workers read it once per frame within a walk; control frees it
 * after a grace period. */
extern struct nfv_capture_dp *nfv_capture_of[NFV_CAPTURE_DIRS][NFV_IFACE_MAX];

/* Per worker, per capture slot. */
struct nfv_capture_counters {
	uint64_t matched[NFV_CAPTURE_MAX];      /* copied to the ring */
	uint64_t filtered[NFV_CAPTURE_MAX];     /* did not match the filter */
	uint64_t ring_drops[NFV_CAPTURE_MAX];   /* ring full */
	uint64_t nombuf[NFV_CAPTURE_MAX];       /* no mbuf for the copy */
};
extern struct nfv_counter_block nfv_capture_counters_block;

/* Wall time of a TSC reading: a reference taken at start (read only). */
struct nfv_capture_clock {
	uint64_t tsc;
	uint64_t ns;
	uint64_t hz;
};
extern struct nfv_capture_clock nfv_capture_clock;

static inline uint64_t
nfv_capture_ns(uint64_t tsc)
{
	const struct nfv_capture_clock *k = &nfv_capture_clock;
	uint64_t d = tsc - k->tsc, secs = d / k->hz;

	return k->ns + secs * NS_PER_S + (d - secs * k->hz) * NS_PER_S / k->hz;
}

/* The pcapng enhanced packet block that starts a copy (RFC draft
 * "PCAP Next Generation", 4.3): its timestamp is set again from our clock. */
struct nfv_pcapng_epb {
	uint32_t block_type;
	uint32_t block_length;
	uint32_t interface_id;
	uint32_t timestamp_hi;
	uint32_t timestamp_lo;
};

struct nfv_capture_args {
	const char *dev;
	unsigned int dirs;   /* bits of enum nfv_capture_dir */
	const char *file;
	const char *filter;  /* NULL: none */
	uint64_t count;      /* 0: no limit */
};

int nfv_capture_start(const struct nfv_capture_args *a, json_t **out, char *err);
int nfv_capture_stop(const char *dev, json_t **out, char *err);
json_t *nfv_capture_show(void);

/* A run of frames of one capture: the copies go on its ring, the counts
 * into its counters, once per run. */
struct nfv_capture_run {
	const struct nfv_capture_dp *s;
	unsigned int k;        /* copies */
	uint32_t filtered;
	uint32_t nombuf;
	uint64_t tsc, ns;      /* the copies' time, taken at the first */
	struct rte_mbuf *copies[64];
};

static __rte_always_inline void
nfv_capture_flush(struct nfv_capture_counters *c, struct nfv_capture_run *r)
{
	const struct nfv_capture_dp *s = r->s;
	unsigned int done;

	if (s == NULL)
		return;
	c->filtered[s->slot] += r->filtered;
	c->nombuf[s->slot] += r->nombuf;
	r->filtered = r->nombuf = 0;
	if (r->k == 0)
		return;
	done = rte_ring_mp_enqueue_burst(s->ring, (void **)r->copies, r->k, NULL);
	c->matched[s->slot] += done;
	if (unlikely(done < r->k)) {
		c->ring_drops[s->slot] += r->k - done;
		rte_pktmbuf_free_bulk(r->copies + done, r->k - done);
	}
	r->k = 0;
}

static __rte_always_inline uint16_t
nfv_capture_port(struct rte_mbuf *m, enum nfv_capture_dir dir)
{
	return dir == NFV_CAPTURE_IN ? m->port : nfv_meta(m)->tx_port;
}

/* Copies frame m (which matched run->s's filter) into the run. */
static __rte_noinline __rte_unused void
nfv_capture_copy(struct nfv_worker *w, struct nfv_capture_counters *c, struct nfv_capture_run *r,
		 struct rte_mbuf *m, uint16_t port, enum nfv_capture_dir dir)
{
	const struct nfv_capture_dp *s = r->s;
	struct rte_mbuf *copy;
	struct nfv_pcapng_epb *epb;

	if (r->k == RTE_DIM(r->copies)) {
		nfv_capture_flush(c, r);
		r->s = s;
	}
	if (r->tsc == 0) {
		r->tsc = rte_rdtsc();
		r->ns = nfv_capture_ns(r->tsc);
	}
	copy = rte_pcapng_copy(port, w->index, m, s->pool, s->snaplen, r->tsc,
			       dir == NFV_CAPTURE_IN ? RTE_PCAPNG_DIRECTION_IN :
			       RTE_PCAPNG_DIRECTION_OUT);
	if (unlikely(copy == NULL)) {
		r->nombuf++;
		return;
	}
	epb = rte_pktmbuf_mtod(copy, struct nfv_pcapng_epb *);
	epb->timestamp_hi = (uint32_t)(r->ns >> 32);
	epb->timestamp_lo = (uint32_t)r->ns;
	r->copies[r->k++] = copy;
}

#if NFV_CAPTURE_LAST_CLASS
/* The class bytes (12-14, 20, 23) among a frame's bytes 8-23. */
#define NFV_CAPTURE_CLASS_MASK \
	_mm_setr_epi8(0, 0, 0, 0, -1, -1, -1, 0, 0, 0, 0, 0, -1, 0, 0, -1)

/* Whether m is of port p0 (when it must be said), has 24 bytes at least
 * and the class whose bytes 8-23 are last. */
static __rte_always_inline bool
nfv_capture_same(struct rte_mbuf *m, enum nfv_capture_dir dir, uint16_t p0, const bool one_port,
		 __m128i last)
{
	if ((!one_port && nfv_capture_port(m, dir) != p0) || rte_pktmbuf_data_len(m) < 24)
		return false;
	return _mm_testz_si128(_mm_xor_si128(_mm_loadu_si128((const __m128i *)
		rte_pktmbuf_mtod_offset(m, const uint8_t *, 8)), last), NFV_CAPTURE_CLASS_MASK);
}

/*
 * The first frame of pkts[i..n) that is not of port p0 (when it must be
 * said), shorter than 24 bytes or not of the class whose bytes 8-23 are
 * last (a class the filter rejects): the frames before it need no filter.
 * Four frames at a time, their differences from last OR-ed and tested
 * once; a group that fails is gone over again frame by frame.
 */
static __rte_always_inline uint16_t
nfv_capture_skip(struct rte_mbuf **pkts, uint16_t i, uint16_t n, enum nfv_capture_dir dir,
		 uint16_t p0, const bool one_port, __m128i last)
{
	struct rte_mbuf **p = pkts + i, **end = pkts + n;

	/* Frame k of the group: out of the group loop when it is not of the
	 * port or too short, else its difference from last in d. */
#define CAPTURE_SKIP_DIFF(k, d) do { \
		struct rte_mbuf *m_ = p[k]; \
		if ((!one_port && nfv_capture_port(m_, dir) != p0) || \
		    rte_pktmbuf_data_len(m_) < 24) \
			goto one_by_one; \
		d = _mm_xor_si128(_mm_loadu_si128((const __m128i *) \
			rte_pktmbuf_mtod_offset(m_, const uint8_t *, 8)), last); \
	} while (0)
	for (; p + 4 <= end; p += 4) {
		__m128i d0, d1, d2, d3;

		CAPTURE_SKIP_DIFF(0, d0);
		CAPTURE_SKIP_DIFF(1, d1);
		CAPTURE_SKIP_DIFF(2, d2);
		CAPTURE_SKIP_DIFF(3, d3);
		if (!_mm_testz_si128(_mm_or_si128(_mm_or_si128(d0, d1), _mm_or_si128(d2, d3)),
				     NFV_CAPTURE_CLASS_MASK))
			break;
	}
#undef CAPTURE_SKIP_DIFF
one_by_one:
	for (; p < end; p++)
		if (!nfv_capture_same(*p, dir, p0, one_port, last))
			break;
	return (uint16_t)(p - pkts);
}
#endif

/* Whether m passes capture s's filter. */
static __rte_always_inline bool
nfv_capture_match(const struct nfv_capture_dp *s, struct rte_mbuf *m)
{
	if (s->bpf == NULL)
		return true;
	return (s->jit != NULL ? s->jit(m) : rte_bpf_exec(s->bpf, m)) != 0;
}

/*
 * The frames of pkts[] that the capture of their port (receiving or
 * output) wants: filter, copy, ring. While the frames are of the first
 * frame's port (the usual burst), the loop is the filter call and a count;
 * from the first frame of another port on, the capture is looked up again
 * whenever the port changes. Counters are added once per run of one
 * capture. The originals are only read. Returns true when every frame was
 * of the first one's port (*port0). With one_port, *port0 names the
 * frames' interface (a port; a bridge or a tunnel for bridge_input's tap,
 * datapath/capture_tap.c); copies carry the capture's port (dp->port).
 */
static __rte_always_inline bool
nfv_capture_frames(struct nfv_worker *w, struct rte_mbuf **pkts, uint16_t n,
		   enum nfv_capture_dir dir, uint16_t *port0, const bool one_port)
{
	struct nfv_capture_counters *c = nfv_worker_counters(w, &nfv_capture_counters_block);
	struct nfv_capture_run run;
	const struct nfv_capture_dp *s;
	uint32_t last_port;
	uint16_t i = 0, p0;

	if (unlikely(n == 0))
		return false;
	p0 = one_port ? *port0 : nfv_capture_port(pkts[0], dir);
	*port0 = p0;
	s = p0 < NFV_IFACE_MAX ? __atomic_load_n(&nfv_capture_of[dir][p0], __ATOMIC_ACQUIRE) :
	    NULL;
	run.s = s;
	run.k = run.filtered = run.nombuf = 0;
	run.tsc = 0;
	if (likely(s != NULL && s->bpf != NULL)) {
		struct nfv_capture_classes *cc = &nfv_capture_classes[w->index][s->slot];
		uint64_t (*jit)(void *) = s->jit;
		uint64_t *keys = cc->key, reject = NFV_CAPTURE_CLASS_REJECT;
		uint16_t start = i, matched = 0;

		if (unlikely(cc->gen != s->gen)) {
			memset(cc->key, 0, sizeof(cc->key));
			cc->has_last = 0;
			cc->gen = s->gen;
		}
#if NFV_CAPTURE_LAST_CLASS
		/* The usual burst: frames of the class rejected last. */
		if (likely(cc->has_last))
			i = nfv_capture_skip(pkts, i, n, dir, p0, one_port,
					     _mm_load_si128((const __m128i *)cc->last));
#endif

		/* Kept in registers (the compiler would rebuild them per frame). */
		__asm__("" : "+r"(keys), "+r"(reject));
		for (; i < n; i++) {
			struct rte_mbuf *m = pkts[i];
			uint64_t cls = 0, *slot = NULL;

			if (!one_port && unlikely(nfv_capture_port(m, dir) != p0))
				break;
			if (likely(rte_pktmbuf_data_len(m) >= 24)) {
				cls = nfv_capture_class(m);
				slot = &keys[nfv_capture_class_slot(cls)];
				if (likely(*slot == (cls | reject))) {
#if NFV_CAPTURE_LAST_CLASS
					/* Its class is the last one now: the
					 * frames after it of that class and port
					 * in the tight loop. */
					__m128i x = _mm_loadu_si128((const __m128i *)
						rte_pktmbuf_mtod_offset(m, const uint8_t *, 8));

					_mm_store_si128((__m128i *)cc->last, x);
					cc->has_last = 1;
					i = (uint16_t)(nfv_capture_skip(pkts, (uint16_t)(i + 1), n, dir,
									p0, one_port, x) - 1);
#endif
					continue;
				}
			}
			if ((jit != NULL ? jit(m) : rte_bpf_exec(s->bpf, m)) != 0) {
				matched++;
				nfv_capture_copy(w, c, &run, m, s->port, dir);
				continue;
			}
			/* A class not seen yet: can its frames skip the filter? */
			if (slot != NULL && *slot != (cls | NFV_CAPTURE_CLASS_FILTER))
				*slot = cls | (nfv_capture_class_rejects(s->prog, s->prog_len,
					rte_pktmbuf_mtod(m, const uint8_t *), rte_pktmbuf_data_len(m)) ?
					NFV_CAPTURE_CLASS_REJECT : NFV_CAPTURE_CLASS_FILTER);
		}
		run.filtered += (uint32_t)(i - start - matched);
		if (likely(i == n)) {
			nfv_capture_flush(c, &run);
			return true;
		}
	} else if (one_port) {
		for (; s != NULL && i < n; i++) {
			if (!nfv_capture_match(s, pkts[i])) {
				run.filtered++;
				continue;
			}
			nfv_capture_copy(w, c, &run, pkts[i], s->port, dir);
		}
		nfv_capture_flush(c, &run);
		return true;
	}
	last_port = i == 0 ? p0 : UINT32_MAX;
	for (; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint16_t port = nfv_capture_port(m, dir);

		if (unlikely(port != last_port)) {
			last_port = port;
			s = port < NFV_IFACE_MAX ?
				__atomic_load_n(&nfv_capture_of[dir][port], __ATOMIC_ACQUIRE) : NULL;
		}
		if (s == NULL)
			continue; /* a capture ending */
		if (unlikely(s != run.s)) {
			nfv_capture_flush(c, &run);
			run.s = s;
		}
		if (!nfv_capture_match(s, m)) {
			run.filtered++;
			continue;
		}
		nfv_capture_copy(w, c, &run, m, s->port, dir);
	}
	nfv_capture_flush(c, &run);
	return false;
}

/* The frames of pkts[] whose port (receiving or output) has a capture:
 * see nfv_capture_frames. */
static __rte_always_inline bool
nfv_capture_burst(struct nfv_worker *w, struct rte_mbuf **pkts, uint16_t n,
		  enum nfv_capture_dir dir, uint16_t *port0)
{
	return nfv_capture_frames(w, pkts, n, dir, port0, false);
}

/*
 * The frames of VLAN sub-interfaces that have a capture: in, frames of
 * sub-interfaces (mbuf->port, untagged by vlan_input); out, the frames
 * port sends, those tagged with the VLAN id of a sub-interface with a
 * capture taken, each copied (from the capture's pool) and its copy
 * untagged, then filtered. No class cache (it reads a port's frames).
 * The originals are only read.
 */
static __rte_always_inline void
nfv_capture_vlan_frames(struct nfv_worker *w, struct rte_mbuf **pkts, uint16_t n,
			enum nfv_capture_dir dir, uint16_t port)
{
	struct nfv_capture_counters *c = nfv_worker_counters(w, &nfv_capture_counters_block);
	const struct nfv_capture_dp *s = NULL;
	struct nfv_capture_run run;
	uint16_t last = NFV_VLAN_NONE;

	run.s = NULL;
	run.k = run.filtered = run.nombuf = 0;
	run.tsc = 0;
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i], *frame = m;
		uint16_t id = dir == NFV_CAPTURE_IN ? m->port : nfv_vlan_iface_of_frame(m, port);

		if (id == NFV_VLAN_NONE || id >= NFV_IFACE_MAX)
			continue; /* untagged, or another VLAN */
		if (id != last) {
			last = id;
			s = __atomic_load_n(&nfv_capture_of[dir][id], __ATOMIC_ACQUIRE);
		}
		if (s == NULL)
			continue; /* no capture, or one ending */
		if (s != run.s) {
			nfv_capture_flush(c, &run);
			run.s = s;
		}
		if (dir == NFV_CAPTURE_OUT) {
			frame = rte_pktmbuf_copy(m, s->pool, 0, UINT32_MAX);
			if (unlikely(frame == NULL)) {
				run.nombuf++;
				continue;
			}
			nfv_vlan_untag(frame);
		}
		if (nfv_capture_match(s, frame))
			nfv_capture_copy(w, c, &run, frame, s->port, dir);
		else
			run.filtered++;
		if (frame != m)
			rte_pktmbuf_free(frame);
	}
	nfv_capture_flush(c, &run);
}

/* The captures' tap of bridge_input (datapath/capture_tap.c): bridges' and
 * tunnels' frames. */
extern unsigned int nfv_capture_tap;

/*
 * Output captures do not use the l2_output arc (whose detour through the
 * graph costs port_tx a second pass): they are an ethdev TX callback on
 * every TX queue of the port (rte_eth_add_tx_callback, called by
 * rte_eth_tx_burst with the frames handed to the driver), installed while
 * the capture runs. The callback (datapath/capture_out.c) runs on the
 * worker that sends; on any other thread it copies nothing.
 */
uint16_t nfv_capture_tx_cb(uint16_t port, uint16_t queue, struct rte_mbuf **pkts, uint16_t n,
			   void *arg);
/* The same for the VLAN sub-interfaces of the port that have an output
 * capture (nfv_capture_vlan_frames), installed while there is one. */
uint16_t nfv_capture_vlan_tx_cb(uint16_t port, uint16_t queue, struct rte_mbuf **pkts, uint16_t n,
				void *arg);

#endif
