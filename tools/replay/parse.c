/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Reading an strace -f recording into events, as a stream.  A call strace
 * split into "<unfinished ...>" and "<... name resumed>" is joined into one
 * event; each event gets the line at which it is replayed (docs/replay.md,
 * "Order"), and is handed out once no line still to come can hold an event
 * replayed before it.  What is kept meanwhile is the calls still
 * unfinished and the exits waiting for their "+++" line, a few per live
 * task, and the events replayed after the oldest unfinished call: memory
 * follows the live tasks, not the file.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include "replay.h"

#define UNFINISHED	" <unfinished ...>"
/* An execve in a thread that is taking over its leader's pid. */
#define PID_CHANGED	" <pid changed to "

/* Grow the array *@v of *@cap elements of @size to hold @n. */
static void grow(void *v, int *cap, int n, size_t size)
{
	void **array = v;

	if (n <= *cap)
		return;
	*cap = *cap ? 2 * *cap : 16;
	*array = realloc(*array, *cap * size);
	if (!*array)
		abort();
}

static struct replay_event *new_event(struct replay_reader *r, pid_t pid, enum replay_kind kind)
{
	struct replay_event *ev = calloc(1, sizeof(*ev));

	if (!ev)
		abort();
	ev->kind = kind;
	ev->pid = pid;
	ev->line = ev->end_line = ev->at = r->line;
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
static const char *parse_result(struct replay_event *ev, const char *res)
{
	char name[32];

	ev->result = strdup(res);
	if (res[0] == '?') {
		ev->ret_unknown = true;
		ev->interrupted = !strncmp(res, "? ERESTART", 10);
		return NULL;
	}
	if (!strncmp(res, "-1 ", 3) && sscanf(res + 3, "%31s", name) == 1) {
		int err = replay_errno_number(name);

		if (!err)
			return "an errno name strace does not print after '= -1 '";
		ev->ret = -err;
		return NULL;
	}
	if (!isdigit((unsigned char)res[0]) && res[0] != '-')
		return "expected a number, '-1 ERRNO (text)' or '?' after '= '";
	ev->ret = strtol(res, NULL, 0);
	ev->ret_root = replay_ns_note(res);
	return NULL;
}

/* The arguments that strace -X raw prints as numbers, which plain strace names. */
static const struct { const char *call; int arg; } numeric_args[] = {
	{ "kill", 1 }, { "tkill", 1 }, { "tgkill", 2 }, { "rt_sigqueueinfo", 1 },
	{ "rt_sigaction", 0 }, { "rt_sigprocmask", 0 }, { "wait4", 2 }, { "waitid", 0 },
	{ "prctl", 0 }, { "ioctl", 1 }, { "setpriority", 0 }, { "getpriority", 0 },
};

static const char *check_raw(const struct replay_event *ev)
{
	long v;

	for (size_t i = 0; i < sizeof(numeric_args) / sizeof(numeric_args[0]); i++)
		if (!strcmp(ev->name, numeric_args[i].call) && numeric_args[i].arg < ev->argc &&
		    !replay_parse_long(ev->argv[numeric_args[i].arg], &v))
			return "a constant's name where strace -X raw prints a number: record "
			       "with 'strace -X raw' (scripts/record.sh does)";
	return NULL;
}

/* A whole call: "name(args) = result". */
static const char *parse_call(struct replay_event *ev, const char *text)
{
	const char *open = strchr(text, '(');
	char *copy, *close;
	int len;

	if (!open)
		return "expected 'name(args) = result', '--- SIGX ... ---' or '+++ ... +++' "
		       "after the pid";
	len = (int)(open - text);
	if (!len || strspn(text, "abcdefghijklmnopqrstuvwxyz0123456789_") != (size_t)len)
		return "expected 'name(args) = result', '--- SIGX ... ---' or '+++ ... +++' "
		       "after the pid";
	if (len >= (int)sizeof(ev->name))
		return "a call name longer than any system call's";
	memcpy(ev->name, text, len);
	ev->name[len] = '\0';
	copy = strdup(open + 1);
	close = skip_balanced(copy);
	if (!close) {
		free(copy);
		return "the argument list never closes: the line is cut short";
	}
	*close++ = '\0';
	ev->args = copy;
	while (*close == ' ')
		close++;
	if (strncmp(close, "= ", 2))
		return "no '= result' after the arguments: the line is cut short";
	ev->argbuf = strdup(ev->args);
	ev->argc = replay_split_args(ev->argbuf, ev->argv, REPLAY_MAX_ARGS);
	return check_raw(ev) ?: parse_result(ev, close + 2);
}

static bool is_wait(const struct replay_event *ev)
{
	return !strcmp(ev->name, "wait4") || !strcmp(ev->name, "waitid");
}

static bool is_call(const struct replay_event *ev, const char *name)
{
	return ev->kind == REPLAY_CALL && !strcmp(ev->name, name);
}

/* The thread group of recorded task @pid: clone with CLONE_THREAD keeps the caller's. */
static pid_t tgid_of(const struct replay_reader *r, pid_t pid)
{
	for (int i = 0; i < r->ntgids; i++)
		if (r->tgids[i].pid == pid)
			return r->tgids[i].tgid;
	return pid;
}

static void forget_tgid(struct replay_reader *r, pid_t pid)
{
	for (int i = 0; i < r->ntgids; i++)
		if (r->tgids[i].pid == pid)
			r->tgids[i] = r->tgids[--r->ntgids];
}

/* A thread's clone returned: remember its group until its "+++" line. */
static void note_thread(struct replay_reader *r, const struct replay_event *ev)
{
	if (ev->ret <= 0 || strncmp(ev->name, "clone", 5) ||
	    !(replay_clone_flags_of(ev->args) & CLONE_THREAD))
		return;
	grow(&r->tgids, &r->tgids_cap, r->ntgids + 1, sizeof(*r->tgids));
	r->tgids[r->ntgids].pid = replay_child_rec(ev);
	r->tgids[r->ntgids++].tgid = tgid_of(r, ev->pid);
}

/* Is (at, line) of @x before that of @y? */
static bool before(const struct replay_event *x, const struct replay_event *y)
{
	return x->at != y->at ? x->at < y->at : x->line < y->line;
}

/* @ev's replay point is known: into the heap of events ready to go. */
static void ready(struct replay_reader *r, struct replay_event *ev)
{
	int i = r->nready++;

	grow(&r->ready, &r->ready_cap, r->nready, sizeof(*r->ready));
	for (; i > 0 && before(ev, r->ready[(i - 1) / 2]); i = (i - 1) / 2)
		r->ready[i] = r->ready[(i - 1) / 2];
	r->ready[i] = ev;
}

static struct replay_event *take_first(struct replay_reader *r)
{
	struct replay_event *first = r->ready[0], *last = r->ready[--r->nready];
	int i = 0;

