/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Sequential (single-threaded) semantics of the RCU list toolkit: every
 * operation of rcuproc/hlist.h, hlist_nulls.h, list.h and seqcount.h, checked
 * by walking the lists as readers do and comparing the ids seen with the
 * expected order.  Concurrency is the self-checks' business (src/verify); here
 * a reader that stands on a node while an update runs is simulated by running
 * the update from the walk's visit hook.
 */
#include "sync/rcu.h"	/* the build's liburcu flavour */

#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <criterion/criterion.h>
#include "debug/list_twins.h"		/* the toolkit with this build's twin */
#include "debug/seqcount_twin.h"

#define MAXN	16	/* a walk longer than this has looped or lost its end */
#define LIST_A	7	/* nulls list ids */
#define LIST_B	8

/* One test node, with a link for each kind of list. */
struct item {
	unsigned int id;		/* from 1; 0 is never used */
	struct cds_hlist_node hn;
	struct rp_hlist_nulls_node nn;
	struct cds_list_head ln;
	struct rp_owned_link ol;
};

/* Run by a walk while it stands on @it, before it loads @it's ->next. */
typedef void visit_fn(struct item *it, void *arg);

/* What a visit hook does, once, when the walk reaches node @id. */
struct on_visit {
	unsigned int id;
	void *from, *to;		/* the lists the hook works on */
	void *owner;			/* owned links: the new owner */
};

/* An expected id sequence, as the (array, length) argument pair. */
#define IDS(...) ((const unsigned int[]){ __VA_ARGS__ }), \
	(sizeof((const unsigned int[]){ __VA_ARGS__ }) / sizeof(unsigned int))
#define NO_IDS NULL, 0

static int owner_a, owner_b;	/* owned-list owners: only the addresses count */

static void reader_init(void)
{
	rcu_register_thread();
}

static void reader_fini(void)
{
	rcu_unregister_thread();
}

/* @n items with ids @first_id, @first_id + 1, ..., on no list. */
static void items_init(struct item *it, size_t n, unsigned int first_id)
{
	memset(it, 0, n * sizeof(*it));
	for (size_t i = 0; i < n; i++) {
		it[i].id = first_id + i;
		rp_hlist_node_init(&it[i].hn);
		rp_hlist_nulls_node_init(&it[i].nn);
	}
}

static void note_id(unsigned int *ids, size_t *k, const struct item *it)
{
	cr_assert_lt(*k, (size_t)MAXN, "walk longer than %d nodes: a loop?", MAXN);
	ids[(*k)++] = it->id;
}

/* True once, when the walk stands on the node @v is waiting for. */
static bool on_visit_due(struct on_visit *v, const struct item *it)
{
	if (it->id != v->id)
		return false;
	v->id = 0;
	return true;
}

static void expect_ids(const char *what, const unsigned int *got, size_t ngot,
		       const unsigned int *want, size_t nwant)
{
	cr_assert_eq(ngot, nwant, "%s: the walk saw %zu nodes, expected %zu",
		     what, ngot, nwant);
	for (size_t i = 0; i < nwant; i++)
		cr_assert_eq(got[i], want[i], "%s: node %zu has id %u, expected %u",
			     what, i, got[i], want[i]);
}

/* ------------------------------------------------------------------ hlist */

/* @h holds @it[0..n) in that order. */
static void hlist_build(struct cds_hlist_head *h, struct item *it, size_t n)
{
	CDS_INIT_HLIST_HEAD(h);
	for (size_t i = n; i-- > 0;)
		cds_hlist_add_head_rcu(&it[i].hn, h);
}

/* @h holds ids 1..@n; one more item (id @n + 1) is on no list. */
static void hlist_setup(struct cds_hlist_head *h, struct item *it, size_t n)
{
	items_init(it, n + 1, 1);
	hlist_build(h, it, n);
}

static size_t hlist_walk(struct cds_hlist_head *h, unsigned int *ids,
			 visit_fn *visit, void *arg)
{
	struct item *it;
	size_t k = 0;

	rcu_read_lock();
	cds_hlist_for_each_entry_rcu_2(it, h, hn) {
		note_id(ids, &k, it);
		if (visit)
			visit(it, arg);
	}
	rcu_read_unlock();
	return k;
}

/* The updater-only back links: each ->prev is the node (or head) before. */
static void hlist_check_links(struct cds_hlist_head *h)
{
	struct cds_hlist_node *prev = (struct cds_hlist_node *)h, *n;

	cds_hlist_for_each(n, h) {
		cr_assert_eq(n->prev, prev, "hlist: a ->prev is not the node before");
		prev = n;
	}
}

static void expect_hlist(struct cds_hlist_head *h, const unsigned int *want, size_t n)
{
	unsigned int got[MAXN];

	expect_ids("hlist", got, hlist_walk(h, got, NULL, NULL), want, n);
	hlist_check_links(h);
	cr_assert_eq(rp_hlist_empty(h), n == 0, "hlist: rp_hlist_empty is wrong");
}

static struct cds_hlist_node *hlist_nth(struct cds_hlist_head *h, size_t i)
{
	struct cds_hlist_node *n = h->next;

	while (i--)
		n = n->next;
	return n;
}

/*
 * Delete @h's nodes one at a time with liburcu's cds_hlist_del_rcu (middle
 * ones, then the last, then the first, whose ->prev is the head) and check
 * the rest after each: this keeps the order only if every ->prev was right.
 */
