/*
 * tt.h - transposition table: buckets of two entries, the first kept for the
 * deepest result (depth-preferred), the second always replaced.
 */
#ifndef OUTFLANK_TT_H
#define OUTFLANK_TT_H

#include <stddef.h>

#include "bitboard.h"

#define TT_TAG_END 1   /* exact endgame entries (scores in discs) */
#define TT_TAG_ORDER 2 /* midgame entries of the default evaluator, searched to order an exact solve */

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

/* Buckets (two 32-byte entries) are aligned to 64-byte cache lines. */
#define TT_BUCKET_ALIGN 64

_Static_assert(2 * sizeof(TTEntry) == TT_BUCKET_ALIGN, "a bucket fills one cache line");

typedef struct {
    TTEntry *entries;
    size_t mask; /* number of buckets - 1 */
    uint8_t age;
} TT;

/* Allocate about mib MiB (rounded down to a power of two, at least one
 * bucket); returns 0 on success, -1 when out of memory (table unchanged). */
int tt_init(TT *tt, size_t mib);
void tt_free(TT *tt);
void tt_clear(TT *tt);
/* Count a new search (entries written from now on carry its age); when the
 * 8-bit counter wraps, every entry is marked old so none looks fresh. */
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

/* The entry for (P, O, tag) or NULL. */
static inline const TTEntry *tt_probe(const TT *tt, u64 P, u64 O, int tag) {
    const TTEntry *b = tt->entries + tt_index(tt, P, O);
    if (b[0].P == P && b[0].O == O && b[0].tag == tag) return b;
    if (b[1].P == P && b[1].O == O && b[1].tag == tag) return b + 1;
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
