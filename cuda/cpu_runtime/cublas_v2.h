/* cublas_v2.h (CPU test double) - the cuBLAS calls the plugin makes, with
 * cuBLAS's column-major semantics and argument checks, run on OpenBLAS in
 * the handle's stream (cuda_runtime.h). Scalars are read from host memory
 * at the call (CUBLAS_POINTER_MODE_HOST, the default). Not a performance
 * model. */
#ifndef GS_CPU_CUBLAS_V2_H
#define GS_CPU_CUBLAS_V2_H

#include "cuda_runtime.h"

typedef enum {
    CUBLAS_STATUS_SUCCESS = 0,
    CUBLAS_STATUS_NOT_INITIALIZED = 1,
    CUBLAS_STATUS_ALLOC_FAILED = 3,
    CUBLAS_STATUS_INVALID_VALUE = 7,
} cublasStatus_t;
typedef enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1 } cublasOperation_t;
typedef enum { CUBLAS_DEFAULT_MATH = 0, CUBLAS_PEDANTIC_MATH = 2 } cublasMath_t;
typedef struct cpurt_blas *cublasHandle_t;

cublasStatus_t cublasCreate(cublasHandle_t *h);
cublasStatus_t cublasDestroy(cublasHandle_t h);
cublasStatus_t cublasSetStream(cublasHandle_t h, cudaStream_t st);
cublasStatus_t cublasGetStream(cublasHandle_t h, cudaStream_t *st);
cublasStatus_t cublasSetMathMode(cublasHandle_t h, cublasMath_t mode);
cublasStatus_t cublasSgemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, const float *alpha,
                           const float *a, int lda, const float *b, int ldb, const float *beta, float *c, int ldc);
cublasStatus_t cublasSgemv(cublasHandle_t h, cublasOperation_t t, int m, int n, const float *alpha, const float *a, int lda,
                           const float *x, int incx, const float *beta, float *y, int incy);

#endif
