/* rssspan.c: the tree's PSS between two ticks from its traced RSS changes (rssspan.h). */
#include "rssspan.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* An mm's counters as the last record left them. */
struct mmst {
	uint64_t key; /* mm + 1 (0: empty) */
	int64_t size[RSSTRACE_MEMBERS];
	int32_t origin;   /* the task that made its first record: the exec'ing process
			   * itself, or, for a fork's child, the parent copying (or
			   * spacetime, for its own fork's child, or an mm its read
			   * held past its process's end) */
	int32_t user;     /* the first process whose own it was (a vfork's child
			   * borrows its parent's: its exec tears nothing down) */
	int64_t shared_anon; /* of its anonymous pages, those a fork shares (a fork's
			      * child's copied ones, or what its user had at its
			      * last fork): the rest, new since, are its own */
	uint64_t args_kib; /* counted in the bound from others' records this interval */
	uint64_t args_iv;
	uint8_t known;    /* the counters whose value before its first record here is
			   * known: all of an mm made under watch; after records were
			   * lost, those recorded since */
	uint8_t blind;    /* first seen after records were lost: it may be older */
	uint8_t counted;  /* its pages are in rss_kib (the tree's; not spacetime's own,
			   * until a process of the tree makes it its own) */
	uint64_t want_kib; /* its file and shared-memory pages when last asked to be read */
};

/* A process: its own mm, and whether it forked since that mm became its. */
struct pidst {
	uint64_t key; /* pid + 1 */
	uint32_t mm;
	int has_mm;
	uint64_t exit_iv;  /* the interval its exit record came in (0: none) */
	uint64_t lo_last, lo_last_iv; /* its lower bound at a closing tick, which */
	/* the interval's backward walk */
	uint64_t iv;   /* the interval it was last touched in */
	uint64_t lo, inc, freed, anon, lo_exit;
	int live;
	uint64_t listed_iv; /* the interval whose closing tick counted it (with the
			     * program it has) */
	uint64_t exec_ns;   /* when it took an mm it made itself (an exec; 0: none seen) */
	uint64_t win;       /* pages it mapped and let go of as the closing tick read */
	uint64_t fbonus, fbonus_iv; /* what a read added to the forward floor in that interval */
};

struct table {
	void *v;
	size_t n, cap, sz; /* entries, slots (a power of two), entry size */
};

struct rssspan {
	struct table mm, pid;
	uint64_t iv;
	int blind;          /* records were lost: an mm first seen now may be older */
	int iv_blind;       /* this interval met an mm's counter it did not know */
	/* per record of the interval */
	struct step {
		int64_t d;       /* the counter's change */
		uint64_t drop;   /* an mm torn down at it (an exit, an exec's old one) */
		uint64_t anon_before, anon_after; /* the pid's own anonymous pages around it */
		uint64_t freed;  /* anonymous pages its own mm let go of, each its own
				  * (no fork since its exec): in full in its PSS before */
		uint64_t f_fwd, b_fwd; /* forward floor and bound just after it */
		uint64_t rss_after;    /* the tree's mms' resident pages after it */
		int own, inc, switched;
		uint64_t t_ns;
		int32_t pid;
		uint8_t exit;
		int32_t rd_pid;   /* a read's process whose private pages are known then */
		uint64_t rd_left; /* at least so many (rssmark.h) */
	} *st;
	size_t stcap, nst;
	int64_t f_run;      /* the forward floor and bound so far in the interval */
	uint64_t b_run;
	uint64_t carry_kib; /* pages mapped in the last tick's reads (after its instant):
			     * its bound may not hold them */
	int64_t rss_kib;    /* the resident pages of the tree's mms (each counted once,
			     * whoever maps it): no PSS is more */
	uint64_t rss_open_kib; /* that at the interval's opening */
	int fwd_hi_ok;         /* the opening tick's bound holds (the forward one does) */
	uint64_t over_kib;     /* an end with the tree above this is a top */
	uint64_t open_ns;
	struct rssmarks marks; /* the interval's reads between ticks */
	int32_t want[RSSSPAN_WANT_MAX]; /* processes whose file pages grew: worth a read */
	size_t nwant;
};

static uint64_t hash64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return k;
}

static void *slot(const struct table *t, size_t i)
{
	return (char *)t->v + i * t->sz;
}

static uint64_t key_at(const struct table *t, size_t i)
{
	uint64_t k;
	memcpy(&k, slot(t, i), sizeof(k));
	return k;
}

static int grow(struct table *t)
{
	size_t cap = t->cap ? t->cap * 2 : 256;
	void *v = calloc(cap, t->sz);
	if (!v)
		return -ENOMEM;
	struct table nt = {v, 0, cap, t->sz};
	for (size_t i = 0; i < t->cap; i++) {
		uint64_t k = key_at(t, i);
		if (!k)
			continue;
		size_t j = hash64(k) & (cap - 1);
		while (key_at(&nt, j))
			j = (j + 1) & (cap - 1);
		memcpy(slot(&nt, j), slot(t, i), t->sz);
		nt.n++;
	}
	free(t->v);
	*t = nt;
	return 0;
}

