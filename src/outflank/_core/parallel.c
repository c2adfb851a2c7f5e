/*
 * parallel.c - split points, helper threads, aborts (see parallel.h).
 *
 * Layering. The midgame search (search.c) and the solver (endgame.c) call
 * this file to offer split points; this file runs their move loops only
 * through the function pointer each split point carries (SplitPoint.run),
 * never by name, and reads the Search state they share (search.h). That
 * callback is the natural shape of a split-point search (the loop belongs
 * to the search, the threads to this file), so no file of the core calls
 * back into one that calls it by name.
 *
 * Aborts. A thread's aborted flag holds the most urgent reason to stop
 * (the smallest nonzero value): ABORT_STOP for the whole search, else
 * ABORT_CUT + f where f numbers the split point, among those the thread
 * works at (nested: 0 is its outermost), that was cut off. A thread whose
 * flag is set returns from every node at once; on the way out it passes
 * the split points it works at: at one it is a helper of, it leaves; at
 * one it is the master of, it cuts that point off too (its helpers' work
 * is wasted as well) and waits for them. At the point numbered f itself
 * the reason is used up and the flag cleared. So a cut-off reaches every
 * thread below it, each of them told by the thread above. (A master
 * waiting at its point, claimed for one below that is cut off before it
 * joins, gets a reason for a frame it has not entered yet: one that does
 * not concern its own point, so it does not cut that off.)
 *
 * Thread states (a version counter above the two low bits, so that a
 * claim made on an old observation fails): BUSY, FREE (a helper waiting
 * for any split point), WAIT (a master waiting at wait_sp for its helpers,
 * free to help below it), CLAIMED (chosen by a splitting thread, its
 * split point on the way).
 *
 * Lock order: a split point's lock before a thread's mtx; never the other
 * way round.
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "parallel.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"

#ifdef PARSTATS /* debugging: splits, helpers, cut-offs, idle time; printed per search */
#include <stdio.h>
#include <time.h> /* a helper's CPU time */
static _Atomic unsigned long long st_try, st_split, st_claimed, st_cut;
#define PSTAT(x) atomic_fetch_add_explicit(&(x), 1, memory_order_relaxed)
static _Atomic unsigned long long st_sleeps, st_sleep_ns, st_wait_ns, st_waits, st_helper_cpu_ns;
static unsigned long long ns_now(void) { return (unsigned long long)(clock_seconds() * 1e9); }
#define SLEEP(cv, mtx, counter, total)                                                             \
    do {                                                                                           \
        unsigned long long t0_ = ns_now();                                                         \
        pthread_cond_wait(cv, mtx);                                                                \
        atomic_fetch_add(&(total), ns_now() - t0_);                                                \
        PSTAT(counter);                                                                            \
    } while (0)
#else
#define PSTAT(x) ((void)0)
#define SLEEP(cv, mtx, counter, total) pthread_cond_wait(cv, mtx)
#endif

enum { ST_BUSY = 0, ST_FREE = 1, ST_WAIT = 2, ST_CLAIMED = 3 };

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

int par_spin_us = 100;

/* Poll ready(t, sp) for up to par_spin_us microseconds before a thread
 * sleeps; whether it became ready. Reads only atomics (no lock held). */
static int spin_until(Search *t, SplitPoint *sp, int (*ready)(Search *, SplitPoint *)) {
    if (par_spin_us <= 0) return 0;
    double end = clock_seconds() + par_spin_us * 1e-6;
    do {
        for (int i = 0; i < 64; ++i) {
            if (ready(t, sp)) return 1;
            cpu_relax();
        }
    } while (clock_seconds() < end);
    return 0;
}

/* A helper's wait is over: it was claimed for a split point (a search's
 * end, which sets quit under the lock, is seen when the polls run out). */
static int helper_ready(Search *t, SplitPoint *sp) {
    (void)sp;
    return (atomic_load_explicit(&t->state, memory_order_acquire) & 3) == ST_CLAIMED;
}

/* A waiting master's wait is over: its helpers left, or it was claimed
 * below its split point (an abort wakes it from its sleep as before). */
static int master_ready(Search *t, SplitPoint *sp) {
    return atomic_load_explicit(&sp->helpers, memory_order_acquire) == 0 || helper_ready(t, sp);
}

#define RELAXED memory_order_relaxed

static inline uint64_t next_state(uint64_t old, int kind) {
    return ((old >> 2) + 1) << 2 | (uint64_t)kind;
}

