#include <catch2/catch.hpp>

#include <string>

#include <gpuplan/catalog.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/name_fold.hpp>

using gpuplan::fold_name;

// s54 bad-input sweep F3/F6: names pasted with Unicode look-alikes of ASCII.
TEST_CASE("fold_name: look-alikes of ASCII are folded, and the change is said", "[name_fold]") {
  CHECK(fold_name("h100-sxm").text == "h100-sxm");
  CHECK(fold_name("h100-sxm").changes.empty());
  const auto dash = fold_name("h100\u2010sxm");  // U+2010 HYPHEN
  CHECK(dash.text == "h100-sxm");
  CHECK(dash.changes == "U+2010 as '-'");
  CHECK(fold_name("llama\u20133.1\u20148b").text == "llama-3.1-8b");  // en and em dash
  const auto zw = fold_name("h100\u200b");
  CHECK(zw.text == "h100");
  CHECK(zw.changes == "invisible U+200B dropped");
  CHECK(fold_name("\xef\xbb\xbfh100").text == "h100");                      // BOM
  CHECK(fold_name("\uff28\uff11\uff10\uff10").text == "H100");              // full-width
  CHECK(fold_name("\uff48100").changes == "full-width characters as ASCII");
  CHECK(fold_name("a100\u00a080gb").text == "a100 80gb");                   // NBSP
  CHECK(fold_name("h1\u0301 00").text == "h1 00");                          // combining acute
  // Invalid UTF-8 and other characters are kept as they are.
  CHECK(fold_name("h100\xff").text == "h100\xff");
  CHECK(fold_name("\xe2\x80").text == "\xe2\x80");
  CHECK(fold_name("caf\u00e9").text == "caf\u00e9");
  // Cyrillic and Greek letters drawn like Latin ones (a Russian keyboard's H, a Greek Alpha).
  const auto cyrillic = fold_name("\u041d100");
  CHECK(cyrillic.text == "H100");
  CHECK(cyrillic.changes == "U+041D as 'H'");
  CHECK(fold_name("\u0391100").text == "A100");
  CHECK(fold_name("\u0436").text == "\u0436");  // a Cyrillic letter with no Latin twin stays
}

TEST_CASE("catalog: names with Unicode look-alikes resolve, with an honest note", "[name_fold][catalog]") {
  const gpuplan::Catalog& c = gpuplan::Catalog::builtin();
  (void)c.take_notes();
  // The alias 'h100' with a zero-width space was "ambiguous" (h100-sxm, h100-pcie, h100-nvl).
  CHECK(c.gpu("h100\u200b").id == "h100-sxm");
  auto notes = c.take_notes();
  REQUIRE(notes.size() == 1);
  CHECK(notes.front() == "GPU 'h100\u200b' read as 'h100-sxm' (alias; invisible U+200B dropped)");
  // An exact id once folded still gets a note: the name typed is not the id.
  CHECK(c.gpu("h100\u2010sxm").id == "h100-sxm");
  notes = c.take_notes();
  REQUIRE(notes.size() == 1);
  CHECK(notes.front() == "GPU 'h100\u2010sxm' read as 'h100-sxm' (U+2010 as '-')");
  CHECK(c.gpu("\uff28100").id == "h100-sxm");  // full-width H had no closest name at all
  CHECK(c.gpu("\u041d100").id == "h100-sxm");  // Cyrillic H got b200-like closest names
  CHECK(c.model("\uff4c\uff4c\uff41\uff4d\uff41-3.1-8b").id == "llama-3.1-8b");
  (void)c.take_notes();
}

// helper s55 bad-input F10: compatibility forms NFKC folds to ASCII letters and digits.
TEST_CASE("fold_name: mathematical and circled letters and digits are ASCII", "[name_fold]") {
  CHECK(fold_name("\U0001D421100").text == "h100");  // MATHEMATICAL BOLD SMALL H
  CHECK(fold_name("\U0001D421100").changes == "U+1D421 as 'h'");
  CHECK(fold_name("\U0001D407\U0001D7CF\U0001D7CE\U0001D7CE").text == "H100");  // bold capital H, bold digits
  CHECK(fold_name("\U0001D5C1100").text == "h100");  // sans-serif
  CHECK(fold_name("\u24d7100").text == "h100");      // CIRCLED LATIN SMALL LETTER H
  CHECK(fold_name("\u24bd\u2460\u24ea\u24ea").text == "H100");
  CHECK(fold_name("h\u00b9\u00bd").text == "h\u00b9\u00bd");  // a superscript or fraction changes a number
  CHECK(fold_name("NVIDIA\u00ae H100").text == "NVIDIA H100");
  CHECK(fold_name("NVIDIA\u00ae H100").changes == "U+00AE dropped");
  const gpuplan::Catalog& c = gpuplan::Catalog::builtin();
  CHECK(c.gpu("\U0001D421100").id == "h100-sxm");
  CHECK(c.gpu("\u24d7100").id == "h100-sxm");
  // A superscript is no digit of a name, but the closest names read it as one.
  CHECK(c.resolve_gpu("h\u00b9\u2070\u2070") == nullptr);
  CHECK_THROWS_WITH(c.gpu("h\u00b9\u2070\u2070"), Catch::Matchers::Contains("closest: h100"));
  (void)c.take_notes();
}

TEST_CASE("catalog: a list given for one GPU names the closest of each and one per flag", "[name_fold][catalog]") {
  try {
    (void)gpuplan::Catalog::builtin().gpu("h100,h200");
    FAIL("no error");
  } catch (const gpuplan::InputError& e) {
    const std::string m = e.what();
    CHECK(m.find("a flag names one GPU") != std::string::npos);
    CHECK(m.find("h100-sxm") != std::string::npos);
    CHECK(m.find("h200") != std::string::npos);
  }
}