static void hlist_drain_checking(struct cds_hlist_head *h)
{
	unsigned int ids[MAXN];
	size_t n = hlist_walk(h, ids, NULL, NULL);

	while (n > 0) {
		size_t victim = n / 2;

		cds_hlist_del_rcu(hlist_nth(h, victim));
		memmove(&ids[victim], &ids[victim + 1], (n - victim - 1) * sizeof(ids[0]));
		expect_hlist(h, ids, --n);
	}
}

/* hlist: node init, unhashed and empty mean what they say. */
TestSuite(hlist, .init = reader_init, .fini = reader_fini);

Test(hlist, init_unhashed_empty)
{
	struct cds_hlist_head h;
	struct item it[4];

	hlist_setup(&h, it, 0);
	cr_assert(rp_hlist_unhashed(&it[0].hn), "an initialised node is unhashed");
	cr_assert_null(it[0].hn.next);
	expect_hlist(&h, NO_IDS);
	hlist_setup(&h, it, 3);
	expect_hlist(&h, IDS(1, 2, 3));
	cr_assert_not(rp_hlist_unhashed(&it[0].hn), "a listed node is hashed");
	cr_assert(rp_hlist_unhashed(&it[3].hn));
}

/* hlist: add_before/add_behind put the node in place and keep every ->prev right. */
typedef void hlist_insert_fn(struct cds_hlist_node *n, struct cds_hlist_node *at);

/* Insert id 4 next to the node at index @at of 1 2 3. */
static void check_insert(hlist_insert_fn *insert, size_t at,
			 const unsigned int *want, size_t nwant)
{
	struct cds_hlist_head h;
	struct item it[4];

	hlist_setup(&h, it, 3);
	insert(&it[3].hn, &it[at].hn);
	expect_hlist(&h, want, nwant);
	hlist_drain_checking(&h);
}

Test(hlist, add_before_first)
{
	check_insert(rp_hlist_add_before_pub, 0, IDS(4, 1, 2, 3));
}

Test(hlist, add_before_middle)
{
	check_insert(rp_hlist_add_before_pub, 1, IDS(1, 4, 2, 3));
}

Test(hlist, add_before_last)
{
	check_insert(rp_hlist_add_before_pub, 2, IDS(1, 2, 4, 3));
}

Test(hlist, add_behind_first)
{
	check_insert(rp_hlist_add_behind_pub, 0, IDS(1, 4, 2, 3));
}

Test(hlist, add_behind_middle)
{
	check_insert(rp_hlist_add_behind_pub, 1, IDS(1, 2, 4, 3));
}

Test(hlist, add_behind_last)
{
	check_insert(rp_hlist_add_behind_pub, 2, IDS(1, 2, 3, 4));
}

/* hlist: replace puts the new node in place; the old one is unhashed and keeps ->next. */
static void check_replace(size_t at, const unsigned int *want, size_t nwant)
{
	struct cds_hlist_head h;
	struct item it[4];
	struct cds_hlist_node *old, *next;

	hlist_setup(&h, it, 3);
	old = &it[at].hn;
	next = old->next;
	rp_hlist_replace_pub(old, &it[3].hn);
	expect_hlist(&h, want, nwant);
	cr_assert(rp_hlist_unhashed(old), "the replaced node is unhashed");
	cr_assert_eq(old->next, next, "the replaced node keeps its ->next");
	hlist_drain_checking(&h);
}

Test(hlist, replace_first)
{
	check_replace(0, IDS(4, 2, 3));
}

Test(hlist, replace_middle)
{
	check_replace(1, IDS(1, 4, 3));
}

Test(hlist, replace_last)
{
	check_replace(2, IDS(1, 2, 4));
}

/* hlist: del_init unlinks a hashed node, keeping its ->next; on an unhashed one it does nothing. */
Test(hlist, del_init_hashed)
{
	struct cds_hlist_head h;
	struct item it[4];

	hlist_setup(&h, it, 3);
	rp_hlist_del_init_pub(&it[1].hn);
	expect_hlist(&h, IDS(1, 3));
	cr_assert(rp_hlist_unhashed(&it[1].hn));
	cr_assert_eq(it[1].hn.next, &it[2].hn, "the deleted node keeps its ->next");
	hlist_drain_checking(&h);
}

Test(hlist, del_init_unhashed_is_noop)
{
	struct cds_hlist_head h;
	struct item it[4];

	hlist_setup(&h, it, 3);
	rp_hlist_del_init_pub(&it[3].hn);
	expect_hlist(&h, IDS(1, 2, 3));
	/* Again on a node already deleted: its stale ->next must not be used. */
	rp_hlist_del_init_pub(&it[1].hn);
	rp_hlist_del_init_pub(&it[1].hn);
	expect_hlist(&h, IDS(1, 3));
	cr_assert_eq(it[1].hn.next, &it[2].hn);
}

/* ------------------------------------------------------------- hlist_tail */

/* @h holds @it[0..n) in that order, each added at the tail. */
static void tail_build(struct rp_hlist_tail_head *h, struct item *it, size_t n)
{
	rp_hlist_tail_init(h);
	for (size_t i = 0; i < n; i++)
		rp_hlist_tail_add_pub(&it[i].hn, h);
}

/* @h holds ids 1..@n; one more item (id @n + 1) is on no list. */
static void tail_setup(struct rp_hlist_tail_head *h, struct item *it, size_t n)
{
	items_init(it, n + 1, 1);
	tail_build(h, it, n);
}

