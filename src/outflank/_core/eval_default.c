/*
 * eval_default.c - the "default" evaluator.
 *
 * A linear model whose weights depend on the game phase (number of empty
 * squares), over:
 *   - 46 pattern look-ups of 11 pattern types (the 3x3 corner block, the
 *     edge with its two X squares, the 2x5 corner block, the rows 2, 3 and 4,
 *     the diagonals of 8, 7, 6, 5 and 4 squares), each type's instances
 *     sharing one table of weights indexed by the squares' contents read as
 *     a base-3 number (a configuration and its image under the pattern's own
 *     symmetry share a weight);
 *   - numeric features (mover minus opponent): mobility, potential mobility,
 *     stable discs, discs, parity, corners, plus a constant.
 * The weights are fitted by scripts/train_eval.py, which writes them (at a
 * few anchor phases) to src/outflank/data/eval.bin; the package loads that
 * file at import (eval_default_load) and the weights are interpolated to
 * every phase here. Without them the evaluator falls back to hand weights
 * on the numeric features. Every feature is invariant under the 8 board
 * symmetries, so the score is too.
 *
 * A pattern type's squares are given as one mask in the a1 corner's
 * orientation, and instance k is that mask seen through symmetry k: it
 * reads the squares that symmetry k maps onto the mask, each standing for
 * the digit of the square it maps to. The instance's squares are gathered
 * straight from the board (with BMI2's pext where the processor has it)
 * and a per-instance table turns the gathered bits into base-3 digits in
 * the type's order.
 */
#include "eval_default.h"
#include "memory.h"

#include "eval.h"

#include <stdlib.h>
#include <string.h>

/* x86 with GCC or clang: the pext and AVX-512 paths are compiled (with
 * target attributes) and chosen at run time by what the processor has. */
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#include <immintrin.h>
#define HAVE_X86_DISPATCH 1
#endif

#define CORNERS 0x8100000000000081ULL

/* The pattern types' squares, in the a1 corner's orientation. */
static const u64 TYPE_MASK[EVAL_TYPES] = {
    0x0000000000070707ULL, /* corner 3x3: a1-c3 */
    0x00000000000042FFULL, /* edge a1-h1 with b2 and g2 */
    0x0000000000001F1FULL, /* corner 2x5: a1-e2 */
    0x000000000000FF00ULL, /* row 2 */
    0x0000000000FF0000ULL, /* row 3 */
    0x00000000FF000000ULL, /* row 4 */
    0x8040201008040201ULL, /* diagonal a1-h8 */
    0x0080402010080402ULL, /* diagonal b1-h7 */
    0x0000804020100804ULL, /* diagonal c1-h6 */
    0x0000008040201008ULL, /* diagonal d1-h5 */
    0x0000000080402010ULL, /* diagonal e1-h4 */
};

/* Instances: type and symmetry (bit 0 mirror columns, bit 1 mirror rows,
 * bit 2 transpose, applied in that order): per type, the symmetries whose
 * preimages of the type's squares are new (checked by build_patterns). */
static const unsigned char INST_TYPE[EVAL_PATTERNS] = {
    0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4,
    4, 5, 5, 5, 5, 6, 6, 7, 7, 7, 7, 8, 8, 8, 8, 9, 9, 9, 9, 10, 10, 10, 10};
static const unsigned char INST_SYM[EVAL_PATTERNS] = {
    0, 1, 2, 3, 0, 2, 4, 5, 0, 1, 2, 3, 4, 5, 6, 7, 0, 2, 4, 5, 0, 2, 4,
    5, 0, 2, 4, 5, 0, 1, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3};
/* Per type: offset of its raw table (3^squares entries) among the raw
 * weights, and offset of its canonical ids among the fitted ones. */
#define RAW_TOTAL 167265
static const int TYPE_RAW_OFF[EVAL_TYPES + 1] = {
    0, 19683, 78732, 137781, 144342, 150903, 157464, 164025, 166212, 166941, 167184, RAW_TOTAL};
