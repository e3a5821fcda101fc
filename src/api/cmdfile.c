/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/cmdfile.h"

static int
cmdfile_init(struct nfv_cmdfile *cf, FILE *f)
{
	cf->f = f;
	cf->lineno = 0;
	cf->line = malloc(NFV_CMDFILE_LINE_MAX + 2);
	return cf->line == NULL ? -ENOMEM : 0;
}

int
nfv_cmdfile_from_stream(struct nfv_cmdfile *cf, FILE *f)
{
	return cmdfile_init(cf, f);
}

int
nfv_cmdfile_open(struct nfv_cmdfile *cf, const char *path, char *err, size_t errlen)
{
	struct stat st;
	int fd, rc;
	FILE *f;

	memset(cf, 0, sizeof(*cf));
	/* O_NONBLOCK: opening a FIFO with no writer must not wait. */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
		return rc;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		rc = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
		snprintf(err, errlen, "cannot read %s: %s", path,
			 S_ISDIR(st.st_mode) ? "is a directory" : "not a regular file");
		close(fd);
		return rc;
	}
	if (fcntl(fd, F_SETFL, 0) < 0 || (f = fdopen(fd, "r")) == NULL) {
		rc = -errno;
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
		close(fd);
		return rc;
	}
	rc = cmdfile_init(cf, f);
	if (rc < 0) {
		snprintf(err, errlen, "cannot read %s: out of memory", path);
		fclose(f);
		cf->f = NULL;
	}
	return rc;
}

int
nfv_cmdfile_next(struct nfv_cmdfile *cf, char **line, char *err, size_t errlen)
{
	size_t len = 0;
	int c = EOF;

	errno = 0;
	while (len <= NFV_CMDFILE_LINE_MAX && (c = getc_unlocked(cf->f)) != EOF) {
		if (c == '\0') {
			snprintf(err, errlen, "line %u contains a NUL byte", cf->lineno + 1);
			return -EINVAL;
		}
		cf->line[len++] = (char)c;
		if (c == '\n')
			break;
	}
	if (c == EOF && ferror(cf->f)) {
		snprintf(err, errlen, "read error after line %u: %s", cf->lineno,
			 strerror(errno != 0 ? errno : EIO));
		return -EIO;
	}
	if (len == 0)
		return 0;
	cf->lineno++;
	/* Room for NFV_CMDFILE_LINE_MAX bytes and the newline. */
	if (len > NFV_CMDFILE_LINE_MAX && cf->line[len - 1] != '\n') {
		snprintf(err, errlen, "line %u is longer than %d bytes", cf->lineno,
			 NFV_CMDFILE_LINE_MAX);
		return -E2BIG;
	}
	cf->line[len] = '\0';
	*line = cf->line;
	return 1;
}

void
nfv_cmdfile_close(struct nfv_cmdfile *cf)
{
	free(cf->line);
	cf->line = NULL;
	if (cf->f != NULL && cf->f != stdin)
		fclose(cf->f);
	cf->f = NULL;
}