/* As expect_hlist, and @h's last pointer names its last node (its head if empty). */
static void expect_tail(struct rp_hlist_tail_head *h, const unsigned int *want, size_t n)
{
	struct cds_hlist_node *last = (struct cds_hlist_node *)&h->head;

	expect_hlist(&h->head, want, n);
	cr_assert_eq(rp_hlist_tail_empty(h), n == 0, "hlist_tail: rp_hlist_tail_empty is wrong");
	if (n > 0)
		last = hlist_nth(&h->head, n - 1);
	cr_assert_eq(h->last, last, "hlist_tail: the last pointer is not the last node");
}

TestSuite(hlist_tail, .init = reader_init, .fini = reader_fini);

/* hlist_tail: nodes join at the tail, so the list is in insertion order. */
Test(hlist_tail, add_keeps_insertion_order)
{
	struct rp_hlist_tail_head h;
	struct item it[4];

	tail_setup(&h, it, 0);
	expect_tail(&h, NO_IDS);
	tail_setup(&h, it, 3);
	expect_tail(&h, IDS(1, 2, 3));
	rp_hlist_tail_add_pub(&it[3].hn, &h);
	expect_tail(&h, IDS(1, 2, 3, 4));
}

/* hlist_tail: deleting the last node moves the last pointer back, to the head at the end. */
Test(hlist_tail, del_keeps_last)
{
	struct rp_hlist_tail_head h;
	struct item it[4];

	tail_setup(&h, it, 3);
	rp_hlist_tail_del_init_pub(&it[2].hn, &h);
	expect_tail(&h, IDS(1, 2));
	cr_assert(rp_hlist_unhashed(&it[2].hn));
	rp_hlist_tail_del_init_pub(&it[2].hn, &h);	/* unhashed: nothing to do */
	expect_tail(&h, IDS(1, 2));
	rp_hlist_tail_add_pub(&it[3].hn, &h);
	expect_tail(&h, IDS(1, 2, 4));
	rp_hlist_tail_del_init_pub(&it[0].hn, &h);
	expect_tail(&h, IDS(2, 4));
	rp_hlist_tail_del_init_pub(&it[3].hn, &h);
	rp_hlist_tail_del_init_pub(&it[1].hn, &h);
	expect_tail(&h, NO_IDS);
	rp_hlist_tail_add_pub(&it[2].hn, &h);
	expect_tail(&h, IDS(3));
}

/* hlist_tail: a replacement of the last node becomes the last. */
Test(hlist_tail, replace_keeps_last)
{
	struct rp_hlist_tail_head h;
	struct item it[5];

	items_init(it, 5, 1);
	tail_build(&h, it, 3);
	rp_hlist_tail_replace_pub(&it[1].hn, &it[3].hn, &h);
	expect_tail(&h, IDS(1, 4, 3));
	rp_hlist_tail_replace_pub(&it[2].hn, &it[1].hn, &h);
	expect_tail(&h, IDS(1, 4, 2));
	rp_hlist_tail_add_pub(&it[4].hn, &h);
	expect_tail(&h, IDS(1, 4, 2, 5));
}

/* hlist_tail: a reader on the last node when a node is added walks on to it. */
static void add_on_visit(struct item *it, void *arg)
{
	struct on_visit *v = arg;

	if (on_visit_due(v, it))	/* @v->from: the node to add, on no list */
		rp_hlist_tail_add_pub(v->from, v->to);
}

Test(hlist_tail, add_under_reader)
{
	struct rp_hlist_tail_head h;
	struct item it[4];
	struct on_visit v = { .id = 3, .from = &it[3].hn, .to = &h };
	unsigned int got[MAXN];

	tail_setup(&h, it, 3);
	expect_ids("reader on the last node", got,
		   hlist_walk(&h.head, got, add_on_visit, &v), IDS(1, 2, 3, 4));
	expect_tail(&h, IDS(1, 2, 3, 4));
}

/* hlist_tail: splice moves @from's nodes, as one block and in order, onto the tail of @to. */

/* @from holds ids 1..@nfrom, @to the next @nto ids. */
static void splice_setup(struct rp_hlist_tail_head *from, struct rp_hlist_tail_head *to,
			 struct item *it, size_t nfrom, size_t nto)
{
	items_init(it, nfrom + nto + 2, 1);
	tail_build(from, it, nfrom);
	tail_build(to, it + nfrom, nto);
}

static void check_splice(size_t nfrom, size_t nto, const unsigned int *want, size_t nwant)
{
	struct rp_hlist_tail_head from, to;
	struct item it[MAXN];
	size_t spare = nfrom + nto;

	splice_setup(&from, &to, it, nfrom, nto);
	rp_hlist_tail_splice_pub(&from, &to);
	expect_tail(&to, want, nwant);
	expect_tail(&from, NO_IDS);
	if (nfrom > 0)
		cr_assert_null(it[nfrom - 1].hn.next, "the block's last node stays the end");
	/* Both lists go on: @to grows behind the block, @from from empty. */
	rp_hlist_tail_add_pub(&it[spare].hn, &to);
	cr_assert_eq(to.last, &it[spare].hn);
	rp_hlist_tail_add_pub(&it[spare + 1].hn, &from);
	expect_tail(&from, &it[spare + 1].id, 1);
	hlist_drain_checking(&to.head);
}

