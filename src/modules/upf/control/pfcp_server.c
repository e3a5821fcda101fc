/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The N4 endpoint: PFCP over UDP (TS 29.244) on the control thread's event
 * loop. One datagram is one message; a request is answered to the address
 * and port it came from (7.2.2.1... 6.1: requests and responses).
 *
 *   Heartbeat Request              -> Heartbeat Response (our recovery time stamp)
 *   Association Setup Request      -> Response: node id, cause, recovery time stamp
 *   Association Release Request    -> Response: node id, cause (its sessions go)
 *   Session Establishment Request  -> Response: node id, cause, [offending IE],
 *                                     UP F-SEID, Created PDRs (F-TEIDs chosen here)
 *   Session Modification Request   -> Response: cause, [offending IE], Created PDRs
 *   Session Deletion Request       -> Response: cause
 *
 * A message shorter than its header or whose length field does not match
 * the datagram is discarded (counted as malformed); another version than
 * 1 gets a Version Not Supported Response (7.2.2.2... 7.6.1); an unknown
 * message type is discarded and counted (7.6.1). A session message for
 * an unknown SEID gets "Session context not found" with SEID 0 (7.2.2.4.2).
 * Not built: retransmission detection (a repeated request is handled
 * again), the UP function's own requests (session reports, heartbeats to
 * the SMF), PFD management, association updates.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "api/cmd.h"
#include "core/event.h"
#include "core/log.h"
#include "modules/upf/control/upf_ctl.h"
#include "modules/upf/upf.h"

#define NTP_UNIX_OFFSET 2208988800u
#define ASSOC_MAX 32

static int pfcp_fd = -1;
static struct sockaddr_in pfcp_addr;
static struct pfcp_node_id our_node;
static uint32_t our_recovery;

static struct {
	bool used;
	struct pfcp_node_id node;
	uint32_t recovery;
} assocs[ASSOC_MAX];

static struct {
	uint64_t rx;
	uint64_t tx;
	uint64_t malformed;
	uint64_t unknown_type;
	uint64_t unexpected;
	uint64_t rejected;
	uint64_t version_not_supported;
	uint64_t send_errors;
} st;

json_t *upf_pfcp_json(void);
void upf_pfcp_close(void);

json_t *
upf_pfcp_json(void)
{
	char buf[INET_ADDRSTRLEN] = "";
	unsigned int n_assoc = 0;

	for (unsigned int i = 0; i < ASSOC_MAX; i++)
		n_assoc += assocs[i].used;
	if (pfcp_fd >= 0)
		inet_ntop(AF_INET, &pfcp_addr.sin_addr, buf, sizeof(buf));
	return json_pack("{s:s, s:i, s:i, s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
			 "listen", buf, "port", pfcp_fd >= 0 ? ntohs(pfcp_addr.sin_port) : 0,
			 "associations", n_assoc,
			 "rx_messages", (json_int_t)st.rx, "tx_messages", (json_int_t)st.tx,
			 "malformed", (json_int_t)st.malformed,
			 "unknown_type", (json_int_t)st.unknown_type,
			 "unexpected", (json_int_t)st.unexpected,
			 "rejected", (json_int_t)st.rejected,
			 "version_not_supported", (json_int_t)st.version_not_supported);
}

static bool
node_eq(const struct pfcp_node_id *a, const struct pfcp_node_id *b)
{
	return a->type == b->type && a->len == b->len && memcmp(a->v, b->v, a->len) == 0;
}

static int
assoc_find(const struct pfcp_node_id *node)
{
	for (int i = 0; i < ASSOC_MAX; i++)
		if (assocs[i].used && node_eq(&assocs[i].node, node))
			return i;
	return -1;
}

static void
reply(struct pfcp_writer *w, const struct sockaddr_in *to)
{
	size_t len = pfcp_w_finish(w);

	if (len == 0)
		return;
	if (sendto(pfcp_fd, w->buf, len, 0, (const struct sockaddr *)to, sizeof(*to)) < 0)
		st.send_errors++;
	else
		st.tx++;
}

static void
w_cause(struct pfcp_writer *w, uint8_t cause, uint16_t offending)
{
	pfcp_w_u8(w, PFCP_IE_CAUSE, cause);
	if (offending != 0)
		pfcp_w_u16(w, PFCP_IE_OFFENDING_IE, offending);
	if (cause != PFCP_CAUSE_ACCEPTED)
		st.rejected++;
}

