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

#ifdef __AVX2__ /* the AVX2 and AVX-512 builds of the core (setup.py) */
#include <immintrin.h>
#endif
/* The AVX-512 build: 256-bit registers with AVX-512's mask registers and
 * per-lane leading-zero counts (AVX512VL, AVX512CD); 512-bit registers of
 * eight positions, with per-lane popcounts (AVX512VPOPCNTDQ). */
#if defined(__AVX512VL__) && defined(__AVX512CD__) && defined(__AVX512VPOPCNTDQ__)
#define BB_AVX512 1
#endif

typedef uint64_t u64;

#define NOT_A_FILE 0xFEFEFEFEFEFEFEFEULL /* every column but a */
#define NOT_H_FILE 0x7F7F7F7F7F7F7F7FULL /* every column but h */
#define INNER_COLS 0x7E7E7E7E7E7E7E7EULL /* columns b..g */
#define CORNERS 0x8100000000000081ULL    /* a1, h1, a8, h8 */

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

#ifdef __AVX2__
/* The four directions as the four 64-bit lanes of a vector: shifts 1
 * (rows), 8 (columns), 7 and 9 (diagonals), lane 0 first. */
#define BB_SHIFTS _mm256_set_epi64x(9, 7, 8, 1)
#define BB_SHIFTS2 _mm256_set_epi64x(18, 14, 16, 2)

/* O, without the columns a and h where a direction would wrap around. */
static inline __m256i bb_lanes_opponent(u64 O) {
    return _mm256_and_si256(_mm256_set1_epi64x((long long)O),
                            _mm256_set_epi64x((long long)INNER_COLS, (long long)INNER_COLS, -1LL,
                                              (long long)INNER_COLS));
}

/* Per lane (direction), the squares of o reached from the squares of seed
 * in unbroken steps along the direction, towards higher bits (*up) and
 * towards lower bits (*down): runs of up to 6, grown by 1, 1, 2 then 2
 * squares (the scalar bb_moves_dir, both ways at once). */
static inline void bb_lanes_runs(__m256i seed, __m256i o, __m256i *up, __m256i *down) {
    const __m256i s1 = BB_SHIFTS, s2 = BB_SHIFTS2;
    __m256i u = _mm256_and_si256(o, _mm256_sllv_epi64(seed, s1));
    __m256i d = _mm256_and_si256(o, _mm256_srlv_epi64(seed, s1));
    u = _mm256_or_si256(u, _mm256_and_si256(o, _mm256_sllv_epi64(u, s1)));
    d = _mm256_or_si256(d, _mm256_and_si256(o, _mm256_srlv_epi64(d, s1)));
    const __m256i o_up = _mm256_and_si256(o, _mm256_sllv_epi64(o, s1));
    const __m256i o_down = _mm256_and_si256(o, _mm256_srlv_epi64(o, s1));
    u = _mm256_or_si256(u, _mm256_and_si256(o_up, _mm256_sllv_epi64(u, s2)));
    d = _mm256_or_si256(d, _mm256_and_si256(o_down, _mm256_srlv_epi64(d, s2)));
    *up = _mm256_or_si256(u, _mm256_and_si256(o_up, _mm256_sllv_epi64(u, s2)));
    *down = _mm256_or_si256(d, _mm256_and_si256(o_down, _mm256_srlv_epi64(d, s2)));
}

/* OR of the four lanes. */
static inline u64 bb_lanes_or(__m256i x) {
    __m128i h = _mm_or_si128(_mm256_castsi256_si128(x), _mm256_extracti128_si256(x, 1));
    return (u64)(_mm_cvtsi128_si64(h) | _mm_extract_epi64(h, 1));
}
#endif

/* Every empty square where the mover (P) may play. */
static inline u64 bb_moves(u64 P, u64 O) {
#ifdef __AVX2__
    /* the square beyond each run of opponent discs next to the mover's */
    const __m256i s1 = BB_SHIFTS;
    __m256i up, down;
    bb_lanes_runs(_mm256_set1_epi64x((long long)P), bb_lanes_opponent(O), &up, &down);
    __m256i m = _mm256_or_si256(_mm256_sllv_epi64(up, s1), _mm256_srlv_epi64(down, s1));
    return bb_lanes_or(m) & ~(P | O);
#else
    u64 inner = O & INNER_COLS;
    u64 m = bb_moves_dir(P, inner, 1) | bb_moves_dir(P, O, 8) |
            bb_moves_dir(P, inner, 7) | bb_moves_dir(P, inner, 9);
    return m & ~(P | O);
#endif
}

#ifdef BB_AVX512
/* Eight positions at once, one per 64-bit lane of a 512-bit register
 * (P[k], O[k] in lane k): the fills of bb_moves_dir and bb_neighbours with
 * the same shifts in every lane. */