Test(hlist_tail, splice_onto_empty)
{
	check_splice(3, 0, IDS(1, 2, 3));
}

Test(hlist_tail, splice_onto_nonempty)
{
	check_splice(3, 2, IDS(4, 5, 1, 2, 3));
}

Test(hlist_tail, splice_single_node)
{
	check_splice(1, 2, IDS(2, 3, 1));
}

Test(hlist_tail, splice_from_empty_changes_nothing)
{
	check_splice(0, 2, IDS(1, 2));
}

static void splice_on_visit(struct item *it, void *arg)
{
	struct on_visit *v = arg;

	if (on_visit_due(v, it))
		rp_hlist_tail_splice_pub(v->from, v->to);
}

/* A reader of @from (or of @to) standing on node @id when the splice runs sees @want. */
static void check_splice_under_reader(bool on_from, unsigned int id,
				      const unsigned int *want, size_t nwant)
{
	struct rp_hlist_tail_head from, to;
	struct item it[7];
	struct on_visit v = { .id = id, .from = &from, .to = &to };
	unsigned int got[MAXN];

	splice_setup(&from, &to, it, 3, 2);
	expect_ids(on_from ? "reader on @from" : "reader on @to", got,
		   hlist_walk(on_from ? &from.head : &to.head, got, splice_on_visit, &v),
		   want, nwant);
	expect_tail(&to, IDS(4, 5, 1, 2, 3));
	expect_tail(&from, NO_IDS);
}

/* hlist_tail: a reader in the block when it moves walks the rest of it, and ends. */
Test(hlist_tail, splice_under_reader)
{
	check_splice_under_reader(true, 2, IDS(1, 2, 3));
}

/* hlist_tail: a reader on @to's last node when the block comes walks on through all of it. */
Test(hlist_tail, splice_under_destination_reader)
{
	check_splice_under_reader(false, 5, IDS(4, 5, 1, 2, 3));
}

/*
 * hlist_tail: a reader standing on node 2 of @from loads its ->next between
 * two steps of the splice (at each RP_RACE_LIST_STEP in turn, one per run)
 * and walks on: it sees the rest of @from, whatever the step.  A splice that
 * moved the nodes one at a time would leave node 2 last on @to for a step.
 */
static struct {
	struct cds_hlist_node *stand;	/* the node the reader stands on */
	unsigned int step, at;		/* steps passed; the one it reads at */
	unsigned int got[MAXN];		/* ids it saw, from the first */
	size_t n;
} step_reader;

static void read_at_step(enum rp_race_point where, struct rp_task *t)
{
	struct cds_hlist_node *pos;

	(void)t;
	if (where != RP_RACE_LIST_STEP || step_reader.step++ != step_reader.at)
		return;
	rcu_read_lock();
	for (pos = rcu_dereference(step_reader.stand->next); pos; pos = rcu_dereference(pos->next))
		note_id(step_reader.got, &step_reader.n, caa_container_of(pos, struct item, hn));
	rcu_read_unlock();
}

Test(hlist_tail, splice_read_between_steps)
{
	unsigned int at;

	for (at = 0;; at++) {
		struct rp_hlist_tail_head from, to;
		struct item it[7];

		splice_setup(&from, &to, it, 3, 2);
		memset(&step_reader, 0, sizeof(step_reader));
		step_reader.stand = &it[1].hn;
		step_reader.at = at;
		step_reader.got[step_reader.n++] = 1;	/* the walk so far */
		step_reader.got[step_reader.n++] = 2;
		rp_debug_race_hook(read_at_step);
		rp_hlist_tail_splice_pub(&from, &to);
		rp_debug_race_hook(NULL);
		if (step_reader.step <= at)
			break;	/* no step left to read at */
		expect_ids("reader on @from between two steps", step_reader.got,
			   step_reader.n, IDS(1, 2, 3));
		expect_tail(&to, IDS(4, 5, 1, 2, 3));
	}
	cr_assert_gt(at, 0, "the splice has no step for a reader to read at");
}

/* ------------------------------------------------------------ hlist_nulls */

/* @h, with id @id, holds @it[0..n) in that order. */
static void nulls_build(struct rp_hlist_nulls_head *h, unsigned long id,
			struct item *it, size_t n)
{
	rp_hlist_nulls_head_init(h, id);
	for (size_t i = n; i-- > 0;)
		rp_hlist_nulls_add_head_pub(&it[i].nn, h);
}

/* Walk @h with the for_each macro; *@end gets the marker the walk ended on. */
static size_t nulls_walk(struct rp_hlist_nulls_head *h, unsigned int *ids,
			 struct rp_hlist_nulls_node **end, visit_fn *visit, void *arg)
{
	struct rp_hlist_nulls_node *pos;
	struct item *it;
	size_t k = 0;

	rcu_read_lock();
	rp_hlist_nulls_for_each_entry_rcu(it, pos, h, nn) {
		note_id(ids, &k, it);
		if (visit)
			visit(it, arg);
	}
	rcu_read_unlock();
	*end = pos;
	return k;
}

/* The updater-only back links: each ->pprev is the ->next (or ->first) before. */
static void nulls_check_links(struct rp_hlist_nulls_head *h)
{
	struct rp_hlist_nulls_node **pprev = &h->first, *n;

	for (n = h->first; !rp_is_a_nulls(n); n = n->next) {
		cr_assert_eq(n->pprev, pprev, "nulls: a ->pprev is not the link before");
		pprev = &n->next;
	}
}

