/*
 * eval_default.c - the "default" evaluator.
 *
 * A linear model whose weights depend on the game phase (number of empty
 * squares), over:
 *   - pattern look-ups: each pattern type is a set of squares (at most 10),
 *     read on the board through every symmetry that gives a new set (its
 *     instances); the instances of a type share one table of weights
 *     indexed by the squares' contents read as a base-3 number, and a
 *     configuration and its image under the type's own symmetries share a
 *     weight. The shipped model's types come with its weight file
 *     (docs/evaluation.md lists them);
 *   - numeric features (mover minus opponent): mobility, potential mobility,
 *     stable discs, discs, parity, corners, plus a constant;
 *   - optionally (a model "with tables"), count tables: a weight per value
 *     of each side's legal moves and potential mobility.
 * The weights are fitted by scripts/train_eval.py, which writes them (at a
 * few anchor phases) to src/outflank/data/eval.bin.gz; the package loads
 * that file at import (eval_default_load) and the weights are interpolated
 * to every phase here. Without them the evaluator falls back to hand
 * weights on the numeric features. Every feature is invariant under the 8
 * board symmetries, so the score is too.
 *
 * A pattern type's squares are given as one mask in the a1 corner's
 * orientation, and an instance is that mask seen through a symmetry k: it
 * reads the squares that symmetry k maps onto the mask, each standing for
 * the digit of the square it maps to. The instance's squares are gathered
 * straight from the board (with BMI2's pext where the processor has it)
 * and a per-instance table turns the gathered bits into base-3 digits in
 * the type's order.
 */
#include "eval_default.h"
#include "memory.h"

#include "stability.h"

#include <stdlib.h>
#include <string.h>

/* x86 with GCC or clang: the pext and AVX-512 paths are compiled (with
 * target attributes) and chosen at run time by what the processor has. */
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#include <immintrin.h>
#define HAVE_X86_DISPATCH 1
#endif

