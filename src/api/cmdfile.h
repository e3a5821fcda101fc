/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reading a command file (the startup file, "route load FILE", nfvctl -f)
 * without trusting it: only a regular file is opened (a FIFO or a device
 * could block the control plane or never end), a line is at most
 * NFV_CMDFILE_LINE_MAX bytes (the API's request limit), and a read error
 * is an error, not an early end of file.
 */
#ifndef NFV_CMDFILE_H
#define NFV_CMDFILE_H

#include <stddef.h>
#include <stdio.h>

#define NFV_CMDFILE_LINE_MAX (64 * 1024)

struct nfv_cmdfile {
	FILE *f;
	char *line;        /* NFV_CMDFILE_LINE_MAX + 2 bytes */
	unsigned int lineno;
};

/* Opens path for reading when it is a regular file. Returns 0, or -errno
 * with a message in err (errlen bytes) naming the file. */
int nfv_cmdfile_open(struct nfv_cmdfile *cf, const char *path, char *err, size_t errlen);

/* Wraps an already open stream (nfvctl -f -: standard input). */
int nfv_cmdfile_from_stream(struct nfv_cmdfile *cf, FILE *f);

/* The next line (newline kept) in *line. Returns 1, 0 at the end of the
 * file, or -E2BIG (line too long) / -EIO (read error) with a message. */
int nfv_cmdfile_next(struct nfv_cmdfile *cf, char **line, char *err, size_t errlen);

void nfv_cmdfile_close(struct nfv_cmdfile *cf);

#endif
