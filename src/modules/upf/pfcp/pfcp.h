/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PFCP (3GPP TS 29.244), the N4 protocol between an SMF and a UPF: the
 * message header (7.2.2), the TLV information elements (8.1.1) and the
 * subset of messages and IEs a basic UPF session needs: heartbeat,
 * association setup and release, session establishment, modification and
 * deletion with PDRs (PDI: source interface, local F-TEID, UE IP address;
 * outer header removal; FAR ID) and FARs (apply action, forwarding
 * parameters: destination interface, outer header creation for GTP-U over
 * UDP/IPv4).
 *
 * Plain C without DPDK, so that it is tested on byte strings alone. The
 * decoder never reads past the buffer it is given: every length is checked
 * against what is left, and a message that does not add up is refused
 * with the cause a response should carry. Integers of the structures are
 * in host order; IPv4 addresses stay in network order (as on the wire).
 */
#ifndef NFV_PFCP_H
#define NFV_PFCP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PFCP_PORT 8805
#define PFCP_VERSION 1
#define PFCP_HEADER_LEN_NODE 8      /* without SEID */
#define PFCP_HEADER_LEN_SESSION 16  /* with SEID */
#define PFCP_MSG_MAX 4096           /* what we read and write at most */

/* Message types (TS 29.244 7.3 table 7.3-1). */
enum pfcp_msg_type {
	PFCP_HEARTBEAT_REQ = 1,
	PFCP_HEARTBEAT_RESP = 2,
	PFCP_ASSOC_SETUP_REQ = 5,
	PFCP_ASSOC_SETUP_RESP = 6,
	PFCP_ASSOC_RELEASE_REQ = 9,
	PFCP_ASSOC_RELEASE_RESP = 10,
	PFCP_VERSION_NOT_SUPPORTED = 11,
	PFCP_SESSION_EST_REQ = 50,
	PFCP_SESSION_EST_RESP = 51,
	PFCP_SESSION_MOD_REQ = 52,
	PFCP_SESSION_MOD_RESP = 53,
	PFCP_SESSION_DEL_REQ = 54,
	PFCP_SESSION_DEL_RESP = 55,
};

/* Information element types (8.1.2 table 8.1.2-1). */
enum pfcp_ie_type {
	PFCP_IE_CREATE_PDR = 1,
	PFCP_IE_PDI = 2,
	PFCP_IE_CREATE_FAR = 3,
	PFCP_IE_FORWARDING_PARAMETERS = 4,
	PFCP_IE_CREATED_PDR = 8,
	PFCP_IE_UPDATE_PDR = 9,
	PFCP_IE_UPDATE_FAR = 10,
	PFCP_IE_UPDATE_FORWARDING_PARAMETERS = 11,
	PFCP_IE_REMOVE_PDR = 15,
	PFCP_IE_REMOVE_FAR = 16,
	PFCP_IE_CAUSE = 19,
	PFCP_IE_SOURCE_INTERFACE = 20,
	PFCP_IE_F_TEID = 21,
	PFCP_IE_PRECEDENCE = 29,
	PFCP_IE_OFFENDING_IE = 40,
	PFCP_IE_DESTINATION_INTERFACE = 42,
	PFCP_IE_APPLY_ACTION = 44,
	PFCP_IE_PDR_ID = 56,
	PFCP_IE_F_SEID = 57,
	PFCP_IE_NODE_ID = 60,
	PFCP_IE_OUTER_HEADER_CREATION = 84,
	PFCP_IE_UE_IP_ADDRESS = 93,
	PFCP_IE_OUTER_HEADER_REMOVAL = 95,
	PFCP_IE_RECOVERY_TIME_STAMP = 96,
	PFCP_IE_FAR_ID = 108,
	PFCP_IE_UP_FUNCTION_FEATURES = 43,
};

