/* SPDX-License-Identifier: BSD-3-Clause */
/* What the PFCP server asks of the session store (control/session.c). */
#ifndef NFV_UPF_CTL_H
#define NFV_UPF_CTL_H

#include <stdbool.h>
#include <stdint.h>

#include "modules/upf/pfcp/pfcp.h"

/* The Created PDRs of a response: the F-TEIDs the UPF chose (CHOOSE). */
struct upf_created {
	unsigned int n;
	uint16_t pdr_id[PFCP_RULES_MAX];
	struct pfcp_fteid fteid[PFCP_RULES_MAX];
};

/* Each returns a PFCP cause; *offending the IE at fault (0: none). */
uint8_t upf_session_establish(const struct pfcp_msg *req, uint64_t *up_seid,
			      struct upf_created *created, uint16_t *offending);
uint8_t upf_session_modify(uint64_t seid, const struct pfcp_msg *req, uint64_t *cp_seid,
			   struct upf_created *created, uint16_t *offending);
/* The SMF's SEID of one of our sessions; false when there is none. */
bool upf_session_cp_seid(uint64_t seid, uint64_t *cp_seid);
uint8_t upf_session_delete(uint64_t seid, uint64_t *cp_seid);
/* Deletes the sessions an SMF (node id) made; their number. */
unsigned int upf_sessions_delete_node(const struct pfcp_node_id *node);
/* Makes the tables (first "upf" command); 0 or -ENOMEM. */
int upf_tables_init(char *err);

#endif
