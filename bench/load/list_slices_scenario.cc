#include "load/list_slices_scenario.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/beast/http/verb.hpp>
#include <chrono>
#include <nlohmann/json.hpp>

#include "load/http_connection.h"
#include "load/list_body_scanner.h"
#include "load/object_manifests.h"
#include "load/parallel_requests.h"

namespace dralloc::load {
namespace {

namespace http = boost::beast::http;
using Clock = std::chrono::steady_clock;
using nlohmann::json;

constexpr std::chrono::seconds kWriteTimeout(30);
constexpr std::chrono::seconds kListTimeout(300);
constexpr std::uint64_t kListBodyLimit = 8ull << 30;

std::string SliceName(const std::string& run_id, std::int64_t index) {
  return fmt::format("load-{}-slice-{}", run_id, index);
}

std::string NodeName(const std::string& run_id, std::int64_t index) {
  return fmt::format("load-{}-node-{}", run_id, index);
}

void Finish(ListTiming& timing) {
  if (timing.seconds.empty()) return;
  std::vector<double> sorted = timing.seconds;
  std::sort(sorted.begin(), sorted.end());
  const std::size_t middle = sorted.size() / 2;
  timing.median_seconds = sorted.size() % 2 == 1
                              ? sorted[middle]
                              : (sorted[middle - 1] + sorted[middle]) / 2;
  timing.min_seconds = sorted.front();
}

// One unpaginated GET of all slices.
void TimeFullList(HttpConnection& connection, ListSlicesReport& report) {
  const Clock::time_point start = Clock::now();
  StatusOr<HttpResult> result =
      connection.Send(http::verb::get, ResourceSlicesPath());
  const double seconds = SecondsBetween(start, Clock::now());
  if (!IsSuccess(result)) {
    ++report.full_list.errors[ErrorKey(result)];
    if (!result.ok()) report.problems.push_back(result.status().ToString());
    return;
  }
  report.full_list.seconds.push_back(seconds);
  report.full_list.bytes = static_cast<std::int64_t>(result->body.size());
  report.full_list.pages = 1;
  StatusOr<ListBodySummary> summary = ScanListBody(result->body);
  if (!summary.ok()) {
    report.problems.push_back(
        fmt::format("full list: {}", summary.status().ToString()));
    return;
  }
  report.full_list.items = summary->item_count;
  if (!summary->continue_token.empty()) {
    report.problems.push_back(
        "full list without limit returned a continue token");
  }
}

// One walk over all slices with limit=page_limit, following continue.
void TimePaginatedWalk(HttpConnection& connection, ListSlicesReport& report,
                       std::int64_t expected_items,
                       Clock::time_point deadline) {
  const int limit = report.options.page_limit;
  // Bound on pages: everything we created plus a generous margin for slices
  // that were there before.
  const std::int64_t max_pages = expected_items / limit + 1000;
  std::string continue_token;
  std::string first_resource_version;
  std::int64_t items = 0;
  std::int64_t bytes = 0;
  std::int64_t pages = 0;
  const Clock::time_point start = Clock::now();
  do {
    if (pages >= max_pages || Clock::now() >= deadline) {
      report.problems.push_back(
          fmt::format("paginated walk stopped after {} pages (bound)", pages));
      return;
    }
    std::string path = fmt::format("{}?limit={}", ResourceSlicesPath(), limit);
    if (!continue_token.empty()) {
      path += "&continue=" + UrlEncode(continue_token);
    }
    StatusOr<HttpResult> result = connection.Send(http::verb::get, path);
    if (!IsSuccess(result)) {
      ++report.paginated.errors[ErrorKey(result)];
      return;
    }
    ++pages;
    bytes += static_cast<std::int64_t>(result->body.size());
    StatusOr<ListBodySummary> summary = ScanListBody(result->body);
    if (!summary.ok()) {
      report.problems.push_back(
          fmt::format("page {}: {}", pages, summary.status().ToString()));
      return;
    }
    if (summary->item_count > limit) {
      report.problems.push_back(
          fmt::format("page {} has {} items, more than limit={}", pages,
                      summary->item_count, limit));
    }
    if (pages == 1) {
      first_resource_version = summary->resource_version;
    } else if (summary->resource_version != first_resource_version) {
      report.problems.push_back(fmt::format(
          "page {} has list resourceVersion {:?}, page 1 had {:?} (pages must "
          "share one snapshot)",
          pages, summary->resource_version, first_resource_version));
    }
    items += summary->item_count;
    continue_token = summary->continue_token;
  } while (!continue_token.empty());
  report.paginated.seconds.push_back(SecondsBetween(start, Clock::now()));
  report.paginated.items = items;
  report.paginated.bytes = bytes;
  report.paginated.pages = pages;
}

json TimingJson(const ListTiming& timing) {
  return {{"seconds", timing.seconds},
          {"median_seconds", timing.median_seconds},
          {"min_seconds", timing.min_seconds},
          {"bytes", timing.bytes},
          {"items", timing.items},
          {"pages", timing.pages},
          {"errors_by_status", timing.errors}};
}

std::string KibText(const std::optional<std::int64_t>& kib) {
  return kib.has_value() ? fmt::format("{:.1f} MiB", *kib / 1024.0) : "n/a";
}

}  // namespace

bool ListSlicesReport::HasErrors() const {
  return !create_errors.empty() || !full_list.errors.empty() ||
         !paginated.errors.empty() || !delete_errors.empty() ||
         !problems.empty() || created < options.slices;
}

StatusOr<ListSlicesReport> RunListSlicesScenario(
    const ListSlicesOptions& options_in) {
  ListSlicesReport report;
  report.options = options_in;
  ListSlicesOptions& options = report.options;
  if (options.run_id.empty()) options.run_id = MakeRunId();
  const Clock::time_point deadline =
      Clock::now() +
      std::chrono::duration_cast<Clock::duration>(
          std::chrono::duration<double>(options.timeout_seconds));
  if (options.server_pid > 0) {
    report.rss_before_kib = ReadVmRssKib(options.server_pid);
  }

  // Every slice has the same size, so one manifest is built and only the
  // names are patched in per request.
  json manifest = ResourceSliceManifest("placeholder", "placeholder",
                                        options.devices, options.run_id);
  ParallelRequestsResult created = RunParallelRequests(
      options.target, options.slices, options.clients, kWriteTimeout, deadline,
      [&](HttpConnection& connection, std::int64_t index) {
        json slice = manifest;
        slice["metadata"]["name"] = SliceName(options.run_id, index);
        const std::string node = NodeName(options.run_id, index);
        slice["spec"]["nodeName"] = node;
        slice["spec"]["pool"]["name"] = node;
        return connection.Send(http::verb::post, ResourceSlicesPath(),
                               slice.dump());
      },
      [](std::int64_t, const HttpResult&) {});
  report.created = created.succeeded;
  report.create_seconds = created.seconds;
  report.creates_per_second =
      created.seconds > 0 ? created.succeeded / created.seconds : 0;
  report.create_errors = created.errors;
  if (created.not_sent > 0) report.create_errors["not-sent"] = created.not_sent;
  report.create_latency = SummarizeLatencies(std::move(created.latencies_us));
  if (options.server_pid > 0) {
    report.rss_after_create_kib = ReadVmRssKib(options.server_pid);
  }

  HttpConnection lister(options.target, kListTimeout);
  lister.set_body_limit(kListBodyLimit);
  for (int rep = 0; rep < options.repetitions && Clock::now() < deadline;
       ++rep) {
    TimeFullList(lister, report);
  }
  Finish(report.full_list);
  for (int rep = 0; rep < options.repetitions && Clock::now() < deadline;
       ++rep) {
    TimePaginatedWalk(lister, report, options.slices, deadline);
  }
  Finish(report.paginated);
  if (report.full_list.items < report.created) {
    report.problems.push_back(
        fmt::format("full list had {} items but {} slices were created",
                    report.full_list.items, report.created));
  }
  if (report.paginated.items < report.created) {
    report.problems.push_back(
        fmt::format("paginated walk saw {} items but {} slices were created",
                    report.paginated.items, report.created));
  }
  if (report.paginated.items != report.full_list.items) {
    report.problems.push_back(
        fmt::format("paginated walk saw {} items, full list {}",
                    report.paginated.items, report.full_list.items));
  }
  if (options.server_pid > 0) {
    report.rss_after_lists_kib = ReadVmRssKib(options.server_pid);
  }

  if (options.cleanup) {
    ParallelRequestsResult deleted = RunParallelRequests(
        options.target, options.slices, options.clients, kWriteTimeout,
        deadline,
        [&](HttpConnection& connection, std::int64_t index) {
          return connection.Send(http::verb::delete_,
                                 fmt::format("{}/{}", ResourceSlicesPath(),
                                             SliceName(options.run_id, index)));
        },
        [](std::int64_t, const HttpResult&) {});
    report.deleted = deleted.succeeded;
    report.delete_errors = deleted.errors;
  }
  return report;
}

std::string FormatListSlicesReportText(const ListSlicesReport& report) {
  const ListSlicesOptions& options = report.options;
  std::string text = fmt::format(
      "list-slices: {} slices x {} devices, {} clients, run {}\n",
      options.slices, options.devices, options.clients, options.run_id);
  text += fmt::format(
      "create: {} ok in {:.2f} s ({:.1f}/s), p50 {:.2f} ms, p99 {:.2f} ms, "
      "max {:.2f} ms; errors:{}\n",
      report.created, report.create_seconds, report.creates_per_second,
      report.create_latency.p50_ms, report.create_latency.p99_ms,
      report.create_latency.max_ms, ErrorsText(report.create_errors));
  const auto timing_line = [](std::string_view label, const ListTiming& t) {
    return fmt::format(
        "{}: median {:.3f} s, min {:.3f} s over {} runs; {} items, {} "
        "pages, {:.1f} MiB; errors:{}\n",
        label, t.median_seconds, t.min_seconds, t.seconds.size(), t.items,
        t.pages, t.bytes / (1024.0 * 1024.0), ErrorsText(t.errors));
  };
  text += timing_line("full list", report.full_list);
  text += timing_line(fmt::format("limit={} walk", options.page_limit),
                      report.paginated);
  if (options.server_pid > 0) {
    text += fmt::format(
        "server VmRSS: before {}, after create {}, after lists {}\n",
        KibText(report.rss_before_kib), KibText(report.rss_after_create_kib),
        KibText(report.rss_after_lists_kib));
    if (report.rss_before_kib && report.rss_after_create_kib &&
        report.created > 0) {
      text += fmt::format(
          "memory per slice: {:.1f} KiB (after create - before) / created\n",
          static_cast<double>(*report.rss_after_create_kib -
                              *report.rss_before_kib) /
              report.created);
    }
  }
  if (options.cleanup) {
    text += fmt::format("cleanup: {} deleted; errors:{}\n", report.deleted,
                        ErrorsText(report.delete_errors));
  }
  for (const std::string& problem : report.problems) {
    text += fmt::format("PROBLEM: {}\n", problem);
  }
  return text;
}

std::string FormatListSlicesReportJson(const ListSlicesReport& report) {
  const auto optional_kib = [](const std::optional<std::int64_t>& kib) {
    return kib.has_value() ? json(*kib) : json(nullptr);
  };
  const json document = {
      {"scenario", "list-slices"},
      {"slices", report.options.slices},
      {"devices", report.options.devices},
      {"clients", report.options.clients},
      {"run_id", report.options.run_id},
      {"create",
       {{"succeeded", report.created},
        {"seconds", report.create_seconds},
        {"ops_per_second", report.creates_per_second},
        {"latency_ms",
         {{"p50", report.create_latency.p50_ms},
          {"p90", report.create_latency.p90_ms},
          {"p99", report.create_latency.p99_ms},
          {"max", report.create_latency.max_ms}}},
        {"errors_by_status", report.create_errors}}},
      {"full_list", TimingJson(report.full_list)},
      {"paginated", TimingJson(report.paginated)},
      {"page_limit", report.options.page_limit},
      {"server_rss_kib",
       {{"before", optional_kib(report.rss_before_kib)},
        {"after_create", optional_kib(report.rss_after_create_kib)},
        {"after_lists", optional_kib(report.rss_after_lists_kib)}}},
      {"deleted", report.deleted},
      {"delete_errors_by_status", report.delete_errors},
      {"problems", report.problems},
  };
  return document.dump(2) + "\n";
}

}  // namespace dralloc::load
