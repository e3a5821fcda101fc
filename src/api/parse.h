/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Token parsers of the command grammar. Each returns 0 or -EINVAL/-ERANGE;
 * none touches fast-path state.
 */
#ifndef NFV_PARSE_H
#define NFV_PARSE_H

#include <stdbool.h>
#include <stdint.h>
#include <rte_ether.h>

#include "modules/ip/ip.h"

#define NFV_MAX_TOKENS 64

/* Splits line in place into tokens; '#' starts a comment; double quotes group.
 * Returns the number of tokens, or -E2BIG, -EINVAL (unterminated quote) or
 * -EBADMSG (text right after a closing quote). */
int nfv_tokenize(char *line, char **tokens, int max_tokens);

int nfv_parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *out);
int nfv_parse_ip(const char *s, struct nfv_ip *ip);
int nfv_parse_ip_family(const char *s, uint8_t family, struct nfv_ip *ip);
/* "ADDR/LEN"; host_bits_ok: accept bits set beyond LEN (an interface
 * address), else they are an error (a route). */
int nfv_parse_prefix(const char *s, bool host_bits_ok, struct nfv_prefix *p);
int nfv_parse_mac(const char *s, struct rte_ether_addr *mac);
/* Port names: [A-Za-z][A-Za-z0-9_.-]{0,30} */
bool nfv_valid_name(const char *s);

#endif
