/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* strace's spellings: signal and errno names, wait statuses, signal sets. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include "replay.h"

#define KERNEL_SIGRTMIN	32	/* strace names signal 32 + n "SIGRT_n" */

/* Names glibc's sigabbrev_np spells differently from strace. */
static const struct { const char *name; int sig; } signal_aliases[] = {
	{ "IOT", SIGABRT }, { "POLL", SIGIO }, { "CLD", SIGCHLD },
};

int replay_signal_number(const char *name)
{
	char abbrev[16];
	int n;

	if (strncmp(name, "SIG", 3))
		return 0;
	name += 3;
	if (sscanf(name, "RT_%d", &n) == 1)
		return n >= 0 && KERNEL_SIGRTMIN + n < 65 ? KERNEL_SIGRTMIN + n : 0;
	if (!strncmp(name, "RTMIN", 5))
		return KERNEL_SIGRTMIN;
	/*
	 * Stop at a trailing space or parenthesis ("SIGKILL (core dumped)"), or
	 * at the end of a wait status's test ("WSTOPSIG(s) == SIGSTOP}|0x80<<16]").
	 */
	n = (int)strcspn(name, " (}|]");
	if (n >= (int)sizeof(abbrev))
		return 0;
	memcpy(abbrev, name, n);
	abbrev[n] = '\0';
	for (int sig = 1; sig < KERNEL_SIGRTMIN; sig++) {
		const char *a = sigabbrev_np(sig);

		if (a && !strcmp(a, abbrev))
			return sig;
	}
	for (size_t i = 0; i < sizeof(signal_aliases) / sizeof(signal_aliases[0]); i++)
		if (!strcmp(signal_aliases[i].name, abbrev))
			return signal_aliases[i].sig;
	return 0;
}

const char *replay_signal_name(int sig, char *buf, size_t len)
{
	const char *a = sig > 0 && sig < KERNEL_SIGRTMIN ? sigabbrev_np(sig) : NULL;

	if (a)
		snprintf(buf, len, "SIG%s", a);
	else
		snprintf(buf, len, "SIGRT_%d", sig - KERNEL_SIGRTMIN);
	return buf;
}

/* The kernel's restart codes strace prints (never seen by a program). */
static const struct { const char *name; int err; } restart_errnos[] = {
	{ "ERESTARTSYS", 512 }, { "ERESTARTNOINTR", 513 },
	{ "ERESTARTNOHAND", 514 }, { "ERESTART_RESTARTBLOCK", 516 },
};

int replay_errno_number(const char *name)
{
	for (int err = 1; err < 200; err++) {
		const char *n = strerrorname_np(err);

		if (n && !strcmp(n, name))
			return err;
	}
	for (size_t i = 0; i < sizeof(restart_errnos) / sizeof(restart_errnos[0]); i++)
		if (!strcmp(restart_errnos[i].name, name))
			return restart_errnos[i].err;
	return 0;
}

const char *replay_errno_name(int err)
{
	const char *n = strerrorname_np(err);

	return n ? n : "E?";
}

/* The signal named after "== " in @s, or 0. */
static int signal_after(const char *s, const char *key)
{
	const char *p = strstr(s, key);

	return p ? replay_signal_number(p + strlen(key)) : 0;
}

bool replay_parse_wstatus(const char *s, int *status)
{
	const char *p;
	int sig;

	if (strncmp(s, "[{", 2))
		return false;
	if ((p = strstr(s, "WEXITSTATUS(s) == "))) {
		*status = atoi(p + 18) << 8;
		return true;
	}
	if ((sig = signal_after(s, "WTERMSIG(s) == "))) {
		*status = sig | (strstr(s, "WCOREDUMP") ? 0x80 : 0);
		return true;
	}
	if ((sig = signal_after(s, "WSTOPSIG(s) == "))) {
		p = strstr(s, "}|");
		*status = (sig << 8) | 0x7f | (p ? (int)strtol(p + 2, NULL, 0) << 16 : 0);
		return true;
	}
	if (strstr(s, "WIFCONTINUED(s)")) {
		*status = 0xffff;
		return true;
	}
	return false;
}

