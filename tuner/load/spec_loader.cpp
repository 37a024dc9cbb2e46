#include "tuner/load/spec_loader.hpp"

#include <algorithm>
#include <cmath>
#include <regex>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tuner/core/error.hpp"
#include "tuner/core/identifier.hpp"
#include "tuner/load/custom_operation_loader.hpp"
#include "tuner/load/shape_selection.hpp"
#include "tuner/ops/operation.hpp"
#include "tuner/spec/json_field.hpp"
#include "tuner/spec/spec_document.hpp"

namespace attn {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kBackends = {"opencl", "cuda"};

// OPAQUE: parameters that are no expression values (reals, identifiers), named
// as such when an expression uses one.
Expression parse_expression(const JsonField& f, const std::vector<std::string>& names,
                            const std::vector<std::string>& opaque = {}) {
  try {
    return Expression(f.expression_text(), names);
  } catch (const ExpressionError& e) {
    for (const auto& name : opaque)
      if (std::string(e.what()).find("'" + name + "'") != std::string::npos)
        f.fail(
            fmt::format("'{}' is a real or identifier parameter: expressions see integer and boolean (0/1) "
                        "parameters only; it reaches the kernel as a -D option or a template argument",
                        name));
    f.fail(e.what());
  }
}

// A path relative to the file it is written in (a spec or a file it extends).
fs::path resolve(const JsonField& f) {
  const fs::path p = f.string();
  const fs::path dir = fs::path(f.file()).parent_path();
  return (p.is_absolute() ? p : (dir.empty() ? fs::path(".") : dir) / p).lexically_normal();
}

std::map<std::string, fs::path> load_sources(const JsonField& f) {
  std::map<std::string, fs::path> sources;
  for (const auto& [backend, value] : f.members()) {
    if (std::find(kBackends.begin(), kBackends.end(), backend) == kBackends.end())
      value.fail(fmt::format("unknown backend (known: {})", fmt::join(kBackends, ", ")));
    const fs::path path = resolve(value);
    // The error_code forms: a path the system refuses (too long, a loop) is "not found" with its reason,
    // not a filesystem_error.
    std::error_code ec;
    if (!fs::is_regular_file(path, ec))
      value.fail(fmt::format("kernel source not found: {} (resolved to {}){}", value.string(), path.string(),
                             ec ? ": " + ec.message() : ""));
    sources[backend] = path;
  }
  if (sources.empty()) f.fail("needs at least one kernel source");
  return sources;
}

// The shape's fields with the operation's defaults; COPIED_FROM gets the left-out fields that copy another's.
nlohmann::json load_shape(const JsonField& f, const Operation& op, std::map<std::string, std::string>& copied_from) {
  std::vector<std::string_view> allowed;
  const auto fields = op.shape_fields();
  for (const auto& field : fields) allowed.push_back(field.name);
  if (!f.value().is_object()) f.fail("expected an object of shape fields");
  for (const auto& [key, value] : f.members())
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end())
      value.fail(fmt::format("unknown shape field for operation '{}' (allowed: {})", op.name(), fmt::join(allowed, ", ")));

  nlohmann::json out = nlohmann::json::object();
  for (const auto& field : fields) {
    const auto given = f.optional_member(field.name);
    if (!given) {
      if (field.default_value.is_string() && field.type == ShapeField::Type::Integer) {
        out[field.name] = out.at(field.default_value.get<std::string>());  // default: another field's value
        copied_from[field.name] = field.default_value.get<std::string>();
      } else if (field.required) f.member(field.name);  // fails: missing required field
      else out[field.name] = field.default_value;
      continue;
    }
    switch (field.type) {
      case ShapeField::Type::Integer: {
        const long long value = given->integer();
        if (const std::string problem = shape_integer_problem(value); !problem.empty()) given->fail(problem);
        out[field.name] = value;
        break;
      }
      case ShapeField::Type::Number: out[field.name] = given->number(); break;
      case ShapeField::Type::IntegerList: {
        nlohmann::json list = nlohmann::json::array();
        for (const auto& e : given->elements()) {
          const long long value = e.integer();
          if (const std::string problem = shape_integer_problem(value); !problem.empty()) e.fail(problem);
          list.push_back(value);
        }
        out[field.name] = list;
        break;
      }
      case ShapeField::Type::Choice: {
        const std::string s = given->string();
        if (std::find(field.choices.begin(), field.choices.end(), s) == field.choices.end())
          given->fail(fmt::format("'{}' is not one of: {}", s, fmt::join(field.choices, ", ")));
        out[field.name] = s;
      }
    }
  }
  if (const std::string problem = op.check_shape(out); !problem.empty()) f.fail(problem);
  return out;
}

