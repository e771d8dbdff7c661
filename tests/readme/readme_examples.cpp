// Checks the examples in Markdown files against what the binary prints today, so the README
// cannot go stale. An example is a fenced block whose first line is "$ gpuplan ARGS" (a trailing
// backslash continues the command); the lines up to the next "$ " line or the fence are its
// expected stdout followed by its stderr. A line "..." stands for any number of lines.
//
//   readme_examples GPUPLAN WORKDIR FILE.md...
// With GPUPLAN_UPDATE_GOLDEN=1 the blocks are rewritten from the real output (the lines before
// the first "..." and after the last one are refreshed; the elision stays where it was).
#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    lines.push_back(line);
  }
  return lines;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs the command through the shell from `workdir`: stdout, then stderr.
std::vector<std::string> run(const std::string& gpuplan, const std::string& workdir, const std::string& args) {
  char err_path[] = "/tmp/gpuplan-readme-XXXXXX";
  const int fd = mkstemp(err_path);
  if (fd < 0) {
    std::perror("mkstemp");
    std::exit(3);
  }
  close(fd);
  const std::string command = "cd '" + workdir + "' && GPUPLAN_CATALOG= GPUPLAN_TODAY=2026-12-01 '" + gpuplan + "' " +
                              args + " 2>" + err_path;
  std::string out;
  if (FILE* pipe = popen(command.c_str(), "r")) {
    std::array<char, 4096> buf{};
    for (std::size_t n; (n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0;) {
      out.append(buf.data(), n);
    }
    pclose(pipe);
  }
  out += read_file(err_path);
  std::remove(err_path);
  return split_lines(out);
}

// Does `got` match `want`, where "..." in `want` matches any run of lines?
bool matches(const std::vector<std::string>& want, std::size_t wi, const std::vector<std::string>& got,
             std::size_t gi) {
  if (wi == want.size()) {
    return gi == got.size();
  }
  if (want[wi] == "...") {
    for (std::size_t k = gi; k <= got.size(); ++k) {
      if (matches(want, wi + 1, got, k)) {
        return true;
      }
    }
    return false;
  }
  return gi < got.size() && want[wi] == got[gi] && matches(want, wi + 1, got, gi + 1);
}

// The expected lines refreshed from `got`: the head before the first "..." and the tail after
// the last one keep their lengths; anything between is kept as written.
std::vector<std::string> refreshed(const std::vector<std::string>& want, const std::vector<std::string>& got) {
  std::size_t first = 0;
  while (first < want.size() && want[first] != "...") {
    ++first;
  }
  if (first == want.size()) {
    return got;
  }
  std::size_t last = want.size() - 1;
  while (want[last] != "...") {
    --last;
  }
  const std::size_t tail = want.size() - last - 1;
  if (first + tail > got.size()) {
    return got;
  }
  std::vector<std::string> out(got.begin(), got.begin() + static_cast<std::ptrdiff_t>(first));
  out.insert(out.end(), want.begin() + static_cast<std::ptrdiff_t>(first),
             want.begin() + static_cast<std::ptrdiff_t>(last) + 1);
  out.insert(out.end(), got.end() - static_cast<std::ptrdiff_t>(tail), got.end());
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::cerr << "usage: readme_examples GPUPLAN WORKDIR FILE.md...\n";
    return 2;
  }
  const std::string gpuplan = argv[1];
  const std::string workdir = argv[2];
  const char* update_env = std::getenv("GPUPLAN_UPDATE_GOLDEN");
  const bool update = update_env != nullptr && std::string(update_env) == "1";
  int failures = 0;
  int examples = 0;
  for (int f = 3; f < argc; ++f) {
    const std::string path = argv[f];
    const std::vector<std::string> lines = split_lines(read_file(path));
    std::vector<std::string> out;
    bool changed = false;
    for (std::size_t i = 0; i < lines.size();) {
      out.push_back(lines[i]);
      const bool fence = lines[i] == "```";
      ++i;
      if (!fence || i >= lines.size() || lines[i].rfind("$ gpuplan ", 0) != 0) {
        continue;
      }
      // One block: commands and their output until the closing fence.
      while (i < lines.size() && lines[i] != "```") {
        std::string args = lines[i].substr(std::string("$ gpuplan ").size());
        out.push_back(lines[i]);
        ++i;
        while (!args.empty() && args.back() == '\\' && i < lines.size()) {
          args.pop_back();
          args += lines[i];
          out.push_back(lines[i]);
          ++i;
        }
        std::vector<std::string> want;
        while (i < lines.size() && lines[i] != "```" && lines[i].rfind("$ ", 0) != 0) {
          want.push_back(lines[i]);
          ++i;
        }
        ++examples;
        const std::vector<std::string> got = run(gpuplan, workdir, args);
        if (matches(want, 0, got, 0)) {
          out.insert(out.end(), want.begin(), want.end());
          continue;
        }
        if (update) {
          const std::vector<std::string> fresh = refreshed(want, got);
          out.insert(out.end(), fresh.begin(), fresh.end());
          changed = true;
          continue;
        }
        ++failures;
        std::cerr << path << ": the example 'gpuplan " << args << "' no longer prints what the file shows\n"
                  << "--- file ---\n";
        for (const std::string& l : want) {
          std::cerr << l << "\n";
        }
        std::cerr << "--- gpuplan prints ---\n";
        for (const std::string& l : got) {
          std::cerr << l << "\n";
        }
        out.insert(out.end(), want.begin(), want.end());
      }
    }
    if (changed) {
      std::ofstream o(path, std::ios::binary);
      for (const std::string& l : out) {
        o << l << "\n";
      }
      std::cout << "rewrote examples in " << path << "\n";
    }
  }
  std::cout << examples << " examples checked, " << failures << " stale\n";
  return failures == 0 && examples > 0 ? 0 : 1;
}