/* The entry of key (key != 0): found, or added zeroed when add (NULL when
 * absent, or no memory). */
static void *get(struct table *t, uint64_t key, int add)
{
	if (t->cap) {
		for (size_t j = hash64(key) & (t->cap - 1);; j = (j + 1) & (t->cap - 1)) {
			uint64_t k = key_at(t, j);
			if (k == key)
				return slot(t, j);
			if (!k)
				break;
		}
	}
	if (!add)
		return NULL;
	if ((t->n + 1) * 2 > t->cap && grow(t) < 0)
		return NULL;
	size_t j = hash64(key) & (t->cap - 1);
	while (key_at(t, j))
		j = (j + 1) & (t->cap - 1);
	void *e = slot(t, j);
	memset(e, 0, t->sz);
	memcpy(e, &key, sizeof(key));
	t->n++;
	return e;
}

/* Removes the entry e (linear probing: the run after it shifts back). */
static void del(struct table *t, void *e)
{
	size_t i = (size_t)((char *)e - (char *)t->v) / t->sz;

	memset(slot(t, i), 0, t->sz);
	t->n--;
	for (size_t j = (i + 1) & (t->cap - 1); key_at(t, j); j = (j + 1) & (t->cap - 1)) {
		size_t h = hash64(key_at(t, j)) & (t->cap - 1);
		/* j's entry may move to i when its home is not in (i, j] */
		if ((j > i && (h <= i || h > j)) || (j < i && h <= i && h > j)) {
			memcpy(slot(t, i), slot(t, j), t->sz);
			memset(slot(t, j), 0, t->sz);
			i = j;
		}
	}
}

struct rssspan *rssspan_new(void)
{
	struct rssspan *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->mm.sz = sizeof(struct mmst);
	s->pid.sz = sizeof(struct pidst);
	return s;
}

void rssspan_reset(struct rssspan *s)
{
	free(s->mm.v);
	free(s->pid.v);
	s->mm = (struct table){NULL, 0, 0, sizeof(struct mmst)};
	s->pid = (struct table){NULL, 0, 0, sizeof(struct pidst)};
	s->blind = 1; /* and rss_kib misses the mms not seen since */
	s->rss_kib = 0;
}

void rssspan_free(struct rssspan *s)
{
	if (!s)
		return;
	rssspan_reset(s);
	free(s->st);
	free(s);
}

size_t rssspan_mms(const struct rssspan *s)
{
	return s->mm.n;
}

/* A process's own anonymous pages, its alone: those of its own mm (not a
 * vfork's parent's) past what a fork shares (copy-on-write breaks only
 * make shared pages its own: no counter moves). */
static uint64_t own_anon(struct rssspan *s, const struct pidst *p)
{
	if (!p || !p->has_mm)
		return 0;
	const struct mmst *m = get(&s->mm, (uint64_t)p->mm + 1, 0);
	if (!m || m->user != (int32_t)(p->key - 1) || m->size[RSSTRACE_ANON] <= m->shared_anon)
		return 0;
	return (uint64_t)(m->size[RSSTRACE_ANON] - (m->shared_anon > 0 ? m->shared_anon : 0));
}

