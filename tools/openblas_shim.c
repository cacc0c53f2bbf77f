/* The BLAS/LAPACK that OpenCV's wheel links, served by the OpenBLAS that numpy's wheel already brings.
 *
 * Why: opencv-python-headless ships its own 37 MB OpenBLAS (plus libgfortran and libquadmath) for the 19 routines
 * cv2 calls (GEMM for large products; LU, Cholesky, QR, SVD, eigenvalues for cv::solve, cv::invert, cv::SVD, ...).
 * numpy's wheel ships one too, loaded by the kiosk anyway. The store bundle has a size budget (#13: 350 MB), so
 * tools/build_store.sh builds this file into a library with the soname cv2 asks for and build.spec ships it in
 * place of the wheel's copy (tools/bundle_filter.py). The source install keeps the wheel's library.
 *
 * numpy's OpenBLAS is an ILP64 build with prefixed names (scipy_dgesv_64_, 64-bit integers), cv2 calls the LP64
 * names (dgesv_, 32-bit integers): every wrapper widens the integers it is given, calls the ILP64 routine and
 * narrows what comes back (info, pivots). Fortran hidden string lengths: cv2 passes none (one-letter options);
 * the ILP64 routines are given 1 for each.
 * tests/tools/test_openblas_shim.py checks the answers against the wheel's own library, routine by routine. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

typedef int64_t i64;
typedef struct { float r, i; } cf;
typedef struct { double r, i; } cd;

/* numpy's ILP64 OpenBLAS */
void scipy_cblas_sgemm64_(int, int, int, i64, i64, i64, float, const float *, i64, const float *, i64, float,
                          float *, i64);
void scipy_cblas_dgemm64_(int, int, int, i64, i64, i64, double, const double *, i64, const double *, i64, double,
                          double *, i64);
void scipy_cblas_cgemm64_(int, int, int, i64, i64, i64, const void *, const void *, i64, const void *, i64,
                          const void *, void *, i64);
void scipy_cblas_zgemm64_(int, int, int, i64, i64, i64, const void *, const void *, i64, const void *, i64,
                          const void *, void *, i64);
#define LAPACK_DECLS(T, p) \
    void scipy_##p##gesv_64_(i64 *, i64 *, T *, i64 *, i64 *, T *, i64 *, i64 *); \
    void scipy_##p##getrf_64_(i64 *, i64 *, T *, i64 *, i64 *, i64 *); \
    void scipy_##p##potrf_64_(const char *, i64 *, T *, i64 *, i64 *, size_t); \
    void scipy_##p##posv_64_(const char *, i64 *, i64 *, T *, i64 *, T *, i64 *, i64 *, size_t); \
    void scipy_##p##gels_64_(const char *, i64 *, i64 *, i64 *, T *, i64 *, T *, i64 *, T *, i64 *, i64 *, size_t); \
    void scipy_##p##geqrf_64_(i64 *, i64 *, T *, i64 *, T *, T *, i64 *, i64 *); \
    void scipy_##p##gesdd_64_(const char *, i64 *, i64 *, T *, i64 *, T *, T *, i64 *, T *, i64 *, T *, i64 *, \
                              i64 *, i64 *, size_t);
LAPACK_DECLS(float, s)
LAPACK_DECLS(double, d)
void scipy_dgeev_64_(const char *, const char *, i64 *, double *, i64 *, double *, double *, double *, i64 *,
                     double *, i64 *, double *, i64 *, i64 *, size_t, size_t);

/* How many routines cv2 called through this library: the test's proof that it was used, not the wheel's copy. */
static unsigned long calls;
unsigned long nailmirror_shim_calls(void) { return __atomic_load_n(&calls, __ATOMIC_RELAXED); }
#define COUNT() __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED)

