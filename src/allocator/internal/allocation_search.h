// AllocationSearch: one Allocate call — request preparation (upstream's
// validateDeviceRequest; allocation_preparation.cc), the depth-first search
// (upstream's allocateOne / allocateDevice, plus sound pruning;
// allocation_search.cc), result building (allocation_results.cc) and
// explanations (allocation_explanation.cc). Internal to the allocator: only
// allocator.cc includes it.
#ifndef DRALLOC_ALLOCATOR_INTERNAL_ALLOCATION_SEARCH_H_
#define DRALLOC_ALLOCATOR_INTERNAL_ALLOCATION_SEARCH_H_

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "allocator/allocated_state.h"
#include "allocator/allocator.h"
#include "allocator/claim_constraint.h"
#include "allocator/derived_attribute_evaluator.h"
#include "allocator/device_inventory.h"
#include "allocator/internal/compatibility_tracker.h"
#include "cel/program.h"

namespace dralloc::allocator {

// A compiled selector; `expression` points into the class or claim.
struct CompiledSelector {
  const std::string* expression = nullptr;
  std::shared_ptr<const cel::Program> program;
  DeviceInventory::VerdictTable verdicts = nullptr;
};

struct Candidate {
  uint32_t device = 0;    // inventory index
  uint32_t pool_pos = 0;  // index into NodeView::pools
  bool error = false;     // a selector failed with a runtime error
  // Allocated to a claim not in this call: 0 unknown, 1 no, 2 yes (looked up
  // when first needed; most searches visit few candidates).
  mutable uint8_t in_use_state = 0;
};

// One request without subrequests, or one subrequest.
struct RequestData {
  int claim = 0;
  int request = 0;
  int subrequest = -1;
  std::string name;  // "req" or "req/sub"
  std::string_view base_name;
  std::string_view sub_name;
  const api::DeviceClass* device_class = nullptr;
  std::vector<CompiledSelector> class_selectors;
  std::vector<CompiledSelector> request_selectors;
  bool all_mode = false;
  int num_devices = 0;
  bool admin = false;
  const std::vector<api::DeviceToleration>* tolerations = nullptr;
  const api::CapacityRequirements* capacity = nullptr;
  // Derived attributes (KEP-6080) and their values on each device the
  // selectors accepted (empty without derived attributes).
  // (Behind a pointer: most requests have none, and a request is set up
  // for every node the scheduler tries.)
  DerivedAttributeEvaluator derived;
  std::unique_ptr<std::unordered_map<uint32_t, DerivedValues>> derived_values;
  std::vector<Candidate> candidates;  // ExactCount, in upstream order
  std::vector<uint32_t> all_devices;  // All mode: every device to take
  // free_suffix[p]: candidates at positions >= p that are neither in use by
  // other claims nor erroneous (upper bound on what the search can still use).
  // Computed once the request's search first fails; until then the bound is
  // the number of candidates left.
  std::vector<uint32_t> free_suffix;
  bool backtracked = false;
  bool has_error_candidates = false;
  bool evaluated = false;  // candidates computed
};

struct RequestSlot {
  std::vector<RequestData> alternatives;  // 1 without subrequests
  bool has_subrequests = false;
  int selected = 0;
};

struct ClaimState {
  const api::ResourceClaim* claim = nullptr;
  std::string display;  // namespace/name
  std::vector<RequestSlot> slots;
  std::vector<std::unique_ptr<ClaimConstraint>> constraints;
  // Per constraint: whether some request derives its attribute (then the
  // static value-group bound does not apply).
  std::vector<bool> reads_derived;
  // For each CEL constraint: the request index after which it is complete.
  std::vector<int> cel_complete_after;
  // Per matchAttribute constraint (by index): values already judged by the
  // value-group bound in this call, and the verdict.
  std::vector<std::vector<std::pair<const api::DeviceAttribute*, bool>>>
      group_verdicts;
};

struct PickedDevice {
  uint32_t device = 0;
  const RequestData* request = nullptr;
  std::optional<std::string> share_id;
  std::map<std::string, Quantity> consumed;
};

// Where the depth-first search stands: the claim and request being filled,
// the alternative chosen for a request with subrequests, how many of the
// request's devices are placed and where its next candidate may come from.
// 16 bytes and trivially copyable, so it travels by value in two registers
// (x86-64 SysV, AArch64): the hottest recursion of the allocator passes one
// named cursor at no more cost than the six scalars it replaces.
struct SearchPosition {
  int32_t claim = 0;    // index into the claims of the call
  int32_t request = 0;  // index into the claim's requests (slots)
  // ExactCount: the first candidate position the next device may take, so
  // that a request tries combinations, not permutations. Candidates are
  // inventory devices, which are indexed by uint32_t.
  uint32_t start = 0;
  // Devices of the request placed so far; at most kMaxDevicesPerClaim, as
  // Step stops a claim that would need more.
  uint32_t device : 6 = 0;
  // Set once an alternative of a request with subrequests is chosen;
  // `subrequest` is then its index (otherwise 0, the only alternative).
  uint32_t in_subrequest : 1 = 0;
  uint32_t subrequest : 25 = 0;