const u64 EVAL_LEGACY_MASKS[EVAL_LEGACY_TYPES] = {
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

#define VB_MAX_GROUPS (EVAL_MAX_PATTERNS / 4)

struct EvalModel {
    int n_types, n_inst, raw_total, canon_total;
    int tables; /* count tables (EVAL_TABLE_WEIGHTS weights after the patterns') */
    u64 type_mask[EVAL_MAX_TYPES];
    int type_raw_off[EVAL_MAX_TYPES + 1]; /* offset of a type's raw table (3^squares) */
    int type_canon_off[EVAL_MAX_TYPES];   /* offset of its canonical ids */
    int *canon_of[EVAL_MAX_TYPES];        /* raw index -> canonical id within the type */
    /* Per instance: its type, the squares it reads on the board, its raw
     * table's offset, and the base-3 value of any subset of its squares,
     * indexed by the subset gathered to the low bits (bit j, the j-th lowest
     * square, adds 3^d, d the digit of the type's square it maps to).
     * Instances that read their squares in the type's order share the first
     * table; the others share one table per order. */
    uint8_t inst_type[EVAL_MAX_PATTERNS];
    u64 inst_squares[EVAL_MAX_PATTERNS];
    int inst_raw_off[EVAL_MAX_PATTERNS];
    const uint16_t *inst_digits[EVAL_MAX_PATTERNS];
    uint16_t *digit_tables;
    /* Per instance: the square read for each base-3 digit (digit d: 3^d). */
    uint8_t digit_square[EVAL_MAX_PATTERNS][EVAL_MAX_SQUARES];
    uint8_t inst_size[EVAL_MAX_PATTERNS];
#ifdef HAVE_X86_DISPATCH
    /* The AVX-512 path (pattern_sum_vbmi): per group of four instances */
    int vb_groups; /* a multiple of 4 (unused groups read nothing) */
    _Alignas(64) uint8_t vb_perm[VB_MAX_GROUPS][64]; /* board byte for each slot byte */
    __mmask64 vb_used[VB_MAX_GROUPS];                /* slot bytes that are digits */
    __mmask16 vb_lanes[VB_MAX_GROUPS / 4];           /* the instances of a gather */
    _Alignas(64) int32_t vb_offset[VB_MAX_GROUPS][16]; /* raw offsets, in each slot's first lane */
#endif
    /* Per square, 3^digit in the lane of each instance that reads it
     * (eval_features_play); NULL for a model of more than EVAL_FEATURES
     * instances */
    uint16_t (*square_powers)[EVAL_FEATURES];
    /* Weights per number of empties 0..60, in raw order (NULL: none yet) */
    short *w_raw; /* [61][raw_total] */
    size_t w_bytes;
    int w_num[61][EVAL_NUM + 1]; /* last: constant */
    int w_tab[61][EVAL_TABLE_WEIGHTS];
};

/* Where each count table starts among the table weights. */
enum {
    TAB_MOB_P = 0,
    TAB_MOB_O = EVAL_MOB_SIZE,
    TAB_PMOB_P = 2 * EVAL_MOB_SIZE,
    TAB_PMOB_O = 2 * EVAL_MOB_SIZE + EVAL_PMOB_SIZE,
};

/* The counts the numeric features and the count tables are made of. */
typedef struct {
    int mob_p, mob_o, pmob_p, pmob_o;
} Counts;

static inline int cap(int v, int size) { return v < size ? v : size - 1; }

/* The count tables' entries of a position (each side's moves and potential
 * mobility, capped at the tables' sizes). */
static inline void table_entries(const Counts *c, int at[EVAL_TABLE_LOOKUPS]) {
    at[0] = TAB_MOB_P + cap(c->mob_p, EVAL_MOB_SIZE);
    at[1] = TAB_MOB_O + cap(c->mob_o, EVAL_MOB_SIZE);
    at[2] = TAB_PMOB_P + cap(c->pmob_p, EVAL_PMOB_SIZE);
    at[3] = TAB_PMOB_O + cap(c->pmob_o, EVAL_PMOB_SIZE);
}

static EvalModel *slots[EVAL_SLOTS];
static EvalModel *active;
static int active_slot;
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

/* Instances and canonical ids of every pattern type; -1 when too many. */
static int build_patterns(EvalModel *m) {
    int n = 0, raw_total = 0;
    m->canon_total = 0;
    for (int t = 0; t < m->n_types; ++t) {
        u64 mask = m->type_mask[t];
        int size = bb_count(mask);
        /* Instances: symmetries whose preimage of the mask is new. Own
         * symmetries: those that keep the mask; perm[j][d] = the digit that
         * own symmetry j maps digit d to. */
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
            if (n >= EVAL_MAX_PATTERNS) return -1;
            m->inst_type[n] = (uint8_t)t;
            m->inst_size[n] = (uint8_t)size;
            m->inst_squares[n] = pre;
            /* the digit each square read stands for */
            int i = 0;
            for (u64 b = pre; b; b &= b - 1, ++i) {
                u64 image = symmetry(1ULL << bb_first(b), k);
                m->digit_square[n][bb_count(mask & (image - 1))] = (uint8_t)bb_first(b);
            }
            ++n;
        }
        int sqs[EVAL_MAX_SQUARES], perm[8][EVAL_MAX_SQUARES], i = 0;
        for (u64 b = mask; b; b &= b - 1) sqs[i++] = bb_first(b);
        for (int j = 0; j < n_own; ++j)
            for (int d = 0; d < size; ++d) {
                u64 image = symmetry(1ULL << sqs[d], own[j]);
                for (int e = 0; e < size; ++e)
                    if (image >> sqs[e] & 1) perm[j][d] = e;
            }
        int raw = pow3(size);
        m->type_raw_off[t] = raw_total;
        raw_total += raw;
        m->canon_of[t] = malloc((size_t)raw * sizeof(int));
        if (!m->canon_of[t]) return -1;
        for (int r = 0; r < raw; ++r) m->canon_of[t][r] = -1;
        int next = 0;
        for (int r = 0; r < raw; ++r) {
            if (m->canon_of[t][r] >= 0) continue;
            for (int j = 0; j < n_own; ++j) {
                int image = 0;
                for (int d = 0; d < size; ++d) image += (r / pow3(d) % 3) * pow3(perm[j][d]);
                m->canon_of[t][image] = next;
            }
            m->canon_of[t][r] = next++;
        }
        m->type_canon_off[t] = m->canon_total;
        m->canon_total += next;
    }
    m->type_raw_off[m->n_types] = raw_total;
    m->raw_total = raw_total;
    m->n_inst = n;
    for (int i = 0; i < n; ++i) m->inst_raw_off[i] = m->type_raw_off[m->inst_type[i]];
    return 0;
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
static int build_instance_reads(EvalModel *m) {
    const int width = 1 << EVAL_MAX_SQUARES;
    m->digit_tables = malloc((size_t)(m->n_inst + 1) * width * sizeof(uint16_t));
    if (!m->digit_tables) return -1;
    int used = width; /* the first table: digits in ascending order */
    for (int b = 0; b < width; ++b) {
        int v = 0;
        for (int k = 0; k < EVAL_MAX_SQUARES; ++k)
            if (b >> k & 1) v += pow3(k);
        m->digit_tables[b] = (uint16_t)v;
    }
    int digit_of[EVAL_MAX_PATTERNS][EVAL_MAX_SQUARES];
    for (int i = 0; i < m->n_inst; ++i) {
        int n = 0, in_order = 1;
        for (u64 b = m->inst_squares[i]; b; b &= b - 1, ++n) {
            int d = 0;
            while (m->digit_square[i][d] != bb_first(b)) ++d;
            digit_of[i][n] = d;
            in_order &= d == n;
        }
        if (in_order) {
            m->inst_digits[i] = m->digit_tables;
            continue;
        }
        m->inst_digits[i] = NULL;
        for (int j = 0; j < i && !m->inst_digits[i]; ++j)
            if (m->inst_digits[j] != m->digit_tables && m->inst_size[j] == n &&
                memcmp(digit_of[j], digit_of[i], sizeof(int) * (size_t)n) == 0)
                m->inst_digits[i] = m->inst_digits[j];
        if (m->inst_digits[i]) continue;
        uint16_t *table = m->digit_tables + used;
        for (int b = 0; b < 1 << n; ++b) {
            int v = 0;
            for (int j = 0; j < n; ++j)
                if (b >> j & 1) v += pow3(digit_of[i][j]);
            table[b] = (uint16_t)v;
        }
        m->inst_digits[i] = table;
        used += width;
    }
    return 0;
}

/* raw[i]: instance i's index among the raw weights (its type's offset plus
 * the base-3 number of its squares: 0 empty, 1 mover, 2 opponent). */
#define RAW_INDICES(PEXT)                                                         \
    for (int i = 0; i < m->n_inst; ++i) {                                         \
        const uint16_t *digits = m->inst_digits[i];                               \
        u64 mask = m->inst_squares[i];                                            \
        raw[i] = m->inst_raw_off[i] + digits[PEXT(P, mask)] + 2 * digits[PEXT(O, mask)]; \
    }
/* The sum of the instances' weights in w (one phase's raw table). */
#define PATTERN_SUM(PEXT)                                                         \
    int s = 0;                                                                    \
    _Pragma("GCC unroll 4") for (int i = 0; i < m->n_inst; ++i) {                 \
        const uint16_t *digits = m->inst_digits[i];                               \
        u64 mask = m->inst_squares[i];                                            \
        s += w[m->inst_raw_off[i] + digits[PEXT(P, mask)] + 2 * digits[PEXT(O, mask)]]; \
    }                                                                             \
    return s;

static void raw_indices_soft(const EvalModel *m, u64 P, u64 O, int *raw) { RAW_INDICES(pext_soft) }
static int pattern_sum_soft(const EvalModel *m, u64 P, u64 O, const short *w) {
    PATTERN_SUM(pext_soft)
}

#ifdef HAVE_X86_DISPATCH
__attribute__((target("bmi2"))) static void raw_indices_bmi2(const EvalModel *m, u64 P, u64 O,
                                                             int *raw) {
    RAW_INDICES(_pext_u64)
}
__attribute__((target("bmi2"))) static int pattern_sum_bmi2(const EvalModel *m, u64 P, u64 O,
                                                            const short *w) {
    PATTERN_SUM(_pext_u64)
}

/* The pattern sum with AVX-512 (VBMI for byte permutes, BW for byte
 * arithmetic): the board as 64 bytes (0 empty, 1 mover, 2 opponent), each
 * instance's squares permuted into a 16-byte slot in digit order (four
 * instances per register), the slot's digits combined by multiply-adds
 * into its raw index, and the weights gathered sixteen at a time. The same
 * sum as the scalar loop, about 10 % less time per evaluation. */
static void vbmi_init(EvalModel *m) {
    int groups = (m->n_inst + 3) / 4;
    m->vb_groups = (groups + 3) / 4 * 4;
    for (int g = 0; g < m->vb_groups; g += 4) {
        int left = m->n_inst - 4 * g;
        m->vb_lanes[g / 4] = left >= 16 ? 0xFFFF : (__mmask16)((1u << left) - 1);
    }
    for (int g = 0; g < m->vb_groups; ++g) {
        m->vb_used[g] = 0;
        for (int j = 0; j < 64; ++j) {
            int i = 4 * g + j / 16, d = j % 16;
            m->vb_perm[g][j] = 0;
            if (i < m->n_inst && d < m->inst_size[i]) {
                m->vb_perm[g][j] = m->digit_square[i][d];
                m->vb_used[g] |= 1ULL << j;
            }
        }
        for (int j = 0; j < 16; ++j) {
            int i = 4 * g + j / 4;
            m->vb_offset[g][j] = j % 4 == 0 && i < m->n_inst ? m->inst_raw_off[i] : 0;
        }
    }
}

/* The sum for a model of G groups (a multiple of 4): G is a constant in
 * each copy, so the groups' indices stay in registers. */
#define VBMI_SUM(G)                                                                               \
    __attribute__((target("avx512f,avx512bw,avx512vbmi"))) static int pattern_sum_vbmi_##G(     \
        const EvalModel *m, u64 P, u64 O, const short *w) {                                     \
        __m512i board = _mm512_or_si512(_mm512_maskz_mov_epi8(P, _mm512_set1_epi8(1)),          \
                                        _mm512_maskz_mov_epi8(O, _mm512_set1_epi8(2)));         \
        /* bytes d0 + 3 d1 -> words, words + 9 * next -> dwords of four digits,                 \
         * then the four dwords of a slot times 1, 81, 6561 (0: unused) */                      \
        const __m512i by3 = _mm512_set1_epi16(0x0301), by9 = _mm512_set1_epi32(0x00090001);    \
        const __m512i by81 = _mm512_set4_epi32(0, 6561, 81, 1);                                 \
        __m512i index[G];                                                                       \
        for (int g = 0; g < (G); ++g) {                                                         \
            __m512i x = _mm512_maskz_permutexvar_epi8(                                          \
                m->vb_used[g], _mm512_load_si512(m->vb_perm[g]), board);                        \
            __m512i y = _mm512_madd_epi16(_mm512_maddubs_epi16(x, by3), by9);                   \
            y = _mm512_add_epi32(_mm512_mullo_epi32(y, by81),                                   \
                                 _mm512_load_si512(m->vb_offset[g]));                           \
            y = _mm512_add_epi32(y, _mm512_shuffle_epi32(y, _MM_PERM_BADC));                    \
            index[g] = _mm512_add_epi32(y, _mm512_shuffle_epi32(y, _MM_PERM_CDAB));             \
        }                                                                                       \
        /* one lane per slot, four registers into one, sixteen weights a gather */              \
        const __m512i first =                                                                   \
            _mm512_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28, 0, 4, 8, 12, 16, 20, 24, 28);        \
        __m512i sum = _mm512_setzero_si512();                                                   \
        for (int g = 0; g < (G); g += 4) {                                                      \
            __m512i ab = _mm512_permutex2var_epi32(index[g], first, index[g + 1]);              \
            __m512i cd = _mm512_permutex2var_epi32(index[g + 2], first, index[g + 3]);          \
            __m512i idx = _mm512_inserti64x4(ab, _mm512_castsi512_si256(cd), 1);                \
            /* 32 bits from each weight's address: its 16 bits, sign-extended */                \
            __m512i v = _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), m->vb_lanes[g / 4], \
                                                    idx, w, 2);                                 \
            sum = _mm512_add_epi32(sum, _mm512_srai_epi32(_mm512_slli_epi32(v, 16), 16));       \
        }                                                                                       \
        return _mm512_reduce_add_epi32(sum);                                                    \
    }
