#pragma once
// Names pasted from web pages, PDFs and chat carry Unicode look-alikes of ASCII: a hyphen
// U+2010 or en dash for '-', a zero-width space, full-width letters from an IME. Catalog ids are
// ASCII, so these are folded (a narrow NFKC: only what maps to ASCII) before a name is matched.

#include <string>
#include <string_view>

namespace gpuplan {

struct FoldedName {
  std::string text;     ///< the name with its look-alikes as ASCII and invisible characters dropped
  std::string changes;  ///< what changed, for a note ("U+2010 as '-', invisible U+200B dropped"); empty if nothing
};

/// Full-width ASCII (U+FF01..U+FF5E) as ASCII, Unicode dashes and minus as '-', Unicode spaces as
/// ' ', mathematical and circled letters and digits as ASCII, and format characters (zero-width,
/// bidi marks, BOM, soft hyphen), combining marks and trademark signs dropped. Other bytes, and
/// invalid UTF-8, stay as they are.
FoldedName fold_name(std::string_view name);

}  // namespace gpuplan