static void set_state(Search *t, int kind) {
    uint64_t old = atomic_load_explicit(&t->state, RELAXED);
    atomic_store_explicit(&t->state, next_state(old, kind), memory_order_release);
}

/* t waits for work: FREE, or WAIT at its split point sp. */
static void publish_idle(Search *t, SplitPoint *sp) {
    atomic_store_explicit(&t->wait_sp, sp, RELAXED);
    set_state(t, sp ? ST_WAIT : ST_FREE);
    atomic_fetch_or_explicit(&t->par->idle, 1ULL << t->id, memory_order_release);
}

static inline void wake(Search *t) {
    pthread_mutex_lock(&t->mtx);
    pthread_cond_broadcast(&t->cv);
    pthread_mutex_unlock(&t->mtx);
}

/* Raise t's flag to the more urgent of its reason and v; wake t. */
static void raise_flag(Search *t, int v) {
    int cur = atomic_load_explicit(&t->aborted, RELAXED);
    while (cur == 0 || cur > v)
        if (atomic_compare_exchange_weak_explicit(&t->aborted, &cur, v, RELAXED, RELAXED)) break;
    wake(t);
}

/* Clear t's flag if it holds the reason v (used up). */
static inline void clear_flag(Search *t, int v) {
    atomic_compare_exchange_strong_explicit(&t->aborted, &v, 0, RELAXED, RELAXED);
}

void par_halt(Search *s) {
    Par *par = s->par;
    for (int i = 0; i < par->active; ++i) raise_flag(par->thread[i], ABORT_STOP);
}

void par_cut(SplitPoint *sp, const Search *by) {
    PSTAT(st_cut);
    sp->cut = 1;
    Par *par = sp->master->par;
    for (uint64_t w = sp->workers; w; w &= w - 1) {
        int i = bb_first(w);
        if (i != by->id) raise_flag(par->thread[i], ABORT_CUT + sp->frame[i]);
    }
}

void par_record_line(SplitPoint *sp, const Search *t, int square, int ply) {
    sp->line[0] = square;
    int n = ply + 1 < MAX_PLY ? t->pv_len[ply + 1] : 0;
    if (n > MAX_PLY - 1) n = MAX_PLY - 1;
    if (n > 0) memcpy(sp->line + 1, t->pv[ply + 1], (size_t)n * sizeof(int));
    sp->line_len = n + 1;
}

int par_alpha_now(SplitPoint *sp, int a) {
    sp_lock(sp);
    if (sp->alpha > a) a = sp->alpha;
    sp_unlock(sp);
    return a;
}

void par_node_record(SplitPoint *sp, const Search *t, int v, int sq, int beta, int with_line) {
    sp_lock(sp);
    if (v > sp->best) {
        sp->best = v;
        sp->best_move = sq;
        if (v > sp->alpha) {
            sp->alpha = v;
            if (with_line) par_record_line(sp, t, sq, sp->ply);
            if (v >= beta) par_cut(sp, t);
        }
    }
    sp_unlock(sp);
}

int par_root_claim(SplitPoint *sp, int *alpha) {
    sp_lock(sp);
    int i = sp->cut || sp->next >= sp->n ? -1 : sp->next++;
    *alpha = sp->alpha;
    sp_unlock(sp);
    return i;
}

void par_root_record(SplitPoint *sp, const Search *t, RootMove *rm, int v, int full) {
    sp_lock(sp);
    rm->score = v;
    rm->searched = 1;
    rm->upper = !full;
    if (v > sp->best) {
        sp->best = v;
        if (full) {
            par_record_line(sp, t, rm->square, 0);
        } else {
            sp->line[0] = rm->square;
            sp->line_len = 1;
        }
        if (!sp->analyze && v > sp->alpha) sp->alpha = v;
        if (!sp->analyze && sp->alpha >= sp->beta) par_cut(sp, t);
    }
    if (sp->analyze) { /* the floor rises with the best (a window) or the k-th best */
        int floor = analysis_floor(sp->moves, sp->n, sp->alpha, sp->best, sp->analyze);
        if (floor > sp->alpha) sp->alpha = floor;
    }
    sp_unlock(sp);
}

/* The master gives up its split point (it was aborted): cut it off. */
static void abandon(SplitPoint *sp) {
    sp_lock(sp);
    if (!sp->cut) par_cut(sp, sp->master);
    sp_unlock(sp);
}