VBMI_SUM(4)
VBMI_SUM(8)
VBMI_SUM(12)
VBMI_SUM(16)
VBMI_SUM(20)
VBMI_SUM(24)
VBMI_SUM(28)
VBMI_SUM(32)

static int pattern_sum_vbmi(const EvalModel *m, u64 P, u64 O, const short *w) {
    switch (m->vb_groups) {
    case 4: return pattern_sum_vbmi_4(m, P, O, w);
    case 8: return pattern_sum_vbmi_8(m, P, O, w);
    case 12: return pattern_sum_vbmi_12(m, P, O, w);
    case 16: return pattern_sum_vbmi_16(m, P, O, w);
    case 20: return pattern_sum_vbmi_20(m, P, O, w);
    case 24: return pattern_sum_vbmi_24(m, P, O, w);
    case 28: return pattern_sum_vbmi_28(m, P, O, w);
    default: return pattern_sum_vbmi_32(m, P, O, w);
    }
}
#endif

static inline void raw_indices(const EvalModel *m, u64 P, u64 O, int *raw) {
#ifdef HAVE_X86_DISPATCH
    if (use_pext) {
        raw_indices_bmi2(m, P, O, raw);
        return;
    }
#endif
    raw_indices_soft(m, P, O, raw);
}

#ifdef HAVE_X86_DISPATCH
/* True when the environment variable is set to anything but "" or "0". */
static int env_refuses(const char *variable) {
    const char *value = getenv(variable);
    return value && *value && *value != '0';
}
#endif

