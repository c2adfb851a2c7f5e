/*
 * bitboard.h - Othello rules on 64-bit bitboards.
 *
 * Square i = row * 8 + col, with a1 = 0 (top left) and h8 = 63. Column a is
 * bit 0 of each byte. A position is seen from the side to move: P holds the
 * mover's discs, O the opponent's.
 */
#ifndef OUTFLANK_BITBOARD_H
#define OUTFLANK_BITBOARD_H

#include <stdint.h>

typedef uint64_t u64;

#define NOT_A_FILE 0xFEFEFEFEFEFEFEFEULL /* every column but a */
#define NOT_H_FILE 0x7F7F7F7F7F7F7F7FULL /* every column but h */
#define INNER_COLS 0x7E7E7E7E7E7E7E7EULL /* columns b..g */

static inline int bb_count(u64 b) { return __builtin_popcountll(b); }

static inline int bb_first(u64 b) { return __builtin_ctzll(b); }

/* Squares of the opponent's discs reachable along one direction pair. */
static inline u64 bb_moves_dir(u64 P, u64 mask, int dir) {
    int dir2 = dir + dir;
    u64 fl = mask & (P << dir);
    u64 fr = mask & (P >> dir);
    fl |= mask & (fl << dir);
    fr |= mask & (fr >> dir);
    u64 ml = mask & (mask << dir);
    u64 mr = mask & (mask >> dir);
    fl |= ml & (fl << dir2);
    fr |= mr & (fr >> dir2);
    fl |= ml & (fl << dir2);
    fr |= mr & (fr >> dir2);
    return (fl << dir) | (fr >> dir);
}

/* Every empty square where the mover (P) may play. */
static inline u64 bb_moves(u64 P, u64 O) {
    u64 inner = O & INNER_COLS;
    u64 m = bb_moves_dir(P, inner, 1) | bb_moves_dir(P, O, 8) |
            bb_moves_dir(P, inner, 7) | bb_moves_dir(P, inner, 9);
    return m & ~(P | O);
}

/* Line masks: for each square and each of the 8 directions, the squares
 * strictly beyond it in that direction. Directions 0..3 go to higher bits,
 * 4..7 to lower bits. Filled once by bb_init(). */
extern u64 bb_lines[64][8];

void bb_init(void);

/* Discs flipped when the mover (P) plays on square sq (0 if illegal). */
static inline u64 bb_flips(u64 P, u64 O, int sq) {
    u64 flips = 0;
    const u64 *line = bb_lines[sq];
    for (int d = 0; d < 4; ++d) { /* towards higher bits: first blocker is lowest */
        u64 blockers = ~O & line[d];
        u64 first = blockers & (0 - blockers);
        if (first & P) flips |= (first - 1) & line[d];
    }
    for (int d = 4; d < 8; ++d) { /* towards lower bits: first blocker is highest */
        u64 blockers = ~O & line[d];
        if (blockers) {
            int h = 63 - __builtin_clzll(blockers);
            if ((P >> h) & 1) flips |= line[d] & ~((2ULL << h) - 1);
        }
    }
    return flips;
}

/* Column col of b as a byte, row i in bit i (the column's bits collapsed
 * into the top byte by one multiplication). */
static inline unsigned bb_column_byte(u64 b, int col) {
    return (unsigned)((((b >> col) & 0x0101010101010101ULL) * 0x0102040810204080ULL) >> 56);
}

/* Potential mobility helper: empty squares next to a disc of b. */
static inline u64 bb_neighbours(u64 b) {
    u64 h = ((b << 1) & NOT_A_FILE) | ((b >> 1) & NOT_H_FILE);
    u64 v = (b << 8) | (b >> 8);
    u64 d = ((b << 9) & NOT_A_FILE) | ((b << 7) & NOT_H_FILE) |
            ((b >> 7) & NOT_A_FILE) | ((b >> 9) & NOT_H_FILE);
    return h | v | d;
}

/* Leaves of the game tree at a depth from (P, O). A pass is one move when the
 * mover has none and the game is not over; a game that ends before the depth
 * counts as one leaf when count_finished is non-zero, zero otherwise. */
uint64_t bb_perft(u64 P, u64 O, int depth, int count_finished);

#endif