	for (;;) {
		int c = 2 * i + 1;

		if (c >= r->nready)
			break;
		if (c + 1 < r->nready && before(r->ready[c + 1], r->ready[c]))
			c++;
		if (!before(r->ready[c], last))
			break;
		r->ready[i] = r->ready[c];
		i = c;
	}
	if (r->nready)
		r->ready[i] = last;
	return first;
}

static void hold(struct replay_reader *r, struct replay_event *ev)
{
	grow(&r->held, &r->held_cap, r->nheld + 1, sizeof(*r->held));
	r->held[r->nheld++] = ev;
}

static void unhold(struct replay_reader *r, int i)
{
	r->held[i] = r->held[--r->nheld];
}

/*
 * A complete call: a wait reports on other tasks and is replayed where it
 * returned, the other calls where they started (docs/replay.md, "Order").
 * exit waits for the caller's "+++" line, exit_group for the first of its
 * thread group: until then a parent's WNOHANG wait may still find the task
 * running.
 */
static void finish_call(struct replay_reader *r, struct replay_event *ev)
{
	note_thread(r, ev);
	if (is_call(ev, "exit") || is_call(ev, "exit_group")) {
		ev->tgid = tgid_of(r, ev->pid);
		hold(r, ev);
		return;
	}
	ev->at = is_wait(ev) ? ev->end_line : ev->line;
	ready(r, ev);
}

bool replay_take_exit_early(struct replay_reader *r, pid_t tgid, int *status)
{
	for (int i = 0; i < r->nheld; i++) {
		struct replay_event *ev = r->held[i];
		const char *args = ev->pending ? strchr(ev->args, '(') + 1 : ev->args;

		if (strcmp(ev->name, "exit_group") || ev->early ||
		    (ev->pending ? tgid_of(r, ev->pid) : ev->tgid) != tgid)
			continue;
		ev->early = true;
		*status = atoi(args ? args : "0");
		return true;
	}
	return false;
}

/* An unfinished call @ev never returns: its task ended at line @end. */
static void never_returns(struct replay_reader *r, struct replay_event *ev, int end)
{
	char *args = ev->args;

	ev->args = strdup(strchr(args, '(') + 1);
	free(args);
	ev->ret_unknown = true;
	ev->end_line = end;
	finish_call(r, ev);
}

/*
 * "+++" line at @line of @pid: its unfinished call never returns, its exit
 * and its group's exit_group happen here.
 */
static void task_ended(struct replay_reader *r, pid_t pid, int line)
{
	pid_t tgid = tgid_of(r, pid);

	for (int i = r->nheld - 1; i >= 0; i--) {
		struct replay_event *ev = r->held[i];

		if (ev->pending && ev->pid == pid) {
			unhold(r, i);
			ev->pending = false;
			never_returns(r, ev, line);
		}
	}
	for (int i = r->nheld - 1; i >= 0; i--) {
		struct replay_event *ev = r->held[i];

		if (ev->pending || !(ev->pid == pid || (is_call(ev, "exit_group") && ev->tgid == tgid)))
			continue;
		unhold(r, i);
		ev->at = line;
		ready(r, ev);
	}
	forget_tgid(r, pid);
}

static const char *parse_signal(struct replay_reader *r, pid_t pid, const char *rest)
{
	struct replay_event *ev;
	char name[32];
	long signo;
	int sig;

	if (!strncmp(rest, "stopped by ", 11)) {
		sig = sscanf(rest + 11, "%31s", name) == 1 ? replay_signal_number(name) : 0;
		if (!sig)
			return "expected a signal's name after 'stopped by '";
		ev = new_event(r, pid, REPLAY_STOPPED);
		ev->sig = sig;
		ready(r, ev);
		return NULL;
	}
	if (!replay_field(rest, "si_signo", &signo) || signo <= 0 || signo > 64)
		return "expected '--- SIGX {si_signo=N, ...} ---' or '--- stopped by SIGX ---'";
	ev = new_event(r, pid, REPLAY_SIGNAL);
	ev->sig = (int)signo;
	if (replay_field(rest, "si_code", &ev->info_code))
		ev->info_code = (int)ev->info_code;	/* -X raw prints it unsigned */
	replay_field(rest, "si_pid", &ev->info_pid);
	ev->info_pid_root = replay_field_note(rest, "si_pid");
	replay_field(rest, "si_uid", &ev->info_uid);
	replay_field(rest, "si_status", &ev->info_status);
	replay_field(rest, "si_timerid", &ev->info_timerid);
	replay_field(rest, "si_overrun", &ev->info_overrun);
	replay_field(rest, "si_int", &ev->info_int);
	ready(r, ev);
	return NULL;
}

static const char *parse_end(struct replay_reader *r, pid_t pid, const char *rest)
{
	struct replay_event *ev;
	char name[32];
	long other;

	if (!strncmp(rest, "exited with ", 12) && isdigit((unsigned char)rest[12])) {
		ev = new_event(r, pid, REPLAY_EXITED);
		ev->status = atoi(rest + 12);
	} else if (sscanf(rest, "superseded by execve in pid %ld", &other) == 1 && other > 0) {
		ev = new_event(r, pid, REPLAY_SUPERSEDED);
		ev->status = (int)other;
		forget_tgid(r, (pid_t)other);
		ready(r, ev);
		return NULL;
	} else if (sscanf(rest, "killed by %31s", name) == 1 && replay_signal_number(name)) {
		ev = new_event(r, pid, REPLAY_KILLED);
		ev->sig = replay_signal_number(name);
	} else {
		return "expected '+++ exited with N +++', '+++ killed by SIGX +++' or "
		       "'+++ superseded by execve in pid N +++'";
	}
	ready(r, ev);
	task_ended(r, pid, r->line);
	return NULL;
}

static struct replay_event *take_pending(struct replay_reader *r, pid_t pid, const char *name)
{
	for (int i = 0; i < r->nheld; i++) {
		struct replay_event *ev = r->held[i];

		if (ev->pending && (ev->pid == pid || ev->resumed_as == pid) &&
		    !strcmp(ev->name, name)) {
			unhold(r, i);
			ev->pending = false;
			return ev;
		}
	}
	return NULL;
}

/* "<... name resumed>rest": join with the unfinished start. */
static const char *parse_resumed(struct replay_reader *r, pid_t pid, const char *rest)
{
	char name[24], *joined;
	const char *tail = strchr(rest, '>'), *err;
	struct replay_event *ev;

	if (!tail || sscanf(rest, "<... %23s", name) != 1)
		return "expected '<... name resumed>' after the pid";
	ev = take_pending(r, pid, name);
	if (!ev)
		return "a call resumed that this pid did not leave unfinished before";
	tail++;
	if (!strncmp(tail, UNFINISHED, strlen(UNFINISHED)))
		tail += strlen(UNFINISHED);	/* it died in the call */
	if (asprintf(&joined, "%s%s", ev->args, tail) < 0)
		abort();
	free(ev->args);
	ev->args = NULL;
	err = parse_call(ev, joined);
	free(joined);
	ev->end_line = r->line;
	finish_call(r, ev);
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

static const char *parse_start(struct replay_reader *r, pid_t pid, char *rest)
{
	struct replay_event *ev = new_event(r, pid, REPLAY_CALL);
	char *open = strchr(rest, '('), *end = unfinished_at(rest, &ev->resumed_as);
	const char *err;

	if (!end) {
		err = parse_call(ev, rest);
		finish_call(r, ev);
		return err;
	}
	if (!open || open > end || open - rest >= (long)sizeof(ev->name)) {
		replay_event_free(ev);
		return "expected 'name(args <unfinished ...>'";
	}
	*end = '\0';
	memcpy(ev->name, rest, open - rest);
	ev->args = strdup(rest);	/* "name(args..." until resumed */
	ev->pending = true;
	hold(r, ev);
	return NULL;
}

static const char *parse_line(struct replay_reader *r, char *s)
{
	char *rest;
	long pid;

	if (!strncmp(s, "# recorder-pid: ", 16)) {
		r->recorder = atoi(s + 16);
		return r->recorder > 0 ? NULL : "expected a pid after '# recorder-pid: '";
	}
	if (s[0] == '#' || s[0] == '\0')
		return NULL;
	if (isalpha((unsigned char)s[0]) && strchr(s, '('))
		return "a call without the pid before it: record with 'strace -f' "
		       "(scripts/record.sh does)";
	pid = strtol(s, &rest, 10);
	if (rest == s || pid <= 0 || pid > INT_MAX || *rest != ' ')
		return "expected a pid and a space at the start of the line (strace -f's format)";
	if (!r->recorder)
		return "a traced line before the '# recorder-pid: N' header "
		       "(scripts/record.sh writes it)";
	while (*rest == ' ')
		rest++;
	if (!strncmp(rest, "--- ", 4))
		return parse_signal(r, (pid_t)pid, rest + 4);
	if (!strncmp(rest, "+++ ", 4))
		return parse_end(r, (pid_t)pid, rest + 4);
	if (!strncmp(rest, "<... ", 5))
		return parse_resumed(r, (pid_t)pid, rest);
	return parse_start(r, (pid_t)pid, rest);
}

void replay_fputs_quoted(FILE *out, const char *s, size_t len, size_t max)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (i == max) {
			fputs("...", out);
			return;
		}
		if (c >= 0x20 && c < 0x7f)
			fputc(c, out);
		else
			fprintf(out, "\\x%02x", c);
	}
}