static void expect_marker(const struct rp_hlist_nulls_node *end, unsigned long id)
{
	cr_assert(rp_is_a_nulls(end), "the walk ended on a marker");
	cr_assert_eq(rp_hlist_nulls_value(end), id, "the walk ended on list %lu's marker, not %lu",
		     rp_hlist_nulls_value(end), id);
}

static void expect_nulls(struct rp_hlist_nulls_head *h, unsigned long id,
			 const unsigned int *want, size_t n)
{
	struct rp_hlist_nulls_node *end;
	unsigned int got[MAXN];

	expect_ids("nulls", got, nulls_walk(h, got, &end, NULL, NULL), want, n);
	expect_marker(end, id);
	nulls_check_links(h);
	cr_assert_eq(rp_hlist_nulls_empty(h), n == 0, "nulls: rp_hlist_nulls_empty is wrong");
}

/* hlist_nulls: an empty head is its marker; adds put nodes first or last. */
TestSuite(nulls, .init = reader_init, .fini = reader_fini);

Test(nulls, empty_head_is_marker)
{
	struct rp_hlist_nulls_head h;
	struct item it[1];

	items_init(it, 1, 1);
	nulls_build(&h, LIST_A, it, 0);
	cr_assert(rp_is_a_nulls(h.first));
	cr_assert_eq(h.first, rp_hlist_nulls_marker(LIST_A));
	expect_nulls(&h, LIST_A, NO_IDS);
	cr_assert(rp_hlist_nulls_unhashed(&it[0].nn), "an initialised node is unhashed");
	cr_assert_not(rp_is_a_nulls(&it[0].nn), "a node is not a marker");
}

Test(nulls, add_head_order)
{
	struct rp_hlist_nulls_head h;
	struct item it[3];

	items_init(it, 3, 1);
	rp_hlist_nulls_head_init(&h, LIST_A);
	for (size_t i = 0; i < 3; i++)
		rp_hlist_nulls_add_head_pub(&it[i].nn, &h);
	expect_nulls(&h, LIST_A, IDS(3, 2, 1));
	cr_assert_not(rp_hlist_nulls_unhashed(&it[0].nn), "a listed node is hashed");
}

Test(nulls, add_tail_on_empty_and_nonempty)
{
	struct rp_hlist_nulls_head h;
	struct item it[4];

	items_init(it, 4, 1);
	rp_hlist_nulls_head_init(&h, LIST_A);
	rp_hlist_nulls_add_tail_pub(&it[0].nn, &h);
	expect_nulls(&h, LIST_A, IDS(1));
	rp_hlist_nulls_add_tail_pub(&it[1].nn, &h);
	expect_nulls(&h, LIST_A, IDS(1, 2));
	rp_hlist_nulls_add_head_pub(&it[2].nn, &h);
	rp_hlist_nulls_add_tail_pub(&it[3].nn, &h);
	expect_nulls(&h, LIST_A, IDS(3, 1, 2, 4));
}

/* hlist_nulls: del_rcu unlinks, poisons ->pprev and keeps ->next; del_init allows re-adding. */
static void check_nulls_del(size_t at, const unsigned int *want, size_t nwant)
{
	struct rp_hlist_nulls_head h;
	struct item it[3];
	struct rp_hlist_nulls_node *next;

	items_init(it, 3, 1);
	nulls_build(&h, LIST_A, it, 3);
	next = it[at].nn.next;
	rp_hlist_nulls_del_pub(&it[at].nn);
	expect_nulls(&h, LIST_A, want, nwant);
	cr_assert_eq(it[at].nn.next, next, "the deleted node keeps its ->next");
	cr_assert_eq(it[at].nn.pprev, RP_HLIST_NULLS_POISON);
	cr_assert_not(rp_hlist_nulls_unhashed(&it[at].nn), "a poisoned node looks hashed");
}

Test(nulls, del_first)
{
	check_nulls_del(0, IDS(2, 3));
}

Test(nulls, del_middle)
{
	check_nulls_del(1, IDS(1, 3));
}

Test(nulls, del_last)
{
	check_nulls_del(2, IDS(1, 2));
}

Test(nulls, del_init_then_readd)
{
	struct rp_hlist_nulls_head h;
	struct item it[3];

	items_init(it, 3, 1);
	nulls_build(&h, LIST_A, it, 3);
	rp_hlist_nulls_del_init_pub(&it[1].nn);
	expect_nulls(&h, LIST_A, IDS(1, 3));
	cr_assert(rp_hlist_nulls_unhashed(&it[1].nn));
	cr_assert_eq(it[1].nn.next, &it[2].nn, "the deleted node keeps its ->next");
	rp_hlist_nulls_del_init_pub(&it[1].nn);		/* unhashed: no-op */
	expect_nulls(&h, LIST_A, IDS(1, 3));
	rp_hlist_nulls_add_tail_pub(&it[1].nn, &h);
	expect_nulls(&h, LIST_A, IDS(1, 3, 2));
	rp_hlist_nulls_del_init_pub(&it[0].nn);
	rp_hlist_nulls_add_head_pub(&it[0].nn, &h);
	expect_nulls(&h, LIST_A, IDS(1, 3, 2));
}