static uint64_t sub0(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/* A process's part of the backward floor: its lower bound at the closing
 * tick less what it mapped since and with the pages of its own it let go
 * of since (a compiler freeing its heap after its top: each was a page of
 * its PSS then), or its own anonymous pages. */
static uint64_t back_part(const struct pidst *p)
{
	uint64_t a = sub0(p->lo + p->freed, p->inc);
	return a > p->anon ? a : p->anon;
}


/* The pid's entry for this interval's walk (lo and live set once). */
static struct pidst *walk_pid(struct rssspan *s, int32_t pid)
{
	struct pidst *p = get(&s->pid, (uint64_t)(uint32_t)pid + 1, 1);
	if (p && p->iv != s->iv) {
		p->iv = s->iv;
		p->lo = p->inc = p->freed = p->anon = 0;
		p->live = 0;
	}
	return p;
}

/* The mm of process pid is torn down, when it is its own (not a vfork's
 * parent's): returns the pages it had, now let go of. */
static uint64_t teardown(struct rssspan *s, uint32_t mm, int32_t pid)
{
	struct mmst *m = get(&s->mm, (uint64_t)mm + 1, 0);
	if (!m || (m->user && m->user != pid))
		return 0;
	if (m->known != 0xf)
		s->iv_blind = 1; /* what it let go of is not all known */
	uint64_t kib = 0;
	for (int k = 0; k < RSSTRACE_SWAP; k++)
		kib += m->size[k] > 0 ? (uint64_t)m->size[k] : 0;
	kib += m->size[RSSTRACE_SHMEM] > 0 ? (uint64_t)m->size[RSSTRACE_SHMEM] : 0;
	if (m->counted)
		s->rss_kib -= (int64_t)kib;
	del(&s->mm, m);
	return kib;
}

/* The tree's bound just before an end: the forward one (b, when the
 * opening tick's held), or its mms' resident pages (unless records were
 * lost), the lesser; ex keeps the highest. */
static void exit_hi(const struct rssspan *s, uint64_t b, uint64_t t_ns, struct rssspan_exits *ex)
{
	uint64_t hi = s->blind ? UINT64_MAX : (s->rss_kib > 0 ? (uint64_t)s->rss_kib : 0) + RSSSPAN_SLACK_KIB;
	if (s->fwd_hi_ok && b < hi)
		hi = b;
	if (hi > ex->hi_kib)
		ex->hi_kib = hi;
	if (hi > s->over_kib) {
		ex->top = 1;
		ex->top_t_ns = t_ns;
	}
}

/* The floor and bound as the records move them. */
struct run {
	int64_t f;
	uint64_t b;
};

static int mm_empty(const struct mmst *m)
{
	return !m->size[0] && !m->size[1] && !m->size[2] && !m->size[3];
}

/* A record of spacetime's own: not the tree's, but it tells of an mm (a
 * fork's copies into the command's first one), and pages it faults into
 * one of the tree's (reading a process's memory), or lets go of there (an
 * mm its read held as its process exited), are the tree's. */
static void step_self(struct rssspan *s, const struct rsstrace_rec *r, struct step *x, struct run *w)
{
	struct mmst *m = r->member < RSSTRACE_MEMBERS ? get(&s->mm, (uint64_t)r->mm + 1, 1) : NULL;
	if (!m)
		return;
	if (!m->origin && !m->known && mm_empty(m)) {
		m->origin = r->pid;
		m->known = 0xf;
	}
	int64_t d = r->size_kib - m->size[r->member];
	const struct pidst *u = m->user ? get(&s->pid, (uint64_t)(uint32_t)m->user + 1, 0) : NULL;
	int tree = m->counted && (m->known & (1u << r->member)) && r->member != RSSTRACE_SWAP;
	if (tree) {
		s->rss_kib += d;
		if (d > 0)
			w->b += (uint64_t)d;
		else
			w->f += d;
		/* the change is its user's, as the walks see it: pages mapped
		 * after an instant are taken off its figures before it */
		x->d = d;
		x->inc = d > 0 && u;
		if (u) {
			x->pid = m->user;
			x->anon_before = own_anon(s, u);
		}
	}
	m->size[r->member] = r->size_kib;
	if (tree && u)
		x->anon_after = own_anon(s, u);
	if (m->known == 0xf && mm_empty(m))
		del(&s->mm, m);
}

/* A process's end: its mm goes, all at once, with no record of it. */
static void step_exit(struct rssspan *s, const struct rsstrace_rec *r, struct pidst *p, struct step *x,
		      struct run *w, struct rssspan_exits *ex)
{
	if (p->has_mm)
		exit_hi(s, w->b, r->t_ns, ex);
	x->drop = p->has_mm ? teardown(s, p->mm, r->pid) : 0;
	p->has_mm = 0;
	p->exit_iv = s->iv;
	w->f -= (int64_t)x->drop;
	if (x->drop > ex->most_kib)
		ex->most_kib = x->drop;
}

/* Asks for a read of a process whose own file and shared-memory pages grew
 * by a step since it was last asked for: the floors count them only from a
 * read (anonymous ones they count as they come). */
static void want_of(struct rssspan *s, const struct rsstrace_rec *r, struct mmst *m)
{
	if (!r->curr || m->user != r->pid || !m->counted || m->known != 0xf || m->blind ||
	    (r->member != RSSTRACE_FILE && r->member != RSSTRACE_SHMEM))
		return;
	uint64_t kib = (uint64_t)(m->size[RSSTRACE_FILE] > 0 ? m->size[RSSTRACE_FILE] : 0) +
		       (uint64_t)(m->size[RSSTRACE_SHMEM] > 0 ? m->size[RSSTRACE_SHMEM] : 0);
	if (kib < m->want_kib + RSSSPAN_WANT_STEP_KIB)
		return;
	m->want_kib = kib;
	for (size_t i = 0; i < s->nwant; i++)
		if (s->want[i] == r->pid)
			return;
	if (s->nwant < RSSSPAN_WANT_MAX)
		s->want[s->nwant++] = r->pid;
}

/* The mm a record is of, its counter moved to the record's value (x->d the
 * change): a new one made now (unless records were lost), a counter met
 * before it was known (the baseline: the interval bounds nothing), the
 * command's first one becoming the tree's, a first user. NULL: no memory. */
static struct mmst *step_mm(struct rssspan *s, const struct rsstrace_rec *r, struct step *x)
{
	struct mmst *m = get(&s->mm, (uint64_t)r->mm + 1, 1);
	if (!m)
		return NULL;
	if (!m->origin && !m->known && mm_empty(m)) {
		m->origin = r->pid;
		m->blind = (uint8_t)s->blind;
		m->known = s->blind ? 0 : 0xf;
		m->counted = 1;
	}
	if (!(m->known & (1u << r->member))) {
		m->known |= (uint8_t)(1u << r->member);
		if (m->counted && r->member != RSSTRACE_SWAP)
			s->rss_kib += r->size_kib;
		m->size[r->member] = r->size_kib;
		s->iv_blind = 1;
	}
	if (r->curr && !m->counted) {
		/* spacetime's fork's child: the tree's from now on */
		m->counted = 1;
		s->rss_kib += m->size[RSSTRACE_FILE] + m->size[RSSTRACE_ANON] + m->size[RSSTRACE_SHMEM];
	}
	if (r->curr && !m->user) {
		m->user = r->pid;
		/* a fork's child: what its parent copied in is shared (and
		 * all it had, when it may be older than the watch) */
		if (m->origin != r->pid || m->blind)
			m->shared_anon = m->size[RSSTRACE_ANON];
	}
	x->d = r->size_kib - m->size[r->member];
	m->size[r->member] = r->size_kib;
	if (m->counted && r->member != RSSTRACE_SWAP)
		s->rss_kib += x->d;
	want_of(s, r, m);
	return m;
}

/* Whose the record's mm is: a process's first record in an mm of its own is
 * an exec (its old mm, its own, is torn down silently); a record of its in
 * another's mm is a fork's copy (what it has now is shared with the child).
 * Returns the record's mm again (entries may have moved). */
static struct mmst *step_owner(struct rssspan *s, const struct rsstrace_rec *r, struct pidst *p, struct step *x,
			       struct run *w)
{
	struct mmst *m = NULL;
	if (r->curr && p->exit_iv)
		p->exit_iv = 0; /* a new process of a pid reused */
	if (r->curr && (!p->has_mm || p->mm != r->mm)) {
		const struct mmst *m0 = get(&s->mm, (uint64_t)r->mm + 1, 0);
		if (m0 && m0->origin == r->pid && !m0->blind)
			p->exec_ns = r->t_ns;
		if (p->has_mm)
			x->drop = teardown(s, p->mm, r->pid);
		p->mm = r->mm;
		p->has_mm = 1;
		x->switched = 1;
		w->f -= (int64_t)x->drop;
	}
	x->own = r->curr || (p->has_mm && p->mm == r->mm);
	if (!x->own && x->d > 0 && p->has_mm) {
		struct mmst *own = get(&s->mm, (uint64_t)p->mm + 1, 0);
		if (own && own->user == r->pid)
			own->shared_anon = own->size[RSSTRACE_ANON];
	}
	m = get(&s->mm, (uint64_t)r->mm + 1, 0);
	return m;
}

/* The forward floor: own new anonymous pages in full, every page let go of
 * in full. The forward bound: every new page in full; a fork's copies none,
 * but up to an exec's arguments. */
static void step_bounds(struct rssspan *s, const struct rsstrace_rec *r, struct mmst *m, struct step *x,
			struct run *w)
{
	if (x->d > 0 && x->own && r->member == RSSTRACE_ANON)
		w->f += x->d;
	if (x->d < 0)
		w->f += x->d;
	if (x->d > 0 && x->own) {
		w->b += (uint64_t)x->d;
	} else if (x->d > 0 && m) {
		if (m->args_iv != s->iv) {
			m->args_iv = s->iv;
			m->args_kib = 0;
		}
		uint64_t room = sub0(RSSSPAN_EXEC_ARGS_KIB, m->args_kib);
		uint64_t add = (uint64_t)x->d < room ? (uint64_t)x->d : room;
		m->args_kib += add;
		w->b += add;
	}
	x->inc = x->d > 0 && x->own;
	/* its own anonymous pages let go of, as it ran (not its mm's teardown:
	 * curr): all of them its own alone while no fork shared them (a fork's
	 * copies set shared_anon), so each was a whole page of its PSS before */
	if (x->d < 0 && r->curr && x->own && r->member == RSSTRACE_ANON && m && m->user == r->pid &&
	    m->shared_anon <= 0 && m->known == 0xf && !m->blind)
		x->freed = (uint64_t)-x->d;
}

/* A read's process, when the forward floor may count its private pages: it
 * made its own mm in this interval and the opening tick did not count it
 * (what it added to the floor since is no more than its own anonymous
 * pages); NULL otherwise. */
static struct pidst *mark_fwd_pid(struct rssspan *s, int32_t pid)
{
	struct pidst *p = get(&s->pid, (uint64_t)(uint32_t)pid + 1, 0);
	if (!p || !p->has_mm || p->exit_iv || !p->exec_ns || p->exec_ns <= s->open_ns ||
	    (p->lo_last_iv + 1 == s->iv && p->lo_last))
		return NULL;
	const struct mmst *m = get(&s->mm, (uint64_t)p->mm + 1, 0);
	return m && m->user == pid && m->known == 0xf && !m->blind ? p : NULL;
}

/* The reads whose span ended before t: from then on the forward floor holds
 * the process's private pages past its own anonymous ones, and the step
 * before (its state lasted until t) says what is left of the read. */
static void marks_due(struct rssspan *s, uint64_t t, struct run *w, size_t k)
{
	struct rssmark *m;
	while ((m = rssmark_due(&s->marks, t))) {
		struct pidst *p = mark_fwd_pid(s, m->pid);
		uint64_t left = rssmark_left(m), a = p ? own_anon(s, p) : 0;
		if (p && p->fbonus_iv != s->iv)
			p->fbonus = 0, p->fbonus_iv = s->iv;
		/* a later read of it replaces the one before */
		if (p && left > a + p->fbonus) {
			w->f += (int64_t)(left - a - p->fbonus);
			p->fbonus = left - a;
			if (k > 0)
				s->st[k - 1].f_fwd = w->f > 0 ? (uint64_t)w->f : 0;
		}
		if (k > 0 && left > s->st[k - 1].rd_left) {
			s->st[k - 1].rd_pid = m->pid;
			s->st[k - 1].rd_left = left;
		}
	}
}

/* The reads as a record moves what may be their private pages; the best
 * one left after it. */
static void marks_step(struct rssspan *s, const struct rsstrace_rec *r, struct step *x)
{
	if (!s->marks.n)
		return;
	rssmark_step(&s->marks, r->t_ns, x->pid, x->own, r->member, x->d,
		     x->exit ? RSSMARK_EXIT : x->switched ? RSSMARK_EXEC : RSSMARK_KEPT);
	const struct rssmark *b = rssmark_best(&s->marks);
	if (b) {
		x->rd_pid = b->pid;
		x->rd_left = rssmark_left(b);
	}
}

/* Forward: each record's change, what kind, and the forward floor and
 * bound after it. Returns 0 or -ENOMEM. */
static int forward(struct rssspan *s, const struct rsstrace_rec *r, size_t n, struct rssspan_exits *ex)
{
	struct run w = {s->f_run, s->b_run};

	for (size_t i = 0; i < n; i++) {
		struct step *x = &s->st[s->nst + i];
		struct pidst *p = NULL;
		marks_due(s, r[i].t_ns, &w, s->nst + i);
		memset(x, 0, sizeof(*x));
		x->t_ns = r[i].t_ns;
		x->pid = r[i].pid;
		x->exit = r[i].member == RSSTRACE_EXIT;
		if (r[i].self) {
			step_self(s, &r[i], x, &w);
		} else {
			if (!(p = walk_pid(s, r[i].pid)))
				return -ENOMEM;
			x->anon_before = own_anon(s, p);
		}
		if (p && x->exit) {
			step_exit(s, &r[i], p, x, &w, ex);
		} else if (p) {
			if (!step_mm(s, &r[i], x))
				return -ENOMEM;
			struct mmst *m = step_owner(s, &r[i], p, x, &w);
			step_bounds(s, &r[i], m, x, &w);
			x->anon_after = own_anon(s, p);
			/* an mm at nothing is gone (or as good as new): forgotten */
			if (m && m->known == 0xf && mm_empty(m))
				del(&s->mm, m);
		}
		x->f_fwd = w.f > 0 ? (uint64_t)w.f : 0;
		x->b_fwd = w.b;
		x->rss_after = s->rss_kib > 0 ? (uint64_t)s->rss_kib : 0;
		marks_step(s, &r[i], x);
	}
	s->f_run = w.f;
	s->b_run = w.b;
	s->nst += n;
	return 0;
}

static int room(struct rssspan *s, size_t n)
{
	if (s->nst + n <= s->stcap)
		return 0;
	size_t cap = (s->nst + n) * 2;
	struct step *st = realloc(s->st, cap * sizeof(*st));
	if (!st)
		return -ENOMEM;
	s->st = st;
	s->stcap = cap;
	return 0;
}

/* The bound at an instant: the lesser of the forward and the backward ones
 * that hold (UINT64_MAX: neither). */
static uint64_t bound_of(const struct rssspan_in *in, uint64_t fwd, uint64_t back)
{
	if (!in->prev_hi_ok)
		return in->now_hi_ok ? back : UINT64_MAX;
	if (!in->now_hi_ok)
		return fwd;
	return fwd < back ? fwd : back;
}

/* Drops the processes whose own mm is gone (exited, or never had one). */
static void prune_pids(struct rssspan *s)
{
	for (size_t i = 0; i < s->pid.cap;) {
		struct pidst *p = slot(&s->pid, i);
		/* one that exited is kept for the interval after (the tick that
		 * opens it may count it still) */
		if (p->key && !(p->has_mm && get(&s->mm, (uint64_t)p->mm + 1, 0)) &&
		    !(p->exit_iv && p->exit_iv + 1 >= s->iv)) {
			del(&s->pid, p); /* another entry may have shifted into i */
			continue;
		}
		i++;
	}
}

/* An interval that met counters it did not know bounds nothing. */
static void blind_exits(const struct rssspan *s, struct rssspan_exits *ex)
{
	if (s->iv_blind && ex->hi_kib) {
		ex->hi_kib = UINT64_MAX;
		ex->top = 1;
	}
}

int rssspan_forward(struct rssspan *s, const struct rsstrace_rec *r, size_t n, const struct rssspan_in *in,
		    struct rssspan_exits *ex)
{
	*ex = (struct rssspan_exits){0, 0, 0, 0};
	s->fwd_hi_ok = in->prev_hi_ok;
	s->over_kib = in->over_kib;
	s->open_ns = in->open_ns;
	s->marks.n = 0;
	s->nwant = 0;
	s->iv++;
	s->iv_blind = 0;
	s->nst = 0;
	/* the opening tick's figures; its bound without the pages mapped as it
	 * read (they came after its instant) */
	s->f_run = (int64_t)in->lo_prev_kib;
	s->b_run = in->hi_prev_kib + s->carry_kib + RSSSPAN_SLACK_KIB; /* the copies' allowance: backward */
	s->carry_kib = 0;
	s->rss_open_kib = s->rss_kib > 0 ? (uint64_t)s->rss_kib : 0;
	/* the opening tick counted processes already gone (their exit events
	 * were still on their way): not in the tree then */
	for (size_t i = 0; i < s->pid.cap; i++) {
		const struct pidst *p = slot(&s->pid, i);
		if (p->key && p->exit_iv && p->exit_iv < s->iv && p->lo_last_iv == s->iv - 1)
			s->f_run -= (int64_t)p->lo_last;
	}
	if (room(s, n) < 0)
		return -ENOMEM;
	int e = forward(s, r, n, ex);
	blind_exits(s, ex);
	return e;
}

int rssspan_more(struct rssspan *s, const struct rsstrace_rec *r, size_t n, struct rssspan_exits *ex)
{
	struct rssspan_exits x = {0, 0, 0, 0};

	if (!ex)
		ex = &x;
	if (room(s, n) < 0)
		return -ENOMEM;
	int e = forward(s, r, n, ex);
	blind_exits(s, ex);
	return e;
}

int rssspan_read(struct rssspan *s, uint64_t t0_ns, uint64_t t1_ns, int32_t pid, uint64_t priv_kib)
{
	/* of a process the walk has alive: one it saw end was not read */
	const struct pidst *p = get(&s->pid, (uint64_t)(uint32_t)pid + 1, 0);
	if (!p || p->exit_iv)
		return -ESRCH;
	return rssmark_add(&s->marks, t0_ns, t1_ns, pid, priv_kib);
}

size_t rssspan_wants(struct rssspan *s, int32_t *pids, size_t max)
{
	size_t n = s->nwant < max ? s->nwant : max;
	for (size_t i = 0; i < n; i++)
		pids[i] = s->want[i];
	s->nwant = 0;
	return n;
}

uint64_t rssspan_hi_now(const struct rssspan *s)
{
	uint64_t hi = s->blind ? UINT64_MAX : (s->rss_kib > 0 ? (uint64_t)s->rss_kib : 0) + RSSSPAN_SLACK_KIB;
	if (s->fwd_hi_ok && s->b_run < hi)
		hi = s->b_run;
	return hi;
}

int rssspan_interval(struct rssspan *s, const struct rsstrace_rec *r, size_t n, const struct rssspan_in *in,
		     struct rssspan_out *out)
{
	struct rssspan_exits x;
	int e = rssspan_forward(s, r, n, in, &x);

	if (e < 0) {
		memset(out, 0, sizeof(*out));
		return e;
	}
	return rssspan_backward(s, in, out);
}

/* The resident pages of the processes the trace has and the closing tick did
 * not count (begun as it read: their events were still on their way), or
 * counted with the program they had before an exec the trace saw since,
 * each its own mm's: the tick's bound does not hold them. */
static uint64_t unlisted(struct rssspan *s, const struct rssspan_in *in)
{
	uint64_t kib = 0;

	for (size_t i = 0; i < in->nlive; i++) {
		struct pidst *p = get(&s->pid, (uint64_t)(uint32_t)in->live[i].pid + 1, 0);
		if (p && !(p->exec_ns && in->live[i].start_ns && p->exec_ns > in->live[i].start_ns))
			p->listed_iv = s->iv;
	}
	for (size_t i = 0; i < s->pid.cap; i++) {
		const struct pidst *p = slot(&s->pid, i);
		if (!p->key || !p->has_mm || p->listed_iv == s->iv)
			continue;
		const struct mmst *m = get(&s->mm, (uint64_t)p->mm + 1, 0);
		if (!m || !m->counted || m->user != (int32_t)(p->key - 1))
			continue;
		for (int k = 0; k < RSSTRACE_MEMBERS; k++)
			if (k != RSSTRACE_SWAP && m->size[k] > 0)
				kib += (uint64_t)m->size[k];
	}
	return kib;
}

/* A live process's lower bound at the closing tick, as the walk takes it:
 * none when the trace saw it exec after the program the model has for it
 * (the figures are the old program's, torn down since); when the tick's
 * processes moved as it read, less all it mapped and let go of as the tick
 * read (a page it let go of after its read may be in a later read of
 * another in full, one it mapped before its read may be in an earlier read
 * of another in full: each such page counted once too often). */
static uint64_t lo_at_close(const struct pidst *p, const struct rssspan_live *l, const struct rssspan_in *in)
{
	if (p->exec_ns && l->start_ns && p->exec_ns > l->start_ns)
		return 0;
	return in->now_lo_moved ? sub0(l->lo_kib, p->win) : l->lo_kib;
}

/* The backward walk's start, at the closing tick: each process at its lower
 * bound then (lo_at_close; one the tick counted that had ended, its exit
 * event still on its way, from its end back only, and at its own anonymous
 * pages only when the tick's processes moved), or its own anonymous pages.
 * Sets *live_lo to the lower bounds' sum; returns the backward floor less it
 * (sb: it may wrap below, and back). -ENOMEM: *live_lo is UINT64_MAX. */
static uint64_t walk_start(struct rssspan *s, const struct rssspan_in *in, uint64_t *live_lo)
{
	uint64_t sb = 0;

	*live_lo = 0;
	for (size_t i = 0; in->now_lo_ok && i < in->nlive; i++) {
		struct pidst *p = walk_pid(s, in->live[i].pid);
		if (!p) {
			*live_lo = UINT64_MAX;
			return 0;
		}
		p->win = 0;
	}
	for (size_t k = s->nst; in->now_lo_ok && k-- > 0 && s->st[k].t_ns > in->close_ns;) {
		const struct step *x = &s->st[k];
		struct pidst *p = get(&s->pid, (uint64_t)(uint32_t)x->pid + 1, 0);
		if (p && p->iv == s->iv)
			p->win += (uint64_t)(x->d < 0 ? -x->d : x->d) + x->drop;
	}
	for (size_t i = 0; in->now_lo_ok && i < in->nlive; i++) {
		struct pidst *p = get(&s->pid, (uint64_t)(uint32_t)in->live[i].pid + 1, 0);
		p->lo = lo_at_close(p, &in->live[i], in);
		p->live = 1;
		*live_lo += p->lo;
	}
	for (size_t i = 0; i < s->pid.cap; i++) {
		struct pidst *p = slot(&s->pid, i);
		if (!p->key || p->iv != s->iv)
			continue;
		p->anon = own_anon(s, p);
		uint64_t lo0 = p->lo;
		if (p->exit_iv) {
			p->lo_exit = p->exit_iv == s->iv && !in->now_lo_moved ? p->lo : 0;
			p->lo = 0;
		}
		sb += back_part(p) - lo0;
	}
	return sb;
}

/* The pages mapped and let go of as the closing tick read (after its
 * instant): its figures were read then, each at its own instant. */
static uint64_t read_window_moves(const struct rssspan *s, const struct rssspan_in *in)
{
	uint64_t kib = 0;

	for (size_t k = s->nst; k-- > 0 && s->st[k].t_ns > in->close_ns;)
		kib += (uint64_t)(s->st[k].d < 0 ? -s->st[k].d : s->st[k].d) + s->st[k].drop;
	return kib;
}

/* The bound at step x's instant, d the pages let go of after it, w what
 * moved as the closing tick read. */
static uint64_t bound_at(const struct rssspan *s, const struct rssspan_in *in, const struct step *x, uint64_t d,
			 uint64_t w)
{
	uint64_t bnd = bound_of(in, x->b_fwd + in->cow_kib, in->hi_now_kib + d + RSSSPAN_SLACK_KIB);
	/* after the closing tick's instant, as it read: each process's
	 * figures are of some instant of that, and no more moved in it than w */
	if (x->t_ns > in->close_ns)
		bnd = bound_of(in, x->b_fwd + in->cow_kib, in->hi_now_kib + w + RSSSPAN_SLACK_KIB);
	/* no instant's PSS above the resident pages of its mms, each once
	 * (unless records were lost: mms unseen since are not in it) */
	if (!s->blind && x->rss_after + RSSSPAN_SLACK_KIB < bnd)
		bnd = x->rss_after + RSSSPAN_SLACK_KIB;
	return bnd;
}

/* The walk from step x's instant to the one before it: its process's part
 * of the backward floor (sb) as it was, the pages let go of after (d), and
 * those mapped as the closing tick read (carried to the next interval). */
static void walk_back(struct rssspan *s, const struct rssspan_in *in, const struct step *x, uint64_t *sb,
		      uint64_t *d)
{
	struct pidst *p = get(&s->pid, (uint64_t)(uint32_t)x->pid + 1, 0);
	if (p && p->iv == s->iv) {
		uint64_t before = back_part(p);
		if (x->inc)
			p->inc += (uint64_t)x->d;
		/* (the closing tick's reads came after its instant: a page let
		 * go of after that may be in them still) */
		if (x->t_ns <= in->close_ns)
			p->freed += x->freed;
		p->anon = x->anon_before;
		if (x->switched)
			p->lo = p->freed = 0; /* before its own mm: not born, or another image */
		if (x->exit)
			p->lo = p->lo_exit; /* alive before its end */
		*sb += back_part(p) - before;
	}
	if (x->d < 0)
		*d += (uint64_t)-x->d;
	*d += x->drop;
	if (x->t_ns > in->close_ns && x->d > 0)
		s->carry_kib += (uint64_t)x->d;
}

/* What a read adds to the backward floor at step x's instant: what is left
 * of it past its process's part there. */
static uint64_t mark_back(struct rssspan *s, const struct step *x)
{
	if (!x->rd_pid || rssmark_forked(&s->marks, x->rd_pid))
		return 0;
	const struct pidst *p = get(&s->pid, (uint64_t)(uint32_t)x->rd_pid + 1, 0);
	uint64_t part = p && p->iv == s->iv ? back_part(p) : 0;
	return sub0(x->rd_left, part);
}

/* The interval's bound with its two ends (the opening instant is the last
 * tick's, the closing one this tick's), d the pages let go of in it; then
 * whether its floor and bound stand: a floor above the bound at its own
 * instant means one of them is wrong (the model's figures, or pages moved
 * unseen), and neither is taken. */
static void close_out(const struct rssspan *s, const struct rssspan_in *in, uint64_t d, struct rssspan_out *out)
{
	uint64_t b0 = bound_of(in, in->hi_prev_kib + in->cow_kib + RSSSPAN_SLACK_KIB, in->hi_now_kib + d + RSSSPAN_SLACK_KIB);
	if (!s->blind && s->rss_open_kib + RSSSPAN_SLACK_KIB < b0)
		b0 = s->rss_open_kib + RSSSPAN_SLACK_KIB;
	if (b0 > out->bound_kib) {
		out->bound_kib = b0;
		out->bound_t_ns = in->open_ns;
	}
	if (in->now_hi_ok && in->hi_now_kib > out->bound_kib) {
		out->bound_kib = in->hi_now_kib;
		out->bound_t_ns = in->close_ns;
	}
	out->bound_ok = in->prev_hi_ok && in->now_hi_ok;
	if (!in->prev_hi_ok && !in->now_hi_ok)
		out->bound_kib = out->bound_t_ns = 0;
	if ((out->floor_ok && out->floor_kib > out->floor_hi_kib) || s->iv_blind) {
		out->conflict = !s->iv_blind;
		out->floor_ok = out->bound_ok = 0;
	}
}

int rssspan_backward(struct rssspan *s, const struct rssspan_in *in_given, struct rssspan_out *out)
{
	memset(out, 0, sizeof(*out));
	struct rssspan_in inx = *in_given;
	const struct rssspan_in *in = &inx;
	if (inx.now_hi_ok)
		inx.hi_now_kib += unlisted(s, in);
	out->hi_now_kib = inx.hi_now_kib;
	uint64_t live_lo, d = 0, sb = walk_start(s, in, &live_lo);
	if (live_lo == UINT64_MAX)
		return -ENOMEM;
	out->lo_now_kib = live_lo;
	int any = in->prev_lo_ok || in->now_lo_ok;
	uint64_t w = read_window_moves(s, in);
	struct run wr = {s->f_run, s->b_run};
	marks_due(s, UINT64_MAX, &wr, s->nst); /* the reads no record came after */
	for (size_t k = s->nst; k-- > 0;) {
		const struct step *x = &s->st[k];
		uint64_t fb = in->now_lo_ok ? live_lo + sb + mark_back(s, x) : 0;
		uint64_t fl = in->prev_lo_ok && x->f_fwd > fb ? x->f_fwd : fb;
		uint64_t bnd = bound_at(s, in, x, d, w);
		if (x->t_ns > in->open_ns) {
			if (any && fl > out->floor_kib) {
				out->floor_kib = fl;
				out->floor_t_ns = x->t_ns;
				out->floor_hi_kib = bnd;
				out->floor_ok = 1;
			}
			if (bnd > out->bound_kib) {
				out->bound_kib = bnd;
				out->bound_t_ns = x->t_ns;
			}
		}
		walk_back(s, in, x, &sb, &d);
	}
	close_out(s, in, d, out);
	for (size_t i = 0; in->now_lo_ok && i < in->nlive; i++) {
		struct pidst *p = get(&s->pid, (uint64_t)(uint32_t)in->live[i].pid + 1, 0);
		if (p) {
			p->lo_last = lo_at_close(p, &in->live[i], in);
			p->lo_last_iv = s->iv;
		}
	}
	prune_pids(s);
	return 0;
}
