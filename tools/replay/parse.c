/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Reading an strace -f recording into events.  A call strace split into
 * "<unfinished ...>" and "<... name resumed>" is joined into one event; each
 * event gets the line at which it is replayed (docs/replay.md, "Order").
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include "replay.h"

#define UNFINISHED	" <unfinished ...>"
/* An execve in a thread that is taking over its leader's pid. */
#define PID_CHANGED	" <pid changed to "

struct parser {
	struct replay_trace *tr;
	int cap;
	int line;
	int pending[256];	/* events waiting for their "resumed" line */
	int npending;
};

static struct replay_event *new_event(struct parser *p, pid_t pid, enum replay_kind kind)
{
	struct replay_event *ev;

	if (p->tr->nev == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 256;
		p->tr->ev = realloc(p->tr->ev, p->cap * sizeof(*ev));
		if (!p->tr->ev)
			abort();
	}
	ev = &p->tr->ev[p->tr->nev++];
	memset(ev, 0, sizeof(*ev));
	ev->kind = kind;
	ev->pid = pid;
	ev->line = ev->end_line = ev->at = p->line;
	return ev;
}

/* The end of the text opened just before @s by '(', '[' or '{'; NULL if none. */
static char *skip_balanced(char *s)
{
	int depth = 1;
	bool quoted = false;

	for (; *s; s++) {
		if (quoted) {
			if (*s == '\\' && s[1])
				s++;
			else if (*s == '"')
				quoted = false;
		} else if (*s == '"') {
			quoted = true;
		} else if (strchr("([{", *s)) {
			depth++;
		} else if (strchr(")]}", *s) && --depth == 0) {
			return s;
		}
	}
	return NULL;
}

int replay_split_args(char *s, char **argv, int max)
{
	int n = 0;

	while (*s == ' ')
		s++;
	if (!*s)
		return 0;
	while (n < max) {
		char *end = s;

		argv[n++] = s;
		/* Walk to the next top-level comma. */
		while (*end && *end != ',') {
			if (strchr("([{\"", *end)) {
				char *close = *end == '"' ? strchr(end + 1, '"') : skip_balanced(end + 1);

				while (*end == '"' && close && close[-1] == '\\')
					close = strchr(close + 1, '"');
				if (!close)
					break;
				end = close;
			}
			end++;
		}
		if (*end != ',')
			break;
		*end = '\0';
		s = end + 1;
		while (*s == ' ')
			s++;
	}
	return n;
}

/* "= 0", "= -1 ENOENT (...)", "= ?", "= ? ERESTARTSYS (...)". */
static int parse_result(struct replay_event *ev, const char *res)
{
	char name[32];

	ev->result = strdup(res);
	if (res[0] == '?') {
		ev->ret_unknown = true;
		ev->interrupted = !strncmp(res, "? ERESTART", 10);
		return 0;
	}
	if (!strncmp(res, "-1 ", 3) && sscanf(res + 3, "%31s", name) == 1) {
		int err = replay_errno_number(name);

		if (!err)
			return -1;
		ev->ret = -err;
		return 0;
	}
	ev->ret = strtol(res, NULL, 0);
	return 0;
}

/* A whole call: "name(args) = result". */
static int parse_call(struct replay_event *ev, const char *text)
{
	const char *open = strchr(text, '(');
	char *copy, *close;
	int len;

	if (!open)
		return -1;
	len = (int)(open - text);
	if (len >= (int)sizeof(ev->name))
		return -1;
	memcpy(ev->name, text, len);
	ev->name[len] = '\0';
	copy = strdup(open + 1);
	close = skip_balanced(copy);
	if (!close) {
		free(copy);
		return -1;
	}
	*close++ = '\0';
	ev->args = copy;
	while (*close == ' ')
		close++;
	if (strncmp(close, "= ", 2))
		return -1;
	ev->argbuf = strdup(ev->args);
	ev->argc = replay_split_args(ev->argbuf, ev->argv, REPLAY_MAX_ARGS);
	return parse_result(ev, close + 2);
}

/*
 * A wait reports on other tasks: it is replayed where it returned, the
 * other calls where they started (docs/replay.md, "Order").
 */
static void finish_call(struct replay_event *ev)
{
	bool wait = !strcmp(ev->name, "wait4") || !strcmp(ev->name, "waitid");

	ev->at = wait ? ev->end_line : ev->line;
}

