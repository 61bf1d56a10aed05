/* A setuid-root program linked to libbf16x, as a privileged client would be: it makes a native call (the host BLAS
 * is loaded) with the verbose output on (bf16x_set_verbose), and prints its real and effective user ids. */
#include <bf16x/bf16x.h>
#include <bf16x/bf16x_runtime.h>
#include <stdio.h>
#include <unistd.h>

int main(void) {
  printf("uid=%d euid=%d\n", (int)getuid(), (int)geteuid());
  fflush(stdout);
  bf16x_set_verbose(1);
  double a[4] = {1, 2, 3, 4}, c[4] = {0};
  const int r =
      bf16x_dgemm(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, 2, 2, 2, 1, a, 2, a, 2, 0, c, 2, BF16X_MODE_NATIVE);
  printf("status=%d c00=%g\n", r, c[0]);
  return 0;
}