static void
w_created(struct pfcp_writer *w, const struct upf_created *c)
{
	for (unsigned int i = 0; i < c->n; i++) {
		size_t g = pfcp_w_group_begin(w, PFCP_IE_CREATED_PDR);

		pfcp_w_u16(w, PFCP_IE_PDR_ID, c->pdr_id[i]);
		pfcp_w_fteid(w, &c->fteid[i]);
		pfcp_w_group_end(w, g);
	}
}

/* Our F-SEID address: the listening address, else the N3 one. */
static uint32_t
our_ipv4(void)
{
	if (pfcp_addr.sin_addr.s_addr != INADDR_ANY)
		return pfcp_addr.sin_addr.s_addr;
	return nfv_upf_n3 != NULL ? nfv_upf_n3->addr : 0;
}

static void
handle_node(const struct pfcp_header *h, const struct pfcp_msg *m, uint8_t cause,
	    struct pfcp_writer *w)
{
	int a;

	switch (h->type) {
	case PFCP_HEARTBEAT_REQ:
		/* No cause in a heartbeat response: a bad request gets the
		 * response anyway (the peer learns we are alive). */
		pfcp_w_header(w, PFCP_HEARTBEAT_RESP, false, 0, h->seq);
		pfcp_w_u32(w, PFCP_IE_RECOVERY_TIME_STAMP, our_recovery);
		return;
	case PFCP_ASSOC_SETUP_REQ:
		pfcp_w_header(w, PFCP_ASSOC_SETUP_RESP, false, 0, h->seq);
		pfcp_w_node_id(w, &our_node);
		if (cause == PFCP_CAUSE_ACCEPTED) {
			a = assoc_find(&m->node_id);
			/* 6.2.6.2.2: a peer that restarted (another recovery
			 * time stamp) lost its sessions: ours go too. */
			if (a >= 0 && assocs[a].recovery != m->recovery)
				upf_sessions_delete_node(&m->node_id);
			for (int i = 0; a < 0 && i < ASSOC_MAX; i++)
				if (!assocs[i].used)
					a = i;
			if (a < 0) {
				cause = PFCP_CAUSE_NO_RESOURCES;
			} else {
				assocs[a].used = true;
				assocs[a].node = m->node_id;
				assocs[a].recovery = m->recovery;
			}
		}
		w_cause(w, cause, cause == PFCP_CAUSE_ACCEPTED ? 0 : m->offending_ie);
		pfcp_w_u32(w, PFCP_IE_RECOVERY_TIME_STAMP, our_recovery);
		return;
	case PFCP_ASSOC_RELEASE_REQ:
		pfcp_w_header(w, PFCP_ASSOC_RELEASE_RESP, false, 0, h->seq);
		pfcp_w_node_id(w, &our_node);
		if (cause == PFCP_CAUSE_ACCEPTED) {
			a = assoc_find(&m->node_id);
			if (a < 0) {
				cause = PFCP_CAUSE_NO_ASSOCIATION;
			} else {
				upf_sessions_delete_node(&m->node_id);
				assocs[a].used = false;
			}
		}
		w_cause(w, cause, cause == PFCP_CAUSE_ACCEPTED ? 0 : m->offending_ie);
		return;
	default:
		return;
	}
}

static void
handle_session(const struct pfcp_header *h, const struct pfcp_msg *m, uint8_t cause,
	       struct pfcp_writer *w)
{
	struct upf_created created = { .n = 0 };
	uint64_t up_seid = 0, cp_seid = 0;
	uint16_t off = m->offending_ie;