static int parse_signal(struct parser *p, pid_t pid, const char *rest)
{
	struct replay_event *ev;
	char name[32];

	if (!strncmp(rest, "stopped by ", 11)) {
		ev = new_event(p, pid, REPLAY_STOPPED);
		ev->sig = sscanf(rest + 11, "%31s", name) == 1 ? replay_signal_number(name) : 0;
		return ev->sig ? 0 : -1;
	}
	ev = new_event(p, pid, REPLAY_SIGNAL);
	if (!replay_field(rest, "si_signo", &ev->info_status))
		return -1;
	ev->sig = (int)ev->info_status;
	ev->info_status = 0;
	if (replay_field(rest, "si_code", &ev->info_code))
		ev->info_code = (int)ev->info_code;	/* -X raw prints it unsigned */
	replay_field(rest, "si_pid", &ev->info_pid);
	replay_field(rest, "si_uid", &ev->info_uid);
	replay_field(rest, "si_status", &ev->info_status);
	return 0;
}

static int parse_end(struct parser *p, pid_t pid, const char *rest)
{
	struct replay_event *ev;
	char name[32];
	long other;

	if (!strncmp(rest, "exited with ", 12)) {
		ev = new_event(p, pid, REPLAY_EXITED);
		ev->status = atoi(rest + 12);
		return 0;
	}
	if (sscanf(rest, "superseded by execve in pid %ld", &other) == 1 && other > 0) {
		ev = new_event(p, pid, REPLAY_SUPERSEDED);
		ev->status = (int)other;
		return 0;
	}
	if (sscanf(rest, "killed by %31s", name) != 1)
		return -1;
	ev = new_event(p, pid, REPLAY_KILLED);
	ev->sig = replay_signal_number(name);
	return ev->sig ? 0 : -1;
}

static int take_pending(struct parser *p, pid_t pid, const char *name)
{
	for (int i = 0; i < p->npending; i++) {
		struct replay_event *ev = &p->tr->ev[p->pending[i]];

		if ((ev->pid == pid || ev->resumed_as == pid) && !strcmp(ev->name, name)) {
			int idx = p->pending[i];

			p->pending[i] = p->pending[--p->npending];
			return idx;
		}
	}
	return -1;
}

/* "<... name resumed>rest": join with the unfinished start. */
static int parse_resumed(struct parser *p, pid_t pid, const char *rest)
{
	char name[24], *joined;
	const char *tail = strchr(rest, '>');
	struct replay_event *ev;
	int idx, err;

	if (!tail || sscanf(rest, "<... %23s", name) != 1)
		return -1;
	idx = take_pending(p, pid, name);
	if (idx < 0)
		return -1;
	ev = &p->tr->ev[idx];
	tail++;
	if (!strncmp(tail, UNFINISHED, strlen(UNFINISHED)))
		tail += strlen(UNFINISHED);	/* it died in the call */
	if (asprintf(&joined, "%s%s", ev->args, tail) < 0)
		abort();
	free(ev->args);
	ev->args = NULL;
	err = parse_call(ev, joined);
	free(joined);
	ev->end_line = p->line;
	finish_call(ev);
	return err;
}

/*
 * The end of a call strace left unfinished: " <unfinished ...>", or
 * " <pid changed to N ...>" (an execve in a thread, which goes on as pid N);
 * NULL if @rest is a whole call.
 */
static char *unfinished_at(char *rest, pid_t *resumed_as)
{
	size_t len = strlen(rest), ulen = strlen(UNFINISHED);
	char *changed = strstr(rest, PID_CHANGED);
	long pid;

	if (len > ulen && !strcmp(rest + len - ulen, UNFINISHED))
		return rest + len - ulen;
	if (changed && sscanf(changed + strlen(PID_CHANGED), "%ld ...>", &pid) == 1 && pid > 0) {
		*resumed_as = (pid_t)pid;
		return changed;
	}
	return NULL;
}

static int parse_start(struct parser *p, pid_t pid, char *rest)
{
	struct replay_event *ev = new_event(p, pid, REPLAY_CALL);
	char *open = strchr(rest, '('), *end = unfinished_at(rest, &ev->resumed_as);

	if (end) {
		if (!open || open - rest >= (long)sizeof(ev->name) ||
		    p->npending == (int)(sizeof(p->pending) / sizeof(p->pending[0])))
			return -1;
		*end = '\0';
		memcpy(ev->name, rest, open - rest);
		ev->args = strdup(rest);	/* "name(args..." until resumed */
		p->pending[p->npending++] = p->tr->nev - 1;
		return 0;
	}
	if (parse_call(ev, rest))
		return -1;
	finish_call(ev);
	return 0;
}

