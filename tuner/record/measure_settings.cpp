#include "tuner/record/measure_settings.hpp"

#include <fmt/format.h>

#include "tuner/core/error.hpp"

namespace attn {

const char* stage_name(Stage s) {
  switch (s) {
    case Stage::screen: return "screen";
    case Stage::race: return "race";
    case Stage::confirm: return "confirm";
    case Stage::thorough: return "thorough";
  }
  return "?";
}

MeasureMode measure_mode_from_name(const std::string& name) {
  if (name == "staged") return MeasureMode::staged;
  if (name == "thorough") return MeasureMode::thorough;
  throw UsageError(
      fmt::format("--measure {}: expected staged (screen, race, confirm; the default) or thorough "
                  "(every configuration measured to the noise target)",
                  name));
}

}  // namespace attn
