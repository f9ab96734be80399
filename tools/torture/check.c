/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The invariant checker: merges the workers' logs and evaluates what they
 * can show of I1, I3 and I6 (see docs/verification.md).
 *
 *	I1  a receipt names a send that succeeded, to the process that got it,
 *	    and no send is received twice; a send that ended before a drain of
 *	    its target (nothing blocked, nothing left) began was received by the
 *	    end of that drain.  tgkill's receipts carry no id: per sender,
 *	    target process and signal, receipts never outnumber sends.
 *	I6  the same, for a send that overlapped an exec of its target.
 *	I3  each process is reaped once, by its group or a subreaper above it
 *	    (never another parent's child), and after teardown every forked
 *	    process has been reaped; a wait never answers ECHILD while the
 *	    waiter has a child it forked that no reap had begun to take; no
 *	    wait status nor real parent's CLD_STOPPED notice reports a stop of
 *	    a group whose stop a group exit cut short, nor a stop by a signal
 *	    that does not stop.  A tracer's CLD_STOPPED tells of a trap (Linux
 *	    says so for every trap of job control: PTRACE_INTERRUPT's too), not
 *	    of a group stop: the notice a process got from a thread it traced
 *	    before is not checked.
 *	I2  a child forked while a group send was held before its parent
 *	    (exec_kill_all), or while its fork was held before its link and
 *	    its parent's group was signalled (fork_group), received it by
 *	    the end of its next drain; such a child has the nice value its
 *	    parent's group was given meanwhile (fork_group).
 *	I1  a member of a group for the whole of a killpg held while another
 *	    member moved to the hot group (killpg_move) received it by the
 *	    end of its next drain; the hot process, which never moves, takes
 *	    no more group signals from a sender than the sends that reach
 *	    its group or session.
 *	I6  the threads of a group share one handler table, also in the
 *	    middle of an exec that waits for a traced zombie (trace_exec).
 *	--  a group kept tied by a setpgid held between its steps does not
 *	    read orphaned (setpgid_tie; a table-consistency violation, as the
 *	    walk's recount of every group's ties).
 *	I3  after an exec by a thread of init, sys->child_reaper is init's
 *	    live leader, and an orphan goes to it (init_exec).
 *	ns  a namespace scene's failed checks (ops_ns.c, EV_NS), each under
 *	    its invariant; and no process outside the scenes' namespaces
 *	    ever receives SIG_NS, which only a kill(-1) inside one sends (I1).
 */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "torture.h"

static const char *const ev_names[EV_NR] = {
	"send", "tgkill", "group", "recv", "drain", "fork", "exec", "reap",
	"echild", "stop_exit", "stopped", "sighands", "must_recv", "reaper", "trace",
	"ns", "fork_prio", "orphaned",
};

/* What each failed check of a namespace scene says, and its invariant. */
static const struct {
	int inv;
	const char *what;
} ns_faults[NSF_NR] = {
	[NSF_SETUP] = { 0, "a namespace call of its scene was refused (answer %d)" },
	[NSF_NUMBERS] = { 0, "its numbers do not find it (at level %d; -1: getppid not 0)" },
	[NSF_HANDLE] = { 0, "a namespace handle's parent is not the level above (depth %d)" },
	[NSF_ORPHAN] = { 3, "orphaned in its namespace, its getppid is %d, not 1" },
	[NSF_REAP_INSIDE] = { 3, "its namespace's init's wait for a child answered %d, "
			      "not the child's number there" },
	[NSF_KILL_RET] = { 1, "its kill(-1) inside its namespace answered %d" },
	[NSF_KILL_COUNT] = { 1, "received a kill(-1) from inside its namespace or one "
			     "above %d times, not once" },
	[NSF_KILL_OUTSIDE] = { 1, "outside a kill(-1)'s namespace, or its init, received "
			       "it %d times" },
	[NSF_FORK_DYING] = { 2, "a fork into its namespace after its init's end answered "
			     "%d, not ENOMEM" },
	[NSF_SURVIVED] = { 2, "lives on after its namespace's init ended%.0d" },
	[NSF_STRANDED] = { 3, "killed at its namespace's end, its parent's wait answered %d" },
};

static const char *const reaper_faults[RP_VERIFY_REAPER_NR] = {
	"", "names a released or exiting task", "is not init's leader",
	"is not the orphan's parent",
};

struct merged {
	struct event *ev;		/* every event, by start */
	size_t n;
	struct event **sends;		/* successful sends, by id */
	size_t nsends;
	unsigned int *recvs;		/* receipts of each send */
	uint64_t *first_recv;		/* clock of its first receipt */
	struct event **drains;		/* by target, then start */
	size_t ndrains;
	struct event **forks;		/* successful forks, by child */
	size_t nforks;
	struct event **by_parent;	/* the same, by parent */
	unsigned int *reaps;		/* reaps of each forked child */
	uint64_t *first_reap;		/* start of the first reap of each */
	uint64_t seed;
};

void tt_report_violation(struct violation_report *r, int inv, const char *fmt, ...)
{
	va_list ap;

	if (r->count[inv]++)
		return;
	va_start(ap, fmt);
	vsnprintf(r->first[inv], sizeof(r->first[inv]), fmt, ap);
	va_end(ap);
}

void tt_report_walk(struct violation_report *r, const struct rp_verify_report *walk)
{
	if (!walk->violations)
		return;
	if (!r->count[0])
		snprintf(r->first[0], sizeof(r->first[0]), "%s", walk->first[0]);
	r->count[0] += walk->violations;
}

/* Append the events that involve @pid from @lo on (at most 12) to example @inv. */
static void add_history(struct violation_report *r, int inv, const struct merged *m,
			pid_t pid, uint64_t lo)
{
	char *buf = r->first[inv];
	size_t len = strlen(buf);
	unsigned int shown = 0;

	if (r->count[inv] != 1)
		return;
	for (size_t i = 0; i < m->n && shown < 60; i++) {
		const struct event *e = &m->ev[i];

		if (e->start < lo || (e->a != pid && e->b != pid && e->c != pid))
			continue;
		len += (size_t)snprintf(buf + len, sizeof(r->first[inv]) - len,
			"\n    [%lu..%lu] %s a=%d b=%d c=%d sig=%d id=%lu result=%d",
			(unsigned long)e->start, (unsigned long)e->end, ev_names[e->kind],
			e->a, e->b, e->c, e->sig, (unsigned long)e->id, e->result);
		if (len >= sizeof(r->first[inv]))
			return;
		shown++;
	}
}

static int by_start(const void *x, const void *y)
{
	const struct event *a = x, *b = y;

	return (a->start > b->start) - (a->start < b->start);
}

static int by_id(const void *x, const void *y)
{
	const struct event *a = *(struct event *const *)x, *b = *(struct event *const *)y;

	return (a->id > b->id) - (a->id < b->id);
}

static int by_target_start(const void *x, const void *y)
{
	const struct event *a = *(struct event *const *)x, *b = *(struct event *const *)y;

	if (a->a != b->a)
		return a->a < b->a ? -1 : 1;
	return (a->start > b->start) - (a->start < b->start);
}

static int by_child(const void *x, const void *y)
{
	const struct event *a = *(struct event *const *)x, *b = *(struct event *const *)y;

	return (a->b > b->b) - (a->b < b->b);
}

static int by_parent(const void *x, const void *y)
{
	const struct event *a = *(struct event *const *)x, *b = *(struct event *const *)y;

	return (a->a > b->a) - (a->a < b->a);
}

/* Pointers to the events of @kind that succeeded, sorted with @cmp. */
static struct event **select_events(struct merged *m, enum ev_kind kind,
				    int (*cmp)(const void *, const void *), size_t *n)
{
	struct event **out = calloc(m->n + 1, sizeof(*out));

	if (!out)
		abort();
	*n = 0;
	for (size_t i = 0; i < m->n; i++)
		if (m->ev[i].kind == kind && m->ev[i].result == 0)
			out[(*n)++] = &m->ev[i];
	qsort(out, *n, sizeof(*out), cmp);
	return out;
}

static void merge(struct merged *m, struct worker *ws, unsigned int nw)
{
	m->n = 0;
	for (unsigned int i = 0; i < nw; i++)
		m->n += ws[i].nev;
	m->ev = malloc((m->n + 1) * sizeof(*m->ev));
	if (!m->ev)
		abort();
	m->n = 0;
	for (unsigned int i = 0; i < nw; i++) {
		memcpy(m->ev + m->n, ws[i].ev, ws[i].nev * sizeof(*m->ev));
		m->n += ws[i].nev;
	}
	qsort(m->ev, m->n, sizeof(*m->ev), by_start);
	m->sends = select_events(m, EV_SEND, by_id, &m->nsends);
	m->drains = select_events(m, EV_DRAIN, by_target_start, &m->ndrains);
	m->forks = select_events(m, EV_FORK, by_child, &m->nforks);
	m->by_parent = select_events(m, EV_FORK, by_parent, &m->nforks);
	m->recvs = calloc(m->nsends + 1, sizeof(*m->recvs));
	m->first_recv = calloc(m->nsends + 1, sizeof(*m->first_recv));
	m->reaps = calloc(m->nforks + 1, sizeof(*m->reaps));
	m->first_reap = calloc(m->nforks + 1, sizeof(*m->first_reap));
	if (!m->recvs || !m->first_recv || !m->reaps || !m->first_reap)
		abort();
}

static long find(struct event **v, size_t n, const struct event *key,
		 int (*cmp)(const void *, const void *))
{
	struct event **hit = bsearch(&key, v, n, sizeof(*v), cmp);

	return hit ? hit - v : -1;
}

/* Did @pid exec while @send was in flight (I6 rather than I1)? */
static int send_invariant(const struct merged *m, const struct event *send)
{
	for (size_t i = 0; i < m->n && m->ev[i].start <= send->end; i++)
		if (m->ev[i].kind == EV_EXEC && m->ev[i].a == send->b &&
		    m->ev[i].end >= send->start)
			return 6;
	return 1;
}

static void check_receipt(struct merged *m, const struct event *e, struct violation_report *r)
{
	struct event key = { .id = e->id };
	long k = find(m->sends, m->nsends, &key, by_id);
	const struct event *send;

	if (k < 0) {
		tt_report_violation(r, 1, "seed %lu: process %d received send id %lu, which no successful send has",
				 (unsigned long)m->seed, e->a, (unsigned long)e->id);
		add_history(r, 1, m, e->a, 0);
		return;
	}
	send = m->sends[k];
	if (send->b != e->a) {
		int inv = send_invariant(m, send);

		tt_report_violation(r, inv, "seed %lu: send %lu to process %d was received by process %d",
				 (unsigned long)m->seed, (unsigned long)e->id, send->b, e->a);
		add_history(r, inv, m, e->a, send->start);
	}
	if (m->recvs[k]++ == 0) {
		m->first_recv[k] = e->start;
	} else {
		int inv = send_invariant(m, send);

		tt_report_violation(r, inv, "seed %lu: send %lu (signal %d) received twice by process %d",
				 (unsigned long)m->seed, (unsigned long)e->id, e->sig, e->a);
		add_history(r, inv, m, e->a, send->start);
	}
}

/* The first drain of @send's target that began after @send ended. */
static const struct event *drain_after(const struct merged *m, const struct event *send)
{
	size_t lo = 0, hi = m->ndrains;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct event *d = m->drains[mid];

		if (d->a < send->b || (d->a == send->b && d->start <= send->end))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->ndrains && m->drains[lo]->a == send->b ? m->drains[lo] : NULL;
}

static void check_lost(struct merged *m, struct violation_report *r)
{
	for (size_t k = 0; k < m->nsends; k++) {
		const struct event *s = m->sends[k], *d = drain_after(m, s);
		int inv;

		if (!d || (m->recvs[k] && m->first_recv[k] <= d->end))
			continue;
		inv = send_invariant(m, s);
		tt_report_violation(r, inv, "seed %lu: send %lu (signal %d) from %d to process %d "
				 "ended at %lu, but a drain of %d over [%lu..%lu] did not receive it",
				 (unsigned long)m->seed, (unsigned long)s->id, s->sig, s->a, s->b,
				 (unsigned long)s->end, d->a, (unsigned long)d->start,
				 (unsigned long)d->end);
		add_history(r, inv, m, s->b, s->start);
	}
}

/* (sender, receiving process, signal) as one number, for counting: pids < 2^32. */
static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return (a > b) - (a < b);
}

