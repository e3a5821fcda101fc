/* SPDX-License-Identifier: BSD-3-Clause */
/* PFCP codec (pfcp.h): TS 29.244 7.2 (header), 8.1 (IE format), 8.2 (IEs). */
#include <string.h>

#include "modules/upf/pfcp/pfcp.h"

static uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t
get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t
get64(const uint8_t *p)
{
	return (uint64_t)get32(p) << 32 | get32(p + 4);
}

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void
put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/*
 * 7.2.2: octet 1 is version (3 bits), spare, FO, MP, S; octet 2 the type;
 * octets 3-4 the length of what follows octet 4; then the SEID (8 octets)
 * when S is 1; then the sequence number (3 octets) and a spare (or the
 * message priority) octet.
 */
int
pfcp_header_parse(const uint8_t *buf, size_t len, struct pfcp_header *h)
{
	if (len < PFCP_HEADER_LEN_NODE)
		return -1;
	h->version = buf[0] >> 5;
	h->has_seid = (buf[0] & 0x01) != 0;
	h->type = buf[1];
	h->length = get16(buf + 2);
	h->header_len = h->has_seid ? PFCP_HEADER_LEN_SESSION : PFCP_HEADER_LEN_NODE;
	if (h->version != PFCP_VERSION)
		return -2;
	/* 7.2.2: one message per datagram here (no FO/piggybacking read). */
	if ((size_t)h->length + 4 != len || len < h->header_len)
		return -1;
	if (h->has_seid) {
		h->seid = get64(buf + 4);
		h->seq = get32(buf + 12) >> 8;
	} else {
		h->seid = 0;
		h->seq = get32(buf + 4) >> 8;
	}
	return 0;
}

int
pfcp_ie_next(struct pfcp_iter *it, struct pfcp_ie *ie)
{
	size_t left = (size_t)(it->end - it->p);

	if (left == 0)
		return 0;
	if (left < 4)
		return -1;
	ie->type = get16(it->p);
	ie->len = get16(it->p + 2);
	if ((size_t)ie->len > left - 4)
		return -1;
	ie->v = it->p + 4;
	it->p += 4 + ie->len;
	return 1;
}

/* The decoder's state: the message, and the first fault found. */
struct dec {
	struct pfcp_msg *m;
	uint8_t cause;
};

static bool
fail(struct dec *d, uint8_t cause, uint16_t ie)
{
	if (d->cause == PFCP_CAUSE_ACCEPTED) {
		d->cause = cause;
		d->m->offending_ie = ie;
	}
	return false;
}

/* 8.2.38 Node ID: type in the low 4 bits of octet 5, then the value. */
static bool
dec_node_id(struct dec *d, const struct pfcp_ie *ie, struct pfcp_node_id *id)
{
	uint8_t type;
	size_t vlen;

	if (ie->len < 1)
		return fail(d, PFCP_CAUSE_MANDATORY_IE_INCORRECT, ie->type);
	type = ie->v[0] & 0x0f;
	vlen = ie->len - 1u;
	if ((type == 0 && vlen < 4) || (type == 1 && vlen < 16) || type > 2 ||
	    (type == 2 && vlen == 0) || vlen > sizeof(id->v))
		return fail(d, PFCP_CAUSE_MANDATORY_IE_INCORRECT, ie->type);
	if (type == 0)
		vlen = 4;
	else if (type == 1)
		vlen = 16;
	id->type = type;
	id->len = (uint8_t)vlen;
	memcpy(id->v, ie->v + 1, vlen);
	return true;
}