void replay_reader_init(struct replay_reader *r, FILE *in, const char *file)
{
	memset(r, 0, sizeof(*r));
	r->in = in;
	r->file = file;
}

static void parse_error(struct replay_reader *r, const char *why, const char *text, size_t len)
{
	fprintf(stderr, "rcuproc replay: %s:%d: %s\n  the line: ", r->file, r->line, why);
	replay_fputs_quoted(stderr, text, len, 200);
	fputc('\n', stderr);
	r->failed = true;
}

/* Read one more line; false at the end of the file or on an error. */
static bool read_line(struct replay_reader *r)
{
	ssize_t n;
	const char *why;

	errno = 0;
	n = getline(&r->buf, &r->cap, r->in);
	if (n < 0) {
		if (ferror(r->in)) {
			fprintf(stderr, "rcuproc replay: %s: cannot read: %s\n", r->file,
				strerror(errno ?: EIO));
			r->failed = true;
		}
		return false;
	}
	r->line++;
	if (n && r->buf[n - 1] == '\n')
		r->buf[--n] = '\0';
	if (n && r->buf[n - 1] == '\r')
		r->buf[--n] = '\0';	/* CRLF line endings */
	if (strlen(r->buf) != (size_t)n) {
		parse_error(r, "a NUL byte in the line: not a text file", r->buf, n);
		return false;
	}
	why = parse_line(r, r->buf);
	if (why)
		parse_error(r, why, r->buf, n);
	return !why;
}

