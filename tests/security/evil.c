/* Stands for a library the unprivileged user names in BF16X_HOST_BLAS: loading it leaves a file behind. */
#include <fcntl.h>
#include <unistd.h>

__attribute__((constructor)) static void loaded(void) {
  const char* path = EVIL_MARKER;
  const int fd = open(path, O_WRONLY | O_CREAT, 0644);
  if (fd >= 0) close(fd);
}
