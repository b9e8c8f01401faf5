// Runs a ledger script natively and prints one result per line, then the snapshot as JSON,
// so that tests/js/determinism.test.js can hold the WASM build to the same answers.
// Script lines: "G id amount start end" | "C id amount timestamp" | "B timestamp" | "A id".
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "gpu_credit_ledger/ledger.h"

namespace {

std::string quoted(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      static const char* const kHex = "0123456789abcdef";
      out += "\\u00";
      out += kHex[(c >> 4) & 0xF];
      out += kHex[c & 0xF];
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string snapshotJson(const gcl::Ledger& ledger) {
  std::ostringstream out;
  // The package's toJSON() document, version 2 (docs/semantics.md, "Snapshots").
  out << "{\"format\":\"gpu-credit-ledger\",\"version\":2,\"horizon\":" << ledger.horizon()
      << ",\"grants\":[";
  for (size_t i = 0; i < ledger.grantCount(); ++i) {
    const gcl::GrantRecord g = ledger.grant(i);
    out << (i ? "," : "") << "{\"grantId\":" << quoted(g.grantId) << ",\"amount\":" << g.amount
        << ",\"startTime\":" << g.startTime << ",\"endTime\":" << g.endTime << "}";
  }
  out << "],\"consumptions\":[";
  for (size_t i = 0; i < ledger.consumptionCount(); ++i) {
    const gcl::ConsumptionRecord c = ledger.consumption(i);
    out << (i ? "," : "") << "{\"eventId\":" << quoted(c.eventId) << ",\"amount\":" << c.amount
        << ",\"timestamp\":" << c.timestamp << "}";
  }
  out << "]}";
  return out.str();
}

}  // namespace

int main() {
  gcl::Ledger ledger;
  std::string line;
  while (std::getline(std::cin, line)) {
    std::istringstream in(line);
    std::string op;
    std::string id;
    int64_t amount = 0;
    int64_t a = 0;
    int64_t b = 0;
    in >> op;
    if (op == "G") {
      in >> id >> amount >> a >> b;
      std::cout << gcl::statusName(ledger.addGrant(id, amount, a, b)) << "\n";
    } else if (op == "C") {
      in >> id >> amount >> a;
      bool accepted = false;
      const gcl::Status status = ledger.consume(id, amount, a, &accepted);
      std::cout << gcl::statusName(status) << " " << (status == gcl::Status::kOk && accepted)
                << "\n";
    } else if (op == "B") {
      in >> a;
      int64_t balance = 0;
      ledger.getBalance(a, &balance);
      std::cout << balance << "\n";
    } else if (op == "A") {
      in >> id;
      std::vector<gcl::Allocation> allocations;
      if (ledger.allocations(id, &allocations) != gcl::Status::kOk) {
        std::cout << "null\n";
        continue;
      }
      for (size_t i = 0; i < allocations.size(); ++i) {
        std::cout << (i ? "," : "") << allocations[i].grantId << ":" << allocations[i].amount;
      }
      std::cout << "\n";
    } else {
      std::cerr << "unknown script line: " << line << "\n";
      return 2;
    }
  }
  std::cout << snapshotJson(ledger) << "\n";
  return 0;
}
