// Runs fuzz_gemm's checks (fuzz/fuzz_gemm.cpp) on every file of the given corpus directories without libFuzzer:
// the committed seeds become a regression test in every build, and run under ASan + UBSan in scripts/test.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv);
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

int main(int argc, char** argv) {
  LLVMFuzzerInitialize(&argc, &argv);
  std::size_t files = 0;
  for (int i = 1; i < argc; ++i)
    for (const auto& entry : std::filesystem::directory_iterator(argv[i])) {
      if (!entry.is_regular_file()) continue;
      std::ifstream in(entry.path(), std::ios::binary);
      const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      LLVMFuzzerTestOneInput(bytes.data(), bytes.size());  // aborts, naming the call, on a contract violation
      ++files;
    }
  std::printf("fuzz corpus replay: %zu inputs, no violation\n", files);
  return files > 0 ? 0 : 1;
}