/* hlist_nulls: the end marker tells a walk which list it finished on. */
Test(nulls, moved_off_compares_ids)
{
	struct rp_hlist_nulls_head h;
	struct rp_hlist_nulls_node *end;
	struct item it[2];
	unsigned int got[MAXN];

	items_init(it, 2, 1);
	nulls_build(&h, LIST_A, it, 2);
	expect_ids("nulls", got, nulls_walk(&h, got, &end, NULL, NULL), IDS(1, 2));
	expect_marker(end, LIST_A);
	cr_assert_not(rp_hlist_nulls_moved_off(end, LIST_A), "own id: not moved off");
	cr_assert(rp_hlist_nulls_moved_off(end, LIST_B), "other id: moved off");
	cr_assert(rp_hlist_nulls_moved_off(rp_hlist_nulls_marker(LIST_B), LIST_A));
}

static void nulls_move_on_visit(struct item *it, void *arg)
{
	struct on_visit *v = arg;

	if (!on_visit_due(v, it))
		return;
	rp_hlist_nulls_del_init_pub(&it->nn);
	rp_hlist_nulls_add_head_pub(&it->nn, v->to);
}

/* hlist_nulls: a reader on a node that moves follows it and ends on the other list's marker. */
Test(nulls, reader_follows_moved_node)
{
	struct rp_hlist_nulls_head a, b;
	struct rp_hlist_nulls_node *end;
	struct item it[5];
	struct on_visit v = { .id = 2, .to = &b };
	unsigned int got[MAXN];

	items_init(it, 5, 1);
	nulls_build(&a, LIST_A, it, 3);
	nulls_build(&b, LIST_B, it + 3, 2);
	expect_ids("reader on A", got, nulls_walk(&a, got, &end, nulls_move_on_visit, &v),
		   IDS(1, 2, 4, 5));
	expect_marker(end, LIST_B);
	cr_assert(rp_hlist_nulls_moved_off(end, LIST_A), "the reader must restart");
	/* The restart sees A as it now is. */
	expect_nulls(&a, LIST_A, IDS(1, 3));
	expect_nulls(&b, LIST_B, IDS(2, 4, 5));
}

/* ------------------------------------------------------------- cds_list */

/* @h holds @it[0..n) in that order. */
static void list_build(struct cds_list_head *h, struct item *it, size_t n)
{
	CDS_INIT_LIST_HEAD(h);
	for (size_t i = 0; i < n; i++)
		cds_list_add_tail_rcu(&it[i].ln, h);
}

static size_t list_walk(struct cds_list_head *h, unsigned int *ids)
{
	struct item *it;
	size_t k = 0;

	rcu_read_lock();
	cds_list_for_each_entry_rcu(it, h, ln)
		note_id(ids, &k, it);
	rcu_read_unlock();
	return k;
}

/* Circular both ways (each ->next's ->prev leads back), and empty iff @n is 0. */
static void list_check_shape(struct cds_list_head *h, size_t n)
{
	struct cds_list_head *pos = h;

	do {
		cr_assert_eq(pos->next->prev, pos, "list: a ->next->prev does not lead back");
		pos = pos->next;
	} while (pos != h);
	cr_assert_eq(cds_list_empty(h), n == 0, "list: cds_list_empty is wrong");
}

static void expect_list(struct cds_list_head *h, const unsigned int *want, size_t n)
{
	unsigned int got[MAXN];

	expect_ids("list", got, list_walk(h, got), want, n);
	list_check_shape(h, n);
}

/* Stands in for synchronize_rcu and records what the lists held meanwhile. */
struct sync_probe {
	int calls;
	struct cds_list_head *src, *dst;
	unsigned int dst_ids[MAXN];
	size_t ndst;
};

static void sync_probe(void *arg)
{
	struct sync_probe *p = arg;

	p->calls++;
	cr_assert(cds_list_empty(p->src), "the source is emptied before the wait");
	p->ndst = list_walk(p->dst, p->dst_ids);
}

typedef void list_splice_fn(struct cds_list_head *list, struct cds_list_head *head,
			    void (*sync)(void *), void *arg);

/*
 * Splice a source of ids 1..@nsrc into a destination of the next @ndst ids;
 * the destination must then read @want, the wait must have run once (if
 * there was anything to move) with the destination still untouched, and the
 * source must be empty and usable again.
 */
static void check_list_splice(list_splice_fn *splice, size_t nsrc, size_t ndst,
			      const unsigned int *want, size_t nwant)
{
	struct cds_list_head src, dst;
	struct item it[MAXN];
	struct sync_probe p = { .src = &src, .dst = &dst };
	unsigned int before[MAXN];
	size_t nbefore;

	items_init(it, nsrc + ndst + 1, 1);
	list_build(&src, it, nsrc);
	list_build(&dst, it + nsrc, ndst);
	nbefore = list_walk(&dst, before);
	splice(&src, &dst, sync_probe, &p);
	expect_list(&dst, want, nwant);
	expect_list(&src, NO_IDS);
	cr_assert_eq(p.calls, nsrc ? 1 : 0, "sync ran %d times", p.calls);
	if (p.calls)
		expect_ids("destination during the wait", p.dst_ids, p.ndst, before, nbefore);
	cds_list_add_rcu(&it[nsrc + ndst].ln, &src);
	expect_list(&src, IDS(nsrc + ndst + 1));
	expect_list(&dst, want, nwant);
}

/* list: splice_init/splice_tail_init move the block after one wait; the source is reusable. */
TestSuite(list, .init = reader_init, .fini = reader_fini);

