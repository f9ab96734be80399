/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rcuproc/version.h: the version these headers belong to, and the version
 * of the library a program runs against (they differ when the shared
 * library was upgraded under the program).  The soname policy is in
 * docs/using.md: the soname changes with every incompatible ABI change;
 * a minor version adds, a patch version fixes.
 */
#ifndef RCUPROC_VERSION_H
#define RCUPROC_VERSION_H

#include <rcuproc/export.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RCUPROC_VERSION_MAJOR	0
#define RCUPROC_VERSION_MINOR	2
#define RCUPROC_VERSION_PATCH	0

#define RCUPROC_VERSION_STR_(n)	#n
#define RCUPROC_VERSION_STR(n)	RCUPROC_VERSION_STR_(n)
/* "MAJOR.MINOR.PATCH" */
#define RCUPROC_VERSION_STRING	RCUPROC_VERSION_STR(RCUPROC_VERSION_MAJOR) "." \
	RCUPROC_VERSION_STR(RCUPROC_VERSION_MINOR) "." RCUPROC_VERSION_STR(RCUPROC_VERSION_PATCH)

/* One number that compares in order: RCUPROC_VERSION_NUMBER >= RCUPROC_VERSION(0, 2, 0). */
#define RCUPROC_VERSION(major, minor, patch)	\
	(((major) << 16) | ((minor) << 8) | (patch))
#define RCUPROC_VERSION_NUMBER	\
	RCUPROC_VERSION(RCUPROC_VERSION_MAJOR, RCUPROC_VERSION_MINOR, RCUPROC_VERSION_PATCH)

/* The running library's version, as "MAJOR.MINOR.PATCH". */
RP_API const char *rp_version(void);

#ifdef __cplusplus
}
#endif

#endif /* RCUPROC_VERSION_H */
