/*
 * tt.h - transposition table: buckets of two entries, the first kept for the
 * deepest result (depth-preferred), the second always replaced.
 */
#ifndef OUTFLANK_TT_H
#define OUTFLANK_TT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "bitboard.h"

#define TT_TAG_END 1   /* exact endgame entries (scores in discs) */
#define TT_TAG_ORDER 2 /* midgame entries of the default evaluator, searched to order an exact solve */

/* An entry as the search reads it: a copy taken by tt_probe. */
typedef struct {
    u64 P, O;
    int32_t lower, upper; /* bounds on the score */
    uint8_t depth;        /* remaining depth (empties for endgame entries) */
    uint8_t move;         /* best move square, 64 = pass, 255 = none */
    uint8_t tag;          /* TT_TAG_END, or the evaluator generation (>= 2) */
    uint8_t age;          /* search counter when written */
    uint8_t prec;         /* precision: TT_PREC_EXACT, or the selective pass that wrote it */
} TTEntry;

/* Bounds of a selective endgame pass (probable cut-offs) hold only for
 * passes of the same or a lower level; exact results hold for all. */
#define TT_PREC_EXACT 255

/* An entry as stored: four 64-bit words, each read and written whole
 * (relaxed atomics: plain moves on x86-64), by any number of threads at
 * once without a lock. The data words are the bounds and the rest
 * (depth, move, tag, age, precision); the key words are the position's
 * two bitboards, P XORed with the bounds and O with the rest and a
 * scrambled copy of the bounds (tt_mix). A reader checks that both give
 * the position back. Words from two different writes (one thread's store
 * half-way through another's) then fail the check, also when both writes
 * were of the same position: bounds from one write with the depth or
 * precision of another would pass a plain XOR of each pair, and could
 * pass off a selective pass's bound as exact. So a torn entry is a miss,
 * never a wrong bound ("lockless hashing"). One thread alone sees exactly
 * the table of before: the same entries, the same replacement, the same
 * tree. */
typedef struct {
    _Atomic uint64_t key_p, key_o, bounds, info;
} TTSlot;

/* Buckets (two 32-byte slots) are aligned to 64-byte cache lines. */
#define TT_BUCKET_ALIGN 64

_Static_assert(2 * sizeof(TTSlot) == TT_BUCKET_ALIGN, "a bucket fills one cache line");

typedef struct {
    TTSlot *entries;
    size_t mask; /* number of buckets - 1 */
    uint8_t age;
} TT;

/* Allocate about mib MiB (rounded down to a power of two, at least one
 * bucket); returns 0 on success, -1 when out of memory (table unchanged). */
int tt_init(TT *tt, size_t mib);
void tt_free(TT *tt);
void tt_clear(TT *tt);
/* Count a new search (entries written from now on carry its age); when the
 * 8-bit counter wraps, every entry is marked old so none looks fresh.
 * Only while no search runs. */
void tt_new_search(TT *tt);

static inline size_t tt_index(const TT *tt, u64 P, u64 O) {
    u64 h = P * 0x9E3779B97F4A7C15ULL ^ (O + 0x632BE59BD9B4E019ULL) * 0xC2B2AE3D27D4EB4FULL;
    h ^= h >> 31;
    return (size_t)(h & tt->mask) * 2;
}

/* Ask the processor to start loading the bucket of (P, O): probing it
 * later, after some other work, then finds it in the cache. */
static inline void tt_prefetch(const TT *tt, u64 P, u64 O) {
    __builtin_prefetch(tt->entries + tt_index(tt, P, O));
}

#define TT_LOAD(w) atomic_load_explicit(&(w), memory_order_relaxed)

static inline uint64_t tt_pack_bounds(int lower, int upper) {
    return (uint64_t)(uint32_t)lower | (uint64_t)(uint32_t)upper << 32;
}

/* A bijective scrambling of the bounds word for the second key word. */
static inline uint64_t tt_mix(uint64_t bounds) { return bounds * 0x9E3779B97F4A7C15ULL; }

static inline uint64_t tt_pack_info(const TTEntry *e) {
    return (uint64_t)e->depth | (uint64_t)e->move << 8 | (uint64_t)e->tag << 16 |
           (uint64_t)e->age << 24 | (uint64_t)e->prec << 32;
}

/* The slot's entry, whatever position it holds (a torn slot decodes to
 * some position that is not its own: it matches no probe). */
static inline void tt_decode(const TTSlot *slot, TTEntry *e) {
    uint64_t bounds = TT_LOAD(slot->bounds), info = TT_LOAD(slot->info);
    e->P = TT_LOAD(slot->key_p) ^ bounds;
    e->O = TT_LOAD(slot->key_o) ^ info ^ tt_mix(bounds);
    e->lower = (int32_t)(uint32_t)bounds;
    e->upper = (int32_t)(uint32_t)(bounds >> 32);
    e->depth = (uint8_t)info;
    e->move = (uint8_t)(info >> 8);
    e->tag = (uint8_t)(info >> 16);
    e->age = (uint8_t)(info >> 24);
    e->prec = (uint8_t)(info >> 32);
}

static inline int tt_slot_holds(const TTSlot *slot, u64 P, u64 O, int tag, TTEntry *out) {
    uint64_t bounds = TT_LOAD(slot->bounds);
    if ((TT_LOAD(slot->key_p) ^ bounds) != P) return 0;
    uint64_t info = TT_LOAD(slot->info);
    if ((TT_LOAD(slot->key_o) ^ info ^ tt_mix(bounds)) != O || (uint8_t)(info >> 16) != tag)
        return 0;
    out->P = P;
    out->O = O;
    out->lower = (int32_t)(uint32_t)bounds;
    out->upper = (int32_t)(uint32_t)(bounds >> 32);
    out->depth = (uint8_t)info;
    out->move = (uint8_t)(info >> 8);
    out->tag = (uint8_t)tag;
    out->age = (uint8_t)(info >> 24);
    out->prec = (uint8_t)(info >> 32);
    return 1;
}

/* The entry for (P, O, tag), copied into *buf, or NULL. */
static inline const TTEntry *tt_probe(const TT *tt, u64 P, u64 O, int tag, TTEntry *buf) {
    const TTSlot *b = tt->entries + tt_index(tt, P, O);
    if (tt_slot_holds(b, P, O, tag, buf) || tt_slot_holds(b + 1, P, O, tag, buf)) return buf;
    return NULL;
}

/* tt_probe that also gives the slot the entry was found in. */
static inline const TTEntry *tt_probe_slot(const TT *tt, u64 P, u64 O, int tag, TTEntry *buf,
                                           const TTSlot **slot) {
    const TTSlot *b = tt->entries + tt_index(tt, P, O);
    if (tt_slot_holds(b, P, O, tag, buf)) {
        *slot = b;
        return buf;
    }
    if (tt_slot_holds(b + 1, P, O, tag, buf)) {
        *slot = b + 1;
        return buf;
    }
    return NULL;
}

/* Record a result: score searched in window (alpha, beta) at depth, with
 * precision prec (a less precise result never overwrites a more precise
 * one of the same position). */
void tt_store_prec(TT *tt, u64 P, u64 O, int tag, int depth, int alpha, int beta, int score,
                   int move, int prec);

/* Record an exact (non-selective) result. */
static inline void tt_store(TT *tt, u64 P, u64 O, int tag, int depth, int alpha, int beta,
                            int score, int move) {
    tt_store_prec(tt, P, O, tag, depth, alpha, beta, score, move, TT_PREC_EXACT);
}

#endif