/* Add t's uncounted nodes to the search's count. */
static void flush_nodes(Search *t) {
    uint64_t delta = t->nodes - t->flushed;
    t->flushed = t->nodes;
    if (delta) atomic_fetch_add_explicit(&t->par->nodes, delta, RELAXED);
}

/* s's mode into m (SearchMode, parallel.h), and back. */
static void mode_save(const Search *s, SearchMode *m) {
    m->ev = s->ev;
    m->eval_tag = s->eval_tag;
    m->reversi = s->reversi;
    m->end_prec = s->end_prec;
    m->pc_t = s->pc_t;
    m->mpc_t = s->mpc_t;
    m->fresh_cuts = s->fresh_cuts;
}

static void mode_load(Search *s, const SearchMode *m) {
    s->ev = m->ev;
    s->eval_tag = m->eval_tag;
    s->reversi = m->reversi;
    s->end_prec = m->end_prec;
    s->pc_t = m->pc_t;
    s->mpc_t = m->mpc_t;
    s->fresh_cuts = m->fresh_cuts;
}

/* What every thread of a search shares: the table and the limits (set
 * before the search's first split, read-only while it runs). */
static void copy_limits(Search *t, const Search *from) {
    t->tt = from->tt;
    t->node_limit = from->node_limit;
    t->deadline = from->deadline;
}

/* t works at sp as a helper (claimed for it), then leaves. */
static void help(Search *t, SplitPoint *sp) {
    int frame = t->nframes;
    if (frame == 0) {
        copy_limits(t, sp->master);
        t->next_poll = t->nodes; /* the limits checked at once, then as search_poll says */
    }
    /* sp's mode, not its master's of the moment: the master may be in a
     * horizon solve elsewhere below sp meanwhile (and t, a master waiting
     * at a split point above sp, may have another) */
    SearchMode own;
    mode_save(t, &own);
    mode_load(t, &sp->mode);
    SplitPoint *outer = t->sp;
    t->sp = sp;
    t->nframes = frame + 1;
    sp->run(t, sp);
    t->nframes = frame;
    t->sp = outer;
    mode_load(t, &own);
    flush_nodes(t);
    Search *master = sp->master;
    sp_lock(sp);
    sp->workers &= ~(1ULL << t->id);
    sp_unlock(sp);
    clear_flag(t, ABORT_CUT + frame); /* a cut-off of sp itself is used up here */
    /* the last one out wakes the master, which may then end sp at once:
     * nothing of sp is touched after this */
    if (atomic_fetch_sub_explicit(&sp->helpers, 1, memory_order_acq_rel) == 1) wake(master);
}

/* Whether sp is at or below w (w among its ancestors). */
static int below(const SplitPoint *sp, const SplitPoint *w) {
    for (; sp; sp = sp->parent)
        if (sp == w) return 1;
    return 0;
}

/* Claim idle threads for sp (at most want); returns how many. */
static int claim(Search *s, SplitPoint *sp, int want, Search **got) {
    Par *par = s->par;
    int n = 0;
    uint64_t mask = atomic_load_explicit(&par->idle, memory_order_acquire) & ~(1ULL << s->id);
    for (; mask && n < want; mask &= mask - 1) {
        int i = bb_first(mask);
        Search *t = par->thread[i];
        uint64_t st = atomic_load_explicit(&t->state, memory_order_acquire);
        int kind = (int)(st & 3);
        if (kind == ST_WAIT) { /* a waiting master helps only below its own split point */
            if (!below(sp, atomic_load_explicit(&t->wait_sp, RELAXED))) continue;
        } else if (kind != ST_FREE) {
            continue;
        }
        if (!atomic_compare_exchange_strong_explicit(&t->state, &st, next_state(st, ST_CLAIMED),
                                                     memory_order_acq_rel, RELAXED))
            continue;
        atomic_fetch_and_explicit(&par->idle, ~(1ULL << i), RELAXED);
        sp->workers |= 1ULL << i;
        sp->frame[i] = (int8_t)t->nframes;
        got[n++] = t;
        PSTAT(st_claimed);
    }
    return n;
}

static void assign(Search *t, SplitPoint *sp) {
    pthread_mutex_lock(&t->mtx);
    t->assigned = sp;
    pthread_cond_signal(&t->cv);
    pthread_mutex_unlock(&t->mtx);
}