// "name", or for CUDA "name<ARG, ...>": a template instance NVRTC resolves.
// Each argument is a literal (64, true, 0.5f), a type (float), or a shape
// variable or parameter, substituted per configuration (instantiate_entry).
std::string load_entry(const JsonField& f, const std::vector<std::string>& backends) {
  const std::string text = f.string();
  const auto lt = text.find('<');
  if (lt == std::string::npos) return f.identifier("kernel entry point name");
  if (!is_identifier(text.substr(0, lt)) || text.back() != '>' || text.find_first_of("<>", lt + 1) != text.size() - 1)
    f.fail("expected a kernel entry point name, or a template instance \"name<ARG, ...>\" (no nested templates)");
  for (const auto& backend : backends)
    if (backend != "cuda")
      f.fail(
          fmt::format("'{}' is a templated entry, resolved by NVRTC; {} has no templates: give the kernel "
                      "\"backends\": [\"cuda\"]",
                      text, backend));
  static const std::regex argument(R"(\s*[A-Za-z0-9_.+\-]+\s*)");
  const std::string args = text.substr(lt + 1, text.size() - lt - 2);
  for (std::size_t start = 0;;) {
    const std::size_t comma = args.find(',', start);
    const std::string arg = args.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!std::regex_match(arg, argument))
      f.fail(fmt::format("template argument '{}' is not a literal, a type or a name", arg));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return text;
}

std::vector<Expression> load_dims(const JsonField& f, const std::vector<std::string>& names,
                                  const std::vector<std::string>& opaque) {
  std::vector<Expression> dims;
  for (const auto& e : f.elements()) dims.push_back(parse_expression(e, names, opaque));
  if (dims.empty() || dims.size() > 3) f.fail("expected 1 to 3 dimensions");
  return dims;
}

std::vector<TensorMapSpec> load_tensor_maps(const JsonField& f, const std::vector<std::string>& names) {
  std::vector<TensorMapSpec> maps;
  for (const auto& m : f.elements()) {
    m.expect_object({"buffer", "element", "dims", "box", "swizzle"});
    TensorMapSpec t;
    t.buffer = m.member("buffer").identifier("buffer name");
    if (auto e = m.optional_member("element")) {
      t.element = e->string();
      if (t.element != "f16" && t.element != "bf16" && t.element != "f32")
        e->fail("expected \"f16\", \"bf16\" or \"f32\" (or no element: the shape's dtype)");
    }
    const JsonField dims = m.member("dims");
    for (const auto& d : dims.elements()) t.dims.push_back(parse_expression(d, names));
    if (t.dims.empty() || t.dims.size() > 5) dims.fail("expected 1 to 5 dimensions, innermost first");
    const JsonField box = m.member("box");
    for (const auto& d : box.elements()) t.box.push_back(parse_expression(d, names));
    if (t.box.size() != t.dims.size()) box.fail(fmt::format("expected one entry per dim ({})", t.dims.size()));
    if (auto sw = m.optional_member("swizzle")) {
      t.swizzle = static_cast<int>(sw->integer());
      if (t.swizzle != 0 && t.swizzle != 32 && t.swizzle != 64 && t.swizzle != 128)
        sw->fail("expected 0, 32, 64 or 128 (bytes)");
    }
    maps.push_back(std::move(t));
  }
  return maps;
}

// One value of a parameter of KIND: a JSON integer is read as a real where the parameter is real.
ParamValue load_value(const JsonField& f, ParamValue::Kind kind) {
  const nlohmann::json& j = f.value();
  const bool fits = kind == ParamValue::Kind::integer   ? j.is_number_integer()
                    : kind == ParamValue::Kind::real    ? j.is_number()
                    : kind == ParamValue::Kind::boolean ? j.is_boolean()
                                                        : j.is_string();
  if (!fits)
    f.fail(fmt::format("expected {}, got {}",
                       kind == ParamValue::Kind::integer   ? "an integer"
                       : kind == ParamValue::Kind::real    ? "a real"
                       : kind == ParamValue::Kind::boolean ? "true or false"
                                                           : "an identifier",
                       j.type_name()));
  try {
    return kind == ParamValue::Kind::real ? ParamValue::real(j.get<double>()) : ParamValue::from_json(j);
  } catch (const std::invalid_argument& e) {
    f.fail(e.what());
  }
}