  // The first request of the next claim.
  SearchPosition NextClaim() const { return {.claim = claim + 1}; }
  // The next request of this claim, no alternative chosen yet.
  SearchPosition NextRequest() const {
    return {.claim = claim, .request = request + 1};
  }
  // This request, filled by its alternative `index`.
  SearchPosition Alternative(int index) const {
    return {.claim = claim,
            .request = request,
            .in_subrequest = 1,
            .subrequest = static_cast<uint32_t>(index)};
  }
  // The next device of this request, searched from candidate position
  // `next_start` on (All-mode requests take their devices in order and pass
  // 0).
  SearchPosition NextDevice(size_t next_start) const {
    SearchPosition next = *this;
    next.device = device + 1;
    next.start = static_cast<uint32_t>(next_start);
    return next;
  }
};
static_assert(sizeof(SearchPosition) == 16);
static_assert(std::is_trivially_copyable_v<SearchPosition>);
static_assert(kMaxDevicesPerClaim < (1 << 6), "SearchPosition::device");

class AllocationSearch {
 public:
  AllocationSearch(const DeviceInventory& inventory,
                   const AllocatedState& state, const AllocatorOptions& options,
                   const NodeView& view,
                   std::span<const api::ResourceClaim* const> claims);
  ~AllocationSearch();

  // Validates the claims and computes candidates; errors are fatal.
  Status Prepare();
  StatusOr<Allocation> Run();

 private:
  enum class Outcome { kFail, kDone, kTooMany, kError };
  enum class Placement { kNo, kYes, kError };

  Status PrepareRequest(RequestData& data, bool& exact_too_large);
  // Evaluates the request's derived attributes on `device` once.
  Status EvaluateDerived(RequestData& data, uint32_t device);
  // The derived values of `device` for `data`, or null when it has none.
  static const DerivedValues* DerivedFor(const RequestData& data,
                                         uint32_t device);
  Status ComputeCandidates(RequestData& data);
  // Class then request selectors on one device; kError sets `error`.
  SelectorVerdict Selectable(const RequestData& data, uint32_t device,
                             Status* error);
  Status SelectorError(const RequestData& data, uint32_t device);

  Outcome Step(SearchPosition at);
  Placement Place(int claim, const RequestData& data, const Candidate& c,
                  bool must);
  void Unplace(int claim);
  bool InUseForRequest(int claim, const RequestData& data,
                       const Candidate& c) const;
  bool StaticallyInUse(const Candidate& c) const;
  void ComputeFreeSuffix(RequestData& data) const;
  bool CapacityFits(const RequestData& data, uint32_t device) const;
  bool TaintsTolerated(const RequestData& data, uint32_t device) const;
  bool AddCounters(uint32_t pool_pos, uint32_t device);
  // Whether `device` is compatible with the devices on its counter sets
  // (KEP-5963); if so it joins them.
  bool JoinCompatibilityGroups(uint32_t pool_pos, uint32_t device);
  void RemoveCounters(uint32_t pool_pos, uint32_t device);
  bool CheckCompleted(int claim, int request);
  bool ValueGroupFeasible(int claim, size_t index,
                          const InventoryDevice& device);
  // Visits every request alternative `constraint` covers (stopping early
  // when `visit` returns false, then -1) and returns the devices the covered
  // requests need at least; a request with an alternative outside the scope
  // needs none.
  int ConstrainedDemand(
      const ClaimState& cs, const ClaimConstraint& constraint,
      const std::function<bool(const RequestData&)>& visit) const;
  bool CountValueGroup(const ClaimState& cs, const ClaimConstraint& constraint,
                       const std::string& name, const std::string& id,
                       const api::DeviceAttribute& value) const;