static int type_canon_off[EVAL_TYPES];
static int canon_total;
/* Raw index -> canonical id (within the type), one table per type. */
static int *canon_of[EVAL_TYPES];
/* Per instance: the squares it reads on the board (ascending), and the
 * base-3 value of any subset of them, indexed by the subset gathered to the
 * low bits: bit j (the j-th lowest square) adds 3^d, d the digit of the
 * type's square it maps to. Instances that read their squares in the type's
 * order share the first table; the others share one table per order. */
static u64 inst_squares[EVAL_PATTERNS];
static const uint16_t *inst_digits[EVAL_PATTERNS];
static uint16_t digit_tables[EVAL_PATTERNS * 1024];
/* Per instance: the square read for each base-3 digit (digit d weighs 3^d). */
static uint8_t digit_square[EVAL_PATTERNS][10];
/* Loaded weights per number of empties 0..60, in raw order. */
static short *w_raw;                 /* [61][RAW_TOTAL] */
/* (+ 2: the AVX-512 gather reads 32 bits at the last weight) */
#define W_RAW_BYTES ((size_t)61 * RAW_TOTAL * sizeof(short) + 2)
static int w_num[61][EVAL_NUM + 1]; /* last: constant */
static int loaded;
static int initialised;
static int use_pext;
static int use_vbmi;

/* Mirror the columns (a <-> h) of every row. */
static inline u64 flip_h(u64 x) {
    x = ((x >> 1) & 0x5555555555555555ULL) | ((x & 0x5555555555555555ULL) << 1);
    x = ((x >> 2) & 0x3333333333333333ULL) | ((x & 0x3333333333333333ULL) << 2);
    x = ((x >> 4) & 0x0F0F0F0F0F0F0F0FULL) | ((x & 0x0F0F0F0F0F0F0F0FULL) << 4);
    return x;
}

static inline u64 flip_v(u64 x) { return __builtin_bswap64(x); }

/* Reflect in the a1-h8 diagonal: square (row, col) goes to (col, row). */
static inline u64 transpose(u64 x) {
    u64 t;
    t = 0x0F0F0F0F00000000ULL & (x ^ (x << 28));
    x ^= t ^ (t >> 28);
    t = 0x3333000033330000ULL & (x ^ (x << 14));
    x ^= t ^ (t >> 14);
    t = 0x5500550055005500ULL & (x ^ (x << 7));
    x ^= t ^ (t >> 7);
    return x;
}

static u64 symmetry(u64 x, int k) {
    if (k & 1) x = flip_h(x);
    if (k & 2) x = flip_v(x);
    if (k & 4) x = transpose(x);
    return x;
}

static int pow3(int k) {
    int v = 1;
    while (k-- > 0) v *= 3;
    return v;
}

/* Instances and canonical ids of every pattern type. */
static int build_patterns(void) {
    int n = 0;
    canon_total = 0;
    for (int t = 0; t < EVAL_TYPES; ++t) {
        u64 mask = TYPE_MASK[t];
        int size = bb_count(mask);
        /* Instances: symmetries whose preimage of the mask is new. Own
         * symmetries: those that keep the mask; perm[k][i] = digit that
         * digit i comes from. */
        u64 seen[8];
        int n_seen = 0, own[8], n_own = 0;
        for (int k = 0; k < 8; ++k) {
            u64 pre = 0; /* squares read by instance k: preimage of mask */
            for (int sq = 0; sq < 64; ++sq)
                if (symmetry(1ULL << sq, k) & mask) pre |= 1ULL << sq;
            int dup = 0;
            for (int j = 0; j < n_seen; ++j) dup |= seen[j] == pre;
            if (pre == mask) own[n_own++] = k;
            if (dup) continue;
            seen[n_seen++] = pre;
            if (n >= EVAL_PATTERNS || INST_TYPE[n] != t || INST_SYM[n] != k) return -1;
            inst_squares[n++] = pre;
        }
        int sqs[10], perm[8][10], i = 0;
        for (u64 m = mask; m; m &= m - 1) sqs[i++] = bb_first(m);
        for (int j = 0; j < n_own; ++j)
            for (int d = 0; d < size; ++d) {
                u64 image = symmetry(1ULL << sqs[d], own[j]);
                for (int e = 0; e < size; ++e)
                    if (image >> sqs[e] & 1) perm[j][d] = e;
            }
        int raw = pow3(size);
        if (TYPE_RAW_OFF[t + 1] - TYPE_RAW_OFF[t] != raw) return -1;
        canon_of[t] = malloc((size_t)raw * sizeof(int));
        if (!canon_of[t]) return -1;
        for (int r = 0; r < raw; ++r) canon_of[t][r] = -1;
        int next = 0;
        for (int r = 0; r < raw; ++r) {
            if (canon_of[t][r] >= 0) continue;
            for (int j = 0; j < n_own; ++j) {
                int image = 0;
                for (int d = 0; d < size; ++d) image += (r / pow3(d) % 3) * pow3(perm[j][d]);
                canon_of[t][image] = next;
            }
            canon_of[t][r] = next++;
        }
        type_canon_off[t] = canon_total;
        canon_total += next;
    }
    return n == EVAL_PATTERNS ? 0 : -1;
}