/* Take an assigned split point (t's mtx held; returns with it held). */
static void take_assignment(Search *t) {
    SplitPoint *sp = t->assigned;
    t->assigned = NULL;
    pthread_mutex_unlock(&t->mtx);
    set_state(t, ST_BUSY);
    help(t, sp);
    pthread_mutex_lock(&t->mtx);
}

static void *helper_main(void *arg) {
    Search *t = arg;
    pthread_mutex_lock(&t->mtx);
    for (;;) {
        if (t->assigned) {
            take_assignment(t);
            pthread_mutex_unlock(&t->mtx);
            publish_idle(t, NULL);
            pthread_mutex_lock(&t->mtx);
        } else if (t->quit) {
            break;
        } else {
            pthread_mutex_unlock(&t->mtx);
            int woke = spin_until(t, NULL, helper_ready);
            pthread_mutex_lock(&t->mtx);
            if (!woke && !t->assigned && !t->quit) SLEEP(&t->cv, &t->mtx, st_sleeps, st_sleep_ns);
        }
    }
    pthread_mutex_unlock(&t->mtx);
#ifdef PARSTATS
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    atomic_fetch_add(&st_helper_cpu_ns,
                     (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec);
#endif
    return NULL;
}

/* The master s waits at sp until every helper has left, helping below sp
 * meanwhile; if s is aborted (or was), sp is cut off first. */
static void wait_helpers(Search *s, SplitPoint *sp, int frame) {
    int abandoned = 0, spun = 0;
    publish_idle(s, sp);
    pthread_mutex_lock(&s->mtx);
    for (;;) {
        /* A reason to stop at sp or above (not one for a split point
         * below that claimed s and is cut off before s joins it). */
        int flag = ABORTED(s);
        if (!abandoned && flag && flag <= ABORT_CUT + frame) {
            pthread_mutex_unlock(&s->mtx);
            abandon(sp);
            abandoned = 1;
            pthread_mutex_lock(&s->mtx);
            continue;
        }
        if (s->assigned) {
            take_assignment(s);
            pthread_mutex_unlock(&s->mtx);
            publish_idle(s, sp);
            pthread_mutex_lock(&s->mtx);
            continue;
        }
        uint64_t st = atomic_load_explicit(&s->state, memory_order_acquire);
        if ((st & 3) == ST_WAIT && atomic_load_explicit(&sp->helpers, memory_order_acquire) == 0) {
            if (atomic_compare_exchange_strong_explicit(&s->state, &st, next_state(st, ST_BUSY),
                                                        memory_order_acq_rel, RELAXED)) {
                atomic_fetch_and_explicit(&s->par->idle, ~(1ULL << s->id), RELAXED);
                break;
            }
            continue; /* claimed meanwhile: its split point is on the way */
        }
        if (par_spin_us > 0 && !spun) { /* poll, then check again under the lock */
            pthread_mutex_unlock(&s->mtx);
            spin_until(s, sp, master_ready);
            pthread_mutex_lock(&s->mtx);
            spun = 1;
            continue;
        }
        spun = 0;
        SLEEP(&s->cv, &s->mtx, st_waits, st_wait_ns);
    }
    pthread_mutex_unlock(&s->mtx);
}

/* Start the search's helper threads (thread 0, at its first split). */
static void spawn(Search *s) {
    Par *par = s->par;
    s->spawn_pending = 0;
    for (int i = 1; i < par->running; ++i) {
        Search *t = par->thread[i];
        if (!t) {
            t = aligned_alloc(64, (sizeof(Search) + 63) / 64 * 64);
            if (!t) break;
            memset(t, 0, sizeof *t);
            pthread_mutex_init(&t->mtx, NULL);
            pthread_cond_init(&t->cv, NULL);
            t->par = par;
            t->id = i;
            par->thread[i] = t;
        }
        t->nodes = t->flushed = 0;
        t->next_poll = 0;
        atomic_store_explicit(&t->aborted, 0, RELAXED);
        t->split_ok = 1;
        t->spawn_pending = 0;
        t->nframes = 0;
        t->sp = NULL;
        t->assigned = NULL;
        t->quit = 0;
        atomic_store_explicit(&t->wait_sp, NULL, RELAXED);
        atomic_store_explicit(&t->state, ST_FREE, RELAXED);
        if (pthread_create(&par->tid[i], NULL, helper_main, t) != 0) break;
        par->active = i + 1;
        atomic_fetch_or_explicit(&par->idle, 1ULL << i, memory_order_release);
    }
}

int par_split(Search *s, SplitPoint *sp) {
    if (ABORTED(s)) return 0;
    if (s->spawn_pending) spawn(s);
    Search *got[MAX_THREADS];
    sp->parent = s->sp;
    sp->master = s;
    sp->cut = 0;
    sp->workers = 1ULL << s->id;
    sp->frame[s->id] = (int8_t)s->nframes;
    int want = sp->n - sp->next - 1;
    PSTAT(st_try);
    int n = claim(s, sp, want < MAX_THREADS ? want : MAX_THREADS, got);
    if (n == 0) return 0;
    PSTAT(st_split);
    mode_save(s, &sp->mode); /* before the helpers are told of sp */
    pthread_mutex_init(&sp->lock, NULL);
    atomic_init(&sp->helpers, n);
    int frame = s->nframes;
    s->sp = sp;
    s->nframes = frame + 1;
    for (int i = 0; i < n; ++i) assign(got[i], sp);
    sp->run(s, sp);
    wait_helpers(s, sp, frame);
    s->nframes = frame;
    s->sp = sp->parent;
    clear_flag(s, ABORT_CUT + frame); /* a helper's cut-off of sp */
    /* the last helper may still be releasing the lock: take it once */
    sp_lock(sp);
    sp_unlock(sp);
    pthread_mutex_destroy(&sp->lock);
    return 1;
}

int par_init(Search *s) {
    Par *par = calloc(1, sizeof *par);
    if (!par) return -1;
    par->nthreads = 1;
    par->running = 1;
    par->active = 1;
    atomic_init(&par->stop, 0);
    atomic_init(&par->nodes, 0);
    atomic_init(&par->idle, 0);
    par->thread[0] = s;
    s->par = par;
    s->id = 0;
    pthread_mutex_init(&s->mtx, NULL);
    pthread_cond_init(&s->cv, NULL);
    atomic_init(&s->state, ST_BUSY);
    atomic_init(&s->wait_sp, NULL);
    return 0;
}

void par_free(Search *s) {
    Par *par = s->par;
    if (!par) return;
    par_end(s);
    for (int i = 1; i < MAX_THREADS; ++i) {
        Search *t = par->thread[i];
        if (!t) continue;
        pthread_mutex_destroy(&t->mtx);
        pthread_cond_destroy(&t->cv);
        free(t);
    }
    pthread_mutex_destroy(&s->mtx);
    pthread_cond_destroy(&s->cv);
    free(par);
    s->par = NULL;
}

/* The cores this process may run on (at least 1). */
static int available_cores(void) {
#ifdef __linux__
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int n = CPU_COUNT(&set);
        return n > 0 ? n : 1;
    }
#endif
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

void par_begin(Search *s) {
    Par *par = s->par;
    atomic_store_explicit(&par->nodes, 0, RELAXED);
    atomic_store_explicit(&s->aborted, 0, RELAXED);
    s->flushed = 0;
    par->running = par->nthreads;
    if (par->running > 1 && !par->oversubscribe) {
        int cores = available_cores();
        if (par->running > cores) par->running = cores;
    }
    s->split_ok = par->running > 1;
    s->spawn_pending = par->running > 1;
    s->nframes = 0;
    s->sp = NULL;
}

void par_end(Search *s) {
    Par *par = s->par;
    for (int i = 1; i < par->active; ++i) {
        Search *t = par->thread[i];
        pthread_mutex_lock(&t->mtx);
        t->quit = 1;
        pthread_cond_signal(&t->cv);
        pthread_mutex_unlock(&t->mtx);
        pthread_join(par->tid[i], NULL);
    }
    par->active = 1;
    atomic_store_explicit(&par->idle, 0, RELAXED);
    s->spawn_pending = 0;
    flush_nodes(s);
#ifdef PARSTATS
    fprintf(stderr,
            "par: tries %llu splits %llu claimed %llu cuts %llu; helper sleeps %llu (%.3f s), "
            "master waits %llu (%.3f s), helpers' CPU %.3f s\n",
            st_try, st_split, st_claimed, st_cut, st_sleeps, st_sleep_ns * 1e-9, st_waits,
            st_wait_ns * 1e-9, st_helper_cpu_ns * 1e-9);
    st_helper_cpu_ns = 0;
    st_sleeps = st_sleep_ns = st_waits = st_wait_ns = st_try = st_split = st_claimed = st_cut = 0;
#endif
}