Test(list, splice_init_front)
{
	check_list_splice(rp_list_splice_init_pub, 3, 2, IDS(1, 2, 3, 4, 5));
}

Test(list, splice_init_tail)
{
	check_list_splice(rp_list_splice_tail_init_pub, 3, 2, IDS(4, 5, 1, 2, 3));
}

Test(list, splice_init_onto_empty)
{
	check_list_splice(rp_list_splice_init_pub, 3, 0, IDS(1, 2, 3));
}

Test(list, splice_tail_init_onto_empty)
{
	check_list_splice(rp_list_splice_tail_init_pub, 3, 0, IDS(1, 2, 3));
}

Test(list, splice_init_empty_source)
{
	check_list_splice(rp_list_splice_init_pub, 0, 2, IDS(1, 2));
}

Test(list, splice_tail_init_empty_source)
{
	check_list_splice(rp_list_splice_tail_init_pub, 0, 2, IDS(1, 2));
}

/* ---------------------------------------------------------- owned links */

/* @head, owned by @owner, holds @it[0..n) in that order. */
static void owned_build(struct cds_list_head *head, struct item *it, size_t n, void *owner)
{
	CDS_INIT_LIST_HEAD(head);
	for (size_t i = n; i-- > 0;)
		rp_owned_add_pub(&it[i].ol, head, owner);
}

static size_t owned_walk(struct cds_list_head *head, void *owner, unsigned int *ids,
			 unsigned long *restarts, visit_fn *visit, void *arg)
{
	struct item *it;
	size_t k = 0;

	*restarts = 0;
	rcu_read_lock();
	rp_owned_for_each_entry_rcu(it, head, owner, ol, restarts) {
		note_id(ids, &k, it);
		if (visit)
			visit(it, arg);
	}
	rcu_read_unlock();
	return k;
}

/* A retry walk of @head sees @want with @nrestarts restarts. */
static void expect_owned_walk(struct cds_list_head *head, void *owner,
			      visit_fn *visit, void *arg, unsigned long nrestarts,
			      const unsigned int *want, size_t n)
{
	unsigned int got[MAXN];
	unsigned long restarts;

	expect_ids("owned walk", got, owned_walk(head, owner, got, &restarts, visit, arg),
		   want, n);
	cr_assert_eq(restarts, nrestarts, "%lu restarts, expected %lu", restarts, nrestarts);
}

/* A quiet list: the walk sees @want without restarting; every node has @owner. */
static void expect_owned(struct cds_list_head *head, void *owner,
			 const unsigned int *want, size_t n)
{
	struct rp_owned_link *l;

	expect_owned_walk(head, owner, NULL, NULL, 0, want, n);
	list_check_shape(head, n);
	cds_list_for_each_entry(l, head, node)
		cr_assert_eq(l->owner, owner, "a listed node has the wrong owner");
}

/* Detach the node the walk stands on and, if v->to, attach it there for v->owner. */
static void owned_move_on_visit(struct item *it, void *arg)
{
	struct on_visit *v = arg;

	if (!on_visit_due(v, it))
		return;
	rp_owned_del_pub(&it->ol);
	if (v->to)
		rp_owned_add_pub(&it->ol, v->to, v->owner);
}

/* owned: add counts attachments and sets the owner; del marks obsolete and unlinks. */
TestSuite(owned, .init = reader_init, .fini = reader_fini);

Test(owned, add_sets_owner_and_bumps_gen)
{
	struct cds_list_head head, other;
	struct item it[3];

	items_init(it, 3, 1);
	owned_build(&head, it, 3, &owner_a);
	owned_build(&other, it, 0, &owner_b);
	expect_owned(&head, &owner_a, IDS(1, 2, 3));
	for (size_t i = 0; i < 3; i++)
		cr_assert_eq(it[i].ol.gen, 1UL, "one attach, gen 1");
	rp_owned_del_pub(&it[2].ol);
	rp_owned_add_pub(&it[2].ol, &head, &owner_a);
	cr_assert_eq(it[2].ol.gen, 2UL, "a second attach, gen 2");
	expect_owned(&head, &owner_a, IDS(3, 1, 2));
	rp_owned_del_pub(&it[2].ol);
	rp_owned_add_pub(&it[2].ol, &other, &owner_b);
	cr_assert_eq(it[2].ol.gen, 3UL, "a third attach, gen 3");
	expect_owned(&other, &owner_b, IDS(3));
	expect_owned(&head, &owner_a, IDS(1, 2));
}

Test(owned, del_marks_obsolete_and_unlinks)
{
	struct cds_list_head head;
	struct item it[3];

	items_init(it, 3, 1);
	owned_build(&head, it, 3, &owner_a);
	rp_owned_del_pub(&it[1].ol);
	cr_assert_null(it[1].ol.owner, "a detached node is obsolete");
	cr_assert_eq(it[1].ol.gen, 1UL, "detaching leaves gen alone");
	cr_assert_eq(it[1].ol.node.next, &it[2].ol.node, "the detached node keeps its ->next");
	expect_owned(&head, &owner_a, IDS(1, 3));
}

/* owned: a quiet walk visits everything in order with no restart. */
Test(owned, quiet_walk_no_restart)
{
	struct cds_list_head head;
	struct item it[4];

	items_init(it, 4, 1);
	owned_build(&head, it, 0, &owner_a);
	expect_owned(&head, &owner_a, NO_IDS);
	owned_build(&head, it, 4, &owner_a);
	expect_owned(&head, &owner_a, IDS(1, 2, 3, 4));
}