/* pext in software: the bits of x under mask, packed to the bottom. */
static inline unsigned pext_soft(u64 x, u64 mask) {
    unsigned r = 0;
    for (unsigned bit = 1; mask; mask &= mask - 1, bit <<= 1)
        if (x & mask & (0 - mask)) r |= bit;
    return r;
}

/* Which table turns instance i's gathered bits into base-3 digits (after
 * build_patterns, which finds the instances' squares). */
static int build_instance_reads(void) {
    int used = 1024; /* the first table: digits in ascending order */
    for (int b = 0; b < 1024; ++b) {
        int v = 0;
        for (int k = 0; k < 10; ++k)
            if (b >> k & 1) v += pow3(k);
        digit_tables[b] = (uint16_t)v;
    }
    int digit_of[EVAL_PATTERNS][10] = {{0}};
    for (int i = 0; i < EVAL_PATTERNS; ++i) {
        int t = INST_TYPE[i], k = INST_SYM[i];
        u64 mask = TYPE_MASK[t];
        int n = 0, in_order = 1;
        for (u64 m = inst_squares[i]; m; m &= m - 1, ++n) {
            u64 image = symmetry(1ULL << bb_first(m), k);
            digit_of[i][n] = bb_count(mask & (image - 1)); /* image's rank in the mask */
            digit_square[i][digit_of[i][n]] = (uint8_t)bb_first(m);
            in_order &= digit_of[i][n] == n;
        }
        if (in_order) {
            inst_digits[i] = digit_tables;
            continue;
        }
        inst_digits[i] = NULL;
        for (int j = 0; j < i && !inst_digits[i]; ++j)
            if (inst_digits[j] != digit_tables && INST_TYPE[j] == t &&
                memcmp(digit_of[j], digit_of[i], sizeof digit_of[i]) == 0)
                inst_digits[i] = inst_digits[j];
        if (inst_digits[i]) continue;
        if (used + (1 << n) > EVAL_PATTERNS * 1024) return -1;
        uint16_t *table = digit_tables + used;
        for (int b = 0; b < 1 << n; ++b) {
            int v = 0;
            for (int j = 0; j < n; ++j)
                if (b >> j & 1) v += pow3(digit_of[i][j]);
            table[b] = (uint16_t)v;
        }
        inst_digits[i] = table;
        used += 1 << n;
    }
    return 0;
}

/* raw[i]: instance i's index among the raw weights (its type's offset plus
 * the base-3 number of its squares: 0 empty, 1 mover, 2 opponent). */
#define RAW_INDICES(PEXT)                                                         \
    _Pragma("GCC unroll 46") for (int i = 0; i < EVAL_PATTERNS; ++i) {            \
        const uint16_t *digits = inst_digits[i];                                  \
        u64 m = inst_squares[i];                                                  \
        raw[i] = TYPE_RAW_OFF[INST_TYPE[i]] + digits[PEXT(P, m)];                 \
        raw[i] += 2 * digits[PEXT(O, m)];                                         \
    }

static void raw_indices_soft(u64 P, u64 O, int raw[EVAL_PATTERNS]) { RAW_INDICES(pext_soft) }

#ifdef HAVE_X86_DISPATCH
__attribute__((target("bmi2"))) static void raw_indices_bmi2(u64 P, u64 O,
                                                             int raw[EVAL_PATTERNS]) {
    RAW_INDICES(_pext_u64)
}
#endif