/* Cause values (8.2.1 table 8.2.1-1). */
enum pfcp_cause {
	PFCP_CAUSE_ACCEPTED = 1,
	PFCP_CAUSE_REJECTED = 64,
	PFCP_CAUSE_SESSION_NOT_FOUND = 65,
	PFCP_CAUSE_MANDATORY_IE_MISSING = 66,
	PFCP_CAUSE_CONDITIONAL_IE_MISSING = 67,
	PFCP_CAUSE_INVALID_LENGTH = 68,
	PFCP_CAUSE_MANDATORY_IE_INCORRECT = 69,
	PFCP_CAUSE_INVALID_FTEID_ALLOCATION = 71,
	PFCP_CAUSE_NO_ASSOCIATION = 72,
	PFCP_CAUSE_RULE_FAILURE = 73,
	PFCP_CAUSE_NO_RESOURCES = 75,
	PFCP_CAUSE_NOT_SUPPORTED = 76,
};

/* Interface values (8.2.2 source, 8.2.24 destination). */
enum pfcp_interface {
	PFCP_IF_ACCESS = 0,
	PFCP_IF_CORE = 1,
	PFCP_IF_SGI_LAN = 2,
	PFCP_IF_CP_FUNCTION = 3,
};

/* Apply Action flags (8.2.26). */
#define PFCP_ACTION_DROP 0x01
#define PFCP_ACTION_FORW 0x02
#define PFCP_ACTION_BUFF 0x04
#define PFCP_ACTION_NOCP 0x08
#define PFCP_ACTION_DUPL 0x10

/* Outer Header Creation description, first octet (8.2.56). */
#define PFCP_OHC_GTPU_UDP_IPV4 0x0100
#define PFCP_OHC_GTPU_UDP_IPV6 0x0200
/* Outer Header Removal description (8.2.64). */
#define PFCP_OHR_GTPU_UDP_IPV4 0

#define PFCP_RULES_MAX 16 /* PDRs and FARs of one kind in one message */

struct pfcp_header {
	uint8_t version;
	bool has_seid;
	uint8_t type;
	uint16_t length;    /* the header's length field: the message after octet 4 */
	uint64_t seid;
	uint32_t seq;       /* 24 bits */
	size_t header_len;  /* 8 or 16 */
};

/* Parses a message's header. 0, or -1 (shorter than its header, or a
 * length field that does not match the datagram: discard), or -2 (a
 * version other than 1: answer "version not supported"). */
int pfcp_header_parse(const uint8_t *buf, size_t len, struct pfcp_header *h);

struct pfcp_ie {
	uint16_t type;
	uint16_t len;
	const uint8_t *v;
};

struct pfcp_iter {
	const uint8_t *p;
	const uint8_t *end;
};

static inline void
pfcp_iter_init(struct pfcp_iter *it, const uint8_t *p, size_t len)
{
	it->p = p;
	it->end = p + len;
}

/* 1: *ie is the next IE; 0: no more; -1: a truncated IE (its header or
 * its value goes past the end). */
int pfcp_ie_next(struct pfcp_iter *it, struct pfcp_ie *ie);

struct pfcp_node_id {
	uint8_t type;       /* 0 IPv4, 1 IPv6, 2 FQDN */
	uint8_t len;        /* of v */
	uint8_t v[255];
};

struct pfcp_fteid {
	bool v4;
	bool ch;            /* CHOOSE: the UPF allocates the TEID */
	uint32_t teid;
	uint32_t ipv4;      /* network order */
};

struct pfcp_pdr {
	uint16_t id;
	bool has_precedence;
	bool has_pdi;
	bool has_src_iface;
	bool has_fteid;
	bool has_ue_ip;
	bool has_ohr;
	bool has_far_id;
	uint32_t precedence;
	uint8_t src_iface;
	uint8_t ohr;
	bool ue_ip_dst;     /* the S/D flag: a destination address */
	struct pfcp_fteid fteid;
	uint32_t ue_ip;     /* network order */
	uint32_t far_id;
};

