/* gemm_skinny.h - matrix products with one narrow side, which OpenBLAS
 * runs at a fraction of its peak: a GNN's last layer (hidden -> classes),
 * its input gradient and its weight gradient. Row-major, on the engine's
 * thread pool, multiply-adds fused where the build has FMA:
 *   NN, n in {8, 16, 24, 32}: C (m x n) (+)= A (m x k) B (k x n), 12 / (n/8)
 *       rows of C at a time in registers, each element summed over k in
 *       order; the next tile's rows of A prefetched (read a column at a
 *       time, which the hardware prefetcher does not follow); and n in
 *       {64, 96, 128} with k <= 512 (a hidden layer's product) the same
 *       tiles in 32-column panels, 48-row blocks of A panel by panel so
 *       each panel of B stays in L1; a fresh output over 16 MB streamed;
 *   NT, k <= 32, n a multiple of 64: C (+)= A B^T, B (n x k) transposed
 *       once, each row of C in 64-column register tiles over k in order; a
 *       fresh output over 16 MB is written with non-temporal stores;
 *   TN, n in {8, 16, 24, 32}, m <= 512: C (m x n) (+)= A^T B, A (k x m) and
 *       B (k x n), the k rows cut in fixed blocks of 1024 from the call's
 *       first row, each block's partial product in register tiles (64-row
 *       sub-blocks of A kept in L1 across the tiles), the partials added in
 *       block order: the same bits whatever the threads.
 * Measured at 120K x 128 x 16 on 2 threads (this VM, noisy; microbenchmark,
 * medians of 21): forward 10-11 ms before the register tile grew to 12
 * vectors and the prefetch, 5.9-6.6 ms after (OpenBLAS 17-20 ms); input
 * gradient 7.5-9.5 ms -> 5.9-6.5 ms; weight gradient 7-8 ms (OpenBLAS
 * 10-21 ms). Wide NN at 120K x 128 x 128: 36-40 ms against OpenBLAS's
 * 42-62 ms in the same runs (at k = 256 and n = 256 OpenBLAS was as fast
 * or faster, hence the limits). The path is chosen by n and k alone (never
 * by m) and each NN/NT output row depends on its own input row only, so
 * the streaming engine's row chunks get the same bits as the whole
 * product. */
#ifndef GS_GEMM_SKINNY_H
#define GS_GEMM_SKINNY_H

#include <stdint.h>

/* Runs C (+)= op(A) op(B) when the shape is one of the above and returns
 * 1; returns 0 (nothing done) otherwise. */
int k_gemm_skinny(int trans_a, int trans_b, int64_t m, int64_t n, int64_t k, const float *a, const float *b, float *c, int acc);

#endif