// A parameter's values, all of one kind: integers, reals (integers among reals
// read as reals: [0.5, 1]), booleans, or identifiers passed verbatim ("float").
std::vector<ParamValue> load_param_values(const JsonField& values) {
  const std::vector<JsonField> elements = values.elements();
  if (elements.empty()) values.fail("expected at least one value");
  ParamValue::Kind kind = ParamValue::Kind::integer;
  for (const auto& v : elements)
    if (v.value().is_number_float()) kind = ParamValue::Kind::real;
  if (kind != ParamValue::Kind::real) {
    try {
      kind = ParamValue::from_json(elements.front().value()).kind();
    } catch (const std::invalid_argument& e) {
      elements.front().fail(e.what());
    }
  }
  std::vector<ParamValue> list;
  std::set<std::string> seen;  // each value's JSON text: a repeat is found in log time, not by a scan of the list
  for (const auto& v : elements) {
    ParamValue value = load_value(v, kind);
    if (!seen.insert(value.to_json().dump()).second) values.fail("values repeat");
    list.push_back(std::move(value));
  }
  return list;
}

KernelSpec load_kernel(const std::string& name, const JsonField& f, const Spec& spec, const Operation& op) {
  f.expect_object({"description", "shapes", "backends", "params", "defines", "constraints", "launches", "workspace_bytes",
                   "tensor_maps", "arguments", "presets", "baseline"});
  KernelSpec k;
  k.name = name;
  if (auto d = f.optional_member("description")) k.description = d->string();

  const std::vector<std::string> variables = op.variable_names();
  std::vector<std::string> names = variables;
  std::vector<std::string> opaque;  // real and identifier parameters
  for (const auto& [param, values] : f.member("params").members()) {
    if (!is_identifier(param)) values.fail("a parameter name must be a C identifier");
    if (std::find(variables.begin(), variables.end(), param) != variables.end())
      values.fail(
          fmt::format("'{}' is a shape variable of operation '{}'; give the parameter another name", param, op.name()));
    std::vector<ParamValue> list = load_param_values(values);
    (list.front().is_bindable() ? names : opaque).push_back(param);
    k.params.emplace_back(param, std::move(list));
  }

  if (auto shapes = f.optional_member("shapes")) {
    for (const auto& s : shapes->elements()) {
      const std::string shape = s.string();
      if (std::none_of(spec.shapes.begin(), spec.shapes.end(), [&](const Shape& x) { return x.name == shape; }))
        s.fail(fmt::format("no shape named '{}' in this spec", shape));
      k.shapes.push_back(shape);
    }
  } else {
    for (const auto& s : spec.shapes) k.shapes.push_back(s.name);
  }

  if (auto backends = f.optional_member("backends")) {
    for (const auto& b : backends->elements()) {
      const std::string backend = b.string();
      if (!spec.sources.contains(backend)) b.fail(fmt::format("no '{}' source in this spec's sources", backend));
      k.backends.push_back(backend);
    }
  } else {
    for (const auto& [backend, _] : spec.sources) k.backends.push_back(backend);
  }

  if (auto defines = f.optional_member("defines")) {
    for (const auto& [define, expr] : defines->members()) {
      if (!is_identifier(define)) expr.fail("a define name must be a C identifier");
      if (std::any_of(k.params.begin(), k.params.end(), [&](auto& p) { return p.first == define; }))
        expr.fail("already a parameter: parameters are passed as -D options by themselves");
      k.defines.emplace_back(define, parse_expression(expr, names, opaque));
    }
  }
  if (auto constraints = f.optional_member("constraints"))
    for (const auto& c : constraints->elements()) {
      // An expression, or {"name": ..., "expr": ...}.
      std::string name;
      std::optional<JsonField> expr;
      if (c.value().is_object()) {
        c.expect_object({"name", "expr"});
        name = c.member("name").identifier("a constraint's name");
        expr = c.member("expr");
      } else {
        expr = c;
      }
      k.constraints.emplace_back(parse_expression(*expr, names, opaque).text(), names, std::move(name));
    }

  ArgumentNames argument_names{names, op.number_variable_names(), {}, op.has_params_struct()};
  for (const auto& shape : k.shapes) argument_names.buffers_by_shape[shape] = op.buffer_names(spec.shape(shape).fields);
  const JsonField launches = f.member("launches");
  for (const auto& l : launches.elements()) {
    l.expect_object({"entry", "grid", "block", "cluster", "shared_bytes", "arguments"});
    LaunchSpec launch;
    launch.entry = load_entry(l.member("entry"), k.backends);
    std::vector<std::string> grid_names = names;
    grid_names.push_back(kComputeUnitsVariable);  // the grid may size itself to the device (a persistent kernel)
    launch.grid = load_dims(l.member("grid"), grid_names, opaque);
    launch.block = load_dims(l.member("block"), names, opaque);
    if (auto cluster = l.optional_member("cluster")) launch.cluster = load_dims(*cluster, names, opaque);
    if (auto shared = l.optional_member("shared_bytes")) launch.shared_bytes = parse_expression(*shared, names, opaque);
    if (auto arguments = l.optional_member("arguments"))
      launch.arguments = load_kernel_arguments(*arguments, argument_names);
    k.launches.push_back(std::move(launch));
  }
  if (k.launches.empty()) launches.fail("needs at least one launch");
  if (auto ws = f.optional_member("workspace_bytes")) k.workspace_bytes = parse_expression(*ws, names, opaque);
  if (auto maps = f.optional_member("tensor_maps")) k.tensor_maps = load_tensor_maps(*maps, names);
  if (auto arguments = f.optional_member("arguments")) k.arguments = load_kernel_arguments(*arguments, argument_names);
  if (!op.has_params_struct() && k.arguments.empty())
    for (std::size_t i = 0; i < k.launches.size(); ++i)
      if (k.launches[i].arguments.empty())
        launches.elements()[i].fail(fmt::format(
            "operation '{}' has no parameter struct: declare this launch's `arguments` or the kernel's", op.name()));

  if (auto presets = f.optional_member("presets")) {
    for (const auto& [label, values] : presets->members()) {
      Config config;
      for (const auto& [param, list] : k.params) {
        if (!values.has(param)) values.fail(fmt::format("missing a value for parameter '{}'", param));
        config.emplace_back(param, load_value(values.member(param), list.front().kind()));
      }
      for (const auto& [key, value] : values.members())
        if (std::none_of(k.params.begin(), k.params.end(), [&](auto& p) { return p.first == key; }))
          value.fail("not a parameter of this kernel");
      k.presets.emplace_back(label, std::move(config));
    }
  }
  if (auto baseline = f.optional_member("baseline")) {
    k.baseline = baseline->string();
    if (std::none_of(k.presets.begin(), k.presets.end(), [&](auto& p) { return p.first == k.baseline; }))
      baseline->fail(fmt::format("'{}' is not one of this kernel's presets", k.baseline));
  }
  return k;
}

}  // namespace

