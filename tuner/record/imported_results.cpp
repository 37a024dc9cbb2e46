#include "tuner/record/imported_results.hpp"

#include <fmt/format.h>

#include "tuner/core/error.hpp"
#include "tuner/record/leaderboard.hpp"

namespace attn {
namespace {

using ojson = nlohmann::ordered_json;

[[noreturn]] void bad(const std::string& file, const std::string& field, const std::string& what) {
  throw UsageError(fmt::format("{}: {}: {}", file, field, what));
}

const ojson& member(const ojson& j, const char* key, const std::string& file, const std::string& where) {
  if (!j.is_object() || !j.contains(key)) bad(file, where.empty() ? key : where + "." + key, "missing");
  return j.at(key);
}

// A parameter's value as a configuration holds it.
ParamValue param_value(const ojson& v, const std::string& file, const std::string& field) {
  if (v.is_number_integer()) return ParamValue(v.get<long long>());
  if (v.is_number_float()) return ParamValue::real(v.get<double>());
  if (v.is_boolean()) return ParamValue::boolean(v.get<bool>());
  if (v.is_string()) return ParamValue::identifier(v.get<std::string>());
  bad(file, field, fmt::format("expected a number, a boolean or a string, got {}", v.dump()));
}

double number(const ojson& v, const std::string& file, const std::string& field) {
  if (!v.is_number()) bad(file, field, fmt::format("expected a number, got {}", v.dump()));
  return v.get<double>();
}

// TIME_MS as the median (the file's objective), the spread from RUNTIMES where the file has them.
SampleStats timing_of(double time_ms, const ojson& runtimes, const std::string& file, const std::string& field) {
  std::vector<double> runs;
  if (runtimes.is_array())
    for (std::size_t i = 0; i < runtimes.size(); ++i)
      runs.push_back(number(runtimes[i], file, fmt::format("{}[{}]", field, i)));
  SampleStats t = SampleStats::of(runs.empty() ? std::vector<double>{time_ms} : runs);
  t.median_ms = time_ms;
  t.converged = true;  // as far as the file says: it was timed to its tuner's own rule
  return t;
}

Leaderboard imported(const std::string& file, std::string device, std::string kernel, std::string shape,
                     std::vector<ConfigResult> results) {
  Leaderboard lb;
  lb.file = file;
  lb.device.name = std::move(device);
  lb.device.id = "recorded";
  lb.spec_name = kernel;
  lb.operation = "recorded";
  lb.settings.measure.mode = MeasureMode::thorough;
  for (auto& r : results) {
    r.job.kernel = kernel;
    r.job.shape = shape;
  }
  lb.groups.push_back(ranked_group(kernel, shape, nlohmann::json::object(), std::move(results), {}, ""));
  return lb;
}

std::string problem_size_text(const ojson& size) {
  if (size.is_array()) {
    std::string s;
    for (const auto& v : size) s += (s.empty() ? "" : "x") + (v.is_string() ? v.get<std::string>() : v.dump());
    return s.empty() ? "recorded" : s;
  }
  return size.is_null() ? "recorded" : (size.is_string() ? size.get<std::string>() : size.dump());
}

}  // namespace

ResultsFormat results_format(const nlohmann::json& j) {
  if (!j.is_object()) return ResultsFormat::unknown;
  if (j.contains("schema") && j.at("schema").is_string() &&
      j.at("schema").get<std::string>().starts_with(kLeaderboardSchemaPrefix))
    return ResultsFormat::leaderboard;
  if (j.contains("cache") && j.contains("tune_params_keys")) return ResultsFormat::kernel_tuner_cache;
  if (j.contains("results") && j.at("results").is_array() && j.contains("schema_version")) return ResultsFormat::t4_results;
  if (j.contains("groups")) return ResultsFormat::leaderboard;
  return ResultsFormat::unknown;
}

Leaderboard leaderboard_from_kernel_tuner_cache(const ojson& j, const std::string& file) {
  const ojson& keys = member(j, "tune_params_keys", file, "");
  if (!keys.is_array() || keys.empty()) bad(file, "tune_params_keys", "expected a non-empty list of parameter names");
  std::vector<std::string> names;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (!keys[i].is_string()) bad(file, fmt::format("tune_params_keys[{}]", i), "expected a parameter name");
    names.push_back(keys[i].get<std::string>());
  }
  const ojson& cache = member(j, "cache", file, "");
  if (!cache.is_object()) bad(file, "cache", "expected an object of configurations");
  std::vector<ConfigResult> results;
  for (const auto& [id, entry] : cache.items()) {
    const std::string where = fmt::format("cache[\"{}\"]", id);
    ConfigResult r;
    for (const auto& name : names)
      r.job.config.emplace_back(name, param_value(member(entry, name.c_str(), file, where), file, where + "." + name));
    const ojson& time = member(entry, "time", file, where);
    if (time.is_number()) {
      r.status = Status::ok;
      r.timing =
          timing_of(time.get<double>(), entry.contains("times") ? entry.at("times") : ojson(), file, where + ".times");
      if (entry.contains("compile_time") && entry.at("compile_time").is_number())
        r.compile_ms = entry.at("compile_time").get<double>();
    } else if (time.is_string() && time.get<std::string>() == "CompilationFailedConfig") {
      r.status = Status::compile_failed;
      r.reason = "Kernel Tuner: CompilationFailedConfig";
    } else if (time.is_string() && time.get<std::string>() == "RuntimeFailedConfig") {
      r.status = Status::launch_failed;
      r.reason = "Kernel Tuner: RuntimeFailedConfig";
    } else if (time.is_string() && time.get<std::string>() == "InvalidConfig") {
      r.status = Status::skipped;
      r.reason = "Kernel Tuner: InvalidConfig (a restriction or a device limit)";
    } else {
      bad(file, where + ".time",
          fmt::format("expected a time in ms or CompilationFailedConfig, RuntimeFailedConfig or InvalidConfig, got {}",
                      time.dump()));
    }
    results.push_back(std::move(r));
  }
  const std::string kernel =
      j.contains("kernel_name") && j.at("kernel_name").is_string() ? j.at("kernel_name").get<std::string>() : "kernel";
  const std::string device =
      j.contains("device_name") && j.at("device_name").is_string() ? j.at("device_name").get<std::string>() : "";
  return imported(file, device, kernel, problem_size_text(j.contains("problem_size") ? j.at("problem_size") : ojson()),
                  std::move(results));
}