void eval_model_free(EvalModel *m) {
    if (!m) return;
    for (int t = 0; t < m->n_types; ++t) free(m->canon_of[t]);
    free(m->digit_tables);
    free(m->square_powers);
    if (m->w_raw) mem_free_large(m->w_raw, m->w_bytes);
    free(m);
}

EvalModel *eval_model_new(const u64 *masks, int n_types, int tables) {
    if (n_types < 0 || n_types > EVAL_MAX_TYPES) return NULL;
    for (int t = 0; t < n_types; ++t)
        if (!masks[t] || bb_count(masks[t]) > EVAL_MAX_SQUARES) return NULL;
    EvalModel *m = aligned_alloc(64, (sizeof(EvalModel) + 63) / 64 * 64);
    if (!m) return NULL;
    memset(m, 0, sizeof *m);
    m->n_types = n_types;
    m->tables = tables != 0;
    memcpy(m->type_mask, masks, sizeof(u64) * (size_t)n_types);
    if (build_patterns(m) != 0 || build_instance_reads(m) != 0) {
        eval_model_free(m);
        return NULL;
    }
#ifdef HAVE_X86_DISPATCH
    vbmi_init(m);
#endif
    if (m->n_inst <= EVAL_FEATURES) {
        m->square_powers = aligned_alloc(32, sizeof(*m->square_powers) * 64);
        if (!m->square_powers) {
            eval_model_free(m);
            return NULL;
        }
        memset(m->square_powers, 0, sizeof(*m->square_powers) * 64);
        for (int i = 0; i < m->n_inst; ++i)
            for (int d = 0; d < m->inst_size[i]; ++d)
                m->square_powers[m->digit_square[i][d]][i] = (uint16_t)pow3(d);
    }
    return m;
}