void replay_format_wstatus(int status, char *buf, size_t len)
{
	char name[16];

	if (WIFEXITED(status))
		snprintf(buf, len, "exited %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, len, "killed by %s%s", replay_signal_name(WTERMSIG(status), name, sizeof(name)),
			 WCOREDUMP(status) ? " (core)" : "");
	else if (WIFSTOPPED(status))
		snprintf(buf, len, "stopped by %s event %d",
			 replay_signal_name(WSTOPSIG(status), name, sizeof(name)), status >> 16);
	else if (WIFCONTINUED(status))
		snprintf(buf, len, "continued");
	else
		snprintf(buf, len, "status 0x%x", status);
}

bool replay_parse_sigset(const char *s, uint64_t *bits)
{
	bool complement = *s == '~';
	char *end;

	if (complement)
		s++;
	if (*s != '[')
		return false;
	*bits = 0;
	for (s++; *s && *s != ']'; s = end) {
		long sig = strtol(s, &end, 10);

		if (end == s)
			return false;
		if (sig >= 1 && sig <= 64)
			*bits |= 1ULL << (sig - 1);
		while (*end == ' ')
			end++;
	}
	if (complement)
		*bits = ~*bits;
	return true;
}

void replay_format_sigset(uint64_t bits, char *buf, size_t len)
{
	size_t n = (size_t)snprintf(buf, len, "[");

	for (int sig = 1; sig <= 64 && n < len; sig++)
		if (bits & (1ULL << (sig - 1)))
			n += (size_t)snprintf(buf + n, len - n, n > 1 ? " %d" : "%d", sig);
	if (n < len)
		snprintf(buf + n, len - n, "]");
}

bool replay_parse_long(const char *s, long *v)
{
	char *end;
	long n;

	if (!s)
		return false;
	errno = 0;
	/* -X raw prints flag words unsigned: 0xffffffff84000000 is an int's -0x7c000000. */
	n = *s == '-' ? strtol(s, &end, 0) : (long)strtoull(s, &end, 0);
	if (end == s || errno)
		return false;
	*v = n;
	return true;
}

/* The text after "key=" inside a {...} argument, or NULL. */
static const char *field_value(const char *s, const char *key)
{
	size_t klen = strlen(key);

	for (const char *p = strstr(s, key); p; p = strstr(p + 1, key)) {
		bool starts = p == s || strchr("{ ,", p[-1]);

		if (starts && p[klen] == '=')
			return p + klen + 1;
	}
	return NULL;
}

bool replay_field(const char *s, const char *key, long *v)
{
	return replay_parse_long(field_value(s, key), v);
}

long replay_ns_note(const char *s)
{
	static const char tail[] = " in strace's PID NS */";
	char *end;
	long root;

	if (!s)
		return 0;
	s += strspn(s, "-");
	s += strspn(s, "0123456789");
	if (strncmp(s, " /* ", 4))
		return 0;
	root = strtol(s + 4, &end, 10);
	return end != s + 4 && !strncmp(end, tail, strlen(tail)) ? root : 0;
}

long replay_field_note(const char *s, const char *key)
{
	return replay_ns_note(field_value(s, key));
}

unsigned long replay_clone_flags_of(const char *args)
{
	const char *p = args ? strstr(args, "flags=") : NULL;
	unsigned long flags = 0;
	char *end;
	long sig;

	if (p) {
		flags = strtoul(p + 6, &end, 0);
		if (*end == '|')
			flags |= strtoul(end + 1, NULL, 0);
	}
	if (args && replay_field(args, "exit_signal", &sig))
		flags |= (unsigned long)sig;
	return flags;
}

int replay_field_pids(const char *s, const char *key, pid_t *out, int max)
{
	const char *p = s ? field_value(s, key) : NULL;
	char *end;
	int n = 0;

	if (!p || *p != '[')
		return -1;
	for (p++; *p && *p != ']'; p = end) {
		long v = strtol(p, &end, 10);

		if (end == p)
			return -1;
		if (n < max)
			out[n] = (pid_t)v;
		n++;
		/* A noted number, should strace ever note one here. */
		if (!strncmp(end, " /* ", 4) && (end = strstr(end, "*/")))
			end += 2;
		if (!end)
			return -1;
		end += strspn(end, ", ");
	}
	return *p == ']' ? n : -1;
}