/* the LP64 names cv2 links */
void cblas_sgemm(int o, int ta, int tb, int m, int n, int k, float alpha, const float *a, int lda, const float *b,
                 int ldb, float beta, float *c, int ldc) {
    COUNT();
    scipy_cblas_sgemm64_(o, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
void cblas_dgemm(int o, int ta, int tb, int m, int n, int k, double alpha, const double *a, int lda,
                 const double *b, int ldb, double beta, double *c, int ldc) {
    COUNT();
    scipy_cblas_dgemm64_(o, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
void cblas_cgemm(int o, int ta, int tb, int m, int n, int k, const void *alpha, const void *a, int lda,
                 const void *b, int ldb, const void *beta, void *c, int ldc) {
    COUNT();
    scipy_cblas_cgemm64_(o, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
void cblas_zgemm(int o, int ta, int tb, int m, int n, int k, const void *alpha, const void *a, int lda,
                 const void *b, int ldb, const void *beta, void *c, int ldc) {
    COUNT();
    scipy_cblas_zgemm64_(o, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

/* Pivots and integer workspaces: a stack buffer for the small systems cv2 solves, else the heap. An allocation
 * that fails reports info = -1000 (LAPACK's own infos are >= -14), which cv2 treats as a failed decomposition. */
#define SMALL 256
static i64 *wide(i64 *small, size_t count) {
    return count <= SMALL ? small : (i64 *)malloc(count * sizeof(i64));
}
static void narrow(const i64 *from, int *to, size_t count) {
    for (size_t i = 0; i < count; i++) to[i] = (int)from[i];
}
static size_t at_least_1(i64 count) { return count > 0 ? (size_t)count : 1; }

#define LAPACK_WRAPPERS(T, p) \
void p##gesv_(int *n, int *nrhs, T *a, int *lda, int *ipiv, T *b, int *ldb, int *info) { \
    COUNT(); \
    i64 n_ = *n, nrhs_ = *nrhs, lda_ = *lda, ldb_ = *ldb, info_ = 0, small[SMALL]; \
    i64 *piv = wide(small, at_least_1(n_)); \
    if (!piv) { *info = -1000; return; } \
    scipy_##p##gesv_64_(&n_, &nrhs_, a, &lda_, piv, b, &ldb_, &info_); \
    if (n_ > 0) narrow(piv, ipiv, (size_t)n_); \
    if (piv != small) free(piv); \
    *info = (int)info_; \
} \
void p##getrf_(int *m, int *n, T *a, int *lda, int *ipiv, int *info) { \
    COUNT(); \
    i64 m_ = *m, n_ = *n, lda_ = *lda, info_ = 0, small[SMALL]; \
    i64 k = m_ < n_ ? m_ : n_; \
    i64 *piv = wide(small, at_least_1(k)); \
    if (!piv) { *info = -1000; return; } \
    scipy_##p##getrf_64_(&m_, &n_, a, &lda_, piv, &info_); \
    if (k > 0) narrow(piv, ipiv, (size_t)k); \
    if (piv != small) free(piv); \
    *info = (int)info_; \
} \
void p##potrf_(char *uplo, int *n, T *a, int *lda, int *info) { \
    COUNT(); \
    i64 n_ = *n, lda_ = *lda, info_ = 0; \
    scipy_##p##potrf_64_(uplo, &n_, a, &lda_, &info_, 1); \
    *info = (int)info_; \
} \
void p##posv_(char *uplo, int *n, int *nrhs, T *a, int *lda, T *b, int *ldb, int *info) { \
    COUNT(); \
    i64 n_ = *n, nrhs_ = *nrhs, lda_ = *lda, ldb_ = *ldb, info_ = 0; \
    scipy_##p##posv_64_(uplo, &n_, &nrhs_, a, &lda_, b, &ldb_, &info_, 1); \
    *info = (int)info_; \
} \
void p##gels_(char *trans, int *m, int *n, int *nrhs, T *a, int *lda, T *b, int *ldb, T *work, int *lwork, \
              int *info) { \
    COUNT(); \
    i64 m_ = *m, n_ = *n, nrhs_ = *nrhs, lda_ = *lda, ldb_ = *ldb, lwork_ = *lwork, info_ = 0; \
    scipy_##p##gels_64_(trans, &m_, &n_, &nrhs_, a, &lda_, b, &ldb_, work, &lwork_, &info_, 1); \
    *info = (int)info_; \
} \
void p##geqrf_(int *m, int *n, T *a, int *lda, T *tau, T *work, int *lwork, int *info) { \
    COUNT(); \
    i64 m_ = *m, n_ = *n, lda_ = *lda, lwork_ = *lwork, info_ = 0; \
    scipy_##p##geqrf_64_(&m_, &n_, a, &lda_, tau, work, &lwork_, &info_); \
    *info = (int)info_; \
} \
void p##gesdd_(char *jobz, int *m, int *n, T *a, int *lda, T *s, T *u, int *ldu, T *vt, int *ldvt, T *work, \
               int *lwork, int *iwork, int *info) { \
    COUNT(); \
    i64 m_ = *m, n_ = *n, lda_ = *lda, ldu_ = *ldu, ldvt_ = *ldvt, lwork_ = *lwork, info_ = 0, small[SMALL]; \
    i64 k = m_ < n_ ? m_ : n_; \
    i64 *iw = wide(small, at_least_1(8 * k)); \
    (void)iwork; /* workspace only: nothing in it is read back */ \
    if (!iw) { *info = -1000; return; } \
    scipy_##p##gesdd_64_(jobz, &m_, &n_, a, &lda_, s, u, &ldu_, vt, &ldvt_, work, &lwork_, iw, &info_, 1); \
    if (iw != small) free(iw); \
    *info = (int)info_; \
}
LAPACK_WRAPPERS(float, s)
LAPACK_WRAPPERS(double, d)

void dgeev_(char *jobvl, char *jobvr, int *n, double *a, int *lda, double *wr, double *wi, double *vl, int *ldvl,
            double *vr, int *ldvr, double *work, int *lwork, int *info) {
    COUNT();
    i64 n_ = *n, lda_ = *lda, ldvl_ = *ldvl, ldvr_ = *ldvr, lwork_ = *lwork, info_ = 0;
    scipy_dgeev_64_(jobvl, jobvr, &n_, a, &lda_, wr, wi, vl, &ldvl_, vr, &ldvr_, work, &lwork_, &info_, 1, 1);
    *info = (int)info_;
}