int eval_model_types(const EvalModel *m) { return m->n_types; }
u64 eval_model_mask(const EvalModel *m, int type) { return m->type_mask[type]; }
int eval_model_tables(const EvalModel *m) { return m->tables; }
int eval_model_patterns(const EvalModel *m) {
    return m->n_inst + (m->tables ? EVAL_TABLE_LOOKUPS : 0);
}
int eval_model_weights(const EvalModel *m) {
    return m->canon_total + (m->tables ? EVAL_TABLE_WEIGHTS : 0);
}
int eval_model_fitted(const EvalModel *m) { return m->w_raw != NULL; }

void eval_default_init(void) {
    if (initialised) return;
#ifdef HAVE_X86_DISPATCH
    __builtin_cpu_init();
    /* OUTFLANK_NO_BMI2=1 forces the portable path (to test it) */
    use_pext = __builtin_cpu_supports("bmi2") && !env_refuses("OUTFLANK_NO_BMI2");
    /* OUTFLANK_NO_VBMI=1 keeps the scalar pattern sum (to test it) */
    use_vbmi = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512vbmi") && !env_refuses("OUTFLANK_NO_VBMI");
#endif
    slots[0] = eval_model_new(EVAL_LEGACY_MASKS, EVAL_LEGACY_TYPES, 0);
    if (!slots[0]) abort(); /* out of memory at start-up */
    active = slots[0];
    active_slot = 0;
    initialised = 1;
}

const char *eval_default_gather(void) {
    return use_vbmi ? "vbmi" : use_pext ? "pext" : "portable";
}