#ifdef HAVE_X86_DISPATCH
/* The pattern sum with AVX-512 (VBMI for byte permutes, BW for byte
 * arithmetic): the board as 64 bytes (0 empty, 1 mover, 2 opponent), each
 * instance's squares permuted into a 16-byte slot in digit order (four
 * instances per register), the slot's digits combined by multiply-adds
 * into its raw index, and the 46 weights gathered. The same sum as the
 * scalar loop, about 10 % less time per evaluation. */
#define VB_GROUPS ((EVAL_PATTERNS + 3) / 4)
static _Alignas(64) uint8_t vb_perm[VB_GROUPS][64];  /* board byte for each slot byte */
static __mmask64 vb_used[VB_GROUPS];                 /* slot bytes that are digits */
static _Alignas(64) int32_t vb_offset[VB_GROUPS][16]; /* type offsets, in each slot's first lane */

static void vbmi_init(void) {
    for (int g = 0; g < VB_GROUPS; ++g) {
        vb_used[g] = 0;
        for (int j = 0; j < 64; ++j) {
            int i = 4 * g + j / 16, d = j % 16;
            vb_perm[g][j] = 0;
            if (i < EVAL_PATTERNS && d < bb_count(TYPE_MASK[INST_TYPE[i]])) {
                vb_perm[g][j] = digit_square[i][d];
                vb_used[g] |= 1ULL << j;
            }
        }
        for (int j = 0; j < 16; ++j) {
            int i = 4 * g + j / 4;
            vb_offset[g][j] = j % 4 == 0 && i < EVAL_PATTERNS ? TYPE_RAW_OFF[INST_TYPE[i]] : 0;
        }
    }
}

__attribute__((target("avx512f,avx512bw,avx512vbmi"))) static int pattern_sum_vbmi(
    u64 P, u64 O, const short *w) {
    __m512i board = _mm512_or_si512(_mm512_maskz_mov_epi8(P, _mm512_set1_epi8(1)),
                                    _mm512_maskz_mov_epi8(O, _mm512_set1_epi8(2)));
    /* bytes d0 + 3 d1 -> words, words + 9 * next -> dwords of four digits,
     * then the four dwords of a slot times 1, 81, 6561 (0: unused) */
    const __m512i by3 = _mm512_set1_epi16(0x0301), by9 = _mm512_set1_epi32(0x00090001);
    const __m512i by81 = _mm512_set4_epi32(0, 6561, 81, 1);
    __m512i index[VB_GROUPS];
    for (int g = 0; g < VB_GROUPS; ++g) {
        __m512i x = _mm512_maskz_permutexvar_epi8(vb_used[g], _mm512_load_si512(vb_perm[g]), board);
        __m512i y = _mm512_madd_epi16(_mm512_maddubs_epi16(x, by3), by9);
        y = _mm512_add_epi32(_mm512_mullo_epi32(y, by81), _mm512_load_si512(vb_offset[g]));
        y = _mm512_add_epi32(y, _mm512_shuffle_epi32(y, _MM_PERM_BADC));
        index[g] = _mm512_add_epi32(y, _mm512_shuffle_epi32(y, _MM_PERM_CDAB)); /* in every lane of the slot */
    }
    /* one lane per slot, four registers into one, sixteen weights a gather */
    const __m512i first = _mm512_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28, 0, 4, 8, 12, 16, 20, 24, 28);
    __m512i sum = _mm512_setzero_si512();
    for (int g = 0; g < VB_GROUPS; g += 4) {
        __m512i ab = _mm512_permutex2var_epi32(index[g], first, index[g + 1]);
        __m512i cd = _mm512_permutex2var_epi32(index[g + 2], first, index[g + 3]);
        __m512i idx = _mm512_inserti64x4(ab, _mm512_castsi512_si256(cd), 1);
        int left = EVAL_PATTERNS - 4 * g;
        __mmask16 lanes = left >= 16 ? 0xFFFF : (__mmask16)((1u << left) - 1);
        /* 32 bits from each weight's address: its 16 bits, sign-extended */
        __m512i v = _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), lanes, idx, w, 2);
        sum = _mm512_add_epi32(sum, _mm512_srai_epi32(_mm512_slli_epi32(v, 16), 16));
    }
    return _mm512_reduce_add_epi32(sum);
}
#endif

