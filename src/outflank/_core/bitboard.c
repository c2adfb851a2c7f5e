/* bitboard.c - line masks and perft. */
#include "bitboard.h"

_Alignas(64) u64 bb_lines[64][8];

void bb_init(void) {
    /* (drow, dcol) for directions 0..3 (to higher bits) then 4..7 (lower). */
    static const int dr[8] = {0, 1, 1, 1, 0, -1, -1, -1};
    static const int dc[8] = {1, -1, 0, 1, -1, 1, 0, -1};
    for (int sq = 0; sq < 64; ++sq) {
        for (int d = 0; d < 8; ++d) {
            u64 line = 0;
            int r = sq / 8 + dr[d], c = sq % 8 + dc[d];
            while (r >= 0 && r < 8 && c >= 0 && c < 8) {
                line |= 1ULL << (r * 8 + c);
                r += dr[d];
                c += dc[d];
            }
            bb_lines[sq][d] = line;
        }
    }
}

uint64_t bb_perft(u64 P, u64 O, int depth, int count_finished) {
    if (depth <= 0) return 1;
    u64 moves = bb_moves(P, O);
    if (!moves) {
        if (!bb_moves(O, P)) return count_finished ? 1 : 0;
        return bb_perft(O, P, depth - 1, count_finished);
    }
    if (depth == 1) return (uint64_t)bb_count(moves);
    uint64_t total = 0;
    while (moves) {
        int sq = bb_first(moves);
        moves &= moves - 1;
        u64 f = bb_flips(P, O, sq);
        total += bb_perft(O & ~f, P | f | (1ULL << sq), depth - 1, count_finished);
    }
    return total;
}
