/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The one way rcuproc stops at a broken rule: print where and what on
 * stderr, then abort(), so that a test sees SIGABRT and a core names the
 * caller.
 *
 *   RP_BUG_ON(cond)             every build: abort if @cond holds, printing
 *                               "rcuproc: BUG at FILE:LINE: COND".
 *   RP_BUG_ON_MSG(cond, fmt, ...)  the same, with a printf-style account.
 *   RP_DEBUG_BUG_ON(cond)       debug builds (RP_DEBUG, meson option
 *                               debug_checks) only; elsewhere @cond is
 *                               type-checked but never evaluated: no cost.
 *
 * RP_BUG_ON is for checks that cost nothing where they run, or run only when
 * asked for at run time (the allocator's poison check).  Preconditions on
 * hot paths (the held-lock assertions, docs/sync.md) use RP_DEBUG_BUG_ON or
 * live inside RP_DEBUG code.
 */
#ifndef RP_DEBUG_BUG_H
#define RP_DEBUG_BUG_H

#include <stddef.h>

/* Print "rcuproc: BUG at @file:@line: @cond" and @fmt's text, then abort. */
__attribute__((noreturn, cold, format(printf, 4, 5)))
void rp_bug(const char *file, int line, const char *cond, const char *fmt, ...);

/*
 * Each macro names @cond itself (#cond): passed on to another macro first,
 * it would be printed with its macros expanded.
 */
#define RP_BUG_IF_(cond, text, ...) \
	(__builtin_expect(!!(cond), 0) ? rp_bug(__FILE__, __LINE__, text, __VA_ARGS__) : (void)0)

#define RP_BUG_ON(cond) RP_BUG_IF_(cond, #cond, NULL)
#define RP_BUG_ON_MSG(cond, ...) RP_BUG_IF_(cond, #cond, __VA_ARGS__)

#ifdef RP_DEBUG
#define RP_DEBUG_BUG_ON(cond) RP_BUG_IF_(cond, #cond, NULL)
#else
#define RP_DEBUG_BUG_ON(cond) ((void)sizeof(!(cond)))
#endif

#endif /* RP_DEBUG_BUG_H */