static inline void raw_indices(u64 P, u64 O, int raw[EVAL_PATTERNS]) {
#ifdef HAVE_X86_DISPATCH
    if (use_pext) {
        raw_indices_bmi2(P, O, raw);
        return;
    }
#endif
    raw_indices_soft(P, O, raw);
}

#ifdef HAVE_X86_DISPATCH
/* True when the environment variable is set to anything but "" or "0". */
static int env_refuses(const char *variable) {
    const char *value = getenv(variable);
    return value && *value && *value != '0';
}
#endif

void eval_default_init(void) {
    if (initialised) return;
    if (build_patterns() != 0 || build_instance_reads() != 0)
        abort(); /* the tables above are wrong: a bug */
#ifdef HAVE_X86_DISPATCH
    __builtin_cpu_init();
    /* OUTFLANK_NO_BMI2=1 forces the portable path (to test it) */
    use_pext = __builtin_cpu_supports("bmi2") && !env_refuses("OUTFLANK_NO_BMI2");
    /* OUTFLANK_NO_VBMI=1 keeps the scalar pattern sum (to test it) */
    use_vbmi = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512vbmi") && !env_refuses("OUTFLANK_NO_VBMI");
    if (use_vbmi) vbmi_init();
#endif
    initialised = 1;
}

int eval_default_fitted(void) { return loaded; }

int eval_pattern_weights(void) { return canon_total; }

/* The weight file (see eval_default.h); little-endian fields. */
static int32_t read_i32(const unsigned char *p) {
    return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                     (uint32_t)p[3] << 24);
}

int eval_default_load(const void *data, size_t len) {
    static const char magic[8] = {'O', 'F', 'E', 'V', 'A', 'L', '2', 0};
    const unsigned char *p = data;
    if (len < 20 || memcmp(p, magic, 8) != 0) return -1;
    int n_anchors = read_i32(p + 8), n_pat = read_i32(p + 12), n_num = read_i32(p + 16);
    if (n_anchors < 1 || n_anchors > 61 || n_pat != canon_total || n_num != EVAL_NUM) return -1;
    size_t need = 20 + (size_t)n_anchors * 4 + (size_t)n_anchors * (size_t)n_pat * 2 +
                  (size_t)n_anchors * (EVAL_NUM + 1) * 4;
    if (len != need) return -1;
    int anchors[61];
    for (int a = 0; a < n_anchors; ++a) {
        anchors[a] = read_i32(p + 20 + 4 * a);
        if (anchors[a] < 0 || anchors[a] > 60 || (a && anchors[a] <= anchors[a - 1])) return -1;
    }
    const unsigned char *pat = p + 20 + 4 * n_anchors;
    const unsigned char *num = pat + (size_t)n_anchors * (size_t)n_pat * 2;
    short *w = mem_alloc_large(W_RAW_BYTES);
    if (!w) return -2;
    for (int e = 0; e <= 60; ++e) {
        /* linear interpolation between the anchors around e */
        int a = 0;
        while (a + 1 < n_anchors && anchors[a + 1] <= e) ++a;
        int b = a + 1 < n_anchors ? a + 1 : a;
        int span = anchors[b] - anchors[a], t = e - anchors[a];
        if (span <= 0 || t < 0) span = 1, t = 0;
        if (t > span) t = span;
        const unsigned char *pa = pat + (size_t)a * (size_t)n_pat * 2;
        const unsigned char *pb = pat + (size_t)b * (size_t)n_pat * 2;
        short *we = w + (size_t)e * RAW_TOTAL;
        for (int ty = 0; ty < EVAL_TYPES; ++ty)
            for (int r = 0; r < TYPE_RAW_OFF[ty + 1] - TYPE_RAW_OFF[ty]; ++r) {
                size_t c = (size_t)(type_canon_off[ty] + canon_of[ty][r]) * 2;
                int va = (int16_t)(pa[c] | pa[c + 1] << 8), vb = (int16_t)(pb[c] | pb[c + 1] << 8);
                we[TYPE_RAW_OFF[ty] + r] = (short)((va * (span - t) + vb * t) / span);
            }
        for (int i = 0; i <= EVAL_NUM; ++i) {
            int va = read_i32(num + ((size_t)a * (EVAL_NUM + 1) + i) * 4);
            int vb = read_i32(num + ((size_t)b * (EVAL_NUM + 1) + i) * 4);
            w_num[e][i] = (va * (span - t) + vb * t) / span;
        }
    }
    short *old = w_raw;
    w_raw = w;
    loaded = 1;
    mem_free_large(old, W_RAW_BYTES);
    return 0;
}