int eval_default_fitted(void) { return eval_model_fitted(active); }

const EvalModel *eval_default_model(int slot) {
    if (slot == -1) return active;
    return slot >= 0 && slot < EVAL_SLOTS ? slots[slot] : NULL;
}

int eval_default_active(void) { return active_slot; }

int eval_default_use(int slot) {
    if (slot < 0 || slot >= EVAL_SLOTS || !slots[slot]) return -1;
    active = slots[slot];
    active_slot = slot;
    return 0;
}

/* The weight file (see eval_default.h); little-endian fields. */
static int32_t read_i32(const unsigned char *p) {
    return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                     (uint32_t)p[3] << 24);
}

static int read_i16(const unsigned char *p) { return (int16_t)(p[0] | p[1] << 8); }

static u64 read_u64(const unsigned char *p) {
    return (u64)(uint32_t)read_i32(p) | (u64)(uint32_t)read_i32(p + 4) << 32;
}

/* The weight t / span of the way from anchor value va to vb. */
static int between(long long va, long long vb, int span, int t) {
    return (int)((va * (span - t) + vb * t) / span);
}

/* Interpolate the file's anchor weights into m's per-empties tables. */
static int expand_weights(EvalModel *m, const int *anchors, int n_anchors,
                          const unsigned char *pat, const unsigned char *num) {
    /* (+ 2: the AVX-512 gather reads 32 bits at the last weight) */
    size_t bytes = (size_t)61 * (size_t)m->raw_total * sizeof(short) + 2;
    short *w = mem_alloc_large(bytes);
    if (!w) return -2;
    size_t n_pat = (size_t)eval_model_weights(m);
    for (int e = 0; e <= 60; ++e) {
        /* linear interpolation between the anchors around e */
        int a = 0;
        while (a + 1 < n_anchors && anchors[a + 1] <= e) ++a;
        int b = a + 1 < n_anchors ? a + 1 : a;
        int span = anchors[b] - anchors[a], t = e - anchors[a];
        if (span <= 0 || t < 0) span = 1, t = 0;
        if (t > span) t = span;
        const unsigned char *pa = pat + (size_t)a * n_pat * 2;
        const unsigned char *pb = pat + (size_t)b * n_pat * 2;
        short *we = w + (size_t)e * (size_t)m->raw_total;
        for (int ty = 0; ty < m->n_types; ++ty)
            for (int r = 0; r < m->type_raw_off[ty + 1] - m->type_raw_off[ty]; ++r) {
                size_t c = (size_t)(m->type_canon_off[ty] + m->canon_of[ty][r]) * 2;
                we[m->type_raw_off[ty] + r] =
                    (short)between(read_i16(pa + c), read_i16(pb + c), span, t);
            }
        for (int k = 0; m->tables && k < EVAL_TABLE_WEIGHTS; ++k) {
            size_t c = (size_t)(m->canon_total + k) * 2;
            m->w_tab[e][k] = between(read_i16(pa + c), read_i16(pb + c), span, t);
        }
        for (int i = 0; i <= EVAL_NUM; ++i) {
            int va = read_i32(num + ((size_t)a * (EVAL_NUM + 1) + (size_t)i) * 4);
            int vb = read_i32(num + ((size_t)b * (EVAL_NUM + 1) + (size_t)i) * 4);
            m->w_num[e][i] = between(va, vb, span, t);
        }
    }
    m->w_raw = w;
    m->w_bytes = bytes;
    return 0;
}

