/* SPDX-License-Identifier: BSD-3-Clause */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "api/parse.h"

int
nfv_tokenize(char *line, char **tokens, int max_tokens)
{
	int n = 0;
	char *p = line;

	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
			p++;
		if (*p == '\0' || *p == '#')
			return n;
		if (n == max_tokens)
			return -E2BIG;
		if (*p == '"') {
			char *end = strchr(p + 1, '"');

			if (end == NULL)
				return -EINVAL; /* unterminated quote */
			*end = '\0';
			tokens[n++] = p + 1;
			p = end + 1;
			if (*p != '\0' && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n')
				return -EBADMSG; /* text right after a closing quote */
			continue;
		}
		tokens[n++] = p;
		while (*p != '\0' && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n')
			p++;
		if (*p == '\0')
			return n;
		*p++ = '\0';
	}
}

int
nfv_parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *out)
{
	unsigned long long v;
	char *end;

	if (s == NULL || !isdigit((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end != '\0')
		return -EINVAL;
	if (errno == ERANGE || v < min || v > max)
		return -ERANGE;
	*out = (uint32_t)v;
	return 0;
}

int
nfv_parse_ip(const char *s, struct nfv_ip *ip)
{
	memset(ip, 0, sizeof(*ip));
	if (s == NULL)
		return -EINVAL;
	if (inet_pton(AF_INET, s, &ip->v4) == 1) {
		ip->family = AF_INET;
		return 0;
	}
	if (inet_pton(AF_INET6, s, ip->v6) == 1) {
		ip->family = AF_INET6;
		return 0;
	}
	return -EINVAL;
}

int
nfv_parse_ip_family(const char *s, uint8_t family, struct nfv_ip *ip)
{
	int rc = nfv_parse_ip(s, ip);

	if (rc < 0)
		return rc;
	return ip->family == family ? 0 : -EAFNOSUPPORT;
}

int
nfv_parse_prefix(const char *s, bool host_bits_ok, struct nfv_prefix *p)
{
	char buf[64];
	const char *slash;
	uint32_t len;
	struct nfv_prefix masked;

	if (s == NULL || strlen(s) >= sizeof(buf))
		return -EINVAL;
	slash = strchr(s, '/');
	if (slash == NULL)
		return -EINVAL;
	memcpy(buf, s, (size_t)(slash - s));
	buf[slash - s] = '\0';
	if (nfv_parse_ip(buf, &p->ip) < 0)
		return -EINVAL;
	{
		int rc = nfv_parse_u32(slash + 1, 0, p->ip.family == AF_INET ? 32 : 128, &len);

		if (rc < 0)
			return rc; /* -EINVAL: not a number; -ERANGE: too long */
	}
	if (slash[1] == '0' && slash[2] != '\0')
		return -EINVAL; /* no leading zeros or hex in a prefix length */
	p->len = (uint8_t)len;
	p->pad = 0;
	p->vrf = 0; /* the default VRF unless the caller says otherwise */
	masked = *p;
	nfv_prefix_mask(&masked);
	if (!host_bits_ok && !nfv_ip_equal(&masked.ip, &p->ip))
		return -EDOM;
	return 0;
}

int
nfv_parse_mac(const char *s, struct rte_ether_addr *mac)
{
	unsigned int i;

	if (s == NULL || strlen(s) != 17)
		return -EINVAL;
	for (i = 0; i < 6; i++) {
		const char *h = s + i * 3;

		if (!isxdigit((unsigned char)h[0]) || !isxdigit((unsigned char)h[1]))
			return -EINVAL;
		if (i < 5 && h[2] != ':')
			return -EINVAL;
		mac->addr_bytes[i] = (uint8_t)strtoul((char[]){ h[0], h[1], '\0' }, NULL, 16);
	}
	return 0;
}

bool
nfv_valid_name(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 31 || !isalpha((unsigned char)s[0]))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '-' && s[i] != '.')
			return false;
	return true;
}