/* 8.2.37 F-SEID: flags (V4 0x02, V6 0x01), SEID, IPv4, IPv6. */
static bool
dec_fseid(struct dec *d, const struct pfcp_ie *ie)
{
	size_t need = 9;
	uint8_t fl;

	if (ie->len < need)
		return fail(d, PFCP_CAUSE_MANDATORY_IE_INCORRECT, ie->type);
	fl = ie->v[0];
	need += (fl & 0x02 ? 4u : 0u) + (fl & 0x01 ? 16u : 0u);
	if (ie->len < need || (fl & 0x03) == 0)
		return fail(d, PFCP_CAUSE_MANDATORY_IE_INCORRECT, ie->type);
	d->m->cp_seid = get64(ie->v + 1);
	d->m->cp_ipv4 = 0;
	if (fl & 0x02)
		memcpy(&d->m->cp_ipv4, ie->v + 9, 4);
	d->m->has_fseid = true;
	return true;
}

/* 8.2.3 F-TEID: flags (V4 0x01, V6 0x02, CH 0x04, CHID 0x08); without CH,
 * the TEID and the addresses the flags name. */
static bool
dec_fteid(struct dec *d, const struct pfcp_ie *ie, struct pfcp_fteid *f)
{
	uint8_t fl;

	if (ie->len < 1)
		return fail(d, PFCP_CAUSE_MANDATORY_IE_INCORRECT, ie->type);
	fl = ie->v[0];
	memset(f, 0, sizeof(*f));
	f->v4 = (fl & 0x01) != 0;
	f->ch = (fl & 0x04) != 0;
	if (f->ch)
		return true;
	if (ie->len < 5 + (f->v4 ? 4u : 0u) + (fl & 0x02 ? 16u : 0u) || !f->v4)
		return fail(d, PFCP_CAUSE_MANDATORY_IE_INCORRECT, ie->type);
	f->teid = get32(ie->v + 1);
	memcpy(&f->ipv4, ie->v + 5, 4);
	return true;
}

static bool
dec_u8(struct dec *d, const struct pfcp_ie *ie, uint8_t *v, uint8_t mask)
{
	if (ie->len < 1)
		return fail(d, PFCP_CAUSE_MANDATORY_IE_INCORRECT, ie->type);
	*v = ie->v[0] & mask;
	return true;
}

static bool
dec_u16(struct dec *d, const struct pfcp_ie *ie, uint16_t *v)
{
	if (ie->len < 2)
		return fail(d, PFCP_CAUSE_MANDATORY_IE_INCORRECT, ie->type);
	*v = get16(ie->v);
	return true;
}

static bool
dec_u32(struct dec *d, const struct pfcp_ie *ie, uint32_t *v)
{
	if (ie->len < 4)
		return fail(d, PFCP_CAUSE_MANDATORY_IE_INCORRECT, ie->type);
	*v = get32(ie->v);
	return true;
}

/* Iterates the IEs of a grouped IE; a truncated one fails the message. */
#define FOR_EACH_IE(d, it, ie, rc, v, l) \
	for (pfcp_iter_init(&(it), (v), (l)); ((rc) = pfcp_ie_next(&(it), &(ie))) > 0;)

static bool
truncated(struct dec *d, int rc, uint16_t group)
{
	if (rc < 0)
		return fail(d, PFCP_CAUSE_INVALID_LENGTH, group);
	return true;
}

/* 7.5.2.2 PDI: Source Interface (M), Local F-TEID, UE IP Address (8.2.62:
 * flags V6 0x01, V4 0x02, S/D 0x04; then IPv4, IPv6). */
static bool
dec_pdi(struct dec *d, const struct pfcp_ie *g, struct pfcp_pdr *p)
{
	struct pfcp_iter it;
	struct pfcp_ie ie;
	int rc;

	p->has_pdi = true;
	FOR_EACH_IE(d, it, ie, rc, g->v, g->len) {
		switch (ie.type) {
		case PFCP_IE_SOURCE_INTERFACE:
			if (!dec_u8(d, &ie, &p->src_iface, 0x0f))
				return false;
			p->has_src_iface = true;
			break;
		case PFCP_IE_F_TEID:
			if (!dec_fteid(d, &ie, &p->fteid))
				return false;
			p->has_fteid = true;
			break;
		case PFCP_IE_UE_IP_ADDRESS:
			if (ie.len < 1 || ((ie.v[0] & 0x02) && ie.len < 5) || !(ie.v[0] & 0x02))
				return fail(d, PFCP_CAUSE_MANDATORY_IE_INCORRECT, ie.type);
			p->ue_ip_dst = (ie.v[0] & 0x04) != 0;
			memcpy(&p->ue_ip, ie.v + 1, 4);
			p->has_ue_ip = true;
			break;
		default:
			break;
		}
	}
	if (!truncated(d, rc, g->type))
		return false;
	return true;
}

