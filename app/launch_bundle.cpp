#include "launch_bundle.hpp"

#include <fstream>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tuner/core/error.hpp"
#include "tuner/core/source_identity.hpp"
#include "tuner/core/text_file.hpp"
#include "tuner/core/version.hpp"
#include "tuner/device/offline_compiler.hpp"
#include "tuner/ops/operation.hpp"
#include "tuner/plan/kernel_arguments.hpp"
#include "tuner/plan/launch_plan.hpp"
#include "tuner/plan/tensor_map_arguments.hpp"
#include "tuner/record/result.hpp"
#include "tuner/spec/space.hpp"

namespace attn::cli {

namespace fs = std::filesystem;

namespace {

void write_bytes(const fs::path& path, const void* data, std::size_t size) {
  std::ofstream out(path, std::ios::binary);
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
  if (!out) throw Error(fmt::format("cannot write {}", path.string()));
}

std::string hex(const std::vector<std::byte>& bytes) {
  std::string s;
  for (std::byte b : bytes) s += fmt::format("{:02x}", static_cast<unsigned>(b));
  return s;
}

// The binary of one -D set: compiled now for CUDA, described for OpenCL.
nlohmann::json program_for(const Spec& spec, const std::string& backend, const KernelSpec& kernel, const LaunchPlan& plan,
                           const fs::path& dir, int index, nlohmann::json& resources) {
  CompileRequest request;
  request.source_path = spec.sources.at(backend);
  request.include_dirs = spec.include_dirs;
  request.include_dirs.push_back(request.source_path.parent_path());
  request.defines = plan.defines;
  request.entries = plan.entries;
  if (spec.compiler_options.contains(backend)) request.extra_options = spec.compiler_options.at(backend);
  request.arch = spec.cuda_arch.empty() ? "sm_90" : spec.cuda_arch;
  request.cuda_compiler = spec.cuda_compiler;
  if (backend != "cuda") {
    std::vector<std::string> options;
    for (const auto& d : request.defines) options.push_back(fmt::format("-D{}={}", d.name, d.value));
    for (const auto& i : request.include_dirs) options.push_back("-I" + i.string());
    for (const auto& o : request.extra_options) options.push_back(o);
    return {{"format", "opencl-source"}, {"source", request.source_path.string()}, {"options", options}};
  }
  const OfflineImage image = offline_compiler().compile_image(request);
  const std::string file = fmt::format("{}.{}.{}", file_name_part(kernel.name), index, image.format);
  write_bytes(dir / file, image.bytes.data(), image.bytes.size());
  for (const auto& [entry, res] : image.resources) resources[entry] = res.to_json();
  return {{"format", image.format},
          {"file", file},
          {"arch", image.arch},
          {"compiler", image.compiler},
          {"options", image.options}};
}

}  // namespace

int write_launch_bundle(const Spec& spec, const KernelSpec& kernel, const Config& config, std::uint64_t seed,
                        const fs::path& dir) {
  const std::string backend = spec.sources.contains("cuda") ? "cuda" : spec.sources.begin()->first;
  fs::create_directories(dir);
  const Operation& op = spec_operation(spec);
  const SourceIdentity identity = source_identity(spec.sources.at(backend), spec.include_dirs);
  nlohmann::json files = nlohmann::json::array();
  for (const auto& f : identity.files) files.push_back({{"path", f.path.string()}, {"sha256", f.sha256}});

  nlohmann::json shapes = nlohmann::json::array();
  std::map<std::string, std::pair<nlohmann::json, nlohmann::json>> programs;  // by -D set: program, resources
  int written = 0;
  for (const auto& shape_name : kernel.shapes) {
    const Shape& shape = spec.shape(shape_name);
    nlohmann::json s = {{"shape", shape.name}, {"fields", shape.fields}};
    LaunchPlan plan;
    try {
      plan = plan_launches(kernel, config, op.variables(shape.fields));
    } catch (const Outcome& o) {
      s["skipped"] = o.reason;
      shapes.push_back(std::move(s));
      continue;
    }
    const std::string defines = defines_string(plan.defines);
    const std::string key = program_key(plan.defines, plan.entries);
    if (!programs.contains(key)) {
      nlohmann::json resources = nlohmann::json::object();
      nlohmann::json program = program_for(spec, backend, kernel, plan, dir, static_cast<int>(programs.size()), resources);
      programs[key] = {std::move(program), std::move(resources)};
    }
    const auto problem = op.make_problem(shape.fields, seed);
    std::vector<std::vector<BoundArgument>> bound;
    try {
      bound = bind_launch_arguments(kernel, *problem, config_bindings(op.variables(shape.fields), config),
                                    op.number_variables(shape.fields));
    } catch (const Outcome& o) {
      s["skipped"] = o.reason;
      shapes.push_back(std::move(s));
      continue;
    }
    auto describe = [&](const std::vector<BoundArgument>& list) {
      nlohmann::json args = nlohmann::json::array();
      for (const auto& a : list) {
        switch (a.kind) {
          case BoundArgument::Kind::buffer: {
            const HostBuffer& b = problem->buffers()[a.buffer];
            args.push_back({{"name", b.name}, {"kind", b.is_output ? "output" : "input"}, {"bytes", b.data.size()}});
            break;
          }
          case BoundArgument::Kind::null: args.push_back({{"name", a.name}, {"kind", "null"}, {"bytes", 0}}); break;
          case BoundArgument::Kind::workspace:
            args.push_back(
                {{"name", "ws"}, {"kind", "workspace"}, {"bytes", std::max<std::size_t>(plan.workspace_bytes, 16)}});
            break;
          case BoundArgument::Kind::value:
            if (a.type == "params") {
              const std::string params_file = file_name_part(shape.name) + ".params.bin";
              write_bytes(dir / params_file, a.bytes.data(), a.bytes.size());
              args.push_back({{"name", "params"},
                              {"kind", "value"},
                              {"bytes", a.bytes.size()},
                              {"file", params_file},
                              {"hex", hex(a.bytes)}});
            } else {
              args.push_back({{"name", a.name},
                              {"kind", "value"},
                              {"type", a.type},
                              {"value", a.value},
                              {"bytes", a.bytes.size()},
                              {"hex", hex(a.bytes)}});
            }
        }
      }
      // TMA tensor maps: what to encode (cuTensorMapEncodeTiled) once the buffer's address is known.
      for (std::size_t m = 0; m < plan.tensor_maps.size(); ++m) {
        const TensorMapDescription d = describe_tensor_map(plan.tensor_maps[m], m, shape.fields);
        args.push_back({{"name", plan.tensor_maps[m].buffer + "_map"},
                        {"kind", "tensor_map"},
                        {"buffer", plan.tensor_maps[m].buffer},
                        {"element", element_name(d.element)},
                        {"dims", d.dims},
                        {"strides", d.strides},
                        {"box", d.box},
                        {"swizzle", d.swizzle_bytes},
                        {"bytes", 128}});
      }
      return args;
    };
    nlohmann::json launches = nlohmann::json::array();
    bool one_list = true;  // every launch on the same arguments: also the shape's "args", as before pipelines had their own
    for (std::size_t i = 0; i < plan.launches.size(); ++i) {
      const Launch& l = plan.launches[i];
      launches.push_back({{"entry", l.entry},
                          {"grid", l.grid},
                          {"block", l.block},
                          {"shared_bytes", l.dynamic_shared_bytes},
                          {"args", describe(bound[i])}});
      if (l.cluster != std::array<std::uint64_t, 3>{1, 1, 1}) launches.back()["cluster"] = l.cluster;
      one_list = one_list && launches.back()["args"] == launches.front()["args"];
    }
    if (one_list) s["args"] = launches.front()["args"];
    s["defines"] = defines;
    s["program"] = programs[key].first;
    s["resources"] = programs[key].second;
    s["launches"] = std::move(launches);
    s["flops"] = problem->flops();
    s["bytes"] = problem->bytes();
    shapes.push_back(std::move(s));
    ++written;
  }

  const nlohmann::json manifest = {
      {"schema", "attn-tune.launch/1"},
      {"attn_tune", {{"version", kVersion}, {"git_commit", kGitCommit}}},
      {"spec", {{"path", spec.path.string()}, {"name", spec.name}, {"sha256", spec.sha256}, {"operation", spec.operation}}},
      {"source",
       {{"backend", backend}, {"path", spec.sources.at(backend).string()}, {"sha256", identity.sha256}, {"files", files}}},
      {"kernel", kernel.name},
      {"config", config_key(config)},
      {"preset", kernel.preset_label(config)},
      // attn-tune's own inputs come from this seed (its verification); a harness may
      // launch on any inputs of the arguments' sizes and layouts (the operation's params header).
      {"seed", seed},
      {"args_order",
       std::string(!kernel.declares_arguments()
                       ? "buffers in the operation's order, then the workspace, then the params struct by value"
                       : "each launch's declared arguments (its own, else the kernel's), in order") +
           ", then the kernel's TMA tensor maps (128 bytes each, by value); each launch's list is its \"args\", "
           "and the shape's \"args\" when every launch takes the same"},
      {"shapes", std::move(shapes)}};
  write_file_atomically(dir / "launch.json", manifest.dump(1) + "\n");
  return written;
}

}  // namespace attn::cli
