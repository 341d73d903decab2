// ObjectLoader: turns the -f PATH… arguments of a command into decoded objects.
#ifndef DRALLOC_CLI_OBJECT_LOADER_H_
#define DRALLOC_CLI_OBJECT_LOADER_H_

#include <CLI/CLI.hpp>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "api/codec.h"
#include "common/status.h"

namespace dralloc::cli {

// The required -f/--filename PATH... option (files or directories).
void AddFilenameOption(CLI::App& command, std::vector<std::string>& paths);

// One object read from a file (or a problem with it).
struct LoadedObject {
  std::string source;  // file path
  int document = 0;    // 0-based document index in the file
  int line = 1;        // line where the document starts
  api::DecodeResult result;
  // "file:line: Kind ns/name" for messages.
  std::string Location() const;
};

struct LoadResult {
  std::vector<LoadedObject> objects;
  // Files that could not be read or parsed (each message names the file).
  std::vector<Status> failures;
};

// Expands files and directories (recursively: *.yaml, *.yml, *.json, in
// sorted order) and decodes every document of every file. A file that cannot
// be read or parsed lands in `failures`; the other files are still loaded.
LoadResult LoadObjects(const std::vector<std::string>& paths,
                       const api::DecodeOptions& options);

// As kubectl sends them: a decoded namespaced object without
// metadata.namespace goes to `namespace_` (the context's namespace,
// "default" without a kubeconfig), so that offline commands answer for the
// objects a cluster would hold.
void PutInNamespace(LoadResult& loaded, std::string_view namespace_);

// Writes "error: <message>" to `out` for each input that could not be
// loaded; returns true if there was any.
bool ReportLoadFailures(const LoadResult& loaded, std::ostream& out);

// Writes each error on its own indented line, after `prefix`.
void PrintFieldErrors(const api::ErrorList& errors, std::string_view prefix,
                      std::ostream& out);

// The objects of -f PATH… decoded (strictly), put in namespace "default"
// when namespaced without one, and validated; every problem is printed to
// `err` ("error: file:line: Kind ns/name: cannot decode|invalid" and the
// field errors). False when anything could not be read, decoded or
// validated; `objects` then holds the good ones.
bool LoadValidObjects(const std::vector<std::string>& paths,
                      std::vector<api::Object>& objects, std::ostream& err);

}  // namespace dralloc::cli

#endif  // DRALLOC_CLI_OBJECT_LOADER_H_