static uint64_t tgkill_key(pid_t sender, pid_t target, int sig)
{
	return ((uint64_t)(uint32_t)sender << 40) | ((uint64_t)(uint32_t)target << 8) | (uint64_t)sig;
}

/* Keys of the successful sends (@group: group sends) and of their receipts. */
static void count_keys(const struct merged *m, bool group, uint64_t *sent, size_t *ns,
		       uint64_t *got, size_t *ng)
{
	*ns = *ng = 0;
	for (size_t k = 0; k < m->n; k++) {
		const struct event *e = &m->ev[k];

		if (e->kind == (group ? EV_GROUP : EV_TGKILL) && e->result == 0)
			sent[(*ns)++] = tgkill_key(e->a, group ? 0 : e->c, e->sig);
		/*
		 * si_pid 0: queued without its siginfo, an allocation failed
		 * (Linux does so).  SIG_NS comes from no logged send: check_ns_leak.
		 */
		else if (e->kind == EV_RECV && !e->id && e->c && e->sig != SIG_NS &&
			 e->result == (group ? SI_USER : SI_TKILL))
			got[(*ng)++] = tgkill_key(e->c, e->a, e->sig);
	}
	qsort(sent, *ns, sizeof(*sent), cmp_u64);
	qsort(got, *ng, sizeof(*got), cmp_u64);
}