/* 7.5.2.2-1 Create PDR: PDR ID (M), Precedence (M), PDI (M), Outer Header
 * Removal (C), FAR ID (C). Update PDR (7.5.4.2): PDR ID (M), the rest as
 * changed. Remove PDR (7.5.4.6): PDR ID (M). */
static bool
dec_pdr(struct dec *d, const struct pfcp_ie *g, struct pfcp_pdr *p, bool create)
{
	struct pfcp_iter it;
	struct pfcp_ie ie;
	bool has_id = false;
	int rc;

	memset(p, 0, sizeof(*p));
	FOR_EACH_IE(d, it, ie, rc, g->v, g->len) {
		switch (ie.type) {
		case PFCP_IE_PDR_ID:
			if (!dec_u16(d, &ie, &p->id))
				return false;
			has_id = true;
			break;
		case PFCP_IE_PRECEDENCE:
			if (!dec_u32(d, &ie, &p->precedence))
				return false;
			p->has_precedence = true;
			break;
		case PFCP_IE_PDI:
			if (!dec_pdi(d, &ie, p))
				return false;
			break;
		case PFCP_IE_OUTER_HEADER_REMOVAL:
			if (!dec_u8(d, &ie, &p->ohr, 0xff))
				return false;
			p->has_ohr = true;
			break;
		case PFCP_IE_FAR_ID:
			if (!dec_u32(d, &ie, &p->far_id))
				return false;
			p->has_far_id = true;
			break;
		default:
			break;
		}
	}
	if (!truncated(d, rc, g->type))
		return false;
	if (!has_id)
		return fail(d, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_PDR_ID);
	if (create && !p->has_precedence)
		return fail(d, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_PRECEDENCE);
	if (create && !p->has_pdi)
		return fail(d, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_PDI);
	if (p->has_pdi && !p->has_src_iface)
		return fail(d, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_SOURCE_INTERFACE);
	return true;
}

/* 8.2.56 Outer Header Creation: description (2 octets), TEID when GTP-U,
 * IPv4 when an IPv4 variant. Only GTP-U/UDP/IPv4 is taken. */
static bool
dec_ohc(struct dec *d, const struct pfcp_ie *ie, struct pfcp_far *f)
{
	if (ie->len < 2)
		return fail(d, PFCP_CAUSE_MANDATORY_IE_INCORRECT, ie->type);
	f->ohc_desc = get16(ie->v);
	/* A second Outer Header Creation replaces the first one whole. */
	f->ohc_teid = 0;
	f->ohc_ipv4 = 0;
	if (f->ohc_desc & PFCP_OHC_GTPU_UDP_IPV4) {
		if (ie->len < 10)
			return fail(d, PFCP_CAUSE_MANDATORY_IE_INCORRECT, ie->type);
		f->ohc_teid = get32(ie->v + 2);
		memcpy(&f->ohc_ipv4, ie->v + 6, 4);
	}
	f->has_ohc = true;
	return true;
}

/* 7.5.2.3-2 Forwarding Parameters: Destination Interface (M), Outer
 * Header Creation (C); Update Forwarding Parameters: each as changed. */