Leaderboard leaderboard_from_t4_results(const ojson& j, const std::string& file) {
  const ojson meta = j.contains("metadata") && j.at("metadata").is_object() ? j.at("metadata") : ojson::object();
  // attn-tune's export names the parameters in the spec's order; other files give each configuration's order.
  std::vector<std::string> order;
  if (meta.contains("parameters") && meta.at("parameters").is_array())
    for (const auto& p : meta.at("parameters"))
      if (p.is_string()) order.push_back(p.get<std::string>());
  const ojson& list = j.at("results");
  std::vector<ConfigResult> results;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string where = fmt::format("results[{}]", i);
    const ojson& e = list[i];
    const ojson& configuration = member(e, "configuration", file, where);
    if (!configuration.is_object()) bad(file, where + ".configuration", "expected an object of parameter values");
    ConfigResult r;
    if (!order.empty()) {
      for (const auto& name : order)
        r.job.config.emplace_back(name, param_value(member(configuration, name.c_str(), file, where + ".configuration"),
                                                    file, where + ".configuration." + name));
    } else {
      for (const auto& [name, v] : configuration.items())
        r.job.config.emplace_back(name, param_value(v, file, where + ".configuration." + name));
    }
    const ojson& invalidity = member(e, "invalidity", file, where);
    const std::string inv = invalidity.is_string() ? invalidity.get<std::string>() : "";
    if (e.contains("status") && e.at("status").is_string()) {  // attn-tune's own export says it exactly
      try {
        r.status = status_from_name(e.at("status").get<std::string>());
      } catch (const Error& err) {
        bad(file, where + ".status", err.what());
      }
    } else if (inv == "correct") r.status = Status::ok;
    else if (inv == "compile") r.status = Status::compile_failed;
    else if (inv == "runtime") r.status = Status::launch_failed;
    else if (inv == "correctness") r.status = Status::incorrect;
    else if (inv == "timeout") r.status = Status::timeout;
    else if (inv == "constraints") r.status = Status::skipped;
    else
      bad(file, where + ".invalidity",
          fmt::format("expected correct, compile, runtime, correctness, timeout or constraints, got {}", invalidity.dump()));
    if (r.status != Status::ok) r.reason = e.value("reason", fmt::format("T4 invalidity: {}", inv));
    const ojson times = e.contains("times") && e.at("times").is_object() ? e.at("times") : ojson::object();
    std::map<std::string, double> m;
    if (e.contains("measurements") && e.at("measurements").is_array())
      for (std::size_t k = 0; k < e.at("measurements").size(); ++k) {
        const ojson& x = e.at("measurements")[k];
        if (x.is_object() && x.contains("name") && x.at("name").is_string() && x.contains("value") &&
            x.at("value").is_number())
          m[x.at("name").get<std::string>()] = x.at("value").get<double>();
      }
    if (r.status == Status::ok) {
      if (!m.contains("time")) bad(file, where + ".measurements", "a correct result without a `time` measurement");
      r.timing = timing_of(m.at("time"), times.contains("runtimes") ? times.at("runtimes") : ojson(), file,
                           where + ".times.runtimes");
      // attn-tune's own export carries its statistics as measurements.
      if (m.contains("time_q1")) r.timing->q1_ms = m.at("time_q1");
      if (m.contains("time_q3")) r.timing->q3_ms = m.at("time_q3");
      if (m.contains("time_min")) r.timing->min_ms = m.at("time_min");
      if (m.contains("rel_noise")) r.timing->rel_noise = m.at("rel_noise");
      if (m.contains("samples")) r.timing->samples = static_cast<int>(m.at("samples"));
      if (m.contains("TFLOP/s")) r.gflops = m.at("TFLOP/s") * 1000;
      if (m.contains("GB/s")) r.gbps = m.at("GB/s");
    }
    for (const char* key : {"compilation_time", "compilation"})
      if (times.contains(key) && times.at(key).is_number()) r.compile_ms = times.at(key).get<double>();
    results.push_back(std::move(r));
  }
  auto text = [&](const char* key, const std::string& otherwise) {
    return meta.contains(key) && meta.at(key).is_string() ? meta.at(key).get<std::string>() : otherwise;
  };
  return imported(file, text("device", ""), text("kernel", "kernel"), text("shape", "recorded"), std::move(results));
}

}  // namespace attn
