#include "cli/object_loader.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "api/resource_registry.h"
#include "api/validation/validation.h"
#include "encoding/document_reader.h"

namespace dralloc::cli {

void AddFilenameOption(CLI::App& command, std::vector<std::string>& paths) {
  command
      .add_option("-f,--filename", paths, "Files or directories (recursive)")
      ->required()
      ->take_all();
}
namespace {

namespace fs = std::filesystem;

bool IsManifest(const fs::path& path) {
  const std::string ext = path.extension().string();
  return ext == ".yaml" || ext == ".yml" || ext == ".json";
}

// Expands `path` into the files to read, or returns an error.
Status ExpandPath(const std::string& path, std::vector<std::string>& files) {
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (ec || !fs::exists(status))
    return NotFoundError(fmt::format("{}: no such file or directory", path));
  if (!fs::is_directory(status)) {
    files.push_back(path);
    return OkStatus();
  }
  std::vector<std::string> found;
  fs::recursive_directory_iterator it(path, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file(ec) && IsManifest(it->path()))
      found.push_back(it->path().string());
  }
  if (ec) return UnavailableError(fmt::format("{}: {}", path, ec.message()));
  std::sort(found.begin(), found.end());
  files.insert(files.end(), found.begin(), found.end());
  return OkStatus();
}

StatusOr<std::string> ReadFile(const std::string& path, size_t max_bytes) {
  std::error_code ec;
  const uintmax_t size = fs::file_size(path, ec);
  if (!ec && size > max_bytes) {
    return ResourceExhaustedError(
        fmt::format("{}: file is {} bytes, more than the limit of {} bytes",
                    path, size, max_bytes));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return UnavailableError(fmt::format("{}: cannot open for reading", path));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return UnavailableError(fmt::format("{}: read error", path));
  return buffer.str();
}

void LoadFile(const std::string& path, const api::DecodeOptions& options,
              LoadResult& out) {
  const encoding::ReadLimits limits;
  StatusOr<std::string> bytes = ReadFile(path, limits.max_input_bytes);
  if (!bytes.ok()) {
    out.failures.push_back(bytes.status());
    return;
  }
  Status status = encoding::VisitDocuments(
      *bytes, path,
      [&](const encoding::Document& document, simdjson::dom::element root) {
        for (api::DecodeResult& result : api::DecodeElement(root, options)) {
          out.objects.push_back(
              {path, document.index, document.line, std::move(result)});
        }
      },
      limits);
  if (!status.ok()) out.failures.push_back(std::move(status));
}

}  // namespace

std::string LoadedObject::Location() const {
  return fmt::format("{}:{}: {}", source, line, result.DisplayName());
}

LoadResult LoadObjects(const std::vector<std::string>& paths,
                       const api::DecodeOptions& options) {
  LoadResult out;
  std::vector<std::string> files;
  for (const std::string& path : paths) {
    Status status = ExpandPath(path, files);
    if (!status.ok()) out.failures.push_back(std::move(status));
  }
  for (const std::string& file : files) LoadFile(file, options, out);
  return out;
}

void PutInNamespace(LoadResult& loaded, std::string_view namespace_) {
  for (LoadedObject& object : loaded.objects) {
    if (!object.result.object) continue;
    api::Object& decoded = *object.result.object;
    const api::ResourceInfo& info = api::ResourceInfoOf(decoded);
    api::ObjectMeta& meta = api::MetaOf(decoded);
    if (info.namespaced && meta.namespace_.empty()) {
      meta.namespace_ = std::string(namespace_);
    }
  }
}

bool ReportLoadFailures(const LoadResult& loaded, std::ostream& out) {
  for (const Status& failure : loaded.failures)
    out << "error: " << failure.message() << '\n';
  return !loaded.failures.empty();
}

void PrintFieldErrors(const api::ErrorList& errors, std::string_view prefix,
                      std::ostream& out) {
  for (const api::FieldError& error : errors)
    out << "  " << prefix << error.ToString() << '\n';
}

bool LoadValidObjects(const std::vector<std::string>& paths,
                      std::vector<api::Object>& objects, std::ostream& err) {
  LoadResult loaded = LoadObjects(paths, api::DecodeOptions{});
  if (ReportLoadFailures(loaded, err)) return false;
  PutInNamespace(loaded, "default");
  bool ok = true;
  for (LoadedObject& object : loaded.objects) {
    if (!object.result.errors.empty()) {
      err << fmt::format("error: {}: cannot decode\n", object.Location());
      PrintFieldErrors(object.result.errors, "  ", err);
      ok = false;
      continue;
    }
    api::ErrorList errors = api::ValidateDefaulted(*object.result.object);
    if (!errors.empty()) {
      err << fmt::format("error: {}: invalid\n", object.Location());
      PrintFieldErrors(errors, "  ", err);
      ok = false;
      continue;
    }
    objects.push_back(std::move(*object.result.object));
  }
  return ok;
}

}  // namespace dralloc::cli