static bool
dec_fwd(struct dec *d, const struct pfcp_ie *g, struct pfcp_far *f, bool create)
{
	struct pfcp_iter it;
	struct pfcp_ie ie;
	int rc;

	f->has_fwd = true;
	FOR_EACH_IE(d, it, ie, rc, g->v, g->len) {
		switch (ie.type) {
		case PFCP_IE_DESTINATION_INTERFACE:
			if (!dec_u8(d, &ie, &f->dst_iface, 0x0f))
				return false;
			f->has_dst_iface = true;
			break;
		case PFCP_IE_OUTER_HEADER_CREATION:
			if (!dec_ohc(d, &ie, f))
				return false;
			break;
		default:
			break;
		}
	}
	if (!truncated(d, rc, g->type))
		return false;
	if (create && !f->has_dst_iface)
		return fail(d, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_DESTINATION_INTERFACE);
	return true;
}

/* 7.5.2.3-1 Create FAR: FAR ID (M), Apply Action (M), Forwarding
 * Parameters (C). Update FAR (7.5.4.3): FAR ID (M), the rest as changed. */
static bool
dec_far(struct dec *d, const struct pfcp_ie *g, struct pfcp_far *f, bool create)
{
	struct pfcp_iter it;
	struct pfcp_ie ie;
	bool has_id = false;
	int rc;

	memset(f, 0, sizeof(*f));
	FOR_EACH_IE(d, it, ie, rc, g->v, g->len) {
		switch (ie.type) {
		case PFCP_IE_FAR_ID:
			if (!dec_u32(d, &ie, &f->id))
				return false;
			has_id = true;
			break;
		case PFCP_IE_APPLY_ACTION:
			if (!dec_u8(d, &ie, &f->action, 0xff))
				return false;
			f->has_action = true;
			break;
		case PFCP_IE_FORWARDING_PARAMETERS:
			if (!create)
				break;
			if (!dec_fwd(d, &ie, f, true))
				return false;
			break;
		case PFCP_IE_UPDATE_FORWARDING_PARAMETERS:
			if (create)
				break;
			if (!dec_fwd(d, &ie, f, false))
				return false;
			break;
		default:
			break;
		}
	}
	if (!truncated(d, rc, g->type))
		return false;
	if (!has_id)
		return fail(d, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_FAR_ID);
	if (create && !f->has_action)
		return fail(d, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_APPLY_ACTION);
	return true;
}

/* Remove PDR / Remove FAR: the rule's id alone. */
static bool
dec_remove(struct dec *d, const struct pfcp_ie *g, uint16_t id_type, uint32_t *id)
{
	struct pfcp_iter it;
	struct pfcp_ie ie;
	bool has_id = false;
	int rc;

	FOR_EACH_IE(d, it, ie, rc, g->v, g->len) {
		if (ie.type != id_type || has_id)
			continue;
		if (id_type == PFCP_IE_PDR_ID) {
			uint16_t v;

			if (!dec_u16(d, &ie, &v))
				return false;
			*id = v;
		} else if (!dec_u32(d, &ie, id)) {
			return false;
		}
		has_id = true;
	}
	if (!truncated(d, rc, g->type))
		return false;
	if (!has_id)
		return fail(d, PFCP_CAUSE_MANDATORY_IE_MISSING, id_type);
	return true;
}

static bool
room(struct dec *d, unsigned int n, uint16_t type)
{
	if (n >= PFCP_RULES_MAX)
		return fail(d, PFCP_CAUSE_NO_RESOURCES, type);
	return true;
}

