/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rcuproc/export.h: RP_API, the mark of the public API.
 *
 * The library is compiled with hidden symbol visibility: a function or
 * variable is exported from the shared library only if its declaration in
 * a public header (include/rcuproc/) carries RP_API, and every such
 * declaration must (scripts/exports.py checks both ways).  For a program
 * that uses the library the mark changes nothing.
 */
#ifndef RCUPROC_EXPORT_H
#define RCUPROC_EXPORT_H

#define RP_API __attribute__((visibility("default")))

#endif /* RCUPROC_EXPORT_H */
