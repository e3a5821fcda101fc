/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: every input is a PFCP datagram for the UPF's codec
 * (src/modules/upf/pfcp). The header is parsed; the body is decoded as the
 * message the header names and as each request the N4 server handles. A
 * message the decoder accepts is written again with the codec's writer
 * and decoded once more: the second decoding must give the same rules
 * (what the writer writes, the decoder reads back).
 *
 *   build-fuzz/tests/fuzz/fuzz_pfcp -max_total_time=600 tests/fuzz/corpus-pfcp
 */
#include <stdlib.h>
#include <string.h>

#include "modules/upf/pfcp/pfcp.h"

static struct pfcp_msg m1, m2;
static uint8_t out[65536 + 64];

static void
write_again(uint8_t type, const struct pfcp_msg *m, struct pfcp_writer *w)
{
	pfcp_w_init(w, out, sizeof(out));
	pfcp_w_header(w, type, true, 1, 1);
	if (m->has_node_id)
		pfcp_w_node_id(w, &m->node_id);
	if (m->has_fseid)
		pfcp_w_fseid(w, m->cp_seid, m->cp_ipv4);
	if (m->has_recovery)
		pfcp_w_u32(w, PFCP_IE_RECOVERY_TIME_STAMP, m->recovery);
	if (m->has_cause)
		pfcp_w_u8(w, PFCP_IE_CAUSE, m->cause);
	for (unsigned int i = 0; i < m->n_create_pdr; i++)
		pfcp_w_pdr(w, PFCP_IE_CREATE_PDR, &m->create_pdr[i]);
	for (unsigned int i = 0; i < m->n_update_pdr; i++)
		pfcp_w_pdr(w, PFCP_IE_UPDATE_PDR, &m->update_pdr[i]);
	for (unsigned int i = 0; i < m->n_create_far; i++)
		pfcp_w_far(w, PFCP_IE_CREATE_FAR, &m->create_far[i]);
	for (unsigned int i = 0; i < m->n_update_far; i++)
		pfcp_w_far(w, PFCP_IE_UPDATE_FAR, &m->update_far[i]);
	for (unsigned int i = 0; i < m->n_remove_pdr; i++) {
		size_t g = pfcp_w_group_begin(w, PFCP_IE_REMOVE_PDR);

		pfcp_w_u16(w, PFCP_IE_PDR_ID, m->remove_pdr[i]);
		pfcp_w_group_end(w, g);
	}
	for (unsigned int i = 0; i < m->n_remove_far; i++) {
		size_t g = pfcp_w_group_begin(w, PFCP_IE_REMOVE_FAR);

		pfcp_w_u32(w, PFCP_IE_FAR_ID, m->remove_far[i]);
		pfcp_w_group_end(w, g);
	}
}

static void
round_trip(uint8_t type, const uint8_t *body, size_t len)
{
	struct pfcp_writer w;
	struct pfcp_header h;
	size_t n;

	if (pfcp_decode(type, body, len, &m1) != PFCP_CAUSE_ACCEPTED)
		return;
	write_again(type, &m1, &w);
	n = pfcp_w_finish(&w);
	if (n == 0 || pfcp_header_parse(out, n, &h) != 0 || h.type != type ||
	    pfcp_decode(type, out + h.header_len, n - h.header_len, &m2) != PFCP_CAUSE_ACCEPTED)
		abort();
	/* Both decoded from zeroed structures: padding compares equal too. */
	if (m1.has_node_id != m2.has_node_id || m1.has_fseid != m2.has_fseid ||
	    m1.has_recovery != m2.has_recovery || m1.recovery != m2.recovery ||
	    m1.cp_seid != m2.cp_seid || m1.cp_ipv4 != m2.cp_ipv4 ||
	    m1.has_cause != m2.has_cause || m1.cause != m2.cause ||
	    (m1.has_node_id && (m1.node_id.type != m2.node_id.type ||
				m1.node_id.len != m2.node_id.len ||
				memcmp(m1.node_id.v, m2.node_id.v, m1.node_id.len) != 0)) ||
	    m1.n_create_pdr != m2.n_create_pdr || m1.n_update_pdr != m2.n_update_pdr ||
	    m1.n_create_far != m2.n_create_far || m1.n_update_far != m2.n_update_far ||
	    m1.n_remove_pdr != m2.n_remove_pdr || m1.n_remove_far != m2.n_remove_far ||
	    memcmp(m1.create_pdr, m2.create_pdr, sizeof(m1.create_pdr[0]) * m1.n_create_pdr) ||
	    memcmp(m1.update_pdr, m2.update_pdr, sizeof(m1.update_pdr[0]) * m1.n_update_pdr) ||
	    memcmp(m1.create_far, m2.create_far, sizeof(m1.create_far[0]) * m1.n_create_far) ||
	    memcmp(m1.update_far, m2.update_far, sizeof(m1.update_far[0]) * m1.n_update_far) ||
	    memcmp(m1.remove_pdr, m2.remove_pdr, sizeof(m1.remove_pdr[0]) * m1.n_remove_pdr) ||
	    memcmp(m1.remove_far, m2.remove_far, sizeof(m1.remove_far[0]) * m1.n_remove_far))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t types[] = {
		PFCP_HEARTBEAT_REQ, PFCP_ASSOC_SETUP_REQ, PFCP_ASSOC_RELEASE_REQ,
		PFCP_SESSION_EST_REQ, PFCP_SESSION_MOD_REQ, PFCP_SESSION_DEL_REQ,
	};
	struct pfcp_header h;
	uint8_t *copy;

	if (size > PFCP_MSG_MAX)
		return 0;
	/* Exactly sized: a read past the end is a read past the allocation. */
	copy = malloc(size > 0 ? size : 1);
	if (copy == NULL)
		abort();
	memcpy(copy, data, size);
	if (pfcp_header_parse(copy, size, &h) == 0) {
		if (h.header_len > size || (size_t)h.length + 4 != size)
			abort();
		round_trip(h.type, copy + h.header_len, size - h.header_len);
		for (size_t i = 0; i < sizeof(types); i++)
			(void)pfcp_decode(types[i], copy + h.header_len, size - h.header_len, &m1);
	}
	/* The whole input as a body too (most mutations break the header). */
	for (size_t i = 0; i < sizeof(types); i++)
		round_trip(types[i], copy, size);
	free(copy);
	return 0;
}
