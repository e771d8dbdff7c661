// `gpuplan report --format html` in a real headless browser (Debian's chromium): the page loads
// without console errors or blocked fetches, the DOM holds the SVG charts with their figures,
// and a screenshot is a full-size image that is not blank and shows the charts' colours.
// A control page with a deliberate console error and nothing drawn must fail the same checks,
// so a browser that logs nothing or a blank screenshot cannot pass unnoticed.
// Exits 77 (ctest SKIP_RETURN_CODE) when chromium is missing.
#include <zlib.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

struct Failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void expect(bool ok, const std::string& what) {
  if (!ok) {
    throw Failure(what);
  }
}

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string quoted(const std::string& s) { return "'" + s + "'"; }

int run(const std::string& command) {
  std::cout << "$ " << command << "\n" << std::flush;
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) {
    ++n;
  }
  return n;
}

// Headless Chromium with its own profile (several runs may share the machine), logging the
// page's console to stderr.
std::string chromium(const std::string& exe, const fs::path& work, const std::string& mode, const fs::path& page,
                     const fs::path& out, const fs::path& log) {
  return quoted(exe) + " --headless=new --disable-gpu --no-sandbox --no-first-run --disable-extensions" +
         " --disable-dev-shm-usage --hide-scrollbars --user-data-dir=" + quoted((work / "profile").string()) +
         " --enable-logging=stderr --v=0 --window-size=1200,2000 " + mode + " " +
         quoted("file://" + fs::absolute(page).string()) + " >" + quoted(out.string()) + " 2>" + quoted(log.string());
}

// What the page said on its console, or a policy that blocked something.
std::vector<std::string> console_problems(const std::string& log) {
  std::vector<std::string> problems;
  std::istringstream lines(log);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("CONSOLE") != std::string::npos || line.find("Uncaught") != std::string::npos ||
        line.find("Content Security Policy") != std::string::npos || line.find("Refused to") != std::string::npos) {
      problems.push_back(line);
    }
  }
  return problems;
}

struct Image {
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  std::vector<std::array<std::uint8_t, 3>> pixels;  // RGB, row by row
};

std::uint32_t be32(const std::string& s, std::size_t at) {
  return (std::uint32_t{static_cast<std::uint8_t>(s[at])} << 24) | (std::uint32_t{static_cast<std::uint8_t>(s[at + 1])} << 16) |
         (std::uint32_t{static_cast<std::uint8_t>(s[at + 2])} << 8) | std::uint32_t{static_cast<std::uint8_t>(s[at + 3])};
}