int eval_default_load(const void *data, size_t len, int slot) {
    static const char magic2[8] = {'O', 'F', 'E', 'V', 'A', 'L', '2', 0};
    static const char magic3[8] = {'O', 'F', 'E', 'V', 'A', 'L', '3', 0};
    static const char magic4[8] = {'O', 'F', 'E', 'V', 'A', 'L', '4', 0};
    const unsigned char *p = data;
    if (slot < 0 || slot >= EVAL_SLOTS || len < 20) return -1;
    u64 masks[EVAL_MAX_TYPES];
    int n_types, tables = 0;
    size_t at = 8;
    if (memcmp(p, magic2, 8) == 0) {
        n_types = EVAL_LEGACY_TYPES;
        memcpy(masks, EVAL_LEGACY_MASKS, sizeof EVAL_LEGACY_MASKS);
    } else if (memcmp(p, magic3, 8) == 0 || memcmp(p, magic4, 8) == 0) {
        int v4 = p[6] == '4';
        n_types = read_i32(p + 8);
        if (n_types < 1 || n_types > EVAL_MAX_TYPES ||
            len < 12 + (size_t)n_types * 8 + (size_t)(v4 ? 4 : 0) + 12)
            return -1;
        for (int t = 0; t < n_types; ++t) masks[t] = read_u64(p + 12 + 8 * (size_t)t);
        at = 12 + (size_t)n_types * 8;
        if (v4) {
            tables = read_i32(p + at);
            if (tables != 0 && tables != 1) return -1;
            at += 4;
        }
    } else {
        return -1;
    }
    int n_anchors = read_i32(p + at), n_pat = read_i32(p + at + 4), n_num = read_i32(p + at + 8);
    at += 12;
    if (n_anchors < 1 || n_anchors > 61 || n_pat < 0 || n_num != EVAL_NUM) return -1;
    size_t need = at + (size_t)n_anchors * 4 + (size_t)n_anchors * (size_t)n_pat * 2 +
                  (size_t)n_anchors * (EVAL_NUM + 1) * 4;
    if (len != need) return -1;
    int anchors[61];
    for (int a = 0; a < n_anchors; ++a) {
        anchors[a] = read_i32(p + at + 4 * (size_t)a);
        if (anchors[a] < 0 || anchors[a] > 60 || (a && anchors[a] <= anchors[a - 1])) return -1;
    }
    const unsigned char *pat = p + at + 4 * (size_t)n_anchors;
    const unsigned char *num = pat + (size_t)n_anchors * (size_t)n_pat * 2;
    EvalModel *m = eval_model_new(masks, n_types, tables);
    if (!m) return -1; /* bad masks (or out of memory, a rarity) */
    if (eval_model_weights(m) != n_pat) {
        eval_model_free(m);
        return -1;
    }
    int rc = expand_weights(m, anchors, n_anchors, pat, num);
    if (rc != 0) {
        eval_model_free(m);
        return rc;
    }
    EvalModel *old = slots[slot];
    slots[slot] = m;
    if (slot == active_slot) active = m;
    eval_model_free(old);
    return 0;
}

/* The numeric features of (P, O), where moves are the mover's legal moves. */
static inline void numeric_features_with(u64 P, u64 O, u64 moves, int num[EVAL_NUM], Counts *c) {
    u64 empty = ~(P | O);
    c->mob_p = bb_count(moves);
    c->mob_o = bb_count(bb_moves(O, P));
    c->pmob_p = bb_count(bb_neighbours(O) & empty);
    c->pmob_o = bb_count(bb_neighbours(P) & empty);
    num[0] = c->mob_p - c->mob_o;
    num[1] = c->pmob_p - c->pmob_o;
    num[2] = bb_stable_diff(P, O);
    num[3] = bb_count(P) - bb_count(O);
    num[4] = (bb_count(empty) & 1) ? 1 : -1;
    num[5] = bb_count(P & CORNERS) - bb_count(O & CORNERS);
}

