/* gemm_skinny.h - matrix products with one narrow side, which OpenBLAS
 * runs at a fraction of its peak: a GNN's last layer (hidden -> classes)
 * and its input gradient. Measured at 120K x 128 x 16 on 2 threads (this
 * VM, noisy): forward 16-18 ms in OpenBLAS, 9-10 ms here; input gradient
 * 17-25 ms, 6-10 ms here. Row-major, on the engine's thread pool:
 *   NN, n in {8, 16, 24, 32}: C (m x n) (+)= A (m x k) B (k x n), four rows
 *       of C at a time in registers, each element summed over k in order;
 *   NT, k <= 32, n a multiple of 64: C (+)= A B^T, B (n x k) transposed
 *       once, each row of C in 64-column register tiles over k in order.
 * The weight gradient (A^T B, a sum over the rows) stays OpenBLAS's: it is
 * near its rate there. The path is chosen by the shape's narrow sides
 * alone and each output row depends on its own input row only, so the
 * streaming engine's row chunks get the same bits as the whole product. */
#ifndef GS_GEMM_SKINNY_H
#define GS_GEMM_SKINNY_H

#include <stdint.h>

/* Runs C (+)= op(A) op(B) when the shape is one of the above and returns
 * 1; returns 0 (nothing done) otherwise. */
int k_gemm_skinny(int trans_a, int trans_b, int64_t m, int64_t n, int64_t k, const float *a, const float *b, float *c, int acc);

#endif
