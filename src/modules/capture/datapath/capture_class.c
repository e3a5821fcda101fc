/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The capture filter's class cache (capture.h): whether the classic BPF
 * program libpcap compiled rejects a frame for reasons that are in the
 * frame's class bytes alone. The program is run here, on the frame, by a
 * small interpreter that notes every byte it reads: when it returns 0
 * having read only absolute offsets among the class bytes (no indexed or
 * length loads, nothing past the frame), any frame with the same class
 * bytes takes the same path to the same "no" (a filter is a function of
 * what it reads), so the class is cached as rejected. Otherwise the class
 * is cached as one the filter must see frame by frame.
 *
 * Called by workers, for a frame whose class is not cached yet.
 */
#include <sys/types.h>
#include <pcap/bpf.h>

#include "modules/capture/capture.h"

/* Whether bytes [off, off + size) are all class bytes (12, 13, 14, 20, 23). */
static bool
class_bytes(uint32_t off, uint32_t size)
{
	for (uint32_t b = off; b < off + size; b++)
		if (b != 12 && b != 13 && b != 14 && b != 20 && b != 23)
			return false;
	return true;
}

static bool
load_abs(const uint8_t *p, uint32_t len, uint32_t off, uint32_t size, uint32_t *v, bool *pure)
{
	if (off >= len || size > len - off) {
		*pure = false; /* the answer depends on the frame's length */
		return false;
	}
	if (!class_bytes(off, size))
		*pure = false;
	*v = size == 4 ? (uint32_t)p[off] << 24 | (uint32_t)p[off + 1] << 16 |
			 (uint32_t)p[off + 2] << 8 | p[off + 3] :
	     size == 2 ? (uint32_t)p[off] << 8 | p[off + 1] : p[off];
	return true;
}

/* Runs prog on the frame; true when it rejects the frame (returns 0)
 * having read only class bytes. */
bool
nfv_capture_class_rejects(const struct bpf_insn *prog, uint32_t n, const uint8_t *p, uint32_t len)
{
	uint32_t a = 0, x = 0, mem[BPF_MEMWORDS] = { 0 }, v;
	bool pure = true;

	for (uint32_t pc = 0; pc < n; pc++) {
		const struct bpf_insn *i = &prog[pc];
		uint32_t size = BPF_SIZE(i->code) == BPF_W ? 4 : BPF_SIZE(i->code) == BPF_H ? 2 : 1;
		uint32_t src;

		switch (BPF_CLASS(i->code)) {
		case BPF_LD:
		case BPF_LDX:
			switch (BPF_MODE(i->code)) {
			case BPF_IMM:
				v = i->k;
				break;
			case BPF_ABS:
				if (!load_abs(p, len, i->k, size, &v, &pure))
					return false;
				break;
			case BPF_MEM:
				if (i->k >= BPF_MEMWORDS)
					return false;
				v = mem[i->k];
				break;
			default: /* indexed, length, IP header length */
				return false;
			}
			if (BPF_CLASS(i->code) == BPF_LD)
				a = v;
			else
				x = v;
			break;
		case BPF_ST:
		case BPF_STX:
			if (i->k >= BPF_MEMWORDS)
				return false;
			mem[i->k] = BPF_CLASS(i->code) == BPF_ST ? a : x;
			break;
		case BPF_ALU:
			src = BPF_SRC(i->code) == BPF_X ? x : i->k;
			switch (BPF_OP(i->code)) {
			case BPF_ADD: a += src; break;
			case BPF_SUB: a -= src; break;
			case BPF_MUL: a *= src; break;
			case BPF_DIV: if (src == 0) return pure; a /= src; break;
			case BPF_MOD: if (src == 0) return pure; a %= src; break;
			case BPF_OR: a |= src; break;
			case BPF_AND: a &= src; break;
			case BPF_XOR: a ^= src; break;
			case BPF_LSH: a = src < 32 ? a << src : 0; break;
			case BPF_RSH: a = src < 32 ? a >> src : 0; break;
			case BPF_NEG: a = -a; break;
			default: return false;
			}
			break;
		case BPF_JMP:
			src = BPF_SRC(i->code) == BPF_X ? x : i->k;
			switch (BPF_OP(i->code)) {
			case BPF_JA: pc += i->k; break;
			case BPF_JEQ: pc += a == src ? i->jt : i->jf; break;
			case BPF_JGT: pc += a > src ? i->jt : i->jf; break;
			case BPF_JGE: pc += a >= src ? i->jt : i->jf; break;
			case BPF_JSET: pc += (a & src) != 0 ? i->jt : i->jf; break;
			default: return false;
			}
			break;
		case BPF_RET:
			v = BPF_RVAL(i->code) == BPF_A ? a : BPF_RVAL(i->code) == BPF_X ? x : i->k;
			return v == 0 && pure;
		case BPF_MISC:
			if (BPF_MISCOP(i->code) == BPF_TAX)
				x = a;
			else
				a = x;
			break;
		default:
			return false;
		}
	}
	return false;
}
