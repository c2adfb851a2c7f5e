/*
 * stability.c - stable discs: those no sequence of moves can flip again
 * (full lines, edges, and chains of stable neighbours). The evaluators and
 * the endgame solver's stability cut-off use them.
 */
#include "stability.h"

#define BORDER 0xFF818181818181FFULL
#define EDGE_A 0x0101010101010101ULL
#define EDGE_H 0x8080808080808080ULL
#define EDGE_1 0x00000000000000FFULL
#define EDGE_8 0xFF00000000000000ULL

/* The squares of the full rows: a row is full when its byte is 0xFF. */
static inline u64 full_rows(u64 filled) {
    u64 r = filled & (filled >> 1) & (filled >> 2) & (filled >> 3);
    r &= r >> 4;
    r &= 0x0101010101010101ULL; /* bit at column a when the row is full */
    return r * 0xFF;
}

/* The squares of the full columns. */
static inline u64 full_columns(u64 filled) {
    u64 c = filled & (filled >> 8);
    c &= c >> 16;
    c &= c >> 32;
    return (c & 0xFF) * 0x0101010101010101ULL;
}

/* Full lines in each direction, by propagating empty squares along them. */
u64 bb_full_lines(u64 filled, u64 *h, u64 *v, u64 *d, u64 *a) {
    u64 e = ~filled;
    *h = full_rows(filled);
    *v = full_columns(filled);
    /* diagonals (a1-h8 direction: shift 9), spreading 1, 2 then 4 squares
     * (the masks drop what wrapped around the board's side) */
    u64 x = e;
    x |= ((x << 9) & NOT_A_FILE) | ((x >> 9) & NOT_H_FILE);
    x |= ((x << 18) & 0xFCFCFCFCFCFCFCFCULL) | ((x >> 18) & 0x3F3F3F3F3F3F3F3FULL);
    x |= ((x << 36) & 0xF0F0F0F0F0F0F0F0ULL) | ((x >> 36) & 0x0F0F0F0F0F0F0F0FULL);
    *d = ~x;
    /* anti-diagonals (h1-a8 direction: shift 7) */
    x = e;
    x |= ((x << 7) & NOT_H_FILE) | ((x >> 7) & NOT_A_FILE);
    x |= ((x << 14) & 0x3F3F3F3F3F3F3F3FULL) | ((x >> 14) & 0xFCFCFCFCFCFCFCFCULL);
    x |= ((x << 28) & 0x0F0F0F0F0F0F0F0FULL) | ((x >> 28) & 0xF0F0F0F0F0F0F0F0ULL);
    *a = ~x;
    return *h & *v & *d & *a;
}

ClosedLines bb_closed_lines(u64 filled) {
    ClosedLines c;
    bb_full_lines(filled, &c.h, &c.v, &c.d, &c.a);
    c.h |= EDGE_A | EDGE_H;
    c.v |= EDGE_1 | EDGE_8;
    c.d |= BORDER;
    c.a |= BORDER;
    return c;
}

/* A direction is closed for a disc if its line is full, the disc lies on
 * the border across that direction, or a stable disc of the same colour is
 * its neighbour in that direction (either side). One step adds to the
 * stable discs s those of P closed in all four directions; the steps are
 * iterated to a fixed point. */
static inline u64 stable_step(u64 P, const ClosedLines *c, u64 s) {
    u64 sh = c->h | ((s << 1) & NOT_A_FILE) | ((s >> 1) & NOT_H_FILE);
    u64 sv = c->v | (s << 8) | (s >> 8);
    u64 sd = c->d | ((s << 9) & NOT_A_FILE) | ((s >> 9) & NOT_H_FILE);
    u64 sa = c->a | ((s << 7) & NOT_H_FILE) | ((s >> 7) & NOT_A_FILE);
    return s | (P & sh & sv & sd & sa);
}

static inline u64 stable_fixed_point(u64 P, const ClosedLines *c, u64 s) {
    s |= P & c->h & c->v & c->d & c->a;
    if (!s) return 0;
    u64 prev;
    do {
        prev = s;
        s = stable_step(P, c, s);
    } while (s != prev);
    return s;
}