	switch (h->type) {
	case PFCP_SESSION_EST_REQ:
		if (cause == PFCP_CAUSE_ACCEPTED && assoc_find(&m->node_id) < 0)
			cause = PFCP_CAUSE_NO_ASSOCIATION;
		if (cause == PFCP_CAUSE_ACCEPTED)
			cause = upf_session_establish(m, &up_seid, &created, &off);
		pfcp_w_header(w, PFCP_SESSION_EST_RESP, true, m->has_fseid ? m->cp_seid : 0,
			      h->seq);
		pfcp_w_node_id(w, &our_node);
		w_cause(w, cause, cause == PFCP_CAUSE_ACCEPTED ? 0 : off);
		if (cause == PFCP_CAUSE_ACCEPTED) {
			pfcp_w_fseid(w, up_seid, our_ipv4());
			w_created(w, &created);
		}
		return;
	case PFCP_SESSION_MOD_REQ:
		if (cause == PFCP_CAUSE_ACCEPTED)
			cause = upf_session_modify(h->seid, m, &cp_seid, &created, &off);
		else if (!upf_session_cp_seid(h->seid, &cp_seid))
			cause = PFCP_CAUSE_SESSION_NOT_FOUND;
		pfcp_w_header(w, PFCP_SESSION_MOD_RESP, true, cp_seid, h->seq);
		w_cause(w, cause, cause == PFCP_CAUSE_ACCEPTED ||
			cause == PFCP_CAUSE_SESSION_NOT_FOUND ? 0 : off);
		if (cause == PFCP_CAUSE_ACCEPTED)
			w_created(w, &created);
		return;
	case PFCP_SESSION_DEL_REQ:
		cause = upf_session_delete(h->seid, &cp_seid);
		pfcp_w_header(w, PFCP_SESSION_DEL_RESP, true, cp_seid, h->seq);
		w_cause(w, cause, 0);
		return;
	default:
		return;
	}
}

static bool
is_session_type(uint8_t t)
{
	return t >= 50 && t <= 57;
}

static void
handle(const uint8_t *buf, size_t len, const struct sockaddr_in *from)
{
	static struct pfcp_msg m; /* large: not on the stack */
	uint8_t out[PFCP_MSG_MAX];
	struct pfcp_writer w;
	struct pfcp_header h;
	uint8_t cause;
	int rc;

	st.rx++;
	pfcp_w_init(&w, out, sizeof(out));
	rc = pfcp_header_parse(buf, len, &h);
	if (rc == -2 && len >= PFCP_HEADER_LEN_NODE) {
		/* 7.4.4.7: the version we speak, the request's sequence number. */
		uint32_t seq = (buf[0] & 1) && len >= 16 ?
			       (uint32_t)buf[12] << 16 | buf[13] << 8 | buf[14] :
			       (uint32_t)buf[4] << 16 | buf[5] << 8 | buf[6];

		st.version_not_supported++;
		pfcp_w_header(&w, PFCP_VERSION_NOT_SUPPORTED, false, 0, seq);
		reply(&w, from);
		return;
	}
	if (rc < 0) {
		st.malformed++;
		return;
	}
	switch (h.type) {
	case PFCP_HEARTBEAT_REQ:
	case PFCP_ASSOC_SETUP_REQ:
	case PFCP_ASSOC_RELEASE_REQ:
	case PFCP_SESSION_EST_REQ:
	case PFCP_SESSION_MOD_REQ:
	case PFCP_SESSION_DEL_REQ:
		break;
	default:
		/* Responses to requests we never send, and unknown types. */
		if (h.type == PFCP_HEARTBEAT_RESP || h.type == PFCP_ASSOC_SETUP_RESP ||
		    h.type == PFCP_ASSOC_RELEASE_RESP || is_session_type(h.type) || h.type <= 15)
			st.unexpected++;
		else
			st.unknown_type++;
		return;
	}
	/* The S flag: set on session messages only (7.2.2.1). */
	if (h.has_seid != is_session_type(h.type)) {
		st.malformed++;
		return;
	}
	cause = pfcp_decode(h.type, buf + h.header_len, len - h.header_len, &m);
	if (is_session_type(h.type))
		handle_session(&h, &m, cause, &w);
	else
		handle_node(&h, &m, cause, &w);
	reply(&w, from);
}

static void
pfcp_readable(int fd, short revents, void *arg)
{
	uint8_t buf[PFCP_MSG_MAX + 1];

	RTE_SET_USED(revents);
	RTE_SET_USED(arg);
	for (unsigned int i = 0; i < 64; i++) {
		struct sockaddr_in from;
		socklen_t flen = sizeof(from);
		ssize_t n = recvfrom(fd, buf, sizeof(buf), MSG_TRUNC, (struct sockaddr *)&from,
				     &flen);

		if (n < 0)
			return;
		nfv_ctl_lock();
		if (fd != pfcp_fd || from.sin_family != AF_INET) {
			nfv_ctl_unlock();
			return;
		}
		if ((size_t)n > PFCP_MSG_MAX) {
			st.rx++;
			st.malformed++;
		} else {
			handle(buf, (size_t)n, &from);
		}
		nfv_ctl_unlock();
	}
}

