// A main() for the fuzz target without libFuzzer: runs each file given (or each file in each
// directory given) through LLVMFuzzerTestOneInput once. Built with any compiler, so the seed corpus
// and saved crash inputs replay as an ordinary test (under ASan / UBSan in the sanitizer builds).
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv);
extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

namespace {

void Collect(const std::string &path, std::vector<std::string> *files) {
  struct stat info;
  if (stat(path.c_str(), &info) != 0) {
    std::fprintf(stderr, "fuzz_replay: cannot open %s\n", path.c_str());
    return;
  }
  if (!S_ISDIR(info.st_mode)) {
    files->push_back(path);
    return;
  }
  DIR *dir = opendir(path.c_str());
  if (dir == nullptr) return;
  std::vector<std::string> names;
  while (dirent *entry = readdir(dir)) {
    if (entry->d_name[0] != '.') names.push_back(path + "/" + entry->d_name);
  }
  closedir(dir);
  std::sort(names.begin(), names.end());
  for (const std::string &name : names) Collect(name, files);
}

}  // namespace

int main(int argc, char **argv) {
  LLVMFuzzerInitialize(&argc, &argv);
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) Collect(argv[i], &files);
  if (files.empty()) {
    std::fprintf(stderr, "usage: %s FILE_OR_DIR...\n", argv[0]);
    return 2;
  }
  for (const std::string &file : files) {
    std::ifstream in(file, std::ios::binary);
    const std::vector<uint8_t> data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    LLVMFuzzerTestOneInput(data.data(), data.size());
  }
  std::printf("fuzz_replay: %zu inputs ran\n", files.size());
  return 0;
}