struct pfcp_far {
	uint32_t id;
	bool has_action;
	bool has_fwd;
	bool has_dst_iface;
	bool has_ohc;
	uint8_t action;
	uint8_t dst_iface;
	uint16_t ohc_desc;
	uint32_t ohc_teid;
	uint32_t ohc_ipv4;  /* network order */
};

/* What the decoder took from a node or session message. */
struct pfcp_msg {
	bool has_node_id;
	bool has_recovery;
	bool has_fseid;
	bool has_cause;
	struct pfcp_node_id node_id;
	uint32_t recovery;  /* seconds since 1900 (NTP) */
	uint64_t cp_seid;
	uint32_t cp_ipv4;   /* network order, 0 when none */
	uint8_t cause;
	unsigned int n_create_pdr, n_create_far, n_update_pdr, n_update_far;
	unsigned int n_remove_pdr, n_remove_far;
	struct pfcp_pdr create_pdr[PFCP_RULES_MAX];
	struct pfcp_far create_far[PFCP_RULES_MAX];
	struct pfcp_pdr update_pdr[PFCP_RULES_MAX];
	struct pfcp_far update_far[PFCP_RULES_MAX];
	uint16_t remove_pdr[PFCP_RULES_MAX];
	uint32_t remove_far[PFCP_RULES_MAX];
	/* When the decoder refuses the message: the IE at fault (0: none). */
	uint16_t offending_ie;
};

/*
 * Decodes the IEs of a message of the given type (body: after the
 * header). Returns PFCP_CAUSE_ACCEPTED, or the cause of the refusal with
 * m->offending_ie set: INVALID_LENGTH (a truncated IE), MANDATORY_IE_MISSING,
 * MANDATORY_IE_INCORRECT (a known IE too short or out of range),
 * NO_RESOURCES (more rules than PFCP_RULES_MAX). Unknown IEs are ignored
 * (TS 29.244 7.6.2); an IE that comes twice keeps its first value.
 */
uint8_t pfcp_decode(uint8_t type, const uint8_t *body, size_t len, struct pfcp_msg *m);

/* A writer of messages into a caller's buffer; overflow latches. */
struct pfcp_writer {
	uint8_t *buf;
	size_t cap;
	size_t len;
	bool overflow;
};

void pfcp_w_init(struct pfcp_writer *w, uint8_t *buf, size_t cap);
void pfcp_w_header(struct pfcp_writer *w, uint8_t type, bool has_seid, uint64_t seid,
		   uint32_t seq);
void pfcp_w_ie(struct pfcp_writer *w, uint16_t type, const void *v, uint16_t len);
void pfcp_w_u8(struct pfcp_writer *w, uint16_t type, uint8_t v);
void pfcp_w_u16(struct pfcp_writer *w, uint16_t type, uint16_t v);
void pfcp_w_u32(struct pfcp_writer *w, uint16_t type, uint32_t v);
/* A grouped IE: begin returns where its header is; end patches its length. */
size_t pfcp_w_group_begin(struct pfcp_writer *w, uint16_t type);
void pfcp_w_group_end(struct pfcp_writer *w, size_t pos);
void pfcp_w_node_id(struct pfcp_writer *w, const struct pfcp_node_id *id);
void pfcp_w_fseid(struct pfcp_writer *w, uint64_t seid, uint32_t ipv4);
void pfcp_w_fteid(struct pfcp_writer *w, const struct pfcp_fteid *f);
/* A Create PDR / Update PDR, Create FAR / Update FAR (type says which). */
void pfcp_w_pdr(struct pfcp_writer *w, uint16_t type, const struct pfcp_pdr *p);
void pfcp_w_far(struct pfcp_writer *w, uint16_t type, const struct pfcp_far *f);
/* Patches the message length; the message's size, or 0 on overflow. */
size_t pfcp_w_finish(struct pfcp_writer *w);

const char *pfcp_msg_name(uint8_t type);

#endif