  api::AllocationResult BuildResult(int claim) const;
  std::optional<api::NodeSelector> BuildNodeSelector(
      const std::vector<PickedDevice>& picked) const;
  // Explanation lines, the `*num_reasons` first of which say what blocks.
  std::vector<std::string> Explain(size_t* num_reasons);
  // Explain's parts (allocation_explanation.cc).
  struct RejectionTally;
  struct ExplanationLines;
  struct RequestFacts;
  struct ConstraintVerdict;
  struct ChoiceOutcomes;
  // What each request alternative of a claim could use on its own.
  using UsableDevices = std::map<const RequestData*, RequestFacts>;
  // Appends the lines of claim `cs` to `out`.
  void ExplainClaim(const ClaimState& cs, ExplanationLines& out);
  // Appends one detail line per request alternative of `cs` and fills
  // `usable`; a request without subrequests that has too few devices puts
  // its line in `slot_reasons`. True when every such request has enough.
  bool ExplainRequests(const ClaimState& cs, UsableDevices& usable,
                       ExplanationLines& out,
                       std::vector<std::string>& slot_reasons);
  // The devices `d` could use with no other claim of this call placed,
  // counting the others by cause in `tally`.
  std::vector<uint32_t> UsableOnItsOwn(const RequestData& d,
                                       RejectionTally& tally);
  bool RejectedBySelector(const RequestData& d, uint32_t device,
                          RejectionTally& tally) const;
  std::string RequestLine(const ClaimState& cs, const RequestData& d,
                          const RejectionTally& tally, size_t num_usable) const;
  // Appends the line of constraint `index` of `cs`, given what each request
  // alternative could use on its own (all alternatives together).
  void ExplainConstraint(const ClaimState& cs, size_t index,
                         const UsableDevices& usable,
                         ExplanationLines& out) const;
  // Judges matchAttribute/distinctAttribute constraint `index` of `cs` on
  // the usable devices of the request alternatives in `choice` (one per
  // request), or of all alternatives when `choice` is null.
  ConstraintVerdict JudgeConstraint(const ClaimState& cs, size_t index,
                                    const UsableDevices& usable,
                                    const std::vector<int>* choice) const;
  // For a claim with prioritized lists: judges every choice of one
  // alternative per request; puts the "no alternative fits" line of each
  // request none of whose alternatives can work in `slot_reasons` and the
  // constraint lines in `constraint_lines`. Returns the alternatives of the
  // first choice whose requests and constraints can each be met on their
  // own, when there is one.
  std::optional<std::vector<std::string>> ExplainChoices(
      const ClaimState& cs, const UsableDevices& usable,
      ExplanationLines& constraint_lines,
      std::vector<std::string>& slot_reasons) const;
  // ExplainChoices' parts: judges the constraints on one choice (one
  // alternative per request; on all alternatives together unless
  // `per_choice`), writes their lines once and records in `outcomes`
  // what the choice says about its alternatives.
  void JudgeChoice(const ClaimState& cs, const UsableDevices& usable,
                   const std::vector<int>& choice, bool per_choice,
                   ChoiceOutcomes& outcomes,
                   ExplanationLines& constraint_lines) const;
  // The "no alternative fits" line of each request none of whose
  // alternatives can work.
  void NoAlternativeReasons(const ClaimState& cs, const UsableDevices& usable,
                            const ChoiceOutcomes& outcomes,
                            std::vector<std::string>& slot_reasons) const;
  // "gpu/big: needs 2 of class ..., 0 usable" for a "no alternative fits"
  // line; `blocked_by` names the constraint that rules out an alternative
  // with enough devices.
  std::string AlternativePhrase(const RequestData& d, const RequestFacts& facts,
                                const std::string& blocked_by) const;
  std::string NoAlternativeLine(const ClaimState& cs, const RequestSlot& slot,
                                const std::vector<std::string>& phrases) const;

  const DeviceInventory& inventory_;
  const AllocatedState& state_;
  const AllocatorOptions& options_;
  const NodeView& view_;
  std::span<const api::ResourceClaim* const> claims_;
  std::vector<ClaimState> states_;
  AllocationStats stats_;
  Status fatal_;
  bool pruning_ = true;

  // Search state.
  std::vector<std::vector<PickedDevice>> picked_;  // per claim
  // Devices taken exclusively in this call (few; scanned linearly).
  std::vector<uint32_t> allocating_;
  std::unordered_map<uint32_t, std::map<std::string, Quantity>> sharing_;
  // Per pool position: available counters (lazily computed) and in-flight use.
  std::vector<std::vector<Quantity>> counters_available_;
  std::vector<std::vector<Quantity>> counters_used_;
  std::vector<bool> counters_ready_;
  // Per placement (parallel to picked_): constraints added, counters taken.
  struct Undo {
    int constraints_added = 0;
    bool counters = false;
    bool exclusive = false;
    bool groups = false;  // joined its counter sets' compatibility groups
    uint32_t pool_pos = 0;
  };
  // Created when a device with counter consumption is first placed.
  std::unique_ptr<CompatibilityTracker> compatibility_;
  std::vector<std::vector<Undo>> undo_;
};

}  // namespace dralloc::allocator

#endif  // DRALLOC_ALLOCATOR_INTERNAL_ALLOCATION_SEARCH_H_
