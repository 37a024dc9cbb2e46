// The HTML report's stylesheet, inlined in every report: dense tables with
// tabular figures, system fonts only (nothing to fetch), chart text classes.
#pragma once

namespace attn {

const char* report_css();

}  // namespace attn