static bool
dec_top(struct dec *d, const struct pfcp_ie *ie)
{
	struct pfcp_msg *m = d->m;
	uint32_t id;

	switch (ie->type) {
	case PFCP_IE_NODE_ID:
		if (m->has_node_id)
			return true;
		if (!dec_node_id(d, ie, &m->node_id))
			return false;
		m->has_node_id = true;
		return true;
	case PFCP_IE_RECOVERY_TIME_STAMP:
		if (m->has_recovery)
			return true;
		if (!dec_u32(d, ie, &m->recovery))
			return false;
		m->has_recovery = true;
		return true;
	case PFCP_IE_CAUSE:
		if (!dec_u8(d, ie, &m->cause, 0xff))
			return false;
		m->has_cause = true;
		return true;
	case PFCP_IE_F_SEID:
		return m->has_fseid ? true : dec_fseid(d, ie);
	case PFCP_IE_CREATE_PDR:
		return room(d, m->n_create_pdr, ie->type) &&
		       dec_pdr(d, ie, &m->create_pdr[m->n_create_pdr++], true);
	case PFCP_IE_UPDATE_PDR:
		return room(d, m->n_update_pdr, ie->type) &&
		       dec_pdr(d, ie, &m->update_pdr[m->n_update_pdr++], false);
	case PFCP_IE_CREATE_FAR:
		return room(d, m->n_create_far, ie->type) &&
		       dec_far(d, ie, &m->create_far[m->n_create_far++], true);
	case PFCP_IE_UPDATE_FAR:
		return room(d, m->n_update_far, ie->type) &&
		       dec_far(d, ie, &m->update_far[m->n_update_far++], false);
	case PFCP_IE_REMOVE_PDR:
		if (!room(d, m->n_remove_pdr, ie->type) ||
		    !dec_remove(d, ie, PFCP_IE_PDR_ID, &id))
			return false;
		m->remove_pdr[m->n_remove_pdr++] = (uint16_t)id;
		return true;
	case PFCP_IE_REMOVE_FAR:
		if (!room(d, m->n_remove_far, ie->type) ||
		    !dec_remove(d, ie, PFCP_IE_FAR_ID, &id))
			return false;
		m->remove_far[m->n_remove_far++] = id;
		return true;
	default:
		return true; /* 7.6.2: an unknown or unexpected IE is ignored */
	}
}

uint8_t
pfcp_decode(uint8_t type, const uint8_t *body, size_t len, struct pfcp_msg *m)
{
	struct dec d = { .m = m, .cause = PFCP_CAUSE_ACCEPTED };
	struct pfcp_iter it;
	struct pfcp_ie ie;
	int rc;

	memset(m, 0, sizeof(*m));
	pfcp_iter_init(&it, body, len);
	while ((rc = pfcp_ie_next(&it, &ie)) > 0)
		if (!dec_top(&d, &ie))
			return d.cause;
	if (rc < 0)
		return fail(&d, PFCP_CAUSE_INVALID_LENGTH, 0), d.cause;
	/* Mandatory IEs of each message (7.4, 7.5). */
	switch (type) {
	case PFCP_HEARTBEAT_REQ:
		if (!m->has_recovery)
			fail(&d, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_RECOVERY_TIME_STAMP);
		break;
	case PFCP_ASSOC_SETUP_REQ:
		if (!m->has_node_id)
			fail(&d, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_NODE_ID);
		else if (!m->has_recovery)
			fail(&d, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_RECOVERY_TIME_STAMP);
		break;
	case PFCP_ASSOC_RELEASE_REQ:
		if (!m->has_node_id)
			fail(&d, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_NODE_ID);
		break;
	case PFCP_SESSION_EST_REQ:
		if (!m->has_node_id)
			fail(&d, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_NODE_ID);
		else if (!m->has_fseid)
			fail(&d, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_F_SEID);
		else if (m->n_create_pdr == 0)
			fail(&d, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_CREATE_PDR);
		else if (m->n_create_far == 0)
			fail(&d, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_CREATE_FAR);
		break;
	default:
		break;
	}
	return d.cause;
}

void
pfcp_w_init(struct pfcp_writer *w, uint8_t *buf, size_t cap)
{
	w->buf = buf;
	w->cap = cap;
	w->len = 0;
	w->overflow = false;
}

static uint8_t *
w_take(struct pfcp_writer *w, size_t n)
{
	uint8_t *p;

	if (w->overflow || w->cap - w->len < n) {
		w->overflow = true;
		return NULL;
	}
	p = w->buf + w->len;
	w->len += n;
	return p;
}