static void numeric_features(u64 P, u64 O, int num[EVAL_NUM]) {
    u64 empty = ~(P | O);
    num[0] = bb_count(bb_moves(P, O)) - bb_count(bb_moves(O, P));
    num[1] = bb_count(bb_neighbours(O) & empty) - bb_count(bb_neighbours(P) & empty);
    num[2] = bb_stable_diff(P, O);
    num[3] = bb_count(P) - bb_count(O);
    num[4] = (bb_count(empty) & 1) ? 1 : -1;
    num[5] = bb_count(P & CORNERS) - bb_count(O & CORNERS);
}

/* Hand weights: used until fitted weights exist. */
static int eval_hand(u64 P, u64 O, const int num[EVAL_NUM]) {
    static const int corner[4] = {0, 7, 56, 63};
    static const u64 xsq[4] = {1ULL << 9, 1ULL << 14, 1ULL << 49, 1ULL << 54};
    static const u64 csq[4] = {(1ULL << 1) | (1ULL << 8), (1ULL << 6) | (1ULL << 15),
                               (1ULL << 57) | (1ULL << 48), (1ULL << 62) | (1ULL << 55)};
    u64 empty = ~(P | O);
    int t = 60 - bb_count(empty);
    if (t < 0) t = 0;
    int x = 0, c = 0;
    for (int i = 0; i < 4; ++i) {
        if (empty >> corner[i] & 1) {
            x += ((P & xsq[i]) != 0) - ((O & xsq[i]) != 0);
            c += bb_count(P & csq[i]) - bb_count(O & csq[i]);
        }
    }
    int w_disc = t < 40 ? -8 : (t - 40) * 5 - 8;
    return (110 - t) * num[0] + (45 - t / 2) * num[1] + (80 + 2 * t) * num[2] +
           w_disc * num[3] + 40 * num[4] + (850 - 5 * t) * num[5] - (450 - 5 * t) * x -
           (120 - t) * c;
}

void eval_default_features(u64 P, u64 O, int pat[EVAL_PATTERNS], int num[EVAL_NUM]) {
    int raw[EVAL_PATTERNS];
    raw_indices(P, O, raw);
    for (int i = 0; i < EVAL_PATTERNS; ++i) {
        int t = INST_TYPE[i];
        pat[i] = type_canon_off[t] + canon_of[t][raw[i] - TYPE_RAW_OFF[t]];
    }
    numeric_features(P, O, num);
}

int eval_default_hand(u64 P, u64 O) {
    int num[EVAL_NUM];
    numeric_features(P, O, num);
    return eval_hand(P, O, num);
}

int eval_default(u64 P, u64 O) {
    int num[EVAL_NUM];
    numeric_features(P, O, num);
    if (!loaded) return eval_hand(P, O, num);
    int e = bb_count(~(P | O));
    if (e > 60) e = 60;
    const short *w = w_raw + (size_t)e * RAW_TOTAL;
    const int *wn = w_num[e];
    int s = wn[EVAL_NUM];
#ifdef HAVE_X86_DISPATCH
    if (use_vbmi) {
        s += pattern_sum_vbmi(P, O, w);
    } else
#endif
    {
        int raw[EVAL_PATTERNS];
        raw_indices(P, O, raw);
        for (int i = 0; i < EVAL_PATTERNS; ++i) s += w[raw[i]];
    }
    for (int i = 0; i < EVAL_NUM; ++i) s += wn[i] * num[i];
    return s;
}