void
upf_pfcp_close(void)
{
	if (pfcp_fd < 0)
		return;
	nfv_event_fd_del(pfcp_fd);
	close(pfcp_fd);
	pfcp_fd = -1;
}

/* A Node ID: an IPv4 address, else an FQDN (8.2.38: labels, RFC 1035). */
static int
node_id_parse(const char *s, struct pfcp_node_id *id, char *err)
{
	struct in_addr a;
	size_t o = 0, n = strlen(s);

	memset(id, 0, sizeof(*id));
	if (inet_pton(AF_INET, s, &a) == 1) {
		id->type = 0;
		id->len = 4;
		memcpy(id->v, &a, 4);
		return 0;
	}
	if (n == 0 || n > 200) {
		snprintf(err, NFV_ERR_LEN, "bad node id '%s' (an IPv4 address or a name)", s);
		return -EINVAL;
	}
	id->type = 2;
	for (const char *p = s; *p != '\0';) {
		const char *dot = strchr(p, '.');
		size_t l = dot != NULL ? (size_t)(dot - p) : strlen(p);

		if (l == 0 || l > 63) {
			snprintf(err, NFV_ERR_LEN, "bad node id '%s' (an empty or long label)", s);
			return -EINVAL;
		}
		id->v[o++] = (uint8_t)l;
		memcpy(id->v + o, p, l);
		o += l;
		p += l + (dot != NULL ? 1 : 0);
		if (dot != NULL && *p == '\0') {
			snprintf(err, NFV_ERR_LEN, "bad node id '%s' (ends with a dot)", s);
			return -EINVAL;
		}
	}
	id->len = (uint8_t)o;
	return 0;
}

int
nfv_upf_pfcp_listen(const char *addr_port, const char *node_id, char *err)
{
	char host[64];
	const char *colon = strchr(addr_port, ':');
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(PFCP_PORT) };
	struct pfcp_node_id node;
	int fd, one = 1, rc;

	if (colon != NULL) {
		char *end;
		unsigned long p = strtoul(colon + 1, &end, 10);

		if (*end != '\0' || colon[1] == '\0' || p == 0 || p > 65535) {
			snprintf(err, NFV_ERR_LEN, "bad port in '%s' (expected 1-65535)", addr_port);
			return -EINVAL;
		}
		sa.sin_port = htons((uint16_t)p);
	}
	snprintf(host, sizeof(host), "%.*s",
		 (int)(colon != NULL ? (size_t)(colon - addr_port) : strlen(addr_port)), addr_port);
	if (inet_pton(AF_INET, host, &sa.sin_addr) != 1) {
		snprintf(err, NFV_ERR_LEN, "bad address '%s' (expected IPv4[:PORT])", addr_port);
		return -EINVAL;
	}
	if (node_id != NULL) {
		rc = node_id_parse(node_id, &node, err);
		if (rc < 0)
			return rc;
	} else if (sa.sin_addr.s_addr != INADDR_ANY) {
		node.type = 0;
		node.len = 4;
		memcpy(node.v, &sa.sin_addr, 4);
	} else {
		snprintf(err, NFV_ERR_LEN, "listening on 0.0.0.0 needs a node-id");
		return -EINVAL;
	}
	rc = upf_tables_init(err);
	if (rc < 0)
		return rc;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(err, NFV_ERR_LEN, "socket: %s", strerror(errno));
		return -errno;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		rc = -errno;
		snprintf(err, NFV_ERR_LEN, "cannot listen on %s: %s", addr_port, strerror(errno));
		close(fd);
		return rc;
	}
	upf_pfcp_close();
	rc = nfv_event_fd_add(fd, POLLIN, pfcp_readable, NULL);
	if (rc < 0) {
		snprintf(err, NFV_ERR_LEN, "cannot watch the PFCP socket: %s", strerror(-rc));
		close(fd);
		return rc;
	}
	pfcp_fd = fd;
	pfcp_addr = sa;
	our_node = node;
	if (our_recovery == 0)
		our_recovery = (uint32_t)time(NULL) + NTP_UNIX_OFFSET;
	return 0;
}
