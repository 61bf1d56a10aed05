/* What the ScaLAPACK clients (pdgemm_check.c, pdfact_check.c) share: the BLACS and descriptor routines they call,
 * the global matrices every rank regenerates from the element indices, and the block-cyclic index map. */
#pragma once

void Cblacs_pinfo(int* rank, int* nprocs);
void Cblacs_get(int context, int what, int* value);
void Cblacs_gridinit(int* context, const char* order, int nprow, int npcol);
void Cblacs_gridinfo(int context, int* nprow, int* npcol, int* myrow, int* mycol);
void Cblacs_gridexit(int context);
int numroc_(const int* n, const int* nb, const int* iproc, const int* isrcproc, const int* nprocs);
void descinit_(int* desc, const int* m, const int* n, const int* mb, const int* nb, const int* irsrc, const int* icsrc,
               const int* ictxt, const int* lld, int* info);

/* Element (i, j) of global matrix id, uniform in [-1, 1), the same on every rank. */
static inline double element(int id, int i, int j) {
  unsigned long long x = ((unsigned long long)id << 58) ^ ((unsigned long long)i << 29) ^ (unsigned long long)j;
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  x ^= x >> 31;
  return (double)(x >> 11) * 0x1p-52 - 1.0;
}

/* Global row/column index of local index l (0-based) in a block-cyclic distribution. */
static inline int global_index(int l, int nb, int iproc, int nprocs) { return (l / nb * nprocs + iproc) * nb + l % nb; }