static int parse_line(struct parser *p, char *s)
{
	char *rest;
	long pid;

	if (!strncmp(s, "# recorder-pid: ", 16)) {
		p->tr->recorder = atoi(s + 16);
		return 0;
	}
	if (s[0] == '#' || s[0] == '\0')
		return 0;
	pid = strtol(s, &rest, 10);
	if (rest == s || pid <= 0 || *rest != ' ')
		return -1;
	while (*rest == ' ')
		rest++;
	if (!strncmp(rest, "--- ", 4))
		return parse_signal(p, (pid_t)pid, rest + 4);
	if (!strncmp(rest, "+++ ", 4))
		return parse_end(p, (pid_t)pid, rest + 4);
	if (!strncmp(rest, "<... ", 5))
		return parse_resumed(p, (pid_t)pid, rest);
	return parse_start(p, (pid_t)pid, rest);
}

/* A joined call's "name(" prefix stays in ->args until it is resumed. */
static void drop_unresumed(struct parser *p)
{
	for (int i = 0; i < p->npending; i++) {
		struct replay_event *ev = &p->tr->ev[p->pending[i]];
		char *args = ev->args;

		ev->args = strdup(strchr(args, '(') + 1);
		free(args);
		ev->ret_unknown = true;
		ev->end_line = INT32_MAX;
		finish_call(ev);
	}
}

static bool is_call(const struct replay_event *ev, const char *name)
{
	return ev->kind == REPLAY_CALL && !strcmp(ev->name, name);
}

static bool is_end(const struct replay_event *ev)
{
	return ev->kind == REPLAY_EXITED || ev->kind == REPLAY_KILLED;
}

/* The thread group of @pid: clone with CLONE_THREAD keeps the caller's. */
static pid_t tgid_of(const struct replay_trace *tr, pid_t pid)
{
	for (int i = 0; i < tr->nev; i++) {
		const struct replay_event *ev = &tr->ev[i];

		if (ev->ret == pid && ev->kind == REPLAY_CALL && !strncmp(ev->name, "clone", 5) &&
		    (replay_clone_flags_of(ev->args) & CLONE_THREAD))
			return tgid_of(tr, ev->pid);
	}
	return pid;
}

/* The first "+++" line after event @i of @pid, or of its thread group. */
static int next_end(const struct replay_trace *tr, int i, pid_t pid, bool group)
{
	pid_t tgid = group ? tgid_of(tr, pid) : pid;

	for (int j = i + 1; j < tr->nev; j++)
		if (is_end(&tr->ev[j]) && (tr->ev[j].pid == pid ||
					   (group && tgid_of(tr, tr->ev[j].pid) == tgid)))
			return tr->ev[j].line;
	return tr->ev[i].at;
}

/*
 * A task dies at its "+++" line: until then a parent's WNOHANG wait may still
 * find it running (docs/replay.md).  So exit moves to the caller's "+++"
 * line, and exit_group to the first "+++" line of its thread group.
 */
static void exit_at_end(struct replay_trace *tr)
{
	for (int i = 0; i < tr->nev; i++) {
		struct replay_event *ev = &tr->ev[i];

		if (is_call(ev, "exit"))
			ev->at = next_end(tr, i, ev->pid, false);
		else if (is_call(ev, "exit_group"))
			ev->at = next_end(tr, i, ev->pid, true);
	}
}

static int by_replay_point(const void *a, const void *b)
{
	const struct replay_event *x = a, *y = b;

	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

int replay_parse(FILE *in, const char *file, struct replay_trace *tr)
{
	struct parser p = { .tr = tr };
	char *buf = NULL;
	size_t cap = 0;
	ssize_t n;
	int err = 0;

	memset(tr, 0, sizeof(*tr));
	while (!err && (n = getline(&buf, &cap, in)) >= 0) {
		p.line++;
		if (n && buf[n - 1] == '\n')
			buf[n - 1] = '\0';
		err = parse_line(&p, buf);
		if (err)
			fprintf(stderr, "rcuproc replay: %s:%d: cannot read: %s\n", file, p.line, buf);
	}
	free(buf);
	drop_unresumed(&p);
	exit_at_end(tr);
	/* Events are replayed at their point, ties in recorded order. */
	qsort(tr->ev, tr->nev, sizeof(*tr->ev), by_replay_point);
	if (!err && !tr->recorder) {
		fprintf(stderr, "rcuproc replay: %s: no '# recorder-pid:' header\n", file);
		err = -1;
	}
	return err;
}

void replay_trace_free(struct replay_trace *tr)
{
	for (int i = 0; i < tr->nev; i++) {
		free(tr->ev[i].args);
		free(tr->ev[i].result);
		free(tr->ev[i].argbuf);
	}
	free(tr->ev);
	memset(tr, 0, sizeof(*tr));
}