/* owned: next_rcu steps on from a node still owned, and restarts from one that is not. */
static void expect_next(struct item *it, struct cds_list_head *head, void *owner,
			struct cds_list_head *want, unsigned long nrestarts)
{
	unsigned long restarts = 0;

	rcu_read_lock();
	cr_assert_eq(rp_owned_next_rcu(&it->ol, head, owner, &restarts), want,
		     "rp_owned_next_rcu from node %u went to the wrong link", it->id);
	rcu_read_unlock();
	cr_assert_eq(restarts, nrestarts, "%lu restarts, expected %lu", restarts, nrestarts);
}

Test(owned, next_steps_on_owned_node)
{
	struct cds_list_head head;
	struct item it[3];

	items_init(it, 3, 1);
	owned_build(&head, it, 3, &owner_a);
	expect_next(&it[0], &head, &owner_a, &it[1].ol.node, 0);
	expect_next(&it[2], &head, &owner_a, &head, 0);
}

Test(owned, next_restarts_on_wrong_owner)
{
	struct cds_list_head head;
	struct item it[3];

	items_init(it, 3, 1);
	owned_build(&head, it, 3, &owner_a);
	expect_next(&it[1], &head, &owner_b, &it[0].ol.node, 1);
}

Test(owned, next_restarts_on_detached_node)
{
	struct cds_list_head head;
	struct item it[3];

	items_init(it, 3, 1);
	owned_build(&head, it, 3, &owner_a);
	rp_owned_del_pub(&it[1].ol);
	expect_next(&it[1], &head, &owner_a, &it[0].ol.node, 1);
	rp_owned_del_pub(&it[0].ol);
	rp_owned_del_pub(&it[2].ol);
	expect_next(&it[1], &head, &owner_a, &head, 1);	/* restart on an empty list ends */
}

/*
 * owned: a walk whose current node leaves restarts from the head and never
 * follows it onto another list; a node that leaves and comes back to the front
 * between the walk's loads is not noticed, and the walk sees nodes twice but
 * misses none.
 */
enum move_to { MOVE_NOWHERE, MOVE_OTHER, MOVE_BACK };

/* Walk 1 2 3 (owner A); on node 2, detach it and move it as @where says. */
static void check_walk_with_move(enum move_to where, unsigned long nrestarts,
				 const unsigned int *want, size_t nwant,
				 const unsigned int *after, size_t nafter)
{
	struct cds_list_head head, other;
	struct item it[4];
	struct on_visit v = { .id = 2 };

	items_init(it, 4, 1);
	owned_build(&head, it, 3, &owner_a);
	owned_build(&other, it + 3, 1, &owner_b);
	if (where == MOVE_OTHER) {
		v.to = &other;
		v.owner = &owner_b;
	} else if (where == MOVE_BACK) {
		v.to = &head;
		v.owner = &owner_a;
	}
	expect_owned_walk(&head, &owner_a, owned_move_on_visit, &v, nrestarts, want, nwant);
	expect_owned(&head, &owner_a, after, nafter);
	if (where == MOVE_OTHER)
		expect_owned(&other, &owner_b, IDS(2, 4));
	else
		expect_owned(&other, &owner_b, IDS(4));
}

Test(owned, walk_restarts_when_node_detached)
{
	check_walk_with_move(MOVE_NOWHERE, 1, IDS(1, 2, 1, 3), IDS(1, 3));
}

Test(owned, walk_restarts_when_node_moves_away)
{
	check_walk_with_move(MOVE_OTHER, 1, IDS(1, 2, 1, 3), IDS(1, 3));
}

Test(owned, walk_back_at_front_sees_twice_misses_none)
{
	check_walk_with_move(MOVE_BACK, 0, IDS(1, 2, 1, 3), IDS(2, 1, 3));
}

/* ------------------------------------------------------------- seqcount */

/* seqcount: even when idle; a reader retries exactly when a write overlapped it. */
Test(seqcount, idle_read_needs_no_retry)
{
	struct rp_seqcount s = RP_SEQCOUNT_INIT;
	unsigned long seq = rp_read_seqcount_begin(&s);

	cr_assert_eq(seq, 0UL);
	cr_assert_not(rp_read_seqcount_retry(&s, seq), "no write: no retry");
}

Test(seqcount, write_forces_retry)
{
	struct rp_seqcount s;
	unsigned long seq;

	rp_seqcount_init(&s);
	seq = rp_read_seqcount_begin(&s);
	rp_write_seqcount_begin(&s);
	cr_assert(s.seq & 1, "odd while a write is in progress");
	rp_write_seqcount_end(&s);
	cr_assert_eq(s.seq, seq + 2, "even again after the write");
	cr_assert(rp_read_seqcount_retry(&s, seq), "a write overlapped: retry");
	seq = rp_read_seqcount_begin(&s);
	cr_assert_eq(seq, 2UL, "begin on an even count returns it");
	cr_assert_not(rp_read_seqcount_retry(&s, seq), "no write since: no retry");
}

Test(seqcount, init_resets)
{
	struct rp_seqcount s = { .seq = 4 };

	cr_assert_eq(rp_read_seqcount_begin(&s), 4UL);
	rp_seqcount_init(&s);
	cr_assert_eq(s.seq, 0UL);
}
