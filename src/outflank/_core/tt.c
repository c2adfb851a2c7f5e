/* tt.c - transposition table storage and replacement. */
#include "tt.h"

#include "memory.h"

#define SCORE_INF 0x7FFFFFFF

static size_t tt_bytes(const TT *tt) { return (tt->mask + 1) * 2 * sizeof(TTSlot); }

int tt_init(TT *tt, size_t mib) {
    size_t bytes = mib << 20;
    size_t buckets = 1;
    while (buckets * 2 * 2 * sizeof(TTSlot) <= bytes) buckets *= 2;
    /* one bucket per cache line: a probe touches a single line */
    TTSlot *e = mem_alloc_large(buckets * 2 * sizeof(TTSlot));
    if (!e) return -1;
    tt_free(tt);
    tt->entries = e;
    tt->mask = buckets - 1;
    tt->age = 0;
    return 0;
}

void tt_free(TT *tt) {
    mem_free_large(tt->entries, tt_bytes(tt));
    tt->entries = NULL;
    tt->mask = 0;
}

void tt_clear(TT *tt) {
    mem_clear_large(tt->entries, tt_bytes(tt));
}

#define TT_STORE(w, v) atomic_store_explicit(&(w), (v), memory_order_relaxed)

/* Write the whole entry e into slot (its four words). */
static inline void put(TTSlot *slot, const TTEntry *e) {
    uint64_t bounds = tt_pack_bounds(e->lower, e->upper), info = tt_pack_info(e);
    TT_STORE(slot->key_p, e->P ^ bounds);
    TT_STORE(slot->key_o, e->O ^ info ^ tt_mix(bounds));
    TT_STORE(slot->bounds, bounds);
    TT_STORE(slot->info, info);
}

void tt_new_search(TT *tt) {
    if (++tt->age) return;
    /* Age 0 now stands for "before the last 255 searches"; entries are only
     * written where they differ, so untouched pages stay untouched. */
    size_t n = (tt->mask + 1) * 2;
    for (size_t i = 0; i < n; ++i) {
        TTSlot *slot = tt->entries + i;
        uint64_t info = TT_LOAD(slot->info);
        if (info & 0xFF000000ULL) {
            uint64_t old = info;
            info &= ~0xFF000000ULL;
            TT_STORE(slot->key_o, TT_LOAD(slot->key_o) ^ old ^ info);
            TT_STORE(slot->info, info);
        }
    }
    tt->age = 1;
}

static void fill(TTSlot *slot, u64 P, u64 O, int tag, int depth, int lower, int upper, int move,
                 uint8_t age, int prec) {
    TTEntry e = {P, O, lower, upper, (uint8_t)depth, (uint8_t)move, (uint8_t)tag, age,
                 (uint8_t)prec};
    put(slot, &e);
}

/* The replacement scheme reads both entries once (copies: another thread
 * may write the bucket meanwhile; then one of the two writes wins, each a
 * whole, valid entry) and writes whole entries. */
void tt_store_prec(TT *tt, u64 P, u64 O, int tag, int depth, int alpha, int beta, int score,
                   int move, int prec) {
    TTSlot *b = tt->entries + tt_index(tt, P, O);
    TTEntry old[2];
    tt_decode(b, &old[0]);
    tt_decode(b + 1, &old[1]);
    int lower = score > alpha ? score : -SCORE_INF;
    int upper = score < beta ? score : SCORE_INF;
    if (move < 0) move = 255;
    for (int i = 0; i < 2; ++i) {
        TTEntry *e = old + i;
        if (e->P == P && e->O == O && e->tag == tag) {
            if (prec < e->prec) return; /* keep the more precise result */
            if (prec > e->prec) {
                fill(b + i, P, O, tag, depth, lower, upper, move == 255 ? e->move : move, tt->age,
                     prec);
                return;
            }
            if (e->depth == depth && e->age == tt->age) { /* this search, same depth: tighten */
                if (lower > e->lower) e->lower = lower;
                if (upper < e->upper) e->upper = upper;
                if (e->lower > e->upper) { /* inconsistent (search instability) */
                    e->lower = lower;
                    e->upper = upper;
                }
                if (move != 255) e->move = (uint8_t)move;
                e->age = tt->age;
                put(b + i, e);
                return;
            }
            if (depth > e->depth || e->age != tt->age || i == 1) {
                if (move == 255) move = e->move;
                fill(b + i, P, O, tag, depth, lower, upper, move, tt->age, prec);
                return;
            }
            break; /* a deeper result is kept in the first slot */
        }
    }
    if (depth >= old[0].depth || old[0].age != tt->age) {
        if (old[0].tag) put(b + 1, &old[0]); /* the old deep entry moves to the second slot */
        fill(b, P, O, tag, depth, lower, upper, move, tt->age, prec);
    } else {
        fill(b + 1, P, O, tag, depth, lower, upper, move, tt->age, prec);
    }
}