/* How many of @v (sorted) equal @key. */
static size_t count_equal(const uint64_t *v, size_t n, uint64_t key)
{
	size_t lo = 0, hi = n, first;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (v[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	first = lo;
	while (lo < n && v[lo] == key)
		lo++;
	return lo - first;
}

/*
 * Receipts without an id: per sender, receiving process and signal, never
 * more than the sends that could have reached it (tgkill: to that process;
 * a group send: from that sender with that signal).
 */
static void check_unnumbered(struct merged *m, bool group, struct violation_report *r)
{
	uint64_t *sent = calloc(m->n + 1, sizeof(*sent)), *got = calloc(m->n + 1, sizeof(*got));
	size_t ns, ng;

	if (!sent || !got)
		abort();
	count_keys(m, group, sent, &ns, got, &ng);
	for (size_t g = 0; g < ng;) {
		size_t n = count_equal(got + g, ng - g, got[g]);
		pid_t sender = (pid_t)(got[g] >> 40), target = (pid_t)((got[g] >> 8) & 0xffffffff);
		int sig = (int)(got[g] & 0xff);
		uint64_t from = group ? tgkill_key(sender, 0, sig) : got[g];

		if (n > count_equal(sent, ns, from)) {
			tt_report_violation(r, 1, "seed %lu: process %d received signal %d from %d "
					 "%zu times, more than the %s sent", (unsigned long)m->seed,
					 target, sig, sender, n,
					 group ? "group sends" : "tgkills");
			add_history(r, 1, m, target, 0);
		}
		g += n;
	}
	free(sent);
	free(got);
}

/* Is @reaper the parent of @pid's process, or a process above it? */
static bool reaper_above(const struct merged *m, pid_t reaper, pid_t pid)
{
	struct event key = { .b = pid };

	for (int depth = 0; depth < 1 << 20; depth++) {
		long k = find(m->forks, m->nforks, &key, by_child);

		if (k < 0)
			return reaper == 1;	/* init reaps the workers' roots */
		if (m->forks[k]->a == reaper)
			return true;
		key.b = m->forks[k]->a;
	}
	return false;
}

static void check_reaps(struct merged *m, struct violation_report *r)
{
	for (size_t i = 0; i < m->n; i++) {
		const struct event *e = &m->ev[i];
		struct event key = { .b = e->b };
		long k;

		if (e->kind != EV_REAP)
			continue;
		k = find(m->forks, m->nforks, &key, by_child);
		if (k >= 0 && !m->reaps[k])
			m->first_reap[k] = e->start;
		if (k >= 0 && m->reaps[k]++) {
			tt_report_violation(r, 3, "seed %lu: process %d reaped twice",
					 (unsigned long)m->seed, e->b);
			add_history(r, 3, m, e->b, 0);
		}
		if (!reaper_above(m, e->a, e->b)) {
			tt_report_violation(r, 3, "seed %lu: process %d reaped %d, not its child",
					 (unsigned long)m->seed, e->a, e->b);
			add_history(r, 3, m, e->b, 0);
		}
	}
	for (size_t k = 0; k < m->nforks; k++)
		if (!m->reaps[k]) {
			tt_report_violation(r, 3, "seed %lu: process %d never reaped after teardown",
					 (unsigned long)m->seed, m->forks[k]->b);
			add_history(r, 3, m, m->forks[k]->b, 0);
		}
}

/* The first fork by @parent in m->by_parent, or nforks. */
static size_t first_fork_by(const struct merged *m, pid_t parent)
{
	size_t lo = 0, hi = m->nforks;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (m->by_parent[mid]->a < parent)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Was @fork's child (forked before @wait) still unreaped when @wait ended? */
static bool unreaped_child(const struct merged *m, const struct event *fork,
			   const struct event *wait)
{
	long k = find(m->forks, m->nforks, fork, by_child);

	if (fork->end >= wait->start || (wait->b > 0 && fork->b != wait->b))
		return false;
	return k >= 0 && (!m->reaps[k] || m->first_reap[k] >= wait->end);
}

/* A wait answered ECHILD while its caller had a child that no reap had begun to take. */
static void check_echild(const struct merged *m, const struct event *e,
			 struct violation_report *r)
{
	for (size_t i = first_fork_by(m, e->a); i < m->nforks && m->by_parent[i]->a == e->a; i++) {
		const struct event *f = m->by_parent[i];

		if (!unreaped_child(m, f, e))
			continue;
		tt_report_violation(r, 3, "seed %lu: process %d's wait for %d over [%lu..%lu] "
				 "answered ECHILD, but its child %d (forked at %lu) was not reaped",
				 (unsigned long)m->seed, e->a, e->b, (unsigned long)e->start,
				 (unsigned long)e->end, f->b, (unsigned long)f->end);
		add_history(r, 3, m, f->b, 0);
		return;
	}
}

static bool is_stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

/*
 * @e, a wait's report or a notice, told @e->a that @child stopped: not if
 * a group exit cut that stop short.
 */
static bool stop_cut_short(const struct merged *m, const struct event *e, pid_t child,
			   struct violation_report *r)
{
	for (size_t i = 0; i < m->n && m->ev[i].start < e->start; i++) {
		const struct event *x = &m->ev[i];

		if (x->kind == EV_STOP_EXIT && x->a == child) {
			tt_report_violation(r, 3, "seed %lu: process %d was told (%s) that process %d "
					 "stopped, but its group exited at %lu before every "
					 "thread had stopped", (unsigned long)m->seed, e->a,
					 e->kind == EV_RECV ? "CLD_STOPPED" : "wait status",
					 child, (unsigned long)x->end);
			add_history(r, 3, m, child, 0);
			return true;
		}
	}
	return false;
}

/* A wait reported a stop: by a stop signal, of a group whose stop no exit cut short. */
static void check_stopped(const struct merged *m, const struct event *e,
			  struct violation_report *r)
{
	if (!stop_cut_short(m, e, e->b, r) && !is_stop_signal(e->sig)) {
		tt_report_violation(r, 3, "seed %lu: process %d's wait reported process %d stopped "
				 "by signal %d, which does not stop", (unsigned long)m->seed,
				 e->a, e->b, e->sig);
		add_history(r, 3, m, e->b, 0);
	}
}

/*
 * Is @e, a SIGCHLD receipt, possibly a tracer's notice: had its receiver
 * seized the thread that sent it (si_pid) before?  A notice may wait,
 * pending, long after the trace ended, so any earlier trace counts.
 */
static bool tracer_notice(const struct merged *m, const struct event *e)
{
	for (size_t i = 0; i < m->n && m->ev[i].start < e->start; i++) {
		const struct event *x = &m->ev[i];

		if (x->kind == EV_TRACE && x->a == e->a && x->b == e->c)
			return true;
	}
	return false;
}

static void check_waits(const struct merged *m, struct violation_report *r)
{
	for (size_t i = 0; i < m->n; i++) {
		const struct event *e = &m->ev[i];

		if (e->kind == EV_ECHILD)
			check_echild(m, e, r);
		else if (e->kind == EV_STOPPED)
			check_stopped(m, e, r);
		else if (e->kind == EV_RECV && e->sig == SIGCHLD && e->result == CLD_STOPPED &&
			 !tracer_notice(m, e))
			stop_cut_short(m, e, e->c, r);
	}
}

/*
 * Did process @e->a receive @e->sig from @e->c (a group send) by @e->end?
 * @e is m->ev[@at]; the receiver was forked after @e->start.  A receipt
 * with si_pid 0 was queued without its siginfo (an allocation failed,
 * --fail-rate: Linux does so) and may be that send's.
 */
static void check_must_recv(const struct merged *m, size_t at, struct violation_report *r)
{
	const struct event *e = &m->ev[at];

	for (size_t i = at; i < m->n && m->ev[i].start <= e->end; i++) {
		const struct event *x = &m->ev[i];

		if (x->kind == EV_RECV && x->a == e->a && (x->c == e->c || !x->c) &&
		    x->sig == e->sig && x->result == SI_USER && !x->id)
			return;
	}
	if (e->b == MUST_RECV_MEMBER) {
		tt_report_violation(r, 1, "seed %lu: process %d, in the group of a killpg from %d "
				 "(at %lu) for the whole call, never received signal %d by the "
				 "end of its drain at %lu", (unsigned long)m->seed, e->a, e->c,
				 (unsigned long)e->start, e->sig, (unsigned long)e->end);
		add_history(r, 1, m, e->a, 0);
		return;
	}
	tt_report_violation(r, 2, "seed %lu: process %d, forked before a group send from %d "
			 "(at %lu) reached its parent, never received signal %d by the end "
			 "of its drain at %lu", (unsigned long)m->seed, e->a, e->c,
			 (unsigned long)e->start, e->sig, (unsigned long)e->end);
	add_history(r, 2, m, e->a, 0);
}

/*
 * The hot process leads the hot group in init's session and never moves:
 * the group sends that can reach it are killpg of the hot group, kill(-1)
 * and the session kill of init's session (both logged as -1).  Per sender
 * and signal, its receipts never outnumber those (I1): a walk of another
 * group that strays onto the hot group's list delivers more.
 */
static void check_hot_receipts(const struct merged *m, pid_t hot, struct violation_report *r)
{
	uint64_t *sent = calloc(m->n + 1, sizeof(*sent)), *got = calloc(m->n + 1, sizeof(*got));
	size_t ns = 0, ng = 0;

	if (!sent || !got)
		abort();
	for (size_t k = 0; hot > 0 && k < m->n; k++) {
		const struct event *e = &m->ev[k];

		if (e->kind == EV_GROUP && e->result == 0 && (e->b == -hot || e->b == -1))
			sent[ns++] = tgkill_key(e->a, 0, e->sig);
		else if (e->kind == EV_RECV && e->a == hot && !e->id && e->c && e->sig != SIG_NS &&
			 e->result == SI_USER)
			got[ng++] = tgkill_key(e->c, 0, e->sig);
	}
	qsort(sent, ns, sizeof(*sent), cmp_u64);
	qsort(got, ng, sizeof(*got), cmp_u64);
	for (size_t g = 0; g < ng;) {
		size_t n = count_equal(got + g, ng - g, got[g]);

		if (n > count_equal(sent, ns, got[g])) {
			tt_report_violation(r, 1, "seed %lu: the hot process %d received signal %d "
					 "from %d %zu times, more than the group sends that reach "
					 "it (killpg of its group, kill(-1), its session's kill)",
					 (unsigned long)m->seed, hot, (int)(got[g] & 0xff),
					 (pid_t)(got[g] >> 40), n);
			add_history(r, 1, m, (pid_t)(got[g] >> 40), 0);
		}
		g += n;
	}
	free(sent);
	free(got);
}

/* @e, an EV_REAPER: init's reaper was wrong after its exec (I3). */
static void check_reaper(const struct merged *m, const struct event *e,
			 struct violation_report *r)
{
	if (e->c <= RP_VERIFY_REAPER_OK || e->c >= RP_VERIFY_REAPER_NR)
		return;
	tt_report_violation(r, 3, "seed %lu: at %lu, after an exec by a thread of init, "
			 "sys->child_reaper %s%s", (unsigned long)m->seed,
			 (unsigned long)e->start, reaper_faults[e->c],
			 e->b ? " (an orphan's check: its history follows)" : "");
	if (e->b)
		add_history(r, 3, m, e->b, 0);
}

/* @e, an EV_NS: a namespace scene's check failed. */
static void check_ns(const struct merged *m, const struct event *e, struct violation_report *r)
{
	char what[160];
	int inv;

	if (e->b < 0 || e->b >= NSF_NR)
		return;
	inv = ns_faults[e->b].inv;
	snprintf(what, sizeof(what), ns_faults[e->b].what, e->c);
	tt_report_violation(r, inv, "seed %lu: at %lu, process %d (pid namespace level %d): %s",
			    (unsigned long)m->seed, (unsigned long)e->start, e->a, e->sig, what);
	add_history(r, inv, m, e->a, 0);
}

/* SIG_NS, which only a kill(-1) inside a namespace sends, reached a process outside. */
static void check_ns_leak(const struct merged *m, const struct event *e,
			  struct violation_report *r)
{
	tt_report_violation(r, 1, "seed %lu: at %lu, process %d, outside every scene's pid "
			    "namespace, received signal %d of a kill(-1) sent inside one",
			    (unsigned long)m->seed, (unsigned long)e->start, e->a, e->sig);
	add_history(r, 1, m, e->a, 0);
}

/*
 * The group stays on one handler table (I6), held group sends reach
 * forked children (I2), init's reaper survives its exec (I3), the
 * namespace scenes' checks.
 */
static void check_groups(const struct merged *m, struct violation_report *r)
{
	for (size_t i = 0; i < m->n; i++) {
		const struct event *e = &m->ev[i];

		if (e->kind == EV_MUST_RECV) {
			check_must_recv(m, i, r);
		} else if (e->kind == EV_SIGHANDS && e->b) {
			tt_report_violation(r, 6, "seed %lu: %d thread(s) of process %d used another "
					 "signal-handler table than its leader at %lu, in an exec "
					 "with a traced zombie thread not yet reaped",
					 (unsigned long)m->seed, e->b, e->a, (unsigned long)e->start);
			add_history(r, 6, m, e->a, 0);
		} else if (e->kind == EV_FORK_PRIO) {
			tt_report_violation(r, 2, "seed %lu: at %lu, process %d, forked while its "
					 "parent's group was given nice %d, has nice %d after "
					 "that call returned", (unsigned long)m->seed,
					 (unsigned long)e->start, e->a, e->b, e->c);
			add_history(r, 2, m, e->a, 0);
		} else if (e->kind == EV_ORPHANED) {
			tt_report_violation(r, 0, "seed %lu: at %lu, process group %d read "
					 "orphaned (asked as its member %d) while a setpgid "
					 "that keeps it tied was held between its steps",
					 (unsigned long)m->seed, (unsigned long)e->start, e->b, e->a);
			add_history(r, 0, m, e->a, 0);
		} else if (e->kind == EV_REAPER) {
			check_reaper(m, e, r);
		} else if (e->kind == EV_NS) {
			check_ns(m, e, r);
		} else if (e->kind == EV_RECV && e->sig == SIG_NS) {
			check_ns_leak(m, e, r);
		}
	}
}

void tt_check_logs(struct worker *ws, unsigned int n, uint64_t seed, struct violation_report *r)
{
	struct merged m = { .seed = seed };

	merge(&m, ws, n);
	check_hot_receipts(&m, ws[0].hot.tgid, r);
	for (size_t i = 0; i < m.n; i++)
		if (m.ev[i].kind == EV_RECV && m.ev[i].id)
			check_receipt(&m, &m.ev[i], r);
	check_lost(&m, r);
	check_unnumbered(&m, false, r);
	check_unnumbered(&m, true, r);
	/* Before the reaps: a wrong reaper (I3) is the cause of the reaps it loses. */
	check_groups(&m, r);
	check_reaps(&m, r);
	check_waits(&m, r);
	free(m.sends);
	free(m.drains);
	free(m.forks);
	free(m.by_parent);
	free(m.first_reap);
	free(m.recvs);
	free(m.first_recv);
	free(m.reaps);
	free(m.ev);
}