int paeth(int a, int b, int c) {
  const int p = a + b - c;
  const int pa = std::abs(p - a);
  const int pb = std::abs(p - b);
  const int pc = std::abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

// PNG (8-bit RGB or RGBA, not interlaced: what Chromium writes): chunks, zlib, then the
// per-row filters of the PNG specification, section 9.
Image decode_png(const std::string& png) {
  expect(png.size() > 33 && png.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0, "not a PNG file");
  Image img;
  int channels = 0;
  std::string idat;
  for (std::size_t at = 8; at + 8 <= png.size();) {
    const std::uint32_t length = be32(png, at);
    const std::string type = png.substr(at + 4, 4);
    expect(at + 12 + length <= png.size(), "truncated PNG chunk " + type);
    if (type == "IHDR") {
      img.width = be32(png, at + 8);
      img.height = be32(png, at + 12);
      const int depth = static_cast<std::uint8_t>(png[at + 16]);
      const int color = static_cast<std::uint8_t>(png[at + 17]);
      expect(depth == 8 && (color == 2 || color == 6) && png[at + 20] == 0, "PNG is not 8-bit RGB(A), non-interlaced");
      channels = color == 6 ? 4 : 3;
    } else if (type == "IDAT") {
      idat += png.substr(at + 8, length);
    }
    at += 12 + length;
  }
  expect(channels > 0 && img.width > 0 && img.height > 0, "PNG without a header");
  const std::size_t stride = std::size_t{img.width} * static_cast<std::size_t>(channels);
  std::vector<std::uint8_t> raw((stride + 1) * img.height);
  uLongf raw_size = raw.size();
  expect(uncompress(raw.data(), &raw_size, reinterpret_cast<const Bytef*>(idat.data()), idat.size()) == Z_OK &&
             raw_size == raw.size(),
         "PNG image data does not inflate to its size");
  std::vector<std::uint8_t> previous(stride, 0);
  std::vector<std::uint8_t> row(stride);
  img.pixels.reserve(std::size_t{img.width} * img.height);
  for (std::uint32_t y = 0; y < img.height; ++y) {
    const std::uint8_t filter = raw[y * (stride + 1)];
    expect(filter <= 4, "bad PNG filter");
    for (std::size_t i = 0; i < stride; ++i) {
      const int x = raw[y * (stride + 1) + 1 + i];
      const int a = i >= static_cast<std::size_t>(channels) ? row[i - static_cast<std::size_t>(channels)] : 0;
      const int b = previous[i];
      const int c = i >= static_cast<std::size_t>(channels) ? previous[i - static_cast<std::size_t>(channels)] : 0;
      const int predictor = filter == 1 ? a : filter == 2 ? b : filter == 3 ? (a + b) / 2 : filter == 4 ? paeth(a, b, c) : 0;
      row[i] = static_cast<std::uint8_t>((x + predictor) & 0xFF);
    }
    for (std::size_t px = 0; px < img.width; ++px) {
      const std::size_t i = px * static_cast<std::size_t>(channels);
      img.pixels.push_back({row[i], row[i + 1], row[i + 2]});
    }
    previous.swap(row);
  }
  return img;
}

struct Stats {
  double non_white = 0;        // share of pixels that are not (near) white
  std::size_t blue = 0;        // #0072B2: weights, the estimate, on-demand bars
  std::size_t orange = 0;      // #E69F00: the KV cache
  std::size_t rows_with_ink = 0;
};

Stats measure(const Image& img) {
  Stats s;
  std::size_t ink = 0;
  const auto near = [](const std::array<std::uint8_t, 3>& p, int r, int g, int b) {
    return std::abs(p[0] - r) < 12 && std::abs(p[1] - g) < 12 && std::abs(p[2] - b) < 12;
  };
  for (std::uint32_t y = 0; y < img.height; ++y) {
    bool row_ink = false;
    for (std::uint32_t x = 0; x < img.width; ++x) {
      const auto& p = img.pixels[std::size_t{y} * img.width + x];
      if (p[0] < 235 || p[1] < 235 || p[2] < 235) {
        ++ink;
        row_ink = true;
      }
      s.blue += near(p, 0x00, 0x72, 0xB2) ? 1U : 0U;
      s.orange += near(p, 0xE6, 0x9F, 0x00) ? 1U : 0U;
    }
    s.rows_with_ink += row_ink ? 1U : 0U;
  }
  s.non_white = static_cast<double>(ink) / static_cast<double>(img.pixels.size());
  return s;
}

void print(const std::string& name, const Image& img, const Stats& s) {
  std::cout << name << ": " << img.width << " x " << img.height << " px, " << s.non_white * 100
            << " % not white, " << s.rows_with_ink << " rows with ink, " << s.blue << " blue and " << s.orange
            << " orange chart pixels\n";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::cerr << "usage: browser_report_test GPUPLAN CHROMIUM PLAN WORK_DIR\n";
    return 2;
  }
  const std::string gpuplan = argv[1];
  const std::string exe = argv[2];
  const fs::path plan = argv[3];
  const fs::path work = argv[4];
  if (exe.empty() || exe.ends_with("NOTFOUND") || !fs::exists(exe)) {
    std::cout << "SKIP: chromium not found (apt-get install chromium; tools/install-deps.sh installs it)\n";
    return 77;
  }
  try {
    fs::remove_all(work);
    fs::create_directories(work);
    const fs::path report = work / "report.html";
    expect(run(quoted(gpuplan) + " report " + quoted(plan.string()) + " --format html --output " +
               quoted(report.string())) == 0,
           "gpuplan report failed");
    const std::string html = read(report);

    // One browser run: the DOM as the browser built it, and a screenshot of the same load.
    const fs::path dom = work / "dom.html";
    const fs::path png = work / "report.png";
    expect(run(chromium(exe, work, "--dump-dom --screenshot=" + quoted(png.string()), report, dom,
                        work / "report.log")) == 0,
           "chromium --dump-dom --screenshot failed");

    // 1. Every chart is in the DOM, with its figures as text; the console stayed quiet.
    const std::string dom_text = read(dom);
    const std::size_t svgs = count(dom_text, "<svg ");
    std::cout << "DOM: " << dom_text.size() << " bytes, " << svgs << " svg elements, " << count(dom_text, "<path ")
              << " paths, " << count(dom_text, "<rect ") << " rects\n";
    expect(svgs >= 6 && svgs == count(html, "<svg "), "the DOM does not hold every SVG chart of the report");
    expect(count(dom_text, "planned: ") >= 2 && dom_text.find("roofline bound") != std::string::npos &&
               dom_text.find("USD per million output tokens") != std::string::npos &&
               dom_text.find("KV cache (planned load)") != std::string::npos,
           "the charts' texts are missing from the DOM");
    const auto problems = console_problems(read(work / "report.log"));
    for (const auto& p : problems) {
      std::cout << "console: " << p << "\n";
    }
    expect(problems.empty(), "the report logged console errors or blocked requests");

    // 2. The screenshot: full size, not blank, the charts' colours on it.
    const Image image = decode_png(read(png));
    const Stats stats = measure(image);
    print("screenshot " + png.string(), image, stats);
    expect(image.width == 1200 && image.height == 2000, "the screenshot is not 1200 x 2000");
    expect(stats.non_white > 0.03 && stats.rows_with_ink > 1000, "the screenshot is (nearly) blank");
    expect(stats.blue > 2000 && stats.orange > 500, "the screenshot shows no chart colours");

    // 3. The control: a console error and an empty page must be caught by the same checks.
    const fs::path control = work / "control.html";
    std::ofstream(control) << "<!DOCTYPE html><html><body><script>console.error('gpuplan-control')</script>"
                              "</body></html>\n";
    const fs::path control_png = work / "control.png";
    expect(run(chromium(exe, work, "--screenshot=" + quoted(control_png.string()), control, work / "control.out",
                        work / "control.log")) == 0,
           "chromium --screenshot of the control page failed");
    const auto control_problems = console_problems(read(work / "control.log"));
    expect(!control_problems.empty() && control_problems.front().find("gpuplan-control") != std::string::npos,
           "the control page's console error was not seen: the console check would miss errors");
    const Image blank = decode_png(read(control_png));
    const Stats blank_stats = measure(blank);
    print("control " + control_png.string(), blank, blank_stats);
    expect(blank_stats.non_white < 0.001 && blank_stats.blue == 0, "the blank control page does not read as blank");
    std::cout << "browser report test: ok\n";
    return 0;
  } catch (const std::exception& e) {
    std::cout << "FAILED: " << e.what() << "\n";
    return 1;
  }
}