static void numeric_features(u64 P, u64 O, int num[EVAL_NUM], Counts *c) {
    numeric_features_with(P, O, bb_moves(P, O), num, c);
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

void eval_model_features(const EvalModel *m, u64 P, u64 O, int *pat, int num[EVAL_NUM]) {
    int raw[EVAL_MAX_PATTERNS];
    raw_indices(m, P, O, raw);
    for (int i = 0; i < m->n_inst; ++i) {
        int t = m->inst_type[i];
        pat[i] = m->type_canon_off[t] + m->canon_of[t][raw[i] - m->type_raw_off[t]];
    }
    Counts c;
    numeric_features(P, O, num, &c);
    if (m->tables) {
        int at[EVAL_TABLE_LOOKUPS];
        table_entries(&c, at);
        for (int k = 0; k < EVAL_TABLE_LOOKUPS; ++k) pat[m->n_inst + k] = m->canon_total + at[k];
    }
}

int eval_default_hand(u64 P, u64 O) {
    int num[EVAL_NUM];
    Counts c;
    numeric_features(P, O, num, &c);
    return eval_hand(P, O, num);
}

/* The score's other terms, for a fitted model at e empties: the constant,
 * the numeric features and the count tables. */
static inline int score_besides_patterns(const EvalModel *m, int e, const int num[EVAL_NUM],
                                         const Counts *c) {
    const int *wn = m->w_num[e];
    int s = wn[EVAL_NUM];
    for (int i = 0; i < EVAL_NUM; ++i) s += wn[i] * num[i];
    if (m->tables) {
        int at[EVAL_TABLE_LOOKUPS];
        table_entries(c, at);
        const int *wt = m->w_tab[e];
        s += wt[at[0]] + wt[at[1]] + wt[at[2]] + wt[at[3]];
    }
    return s;
}

static inline int empties_of(u64 P, u64 O) {
    int e = bb_count(~(P | O));
    return e > 60 ? 60 : e;
}

int eval_model_score(const EvalModel *m, u64 P, u64 O) {
    int num[EVAL_NUM];
    Counts c;
    numeric_features(P, O, num, &c);
    if (!m->w_raw) return eval_hand(P, O, num);
    int e = empties_of(P, O);
    const short *w = m->w_raw + (size_t)e * (size_t)m->raw_total;
    int s = score_besides_patterns(m, e, num, &c);
#ifdef HAVE_X86_DISPATCH
    if (use_vbmi) return s + pattern_sum_vbmi(m, P, O, w);
    if (use_pext) return s + pattern_sum_bmi2(m, P, O, w);
#endif
    return s + pattern_sum_soft(m, P, O, w);
}

int eval_default(u64 P, u64 O) { return eval_model_score(active, P, O); }

/* ------------------------------------------------------------ features */

const EvalModel *eval_features_model(void) {
    return active->w_raw && active->square_powers ? active : NULL;
}

void eval_features_init(const EvalModel *m, u64 P, u64 O, EvalFeatures *f) {
    int mine[EVAL_MAX_PATTERNS], theirs[EVAL_MAX_PATTERNS];
    raw_indices(m, P, O, mine);
    raw_indices(m, O, P, theirs);
    memset(f, 0, sizeof *f);
    for (int i = 0; i < m->n_inst; ++i) {
        f->mine[i] = (uint16_t)(mine[i] - m->inst_raw_off[i]);
        f->theirs[i] = (uint16_t)(theirs[i] - m->inst_raw_off[i]);
    }
}

void eval_features_play(const EvalModel *m, const EvalFeatures *parent, EvalFeatures *child,
                        int sq, u64 flips) {
    /* the child's mover is the parent's opponent: its view is the parent's
     * `theirs`, where the new disc is a 2 (+2 powers) and each flipped
     * disc goes from 1 to 2 (+1); in the other view the new disc is a 1
     * and each flipped disc goes from 2 to 1 (-1) */
    uint16_t turned[EVAL_FEATURES]; /* a legal move flips at least one disc */
    const uint16_t *first = m->square_powers[bb_first(flips)];
    for (int k = 0; k < EVAL_FEATURES; ++k) turned[k] = first[k];
    for (flips &= flips - 1; flips; flips &= flips - 1) {
        const uint16_t *p = m->square_powers[bb_first(flips)];
        for (int k = 0; k < EVAL_FEATURES; ++k) turned[k] = (uint16_t)(turned[k] + p[k]);
    }
    const uint16_t *placed = m->square_powers[sq];
    for (int k = 0; k < EVAL_FEATURES; ++k) {
        child->mine[k] = (uint16_t)(parent->theirs[k] + 2 * placed[k] + turned[k]);
        child->theirs[k] = (uint16_t)(parent->mine[k] + placed[k] - turned[k]);
    }
}

void eval_features_pass(const EvalFeatures *parent, EvalFeatures *child) {
    memcpy(child->mine, parent->theirs, sizeof child->mine);
    memcpy(child->theirs, parent->mine, sizeof child->theirs);
}

int eval_model_score_features(const EvalModel *m, u64 P, u64 O, u64 moves,
                              const EvalFeatures *f) {
    int num[EVAL_NUM];
    Counts c;
    numeric_features_with(P, O, moves, num, &c);
    int e = empties_of(P, O);
    const short *w = m->w_raw + (size_t)e * (size_t)m->raw_total;
    int s = score_besides_patterns(m, e, num, &c);
    for (int i = 0; i < m->n_inst; ++i) s += w[m->inst_raw_off[i] + f->mine[i]];
    return s;
}