/* Every unfinished call is over at the end of the file, with no result (a
 * wait that never returned is replayed last); an exit with no "+++" line
 * happens where it was called. */
static void end_of_file(struct replay_reader *r)
{
	while (r->nheld) {
		struct replay_event *ev = r->held[--r->nheld];

		if (ev->pending) {
			ev->pending = false;
			never_returns(r, ev, INT32_MAX);
		} else {
			ready(r, ev);
		}
	}
}

/* Can the first ready event go, or may a line still to come go before it? */
static bool first_is_final(const struct replay_reader *r)
{
	const struct replay_event *first = r->ready[0];

	if (r->eof)
		return true;
	/* Anything not read yet, or resolved later, is replayed after this line. */
	if (first->at > r->line)
		return false;
	for (int i = 0; i < r->nheld; i++) {
		const struct replay_event *ev = r->held[i];

		/* An unfinished call other than a wait goes at its start. */
		if (ev->pending && !is_wait(ev) && before(ev, first))
			return false;
	}
	return true;
}

int replay_next(struct replay_reader *r, struct replay_event **out)
{
	while (!r->failed) {
		if (r->nready && first_is_final(r)) {
			*out = take_first(r);
			return 1;
		}
		if (r->eof)
			break;
		if (!read_line(r) && !r->failed) {
			r->eof = true;
			end_of_file(r);
		}
	}
	if (r->failed)
		return -1;
	if (!r->recorder) {
		fprintf(stderr, "rcuproc replay: %s: no '# recorder-pid: N' header: not a "
			"recording of scripts/record.sh\n", r->file);
		return -1;
	}
	return 0;
}

void replay_event_free(struct replay_event *ev)
{
	if (!ev)
		return;
	free(ev->args);
	free(ev->result);
	free(ev->argbuf);
	free(ev);
}

void replay_reader_free(struct replay_reader *r)
{
	while (r->nready)
		replay_event_free(take_first(r));
	while (r->nheld)
		replay_event_free(r->held[--r->nheld]);
	free(r->ready);
	free(r->held);
	free(r->tgids);
	free(r->buf);
}
