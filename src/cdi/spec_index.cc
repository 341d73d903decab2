#include "cdi/spec_index.h"

#include <fmt/format.h>

#include <algorithm>

#include "cdi/edits_merge.h"

namespace dralloc::cdi {

void SpecIndex::Put(SpecFilePtr file) {
  FileKey key{file->priority, file->file.native()};
  auto [it, inserted] = files_.try_emplace(key, nullptr);
  if (!inserted) {
    RemoveDefinitions(*it->second);
    bad_files_.erase(key);
  }
  it->second = file;
  if (!file->spec) {
    bad_files_.insert(std::move(key));
    new_errors_.push_back({file->file, file->error});
    return;
  }
  AddDefinitions(file);
}

void SpecIndex::Remove(int priority, const std::string& path) {
  auto it = files_.find(FileKey{priority, path});
  if (it == files_.end()) return;
  RemoveDefinitions(*it->second);
  bad_files_.erase(it->first);
  files_.erase(it);
}

SpecFilePtr SpecIndex::Find(int priority, const std::string& path) const {
  auto it = files_.find(FileKey{priority, path});
  return it == files_.end() ? nullptr : it->second;
}

std::vector<SpecFilePtr> SpecIndex::FilesOf(int priority) const {
  std::vector<SpecFilePtr> out;
  for (auto it = files_.lower_bound(FileKey{priority, ""});
       it != files_.end() && it->first.first == priority; ++it) {
    out.push_back(it->second);
  }
  return out;
}

void SpecIndex::SetDirectoryError(int priority,
                                  std::optional<SpecFileError> error) {
  if (!error) {
    directory_errors_.erase(priority);
    return;
  }
  auto it = directory_errors_.find(priority);
  if (it != directory_errors_.end() && it->second == *error) return;
  new_errors_.push_back(*error);
  directory_errors_.insert_or_assign(priority, *std::move(error));
}

void SpecIndex::Apply(const SpecIndexUpdate& update) {
  for (const auto& [priority, path] : update.removed) Remove(priority, path);
  for (const SpecFilePtr& file : update.put) Put(file);
  for (const auto& [priority, error] : update.directory_errors) {
    SetDirectoryError(priority, error);
  }
}

void SpecIndex::AddDefinitions(const SpecFilePtr& file) {
  const Spec& spec = *file->spec;
  for (size_t d = 0; d < spec.devices.size(); ++d) {
    std::string name = QualifiedName(spec.kind, spec.devices[d].name);
    definitions_[name][file->priority].insert_or_assign(file->file.native(),
                                                        Definition{file, d});
    UpdateConflict(name, file->priority);
  }
}

void SpecIndex::RemoveDefinitions(const LoadedSpecFile& file) {
  if (!file.spec) return;
  for (const Device& device : file.spec->devices) {
    std::string name = QualifiedName(file.spec->kind, device.name);
    auto by_name = definitions_.find(name);
    if (by_name == definitions_.end()) continue;
    auto by_dir = by_name->second.find(file.priority);
    if (by_dir == by_name->second.end()) continue;
    by_dir->second.erase(file.file.native());
    if (by_dir->second.empty()) by_name->second.erase(by_dir);
    if (by_name->second.empty()) definitions_.erase(by_name);
    UpdateConflict(name, file.priority);
  }
}

void SpecIndex::UpdateConflict(const std::string& name, int priority) {
  size_t count = 0;
  if (auto by_name = definitions_.find(name); by_name != definitions_.end()) {
    if (auto by_dir = by_name->second.find(priority);
        by_dir != by_name->second.end()) {
      count = by_dir->second.size();
    }
  }
  if (count < 2) {
    conflicts_.erase({priority, name});
    return;
  }
  conflicts_.insert({priority, name});
  std::vector<SpecFileError> errors = ConflictErrors(name, priority);
  new_errors_.insert(new_errors_.end(), errors.begin(), errors.end());
}

const SpecIndex::Definition* SpecIndex::Winner(
    const NameDefinitions& definitions) {
  if (definitions.empty()) return nullptr;
  const DirectoryDefinitions& top = definitions.rbegin()->second;
  return top.size() == 1 ? &top.begin()->second : nullptr;
}

std::vector<SpecFileError> SpecIndex::ConflictErrors(const std::string& name,
                                                     int priority) const {
  const DirectoryDefinitions& definitions =
      definitions_.find(name)->second.find(priority)->second;
  std::vector<SpecFileError> errors;
  for (const auto& [path, definition] : definitions) {
    std::string others;
    for (const auto& [other, unused] : definitions) {
      if (other == path) continue;
      if (!others.empty()) others += ", ";
      others += other;
    }
    errors.push_back(
        {definition.file->file,
         fmt::format("cdi spec {}: device \"{}\" is also defined in {} in "
                     "the same directory; all its definitions there are "
                     "ignored",
                     path, name, others)});
  }
  return errors;
}

StatusOr<ContainerEdits> SpecIndex::Resolve(
    std::span<const std::string> qualified_names) const {
  std::vector<const Definition*> found;
  std::string unresolved;
  for (const std::string& name : qualified_names) {
    auto it = definitions_.find(name);
    const Definition* winner =
        it == definitions_.end() ? nullptr : Winner(it->second);
    if (winner == nullptr) {
      unresolved += unresolved.empty() ? name : ", " + name;
    } else {
      found.push_back(winner);
    }
  }
  if (!unresolved.empty()) {
    return NotFoundError("unresolvable CDI devices: " + unresolved);
  }
  ContainerEdits edits;
  std::set<const LoadedSpecFile*> specs_applied;
  std::set<const Definition*> devices_applied;
  for (const Definition* definition : found) {
    if (!devices_applied.insert(definition).second) continue;
    const Spec& spec = *definition->file->spec;
    if (specs_applied.insert(definition->file.get()).second) {
      MergeEdits(edits, spec.container_edits);
    }
    MergeEdits(edits, spec.devices[definition->device].container_edits);
  }
  return edits;
}

std::vector<RegisteredDevice> SpecIndex::Devices() const {
  std::vector<RegisteredDevice> out;
  out.reserve(definitions_.size());
  for (const auto& [name, definitions] : definitions_) {
    if (const Definition* winner = Winner(definitions)) {
      out.push_back({name, winner->file->file, winner->file->priority});
    }
  }
  return out;
}

int SpecIndex::MaxPriority() const {
  int max = -1;
  if (!files_.empty()) max = std::max(max, files_.rbegin()->first.first);
  if (!conflicts_.empty()) max = std::max(max, conflicts_.rbegin()->first);
  if (!directory_errors_.empty()) {
    max = std::max(max, directory_errors_.rbegin()->first);
  }
  return max;
}

std::vector<SpecFileError> SpecIndex::Errors() const {
  std::vector<SpecFileError> errors;
  const int max_priority = MaxPriority();
  for (int priority = 0; priority <= max_priority; ++priority) {
    if (auto it = directory_errors_.find(priority);
        it != directory_errors_.end()) {
      errors.push_back(it->second);
    }
    for (auto it = bad_files_.lower_bound(FileKey{priority, ""});
         it != bad_files_.end() && it->first == priority; ++it) {
      const LoadedSpecFile& file = *files_.find(*it)->second;
      errors.push_back({file.file, file.error});
    }
    for (auto it = conflicts_.lower_bound({priority, ""});
         it != conflicts_.end() && it->first == priority; ++it) {
      std::vector<SpecFileError> conflict =
          ConflictErrors(it->second, priority);
      errors.insert(errors.end(), conflict.begin(), conflict.end());
    }
  }
  return errors;
}

std::vector<SpecFileError> SpecIndex::TakeNewErrors() {
  return std::exchange(new_errors_, {});
}

}  // namespace dralloc::cdi
