/* blas.cc - cuBLAS's Sgemm and Sgemv on OpenBLAS for the CPU test double
 * (cublas_v2.h): the same argument checks as cuBLAS (a bad leading
 * dimension is CUBLAS_STATUS_INVALID_VALUE), column-major, queued on the
 * handle's stream so they order with the plugin's kernels and copies. */
#include <cblas.h>

#include "cublas_v2.h"
#include "internal.h"

struct cpurt_blas {
    cudaStream_t stream;
    int dev;
};

static int max1(int v) { return v > 1 ? v : 1; }

cublasStatus_t cublasCreate(cublasHandle_t *h)
{
    if (cpurt_ready() != cudaSuccess) return CUBLAS_STATUS_NOT_INITIALIZED;
    *h = new cpurt_blas{NULL, cpurt_current_device()};
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasDestroy(cublasHandle_t h)
{
    if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
    delete h;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetStream(cublasHandle_t h, cudaStream_t st)
{
    if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
    h->stream = st;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetStream(cublasHandle_t h, cudaStream_t *st)
{
    if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
    *st = h->stream;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetMathMode(cublasHandle_t h, cublasMath_t mode)
{
    (void)mode;
    return h ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_INITIALIZED;
}

/* cuBLAS reads device operands: a host pointer there is a bad value. */
static bool on_device(const void *p, size_t n) { return n == 0 || cpurt_classify(p, n) == MEM_DEVICE; }

cublasStatus_t cublasSgemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, const float *alpha,
                           const float *a, int lda, const float *b, int ldb, const float *beta, float *c, int ldc)
{
    if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
    int arows = ta == CUBLAS_OP_N ? m : k, acols = ta == CUBLAS_OP_N ? k : m;
    int brows = tb == CUBLAS_OP_N ? k : n, bcols = tb == CUBLAS_OP_N ? n : k;
    if (m < 0 || n < 0 || k < 0 || lda < max1(arows) || ldb < max1(brows) || ldc < max1(m)) return CUBLAS_STATUS_INVALID_VALUE;
    if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
    size_t asz = k ? ((size_t)lda * (acols - 1) + arows) * 4 : 0, bsz = k ? ((size_t)ldb * (bcols - 1) + brows) * 4 : 0;
    if (!on_device(a, asz) || !on_device(b, bsz) || !on_device(c, ((size_t)ldc * (n - 1) + m) * 4)) return CUBLAS_STATUS_INVALID_VALUE;
    float al = *alpha, be = *beta;
    cpurt_enqueue(h->stream, [=] {
        cblas_sgemm(CblasColMajor, ta == CUBLAS_OP_N ? CblasNoTrans : CblasTrans, tb == CUBLAS_OP_N ? CblasNoTrans : CblasTrans, m, n,
                    k, al, a, lda, b, ldb, be, c, ldc);
    });
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSgemv(cublasHandle_t h, cublasOperation_t t, int m, int n, const float *alpha, const float *a, int lda,
                           const float *x, int incx, const float *beta, float *y, int incy)
{
    if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (m < 0 || n < 0 || lda < max1(m) || incx == 0 || incy == 0) return CUBLAS_STATUS_INVALID_VALUE;
    if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
    int xlen = t == CUBLAS_OP_N ? n : m, ylen = t == CUBLAS_OP_N ? m : n;
    if (!on_device(a, ((size_t)lda * (n - 1) + m) * 4) || !on_device(x, ((size_t)(xlen - 1) * (incx > 0 ? incx : -incx) + 1) * 4) ||
        !on_device(y, ((size_t)(ylen - 1) * (incy > 0 ? incy : -incy) + 1) * 4))
        return CUBLAS_STATUS_INVALID_VALUE;
    float al = *alpha, be = *beta;
    cpurt_enqueue(h->stream, [=] {
        cblas_sgemv(CblasColMajor, t == CUBLAS_OP_N ? CblasNoTrans : CblasTrans, m, n, al, a, lda, x, incx, be, y, incy);
    });
    return CUBLAS_STATUS_SUCCESS;
}