Spec load_spec(const fs::path& path) {
  const SpecDocument doc = read_spec_document(path);
  const JsonField root = doc.root();
  root.expect_object({"attn_tune_spec", "name", "description", "operation", "custom", "sources", "include_dirs",
                      "compiler_options", "cuda_arch", "cuda_compiler", "verify", "shapes", "kernels"});

  Spec spec;
  spec.path = path;
  spec.sha256 = doc.sha256();
  spec.files = doc.files;

  const JsonField version = root.member("attn_tune_spec");
  if (version.integer() != 1) version.fail("unsupported spec format version (this attn-tune reads version 1)");
  spec.name = root.member("name").string();
  if (spec.name.empty() || spec.name.find_first_of("/\\ ") != std::string::npos)
    root.member("name").fail("must be a non-empty name without spaces or slashes (it names result files)");
  if (auto d = root.optional_member("description")) spec.description = d->string();

  const JsonField op_field = root.member("operation");
  spec.operation = op_field.string();
  const Operation* op = nullptr;
  if (spec.operation == "custom") {
    spec.custom_operation = load_custom_operation(root.member("custom"));
    op = spec.custom_operation.get();
  } else {
    if (auto custom = root.optional_member("custom")) custom->fail("only with \"operation\": \"custom\"");
    try {
      op = &find_operation(spec.operation);
    } catch (const UsageError& e) {
      op_field.fail(fmt::format("{} (or \"custom\", declared in the spec's \"custom\" section)", e.what()));
    }
  }

  spec.sources = load_sources(root.member("sources"));
  if (auto includes = root.optional_member("include_dirs")) {
    for (const auto& inc : includes->elements()) {
      const fs::path p = resolve(inc);
      std::error_code ec;
      if (!fs::is_directory(p, ec))
        inc.fail(fmt::format("include directory not found: {}{}", p.string(), ec ? ": " + ec.message() : ""));
      spec.include_dirs.push_back(p);
    }
  }
  if (auto options = root.optional_member("compiler_options")) {
    for (const auto& [backend, flags] : options->members()) {
      if (!spec.sources.contains(backend)) flags.fail(fmt::format("no '{}' source in this spec's sources", backend));
      for (const auto& flag : flags.elements()) spec.compiler_options[backend].push_back(flag.string());
    }
  }
  if (auto arch = root.optional_member("cuda_arch")) {
    spec.cuda_arch = arch->string();
    if (!std::regex_match(spec.cuda_arch, std::regex("sm_[0-9]+a?")))
      arch->fail("expected a CUDA architecture like sm_90 or sm_90a");
  }
  if (auto compiler = root.optional_member("cuda_compiler")) {
    spec.cuda_compiler = compiler->string();
    if (spec.cuda_compiler != "nvrtc" && spec.cuda_compiler != "nvcc")
      compiler->fail(fmt::format("unknown compiler '{}' (known: nvrtc, nvcc)", spec.cuda_compiler));
    if (!spec.sources.contains("cuda")) compiler->fail("no 'cuda' source in this spec's sources");
  }

  const JsonField shapes = root.member("shapes");
  for (const auto& [name, fields] : shapes.members()) {
    Shape shape{name, {}, {}};
    shape.fields = load_shape(fields, *op, shape.copied_from);
    spec.shapes.push_back(std::move(shape));
  }
  if (spec.shapes.empty()) shapes.fail("needs at least one shape");

  spec.tolerance = op->default_tolerance(spec.shapes.front().fields);
  if (auto verify = root.optional_member("verify")) {
    verify->expect_object({"rel_l2", "max_abs", "max_rows"});
    if (auto v = verify->optional_member("rel_l2")) spec.tolerance.rel_l2 = v->number();
    if (auto v = verify->optional_member("max_abs")) spec.tolerance.max_abs = v->number();
    if (auto v = verify->optional_member("max_rows")) {
      spec.tolerance.max_rows = v->integer();
      if (spec.tolerance.max_rows < 1) v->fail("rows to verify must be at least 1 (leave max_rows out for the default)");
    }
    if (!(spec.tolerance.rel_l2 > 0) || !(spec.tolerance.max_abs > 0)) verify->fail("tolerances must be > 0");
  }

  const JsonField kernels = root.member("kernels");
  for (const auto& [name, k] : kernels.members()) {
    if (!is_identifier(name)) k.fail("a kernel name must be an identifier");
    spec.kernels.push_back(load_kernel(name, k, spec, *op));
  }
  if (spec.kernels.empty()) kernels.fail("needs at least one kernel");
  if (const auto reference = op->device_reference()) {
    const JsonField ref = root.member("custom").member("reference");
    const auto it = std::find_if(spec.kernels.begin(), spec.kernels.end(),
                                 [&](const KernelSpec& k) { return k.name == reference->kernel; });
    if (it == spec.kernels.end())
      ref.member("kernel").fail(fmt::format("no kernel named '{}' in this spec", reference->kernel));
    if (!reference->preset.empty() &&
        std::none_of(it->presets.begin(), it->presets.end(), [&](auto& p) { return p.first == reference->preset; }))
      ref.member("preset").fail(fmt::format("'{}' is not one of kernel '{}''s presets", reference->preset, it->name));
  }
  return spec;
}

}  // namespace attn
