// Pending consumptions: submit() queues what cannot be funded yet, and every change that
// adds credit retries the queue in (timestamp, arrival) order. The queue holds only
// consumptions that would be rejected now: retries run after each credit-adding change,
// and every other change only takes credit away.
#include "engine.h"
#include "gpu_credit_ledger/cold_code.h"
#include "gpu_credit_ledger/ledger.h"
#include "pending_queue.h"
#include "value_checks.h"

namespace gcl {

GCL_COLD_CODE_BEGIN

Status Ledger::submit(std::string_view eventId, int64_t amount, int64_t timestamp,
                      SubmitOutcome* outcome) {
  const Status valid = checkConsumption(eventId, amount, timestamp);
  if (valid != Status::kOk) return valid;
  if (timestamp < horizon_) return Status::kBeforeHorizon;
  bool queued = false;
  const Status same = checkQueued(eventId, amount, timestamp, &queued);
  if (same != Status::kOk) return same;
  if (queued) {  // an identical retry of a queued one: it stays queued
    startReallocations();
    *outcome = SubmitOutcome::kQueued;
    return Status::kOk;
  }
  bool accepted = false;
  const Status status = consume(eventId, amount, timestamp, &accepted);
  if (status != Status::kOk) return status;
  if (accepted) {
    *outcome = SubmitOutcome::kAccepted;
    return Status::kOk;
  }
  const Status room = roomForEvent(pendingCount());
  if (room != Status::kOk) return room;
  if (!pending_) pending_ = std::make_unique<PendingQueue>();
  pending_->add({std::string(eventId), amount, timestamp});
  *outcome = SubmitOutcome::kQueued;
  return Status::kOk;
}

void Ledger::pending(std::vector<PendingConsumption>* out) const {
  out->clear();
  if (pending_) pending_->list(out);
}

size_t Ledger::pendingCount() const { return pending_ ? pending_->size() : 0; }

Status Ledger::cancelPending(std::string_view eventId, bool* cancelled) {
  if (!isValidId(eventId)) return Status::kInvalidId;
  startReallocations();
  *cancelled = pending_ && pending_->remove(eventId);
  return Status::kOk;
}

void Ledger::takeAcceptedPending(std::vector<PendingConsumption>* out) {
  out->clear();
  out->swap(acceptedPending_);
}

Status Ledger::consumptionWithoutRoom(std::string_view eventId, int64_t amount, int64_t timestamp,
                                      bool submit, bool* unchanged, bool* accepted) const {
  *unchanged = false;
  *accepted = false;
  const Status valid = checkConsumption(eventId, amount, timestamp);
  if (valid != Status::kOk) return valid;
  if (timestamp < horizon_) return Status::kBeforeHorizon;
  if (submit) {  // as submit() checks it
    bool queued = false;
    const Status same = checkQueued(eventId, amount, timestamp, &queued);
    if (same != Status::kOk) return same;
    if (queued) {  // an identical retry of a queued one: it stays queued
      *unchanged = true;
      return Status::kOk;
    }
  }
  bool retry = false;
  const Status admitted = admitConsumption(eventId, amount, timestamp, &retry);
  if (admitted != Status::kOk) return admitted;
  *unchanged = retry;
  *accepted = retry;
  return Status::kOk;
}

Status Ledger::grantWithoutRoom(std::string_view grantId, int64_t amount, int64_t startTime,
                                int64_t endTime, bool* unchanged) const {
  *unchanged = false;
  const Status valid = checkGrant(grantId, amount, startTime, endTime);
  if (valid != Status::kOk) return valid;
  return admitGrant(grantId, IdIndex::hash(grantId), amount, startTime, endTime, unchanged);
}

GCL_COLD_CODE_END

Status Ledger::checkPending(std::string_view eventId, int64_t amount, int64_t timestamp) const {
  bool queued = false;
  return checkQueued(eventId, amount, timestamp, &queued);
}

Status Ledger::checkQueued(std::string_view eventId, int64_t amount, int64_t timestamp,
                           bool* queued) const {
  const PendingConsumption* found = pending_ ? pending_->find(eventId) : nullptr;
  *queued = found != nullptr;
  if (found != nullptr && (found->amount != amount || found->timestamp != timestamp)) {
    return Status::kDuplicateId;
  }
  return Status::kOk;
}

void Ledger::acceptEventId(std::string_view eventId) {
  acceptEventId(eventId, IdIndex::hash(eventId));
}

void Ledger::acceptEventId(std::string_view eventId, uint32_t idHash) {
  eventIds_->add(eventId, idHash);
  if (pending_) pending_->remove(eventId);
}

void Ledger::retryPending() {
  if (!pending_ || pending_->empty()) return;
  // Accepting one only takes credit away, so one pass in retry order finds every one
  // that the change lets in.
  std::vector<PendingConsumption> waiting;
  pending_->list(&waiting);
  for (PendingConsumption& candidate : waiting) {
    if (roomForEvent() != Status::kOk) break;
    if (!engine_->consume(candidate.amount, candidate.timestamp)) continue;
    mirrorConsumption(candidate.amount, candidate.timestamp);
    acceptEventId(candidate.eventId);
    acceptedPending_.push_back(std::move(candidate));
  }
}

}  // namespace gcl