int bb_stable_diff(u64 P, u64 O) {
    u64 filled = P | O;
    /* Without a corner no disc on the border is closed across its
     * border's direction (that line holds two corners), so a first stable
     * disc needs its row and its column full: rule that out cheaply (most
     * midgame positions). */
    if (!(filled & CORNERS) && !(full_rows(filled) & full_columns(filled))) return 0;
    ClosedLines c = bb_closed_lines(filled);
    u64 closed = c.h & c.v & c.d & c.a;
    u64 sp = P & closed, so = O & closed;
    if (!(sp | so)) return 0;
    /* both colours in one loop: their steps are independent, so they
     * overlap, and the loop ends (a mispredicted branch) once, not twice */
    for (;;) {
        u64 np = stable_step(P, &c, sp), no = stable_step(O, &c, so);
        if (np == sp && no == so) break;
        sp = np;
        so = no;
    }
    return bb_count(sp) - bb_count(so);
}

u64 bb_stable_strong(u64 P, u64 O) {
    ClosedLines c = bb_closed_lines(P | O);
    return stable_fixed_point(P, &c, bb_stable_edges(P, O));
}

u64 bb_stable(u64 P, u64 O) {
    ClosedLines c = bb_closed_lines(P | O);
    return stable_fixed_point(P, &c, 0);
}

/* EDGE_STABLE[p][o]: the bits of p (the mover's discs on an 8-square line,
 * o the opponent's) that stay the mover's whatever is played on the line;
 * COLUMN_OF[b]: byte b spread down column a (bit i to row i). */
static uint8_t EDGE_STABLE[256][256];
static u64 COLUMN_OF[256];

/* Own discs flipped on a line when `own` plays on x (bit) of it. */
static unsigned line_flips(unsigned own, unsigned other, int x) {
    unsigned flips = 0, run = 0;
    int i;
    for (i = x + 1; i < 8 && (other >> i & 1); ++i) run |= 1u << i;
    if (i < 8 && (own >> i & 1)) flips |= run;
    run = 0;
    for (i = x - 1; i >= 0 && (other >> i & 1); --i) run |= 1u << i;
    if (i >= 0 && (own >> i & 1)) flips |= run;
    return flips;
}

/* Every empty square of the line may be filled by either colour (a move
 * on the edge can be legal through another direction and flip nothing
 * here), flipping what it brackets on the line. A disc is stable when it
 * is the mover's in every position that can follow. */
static unsigned edge_stable(unsigned p, unsigned o, uint8_t *done) {
    unsigned idx = p << 8 | o;
    if (done[idx]) return EDGE_STABLE[p][o];
    unsigned stable = p;
    for (int x = 0; x < 8 && stable; ++x) {
        unsigned bit = 1u << x;
        if ((p | o) & bit) continue;
        unsigned f = line_flips(p, o, x); /* the mover plays x */
        stable &= edge_stable(p | f | bit, o & ~f, done);
        f = line_flips(o, p, x); /* the opponent plays x */
        stable &= edge_stable(p & ~f, o | f | bit, done);
    }
    EDGE_STABLE[p][o] = (uint8_t)stable;
    done[idx] = 1;
    return stable;
}

void bb_edge_table_init(void) {
    static uint8_t done[1 << 16];
    for (unsigned p = 0; p < 256; ++p)
        for (unsigned o = 0; o < 256; ++o)
            if (!(p & o)) edge_stable(p, o, done);
    for (unsigned b = 0; b < 256; ++b) {
        u64 c = 0;
        for (int i = 0; i < 8; ++i)
            if (b >> i & 1) c |= 1ULL << (8 * i);
        COLUMN_OF[b] = c;
    }
}

u64 bb_stable_edges(u64 P, u64 O) {
    u64 s = (u64)EDGE_STABLE[P & 0xFF][O & 0xFF];
    s |= (u64)EDGE_STABLE[P >> 56][O >> 56] << 56;
    s |= COLUMN_OF[EDGE_STABLE[bb_column_byte(P, 0)][bb_column_byte(O, 0)]];
    s |= COLUMN_OF[EDGE_STABLE[bb_column_byte(P, 7)][bb_column_byte(O, 7)]] << 7;
    return s;
}
