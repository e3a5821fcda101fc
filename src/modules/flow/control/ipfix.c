/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPFIX export over UDP (RFC 7011) from the control thread. A message is
 * the 16-byte header (version 10, length, export time, sequence number of
 * the data records sent before it, observation domain), then sets: the
 * templates (set id 2; template 256 for IPv4 flows, 257 for IPv6, with
 * IANA information elements) in the first message and again every
 * IPFIX_TEMPLATE_PERIOD seconds (RFC 7011 8.4: over UDP, templates are
 * resent periodically), and data sets of records, up to IPFIX_MTU bytes a
 * message.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "core/common.h"
#include "core/log.h"
#include "modules/flow/flow.h"

#define IPFIX_VERSION 10
#define IPFIX_MTU 1400
#define IPFIX_TEMPLATE_PERIOD 10 /* seconds */
#define IPFIX_DOMAIN 1
#define IPFIX_SET_TEMPLATE 2
#define IPFIX_TEMPLATE_V4 256
#define IPFIX_TEMPLATE_V6 257

/* IANA IPFIX information elements. */
enum {
	IE_OCTET_DELTA_COUNT = 1,
	IE_PACKET_DELTA_COUNT = 2,
	IE_PROTOCOL_IDENTIFIER = 4,
	IE_TCP_CONTROL_BITS = 6,
	IE_SOURCE_TRANSPORT_PORT = 7,
	IE_SOURCE_IPV4_ADDRESS = 8,
	IE_INGRESS_INTERFACE = 10,
	IE_DESTINATION_TRANSPORT_PORT = 11,
	IE_DESTINATION_IPV4_ADDRESS = 12,
	IE_SOURCE_IPV6_ADDRESS = 27,
	IE_DESTINATION_IPV6_ADDRESS = 28,
	IE_FLOW_START_MILLISECONDS = 152,
	IE_FLOW_END_MILLISECONDS = 153,
};

struct ie {
	uint16_t id;
	uint16_t len;
};

/* The fields after the addresses, the same in both templates. */
static const struct ie common_fields[] = {
	{ IE_SOURCE_TRANSPORT_PORT, 2 }, { IE_DESTINATION_TRANSPORT_PORT, 2 },
	{ IE_PROTOCOL_IDENTIFIER, 1 }, { IE_TCP_CONTROL_BITS, 2 },
	{ IE_INGRESS_INTERFACE, 4 }, { IE_PACKET_DELTA_COUNT, 8 },
	{ IE_OCTET_DELTA_COUNT, 8 }, { IE_FLOW_START_MILLISECONDS, 8 },
	{ IE_FLOW_END_MILLISECONDS, 8 },
};
#define COMMON_LEN (2 + 2 + 1 + 2 + 4 + 8 + 8 + 8 + 8)

struct nfv_ipfix {
	int fd;
	char collector[64];
	uint8_t msg[IPFIX_MTU];
	size_t len;              /* bytes in msg, 0: no message started */
	size_t set_start;        /* offset of the open data set's header, 0: none */
	uint16_t set_id;
	uint32_t records_in_msg;
	uint32_t sequence;       /* data records sent so far (RFC 7011 3.1) */
	time_t templates_sent;   /* 0: never */
	uint64_t records;
	uint64_t messages;
	uint64_t send_errors;
};

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void
put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

static void
put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)(v >> 32));
	put32(p + 4, (uint32_t)v);
}