void
pfcp_w_header(struct pfcp_writer *w, uint8_t type, bool has_seid, uint64_t seid, uint32_t seq)
{
	uint8_t *p = w_take(w, has_seid ? PFCP_HEADER_LEN_SESSION : PFCP_HEADER_LEN_NODE);

	if (p == NULL)
		return;
	p[0] = (uint8_t)(PFCP_VERSION << 5 | (has_seid ? 1 : 0));
	p[1] = type;
	put16(p + 2, 0);
	if (has_seid) {
		put32(p + 4, (uint32_t)(seid >> 32));
		put32(p + 8, (uint32_t)seid);
		p += 8;
	}
	put32(p + 4, (seq & 0xffffff) << 8);
}

void
pfcp_w_ie(struct pfcp_writer *w, uint16_t type, const void *v, uint16_t len)
{
	uint8_t *p = w_take(w, 4u + len);

	if (p == NULL)
		return;
	put16(p, type);
	put16(p + 2, len);
	if (len != 0)
		memcpy(p + 4, v, len);
}

void
pfcp_w_u8(struct pfcp_writer *w, uint16_t type, uint8_t v)
{
	pfcp_w_ie(w, type, &v, 1);
}

void
pfcp_w_u16(struct pfcp_writer *w, uint16_t type, uint16_t v)
{
	uint8_t b[2];

	put16(b, v);
	pfcp_w_ie(w, type, b, 2);
}

void
pfcp_w_u32(struct pfcp_writer *w, uint16_t type, uint32_t v)
{
	uint8_t b[4];

	put32(b, v);
	pfcp_w_ie(w, type, b, 4);
}

size_t
pfcp_w_group_begin(struct pfcp_writer *w, uint16_t type)
{
	size_t pos = w->len;

	pfcp_w_ie(w, type, NULL, 0);
	return pos;
}

void
pfcp_w_group_end(struct pfcp_writer *w, size_t pos)
{
	size_t len = w->len - pos - 4;

	if (w->overflow)
		return;
	if (len > UINT16_MAX) {
		w->overflow = true;
		return;
	}
	put16(w->buf + pos + 2, (uint16_t)len);
}

void
pfcp_w_node_id(struct pfcp_writer *w, const struct pfcp_node_id *id)
{
	uint8_t b[1 + sizeof(id->v)];

	b[0] = id->type & 0x0f;
	memcpy(b + 1, id->v, id->len);
	pfcp_w_ie(w, PFCP_IE_NODE_ID, b, (uint16_t)(1 + id->len));
}

void
pfcp_w_fseid(struct pfcp_writer *w, uint64_t seid, uint32_t ipv4)
{
	uint8_t b[13];

	b[0] = 0x02; /* V4 */
	put32(b + 1, (uint32_t)(seid >> 32));
	put32(b + 5, (uint32_t)seid);
	memcpy(b + 9, &ipv4, 4);
	pfcp_w_ie(w, PFCP_IE_F_SEID, b, sizeof(b));
}

void
pfcp_w_fteid(struct pfcp_writer *w, const struct pfcp_fteid *f)
{
	uint8_t b[9];

	if (f->ch) {
		b[0] = (uint8_t)(0x04 | (f->v4 ? 0x01 : 0));
		pfcp_w_ie(w, PFCP_IE_F_TEID, b, 1);
		return;
	}
	b[0] = 0x01;
	put32(b + 1, f->teid);
	memcpy(b + 5, &f->ipv4, 4);
	pfcp_w_ie(w, PFCP_IE_F_TEID, b, sizeof(b));
}