static inline __m512i bb_moves_dir_x8(__m512i P, __m512i mask, int dir) {
    __m512i fl = _mm512_and_si512(mask, _mm512_slli_epi64(P, (unsigned)dir));
    __m512i fr = _mm512_and_si512(mask, _mm512_srli_epi64(P, (unsigned)dir));
    fl = _mm512_or_si512(fl, _mm512_and_si512(mask, _mm512_slli_epi64(fl, (unsigned)dir)));
    fr = _mm512_or_si512(fr, _mm512_and_si512(mask, _mm512_srli_epi64(fr, (unsigned)dir)));
    __m512i ml = _mm512_and_si512(mask, _mm512_slli_epi64(mask, (unsigned)dir));
    __m512i mr = _mm512_and_si512(mask, _mm512_srli_epi64(mask, (unsigned)dir));
    fl = _mm512_or_si512(fl, _mm512_and_si512(ml, _mm512_slli_epi64(fl, 2 * (unsigned)dir)));
    fr = _mm512_or_si512(fr, _mm512_and_si512(mr, _mm512_srli_epi64(fr, 2 * (unsigned)dir)));
    fl = _mm512_or_si512(fl, _mm512_and_si512(ml, _mm512_slli_epi64(fl, 2 * (unsigned)dir)));
    fr = _mm512_or_si512(fr, _mm512_and_si512(mr, _mm512_srli_epi64(fr, 2 * (unsigned)dir)));
    return _mm512_or_si512(_mm512_slli_epi64(fl, (unsigned)dir), _mm512_srli_epi64(fr, (unsigned)dir));
}

/* bb_moves of each lane. */
static inline __m512i bb_moves_x8(__m512i P, __m512i O) {
    __m512i inner = _mm512_and_si512(O, _mm512_set1_epi64((long long)INNER_COLS));
    __m512i m = _mm512_or_si512(
        _mm512_or_si512(bb_moves_dir_x8(P, inner, 1), bb_moves_dir_x8(P, O, 8)),
        _mm512_or_si512(bb_moves_dir_x8(P, inner, 7), bb_moves_dir_x8(P, inner, 9)));
    return _mm512_andnot_si512(_mm512_or_si512(P, O), m);
}

/* bb_neighbours of each lane. */
static inline __m512i bb_neighbours_x8(__m512i b) {
    const __m512i not_a = _mm512_set1_epi64((long long)NOT_A_FILE);
    const __m512i not_h = _mm512_set1_epi64((long long)NOT_H_FILE);
    __m512i h = _mm512_or_si512(_mm512_and_si512(_mm512_slli_epi64(b, 1), not_a),
                                _mm512_and_si512(_mm512_srli_epi64(b, 1), not_h));
    __m512i row = _mm512_or_si512(b, h);
    return _mm512_or_si512(h, _mm512_or_si512(_mm512_slli_epi64(row, 8), _mm512_srli_epi64(row, 8)));
}
#endif

/* Line masks: for each square and each of the 8 directions, the squares
 * strictly beyond it in that direction. Directions 0..3 go to higher bits,
 * 4..7 to lower bits; each square's row is 64-byte aligned (vector loads).
 * Filled once by bb_init(). */
extern u64 bb_lines[64][8];

void bb_init(void);

/* Discs flipped when the mover (P) plays on square sq (0 if illegal). */
static inline u64 bb_flips(u64 P, u64 O, int sq) {
#if defined(BB_AVX512)
    /* Per direction, the first square beyond sq that is not the
     * opponent's: towards higher bits the line's lowest such bit, towards
     * lower bits its highest (from the leading-zero count). The discs
     * between sq and that square flip when it holds a disc of the mover.
     * Short independent chains: twice the throughput of the fill below. */
    const __m256i up_line = _mm256_load_si256((const __m256i *)&bb_lines[sq][0]);
    const __m256i down_line = _mm256_load_si256((const __m256i *)&bb_lines[sq][4]);
    const __m256i o = _mm256_set1_epi64x((long long)O), p = _mm256_set1_epi64x((long long)P);
    const __m256i zero = _mm256_setzero_si256();
    __m256i beyond = _mm256_andnot_si256(o, up_line);
    __m256i first = _mm256_and_si256(beyond, _mm256_sub_epi64(zero, beyond));
    __m256i up = _mm256_maskz_and_epi64(_mm256_test_epi64_mask(first, p),
                                        _mm256_add_epi64(first, _mm256_set1_epi64x(-1)), up_line);
    beyond = _mm256_andnot_si256(o, down_line);
    first = _mm256_srlv_epi64(_mm256_set1_epi64x((long long)0x8000000000000000ULL),
                              _mm256_lzcnt_epi64(beyond)); /* 0 when there is none */
    __m256i down = _mm256_maskz_and_epi64(_mm256_test_epi64_mask(first, p),
                                          _mm256_sub_epi64(zero, _mm256_add_epi64(first, first)),
                                          down_line);
    return bb_lanes_or(_mm256_or_si256(up, down));
#elif defined(__AVX2__)
    /* each run of opponent discs next to sq flips when the square beyond
     * it holds a disc of the mover */
    const __m256i s1 = BB_SHIFTS, p = _mm256_set1_epi64x((long long)P);
    __m256i up, down;
    bb_lanes_runs(_mm256_set1_epi64x((long long)(1ULL << sq)), bb_lanes_opponent(O), &up, &down);
    const __m256i zero = _mm256_setzero_si256();
    __m256i end_up = _mm256_and_si256(p, _mm256_sllv_epi64(up, s1));
    __m256i end_down = _mm256_and_si256(p, _mm256_srlv_epi64(down, s1));
    up = _mm256_andnot_si256(_mm256_cmpeq_epi64(end_up, zero), up);
    down = _mm256_andnot_si256(_mm256_cmpeq_epi64(end_down, zero), down);
    return bb_lanes_or(_mm256_or_si256(up, down));
#else
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
#endif
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