struct nfv_ipfix *
nfv_ipfix_open(const char *addr, char *err)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	char host[64];
	const char *colon;
	unsigned long port;
	char *end;
	struct nfv_ipfix *x;
	int fd;

	memset(&ss, 0, sizeof(ss));
	if (addr[0] == '[') {
		const char *close = strchr(addr, ']');

		if (close == NULL || close[1] != ':' || (size_t)(close - addr - 1) >= sizeof(host))
			goto bad;
		memcpy(host, addr + 1, (size_t)(close - addr - 1));
		host[close - addr - 1] = '\0';
		colon = close + 1;
	} else {
		colon = strrchr(addr, ':');
		if (colon == NULL || (size_t)(colon - addr) >= sizeof(host))
			goto bad;
		memcpy(host, addr, (size_t)(colon - addr));
		host[colon - addr] = '\0';
	}
	errno = 0;
	port = strtoul(colon + 1, &end, 10);
	if (colon[1] < '0' || colon[1] > '9' || *end != '\0' || errno != 0 || port == 0 ||
	    port > 65535)
		goto bad;
	if (inet_pton(AF_INET, host, &((struct sockaddr_in *)&ss)->sin_addr) == 1) {
		((struct sockaddr_in *)&ss)->sin_family = AF_INET;
		((struct sockaddr_in *)&ss)->sin_port = htons((uint16_t)port);
		sl = sizeof(struct sockaddr_in);
	} else if (inet_pton(AF_INET6, host, &((struct sockaddr_in6 *)&ss)->sin6_addr) == 1) {
		((struct sockaddr_in6 *)&ss)->sin6_family = AF_INET6;
		((struct sockaddr_in6 *)&ss)->sin6_port = htons((uint16_t)port);
		sl = sizeof(struct sockaddr_in6);
	} else {
		goto bad;
	}
	fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&ss, sl) < 0) {
		snprintf(err, NFV_ERR_LEN, "collector %s: %s", addr, strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	x = calloc(1, sizeof(*x));
	if (x == NULL) {
		close(fd);
		snprintf(err, NFV_ERR_LEN, "out of memory");
		return NULL;
	}
	x->fd = fd;
	snprintf(x->collector, sizeof(x->collector), "%s", addr);
	return x;
bad:
	snprintf(err, NFV_ERR_LEN, "bad collector '%s' (expected IPv4:PORT or [IPv6]:PORT)", addr);
	return NULL;
}

void
nfv_ipfix_close(struct nfv_ipfix *x)
{
	if (x == NULL)
		return;
	nfv_ipfix_flush(x);
	close(x->fd);
	free(x);
}

static void
set_close(struct nfv_ipfix *x)
{
	if (x->set_start != 0)
		put16(x->msg + x->set_start + 2, (uint16_t)(x->len - x->set_start));
	x->set_start = 0;
	x->set_id = 0;
}

static void
msg_send(struct nfv_ipfix *x)
{
	if (x->len == 0)
		return;
	set_close(x);
	put16(x->msg + 2, (uint16_t)x->len);
	if (send(x->fd, x->msg, x->len, 0) < 0)
		x->send_errors++;
	else
		x->messages++;
	x->sequence += x->records_in_msg;
	x->len = 0;
	x->records_in_msg = 0;
}

static void
template_put(uint8_t *p, size_t *off, uint16_t id, uint16_t addr_ie_src, uint16_t addr_ie_dst,
	     uint16_t addr_len)
{
	put16(p + *off, id);
	put16(p + *off + 2, 2 + RTE_DIM(common_fields));
	*off += 4;
	put16(p + *off, addr_ie_src);
	put16(p + *off + 2, addr_len);
	put16(p + *off + 4, addr_ie_dst);
	put16(p + *off + 6, addr_len);
	*off += 8;
	for (unsigned int i = 0; i < RTE_DIM(common_fields); i++) {
		put16(p + *off, common_fields[i].id);
		put16(p + *off + 2, common_fields[i].len);
		*off += 4;
	}
}

/* Starts a message (with the templates when they are due). */
static void
msg_start(struct nfv_ipfix *x)
{
	time_t now = time(NULL);

	x->len = 16;
	put16(x->msg, IPFIX_VERSION);
	put32(x->msg + 4, (uint32_t)now);
	put32(x->msg + 8, x->sequence);
	put32(x->msg + 12, IPFIX_DOMAIN);
	if (x->templates_sent == 0 || now - x->templates_sent >= IPFIX_TEMPLATE_PERIOD) {
		size_t start = x->len;

		put16(x->msg + start, IPFIX_SET_TEMPLATE);
		x->len += 4;
		template_put(x->msg, &x->len, IPFIX_TEMPLATE_V4, IE_SOURCE_IPV4_ADDRESS,
			     IE_DESTINATION_IPV4_ADDRESS, 4);
		template_put(x->msg, &x->len, IPFIX_TEMPLATE_V6, IE_SOURCE_IPV6_ADDRESS,
			     IE_DESTINATION_IPV6_ADDRESS, 16);
		put16(x->msg + start + 2, (uint16_t)(x->len - start));
		x->templates_sent = now;
	}
}

void
nfv_ipfix_add(struct nfv_ipfix *x, const struct nfv_flow_record *r, uint64_t start_ms,
	      uint64_t end_ms)
{
	uint16_t id = r->family == NFV_FLOW_V4 ? IPFIX_TEMPLATE_V4 : IPFIX_TEMPLATE_V6;
	size_t alen = r->family == NFV_FLOW_V4 ? 4 : 16, need = 2 * alen + COMMON_LEN;
	uint8_t *p;

	if (x->len != 0 && x->len + need + (x->set_id == id ? 0 : 4) > IPFIX_MTU)
		msg_send(x);
	if (x->len == 0)
		msg_start(x);
	if (x->set_id != id) {
		set_close(x);
		x->set_start = x->len;
		x->set_id = id;
		put16(x->msg + x->len, id);
		x->len += 4;
	}
	p = x->msg + x->len;
	memcpy(p, r->src, alen);
	memcpy(p + alen, r->dst, alen);
	p += 2 * alen;
	memcpy(p, &r->sport, 2);   /* network order already */
	memcpy(p + 2, &r->dport, 2);
	p[4] = r->proto;
	put16(p + 5, r->tcp_flags);
	put32(p + 7, r->iface);
	put64(p + 11, r->packets);
	put64(p + 19, r->bytes);
	put64(p + 27, start_ms);
	put64(p + 35, end_ms);
	x->len += need;
	x->records_in_msg++;
	x->records++;
}

void
nfv_ipfix_flush(struct nfv_ipfix *x)
{
	if (x->len == 0 && (x->templates_sent == 0 ||
			    time(NULL) - x->templates_sent >= IPFIX_TEMPLATE_PERIOD))
		msg_start(x); /* templates alone, when due */
	msg_send(x);
}

json_t *
nfv_ipfix_stats(const struct nfv_ipfix *x)
{
	return json_pack("{s:s, s:I, s:I, s:I}", "collector", x->collector,
			 "records", (json_int_t)x->records, "messages", (json_int_t)x->messages,
			 "send_errors", (json_int_t)x->send_errors);
}

const char *
nfv_ipfix_collector(const struct nfv_ipfix *x)
{
	return x->collector;
}