void
pfcp_w_pdr(struct pfcp_writer *w, uint16_t type, const struct pfcp_pdr *p)
{
	size_t g = pfcp_w_group_begin(w, type);

	pfcp_w_u16(w, PFCP_IE_PDR_ID, p->id);
	if (p->has_precedence)
		pfcp_w_u32(w, PFCP_IE_PRECEDENCE, p->precedence);
	if (p->has_pdi) {
		size_t pdi = pfcp_w_group_begin(w, PFCP_IE_PDI);

		pfcp_w_u8(w, PFCP_IE_SOURCE_INTERFACE, p->src_iface);
		if (p->has_fteid)
			pfcp_w_fteid(w, &p->fteid);
		if (p->has_ue_ip) {
			uint8_t b[5];

			b[0] = (uint8_t)(0x02 | (p->ue_ip_dst ? 0x04 : 0));
			memcpy(b + 1, &p->ue_ip, 4);
			pfcp_w_ie(w, PFCP_IE_UE_IP_ADDRESS, b, sizeof(b));
		}
		pfcp_w_group_end(w, pdi);
	}
	if (p->has_ohr)
		pfcp_w_u8(w, PFCP_IE_OUTER_HEADER_REMOVAL, p->ohr);
	if (p->has_far_id)
		pfcp_w_u32(w, PFCP_IE_FAR_ID, p->far_id);
	pfcp_w_group_end(w, g);
}

void
pfcp_w_far(struct pfcp_writer *w, uint16_t type, const struct pfcp_far *f)
{
	size_t g = pfcp_w_group_begin(w, type);

	pfcp_w_u32(w, PFCP_IE_FAR_ID, f->id);
	if (f->has_action)
		pfcp_w_u8(w, PFCP_IE_APPLY_ACTION, f->action);
	if (f->has_fwd) {
		size_t fp = pfcp_w_group_begin(w, type == PFCP_IE_CREATE_FAR ?
					       PFCP_IE_FORWARDING_PARAMETERS :
					       PFCP_IE_UPDATE_FORWARDING_PARAMETERS);

		if (f->has_dst_iface)
			pfcp_w_u8(w, PFCP_IE_DESTINATION_INTERFACE, f->dst_iface);
		if (f->has_ohc) {
			uint8_t b[10];

			put16(b, f->ohc_desc);
			put32(b + 2, f->ohc_teid);
			memcpy(b + 6, &f->ohc_ipv4, 4);
			pfcp_w_ie(w, PFCP_IE_OUTER_HEADER_CREATION, b, sizeof(b));
		}
		pfcp_w_group_end(w, fp);
	}
	pfcp_w_group_end(w, g);
}

size_t
pfcp_w_finish(struct pfcp_writer *w)
{
	if (w->overflow || w->len < PFCP_HEADER_LEN_NODE || w->len - 4 > UINT16_MAX)
		return 0;
	put16(w->buf + 2, (uint16_t)(w->len - 4));
	return w->len;
}

const char *
pfcp_msg_name(uint8_t type)
{
	switch (type) {
	case PFCP_HEARTBEAT_REQ: return "heartbeat_request";
	case PFCP_HEARTBEAT_RESP: return "heartbeat_response";
	case PFCP_ASSOC_SETUP_REQ: return "association_setup_request";
	case PFCP_ASSOC_SETUP_RESP: return "association_setup_response";
	case PFCP_ASSOC_RELEASE_REQ: return "association_release_request";
	case PFCP_ASSOC_RELEASE_RESP: return "association_release_response";
	case PFCP_VERSION_NOT_SUPPORTED: return "version_not_supported_response";
	case PFCP_SESSION_EST_REQ: return "session_establishment_request";
	case PFCP_SESSION_EST_RESP: return "session_establishment_response";
	case PFCP_SESSION_MOD_REQ: return "session_modification_request";
	case PFCP_SESSION_MOD_RESP: return "session_modification_response";
	case PFCP_SESSION_DEL_REQ: return "session_deletion_request";
	case PFCP_SESSION_DEL_RESP: return "session_deletion_response";
	default: return "unknown";
	}
}
